//! pcap I/O and the frame generator.

use ferroce_wire::gen::{flip_bit, FrameGen, FrameKind};
use ferroce_wire::icrc::{icrc_verdict, IcrcVerdict};
use ferroce_wire::pcap::{read_pcap, write_pcap, PcapError};
use ferroce_wire::{Opcode, RoceFrame};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ferroce-wire-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

#[test]
fn pcap_roundtrip_and_fcs() {
    let mut g = FrameGen::new(11);
    let frames: Vec<Vec<u8>> = (0..30).map(|_| g.any()).collect();
    let p = tmp("rt.pcap");
    write_pcap(&p, &frames).unwrap();
    assert_eq!(read_pcap(&p, false).unwrap(), frames);
    // With FCS: 4 bytes stripped from each frame.
    let with_fcs: Vec<Vec<u8>> = frames.iter().map(|f| [f.as_slice(), &[1, 2, 3, 4]].concat()).collect();
    let p2 = tmp("fcs.pcap");
    write_pcap(&p2, &with_fcs).unwrap();
    assert_eq!(read_pcap(&p2, true).unwrap(), frames);
    // A 3-byte frame cannot carry an FCS.
    let p3 = tmp("short.pcap");
    write_pcap(&p3, &[vec![1, 2, 3]]).unwrap();
    let e = read_pcap(&p3, true).unwrap_err();
    assert!(matches!(e, PcapError::ShortForFcs { index: 0, len: 3, .. }), "{e}");
    assert_eq!(read_pcap(&p3, false).unwrap(), vec![vec![1, 2, 3]]);
    // Empty file list.
    let p4 = tmp("empty.pcap");
    write_pcap(&p4, &[]).unwrap();
    assert!(read_pcap(&p4, false).unwrap().is_empty());
}

#[test]
fn not_a_pcap_is_reported_clearly() {
    let p = tmp("text.pcap");
    std::fs::write(&p, b"this is certainly not a capture file, just some text").unwrap();
    let msg = read_pcap(&p, false).unwrap_err().to_string();
    assert!(msg.contains("is not a pcap file"), "{msg}");
    assert!(msg.contains("text.pcap"), "{msg}");
    std::fs::write(&p, b"tiny").unwrap();
    let msg = read_pcap(&p, false).unwrap_err().to_string();
    assert!(msg.contains("is not a pcap file") && msg.contains("too short"), "{msg}");
    std::fs::write(&p, [0x0A, 0x0D, 0x0D, 0x0A].repeat(10)).unwrap();
    let msg = read_pcap(&p, false).unwrap_err().to_string();
    assert!(msg.contains("is not a pcap file") && msg.contains("pcapng"), "{msg}");
    let e = read_pcap(tmp("does-not-exist.pcap"), false).unwrap_err();
    assert!(matches!(e, PcapError::Io { .. }));
    // A record cut short.
    let good = tmp("cut.pcap");
    write_pcap(&good, &[vec![0u8; 100]]).unwrap();
    let bytes = std::fs::read(&good).unwrap();
    std::fs::write(&good, &bytes[..bytes.len() - 10]).unwrap();
    let msg = read_pcap(&good, false).unwrap_err().to_string();
    assert!(msg.contains("record 0"), "{msg}");
}

#[test]
fn generator_roce_frames_are_valid_and_varied() {
    let mut g = FrameGen::new(42);
    let mut ops = HashSet::new();
    let mut lens = HashSet::new();
    let (mut v6, mut vl, mut short) = (0, [0; 3], 0);
    let mut masked_nonzero = 0;
    for _ in 0..1500 {
        let f = g.roce_frame();
        let v = f.emit();
        assert!(icrc_verdict(&v).is_ok());
        assert_eq!(RoceFrame::parse(&v).unwrap(), f);
        ops.insert(f.bth.opcode);
        lens.insert(f.payload.len());
        v6 += matches!(f.ip, ferroce_wire::IpRepr::V6(_)) as usize;
        vl[f.eth.vlans.len()] += 1;
        short += (f.eth.buffer_len() + f.ip_len() < 60) as usize;
        masked_nonzero += (f.udp_checksum != 0 && (f.bth.fecn || f.bth.becn || f.bth.resv6 != 0)) as usize;
    }
    assert_eq!(ops.len(), Opcode::all().len(), "not every opcode generated");
    for l in [0, 1, 2, 3, 127, 255, 256, 257, 1023, 1024, 1025, 4095, 4096] {
        assert!(lens.contains(&l), "payload length {l} never generated");
    }
    assert!(lens.iter().all(|&l| l <= 4096));
    assert!(v6 > 500 && v6 < 1000, "{v6}");
    assert!(vl.iter().all(|&n| n > 300), "{vl:?}");
    assert!(short > 0);
    assert!(masked_nonzero > 1000);
    // roce() output too, with its occasional random MAC padding.
    for _ in 0..300 {
        let v = g.roce();
        assert!(v.len() >= 60);
        assert!(icrc_verdict(&v).is_ok());
        assert!(RoceFrame::parse(&v).is_ok());
    }
}

#[test]
fn generator_any_mix() {
    let mut g = FrameGen::new(9);
    let mut seen: HashMap<FrameKind, usize> = HashMap::new();
    for _ in 0..3000 {
        let (k, v) = g.any_labeled();
        *seen.entry(k).or_default() += 1;
        let verdict = icrc_verdict(&v);
        match k {
            FrameKind::Roce => assert!(verdict.is_ok()),
            FrameKind::Runt => {
                assert!((1..60).contains(&v.len()));
                assert!(!verdict.is_ok());
            }
            FrameKind::Garbage => {}
            _ => {
                assert_eq!(verdict, IcrcVerdict::NotRoce, "{k:?}");
                assert!(v.len() >= 60);
            }
        }
    }
    for k in FrameKind::ALL {
        assert!(seen.get(&k).copied().unwrap_or(0) > 20, "{k:?}: {seen:?}");
    }
    assert!(seen[&FrameKind::Roce] > 1500);
}

#[test]
fn generator_is_deterministic() {
    let a: Vec<Vec<u8>> = {
        let mut g = FrameGen::new(5);
        (0..50).map(|_| g.any()).collect()
    };
    let b: Vec<Vec<u8>> = {
        let mut g = FrameGen::new(5);
        (0..50).map(|_| g.any()).collect()
    };
    let c: Vec<Vec<u8>> = {
        let mut g = FrameGen::new(6);
        (0..50).map(|_| g.any()).collect()
    };
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn flip_bit_is_msb_first() {
    let mut v = vec![0u8; 3];
    flip_bit(&mut v, 0);
    flip_bit(&mut v, 15);
    flip_bit(&mut v, 17);
    assert_eq!(v, [0x80, 0x01, 0x40]);
    flip_bit(&mut v, 0);
    assert_eq!(v, [0x00, 0x01, 0x40]);
}
