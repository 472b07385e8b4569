//! The scheduler, [`Sched`]: shared-space scheduling FIFOs and the QoS arbiter.
//! `docs/sched.md` is the specification, to the cycle; the software model is
//! `ferroce_models::sched::SchedModel`.
//!
//! Storage follows the source engine (the QoS engine of
//! *Hardware Support for Quality of Service in an RDMA Engine* (Bartzis)): one next-pointer RAM shared by every
//! queue, and per queue only `{empty, head, tail}`. A dequeue reads `next[head]` from the block
//! RAM; while that read is in flight (one cycle) the queue's head *is* the RAM output, so
//! back-to-back dequeues of one queue need no stall. "An element sits in at most one queue" is
//! kept with two N×1 parity RAMs (`A` written by enqueue commits, `B` by dequeues; queued iff
//! `A[e] ≠ B[e]`): the parity written into `A` at the enqueue travels with the element through
//! the list (top bit of the head registers and of the next-pointer entries) and is copied into
//! `B` when the element is dequeued, so each RAM has one write port and infers as block RAM.
//!
//! Enqueue pipeline: E1 accepts a request (fixed priority, requester 0 first) and addresses the
//! parity RAMs; E2 checks the parities (forwarded from the previous cycle's writes) and links
//! the element. A dequeue decides from the state at the start of the cycle, so an enqueue and a
//! dequeue of one queue in one cycle work whatever the queue holds. Signal names ending in `1` /
//! `2` (`valid1`, `elem2`, `tail2`, ...) belong to stage E1 / E2.

use crate::common::elab::c;
use ferroce_contracts::sched as contract;
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

/// The bit positions `update` reads the configuration word at (weight, rate, burst, high table,
/// bucket enable), checked against the contract's layout at elaboration.
const QUEUE_CONFIG_OFFSETS: [usize; 5] = [0, 8, 16, 24, 25];

/// Marks the two N×1 parity RAMs `(* ram_style = "block" *)` in emitted Verilog. Left alone,
/// yosys maps a 2048×1 memory to 32 RAM64M8 (256 LUTs); Vivado honours the attribute too.
/// rust-hdl's `RAM` has no attribute of its own, so the declaration is marked after emission.
pub fn parity_rams_in_block_ram(verilog: String) -> String {
    let mut out = String::with_capacity(verilog.len() + 64);
    for line in verilog.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with("reg[0:0] mem[") {
            out.push_str(&line[..line.len() - t.len()]);
            out.push_str("(* ram_style = \"block\" *) ");
            out.push_str(t);
        } else {
            out.push_str(line);
        }
    }
    out
}

fn queue_indices() -> [Constant<Bits<5>>; 32] {
    std::array::from_fn(|q| c::<5>(q as u64))
}

/// The scheduler: four enqueue requesters, the shared-space FIFOs over `2^AW` nodes (`EW = AW +
/// 1`: an element and its parity bit) for `Q` queues, the QoS arbiter, registered decisions and
/// the refusal counters. Ports and timing: `docs/sched.md`.
///
/// One block on purpose: rust-hdl puts each block's logic in one `always @(*)`, and a
/// parent/child pair that exchanges combinational signals both ways reads to Verilator as a
/// combinational loop (UNOPTFLAT); the arbiter and the FIFOs exchange the decision both ways.
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
    /// High the cycle after a decision.
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
    /// Registered decision: `deq_valid`.
    decision_valid: DFF<Bit>,
    /// Registered decision: `deq_ok`.
    decision_ok: DFF<Bit>,
    /// Registered decision: `deq_queue`.
    decision_queue: DFF<Bits<5>>,
    /// Registered decision: `deq_elem`.
    decision_elem: DFF<Bits<AW>>,
    /// Counter behind `cnt_dup`.
    duplicate_count: DFF<Bits<32>>,
    /// Counter behind `cnt_bad_queue`.
    bad_queue_count: DFF<Bits<32>>,
    /// Initialized and not in reset: requests and decisions are accepted.
    running: Signal<Local, Bit>,
    /// Next-pointer RAM shared by every queue: `{parity, next element}` per element.
    next_pointers: RAM<Bits<EW>, AW>,
    /// Parity RAM `A`, written by enqueue commits.
    parity_a: RAM<Bit, AW>,
    /// Parity RAM `B`, written by dequeues.
    parity_b: RAM<Bit, AW>,
    /// Per queue: `{parity, element}` of the head.
    head: [DFF<Bits<EW>>; Q],
    /// Per queue: the tail element.
    tail: [DFF<Bits<AW>>; Q],
    /// Per queue: empty flag.
    empty: DFF<Bits<32>>,
    /// Per queue: exactly one element (head == tail); not kept for the pending queue.
    single: DFF<Bits<32>>,
    /// A dequeue's next-pointer read is in flight: `pending_queue`'s head is the RAM output.
    pending: DFF<Bit>,
    /// The queue whose next-pointer read is in flight.
    pending_queue: DFF<Bits<5>>,
    /// E2: an enqueue request is being checked.
    valid2: DFF<Bit>,
    /// E2: queue index.
    queue2: DFF<Bits<5>>,
    /// E2: element.
    elem2: DFF<Bits<AW>>,
    /// Last cycle's write of `A` (forwarded to E2): enable.
    forward_a_valid: DFF<Bit>,
    /// Last cycle's write of `A`: element.
    forward_a_elem: DFF<Bits<AW>>,
    /// Last cycle's write of `A`: parity.
    forward_a_parity: DFF<Bit>,
    /// Last cycle's write of `B` (forwarded to E2): enable.
    forward_b_valid: DFF<Bit>,
    /// Last cycle's write of `B`: element.
    forward_b_elem: DFF<Bits<AW>>,
    /// Last cycle's write of `B`: parity.
    forward_b_parity: DFF<Bit>,
    /// Initializer: the element whose parities are cleared this cycle.
    init_count: DFF<Bits<AW>>,
    /// Initializer finished (`init_done`).
    initialized: DFF<Bit>,
    /// Bit q set for q < Q.
    valid_queues: Constant<Bits<32>>,
    /// The parity bit of an entry (bit AW).
    parity_bit: Constant<Bits<EW>>,
    /// E2: `A[elem2]`, with last cycle's write forwarded.
    effective_parity_a: Signal<Local, Bit>,
    /// E2: `B[elem2]`, with last cycle's write forwarded.
    effective_parity_b: Signal<Local, Bit>,
    /// E2: queue index < Q.
    queue_in_range: Signal<Local, Bit>,
    /// E2: the enqueue is accepted (queue in range, element not queued).
    commit: Signal<Local, Bit>,
    /// E2: the parity written into `A` (the inverse of `A`'s current value).
    enqueue_parity: Signal<Local, Bit>,
    /// E2: `{enqueue_parity, elem2}`, linked into the queue.
    enqueue_entry: Signal<Local, Bits<EW>>,
    /// `{parity, element}` at the head of `selected_queue`.
    selected_head: Signal<Local, Bits<EW>>,
    /// Parity of `selected_head`, copied into `B` on a dequeue.
    selected_parity: Signal<Local, Bit>,
    /// Tail of `pending_queue`.
    pending_tail: Signal<Local, Bits<AW>>,
    /// `pending_queue`'s new head (the RAM output) is its tail.
    pending_single: Signal<Local, Bit>,
    /// `single` with `pending_single` in place of the pending queue's flag.
    single_effective: Signal<Local, Bits<32>>,
    /// Per-queue loop: bit q of `single_effective`.
    queue_single: Signal<Local, Bit>,
    /// E2: tail of `queue2`.
    tail2: Signal<Local, Bits<AW>>,
    /// `selected_queue` has one element.
    selected_single: Signal<Local, Bit>,
    /// E2: `queue2` is empty at the start of the cycle.
    empty2: Signal<Local, Bit>,
    /// Per-queue loop: queue q is dequeued this cycle.
    queue_dequeued: Signal<Local, Bit>,
    /// Per-queue loop: queue q takes the enqueue this cycle.
    queue_enqueued: Signal<Local, Bit>,
    /// Per queue: configuration word (weight, rate, burst, table, token bucket enable).
    queue_config: [DFF<Bits<26>>; Q],
    /// Per queue: token bucket level (8.8 fixed point).
    level: [DFF<Bits<16>>; Q],
    /// Limit of high priority: high-table decisions in a row while the low table waits.
    high_limit: DFF<Bits<8>>,
    /// High table: round-robin pointer.
    high_pointer: DFF<Bits<5>>,
    /// High table: queues after `high_pointer` in cyclic order (a thermometer mask kept with the pointer).
    high_after_mask: DFF<Bits<32>>,
    /// Per queue: weight ≠ 0, kept as a flag.
    weight_nonzero: DFF<Bits<32>>,
    /// Per queue: a whole token in the bucket (level ≥ 256), kept as a flag.
    whole_token: DFF<Bits<32>>,
    /// Low table: queues after `low_pointer` in cyclic order.
    low_after_mask: DFF<Bits<32>>,
    /// Low table: round-robin pointer.
    low_pointer: DFF<Bits<5>>,
    /// High table: the pointer's credit + 1.
    high_credit: DFF<Bits<8>>,
    /// Low table: the pointer's credit + 1.
    low_credit: DFF<Bits<8>>,
    /// High-table decisions since the last low-table one, counted while the low table has eligible queues
    /// (`hcount` in `docs/sched.md`).
    high_streak: DFF<Bits<9>>,
    /// Register address of queue q's configuration word.
    queue_config_addr: [Constant<Bits<7>>; 32],
    /// Register address of the limit of high priority.
    high_limit_addr: Constant<Bits<7>>,
    /// Reset value of a queue's configuration word.
    queue_config_reset: Constant<Bits<26>>,
    /// Reset value of the limit of high priority.
    high_limit_reset: Constant<Bits<8>>,
    /// All 32 bits set.
    all_ones: Constant<Bits<32>>,
    /// Every queue but queue 0 (the control queue, outside the tables).
    except_queue0: Constant<Bits<32>>,
    /// Per queue: available, and a whole token when its bucket is enabled.
    eligible: Signal<Local, Bits<32>>,
    /// Eligible queues of the high table.
    high_eligible: Signal<Local, Bits<32>>,
    /// Eligible queues of the low table.
    low_eligible: Signal<Local, Bits<32>>,
    /// Per-queue loop: queue q has a token or its bucket is disabled.
    token_ok: Signal<Local, Bit>,
    /// Eligible queues of the high table after `high_pointer`.
    high_eligible_after: Signal<Local, Bits<32>>,
    /// Eligible queues of the low table after `low_pointer`.
    low_eligible_after: Signal<Local, Bits<32>>,
    /// `high_eligible_after` is not empty (found so far in the loop).
    high_found_after: Signal<Local, Bit>,
    /// `high_eligible` is not empty (found so far in the loop).
    high_found_any: Signal<Local, Bit>,
    /// `low_eligible_after` is not empty (found so far in the loop).
    low_found_after: Signal<Local, Bit>,
    /// `low_eligible` is not empty (found so far in the loop).
    low_found_any: Signal<Local, Bit>,
    /// First queue of `high_eligible_after`.
    high_first_after: Signal<Local, Bits<5>>,
    /// First queue of `high_eligible`.
    high_first_any: Signal<Local, Bits<5>>,
    /// First queue of `low_eligible_after`.
    low_first_after: Signal<Local, Bits<5>>,
    /// First queue of `low_eligible`.
    low_first_any: Signal<Local, Bits<5>>,
    /// High table: stay on the pointer (eligible, credit left).
    high_stay: Signal<Local, Bit>,
    /// Low table: stay on the pointer (eligible, credit left).
    low_stay: Signal<Local, Bit>,
    /// High table: the queue it would serve.
    high_choice: Signal<Local, Bits<5>>,
    /// Low table: the queue it would serve.
    low_choice: Signal<Local, Bits<5>>,
    /// Weight of `high_choice`.
    high_weight: Signal<Local, Bits<8>>,
    /// Weight of `low_choice`.
    low_weight: Signal<Local, Bits<8>>,
    /// The decision comes from the high table.
    take_high: Signal<Local, Bit>,
    /// The decision comes from the low table.
    take_low: Signal<Local, Bit>,
    /// A decision serves `selected_queue` this cycle.
    dequeue: Signal<Local, Bit>,
    /// Token-bucket loop: queue q is served and its bucket is enabled.
    served: Signal<Local, Bit>,
    /// Token-bucket loop: queue q's level.
    level_now: Signal<Local, Bits<16>>,
    /// Token-bucket loop: queue q's rate.
    rate: Signal<Local, Bits<8>>,
    /// Token-bucket loop: queue q's burst.
    burst: Signal<Local, Bits<8>>,
    /// Token-bucket loop: level + rate.
    level_sum: Signal<Local, Bits<17>>,
    /// Token-bucket loop: burst in 8.8.
    level_cap: Signal<Local, Bits<17>>,
    /// Token-bucket loop: level + rate − one token.
    level_spent: Signal<Local, Bits<17>>,
    /// Token-bucket loop: next level if not served.
    level_idle: Signal<Local, Bits<17>>,
    /// Token-bucket loop: next level if served.
    level_served: Signal<Local, Bits<17>>,
    /// Queue indices as 5-bit constants.
    queue_index: [Constant<Bits<5>>; 32],
    /// Token buckets built (false: bit 25 of the queue words is ignored and the buckets vanish).
    token_buckets: Constant<Bit>,
    /// The queue the arbiter selects (0 if none).
    selected_queue: Signal<Local, Bits<5>>,
    /// Some queue is eligible.
    selected_valid: Signal<Local, Bit>,
    /// E1: an enqueue request is accepted.
    valid1: Signal<Local, Bit>,
    /// E1: queue index of the accepted request.
    queue1: Signal<Local, Bits<5>>,
    /// E1: element of the accepted request.
    elem1: Signal<Local, Bits<AW>>,
    /// Element at the head of `selected_queue`.
    selected_elem: Signal<Local, Bits<AW>>,
    /// Per queue: not empty.
    nonempty: Signal<Local, Bits<32>>,
    /// E2: enqueue refused, element already queued.
    duplicate: Signal<Local, Bit>,
    /// E2: enqueue refused, queue index ≥ Q.
    bad_queue: Signal<Local, Bit>,
    /// Per queue: not empty and not stalled.
    available: Signal<Local, Bits<32>>,
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
            decision_valid: Default::default(),
            decision_ok: Default::default(),
            decision_queue: Default::default(),
            decision_elem: Default::default(),
            duplicate_count: Default::default(),
            bad_queue_count: Default::default(),
            running: Default::default(),
            next_pointers: Default::default(),
            parity_a: Default::default(),
            parity_b: Default::default(),
            head: std::array::from_fn(|_| Default::default()),
            tail: std::array::from_fn(|_| Default::default()),
            empty: Default::default(),
            single: Default::default(),
            pending: Default::default(),
            pending_queue: Default::default(),
            valid2: Default::default(),
            queue2: Default::default(),
            elem2: Default::default(),
            forward_a_valid: Default::default(),
            forward_a_elem: Default::default(),
            forward_a_parity: Default::default(),
            forward_b_valid: Default::default(),
            forward_b_elem: Default::default(),
            forward_b_parity: Default::default(),
            init_count: Default::default(),
            initialized: Default::default(),
            valid_queues: c::<32>(if Q == 32 { 0xffff_ffff } else { (1u64 << Q) - 1 }),
            parity_bit: Constant::new(Bits::<EW>::from(1u64 << AW)),
            effective_parity_a: Default::default(),
            effective_parity_b: Default::default(),
            queue_in_range: Default::default(),
            commit: Default::default(),
            enqueue_parity: Default::default(),
            enqueue_entry: Default::default(),
            selected_head: Default::default(),
            selected_parity: Default::default(),
            pending_tail: Default::default(),
            pending_single: Default::default(),
            single_effective: Default::default(),
            queue_single: Default::default(),
            tail2: Default::default(),
            selected_single: Default::default(),
            empty2: Default::default(),
            queue_dequeued: Default::default(),
            queue_enqueued: Default::default(),
            queue_config: std::array::from_fn(|_| Default::default()),
            level: std::array::from_fn(|_| Default::default()),
            high_limit: Default::default(),
            high_pointer: Default::default(),
            high_after_mask: Default::default(),
            weight_nonzero: Default::default(),
            whole_token: Default::default(),
            low_after_mask: Default::default(),
            low_pointer: Default::default(),
            high_credit: Default::default(),
            low_credit: Default::default(),
            high_streak: Default::default(),
            queue_config_addr: std::array::from_fn(|q| c::<7>(q as u64)),
            high_limit_addr: c::<7>(CFG_LIMIT_ADDR),
            queue_config_reset: c::<26>(CFG_RESET),
            high_limit_reset: c::<8>(LIMIT_RESET),
            all_ones: c::<32>(0xffff_ffff),
            except_queue0: c::<32>(0xffff_fffe),
            eligible: Default::default(),
            high_eligible: Default::default(),
            low_eligible: Default::default(),
            token_ok: Default::default(),
            high_eligible_after: Default::default(),
            low_eligible_after: Default::default(),
            high_found_after: Default::default(),
            high_found_any: Default::default(),
            low_found_after: Default::default(),
            low_found_any: Default::default(),
            high_first_after: Default::default(),
            high_first_any: Default::default(),
            low_first_after: Default::default(),
            low_first_any: Default::default(),
            high_stay: Default::default(),
            low_stay: Default::default(),
            high_choice: Default::default(),
            low_choice: Default::default(),
            high_weight: Default::default(),
            low_weight: Default::default(),
            take_high: Default::default(),
            take_low: Default::default(),
            dequeue: Default::default(),
            served: Default::default(),
            level_now: Default::default(),
            rate: Default::default(),
            burst: Default::default(),
            level_sum: Default::default(),
            level_cap: Default::default(),
            level_spent: Default::default(),
            level_idle: Default::default(),
            level_served: Default::default(),
            queue_index: queue_indices(),
            token_buckets: Constant::new(true),
            selected_queue: Default::default(),
            selected_valid: Default::default(),
            valid1: Default::default(),
            queue1: Default::default(),
            elem1: Default::default(),
            selected_elem: Default::default(),
            nonempty: Default::default(),
            duplicate: Default::default(),
            bad_queue: Default::default(),
            available: Default::default(),
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
        dff_setup!(
            self,
            clock,
            decision_valid,
            decision_ok,
            decision_queue,
            decision_elem,
            duplicate_count,
            bad_queue_count,
            empty,
            pending,
            pending_queue,
            valid2,
            queue2,
            elem2,
            forward_a_valid,
            forward_a_elem,
            forward_a_parity,
            forward_b_valid,
            forward_b_elem,
            forward_b_parity,
            init_count,
            initialized,
            high_limit,
            high_pointer,
            low_pointer,
            high_credit,
            low_credit,
            high_streak,
            single,
            high_after_mask,
            low_after_mask,
            weight_nonzero,
            whole_token
        );
        self.running.next = self.initialized.q.val() & !self.reset.val();

        // ---- enqueue requesters, fixed priority ----
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

        // ---- eligibility inputs ----
        self.nonempty.next = !self.empty.q.val();
        self.available.next = self.nonempty.val() & !self.stall.val();

        // ================= QoS arbiter =================

        for q in 0..Q {
            self.queue_config[q].clock.next = self.clock.val();
            self.level[q].clock.next = self.clock.val();
            self.queue_config[q].d.next = self.queue_config[q].q.val();
        }

        // ---- eligibility: available, and a whole token when the bucket is enabled ----
        self.eligible.next = 0.into();
        self.high_eligible.next = 0.into();
        self.low_eligible.next = 0.into();
        for q in 0..Q {
            self.token_ok.next =
                !(self.token_buckets.val() & self.queue_config[q].q.val().get_bit(25)) | self.whole_token.q.val().get_bit(q);
            if self.available.val().get_bit(q) & self.token_ok.val() {
                self.eligible.next = self.eligible.val().replace_bit(q, true);
                if self.weight_nonzero.q.val().get_bit(q) {
                    if self.queue_config[q].q.val().get_bit(24) {
                        self.high_eligible.next = self.high_eligible.val().replace_bit(q, true);
                    } else {
                        self.low_eligible.next = self.low_eligible.val().replace_bit(q, true);
                    }
                }
            }
        }
        self.high_eligible.next = self.high_eligible.val() & self.except_queue0.val();
        self.low_eligible.next = self.low_eligible.val() & self.except_queue0.val();

        // ---- weighted round robin in each table: stay on the pointer while it has credit (the
        // credit registers hold the credit + 1, so a new turn loads the weight without a
        // subtraction), else the first eligible queue after the pointer in cyclic order ----
        self.high_eligible_after.next = self.high_eligible.val() & self.high_after_mask.q.val();
        self.low_eligible_after.next = self.low_eligible.val() & self.low_after_mask.q.val();
        self.high_found_after.next = false;
        self.high_found_any.next = false;
        self.low_found_after.next = false;
        self.low_found_any.next = false;
        self.high_first_after.next = 0.into();
        self.high_first_any.next = 0.into();
        self.low_first_after.next = 0.into();
        self.low_first_any.next = 0.into();
        for q in 0..Q {
            if !self.high_found_after.val() & self.high_eligible_after.val().get_bit(q) {
                self.high_found_after.next = true;
                self.high_first_after.next = self.queue_index[q].val();
            }
            if !self.high_found_any.val() & self.high_eligible.val().get_bit(q) {
                self.high_found_any.next = true;
                self.high_first_any.next = self.queue_index[q].val();
            }
            if !self.low_found_after.val() & self.low_eligible_after.val().get_bit(q) {
                self.low_found_after.next = true;
                self.low_first_after.next = self.queue_index[q].val();
            }
            if !self.low_found_any.val() & self.low_eligible.val().get_bit(q) {
                self.low_found_any.next = true;
                self.low_first_any.next = self.queue_index[q].val();
            }
        }
        self.high_stay.next =
            self.high_eligible.val().get_bit(self.high_pointer.q.val().index()) & self.high_credit.q.val().get_bits::<7>(1).any();
        self.low_stay.next =
            self.low_eligible.val().get_bit(self.low_pointer.q.val().index()) & self.low_credit.q.val().get_bits::<7>(1).any();
        if self.high_stay.val() {
            self.high_choice.next = self.high_pointer.q.val();
        } else if self.high_found_after.val() {
            self.high_choice.next = self.high_first_after.val();
        } else {
            self.high_choice.next = self.high_first_any.val();
        }
        if self.low_stay.val() {
            self.low_choice.next = self.low_pointer.q.val();
        } else if self.low_found_after.val() {
            self.low_choice.next = self.low_first_after.val();
        } else {
            self.low_choice.next = self.low_first_any.val();
        }
        self.high_weight.next = 0.into();
        self.low_weight.next = 0.into();
        for q in 0..Q {
            if self.high_choice.val() == self.queue_index[q].val() {
                self.high_weight.next = self.queue_config[q].q.val().get_bits::<8>(0);
            }
            if self.low_choice.val() == self.queue_index[q].val() {
                self.low_weight.next = self.queue_config[q].q.val().get_bits::<8>(0);
            }
        }

        // ---- classes: control (queue 0) > high table / low table with the limit of high priority
        self.take_high.next = false;
        self.take_low.next = false;
        self.selected_queue.next = 0.into();
        self.selected_valid.next = true;
        if self.eligible.val().get_bit(0) {
            self.selected_queue.next = 0.into();
        } else if self.high_eligible.val().any()
            & (!self.low_eligible.val().any() | (self.high_streak.q.val() <= bit_cast::<9, 8>(self.high_limit.q.val())))
        {
            self.take_high.next = true;
            self.selected_queue.next = self.high_choice.val();
        } else if self.low_eligible.val().any() {
            self.take_low.next = true;
            self.selected_queue.next = self.low_choice.val();
        } else {
            self.selected_valid.next = false;
        }
        self.dequeue.next = self.deq_req.val() & self.running.val() & self.selected_valid.val();
        if self.dequeue.val() & self.take_high.val() {
            if self.high_stay.val() {
                self.high_credit.d.next = self.high_credit.q.val() - 1;
            } else {
                self.high_pointer.d.next = self.high_choice.val();
                self.high_after_mask.d.next = (self.all_ones.val() << bit_cast::<6, 5>(self.high_choice.val())) << 1;
                self.high_credit.d.next = self.high_weight.val();
            }
            if self.low_eligible.val().any() {
                self.high_streak.d.next = self.high_streak.q.val() + 1;
            }
        }
        if self.dequeue.val() & self.take_low.val() {
            if self.low_stay.val() {
                self.low_credit.d.next = self.low_credit.q.val() - 1;
            } else {
                self.low_pointer.d.next = self.low_choice.val();
                self.low_after_mask.d.next = (self.all_ones.val() << bit_cast::<6, 5>(self.low_choice.val())) << 1;
                self.low_credit.d.next = self.low_weight.val();
            }
            self.high_streak.d.next = 0.into();
        }

        // ---- token buckets (8.8): level <- min(level + rate - served, burst) ----
        for q in 0..Q {
            self.served.next =
                self.dequeue.val() & (self.selected_queue.val() == self.queue_index[q].val()) & self.queue_config[q].q.val().get_bit(25);
            self.level_now.next = self.level[q].q.val();
            self.rate.next = self.queue_config[q].q.val().get_bits::<8>(8);
            self.burst.next = self.queue_config[q].q.val().get_bits::<8>(16);
            // both outcomes (served or not) are computed from registers; the decision only
            // picks one, so the buckets add one level after the arbiter
            self.level_sum.next = bit_cast::<17, 16>(self.level_now.val()) + bit_cast::<17, 8>(self.rate.val());
            self.level_spent.next = self.level_sum.val() - 256;
            self.level_cap.next = bit_cast::<17, 8>(self.burst.val()) << 8;
            self.level_idle.next = self.level_sum.val();
            if self.level_sum.val() > self.level_cap.val() {
                self.level_idle.next = self.level_cap.val();
            }
            self.level_served.next = self.level_spent.val();
            if self.level_spent.val() > self.level_cap.val() {
                self.level_served.next = self.level_cap.val();
            }
            if self.served.val() {
                self.level[q].d.next = bit_cast::<16, 17>(self.level_served.val());
                self.whole_token.d.next = self
                    .whole_token
                    .d
                    .val()
                    .replace_bit(q, self.level_served.val().get_bits::<9>(8).any());
            } else {
                self.level[q].d.next = bit_cast::<16, 17>(self.level_idle.val());
                self.whole_token.d.next = self
                    .whole_token
                    .d
                    .val()
                    .replace_bit(q, self.level_idle.val().get_bits::<9>(8).any());
            }
            if !self.token_buckets.val() {
                self.level[q].d.next = 0.into();
                self.whole_token.d.next = self.whole_token.d.val().replace_bit(q, false);
            }
        }

        // ---- register writes ----
        if self.cfg_we.val() {
            for q in 0..Q {
                if self.cfg_addr.val() == self.queue_config_addr[q].val() {
                    self.queue_config[q].d.next = self.cfg_wdata.val().get_bits::<26>(0);
                    self.weight_nonzero.d.next = self
                        .weight_nonzero
                        .d
                        .val()
                        .replace_bit(q, self.cfg_wdata.val().get_bits::<8>(0).any());
                }
            }
            if self.cfg_addr.val() == self.high_limit_addr.val() {
                self.high_limit.d.next = self.cfg_wdata.val().get_bits::<8>(0);
            }
        }

        if self.reset.val() {
            for q in 0..Q {
                self.queue_config[q].d.next = self.queue_config_reset.val();
                self.level[q].d.next = 0.into();
            }
            self.high_limit.d.next = self.high_limit_reset.val();
            self.high_pointer.d.next = 0.into();
            self.low_pointer.d.next = 0.into();
            self.high_after_mask.d.next = self.except_queue0.val();
            self.weight_nonzero.d.next = self.all_ones.val();
            self.whole_token.d.next = 0.into();
            self.low_after_mask.d.next = self.except_queue0.val();
            self.high_credit.d.next = 0.into();
            self.low_credit.d.next = 0.into();
            self.high_streak.d.next = 0.into();
        }

        // ================= shared-space FIFOs =================

        for q in 0..Q {
            self.head[q].clock.next = self.clock.val();
            self.tail[q].clock.next = self.clock.val();
            self.head[q].d.next = self.head[q].q.val();
            self.tail[q].d.next = self.tail[q].q.val();
        }
        self.next_pointers.read_clock.next = self.clock.val();
        self.next_pointers.write_clock.next = self.clock.val();
        self.parity_a.read_clock.next = self.clock.val();
        self.parity_a.write_clock.next = self.clock.val();
        self.parity_b.read_clock.next = self.clock.val();
        self.parity_b.write_clock.next = self.clock.val();
        self.init_done.next = self.initialized.q.val();

        // ---- E1: address the parity RAMs with the accepted element; register it into E2 ----
        self.parity_a.read_address.next = self.elem1.val();
        self.parity_b.read_address.next = self.elem1.val();
        self.valid2.d.next = self.valid1.val();
        self.queue2.d.next = self.queue1.val();
        self.elem2.d.next = self.elem1.val();

        // ---- E2: queued iff A != B (last cycle's writes forwarded) ----
        self.effective_parity_a.next = self.parity_a.read_data.val();
        if self.forward_a_valid.q.val() & (self.forward_a_elem.q.val() == self.elem2.q.val()) {
            self.effective_parity_a.next = self.forward_a_parity.q.val();
        }
        self.effective_parity_b.next = self.parity_b.read_data.val();
        if self.forward_b_valid.q.val() & (self.forward_b_elem.q.val() == self.elem2.q.val()) {
            self.effective_parity_b.next = self.forward_b_parity.q.val();
        }
        self.queue_in_range.next = self.valid_queues.val().get_bit(self.queue2.q.val().index());
        self.commit.next =
            self.valid2.q.val() & self.queue_in_range.val() & !(self.effective_parity_a.val() ^ self.effective_parity_b.val());
        self.duplicate.next =
            self.valid2.q.val() & self.queue_in_range.val() & (self.effective_parity_a.val() ^ self.effective_parity_b.val());
        self.bad_queue.next = self.valid2.q.val() & !self.queue_in_range.val();
        self.enqueue_parity.next = !self.effective_parity_a.val();
        self.enqueue_entry.next = bit_cast::<EW, AW>(self.elem2.q.val());
        if self.enqueue_parity.val() {
            self.enqueue_entry.next = self.enqueue_entry.val() | self.parity_bit.val();
        }

        // ---- dequeue: the head of selected_queue (the RAM output while its next-pointer read is in flight)
        // Single-element flags: registered per queue, except for the queue whose head is the RAM
        // output (its flag is that output compared with its tail), so the empty/head updates of
        // a decision need no head multiplexer and comparator on their path.
        self.selected_head.next = 0.into();
        self.pending_tail.next = 0.into();
        self.tail2.next = 0.into();
        for q in 0..Q {
            if self.selected_queue.val() == self.queue_index[q].val() {
                self.selected_head.next = self.head[q].q.val();
            }
            if self.pending_queue.q.val() == self.queue_index[q].val() {
                self.pending_tail.next = self.tail[q].q.val();
            }
            if self.queue2.q.val() == self.queue_index[q].val() {
                self.tail2.next = self.tail[q].q.val();
            }
        }
        self.pending_single.next = self.next_pointers.read_data.val().get_bits::<AW>(0) == self.pending_tail.val();
        self.single_effective.next = self.single.q.val();
        for q in 0..Q {
            if self.pending.q.val() & (self.pending_queue.q.val() == self.queue_index[q].val()) {
                self.single_effective.next = self.single_effective.val().replace_bit(q, self.pending_single.val());
            }
        }
        if self.pending.q.val() & (self.pending_queue.q.val() == self.selected_queue.val()) {
            self.selected_head.next = self.next_pointers.read_data.val();
        }
        self.selected_elem.next = self.selected_head.val().get_bits::<AW>(0);
        self.selected_parity.next = (self.selected_head.val() & self.parity_bit.val()).any();
        self.selected_single.next = self.single_effective.val().get_bit(self.selected_queue.val().index());
        self.empty2.next = self.empty.q.val().get_bit(self.queue2.q.val().index());
        self.next_pointers.read_address.next = self.selected_head.val().get_bits::<AW>(0);
        self.pending.d.next = self.dequeue.val() & !self.selected_single.val();
        self.pending_queue.d.next = self.selected_queue.val();

        // ---- link: next[tail] = element when the queue is not empty at the start of the cycle
        self.next_pointers.write_enable.next = self.commit.val() & !self.empty2.val();
        self.next_pointers.write_address.next = self.tail2.val();
        self.next_pointers.write_data.next = self.enqueue_entry.val();

        // ---- per queue: empty, head, tail ----
        for q in 0..Q {
            self.queue_dequeued.next = self.dequeue.val() & (self.selected_queue.val() == self.queue_index[q].val());
            self.queue_enqueued.next = self.commit.val() & (self.queue2.q.val() == self.queue_index[q].val());
            self.queue_single.next = self.single_effective.val().get_bit(q);
            if self.queue_enqueued.val() {
                self.empty.d.next = self.empty.d.val().replace_bit(q, false);
                self.tail[q].d.next = self.elem2.q.val();
                self.single.d.next = self.single.d.val().replace_bit(
                    q,
                    self.empty.q.val().get_bit(q) | (self.queue_dequeued.val() & self.queue_single.val()),
                );
                if self.empty.q.val().get_bit(q) | (self.queue_dequeued.val() & self.queue_single.val()) {
                    self.head[q].d.next = self.enqueue_entry.val();
                } else if self.pending.q.val() & (self.pending_queue.q.val() == self.queue_index[q].val()) {
                    self.head[q].d.next = self.next_pointers.read_data.val();
                }
            } else {
                if self.queue_dequeued.val() & self.queue_single.val() {
                    self.empty.d.next = self.empty.d.val().replace_bit(q, true);
                }
                if self.pending.q.val() & (self.pending_queue.q.val() == self.queue_index[q].val()) {
                    self.head[q].d.next = self.next_pointers.read_data.val();
                    self.single.d.next = self.single.d.val().replace_bit(q, self.pending_single.val());
                }
            }
        }

        // ---- parity writes (the initializer clears both RAMs), forwarding registers ----
        self.parity_a.write_enable.next = self.commit.val();
        self.parity_a.write_address.next = self.elem2.q.val();
        self.parity_a.write_data.next = self.enqueue_parity.val();
        self.parity_b.write_enable.next = self.dequeue.val();
        self.parity_b.write_address.next = self.selected_head.val().get_bits::<AW>(0);
        self.parity_b.write_data.next = self.selected_parity.val();
        self.forward_a_valid.d.next = self.commit.val();
        self.forward_a_elem.d.next = self.elem2.q.val();
        self.forward_a_parity.d.next = self.enqueue_parity.val();
        self.forward_b_valid.d.next = self.dequeue.val();
        self.forward_b_elem.d.next = self.selected_head.val().get_bits::<AW>(0);
        self.forward_b_parity.d.next = self.selected_parity.val();
        if !self.initialized.q.val() {
            self.parity_a.write_enable.next = true;
            self.parity_a.write_address.next = self.init_count.q.val();
            self.parity_a.write_data.next = false;
            self.parity_b.write_enable.next = true;
            self.parity_b.write_address.next = self.init_count.q.val();
            self.parity_b.write_data.next = false;
            self.init_count.d.next = self.init_count.q.val() + 1;
            if self.init_count.q.val().all() {
                self.initialized.d.next = true;
            }
        }

        if self.reset.val() {
            self.empty.d.next = 0xffff_ffff_u64.into();
            self.pending.d.next = false;
            self.valid2.d.next = false;
            self.forward_a_valid.d.next = false;
            self.forward_b_valid.d.next = false;
            self.init_count.d.next = 0.into();
            self.initialized.d.next = false;
        }
        // ---- registered decision and counters ----
        self.decision_valid.d.next = self.deq_req.val() & self.running.val();
        self.decision_ok.d.next = self.dequeue.val();
        self.decision_queue.d.next = 0.into();
        self.decision_elem.d.next = 0.into();
        if self.dequeue.val() {
            self.decision_queue.d.next = self.selected_queue.val();
            self.decision_elem.d.next = self.selected_elem.val();
        }
        if self.duplicate.val() {
            self.duplicate_count.d.next = self.duplicate_count.q.val() + 1;
        }
        if self.bad_queue.val() {
            self.bad_queue_count.d.next = self.bad_queue_count.q.val() + 1;
        }
        self.deq_valid.next = self.decision_valid.q.val();
        self.deq_ok.next = self.decision_ok.q.val();
        self.deq_queue.next = self.decision_queue.q.val();
        self.deq_elem.next = self.decision_elem.q.val();
        self.cnt_dup.next = self.duplicate_count.q.val();
        self.cnt_bad_queue.next = self.bad_queue_count.q.val();
        if self.reset.val() {
            self.decision_valid.d.next = false;
            self.decision_ok.d.next = false;
            self.duplicate_count.d.next = 0.into();
            self.bad_queue_count.d.next = 0.into();
        }
    }
}
