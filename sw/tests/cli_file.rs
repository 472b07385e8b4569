//! The mmap backend and the command line against a temporary file standing in for a BAR: a
//! memory image with a Ferroce ID block, read and written through `--device file:PATH`.

use ferroce_contracts::regs::{Config, Map};
use ferroce_contracts::tx::QP_CONTEXT;
use std::path::Path;
use std::process::Command;

/// A BAR image of `size` bytes with the ID block and the reset values of the flip-flop
/// registers of `config`'s map.
fn image(dir: &Path, size: usize, config: Config) -> std::path::PathBuf {
    let map = Map::new(config);
    let mut bytes = vec![0u8; size];
    for r in map.registers().filter(|r| (r.offset as usize) < size) {
        if let Some(v) = r.reset() {
            bytes[r.offset as usize..r.offset as usize + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
    let path = dir.join(format!("bar-{size}.bin"));
    std::fs::write(&path, bytes).unwrap();
    path
}

fn word(path: &Path, address: u32) -> u32 {
    let b = std::fs::read(path).unwrap();
    u32::from_le_bytes(b[address as usize..address as usize + 4].try_into().unwrap())
}

fn ctl(path: &Path, args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ferroce-ctl"))
        .arg("--device")
        .arg(format!("file:{}", path.display()))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn registers_by_name_and_address_through_the_mapped_file() {
    let dir = tempfile::tempdir().unwrap();
    let bar = image(dir.path(), 1 << 19, Config::SMALL);
    let map = Map::new(Config::SMALL);
    let scratch = map.reg("scratch").offset;

    let (code, out, err) = ctl(&bar, &["write", "scratch", "0x1234abcd"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("scratch"), "{out}");
    assert_eq!(word(&bar, scratch), 0x1234_abcd, "the write reached the mapped file");
    let (_, out, _) = ctl(&bar, &["read", &format!("{scratch:#x}")]);
    assert!(out.contains("0x1234abcd"), "{out}");

    let (code, out, _) = ctl(&bar, &["--json", "read", "block_size"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["fields"]["log2"]["value"], 16);
    assert_eq!(v["fields"]["log2"]["meaning"], "64 KiB");

    let (code, out, err) = ctl(&bar, &["info"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("64 channels") && out.contains("matches"), "{out}");

    // the QP context through its schema: words written, word 0 last
    let (code, _, err) = ctl(
        &bar,
        &[
            "qp",
            "set",
            "1",
            "--state",
            "rts",
            "--dst-ip",
            "10.0.0.2",
            "--dst-mac",
            "02:00:00:00:00:02",
            "--dqpn",
            "0x12",
            "--psn",
            "100",
            "--rkey",
            "0x55",
            "--pmtu",
            "4096",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let entry: Vec<u32> = (0..QP_CONTEXT.words() as u32)
        .map(|w| word(&bar, map.reg(&format!("qp_word{w}")).address(1)))
        .collect();
    assert_eq!(QP_CONTEXT.decode(&entry, "state"), 3);
    assert_eq!(QP_CONTEXT.decode(&entry, "dst_ip"), 0x0a00_0002);
    assert_eq!(QP_CONTEXT.decode(&entry, "dst_mac"), 0x0200_0000_0002);
    assert_eq!(QP_CONTEXT.decode(&entry, "pmtu"), 5);
    assert_eq!(
        QP_CONTEXT.decode(&entry, "udp_sport"),
        u128::from(ferroce_contracts::tx::udp_source_port_hash(1))
    );
    let (_, out, _) = ctl(&bar, &["--json", "qp", "show", "1"]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["context"]["state"], "rts");
    assert_eq!(v["context"]["dst_ip"], "10.0.0.2");

    let (code, out, _) = ctl(&bar, &["--json", "counters"]);
    assert_eq!(code, 0);
    assert!(out.contains("rx_drop_icrc"));
    let (code, out, _) = ctl(&bar, &["dump", "qos"]);
    assert_eq!(code, 0);
    assert!(out.contains("queue_config[0]") && out.contains("weight"), "{out}");
}

#[test]
fn errors_name_the_device_the_address_and_the_cause() {
    let dir = tempfile::tempdir().unwrap();
    // a window too small for the QP table
    let small = image(dir.path(), 4096, Config::SMALL);
    let (code, _, err) = ctl(&small, &["read", "qp_word0[0]"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("file:") && err.contains("0x40000") && err.contains("beyond the mapped window"),
        "{err}"
    );

    // a device whose memory space is off reads all ones
    let gone = dir.path().join("gone.bin");
    std::fs::write(&gone, vec![0xffu8; 4096]).unwrap();
    let (code, _, err) = ctl(&gone, &["info"]);
    assert_eq!(code, 2);
    assert!(err.contains("0xFFFFFFFF") && err.contains("0x00000"), "{err}");

    // a device built from another map
    let other = image(dir.path(), 1 << 19, Config::SMALL);
    let hash = Map::new(Config::SMALL).reg("map_hash").offset as usize;
    let mut bytes = std::fs::read(&other).unwrap();
    bytes[hash] ^= 1;
    std::fs::write(&other, bytes).unwrap();
    let (code, _, err) = ctl(&other, &["info"]);
    assert_eq!(code, 2);
    assert!(err.contains("register map") && err.contains("same revision"), "{err}");

    // no such file, no such register, an unknown device kind
    let (code, _, err) = ctl(&dir.path().join("missing"), &["info"]);
    assert_eq!(code, 2);
    assert!(err.contains("no such device"), "{err}");
    let bar = image(dir.path(), 1 << 19, Config::SMALL);
    let (code, _, err) = ctl(&bar, &["read", "no_such_register"]);
    assert_eq!(code, 2);
    assert!(err.contains("no_such_register"), "{err}");
    let o = Command::new(env!("CARGO_BIN_EXE_ferroce-ctl"))
        .args(["--device", "bogus:1", "info"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown device name"));
}
