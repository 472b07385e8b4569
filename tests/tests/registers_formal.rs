//! The bounded formal check of the register file (`scripts/formal_registers.sh`): from reset,
//! with every input free, the AXI4-Lite responses and the post stream keep the handshake rules
//! and never answer a request that was not made; with a master that takes its responses, every
//! request is answered within 10 cycles (and not always within 9). Depths in the script.

mod tools;

use std::process::Command;

#[test]
fn every_request_is_answered_in_bounded_time_and_handshakes_hold() {
    let variant = "c64_q16";
    let top = ferroce_hdl::tops::find("registers").unwrap();
    let dir = tools::scratch_dir("formal");
    let file = dir.join(format!("{}.v", top.module_name(variant)));
    std::fs::write(&file, top.verilog(variant)).unwrap();
    let (ok, log) = tools::run(
        Command::new("bash")
            .arg(tools::root().join("scripts/formal_registers.sh"))
            .arg(&file)
            .args(["12", "16", "10"])
            .arg(dir.join("work")),
    );
    assert!(ok && log.contains("formal check passed"), "{log}");
    let _ = std::fs::remove_dir_all(dir);
}
