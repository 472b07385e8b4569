//! The AXI4 master under an AXI slave this project did not write: cocotbext-axi's `AxiRam`
//! (cocotb 2.x, which asserts that no burst crosses a 4 KiB boundary and that `WLAST` ends each
//! burst) on the Verilog of `ferroce_axi4_master_w64` and `_w512` in Icarus Verilog
//! (`tests/cocotb/test_axi4_master.py`): random writes and then reads of 1 to 4096 bytes at any
//! address, with random pauses on every channel, match the RAM byte for byte.

mod tools;

use serde_json::json;
use std::process::Command;

#[test]
fn cocotbext_axi_ram_takes_the_masters_writes_and_serves_its_reads() {
    let top = ferroce_hdl::tops::find("axi4_master").unwrap();
    for (variant, commands) in [("w64", 24), ("w512", 24)] {
        let module = top.module_name(variant);
        let dir = tools::scratch_dir(&format!("cocotb-axi4-{variant}"));
        let file = dir.join(format!("{module}.v"));
        std::fs::write(&file, top.verilog(variant)).unwrap();
        let (ok, log) = tools::run(
            Command::new(tools::venv_bin("python"))
                .arg(tools::root().join("tests/cocotb/run.py"))
                .arg(&file)
                .arg(&module)
                .arg(dir.join("build"))
                .arg("test_axi4_master")
                .env("FERROCE_AXI4", json!({"seed": 7, "commands": commands}).to_string())
                .env("COCOTB_ANSI_OUTPUT", "0"),
        );
        assert!(ok && log.contains("1 passed, 0 failed"), "cocotb at {variant}:\n{log}");
        let _ = std::fs::remove_dir_all(dir);
    }
}
