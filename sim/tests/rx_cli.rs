//! `ferroce-sim rx`: the issue's example line exactly, one JSON line per frame in file order,
//! `--fcs`, `--counters`, a malformed frame never changes the answer for the frame after it,
//! clear errors with exit code 2; the default engine (`rtl`, the Verilator model of the RX front
//! end) prints exactly what `--engine model` prints, and its counters.

use ferroce_sim::rx::craft::{crafted, issue_example, random_frames};
use ferroce_sim::rx::{rx_model, DropReason, RxCounters, RxVerdict, JSON_KEYS};
use ferroce_sim::wire::pcap::write_pcap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use ferroce_sim::rx::craft::ISSUE_EXAMPLE_JSON as EXAMPLE;

fn sim(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ferroce-sim")).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ferroce-rx-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn model_lines(pcap: &Path) -> Vec<String> {
    let (code, out, err) = sim(&["rx", "--pcap", pcap.to_str().unwrap(), "--engine", "model"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    out.lines().map(String::from).collect()
}

/// Lines of the default engine (the RTL), which must succeed quietly.
fn rtl_lines(pcap: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["rx", "--pcap", pcap.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (code, out, err) = sim(&args);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    out.lines().map(String::from).collect()
}

/// The RTL's lines equal the model's; on a difference, says how many lines differ and shows
/// the first.
fn assert_same_lines<A: AsRef<str>, B: AsRef<str>>(rtl: &[A], model: &[B], what: &str) {
    assert_eq!(
        rtl.len(),
        model.len(),
        "{what}: --engine rtl printed {} lines, --engine model {}",
        rtl.len(),
        model.len()
    );
    let bad: Vec<usize> = (0..rtl.len()).filter(|&i| rtl[i].as_ref() != model[i].as_ref()).collect();
    if let Some(&i) = bad.first() {
        panic!(
            "{what}: {} of {} lines differ between --engine rtl and --engine model; first, line {i}:\n  rtl   {}\n  model {}",
            bad.len(),
            rtl.len(),
            rtl[i].as_ref(),
            model[i].as_ref()
        );
    }
}

/// Python's zlib, no code shared with this crate.
fn zlib_crc32(bytes: &[u8]) -> String {
    let mut p = Command::new("python3")
        .args(["-c", "import sys, zlib; print('%08x' % zlib.crc32(sys.stdin.buffer.read()))"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 is needed (apt-get install python3)");
    p.stdin.take().unwrap().write_all(bytes).unwrap();
    let o = p.wait_with_output().unwrap();
    assert!(o.status.success());
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}

#[test]
fn rx_issue_example_line() {
    let dir = tmpdir("example");
    let f = issue_example();
    assert_eq!(zlib_crc32(&f.payload), "1c291ca3");
    let pcap = dir.join("example.pcap");
    write_pcap(&pcap, &[f.emit()]).unwrap();
    assert_eq!(model_lines(&pcap), [EXAMPLE]);
    assert_eq!(rtl_lines(&pcap, &[]), [EXAMPLE]);
    // The same frame with an FCS and --fcs.
    let mut with_fcs = f.emit();
    with_fcs.extend_from_slice(&[1, 2, 3, 4]);
    let pcap_fcs = dir.join("example-fcs.pcap");
    write_pcap(&pcap_fcs, &[with_fcs]).unwrap();
    let (code, out, err) = sim(&["rx", "--pcap", pcap_fcs.to_str().unwrap(), "--engine", "model", "--fcs"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, format!("{EXAMPLE}\n"));
    assert_eq!(rtl_lines(&pcap_fcs, &["--fcs"]), [EXAMPLE]);
    // Without --fcs the 4 extra bytes are excess bytes after the IP packet.
    let (_, out, _) = sim(&["rx", "--pcap", pcap_fcs.to_str().unwrap(), "--engine", "model"]);
    assert!(out.starts_with(r#"{"frame":0,"verdict":"drop","reason":"ip_length","#), "{out}");
    assert_same_lines(&rtl_lines(&pcap_fcs, &[]), &out.lines().collect::<Vec<_>>(), "example + 4 bytes");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn rx_one_line_per_frame_in_file_order() {
    let dir = tmpdir("mix");
    let cr = crafted();
    let mut frames: Vec<Vec<u8>> = cr.iter().map(|c| c.frame.clone()).collect();
    frames.extend(random_frames(0xC11, 1500));
    let pcap = dir.join("mix.pcap");
    write_pcap(&pcap, &frames).unwrap();
    let lines = model_lines(&pcap);
    assert_eq!(lines.len(), frames.len());
    assert_same_lines(&rtl_lines(&pcap, &[]), &lines, "crafted + random");
    let mut seen = std::collections::BTreeSet::new();
    for (i, (l, f)) in lines.iter().zip(&frames).enumerate() {
        assert_eq!(*l, rx_model(f).json(i));
        let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("line {i}: {e}: {l}"));
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let mut want: Vec<&str> = JSON_KEYS.to_vec();
        want.sort();
        assert_eq!(keys, want, "line {i}");
        // Key order as printed.
        let mut at = 0;
        for k in JSON_KEYS {
            let p = l[at..]
                .find(&format!("\"{k}\":"))
                .unwrap_or_else(|| panic!("line {i}: {k} out of order"));
            at += p;
        }
        assert_eq!(v["frame"], i);
        let verdict = v["verdict"].as_str().unwrap();
        match verdict {
            "pass" => assert!(v["reason"].is_null() && v["payload_len"].is_null() && v["eth_dst"].is_null()),
            "accept" => assert!(v["reason"].is_null() && v["icrc_ok"] == true),
            "drop" => {
                let r = v["reason"].as_str().unwrap();
                seen.insert(r.to_string());
                assert!(DropReason::from_name(r).is_some(), "{r}");
            }
            other => panic!("verdict {other}"),
        }
    }
    assert_eq!(seen.len(), DropReason::ALL.len(), "{seen:?}");
    // The crafted frames' lines carry their expected verdicts.
    for (i, c) in cr.iter().enumerate() {
        let v: serde_json::Value = serde_json::from_str(&lines[i]).unwrap();
        assert_eq!(v["verdict"], c.expect.verdict.name(), "{}", c.name);
        assert_eq!(v["reason"].as_str(), c.expect.verdict.reason().map(|r| r.name()), "{}", c.name);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Each malformed crafted frame followed by a good one: the good frame's line is the one it gets
/// alone (only its frame index differs), and the malformed one's is unchanged too.
#[test]
fn rx_malformed_frame_never_changes_the_next_one() {
    let dir = tmpdir("pairs");
    let cr = crafted();
    let good: Vec<Vec<u8>> = cr
        .iter()
        .filter(|c| c.expect.verdict == RxVerdict::Accept)
        .map(|c| c.frame.clone())
        .collect();
    let bad: Vec<Vec<u8>> = cr
        .iter()
        .filter(|c| c.expect.verdict != RxVerdict::Accept)
        .map(|c| c.frame.clone())
        .collect();
    let mut frames = Vec::new();
    for (i, b) in bad.iter().enumerate() {
        frames.push(b.clone());
        frames.push(good[i % good.len()].clone());
    }
    let pcap = dir.join("pairs.pcap");
    write_pcap(&pcap, &frames).unwrap();
    let lines = model_lines(&pcap);
    assert_eq!(lines.len(), frames.len());
    assert_same_lines(&rtl_lines(&pcap, &["--engine", "rtl"]), &lines, "malformed/good pairs");
    let strip = |l: &str| l.split_once(',').unwrap().1.to_string();
    for (i, b) in bad.iter().enumerate() {
        let g = &good[i % good.len()];
        assert_eq!(lines[2 * i], rx_model(b).json(2 * i));
        assert_eq!(lines[2 * i + 1], rx_model(g).json(2 * i + 1));
        assert!(
            lines[2 * i + 1].contains(r#""verdict":"accept""#),
            "after {i}: {}",
            lines[2 * i + 1]
        );
        if i % 8 == 0 {
            // The binary on single-frame files, for a sample.
            let alone_bad = dir.join("alone-bad.pcap");
            let alone_good = dir.join("alone-good.pcap");
            write_pcap(&alone_bad, std::slice::from_ref(b)).unwrap();
            write_pcap(&alone_good, std::slice::from_ref(g)).unwrap();
            assert_eq!(strip(&lines[2 * i]), strip(&model_lines(&alone_bad)[0]));
            assert_eq!(strip(&lines[2 * i + 1]), strip(&model_lines(&alone_good)[0]));
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn rx_counters_on_stderr() {
    let dir = tmpdir("counters");
    let frames: Vec<Vec<u8>> = crafted().into_iter().map(|c| c.frame).collect();
    let pcap = dir.join("c.pcap");
    write_pcap(&pcap, &frames).unwrap();
    let (code, out, err) = sim(&["rx", "--pcap", pcap.to_str().unwrap(), "--engine", "model", "--counters"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), frames.len());
    let want = RxCounters::of(&frames.iter().map(|f| rx_model(f)).collect::<Vec<_>>());
    assert_eq!(err.trim_end(), want.json());
    let v: serde_json::Value = serde_json::from_str(err.trim_end()).unwrap();
    let drops: u64 = v["dropped"].as_object().unwrap().values().map(|x| x.as_u64().unwrap()).sum();
    assert_eq!(
        v["accepted"].as_u64().unwrap() + v["passed"].as_u64().unwrap() + drops,
        frames.len() as u64
    );
    assert!(DropReason::ALL.iter().all(|r| v["dropped"][r.name()].as_u64().unwrap() > 0));
    // The RTL's counters (its cnt_* ports; the empty frame, which cannot be sent on AXI-Stream,
    // is counted as passed like the model does).
    let (code, out_rtl, err) = sim(&["rx", "--pcap", pcap.to_str().unwrap(), "--counters"]);
    assert_eq!(code, 0, "{err}");
    assert_same_lines(&out_rtl.lines().collect::<Vec<_>>(), &out.lines().collect::<Vec<_>>(), "crafted");
    assert_eq!(err.trim_end(), want.json(), "--engine rtl --counters");
    std::fs::remove_dir_all(dir).unwrap();
}

/// The default engine is the RTL; its output equals the model's.
#[test]
fn rx_rtl_engine_matches_model() {
    let dir = tmpdir("rtl");
    let cr = crafted();
    let good = cr.iter().find(|c| c.expect.verdict == RxVerdict::Accept).unwrap().frame.clone();
    let mut frames = Vec::new();
    for c in &cr {
        frames.push(c.frame.clone());
        frames.push(good.clone());
    }
    frames.extend(random_frames(0x271, 500));
    let pcap = dir.join("r.pcap");
    write_pcap(&pcap, &frames).unwrap();
    let (code, out, err) = sim(&["rx", "--pcap", pcap.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    assert_same_lines(&out.lines().collect::<Vec<_>>(), &model_lines(&pcap), "crafted/good pairs + random");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn rx_bad_input_is_exit_code_2() {
    let dir = tmpdir("bad");
    let p = dir.join("not.pcap");
    std::fs::write(&p, "hello, this is not a capture\n").unwrap();
    for engine in ["model", "rtl"] {
        let (code, out, err) = sim(&["rx", "--pcap", p.to_str().unwrap(), "--engine", engine]);
        assert_eq!(code, 2, "{err}");
        assert!(out.is_empty());
        assert!(err.contains("not a pcap file"), "{err}");
    }
    let (code, out, err) = sim(&["rx", "--pcap", "/nonexistent/x.pcap", "--engine", "model"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("x.pcap"), "{err}");
    // --fcs on a frame shorter than an FCS.
    let short = dir.join("short.pcap");
    write_pcap(&short, &[vec![1, 2, 3]]).unwrap();
    let (code, _, err) = sim(&["rx", "--pcap", short.to_str().unwrap(), "--engine", "model", "--fcs"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("FCS"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}
