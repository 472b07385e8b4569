//! Synthesis attributes added to emitted Verilog (rust-hdl has no attributes of its own).

/// `verilog` with an attribute in front of the declarations `attribute_of(module, declaration)`
/// names: `module` is the `module` line the declaration is in, `declaration` the line without
/// its indentation.
pub fn with_attributes(verilog: String, mut attribute_of: impl FnMut(&str, &str) -> Option<&'static str>) -> String {
    let mut out = String::with_capacity(verilog.len() + 4096);
    let mut module = String::new();
    for line in verilog.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with("module ") {
            module = t.trim_end().to_string();
        }
        if let Some(a) = attribute_of(&module, t) {
            out.push_str(&line[..line.len() - t.len()]);
            out.push_str(a);
            out.push_str(t);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Whether a declaration is a memory of one-bit words (`reg[0:0] mem[...]`) read on a clock,
/// in the module of header `module`: a LUT RAM (`LutRam`, no `read_clock`) is read at once and
/// cannot be block RAM.
pub fn is_one_bit_memory(module: &str, declaration: &str) -> bool {
    let read_at_once = module.contains("write_clock") && !module.contains("read_clock");
    declaration.starts_with("reg[0:0] mem[") && !read_at_once
}

/// The name of a module of header `module` (`module NAME(ports);`).
pub fn module_name(module: &str) -> &str {
    module.split('(').next().unwrap_or(module)
}

/// `(* ram_style = "block" *)` on every memory of one-bit words read on a clock: left alone,
/// yosys maps a 2048×1 memory to 32 RAM64M8 (256 LUTs, and a deep read multiplexer); Vivado
/// honours the attribute too.
pub fn one_bit_memories_in_block_ram(verilog: String) -> String {
    with_attributes(verilog, |module, declaration| {
        is_one_bit_memory(module, declaration).then_some(BLOCK_RAM)
    })
}

/// Words of a memory declaration (`reg[W:0] mem[D:0];` has D + 1), if it is one.
pub fn memory_words(declaration: &str) -> Option<usize> {
    let rest = declaration.strip_prefix("reg")?;
    let depth = rest.split(" mem[").nth(1)?.split(':').next()?;
    depth.parse::<usize>().ok().map(|last| last + 1)
}

/// `(* ram_style = "block" *)` on every memory of at least `words` words: yosys 0.23 maps a
/// 2048-word memory of a few bytes to LUT RAM and fails on it ("invalid OPTION_ABITS/WIDTH
/// combination"); in block RAM it is one or two RAMB36 anyway.
pub fn deep_memories_in_block_ram(verilog: String, words: usize) -> String {
    with_attributes(verilog, |_, declaration| {
        memory_words(declaration).is_some_and(|n| n >= words).then_some(BLOCK_RAM)
    })
}

/// The block RAM attribute.
pub const BLOCK_RAM: &str = "(* ram_style = \"block\" *) ";
