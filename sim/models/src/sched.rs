//! Cycle-accurate software model of the scheduler (`docs/sched.md`): shared-space FIFOs and the
//! QoS arbiter, with the tools that run on any [`SchedEngine`] (this model or the Verilator model
//! of `Sched<AW, Q>`): trace replay, fairness measurement and a closed-loop random co-simulation.
//!
//! # Cycle conventions
//!
//! Cycles are numbered from the first [`SchedEngine::step`] call after [`SchedEngine::reset`]:
//! that call is cycle 0.
//!
//! - **Reset.** `reset()` is one cycle with `reset` asserted (its inputs are irrelevant), then
//!   released. Every register takes its reset value: queues empty, no accepted request, register
//!   words `0x0100_0001`, L = 255, token levels 0, WRR `ptr` and `credit` 0, `hcount` 0, counters
//!   0, `deq_valid` 0. A freshly built [`SchedModel`] is in this state.
//! - **Initialisation.** The initializer clears one parity-RAM address per cycle: `init_done` is
//!   low in cycles `0..N` and high from cycle N on (N = 2^`node_bits`). In other words, after
//!   `reset()`, `step()` returns `init_done == false` for exactly N calls, then `true`. While it is
//!   low every `enq_ready` is low and `deq` is ignored; token buckets and register writes run as
//!   in any other cycle.
//! - **Outputs of a cycle.** `step(i)` returns the outputs seen during the cycle: `init_done`,
//!   `deq_*` and the counters are registers (they show the state at the start of the cycle);
//!   `enq_ready` is combinational: `enq_ready[r] = init_done && no requester below r is valid`.
//! - **Dequeue timing.** A decision made in cycle t (`init_done && deq` in cycle t) is on the
//!   outputs of cycle t + 2 ([`DECISION_LATENCY`]): `deq_valid` high, `deq_ok`, `deq_queue`,
//!   `deq_elem`. Decisions follow each other every cycle, each made from the queues with every
//!   earlier decision applied. In a cycle without a result, `deq_valid`, `deq_ok`, `deq_queue`
//!   and `deq_elem` are all 0. With `deq_ok == false` queue and element are 0.
//! - **Enqueue timing.** A request accepted in cycle t (valid and ready) is committed in cycle
//!   t + 1; a refusal shows on `cnt_dup` / `cnt_bad_queue` in cycle t + 2; the element can be
//!   dequeued by a decision in cycle t + 2 (its result on the outputs of t + 4).
//! - **Duplicate guard.** An element taken by the decision of cycle d is still "queued" for the
//!   commits of cycles d and d + 1 (refused as duplicates) and free from cycle d + 2 on (the
//!   cycle its result is on the outputs, so re-enqueuing it on sight always works).
//! - **Register writes** (`cfg` in cycle t) are used by the decisions and token buckets from
//!   cycle t + 1 on.
//!
//! # Port widths
//!
//! The model sees the inputs as the RTL ports do: `enq` queue numbers keep their low 5 bits,
//! elements their low `node_bits` bits, the register address its low 7 bits; `stall` bits at or
//! above Q are ignored.
//!
//! # Readings of `docs/sched.md`
//!
//! Where the page leaves a detail open, the model does this:
//! - A control decision (queue 0) leaves both WRR tables and `hcount` unchanged; a table's `ptr` and
//!   `credit` only change when that table serves.
//! - Token buckets update every cycle after reset, including during initialisation; register
//!   writes are also applied during initialisation. Token levels reset to 0.
//! - The starvation bound of a high-table queue is `Σ w_p + ⌊Σ w_p / (L + 1)⌋ + 1` decisions
//!   (when the low table is busy), not `Σ w_p + ⌈Σ w_p / (L + 1)⌉`: the page's count misses one low
//!   decision when L + 1 divides `Σ w_p` (a queue alone in the high table with L = 0 alternates
//!   with the low table, gap 1). See [`starvation_bound`].
//!
//! A consequence of the token update worth knowing: the level is clipped to `burst·256` in every
//! cycle without a service, so with burst 1 the fraction left after a service is lost as soon as
//! the level would exceed one token (rate 100 serves one decision in 3, not 100 in 256). Rates
//! are exact from burst 2 on. A served bucket is not clipped in that cycle; this only shows after
//! a write lowered the burst below the level (the level comes down to the new cap in the first
//! cycle the queue is not served).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::fmt;

// ---------------------------------------------------------------------------------------------
// Configuration and register map
// ---------------------------------------------------------------------------------------------

/// Enqueue requesters (ports `enq0_*` .. `enq3_*`); requester 0 has the highest priority.
pub const REQUESTERS: usize = 4;
/// Largest number of queues (the queue fields are 5 bits wide).
pub const MAX_QUEUES: usize = crate::contracts::sched::MAX_QUEUES;
/// The control queue: strict priority over the data queues.
pub const CONTROL_QUEUE: u32 = 0;
/// Register address of the limit of high priority L (bits 7:0).
pub const REG_LIMIT: u32 = crate::contracts::sched::HIGH_LIMIT_ADDR;
/// Width mask of `cfg_addr` (7 bits).
pub const CFG_ADDR_MASK: u32 = 0x7f;
/// Reset value of every queue configuration word: weight 1, high table, no rate limit.
pub const QUEUE_CFG_RESET: u32 = crate::contracts::sched::QUEUE_CONFIG_RESET;
/// Reset value of the limit of high priority L.
pub const LIMIT_RESET: u8 = crate::contracts::sched::HIGH_LIMIT_RESET as u8;
/// Bit position of the weight field (bits 7:0) of a queue configuration word.
pub const CFG_WEIGHT_SHIFT: u32 = 0;
/// Bit position of the token rate field (bits 15:8, in 1/256 token per cycle).
pub const CFG_RATE_SHIFT: u32 = 8;
/// Bit position of the burst field (bits 23:16, in whole tokens).
pub const CFG_BURST_SHIFT: u32 = 16;
/// Bit 24: the queue is in the high-priority table.
pub const CFG_HIGH: u32 = 1 << 24;
/// Bit 25: the queue's token bucket is enabled.
pub const CFG_TB_EN: u32 = 1 << 25;
/// One whole token in the 8.8 fixed-point token level.
pub const TOKEN: u32 = 256;
/// Cycles from a decision (`deq` in cycle t) to its result on the outputs (cycle t + 2).
pub const DECISION_LATENCY: usize = 2;

/// Builds a queue configuration word (register address = queue number).
pub fn cfg_word(weight: u8, rate: u8, burst: u8, high: bool, tb_en: bool) -> u32 {
    QueueCfg {
        weight,
        rate,
        burst,
        high,
        tb_en,
    }
    .word()
}

/// The fields of a queue configuration word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueCfg {
    /// WRR weight, 0 takes the queue out of arbitration (ignored for queue 0).
    pub weight: u8,
    /// Tokens added per cycle, in 1/256 token.
    pub rate: u8,
    /// Bucket capacity in whole tokens (use ≥ 2 for an exact rate: see the module documentation).
    pub burst: u8,
    /// High-priority table (ignored for queue 0).
    pub high: bool,
    /// Token bucket enabled: the queue is only eligible with at least one whole token.
    pub tb_en: bool,
}

impl QueueCfg {
    /// Decodes a register word (bits above 25 are ignored).
    pub fn from_word(w: u32) -> QueueCfg {
        QueueCfg {
            weight: (w >> CFG_WEIGHT_SHIFT) as u8,
            rate: (w >> CFG_RATE_SHIFT) as u8,
            burst: (w >> CFG_BURST_SHIFT) as u8,
            high: w & CFG_HIGH != 0,
            tb_en: w & CFG_TB_EN != 0,
        }
    }

    /// Encodes the register word.
    pub fn word(&self) -> u32 {
        (self.weight as u32) << CFG_WEIGHT_SHIFT
            | (self.rate as u32) << CFG_RATE_SHIFT
            | (self.burst as u32) << CFG_BURST_SHIFT
            | if self.high { CFG_HIGH } else { 0 }
            | if self.tb_en { CFG_TB_EN } else { 0 }
    }
}

impl Default for QueueCfg {
    /// The reset value, [`QUEUE_CFG_RESET`].
    fn default() -> Self {
        QueueCfg::from_word(QUEUE_CFG_RESET)
    }
}

/// Size of a scheduler instance: N = 2^`node_bits` elements, `queues` queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SchedConfig {
    /// AW: elements are numbered `0..2^node_bits` (1..=20).
    pub node_bits: u32,
    /// Q: queues `0..queues` (1..=32); queue 0 is the control queue.
    pub queues: usize,
}

impl Default for SchedConfig {
    /// The default top `ferroce_sched_n2048_q32`: 2048 nodes, 32 queues.
    fn default() -> Self {
        SchedConfig { node_bits: 11, queues: 32 }
    }
}

impl SchedConfig {
    /// The small top `ferroce_sched_n64_q5`: 64 nodes, 5 queues.
    pub const SMALL: SchedConfig = SchedConfig { node_bits: 6, queues: 5 };

    /// Number of nodes (elements) N = 2^`node_bits` (0 if `node_bits` does not fit a `usize`,
    /// which [`SchedConfig::check`] rejects).
    pub fn nodes(&self) -> usize {
        1usize.checked_shl(self.node_bits).unwrap_or(0)
    }

    /// Checks that the configuration can be built: `node_bits` in 1..=20, `queues` in 1..=32.
    pub fn check(&self) -> Result<(), ConfigError> {
        if !(1..=20).contains(&self.node_bits) {
            return Err(ConfigError(format!("node_bits {} is out of range (1..=20)", self.node_bits)));
        }
        if !(1..=MAX_QUEUES).contains(&self.queues) {
            return Err(ConfigError(format!("{} queues is out of range (1..=32)", self.queues)));
        }
        Ok(())
    }

    fn elem_mask(&self) -> u32 {
        (self.nodes() as u32).wrapping_sub(1)
    }
}

/// An invalid [`SchedConfig`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid scheduler configuration: {}", self.0)
    }
}

impl std::error::Error for ConfigError {}

// ---------------------------------------------------------------------------------------------
// Engine interface
// ---------------------------------------------------------------------------------------------

/// The inputs of one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SchedIn {
    /// Requester r is valid with `(queue, element)` (ports `enq{r}_valid/_queue/_elem`).
    pub enq: [Option<(u32, u32)>; REQUESTERS],
    /// `deq_req`: make one arbiter decision this cycle.
    pub deq: bool,
    /// Bit q: queue q's head cannot be served now.
    pub stall: u32,
    /// A register write `(cfg_addr, cfg_wdata)` (`cfg_we` high).
    pub cfg: Option<(u32, u32)>,
}

/// The outputs of one cycle (see the module documentation for their timing).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SchedOut {
    /// The initializer is done (low for N cycles after reset).
    pub init_done: bool,
    /// Combinational: `init_done` and no requester with a lower index is valid.
    pub enq_ready: [bool; REQUESTERS],
    /// A decision was made two cycles earlier ([`DECISION_LATENCY`]).
    pub deq_valid: bool,
    /// The decision served a queue (0 with `deq_valid`: nothing was eligible).
    pub deq_ok: bool,
    /// The served queue (0 unless `deq_ok`).
    pub deq_queue: u32,
    /// The served element (0 unless `deq_ok`).
    pub deq_elem: u32,
    /// Enqueues refused because the element was already queued (wrapping).
    pub cnt_dup: u32,
    /// Enqueues refused because the queue number was ≥ Q (wrapping).
    pub cnt_bad_queue: u32,
}

/// A scheduler that can be stepped cycle by cycle: [`SchedModel`] or the Verilator model.
pub trait SchedEngine {
    /// One cycle with `reset` asserted, then released; the N-cycle initialisation follows (the
    /// next N `step` calls return `init_done == false`).
    fn reset(&mut self);
    /// Applies `i` for one cycle, returns the outputs seen during that cycle, then clocks.
    fn step(&mut self, i: &SchedIn) -> SchedOut;
    /// The size of this instance.
    fn config(&self) -> SchedConfig;
}

// ---------------------------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------------------------

/// State of one WRR table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Wrr {
    ptr: u32,
    credit: u8,
}

/// The registered dequeue outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct DeqReg {
    valid: bool,
    ok: bool,
    queue: u32,
    elem: u32,
}

const LOW: usize = 0;
const HIGH: usize = 1;

/// The cycle-accurate software model of the scheduler.
///
/// Queues are kept as `VecDeque`s plus a per-element "queued in" table; the result is the same as
/// the RTL's linked lists and parity RAMs at every cycle boundary. See the module documentation
/// for the cycle conventions.
#[derive(Clone, Debug)]
pub struct SchedModel {
    cfg: SchedConfig,
    /// Initialisation cycles still to run; `init_done` is `init_left == 0`.
    init_left: u64,
    queues: Vec<VecDeque<u32>>,
    /// The queue each element is in.
    home: Vec<Option<u8>>,
    /// The request accepted in the previous cycle, committed in this one.
    pending: Option<(u32, u32)>,
    words: Vec<u32>,
    limit: u8,
    level: Vec<u16>,
    tables: [Wrr; 2],
    hcount: u16,
    /// The results of the decisions of the two previous cycles: `[0]` is on the outputs now.
    deq: [DeqReg; DECISION_LATENCY],
    /// The element taken by the previous cycle's decision: still "queued" for this cycle's commit.
    taken: Option<u32>,
    cnt_dup: u32,
    cnt_bad_queue: u32,
    /// Token buckets built (false models `ferroce_sched_n2048_q32_notb`: bit 25 of the queue
    /// words is ignored and every level stays 0).
    token_buckets: bool,
}

impl SchedModel {
    /// A model of the scheduler built without token buckets
    /// (`Sched::without_token_buckets`, the `_notb` tops).
    pub fn without_token_buckets(cfg: SchedConfig) -> Result<SchedModel, ConfigError> {
        let mut m = SchedModel::new(cfg)?;
        m.token_buckets = false;
        Ok(m)
    }

    /// A model of `cfg`, in the state right after [`SchedEngine::reset`].
    pub fn new(cfg: SchedConfig) -> Result<SchedModel, ConfigError> {
        cfg.check()?;
        let mut m = SchedModel {
            cfg,
            init_left: 0,
            queues: vec![VecDeque::new(); cfg.queues],
            home: vec![None; cfg.nodes()],
            pending: None,
            words: vec![QUEUE_CFG_RESET; cfg.queues],
            limit: LIMIT_RESET,
            level: vec![0; cfg.queues],
            tables: [Wrr::default(); 2],
            hcount: 0,
            deq: [DeqReg::default(); DECISION_LATENCY],
            taken: None,
            cnt_dup: 0,
            cnt_bad_queue: 0,
            token_buckets: true,
        };
        m.reset();
        Ok(m)
    }

    /// The elements of queue `q`, head first (empty for q ≥ Q).
    pub fn queue(&self, q: usize) -> Vec<u32> {
        self.queues.get(q).map(|d| d.iter().copied().collect()).unwrap_or_default()
    }

    /// The queue element `e` is in, if any.
    pub fn home(&self, e: u32) -> Option<u32> {
        self.home.get(e as usize).copied().flatten().map(u32::from)
    }

    /// Elements queued in all queues.
    pub fn occupancy(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }

    /// Token level of queue `q` (8.8 fixed point; 0 for q ≥ Q).
    pub fn token_level(&self, q: usize) -> u16 {
        self.level.get(q).copied().unwrap_or(0)
    }

    /// The `hcount` register.
    pub fn hcount(&self) -> u16 {
        self.hcount
    }

    fn qcfg(&self, q: usize) -> QueueCfg {
        let mut c = QueueCfg::from_word(self.words[q]);
        c.tb_en &= self.token_buckets;
        c
    }

    /// Eligible at the start of the cycle: non-empty, not stalled, a whole token if limited.
    fn eligible(&self, q: usize, stall: u32) -> bool {
        let c = self.qcfg(q);
        !self.queues[q].is_empty() && stall >> q & 1 == 0 && (!c.tb_en || self.level[q] as u32 >= TOKEN)
    }

    /// One arbiter decision: the queue to serve, with the arbiter state updated.
    fn arbitrate(&mut self, stall: u32) -> Option<usize> {
        if self.eligible(CONTROL_QUEUE as usize, stall) {
            return Some(CONTROL_QUEUE as usize);
        }
        let mut mask = [0u32; 2];
        for q in 1..self.cfg.queues {
            let c = self.qcfg(q);
            if c.weight > 0 && self.eligible(q, stall) {
                mask[usize::from(c.high)] |= 1 << q;
            }
        }
        let (hi, lo) = (mask[HIGH] != 0, mask[LOW] != 0);
        let table = if hi && (!lo || self.hcount <= u16::from(self.limit)) {
            if lo {
                self.hcount += 1;
            }
            HIGH
        } else if lo {
            self.hcount = 0;
            LOW
        } else {
            return None;
        };
        Some(self.wrr(table, mask[table]))
    }

    /// The WRR step of `table` over the non-empty mask `e` of eligible, non-zero-weight queues.
    fn wrr(&mut self, table: usize, e: u32) -> usize {
        let qn = self.cfg.queues as u32;
        let Wrr { ptr, credit } = self.tables[table];
        if e >> ptr & 1 == 1 && credit > 0 {
            self.tables[table].credit = credit - 1;
            return ptr as usize;
        }
        let next = (1..=qn).map(|k| (ptr + k) % qn).find(|&c| e >> c & 1 == 1).unwrap_or(ptr);
        let w = self.qcfg(next as usize).weight;
        self.tables[table] = Wrr {
            ptr: next,
            credit: w.saturating_sub(1),
        };
        next as usize
    }
}

impl SchedEngine for SchedModel {
    fn reset(&mut self) {
        self.init_left = self.cfg.nodes() as u64;
        self.queues.iter_mut().for_each(VecDeque::clear);
        self.home.iter_mut().for_each(|h| *h = None);
        self.pending = None;
        self.words.iter_mut().for_each(|w| *w = QUEUE_CFG_RESET);
        self.limit = LIMIT_RESET;
        self.level.iter_mut().for_each(|l| *l = 0);
        self.tables = [Wrr::default(); 2];
        self.hcount = 0;
        self.deq = [DeqReg::default(); DECISION_LATENCY];
        self.taken = None;
        self.cnt_dup = 0;
        self.cnt_bad_queue = 0;
    }

    fn step(&mut self, i: &SchedIn) -> SchedOut {
        let init_done = self.init_left == 0;
        let mut out = SchedOut {
            init_done,
            enq_ready: [false; REQUESTERS],
            deq_valid: self.deq[0].valid,
            deq_ok: self.deq[0].ok,
            deq_queue: self.deq[0].queue,
            deq_elem: self.deq[0].elem,
            cnt_dup: self.cnt_dup,
            cnt_bad_queue: self.cnt_bad_queue,
        };
        let mut lower_valid = false;
        for (r, req) in i.enq.iter().enumerate() {
            out.enq_ready[r] = init_done && !lower_valid;
            lower_valid |= req.is_some();
        }

        // 1. Decision, from the state at the start of the cycle.
        let mut deq_next = DeqReg::default();
        let mut served = None;
        if init_done && i.deq {
            deq_next.valid = true;
            if let Some(q) = self.arbitrate(i.stall) {
                let e = self.queues[q].pop_front().expect("the arbiter only picks non-empty queues");
                served = Some((q, e));
                deq_next = DeqReg {
                    valid: true,
                    ok: true,
                    queue: q as u32,
                    elem: e,
                };
            }
        }

        // 2. Commit of the request accepted in the previous cycle. `home` still marks the element
        // popped above and the one the previous decision took, so both are refused; appended
        // after the pop.
        if let Some((q, e)) = self.pending.take() {
            if q as usize >= self.cfg.queues {
                self.cnt_bad_queue = self.cnt_bad_queue.wrapping_add(1);
            } else if self.home[e as usize].is_some() {
                self.cnt_dup = self.cnt_dup.wrapping_add(1);
            } else {
                self.queues[q as usize].push_back(e);
                self.home[e as usize] = Some(q as u8);
            }
        }
        // The element the previous decision took leaves the duplicate guard; this decision's
        // element stays in it for one more cycle.
        if let Some(e) = self.taken.take() {
            self.home[e as usize] = None;
        }
        self.taken = served.map(|(_, e)| e);

        // 3. Enqueue accept: the lowest valid requester.
        self.pending = if init_done {
            i.enq
                .iter()
                .flatten()
                .next()
                .map(|&(q, e)| (q & (MAX_QUEUES as u32 - 1), e & self.cfg.elem_mask()))
        } else {
            None
        };

        // 4. Token buckets, with the configuration of the start of the cycle.
        for q in 0..self.cfg.queues {
            let c = self.qcfg(q);
            let l = u32::from(self.level[q]) + u32::from(c.rate);
            let l = if c.tb_en && served.is_some_and(|(s, _)| s == q) {
                // Served with the bucket enabled implies level ≥ 256 at the start of the cycle;
                // no clip in this cycle.
                l - TOKEN
            } else {
                l.min(u32::from(c.burst) * TOKEN)
            };
            self.level[q] = if self.token_buckets { l as u16 } else { 0 };
        }

        // 5. Register write, effective next cycle.
        if let Some((addr, data)) = i.cfg {
            let a = addr & CFG_ADDR_MASK;
            if (a as usize) < self.cfg.queues {
                self.words[a as usize] = data;
            } else if a == REG_LIMIT {
                self.limit = data as u8;
            }
        }

        self.init_left = self.init_left.saturating_sub(1);
        self.deq.rotate_left(1);
        self.deq[DECISION_LATENCY - 1] = deq_next;
        out
    }

    fn config(&self) -> SchedConfig {
        self.cfg
    }
}

/// Resets `engine` and steps idle cycles until `init_done` is seen (that cycle included).
/// Returns the number of cycles stepped; fails after 2N + 64 cycles.
pub fn reset_and_init(engine: &mut dyn SchedEngine) -> Result<u64, String> {
    engine.reset();
    let limit = 2 * engine.config().nodes() as u64 + 64;
    for c in 1..=limit {
        if engine.step(&SchedIn::default()).init_done {
            return Ok(c);
        }
    }
    Err(format!("init_done did not rise within {limit} cycles after reset"))
}

// ---------------------------------------------------------------------------------------------
// Trace replay
// ---------------------------------------------------------------------------------------------

/// One line of a scheduler trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceOp {
    /// `enq <queue> <element>`: requester 0 for one cycle, then one idle cycle.
    Enq {
        /// The queue.
        queue: u32,
        /// The element enqueued.
        elem: u32,
    },
    /// `deq`: one decision; prints `<queue> <element>` or `empty`.
    Deq,
    /// `weight <queue> <w>`: writes the queue's word with weight w, other fields kept.
    Weight {
        /// The queue.
        queue: u32,
        /// Its new weight.
        w: u8,
    },
    /// `tick <cycles>`: idle cycles.
    Tick(u64),
}

/// A bad trace line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for TraceError {}

fn number(field: &str, what: &str) -> Result<u64, String> {
    if field.is_empty() || !field.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{what} '{field}' is not a decimal number"));
    }
    field.parse().map_err(|_| format!("{what} '{field}' is too large"))
}

fn ranged(field: &str, what: &str, end: u64) -> Result<u32, String> {
    let v = number(field, what)?;
    if v >= end {
        return Err(format!("{what} {v} is out of range (0..={})", end - 1));
    }
    Ok(v as u32)
}

fn parse_line(f: &[&str], cfg: &SchedConfig) -> Result<TraceOp, String> {
    let arity = |n: usize, usage: &str| {
        if f.len() - 1 == n {
            Ok(())
        } else {
            Err(format!(
                "`{}` takes {n} field{}: {usage} (found {})",
                f[0],
                if n == 1 { "" } else { "s" },
                f.len() - 1
            ))
        }
    };
    let queue = |s: &str| ranged(s, "queue", MAX_QUEUES as u64);
    match f[0] {
        "enq" => {
            arity(2, "enq <queue> <element>")?;
            Ok(TraceOp::Enq {
                queue: queue(f[1])?,
                elem: ranged(f[2], "element", cfg.nodes() as u64)?,
            })
        }
        "deq" => {
            if f.len() > 1 {
                return Err(format!("`deq` takes no field (found {})", f.len() - 1));
            }
            Ok(TraceOp::Deq)
        }
        "weight" => {
            arity(2, "weight <queue> <w>")?;
            let q = queue(f[1])?;
            if q == CONTROL_QUEUE {
                return Err("queue 0 is the control queue: it has no weight".into());
            }
            Ok(TraceOp::Weight {
                queue: q,
                w: ranged(f[2], "weight", 256)? as u8,
            })
        }
        "tick" => {
            arity(1, "tick <cycles>")?;
            Ok(TraceOp::Tick(number(f[1], "cycle count")?))
        }
        k => Err(format!("unknown keyword '{k}' (expected enq, deq, weight or tick)")),
    }
}

/// Parses a trace (`docs/sched.md`, "Trace replay"): one `enq <queue> <element>`, `deq`,
/// `weight <queue> <w>` or `tick <cycles>` per line, decimal numbers, fields separated by blanks;
/// `#` starts a comment (whole line or after a command); blank lines are skipped.
///
/// Rejected, with the 1-based line number: unknown keywords, missing or extra fields, numbers
/// that are not decimal, queue ≥ 32 (the width of the queue field; a queue between Q and 31 of a
/// smaller configuration is valid and refused by the scheduler), element ≥ N, weight > 255,
/// `weight 0 …` (the control queue has no weight).
pub fn parse_trace(text: &str, cfg: &SchedConfig) -> Result<Vec<TraceOp>, TraceError> {
    let mut ops = Vec::new();
    for (idx, raw) in text.lines().enumerate() {
        let content = raw.split_once('#').map_or(raw, |(c, _)| c);
        let fields: Vec<&str> = content.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        ops.push(parse_line(&fields, cfg).map_err(|message| TraceError { line: idx + 1, message })?);
    }
    Ok(ops)
}

/// Which of the last [`DECISION_LATENCY`] cycles asked for a decision: `[0]`'s result is on
/// the outputs of the coming cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ResultsDue([bool; DECISION_LATENCY]);

impl ResultsDue {
    /// Steps one cycle in which a decision was (`deq`) or was not asked for; returns whether a
    /// result is on the outputs of this cycle.
    fn step(&mut self, deq: bool) -> bool {
        let due = self.0[0];
        self.0.rotate_left(1);
        self.0[DECISION_LATENCY - 1] = deq;
        due
    }

    fn any(&self) -> bool {
        self.0.iter().any(|&d| d)
    }

    /// Whether a result is on the outputs of the coming cycle.
    fn now(&self) -> bool {
        self.0[0]
    }
}

/// Drives an engine and collects the result of each `deq` [`DECISION_LATENCY`] cycles after it.
struct TraceRunner<'a> {
    engine: &'a mut dyn SchedEngine,
    due: ResultsDue,
    lines: Vec<String>,
}

impl TraceRunner<'_> {
    fn cycle(&mut self, i: SchedIn) {
        let o = self.engine.step(&i);
        if self.due.step(i.deq) {
            self.lines.push(match (o.deq_valid, o.deq_ok) {
                (true, true) => format!("{} {}", o.deq_queue, o.deq_elem),
                (true, false) => "empty".into(),
                (false, _) => "no result (deq_valid low)".into(),
            });
        }
    }
}

/// Replays `ops` on `engine`: reset, idle cycles until `init_done` is seen, then the cycles of
/// each line as in `docs/sched.md` (enq: 2 cycles, deq: 1, weight: 1, tick n: n). The result of a
/// `deq` is read on the outputs [`DECISION_LATENCY`] cycles later, whatever the next lines are
/// (idle cycles after the last line until every result is read). Returns one line per `deq`: `"<queue> <element>"` or `"empty"` (or
/// `"no result (deq_valid low)"` from an engine that breaks the dequeue timing).
///
/// A `weight` line writes the queue's whole configuration word: weight w and the other fields
/// of the runner's copy of the word (reset value [`QUEUE_CFG_RESET`], updated by each `weight`).
///
/// # Panics
///
/// If the engine does not raise `init_done` within 2N + 64 cycles of reset.
pub fn run_trace(engine: &mut dyn SchedEngine, ops: &[TraceOp]) -> Vec<String> {
    if let Err(e) = reset_and_init(engine) {
        panic!("run_trace: {e}");
    }
    let mut words = [QUEUE_CFG_RESET; MAX_QUEUES];
    let mut run = TraceRunner {
        engine,
        due: ResultsDue::default(),
        lines: Vec::new(),
    };
    for op in ops {
        match *op {
            TraceOp::Enq { queue, elem } => {
                let mut i = SchedIn::default();
                i.enq[0] = Some((queue, elem));
                run.cycle(i);
                run.cycle(SchedIn::default());
            }
            TraceOp::Deq => run.cycle(SchedIn {
                deq: true,
                ..SchedIn::default()
            }),
            TraceOp::Weight { queue, w } => {
                let slot = &mut words[queue as usize % MAX_QUEUES];
                *slot = (*slot & !(0xff << CFG_WEIGHT_SHIFT)) | u32::from(w) << CFG_WEIGHT_SHIFT;
                run.cycle(SchedIn {
                    cfg: Some((queue, *slot)),
                    ..SchedIn::default()
                });
            }
            TraceOp::Tick(n) => (0..n).for_each(|_| run.cycle(SchedIn::default())),
        }
    }
    while run.due.any() {
        run.cycle(SchedIn::default());
    }
    run.lines
}

// ---------------------------------------------------------------------------------------------
// Fairness
// ---------------------------------------------------------------------------------------------

/// What [`fairness`] measured for one queue.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueShare {
    /// The queue.
    pub queue: u32,
    /// Decisions that served it.
    pub served: usize,
    /// `served / decisions`.
    pub share: f64,
    /// The largest number of decisions strictly between two consecutive services of the queue
    /// (`None` if it was served fewer than twice).
    pub max_gap: Option<u64>,
}

/// The result of [`fairness`].
#[derive(Clone, Debug, PartialEq)]
pub struct FairnessReport {
    /// Decisions measured (fewer than requested only if the engine dropped results).
    pub decisions: usize,
    /// Decisions with nothing eligible (0 for a correct engine: every queue stays non-empty).
    pub empty: usize,
    /// Decisions that served a queue not in the list (0 for a correct engine).
    pub other: usize,
    /// One entry per configured queue, in the order given.
    pub queues: Vec<QueueShare>,
}

impl FairnessReport {
    /// The entry of `queue`.
    pub fn get(&self, queue: u32) -> Option<&QueueShare> {
        self.queues.iter().find(|s| s.queue == queue)
    }
}

/// Elements per queue [`saturated_run`] keeps in flight: a served element can be served again 4
/// cycles after its decision (result in 2, re-enqueue request, commit), so 5 keep a queue served
/// every cycle non-empty.
const FAIR_MIN_PER_QUEUE: usize = 5;
const FAIR_PER_QUEUE: usize = 8;

/// Runs the arbiter with saturated queues on any engine; returns the queue each decision served
/// (`None`: nothing was eligible).
///
/// Resets the engine, waits for `init_done`, writes each listed queue's word
/// (`cfg_word(weight, 0, 0, high, false)`, one write per cycle) and L, puts 8 distinct elements
/// in each listed queue (fewer if the pool is small, at least 5), then requests one decision per
/// cycle for `decisions` cycles. Each served element is re-enqueued to its queue on requester 0
/// as soon as its result is seen (4 cycles after its decision it can be served again), so every
/// listed queue stays non-empty. Queue 0 may be listed (control class: its weight and table are
/// ignored). No stall, no token bucket; unlisted queues stay empty.
///
/// # Panics
///
/// If a listed queue is ≥ Q or listed twice, if the pool holds fewer than 5 elements per listed
/// queue, or if the engine never raises `init_done`.
pub fn saturated_run(engine: &mut dyn SchedEngine, weights: &[(u32, u8, bool)], limit: u8, decisions: usize) -> Vec<Option<u32>> {
    let words: Vec<(u32, u32)> = weights.iter().map(|&(q, w, high)| (q, cfg_word(w, 0, 0, high, false))).collect();
    saturated_words(engine, &words, limit, decisions)
}

/// [`saturated_run`] with whole configuration words `(queue, word)` (token buckets allowed).
fn saturated_words(engine: &mut dyn SchedEngine, words: &[(u32, u32)], limit: u8, decisions: usize) -> Vec<Option<u32>> {
    let cfg = engine.config();
    for (k, &(q, _)) in words.iter().enumerate() {
        assert!(
            (q as usize) < cfg.queues,
            "saturated_run: queue {q} is out of range (Q = {})",
            cfg.queues
        );
        assert!(words[..k].iter().all(|&(p, _)| p != q), "saturated_run: queue {q} is listed twice");
    }
    let per = if words.is_empty() {
        0
    } else {
        (cfg.nodes() / words.len()).min(FAIR_PER_QUEUE)
    };
    assert!(
        words.is_empty() || per >= FAIR_MIN_PER_QUEUE,
        "saturated_run: {} nodes cannot keep {} queues saturated",
        cfg.nodes(),
        words.len()
    );
    if let Err(e) = reset_and_init(engine) {
        panic!("saturated_run: {e}");
    }
    let idle = SchedIn::default();
    for &(q, w) in words {
        engine.step(&SchedIn {
            cfg: Some((q, w)),
            ..idle.clone()
        });
    }
    engine.step(&SchedIn {
        cfg: Some((REG_LIMIT, u32::from(limit))),
        ..idle.clone()
    });

    // Fill, then keep re-enqueuing served elements (held on requester 0 until accepted).
    let mut to_enq: VecDeque<(u32, u32)> = VecDeque::new();
    for (k, &(q, _)) in words.iter().enumerate() {
        to_enq.extend((0..per).map(|j| (q, (k * per + j) as u32)));
    }
    while !to_enq.is_empty() {
        let mut i = idle.clone();
        i.enq[0] = to_enq.front().copied();
        if engine.step(&i).enq_ready[0] {
            to_enq.pop_front();
        }
    }
    engine.step(&idle); // commit of the last one

    let mut seq = Vec::with_capacity(decisions);
    let mut issued = 0usize;
    // A correct engine answers every decision DECISION_LATENCY cycles later; allow a few more.
    let mut budget = decisions as u64 + 16;
    while seq.len() < decisions && budget > 0 {
        budget -= 1;
        let mut i = SchedIn {
            deq: issued < decisions,
            ..idle.clone()
        };
        i.enq[0] = to_enq.front().copied();
        let o = engine.step(&i);
        issued += usize::from(i.deq);
        if i.enq[0].is_some() && o.enq_ready[0] {
            to_enq.pop_front();
        }
        if o.deq_valid {
            if o.deq_ok {
                to_enq.push_back((o.deq_queue, o.deq_elem));
                seq.push(Some(o.deq_queue));
            } else {
                seq.push(None);
            }
        }
    }
    seq
}

/// Measures shares and gaps with saturated queues on any engine: [`saturated_run`] summarised.
///
/// # Panics
///
/// As [`saturated_run`].
pub fn fairness(engine: &mut dyn SchedEngine, weights: &[(u32, u8, bool)], limit: u8, decisions: usize) -> FairnessReport {
    let seq = saturated_run(engine, weights, limit, decisions);
    let mut served = vec![0usize; weights.len()];
    let mut last: Vec<Option<u64>> = vec![None; weights.len()];
    let mut gap: Vec<Option<u64>> = vec![None; weights.len()];
    let (mut empty, mut other) = (0usize, 0usize);
    for (d, s) in seq.iter().enumerate() {
        let d = d as u64;
        let Some(q) = *s else {
            empty += 1;
            continue;
        };
        match weights.iter().position(|&(p, _, _)| p == q) {
            Some(k) => {
                served[k] += 1;
                if let Some(p) = last[k] {
                    gap[k] = Some(gap[k].map_or(d - p - 1, |g| g.max(d - p - 1)));
                }
                last[k] = Some(d);
            }
            None => other += 1,
        }
    }
    FairnessReport {
        decisions: seq.len(),
        empty,
        other,
        queues: weights
            .iter()
            .enumerate()
            .map(|(k, &(q, _, _))| QueueShare {
                queue: q,
                served: served[k],
                share: if seq.is_empty() { 0.0 } else { served[k] as f64 / seq.len() as f64 },
                max_gap: gap[k],
            })
            .collect(),
    }
}

/// The largest number of decisions between two consecutive services of `queue` when the listed
/// queues are saturated (always eligible), there is no stall and no token bucket.
///
/// With `S` = the sum of the weights of the *other* queues of `queue`'s table (weight > 0) and
/// L = `limit`:
/// - high table: `S` + (if the low table has a queue) `⌊S / (L + 1)⌋ + 1`. The high table is
///   served in runs of L + 1 decisions separated by one low decision, so the S + 1 slots between
///   the S + 2 high decisions that bracket the gap hold at most `⌈(S + 1) / (L + 1)⌉` lows.
///   (`docs/sched.md` states `⌈S / (L + 1)⌉`, one too few when L + 1 divides S.)
/// - low table: `S` + (if the high table has a queue) `(L + 1)·(S + 1)`: L + 1 high decisions
///   before each of the S other lows and before the queue's own.
///
/// A listed queue 0 is a saturated control queue: its bound is 0 and every data queue's is
/// `u64::MAX` (never served). A queue that is not listed or has weight 0 gets `u64::MAX`. If a
/// queue is listed more than once, its last entry counts.
pub fn starvation_bound(weights: &[(u32, u8, bool)], limit: u8, queue: u32) -> u64 {
    let entry = |q: u32| weights.iter().rev().find(|&&(p, _, _)| p == q).copied();
    if entry(CONTROL_QUEUE).is_some() {
        return if queue == CONTROL_QUEUE { 0 } else { u64::MAX };
    }
    let Some((_, wq, high)) = entry(queue) else { return u64::MAX };
    if wq == 0 {
        return u64::MAX;
    }
    let mut seen = Vec::new();
    let (mut same, mut other_table) = (0u64, false);
    for &(p, w, h) in weights.iter().rev() {
        if seen.contains(&p) || w == 0 {
            seen.push(p);
            continue;
        }
        seen.push(p);
        if h == high {
            if p != queue {
                same += u64::from(w);
            }
        } else {
            other_table = true;
        }
    }
    let l1 = u64::from(limit) + 1;
    match (high, other_table) {
        (_, false) => same,
        (true, true) => same + same / l1 + 1,
        (false, true) => same + l1 * (same + 1),
    }
}

// ---------------------------------------------------------------------------------------------
// Random co-simulation
// ---------------------------------------------------------------------------------------------

/// What a [`cosim`] run exercised (counted from the outputs of engine `a`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CosimStats {
    /// Cycles stepped after reset (initialisation included).
    pub cycles: u64,
    /// Enqueues committed.
    pub enqueues: u64,
    /// Enqueues refused as duplicates.
    pub dups: u64,
    /// Duplicates refused because the element was taken by the decision of the cycle before the
    /// commit (its result not yet on the outputs).
    pub dup_of_dequeued: u64,
    /// Enqueues refused for a bad queue number.
    pub bad_queues: u64,
    /// Decisions that served an element.
    pub dequeues: u64,
    /// Decisions with nothing eligible.
    pub empty_decisions: u64,
    /// Decisions that served the same queue as the decision of the cycle before.
    pub back_to_back_same_queue: u64,
    /// Cycles where a commit and a decision hit the same queue.
    pub same_cycle_enq_deq: u64,
    /// Of those, the queue held exactly one element (the one dequeued).
    pub same_cycle_enq_deq_last: u64,
    /// Cycles in which a valid requester was not ready (and held its request).
    pub held_requests: u64,
    /// Register writes issued.
    pub cfg_writes: u64,
    /// Largest number of elements in one queue.
    pub max_queue_occupancy: usize,
    /// Largest number of elements in all queues.
    pub max_total_occupancy: usize,
    /// Times the pool became completely full (N elements queued).
    pub pool_full: u64,
    /// Times the pool was drained to empty after holding at least N/2 elements.
    pub drained: u64,
}

/// A set of elements with O(1) insert, remove and random pick.
#[derive(Clone, Debug)]
struct ElemSet {
    pos: Vec<u32>,
    items: Vec<u32>,
}

impl ElemSet {
    const ABSENT: u32 = u32::MAX;

    fn new(n: usize) -> ElemSet {
        ElemSet {
            pos: vec![Self::ABSENT; n],
            items: Vec::new(),
        }
    }

    fn insert(&mut self, e: u32) {
        if self.pos[e as usize] == Self::ABSENT {
            self.pos[e as usize] = self.items.len() as u32;
            self.items.push(e);
        }
    }

    fn remove(&mut self, e: u32) {
        let p = self.pos[e as usize];
        if p != Self::ABSENT {
            self.items.swap_remove(p as usize);
            if let Some(&moved) = self.items.get(p as usize) {
                self.pos[moved as usize] = p;
            }
            self.pos[e as usize] = Self::ABSENT;
        }
    }

    fn pick(&self, rng: &mut ChaCha8Rng) -> Option<u32> {
        (!self.items.is_empty()).then(|| self.items[rng.gen_range(0..self.items.len())])
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Random enqueues and dequeues, register writes, stalls.
    Mixed,
    /// Dequeue bursts (back to back), light enqueue.
    Burst,
    /// Enqueue on every requester until the pool is full.
    Fill,
    /// Permissive configuration, no stall, dequeue every cycle until empty.
    Drain,
}

/// Closed-loop random stimulus with a shadow of the queues rebuilt from the outputs.
///
/// The shadow is exact: after observing cycle c it holds the queue contents at the end of
/// cycle c − 2 (the last decision whose result the outputs show, and that cycle's commit); the
/// outcome of the commit of c − 1, which the counters show, waits for the decision of c − 1. It
/// checks the FIFO rules of the engine it observes: enqueue ready, dequeue timing, each dequeued
/// element is its queue's head, each counter step is the refusal the dup / bad-queue rules
/// predict.
struct Driver {
    rng: ChaCha8Rng,
    queues: u32,
    nodes: u32,
    cycle: u64,
    hold: [Option<(u32, u32)>; REQUESTERS],
    shadow: Vec<VecDeque<u32>>,
    home: Vec<Option<u32>>,
    claims: Vec<u32>,
    free: ElemSet,
    queued: ElemSet,
    total: usize,
    /// Requests accepted, with their cycle, whose commit is not observed yet.
    accepted: VecDeque<(u64, u32, u32)>,
    /// The commit of the previous cycle, `(queue, element, bad queue, duplicate)`: its outcome
    /// is known, it joins the shadow after that cycle's decision.
    commit_due: Option<(u32, u32, bool, bool)>,
    due: ResultsDue,
    prev_cnt: (u32, u32),
    prev_served: Option<u32>,
    init_seen: bool,
    recent: VecDeque<u32>,
    phase: Phase,
    phase_left: u64,
    burst_left: u32,
    hot: u32,
    stall: u32,
    writes: VecDeque<(u32, u32)>,
    was_half_full: bool,
    stats: CosimStats,
}

impl Driver {
    fn new(seed: u64, cfg: SchedConfig) -> Driver {
        let n = cfg.nodes();
        let mut free = ElemSet::new(n);
        (0..n as u32).for_each(|e| free.insert(e));
        Driver {
            rng: ChaCha8Rng::seed_from_u64(seed),
            queues: cfg.queues as u32,
            nodes: n as u32,
            cycle: 0,
            hold: [None; REQUESTERS],
            shadow: vec![VecDeque::new(); cfg.queues],
            home: vec![None; n],
            claims: vec![0; n],
            free,
            queued: ElemSet::new(n),
            total: 0,
            accepted: VecDeque::new(),
            commit_due: None,
            due: ResultsDue::default(),
            prev_cnt: (0, 0),
            prev_served: None,
            init_seen: false,
            recent: VecDeque::new(),
            phase: Phase::Mixed,
            phase_left: 64,
            burst_left: 0,
            hot: 0,
            stall: 0,
            writes: VecDeque::new(),
            was_half_full: false,
            stats: CosimStats::default(),
        }
    }

    fn refresh(&mut self, e: u32) {
        if self.home[e as usize].is_none() && self.claims[e as usize] == 0 {
            self.free.insert(e);
        } else {
            self.free.remove(e);
        }
        if self.home[e as usize].is_some() {
            self.queued.insert(e);
        } else {
            self.queued.remove(e);
        }
    }

    fn next_phase(&mut self) {
        let n = u64::from(self.nodes);
        // Nothing is accepted before init_done: stay in random traffic until then.
        let x = if self.init_seen { self.rng.gen_range(0..100) } else { 0 };
        self.phase = match x {
            0..=44 => Phase::Mixed,
            45..=59 => Phase::Burst,
            60..=79 => Phase::Fill,
            _ => Phase::Drain,
        };
        self.hot = self.rng.gen_range(0..self.queues);
        self.phase_left = match self.phase {
            Phase::Mixed => self.rng.gen_range(64..512),
            Phase::Burst => self.rng.gen_range(8..64),
            Phase::Fill => 6 * n + 256,
            Phase::Drain => 4 * n + 512,
        };
        if self.phase == Phase::Drain {
            // Make every queue servable again: weights 1..4, no token bucket, some L.
            self.writes.clear();
            for q in 0..self.queues {
                let w = cfg_word(self.rng.gen_range(1..=4), 0, 0, self.rng.gen_bool(0.5), false);
                self.writes.push_back((q, w));
            }
            self.writes.push_back((REG_LIMIT, self.rng.gen_range(0..8)));
            self.stall = 0;
        }
    }

    fn random_write(&mut self) -> (u32, u32) {
        let x = self.rng.gen_range(0..100);
        if x < 65 {
            let q = self.rng.gen_range(0..self.queues);
            let weight = match self.rng.gen_range(0..10) {
                0 => 0,
                1..=6 => self.rng.gen_range(1..=4),
                _ => self.rng.gen(),
            };
            let tb = self.rng.gen_bool(0.25);
            let rate = if tb && self.rng.gen_bool(0.05) {
                0
            } else {
                self.rng.gen_range(1..=255)
            };
            let burst = self.rng.gen_range(0..=6);
            (q, cfg_word(weight, rate, burst, self.rng.gen_bool(0.5), tb))
        } else if x < 90 {
            let l = if self.rng.gen_bool(0.7) {
                self.rng.gen_range(0..8)
            } else {
                self.rng.gen()
            };
            (REG_LIMIT, l)
        } else {
            // Ignored addresses: queue slots ≥ Q, 33..63, 65..127.
            let mut a = self.rng.gen_range(self.queues..128);
            if a == REG_LIMIT {
                a += 1;
            }
            (a, self.rng.gen())
        }
    }

    fn new_request(&mut self) -> (u32, u32) {
        let q = if self.queues < MAX_QUEUES as u32 && self.rng.gen_bool(0.03) {
            self.rng.gen_range(self.queues..MAX_QUEUES as u32)
        } else if self.rng.gen_bool(0.3) {
            self.hot
        } else {
            self.rng.gen_range(0..self.queues)
        };
        let x = self.rng.gen_range(0..100);
        let e = if x < 5 && !self.recent.is_empty() {
            // The element of a recent request, possibly still held or in flight.
            self.recent[self.rng.gen_range(0..self.recent.len())]
        } else if x < 15 && self.queued.pick(&mut self.rng).is_some() {
            let e = self.queued.pick(&mut self.rng).unwrap_or(0);
            // Half of the time the head of a queue: likely the element being dequeued.
            match self.home[e as usize] {
                Some(h) if self.rng.gen_bool(0.5) => self.shadow[h as usize].front().copied().unwrap_or(e),
                _ => e,
            }
        } else {
            match self.free.pick(&mut self.rng) {
                Some(e) => e,
                None => self.queued.pick(&mut self.rng).unwrap_or(self.rng.gen_range(0..self.nodes)),
            }
        };
        self.claims[e as usize] += 1;
        self.refresh(e);
        if self.recent.len() == 8 {
            self.recent.pop_front();
        }
        self.recent.push_back(e);
        (q, e)
    }

    /// The inputs of the next cycle.
    fn inputs(&mut self) -> SchedIn {
        if self.phase_left == 0 {
            self.next_phase();
        }
        self.phase_left -= 1;
        let n = self.nodes as usize;
        match self.phase {
            Phase::Fill if self.total == n && self.phase_left > 16 => self.phase_left = 16,
            Phase::Drain if self.total == 0 && self.writes.is_empty() && self.phase_left > 4 => self.phase_left = 4,
            _ => {}
        }
        let (p_enq, p_deq) = match self.phase {
            Phase::Mixed => (0.12, 0.45),
            Phase::Burst => (0.1, 1.0),
            // Below one arrival per cycle so that requester 3 gets its turns too.
            Phase::Fill => (0.22, 0.03),
            Phase::Drain => (0.0, 1.0),
        };
        for r in 0..REQUESTERS {
            // With no free element left (pool full), a requester only sometimes tries a duplicate.
            let p = if self.free.items.is_empty() { p_enq * 0.2 } else { p_enq };
            if self.hold[r].is_none() && self.rng.gen_bool(p) {
                self.hold[r] = Some(self.new_request());
            }
        }
        let deq = if self.burst_left > 0 {
            self.burst_left -= 1;
            true
        } else if self.phase == Phase::Mixed && self.rng.gen_bool(0.04) {
            self.burst_left = self.rng.gen_range(2..16);
            true
        } else {
            self.rng.gen_bool(p_deq)
        };
        if self.phase != Phase::Drain && self.rng.gen_bool(0.03) {
            self.stall = if self.rng.gen_bool(0.6) {
                0
            } else {
                self.rng.gen::<u32>() & self.rng.gen::<u32>() & self.rng.gen::<u32>()
            };
        }
        let cfg = if let Some(w) = self.writes.pop_front() {
            Some(w)
        } else if self.phase != Phase::Drain && self.rng.gen_bool(0.015) {
            Some(self.random_write())
        } else {
            None
        };
        self.stats.cfg_writes += u64::from(cfg.is_some());
        SchedIn {
            enq: self.hold,
            deq,
            stall: self.stall,
            cfg,
        }
    }

    /// Takes in the outputs of the cycle driven with `i`; checks them against the shadow.
    fn observe(&mut self, i: &SchedIn, o: &SchedOut) -> Result<(), String> {
        let c = self.cycle;
        let err = |m: String| Err(format!("cycle {c}: {m}"));
        if self.init_seen && !o.init_done {
            return err("init_done fell".into());
        }
        self.init_seen |= o.init_done;
        let mut lower = false;
        for r in 0..REQUESTERS {
            if o.enq_ready[r] != (o.init_done && !lower) {
                return err(format!(
                    "enq_ready[{r}] is {} (init_done {}, lower requester valid {lower})",
                    o.enq_ready[r], o.init_done
                ));
            }
            lower |= i.enq[r].is_some();
        }
        let due = self.due.now();
        if o.deq_valid != due {
            return err(format!(
                "deq_valid is {} but a result was {}expected",
                o.deq_valid,
                if due { "" } else { "not " }
            ));
        }
        if (!o.deq_valid || !o.deq_ok) && (o.deq_ok || o.deq_queue != 0 || o.deq_elem != 0) {
            return err(format!(
                "deq_ok/deq_queue/deq_elem = {}/{}/{} without a served element",
                o.deq_ok, o.deq_queue, o.deq_elem
            ));
        }

        // The decision of cycle c − 2, on the queues at the start of that cycle.
        let mut served = None;
        if o.deq_valid {
            if o.deq_ok {
                let q = o.deq_queue;
                let head = self.shadow.get(q as usize).and_then(|s| s.front().copied());
                if head != Some(o.deq_elem) {
                    return err(format!("dequeued element {} from queue {q}, whose head is {head:?}", o.deq_elem));
                }
                let len_before = self.shadow[q as usize].len();
                self.shadow[q as usize].pop_front();
                self.home[o.deq_elem as usize] = None;
                self.total -= 1;
                self.refresh(o.deq_elem);
                self.stats.dequeues += 1;
                if self.prev_served == Some(q) {
                    self.stats.back_to_back_same_queue += 1;
                }
                self.prev_served = Some(q);
                served = Some((q, o.deq_elem, len_before));
            } else {
                self.stats.empty_decisions += 1;
                self.prev_served = None;
            }
        } else {
            self.prev_served = None;
        }

        // The commit of cycle c − 2, after that cycle's decision.
        if let Some((q, e, bad, dup)) = self.commit_due.take() {
            self.claims[e as usize] -= 1;
            if bad {
                self.stats.bad_queues += 1;
            } else if dup {
                self.stats.dups += 1;
            } else {
                self.shadow[q as usize].push_back(e);
                self.home[e as usize] = Some(q);
                self.total += 1;
                self.stats.enqueues += 1;
                if let Some((sq, _, len_before)) = served {
                    if sq == q {
                        self.stats.same_cycle_enq_deq += 1;
                        self.stats.same_cycle_enq_deq_last += u64::from(len_before == 1);
                    }
                }
                let len = self.shadow[q as usize].len();
                self.stats.max_queue_occupancy = self.stats.max_queue_occupancy.max(len);
                if self.total == self.nodes as usize {
                    self.stats.pool_full += 1;
                }
            }
            self.refresh(e);
        }

        // The commit of cycle c − 1 (request accepted in c − 2), which the counters show now:
        // refused if the element is queued at the start of c − 1 or was taken by the decision of
        // c − 2.
        let commit = match self.accepted.front() {
            Some(&(t, q, e)) if t + 2 == c => {
                self.accepted.pop_front();
                let bad = q >= self.queues;
                let taken = served.is_some_and(|(_, se, _)| se == e);
                let dup = !bad && (self.home[e as usize].is_some() || taken);
                if dup && taken {
                    self.stats.dup_of_dequeued += 1;
                }
                Some((q, e, bad, dup))
            }
            _ => None,
        };
        let delta = (
            o.cnt_dup.wrapping_sub(self.prev_cnt.0),
            o.cnt_bad_queue.wrapping_sub(self.prev_cnt.1),
        );
        let want = commit.map_or((0, 0), |(_, _, bad, dup)| (u32::from(dup), u32::from(bad)));
        if delta != want {
            return err(format!(
                "counters moved by (dup {}, bad queue {}) but the commit of {:?} should move them by (dup {}, bad queue {})",
                delta.0,
                delta.1,
                commit.map(|(q, e, _, _)| (q, e)),
                want.0,
                want.1
            ));
        }
        self.prev_cnt = (o.cnt_dup, o.cnt_bad_queue);
        self.commit_due = commit;
        self.stats.max_total_occupancy = self.stats.max_total_occupancy.max(self.total);
        if self.total >= self.nodes as usize / 2 {
            self.was_half_full = true;
        } else if self.total == 0 && self.was_half_full {
            self.was_half_full = false;
            self.stats.drained += 1;
        }

        // This cycle's acceptance and decision.
        if let Some(r) = (0..REQUESTERS).find(|&r| i.enq[r].is_some() && o.enq_ready[r]) {
            if let Some((q, e)) = i.enq[r] {
                self.accepted.push_back((c, q, e));
            }
            self.hold[r] = None;
        }
        if (0..REQUESTERS).any(|r| i.enq[r].is_some() && !o.enq_ready[r]) {
            self.stats.held_requests += 1;
        }
        self.due.step(o.init_done && i.deq);
        self.cycle += 1;
        self.stats.cycles = self.cycle;
        Ok(())
    }
}

/// Random inputs for `cycles` cycles after reset (initialisation included), generated closed-loop
/// against a [`SchedModel`] of `cfg` (requests are held until ready, as on the RTL ports).
/// Replayed on a freshly reset engine that behaves like the model, they give the same run as
/// [`cosim`] with the same seed.
///
/// The mix: phases of random traffic, of back-to-back dequeue bursts, of filling the whole pool
/// (4 requesters every cycle until N elements are queued) and of draining it to empty; requests
/// mostly for free elements, some for queued ones (duplicates, often a queue's head) or for
/// elements just requested, and for bad queues when Q < 32; random stall masks; register writes
/// of weights (0 included), tables, token buckets, L and ignored addresses.
///
/// # Panics
///
/// If `cfg` is invalid ([`SchedConfig::check`]).
pub fn random_ops(seed: u64, cfg: &SchedConfig, cycles: usize) -> Vec<SchedIn> {
    let mut model = match SchedModel::new(*cfg) {
        Ok(m) => m,
        Err(e) => panic!("random_ops: {e}"),
    };
    let mut d = Driver::new(seed, *cfg);
    let mut ops = Vec::with_capacity(cycles);
    for _ in 0..cycles {
        let i = d.inputs();
        let o = model.step(&i);
        if let Err(e) = d.observe(&i, &o) {
            panic!("random_ops: the model broke a FIFO rule: {e}");
        }
        ops.push(i);
    }
    ops
}

/// The first field that differs between two output sets.
fn first_difference(a: &SchedOut, b: &SchedOut) -> Option<String> {
    let f = |name: &str, x: &dyn fmt::Debug, y: &dyn fmt::Debug| Some(format!("{name}: a = {x:?}, b = {y:?}"));
    if a.init_done != b.init_done {
        return f("init_done", &a.init_done, &b.init_done);
    }
    for r in 0..REQUESTERS {
        if a.enq_ready[r] != b.enq_ready[r] {
            return f(&format!("enq_ready[{r}]"), &a.enq_ready[r], &b.enq_ready[r]);
        }
    }
    if a.deq_valid != b.deq_valid {
        return f("deq_valid", &a.deq_valid, &b.deq_valid);
    }
    if a.deq_ok != b.deq_ok {
        return f("deq_ok", &a.deq_ok, &b.deq_ok);
    }
    if a.deq_queue != b.deq_queue {
        return f("deq_queue", &a.deq_queue, &b.deq_queue);
    }
    if a.deq_elem != b.deq_elem {
        return f("deq_elem", &a.deq_elem, &b.deq_elem);
    }
    if a.cnt_dup != b.cnt_dup {
        return f("cnt_dup", &a.cnt_dup, &b.cnt_dup);
    }
    if a.cnt_bad_queue != b.cnt_bad_queue {
        return f("cnt_bad_queue", &a.cnt_bad_queue, &b.cnt_bad_queue);
    }
    None
}

/// Runs two engines of the same configuration in lockstep for `cycles` cycles after reset
/// (initialisation included) on closed-loop random inputs (see [`random_ops`] for the mix),
/// comparing every [`SchedOut`] field every cycle.
///
/// The inputs of each cycle are drawn from `seed` and the outputs of `a` so far (a requester
/// whose ready is low holds its request). Besides the comparison, the outputs of `a` are checked
/// against a shadow of the queues rebuilt from them: `enq_ready`, `deq_valid` timing, every
/// dequeued element is the head of its queue, every counter step is the predicted refusal.
///
/// Returns what the run exercised, or the first differing cycle (0 = first step after reset),
/// field and inputs.
pub fn cosim(a: &mut dyn SchedEngine, b: &mut dyn SchedEngine, seed: u64, cycles: usize) -> Result<CosimStats, String> {
    let cfg = a.config();
    if b.config() != cfg {
        return Err(format!("the engines differ in size: {:?} vs {:?}", cfg, b.config()));
    }
    cfg.check().map_err(|e| e.to_string())?;
    a.reset();
    b.reset();
    let mut d = Driver::new(seed, cfg);
    for c in 0..cycles as u64 {
        let i = d.inputs();
        let oa = a.step(&i);
        let ob = b.step(&i);
        if let Some(diff) = first_difference(&oa, &ob) {
            return Err(format!("cycle {c}: {diff}; inputs {i:?}"));
        }
        d.observe(&i, &oa).map_err(|e| format!("{e}; inputs {i:?}"))?;
    }
    Ok(d.stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::Rng;

    const SMALL: SchedConfig = SchedConfig::SMALL;

    fn up(cfg: SchedConfig) -> SchedModel {
        let mut m = SchedModel::new(cfg).unwrap();
        reset_and_init(&mut m).unwrap();
        m
    }

    fn idle() -> SchedIn {
        SchedIn::default()
    }

    fn enq(q: u32, e: u32) -> SchedIn {
        let mut i = idle();
        i.enq[0] = Some((q, e));
        i
    }

    fn deq() -> SchedIn {
        SchedIn { deq: true, ..idle() }
    }

    fn write(addr: u32, data: u32) -> SchedIn {
        SchedIn {
            cfg: Some((addr, data)),
            ..idle()
        }
    }

    /// Enqueue on requester 0 and let it commit (2 cycles).
    fn put(m: &mut SchedModel, q: u32, e: u32) {
        assert!(m.step(&enq(q, e)).enq_ready[0]);
        m.step(&idle());
    }

    fn result(o: &SchedOut) -> Option<(u32, u32)> {
        assert!(o.deq_valid, "no result: {o:?}");
        o.deq_ok.then_some((o.deq_queue, o.deq_elem))
    }

    /// Decisions on `n` consecutive cycles with `stall`; their results in order (read
    /// `DECISION_LATENCY` cycles after each).
    fn pops(m: &mut SchedModel, n: usize, stall: u32) -> Vec<Option<(u32, u32)>> {
        let mut r = Vec::new();
        for k in 0..n + DECISION_LATENCY {
            let o = m.step(&SchedIn {
                deq: k < n,
                stall,
                ..idle()
            });
            if k >= DECISION_LATENCY {
                r.push(result(&o));
            }
        }
        r
    }

    /// Steps `inputs`, then idle cycles until every decision's result is read; the results in
    /// order of the decisions.
    fn decisions(m: &mut SchedModel, inputs: &[SchedIn]) -> Vec<Option<(u32, u32)>> {
        let mut due = ResultsDue::default();
        let mut r = Vec::new();
        for k in 0.. {
            let i = inputs.get(k).cloned().unwrap_or_default();
            if k >= inputs.len() && !due.any() {
                break;
            }
            let o = m.step(&i);
            if due.step(i.deq) {
                r.push(result(&o));
            }
        }
        r
    }

    fn pop(m: &mut SchedModel) -> Option<(u32, u32)> {
        pops(m, 1, 0)[0]
    }

    fn counters(m: &mut SchedModel) -> (u32, u32) {
        let o = m.step(&idle());
        (o.cnt_dup, o.cnt_bad_queue)
    }

    fn queues(seq: &[Option<u32>]) -> Vec<u32> {
        seq.iter().map(|s| s.expect("a queue was served")).collect()
    }

    // ---- reset, init, ready ----

    #[test]
    fn init_done_after_exactly_n_cycles() {
        for cfg in [SchedConfig::default(), SMALL] {
            let n = cfg.nodes();
            let mut m = SchedModel::new(cfg).unwrap();
            let mut busy = enq(1, 3);
            busy.enq[2] = Some((2, 4));
            busy.deq = true;
            for c in 0..n {
                let o = m.step(&busy);
                assert!(!o.init_done, "{cfg:?}: cycle {c}");
                assert_eq!(o.enq_ready, [false; REQUESTERS]);
                assert!(!o.deq_valid);
            }
            let o = m.step(&idle());
            assert!(o.init_done);
            assert_eq!(o.enq_ready, [true; REQUESTERS]);
            assert!(!o.deq_valid, "a dequeue during init is ignored");
            m.step(&idle());
            assert_eq!(m.occupancy(), 0, "requests during init are not accepted");

            put(&mut m, 2, 9);
            put(&mut m, 2, 9);
            assert_eq!(counters(&mut m), (1, 0));
            m.reset();
            assert_eq!(m.occupancy(), 0);
            assert_eq!(reset_and_init(&mut m), Ok(n as u64 + 1));
            assert_eq!(counters(&mut m), (0, 0));
        }
    }

    #[test]
    fn ready_follows_requester_priority_and_requests_wait() {
        let mut m = up(SMALL);
        let mut i = idle();
        i.enq[1] = Some((1, 10));
        i.enq[3] = Some((2, 20));
        assert_eq!(m.step(&i).enq_ready, [true, true, false, false]);
        i.enq[1] = None; // accepted; requester 3 holds
        assert_eq!(m.step(&i).enq_ready, [true; REQUESTERS]);
        m.step(&idle());
        assert_eq!((m.queue(1), m.queue(2)), (vec![10], vec![20]));
        i.enq = [Some((1, 11)), None, Some((1, 12)), None];
        assert_eq!(m.step(&i).enq_ready, [true, false, false, false]);
    }

    // ---- FIFOs ----

    #[test]
    fn fifo_order_per_queue() {
        let mut m = up(SMALL);
        for (q, e) in [(1, 5), (2, 8), (1, 6), (1, 7)] {
            put(&mut m, q, e);
        }
        assert_eq!(m.queue(1), vec![5, 6, 7]);
        // Round robin, weight 1: 1, 2, then queue 1 alone.
        assert_eq!(
            pops(&mut m, 5, 0),
            vec![Some((1, 5)), Some((2, 8)), Some((1, 6)), Some((1, 7)), None]
        );
        assert_eq!(m.occupancy(), 0);
        assert_eq!(m.home(5), None);
    }

    #[test]
    fn back_to_back_dequeues_of_one_queue() {
        let mut m = up(SchedConfig::default());
        for e in 40..44 {
            put(&mut m, 3, e);
        }
        let want: Vec<_> = (40..44).map(|e| Some((3, e))).chain([None, None]).collect();
        assert_eq!(pops(&mut m, 6, 0), want);
    }

    #[test]
    fn enqueue_and_dequeue_same_cycle_on_an_empty_queue() {
        let mut m = up(SMALL);
        m.step(&enq(1, 10)); // t: accepted
        assert!(!m.step(&deq()).deq_valid); // t + 1: commit; the queue was empty at the start
        assert!(!m.step(&deq()).deq_valid); // t + 2: decision sees the element
        assert_eq!(result(&m.step(&idle())), None); // t + 3: result of t + 1
        assert_eq!(result(&m.step(&idle())), Some((1, 10))); // t + 4: result of t + 2
        assert_eq!(m.occupancy(), 0);
    }

    #[test]
    fn enqueue_and_dequeue_same_cycle_on_a_one_element_queue() {
        let mut m = up(SMALL);
        put(&mut m, 1, 10);
        m.step(&enq(1, 11));
        m.step(&deq()); // pops 10, appends 11
        assert_eq!(m.queue(1), vec![11]);
        m.step(&deq()); // pops 11
        assert_eq!(result(&m.step(&idle())), Some((1, 10)));
        assert_eq!(result(&m.step(&idle())), Some((1, 11)));
        assert_eq!((m.occupancy(), m.home(10), m.home(11)), (0, None, None));
        // Same with a longer queue: the new element goes after the rest.
        for e in [1, 2, 3] {
            put(&mut m, 2, e);
        }
        m.step(&enq(2, 4));
        m.step(&deq());
        assert_eq!(m.queue(2), vec![2, 3, 4]);
    }

    #[test]
    fn duplicate_is_refused_and_counted() {
        let mut m = up(SMALL);
        put(&mut m, 2, 5);
        m.step(&enq(3, 5)); // t
        assert_eq!(m.step(&idle()).cnt_dup, 0); // t + 1: commit, refused
        assert_eq!(m.step(&idle()).cnt_dup, 1); // t + 2: counted
        assert_eq!((m.queue(3), m.home(5)), (vec![], Some(2)));
        put(&mut m, 2, 5); // same queue: refused too
        assert_eq!(m.queue(2), vec![5]);
        assert_eq!(counters(&mut m), (2, 0));
        assert_eq!(pop(&mut m), Some((2, 5)));
        put(&mut m, 3, 5); // gone: accepted again
        assert_eq!(m.queue(3), vec![5]);
        assert_eq!(counters(&mut m), (2, 0));
    }

    #[test]
    fn duplicate_of_the_element_dequeued_in_the_commit_cycle() {
        let mut m = up(SMALL);
        put(&mut m, 2, 5);
        m.step(&enq(3, 5)); // t: accepted
        m.step(&deq()); // t + 1: 5 is popped, and was queued at the start: refused
        let o = m.step(&idle());
        assert_eq!((o.deq_valid, o.cnt_dup), (false, 1));
        assert_eq!(result(&m.step(&idle())), Some((2, 5)));
        assert_eq!((m.occupancy(), m.home(5)), (0, None));
        // Taken by the decision of the cycle before the commit: refused too (its result is
        // not on the outputs yet).
        put(&mut m, 2, 6);
        let mut i = enq(3, 6);
        i.deq = true;
        m.step(&i); // t: 6 popped, (3, 6) accepted
        m.step(&idle()); // t + 1: commit, refused
        let o = m.step(&idle()); // t + 2: the result; the element is free from now on
        assert_eq!((result(&o), o.cnt_dup), (Some((2, 6)), 2));
        assert_eq!(m.queue(3), Vec::<u32>::new());
        // Requested the cycle its result shows (commit two cycles after the decision): accepted.
        put(&mut m, 2, 7);
        m.step(&deq()); // d
        m.step(&idle()); // d + 1
        let o = m.step(&enq(3, 7)); // d + 2: the result, and the request
        assert_eq!(result(&o), Some((2, 7)));
        m.step(&idle()); // d + 3: commit
        assert_eq!((m.queue(3), m.step(&idle()).cnt_dup), (vec![7], 2));
    }

    #[test]
    fn bad_queue_is_refused_and_counted() {
        let mut m = up(SMALL); // Q = 5
        put(&mut m, 7, 1);
        assert_eq!(counters(&mut m), (0, 1));
        put(&mut m, 40, 1); // the 5-bit port keeps 8
        assert_eq!(counters(&mut m), (0, 2));
        put(&mut m, 4, 1);
        put(&mut m, 9, 1); // bad queue wins over duplicate
        assert_eq!(counters(&mut m), (0, 3));
        assert_eq!((m.occupancy(), m.queue(4)), (1, vec![1]));
        let mut m = up(SchedConfig::default());
        put(&mut m, 31, 2047);
        assert_eq!((m.queue(31), counters(&mut m)), (vec![2047], (0, 0)));
    }

    #[test]
    fn counters_wrap() {
        let mut m = up(SMALL);
        m.cnt_dup = u32::MAX;
        m.cnt_bad_queue = u32::MAX - 1;
        put(&mut m, 1, 3);
        put(&mut m, 1, 3);
        put(&mut m, 6, 3);
        put(&mut m, 6, 3);
        assert_eq!(counters(&mut m), (0, 0));
    }

    // ---- arbiter ----

    #[test]
    fn wrr_runs_and_exact_shares() {
        for high in [true, false] {
            let w = [(1, 3, high), (2, 1, high), (3, 2, high)];
            let mut m = SchedModel::new(SMALL).unwrap();
            let seq = queues(&saturated_run(&mut m, &w, 255, 60));
            assert_eq!(seq, [1, 1, 1, 2, 3, 3].repeat(10));
            let r = fairness(&mut m, &w, 255, 6000);
            assert_eq!((r.decisions, r.empty, r.other), (6000, 0, 0));
            let served: Vec<usize> = r.queues.iter().map(|s| s.served).collect();
            assert_eq!(served, [3000, 1000, 2000]);
            assert_eq!(r.get(1).map(|s| s.share), Some(0.5));
            let gaps: Vec<Option<u64>> = r.queues.iter().map(|s| s.max_gap).collect();
            assert_eq!(gaps, [Some(3), Some(5), Some(4)]);
        }
    }

    #[test]
    fn weight_change_keeps_the_running_credit() {
        let mut m = up(SMALL);
        m.step(&write(1, cfg_word(3, 0, 0, true, false)));
        for e in 0..8 {
            put(&mut m, 1, e);
            put(&mut m, 2, 8 + e);
        }
        let mut inputs = vec![deq(); 9];
        inputs[1].cfg = Some((1, cfg_word(1, 0, 0, true, false))); // after q1's first service
        let seq: Vec<Option<u32>> = decisions(&mut m, &inputs).iter().map(|r| r.map(|(q, _)| q)).collect();
        let seq = queues(&seq);
        assert_eq!(seq, [1, 1, 1, 2, 1, 2, 1, 2, 1]);
    }

    #[test]
    fn limit_of_high_priority() {
        let w = [(1, 1, true), (2, 1, false)];
        let mut m = SchedModel::new(SMALL).unwrap();
        assert_eq!(queues(&saturated_run(&mut m, &w, 2, 12)), [1, 1, 1, 2].repeat(3));
        assert_eq!(queues(&saturated_run(&mut m, &w, 0, 8)), [1, 2].repeat(4));
        let seq = queues(&saturated_run(&mut m, &w, 255, 520));
        let lows: Vec<usize> = (0..seq.len()).filter(|&k| seq[k] == 2).collect();
        assert_eq!(lows, [256, 513]);
        let r = fairness(&mut m, &w, 2, 4000);
        assert_eq!((r.queues[0].served, r.queues[1].served), (3000, 1000));
    }

    #[test]
    fn hcount_counts_only_while_the_low_table_waits() {
        let mut m = up(SMALL);
        m.step(&write(2, cfg_word(1, 0, 0, false, false)));
        m.step(&write(REG_LIMIT, 1));
        for e in 0..8 {
            put(&mut m, 1, e);
        }
        assert!(pops(&mut m, 5, 0).iter().all(|r| r.is_some_and(|(q, _)| q == 1)));
        assert_eq!(m.hcount(), 0);
        put(&mut m, 2, 20);
        let seq: Vec<u32> = pops(&mut m, 3, 0).iter().map(|r| r.map_or(99, |(q, _)| q)).collect();
        assert_eq!(seq, [1, 1, 2]);
        assert_eq!(m.hcount(), 0);
    }

    #[test]
    fn weight_zero_takes_a_queue_out() {
        let mut m = SchedModel::new(SMALL).unwrap();
        assert_eq!(queues(&saturated_run(&mut m, &[(1, 0, true), (2, 1, true)], 255, 20)), [2; 20]);
        assert_eq!(saturated_run(&mut m, &[(1, 0, true)], 255, 5), [None; 5]);
        assert_eq!(saturated_run(&mut m, &[(3, 0, false), (1, 1, true)], 0, 6), [Some(1); 6]);
        // The control queue ignores its weight and table bit.
        assert_eq!(queues(&saturated_run(&mut m, &[(0, 0, false), (1, 1, true)], 255, 10)), [0; 10]);
    }

    #[test]
    fn control_queue_has_strict_priority() {
        let mut m = SchedModel::new(SMALL).unwrap();
        let w = [(0, 1, true), (1, 5, true), (2, 1, false)];
        assert_eq!(queues(&saturated_run(&mut m, &w, 0, 50)), [0; 50]);
        assert_eq!(m.hcount(), 0);
        assert_eq!(m.tables, [Wrr::default(); 2]);
        let mut m = up(SMALL);
        put(&mut m, 3, 1);
        put(&mut m, 0, 2);
        put(&mut m, 3, 3);
        assert_eq!(pops(&mut m, 3, 0), [Some((0, 2)), Some((3, 1)), Some((3, 3))]);
    }

    #[test]
    fn stall_skips_queues() {
        let mut m = up(SMALL);
        for (q, e) in [(0, 1), (1, 2), (2, 3), (3, 4)] {
            put(&mut m, q, e);
        }
        assert_eq!(pops(&mut m, 1, 0b0001), [Some((1, 2))]);
        assert_eq!(pops(&mut m, 1, 0b0101), [Some((3, 4))]);
        assert_eq!(pops(&mut m, 1, 0b0101), [None]);
        assert_eq!(pops(&mut m, 1, 0xffff_ffe0 | 0b0001), [Some((2, 3))], "bits ≥ Q are ignored");
        assert_eq!(pops(&mut m, 1, 0), [Some((0, 1))]);
        // A stalled queue's WRR turn passes to the next eligible queue.
        let mut m = up(SMALL);
        m.step(&write(1, cfg_word(4, 0, 0, true, false)));
        for e in 0..4 {
            put(&mut m, 1, e);
            put(&mut m, 2, 10 + e);
        }
        let seq: Vec<u32> = [0, 0, 0b10, 0b10, 0, 0]
            .iter()
            .map(|&s| pops(&mut m, 1, s)[0].map_or(99, |(q, _)| q))
            .collect();
        assert_eq!(seq, [1, 1, 2, 2, 1, 1]);
    }

    // ---- token buckets ----

    #[test]
    fn token_bucket_rate() {
        for rate in [1u8, 64, 100, 200, 255] {
            let mut m = SchedModel::new(SMALL).unwrap();
            let t = 4096;
            // Burst ≥ 2: the level never reaches the cap between services, nothing is clipped.
            let seq = saturated_words(&mut m, &[(1, cfg_word(1, rate, 2, true, true))], 255, t);
            let served = seq.iter().filter(|s| s.is_some()).count() as f64;
            let want = t as f64 * f64::from(rate) / 256.0;
            assert!((served - want).abs() <= 2.0, "rate {rate}: served {served}, want {want}");
            // A disabled bucket never blocks, whatever its rate and burst.
            let seq = saturated_words(&mut m, &[(1, cfg_word(1, rate, 0, true, false))], 255, 100);
            assert_eq!(seq, [Some(1); 100]);
        }
        // Burst 1 clips the fraction left after a service: rate 100 serves one decision in 3
        // (level 256 → 100 → 200 → min(300, 256)), not 100/256.
        let mut m = SchedModel::new(SMALL).unwrap();
        let seq = saturated_words(&mut m, &[(1, cfg_word(1, 100, 1, true, true))], 255, 3000);
        let served: Vec<usize> = (0..seq.len()).filter(|&k| seq[k].is_some()).collect();
        assert!(served.windows(2).all(|w| w[1] - w[0] == 3), "{served:?}");
        let seq = saturated_words(&mut m, &[(1, cfg_word(1, 200, 0, true, true))], 255, 50);
        assert_eq!(seq, [None; 50], "burst 0 holds no whole token");
    }

    #[test]
    fn token_bucket_burst() {
        let mut m = up(SMALL);
        m.step(&write(1, cfg_word(1, 16, 4, true, true)));
        for e in 0..8 {
            put(&mut m, 1, e);
        }
        for _ in 0..100 {
            m.step(&idle());
        }
        assert_eq!(m.token_level(1), 4 * 256);
        let served: Vec<usize> = pops(&mut m, 20, 0)
            .iter()
            .enumerate()
            .filter(|(_, r)| r.is_some())
            .map(|(k, _)| k)
            .collect();
        assert_eq!(served, [0, 1, 2, 3, 16]);
    }

    #[test]
    fn token_level_fills_while_disabled_and_updates_in_order() {
        let mut m = up(SMALL);
        m.step(&write(1, cfg_word(1, 128, 2, true, false)));
        for e in 0..8 {
            put(&mut m, 1, e);
        }
        assert_eq!(m.token_level(1), 512);
        // Enabling keeps the level; the write's own cycle still uses the old word.
        m.step(&write(1, cfg_word(1, 128, 2, true, true)));
        assert_eq!(m.token_level(1), 512);
        let mut levels = Vec::new();
        let mut due = ResultsDue::default();
        let mut served = Vec::new();
        for k in 0..8 + DECISION_LATENCY {
            let i = SchedIn { deq: k < 8, ..idle() };
            let o = m.step(&i);
            levels.push(m.token_level(1));
            if due.step(i.deq) {
                served.push(result(&o).is_some());
            }
        }
        // served: level + rate − 256; else min(level + rate, burst·256): 512 → 384 → 256 → 128 → 256 → …
        assert_eq!(levels[..6], [384, 256, 128, 256, 128, 256]);
        assert_eq!(served, [true, true, true, false, true, false, true, false]);
    }

    // ---- registers ----

    #[test]
    fn register_writes_take_effect_next_cycle() {
        let mut m = up(SMALL);
        put(&mut m, 1, 10);
        put(&mut m, 1, 11);
        let mut i = write(1, cfg_word(0, 0, 0, true, false));
        i.deq = true;
        // decided with weight 1, then weight 0
        assert_eq!(decisions(&mut m, &[i, deq()]), [Some((1, 10)), None]);

        // L: two highs with L = 255, then L = 0 written in the third decision's cycle.
        let mut m = up(SMALL);
        m.step(&write(2, cfg_word(1, 0, 0, false, false)));
        for e in 0..5 {
            put(&mut m, 1, e);
            put(&mut m, 2, 10 + e);
        }
        let mut inputs = vec![deq(); 4];
        inputs[2].cfg = Some((REG_LIMIT + 128, 0)); // the 7-bit port sees 64
        let seq: Vec<u32> = decisions(&mut m, &inputs).iter().map(|r| r.map_or(99, |(q, _)| q)).collect();
        assert_eq!(seq, [1, 1, 1, 2]);
        assert_eq!(m.limit, 0);
    }

    #[test]
    fn writes_to_other_addresses_are_ignored() {
        let mut m = up(SMALL);
        let before = (m.words.clone(), m.limit);
        for a in [5, 31, 32, 63, 65, 127] {
            m.step(&write(a, 0));
        }
        assert_eq!((m.words.clone(), m.limit), before);
        m.step(&write(4, 0xffff_ffff));
        assert_eq!(
            m.qcfg(4),
            QueueCfg {
                weight: 255,
                rate: 255,
                burst: 255,
                high: true,
                tb_en: true
            }
        );
    }

    #[test]
    fn cfg_word_layout() {
        assert_eq!(cfg_word(1, 0, 0, true, false), QUEUE_CFG_RESET);
        assert_eq!(cfg_word(0x12, 0x34, 0x56, false, true), 0x0256_3412);
        let c = QueueCfg {
            weight: 7,
            rate: 8,
            burst: 9,
            high: true,
            tb_en: true,
        };
        assert_eq!(QueueCfg::from_word(c.word()), c);
        assert_eq!(QueueCfg::default(), QueueCfg::from_word(0x0100_0001));
    }

    #[test]
    fn bad_configurations_are_errors() {
        for cfg in [
            SchedConfig { node_bits: 0, queues: 4 },
            SchedConfig { node_bits: 21, queues: 4 },
            SchedConfig { node_bits: 200, queues: 4 },
            SchedConfig { node_bits: 4, queues: 0 },
            SchedConfig { node_bits: 4, queues: 33 },
        ] {
            assert!(SchedModel::new(cfg).is_err(), "{cfg:?}");
        }
        assert_eq!(SchedConfig::default().nodes(), 2048);
        assert_eq!(SchedConfig { node_bits: 200, queues: 4 }.nodes(), 0);
    }

    // ---- starvation bound ----

    #[test]
    fn starvation_bound_values() {
        assert_eq!(starvation_bound(&[(1, 3, true)], 0, 1), 0);
        let w = [(1, 1, true), (2, 1, false)];
        assert_eq!((starvation_bound(&w, 0, 1), starvation_bound(&w, 0, 2)), (1, 1));
        let w = [(1, 3, true), (2, 1, true), (3, 2, false), (4, 1, false)];
        let b: Vec<u64> = (1..=4).map(|q| starvation_bound(&w, 2, q)).collect();
        assert_eq!(b, [2, 5, 7, 11]);
        assert_eq!(starvation_bound(&w, 2, 5), u64::MAX, "not listed");
        assert_eq!(starvation_bound(&[(1, 0, true), (2, 1, true)], 2, 1), u64::MAX, "weight 0");
        assert_eq!(
            starvation_bound(&[(1, 0, true), (2, 1, true)], 2, 2),
            0,
            "weight 0 is out of the table"
        );
        assert_eq!(starvation_bound(&[(0, 1, true), (1, 1, true)], 2, 1), u64::MAX, "saturated control");
        assert_eq!(starvation_bound(&[(0, 1, true), (1, 1, true)], 2, 0), 0);
        assert_eq!(
            starvation_bound(&[(1, 9, true), (1, 1, false), (2, 1, false)], 0, 2),
            1,
            "last entry counts"
        );
    }

    #[test]
    fn measured_gaps_respect_the_bound() {
        let mut m = SchedModel::new(SMALL).unwrap();
        // Exact cases: the bound is reached.
        let w = [(1, 3, true), (2, 1, true), (3, 2, false), (4, 1, false)];
        let r = fairness(&mut m, &w, 2, 2000);
        let gaps: Vec<u64> = r.queues.iter().map(|s| s.max_gap.unwrap_or(0)).collect();
        assert_eq!(gaps[2..], [7, 11], "low-table gaps are exact");
        // One queue alone in the high table, L = 0: the page's ⌈0 / 1⌉ = 0 would be exceeded.
        let w = [(1, 1, true), (2, 1, false)];
        let r = fairness(&mut m, &w, 0, 100);
        assert_eq!(r.get(1).and_then(|s| s.max_gap), Some(1));
        assert_eq!(starvation_bound(&w, 0, 1), 1);
        let w = [(1, 1, true), (2, 2, true), (3, 1, false)];
        let r = fairness(&mut m, &w, 1, 1000);
        assert_eq!(r.get(1).and_then(|s| s.max_gap), Some(starvation_bound(&w, 1, 1)));
        assert_eq!(starvation_bound(&w, 1, 1), 4);

        // Random configurations: never above the bound.
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut big = SchedModel::new(SchedConfig::default()).unwrap();
        for round in 0..40 {
            let (model, qn): (&mut SchedModel, u32) = if round % 2 == 0 { (&mut m, 5) } else { (&mut big, 32) };
            let count = rng.gen_range(1..qn.min(9));
            let mut qs: Vec<u32> = (1..qn).collect();
            let mut w = Vec::new();
            for _ in 0..count {
                let q = qs.swap_remove(rng.gen_range(0..qs.len()));
                w.push((q, rng.gen_range(0..6u8), rng.gen_bool(0.5)));
            }
            let limit = rng.gen_range(0..4u8);
            let r = fairness(model, &w, limit, 1500);
            assert_eq!(r.other, 0);
            for s in &r.queues {
                let b = starvation_bound(&w, limit, s.queue);
                if b == u64::MAX {
                    assert_eq!(s.served, 0, "{w:?} L {limit} q {}", s.queue);
                } else {
                    assert!(
                        s.max_gap.is_some_and(|g| g <= b),
                        "{w:?} L {limit}: q {} gap {:?} > bound {b}",
                        s.queue,
                        s.max_gap
                    );
                }
            }
        }
    }

    // ---- trace ----

    #[test]
    fn trace_parses_with_comments_and_blank_lines() {
        let text = "# header\n\nenq 3 100\n  deq   # trailing comment\nweight 31 255\ntick 0\ntick 12\n\t\n";
        let ops = parse_trace(text, &SchedConfig::default()).unwrap();
        assert_eq!(
            ops,
            [
                TraceOp::Enq { queue: 3, elem: 100 },
                TraceOp::Deq,
                TraceOp::Weight { queue: 31, w: 255 },
                TraceOp::Tick(0),
                TraceOp::Tick(12)
            ]
        );
        assert_eq!(parse_trace("", &SchedConfig::default()), Ok(vec![]));
    }

    #[test]
    fn trace_bad_lines_are_reported_with_their_number() {
        let cfg = SchedConfig::default();
        let cases = [
            ("enqueue 1 2", "unknown keyword 'enqueue'"),
            ("enq 1", "`enq` takes 2 fields"),
            ("enq 1 2 3", "(found 3)"),
            ("deq 1", "`deq` takes no field"),
            ("enq 32 1", "queue 32 is out of range"),
            ("enq 1 2048", "element 2048 is out of range (0..=2047)"),
            ("enq x 1", "queue 'x' is not a decimal number"),
            ("enq -1 1", "not a decimal number"),
            ("weight 1 256", "weight 256 is out of range"),
            ("weight 0 3", "control queue"),
            ("weight 2", "`weight` takes 2 fields"),
            ("tick", "`tick` takes 1 field:"),
            ("tick 99999999999999999999999", "too large"),
            ("Deq", "unknown keyword 'Deq'"),
        ];
        for (bad, msg) in cases {
            let text = format!("# ok\nenq 1 2\n\n{bad}\ndeq\n");
            let e = parse_trace(&text, &cfg).unwrap_err();
            assert_eq!(e.line, 4, "{bad}");
            assert!(e.message.contains(msg), "{bad}: {}", e.message);
            assert!(e.to_string().starts_with("line 4: "));
        }
        // Elements are checked against the configuration.
        assert!(parse_trace("enq 1 63", &SMALL).is_ok());
        assert_eq!(parse_trace("enq 1 64", &SMALL).unwrap_err().line, 1);
    }

    #[test]
    fn trace_replay_prints_each_dequeue() {
        let text = "enq 3 100\nenq 3 101\nenq 0 7\nenq 5 100\ndeq\ndeq\nweight 3 2\ndeq\nenq 4 1\ndeq\ndeq\ndeq";
        let ops = parse_trace(text, &SchedConfig::default()).unwrap();
        let mut m = SchedModel::new(SchedConfig::default()).unwrap();
        let out = run_trace(&mut m, &ops);
        assert_eq!(out, ["0 7", "3 100", "3 101", "4 1", "empty", "empty"]);
        assert_eq!(m.words[3], 0x0100_0002, "weight keeps the other fields");
        let o = m.step(&idle());
        assert_eq!((o.cnt_dup, o.cnt_bad_queue), (1, 0));
        // A deq as the very last line is collected.
        let ops = parse_trace("enq 9 9\ndeq", &SchedConfig::default()).unwrap();
        assert_eq!(run_trace(&mut m, &ops), ["9 9"]);
        assert_eq!(run_trace(&mut m, &[TraceOp::Deq, TraceOp::Deq]), ["empty", "empty"]);
        assert_eq!(run_trace(&mut m, &[TraceOp::Tick(5)]), Vec::<String>::new());
        // A bad queue of a small configuration is refused by the scheduler, not the parser.
        let mut s = SchedModel::new(SMALL).unwrap();
        let ops = parse_trace("enq 9 1\ndeq", &SMALL).unwrap();
        assert_eq!(run_trace(&mut s, &ops), ["empty"]);
        assert_eq!(s.step(&idle()).cnt_bad_queue, 1);
    }

    #[test]
    fn trace_weights_use_the_tracked_word() {
        let text = "weight 1 2\nweight 1 3\nenq 1 1\nenq 1 2\nenq 1 3\nenq 1 4\nenq 2 5\ndeq\ndeq\ndeq\ndeq\ndeq";
        let mut m = SchedModel::new(SchedConfig::default()).unwrap();
        let out = run_trace(&mut m, &parse_trace(text, &SchedConfig::default()).unwrap());
        assert_eq!(out, ["1 1", "1 2", "1 3", "2 5", "1 4"]);
        assert_eq!(m.words[1], 0x0100_0003);
    }

    // ---- co-simulation ----

    /// A model whose outputs are corrupted from cycle `at` on (after reset).
    struct Faulty {
        inner: SchedModel,
        cycle: u64,
        at: u64,
        fault: fn(&mut SchedOut),
        hit: Option<u64>,
    }

    impl SchedEngine for Faulty {
        fn reset(&mut self) {
            self.inner.reset();
            self.cycle = 0;
            self.hit = None;
        }
        fn step(&mut self, i: &SchedIn) -> SchedOut {
            let mut o = self.inner.step(i);
            let before = o.clone();
            if self.cycle >= self.at && self.hit.is_none() {
                (self.fault)(&mut o);
                if o != before {
                    self.hit = Some(self.cycle);
                }
            }
            self.cycle += 1;
            o
        }
        fn config(&self) -> SchedConfig {
            self.inner.config()
        }
    }

    fn faulty(cfg: SchedConfig, at: u64, fault: fn(&mut SchedOut)) -> Faulty {
        Faulty {
            inner: SchedModel::new(cfg).unwrap(),
            cycle: 0,
            at,
            fault,
            hit: None,
        }
    }

    fn wrong_elem(o: &mut SchedOut) {
        if o.deq_ok {
            o.deq_elem ^= 1;
        }
    }

    fn extra_dup(o: &mut SchedOut) {
        o.cnt_dup = o.cnt_dup.wrapping_add(1);
    }

    #[test]
    fn cosim_model_against_model_covers_the_corners() {
        for (cfg, cycles) in [(SMALL, 60_000), (SchedConfig::default(), 60_000)] {
            let mut a = SchedModel::new(cfg).unwrap();
            let mut b = SchedModel::new(cfg).unwrap();
            let s = cosim(&mut a, &mut b, 1, cycles).unwrap();
            eprintln!("{cfg:?}: {s:?}");
            assert_eq!(s.cycles, cycles as u64);
            assert!(s.enqueues > 1000 && s.dequeues > 1000, "{s:?}");
            assert!(s.dups > 0 && s.dup_of_dequeued > 0, "{s:?}");
            assert!(s.empty_decisions > 0 && s.back_to_back_same_queue > 0, "{s:?}");
            assert!(s.same_cycle_enq_deq > 0 && s.same_cycle_enq_deq_last > 0, "{s:?}");
            assert!(s.held_requests > 0 && s.cfg_writes > 0, "{s:?}");
            assert!(s.pool_full > 0 && s.drained > 0, "{s:?}");
            assert_eq!(s.max_total_occupancy, cfg.nodes());
            assert_eq!(s.bad_queues > 0, cfg.queues < MAX_QUEUES, "{s:?}");
        }
    }

    #[test]
    fn cosim_names_the_first_difference() {
        let mut a = SchedModel::new(SMALL).unwrap();
        let mut b = faulty(SMALL, 700, wrong_elem);
        let e = cosim(&mut a, &mut b, 3, 5000).unwrap_err();
        let hit = b.hit.expect("the fault fired");
        assert!(e.starts_with(&format!("cycle {hit}: deq_elem: a = ")), "{e}");
        let mut b = faulty(SMALL, 900, extra_dup);
        let e = cosim(&mut a, &mut b, 3, 5000).unwrap_err();
        assert!(e.starts_with("cycle 900: cnt_dup: a = "), "{e}");
        let mut big = SchedModel::new(SchedConfig::default()).unwrap();
        assert!(cosim(&mut a, &mut big, 3, 10).unwrap_err().contains("differ in size"));
    }

    #[test]
    fn cosim_shadow_catches_a_bug_both_engines_share() {
        let mut a = faulty(SMALL, 700, wrong_elem);
        let mut b = faulty(SMALL, 700, wrong_elem);
        let e = cosim(&mut a, &mut b, 3, 5000).unwrap_err();
        let hit = a.hit.expect("the fault fired");
        assert!(e.starts_with(&format!("cycle {hit}: dequeued element")), "{e}");
        let mut a = faulty(SMALL, 900, extra_dup);
        let mut b = faulty(SMALL, 900, extra_dup);
        let e = cosim(&mut a, &mut b, 3, 5000).unwrap_err();
        assert!(e.starts_with("cycle 900: counters moved"), "{e}");
    }

    #[test]
    fn random_ops_are_deterministic_and_hold_requests() {
        let ops = random_ops(5, &SMALL, 3000);
        assert_eq!(ops, random_ops(5, &SMALL, 3000));
        assert_ne!(ops, random_ops(6, &SMALL, 3000));
        let mut m = SchedModel::new(SMALL).unwrap();
        let mut accepted = 0;
        for t in 0..ops.len() {
            let o = m.step(&ops[t]);
            for r in 0..REQUESTERS {
                match ops[t].enq[r] {
                    Some(req) if !o.enq_ready[r] => {
                        if let Some(next) = ops.get(t + 1) {
                            assert_eq!(next.enq[r], Some(req), "cycle {t}: requester {r} dropped its request");
                        }
                    }
                    Some(_) => accepted += 1,
                    None => {}
                }
            }
        }
        assert!(accepted > 500);
        assert!(ops.iter().any(|i| i.enq.iter().filter(|r| r.is_some()).count() == REQUESTERS));
        assert!(ops.iter().any(|i| i.cfg.is_some()) && ops.iter().any(|i| i.stall != 0));
        // Same run as cosim with the same seed.
        let mut a = SchedModel::new(SMALL).unwrap();
        let mut b = SchedModel::new(SMALL).unwrap();
        assert!(cosim(&mut a, &mut b, 5, 3000).is_ok());
        let mut c = SchedModel::new(SMALL).unwrap();
        for i in &ops {
            c.step(i);
        }
        assert_eq!(
            (a.queues.clone(), a.cnt_dup, a.cnt_bad_queue),
            (c.queues, c.cnt_dup, c.cnt_bad_queue)
        );
    }

    // ---- invariants ----

    const PROP: SchedConfig = SchedConfig { node_bits: 4, queues: 5 };

    fn request() -> impl Strategy<Value = Option<(u32, u32)>> {
        prop::option::weighted(0.4, (0u32..7, 0u32..16))
    }

    fn cycle() -> impl Strategy<Value = SchedIn> {
        let stall = prop_oneof![4 => Just(0u32), 1 => 0u32..32];
        let cfg = prop::option::weighted(0.05, (prop_oneof![0u32..7, Just(REG_LIMIT)], any::<u32>()));
        (request(), request(), request(), request(), any::<bool>(), stall, cfg).prop_map(|(a, b, c, d, deq, stall, cfg)| SchedIn {
            enq: [a, b, c, d],
            deq,
            stall,
            cfg,
        })
    }

    /// An independent check of the FIFO rules from the outputs alone.
    struct Invariants {
        fifo: Vec<VecDeque<u32>>,
        queued_in: Vec<Option<u32>>,
        accepted: Vec<Option<(u32, u32)>>,
        /// The commit of the previous cycle whose outcome the counters showed, applied after
        /// that cycle's decision.
        commit_due: Option<(u32, u32)>,
        due: ResultsDue,
        prev: (u32, u32),
        commits: Vec<u32>,
        dequeues: Vec<u32>,
        n_accepted: u64,
    }

    impl Invariants {
        fn new() -> Invariants {
            let n = PROP.nodes();
            Invariants {
                fifo: vec![VecDeque::new(); PROP.queues],
                queued_in: vec![None; n],
                accepted: vec![None, None],
                commit_due: None,
                due: ResultsDue::default(),
                prev: (0, 0),
                commits: vec![0; n],
                dequeues: vec![0; n],
                n_accepted: 0,
            }
        }

        fn cycle(&mut self, i: &SchedIn, o: &SchedOut) -> Result<(), TestCaseError> {
            let mut lower = false;
            for r in 0..REQUESTERS {
                prop_assert_eq!(o.enq_ready[r], o.init_done && !lower);
                lower |= i.enq[r].is_some();
            }
            prop_assert_eq!(o.deq_valid, self.due.now());
            // The decision of two cycles ago, then that cycle's commit.
            let mut taken = None;
            if o.deq_valid && o.deq_ok {
                let q = o.deq_queue as usize;
                prop_assert!(q < PROP.queues);
                prop_assert_eq!(self.fifo[q].pop_front(), Some(o.deq_elem), "FIFO order of queue {}", q);
                prop_assert_eq!(self.queued_in[o.deq_elem as usize].take(), Some(q as u32));
                self.dequeues[o.deq_elem as usize] += 1;
                taken = Some(o.deq_elem);
            } else {
                prop_assert_eq!((o.deq_ok, o.deq_queue, o.deq_elem), (false, 0, 0));
            }
            if let Some((q, e)) = self.commit_due.take() {
                self.fifo[q as usize].push_back(e);
                self.queued_in[e as usize] = Some(q);
                self.commits[e as usize] += 1;
            }
            // Commit of the request accepted two cycles ago, judged on the queues at its start and
            // the element the decision before it took.
            let commit = self.accepted.remove(0);
            let refused = commit.map(|(q, e)| {
                (
                    q >= PROP.queues as u32,
                    q < PROP.queues as u32 && (self.queued_in[e as usize].is_some() || taken == Some(e)),
                )
            });
            let (bad, dup) = refused.unwrap_or((false, false));
            prop_assert_eq!(o.cnt_dup.wrapping_sub(self.prev.0), u32::from(dup));
            prop_assert_eq!(o.cnt_bad_queue.wrapping_sub(self.prev.1), u32::from(bad));
            self.prev = (o.cnt_dup, o.cnt_bad_queue);
            if let (Some(c), false, false) = (commit, bad, dup) {
                self.commit_due = Some(c);
            }
            let now = (0..REQUESTERS)
                .find(|&r| i.enq[r].is_some() && o.enq_ready[r])
                .and_then(|r| i.enq[r]);
            self.n_accepted += u64::from(now.is_some());
            self.accepted.push(now.map(|(q, e)| (q & 31, e)));
            self.due.step(o.init_done && i.deq);
            Ok(())
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

        #[test]
        fn fifo_invariants_hold(ops in prop::collection::vec(cycle(), 1..300)) {
            let mut m = SchedModel::new(PROP).unwrap();
            let mut inv = Invariants::new();
            for i in &ops {
                let o = m.step(i);
                inv.cycle(i, &o)?;
            }
            // Drain: every queue servable, no stall, a decision every cycle.
            for q in 0..PROP.queues as u32 {
                let i = write(q, cfg_word(1, 0, 0, q % 2 == 0, false));
                let o = m.step(&i);
                inv.cycle(&i, &o)?;
            }
            for _ in 0..PROP.nodes() + 8 {
                let i = deq();
                let o = m.step(&i);
                // The shadow still holds the queues at the start of the decision's cycle.
                if o.deq_valid && !o.deq_ok {
                    prop_assert!(inv.fifo.iter().all(VecDeque::is_empty), "empty decision with queued elements");
                }
                inv.cycle(&i, &o)?;
            }
            let mut o = m.step(&idle());
            inv.cycle(&idle(), &o)?;
            for _ in 1..DECISION_LATENCY {
                o = m.step(&idle());
                inv.cycle(&idle(), &o)?;
            }
            prop_assert!(inv.fifo.iter().all(VecDeque::is_empty));
            prop_assert_eq!(m.occupancy(), 0);
            // Exactly once: every committed element was dequeued as often as it was committed.
            prop_assert_eq!(&inv.commits, &inv.dequeues);
            let committed: u64 = inv.commits.iter().map(|&c| u64::from(c)).sum();
            prop_assert_eq!(committed + u64::from(o.cnt_dup) + u64::from(o.cnt_bad_queue), inv.n_accepted);
        }
    }
}
