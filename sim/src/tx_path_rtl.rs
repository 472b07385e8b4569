//! The whole TX path's Verilator model (`ferroce_tx_path_*`, top `tx_path`) behind
//! [`TxEngine`]: `ferroce-sim tx --engine rtl` and the co-simulation
//! (`sim/tests/tx_path_cosim.rs`) run a [`TxSetup`] on it as they run it on the model.
//!
//! The runner plays the path's surroundings cycle by cycle:
//! - the register file: the scheduler's queue words and limit written on `sched_cfg_*` after
//!   reset, the block size on `cfg_block_log2`, the QP context table on the read port (the
//!   entry [`QP_READ_LATENCY`] cycles after its index), the posts on `post_*` in order (with
//!   random idle), their results, the completions on `cpl_*` (with random backpressure);
//! - the memory: read commands taken on `m_read_*` (with random backpressure, at most
//!   [`MemoryTiming::outstanding`] in flight), each answered on `s_pay_*` from
//!   [`TxSetup::memory`] no earlier than [`MemoryTiming::latency`] cycles after it was taken,
//!   in order, one beat per cycle but for random stalls;
//! - the MAC: frames on `m_axis` (with random backpressure), the stream rules checked;
//! - the responder: [`TxSetup::responses`] on `s_resp_*` in order, each after random idle
//!   ([`RESPONSE_IDLE_PCT`]), so they fall among the data frames; `m_packet_response` tells
//!   their frames apart ([`TxRun::responses`]);
//! - the responder's READ responses: [`TxSetup::read_responses`] on `s_read_*` in order, once
//!   every post has its result (the model enqueues them after the posts), each after random
//!   idle; their frames count in [`TxSetup::read_response_queue`] and are not acknowledged;
//! - the peer: every RC request frame that leaves is acknowledged on `s_ack_*` (its QP, its
//!   PSN, an ACK; after random idle, [`ACK_IDLE_PCT`]), so RC transfers complete as on a
//!   lossless wire; a READ request is answered as if its whole response had come: an ACK of
//!   its last PSN (what the READ tracker passes on for the last response packet) and the
//!   tracker's `read_done` for its QP. An RC
//!   completion comes later than its last frame: completions are compared with the model's
//!   as a set when the setup has RC QPs.
//!
//! The model makes every post before its first decision; so does the RTL when posts come back
//! to back (the segmenter takes a waiting post before it asks for a decision), which is what
//! [`Surroundings::post_idle_pct`] 0 gives. With idle posts the frames are still those of a
//! valid schedule but may be in another order than the model's.

use crate::axis::{pack_beat, Channel, FrameSink, RecordSource};
use crate::contracts::opcode::Transport;
use crate::contracts::responder::Syndrome;
use crate::contracts::tx::{CompletionStatus, PostError};
use crate::models::tx::{TxEngine, TxRun, TxSetup};
use crate::sched::REG_LIMIT;
use crate::tx_segmenter_rtl::REFUSAL_COUNTERS;
use crate::verilated::{Model, SimError};
use ferroce_contracts::regs::QP_READ_LATENCY;
use ferroce_contracts::sched::PACE_COST_ADDR;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, VecDeque};

/// An emitted TX path: its variant and the sizes it was elaborated with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathVariant {
    /// Variant suffix (`c2048_q256_w512`).
    pub name: &'static str,
    /// Bus width in bits.
    pub width: usize,
    /// Channels.
    pub channels: u32,
    /// Scheduler queues.
    pub queues: usize,
    /// QP contexts.
    pub qps: u32,
}

/// The default configuration: 2048 channels, 32 queues, 256 QPs, 512 bits (the sizes of
/// [`TxSetup::default`]).
pub const DEFAULT: PathVariant = PathVariant {
    name: "c2048_q256_w512",
    width: 512,
    channels: 2048,
    queues: 32,
    qps: 256,
};

/// The default configuration with 2048 QPs; built when `FERROCE_SIM_ALL=1`.
pub const DEFAULT_Q2048: PathVariant = PathVariant {
    name: "c2048_q2048_w512",
    qps: 2048,
    ..DEFAULT
};

/// The small configuration: 64 channels, 8 queues, 16 QPs, 64 bits.
pub const SMALL: PathVariant = PathVariant {
    name: "c64_q16_w64",
    width: 64,
    channels: 64,
    queues: 8,
    qps: 16,
};

impl PathVariant {
    /// The Verilator model's name.
    pub fn model_name(&self) -> String {
        format!("ferroce_tx_path_{}", self.name)
    }

    /// `setup` with this variant's channel, queue and QP counts.
    pub fn fit(&self, setup: &TxSetup) -> TxSetup {
        TxSetup {
            channels: self.channels,
            queues: self.queues,
            qps: self.qps,
            ..setup.clone()
        }
    }
}

/// The memory behind `m_read` / `s_pay`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryTiming {
    /// Cycles from a read command taken to its first data beat, at the earliest.
    pub latency: u64,
    /// Read commands in flight (taken, data not all returned) at most; `m_read_ready` is low
    /// while that many are.
    pub outstanding: usize,
    /// Percent chance per cycle that the memory holds the next data beat back.
    pub stall_pct: u32,
}

impl MemoryTiming {
    /// Data the cycle after the command, never stalled.
    pub const IMMEDIATE: MemoryTiming = MemoryTiming {
        latency: 1,
        outstanding: 64,
        stall_pct: 0,
    };
}

/// Everything around the path that can idle or push back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Surroundings {
    /// The memory.
    pub memory: MemoryTiming,
    /// Percent chance per cycle that the next post waits (0: posts back to back, the model's order).
    pub post_idle_pct: u32,
    /// Percent chance per cycle that the MAC holds `m_axis_tready` low.
    pub output_bp_pct: u32,
    /// Percent chance per cycle that the memory holds `m_read_ready` low.
    pub read_bp_pct: u32,
    /// Percent chance per cycle that the register file holds `cpl_ready` low.
    pub completion_bp_pct: u32,
    /// Seed of the random draws.
    pub seed: u64,
}

impl Surroundings {
    /// Nothing idles, nothing pushes back, memory answers at once.
    pub const FULL: Surroundings = Surroundings {
        memory: MemoryTiming::IMMEDIATE,
        post_idle_pct: 0,
        output_bp_pct: 0,
        read_bp_pct: 0,
        completion_bp_pct: 0,
        seed: 1,
    };
}

/// What a run measured besides the [`TxRun`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathFigures {
    /// Cycles from the first post taken to the last frame's last beat, plus one.
    pub cycles: u64,
    /// Cycle of the first output beat, counted from the first post taken.
    pub first_beat: Option<u64>,
    /// Output beats.
    pub beats: u64,
    /// Cycles between the first and the last output beat with `m_axis_tvalid` low.
    pub output_gaps: u64,
    /// Cycles `m_axis_tvalid` was low inside a frame ([`crate::axis::FrameSink::underflow_cycles`]).
    pub underflow_cycles: u64,
    /// Most read commands in flight at once.
    pub reads_in_flight: usize,
    /// The refusal counters, `PostError::ALL` order.
    pub refused: [u32; 7],
    /// Per frame in output order: its queue (`None`: the responder's ACK or NAK) and the cycle
    /// of its last beat (counted as `first_beat`).
    pub frame_ends: Vec<(Option<u8>, u64)>,
}

/// The TX path RTL as a [`TxEngine`].
#[derive(Debug, Clone)]
pub struct TxPathRtl {
    /// The variant run.
    pub variant: PathVariant,
    /// Its surroundings.
    pub surroundings: Surroundings,
    /// Per post (in order), the earliest cycle (counted from the first in which posts may be
    /// presented) at which it may be (a post during the decisions of earlier ones); posts
    /// beyond the list may be at once.
    pub release: Vec<u64>,
}

impl TxPathRtl {
    /// `variant` in `surroundings`, every post presented as early as it can be.
    pub fn new(variant: PathVariant, surroundings: Surroundings) -> TxPathRtl {
        TxPathRtl {
            variant,
            surroundings,
            release: Vec::new(),
        }
    }

    /// Runs `setup` (its sizes must be the variant's) on the path fresh from reset.
    pub fn run_measured(&self, setup: &TxSetup) -> Result<(TxRun, PathFigures), String> {
        setup.check().map_err(|e| e.to_string())?;
        let v = &self.variant;
        if (setup.channels, setup.queues, setup.qps) != (v.channels, v.queues, v.qps) {
            return Err(format!(
                "the RTL variant {} has {} channels, {} queues and {} QPs; the setup asks for {}, {} and {}",
                v.name, v.channels, v.queues, v.qps, setup.channels, setup.queues, setup.qps
            ));
        }
        run(v, setup, &self.surroundings, &self.release).map_err(|e| format!("{}: {e}", v.model_name()))
    }
}

impl TxEngine for TxPathRtl {
    fn run(&mut self, setup: &TxSetup) -> Result<TxRun, String> {
        self.run_measured(setup).map(|(run, figures)| TxRun {
            cycles: Some(figures.cycles),
            ..run
        })
    }
}

/// Percent chance per cycle that the next response waits: on average one is offered every 25
/// cycles, among the data frames of a run.
pub const RESPONSE_IDLE_PCT: u32 = 96;
/// Percent chance per cycle that the peer's next ACK waits.
pub const ACK_IDLE_PCT: u32 = 30;

/// Cycles without a post result, descriptor, output beat or completion after which the
/// transfers left are taken as never served (a queue that is never eligible): many decisions'
/// worth.
const QUIET_CYCLES: u64 = 2000;

/// The memory side: read commands in flight and the data beat presented (the runner's memory,
/// reused by the loopback's, `crate::loopback_rtl`).
pub struct Memory {
    timing: MemoryTiming,
    bytes_per_beat: usize,
    /// Per command taken: the cycle its data may start and its bytes.
    pending: VecDeque<(u64, Vec<u8>)>,
    /// Beat of the front command presented next.
    beat: usize,
    presenting: bool,
    most_in_flight: usize,
    ports: [usize; 5],
}

impl Memory {
    /// The memory behind `m`'s `s_pay_*` with `timing`, `bytes_per_beat` bytes a beat.
    pub fn new(m: &Model, timing: MemoryTiming, bytes_per_beat: usize) -> Result<Memory, SimError> {
        let p = |n: &str| m.port(n);
        Ok(Memory {
            timing,
            bytes_per_beat,
            pending: VecDeque::new(),
            beat: 0,
            presenting: false,
            most_in_flight: 0,
            ports: [
                p("s_pay_tvalid")?,
                p("s_pay_tready")?,
                p("s_pay_tdata")?,
                p("s_pay_tkeep")?,
                p("s_pay_tlast")?,
            ],
        })
    }

    /// Room for another command.
    pub fn room(&self) -> bool {
        self.pending.len() < self.timing.outstanding
    }

    /// Read commands in flight (taken, data not all returned) and the beat of the front one
    /// presented next: it changes with every command taken and every beat returned.
    pub fn in_flight(&self) -> (usize, usize) {
        (self.pending.len(), self.beat)
    }

    /// Drives `s_pay_tvalid` low (before a reset).
    pub fn idle(&mut self, m: &mut Model) {
        m.set_u64(self.ports[0], 0);
        self.presenting = false;
    }

    /// A read command taken: its `bytes` may be presented from cycle `ready_cycle` on.
    pub fn take_command(&mut self, ready_cycle: u64, bytes: Vec<u8>) {
        self.pending.push_back((ready_cycle, bytes));
        self.most_in_flight = self.most_in_flight.max(self.pending.len());
    }

    /// Drives `s_pay_*` for this cycle: the beat still waiting for `tready`, the next due one
    /// (unless stalled at random), or valid low.
    pub fn drive(&mut self, m: &mut Model, rng: &mut ChaCha8Rng, cycle: u64) {
        if self.presenting {
            return;
        }
        let [valid, _, data, keep, last] = self.ports;
        let due = self.pending.front().filter(|(ready, _)| *ready <= cycle);
        let stalled = self.timing.stall_pct > 0 && rng.gen_range(0..100) < self.timing.stall_pct;
        match due {
            Some((_, bytes)) if !stalled => {
                let k = self.bytes_per_beat;
                let chunk = &bytes[self.beat * k..bytes.len().min((self.beat + 1) * k)];
                let (d, e) = pack_beat(chunk, k);
                m.set_u64(valid, 1);
                m.set(data, &d);
                m.set(keep, &e);
                m.set_u64(last, u64::from((self.beat + 1) * k >= bytes.len()));
                self.presenting = true;
            }
            _ => m.set_u64(valid, 0),
        }
    }

    /// The handshake of this cycle (after [`Model::eval`]).
    pub fn sample(&mut self, m: &mut Model) {
        if !self.presenting || m.peek_u64(self.ports[1]) == 0 {
            return;
        }
        self.presenting = false;
        self.beat += 1;
        let len = self.pending.front().map_or(0, |(_, b)| b.len());
        if self.beat * self.bytes_per_beat >= len {
            self.pending.pop_front();
            self.beat = 0;
        }
    }
}

fn run(v: &PathVariant, setup: &TxSetup, s: &Surroundings, release: &[u64]) -> Result<(TxRun, PathFigures), Box<dyn std::error::Error>> {
    let name = v.model_name();
    let mut m = Model::new(&name)?;
    let rng = &mut ChaCha8Rng::seed_from_u64(s.seed);
    let bytes_per_beat = v.width / 8;
    let contexts: Vec<Vec<u32>> = (0..setup.qps)
        .map(|q| setup.context(q).to_words().map_err(|e| format!("context of QP {q}: {e}")))
        .collect::<Result<_, _>>()?;
    let posts: Vec<Vec<Vec<u32>>> = setup
        .posts
        .iter()
        .map(|p| p.to_words().map(|w| vec![w]).map_err(|e| format!("post: {e}")))
        .collect::<Result<_, _>>()?;
    let port = |n: &str| m.port(n);
    let (init_done, block_log2) = (port("init_done")?, port("cfg_block_log2")?);
    let (cfg_we, cfg_addr, cfg_wdata) = (port("sched_cfg_we")?, port("sched_cfg_addr")?, port("sched_cfg_wdata")?);
    let (result_valid, result_code) = (port("post_result_valid")?, port("post_result_code")?);
    let (index_port, entry_port) = (port("qp_read_index")?, port("qp_read_entry")?);
    let (packet_valid, packet_channel, packet_response) = (port("m_packet_valid")?, port("m_packet_channel")?, port("m_packet_response")?);
    let (tvalid, commit, post_valid) = (port("m_axis_tvalid")?, port("qp_commit_valid")?, port("post_valid")?);
    let counters: Vec<usize> = REFUSAL_COUNTERS.iter().map(|n| m.port(n)).collect::<Result<_, _>>()?;
    let ack_ports: Vec<usize> = ["s_ack_valid", "s_ack_qp", "s_ack_psn", "s_ack_syndrome"]
        .iter()
        .map(|n| m.port(n))
        .collect::<Result<_, _>>()?;
    let ack_ready = port("s_ack_ready")?;

    let mut post_source = RecordSource::new(&m, "post_valid", "post_ready", &["post_entry"], s.post_idle_pct)?;
    let responses: Vec<Vec<Vec<u32>>> = setup
        .responses
        .iter()
        .map(|r| vec![vec![r.qp], vec![r.psn], vec![r.aeth.encode()]])
        .collect();
    let mut response_source = RecordSource::new(
        &m,
        "s_resp_valid",
        "s_resp_ready",
        &["s_resp_qp", "s_resp_psn", "s_resp_aeth"],
        RESPONSE_IDLE_PCT,
    )?;
    // the READ responses, presented once every post has its result (the model enqueues them
    // after the posts)
    let read_responses: Vec<Vec<Vec<u32>>> = setup
        .read_responses
        .iter()
        .map(|r| {
            vec![
                vec![r.qp],
                vec![r.first_psn],
                vec![r.aeth.encode()],
                vec![r.va as u32, (r.va >> 32) as u32],
                vec![r.length],
            ]
        })
        .collect();
    let read_packets: usize = setup.read_responses.iter().map(|r| r.packet_count() as usize).sum();
    let mut read_source = RecordSource::new(
        &m,
        "s_read_valid",
        "s_read_ready",
        &["s_read_qp", "s_read_psn", "s_read_aeth", "s_read_va", "s_read_length"],
        0, // at once: the model enqueues each before the next decision
    )?;
    let read_queue = port("cfg_read_queue")?;
    m.set_u64(read_queue, u64::from(setup.read_response_queue));
    let mut reads = Channel::new(
        &m,
        "m_read",
        "m_read_valid",
        Some("m_read_ready"),
        &["m_read_addr", "m_read_len"],
        s.read_bp_pct,
    )?;
    let mut mac = FrameSink::new(&m, "m_axis", &[], s.output_bp_pct)?;
    let mut completions = Channel::completions(&m, s.completion_bp_pct)?;
    let mut memory = Memory::new(&m, s.memory, bytes_per_beat)?;

    // reset, the initializers, the scheduler's registers
    m.set_u64(commit, 0);
    m.set_u64(block_log2, u64::from(setup.block_log2));
    m.set_u64(memory.ports[0], 0);
    m.set_u64(post_valid, 0);
    m.set_u64(ack_ports[0], 0);
    // no READ tracker here: each READ request is taken at once
    let read_sent_ready = m.port("read_sent_ready")?;
    m.set_u64(read_sent_ready, 1);
    response_source.drive(&mut m, rng, &[]);
    read_source.drive(&mut m, rng, &[]);
    mac.always_ready(&mut m);
    completions.always_ready(&mut m);
    reads.always_ready(&mut m);
    m.reset(4);
    let mut waited = 0u64;
    while m.get_u64(init_done) == 0 {
        m.step(1);
        waited += 1;
        if waited > 1 << 18 {
            return Err("init_done never rose".into());
        }
    }
    let writes = setup
        .queue_config
        .iter()
        .map(|(&q, cfg)| (q, cfg.word()))
        .chain(std::iter::once((REG_LIMIT, u32::from(setup.limit))))
        .chain(setup.pace_costs.iter().map(|(&q, &cost)| (PACE_COST_ADDR + q, cost)));
    for (addr, word) in writes {
        m.set_u64(cfg_we, 1);
        m.set_u64(cfg_addr, u64::from(addr));
        m.set_u64(cfg_wdata, u64::from(word));
        m.step(1);
    }
    m.set_u64(cfg_we, 0);

    // channel → queue of its accepted post: a frame's queue from its channel
    let mut post_results: Vec<Result<(), PostError>> = Vec::with_capacity(posts.len());
    let mut queue_of_channel: HashMap<u16, (u8, u32)> = HashMap::new();
    // per descriptor taken, its transfer's queue and QP (None: a response): frames leave in
    // that order
    let mut packet_queues: VecDeque<Option<(u8, u32)>> = VecDeque::new();
    // the peer's ACKs: every RC request frame that left is acknowledged, `(QP, PSN)`
    let mut acks: VecDeque<(u32, u32)> = VecDeque::new();
    // the READ tracker's `done`: the QPs whose READ's response "came"
    let mut read_dones: VecDeque<u32> = VecDeque::new();
    let read_done_ports: Vec<usize> = ["read_done_valid", "read_done_ready", "read_done_qp"]
        .into_iter()
        .map(|p| m.port(p))
        .collect::<Result<_, _>>()?;
    // per frame that left, whether it is a response's (an ACK's or NAK's)
    let mut frame_is_response: Vec<bool> = Vec::new();
    // frames of READ responses that left
    let mut read_frames = 0usize;
    let mut queue_bytes = vec![0u64; setup.queues];
    let mut done: Vec<(u16, CompletionStatus)> = Vec::new();
    let mut context_reads: VecDeque<usize> = std::iter::repeat_n(0, QP_READ_LATENCY).collect();
    let mut figures = PathFigures::default();
    let (mut first_post, mut last_beat, mut gaps, mut last_progress) = (None::<u64>, 0u64, 0u64, 0u64);
    // the posts' and the READ responses' bytes and transfers
    let total_bytes: u64 = setup.posts.iter().map(|p| u64::from(p.length)).sum::<u64>()
        + setup.read_responses.iter().map(|r| u64::from(r.length)).sum::<u64>();
    let transfers = (setup.posts.len() + setup.read_responses.len()) as u64;
    let budget = 100_000 + 40 * (total_bytes / bytes_per_beat as u64 + 64 * transfers) + 20 * s.memory.latency;
    let mut cycle = 0u64;
    loop {
        let accepted = post_results.iter().filter(|r| r.is_ok()).count();
        let drained = post_results.len() == posts.len()
            && frame_is_response.iter().filter(|&&r| r).count() == responses.len()
            && read_frames == read_packets
            && packet_queues.is_empty()
            && acks.is_empty()
            && mac.pending_bytes() == 0;
        // every transfer completed, or the rest wait for a queue that is never served
        if drained && (done.len() == accepted || cycle - last_progress > QUIET_CYCLES + s.memory.latency) {
            break;
        }
        if cycle > budget {
            return Err(Box::new(SimError::Hang {
                model: name,
                cycles: cycle,
                sent: post_source.taken,
                received: mac.frames.len() as u64,
            }));
        }
        let released = release.get(post_source.next()).is_none_or(|&at| cycle >= at);
        post_source.drive(&mut m, rng, if released { &posts } else { &posts[..post_source.next()] });
        response_source.drive(&mut m, rng, &responses);
        let posted = post_results.len() == posts.len();
        read_source.drive(&mut m, rng, if posted { &read_responses } else { &[] });
        m.set(entry_port, &contexts[context_reads.pop_front().expect("read line")]);
        memory.drive(&mut m, rng, cycle);
        mac.drive(&mut m, rng);
        completions.drive(&mut m, rng);
        reads.drive(&mut m, rng);
        if !memory.room() {
            reads.hold(&mut m);
        }
        let ack = acks.front().copied().filter(|_| rng.gen_range(0..100) >= ACK_IDLE_PCT);
        m.set_u64(ack_ports[0], u64::from(ack.is_some()));
        if let Some((qp, psn)) = ack {
            m.set_u64(ack_ports[1], u64::from(qp));
            m.set_u64(ack_ports[2], u64::from(psn));
            m.set_u64(ack_ports[3], u64::from(Syndrome::ack().encode()));
        }
        let read_done = read_dones.front().copied();
        m.set_u64(read_done_ports[0], u64::from(read_done.is_some()));
        m.set_u64(read_done_ports[2], u64::from(read_done.unwrap_or(0)));
        m.eval();
        if ack.is_some() && m.peek_u64(ack_ready) != 0 {
            acks.pop_front();
            last_progress = cycle;
        }
        if read_done.is_some() && m.peek_u64(read_done_ports[1]) != 0 {
            read_dones.pop_front();
        }

        if post_source.sample(&mut m, cycle).is_some() {
            first_post.get_or_insert(cycle);
        }
        if response_source.sample(&mut m, cycle).is_some() {
            last_progress = cycle;
        }
        if read_source.sample(&mut m, cycle).is_some() {
            last_progress = cycle;
        }
        if m.peek_u64(result_valid) != 0 {
            let code = m.peek_u64(result_code) as u8;
            let index = post_results.len();
            let result = match code {
                0 => Ok(()),
                c => Err(PostError::from_code(c).ok_or_else(|| format!("post {index}: unknown refusal code {c}"))?),
            };
            if result.is_ok() {
                let post = &setup.posts[index];
                queue_of_channel.insert(post.channel, (post.queue, post.qp));
            }
            post_results.push(result);
            last_progress = cycle;
        }
        let index = m.peek_u64(index_port) as usize;
        context_reads.push_back(index.min(contexts.len() - 1));
        if m.peek_u64(packet_valid) != 0 {
            // the queue of the channel's transfer now: a channel is posted again only after
            // its transfer's last descriptor
            let channel = m.peek_u64(packet_channel) as u16;
            packet_queues.push_back(if m.peek_u64(packet_response) != 0 {
                None
            } else {
                Some(queue_of_channel.get(&channel).copied().unwrap_or((0, 0)))
            });
            last_progress = cycle;
        }
        if let Some(command) = reads.sample(&mut m, cycle)? {
            let (addr, len) = (crate::axis::value(&command[0]) as u64, command[1][0] as usize);
            memory.take_command(cycle + s.memory.latency, setup.memory.bytes(addr, len));
        }
        memory.sample(&mut m);
        let valid = m.peek_u64(tvalid) != 0;
        let frames_before = mac.frames.len();
        if mac.sample(&mut m, cycle)? {
            figures.beats += 1;
            last_beat = cycle;
            last_progress = cycle;
            if figures.first_beat.is_none() {
                figures.first_beat = Some(cycle - first_post.unwrap_or(0));
            }
        }
        if !valid && figures.first_beat.is_some() {
            gaps += 1;
        }
        if mac.frames.len() > frames_before {
            let transfer = packet_queues.pop_front().ok_or("a frame left without a descriptor before it")?;
            let frame = &mac.frames.last().expect("a frame left").bytes;
            if let Some((queue, qp)) = transfer {
                let parsed = crate::wire::RoceFrame::parse(frame).map_err(|e| format!("a request frame does not parse: {e:?}"))?;
                let bth = parsed.bth;
                if bth.opcode.operation().is_read_response() {
                    // the responder's: its queue is the READ responses', nothing acknowledges it
                    read_frames += 1;
                    queue_bytes[usize::from(setup.read_response_queue)] += frame.len() as u64;
                } else {
                    queue_bytes[usize::from(queue)] += frame.len() as u64;
                    if bth.opcode == crate::wire::Opcode::RC_READ_REQUEST {
                        let pmtu = setup.context(qp).path_mtu().ok_or("a READ on a QP without a PMTU")?;
                        let length = parsed.ext.reth.map_or(0, |r| r.dma_len);
                        let last = (bth.psn + crate::models::responder::read_packet_count(length, pmtu) - 1) & 0xFF_FFFF;
                        acks.push_back((qp, last));
                        read_dones.push_back(qp);
                    } else if bth.opcode.transport() == Transport::Rc {
                        acks.push_back((qp, bth.psn));
                    }
                }
            }
            frame_is_response.push(transfer.is_none());
            figures
                .frame_ends
                .push((transfer.map(|(queue, _)| queue), cycle - first_post.unwrap_or(0)));
        }
        if let Some(c) = completions.sample(&mut m, cycle)? {
            let status = CompletionStatus::from_code(c[1][0] as u8).ok_or_else(|| format!("completion status {}", c[1][0]))?;
            done.push((c[0][0] as u16, status));
            last_progress = cycle;
        }
        m.tick();
        cycle += 1;
    }
    for (slot, &p) in figures.refused.iter_mut().zip(&counters) {
        *slot = m.get_u64(p) as u32;
    }
    let start = first_post.unwrap_or(0);
    figures.cycles = if mac.frames.is_empty() { 0 } else { last_beat + 1 - start };
    // cycles counted after the last beat are not gaps between beats
    figures.output_gaps = gaps.saturating_sub(cycle - 1 - last_beat);
    figures.reads_in_flight = memory.most_in_flight;
    figures.underflow_cycles = mac.underflow_cycles;
    let (responses, frames): (Vec<_>, Vec<_>) = mac.frames.iter().zip(&frame_is_response).partition(|(_, &r)| r);
    let bytes = |frames: Vec<(&crate::axis::OutFrame, &bool)>| frames.into_iter().map(|(f, _)| f.bytes.clone()).collect();
    let run = TxRun {
        post_results,
        frames: bytes(frames),
        responses: bytes(responses),
        completions: done,
        queue_bytes,
        cycles: Some(figures.cycles),
    };
    Ok((run, figures))
}
