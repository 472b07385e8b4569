//! PeakRDL as an outside check of the register map's texts: the SystemRDL that `gen-verilog`
//! writes compiles (systemrdl-compiler, through `peakrdl c-header`), and the C header PeakRDL
//! generates from it has the offsets, bit positions, widths, masks and reset values of our
//! `ferroce_regs.h`, checked by a C compiler with one static assertion per register element
//! and field.

mod tools;

use ferroce_contracts::regs::{render, Config, Map};
use std::fmt::Write as _;
use std::process::Command;

#[test]
fn peakrdl_compiles_the_rdl_and_its_header_agrees_with_ours() {
    agrees(&Map::new(Config::DEFAULT), "peakrdl", 300);
}

/// The scheduler build's map (the Alchitry Cu's), the same way.
#[test]
fn peakrdl_agrees_on_the_scheduler_builds_map() {
    agrees(&Map::scheduler(6, 5), "peakrdl-scheduler", 60);
}

/// PeakRDL's header of `map`'s SystemRDL against ours: at least `least` checks, in a scratch
/// directory named after `name`.
fn agrees(map: &Map, name: &str, least: usize) {
    let dir = tools::scratch_dir(name);
    std::fs::write(dir.join("ferroce_regs.rdl"), render::systemrdl(map)).unwrap();
    std::fs::write(dir.join("ferroce_regs.h"), render::c_header(map)).unwrap();
    let (ok, log) = tools::run(Command::new(tools::venv_bin("peakrdl")).current_dir(&dir).args([
        "c-header",
        "ferroce_regs.rdl",
        "-o",
        "peakrdl_regs.h",
    ]));
    assert!(ok, "peakrdl c-header:\n{log}");

    let mut c = String::from("#include <stddef.h>\n#include \"peakrdl_regs.h\"\n#include \"ferroce_regs.h\"\n");
    let mut checks = 0;
    for b in &map.blocks {
        for r in &b.registers {
            let ours = format!("FERROCE_{}", r.name.to_uppercase());
            let block = b.name.to_uppercase();
            let prefix = match r.entry() {
                Some(entry) => format!("FERROCE_REGS__{block}__{}__{}", entry.to_uppercase(), r.name.to_uppercase()),
                None => format!("FERROCE_REGS__{block}__{}", r.name.to_uppercase()),
            };
            let path = |i: u32| match (r.entry(), r.is_array()) {
                (Some(entry), _) => format!("{}.{entry}[{i}].{}", b.name, r.name),
                (_, true) => format!("{}.{}[{i}]", b.name, r.name),
                _ => format!("{}.{}", b.name, r.name),
            };
            let elements: Vec<u32> = if r.is_array() { vec![0, 1, r.count - 1] } else { vec![0] };
            for i in elements {
                let address = if r.is_array() { format!("{ours}({i})") } else { ours.clone() };
                writeln!(
                    c,
                    "_Static_assert(offsetof(ferroce_regs_t, {}) == {address}, \"{}[{i}] offset\");",
                    path(i),
                    r.name
                )
                .unwrap();
                checks += 1;
            }
            for f in &r.fields {
                let (theirs, field) = (
                    format!("{prefix}__{}", f.name.to_uppercase()),
                    format!("{ours}_{}", f.name.to_uppercase()),
                );
                for (a, b) in [("_bm", "_MASK"), ("_bp", "_SHIFT"), ("_bw", "_WIDTH")] {
                    writeln!(c, "_Static_assert({theirs}{a} == {field}{b}, \"{}.{} {b}\");", r.name, f.name).unwrap();
                    checks += 1;
                }
                if f.reset.is_some() {
                    writeln!(
                        c,
                        "_Static_assert({theirs}_reset == (({ours}_RESET & {field}_MASK) >> {field}_SHIFT), \"{}.{} reset\");",
                        r.name, f.name
                    )
                    .unwrap();
                    checks += 1;
                }
            }
        }
    }
    std::fs::write(dir.join("check.c"), &c).unwrap();
    let (ok, log) = tools::run(Command::new("cc").current_dir(&dir).args(["-std=c11", "-fsyntax-only", "check.c"]));
    assert!(ok, "PeakRDL's header and ours disagree ({checks} checks):\n{log}");
    assert!(checks > least, "{checks} checks");
    let _ = std::fs::remove_dir_all(dir);
}
