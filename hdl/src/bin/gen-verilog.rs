//! Writes the Verilog of every Ferroce top module.

use clap::Parser;
use ferroce_contracts::regs;
use ferroce_hdl::tops::{self, TOPS, WIDTHS};
use std::path::PathBuf;
use std::process::ExitCode;

/// Generate the Verilog of every Ferroce top module, one file per top (with the register
/// file: its register map as `ferroce_regs.h` and `ferroce_regs.rdl`).
///
/// Module names are unique and start with `ferroce_` (name plus `_w<width>`), so the files of
/// several widths and tops load into one Vivado project.
#[derive(Parser)]
#[command(name = "gen-verilog", version, about, long_about = None)]
struct Args {
    /// Output directory (created if missing).
    #[arg(long, value_name = "DIR", default_value = "out/verilog")]
    out: PathBuf,
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
}

fn parse_width(s: &str) -> Result<usize, String> {
    let w: usize = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if WIDTHS.contains(&w) {
        Ok(w)
    } else {
        Err(format!("{w} is not a supported width (use one of {WIDTHS:?})"))
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.list {
        for t in TOPS.iter() {
            let variants = if t.width_generic() {
                "--width 64|128|256|512|1024".to_string()
            } else {
                format!("--variant {}", t.variants.join("|"))
            };
            println!("{:<14} {} [{variants}]", t.name, t.description);
        }
        return ExitCode::SUCCESS;
    }
    for name in &args.only {
        if tops::find(name).is_none() {
            let names: Vec<_> = TOPS.iter().map(|t| t.name).collect();
            eprintln!("error: unknown top '{name}' (known: {})", names.join(", "));
            return ExitCode::from(2);
        }
    }
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        eprintln!("error: cannot create {}: {e}", args.out.display());
        return ExitCode::FAILURE;
    }
    for t in TOPS
        .iter()
        .filter(|t| args.only.is_empty() || args.only.iter().any(|n| n == t.name))
    {
        let variant = match &args.variant {
            Some(v) if !t.width_generic() => match t.variants.iter().find(|x| *x == v) {
                Some(v) => *v,
                None => {
                    eprintln!("error: top '{}' has no variant '{v}' (known: {})", t.name, t.variants.join(", "));
                    return ExitCode::from(2);
                }
            },
            _ => t.variant_for_width(args.width),
        };
        let module = t.module_name(variant);
        let v = t.verilog(variant);
        let path = args.out.join(format!("{module}.v"));
        if let Err(e) = std::fs::write(&path, &v) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        let modules = v.matches("\nmodule ").count() + usize::from(v.starts_with("module "));
        let what = if t.width_generic() {
            format!("{} bits", args.width)
        } else {
            variant.replace('_', ", ")
        };
        println!(
            "{}: {} ({what}, {} modules, {} bytes)",
            path.display(),
            t.description.split(':').next().unwrap_or(""),
            modules,
            v.len()
        );
        if t.name == "registers" {
            // the register map of this configuration, for drivers and for PeakRDL
            let map = regs::Map::new(tops::registers_config(variant));
            for (file, text, what) in [
                ("ferroce_regs.h", regs::render::c_header(&map), "C header of the register map"),
                ("ferroce_regs.rdl", regs::render::systemrdl(&map), "SystemRDL 2.0 register map"),
            ] {
                let path = args.out.join(file);
                if let Err(e) = std::fs::write(&path, &text) {
                    eprintln!("error: cannot write {}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
                println!("{}: {what} (map hash {:#010x}, {} bytes)", path.display(), map.hash(), text.len());
            }
        }
    }
    ExitCode::SUCCESS
}
