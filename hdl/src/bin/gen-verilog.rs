//! Writes the Verilog of every Ferroce top module.

use clap::Parser;
use ferroce_hdl::boards::{self, Board, BOARDS};
use ferroce_hdl::tops::{self, TOPS, WIDTHS};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Generate the Verilog of every Ferroce top module, one file per top (with the register
/// file: its register map as `ferroce_regs.h` and `ferroce_regs.rdl`).
///
/// Module names are unique and start with `ferroce_` (name plus `_w<width>`), so the files of
/// several widths and tops load into one Vivado project.
///
/// With --board, the build of one board instead: the engine (or, on a board too small for it,
/// the scheduler build) in the board's configuration, the board top, its constraints and its
/// script (`vivado -mode batch -source build.tcl`; `bash build.sh` for the iCE40 boards).
#[derive(Parser)]
#[command(name = "gen-verilog", version, about, long_about = None)]
struct Args {
    /// Output directory (created if missing) [default: out/verilog, or out/<board> with --board].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// AXI-Stream data width in bits.
    #[arg(long, default_value_t = 512, value_parser = parse_width)]
    width: usize,
    /// List the top modules with a one-line description, and exit.
    #[arg(long)]
    list: bool,
    /// Emit only these tops (names as printed by --list); default: all.
    #[arg(long = "top", value_name = "NAME")]
    only: Vec<String>,
    /// Configuration of the tops that are not width-generic (as printed by --list, e.g.
    /// n64_q5 for the scheduler); default: their first configuration.
    #[arg(long, value_name = "NAME")]
    variant: Option<String>,
    /// Write the build of a board (names as printed by --list-boards): its tops, board top,
    /// constraints and scripts (board.tcl, build.tcl and flow.tcl; board.sh and build.sh).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["only", "variant", "list", "width"])]
    board: Option<String>,
    /// List the boards with their part and clock domains, and exit.
    #[arg(long)]
    list_boards: bool,
}

fn parse_width(s: &str) -> Result<usize, String> {
    let w: usize = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if WIDTHS.contains(&w) {
        Ok(w)
    } else {
        Err(format!("{w} is not a supported width (use one of {WIDTHS:?})"))
    }
}

/// Writes one file, saying what it is.
fn write(dir: &Path, name: &str, text: &str, what: &str) -> Result<(), ExitCode> {
    let path = dir.join(name);
    std::fs::write(&path, text).map_err(|e| {
        eprintln!("error: cannot write {}: {e}", path.display());
        ExitCode::FAILURE
    })?;
    println!("{}: {what} ({} bytes)", path.display(), text.len());
    Ok(())
}

/// Writes the register map of a register file configuration: C header and SystemRDL.
fn write_register_map(dir: &Path, variant: &str) -> Result<(), ExitCode> {
    for (file, text, what) in tops::register_map_files(variant) {
        write(dir, file, &text, &what)?;
    }
    Ok(())
}

/// Writes the build of one board into `dir`.
fn write_board(board: &Board, dir: &Path) -> Result<(), ExitCode> {
    board
        .write(dir, |w| println!("{}: {} ({} bytes)", w.path.display(), w.what, w.bytes))
        .map_err(|e| {
            eprintln!("error: cannot write the build of {} into {}: {e}", board.name, dir.display());
            ExitCode::FAILURE
        })?;
    println!("next: cd {} && {} (docs/boards.md)", dir.display(), board.flow.command());
    Ok(())
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

fn run(args: Args) -> Result<(), ExitCode> {
    if args.list_boards {
        for b in BOARDS.iter() {
            println!("{:<12} {} [{}]", b.name, b.description, b.part);
            for c in b.clocks {
                println!("{:<12}   {} {} MHz: {}", "", c.net, c.mhz, c.what);
            }
        }
        return Ok(());
    }
    if let Some(name) = &args.board {
        let Some(board) = boards::find(name) else {
            let names: Vec<_> = BOARDS.iter().map(|b| b.name).collect();
            eprintln!("error: unknown board '{name}' (known: {})", names.join(", "));
            return Err(ExitCode::from(2));
        };
        let dir = args.out.clone().unwrap_or_else(|| Path::new("out").join(board.name));
        create_dir(&dir)?;
        return write_board(board, &dir);
    }
    if args.list {
        for t in TOPS.iter() {
            let variants = if t.width_generic() {
                "--width 64|128|256|512|1024".to_string()
            } else {
                format!("--variant {}", t.variants.join("|"))
            };
            println!("{:<14} {} [{variants}]", t.name, t.description);
        }
        return Ok(());
    }
    for name in &args.only {
        if tops::find(name).is_none() {
            let names: Vec<_> = TOPS.iter().map(|t| t.name).collect();
            eprintln!("error: unknown top '{name}' (known: {})", names.join(", "));
            return Err(ExitCode::from(2));
        }
    }
    let dir = args.out.clone().unwrap_or_else(|| PathBuf::from("out/verilog"));
    create_dir(&dir)?;
    for t in TOPS
        .iter()
        .filter(|t| args.only.is_empty() || args.only.iter().any(|n| n == t.name))
    {
        let variant = match &args.variant {
            Some(v) if !t.width_generic() => match t.variants.iter().find(|x| *x == v) {
                Some(v) => *v,
                None => {
                    eprintln!("error: top '{}' has no variant '{v}' (known: {})", t.name, t.variants.join(", "));
                    return Err(ExitCode::from(2));
                }
            },
            _ => t.variant_for_width(args.width),
        };
        let v = t.verilog(variant);
        let modules = v.matches("\nmodule ").count() + usize::from(v.starts_with("module "));
        let what = if t.width_generic() {
            format!("{} bits", args.width)
        } else {
            variant.replace('_', ", ")
        };
        let summary = format!("{}, {what}, {modules} modules", t.description.split(':').next().unwrap_or(""));
        write(&dir, &format!("{}.v", t.module_name(variant)), &v, &summary)?;
        if t.name == "registers" {
            // the register map of this configuration, for drivers and for PeakRDL
            write_register_map(&dir, variant)?;
        }
    }
    Ok(())
}

fn create_dir(dir: &Path) -> Result<(), ExitCode> {
    std::fs::create_dir_all(dir).map_err(|e| {
        eprintln!("error: cannot create {}: {e}", dir.display());
        ExitCode::FAILURE
    })
}
