//! `ferroce-sim`: run Ferroce hardware units (Verilator) or their software models on captures.

use clap::{Parser, Subcommand, ValueEnum};
use ferroce_sim::models::tx::spec as tx_spec;
use ferroce_sim::models::FrameEngine;
use ferroce_sim::{bench, icrc_rtl as icrc, verilated::Traffic, wire};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "ferroce-sim",
    version,
    about = "Run Ferroce hardware units (Verilator) or their software models"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
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
    /// Parse every frame of a pcap with the RX front end; prints one JSON object per frame.
    ///
    /// Keys, in order: frame, verdict (accept|drop|pass), reason, icrc_ok, eth_dst, eth_src,
    /// vlan, ip_version, ip_src, ip_dst, ip_dscp, ip_ecn, ip_ttl, udp_sport, udp_dport, bth_*,
    /// reth, immdt, aeth, payload_len, payload_crc32. Rules: docs/rx.md.
    Rx {
        /// Capture to read (pcap, Ethernet link type).
        #[arg(long, value_name = "FILE")]
        pcap: PathBuf,
        /// Which engine parses the frames.
        #[arg(long, value_enum, default_value_t = Engine::Rtl)]
        engine: Engine,
        /// The frames in the capture end with a 4-byte FCS (it is stripped).
        #[arg(long)]
        fcs: bool,
        /// Print the parser's counters as one JSON object on stderr at the end.
        #[arg(long)]
        counters: bool,
    },
    /// Replay a scheduler trace on the default scheduler (2048 nodes, 32 queues); prints one line
    /// per `deq`: `<queue> <element>` or `empty`.
    ///
    /// Trace lines: `enq <queue> <element>`, `deq`, `weight <queue> <w>`, `tick <cycles>`; `#`
    /// starts a comment. A bad line is reported as FILE:LINE and nothing runs (exit status 2).
    /// Cycle-level rules: docs/sched.md.
    Sched {
        /// Trace to replay.
        #[arg(long, value_name = "FILE")]
        trace: PathBuf,
        /// Which engine schedules.
        #[arg(long, value_enum, default_value_t = Engine::Rtl)]
        engine: Engine,
    },
    /// Serve a Verilator model's register file on a Unix socket, for `ferroce-ctl --device
    /// sim:PATH`: the register file alone, or the whole engine with its MAC TX looped back to its
    /// MAC RX.
    ///
    /// With `--top registers`, posts are answered by a software stand-in for the transfer table
    /// (it checks them and completes accepted ones LATENCY cycles later). With `--top engine`,
    /// posts send real frames, which come back to the engine itself: post from one of its QPs
    /// to another (set the first's DestQP to the second) and read the second's receive
    /// completions; its memory reads 0 where nothing was written. The loop is a board's wire: the
    /// TX is never held, and a frame the MAC ingress's buffer has no room for is dropped (as
    /// `ferroce_mac_ingress` drops it). Runs until killed; clients
    /// are served one after the other. Protocol: ferroce_sim::serve.
    ///
    /// With --serial, the register file is reached through the serial bridge's Verilog
    /// (`SerialBridge`) on a pseudo-terminal, as on a board with a USB UART:
    /// `ferroce-ctl --device serial:PATH`.
    Serve {
        /// Socket path (an existing socket file there is replaced).
        #[arg(long, value_name = "PATH", required_unless_present = "serial", conflicts_with = "serial")]
        socket: Option<PathBuf>,
        /// Instead of a socket: a pseudo-terminal behind the serial bridge, linked from PATH
        /// (an existing link there is replaced).
        #[arg(long, value_name = "PATH")]
        serial: Option<PathBuf>,
        /// With --serial: the bridge's clocks per bit (100: 1 Mbaud at 100 MHz; the Alchitry
        /// Cu's build ties 50 at its 50 MHz; fewer run faster).
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(4..=65535))]
        clocks_per_bit: u32,
        /// What to serve: registers, engine, or serial_sched (the scheduler build, the Alchitry
        /// Cu's design, with --serial only: its serial bridge is its own).
        #[arg(long, default_value = "registers")]
        top: String,
        /// Configuration: for registers c2048_q256 (default) or c64_q16; for the engine
        /// c2048_q256_w512 (default, 512 bits) or c64_q16_w64 (64 bits, the ZCU102 build's).
        #[arg(long)]
        variant: Option<String>,
        /// Registers only: cycles from an accepted post to its completion.
        #[arg(long, default_value_t = 64)]
        latency: u64,
    },
    /// Run the engine with its MAC on a UDP socket, its register file served for `ferroce-ctl
    /// --device sim:PATH`: every frame it sends leaves as one datagram to --peer, every
    /// datagram to --udp is a frame on its MAC RX (no FCS either way), as QEMU's `-netdev
    /// dgram` sends and takes them, so a Linux VM's NIC can be its wire.
    ///
    /// Memory behind the engine is in software: reads of bytes never written return 0.
    /// Datagrams shorter than an Ethernet header or longer than 4,224 bytes are counted and
    /// dropped. Prints what crossed every --report seconds (0: never) and at the end. Runs
    /// until killed, or for --seconds.
    ///
    /// The wire is lossless unless a fault option is given: then RoCEv2 frames (only: ARP
    /// and the rest cross unchanged) are lost, duplicated, reordered or corrupted at the
    /// given rates, from --fault-seed, in the directions of --faults-on.
    Wire {
        /// Local UDP address the engine's MAC RX listens on.
        #[arg(long, value_name = "ADDR:PORT")]
        udp: std::net::SocketAddr,
        /// UDP address the engine's MAC TX sends to.
        #[arg(long, value_name = "ADDR:PORT")]
        peer: std::net::SocketAddr,
        /// Socket path of the register file (an existing socket file there is replaced).
        #[arg(long, value_name = "PATH")]
        socket: PathBuf,
        /// Engine configuration: c2048_q256_w512 (512 bits) or c64_q16_w64 (64 bits, the ZCU102
        /// build's).
        #[arg(long, default_value = "c2048_q256_w512")]
        variant: String,
        /// Write every frame, both ways, to this pcap at the end (and every --report seconds).
        #[arg(long, value_name = "FILE")]
        pcap: Option<PathBuf>,
        /// Stop after this many seconds (0: run until killed).
        #[arg(long, default_value_t = 0)]
        seconds: u64,
        /// Seconds between two progress lines on stderr (0: none).
        #[arg(long, default_value_t = 10)]
        report: u64,
        #[command(flatten)]
        faults: FaultArgs,
    },
    /// Run transfers through the TX path and write its frames (no FCS) to a pcap; prints the
    /// post refusals, packets, bytes, per-queue bytes, completions (and cycles, from the RTL).
    ///
    /// One transfer from the options below, or many from --posts FILE: one post per line of
    /// `key=value` pairs with the options' names (channel=1 queue=2 weight=5 len=1M op=send se);
    /// `#` starts a comment; a line's missing keys take the options' values. The payload is a
    /// pseudo-random pattern of local memory from --seed. Rules: docs/tx.md.
    Tx {
        /// Capture to write (pcap, Ethernet link type, frames without FCS).
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Which engine runs the TX path.
        #[arg(long, value_enum, default_value_t = Engine::Model)]
        engine: Engine,
        /// Many transfers, one post per line.
        #[arg(long, value_name = "FILE")]
        posts: Option<PathBuf>,
        /// Block size in bytes: a power of two from 4K to 1M.
        #[arg(long, value_name = "BYTES", default_value = "64K", value_parser = tx_spec::parse_block_size)]
        block: u32,
        /// Seed of the payload pattern in local memory.
        #[arg(long, default_value_t = 0, value_parser = parse_seed)]
        seed: u64,
        #[command(flatten)]
        transfer: TransferArgs,
    },
    /// Two engines back to back in Verilator: A's TX path sends WRITEs or SENDs to B's RX path,
    /// B's TX path sends the ACKs back to A's RX path.
    ///
    /// Per transfer size, --transfers posts over --qps connections (in rounds of at most a TX
    /// path's channels), each round checked against the golden models (every frame, decision,
    /// completion and response) and B's memory byte for byte. Prints per size the cycles (first
    /// post to last handshake of each round), the goodput at the CMAC clock (322.27 MHz) and on
    /// 100GbE against the RoCEv2 limit, and the mismatches: the run stops at the first, which
    /// exits with status 1. Rules: docs/engine.md.
    Loopback {
        /// Transfers per size.
        #[arg(long, default_value_t = 32)]
        transfers: usize,
        /// Transport of every connection.
        #[arg(long, value_enum, default_value_t = TransportArg::Rc)]
        transport: TransportArg,
        /// Path MTU in bytes: 256, 512, 1024, 2048 or 4096.
        #[arg(long, default_value = "4096", value_parser = parse_pmtu)]
        pmtu: ferroce_sim::contracts::tx::Pmtu,
        /// Transfer sizes, comma-separated (K, M suffixes: 1K = 1024).
        #[arg(long, value_delimiter = ',', default_value = "64,256,1K,4K,16K,64K,256K,1M", value_parser = parse_transfer_size)]
        sizes: Vec<u32>,
        /// Operation of every post.
        #[arg(long, value_enum, default_value_t = OpArg::Write)]
        op: OpArg,
        /// Connections the transfers are spread over.
        #[arg(long, default_value_t = 4)]
        qps: usize,
        /// Bus width of both engines: 512 (the default TX path) or 64 (the small one).
        #[arg(long, default_value_t = 512)]
        width: usize,
        /// QPs of both engines' tables: 2048 selects the 2048-QP variants at 512 bits (their
        /// models are built when ferroce-sim is built with FERROCE_SIM_ALL=1); by default 256
        /// at 512 bits, 16 at 64.
        #[arg(long, value_name = "N")]
        qp_count: Option<u32>,
        /// Random memory latency, wire stalls and backpressure everywhere (drawn from --seed)
        /// instead of nothing pushing back.
        #[arg(long)]
        random: bool,
        /// Seed of the connections' QPs and PSNs, the payloads and the --random draws.
        #[arg(long, default_value_t = 1, value_parser = parse_seed)]
        seed: u64,
        /// Write each round's frames (both wires, no FCS) to a pcap file in this directory.
        #[arg(long, value_name = "DIR")]
        pcap: Option<PathBuf>,
        /// Lossy wires (RC): the probability that a RoCEv2 frame is lost, on both wires. With any
        /// fault the requesters' retry timer is scaled down (a timeout of 16,400 cycles) and each
        /// round is checked for what must survive loss: one successful completion per transfer
        /// and B's memory byte for byte (docs/reliability.md).
        #[arg(long, default_value_t = 0.0, value_name = "P")]
        loss: f64,
        /// Frames lost at once: each loss takes 1 to N frames.
        #[arg(long, default_value_t = 1, value_name = "N")]
        burst: usize,
        /// The probability that a frame arrives twice.
        #[arg(long, default_value_t = 0.0, value_name = "P")]
        dup: f64,
        /// The probability that a frame is held back behind 1 to --window later frames.
        #[arg(long, default_value_t = 0.0, value_name = "P")]
        reorder: f64,
        /// The most frames a held-back frame lets pass.
        #[arg(long, default_value_t = 4, value_name = "N")]
        window: usize,
        /// The probability that a frame's ICRC is corrupted (its receiver drops it).
        #[arg(long, default_value_t = 0.0, value_name = "P")]
        corrupt: f64,
    },
    /// Streams into remote memory through two engine tops back to back (Verilator).
    ///
    /// A's stream ports 0..N each cut random bytes into messages of one slot (RDMA WRITE with
    /// immediate) into a ring of slots in B's memory, set up through A's stream registers; B's
    /// host pops each receive completion and posts a buffer for the next. Checks every write
    /// into B's memory (inside one slot, bytes of a message of that slot), each stream's
    /// completions (in order, with their immediates and lengths: all messages, or on a lossy UC
    /// wire exactly those whose every packet crossed), every slot's last message and A's
    /// counters. Prints per stream the messages, completions and losses, and the goodput at the
    /// CMAC clock and on 100GbE against the RoCEv2 limit. A mismatch exits with status 1.
    /// Rules: docs/stream.md.
    Stream {
        /// Streams (A's streams 0..N): at most the build's, 8 ports at 512 bits, 2 at 64; 256
        /// on one AXI-Stream with `--engine c2048_q256_w512_bus256` (128 with
        /// c2048_q256_w512_bus128, 8 with c64_q16_w64_bus8).
        #[arg(long, default_value_t = 1)]
        streams: usize,
        /// Bytes of a slot: a multiple of the bus width, at most half a stream's buffer: 16 KiB
        /// (c2048_q256_w512_bus128 too), 8 KiB in c2048_q256_w512_bus256, 1 MiB with `--engine
        /// c2048_q256_w512_slot1m` (K and M suffixes: 4K = 4096).
        #[arg(long, default_value = "4K", value_parser = parse_transfer_size)]
        slot: u32,
        /// Slots of each ring.
        #[arg(long, default_value_t = 16)]
        slots: u32,
        /// Messages each stream sends.
        #[arg(long, default_value_t = 64)]
        messages: usize,
        /// Transport of every stream's connection.
        #[arg(long, value_enum, default_value_t = TransportArg::Uc)]
        transport: TransportArg,
        /// Path MTU in bytes: 256, 512, 1024, 2048 or 4096.
        #[arg(long, default_value = "4096", value_parser = parse_pmtu)]
        pmtu: ferroce_sim::contracts::tx::Pmtu,
        /// The immediate counts the message's sequence number, or its slot and the ring's wraps.
        #[arg(long, value_enum, default_value_t = ImmediateArg::Sequence)]
        immediate: ImmediateArg,
        /// The solicited-event bit on every M-th message (0: never).
        #[arg(long, default_value_t = 0, value_name = "M")]
        se_every: u32,
        /// TX channels of each stream (messages in flight at once): 1, 2 or 4.
        #[arg(long, default_value_t = 2)]
        channels: u32,
        /// Pace each stream at RATE payload bytes per second (k, M, G: powers of 1000, as
        /// 2.5G), a packet at a time: stream s posts on queue 1 + s, paced and in the high table
        /// (at most queues − 1 streams); the report gives each stream's rate. Default: not paced.
        #[arg(long, value_parser = parse_rate)]
        rate: Option<u64>,
        /// Bus width of both engines: 512 (the default build) or 64 (the small one, the ZCU102
        /// build's).
        #[arg(long, default_value_t = 512)]
        width: usize,
        /// The engine build instead of the default one at --width: an `engine` variant of
        /// gen-verilog (c2048_q256_w512_slot1m: two stream ports that take slots up to 1 MiB;
        /// c2048_q256_w512_bus256, c2048_q256_w512_bus128 and c64_q16_w64_bus8: streams on one
        /// AXI-Stream, in packets of up to 1 KiB of random streams in turn).
        #[arg(long, value_name = "VARIANT")]
        engine: Option<String>,
        /// A bus build's packets all of BYTES (whole beats dividing the slot; K suffix: 1K =
        /// 1024), as a source of fixed frames sends them, instead of 1 beat to 1 KiB at random.
        #[arg(long, value_name = "BYTES", value_parser = parse_transfer_size)]
        packet: Option<u32>,
        /// The probability that a RoCEv2 frame is lost, on both wires (UC: the messages it
        /// belonged to are lost; RC: sent again, its retry timer scaled down to a tick of 16
        /// cycles).
        #[arg(long, default_value_t = 0.0, value_name = "P", value_parser = probability)]
        loss: f64,
        /// Frames lost at once: each loss takes 1 to N frames.
        #[arg(long, default_value_t = 1, value_name = "N")]
        burst: usize,
        /// Random memory latency, stream idles and backpressure everywhere (drawn from --seed)
        /// instead of nothing pushing back.
        #[arg(long)]
        random: bool,
        /// Seed of the bytes, the QPs and PSNs and the --random and --loss draws.
        #[arg(long, default_value_t = 1, value_parser = parse_seed)]
        seed: u64,
        /// Write the frames of both wires (as the engines sent them, no FCS) to this pcap file.
        #[arg(long, value_name = "FILE.pcap")]
        out: Option<PathBuf>,
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
    /// The TX path (default configuration, 512 bits): per PMTU and transfer size, output beats
    /// per cycle and goodput on the bus at 322.27 MHz and on a 100GbE wire (FCS, preamble and
    /// gap counted), with the memory answering after --latency cycles.
    Tx {
        /// Cycles from a memory read command to its first data beat.
        #[arg(long, default_value_t = 200)]
        latency: u64,
        /// Memory reads in flight at most.
        #[arg(long, default_value_t = 32)]
        outstanding: usize,
        /// Payload bytes per row (at least 64 transfers).
        #[arg(long, default_value = "4M", value_parser = parse_byte_count)]
        bytes: u64,
        /// Path MTUs of the rows, comma-separated.
        #[arg(long, value_delimiter = ',', default_values_t = bench::TX_PMTUS, value_parser = parse_pmtu_bytes)]
        pmtus: Vec<u32>,
        /// Transfer sizes of the rows, comma-separated (K, M suffixes: 1K = 1024).
        #[arg(long, value_delimiter = ',', default_values_t = bench::TX_SIZES, value_parser = parse_transfer_size)]
        sizes: Vec<u32>,
        /// Send the responder's RDMA READ responses (one QP, one after another, in queue 1)
        /// instead of host-posted UC WRITEs.
        #[arg(long)]
        read_responses: bool,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum TransportArg {
    /// Reliable connection: every message acknowledged.
    Rc,
    /// Unreliable connection: no responses.
    Uc,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum ImmediateArg {
    /// The message's sequence number from 0.
    Sequence,
    /// The slot index in the low bits, the ring's wrap count above.
    SlotAndWrap,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum OpArg {
    /// RDMA WRITE.
    Write,
    /// RDMA WRITE with immediate (a receive completion each).
    WriteImm,
    /// SEND (into a posted receive buffer).
    Send,
    /// SEND with immediate.
    SendImm,
    /// RDMA READ (RC): A reads B's memory; the goodput is of B's READ responses.
    Read,
    /// RDMA WRITE as one message (not cut at the block boundaries of the remote address).
    WriteMessage,
    /// RDMA WRITE with immediate as one message (a receive completion each).
    WriteImmMessage,
}

fn parse_pmtu(s: &str) -> Result<ferroce_sim::contracts::tx::Pmtu, String> {
    use ferroce_sim::contracts::tx::Pmtu;
    s.parse()
        .ok()
        .and_then(Pmtu::from_bytes)
        .ok_or_else(|| format!("'{s}' is not a PMTU (256, 512, 1024, 2048 or 4096)"))
}

fn parse_pmtu_bytes(s: &str) -> Result<u32, String> {
    parse_pmtu(s).map(|p| p.bytes())
}

fn parse_transfer_size(s: &str) -> Result<u32, String> {
    tx_spec::parse_size(s).and_then(|n| u32::try_from(n).map_err(|_| format!("'{s}' is more than 4 GiB")))
}

fn parse_byte_count(s: &str) -> Result<u64, String> {
    tx_spec::parse_size(s).and_then(|n| u64::try_from(n).map_err(|_| format!("'{s}' is too large")))
}

fn parse_rate(s: &str) -> Result<u64, String> {
    ferroce_sim::contracts::sched::parse_rate(s).and_then(|r| {
        if r == 0 {
            Err("a rate of 0 sends nothing: leave --rate out to not pace".into())
        } else {
            Ok(r)
        }
    })
}

fn parse_seed(s: &str) -> Result<u64, String> {
    tx_spec::parse_number(s).and_then(|n| u64::try_from(n).map_err(|_| format!("seed '{s}' does not fit 64 bits")))
}

/// The transfer keys ([`tx_spec::KEYS`]) as options (`--len 4096`, `--se`): the posts file reads
/// the same keys, so a key, its check and its default are written once.
#[derive(Debug, Default)]
struct TransferArgs(Vec<(&'static str, String)>);

impl clap::FromArgMatches for TransferArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let given = tx_spec::KEYS.iter().filter_map(|k| {
            if k.value.is_empty() {
                m.get_flag(k.name).then(|| (k.name, "1".to_string()))
            } else {
                m.get_one::<String>(k.name).map(|v| (k.name, v.clone()))
            }
        });
        Ok(TransferArgs(given.collect()))
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for TransferArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        tx_spec::KEYS.iter().fold(cmd, |cmd, k| {
            let help = if k.default.is_empty() {
                k.help.to_string()
            } else {
                format!("{} [default: {}]", k.help, k.default)
            };
            let arg = clap::Arg::new(k.name).long(k.name).help(help);
            cmd.arg(if k.value.is_empty() {
                arg.action(clap::ArgAction::SetTrue)
            } else {
                let name = k.name;
                arg.value_name(k.value)
                    .value_parser(move |v: &str| tx_spec::TransferSpec::default().set(name, v).map(|()| v.to_string()))
            })
        })
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
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
            let mut eng: Box<dyn FrameEngine<Output = icrc::CheckResult>> = match engine {
                Engine::Model => Box::new(icrc::IcrcCheckModel),
                Engine::Rtl => Box::new(icrc::IcrcCheckRtl {
                    width,
                    traffic: Traffic::FULL,
                }),
            };
            let results = match eng.run(&frames) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            for (i, r) in results.iter().enumerate() {
                println!("{}", r.json(i));
            }
            ExitCode::SUCCESS
        }
        Cmd::Rx {
            pcap,
            engine,
            fcs,
            counters,
        } => run_rx(&pcap, engine, fcs, counters),
        Cmd::Sched { trace, engine } => run_sched(&trace, engine),
        Cmd::Wire {
            udp,
            peer,
            socket,
            variant,
            pcap,
            seconds,
            report,
            faults,
        } => run_wire(udp, peer, &socket, &variant, pcap.as_deref(), seconds, report, &faults),
        Cmd::Serve {
            socket,
            serial,
            clocks_per_bit,
            top,
            variant,
            latency,
        } => {
            let endpoint = match (socket, serial) {
                (Some(socket), _) => ServeOn::Socket(socket),
                (None, Some(link)) => ServeOn::Serial { link, clocks_per_bit },
                (None, None) => unreachable!("clap requires one"),
            };
            run_serve(&endpoint, &top, variant.as_deref(), latency)
        }
        Cmd::Tx {
            out,
            engine,
            posts,
            block,
            seed,
            transfer,
        } => run_tx(&out, engine, posts.as_deref(), block, seed, &transfer),
        Cmd::Loopback {
            transfers,
            transport,
            pmtu,
            sizes,
            op,
            qps,
            width,
            qp_count,
            random,
            seed,
            pcap,
            loss,
            burst,
            dup,
            reorder,
            window,
            corrupt,
        } => {
            use ferroce_sim::contracts::tx::PostOp;
            use ferroce_sim::loopback_bench::GoodputConfig;
            use ferroce_sim::loopback_rtl::Surroundings;
            use ferroce_sim::wire::Transport;
            let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(seed);
            let surroundings = if random {
                ferroce_sim::loopback_bench::random_surroundings(&mut rng, seed)
            } else {
                Surroundings {
                    seed,
                    ..Surroundings::FULL
                }
            };
            let variant = match qp_count {
                None => ferroce_sim::loopback_rtl::variant_of_width(width),
                Some(n) => ferroce_sim::loopback_rtl::LoopbackVariant::find(width, n),
            };
            let variant = match variant {
                Ok(v) => v,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let config = GoodputConfig {
                variant,
                transport: match transport {
                    TransportArg::Rc => Transport::Rc,
                    TransportArg::Uc => Transport::Uc,
                },
                pmtu,
                op: match op {
                    OpArg::Write => PostOp::Write,
                    OpArg::WriteImm => PostOp::WriteImm,
                    OpArg::Send => PostOp::Send,
                    OpArg::SendImm => PostOp::SendImm,
                    OpArg::Read => PostOp::Read,
                    OpArg::WriteMessage => PostOp::WriteMessage,
                    OpArg::WriteImmMessage => PostOp::WriteImmMessage,
                },
                sizes,
                transfers,
                qps,
                surroundings,
                faults: [loss, dup, reorder, corrupt]
                    .iter()
                    .any(|&p| p > 0.0)
                    .then_some(ferroce_sim::faults::Faults {
                        loss,
                        burst,
                        duplicate: dup,
                        reorder,
                        window,
                        corrupt,
                    }),
            };
            run_loopback(&config, pcap.as_deref())
        }
        Cmd::Stream {
            streams,
            slot,
            slots,
            messages,
            transport,
            pmtu,
            immediate,
            se_every,
            channels,
            rate,
            width,
            engine,
            packet,
            loss,
            burst,
            random,
            seed,
            out,
        } => {
            use ferroce_sim::engine_rtl::{EngineVariant, Surroundings, ENGINE_W512, ENGINE_W64};
            use ferroce_sim::models::stream::ImmediateFormat;
            use ferroce_sim::stream_bench::StreamRunConfig;
            use ferroce_sim::tx_path_rtl::MemoryTiming;
            use ferroce_sim::wire::Transport;
            let engine = match (engine.as_deref(), width) {
                (None, 512) => ENGINE_W512,
                (None, 64) => ENGINE_W64,
                (None, w) => {
                    eprintln!("error: no engine build at {w} bits (512 or 64)");
                    return ExitCode::from(2);
                }
                (Some(v), _) => match EngineVariant::named(v) {
                    Some(e) => e,
                    None => {
                        eprintln!(
                            "error: --engine {v}: no such engine build (known: {})",
                            EngineVariant::names().join(", ")
                        );
                        return ExitCode::from(2);
                    }
                },
            };
            if !ferroce_sim::verilated::MODELS.contains(&engine.model_name().as_str()) {
                eprintln!(
                    "error: the Verilator model {} is not built into this binary: build ferroce-sim with FERROCE_SIM_ALL=1",
                    engine.model_name()
                );
                return ExitCode::from(2);
            }
            let config = StreamRunConfig {
                engine,
                streams,
                slot_bytes: slot,
                slots,
                messages,
                transport: match transport {
                    TransportArg::Rc => Transport::Rc,
                    TransportArg::Uc => Transport::Uc,
                },
                pmtu,
                immediate: match immediate {
                    ImmediateArg::Sequence => ImmediateFormat::Sequence,
                    ImmediateArg::SlotAndWrap => ImmediateFormat::SlotAndWrap,
                },
                solicited_every: se_every,
                channels,
                bus_packet_bytes: packet,
                rate,
                faults: (loss > 0.0).then_some(ferroce_sim::faults::Faults {
                    loss,
                    burst,
                    ..ferroce_sim::faults::Faults::NONE
                }),
                surroundings: if random {
                    Surroundings::stalling(seed, 20)
                } else {
                    Surroundings {
                        memory: MemoryTiming::IMMEDIATE,
                        bp_pct: 0,
                        idle_pct: 0,
                        seed,
                    }
                },
            };
            run_stream(&config, out.as_deref())
        }
        Cmd::Bench {
            what: BenchWhat::Icrc { width, frames },
        } => {
            let (check, insert, speed) = bench::icrc(width, frames);
            println!("IcrcCheck, {width} bits, back to back, no idle, no backpressure\n");
            print!("{}", bench::table(&check));
            println!("\nIcrcInsert, {width} bits (output beats; a frame whose ICRC spills takes one more beat)\n");
            print!("{}", bench::table(&insert));
            println!(
                "\nVerilator speed: {:.2} M cycles/s (this machine, batched stream runner)",
                speed / 1e6
            );
            ExitCode::SUCCESS
        }
        Cmd::Bench {
            what:
                BenchWhat::Tx {
                    latency,
                    outstanding,
                    bytes,
                    pmtus,
                    sizes,
                    read_responses,
                },
        } => {
            use ferroce_sim::tx_path_rtl::DEFAULT;
            let (load, what) = if read_responses {
                (bench::TxLoad::ReadResponses, "READ responses on one QP given")
            } else {
                (bench::TxLoad::Writes, "UC WRITEs on one QP posted")
            };
            let rows = bench::tx_path(&DEFAULT, load, (&pmtus, &sizes), bytes, latency, outstanding, |r| {
                eprintln!("PMTU {} × {} bytes: {:.3} beats/cycle", r.pmtu, r.size, r.occupancy());
            });
            match rows {
                Ok((rows, speed)) => {
                    println!(
                        "TX path {}, {what} before the first decision, memory latency {latency} cycles, {outstanding} reads in flight at most\n",
                        DEFAULT.name
                    );
                    print!("{}", bench::tx_table(&rows));
                    println!("\nVerilator speed: {:.2} M cycles/s", speed / 1e6);
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

/// `ferroce-sim rx`: JSON lines on stdout; errors on stderr with exit code 2.
fn run_rx(pcap: &std::path::Path, engine: Engine, fcs: bool, counters: bool) -> ExitCode {
    use ferroce_sim::rx::{RxEngine, RxModel};
    use ferroce_sim::rx_rtl::{RxFrontEngine, CLI_WIDTH};
    use std::io::Write;
    let frames = match wire::pcap::read_pcap(pcap, fcs) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // The RTL engine reports its own counters (the cnt_* ports of the RX front end).
    let mut eng: Box<dyn RxEngine> = match engine {
        Engine::Model => Box::new(RxModel::default()),
        Engine::Rtl => Box::new(RxFrontEngine::new(CLI_WIDTH)),
    };
    let results = match eng.run(&frames) {
        Ok(r) if r.len() == frames.len() => r,
        Ok(r) => {
            eprintln!(
                "error: the {engine:?} engine returned {} results for {} frames",
                r.len(),
                frames.len()
            );
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // Buffered; a reader that goes away (`| head`) ends the output quietly.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (i, r) in results.iter().enumerate() {
        if writeln!(out, "{}", r.json(i)).is_err() {
            return ExitCode::SUCCESS;
        }
    }
    if out.flush().is_err() {
        return ExitCode::SUCCESS;
    }
    if counters {
        eprintln!("{}", eng.counters().json());
    }
    ExitCode::SUCCESS
}

/// `ferroce-sim sched`: one line per `deq` on stdout; a bad trace is an error on stderr with exit
/// code 2.
fn run_sched(path: &std::path::Path, engine: Engine) -> ExitCode {
    use ferroce_sim::sched::{parse_trace, run_trace, SchedConfig, SchedEngine, SchedModel};
    let cfg = SchedConfig::default();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    let ops = match parse_trace(&text, &cfg) {
        Ok(ops) => ops,
        Err(e) => {
            eprintln!("error: {}:{}: {}", path.display(), e.line, e.message);
            return ExitCode::from(2);
        }
    };
    let mut eng: Box<dyn SchedEngine> = match engine {
        Engine::Model => match SchedModel::new(cfg) {
            Ok(m) => Box::new(m),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        },
        Engine::Rtl => match ferroce_sim::sched_rtl::rtl_engine(&cfg) {
            Ok(e) => e,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    for line in run_trace(eng.as_mut(), &ops) {
        println!("{line}");
    }
    ExitCode::SUCCESS
}

/// Where `ferroce-sim serve` serves its register file.
enum ServeOn {
    /// A Unix socket (`ferroce-ctl --device sim:PATH`).
    Socket(PathBuf),
    /// The serial bridge on a pseudo-terminal linked from `link` (`--device serial:PATH`).
    Serial { link: PathBuf, clocks_per_bit: u32 },
}

impl ServeOn {
    /// Serves `model` until the process ends.
    fn serve(&self, model: &mut impl ferroce_sim::serve::Served, what: &str) -> Result<(), String> {
        use ferroce_sim::serial_rtl::{serve_pty, BridgeAndTarget, SerialBridgeRtl};
        match self {
            ServeOn::Socket(socket) => {
                let listener = bind(socket)?;
                eprintln!("serving {what} on {}", socket.display());
                ferroce_sim::serve::serve(listener, model).map_err(|e| e.to_string())
            }
            ServeOn::Serial { link, clocks_per_bit } => {
                let mut bridge = SerialBridgeRtl::new(*clocks_per_bit, 1).map_err(|e| e.to_string())?;
                let terminal = linked_terminal(link)?;
                eprintln!(
                    "serving {what} through the serial bridge ({} clocks per bit) on {} -> {}",
                    clocks_per_bit,
                    link.display(),
                    terminal.path.display()
                );
                serve_pty(
                    &mut BridgeAndTarget {
                        bridge: &mut bridge,
                        target: model,
                    },
                    &terminal,
                    &|| false,
                )
            }
        }
    }
}

/// A pseudo-terminal linked from `link` (a link already there is replaced). Made once the
/// design to serve is built, so that a client that finds the link is served at once.
fn linked_terminal(link: &std::path::Path) -> Result<ferroce_sim::serial_rtl::Pty, String> {
    let terminal = ferroce_sim::serial_rtl::Pty::open()?;
    match std::fs::symlink_metadata(link) {
        Ok(m) if m.file_type().is_symlink() => std::fs::remove_file(link).map_err(|e| format!("{}: {e}", link.display()))?,
        Ok(_) => return Err(format!("{} exists and is not a symbolic link: not replacing it", link.display())),
        Err(_) => {}
    }
    std::os::unix::fs::symlink(&terminal.path, link).map_err(|e| format!("{}: {e}", link.display()))?;
    Ok(terminal)
}

/// `ferroce-sim serve --top serial_sched`: the scheduler build, its own serial bridge on a
/// pseudo-terminal.
fn serve_scheduler_build(endpoint: &ServeOn) -> Result<(), String> {
    use ferroce_sim::sched_build_rtl::{SerialSchedRtl, MODEL};
    let ServeOn::Serial { link, clocks_per_bit } = endpoint else {
        return Err("--top serial_sched is reached through its own serial bridge: serve it with --serial PATH".into());
    };
    let mut rtl = SerialSchedRtl::new(*clocks_per_bit).map_err(|e| e.to_string())?;
    let terminal = linked_terminal(link)?;
    eprintln!(
        "serving {MODEL} (the scheduler build: its serial bridge, {clocks_per_bit} clocks per bit) on {} -> {}",
        link.display(),
        terminal.path.display()
    );
    ferroce_sim::serial_rtl::serve_pty(&mut rtl, &terminal, &|| false)
}

/// `ferroce-sim serve`: runs until killed; errors on stderr with exit code 2.
fn run_serve(endpoint: &ServeOn, top: &str, variant: Option<&str>, latency: u64) -> ExitCode {
    use ferroce_sim::engine_rtl::{EngineLoop, EngineVariant};
    use ferroce_sim::regs_rtl::RegsRtl;
    let fail = |e: String| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    };
    let default = match top {
        "registers" => "c2048_q256",
        "engine" => "c2048_q256_w512",
        "serial_sched" => "n64_q5",
        t => return fail(format!("--top {t}: registers, engine or serial_sched")),
    };
    let variant = variant.unwrap_or(default);
    let known = ferroce_hdl::tops::find(top).map_or(&[][..], |t| t.variants);
    if !known.contains(&variant) {
        return fail(format!("no {top} variant '{variant}' (known: {})", known.join(", ")));
    }
    let served = if top == "serial_sched" {
        serve_scheduler_build(endpoint)
    } else if top == "engine" {
        let v = EngineVariant::named(variant).expect("a known variant");
        EngineLoop::new(&v).and_then(|mut e| endpoint.serve(&mut e, &format!("{} (MAC TX looped to MAC RX)", v.model_name())))
    } else {
        let config = ferroce_hdl::tops::registers_config(variant);
        RegsRtl::with_latency(config, latency)
            .map_err(|e| e.to_string())
            .and_then(|mut r| endpoint.serve(&mut r, &ferroce_sim::regs_rtl::model_name(&config)))
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

/// `ferroce-sim wire`: errors on stderr with exit code 2.
/// Which frames `ferroce-sim wire`'s faults touch.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FaultDirection {
    /// Frames to the engine.
    In,
    /// Frames from the engine.
    Out,
    /// Both.
    Both,
}

/// `ferroce-sim wire`'s lossy wire (each a probability per RoCEv2 frame, 0 to 1).
#[derive(clap::Args)]
struct FaultArgs {
    /// Probability a frame is lost (with the next ones of its burst).
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    loss: f64,
    /// Frames a loss takes at most (each loss takes 1 to N).
    #[arg(long, default_value_t = 1)]
    burst: usize,
    /// Probability a frame arrives twice.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    duplicate: f64,
    /// Probability a frame is held back behind later ones.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    reorder: f64,
    /// Frames a held-back frame lets pass at most.
    #[arg(long, default_value_t = 3)]
    window: usize,
    /// Probability a frame's ICRC is corrupted (its receiver drops it).
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    corrupt: f64,
    /// Directions the faults touch.
    #[arg(long, value_enum, default_value_t = FaultDirection::Both)]
    faults_on: FaultDirection,
    /// Seed of the faults (a run with the same frames is the same run).
    #[arg(long, default_value_t = 1)]
    fault_seed: u64,
}

fn probability(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(format!("'{s}' is not a probability from 0 to 1")),
    }
}

impl FaultArgs {
    /// The faults of each direction (to the engine, from it), or none for a lossless wire.
    fn faults(&self) -> Option<(ferroce_sim::faults::Faults, ferroce_sim::faults::Faults)> {
        use ferroce_sim::faults::Faults;
        let faults = Faults {
            loss: self.loss,
            burst: self.burst.max(1),
            duplicate: self.duplicate,
            reorder: self.reorder,
            window: self.window.max(1),
            corrupt: self.corrupt,
        };
        if [faults.loss, faults.duplicate, faults.reorder, faults.corrupt]
            .iter()
            .all(|&p| p == 0.0)
        {
            return None;
        }
        let on = |d| self.faults_on == d || self.faults_on == FaultDirection::Both;
        let pick = |d| if on(d) { faults } else { Faults::NONE };
        Some((pick(FaultDirection::In), pick(FaultDirection::Out)))
    }
}

#[allow(clippy::too_many_arguments)]
fn run_wire(
    udp: std::net::SocketAddr,
    peer: std::net::SocketAddr,
    socket: &std::path::Path,
    variant: &str,
    pcap: Option<&std::path::Path>,
    seconds: u64,
    report: u64,
    faults: &FaultArgs,
) -> ExitCode {
    use ferroce_sim::engine_rtl::EngineVariant;
    use ferroce_sim::wire_bridge::WireBridge;
    use std::time::{Duration, Instant};
    let fail = |e: String| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    };
    let Some(variant) = ferroce_hdl::tops::find("engine").and_then(|t| t.variants.iter().find(|v| **v == variant)) else {
        let known = ferroce_hdl::tops::find("engine").map_or(&[][..], |t| t.variants);
        return fail(format!("no engine variant '{variant}' (known: {})", known.join(", ")));
    };
    let v = EngineVariant {
        config: ferroce_hdl::tops::engine_config(variant),
        variant,
    };
    let listener = match bind(socket) {
        Ok(l) => l,
        Err(e) => return fail(e),
    };
    let mut bridge = match WireBridge::new(&v, udp, peer) {
        Ok(b) => b,
        Err(e) => return fail(e),
    };
    if pcap.is_some() {
        bridge.capture();
    }
    let lossy = faults.faults();
    if let Some((to_engine, from_engine)) = lossy {
        bridge.set_faults(to_engine, from_engine, faults.fault_seed);
    }
    eprintln!(
        "{} on UDP {udp} (sending to {peer}), registers on {}{}",
        v.model_name(),
        socket.display(),
        if lossy.is_some() { ", a lossy wire" } else { "" }
    );
    let faulted = |b: &WireBridge| {
        if lossy.is_some() {
            let [to, from] = b.fault_counts();
            format!(" faults to the engine {to:?}, from it {from:?}")
        } else {
            String::new()
        }
    };
    let started = Instant::now();
    let mut next_report = Duration::from_secs(report);
    let save = |bridge: &WireBridge| pcap.map_or(Ok(()), |p| bridge.write_pcap(p));
    let served = ferroce_sim::serve::serve_running(listener, &mut bridge, |b| {
        b.run_for(Duration::from_millis(2))?;
        let elapsed = started.elapsed();
        if report > 0 && elapsed >= next_report {
            next_report += Duration::from_secs(report);
            eprintln!(
                "{:>6.1} s, cycle {}: {:?}{}",
                elapsed.as_secs_f64(),
                b.cycle(),
                b.counts,
                faulted(b)
            );
            save(b)?;
        }
        Ok(seconds == 0 || elapsed < Duration::from_secs(seconds))
    });
    let saved = save(&bridge);
    eprintln!("cycle {}: {:?}{}", bridge.cycle(), bridge.counts, faulted(&bridge));
    match served.and(saved) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

/// A listening Unix socket at `socket` (a socket file already there is replaced).
fn bind(socket: &std::path::Path) -> Result<std::os::unix::net::UnixListener, String> {
    if std::fs::symlink_metadata(socket).is_ok_and(|m| std::os::unix::fs::FileTypeExt::is_socket(&m.file_type())) {
        let _ = std::fs::remove_file(socket);
    }
    std::os::unix::net::UnixListener::bind(socket).map_err(|e| format!("{}: {e}", socket.display()))
}

/// The TX engine of `engine`: the model, or the Verilator model of the `tx_path` top in its
/// default configuration (2048 channels, 32 queues, 256 QPs, 512 bits; memory answering at once,
/// nothing pushing back).
fn tx_engine(engine: Engine) -> Result<Box<dyn ferroce_sim::models::tx::TxEngine>, String> {
    use ferroce_sim::tx_path_rtl::{Surroundings, TxPathRtl, DEFAULT};
    match engine {
        Engine::Model => Ok(Box::new(ferroce_sim::models::tx::TxModel)),
        Engine::Rtl => Ok(Box::new(TxPathRtl::new(DEFAULT, Surroundings::FULL))),
    }
}

/// `ferroce-sim tx`: frames to `out`, a summary on stdout; bad values and posts files are errors
/// with exit status 2, a failing engine exits with 1.
fn run_tx(
    out: &std::path::Path,
    engine: Engine,
    posts: Option<&std::path::Path>,
    block_log2: u32,
    seed: u64,
    args: &TransferArgs,
) -> ExitCode {
    use ferroce_sim::models::tx::{PatternMemory, TxSetup};
    let mut defaults = tx_spec::TransferSpec::default();
    for (key, value) in &args.0 {
        defaults.set(key, value).expect("checked when the options were parsed");
    }
    let where_ = |line: usize| posts.map_or(String::new(), |p| format!("{}:{line}: ", p.display()));
    let transfers = match posts {
        None => match defaults.context() {
            Ok(_) => vec![(0, defaults)],
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        },
        Some(path) => {
            let parsed = std::fs::read_to_string(path)
                .map_err(|e| format!("{}: {e}", path.display()))
                .and_then(|text| tx_spec::parse_posts(&text, &defaults).map_err(|e| format!("{}{}", where_(e.line), e.message)));
            match parsed {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            }
        }
    };
    let base = TxSetup {
        block_log2,
        memory: std::sync::Arc::new(PatternMemory::new(seed)),
        ..TxSetup::default()
    };
    let setup = match tx_spec::setup_of(base, &transfers) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {}{}", where_(e.line), e.message);
            return ExitCode::from(2);
        }
    };
    let run = match tx_engine(engine).and_then(|mut e| e.run(&setup)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = wire::pcap::write_pcap(out, &run.frames) {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    let refused: Vec<usize> = (0..run.post_results.len()).filter(|&i| run.post_results[i].is_err()).collect();
    println!(
        "posts: {} accepted, {} refused",
        run.post_results.len() - refused.len(),
        refused.len()
    );
    for &i in &refused {
        let line = posts.map_or(String::new(), |p| format!(" ({}:{})", p.display(), transfers[i].0));
        println!("refused: post {}{line}: {}", i + 1, run.post_results[i].unwrap_err().name());
    }
    println!("packets: {}", run.frames.len());
    println!("bytes: {}", run.bytes());
    for (queue, bytes) in run.queue_bytes.iter().enumerate().filter(|(_, &b)| b > 0) {
        println!("queue {queue}: {bytes} bytes");
    }
    println!("completions: {}", run.completions.len());
    let completed: std::collections::HashSet<u16> = run.completions.iter().map(|c| c.0).collect();
    let waiting: Vec<String> = setup
        .posts
        .iter()
        .zip(&run.post_results)
        .filter(|(p, r)| r.is_ok() && !completed.contains(&p.channel))
        .map(|(p, _)| p.channel.to_string())
        .collect();
    if !waiting.is_empty() {
        println!("not completed (queue never served): channel {}", waiting.join(", "));
    }
    if let Some(cycles) = run.cycles {
        println!("cycles: {cycles}");
    }
    ExitCode::SUCCESS
}

/// `ferroce-sim loopback`: a table on stdout, progress on stderr; bad options exit with status
/// 2, a mismatch with 1.
fn run_loopback(config: &ferroce_sim::loopback_bench::GoodputConfig, pcap: Option<&std::path::Path>) -> ExitCode {
    use ferroce_sim::loopback_bench::{goodput, goodput_table};
    if let Some(dir) = pcap {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("error: {}: {e}", dir.display());
            return ExitCode::from(2);
        }
    }
    if let Err(e) = config.check() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let started = std::time::Instant::now();
    let progress = |row: &ferroce_sim::loopback_bench::GoodputRow| {
        eprintln!(
            "{} B: {}/{} transfers, {} cycles, {:.2} payload B/cycle ({:.0} s)",
            row.size,
            row.transfers,
            config.transfers,
            row.cycles,
            row.bytes_per_cycle(),
            started.elapsed().as_secs_f64()
        );
    };
    let rows = goodput(config, pcap, progress);
    println!(
        "Loopback at {} bits (TX path {}, RX path {}): {:?} {:?}, PMTU {}, {} connections, {}\n",
        config.variant.tx.width,
        config.variant.tx.name,
        config.variant.rx.name,
        config.transport,
        config.op,
        config.pmtu.bytes(),
        config.qps,
        if quiet_surroundings(config) {
            "nothing pushing back".to_string()
        } else {
            format!("{:?}", config.surroundings)
        }
    );
    if let Some(f) = config.faults {
        println!(
            "Lossy wires, both ways: loss {} (bursts of up to {}), duplication {}, reordering {} (window {}), corrupted ICRC {}; \
             retry timer tick {} cycles, timeout 2^{} + 1 ticks\n",
            f.loss,
            f.burst,
            f.duplicate,
            f.reorder,
            f.window,
            f.corrupt,
            ferroce_sim::loopback_bench::LOSSY_TICK_CYCLES,
            ferroce_sim::loopback_bench::LOSSY_TIMEOUT
        );
    }
    match rows {
        Ok(rows) => {
            print!("{}", goodput_table(&rows));
            println!("\nmismatches: 0");
            ExitCode::SUCCESS
        }
        Err((rows, e)) => {
            print!("{}", goodput_table(&rows));
            println!("\nmismatches: 1 (the run stops at the first): {e}");
            ExitCode::FAILURE
        }
    }
}

/// Nothing idles or pushes back around the loopback of `config`.
fn quiet_surroundings(config: &ferroce_sim::loopback_bench::GoodputConfig) -> bool {
    use ferroce_sim::loopback_rtl::Surroundings;
    config.surroundings
        == Surroundings {
            seed: config.surroundings.seed,
            ..Surroundings::FULL
        }
}

fn run_stream(config: &ferroce_sim::stream_bench::StreamRunConfig, out: Option<&std::path::Path>) -> ExitCode {
    use ferroce_sim::stream_bench::{figures_table, run};
    if let Err(e) = config.check() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let started = std::time::Instant::now();
    let mut shown = 0;
    let progress = |completed: usize, total: usize| {
        // a line at each tenth
        if completed * 10 / total > shown || completed == total {
            shown = completed * 10 / total;
            eprintln!(
                "{completed}/{total} messages completed on B ({:.0} s)",
                started.elapsed().as_secs_f64()
            );
        }
    };
    println!(
        "{} stream(s) at {} bits, {:?}, PMTU {}: {} messages of {} bytes each into a ring of {} slots, {} channel(s) each, {}",
        config.streams,
        config.engine.config.data_width,
        config.transport,
        config.pmtu.bytes(),
        config.messages,
        config.slot_bytes,
        config.slots,
        config.channels,
        if config.surroundings.bp_pct == 0 && config.surroundings.idle_pct == 0 {
            "nothing pushing back".to_string()
        } else {
            format!("{:?}", config.surroundings)
        }
    );
    match run(config, out, progress) {
        Ok(report) => {
            println!();
            print!("{}", figures_table(&report));
            println!(
                "\n{} cycles, {} payload bytes completed: {:.2} B/cycle, {:.1} Gb/s at 322.27 MHz, {:.1} Gb/s on 100GbE (RoCEv2 limit {:.1} Gb/s)",
                report.cycles,
                report.payload_bytes(),
                report.bytes_per_cycle(),
                report.bus_goodput() / 1e9,
                report.wire_goodput() / 1e9,
                report.line_limit() / 1e9
            );
            if let Some(counts) = report.faults[0] {
                println!(
                    "wire A→B: {} RoCEv2 frames, {} lost in {} losses",
                    counts.frames, counts.lost, counts.bursts
                );
            }
            println!("mismatches: 0");
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("\nmismatches: 1 (the run stops at the first): {e}");
            ExitCode::FAILURE
        }
    }
}
