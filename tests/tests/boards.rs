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
//!   files, the commands or the tools changed.

use ferroce_hdl::boards::{Board, FileKind, BOARDS};
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

/// Runs build.tcl under the stubs; returns (exit success, output, the calls logged).
fn run_build(dir: &Path, env: &[(&str, &str)]) -> (bool, String, Vec<String>) {
    let log = dir.join("stub.log");
    let mut cmd = Command::new("tclsh");
    cmd.arg(here("vivado_stub.tcl"))
        .arg(dir.join("build.tcl"))
        .args(["-jobs", "2"])
        .current_dir(dir)
        .env("FERROCE_STUB_LOG", &log);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().expect("cannot run tclsh (scripts/test.sh installs it)");
    let calls = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect();
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
        assert!(top.len() > 5, "{}: ports of {} not found", board.name, board.top);
        for xdc in board.files_of(FileKind::Constraints) {
            let named = constrained_ports(xdc.text);
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
    for board in BOARDS.iter() {
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

/// Board tops that passed the lint and the synthesis below, one line per board: board,
/// fingerprint of what was checked (the top, the generated Verilog, `vendor_ip.v`, the lint
/// configuration and command, the synthesis script, Verilator's and yosys's versions), `ok`. A
/// recorded board is not checked again (the four take about a minute); a board whose files
/// changed is, and the file is rewritten, to be committed with the change.
/// `FERROCE_LEVELS_FRESH=1` checks every board.
const BOARDS_RECORD: &str = "boards.lock";

/// The first lines of the record.
const BOARDS_RECORD_HEADER: &str = "\
# Written by tests/tests/boards.rs (board_tops_lint_clean_and_synthesize): board, fingerprint
# of the checked files, commands and tool versions, result. Commit it when a test run rewrites it.
";

#[test]
fn board_tops_lint_clean_and_synthesize() {
    let record = Record::open(BOARDS_RECORD);
    let version = |tool: &str, arg: &str| {
        let out = Command::new(tool)
            .arg(arg)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {tool}: {e}"));
        out.stdout
    };
    let versions = [version("verilator", "--version"), version("yosys", "-V")];
    let vendor_ip = std::fs::read(here("vendor_ip.v")).unwrap();
    let results = parallel_map(&BOARDS, |board| {
        let dir = build_of(board);
        let top = board.files_of(FileKind::Source).next().unwrap().name;
        let generated = board.generated_files();
        // every warning on for the top; the generated modules are the lint gate's
        let config = dir.join("lint.vlt");
        let mut vlt = String::from("`verilator_config\n");
        for f in generated.iter().map(String::as_str).chain(["vendor_ip.v"]) {
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
        let recipe = format!("{}\n{}", lint_args.join(" "), script("vendor_ip.v"));
        let parts: Vec<&[u8]> = sources
            .iter()
            .map(Vec::as_slice)
            .chain([vendor_ip.as_slice(), vlt.as_bytes(), recipe.as_bytes(), &versions[0], &versions[1]])
            .collect();
        let print = fingerprint(&parts);
        if record.get(board.name, &print).is_some_and(|r| r == "ok") {
            return (board.name, print, true, String::new(), true, String::new(), false);
        }
        let lint = Command::new("verilator")
            .args(lint_args)
            .arg(&config)
            .arg(dir.join(top))
            .arg(here("vendor_ip.v"))
            .args(generated.iter().map(|f| dir.join(f)))
            .output()
            .expect("cannot run verilator");
        let lint_log = format!("{}{}", String::from_utf8_lossy(&lint.stdout), String::from_utf8_lossy(&lint.stderr));
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
        (
            board.name,
            print,
            lint.status.success() && !lint_log.contains("%Warning"),
            lint_log,
            synth.status.success(),
            synth_log,
            true,
        )
    });
    if results.iter().any(|r| r.6) && results.iter().all(|r| r.2 && r.4) {
        let lines: Vec<(String, String, String)> = results.iter().map(|r| (r.0.to_string(), r.1.clone(), "ok".to_string())).collect();
        record.write(BOARDS_RECORD_HEADER, &lines);
        println!("{} rewritten: commit it", record.path.display());
    }
    for (name, _, lint_ok, lint_log, synth_ok, synth_log, _) in results {
        assert!(lint_ok, "{name}: verilator lint of the board top:\n{lint_log}");
        assert!(synth_ok, "{name}: yosys synthesis of the board top:\n{synth_log}");
    }
}
