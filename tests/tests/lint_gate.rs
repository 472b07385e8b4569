//! The lint gate: every top that `gen-verilog` emits, at every width, passes
//! `verilator --lint-only -Wno-WIDTH`; at 64 and 512 bits (and every configuration of the tops
//! that are not width-generic) a yosys structural check too (no latches, no undriven or
//! multiply-driven nets, no logic loops; no `opt_clean` first, so an unused undriven wire counts
//! too): a width changes the vectors, not the structure rust-hdl emits, and the check of the
//! 1024-bit tops took minutes of the test command. Both results are recorded by the
//! fingerprint of the Verilog, the command and the tool's version ([`LINT_RECORD`],
//! [`STRUCTURE_RECORD`]), so a top is checked again only when one of them changed. All module
//! names are unique `ferroce_` names so every file loads into one Vivado project.
//!
//! The levels gate: every top at the default width (512 bits; the scheduler in each
//! configuration) synthesized for UltraScale+ (`scripts/synth_verilog.sh`, the flow of
//! docs/performance.md) has at most [`MAX_LEVELS`] LUT levels between registers, the depth that
//! closes the 322 MHz CMAC clock. Tops still being pipelined are held to the depth measured when
//! the gate was added ([`NOT_YET_PIPELINED`]), so nothing gets deeper meanwhile. Synthesis is
//! slow (minutes for a unit, about an hour for each 512-bit engine), so its results are
//! recorded in `tests/levels.lock` by fingerprint and only a top whose Verilog changed is
//! synthesized again ([`LEVELS_RECORD`]), largest first, the record rewritten as each one ends
//! (a run stopped midway keeps what it finished); so are the structural checks'
//! ([`STRUCTURE_RECORD`]).
//!
//! The tops are elaborated once (in parallel) and shared by the tests; the checks of the tops run
//! in parallel, one tool process per core.

use ferroce_hdl::emit::parallel_map;
use ferroce_hdl::tops::TOPS;
use ferroce_tests::{fingerprint, Record};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// LUT levels allowed between registers at 512 bits: what UltraScale+ closes at 322 MHz.
const MAX_LEVELS: usize = 6;

/// Tops that do not meet [`MAX_LEVELS`] yet, with their depth as last measured (recorded in
/// `tests/levels.lock`): they may not get deeper, and an entry goes when its top meets the goal (the gate says so).
/// The TX paths: each of their units is at 6 levels alone, and the paths that join them are
/// registered; flattened together, yosys's mapping puts a cone inside a unit one level deeper:
/// the scheduler arbiter's choice into `pop_parts` and the ICRC core's state update, both at
/// exactly 6 in their units. The default path measured 6 between the ICRC core's early-beat
/// ports and the generator's payload buffer (2026-11-26), with the same logic in those cones:
/// only the mapping moved. With the response port (2026-11-26: a 2:1 descriptor multiplexer
/// before the generator, one level) the 64-bit path measured 8: the scheduler lists' pop element
/// into the parity LUTRAM's write address, a cone of `sched` (6 levels alone, logic unchanged),
/// mapped one level deeper again; the first form of the response port had made the default path
/// 8 the same way (the ICRC state and the arbiter's choice) and the 64-bit one 7. The 2048-QP
/// path (2026-11-26) measured 8 in the same cones (the scheduler's token buckets and pop, the
/// ICRC state), none of them QP logic. The 64-bit engine top (2026-11-26) measured 7 in the
/// same cones (the scheduler's buckets, arbiter and lists, the ICRC cores of both paths, the RX
/// header decoder), flattened with the rest; the 512-bit engine top measured 6, and 7 with the
/// host path and six more counters (2026-11-27): the register file's read multiplexer (28 input
/// registers, 22 before) into `s_axil_rdata`, and the RX ICRC core's end offsets, cones at 6
/// in their units (the register file alone 6, `host_responder` alone 6); the first form of the
/// frame merge had put the TX path's ready one level deeper too, which its registered selection
/// removed. With a read's value registered in the register file (2026-11-27) the read
/// multiplexer is out of those cones; the RX ICRC core's end offsets and the register file's
/// address decode into its response (and the status table's answer) remain at 7 in both
/// engines, the 2048-QP one too. Going back N (2026-11-28: the send history, the retry timer and
/// three FIFOs joined to the ACK tracker and the packetizer; each unit alone at 5 or 6) made all
/// six 8: the commit FIFO's pop waited on the history's and the tracker's `clear_ready` (their
/// state decode) into the FIFO's LUTRAM read address, the action FIFO's pop on the tracker's
/// `action_ready`, and the send history's input choice into its ring-slot adder, each flattened
/// one level deeper than in its unit. With the commit's hand-over and the action registered and
/// the slot's offset chosen a cycle early (2026-11-28, later) the 2048-channel paths measure 7
/// again. The 64-bit path measured 8 in the ACK tracker: its state decode into `ack_ready` and
/// the operation's QP, the read address of its QP table, which is LUTRAM at 16 QPs (block RAM,
/// with a registered address, in the larger tops). With a registered `idle` flag instead of
/// the decode and a clear's or timer action's read a cycle later (2026-11-28, stop 45) it
/// measures 7 again, as before going back N; the 64-bit engine stays at 8, now in the
/// scheduler's cone (the arbiter's pop into the lists' parity LUTRAM write address, 6 in
/// `sched` alone). The two 2048-channel engines measured 6 with those fixes (2026-11-28) and
/// left this list.
const NOT_YET_PIPELINED: &[(&str, usize)] = &[
    ("ferroce_tx_path_c2048_q256_w512", 7),
    ("ferroce_tx_path_c2048_q2048_w512", 7),
    // 8 for a while after RDMA READ responses (2026-11-28, stop 46): the ACK tracker's state
    // decode into the write address of its LUTRAM of last PSNs sent; 7 again since that write
    // comes from registers only (`initialized`, `finishing`; stop 47). 8 again in stop 53 (the
    // flush's `valid` from a register, a replay's READ request marked), two LUTRAM addresses
    // from a state decode mapped as a chain of six LUT2s: the segmenter's busy bits (write
    // address) and the send history's `queued` bits (read address; 5 levels in the history
    // alone). 7 in stop 54: the history reads `queued` at `rewind_qp` in every cycle and the
    // segmenter's busy-bit write port is registered; the seventh level is spread over the
    // scheduler, the ICRC core, the ACK tracker and the history, each at 6 or less alone.
    // 8 on 2026-12-04 (a QP reset flushes what was posted before it: the segmenter's epochs,
    // the packetizer's stale blocks), in the scheduler's cone as in the 64-bit engine below:
    // the arbiter's pop into the lists' parity LUTRAM write address, logic unchanged. That
    // eighth level is `lut_levels.py`'s conservative count of a RAM64M8 (any address to any
    // data output): the write address reads port H, the lists read port G; with the ports
    // told apart (`scripts/split_lutram_ports.py`) this netlist is 7 deep. (`(* keep *)` on
    // the lists' pop selects measured 7 here but moved the scheduler's own arbiter to 7.)
    // 7 in every run since stop 69 (2026-12-05), as mapped; bounded at 7 since stop 78.
    ("ferroce_tx_path_c64_q16_w64", 7),
    // 7 since RDMA READ responses (2026-11-28, stop 46); 8 since the flush of a failed QP's
    // transfers (stop 52): the segmenter's state decode into the flush's `valid`, through the
    // completion port's `ready` back into the flush's busy-bit write address; that loop is
    // gone since the flush's `valid` is a register (stop 53), but the send history's `queued`
    // read address (as in the 64-bit TX path) keeps it at 8. 7 in stop 54 with the TX path's
    // fixes (above): the scheduler, the segmenter and the RX front end as mapped flattened.
    // 8 again in stop 57 with the stream set (2026-12-02): the TX path's post result (a decode
    // of the segmenter's state, 3 levels) routed to its sender by the posters FIFO's head and
    // into the sender's count of messages held (an adder); the set is at 6 alone and the
    // 512-bit engines at 7. 7 in stop 58: the set's `PostTurns` registers each result with its
    // poster before it goes back. 8 in stop 63 (each QP's line, 4 READs per QP; 2026-12-03):
    // the scheduler's cone again, the arbiter's pop into the lists' parity LUTRAM write address
    // (6 in `sched` alone, unchanged; 7 in this engine with the line alone), as in stop 46. The
    // 64-bit engine is the ZCU102 build's, at 156.25 MHz (10GbE), where 8 levels close; the
    // fix is the parity RAM's write port from registers, which moves the duplicate guard's
    // forwarding by a cycle; or counting a RAM64M8's read ports apart in `lut_levels.py`
    // (the path is 7 deep so counted, see the 64-bit TX path above).
    // 7 in every run since 2026-12-03 (AckReq per block), as mapped; bounded at 7 since stop 78.
    ("ferroce_engine_c64_q16_w64", 7),
    // 7 in stop 49 (the RX front end's ICRC core in the flattened whole), 6 in stop 50, 7
    // again in stop 51 (2026-11-29) with changes only in the ACK tracker and the packetizer:
    // the TX ICRC core's state update, the RX front end's and 160-odd other registers at 7,
    // each at 6 in its unit. The mapping of the same cones moves from one netlist to the next.
    // 8 in stop 52 (the send history's queue of rewinds, the segmenter's flush): two registers
    // of the scheduler's token buckets (a refill compare into a bucket), logic unchanged and
    // at 6 in `sched` alone; 7 again in stop 53. 7 in stop 58 (2026-12-02, the stream set
    // split) in other cones: the set's command result (its state decode and the eight ports'
    // results ORed) into the enables of each stream's applied settings, a chain of LUT2s, 6 in
    // the set alone; the 2048-QP engine measured 6 in the same change and left this list.
    ("ferroce_engine_c2048_q256_w512", 7),
    // 6 from stop 58 to stop 60; 7 in stop 61 (2026-12-03, pacing in the TX path): the pacers'
    // registered `paused` bits are now the scheduler's `stall` (a constant 0 before, so
    // synthesis removed its terms). 208 registers at 7: 82 in the scheduler (arbiter and
    // buckets, with `stall` live), the rest in the stream ports and senders, the register file,
    // the RX front end and the TX units, each at 6 or less in its unit (the scheduler with
    // `stall` an input port, `sched_n2048_q32`, at 6; the pacers at 6).
    ("ferroce_engine_c2048_q2048_w512", 7),
    // Added at 7 in stop 80 (2026-12-06): the default engine with two stream ports of 2 MiB
    // buffers (slots up to 1 MiB); its cones are the default engine's.
    ("ferroce_engine_c2048_q256_w512_slot1m", 7),
    // Added at 7 in stop 84 (2026-12-07): the engines with their streams on one AXI-Stream (the
    // stream bus set, 6 levels alone, in place of the stream ports). The 64-bit one at 7 in the
    // 64-bit engine's cones (the scheduler's arbiter, the segmenter's tables, the register
    // file's read, the RX ICRC core) and in the bus's state and context, as mapped flattened.
    ("ferroce_engine_c64_q16_w64_bus8", 7),
    ("ferroce_engine_c2048_q256_w512_bus256", 7),
    // Added in stop 85 (2026-12-07): 128 streams on the bus, regions twice as large (slots up
    // to 16 KiB); the 256-stream engine's cones.
    ("ferroce_engine_c2048_q256_w512_bus128", 7),
];

/// One emitted top: module name, Verilog file, Verilog text, bus width (if width-generic).
struct Emitted {
    module: String,
    path: PathBuf,
    verilog: String,
    width: Option<usize>,
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
            Emitted {
                module,
                path,
                verilog,
                width: t.width_of(variant),
            }
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

/// Tops that passed `verilator --lint-only`, one line per top: module, fingerprint of the
/// Verilog, the command and Verilator's version, `ok`. A recorded top is not linted again; a
/// top whose Verilog changed is, and the file is rewritten, to be committed with the change.
/// `FERROCE_LEVELS_FRESH=1` lints every top.
const LINT_RECORD: &str = "lint.lock";

/// The first lines of the lint record.
const LINT_RECORD_HEADER: &str = "\
# Written by the lint gate (tests/tests/lint_gate.rs, verilator_lint_clean): module, fingerprint
# of the Verilog, the command and Verilator's version, result. Commit it when a test run rewrites it.
";

#[test]
fn verilator_lint_clean() {
    let tops: Vec<&Emitted> = emitted().iter().collect();
    checked_by_record(LINT_RECORD, LINT_RECORD_HEADER, &tops, "verilator", |e| {
        let args: Vec<String> = ["--lint-only", "-Wno-WIDTH", "--top-module", &e.module].map(String::from).into();
        Check {
            recipe: args.join(" "),
            args: [args, vec![e.path.display().to_string()]].concat(),
            log_ok: |log| !log.contains("%Warning") && !log.contains("%Error"),
        }
    });
}

/// Tops that passed the yosys structural check, one line per top: module, fingerprint of the
/// Verilog, the check and yosys's version, `ok`. A recorded top is not checked again (the check
/// of the 512-bit tops takes minutes); a top whose Verilog changed is, and the file is
/// rewritten, to be committed with the change. `FERROCE_LEVELS_FRESH=1` checks every top.
const STRUCTURE_RECORD: &str = "structure.lock";

/// The first lines of the structure record.
const STRUCTURE_RECORD_HEADER: &str = "\
# Written by the lint gate (tests/tests/lint_gate.rs, yosys_check_clean): module, fingerprint
# of the Verilog, the check and yosys's version, result. Commit it when a test run rewrites it.
";

#[test]
fn yosys_check_clean() {
    let tops: Vec<&Emitted> = emitted().iter().filter(|e| e.width.is_none_or(|w| w == 64 || w == 512)).collect();
    checked_by_record(STRUCTURE_RECORD, STRUCTURE_RECORD_HEADER, &tops, "yosys", |e| {
        let script = |path: &str| {
            format!(
                "read_verilog {path}; hierarchy -check -top {m}; proc; flatten; \
                 check -assert; select -assert-none t:$dlatch t:$adlatch t:$dlatchsr t:$sr",
                m = e.module
            )
        };
        Check {
            recipe: script(""),
            args: vec!["-q".into(), "-p".into(), script(&e.path.display().to_string())],
            log_ok: |_| true,
        }
    });
}

/// A tool's check of one top.
struct Check {
    /// The tool's arguments.
    args: Vec<String>,
    /// What the record's fingerprint covers of them (the file's path left out).
    recipe: String,
    /// Whether the tool's log (when it succeeded) passes.
    log_ok: fn(&str) -> bool,
}

/// Runs `tool` with the [`Check`] `check` gives for each of `tops` whose result the record
/// `name` does not hold by the fingerprint of its Verilog, the check's recipe and the tool's
/// version. When any top ran and all passed, the record is rewritten; every failure fails the
/// test with its log.
fn checked_by_record(name: &str, header: &str, tops: &[&Emitted], tool: &str, check: impl Fn(&Emitted) -> Check + Sync) {
    let record = Record::open(name);
    let version = run(Command::new(tool).arg("--version")).1;
    let results = parallel_map(tops, |e| {
        let check = check(e);
        let print = fingerprint(&[e.verilog.as_bytes(), check.recipe.as_bytes(), version.as_bytes()]);
        if record.get(&e.module, &print).is_some_and(|r| r == "ok") {
            return (e.module.clone(), print, true, String::new(), false);
        }
        let (ok, log) = run(Command::new(tool).args(&check.args));
        (e.module.clone(), print, ok && (check.log_ok)(&log), log, true)
    });
    if results.iter().any(|r| r.4) && results.iter().all(|r| r.2) {
        let lines: Vec<(String, String, String)> = results.iter().map(|r| (r.0.clone(), r.1.clone(), "ok".to_string())).collect();
        record.write(header, &lines);
        println!("{} rewritten: commit it", record.path.display());
    }
    for (m, _, ok, log, _) in results {
        assert!(ok, "{tool} check of {m}:\n{log}");
    }
}

/// Synthesis results of the levels gate, one line per top: module, fingerprint of what was
/// synthesized (the Verilog, `synth_verilog.sh`, `lut_levels.py`, yosys's version), and the summary line of
/// `scripts/synth_verilog.sh`. A top whose fingerprint is recorded is not synthesized again
/// (synthesis at 512 bits takes minutes per unit and about an hour per engine on these
/// machines); any change to a unit changes its Verilog, so the gate synthesizes it and
/// rewrites this file as each synthesis ends, to be committed with the change.
/// `FERROCE_LEVELS_FRESH=1` synthesizes every top.
const LEVELS_RECORD: &str = "levels.lock";

/// The first lines of the record.
const LEVELS_RECORD_HEADER: &str = "\
# Written by the levels gate (tests/tests/lint_gate.rs): module, fingerprint of the synthesis
# inputs, summary of scripts/synth_verilog.sh. Commit it when a test run rewrites it.
";

/// The LUT-level count at the end of a summary line.
fn levels_of(summary: &str) -> usize {
    summary
        .rsplit(' ')
        .next()
        .and_then(|l| l.parse().ok())
        .unwrap_or_else(|| panic!("no level count in: {summary}"))
}

#[test]
fn lut_levels_at_default_width() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("../scripts/synth_verilog.sh");
    let flow = [
        std::fs::read(&script).unwrap(),
        std::fs::read(root.join("../scripts/lut_levels.py")).unwrap(),
        run(Command::new("yosys").arg("-V")).1.into_bytes(),
    ];
    let record = Record::open(LEVELS_RECORD);

    let tops: Vec<&Emitted> = emitted().iter().filter(|e| e.width.is_none_or(|w| w == 512)).collect();
    let prints: Vec<String> = tops
        .iter()
        .map(|e| fingerprint(&[e.verilog.as_bytes(), &flow[0], &flow[1], &flow[2]]))
        .collect();
    // The lines of the record as this run leaves them: a recorded result where its fingerprint
    // matches, else the old line until the top is synthesized again. The file is rewritten as
    // each synthesis ends, so a run stopped midway keeps what it finished and the next run
    // synthesizes only the rest.
    let lines = Mutex::new(
        tops.iter()
            .map(|e| {
                let (print, summary) = record.line(&e.module).unwrap_or_default();
                (e.module.clone(), print, summary)
            })
            .collect::<Vec<_>>(),
    );
    // Largest Verilog first: the engines take an hour each on these machines, so they start
    // first and the small tops fill the other core around them.
    let mut order: Vec<usize> = (0..tops.len())
        .filter(|&i| record.get(&tops[i].module, &prints[i]).is_none())
        .collect();
    order.sort_by_key(|&i| std::cmp::Reverse(tops[i].verilog.len()));
    if !order.is_empty() {
        println!("levels gate: {} of {} tops to synthesize, largest first", order.len(), tops.len());
    }
    let started = std::time::Instant::now();
    let done = std::sync::atomic::AtomicUsize::new(0);
    parallel_map(&order, |&i| {
        let e = tops[i];
        let dir = e.path.with_extension("synth");
        let (ok, log) = run(Command::new("bash").arg(&script).arg(&e.path).arg(&e.module).arg(&dir));
        let summary = log.lines().rev().find(|l| l.starts_with(&format!("{}: ", e.module)));
        let Some(summary) = summary.filter(|_| ok) else {
            panic!("synthesis of {} failed:\n{log}", e.module)
        };
        let mut lines = lines.lock().unwrap();
        lines[i] = (e.module.clone(), prints[i].clone(), summary.to_string());
        record.write(LEVELS_RECORD_HEADER, &lines);
        let finished = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        println!(
            "levels gate: {finished} of {} synthesized after {} s: {summary}",
            order.len(),
            started.elapsed().as_secs()
        );
    });
    let results: Vec<(String, String, String)> = lines.into_inner().unwrap();
    if !order.is_empty() {
        println!("{} tops synthesized; {} rewritten: commit it", order.len(), record.path.display());
    }
    let mut failures = Vec::new();
    for (module, _, summary) in &results {
        println!("{summary}");
        let levels = levels_of(summary);
        match NOT_YET_PIPELINED.iter().find(|(m, _)| m == module) {
            None if levels > MAX_LEVELS => failures.push(format!("{module}: {levels} LUT levels, more than {MAX_LEVELS}")),
            Some(&(_, before)) if levels > before => failures.push(format!(
                "{module}: {levels} LUT levels, deeper than the {before} it had (the goal is {MAX_LEVELS})"
            )),
            Some(_) if levels <= MAX_LEVELS => failures.push(format!(
                "{module} now meets {MAX_LEVELS} levels ({levels}): take it out of NOT_YET_PIPELINED"
            )),
            _ => {}
        }
    }
    assert!(failures.is_empty(), "levels gate:\n{}", failures.join("\n"));
}

/// `scripts/split_lutram_ports.py` on a netlist of one RAM64M8: a flip-flop through a LUT into
/// the write address (port H), and port G read at a flip-flop's address into a flip-flop.
/// `lut_levels.py` counts the LUT and a read of port G behind it (2); split, the write address
/// ends its path and port G's read is one level (1).
#[test]
fn split_lutram_ports_counts_only_real_reads() {
    const NETLIST: &str = r#"{"modules": {"top": {"attributes": {"top": 1}, "netnames": {}, "cells": {
        "write_source": {"type": "FDRE", "connections": {"C": [1], "D": [40], "Q": [2]},
                         "port_directions": {"C": "input", "D": "input", "Q": "output"}},
        "read_source": {"type": "FDRE", "connections": {"C": [1], "D": [41], "Q": [3]},
                        "port_directions": {"C": "input", "D": "input", "Q": "output"}},
        "decode": {"type": "LUT1", "connections": {"I0": [2], "O": [4]},
                   "port_directions": {"I0": "input", "O": "output"}},
        "ram": {"type": "RAM64M8",
                "connections": {"ADDRH": [4, 4, 4, 4, 4, 4], "ADDRG": [3, 3, 3, 3, 3, 3], "DIG": [42],
                                "WE": [43], "WCLK": [1], "DOG": [30]},
                "port_directions": {"ADDRH": "input", "ADDRG": "input", "DIG": "input", "WE": "input",
                                    "WCLK": "input", "DOG": "output"}},
        "sink": {"type": "FDRE", "connections": {"C": [1], "D": [30], "Q": [31]},
                 "port_directions": {"C": "input", "D": "input", "Q": "output"}}}}}}"#;
    let dir = std::env::temp_dir().join(format!("ferroce-split-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (whole, split) = (dir.join("whole.json"), dir.join("split.json"));
    std::fs::write(&whole, NETLIST).unwrap();
    let scripts = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts");
    let levels = |json: &Path| {
        let (ok, out) = run(Command::new("python3").arg(scripts.join("lut_levels.py")).arg(json).arg("top"));
        assert!(ok, "lut_levels.py failed: {out}");
        out.lines().next().unwrap().trim().parse::<usize>().unwrap()
    };
    let (ok, out) = run(Command::new("python3")
        .arg(scripts.join("split_lutram_ports.py"))
        .arg(&whole)
        .arg(&split));
    assert!(ok, "split_lutram_ports.py failed: {out}");
    assert_eq!((levels(&whole), levels(&split)), (2, 1));
    std::fs::remove_dir_all(&dir).ok();
}
