//! Independent oracles: frames and ICRCs made by scapy (vectors/make_scapy_vectors.py), and
//! Python's zlib.crc32 with its own masking code.

mod common;
use common::*;
use ferroce_wire::gen::FrameGen;
use ferroce_wire::icrc::{coverage, icrc, icrc_verdict, masked_input, IcrcVerdict};
use ferroce_wire::pcap::read_pcap;
use ferroce_wire::RoceFrame;
use rand::{Rng, RngCore};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

fn vectors() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/vectors"))
}

#[test]
fn scapy_vectors() {
    let frames = read_pcap(vectors().join("scapy_roce.pcap"), false).unwrap();
    let txt = std::fs::read_to_string(vectors().join("scapy_roce.txt")).unwrap();
    let lines: Vec<&str> = txt.lines().collect();
    assert_eq!(frames.len(), lines.len());
    assert!(frames.len() >= 40, "only {} frames", frames.len());
    let mut v6 = 0;
    let mut opcodes = std::collections::BTreeSet::new();
    for (i, (f, line)) in frames.iter().zip(&lines).enumerate() {
        let want = u32::from_le_bytes(unhex(line).try_into().unwrap());
        match icrc_verdict(f) {
            IcrcVerdict::Roce { computed, wire, ok } => {
                assert_eq!(computed, Some(want), "frame {i}: computed ICRC differs from scapy's");
                assert_eq!(wire, Some(want), "frame {i}");
                assert!(ok, "frame {i}");
            }
            v => panic!("frame {i}: {v:?}"),
        }
        let r = RoceFrame::parse(f).unwrap_or_else(|e| panic!("frame {i}: {e}"));
        assert_eq!(&r.emit(), f, "frame {i}: re-emit differs");
        v6 += matches!(r.ip, ferroce_wire::IpRepr::V6(_)) as usize;
        opcodes.insert(r.bth.opcode);
    }
    assert!(v6 > 0 && v6 < frames.len());
    assert!(opcodes.len() >= 15, "{opcodes:?}");
}

/// Python masks the packet itself (no code shared with the crate) and runs zlib.crc32.
const PY: &str = r#"
import sys, zlib
for line in sys.stdin.read().split():
    p = bytearray.fromhex(line)
    if p[0] >> 4 == 4:
        hl = max(p[0] & 15, 5) * 4
        for o in (1, 8, 10, 11): p[o] = 0xFF
    else:
        hl = 40
        p[0] |= 0x0F
        for o in (1, 2, 3, 7): p[o] = 0xFF
    for o in (hl + 6, hl + 7, hl + 12):
        if o < len(p): p[o] = 0xFF
    print(zlib.crc32(b"\xff" * 8 + bytes(p)), zlib.crc32(bytes(p)))
"#;

#[test]
fn icrc_matches_python_zlib() {
    let mut g = FrameGen::new(0x5eed);
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    // Real RoCE IP packets (without ICRC) ...
    for _ in 0..14 {
        let f = g.roce();
        let c = coverage(&f).unwrap();
        inputs.push(f[c.ip_start..c.icrc_at].to_vec());
    }
    // ... and random bytes with an IPv4 (any IHL >= 5) or IPv6 version nibble.
    for k in 0..8 {
        let n = g.rng().gen_range(60..700);
        let mut p = vec![0u8; n];
        g.rng().fill_bytes(&mut p);
        p[0] = if k % 2 == 0 {
            0x40 | g.rng().gen_range(5..16)
        } else {
            0x60 | (p[0] & 15)
        };
        inputs.push(p);
    }
    let child = Command::new("python3")
        .args(["-c", PY])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            eprintln!("SKIPPED icrc_matches_python_zlib: cannot run python3 ({e})");
            return;
        }
    };
    {
        let stdin = child.stdin.as_mut().unwrap();
        for p in &inputs {
            writeln!(stdin, "{}", hex(p)).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "python3 failed");
    let text = String::from_utf8(out.stdout).unwrap();
    let got: Vec<(u32, u32)> = text
        .lines()
        .map(|l| {
            let mut w = l.split_whitespace().map(|x| x.parse::<u32>().unwrap());
            (w.next().unwrap(), w.next().unwrap())
        })
        .collect();
    assert_eq!(got.len(), inputs.len());
    let crc = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);
    for (p, (py_icrc, _)) in inputs.iter().zip(&got) {
        assert_eq!(icrc(p), *py_icrc, "input {}", hex(p));
        assert_eq!(crc.checksum(&masked_input(p)), *py_icrc);
    }
}
