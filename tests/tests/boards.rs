//! The boards' builds (`gen-verilog --board`, `ferroce_hdl::boards`), checked without Vivado:
//!
//! - every port a board's XDC constrains exists in its top, and every port of the top is
//!   constrained but the GT lanes its IP places;
//! - `build.tcl` runs end to end in `tclsh` with Vivado's commands stubbed
//!   (`tests/boards/vivado_stub.tcl`): it adds every Verilog and XDC file of the build and
//!   nothing else, creates exactly the IP modules the top instantiates (and the top
//!   instantiates nothing but those, the generated modules and AMD primitives), and writes the
//!   bitstream; it stops with a clear message when timing is not met, when a run fails, when a
//!   file is missing, and (ZCU102) when the board files its processor preset needs are missing;
//! - the top passes Verilator's lint with every warning on (the generated modules are linted by
//!   the lint gate; the AMD IP as blackboxes with their documented ports,
//!   `tests/boards/vendor_ip.v`), and yosys synthesizes it for its family; both results are
//!   recorded by fingerprint in `tests/boards.lock`, so a board is checked again only when its
//!   files, the commands or the tools changed;
//! - the iCE40 boards (the Alchitry Cu): every port the PCF places exists in the top and every
//!   port is placed; `build.sh` runs with yosys, nextpnr-ice40 and icepack stubbed
//!   (`tests/boards/icestorm_stub.sh`): it reads every Verilog file written, and stops with a
//!   clear message when a tool fails, a file is missing or the Fmax is below the clock; for
//!   real, with the lint of the top, it builds the bitstream at the board's clock (recorded in
//!   `tests/boards.lock` like the Vivado boards' checks).

use ferroce_hdl::boards::{Board, FileKind, Flow, BOARDS};
use ferroce_hdl::emit::parallel_map;
use ferroce_tests::{fingerprint, Record};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// AMD primitives and XPM macros a board top may instantiate.
const PRIMITIVES: [&str; 4] = ["IBUFDS", "BUFG", "IBUFDS_GTE4", "xpm_cdc_async_rst"];

fn here(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("boards").join(file)
}

/// Every board's build, written once (in parallel: elaborating the engines is most of the time)
/// and shared by the tests, in the integration tests' scratch folder.
fn built() -> &'static [PathBuf] {
    static BUILT: OnceLock<Vec<PathBuf>> = OnceLock::new();
    BUILT.get_or_init(|| {
        parallel_map(&BOARDS, |board| {
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("board-{}", board.name));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            board.write(&dir, |_| {}).unwrap();
            dir
        })
    })
}

/// A board's shared build.
fn build_of(board: &Board) -> &'static Path {
    &built()[BOARDS.iter().position(|b| b.name == board.name).unwrap()]
}

/// A copy of a board's build that a test may change.
fn copy_of(board: &Board, tag: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("board-{}-{tag}", board.name));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(build_of(board)).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
    }
    dir
}

/// The board top's text.
fn top_text(board: &Board) -> &'static str {
    board.files_of(FileKind::Source).next().expect("a board has a top").text
}

/// Module names instantiated in a Verilog text (a word at the start of a line followed by
/// `#(` or an instance name and `(`).
fn instantiated(verilog: &str) -> BTreeSet<String> {
    const KEYWORDS: [&str; 9] = [
        "module",
        "input",
        "output",
        "wire",
        "reg",
        "assign",
        "always",
        "endmodule",
        "localparam",
    ];
    let mut found = BTreeSet::new();
    for line in verilog.lines().map(str::trim_start) {
        let mut words = line
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty());
        let (Some(first), Some(second)) = (words.next(), words.next()) else {
            continue;
        };
        if KEYWORDS.contains(&first) || !first.starts_with(|c: char| c.is_ascii_alphabetic()) {
            continue;
        }
        let rest = line[first.len()..].trim_start();
        if rest.starts_with("#(") || (rest.starts_with(second) && rest[second.len()..].trim_start().starts_with('(')) {
            found.insert(first.to_string());
        }
    }
    found
}

/// The port names of a hand-written module with an ANSI header (`input wire [3:0] name,`).
fn ansi_ports(verilog: &str, module: &str) -> BTreeSet<String> {
    let header = verilog
        .split(&format!("module {module} ("))
        .nth(1)
        .expect("the top's header")
        .split(");")
        .next()
        .unwrap();
    header
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("input") || l.starts_with("output"))
        .map(|l| l.trim_end_matches(',').split_whitespace().last().unwrap().to_string())
        .collect()
}

/// The port names an XDC file names with `get_ports` (`name`, `{name[3]}`, `{name[*]}`: the
/// port `name`).
fn constrained_ports(xdc: &str) -> BTreeSet<String> {
    xdc.split("[get_ports ")
        .skip(1)
        .map(|rest| {
            let rest = rest.trim_start();
            let name = match rest.strip_prefix('{') {
                Some(braced) => braced.split('}').next().unwrap(),
                None => rest.split(']').next().unwrap(),
            };
            name.split('[').next().unwrap().trim().to_string()
        })
        .collect()
}

/// The port names a PCF file places with `set_io` (`name`, `name[3]`: the port `name`).
fn placed_ports(pcf: &str) -> BTreeSet<String> {
    pcf.lines()
        .filter_map(|l| l.trim().strip_prefix("set_io "))
        .map(|rest| {
            let name = rest.split_whitespace().find(|w| !w.starts_with('-')).expect("set_io: no port");
            name.split('[').next().unwrap().to_string()
        })
        .collect()
}

/// Runs build.tcl under the stubs; returns (exit success, output, the calls logged).
fn run_build(dir: &Path, env: &[(&str, &str)]) -> (bool, String, Vec<String>) {
    let log = dir.join("stub.log");
    let mut cmd = Command::new("tclsh");
    cmd.arg(here("vivado_stub.tcl"))
        .arg(dir.join("build.tcl"))
        .args(["-jobs", "2"])
        .current_dir(dir)
        .env("FERROCE_STUB_LOG", &log);
    run_logged(cmd, &log, env, "tclsh (scripts/test.sh installs it)")
}

/// Runs `cmd` with `env` added: (exit success, output, the lines the stubs logged in `log`).
fn run_logged(mut cmd: Command, log: &Path, env: &[(&str, &str)], what: &str) -> (bool, String, Vec<String>) {
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    let calls = std::fs::read_to_string(log).unwrap_or_default().lines().map(String::from).collect();
    (
        o.status.success(),
        format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)),
        calls,
    )
}

#[test]
fn constraints_name_only_ports_of_the_top_and_every_port_is_constrained() {
    for board in BOARDS.iter() {
        let top = ansi_ports(top_text(board), board.top);
        assert!(top.len() >= 5, "{}: ports of {} not found", board.name, board.top);
        for xdc in board.files_of(FileKind::Constraints) {
            let named = match board.flow {
                Flow::Vivado => constrained_ports(xdc.text),
                Flow::Icestorm => placed_ports(xdc.text),
            };
            for p in &named {
                assert!(
                    top.contains(p),
                    "{}: {} constrains port {p}, which {} lacks",
                    board.name,
                    xdc.name,
                    board.top
                );
            }
            for p in &top {
                assert!(
                    named.contains(p) || board.placed_by_ip.contains(&p.as_str()),
                    "{}: port {p} of {} is not constrained in {}",
                    board.name,
                    board.top,
                    xdc.name
                );
            }
        }
    }
}

#[test]
fn build_script_adds_every_file_creates_every_ip_and_writes_the_bitstream() {
    for board in BOARDS.iter().filter(|b| b.flow == Flow::Vivado) {
        let dir = copy_of(board, "run");
        let (ok, out, calls) = run_build(&dir, &[]);
        assert!(ok, "{}: build.tcl failed:\n{out}", board.name);
        assert!(out.contains("ferroce: timing met"), "{}: {out}", board.name);

        // every Verilog and XDC file written, added once, and nothing else
        let mut on_disk = BTreeSet::new();
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if matches!(p.extension().and_then(|x| x.to_str()), Some("v" | "xdc")) {
                on_disk.insert(p.canonicalize().unwrap());
            }
        }
        let mut added = BTreeSet::new();
        for call in calls.iter().filter(|c| c.starts_with("add_files ")) {
            for word in call.split([' ', '{', '}']).filter(|w| w.ends_with(".v") || w.ends_with(".xdc")) {
                assert!(
                    added.insert(Path::new(word).canonicalize().unwrap()),
                    "{}: {word} added twice",
                    board.name
                );
            }
        }
        assert_eq!(added, on_disk, "{}: files added by build.tcl vs files written", board.name);

        // the IP created is the IP instantiated
        // IP cores by module name, block designs by name
        let mut created: BTreeSet<String> = calls
            .iter()
            .filter(|c| c.starts_with("create_ip "))
            .map(|c| c.split(' ').skip_while(|w| *w != "-module_name").nth(1).unwrap().to_string())
            .collect();
        created.extend(calls.iter().filter_map(|c| c.strip_prefix("create_bd_design ")).map(String::from));
        let generated: BTreeSet<String> = board
            .generated_files()
            .iter()
            .map(|f| f.trim_end_matches(".v").to_string())
            .collect();
        for module in instantiated(top_text(board)) {
            assert!(
                created.contains(&module) || generated.contains(&module) || PRIMITIVES.contains(&module.as_str()),
                "{}: {} instantiates {module}, which neither build.tcl creates nor gen-verilog writes",
                board.name,
                board.top
            );
        }
        for ip in &created {
            assert!(
                instantiated(top_text(board)).contains(ip),
                "{}: build.tcl creates {ip}, which {} does not use",
                board.name,
                board.top
            );
        }
        let last_calls: Vec<&str> = calls.iter().rev().take(3).map(|c| c.split(' ').next().unwrap()).collect();
        assert_eq!(last_calls, ["exit", "end", "write_bitstream"], "{}", board.name);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn build_script_stops_when_timing_fails_a_run_fails_or_a_file_is_missing() {
    let board = &BOARDS[0];
    let dir = copy_of(board, "fail");
    for (env, says) in [
        (vec![("FERROCE_STUB_WNS", "-0.150")], "timing not met: worst setup slack -0.150 ns"),
        (vec![("FERROCE_STUB_WHS", "-0.020")], "worst hold slack -0.020 ns"),
        (
            vec![("FERROCE_STUB_FAIL", "synth_1")],
            "synth_1 did not complete: synth_design ERROR",
        ),
        (vec![("FERROCE_STUB_FAIL", "impl_1")], "impl_1 did not complete: route_design ERROR"),
    ] {
        let (ok, out, calls) = run_build(&dir, &env);
        assert!(!ok, "{env:?}: build.tcl went on:\n{out}");
        assert!(out.contains(says), "{env:?}: expected '{says}' in:\n{out}");
        assert!(
            !calls.iter().any(|c| c.starts_with("write_bitstream")),
            "{env:?}: a bitstream was written"
        );
    }
    let zcu102 = BOARDS.iter().find(|b| b.name == "zcu102").unwrap();
    let zcu102_dir = copy_of(zcu102, "fail");
    let (ok, out, calls) = run_build(&zcu102_dir, &[("FERROCE_STUB_BOARD_PARTS", "")]);
    assert!(
        !ok && out.contains("no board part matches *:zcu102:*: install the ZCU102 board files"),
        "{out}"
    );
    assert!(!calls.iter().any(|c| c.starts_with("create_ip")));
    std::fs::remove_dir_all(&zcu102_dir).unwrap();

    let missing = &board.generated_files()[0];
    std::fs::remove_file(dir.join(missing)).unwrap();
    let (ok, out, calls) = run_build(&dir, &[]);
    assert!(
        !ok && out.contains(&format!("{missing} is missing: run gen-verilog --board {}", board.name)),
        "{out}"
    );
    assert!(!calls.iter().any(|c| c.starts_with("create_project")));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs an iCE40 board's build.sh with its tools stubbed (`icestorm_stub.sh`); returns (exit
/// success, output, the calls logged).
fn run_icestorm_stubbed(dir: &Path, env: &[(&str, &str)]) -> (bool, String, Vec<String>) {
    let bin = dir.join("stub-bin");
    std::fs::create_dir_all(&bin).unwrap();
    for tool in ["yosys", "nextpnr-ice40", "icepack"] {
        let link = bin.join(tool);
        if !link.exists() {
            std::os::unix::fs::symlink(here("icestorm_stub.sh"), link).unwrap();
        }
    }
    let log = dir.join("stub.log");
    let _ = std::fs::remove_file(&log);
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut cmd = Command::new("bash");
    cmd.arg(dir.join("build.sh"))
        .current_dir(std::env::temp_dir())
        .env("PATH", path)
        .env("FERROCE_STUB_LOG", &log);
    run_logged(cmd, &log, env, "bash")
}

/// The modules of `ice40_cells.v` (the iCE40 primitives a board top may instantiate) that the
/// board's top instantiates.
fn instantiated_primitives(board: &Board) -> BTreeSet<String> {
    let cells = std::fs::read_to_string(here("ice40_cells.v")).unwrap();
    let declared: BTreeSet<String> = cells
        .lines()
        .filter_map(|l| l.strip_prefix("module "))
        .map(|l| l.split([' ', '(', '#']).next().unwrap().to_string())
        .collect();
    instantiated(top_text(board)).intersection(&declared).cloned().collect()
}

/// The register map a board's build writes (C header, SystemRDL) is the one its register file
/// reports: its hash is a constant of the generated Verilog.
#[test]
fn every_board_writes_the_register_map_its_core_reports() {
    for board in &BOARDS {
        let hash = board.register_map.map().hash();
        // (rust-hdl writes a constant's hex digits without leading zeros)
        let constant = format!("32'h{hash:x};");
        let found = board
            .generated_files()
            .iter()
            .any(|f| std::fs::read_to_string(build_of(board).join(f)).unwrap().contains(&constant));
        assert!(found, "{}: map hash {hash:#010x} in none of its generated files", board.name);
    }
}

#[test]
fn icestorm_build_script_reads_every_file_and_stops_on_a_failure_or_a_low_fmax() {
    for board in BOARDS.iter().filter(|b| b.flow == Flow::Icestorm) {
        // the top instantiates nothing but the generated modules
        let generated: BTreeSet<String> = board
            .generated_files()
            .iter()
            .map(|f| f.trim_end_matches(".v").to_string())
            .collect();
        // and the iCE40 primitives (the PLL)
        let primitives = instantiated_primitives(board);
        assert_eq!(
            instantiated(top_text(board)),
            generated.union(&primitives).cloned().collect(),
            "{}: modules instantiated",
            board.name
        );

        let dir = copy_of(board, "stub");
        let bitstream = dir.join(format!("{}.bin", board.top));
        let clock = board.clocks[0].mhz;
        let fast = format!("{:.2}", clock * 1.25);
        let slow = format!("{:.2}", clock - 0.01);
        let (ok, out, calls) = run_icestorm_stubbed(&dir, &[("FERROCE_STUB_FMAX", &fast)]);
        assert!(ok, "{}: build.sh failed:\n{out}", board.name);
        assert!(bitstream.exists(), "{}: no bitstream:\n{out}", board.name);
        for says in [
            format!("Fmax {fast} MHz"),
            format!("iceprog {}.bin", board.top),
            "ICESTORM_LC:  1000/ 7680".into(),
            "ICESTORM_RAM:     5/   32".into(),
            "SB_IO:    12/  256".into(),
        ] {
            assert!(out.contains(&says), "{}: expected '{says}' in:\n{out}", board.name);
        }
        let tools: Vec<&str> = calls.iter().map(|c| c.split(' ').next().unwrap()).collect();
        assert_eq!(tools, ["yosys", "nextpnr-ice40", "icepack"], "{}", board.name);
        // yosys reads every Verilog file written, once
        let mut on_disk = BTreeSet::new();
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().and_then(|x| x.to_str()) == Some("v") {
                on_disk.insert(p.file_name().unwrap().to_str().unwrap().to_string());
            }
        }
        let read: Vec<&str> = calls[0].split(' ').filter(|w| w.ends_with(".v")).collect();
        assert_eq!(read.len(), on_disk.len(), "{}: {}", board.name, calls[0]);
        assert_eq!(
            read.into_iter().map(String::from).collect::<BTreeSet<_>>(),
            on_disk,
            "{}",
            board.name
        );
        assert!(calls[0].contains(&format!("synth_ice40 -top {}", board.top)), "{}", calls[0]);
        let pcf = board.files_of(FileKind::Constraints).next().unwrap().name;
        for arg in [format!("--pcf {pcf}"), format!("--freq {clock}"), "--hx8k --package cb132".into()] {
            assert!(calls[1].contains(&arg), "{}: nextpnr-ice40 without {arg}: {}", board.name, calls[1]);
        }

        for (env, says, ran) in [
            (vec![("FERROCE_STUB_FAIL", "yosys")], "yosys failed".to_string(), 1),
            (vec![("FERROCE_STUB_FAIL", "nextpnr-ice40")], "nextpnr-ice40 failed".into(), 2),
            (vec![("FERROCE_STUB_FAIL", "icepack")], "icepack failed".into(), 3),
            (
                vec![("FERROCE_STUB_FMAX", slow.as_str())],
                format!("timing not met: Fmax {slow} MHz is below the {clock} MHz clock"),
                2,
            ),
        ] {
            std::fs::remove_file(&bitstream).unwrap_or_default();
            // a passing Fmax unless the case sets its own (the last value of a variable wins)
            let env: Vec<(&str, &str)> = [("FERROCE_STUB_FMAX", fast.as_str())].into_iter().chain(env).collect();
            let (ok, out, calls) = run_icestorm_stubbed(&dir, &env);
            assert!(!ok, "{env:?}: build.sh went on:\n{out}");
            assert!(out.contains(&says), "{env:?}: expected '{says}' in:\n{out}");
            assert_eq!(calls.len(), ran, "{env:?}: tools run: {calls:?}");
            assert!(!bitstream.exists(), "{env:?}: a bitstream was written");
        }

        let missing = &board.generated_files()[0];
        std::fs::remove_file(dir.join(missing)).unwrap();
        let (ok, out, calls) = run_icestorm_stubbed(&dir, &[]);
        assert!(
            !ok && out.contains(&format!("{missing} is missing: run gen-verilog --board {} again", board.name)),
            "{out}"
        );
        assert!(calls.is_empty(), "{calls:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// The utilization lines and the Fmax (MHz) of a nextpnr-ice40 log (the last estimate: the
/// routed design's).
fn nextpnr_results(log: &str) -> (Vec<String>, Option<f64>) {
    let utilization = log
        .lines()
        .filter(|l| ["ICESTORM_LC:", "ICESTORM_RAM:", "SB_IO:"].iter().any(|k| l.contains(k)))
        .map(|l| l.trim_start_matches("Info:").trim().to_string())
        .collect();
    let fmax = log
        .lines()
        .rfind(|l| l.contains("Max frequency for clock"))
        .and_then(|l| l.rsplit_once("': ")?.1.split(' ').next()?.parse().ok());
    (utilization, fmax)
}

/// Board tops that passed the lint and the synthesis below, one line per board: board,
/// fingerprint of what was checked (the top, the generated Verilog, `vendor_ip.v`, the lint
/// configuration and command, the synthesis script, Verilator's and yosys's versions; for the
/// iCE40 boards the PCF, `board.sh`, `build.sh` and nextpnr-ice40's version instead of
/// `vendor_ip.v` and the synthesis script), `ok`. A recorded board is not checked again (the
/// four Vivado boards take about a minute, the Cu's place and route half a minute); a board
/// whose files changed is, and the file is rewritten, to be committed with the change.
/// `FERROCE_LEVELS_FRESH=1` checks every board.
const BOARDS_RECORD: &str = "boards.lock";

/// The first lines of the record.
const BOARDS_RECORD_HEADER: &str = "\
# Written by tests/tests/boards.rs (board_tops_lint_clean_and_synthesize): board, fingerprint
# of the checked files, commands and tool versions, result. Commit it when a test run rewrites it.
";

/// A board's lint and synthesis (Vivado boards) or bitstream build (iCE40 boards).
struct Checked {
    board: &'static str,
    print: String,
    /// Verilator's complaints.
    lint: Result<(), String>,
    /// The synthesis's or the build's.
    synth: Result<(), String>,
    /// Run now (not taken from the record).
    ran: bool,
}

/// The version a tool prints (stdout and stderr: nextpnr-ice40 prints it on stderr).
fn version(tool: &str, arg: &str) -> Vec<u8> {
    let out = Command::new(tool)
        .arg(arg)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {tool}: {e} (scripts/test.sh installs it)"));
    [out.stdout, out.stderr].concat()
}

/// Builds an iCE40 board's bitstream with build.sh in a copy of its build; Ok when it was
/// written and nextpnr-ice40's Fmax is at least the board's clock. Prints the utilization and
/// the Fmax.
fn icestorm_build(board: &Board) -> Result<(), String> {
    let dir = copy_of(board, "bitstream");
    let started = std::time::Instant::now();
    let run = Command::new("bash").arg(dir.join("build.sh")).output().expect("cannot run bash");
    let out = format!("{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    let log = std::fs::read_to_string(dir.join("nextpnr.log")).unwrap_or_default();
    let (utilization, fmax) = nextpnr_results(&log);
    let clock = board.clocks[0].mhz;
    println!(
        "{}: {} in {:.0} s; {}; Fmax {} MHz (clock {clock} MHz)",
        board.name,
        board.top,
        started.elapsed().as_secs_f64(),
        utilization.join(", "),
        fmax.map_or("unknown".into(), |f| f.to_string()),
    );
    let bitstream = dir.join(format!("{}.bin", board.top));
    let built = run.status.success() && std::fs::metadata(&bitstream).is_ok_and(|m| m.len() > 0);
    let result = if built && fmax.is_some_and(|f| f >= clock) {
        Ok(())
    } else {
        Err(format!(
            "{} written: {built}; Fmax {} MHz against the {clock} MHz clock (logs in {}):\n{out}",
            bitstream.display(),
            fmax.map_or("unknown".into(), |f| f.to_string()),
            dir.display()
        ))
    };
    if result.is_ok() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    result
}

#[test]
fn board_tops_lint_clean_and_synthesize() {
    let record = Record::open(BOARDS_RECORD);
    let versions = [version("verilator", "--version"), version("yosys", "-V")];
    let nextpnr_version = version("nextpnr-ice40", "--version");
    let vendor_ip = std::fs::read(here("vendor_ip.v")).unwrap();
    let ice40_cells = std::fs::read(here("ice40_cells.v")).unwrap();
    let results = parallel_map(&BOARDS, |board| {
        let dir = build_of(board);
        let top = board.files_of(FileKind::Source).next().unwrap().name;
        let generated = board.generated_files();
        let vivado = board.flow == Flow::Vivado;
        // every warning on for the top; the generated modules are the lint gate's
        let config = dir.join("lint.vlt");
        let mut vlt = String::from("`verilator_config\n");
        let primitives = if vivado { "vendor_ip.v" } else { "ice40_cells.v" };
        for f in generated.iter().map(String::as_str).chain([primitives]) {
            vlt.push_str(&format!("lint_off -file \"*/{f}\"\n"));
        }
        std::fs::write(&config, &vlt).unwrap();
        let lint_args = [
            "--lint-only",
            "-Wall",
            "-Wno-DECLFILENAME",
            "-Wno-PINCONNECTEMPTY",
            "--top-module",
            board.top,
        ];
        let script = |vendor: &str| {
            format!(
                "read_verilog -lib {vendor}; read_verilog -lib {generated}; read_verilog {top}; \
                 synth_xilinx -family xcup -top {module}; check -assert",
                generated = generated.join(" "),
                module = board.top,
            )
        };
        let sources: Vec<Vec<u8>> = std::iter::once(top.to_string())
            .chain(generated.iter().cloned())
            .map(|f| std::fs::read(dir.join(f)).unwrap())
            .collect();
        let print = if vivado {
            let recipe = format!("{}\n{}", lint_args.join(" "), script("vendor_ip.v"));
            let parts: Vec<&[u8]> = sources
                .iter()
                .map(Vec::as_slice)
                .chain([vendor_ip.as_slice(), vlt.as_bytes(), recipe.as_bytes(), &versions[0], &versions[1]])
                .collect();
            fingerprint(&parts)
        } else {
            // the constraints and scripts hold the build's commands and settings
            let build: Vec<Vec<u8>> = board
                .files_of(FileKind::Constraints)
                .chain(board.files_of(FileKind::Script))
                .map(|f| f.text.as_bytes().to_vec())
                .chain([board.settings_sh().into_bytes(), lint_args.join(" ").into_bytes()])
                .collect();
            let parts: Vec<&[u8]> = sources
                .iter()
                .chain(&build)
                .map(Vec::as_slice)
                .chain([ice40_cells.as_slice(), vlt.as_bytes(), &versions[0], &versions[1], &nextpnr_version])
                .collect();
            fingerprint(&parts)
        };
        if record.get(board.name, &print).is_some_and(|r| r == "ok") {
            return Checked {
                board: board.name,
                print,
                lint: Ok(()),
                synth: Ok(()),
                ran: false,
            };
        }
        let lint = Command::new("verilator")
            .args(lint_args)
            .arg(&config)
            .arg(dir.join(top))
            .arg(here(primitives))
            .args(generated.iter().map(|f| dir.join(f)))
            .output()
            .expect("cannot run verilator");
        let lint_log = format!("{}{}", String::from_utf8_lossy(&lint.stdout), String::from_utf8_lossy(&lint.stderr));
        let synth = if vivado {
            let synth = Command::new("yosys")
                .args(["-q", "-p", &script(&here("vendor_ip.v").display().to_string())])
                .current_dir(dir)
                .output()
                .expect("cannot run yosys");
            let synth_log = format!(
                "{}{}",
                String::from_utf8_lossy(&synth.stdout),
                String::from_utf8_lossy(&synth.stderr)
            );
            if synth.status.success() {
                Ok(())
            } else {
                Err(synth_log)
            }
        } else {
            icestorm_build(board)
        };
        Checked {
            board: board.name,
            print,
            lint: if lint.status.success() && !lint_log.contains("%Warning") {
                Ok(())
            } else {
                Err(lint_log)
            },
            synth,
            ran: true,
        }
    });
    if results.iter().any(|r| r.ran) && results.iter().all(|r| r.lint.is_ok() && r.synth.is_ok()) {
        let lines: Vec<(String, String, String)> = results
            .iter()
            .map(|r| (r.board.to_string(), r.print.clone(), "ok".to_string()))
            .collect();
        record.write(BOARDS_RECORD_HEADER, &lines);
        println!("{} rewritten: commit it", record.path.display());
    }
    for r in results {
        if let Err(log) = r.lint {
            panic!("{}: verilator lint of the board top:\n{log}", r.board);
        }
        if let Err(log) = r.synth {
            panic!("{}: synthesis of the board top:\n{log}", r.board);
        }
    }
}
