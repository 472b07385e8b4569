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
