use ferroce_hdl::rx::header::opcode_info;

#[test]
fn opcode_table_counts() {
    // 23 RC + 12 UC + 2 UD + CNP supported; RD and reserved opcodes not.
    let sup = (0..=255u8).filter(|&v| opcode_info(v) & 1 != 0).count();
    assert_eq!(sup, 23 + 12 + 2 + 1);
    assert_eq!(opcode_info(0x40), 0, "RD is not supported");
    assert_eq!((opcode_info(0x0B) >> 1) & 0x1F, 20, "RC WRITE ONLY IMM: RETH + ImmDt");
    assert_eq!((opcode_info(0x2C) & 1), 0, "UC READ is reserved");
}
