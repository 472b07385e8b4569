//! `ferroce-ctl`: read and write a Ferroce register file from the host (in the manner of
//! `devmem2`, `ethtool` and `ibv_devinfo`). The engine's commands, and on the scheduler build
//! (device id "FRCQ": the QoS scheduler alone, as on the Alchitry Cu) `info`, `read`, `write`,
//! `dump`, `counters` and `sched`; docs/ctl.md lists them.

use clap::{Parser, Subcommand};
use ferroce_contracts::regs::{Device, Register};
use ferroce_contracts::responder::{receive_state, Access, REGION_KEY_BITS};
use ferroce_contracts::sched::queue as queue_field;
use ferroce_contracts::stream::bus_channel_base;
use ferroce_contracts::tx::{udp_source_port_hash, ChannelStatus, Pmtu, PostOp, QpState, POST, QP_CONTEXT};
use ferroce_ctl::connect::ConnectError;
use ferroce_ctl::stream::{refusal_text, StreamSettings};
use ferroce_ctl::{
    bus, parse_number, receive_status_name, refusal_name, status_name, Decision, EnqueueOutcome, Error, Ferroce, PostOutcome,
    ReceiveCompletion, ReceiveKind, ReceiveOutcome, Region, SCHEDULER_BUILD,
};
use serde_json::{json, Value};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "ferroce-ctl",
    version,
    about = "Read and write a Ferroce register file",
    long_about = "Read and write a Ferroce register file: the engine's (device id FRCE), or the scheduler build's (FRCQ: \
                  the QoS scheduler alone behind the serial bridge, as on the Alchitry Cu), whose commands are info, read, \
                  write, dump, counters and sched."
)]
struct Cli {
    /// The device: pci:DOMAIN:BUS:DEV.FN[/barN] or a bare BDF (the BAR through sysfs),
    /// uio:/dev/uioN, mem:0xADDRESS (/dev/mem), serial:PATH[@BAUD] (a board's UART bridge,
    /// 1000000 baud by default), sim:PATH (ferroce-sim serve), file:PATH.
    #[arg(long, short, env = "FERROCE_DEVICE")]
    device: String,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// The device: id, version, build configuration, map hash, configuration registers (the
    /// scheduler build: its nodes and queues, the limit of high priority, the last decision).
    Info,
    /// Read a register (by name, name[index], or byte address) and decode its fields.
    Read {
        /// Register.
        register: String,
    },
    /// Write a register (all 32 bits).
    Write {
        /// Register.
        register: String,
        /// Value (decimal or 0x hexadecimal).
        value: String,
    },
    /// Read every register of a block (or of all blocks); arrays show their first elements,
    /// registers whose read clears them (poll) and write-only ones (doorbell, strobes: a write
    /// is an action, a read returns 0) are not read.
    Dump {
        /// Block name: the engine's id, config, qos, counters, post, receive, responder, pacing,
        /// poll, channel, stream (with stream ports), qp; the scheduler build's id, qos,
        /// counters, scheduler.
        block: Option<String>,
        /// Elements shown per array.
        #[arg(long, default_value_t = 4)]
        elements: u32,
    },
    /// The QP context table.
    Qp {
        #[command(subcommand)]
        what: QpCmd,
    },
    /// Post a transfer: the descriptor words, the doorbell, the answer.
    Post(PostArgs),
    /// Poll the finished channels (this clears them).
    Poll {
        /// Channels, e.g. 0-63 (default: all).
        #[arg(long)]
        channels: Option<String>,
    },
    /// The memory region table. It is write-only from the host (keep your own copy): there is
    /// no command that reads an entry back.
    Region {
        #[command(subcommand)]
        what: RegionCmd,
    },
    /// Receive buffers and receive completions.
    Recv {
        #[command(subcommand)]
        what: RecvCmd,
    },
    /// The memory behind the engine, as the host sees it (the simulated engine of
    /// `ferroce-sim serve --top engine` or `ferroce-sim wire` only: on a board the buffers are
    /// the host's own memory or the card's).
    Memory {
        #[command(subcommand)]
        what: MemoryCmd,
    },
    /// Connect the engine with a stock Linux RDMA tool over the tool's out-of-band TCP exchange,
    /// program the QP (and memory region) from it, and run the engine's side of the test:
    /// `pingpong` (ibv_rc_pingpong, ibv_uc_pingpong with --uc), `write-bw` (ib_write_bw),
    /// `read-bw` (ib_read_bw, RC), `send-bw` (ib_send_bw), `write-lat` (ib_write_lat; as its server the engine needs a device that
    /// reaches its memory: sim:PATH of ferroce-sim wire). Without --server the engine's side listens: run the Linux tool
    /// with this host's address as its server. With --server the engine's side connects: start
    /// the Linux tool without a host name first. Give the Linux tool a GID index of its IPv4
    /// address (ibv_rc_pingpong -g N, perftest -x N), and both sides the same -s (or -a), -b
    /// and -n (perftest does not exchange them).
    Connect(ConnectArgs),
    /// The stream ports: each stream of samples (AXI-Stream into the engine) written into a ring
    /// of remote slots, one RDMA WRITE with immediate per slot (docs/stream.md).
    Stream {
        #[command(subcommand)]
        what: StreamCmd,
    },
    /// The QoS scheduler by hand on the scheduler build (FRCQ): enqueue nodes, make decisions;
    /// and a queue's QoS configuration word on either build (`sched config`). On the engine its
    /// scheduler is fed by its TX path: `enqueue` and `decide` are refused there.
    Sched {
        #[command(subcommand)]
        what: SchedCmd,
    },
    /// The counters of the RX front end, the scheduler, the status table, the host path (ARP
    /// and echo replies), the ACK tracker, the READ tracker (`rx_read_*`), the receive
    /// completion queue and the responder (`responder_<name>`); on the scheduler build its
    /// `counters` block (the scheduler's refusals; the serial bridge's discards where the build
    /// has them).
    Counters {
        /// Repeat every SECONDS, with the change since the last time.
        #[arg(long, value_name = "SECONDS")]
        watch: Option<f64>,
        /// With --watch: stop after COUNT reports (default: never).
        #[arg(long)]
        count: Option<u64>,
    },
}

#[derive(Subcommand)]
enum SchedCmd {
    /// Enqueue each NODE on queue Q, in order (a write of `enqueue` each). The scheduler refuses
    /// a node already queued and a queue beyond the build's, and counts them: the counters are
    /// read after each write, and each refused node is named (exit status 1 if any was).
    Enqueue {
        /// The queue (0 to queues − 1; queue 0 is the control queue, served first).
        #[arg(long, value_name = "Q")]
        queue: u32,
        /// The nodes (0 to nodes − 1; `info` says how many).
        #[arg(required = true, value_name = "NODE")]
        nodes: Vec<String>,
    },
    /// Make N arbiter decisions (a write of `decide` each), one line each: `decision 17: queue 3
    /// node 42`, or `decision 18: nothing eligible`. Each decision's number must follow the
    /// last one: otherwise the decision was not seen (a file device makes none) and it is an
    /// error.
    Decide {
        /// Decisions to make.
        #[arg(long, value_name = "N", default_value_t = 1)]
        count: u32,
    },
    /// Show queue QUEUE's configuration word (`queue_config[QUEUE]`), or change the fields given
    /// (the others kept). Both builds.
    Config(SchedConfigArgs),
}

#[derive(clap::Args)]
struct SchedConfigArgs {
    /// The queue.
    queue: u32,
    /// WRR weight in decisions, 0 to 255 (0 takes the queue out of arbitration; ignored for
    /// queue 0).
    #[arg(long)]
    weight: Option<u32>,
    /// Token bucket rate: tokens added per cycle, in 1/256 token (0 to 255).
    #[arg(long)]
    rate: Option<u32>,
    /// Token bucket capacity in whole tokens (0 to 255).
    #[arg(long)]
    burst: Option<u32>,
    /// Put the queue in the high-priority table.
    #[arg(long, conflicts_with = "low")]
    high: bool,
    /// Put the queue in the low-priority table.
    #[arg(long)]
    low: bool,
    /// The token bucket: on (the queue is eligible only with a whole token) or off.
    #[arg(long, value_name = "on|off")]
    bucket: Option<String>,
}

#[derive(Subcommand)]
enum QpCmd {
    /// Show a QP's context, field by field.
    Show {
        /// QP number.
        qp: u32,
    },
    /// Change fields of a QP's context (the others are kept), then commit it.
    Set(Box<QpSetArgs>),
}

#[derive(Subcommand)]
enum StreamCmd {
    /// Set stream INDEX's QP and ring of remote slots and apply them (`configure`): the stream
    /// must be stopped and its messages gone; refused settings change nothing.
    Set(Box<StreamSetArgs>),
    /// Start stream INDEX taking data.
    Start {
        /// Stream.
        index: u32,
    },
    /// Stop stream INDEX once its message in progress has ended (the messages it holds still go).
    Stop {
        /// Stream.
        index: u32,
    },
    /// Stream INDEX's state and counters (default: every stream).
    Status {
        /// Stream.
        index: Option<u32>,
    },
}

#[derive(clap::Args)]
struct StreamSetArgs {
    /// Stream.
    index: u32,
    /// The QP its WRITEs go on (connect it first: its context holds the destination and the R_Key).
    #[arg(long)]
    qp: u32,
    /// Remote address of slot 0 (anywhere: each slot is one WRITE message wherever it lies).
    #[arg(long)]
    va: String,
    /// The remote region's R_Key, checked against the QP's (the QP's context holds it: `qp set --rkey`).
    #[arg(long)]
    rkey: Option<String>,
    /// Bytes of a slot: a multiple of the data path's beat, at most half the port's buffer (16 KiB;
    /// 1 MiB in the engine build c2048_q256_w512_slot1m).
    #[arg(long)]
    slot: String,
    /// Slots in the ring (1 to 65536).
    #[arg(long)]
    slots: u32,
    /// The solicited-event bit on every M-th message (0: never).
    #[arg(long, value_name = "M", default_value_t = 0)]
    se_every: u32,
    /// What the immediate counts: `seq` (the message's sequence number) or `slot` ({wraps, slot}).
    #[arg(long, default_value = "seq")]
    immediate: String,
    /// Messages end at tlast (or a full slot), the length in the immediate's low BITS bits (0: none).
    #[arg(long, value_name = "BITS")]
    tlast: Option<u32>,
    /// Drop a message whole when the buffer has no room for it (default: hold tready low).
    #[arg(long)]
    drop_on_overflow: bool,
    /// Channels the stream posts on (messages in flight at once): 1, 2 or 4.
    #[arg(long, default_value_t = 2)]
    channels: u32,
    /// The first of its channels (default: four per stream from the build's last channel down;
    /// in a stream bus build the stream's own, channels − 4 × streams + 4 × N, the only ones it
    /// takes).
    #[arg(long)]
    first_channel: Option<u32>,
    /// Scheduler queue of its posts (1 to queues − 1).
    #[arg(long, default_value_t = 1)]
    queue: u32,
    /// Pace its queue at RATE payload bytes per second, a packet at a time (k, M, G: powers of
    /// 1000, as 2.5G); the queue's every stream and post share it. Give the stream a queue of
    /// its own, and bulk traffic queues of the other table: a note names the queues not paced
    /// in its table. Left out: the queue's pacer is not changed.
    #[arg(long)]
    rate: Option<String>,
    /// The engine's clock in Hz, for --rate.
    #[arg(long, value_name = "HZ", default_value_t = 322_265_625)]
    clock: u64,
}

#[derive(Subcommand)]
enum RegionCmd {
    /// Register a region in entry INDEX: the six staging words, then the index to region_write.
    Set(RegionSetArgs),
    /// Clear entry INDEX (writes an entry with valid 0).
    Clear {
        /// Table entry.
        index: u32,
    },
}

#[derive(clap::Args)]
struct RegionSetArgs {
    /// Table entry (0 to 63).
    index: u32,
    /// Protection domain (16 bits): only QPs of this PD may use the region.
    #[arg(long)]
    pd: String,
    /// Address of the region's first byte (the RETH VA space).
    #[arg(long)]
    base: String,
    /// Bytes.
    #[arg(long)]
    length: String,
    /// R_Key: the entry index in bits 31:8, a key byte in bits 7:0 (default: INDEX << 8).
    /// Change the key byte when an entry is reused, so that a stale key does not match.
    #[arg(long)]
    rkey: Option<String>,
    /// Allow RDMA READ of the region.
    #[arg(long)]
    read: bool,
    /// Allow RDMA WRITE into the region.
    #[arg(long)]
    write: bool,
}

#[derive(Subcommand)]
enum RecvCmd {
    /// Post a receive buffer to a QP's receive queue: the staging words, the post, the answer.
    Post {
        /// The QP.
        #[arg(long)]
        qp: u32,
        /// Address of the buffer's first byte.
        #[arg(long)]
        address: String,
        /// Bytes of the buffer.
        #[arg(long)]
        length: String,
    },
    /// Read and pop the receive completions, oldest first, one line each. Lost completions (the
    /// queue was full) are reported as a warning with receive_completions_lost, and the
    /// overflow flag is cleared.
    Completions {
        /// Pop at most N completions.
        #[arg(long, value_name = "N", default_value_t = 1000)]
        max: usize,
        /// Keep polling until a completion arrives, for at most SECONDS (exit status 1 if
        /// none does).
        #[arg(long, value_name = "SECONDS")]
        wait: Option<f64>,
    },
}

#[derive(Subcommand)]
enum MemoryCmd {
    /// Read LENGTH bytes at ADDRESS: a hex dump, 16 bytes a line (with --json, the bytes in
    /// hexadecimal).
    Read {
        /// Address of the first byte.
        address: String,
        /// Bytes to read.
        length: String,
    },
    /// Write bytes at ADDRESS: given in hexadecimal, or a file's.
    Write {
        /// Address of the first byte.
        address: String,
        /// The bytes, two hexadecimal digits each (spaces and a 0x prefix allowed).
        #[arg(required_unless_present = "file", conflicts_with = "file")]
        hex: Option<String>,
        /// Write this file's bytes instead.
        #[arg(long, value_name = "PATH")]
        file: Option<std::path::PathBuf>,
    },
}

#[derive(clap::Args)]
struct QpSetArgs {
    /// QP number.
    qp: u32,
    /// State: reset, init, rtr, rts, sqd, sqe, error.
    #[arg(long)]
    state: Option<String>,
    /// Transport: rc or uc.
    #[arg(long)]
    transport: Option<String>,
    /// Destination IP (IPv4 dotted or IPv6).
    #[arg(long)]
    dst_ip: Option<String>,
    /// Source IP.
    #[arg(long)]
    src_ip: Option<String>,
    /// Destination MAC (aa:bb:cc:dd:ee:ff).
    #[arg(long)]
    dst_mac: Option<String>,
    /// Source MAC.
    #[arg(long)]
    src_mac: Option<String>,
    /// Destination QP number.
    #[arg(long)]
    dqpn: Option<String>,
    /// Next PSN to send (sq_psn).
    #[arg(long)]
    psn: Option<String>,
    /// R_Key of the peer's region.
    #[arg(long)]
    rkey: Option<String>,
    /// Path MTU in bytes (256 … 4096).
    #[arg(long)]
    pmtu: Option<u32>,
    /// UDP source port (default when the context has none: Linux rxe's hash of the QP number).
    #[arg(long)]
    udp_sport: Option<String>,
    /// Any field of the context: NAME=VALUE (repeatable).
    #[arg(long = "field", value_name = "NAME=VALUE")]
    fields: Vec<String>,
}

/// The Linux tool on the other side.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Tool {
    /// ibv_rc_pingpong (ibv_uc_pingpong with --uc): SENDs back and forth.
    Pingpong,
    /// perftest's ib_write_bw: the client RDMA WRITEs into the server's buffer.
    WriteBw,
    /// perftest's ib_read_bw: the client RDMA READs the server's buffer (RC only).
    ReadBw,
    /// perftest's ib_send_bw: the client SENDs into the server's receive buffers.
    SendBw,
    /// perftest's ib_write_lat: WRITEs back and forth, each when the other's has arrived (as
    /// the server, the engine's counter is written into its memory before each WRITE: a sim:
    /// device only).
    WriteLat,
}

#[derive(clap::Args)]
struct ConnectArgs {
    /// The Linux tool.
    #[arg(value_enum)]
    tool: Tool,
    /// Connect to the Linux tool's server at HOST[:PORT] (else listen for its client).
    #[arg(long, value_name = "HOST[:PORT]")]
    server: Option<String>,
    /// Listen on ADDRESS:PORT.
    #[arg(long, default_value = "0.0.0.0:18515", value_name = "ADDRESS:PORT")]
    listen: String,
    /// The engine's QP (2 and up).
    #[arg(long, default_value_t = 2)]
    qp: u32,
    /// Unreliable connection (UC) instead of RC (ibv_uc_pingpong; perftest -c UC).
    #[arg(long)]
    uc: bool,
    /// The first PSN the engine sends (default: random).
    #[arg(long)]
    psn: Option<String>,
    /// Path MTU in bytes the engine offers (perftest takes the smaller of both sides'; give
    /// ibv_rc_pingpong the same -m).
    #[arg(long, default_value_t = 1024)]
    mtu: u32,
    /// The peer's MAC address (default: from this host's neighbour table).
    #[arg(long)]
    peer_mac: Option<String>,
    /// Bytes of each message, as the Linux tool's -s (default: its default, 4096 for
    /// pingpong, 65536 for the bandwidth tests, 2 for write-lat).
    #[arg(long, short = 's')]
    size: Option<u32>,
    /// Iterations, as the Linux tool's -n (default: its default, 1000 for pingpong, read-bw and
    /// write-lat, 5000 for write-bw and send-bw); with --all, of each size.
    #[arg(long, short = 'n')]
    iters: Option<u32>,
    /// Every message size from 2 bytes to 8 MiB, as perftest's -a (write-bw, read-bw and send-bw; give
    /// the Linux tool -a too). The engine's buffer must have room for 8 MiB.
    #[arg(long, short = 'a', conflicts_with = "size")]
    all: bool,
    /// Both sides send at once, as perftest's -b (write-bw, read-bw and send-bw; give the Linux tool -b
    /// too; with --all, at every size).
    #[arg(long, short = 'b')]
    bidirectional: bool,
    /// The engine's buffer in its memory: messages are sent from it and land in it (READs too).
    #[arg(long, default_value = "0x10000000")]
    buffer: String,
    /// Memory region entry that exposes the buffer (write-bw and read-bw server; R_Key = ENTRY << 8).
    #[arg(long, default_value_t = 1)]
    region: u32,
    /// Protection domain of the QP and the region.
    #[arg(long, default_value_t = 1)]
    pd: u16,
    /// First channel of the engine's posts.
    #[arg(long, default_value_t = 0)]
    channel: u32,
    /// Channels (transfers in flight) for perftest clients; they share one poll group of 32.
    #[arg(long, default_value_t = 8)]
    channels: u32,
    /// Scheduler queue of the posts.
    #[arg(long, default_value_t = 1)]
    queue: u32,
    /// Give up after SECONDS without progress (the peer, a completion).
    #[arg(long, default_value_t = 30.0)]
    timeout: f64,
    /// RC: the QP's local ACK timeout, 4.096 µs × 2^N (0: none; 14 as the Linux tools set it).
    #[arg(long, default_value_t = ferroce_ctl::connect::Endpoint::LINUX_TIMEOUT, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=31))]
    ack_timeout: u8,
    /// RC: transport retries after a timeout or a PSN sequence error NAK, 0 to 7.
    #[arg(long, default_value_t = ferroce_ctl::connect::Endpoint::LINUX_RETRY_COUNT, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=7))]
    retry_count: u8,
    /// RC: RNR retries, 0 to 7 (7: for ever).
    #[arg(long, default_value_t = ferroce_ctl::connect::Endpoint::LINUX_RNR_RETRY, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=7))]
    rnr_retry: u8,
}

#[derive(clap::Args)]
struct PostArgs {
    /// Channel.
    #[arg(long)]
    channel: u32,
    /// Local QP.
    #[arg(long)]
    qp: u32,
    /// Operation: send, send-imm, write, write-imm (one WRITE per block), read (RC: the peer's
    /// bytes at --dst into local memory at --src), write-message, write-imm-message (a WRITE as
    /// one message, however long).
    #[arg(long)]
    op: String,
    /// Local address of the payload (read: where the peer's bytes land).
    #[arg(long)]
    src: String,
    /// Remote address (write, read).
    #[arg(long, default_value = "0")]
    dst: String,
    /// Bytes.
    #[arg(long)]
    len: String,
    /// Immediate data.
    #[arg(long, default_value = "0")]
    imm: String,
    /// Scheduler queue.
    #[arg(long, default_value_t = 1)]
    queue: u32,
    /// Set the solicited-event bit.
    #[arg(long)]
    solicited: bool,
    /// write-imm: an immediate on every block.
    #[arg(long)]
    imm_every_block: bool,
    /// Wait until the channel finishes (reads its status, then polls its group).
    #[arg(long)]
    wait: bool,
    /// With --wait: give up after SECONDS.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
}

/// A command-line error that is not the device's.
fn usage(message: String) -> Error {
    Error {
        device: "ferroce-ctl".into(),
        address: None,
        cause: ferroce_ctl::Cause::Invalid(message),
    }
}

fn number(s: &str, what: &str) -> Result<u128, Error> {
    parse_number(s)
        .map(u128::from)
        .ok_or_else(|| usage(format!("{what}: '{s}' is not a number")))
}

/// A number that must fit `T`.
fn number_of<T: TryFrom<u128>>(s: &str, what: &str) -> Result<T, Error> {
    T::try_from(number(s, what)?).map_err(|_| usage(format!("{what}: {s} does not fit {} bits", 8 * std::mem::size_of::<T>())))
}

/// Numbers in increasing order as runs: `1, 2, 4 to 31`.
fn ranges(numbers: &[u32]) -> String {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &n in numbers {
        match runs.last_mut() {
            Some((_, last)) if *last + 1 == n => *last = n,
            _ => runs.push((n, n)),
        }
    }
    let text: Vec<String> = runs
        .iter()
        .map(|&(first, last)| match last - first {
            0 => first.to_string(),
            1 => format!("{first}, {last}"),
            _ => format!("{first} to {last}"),
        })
        .collect();
    text.join(", ")
}

/// A rate in bytes per second (`ferroce_contracts::sched::parse_rate`).
fn rate_of(s: &str) -> Result<u64, Error> {
    ferroce_contracts::sched::parse_rate(s).map_err(|m| usage(format!("--rate {s}: {m}")))
}

fn ip(s: &str) -> Result<(u128, bool), Error> {
    match s.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(a)) => Ok((u128::from(u32::from(a)), false)),
        Ok(std::net::IpAddr::V6(a)) => Ok((u128::from(a), true)),
        Err(_) => Err(usage(format!("'{s}' is not an IP address"))),
    }
}

fn mac(s: &str) -> Result<u128, Error> {
    let bytes: Vec<u8> = s.split(':').filter_map(|b| u8::from_str_radix(b, 16).ok()).collect();
    if bytes.len() != 6 || s.split(':').count() != 6 {
        return Err(usage(format!("'{s}' is not a MAC address (aa:bb:cc:dd:ee:ff)")));
    }
    Ok(bytes.iter().fold(0u128, |v, &b| v << 8 | u128::from(b)))
}

fn mac_text(v: u128) -> String {
    (0..6)
        .rev()
        .map(|i| format!("{:02x}", (v >> (8 * i)) as u8))
        .collect::<Vec<_>>()
        .join(":")
}

fn ip_text(v: u128, v6: bool) -> String {
    if v6 {
        std::net::Ipv6Addr::from(v).to_string()
    } else {
        std::net::Ipv4Addr::from(v as u32).to_string()
    }
}

/// A field value with its meaning, where the contracts give one.
fn meaning(register: &str, field: &str, value: u32) -> Option<String> {
    match (register, field) {
        ("channel_status", "state") => ChannelStatus::from_code(value as u8).map(|s| s.name().to_string()),
        ("channel_status", "cause") if value != 0 => Some(status_name(value as u8).to_string()),
        ("post_status", "state") => ferroce_contracts::regs::PostState::from_code(value).map(|s| s.name().to_string()),
        ("post_status", "code") if value != 0 => Some(refusal_name(value as u8).to_string()),
        ("qp_status", "failure") if value != 0 => Some(status_name(value as u8).to_string()),
        ("qp_word0", "state") => QpState::from_code(value as u8).map(|s| s.name().to_string()),
        ("qp_word0", "pmtu") => Pmtu::from_code(value as u8).map(|p| format!("{} bytes", p.bytes())),
        ("block_size", "log2") => Some(format!("{} KiB", (1u64 << value) / 1024)),
        ("build_sched", "node_bits") => Some(format!("{} nodes", 1u64 << value)),
        ("decision", "served") => Some(if value == 1 { "a queue was served" } else { "nothing eligible" }.into()),
        ("receive_status", "state") => Some(
            match value {
                receive_state::IDLE => "idle",
                receive_state::PENDING => "pending",
                receive_state::ACCEPTED => "accepted",
                _ => "refused",
            }
            .into(),
        ),
        ("receive_completion0", "kind") => Some(ReceiveKind::from_code(value).name().into()),
        ("receive_completion0", "status") => Some(receive_status_name(value as u8).into()),
        _ => None,
    }
}

fn register_json(label: &str, address: u32, r: &Register, value: u32) -> Value {
    let fields: serde_json::Map<String, Value> = Ferroce::fields(r, value)
        .into_iter()
        .map(|(n, v)| {
            let v = match meaning(&r.name, &n, v) {
                Some(m) => json!({"value": v, "meaning": m}),
                None => json!(v),
            };
            (n, v)
        })
        .collect();
    json!({"register": label, "address": format!("{address:#07x}"), "value": format!("{value:#010x}"), "fields": fields})
}

fn register_text(label: &str, address: u32, r: &Register, value: u32) -> String {
    let mut s = format!("{label} @ {address:#07x} = {value:#010x} ({})\n", r.access().name());
    for (f, (n, v)) in r.fields.iter().zip(Ferroce::fields(r, value)) {
        let bits = if f.width == 1 {
            format!("[{}]", f.lsb)
        } else {
            format!("[{}:{}]", f.lsb + f.width - 1, f.lsb)
        };
        let m = meaning(&r.name, &n, v).map(|m| format!(" ({m})")).unwrap_or_default();
        s.push_str(&format!("  {n:<16} {bits:<8} {v:#x}{m}\n"));
    }
    s
}

/// Bytes a `memory read` shows at most.
const MEMORY_READ_MOST: u64 = 1 << 24;

fn memory(dev: &mut Ferroce, what: &MemoryCmd, json_out: bool) -> Result<(), Error> {
    match what {
        MemoryCmd::Read { address, length } => {
            let address = number_of::<u64>(address, "ADDRESS")?;
            let length = number_of::<u64>(length, "LENGTH")?;
            if length > MEMORY_READ_MOST {
                return Err(usage(format!("LENGTH {length}: at most {MEMORY_READ_MOST} bytes a read")));
            }
            let bytes = dev.memory_read(address, length as usize)?;
            let text: String = bytes
                .chunks(16)
                .enumerate()
                .map(|(k, line)| {
                    let words: Vec<String> = line.iter().map(|b| format!("{b:02x}")).collect();
                    format!("{:#014x}  {}\n", address + 16 * k as u64, words.join(" "))
                })
                .collect();
            let hex = ferroce_contracts::served::hex_string(&bytes);
            print(json_out, json!({"address": address, "bytes": hex}), text);
        }
        MemoryCmd::Write { address, hex, file } => {
            let address = number_of::<u64>(address, "ADDRESS")?;
            let bytes = match (hex, file) {
                (Some(hex), _) => {
                    let digits: String = hex.split_whitespace().map(|w| w.trim_start_matches("0x")).collect();
                    ferroce_contracts::served::hex_bytes(&digits).ok_or_else(|| usage(format!("'{hex}': two hexadecimal digits a byte")))?
                }
                (None, Some(path)) => std::fs::read(path).map_err(|e| usage(format!("--file {}: {e}", path.display())))?,
                (None, None) => unreachable!("clap requires HEX or --file"),
            };
            dev.memory_write(address, &bytes)?;
            print(
                json_out,
                json!({"address": address, "written": bytes.len()}),
                format!("{} bytes written at {address:#x}\n", bytes.len()),
            );
        }
    }
    Ok(())
}

fn print(json_out: bool, value: Value, text: String) {
    if json_out {
        println!("{value}");
    } else {
        print!("{text}");
    }
}

/// Reads the registers `names` for `info`: their fields into `values` and a line each into
/// `text`.
fn info_registers(dev: &mut Ferroce, names: &[&str], values: &mut serde_json::Map<String, Value>, text: &mut String) -> Result<(), Error> {
    let map = dev.map().clone();
    for &name in names {
        let r = map.reg(name);
        let v = dev.read(r.offset)?;
        values.insert(name.into(), register_json(name, r.offset, r, v)["fields"].clone());
        let fields: Vec<String> = Ferroce::fields(r, v)
            .into_iter()
            .map(|(n, x)| match meaning(name, &n, x) {
                Some(m) => format!("{n}={x} ({m})"),
                None => format!("{n}={x:#x}"),
            })
            .collect();
        text.push_str(&format!("{name:<14} {}\n", fields.join(" ")));
    }
    Ok(())
}

fn info(dev: &mut Ferroce, json_out: bool) -> Result<(), Error> {
    let map = dev.map().clone();
    let mut values = serde_json::Map::new();
    let mut text = format!("device {}\n", dev.device());
    if let Device::Scheduler { node_bits } = map.device {
        // the ID block as the map has it, then the QoS limit and the last decision
        let mut names: Vec<&str> = map
            .blocks
            .iter()
            .filter(|b| b.name == "id")
            .flat_map(|b| b.registers.iter())
            .filter(|r| Ferroce::safe_to_read(r))
            .map(|r| r.name.as_str())
            .collect();
        names.extend(["high_limit", "decision"].into_iter().filter(|n| map.get(n).is_some()));
        info_registers(dev, &names, &mut values, &mut text)?;
        text.push_str(&format!(
            "build          the scheduler build (FRCQ: the QoS scheduler alone): {} nodes, {} queues; map hash {:#010x} matches this tool\n",
            1u64 << node_bits,
            map.config.queues,
            map.hash()
        ));
        values.insert("build".into(), json!("scheduler"));
        values.insert("nodes".into(), json!(1u64 << node_bits));
        values.insert("queues".into(), json!(map.config.queues));
        values.insert("map_matches".into(), json!(true));
        print(json_out, Value::Object(values), text);
        return Ok(());
    }
    info_registers(
        dev,
        &[
            "device_id",
            "version",
            "build_bus",
            "build_tables",
            "build_streams",
            "map_hash",
            "block_size",
            "read_response_queue",
            "local_mac_low",
            "local_mac_high",
            "local_ipv4",
            "post_status",
        ],
        &mut values,
        &mut text,
    )?;
    let c = map.config;
    text.push_str(&format!(
        "build          {}-bit data path, {} channels, {} queues, {} QPs, {} ({} KiB buffers: slots up to {} KiB); map hash {:#010x} matches this tool\n",
        c.data_width,
        c.channels,
        c.queues,
        c.qps,
        if c.stream_bus {
            format!(
                "{} streams on one AXI-Stream on channels {} up",
                c.streams,
                bus_channel_base(c.channels, c.streams)
            )
        } else {
            format!("{} stream ports", c.streams)
        },
        c.stream_buffer_bytes / 1024,
        c.stream_buffer_bytes / 2048,
        map.hash()
    ));
    values.insert("build".into(), json!("engine"));
    values.insert("map_matches".into(), json!(true));
    print(json_out, Value::Object(values), text);
    Ok(())
}

/// A decision as `sched decide` prints it.
fn decision_text(d: &Decision) -> String {
    if d.served {
        format!("decision {}: queue {} node {}\n", d.number, d.queue, d.node)
    } else {
        format!("decision {}: nothing eligible\n", d.number)
    }
}

fn decision_json(d: &Decision) -> Value {
    json!({"number": d.number, "served": d.served, "queue": d.served.then_some(d.queue), "node": d.served.then_some(d.node)})
}

fn sched(dev: &mut Ferroce, what: &SchedCmd, json_out: bool) -> Result<bool, Error> {
    match what {
        SchedCmd::Enqueue { queue, nodes } => {
            let nodes = nodes
                .iter()
                .map(|n| number_of::<u32>(n, "NODE"))
                .collect::<Result<Vec<_>, Error>>()?;
            let queues = dev.map().config.queues;
            let before = dev.sched_counters()?;
            let outcomes = dev.sched_enqueue_nodes(*queue, &nodes)?;
            let after = dev.sched_counters()?;
            let mut text = String::new();
            for (node, outcome) in &outcomes {
                text.push_str(&match outcome {
                    EnqueueOutcome::Queued => format!("node {node}: queued on queue {queue}\n"),
                    EnqueueOutcome::Duplicate => format!("node {node}: refused: already queued (counted in sched_duplicate)\n"),
                    EnqueueOutcome::BadQueue => {
                        format!("node {node}: refused: queue {queue} is beyond the build's {queues} queues (counted in sched_bad_queue)\n")
                    }
                });
            }
            let refused: Vec<u32> = outcomes
                .iter()
                .filter(|(_, o)| *o != EnqueueOutcome::Queued)
                .map(|(n, _)| *n)
                .collect();
            text.push_str(&format!(
                "{} queued, {} refused; sched_duplicate {} -> {}, sched_bad_queue {} -> {}\n",
                outcomes.len() - refused.len(),
                refused.len(),
                before.duplicate,
                after.duplicate,
                before.bad_queue,
                after.bad_queue
            ));
            let list: Vec<Value> = outcomes.iter().map(|(node, o)| json!({"node": node, "result": o.name()})).collect();
            print(
                json_out,
                json!({"queue": queue, "nodes": list, "refused": refused,
                       "sched_duplicate": {"before": before.duplicate, "after": after.duplicate},
                       "sched_bad_queue": {"before": before.bad_queue, "after": after.bad_queue}}),
                text,
            );
            Ok(refused.is_empty())
        }
        SchedCmd::Decide { count } => {
            let mut made = Vec::new();
            let mut failure = None;
            for _ in 0..*count {
                match dev.sched_decide() {
                    Ok(d) => {
                        if !json_out {
                            print!("{}", decision_text(&d));
                        }
                        made.push(d);
                    }
                    Err(e) => {
                        failure = Some(e);
                        break;
                    }
                }
            }
            if json_out && (failure.is_none() || !made.is_empty()) {
                println!("{}", Value::Array(made.iter().map(decision_json).collect()));
            }
            match failure {
                Some(e) => Err(e),
                None => Ok(true),
            }
        }
        SchedCmd::Config(a) => {
            let mut fields: Vec<(&str, u32)> = Vec::new();
            for (value, field) in [
                (a.weight, queue_field::WEIGHT.name),
                (a.rate, queue_field::RATE.name),
                (a.burst, queue_field::BURST.name),
            ] {
                if let Some(v) = value {
                    fields.push((field, v));
                }
            }
            if a.high || a.low {
                fields.push((queue_field::HIGH_TABLE.name, u32::from(a.high)));
            }
            if let Some(b) = &a.bucket {
                let on = match b.as_str() {
                    "on" => 1,
                    "off" => 0,
                    other => return Err(usage(format!("--bucket {other}: on or off"))),
                };
                fields.push((queue_field::BUCKET_ENABLE.name, on));
            }
            let target = dev.target(&format!("queue_config[{}]", a.queue))?;
            let (label, address, r) = (target.label(), target.address(), target.register.clone());
            let value = if fields.is_empty() {
                dev.read(address)?
            } else {
                dev.queue_config_set(a.queue, &fields)?
            };
            print(
                json_out,
                register_json(&label, address, &r, value),
                register_text(&label, address, &r, value),
            );
            Ok(true)
        }
    }
}

fn qp_show(dev: &mut Ferroce, qp: u32, json_out: bool) -> Result<(), Error> {
    let words = dev.qp_read(qp)?;
    let v6 = QP_CONTEXT.decode(&words, "ip_v6") == 1;
    let mut obj = serde_json::Map::new();
    let mut text = format!("QP {qp}\n");
    for f in QP_CONTEXT.fields {
        let v = QP_CONTEXT.decode(&words, f.name);
        let shown = match f.name {
            "state" => QpState::from_code(v as u8).map_or(v.to_string(), |s| s.name().to_string()),
            "pmtu" => Pmtu::from_code(v as u8).map_or(v.to_string(), |p| p.bytes().to_string()),
            "src_mac" | "dst_mac" => mac_text(v),
            "src_ip" | "dst_ip" => ip_text(v, v6),
            _ if f.width > 8 => format!("{v:#x}"),
            _ => v.to_string(),
        };
        text.push_str(&format!("  {:<14} {shown}\n", f.name));
        obj.insert(f.name.into(), json!(shown));
    }
    let failure = dev.qp_failure(qp)?;
    match failure {
        Some(s) => text.push_str(&format!(
            "  {:<14} {} (posts refused until the context is written again)\n",
            "error",
            s.name()
        )),
        None => text.push_str(&format!("  {:<14} none\n", "error")),
    }
    print(
        json_out,
        json!({"qp": qp, "context": obj, "error": failure.map(|s| s.name())}),
        text,
    );
    Ok(())
}

fn qp_set(dev: &mut Ferroce, a: &QpSetArgs, json_out: bool) -> Result<(), Error> {
    let mut words = dev.qp_read(a.qp)?;
    let mut set: Vec<(String, u128)> = Vec::new();
    if let Some(s) = &a.state {
        let state = QpState::ALL
            .into_iter()
            .find(|x| x.name() == s)
            .ok_or_else(|| usage(format!("unknown QP state '{s}'")))?;
        set.push(("state".into(), state.code().into()));
    }
    if let Some(t) = &a.transport {
        let code = match t.as_str() {
            "rc" => 0,
            "uc" => 1,
            _ => return Err(usage(format!("transport '{t}': rc or uc"))),
        };
        set.push(("transport".into(), code));
    }
    for (arg, field) in [(&a.dst_ip, "dst_ip"), (&a.src_ip, "src_ip")] {
        if let Some(s) = arg {
            let (v, v6) = ip(s)?;
            set.push((field.into(), v));
            set.push(("ip_v6".into(), u128::from(v6)));
        }
    }
    for (arg, field) in [(&a.dst_mac, "dst_mac"), (&a.src_mac, "src_mac")] {
        if let Some(s) = arg {
            set.push((field.into(), mac(s)?));
        }
    }
    for (arg, field) in [
        (&a.dqpn, "dest_qpn"),
        (&a.psn, "sq_psn"),
        (&a.rkey, "rkey"),
        (&a.udp_sport, "udp_sport"),
    ] {
        if let Some(s) = arg {
            set.push((field.into(), number(s, field)?));
        }
    }
    if let Some(p) = a.pmtu {
        let pmtu = Pmtu::from_bytes(p).ok_or_else(|| usage(format!("path MTU {p}: 256, 512, 1024, 2048 or 4096")))?;
        set.push(("pmtu".into(), pmtu.code().into()));
    }
    for f in &a.fields {
        let (n, v) = f.split_once('=').ok_or_else(|| usage(format!("--field {f}: NAME=VALUE")))?;
        set.push((n.into(), number(v, n)?));
    }
    if a.udp_sport.is_none() && QP_CONTEXT.decode(&words, "udp_sport") == 0 {
        set.push(("udp_sport".into(), udp_source_port_hash(a.qp).into()));
    }
    for (name, value) in &set {
        let field = QP_CONTEXT
            .field(name)
            .ok_or_else(|| usage(format!("the QP context has no field '{name}'")))?;
        if *value > field.max() {
            return Err(usage(format!("{value:#x} does not fit the {}-bit field {name}", field.width)));
        }
        let p = QP_CONTEXT.placement(name);
        for bit in 0..field.width {
            let at = p.offset + bit;
            let mask = 1u32 << (at % 32);
            words[at / 32] = (words[at / 32] & !mask) | if value >> bit & 1 == 1 { mask } else { 0 };
        }
    }
    dev.qp_write(a.qp, &words)?;
    print(
        json_out,
        json!({"qp": a.qp, "set": set.iter().map(|(n, v)| (n.clone(), json!(v.to_string()))).collect::<serde_json::Map<_, _>>(), "committed": true}),
        format!("QP {}: {} field(s) set, committed\n", a.qp, set.len()),
    );
    Ok(())
}

fn post(dev: &mut Ferroce, a: &PostArgs, json_out: bool) -> Result<bool, Error> {
    let op = PostOp::from_name(&a.op).ok_or_else(|| {
        usage(format!(
            "operation '{}': send, send-imm, write, write-imm, read, write-message or write-imm-message",
            a.op
        ))
    })?;
    let values = [
        ("channel", u128::from(a.channel)),
        ("queue", u128::from(a.queue)),
        ("op", op.code().into()),
        ("solicited", u128::from(a.solicited)),
        ("imm_every_block", u128::from(a.imm_every_block)),
        ("qp", u128::from(a.qp)),
        ("local_addr", number(&a.src, "--src")?),
        ("remote_addr", number(&a.dst, "--dst")?),
        ("length", number(&a.len, "--len")?),
        ("immediate", number(&a.imm, "--imm")?),
    ];
    let words = POST.encode(&values).map_err(|e| usage(format!("post: {e}")))?;
    let outcome = dev.post(&words, 1000)?;
    let (accepted, mut result) = match outcome {
        PostOutcome::Accepted => (true, json!({"channel": a.channel, "post": "accepted"})),
        PostOutcome::Refused(code) => (
            false,
            json!({"channel": a.channel, "post": "refused", "reason": refusal_name(code), "code": code}),
        ),
        PostOutcome::NotPosted(why) => (false, json!({"channel": a.channel, "post": "not_posted", "reason": why})),
    };
    if accepted && a.wait {
        let start = std::time::Instant::now();
        loop {
            let (state, cause) = dev.channel_status(a.channel)?;
            if matches!(state, ChannelStatus::Done | ChannelStatus::Error) {
                dev.poll(a.channel, a.channel)?;
                result["status"] = json!(state.name());
                if state == ChannelStatus::Error {
                    result["cause"] = json!(status_name(cause));
                }
                break;
            }
            if start.elapsed().as_secs_f64() > a.timeout {
                result["status"] = json!("timeout");
                break;
            }
        }
    }
    let text = match (&outcome, result.get("status")) {
        (PostOutcome::Accepted, Some(s)) => format!("channel {}: accepted, {}\n", a.channel, s.as_str().unwrap_or("")),
        (PostOutcome::Accepted, None) => format!("channel {}: accepted\n", a.channel),
        (PostOutcome::Refused(c), _) => format!("channel {}: refused: {} ({c})\n", a.channel, refusal_name(*c)),
        (PostOutcome::NotPosted(why), _) => format!("channel {}: not posted: {why}\n", a.channel),
    };
    let done = accepted && result.get("status").is_none_or(|s| s == "DONE");
    print(json_out, result, text);
    Ok(done)
}

fn stream(dev: &mut Ferroce, what: &StreamCmd, json_out: bool) -> Result<(), Error> {
    match what {
        StreamCmd::Set(a) => {
            let config = dev.map().config;
            let own_channels = || {
                config
                    .bus_stream_channel(a.index)
                    .unwrap_or_else(|| config.channels.saturating_sub(4 * (a.index + 1)))
            };
            let settings = StreamSettings {
                qp: a.qp,
                queue: a.queue,
                first_channel: a.first_channel.unwrap_or_else(own_channels),
                channels: a.channels,
                base_va: number_of(&a.va, "--va")?,
                slot_bytes: number_of(&a.slot, "--slot")?,
                slots: a.slots,
                slot_and_wrap: match a.immediate.as_str() {
                    "seq" => false,
                    "slot" => true,
                    other => return Err(usage(format!("--immediate {other}: seq or slot"))),
                },
                end_at_tlast: a.tlast,
                drop_on_overflow: a.drop_on_overflow,
                solicited_every: a.se_every,
            };
            if let Some(k) = &a.rkey {
                let want: u32 = number_of(k, "--rkey")?;
                let words = dev.qp_read(a.qp)?;
                let have = QP_CONTEXT.decode(&words, "rkey") as u32;
                if have != want {
                    return Err(usage(format!(
                        "stream {}: QP {} writes with R_Key {have:#x}, not {want:#x}: set it with `ferroce-ctl qp set {} --rkey {want:#x}`",
                        a.index, a.qp, a.qp
                    )));
                }
            }
            let rate = a.rate.as_deref().map(rate_of).transpose()?;
            if let Some(r) = rate {
                // refused before anything is written
                ferroce_ctl::stream::pace_cost_for(r, a.clock).map_err(|m| usage(format!("--rate {r}: {m}")))?;
            }
            dev.streams().set(a.index, &settings)?;
            let paced = match rate {
                Some(r) => Some((r, dev.streams().pace(a.queue, Some(r), a.clock)?)),
                None => None,
            };
            if paced.is_some() {
                let mates = dev.streams().unpaced_table_mates(a.queue)?;
                if !mates.is_empty() {
                    eprintln!(
                        "note: queue {} shares its table of the scheduler with {} queue(s) not paced ({}): with traffic on them it waits out their turns of the round between its packets; put them in the other table (qos.queue_config[q].high_table)",
                        a.queue,
                        mates.len(),
                        ranges(&mates)
                    );
                }
            }
            let pace_text = paced.map_or(String::new(), |(r, cost)| {
                format!(
                    ", queue {} paced at {r} B/s ({:.4} cycles a byte)",
                    a.queue,
                    f64::from(cost) / f64::from(1u32 << 24)
                )
            });
            print(
                json_out,
                json!({"stream": a.index, "qp": settings.qp, "va": format!("{:#x}", settings.base_va), "slot": settings.slot_bytes,
                       "slots": settings.slots, "first_channel": settings.first_channel, "channels": settings.channels,
                       "queue": a.queue, "rate": paced.map(|p| p.0), "pace_cost": paced.map(|p| p.1), "configured": true}),
                format!(
                    "stream {}: QP {}, {} slots of {} bytes from {:#x}, channels {} to {}{pace_text}, configured\n",
                    a.index,
                    settings.qp,
                    settings.slots,
                    settings.slot_bytes,
                    settings.base_va,
                    settings.first_channel,
                    settings.first_channel + settings.channels - 1
                ),
            );
        }
        StreamCmd::Start { index } | StreamCmd::Stop { index } => {
            let start = matches!(what, StreamCmd::Start { .. });
            if start {
                dev.streams().start(*index)?;
            } else {
                dev.streams().stop(*index)?;
            }
            let done = if start { "started" } else { "stopped" };
            print(json_out, json!({"stream": index, done: true}), format!("stream {index}: {done}\n"));
        }
        StreamCmd::Status { index } => {
            let count = dev.streams().count();
            if count == 0 {
                return Err(usage("this build has no stream ports".into()));
            }
            let indices: Vec<u32> = match index {
                Some(i) => vec![*i],
                None => (0..count).collect(),
            };
            let (mut list, mut text) = (Vec::new(), String::new());
            for i in indices {
                let s = dev.streams().status(i)?;
                let last = s.refused.map_or("done".to_string(), refusal_text);
                list.push(
                    json!({"stream": i, "running": s.running, "configured": s.configured, "last_command": last,
                    "messages": s.messages,
                    "dropped_overflow": s.dropped_overflow, "dropped_partial_beat": s.dropped_partial_beat,
                    "posted": s.posted, "completed": s.completed, "failed": s.failed, "refused": s.refused_posts,
                    "in_flight": s.held_messages, "next_sequence": s.next_sequence, "current_slot": s.next_slot,
                    "held_beats": s.held_beats}),
                );
                let state = match (s.configured, s.running) {
                    (false, _) => "not configured",
                    (true, true) => "running",
                    (true, false) => "stopped",
                };
                text.push_str(&format!(
                    "stream {i}: {state}; {} messages ({} posted, {} completed, {} failed, {} refused, {} in flight), dropped {} (overflow) + {} (partial beat); next message {} into slot {}; last command: {last}\n",
                    s.messages, s.posted, s.completed, s.failed, s.refused_posts, s.held_messages, s.dropped_overflow,
                    s.dropped_partial_beat, s.next_sequence, s.next_slot
                ));
            }
            let value = if index.is_some() { list.remove(0) } else { Value::Array(list) };
            print(json_out, value, text);
        }
    }
    Ok(())
}

fn region_set(dev: &mut Ferroce, a: &RegionSetArgs, json_out: bool) -> Result<(), Error> {
    if !a.read && !a.write {
        return Err(usage(format!(
            "region {}: give --read, --write or both (a region without remote access is of no use to a peer)",
            a.index
        )));
    }
    let region = Region {
        valid: true,
        access: Access {
            remote_write: a.write,
            remote_read: a.read,
        },
        pd: number_of(&a.pd, "--pd")?,
        rkey: match &a.rkey {
            Some(k) => number_of(k, "--rkey")?,
            None => a.index << REGION_KEY_BITS,
        },
        base: number_of(&a.base, "--base")?,
        length: number_of(&a.length, "--length")?,
    };
    dev.region_write(a.index, &region)?;
    let access: Vec<&str> = [(a.read, "read"), (a.write, "write")]
        .into_iter()
        .filter(|x| x.0)
        .map(|x| x.1)
        .collect();
    print(
        json_out,
        json!({"region": a.index, "pd": region.pd, "base": format!("{:#x}", region.base), "length": region.length,
               "rkey": format!("{:#x}", region.rkey), "access": access, "written": true}),
        format!(
            "region {}: PD {}, base {:#x}, {} bytes, R_Key {:#x}, remote {}, written\n",
            a.index,
            region.pd,
            region.base,
            region.length,
            region.rkey,
            access.join(" and ")
        ),
    );
    Ok(())
}

fn recv_post(dev: &mut Ferroce, qp: u32, address: &str, length: &str, json_out: bool) -> Result<bool, Error> {
    let (address, length) = (number_of::<u64>(address, "--address")?, number_of::<u32>(length, "--length")?);
    let outcome = dev.receive_post(qp, address, length, 1000)?;
    let qps = dev.map().config.qps;
    let reason = match outcome {
        ReceiveOutcome::Accepted => None,
        ReceiveOutcome::Refused if qp >= qps => Some(format!("the QP is beyond the QP table ({qps} QPs)")),
        ReceiveOutcome::Refused => Some("its receive queue is full".to_string()),
        ReceiveOutcome::Overrun => Some("a receive post was still pending (overrun): nothing was posted".to_string()),
        ReceiveOutcome::Timeout => Some("the post is still pending after 1000 reads".to_string()),
    };
    let mut result = json!({"qp": qp, "address": format!("{address:#x}"), "length": length, "post": outcome.name()});
    if let Some(r) = &reason {
        result["reason"] = json!(r);
    }
    let text = match &reason {
        None => format!("QP {qp}: receive buffer {address:#x} ({length} bytes) accepted\n"),
        Some(r) => format!("QP {qp}: receive buffer {address:#x} ({length} bytes) {}: {r}\n", outcome.name()),
    };
    print(json_out, result, text);
    Ok(outcome == ReceiveOutcome::Accepted)
}

fn completion_text(c: &ReceiveCompletion) -> String {
    let mut s = format!(
        "QP {}: {} {}, {} bytes",
        c.qp,
        c.kind.name(),
        receive_status_name(c.status),
        c.length
    );
    if let Some(i) = c.immediate {
        s.push_str(&format!(", immediate {i:#010x}"));
    }
    if c.solicited {
        s.push_str(", solicited");
    }
    s + "\n"
}

fn recv_completions(dev: &mut Ferroce, max: usize, wait: Option<f64>, json_out: bool) -> Result<bool, Error> {
    let start = std::time::Instant::now();
    let mut overflow = false;
    let completions = loop {
        let (got, lost) = dev.receive_completions(max)?;
        overflow |= lost;
        if !got.is_empty() || wait.is_none_or(|s| start.elapsed().as_secs_f64() >= s) {
            break got;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    };
    let lost = dev.receive_completions_lost()?;
    if overflow {
        dev.clear_completion_overflow()?;
        eprintln!("warning: receive completions were lost (the queue was full): receive_completions_lost = {lost}; overflow flag cleared");
    }
    let timeout = completions.is_empty() && wait.is_some();
    let list: Vec<Value> = completions
        .iter()
        .map(|c| {
            json!({"qp": c.qp, "kind": c.kind.name(), "status": receive_status_name(c.status), "solicited": c.solicited,
                   "immediate": c.immediate, "length": c.length})
        })
        .collect();
    let mut result = json!({"completions": list, "overflow": overflow, "lost": lost});
    let mut text: String = completions.iter().map(completion_text).collect();
    if timeout {
        result["timeout"] = json!(true);
        text = format!("no receive completion within {} s\n", wait.unwrap_or(0.0));
    } else if text.is_empty() {
        text = "no receive completion\n".into();
    }
    print(json_out, result, text);
    Ok(!timeout)
}

impl Cmd {
    /// The command needs the engine (its QP table, posts, channels, memory, streams): refused on
    /// the scheduler build.
    fn engine_only(&self) -> bool {
        match self {
            Cmd::Info | Cmd::Read { .. } | Cmd::Write { .. } | Cmd::Dump { .. } | Cmd::Counters { .. } | Cmd::Sched { .. } => false,
            Cmd::Qp { .. }
            | Cmd::Post(_)
            | Cmd::Poll { .. }
            | Cmd::Region { .. }
            | Cmd::Recv { .. }
            | Cmd::Memory { .. }
            | Cmd::Connect(_)
            | Cmd::Stream { .. } => true,
        }
    }
}

fn run(cli: &Cli) -> Result<bool, Error> {
    let mut dev = Ferroce::open(bus::open(&cli.device)?)?;
    let json_out = cli.json;
    if dev.is_scheduler() && cli.cmd.engine_only() {
        return Err(Error {
            device: dev.device().into(),
            address: None,
            cause: ferroce_ctl::Cause::WrongBuild(format!(
                "{SCHEDULER_BUILD}: it has no QP table; its commands: info, read, write, dump, counters, sched"
            )),
        });
    }
    match &cli.cmd {
        Cmd::Info => info(&mut dev, json_out)?,
        Cmd::Connect(a) => connect(&mut dev, a, json_out)?,
        Cmd::Read { register } => {
            let t = dev.target(register)?;
            let (label, address, r) = (t.label(), t.address(), t.register.clone());
            let v = dev.read(address)?;
            print(
                json_out,
                register_json(&label, address, &r, v),
                register_text(&label, address, &r, v),
            );
        }
        Cmd::Write { register, value } => {
            let t = dev.target(register)?;
            let (label, address) = (t.label(), t.address());
            let v = number(value, "value")?;
            let v = u32::try_from(v).map_err(|_| usage(format!("{value} does not fit 32 bits")))?;
            dev.write(address, v)?;
            print(
                json_out,
                json!({"register": label, "address": format!("{address:#07x}"), "written": format!("{v:#010x}")}),
                format!("{label} @ {address:#07x} <- {v:#010x}\n"),
            );
        }
        Cmd::Dump { block, elements } => {
            let map = dev.map().clone();
            if let Some(b) = block {
                if !map.blocks.iter().any(|x| &x.name == b) {
                    let names: Vec<&str> = map.blocks.iter().map(|x| x.name.as_str()).collect();
                    return Err(usage(format!("no block '{b}' (blocks: {})", names.join(", "))));
                }
            }
            let mut out = Vec::new();
            let mut text = String::new();
            for b in map.blocks.iter().filter(|x| block.as_ref().is_none_or(|n| *n == x.name)) {
                text.push_str(&format!("== {} @ {:#07x}\n", b.name, b.offset));
                for r in &b.registers {
                    if !Ferroce::safe_to_read(r) {
                        let why = if r.access().readable() {
                            "the read clears it"
                        } else {
                            "write only: a write is an action"
                        };
                        text.push_str(&format!(
                            "{} @ {:#07x}: not read ({}, {why})\n",
                            r.name,
                            r.offset,
                            r.access().name()
                        ));
                        continue;
                    }
                    for i in 0..r.count.min(*elements) {
                        let label = if r.is_array() { format!("{}[{i}]", r.name) } else { r.name.clone() };
                        let v = dev.read(r.address(i))?;
                        out.push(register_json(&label, r.address(i), r, v));
                        text.push_str(&register_text(&label, r.address(i), r, v));
                    }
                    if r.count > *elements {
                        text.push_str(&format!("  ... {} more elements of {}\n", r.count - elements, r.name));
                    }
                }
            }
            print(json_out, Value::Array(out), text);
        }
        Cmd::Qp { what: QpCmd::Show { qp } } => qp_show(&mut dev, *qp, json_out)?,
        Cmd::Qp { what: QpCmd::Set(a) } => qp_set(&mut dev, a, json_out)?,
        Cmd::Post(a) => return post(&mut dev, a, json_out),
        Cmd::Region { what: RegionCmd::Set(a) } => region_set(&mut dev, a, json_out)?,
        Cmd::Region {
            what: RegionCmd::Clear { index },
        } => {
            dev.region_clear(*index)?;
            print(
                json_out,
                json!({"region": index, "cleared": true}),
                format!("region {index}: cleared\n"),
            );
        }
        Cmd::Recv {
            what: RecvCmd::Post { qp, address, length },
        } => return recv_post(&mut dev, *qp, address, length, json_out),
        Cmd::Recv {
            what: RecvCmd::Completions { max, wait },
        } => return recv_completions(&mut dev, *max, *wait, json_out),
        Cmd::Memory { what } => memory(&mut dev, what, json_out)?,
        Cmd::Poll { channels } => {
            let last = dev.map().config.channels - 1;
            let (first, end) = match channels {
                None => (0, last),
                Some(s) => {
                    let (a, b) = s.split_once('-').unwrap_or((s, s));
                    let n = |x: &str| x.parse::<u32>().ok().filter(|&v| v <= last);
                    match (n(a), n(b)) {
                        (Some(a), Some(b)) if a <= b => (a, b),
                        _ => return Err(usage(format!("--channels {s}: A-B within 0-{last}"))),
                    }
                }
            };
            let finished = dev.poll(first, end)?;
            let list: Vec<Value> = finished
                .iter()
                .map(|f| json!({"channel": f.channel, "status": if f.error { "ERROR" } else { "DONE" }}))
                .collect();
            let text: String = finished
                .iter()
                .map(|f| format!("channel {}: {}\n", f.channel, if f.error { "ERROR" } else { "DONE" }))
                .collect();
            print(
                json_out,
                Value::Array(list),
                if text.is_empty() { "no channel finished\n".into() } else { text },
            );
        }
        Cmd::Stream { what } => stream(&mut dev, what, json_out)?,
        Cmd::Sched { what } => return sched(&mut dev, what, json_out),
        Cmd::Counters { watch, count } => {
            let mut previous: Option<Vec<(String, u32)>> = None;
            let mut reports = 0u64;
            loop {
                let now = dev.counters()?;
                let obj: serde_json::Map<String, Value> = now.iter().map(|(n, v)| (n.clone(), json!(v))).collect();
                let width = now.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
                let mut text = String::new();
                for (i, (n, v)) in now.iter().enumerate() {
                    let delta = previous.as_ref().map(|p| v.wrapping_sub(p[i].1));
                    text.push_str(&match delta {
                        Some(d) => format!("{n:<width$} {v:>12} (+{d})\n"),
                        None => format!("{n:<width$} {v:>12}\n"),
                    });
                }
                print(json_out, Value::Object(obj), text);
                reports += 1;
                let Some(seconds) = watch else { break };
                if count.is_some_and(|c| reports >= c) {
                    break;
                }
                previous = Some(now);
                std::thread::sleep(std::time::Duration::from_secs_f64(seconds.max(0.01)));
            }
        }
    }
    Ok(true)
}

/// A connection failure as the command's error.
fn connect_error(dev: &Ferroce, e: ConnectError) -> Error {
    match e {
        ConnectError::Device(e) => e,
        other => Error {
            device: dev.device().into(),
            address: None,
            cause: ferroce_ctl::Cause::Io(other.to_string()),
        },
    }
}

/// A PSN from the clock and the process id, as the Linux tools draw a random one.
fn random_psn() -> u32 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    (nanos ^ std::process::id().rotate_left(12)).wrapping_mul(0x9E37_79B9) >> 8
}

fn connect(dev: &mut Ferroce, a: &ConnectArgs, json_out: bool) -> Result<(), Error> {
    use ferroce_ctl::connect::{self as c, Channels, Endpoint, PerftestKind, PerftestTest, PingpongTest, Role};
    let pmtu = Pmtu::from_bytes(a.mtu).ok_or_else(|| usage(format!("--mtu {}: 256, 512, 1024, 2048 or 4096", a.mtu)))?;
    let peer_mac = match &a.peer_mac {
        Some(m) => {
            let v = mac(m)?.to_be_bytes();
            Some([v[10], v[11], v[12], v[13], v[14], v[15]])
        }
        None => None,
    };
    if a.all && a.tool == Tool::Pingpong {
        return Err(usage("--all: the pingpong tools have no -a; give one size with -s".into()));
    }
    if a.bidirectional && matches!(a.tool, Tool::Pingpong | Tool::WriteLat) {
        return Err(usage("--bidirectional: a ping-pong or latency test is both ways already".into()));
    }
    if !c::channels_fit_a_poll_group(a.channel, a.channels) {
        return Err(usage(format!(
            "--channel {} --channels {}: the channels must be within one group of 32 (0-31, 32-63, ...)",
            a.channel, a.channels
        )));
    }
    let end = Endpoint {
        qp: a.qp,
        unreliable: a.uc,
        psn: match &a.psn {
            Some(p) => number_of::<u32>(p, "--psn")? & 0xff_ffff,
            None => random_psn(),
        },
        pmtu,
        peer_mac,
        pd: a.pd,
        ack_timeout: a.ack_timeout,
        retry_count: a.retry_count,
        rnr_retry: a.rnr_retry,
    };
    let patience = std::time::Duration::from_secs_f64(a.timeout.max(0.1));
    let buffer = number_of::<u64>(&a.buffer, "--buffer")?;
    let perftest = match a.tool {
        Tool::Pingpong => None,
        _ => {
            let (kind, size, iterations) = match a.tool {
                Tool::WriteBw => (PerftestKind::WriteBw, 65536, 5000),
                Tool::ReadBw => (PerftestKind::ReadBw, 65536, 1000),
                Tool::SendBw => (PerftestKind::SendBw, 65536, 5000),
                _ => (PerftestKind::WriteLat, 2, 1000),
            };
            Some(PerftestTest {
                kind,
                size: a.size.unwrap_or(size),
                all_sizes: a.all,
                duplex: a.bidirectional,
                iterations: a.iters.unwrap_or(iterations),
                buffer,
                region: a.region,
                channels: Channels {
                    first: a.channel,
                    count: a.channels,
                    queue: a.queue,
                },
                patience,
            })
        }
    };
    // refused before any connection: what the engine (or this device) can't run
    let role = if a.server.is_some() { Role::Client } else { Role::Server };
    if let Some(test) = &perftest {
        test.check(dev, role, &end).map_err(|e| connect_error(dev, e))?;
    }
    let mut stream = match &a.server {
        Some(server) => {
            let server = if server.contains(':') {
                server.clone()
            } else {
                format!("{server}:{}", c::DEFAULT_PORT)
            };
            eprintln!("connecting to {server}");
            c::connect_to(&server, patience).map_err(|e| connect_error(dev, e))?
        }
        None => {
            let listener = std::net::TcpListener::bind(&a.listen).map_err(|e| usage(format!("--listen {}: {e}", a.listen)))?;
            eprintln!("waiting for the {} client on {}", tool_name(a.tool, a.uc), a.listen);
            c::accept(&listener, std::time::Duration::from_secs(3600)).map_err(|e| connect_error(dev, e))?
        }
    };
    let say = |line: &str| {
        if !json_out {
            println!("{line}");
        }
    };
    match a.tool {
        Tool::Pingpong => {
            let test = PingpongTest {
                size: a.size.unwrap_or(4096),
                iterations: a.iters.unwrap_or(1000),
                buffer,
                channel: a.channel,
                queue: a.queue,
                patience,
            };
            let report = c::pingpong(dev, &mut stream, role, &end, &test, say).map_err(|e| connect_error(dev, e))?;
            print(
                json_out,
                json!({"tool": tool_name(a.tool, a.uc), "bytes": report.bytes, "iterations": report.messages,
                       "seconds": report.elapsed.as_secs_f64()}),
                report.pingpong_lines(),
            );
        }
        Tool::WriteBw | Tool::ReadBw | Tool::SendBw | Tool::WriteLat => {
            let test = perftest.expect("a perftest tool");
            let outcome = c::perftest(dev, &mut stream, role, &end, &test, say).map_err(|e| connect_error(dev, e))?;
            if json_out {
                let reports: Vec<_> = outcome
                    .reports
                    .iter()
                    .map(|(size, r)| {
                        json!({"size": size, "bytes": r.bytes, "messages": r.messages, "seconds": r.elapsed.as_secs_f64(),
                               "mib_per_second": r.mebibytes_per_second(), "mpps": r.mega_messages_per_second()})
                    })
                    .collect();
                let peer = outcome
                    .peer_report
                    .map(|(size, iters, mib, mpps)| json!({"size": size, "iterations": iters, "mib_per_second": mib, "mpps": mpps}));
                println!(
                    "{}",
                    json!({"tool": tool_name(a.tool, a.uc), "pmtu": outcome.pmtu.bytes(), "reports": reports, "peer_report": peer})
                );
            }
        }
    }
    Ok(())
}

/// The Linux tool's name.
fn tool_name(tool: Tool, uc: bool) -> &'static str {
    match (tool, uc) {
        (Tool::Pingpong, false) => "ibv_rc_pingpong",
        (Tool::Pingpong, true) => "ibv_uc_pingpong",
        (Tool::WriteBw, _) => "ib_write_bw",
        (Tool::ReadBw, _) => "ib_read_bw",
        (Tool::SendBw, _) => "ib_send_bw",
        (Tool::WriteLat, _) => "ib_write_lat",
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            if cli.json {
                println!("{}", json!({"error": e.to_string(), "device": e.device, "address": e.address}));
            }
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
