//! The register file under an AXI master this project did not write: cocotbext-axi's
//! `AxiLiteMaster` (cocotb 2.x) on the Verilog of `ferroce_registers_c64_q16` in Icarus Verilog
//! (`tests/cocotb/test_registers.py`): every register's reset value and access from the map,
//! DECERR for holes, byte strobes, and transactions in flight with random pauses on all five
//! channels.

mod tools;

use ferroce_contracts::regs::{Config, Kind, Map};
use ferroce_hdl::emit;
use serde_json::json;
use std::process::Command;

#[test]
fn cocotbext_axi_master_reads_and_writes_the_register_file() {
    let (variant, config) = ("c64_q16", Config::SMALL);
    let top = ferroce_hdl::tops::find("registers").unwrap();
    let module = top.module_name(variant);
    let verilog = top.verilog(variant);
    let dir = tools::scratch_dir("cocotb");
    let file = dir.join(format!("{module}.v"));
    std::fs::write(&file, &verilog).unwrap();

    let map = Map::new(config);
    let element = |r: &ferroce_contracts::regs::Register, i: u32| {
        json!({"name": r.name, "address": r.address(i), "reset": r.reset(), "read_mask": r.read_mask(),
               "write_mask": r.write_mask(), "writable": r.writable(), "kind": r.kind.name()})
    };
    // the stream block is the stream set's (in the engine): the register file alone answers
    // DECERR there, as at a hole
    let registers: Vec<_> = map
        .registers()
        .filter(|r| !r.kind.in_stream_set())
        .flat_map(|r| {
            [0, r.count - 1]
                .into_iter()
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .map(move |i| (r, i))
        })
        .map(|(r, i)| element(r, i))
        .collect();
    let rw: Vec<_> = map
        .registers()
        // the registers whose values are checked (SLVERR outside a range) take no random value
        .filter(|r| matches!(r.kind, Kind::Flops | Kind::QpContext | Kind::QueueConfig))
        .filter(|r| !["block_size", "read_response_queue"].contains(&r.name.as_str()))
        .map(|r| element(r, r.count - 1))
        .collect();
    let inputs: Vec<String> = emit::ports(&verilog, &module)
        .into_iter()
        .filter(|p| p.input && p.name != "clock" && p.name != "reset" && !p.name.starts_with("s_axil_"))
        .map(|p| p.name)
        .collect();
    let mut holes: Vec<u32> = [0x18, 0x2fc, 0x4_0054, 0x7_fffc, map.reg("poll").address(map.reg("poll").count)].to_vec();
    assert!(holes.iter().all(|&h| map.decode(h).is_none()));
    let streams = map.registers().filter(|r| r.kind.in_stream_set());
    holes.extend(streams.map(|r| r.address(r.count - 1)).take(3));
    let expectations = json!({
        "registers": registers,
        "rw": rw,
        "inputs": inputs,
        "holes": holes,
        "scratch": map.reg("scratch").offset,
        "init_cycles": config.channels / 32 + 4,
    });

    let (ok, log) = tools::run(
        Command::new(tools::venv_bin("python"))
            .arg(tools::root().join("tests/cocotb/run.py"))
            .arg(&file)
            .arg(&module)
            .arg(dir.join("build"))
            .arg("test_registers")
            .env("FERROCE_MAP", expectations.to_string())
            .env("COCOTB_ANSI_OUTPUT", "0"),
    );
    assert!(ok && log.contains("2 passed, 0 failed"), "cocotb:\n{log}");
    let _ = std::fs::remove_dir_all(dir);
}
