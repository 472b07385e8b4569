//! The lint gate: every top that `gen-verilog` emits, at every width, passes
//! `verilator --lint-only -Wno-WIDTH` and a yosys structural check (no latches, no undriven or
//! multiply-driven nets, no logic loops; no `opt_clean` first, so an unused undriven wire counts
//! too), and all module names are unique `ferroce_` names so
//! every file loads into one Vivado project.
//!
//! The tops are elaborated once (in parallel) and shared by the tests; the checks of the tops run
//! in parallel, one tool process per core.

use ferroce_hdl::emit::parallel_map;
use ferroce_hdl::tops::TOPS;
use std::collections::HashSet;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// One emitted top: module name, Verilog file, Verilog text.
struct Emitted {
    module: String,
    path: PathBuf,
    verilog: String,
}

fn emitted() -> &'static [Emitted] {
    static EMITTED: OnceLock<Vec<Emitted>> = OnceLock::new();
    EMITTED.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("ferroce-lint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let jobs: Vec<_> = TOPS.iter().flat_map(|t| t.variants.iter().map(move |v| (t, *v))).collect();
        parallel_map(&jobs, |(t, variant)| {
            let module = t.module_name(variant);
            let verilog = t.verilog(variant);
            let path = dir.join(format!("{module}.v"));
            std::fs::write(&path, &verilog).unwrap();
            Emitted { module, path, verilog }
        })
    })
}

fn run(cmd: &mut Command) -> (bool, String) {
    let o = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e} (scripts/test.sh installs verilator and yosys)"));
    (
        o.status.success(),
        format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)),
    )
}

#[test]
fn module_names_unique_and_prefixed() {
    let mut seen = HashSet::new();
    for e in emitted() {
        for line in e.verilog.lines() {
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
    let results = parallel_map(emitted(), |e| {
        let (ok, log) = run(Command::new("verilator")
            .args(["--lint-only", "-Wno-WIDTH", "--top-module", &e.module])
            .arg(&e.path));
        (e.module.clone(), ok && !log.contains("%Warning") && !log.contains("%Error"), log)
    });
    for (m, ok, log) in results {
        assert!(ok, "verilator lint of {m}:\n{log}");
    }
}

#[test]
fn yosys_check_clean() {
    let results = parallel_map(emitted(), |e| {
        let script = format!(
            "read_verilog {}; hierarchy -check -top {m}; proc; flatten; \
             check -assert; select -assert-none t:$dlatch t:$adlatch t:$dlatchsr t:$sr",
            e.path.display(),
            m = e.module
        );
        let (ok, log) = run(Command::new("yosys").args(["-q", "-p", &script]));
        (e.module.clone(), ok, log)
    });
    for (m, ok, log) in results {
        assert!(ok, "yosys check of {m}:\n{log}");
    }
}
