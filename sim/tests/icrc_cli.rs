//! `ferroce-sim icrc`: JSON per frame, identical for both engines, clear errors.

use ferroce_sim::wire::gen::{flip_bit, FrameGen};
use std::process::Command;

fn sim(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ferroce-sim")).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

fn cx4_cnp() -> Vec<u8> {
    let s = concat!(
        "e41d2dab2bc27cfe90643b32080045c2003c718c400040119161",
        "0a0011010a001201000012b7002800008100ffff400001180000",
        "00000000000000000000000000000000000082fd002a"
    );
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn engines_agree_and_json_is_exact() {
    let dir = std::env::temp_dir().join(format!("ferroce-icrc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut g = FrameGen::new(11);
    let mut frames = vec![cx4_cnp()];
    for i in 0..300 {
        let mut f = g.any();
        if i % 7 == 0 {
            let bit = (i * 131) % (f.len() * 8);
            flip_bit(&mut f, bit);
        }
        frames.push(f);
    }
    let pcap = dir.join("mix.pcap");
    ferroce_sim::wire::pcap::write_pcap(&pcap, &frames).unwrap();
    let p = pcap.to_str().unwrap();
    let (c1, rtl, e1) = sim(&["icrc", "--pcap", p]);
    let (c2, model, e2) = sim(&["icrc", "--pcap", p, "--engine", "model"]);
    assert_eq!((c1, c2), (0, 0), "{e1}{e2}");
    assert_eq!(rtl, model);
    let lines: Vec<&str> = rtl.lines().collect();
    assert_eq!(lines.len(), frames.len());
    assert_eq!(lines[0], r#"{"frame":0,"roce":true,"icrc_ok":true,"icrc_wire":"82fd002a"}"#);
    assert!(lines.iter().any(|l| l.contains(r#""roce":false,"icrc_ok":null,"icrc_wire":null"#)));
    assert!(lines.iter().any(|l| l.contains(r#""icrc_ok":false"#)));
    for (i, l) in lines.iter().enumerate() {
        assert!(l.starts_with(&format!("{{\"frame\":{i},")), "{l}");
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert_eq!(v.as_object().unwrap().len(), 4);
    }
    // With an FCS on every frame, --fcs gives the same answers.
    let with_fcs: Vec<Vec<u8>> = frames.iter().map(|f| [f.as_slice(), &[0xde, 0xad, 0xbe, 0xef]].concat()).collect();
    let pcap_fcs = dir.join("fcs.pcap");
    ferroce_sim::wire::pcap::write_pcap(&pcap_fcs, &with_fcs).unwrap();
    let (c3, rtl_fcs, e3) = sim(&["icrc", "--pcap", pcap_fcs.to_str().unwrap(), "--fcs", "--width", "64"]);
    assert_eq!(c3, 0, "{e3}");
    assert_eq!(rtl_fcs, rtl);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn not_a_pcap_is_a_clear_error() {
    let p = std::env::temp_dir().join(format!("ferroce-not-pcap-{}.txt", std::process::id()));
    std::fs::write(&p, "hello, this is not a capture\n").unwrap();
    let (code, out, err) = sim(&["icrc", "--pcap", p.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(out.is_empty());
    assert!(err.contains("not a pcap file"), "{err}");
    let (code, _, err) = sim(&["icrc", "--pcap", "/nonexistent/x.pcap"]);
    assert_ne!(code, 0);
    assert!(err.contains("x.pcap"), "{err}");
    std::fs::remove_file(p).unwrap();
}
