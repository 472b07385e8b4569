//! Two engines back to back in Verilator, cycle by cycle, built from the RTL halves that exist:
//! engine A (the requester) and engine B (the responder), each a TX path model
//! (`ferroce_tx_path_*`, [`crate::tx_path_rtl`]) and an RX path model (`ferroce_rx_path_q256_w*`,
//! [`crate::rx_path_rtl`]) wired as the engine top will wire them. Its co-simulation is
//! `sim/tests/loopback_cosim.rs`.
//!
//! ```text
//!              engine A                                               engine B
//!  posts ──► A.tx ── m_axis ──► wire A→B (beat FIFO) ──► s_axis ── B.rx ──► m_cmd, m_wr ──► B's memory
//!  A's memory ◄─ m_read, s_pay ─┘                                    │ m_dec: response = 1 ─┐
//!  A.tx cpl ◄─ completions                                           │ else ─► the host     │
//!                                                                                           ▼
//!  A.tx s_ack ◄─ m_dec ── A.rx ◄── s_axis ◄── wire B→A (beat FIFO) ◄── m_axis ── B.tx ◄── s_resp_*
//!  (ACK/NAKs: RC completions)                                              (no posts)
//! ```
//!
//! - **An engine** ([`Engine`]) is the two halves and what joins them, in one function
//!   ([`Engine::settle`], which a joined engine top will replace): the QP context table behind
//!   both read ports (the RX half's [`SetupHarness`] holds it and serves its own port; the TX
//!   half's port is served from the same table [`QP_READ_LATENCY`] cycles after its index), and
//!   the decision fork: a decision with `response` = 1 is taken on `m_dec` only in a cycle where
//!   the TX half's `s_resp_ready` is 1, and is then presented on `s_resp_*` in that cycle (QP =
//!   the decision's `qp`, PSN = `response_psn`, AETH = [`Decision::response_aeth`]); a decision
//!   with `acknowledgement` = 1 (an ACK or NAK for this engine's requests) is presented on
//!   `s_ack_*` and taken when the TX half's ACK tracker takes it; any other
//!   decision goes to the host, which may hold it back at random ([`Surroundings::host_bp_pct`]).
//!   The TX half's READ requests (`read_sent_*`) go to the RX half's READ tracker and its
//!   `read_done_*` back, as the engine top wires them. A READ decision (`read` = 1, the
//!   responder's) is taken while fewer than [`READ_RESPONSES`] wait, as the engine top's FIFO
//!   takes it, and presented in order on `s_read_*` (QP, `response_psn`, AETH, `read_va`,
//!   `read_length`); its QP stays listed until the TX half's `m_read_done` says its response
//!   has gone, and a `response` decision of a listed QP waits (an ACK or NAK never overtakes a
//!   READ response of its QP). Setup (commits, regions, receive buffers) goes to both halves
//!   between runs ([`Engine::commit`], [`Engine::setup`], [`Engine::paired`]).
//! - **The wires**: each a FIFO of [`WireTiming::beats`] beats that a beat crosses in
//!   [`WireTiming::latency`] cycles at least, like a MAC and PHY; the TX half's `m_axis_tready` is
//!   "the FIFO has room", the receiving RX half is offered the head beat when it is due (but for
//!   random stalls, garbage on the bus while `tvalid` is low). Every frame that crosses is kept
//!   ([`LoopbackRun::a_to_b`], [`LoopbackRun::b_to_a`]; [`LoopbackRun::write_pcap`]).
//! - **Around each engine** (the same for both; B is given no post): posts on `post_*` in
//!   order, the local memory behind `m_read` / `s_pay` ([`crate::tx_path_rtl::Memory`]: latency,
//!   commands in flight, stalls), completions on `cpl_*`, memory writes on `m_cmd` + `m_wr`
//!   applied to the engine's [`Engine::memory`], pass-through frames on `m_pass`, each with
//!   random backpressure and the AXI rules checked ([`crate::axis`]).
//! - **A run** ([`Loopback::run`]) ends when every post has its result, every accepted post its
//!   completion, both wires are empty, every frame an RX half took has its decision (or came out
//!   on `m_pass`), every write decision its command and data, and every response handed to a TX
//!   half has left as a frame; then every interface must stay quiet for [`DRAIN_CYCLES`]. On a
//!   lossy wire ([`Loopback::set_faults`]) frames may still cross after the end: a timeout that
//!   fires just before its acknowledgement arrives sends again, and the peer answers (counted in
//!   [`LoopbackRun::late_frames`]); a post, result, completion, memory write or pass-through
//!   frame after the end is an error there too.
//!   Nothing moving for [`PROGRESS_LIMIT`] cycles is an error that says where each stream
//!   stands, not a hang.
//!
//! The runner holds no golden model: the test compares what crossed the wires and what the RX
//! halves decided and wrote with the TX model, the RX front end model and the responder model.

use crate::axis::{AxisPorts, Channel, FrameSink, RecordSource};
use crate::contracts::regs::QP_READ_LATENCY;
use crate::contracts::reliability::tick_cycles;
use crate::contracts::tx::{CompletionStatus, PostError};
use crate::faults::{FaultCounts, FaultInjector, Faults};
use crate::models::responder::{Decision, Responder};
use crate::models::tx::{LocalMemory, Post, QpContext, SparseMemory, TxSetup};
use crate::responder_rtl::{PairedSetup, SetupHarness, SETUP_CYCLES};
use crate::rx_path_rtl::{RxPathRtl, RxVariant, Q2048_W512, Q256_W512, Q256_W64};
use crate::sched::REG_LIMIT;
use crate::tx_path_rtl::{Memory, MemoryTiming, PathVariant, DEFAULT, DEFAULT_Q2048, SMALL};
use crate::verilated::{Model, SimError, Traffic};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

/// Cycles in which nothing moves on any interface of either engine or wire after which a run
/// is an error (plus the memory's latency).
pub const PROGRESS_LIMIT: u64 = 5_000;
/// Cycles every interface must stay quiet after a run's end.
pub const DRAIN_CYCLES: u64 = 64;
/// READ responses decided and waiting for the TX half's `s_read_*`, at most (the engine top's
/// FIFO).
pub const READ_RESPONSES: usize = 16;

/// A wire between the engines (MAC, PHY and cable): a beat FIFO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WireTiming {
    /// Cycles from a beat leaving the TX half to its first offer to the RX half, at least (1..).
    pub latency: u64,
    /// Beats the wire holds; the TX half's `m_axis_tready` is low while it holds that many.
    pub beats: usize,
    /// Percent chance per cycle that the wire holds its due head beat back.
    pub stall_pct: u32,
}

impl WireTiming {
    /// Four cycles, eight beats, never stalled.
    pub const SHORT: WireTiming = WireTiming {
        latency: 4,
        beats: 8,
        stall_pct: 0,
    };
}

/// Everything around the two engines that can idle or push back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Surroundings {
    /// Each engine's local memory (A's is the payload source).
    pub memory: MemoryTiming,
    /// Wire A→B (the data).
    pub wire_ab: WireTiming,
    /// Wire B→A (the responses).
    pub wire_ba: WireTiming,
    /// Percent chance per cycle that the next post waits (0: back to back, the TX model's order).
    pub post_idle_pct: u32,
    /// Percent chance per cycle that a memory holds `m_read_ready` low.
    pub read_bp_pct: u32,
    /// Percent chance per cycle that the register file holds `cpl_ready` low.
    pub completion_bp_pct: u32,
    /// Percent chance per cycle that the host holds `m_dec_ready` low for a decision without a
    /// response (a response decision waits only for the TX half's `s_resp_ready`).
    pub host_bp_pct: u32,
    /// Percent chance per cycle that a memory holds `m_cmd_ready`, `m_wr_tready` (each drawn
    /// apart) low; `m_pass_tready` too.
    pub write_bp_pct: u32,
    /// Seed of the random draws.
    pub seed: u64,
}

impl Surroundings {
    /// Nothing idles, nothing pushes back, memory answers at once, short wires.
    pub const FULL: Surroundings = Surroundings {
        memory: MemoryTiming::IMMEDIATE,
        wire_ab: WireTiming::SHORT,
        wire_ba: WireTiming::SHORT,
        post_idle_pct: 0,
        read_bp_pct: 0,
        completion_bp_pct: 0,
        host_bp_pct: 0,
        write_bp_pct: 0,
        seed: 1,
    };
}

/// A frame that crossed a wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireFrame {
    /// Its bytes (Ethernet header to ICRC, no FCS).
    pub bytes: Vec<u8>,
    /// The TX half marked its descriptor `m_packet_response`: an ACK or NAK.
    pub response: bool,
    /// Cycle (of the run) its last beat left the TX half.
    pub cycle: u64,
}

/// What a run produced. Decisions are packed as `DECISION`, in `m_dec` order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoopbackRun {
    /// Per post, its result on A's `post_result_*`.
    pub post_results: Vec<Result<(), PostError>>,
    /// A's completions `(channel, status)`, in order.
    pub completions: Vec<(u16, CompletionStatus)>,
    /// The frames on wire A→B, in order.
    pub a_to_b: Vec<WireFrame>,
    /// The frames on wire B→A, in order.
    pub b_to_a: Vec<WireFrame>,
    /// A's RX half's decisions.
    pub a_decisions: Vec<Vec<u32>>,
    /// B's RX half's decisions.
    pub b_decisions: Vec<Vec<u32>>,
    /// Frames A's RX half passed through (`m_pass`).
    pub a_passed: Vec<Vec<u8>>,
    /// Frames B's RX half passed through.
    pub b_passed: Vec<Vec<u8>>,
    /// A's memory writes `(address, bytes)`, in order (applied to A's [`Engine::memory`]).
    pub a_writes: Vec<(u64, usize)>,
    /// B's memory writes, in order (applied to B's [`Engine::memory`]).
    pub b_writes: Vec<(u64, usize)>,
    /// Cycles from the run's first to its last handshake, plus one.
    pub cycles: u64,
    /// Beats carried by wire A→B and wire B→A.
    pub wire_beats: [u64; 2],
    /// Cycles a response decision waited on `m_dec` for the TX half's `s_resp_ready`, on A
    /// and on B.
    pub response_waits: [u64; 2],
    /// Cycles from A's first post handshake to the first beat on wire A→B (doorbell to first
    /// byte on the wire), when a frame left.
    pub first_byte_latency: Option<u64>,
    /// Per memory write of B, in order: cycles from the last beat of its frame into B's RX
    /// half to the last beat of its data on `m_wr` (last byte in to memory write).
    pub write_latencies: Vec<u64>,
    /// What the fault injectors of a lossy wire did, A→B and B→A.
    pub faults: [Option<FaultCounts>; 2],
    /// Frames A and B sent after the run's end (lossy wires only: retransmissions a timeout
    /// started before the acknowledgement arrived, and the answers to them).
    pub late_frames: [usize; 2],
}

impl LoopbackRun {
    /// Writes the frames of both wires, in the order their last beats left, to a pcap file.
    pub fn write_pcap(&self, path: &Path) -> Result<(), String> {
        let mut frames: Vec<&WireFrame> = self.a_to_b.iter().chain(&self.b_to_a).collect();
        frames.sort_by_key(|f| f.cycle);
        let bytes: Vec<Vec<u8>> = frames.into_iter().map(|f| f.bytes.clone()).collect();
        crate::wire::pcap::write_pcap(path, &bytes).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// The TX half's ports the engine and its surroundings use.
struct TxPorts {
    init_done: usize,
    block_log2: usize,
    cfg_we: usize,
    cfg_addr: usize,
    cfg_wdata: usize,
    commit_valid: usize,
    commit_index: usize,
    read_index: usize,
    read_entry: usize,
    post_valid: usize,
    post_ready: usize,
    result_valid: usize,
    result_code: usize,
    packet_valid: usize,
    packet_response: usize,
    resp_valid: usize,
    resp_ready: usize,
    resp_qp: usize,
    resp_psn: usize,
    resp_aeth: usize,
    ack_valid: usize,
    ack_ready: usize,
    ack_qp: usize,
    ack_psn: usize,
    ack_syndrome: usize,
    read_valid: usize,
    tick_cycles: usize,
    output: AxisPorts,
    /// `read_sent_{valid, qp, first_psn, last_psn, local_address, length, pmtu, again,
    /// generation}`, and its ready.
    read_sent: [usize; 9],
    read_sent_ready: usize,
    /// `read_done_{valid, ready, qp, cleared}`.
    read_done: [usize; 4],
    /// `s_read_{valid, qp, psn, aeth, va, length}` (READ responses to send), its ready, and
    /// `m_read_done` (one has gone).
    read_response: [usize; 6],
    read_response_ready: usize,
    read_response_done: usize,
}

/// The READ request ports, named alike on both halves.
const READ_SENT: [&str; 9] = [
    "read_sent_valid",
    "read_sent_qp",
    "read_sent_first_psn",
    "read_sent_last_psn",
    "read_sent_local_address",
    "read_sent_length",
    "read_sent_pmtu",
    "read_sent_again",
    "read_sent_generation",
];
/// The READ tracker's `done` ports, named alike on both halves.
const READ_DONE: [&str; 4] = ["read_done_valid", "read_done_ready", "read_done_qp", "read_done_cleared"];

/// The RX half's ports the engine and its surroundings use (its register-file side is its
/// [`SetupHarness`]'s).
struct RxPorts {
    input: AxisPorts,
    dec_valid: usize,
    dec_ready: usize,
    dec_entry: usize,
    cmd_valid: usize,
    wr_valid: usize,
    read_sent: [usize; 9],
    read_sent_ready: usize,
    read_done: [usize; 4],
}

/// One engine: its TX half, its RX half and the wiring between them; see the module docs.
pub struct Engine {
    name: &'static str,
    tx: Model,
    t: TxPorts,
    rx: RxPathRtl,
    r: RxPorts,
    /// QPs of the TX half (the engine's: the RX half has more).
    qps: u32,
    /// Per QP its resets (commits) modulo 4: the READ tracker's generation, which the TX half
    /// is told again after it restarts alone ([`Engine::restart_tx`]; the engine never does).
    generations: Vec<u8>,
    /// The TX half's context reads in flight: the QP read in each of the last
    /// [`QP_READ_LATENCY`] cycles.
    tx_reads: VecDeque<usize>,
    /// A decision shown and not taken in the last cycle: it must be shown again, unchanged.
    held_decision: Option<Vec<u32>>,
    /// The TX half's block size (log2) and scheduler register writes (address, word), as
    /// [`Engine::configure`] last made them.
    configuration: (u32, Vec<(u32, u32)>),
    /// Cycles a response decision waited for `s_resp_ready`, over every run.
    response_waits: u64,
    /// READ responses decided and not yet taken on `s_read_*`: QP, PSN, AETH, VA, length.
    read_responses: VecDeque<[u64; 5]>,
    /// QPs of the READ responses decided and not yet gone (`m_read_done`), oldest first.
    reads_in_flight: VecDeque<u32>,
    /// Handshakes on `s_read_*` and `m_read_done` pulses, over every run: progress.
    read_events: u64,
    /// The memory the RX half's writes went to, over every run.
    pub memory: SparseMemory,
    /// Clock cycles per retry timer tick (`cfg_tick_cycles`), from the next run on; by default
    /// the register file's reset value.
    pub tick_cycles: u64,
}

impl Engine {
    /// Engine `name` of the TX and RX paths of `variant`: both reset, their RAMs cleared, every
    /// context all zero (in reset), the scheduler at its reset values.
    pub fn new(name: &'static str, variant: &LoopbackVariant) -> Result<Engine, String> {
        let e = |e: SimError| format!("engine {name}: {e}");
        let tx = Model::new(&variant.tx.model_name()).map_err(e)?;
        let mut rx = RxPathRtl::of(variant.rx, Traffic::FULL).map_err(|s| format!("engine {name}: {s}"))?;
        let m = rx.model();
        let rx_port = |n: &str| m.port(n).map_err(e);
        let r = RxPorts {
            input: AxisPorts::find(m, "s_axis").map_err(e)?,
            dec_valid: rx_port("m_dec_valid")?,
            dec_ready: rx_port("m_dec_ready")?,
            dec_entry: rx_port("m_dec_entry")?,
            cmd_valid: rx_port("m_cmd_valid")?,
            wr_valid: rx_port("m_wr_tvalid")?,
            read_sent: ports(m, READ_SENT).map_err(e)?,
            read_sent_ready: rx_port("read_sent_ready")?,
            read_done: ports(m, READ_DONE).map_err(e)?,
        };
        let port = |n: &str| tx.port(n).map_err(e);
        let t = TxPorts {
            init_done: port("init_done")?,
            block_log2: port("cfg_block_log2")?,
            cfg_we: port("sched_cfg_we")?,
            cfg_addr: port("sched_cfg_addr")?,
            cfg_wdata: port("sched_cfg_wdata")?,
            commit_valid: port("qp_commit_valid")?,
            commit_index: port("qp_commit_index")?,
            read_index: port("qp_read_index")?,
            read_entry: port("qp_read_entry")?,
            post_valid: port("post_valid")?,
            post_ready: port("post_ready")?,
            result_valid: port("post_result_valid")?,
            result_code: port("post_result_code")?,
            packet_valid: port("m_packet_valid")?,
            packet_response: port("m_packet_response")?,
            resp_valid: port("s_resp_valid")?,
            resp_ready: port("s_resp_ready")?,
            resp_qp: port("s_resp_qp")?,
            resp_psn: port("s_resp_psn")?,
            resp_aeth: port("s_resp_aeth")?,
            ack_valid: port("s_ack_valid")?,
            ack_ready: port("s_ack_ready")?,
            ack_qp: port("s_ack_qp")?,
            ack_psn: port("s_ack_psn")?,
            ack_syndrome: port("s_ack_syndrome")?,
            read_valid: port("m_read_valid")?,
            tick_cycles: port("cfg_tick_cycles")?,
            output: AxisPorts::find(&tx, "m_axis").map_err(e)?,
            read_sent: ports(&tx, READ_SENT).map_err(e)?,
            read_sent_ready: port("read_sent_ready")?,
            read_done: ports(&tx, READ_DONE).map_err(e)?,
            read_response: ports(
                &tx,
                [
                    "s_read_valid",
                    "s_read_qp",
                    "s_read_psn",
                    "s_read_aeth",
                    "s_read_va",
                    "s_read_length",
                ],
            )
            .map_err(e)?,
            read_response_ready: port("s_read_ready")?,
            read_response_done: port("m_read_done")?,
        };
        let mut engine = Engine {
            name,
            tx,
            t,
            r,
            rx,
            qps: variant.tx.qps,
            tx_reads: std::iter::repeat_n(0, QP_READ_LATENCY).collect(),
            generations: vec![0; variant.tx.qps as usize],
            held_decision: None,
            configuration: (16, Vec::new()),
            response_waits: 0,
            read_responses: VecDeque::new(),
            reads_in_flight: VecDeque::new(),
            read_events: 0,
            memory: SparseMemory::new(),
            tick_cycles: tick_cycles(322_265_625),
        };
        if engine.t.output.bytes_per_beat != engine.r.input.bytes_per_beat {
            return Err(format!(
                "engine {name}: the TX half's m_axis is {} bits wide, the RX half's s_axis {}",
                8 * engine.t.output.bytes_per_beat,
                8 * engine.r.input.bytes_per_beat
            ));
        }
        engine.reset_tx()?;
        Ok(engine)
    }

    /// The engine's name (`A`, `B`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// A counter of the TX half (`cnt_retransmitted`, `cnt_timeouts`, ...).
    pub fn tx_counter(&mut self, port: &str) -> Result<u64, String> {
        let p = self.tx.port(port).map_err(|e| format!("engine {}: {e}", self.name))?;
        Ok(self.tx.peek_u64(p))
    }

    /// A counter of the RX half (`cnt_read_gaps`, `cnt_written`, ...).
    pub fn rx_counter(&mut self, port: &str) -> Result<u64, String> {
        let m = self.rx.model();
        let p = m.port(port).map_err(|e| format!("engine {}: {e}", self.name))?;
        Ok(m.peek_u64(p))
    }

    /// No READ response waits to be sent or is being sent.
    fn reads_idle(&self) -> bool {
        self.read_responses.is_empty() && self.reads_in_flight.is_empty()
    }

    /// Resets the TX half with its inputs idle and waits for `init_done`.
    fn reset_tx(&mut self) -> Result<(), String> {
        let (m, t) = (&mut self.tx, &self.t);
        for (port, value) in [
            (t.commit_valid, 0),
            (t.block_log2, u64::from(self.configuration.0)),
            (t.cfg_we, 0),
            (t.post_valid, 0),
            (t.resp_valid, 0),
            (t.output.ready, 1),
        ] {
            m.set_u64(port, value);
        }
        for name in ["s_pay_tvalid", "cpl_ready", "m_read_ready"] {
            let port = m.port(name).map_err(|e| e.to_string())?;
            m.set_u64(port, u64::from(name != "s_pay_tvalid"));
        }
        m.reset(4);
        let mut waited = 0u64;
        while m.get_u64(t.init_done) == 0 {
            m.step(1);
            waited += 1;
            if waited > 1 << 18 {
                return Err(format!("engine {}: the TX half's init_done never rose", self.name));
            }
        }
        Ok(())
    }

    /// Sets the TX half's block size and writes its scheduler registers: `setup`'s queue words,
    /// then its limit (as the TX path runner does).
    pub fn configure(&mut self, setup: &TxSetup) {
        let writes = setup
            .queue_config
            .iter()
            .map(|(&q, cfg)| (q, cfg.word()))
            .chain(std::iter::once((REG_LIMIT, u32::from(setup.limit))))
            .collect();
        self.configuration = (setup.block_log2, writes);
        self.write_configuration();
    }

    /// Resets the TX half alone (its transfer table, per-QP PSNs and scheduler state: every QP
    /// fresh, restarting from its context's `sq_psn`) and writes its configuration again: a TX
    /// half as the TX model starts each setup. The RX half and the context table are kept.
    pub fn restart_tx(&mut self) -> Result<(), String> {
        self.reset_tx()?;
        self.tx_reads = std::iter::repeat_n(0, QP_READ_LATENCY).collect();
        self.write_configuration();
        for qp in 0..self.qps {
            for _ in 0..self.generations[qp as usize] {
                self.tell_tx_reset(qp);
            }
        }
        Ok(())
    }

    fn write_configuration(&mut self) {
        let (m, t) = (&mut self.tx, &self.t);
        let (block_log2, writes) = &self.configuration;
        m.set_u64(t.block_log2, u64::from(*block_log2));
        for &(addr, word) in writes {
            m.set_u64(t.cfg_we, 1);
            m.set_u64(t.cfg_addr, u64::from(addr));
            m.set_u64(t.cfg_wdata, u64::from(word));
            m.step(1);
        }
        m.set_u64(t.cfg_we, 0);
    }

    /// The RX half's setup side (regions, receive posts, counters; its context table is the
    /// engine's).
    pub fn setup(&mut self) -> &mut SetupHarness {
        self.rx.setup()
    }

    /// Sets QP `qp`'s context in the engine's table and commits it on both halves: the RX half
    /// restarts the QP ([`SetupHarness::commit`]), the TX half's next block on it starts from
    /// its `sq_psn`.
    pub fn commit(&mut self, qp: u32, context: &QpContext) -> Result<(), String> {
        self.check_qp(qp)?;
        self.rx.model().set_u64(self.r.read_done[1], 1);
        self.rx.setup().commit(qp, context)?;
        self.commit_tx(qp);
        Ok(())
    }

    /// [`Engine::commit`], and the same QP (re)started on the golden responder `model`.
    pub fn commit_paired(&mut self, model: &mut Responder, qp: u32, context: &QpContext) -> Result<(), String> {
        self.check_qp(qp)?;
        self.rx.model().set_u64(self.r.read_done[1], 1);
        self.rx.setup().commit_paired(model, qp, context)?;
        self.commit_tx(qp);
        Ok(())
    }

    /// The engine's setup calls paired with the golden responder `model` (for
    /// [`crate::peers::Requesters::post_buffers`], for example).
    pub fn paired<'a>(&'a mut self, model: &'a mut Responder) -> PairedEngine<'a> {
        PairedEngine { engine: self, model }
    }

    fn check_qp(&self, qp: u32) -> Result<(), String> {
        if qp >= self.qps {
            return Err(format!("engine {}: QP {qp} is beyond its TX half's {} QPs", self.name, self.qps));
        }
        Ok(())
    }

    /// Pulses `qp_commit` on the TX half, then idles it; then gives it the READ tracker's
    /// `done` of the reset QP, which the RX half's commit took alone (the segmenter counts the
    /// QP's READs over and its generation on, as the tracker did).
    fn commit_tx(&mut self, qp: u32) {
        self.tx.set_u64(self.t.commit_valid, 1);
        self.tx.set_u64(self.t.commit_index, u64::from(qp));
        self.idle_tx(1);
        self.tx.set_u64(self.t.commit_valid, 0);
        self.idle_tx(SETUP_CYCLES);
        self.generations[qp as usize] = (self.generations[qp as usize] + 1) % 4;
        self.tell_tx_reset(qp);
    }

    /// The READ tracker's `done` of reset QP `qp`, given to the TX half alone until taken.
    fn tell_tx_reset(&mut self, qp: u32) {
        self.tx.set_u64(self.t.read_done[0], 1);
        self.tx.set_u64(self.t.read_done[2], u64::from(qp));
        self.tx.set_u64(self.t.read_done[3], 1);
        for _ in 0..64 {
            self.serve_tx_read();
            self.tx.eval();
            let taken = self.tx.peek_u64(self.t.read_done[1]) != 0;
            self.queue_tx_read();
            self.tx.tick();
            if taken {
                break;
            }
        }
        self.tx.set_u64(self.t.read_done[0], 0);
        self.tx.set_u64(self.t.read_done[3], 0);
        self.idle_tx(SETUP_CYCLES);
    }

    /// `cycles` cycles of the TX half alone, its context reads served.
    fn idle_tx(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.serve_tx_read();
            self.tx.eval();
            self.queue_tx_read();
            self.tx.tick();
        }
    }

    /// The TX half's `qp_read_entry` for this cycle: the context of the QP it read
    /// [`QP_READ_LATENCY`] cycles ago, from the engine's table.
    fn serve_tx_read(&mut self) {
        let qp = self.tx_reads.pop_front().expect("the read line holds QP_READ_LATENCY reads");
        self.tx.set(self.t.read_entry, self.rx.setup().context(qp));
    }

    /// After the TX half's last evaluation of a cycle: its read of this cycle.
    fn queue_tx_read(&mut self) {
        let qp = self.tx.peek_u64(self.t.read_index) as usize;
        self.tx_reads.push_back(qp);
    }

    /// The engine's internal wiring for one cycle, both halves evaluated with it (every input
    /// from outside the engine driven before): the context table behind both read ports, and
    /// the decision fork (see the module docs). `host_ready` is the host's `m_dec_ready` for a
    /// decision without a response. Returns the decision taken on `m_dec` this cycle, or an
    /// error if `m_dec` broke the AXI rules or a response names a QP the TX half does not have.
    pub fn settle(&mut self, host_ready: bool) -> Result<Option<Vec<u32>>, String> {
        // the table behind both read ports: the TX half's entry, then the RX half's (harness)
        self.serve_tx_read();
        // READ requests from the TX half to the READ tracker (registered outputs)
        for (&from, &to) in self.t.read_sent.iter().zip(&self.r.read_sent) {
            let words = self.tx.peek(from);
            self.rx.model().set(to, &words);
        }
        self.rx.model().set_u64(self.r.dec_ready, u64::from(host_ready));
        self.rx.setup().settle();
        let m = self.rx.model();
        let shown = (m.peek_u64(self.r.dec_valid) != 0).then(|| m.peek(self.r.dec_entry));
        let decision = shown.as_deref().map(Decision::from_words);
        let response = decision.as_ref().is_some_and(|d| d.response);
        let acknowledgement = decision.as_ref().is_some_and(|d| d.acknowledgement);
        let read = decision.as_ref().is_some_and(|d| d.read);
        // the oldest READ response waiting, on s_read_*
        let head = self.read_responses.front().copied();
        self.tx.set_u64(self.t.read_response[0], u64::from(head.is_some()));
        for (&port, value) in self.t.read_response[1..].iter().zip(head.unwrap_or_default()) {
            self.tx.set_u64(port, value);
        }
        // the READ tracker's answers to the TX half: the request taken, a QP's READ over
        let m = self.rx.model();
        let sent_ready = m.peek_u64(self.r.read_sent_ready);
        let (done_valid, done_qp) = (m.peek_u64(self.r.read_done[0]), m.peek_u64(self.r.read_done[2]));
        self.tx.set_u64(self.t.read_sent_ready, sent_ready);
        self.tx.set_u64(self.t.read_done[0], done_valid);
        self.tx.set_u64(self.t.read_done[2], done_qp);
        self.tx.set_u64(self.t.read_done[3], m.peek_u64(self.r.read_done[3]));
        // the decision fork: a response goes to s_resp when the TX half has room for it
        // (s_resp_ready is a register: this evaluation shows this cycle's), an acknowledgement
        // to s_ack when the ACK tracker takes it
        self.tx.eval();
        let take = match &decision {
            None => false,
            Some(d) if response => self.tx.peek_u64(self.t.resp_ready) != 0 && !self.reads_in_flight.contains(&d.qp),
            Some(_) if acknowledgement => self.tx.peek_u64(self.t.ack_ready) != 0,
            Some(_) if read => self.read_responses.len() < READ_RESPONSES,
            Some(_) => host_ready,
        };
        self.tx.set_u64(self.t.resp_valid, u64::from(response && take));
        self.tx.set_u64(self.t.ack_valid, u64::from(acknowledgement));
        if let Some(d) = decision.as_ref().filter(|_| acknowledgement) {
            self.tx.set_u64(self.t.ack_qp, u64::from(d.qp));
            self.tx.set_u64(self.t.ack_psn, u64::from(d.response_psn));
            self.tx.set_u64(self.t.ack_syndrome, u64::from(d.response_syndrome));
        }
        self.response_waits += u64::from(response && !take);
        if let Some(d) = decision.as_ref().filter(|_| response) {
            if d.qp >= self.qps {
                return Err(format!(
                    "engine {}: a response decision on QP {}, beyond its TX half's {} QPs: {d}",
                    self.name, d.qp, self.qps
                ));
            }
            self.tx.set_u64(self.t.resp_qp, u64::from(d.qp));
            self.tx.set_u64(self.t.resp_psn, u64::from(d.response_psn));
            self.tx.set_u64(self.t.resp_aeth, u64::from(d.response_aeth()));
        }
        if let Some(d) = decision.as_ref().filter(|_| read && take) {
            let entry = [d.qp, d.response_psn, d.response_aeth()].map(u64::from);
            self.read_responses
                .push_back([entry[0], entry[1], entry[2], d.read_va, u64::from(d.read_length)]);
            self.reads_in_flight.push_back(d.qp);
        }
        if (response || acknowledgement || read) && take != host_ready {
            let m = self.rx.model();
            m.set_u64(self.r.dec_ready, u64::from(take));
            m.eval();
        }
        self.tx.eval();
        self.queue_tx_read();
        if head.is_some() && self.tx.peek_u64(self.t.read_response_ready) != 0 {
            self.read_responses.pop_front();
            self.read_events += 1;
        }
        if self.tx.peek_u64(self.t.read_response_done) != 0 {
            if self.reads_in_flight.pop_front().is_none() {
                return Err(format!("engine {}: m_read_done with no READ response given", self.name));
            }
            self.read_events += 1;
        }
        let done_ready = self.tx.peek_u64(self.t.read_done[1]);
        let m = self.rx.model();
        m.set_u64(self.r.read_done[1], done_ready);
        m.eval();
        // m_dec's AXI rule: a decision not taken stays, unchanged
        if let Some(held) = self.held_decision.take() {
            if shown.as_ref() != Some(&held) {
                return Err(format!(
                    "engine {}: m_dec {} while stalled (ready low): {}",
                    self.name,
                    if shown.is_some() { "changed" } else { "dropped valid" },
                    Decision::from_words(&held)
                ));
            }
        }
        match shown {
            Some(entry) if !take => {
                self.held_decision = Some(entry);
                Ok(None)
            }
            shown => Ok(shown),
        }
    }

    /// The clock edge that ends the cycle, on both halves.
    pub fn tick(&mut self) {
        self.tx.tick();
        self.rx.setup().tick();
    }
}

/// An engine's setup calls paired with a golden responder model: regions and receive posts on
/// the RX half and the model, commits on both halves and the model.
pub struct PairedEngine<'a> {
    engine: &'a mut Engine,
    model: &'a mut Responder,
}

impl PairedSetup for PairedEngine<'_> {
    fn sides(&mut self) -> (&mut SetupHarness, &mut Responder) {
        (self.engine.rx.setup(), self.model)
    }

    fn commit(&mut self, qp: u32, context: &QpContext) -> Result<(), String> {
        self.engine.commit_paired(self.model, qp, context)
    }
}

/// Bytes of the largest RoCEv2 frame the engine sends: a 4 KiB payload and every header (VLAN,
/// IPv6, BTH, RETH, ImmDt, ICRC).
const LARGEST_FRAME: usize = 4096 + 18 + 40 + 8 + 12 + 16 + 4 + 4;

/// One wire: a beat FIFO; see the module docs. A lossy wire ([`Loopback::set_faults`]) takes
/// a frame whole, lets its [`FaultInjector`] lose, duplicate, hold back or corrupt it, and
/// beats out what comes of it.
struct Wire {
    timing: WireTiming,
    /// Per beat: the cycle it is due, `tdata`, `tkeep`, `tlast`.
    beats: VecDeque<(u64, Vec<u32>, Vec<u32>, bool)>,
    /// The head beat is offered and waits for `tready`.
    presenting: bool,
    /// Beats taken by the RX half.
    carried: u64,
    /// Frames a lossy wire held back and let go: movement, though no port moved (a frame held
    /// after the last one comes [`crate::faults::HOLD_CYCLES`] later, as long as the progress
    /// limit).
    released: u64,
    /// The faults of a lossy wire, and the frame arriving from the TX half.
    faults: Option<FaultInjector>,
    arriving: Vec<u8>,
    bytes_per_beat: usize,
}

impl Wire {
    fn new(timing: WireTiming, faults: Option<FaultInjector>, bytes_per_beat: usize) -> Wire {
        Wire {
            timing,
            beats: VecDeque::new(),
            presenting: false,
            carried: 0,
            released: 0,
            faults,
            arriving: Vec::new(),
            bytes_per_beat,
        }
    }

    /// The TX half may send. A lossy wire forwards whole frames: it holds one more frame's beats
    /// (the largest RoCEv2 frame), so that the next frame arrives while the last drains.
    fn room(&self) -> bool {
        let frame_beats = if self.faults.is_some() {
            LARGEST_FRAME.div_ceil(self.bytes_per_beat)
        } else {
            0
        };
        self.beats.len() < self.timing.beats + frame_beats
    }

    /// Beats carried and frames let go: it grows while the wire moves.
    fn moved(&self) -> u64 {
        self.carried + self.released
    }

    /// Nothing on the wire and nothing held back.
    fn empty(&self) -> bool {
        self.beats.is_empty() && !self.faults.as_ref().is_some_and(FaultInjector::holding)
    }

    fn push(&mut self, cycle: u64, data: Vec<u32>, keep: Vec<u32>, last: bool) {
        let Some(faults) = self.faults.as_mut() else {
            self.beats.push_back((cycle + self.timing.latency, data, keep, last));
            return;
        };
        for i in 0..self.bytes_per_beat {
            if keep[i / 32] >> (i % 32) & 1 != 0 {
                self.arriving.push((data[i / 4] >> (8 * (i % 4))) as u8);
            }
        }
        if last {
            let frames = faults.apply(std::mem::take(&mut self.arriving), cycle);
            self.beat_out(cycle, frames);
        }
    }

    /// A lossy wire lets frames it held back go when their time has come.
    fn release(&mut self, cycle: u64) {
        if let Some(faults) = self.faults.as_mut() {
            let frames = faults.due(cycle);
            self.released += frames.len() as u64;
            self.beat_out(cycle, frames);
        }
    }

    fn beat_out(&mut self, cycle: u64, frames: Vec<Vec<u8>>) {
        for frame in frames {
            let chunks: Vec<&[u8]> = frame.chunks(self.bytes_per_beat).collect();
            for (i, chunk) in chunks.iter().enumerate() {
                let (data, keep) = crate::axis::pack_beat(chunk, self.bytes_per_beat);
                self.beats
                    .push_back((cycle + self.timing.latency, data, keep, i + 1 == chunks.len()));
            }
        }
    }

    /// Drives the RX half's `s_axis` for this cycle.
    fn drive(&mut self, m: &mut Model, p: &AxisPorts, rng: &mut ChaCha8Rng, cycle: u64) {
        if self.presenting {
            return;
        }
        let stalled = self.timing.stall_pct > 0 && rng.gen_range(0..100) < self.timing.stall_pct;
        match self.beats.front() {
            Some((due, data, keep, last)) if *due <= cycle && !stalled => {
                m.set_u64(p.valid, 1);
                m.set(p.data, data);
                m.set(p.keep, keep);
                m.set_u64(p.last, u64::from(*last));
                self.presenting = true;
            }
            _ => {
                let garbage: Vec<u32> = (0..p.bytes_per_beat.div_ceil(4)).map(|_| rng.gen()).collect();
                m.set_u64(p.valid, 0);
                m.set(p.data, &garbage);
                m.set(p.keep, &garbage[..p.bytes_per_beat.div_ceil(32)]);
                m.set_u64(p.last, u64::from(garbage[0] & 1));
            }
        }
    }

    /// The handshake of this cycle: `Some(tlast)` of the beat the RX half took.
    fn sample(&mut self, m: &mut Model, p: &AxisPorts) -> Option<bool> {
        if !self.presenting || m.peek_u64(p.ready) == 0 {
            return None;
        }
        self.presenting = false;
        self.carried += 1;
        self.beats.pop_front().map(|(_, _, _, last)| last)
    }
}

/// Everything around one engine during a run: its host (posts, results, completions,
/// decisions), its local memory (reads, writes) and the beats of its wires.
struct Side {
    posts: RecordSource,
    post_words: Vec<Vec<Vec<u32>>>,
    results: Vec<Result<(), PostError>>,
    reads: Channel,
    memory: Memory,
    latency: u64,
    /// The payload source (`None`: an engine given no post reads nothing).
    local: Option<Arc<dyn LocalMemory>>,
    completions: Channel,
    done: Vec<(u16, CompletionStatus)>,
    mac: FrameSink,
    /// Per descriptor taken by the TX half's generator whose frame has not left: a response's.
    descriptors: VecDeque<bool>,
    /// Per frame that left the TX half: a response's.
    frame_kinds: Vec<bool>,
    /// Responses handed to the TX half.
    responses: usize,
    /// Frames whose last beat the RX half took.
    frames_in: usize,
    commands: Channel,
    data: FrameSink,
    pass: FrameSink,
    pending_commands: VecDeque<(u64, usize)>,
    /// Write data not yet paired with its command, and the cycle of its last beat.
    pending_data: VecDeque<(Vec<u8>, u64)>,
    /// Cycle of the first post handshake and of the first beat out on `m_axis`.
    first_post: Option<u64>,
    first_beat: Option<u64>,
    /// Per frame whose last beat the RX half took, that cycle.
    in_cycles: Vec<u64>,
    /// Per write a decision asks for, in order, the index of its frame (a write may be done
    /// before its decision is taken on `m_dec`).
    written_frames: Vec<usize>,
    /// Per write done, in order, the cycle of its last data beat.
    write_cycles: Vec<u64>,
    writes: Vec<(u64, usize)>,
    decisions: Vec<Vec<u32>>,
    /// Writes the decisions ask for (`write` and a payload).
    owed: usize,
    /// Handshakes so far, on every interface: progress.
    events: u64,
    /// Of them, those a retransmission must never cause: posts, results, completions, memory
    /// writes, pass-through frames.
    outcomes: u64,
}

impl Side {
    fn new(engine: &mut Engine, s: &Surroundings, posts: &[Post], local: Option<Arc<dyn LocalMemory>>) -> Result<Side, String> {
        let e = |e: SimError| format!("engine {}: {e}", engine.name);
        let post_words = posts
            .iter()
            .map(|p| p.to_words().map(|w| vec![w]).map_err(|err| format!("post: {err}")))
            .collect::<Result<_, _>>()?;
        let tx = &engine.tx;
        let rx: &Model = engine.rx.model();
        Ok(Side {
            posts: RecordSource::new(tx, "post_valid", "post_ready", &["post_entry"], s.post_idle_pct).map_err(e)?,
            post_words,
            results: Vec::with_capacity(posts.len()),
            reads: Channel::new(
                tx,
                "m_read",
                "m_read_valid",
                Some("m_read_ready"),
                &["m_read_addr", "m_read_len"],
                s.read_bp_pct,
            )
            .map_err(e)?,
            memory: Memory::new(tx, s.memory, engine.t.output.bytes_per_beat).map_err(e)?,
            latency: s.memory.latency,
            local,
            completions: Channel::completions(tx, s.completion_bp_pct).map_err(e)?,
            done: Vec::new(),
            mac: FrameSink::new(tx, "m_axis", &[], 0).map_err(e)?,
            descriptors: VecDeque::new(),
            frame_kinds: Vec::new(),
            responses: 0,
            frames_in: 0,
            commands: Channel::new(
                rx,
                "m_cmd",
                "m_cmd_valid",
                Some("m_cmd_ready"),
                &["m_cmd_address", "m_cmd_length"],
                s.write_bp_pct,
            )
            .map_err(e)?,
            data: FrameSink::new(rx, "m_wr", &[], s.write_bp_pct).map_err(e)?,
            pass: FrameSink::new(rx, "m_pass", &[], s.write_bp_pct).map_err(e)?,
            pending_commands: VecDeque::new(),
            pending_data: VecDeque::new(),
            first_post: None,
            first_beat: None,
            in_cycles: Vec::new(),
            written_frames: Vec::new(),
            write_cycles: Vec::new(),
            writes: Vec::new(),
            decisions: Vec::new(),
            owed: 0,
            events: 0,
            outcomes: 0,
        })
    }

    /// Per write done, cycles from its frame's last beat in to its last data beat out.
    fn write_latencies(&self) -> Vec<u64> {
        self.written_frames
            .iter()
            .zip(&self.write_cycles)
            .filter_map(|(&frame, &written)| Some(written - self.in_cycles.get(frame)?))
            .collect()
    }

    /// The RX half took the last beat of a frame in `cycle`.
    fn frame_in(&mut self, cycle: u64) {
        self.frames_in += 1;
        self.in_cycles.push(cycle);
    }

    fn accepted(&self) -> usize {
        self.results.iter().filter(|r| r.is_ok()).count()
    }

    /// Drives this cycle's inputs from outside the engine but its input wire: posts, memory,
    /// completions, `m_axis_tready` (low while the output wire is full), the writes.
    fn drive(&mut self, engine: &mut Engine, rng: &mut ChaCha8Rng, cycle: u64, output_room: bool) {
        let tx = &mut engine.tx;
        self.posts.drive(tx, rng, &self.post_words);
        self.memory.drive(tx, rng, cycle);
        self.reads.drive(tx, rng);
        if !self.memory.room() {
            self.reads.hold(tx);
        }
        self.completions.drive(tx, rng);
        self.mac.drive(tx, rng);
        if !output_room {
            self.mac.hold(tx);
        }
        let rx = engine.rx.model();
        self.commands.drive(rx, rng);
        self.data.drive(rx, rng);
        self.pass.drive(rx, rng);
    }

    /// This cycle's handshakes (after [`Engine::settle`]): the decision taken, the beat that
    /// left on the output wire, everything else around the engine.
    fn sample(&mut self, engine: &mut Engine, cycle: u64, decision: Option<Vec<u32>>, output: &mut Wire) -> Result<(), String> {
        let name = engine.name;
        let e = |e: SimError| format!("engine {name}: {e}");
        let (tx, t) = (&mut engine.tx, &engine.t);
        // the TX half: posts and their results, descriptors, memory, frames, completions
        if self.posts.sample(tx, cycle).is_some() {
            self.first_post.get_or_insert(cycle);
            self.events += 1;
            self.outcomes += 1;
        }
        if tx.peek_u64(t.result_valid) != 0 {
            let code = tx.peek_u64(t.result_code) as u8;
            let index = self.results.len();
            if index >= self.post_words.len() {
                return Err(format!("engine {name}: a post result at cycle {cycle} with {index} posts made"));
            }
            self.results.push(match code {
                0 => Ok(()),
                c => Err(PostError::from_code(c).ok_or_else(|| format!("engine {name}: post {index}: unknown refusal code {c}"))?),
            });
            self.events += 1;
            self.outcomes += 1;
        }
        if tx.peek_u64(t.packet_valid) != 0 {
            self.descriptors.push_back(tx.peek_u64(t.packet_response) != 0);
            self.events += 1;
        }
        if let Some(command) = self.reads.sample(tx, cycle).map_err(e)? {
            let (addr, len) = (crate::axis::value(&command[0]) as u64, command[1][0] as usize);
            let local = self
                .local
                .as_ref()
                .ok_or_else(|| format!("engine {name}: a memory read of {len} bytes at {addr:#x} (cycle {cycle}) with no post given"))?;
            self.memory.take_command(cycle + self.latency, local.bytes(addr, len));
            self.events += 1;
        }
        let in_flight = self.memory.in_flight();
        self.memory.sample(tx);
        if self.memory.in_flight() != in_flight {
            self.events += 1;
        }
        let o = t.output;
        let frames = self.mac.frames.len();
        if self.mac.sample(tx, cycle).map_err(e)? {
            output.push(cycle, tx.peek(o.data), tx.peek(o.keep), tx.peek_u64(o.last) != 0);
            self.first_beat.get_or_insert(cycle);
            self.events += 1;
        }
        if self.mac.frames.len() > frames {
            let response = self
                .descriptors
                .pop_front()
                .ok_or_else(|| format!("engine {name}: a frame left m_axis at cycle {cycle} without a descriptor before it"))?;
            self.frame_kinds.push(response);
            if response && self.frame_kinds.iter().filter(|&&r| r).count() > self.responses {
                return Err(format!(
                    "engine {name}: more response frames than the {} responses given",
                    self.responses
                ));
            }
        }
        if let Some(c) = self.completions.sample(tx, cycle).map_err(e)? {
            let status =
                CompletionStatus::from_code(c[1][0] as u8).ok_or_else(|| format!("engine {name}: completion status {}", c[1][0]))?;
            self.done.push((c[0][0] as u16, status));
            if self.done.len() > self.accepted() {
                return Err(format!(
                    "engine {name}: {} completions for {} accepted posts",
                    self.done.len(),
                    self.accepted()
                ));
            }
            self.events += 1;
            self.outcomes += 1;
        }
        // the RX half: decisions, writes, pass-through frames
        if let Some(entry) = decision {
            let d = Decision::from_words(&entry);
            if d.write && d.write_length > 0 {
                self.owed += 1;
                self.written_frames.push(self.decisions.len() + self.pass.frames.len());
            }
            self.responses += usize::from(d.response);
            self.decisions.push(entry);
            self.events += 1;
        }
        let rx = engine.rx.model();
        if let Some(ports) = self.commands.sample(rx, cycle).map_err(e)? {
            self.pending_commands
                .push_back((crate::axis::value(&ports[0]) as u64, ports[1][0] as usize));
            self.events += 1;
            self.outcomes += 1;
        }
        if self.data.sample(rx, cycle).map_err(e)? {
            self.events += 1;
            self.outcomes += 1;
        }
        self.pending_data
            .extend(self.data.frames.drain(..).map(|f| (f.bytes, f.last_cycle)));
        if self.pass.sample(rx, cycle).map_err(e)? {
            self.events += 1;
            self.outcomes += 1;
        }
        while !self.pending_commands.is_empty() && !self.pending_data.is_empty() {
            let (address, length) = self.pending_commands.pop_front().expect("a command");
            let (bytes, last_cycle) = self.pending_data.pop_front().expect("data");
            if bytes.len() != length {
                return Err(format!(
                    "engine {name}: write {} at cycle {cycle}: the command says {length} bytes at {address:#x}, its data has {}",
                    self.writes.len(),
                    bytes.len()
                ));
            }
            engine.memory.write(address, &bytes);
            self.writes.push((address, length));
            self.write_cycles.push(last_cycle);
        }
        if self.decisions.len() + self.pass.frames.len() > self.frames_in {
            return Err(format!(
                "engine {name}: cycle {cycle}: {} decisions and {} pass-through frames for {} frames in",
                self.decisions.len(),
                self.pass.frames.len(),
                self.frames_in
            ));
        }
        Ok(())
    }

    /// Everything given to the engine has come out (see the module docs).
    fn finished(&self) -> bool {
        self.results.len() == self.post_words.len()
            && self.done.len() == self.accepted()
            && self.memory.in_flight().0 == 0
            && self.descriptors.is_empty()
            && self.mac.pending_bytes() == 0
            && self.frame_kinds.iter().filter(|&&r| r).count() == self.responses
            && self.decisions.len() + self.pass.frames.len() == self.frames_in
            && self.writes.len() == self.owed
            && self.data.pending_bytes() == 0
    }

    /// Where the engine's streams stand, for an error.
    fn describe(&self, engine: &mut Engine) -> String {
        let (tx, t) = (&mut engine.tx, &engine.t);
        let [post_ready, resp_ready, tvalid, read_valid] =
            [t.post_ready, t.resp_ready, t.output.valid, t.read_valid].map(|p| tx.peek_u64(p));
        let r = &engine.r;
        let rx = engine.rx.model();
        let [tready, dec_valid, cmd_valid, wr_valid] = [r.input.ready, r.dec_valid, r.cmd_valid, r.wr_valid].map(|p| rx.peek_u64(p));
        let response_frames = self.frame_kinds.iter().filter(|&&r| r).count();
        format!(
            "engine {}: posts {} taken of {} (post_ready {post_ready}), {} results, {} completions of {} accepted; {} reads in \
             flight (m_read_valid {read_valid}); {} frames out ({} responses of {} handed, s_resp_ready {resp_ready}), {} \
             descriptors waiting, {} bytes of a frame (m_axis_tvalid {tvalid}); RX: {} frames in (s_axis_tready {tready}), {} \
             decisions (m_dec_valid {dec_valid}{}), {} passed, {} writes done of {} ({} commands and {} data waiting, \
             m_cmd_valid {cmd_valid}, m_wr_tvalid {wr_valid}); READ responses: {} waiting for s_read, {} not gone",
            engine.name,
            self.posts.next(),
            self.post_words.len(),
            self.results.len(),
            self.done.len(),
            self.accepted(),
            self.memory.in_flight().0,
            self.frame_kinds.len(),
            response_frames,
            self.responses,
            self.descriptors.len(),
            self.mac.pending_bytes(),
            self.frames_in,
            self.decisions.len(),
            engine
                .held_decision
                .as_ref()
                .map_or(String::new(), |d| format!(", held: {}", Decision::from_words(d))),
            self.pass.frames.len(),
            self.writes.len(),
            self.owed,
            self.pending_commands.len(),
            self.pending_data.len(),
            engine.read_responses.len(),
            engine.reads_in_flight.len(),
        )
    }
}

/// What both engines of a loopback are made of: a TX path and an RX path of one width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopbackVariant {
    /// The TX halves.
    pub tx: PathVariant,
    /// The RX halves.
    pub rx: RxVariant,
}

/// 64 bits: the small TX path (16 QPs) and the 256-QP RX path.
pub const LOOPBACK_W64: LoopbackVariant = LoopbackVariant { tx: SMALL, rx: Q256_W64 };
/// 512 bits: the default TX path and the 256-QP RX path.
pub const LOOPBACK_W512: LoopbackVariant = LoopbackVariant {
    tx: DEFAULT,
    rx: Q256_W512,
};
/// 512 bits with 2048 QPs on both halves; its models are built when `FERROCE_SIM_ALL=1`.
pub const LOOPBACK_Q2048: LoopbackVariant = LoopbackVariant {
    tx: DEFAULT_Q2048,
    rx: Q2048_W512,
};

impl LoopbackVariant {
    /// The variant of `width` bits and `qps` QPs.
    pub fn find(width: usize, qps: u32) -> Result<LoopbackVariant, String> {
        let all = [LOOPBACK_W64, LOOPBACK_W512, LOOPBACK_Q2048];
        all.into_iter().find(|v| v.tx.width == width && v.qps() == qps).ok_or_else(|| {
            let known: Vec<String> = all.iter().map(|v| format!("{} bits with {} QPs", v.tx.width, v.qps())).collect();
            format!("no loopback at {width} bits with {qps} QPs (known: {})", known.join(", "))
        })
    }

    /// QPs both halves have.
    pub fn qps(&self) -> u32 {
        self.tx.qps.min(self.rx.qps)
    }
}

/// The loopback at `width` bits: at 64 the small TX path, at 512 the default one; no other
/// width has one.
pub fn variant_of_width(width: usize) -> Result<LoopbackVariant, String> {
    match width {
        64 => Ok(LOOPBACK_W64),
        512 => Ok(LOOPBACK_W512),
        w => Err(format!(
            "no loopback at {w} bits (64: TX path {}, 512: TX path {})",
            SMALL.name, DEFAULT.name
        )),
    }
}

/// Engines A and B back to back; see the module docs.
pub struct Loopback {
    /// The requester: the posts of a run are its.
    pub a: Engine,
    /// The responder: given no post, its TX half sends its RX half's responses.
    pub b: Engine,
    /// What both engines are made of.
    pub variant: LoopbackVariant,
    /// What idles and pushes back.
    pub surroundings: Surroundings,
    rng: ChaCha8Rng,
    /// Cycles run (by [`Loopback::run`]) so far.
    pub cycle: u64,
    /// Faults on wire A→B and B→A (none: a perfect wire), and their seed.
    faults: (Option<Faults>, Option<Faults>, u64),
    /// Cycles in which nothing moves after which a run is an error (plus the memory's latency):
    /// [`PROGRESS_LIMIT`] by default; on a lossy wire more than a retry timeout.
    pub progress_limit: u64,
}

impl Loopback {
    /// Makes the wires lossy from the next run on: `ab` on wire A→B, `ba` on B→A (`None`: that
    /// wire is perfect), drawn from `seed`. Only RoCEv2 frames are touched.
    pub fn set_faults(&mut self, ab: Option<Faults>, ba: Option<Faults>, seed: u64) {
        self.faults = (ab, ba, seed);
    }

    /// Both engines at `width` bits (64: the small TX path, 512: the default one), reset; no
    /// context, region or receive buffer set, the schedulers at their reset values.
    pub fn new(width: usize, surroundings: Surroundings) -> Result<Loopback, String> {
        Loopback::of(variant_of_width(width)?, surroundings)
    }

    /// Both engines of `variant`, reset; see [`Loopback::new`].
    pub fn of(variant: LoopbackVariant, surroundings: Surroundings) -> Result<Loopback, String> {
        for wire in [surroundings.wire_ab, surroundings.wire_ba] {
            if wire.latency == 0 || wire.beats == 0 {
                return Err(format!("a wire needs a latency and room: {wire:?}"));
            }
        }
        Ok(Loopback {
            a: Engine::new("A", &variant)?,
            b: Engine::new("B", &variant)?,
            variant,
            surroundings,
            rng: ChaCha8Rng::seed_from_u64(surroundings.seed),
            cycle: 0,
            faults: (None, None, 0),
            progress_limit: PROGRESS_LIMIT,
        })
    }

    /// Runs `posts` on engine A (its payloads, and B's READ responses, read from `memory`) until everything they cause
    /// has come out of both engines (see the module docs); B answers from its RX half's
    /// decisions. Setup must be done before (nothing is in flight between runs).
    pub fn run(&mut self, posts: &[Post], memory: Arc<dyn LocalMemory>) -> Result<LoopbackRun, String> {
        let s = self.surroundings;
        // B's READ responses carry bytes of the same source
        let mut a = Side::new(&mut self.a, &s, posts, Some(memory.clone()))?;
        let mut b = Side::new(&mut self.b, &s, &[], Some(memory))?;
        let bytes_per_beat = self.a.t.output.bytes_per_beat;
        let injector = |faults: Option<Faults>, seed: u64| faults.map(|f| FaultInjector::new(f, seed));
        let (mut ab, mut ba) = (
            Wire::new(s.wire_ab, injector(self.faults.0, self.faults.2), bytes_per_beat),
            Wire::new(s.wire_ba, injector(self.faults.1, self.faults.2 ^ 0x5eed), bytes_per_beat),
        );
        for engine in [&mut self.a, &mut self.b] {
            let tick = engine.t.tick_cycles;
            engine.tx.set_u64(tick, engine.tick_cycles);
        }
        let (a_in, b_in) = (self.a.r.input, self.b.r.input);
        let waits = [self.a.response_waits, self.b.response_waits];
        let rng = &mut self.rng;
        let limit = self.progress_limit + s.memory.latency;
        // on a lossy wire, a retransmission a timeout started just before its acknowledgement
        // arrived may leave after the end, and be answered: traffic, never an outcome
        let lossy = self.faults.0.is_some() || self.faults.1.is_some();
        let (mut last_progress, mut last_event, mut end) = (0u64, None::<u64>, None::<RunEnd>);
        let mut cycle = 0u64;
        loop {
            let events = a.events + b.events + ab.moved() + ba.moved() + self.a.read_events + self.b.read_events;
            let outcomes = a.outcomes + b.outcomes;
            let finished = a.finished() && b.finished() && ab.empty() && ba.empty() && self.a.reads_idle() && self.b.reads_idle();
            match end.as_mut() {
                None if finished => {
                    end = Some(RunEnd {
                        at: cycle,
                        events,
                        outcomes,
                        quiet_since: cycle,
                        frames: [a.mac.frames.len(), b.mac.frames.len()],
                    })
                }
                Some(e) if outcomes != e.outcomes || (!lossy && (events != e.events || !finished)) => {
                    return Err(format!(
                        "{} after the run's end at cycle {}, cycle {cycle}: {}; {}",
                        if outcomes != e.outcomes {
                            "a post, result, completion, memory write or pass-through frame"
                        } else if finished {
                            "a handshake"
                        } else {
                            "more output"
                        },
                        e.at,
                        a.describe(&mut self.a),
                        b.describe(&mut self.b)
                    ))
                }
                Some(e) if events != e.events || !finished => {
                    e.events = events;
                    e.quiet_since = cycle;
                }
                Some(e) if cycle - e.quiet_since >= DRAIN_CYCLES => break,
                _ => {}
            }
            if cycle - last_progress > limit {
                return Err(format!(
                    "loopback of {}: nothing moved for {limit} cycles (cycle {cycle} of the run): {}; wire A→B holds {} beats; {}; \
                     wire B→A holds {} beats",
                    self.variant.tx.name,
                    a.describe(&mut self.a),
                    ab.beats.len(),
                    b.describe(&mut self.b),
                    ba.beats.len()
                ));
            }
            // inputs from outside the engines, the wires' beats
            ab.release(cycle);
            ba.release(cycle);
            a.drive(&mut self.a, rng, cycle, ab.room());
            b.drive(&mut self.b, rng, cycle, ba.room());
            ab.drive(self.b.rx.model(), &b_in, rng, cycle);
            ba.drive(self.a.rx.model(), &a_in, rng, cycle);
            // each engine's wiring, both halves evaluated
            let host = |rng: &mut ChaCha8Rng| s.host_bp_pct == 0 || rng.gen_range(0..100) >= s.host_bp_pct;
            let (host_a, host_b) = (host(rng), host(rng));
            let decision_a = self.a.settle(host_a)?;
            let decision_b = self.b.settle(host_b)?;
            // this cycle's handshakes
            a.sample(&mut self.a, cycle, decision_a, &mut ab)?;
            b.sample(&mut self.b, cycle, decision_b, &mut ba)?;
            if ab.sample(self.b.rx.model(), &b_in) == Some(true) {
                b.frame_in(cycle);
            }
            if ba.sample(self.a.rx.model(), &a_in) == Some(true) {
                a.frame_in(cycle);
            }
            if a.events + b.events + ab.moved() + ba.moved() + self.a.read_events + self.b.read_events != events {
                last_progress = cycle;
                last_event = Some(cycle);
            }
            self.a.tick();
            self.b.tick();
            cycle += 1;
        }
        self.cycle += cycle;
        let wire = |side: &Side| -> Vec<WireFrame> {
            side.mac
                .frames
                .iter()
                .zip(&side.frame_kinds)
                .map(|(f, &response)| WireFrame {
                    bytes: f.bytes.clone(),
                    response,
                    cycle: f.last_cycle,
                })
                .collect()
        };
        let passed = |side: &Side| -> Vec<Vec<u8>> { side.pass.frames.iter().map(|f| f.bytes.clone()).collect() };
        let write_latencies = b.write_latencies();
        Ok(LoopbackRun {
            a_to_b: wire(&a),
            b_to_a: wire(&b),
            a_passed: passed(&a),
            b_passed: passed(&b),
            post_results: a.results,
            completions: a.done,
            a_decisions: a.decisions,
            b_decisions: b.decisions,
            a_writes: a.writes,
            b_writes: b.writes,
            cycles: last_event.map_or(0, |c| c + 1),
            wire_beats: [ab.carried, ba.carried],
            response_waits: [self.a.response_waits - waits[0], self.b.response_waits - waits[1]],
            first_byte_latency: a.first_beat.zip(a.first_post).map(|(beat, post)| beat - post),
            write_latencies,
            faults: [ab.faults.map(|f| f.counts), ba.faults.map(|f| f.counts)],
            late_frames: end.map_or([0, 0], |e| [a.mac.frames.len() - e.frames[0], b.mac.frames.len() - e.frames[1]]),
        })
    }
}

/// Where a run stood when everything it caused had come out.
struct RunEnd {
    at: u64,
    /// Handshakes then, and outcomes (which must not change after it).
    events: u64,
    outcomes: u64,
    /// The last cycle late traffic moved (the end's cycle if none did).
    quiet_since: u64,
    /// Frames A and B had sent.
    frames: [usize; 2],
}

/// The indices of the ports `names` of `m`.
fn ports<const N: usize>(m: &Model, names: [&str; N]) -> Result<[usize; N], SimError> {
    let mut out = [0; N];
    for (slot, name) in out.iter_mut().zip(names) {
        *slot = m.port(name)?;
    }
    Ok(out)
}
