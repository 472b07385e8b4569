use ferroce_hdl::common::attributes::*;

#[test]
fn deep_memories_get_the_block_ram_attribute() {
    assert_eq!(memory_words("reg[16:0] mem[2047:0];"), Some(2048));
    assert_eq!(memory_words("reg[0:0] mem[255:0];"), Some(256));
    assert_eq!(memory_words("reg[3:0] count;"), None);
    let verilog = "module m(a);\n    reg[16:0] mem[2047:0];\n    reg[31:0] mem[255:0];\n    reg[3:0] count;\nendmodule\n";
    let marked = deep_memories_in_block_ram(verilog.to_string(), 2048);
    assert_eq!(
        marked,
        "module m(a);\n    (* ram_style = \"block\" *) reg[16:0] mem[2047:0];\n    reg[31:0] mem[255:0];\n    reg[3:0] count;\nendmodule\n"
    );
}

#[test]
fn a_lut_ram_is_never_put_in_block_ram() {
    let lut_ram = "module top__bus__mid_message(read_address,read_data,write_address,write_clock,write_data,write_enable);";
    let block_ram = "module top__tx__busy(read_address,read_clock,read_data,write_address,write_clock,write_data,write_enable);";
    assert!(!is_one_bit_memory(lut_ram, "reg[0:0] mem[255:0];"));
    assert!(is_one_bit_memory(block_ram, "reg[0:0] mem[2047:0];"));
    assert!(!is_one_bit_memory(block_ram, "reg[7:0] mem[2047:0];"));
    assert_eq!(module_name(block_ram), "module top__tx__busy");
    let verilog = format!("{lut_ram}\n    reg[0:0] mem[255:0];\nendmodule\n{block_ram}\n    reg[0:0] mem[2047:0];\nendmodule\n");
    let attributed = one_bit_memories_in_block_ram(verilog);
    assert_eq!(attributed.matches(BLOCK_RAM).count(), 1, "{attributed}");
    assert!(attributed.contains(&format!("{BLOCK_RAM}reg[0:0] mem[2047:0];")), "{attributed}");
}
