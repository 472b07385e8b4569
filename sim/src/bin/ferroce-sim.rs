//! `ferroce-sim`: run Ferroce hardware units (Verilator) or their software models on captures.

use clap::{Parser, Subcommand, ValueEnum};
use ferroce_sim::{bench, icrc, verilated::Traffic, wire};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "ferroce-sim", version, about = "Run Ferroce hardware units (Verilator) or their software models")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Engine {
    /// The Verilator model of the generated Verilog.
    Rtl,
    /// The software golden model.
    Model,
}

#[derive(Subcommand)]
enum Cmd {
    /// Check the ICRC of every frame of a pcap; prints one JSON object per frame.
    ///
    /// {"frame":0,"roce":true,"icrc_ok":true,"icrc_wire":"82fd002a"}: icrc_wire is the ICRC the
    /// engine computes, in wire byte order; roce false (and nulls) for frames that are not RoCEv2.
    Icrc {
        /// Capture to read (pcap, Ethernet link type).
        #[arg(long, value_name = "FILE")]
        pcap: PathBuf,
        /// Which engine computes the verdicts.
        #[arg(long, value_enum, default_value_t = Engine::Rtl)]
        engine: Engine,
        /// The frames in the capture end with a 4-byte FCS (it is stripped).
        #[arg(long)]
        fcs: bool,
        /// Bus width of the RTL engine.
        #[arg(long, default_value_t = 512, value_parser = parse_width)]
        width: usize,
    },
    /// Cycle figures measured in Verilator.
    Bench {
        #[command(subcommand)]
        what: BenchWhat,
    },
}

#[derive(Subcommand)]
enum BenchWhat {
    /// IcrcCheck and IcrcInsert: cycles per frame, bus efficiency and latency per payload size.
    Icrc {
        #[arg(long, default_value_t = 512, value_parser = parse_width)]
        width: usize,
        /// Frames per row.
        #[arg(long, default_value_t = 200)]
        frames: usize,
    },
}

fn parse_width(s: &str) -> Result<usize, String> {
    let w: usize = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if ferroce_hdl::tops::WIDTHS.contains(&w) {
        Ok(w)
    } else {
        Err(format!("{w} is not a supported width (use one of {:?})", ferroce_hdl::tops::WIDTHS))
    }
}

fn main() -> ExitCode {
    match Cli::parse().cmd {
        Cmd::Icrc { pcap, engine, fcs, width } => {
            let frames = match wire::pcap::read_pcap(&pcap, fcs) {
                Ok(f) => f,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            // Empty frames cannot travel on AXI-Stream; report them as not RoCEv2 in both engines.
            let results: Vec<icrc::CheckResult> = match engine {
                Engine::Model => frames.iter().map(|f| icrc::check_model(f)).collect(),
                Engine::Rtl => {
                    let nonempty: Vec<Vec<u8>> = frames.iter().filter(|f| !f.is_empty()).cloned().collect();
                    let mut rtl = if nonempty.is_empty() {
                        Vec::new()
                    } else {
                        match icrc::check_rtl(&nonempty, width, Traffic::FULL) {
                            Ok((_, r)) => r,
                            Err(e) => {
                                eprintln!("error: {e}");
                                return ExitCode::FAILURE;
                            }
                        }
                    }
                    .into_iter();
                    frames
                        .iter()
                        .map(|f| if f.is_empty() { icrc::check_model(f) } else { rtl.next().unwrap() })
                        .collect()
                }
            };
            for (i, r) in results.iter().enumerate() {
                println!("{}", r.json(i));
            }
            ExitCode::SUCCESS
        }
        Cmd::Bench { what: BenchWhat::Icrc { width, frames } } => {
            let (check, insert, speed) = bench::icrc(width, frames);
            println!("IcrcCheck, {width} bits, back to back, no idle, no backpressure\n");
            print!("{}", bench::table(&check));
            println!("\nIcrcInsert, {width} bits (output beats; a frame whose ICRC spills takes one more beat)\n");
            print!("{}", bench::table(&insert));
            println!("\nVerilator speed: {:.2} M cycles/s (this machine, batched stream runner)", speed / 1e6);
            ExitCode::SUCCESS
        }
    }
}
