//! The `gen-verilog` command line.

use std::process::Command;

fn gen(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_gen-verilog")).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

#[test]
fn list_names_every_top() {
    let (code, out, _) = gen(&["--list"]);
    assert_eq!(code, 0);
    for t in ferroce_hdl::tops::TOPS.iter() {
        assert!(out.lines().any(|l| l.starts_with(t.name) && l.contains(t.description)), "{out}");
    }
}

#[test]
fn writes_one_file_per_top_with_summary() {
    let dir = std::env::temp_dir().join(format!("ferroce-gen-{}", std::process::id()));
    let (code, out, err) = gen(&["--out", dir.to_str().unwrap(), "--width", "128"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.lines().count(),
        ferroce_hdl::tops::TOPS.len() + 2,
        "one summary line per file (with the register map's C header and SystemRDL): {out}"
    );
    for f in ["ferroce_regs.h", "ferroce_regs.rdl"] {
        assert!(out.contains(f) && dir.join(f).exists(), "{f}: {out}");
    }
    for t in ferroce_hdl::tops::TOPS.iter() {
        // width-generic tops at --width, the others in their default configuration
        let m = if t.width_generic() {
            format!("ferroce_{}_w128", t.name)
        } else {
            format!("ferroce_{}_{}", t.name, t.variants[0])
        };
        let p = dir.join(format!("{m}.v"));
        let v = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(v.contains(&format!("module {m}(")));
        assert!(!v.contains("module top"));
        assert!(out.contains(p.to_str().unwrap()));
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn variant_selects_a_configuration() {
    let dir = std::env::temp_dir().join(format!("ferroce-gen-variant-{}", std::process::id()));
    let (code, out, err) = gen(&["--out", dir.to_str().unwrap(), "--top", "sched", "--variant", "n64_q5"]);
    assert_eq!(code, 0, "{err}");
    let v = std::fs::read_to_string(dir.join("ferroce_sched_n64_q5.v")).unwrap();
    assert!(v.contains("module ferroce_sched_n64_q5(") && out.contains("n64, q5"), "{out}");
    std::fs::remove_dir_all(dir).unwrap();
    let (code, _, err) = gen(&["--top", "sched", "--variant", "n7_q1", "--out", "/tmp/ferroce-never"]);
    assert_eq!(code, 2);
    assert!(err.contains("has no variant 'n7_q1'") && err.contains("n2048_q32"), "{err}");
}

#[test]
fn bad_arguments_fail_clearly() {
    let (code, _, err) = gen(&["--width", "100"]);
    assert_ne!(code, 0);
    assert!(err.contains("100 is not a supported width"), "{err}");
    let (code, _, err) = gen(&["--width", "wide"]);
    assert_ne!(code, 0);
    assert!(err.contains("'wide' is not a number"), "{err}");
    let (code, _, err) = gen(&["--frobnicate"]);
    assert_ne!(code, 0);
    assert!(err.contains("--frobnicate"), "{err}");
    let (code, _, err) = gen(&["--top", "nope", "--out", "/tmp/ferroce-never"]);
    assert_ne!(code, 0);
    assert!(err.contains("unknown top 'nope'"), "{err}");
    let (code, out, _) = gen(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("--width") && out.contains("--out") && out.contains("--list"));
}

#[test]
fn boards_are_listed_written_and_refused_clearly() {
    let (code, out, _) = gen(&["--list-boards"]);
    assert_eq!(code, 0);
    for b in ferroce_hdl::boards::BOARDS.iter() {
        assert!(out.lines().any(|l| l.starts_with(b.name) && l.contains(b.part)), "{out}");
        for c in b.clocks {
            assert!(out.contains(&format!("{} {} MHz", c.net, c.mhz)), "{out}");
        }
    }
    let (code, _, err) = gen(&["--board", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown board 'nope'") && err.contains("alveo-u280"), "{err}");
    let (code, _, err) = gen(&["--board", "zcu102", "--width", "64"]);
    assert_ne!(code, 0);
    assert!(err.contains("cannot be used with"), "{err}");

    let dir = std::env::temp_dir().join(format!("ferroce-gen-board-{}", std::process::id()));
    let (code, out, err) = gen(&["--board", "zcu102", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    for f in [
        "ferroce_engine_c64_q16_w64.v",
        "ferroce_board_zcu102.v",
        "zcu102.xdc",
        "board.tcl",
        "build.tcl",
        "flow.tcl",
        "ferroce_regs.h",
    ] {
        assert!(dir.join(f).exists() && out.contains(f), "{f}: {out}");
    }
    assert!(
        out.contains("next: cd ") && out.contains("vivado -mode batch -source build.tcl"),
        "{out}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
