//! The scheduler, [`Sched`]: shared-space scheduling FIFOs and the QoS arbiter.
//! `docs/sched.md` is the specification, to the cycle; the software model is
//! `ferroce_models::sched::SchedModel`.
//!
//! ```text
//!  enq0..3 ─► E1 accept ─► E2 commit (lists) ─────────────┐ commit, last_element (one-hot)
//!                                                          ▼
//!  deq_req, stall ─► D1 decide (arbiter, token_ok) ─► pop ─► D2 pop (lists) ─► deq_* (registered)
//!                         │ served                      (one-hot, registered)
//!                         ▼
//!                    token buckets ─► token_ok (registered)
//! ```
//!
//! | stage | block | work (LUT levels) |
//! |---|---|---|
//! | E1 | [`Sched`] | fixed-priority accept (requester 0 first); addresses the parity and tail RAMs (2) |
//! | E2 | [`lists::SharedLists`] | duplicate check, link, head/tail (6) |
//! | D1 | [`arbiter::Arbiter`] | decision from registered eligibility: the served queue, one-hot, registered; look-ahead emptiness, pointers, credits, limit of high priority (6) |
//! | D1 | [`buckets::TokenBuckets`] | every token outcome from registers, picked by the decision (6) |
//! | D2 | [`lists::SharedLists`] | the decided queue's head leaves; `B` written, `next[head]` read (5) |
//! | out | [`Sched`] | `deq_*` registered: a decision made in cycle t is on the outputs in t + 2 |
//!
//! The blocks exchange registered values one way and combinational values the other way only
//! (the lists' commit and last-element flags feed the arbiter, whose decision reaches the lists
//! registered): rust-hdl puts each block's logic in one `always @(*)`, and a pair exchanging
//! combinational signals both ways reads to Verilator as a loop (UNOPTFLAT).

pub mod arbiter;
pub mod buckets;
pub mod lists;
pub mod pacers;
pub mod serial;

use crate::common::attributes::{is_one_bit_memory, module_name, with_attributes, BLOCK_RAM};
use crate::common::counter::EventCounter;
use crate::common::elab::c;
use arbiter::Arbiter;
use buckets::TokenBuckets;
use ferroce_contracts::sched as contract;
use lists::SharedLists;
use rust_hdl::prelude::*;

/// Enqueue requesters (`enq0_*` has the highest priority).
pub const REQUESTERS: usize = 4;
/// Queues a scheduler can have (the register map and the `stall` port hold 32).
pub const MAX_QUEUES: usize = contract::MAX_QUEUES;
/// Register address of the limit of high priority.
pub const CFG_LIMIT_ADDR: u64 = contract::HIGH_LIMIT_ADDR as u64;
/// Reset value of a queue's configuration word: weight 1, high-priority table, no rate limit.
pub const CFG_RESET: u64 = contract::QUEUE_CONFIG_RESET as u64;
/// Reset value of the limit of high priority.
pub const LIMIT_RESET: u64 = contract::HIGH_LIMIT_RESET as u64;
/// Cycles from a decision (`deq_req` in cycle t) to its result on `deq_*` (cycle t + 2).
pub const DECISION_LATENCY: usize = 2;

/// The bit positions the arbiter and the token buckets read the configuration word at (weight,
/// rate, burst, high table, bucket enable), checked against the contract's layout at elaboration.
const QUEUE_CONFIG_OFFSETS: [usize; 5] = [0, 8, 16, 24, 25];

/// Parts of the one-hot to index conversion of a decision (see [`index_part`]).
const INDEX_PARTS: usize = 15;

/// Part `i % 3` of the queues `q < queues` whose index has bit `i / 3`, parts of at most 6
/// queues: the arbiter registers, per table, which part its choice is in (one LUT after the
/// choice), and the lists get the index of the popped queue from the registered parts in one
/// LUT level, the address of their head RAMs.
fn index_part(i: usize, queues: usize) -> Bits<32> {
    let with_bit: Vec<usize> = (0..queues).filter(|q| q >> (i / 3) & 1 == 1).collect();
    let part = with_bit.len().div_ceil(3).max(1);
    crate::common::elab::bits_from(|q| with_bit.iter().position(|&w| w == q).is_some_and(|p| p / part == i % 3))
}

/// The synthesis attributes of an emitted scheduler, added to its Verilog (rust-hdl has no
/// attributes of its own): `(* keep *)` on the arbiter's stage boundaries ([`arbiter::KEPT`]),
/// and, with `parity_in_block_ram`, `(* ram_style = "block" *)` on the two N×1 parity RAMs (left
/// alone, yosys maps a 2048×1 memory to 32 RAM64M8, 256 LUTs; Vivado honours the attribute
/// too).
pub fn synthesis_attributes(verilog: String, parity_in_block_ram: bool) -> String {
    with_attributes(verilog, |module, declaration| {
        let kept: &[&str] = if module_name(module).ends_with("__arbiter") {
            arbiter::KEPT
        } else {
            &[]
        };
        let name = declaration
            .strip_prefix("reg ")
            .and_then(|d| d.trim_end().strip_suffix(';'))
            .and_then(|d| d.rsplit(' ').next())
            .map(|n| n.split('$').next().unwrap_or(n));
        if parity_in_block_ram && is_one_bit_memory(module, declaration) {
            Some(BLOCK_RAM)
        } else if name.is_some_and(|n| kept.contains(&n)) {
            Some("(* keep *) ")
        } else {
            None
        }
    })
}

/// The scheduler: four enqueue requesters, the shared-space FIFOs over `2^AW` nodes (`EW = AW +
/// 1`: an element and its parity bit) for `Q` queues, the QoS arbiter, registered decisions and
/// the refusal counters. Ports and timing: `docs/sched.md`.
#[derive(LogicBlock)]
pub struct Sched<const AW: usize, const EW: usize, const Q: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties the queues, resets registers and counters; the initializer runs after it.
    pub reset: Signal<In, Bit>,
    /// High once the initializer has cleared the parity RAMs (N cycles after reset).
    pub init_done: Signal<Out, Bit>,
    /// Enqueue requester 0 (highest priority): valid.
    pub enq0_valid: Signal<In, Bit>,
    /// Enqueue requester 0: queue index.
    pub enq0_queue: Signal<In, Bits<5>>,
    /// Enqueue requester 0: element.
    pub enq0_elem: Signal<In, Bits<AW>>,
    /// Enqueue requester 0: ready (`init_done`).
    pub enq0_ready: Signal<Out, Bit>,
    /// Enqueue requester 1: valid.
    pub enq1_valid: Signal<In, Bit>,
    /// Enqueue requester 1: queue index.
    pub enq1_queue: Signal<In, Bits<5>>,
    /// Enqueue requester 1: element.
    pub enq1_elem: Signal<In, Bits<AW>>,
    /// Enqueue requester 1: ready (`init_done` and no requester with a lower index valid).
    pub enq1_ready: Signal<Out, Bit>,
    /// Enqueue requester 2: valid.
    pub enq2_valid: Signal<In, Bit>,
    /// Enqueue requester 2: queue index.
    pub enq2_queue: Signal<In, Bits<5>>,
    /// Enqueue requester 2: element.
    pub enq2_elem: Signal<In, Bits<AW>>,
    /// Enqueue requester 2: ready (`init_done` and no requester with a lower index valid).
    pub enq2_ready: Signal<Out, Bit>,
    /// Enqueue requester 3: valid.
    pub enq3_valid: Signal<In, Bit>,
    /// Enqueue requester 3: queue index.
    pub enq3_queue: Signal<In, Bits<5>>,
    /// Enqueue requester 3: element.
    pub enq3_elem: Signal<In, Bits<AW>>,
    /// Enqueue requester 3: ready (`init_done` and no requester with a lower index valid).
    pub enq3_ready: Signal<Out, Bit>,
    /// Make one arbiter decision this cycle.
    pub deq_req: Signal<In, Bit>,
    /// High two cycles after a decision ([`DECISION_LATENCY`]).
    pub deq_valid: Signal<Out, Bit>,
    /// The decision served a queue (0: nothing was eligible; `deq_queue` and `deq_elem` are then 0).
    pub deq_ok: Signal<Out, Bit>,
    /// The decision: served queue.
    pub deq_queue: Signal<Out, Bits<5>>,
    /// The decision: served element (the queue's head).
    pub deq_elem: Signal<Out, Bits<AW>>,
    /// Bit q: queue q's head can't be served now (no resource); the arbiter skips it.
    pub stall: Signal<In, Bits<32>>,
    /// Register write: enable.
    pub cfg_we: Signal<In, Bit>,
    /// Register write: address (queue q's configuration word at q, the limit of high priority at 64).
    pub cfg_addr: Signal<In, Bits<7>>,
    /// Register write: data.
    pub cfg_wdata: Signal<In, Bits<32>>,
    /// Counter: enqueues refused because the element was already queued.
    pub cnt_dup: Signal<Out, Bits<32>>,
    /// Counter: enqueues refused because the queue index was ≥ Q.
    pub cnt_bad_queue: Signal<Out, Bits<32>>,

    /// Stage D1.
    arbiter: Arbiter<Q>,
    /// Stages E2 and D2.
    lists: SharedLists<AW, EW, Q>,
    /// Token buckets (their logic is removed by synthesis when `token_buckets` is false).
    buckets: TokenBuckets<Q>,
    /// Registered decision: `deq_valid`.
    decision_valid: DFF<Bit>,
    /// Registered decision: `deq_ok`.
    decision_ok: DFF<Bit>,
    /// Registered decision: `deq_queue`.
    decision_queue: DFF<Bits<5>>,
    /// Registered decision: `deq_elem`.
    decision_elem: DFF<Bits<AW>>,
    /// Counter behind `cnt_dup`.
    duplicate_count: EventCounter,
    /// Counter behind `cnt_bad_queue`.
    bad_queue_count: EventCounter,
    /// Token buckets built (false: bit 25 of the queue words is ignored and the buckets vanish).
    token_buckets: Constant<Bit>,
    /// All 32 bits set.
    all_ones: Constant<Bits<32>>,
    /// Initialized and not in reset: requests and decisions are accepted.
    running: Signal<Local, Bit>,
    /// E1: an enqueue request is accepted.
    valid1: Signal<Local, Bit>,
    /// E1: queue index of the accepted request.
    queue1: Signal<Local, Bits<5>>,
    /// E1: element of the accepted request.
    elem1: Signal<Local, Bits<AW>>,
}

impl<const AW: usize, const EW: usize, const Q: usize> Default for Sched<AW, EW, Q> {
    fn default() -> Self {
        assert!(EW == AW + 1, "Sched: EW must be AW + 1");
        assert!((2..=MAX_QUEUES).contains(&Q), "Sched: 2 to 32 queues");
        assert!((2..=16).contains(&AW), "Sched: 4 to 65536 nodes");
        let offsets: Vec<usize> = contract::QUEUE_CONFIG.placements().iter().map(|p| p.offset).collect();
        assert_eq!(offsets, QUEUE_CONFIG_OFFSETS, "Sched: queue configuration word layout");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            init_done: Default::default(),
            enq0_valid: Default::default(),
            enq0_queue: Default::default(),
            enq0_elem: Default::default(),
            enq0_ready: Default::default(),
            enq1_valid: Default::default(),
            enq1_queue: Default::default(),
            enq1_elem: Default::default(),
            enq1_ready: Default::default(),
            enq2_valid: Default::default(),
            enq2_queue: Default::default(),
            enq2_elem: Default::default(),
            enq2_ready: Default::default(),
            enq3_valid: Default::default(),
            enq3_queue: Default::default(),
            enq3_elem: Default::default(),
            enq3_ready: Default::default(),
            deq_req: Default::default(),
            deq_valid: Default::default(),
            deq_ok: Default::default(),
            deq_queue: Default::default(),
            deq_elem: Default::default(),
            stall: Default::default(),
            cfg_we: Default::default(),
            cfg_addr: Default::default(),
            cfg_wdata: Default::default(),
            cnt_dup: Default::default(),
            cnt_bad_queue: Default::default(),
            arbiter: Default::default(),
            lists: Default::default(),
            buckets: Default::default(),
            decision_valid: Default::default(),
            decision_ok: Default::default(),
            decision_queue: Default::default(),
            decision_elem: Default::default(),
            duplicate_count: Default::default(),
            bad_queue_count: Default::default(),
            token_buckets: Constant::new(true),
            all_ones: c::<32>(0xffff_ffff),
            running: Default::default(),
            valid1: Default::default(),
            queue1: Default::default(),
            elem1: Default::default(),
        }
    }
}

impl<const AW: usize, const EW: usize, const Q: usize> Sched<AW, EW, Q> {
    /// A scheduler without token buckets (register bit 25 is ignored): the area of the buckets
    /// is the difference to [`Sched::default`].
    pub fn without_token_buckets() -> Self {
        Self {
            token_buckets: Constant::new(false),
            ..Default::default()
        }
    }
}

impl<const AW: usize, const EW: usize, const Q: usize> Logic for Sched<AW, EW, Q> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, decision_valid, decision_ok, decision_queue, decision_elem);
        self.running.next = self.lists.init_done.val() & !self.reset.val();
        self.init_done.next = self.lists.init_done.val();

        // ---- E1: enqueue requesters, fixed priority ----
        self.enq0_ready.next = self.running.val();
        self.enq1_ready.next = self.running.val() & !self.enq0_valid.val();
        self.enq2_ready.next = self.running.val() & !self.enq0_valid.val() & !self.enq1_valid.val();
        self.enq3_ready.next = self.running.val() & !self.enq0_valid.val() & !self.enq1_valid.val() & !self.enq2_valid.val();
        self.valid1.next =
            self.running.val() & (self.enq0_valid.val() | self.enq1_valid.val() | self.enq2_valid.val() | self.enq3_valid.val());
        if self.enq0_valid.val() {
            self.queue1.next = self.enq0_queue.val();
            self.elem1.next = self.enq0_elem.val();
        } else if self.enq1_valid.val() {
            self.queue1.next = self.enq1_queue.val();
            self.elem1.next = self.enq1_elem.val();
        } else if self.enq2_valid.val() {
            self.queue1.next = self.enq2_queue.val();
            self.elem1.next = self.enq2_elem.val();
        } else {
            self.queue1.next = self.enq3_queue.val();
            self.elem1.next = self.enq3_elem.val();
        }

        // ---- E2 and D2: the lists ----
        self.lists.clock.next = self.clock.val();
        self.lists.reset.next = self.reset.val();
        self.lists.enq_valid.next = self.valid1.val();
        self.lists.enq_queue.next = self.queue1.val();
        self.lists.enq_elem.next = self.elem1.val();
        self.lists.pop.next = self.arbiter.pop.val();
        self.lists.pop_parts[0].next = self.arbiter.pop_parts[0].val();
        self.lists.pop_parts[1].next = self.arbiter.pop_parts[1].val();

        // ---- D1: the arbiter and the token buckets ----
        self.arbiter.clock.next = self.clock.val();
        self.arbiter.reset.next = self.reset.val();
        self.arbiter.running.next = self.running.val();
        self.arbiter.deq_req.next = self.deq_req.val();
        self.arbiter.stall.next = self.stall.val();
        self.arbiter.commit.next = self.lists.commit.val();
        self.arbiter.last_element.next = self.lists.last_element.val();
        self.arbiter.cfg_we.next = self.cfg_we.val();
        self.arbiter.cfg_addr.next = self.cfg_addr.val();
        self.arbiter.cfg_wdata.next = self.cfg_wdata.val();
        self.buckets.clock.next = self.clock.val();
        self.buckets.reset.next = self.reset.val();
        self.buckets.cfg_we.next = self.cfg_we.val();
        self.buckets.cfg_addr.next = self.cfg_addr.val();
        self.buckets.cfg_wdata.next = self.cfg_wdata.val();
        self.buckets.served_high.next = self.arbiter.served_high.val();
        self.buckets.served_low.next = self.arbiter.served_low.val();
        self.buckets.served_control.next = self.arbiter.served_control.val();
        self.arbiter.token_if_idle.next = self.all_ones.val();
        self.arbiter.token_if_served.next = self.all_ones.val();
        if self.token_buckets.val() {
            self.arbiter.token_if_idle.next = self.buckets.token_if_idle.val();
            self.arbiter.token_if_served.next = self.buckets.token_if_served.val();
        }

        // ---- outputs: the decision registered at the end of D2, counters ----
        self.decision_valid.d.next = self.arbiter.decided.val();
        self.decision_ok.d.next = self.arbiter.pop.val().any();
        self.decision_queue.d.next = self.lists.pop_queue.val();
        self.decision_elem.d.next = 0.into();
        if self.arbiter.pop.val().any() {
            self.decision_elem.d.next = self.lists.pop_elem.val();
        }
        self.duplicate_count.clock.next = self.clock.val();
        self.duplicate_count.reset.next = self.reset.val();
        self.duplicate_count.increment.next = self.lists.duplicate.val();
        self.bad_queue_count.clock.next = self.clock.val();
        self.bad_queue_count.reset.next = self.reset.val();
        self.bad_queue_count.increment.next = self.lists.bad_queue.val();
        self.deq_valid.next = self.decision_valid.q.val();
        self.deq_ok.next = self.decision_ok.q.val();
        self.deq_queue.next = self.decision_queue.q.val();
        self.deq_elem.next = self.decision_elem.q.val();
        self.cnt_dup.next = self.duplicate_count.count.val();
        self.cnt_bad_queue.next = self.bad_queue_count.count.val();
        if self.reset.val() {
            self.decision_valid.d.next = false;
            self.decision_ok.d.next = false;
            self.decision_queue.d.next = 0.into();
            self.decision_elem.d.next = 0.into();
        }
    }
}
