//! The lint gate: every top that `gen-verilog` emits, at every width, passes
//! `verilator --lint-only -Wno-WIDTH` and a yosys structural check (no latches, no undriven or
//! multiply-driven nets, no logic loops), and all module names are unique `ferroce_` names so
//! every file loads into one Vivado project.

use ferroce_hdl::tops::TOPS;
use std::collections::HashSet;
use std::path::PathBuf;
use std::process::Command;

fn emit_all() -> Vec<(String, PathBuf, String)> {
    let dir = std::env::temp_dir().join(format!("ferroce-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut out = Vec::new();
    for t in TOPS.iter() {
        for &variant in t.variants {
            let m = t.module_name(variant);
            let v = t.verilog(variant);
            let p = dir.join(format!("{m}.v"));
            std::fs::write(&p, &v).unwrap();
            out.push((m, p, v));
        }
    }
    out
}

fn run(cmd: &mut Command) -> (bool, String) {
    let o = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e} (scripts/test.sh installs verilator and yosys)"));
    (o.status.success(), format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)))
}

#[test]
fn module_names_unique_and_prefixed() {
    let mut seen = HashSet::new();
    for (_, _, v) in emit_all() {
        for line in v.lines() {
            if let Some(rest) = line.strip_prefix("module ") {
                let name = rest.split('(').next().unwrap().trim().to_string();
                assert!(name.starts_with("ferroce_"), "module {name} lacks the ferroce_ prefix");
                assert!(!name.contains('$'), "module {name} keeps a rust-hdl path separator");
                assert!(seen.insert(name.clone()), "module {name} is emitted twice");
            }
        }
    }
    assert!(seen.len() > TOPS.iter().map(|t| t.variants.len()).sum::<usize>());
}

#[test]
fn verilator_lint_clean() {
    for (m, p, _) in emit_all() {
        let (ok, log) = run(Command::new("verilator").args(["--lint-only", "-Wno-WIDTH", "--top-module", &m]).arg(&p));
        assert!(ok && !log.contains("%Warning") && !log.contains("%Error"), "verilator lint of {m}:\n{log}");
    }
}

#[test]
fn yosys_check_clean() {
    for (m, p, _) in emit_all() {
        let script = format!(
            "read_verilog {}; hierarchy -check -top {m}; proc; flatten; opt_clean; \
             check -assert; select -assert-none t:$dlatch t:$adlatch t:$dlatchsr t:$sr",
            p.display()
        );
        let (ok, log) = run(Command::new("yosys").args(["-q", "-p", &script]));
        assert!(ok, "yosys check of {m}:\n{log}");
    }
}
