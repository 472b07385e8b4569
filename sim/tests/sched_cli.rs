//! `ferroce-sim sched`: exact replay output of the example trace, bad lines reported as FILE:LINE
//! with exit status 2 before anything runs.

use std::path::PathBuf;
use std::process::Command;

fn sim(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ferroce-sim"))
        .args(args)
        .output()
        .expect("run ferroce-sim");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/sched_example.trace")
}

/// The output the example's comments announce, one `# <line>` comment per `deq`.
fn announced(trace: &str) -> String {
    trace
        .lines()
        .filter(|l| l.trim_start().starts_with("deq"))
        .map(|l| {
            format!(
                "{}\n",
                l.split_once('#').expect("every deq of the example has its expected line").1.trim()
            )
        })
        .collect()
}

#[test]
fn sched_example_trace_replays_exactly() {
    let path = example();
    let (code, out, err) = sim(&["sched", "--trace", path.to_str().unwrap(), "--engine", "model"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    let want = concat!(
        "3 100\n3 101\n3 102\nempty\n",
        "4 7\nempty\n5 7\n",
        "0 11\n1 10\n",
        "2 30\n1 20\n1 21\n1 22\n2 31\n1 23\n1 24\n1 25\n2 32\n",
        "6 41\nempty\n2 40\n",
        "31 2047\nempty\n",
    );
    assert_eq!(out, want);
    assert_eq!(
        announced(&std::fs::read_to_string(&path).unwrap()),
        want,
        "the example's comments are its output"
    );
}

#[test]
fn sched_bad_lines_exit_2_with_file_and_line() {
    let dir = std::env::temp_dir().join(format!("ferroce-sched-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        ("enq 1 2\ndeq\nfrobnicate 3\n", 3, "unknown keyword 'frobnicate'"),
        ("# comment\n\nenq 1\n", 3, "`enq` takes 2 fields"),
        ("deq deq\n", 1, "`deq` takes no field"),
        ("enq 1 2\nenq 32 5\n", 2, "queue 32 is out of range"),
        ("enq 1 2048\n", 1, "element 2048 is out of range"),
        ("weight 3 256\n", 1, "weight 256 is out of range"),
        ("deq\nweight 0 4\n", 2, "control queue"),
        ("tick ten\n", 1, "is not a decimal number"),
    ];
    for (k, (text, line, msg)) in cases.iter().enumerate() {
        let p = dir.join(format!("bad{k}.trace"));
        std::fs::write(&p, text).unwrap();
        let ps = p.to_str().unwrap();
        let (code, out, err) = sim(&["sched", "--trace", ps, "--engine", "model"]);
        assert_eq!(code, 2, "{text:?}: {err}");
        assert!(out.is_empty(), "{text:?}: nothing runs before the whole trace is checked: {out}");
        assert!(err.starts_with(&format!("error: {ps}:{line}: ")), "{text:?}: {err}");
        assert!(err.contains(msg), "{text:?}: {err}");
    }
    let missing = dir.join("missing.trace");
    let (code, _, err) = sim(&["sched", "--trace", missing.to_str().unwrap(), "--engine", "model"]);
    assert_eq!(code, 2);
    assert!(err.contains("missing.trace"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}
