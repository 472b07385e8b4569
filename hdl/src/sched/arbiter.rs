//! Stage D1 of a decision, [`Arbiter`]: the QoS arbiter of `docs/sched.md`, with look-ahead
//! eligibility.
//!
//! A decision is made in one cycle from registers and the `stall` input; what it changes for the
//! next decision (the round-robin pointers and credits, the limit of high priority) is
//! registered at the end of the cycle. Eligibility needs no logic after the decision: per queue,
//! `ready_idle` and `ready_served` hold the queue's readiness (logically non-empty, token
//! allowed) for this cycle in the two cases "the previous decision did not serve it" and "it
//! did"; the registered decision `pop` picks one in the first LUT level. Both are computed
//! one cycle ahead from the lists' commit and last-element flags and the buckets' two token
//! outcomes ("look-ahead eligibility").
//!
//! Depth, LUT levels from registers and inputs (the `(* keep *)` boundaries of
//! [`KEPT`] hold this structure through synthesis; yosys's default ABC script otherwise turns
//! the prefix searches into chains):
//!
//! | level | work |
//! |---|---|
//! | 1 | per queue and table: eligible (`candidate_any`), eligible after the pointer (`candidate_after`); the pointer's queue eligible (`pointer_terms`) |
//! | 2 | per group of 6 queues: any candidate; per queue: any candidate before it in its group |
//! | 3 | per group: any candidate in an earlier group; per table: found after / found at all; the pointer's queue eligible |
//! | 4 | per queue: the first candidate (`first_after`, `first_any`) and the candidates up to it (`through_*`); the table served (control > high / low with the limit of high priority); the turn stays |
//! | 5 | the served queue (`served_high`, `served_low`, one-hot); new pointers |
//! | 6 | registers: the decision `pop`, pointer masks, credits; the token buckets' levels |
//!
//! Round-robin state per table: `pointer` (one-hot) and `at_or_after` (the pointer and the
//! queues after it: the `through_*` prefix of the search, so a new pointer costs no extra
//! logic). A new turn sets `fresh`; its weight is read one cycle later from `weight`, which trails
//! the register writes by one cycle so it is the weight of the cycle the turn started.
//! `served_in_turn_next` counts the services of the turn plus one and `credit_left` says whether
//! the turn may serve again (weight w serves w in a row).

use crate::common::elab::{bits_from, c};
use rust_hdl::prelude::*;

use super::{CFG_LIMIT_ADDR, LIMIT_RESET, MAX_QUEUES};

/// Groups of the searches: at most 6, so "any candidate in an earlier group" and "any candidate
/// at all" are one LUT of the groups' flags.
const GROUPS: usize = 6;

/// The group of queue `q`: 0..=5, 6..=10, 11..=15, 16..=20, 21..=25, 26..=31 (queue 0 is never
/// a candidate: every group but the last has at most 5 candidates).
fn group(q: usize) -> usize {
    if q < 6 {
        0
    } else {
        ((q - 6) / 5 + 1).min(GROUPS - 1)
    }
}

/// Local signals whose declarations get `(* keep *)` in emitted Verilog: the stage boundaries of
/// the search (see the module documentation).
pub const KEPT: &[&str] = &[
    "candidate_after",
    "candidate_any",
    "group_after",
    "group_any",
    "groups_before_after",
    "groups_before_any",
    "first_after",
    "first_any",
    "through_after",
    "through_any",
    "pointer_ready",
    "found_after",
    "found_any",
    "stay",
    "table_served",
];

// Per-table arrays: index 0 is the low-priority table, 1 the high-priority one (the kernel
// needs literal indices).

/// The arbiter for `Q` queues (queue 0 is the control queue; 1..Q are in the tables).
#[derive(LogicBlock)]
pub struct Arbiter<const Q: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Initialized and not in reset: decisions are made.
    pub running: Signal<In, Bit>,
    /// Make one decision this cycle.
    pub deq_req: Signal<In, Bit>,
    /// Bit q: queue q can't be served now.
    pub stall: Signal<In, Bits<32>>,
    /// Bit q: an element joins queue q in this cycle (the lists' commit, one-hot).
    pub commit: Signal<In, Bits<32>>,
    /// Bit q: queue q holds exactly one element at the start of this cycle (logically).
    pub last_element: Signal<In, Bits<32>>,
    /// Bit q: queue q's bucket allows a service next cycle if this decision does not serve q.
    pub token_if_idle: Signal<In, Bits<32>>,
    /// Bit q: the same if this decision serves q.
    pub token_if_served: Signal<In, Bits<32>>,
    /// Register write: enable.
    pub cfg_we: Signal<In, Bit>,
    /// Register write: address.
    pub cfg_addr: Signal<In, Bits<7>>,
    /// Register write: data.
    pub cfg_wdata: Signal<In, Bits<32>>,
    /// This cycle's decision serves the high-table queue of this bit (one-hot or 0).
    pub served_high: Signal<Out, Bits<32>>,
    /// This cycle's decision serves the low-table queue of this bit (one-hot or 0).
    pub served_low: Signal<Out, Bits<32>>,
    /// This cycle's decision serves the control queue.
    pub served_control: Signal<Out, Bit>,
    /// The queue served by the previous cycle's decision, one-hot (0: none); registered.
    pub pop: Signal<Out, Bits<32>>,
    /// A decision was made in the previous cycle; registered.
    pub decided: Signal<Out, Bit>,
    /// `pop` as the parts of its index ([`super::index_part`]), per table: bit i, the table served a
    /// queue of part i; registered.
    pub pop_parts: [Signal<Out, Bits<16>>; 2],

    /// Registered decision behind `pop`.
    pop_reg: DFF<Bits<32>>,
    /// Registered behind `pop_parts`.
    pop_parts_reg: [DFF<Bits<16>>; 2],
    /// Registered behind `decided`.
    decided_reg: DFF<Bit>,
    /// Per queue: logically non-empty now if the previous decision did not serve it.
    nonempty_idle: DFF<Bits<32>>,
    /// Per queue: logically non-empty now if the previous decision served it.
    nonempty_served: DFF<Bits<32>>,
    /// Per queue: `nonempty_idle` and a token allowed in that case.
    ready_idle: DFF<Bits<32>>,
    /// Per queue: `nonempty_served` and a token allowed in that case.
    ready_served: DFF<Bits<32>>,
    /// Per table: the pointer, one-hot.
    pointer: [DFF<Bits<32>>; 2],
    /// Per table: the pointer and the queues after it (thermometer).
    at_or_after: [DFF<Bits<32>>; 2],
    /// Per table: a turn started in the previous cycle; its weight is read now.
    fresh: [DFF<Bit>; 2],
    /// Per table (not fresh): the turn may serve its queue again.
    credit_left: [DFF<Bit>; 2],
    /// Per table: the weight the current turn started with.
    turn_weight: [DFF<Bits<8>>; 2],
    /// Per table: services in the current turn, plus one.
    served_in_turn_next: [DFF<Bits<8>>; 2],
    /// Per table: queues in it with a non-zero weight (queue 0 never).
    member: [DFF<Bits<32>>; 2],
    /// High-table decisions since the last low-table one while the low table waits (`hcount`).
    high_streak: DFF<Bits<9>>,
    /// `high_streak` ≤ the limit of high priority.
    high_allowed: DFF<Bit>,
    /// Limit of high priority.
    high_limit: DFF<Bits<8>>,
    /// Per queue: weight, written one cycle after the register write (read one cycle after a
    /// turn starts, it is the weight of the cycle the turn started).
    weight: RAM<Bits<8>, 5>,
    /// Per table: the weight of a turn that started two cycles ago is the `weight` RAM output.
    weight_arriving: [DFF<Bit>; 2],
    /// Per queue: its weight was written since reset (else it is 1, the reset value; the RAM
    /// has no reset).
    weight_set: DFF<Bits<32>>,
    /// `weight_set` of the queue whose weight the RAM reads.
    arriving_weight_set: DFF<Bit>,
    /// Per queue: weight ≥ 2, one cycle behind the register writes.
    weight_ge2: DFF<Bits<32>>,
    /// Per queue: weight ≥ 3, one cycle behind the register writes.
    weight_ge3: DFF<Bits<32>>,
    /// The queue whose word was written in the previous cycle (one-hot).
    staged_queue: DFF<Bits<32>>,
    /// The weight written in the previous cycle.
    staged_weight: DFF<Bits<8>>,

    /// Queue indices as register addresses.
    queue_addr: [Constant<Bits<7>>; 32],
    /// Register address of the limit of high priority.
    limit_addr: Constant<Bits<7>>,
    /// Reset value of the limit.
    limit_reset: Constant<Bits<8>>,
    /// The data queues 1..Q (the reset membership of the high table).
    data_queues: Constant<Bits<32>>,
    /// Bit 0: the control queue.
    control_bit: Constant<Bits<32>>,
    /// Per group: its queues.
    group_mask: [Constant<Bits<32>>; GROUPS],
    /// Per queue: the queues before it in its group.
    before_mask: [Constant<Bits<32>>; 32],
    /// Per index bit k: the queues whose index has bit k (one-hot to index by AND-OR).
    index_bit: [Constant<Bits<32>>; 5],
    /// The parts of the index conversion ([`super::index_part`]).
    index_part: [Constant<Bits<32>>; super::INDEX_PARTS],
    /// Per group: the groups before it.
    groups_before_mask: [Constant<Bits<8>>; GROUPS],
    /// Per queue: its group, one-hot.
    group_of: [Constant<Bits<8>>; 32],
    /// The 6 blocks whose ORs give "found" (0..=2, 3..=8, …, 27..=31: not the groups).
    found_block: [Constant<Bits<32>>; 6],

    /// Per queue: ready now (the candidate `pop` selects) and not stalled.
    ready: Signal<Local, Bits<32>>,
    /// The control queue is ready.
    control_ready: Signal<Local, Bit>,
    /// A decision is requested and the control queue is not ready: a table may serve.
    data_turn: Signal<Local, Bit>,
    /// Per table: eligible queues after the pointer.
    candidate_after: [Signal<Local, Bits<32>>; 2],
    /// Per table: eligible queues.
    candidate_any: [Signal<Local, Bits<32>>; 2],
    /// Per table and group: a candidate after the pointer.
    group_after: [Signal<Local, Bits<8>>; 2],
    /// Per table and group: a candidate.
    group_any: [Signal<Local, Bits<8>>; 2],
    /// Per table and group: a candidate after the pointer in an earlier group.
    groups_before_after: [Signal<Local, Bits<8>>; 2],
    /// Per table and group: a candidate in an earlier group.
    groups_before_any: [Signal<Local, Bits<8>>; 2],
    /// Per table: the first candidate after the pointer (one-hot).
    first_after: [Signal<Local, Bits<32>>; 2],
    /// Per table: the first candidate (one-hot).
    first_any: [Signal<Local, Bits<32>>; 2],
    /// Per table: the candidates after the pointer up to the first one (thermometer).
    through_after: [Signal<Local, Bits<32>>; 2],
    /// Per table: the candidates up to the first one (thermometer).
    through_any: [Signal<Local, Bits<32>>; 2],
    /// Per table and block of `found_block`: a candidate after the pointer.
    block_after: [Signal<Local, Bits<8>>; 2],
    /// Per table and block of `found_block`: a candidate.
    block_any: [Signal<Local, Bits<8>>; 2],
    /// Per table: a candidate after the pointer.
    found_after: [Signal<Local, Bit>; 2],
    /// Per table: a candidate.
    found_any: [Signal<Local, Bit>; 2],
    /// Per table and queue: the pointer's queue, ready.
    pointer_ready: [Signal<Local, Bits<32>>; 2],
    /// Per table: the turn serves its queue again.
    stay: [Signal<Local, Bit>; 2],
    /// Per table: this decision comes from it.
    table_served: [Signal<Local, Bit>; 2],
    /// Per table: the served queue (one-hot or 0).
    table_choice: [Signal<Local, Bits<32>>; 2],
    /// Per table: weight ≥ 2 of the pointer's queue.
    pointer_ge2: [Signal<Local, Bit>; 2],
    /// The pointer of the table whose turn is fresh (at most one is).
    fresh_pointer: Signal<Local, Bits<32>>,
    /// Index of `fresh_pointer`.
    fresh_index: Signal<Local, Bits<5>>,
    /// Weight ≥ 3 of `fresh_pointer`'s queue.
    fresh_ge3: Signal<Local, Bit>,
    /// Per table: the weight of the running turn.
    current_weight: [Signal<Local, Bits<8>>; 2],
    /// The high table serves and the low table waits: `high_streak` counts.
    streak_up: Signal<Local, Bit>,
    /// The limit is written this cycle.
    limit_write: Signal<Local, Bit>,
    /// `high_streak` < the limit (as registered, or as written now).
    streak_below: Signal<Local, Bit>,
    /// `high_streak` ≤ the limit (as registered, or as written now).
    streak_at_most: Signal<Local, Bit>,
    /// Per queue: logically non-empty now.
    nonempty: Signal<Local, Bits<32>>,
    /// Register write of queue q's word (loop temporary).
    queue_write: Signal<Local, Bit>,
    /// Queues whose word is written this cycle (one-hot).
    written: Signal<Local, Bits<32>>,
    /// Per table: membership from the next cycle on.
    member_next: [Signal<Local, Bits<32>>; 2],
    /// The index of the queue whose word was written in the previous cycle.
    staged_index: Signal<Local, Bits<5>>,
}

impl<const Q: usize> Default for Arbiter<Q> {
    fn default() -> Self {
        assert!((2..=MAX_QUEUES).contains(&Q), "Arbiter: 2 to 32 queues");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            running: Default::default(),
            deq_req: Default::default(),
            stall: Default::default(),
            commit: Default::default(),
            last_element: Default::default(),
            token_if_idle: Default::default(),
            token_if_served: Default::default(),
            cfg_we: Default::default(),
            cfg_addr: Default::default(),
            cfg_wdata: Default::default(),
            served_high: Default::default(),
            served_low: Default::default(),
            served_control: Default::default(),
            pop: Default::default(),
            decided: Default::default(),
            pop_reg: Default::default(),
            pop_parts_reg: Default::default(),
            pop_parts: Default::default(),
            index_part: std::array::from_fn(|i| Constant::new(super::index_part(i, Q))),
            decided_reg: Default::default(),
            nonempty_idle: Default::default(),
            nonempty_served: Default::default(),
            ready_idle: Default::default(),
            ready_served: Default::default(),
            pointer: Default::default(),
            at_or_after: Default::default(),
            fresh: Default::default(),
            credit_left: Default::default(),
            turn_weight: Default::default(),
            served_in_turn_next: Default::default(),
            member: Default::default(),
            high_streak: Default::default(),
            high_allowed: Default::default(),
            high_limit: Default::default(),
            weight: Default::default(),
            weight_arriving: Default::default(),
            weight_set: Default::default(),
            arriving_weight_set: Default::default(),
            weight_ge2: Default::default(),
            weight_ge3: Default::default(),
            staged_queue: Default::default(),
            staged_weight: Default::default(),
            queue_addr: std::array::from_fn(|q| c::<7>(q as u64)),
            limit_addr: c::<7>(CFG_LIMIT_ADDR),
            limit_reset: c::<8>(LIMIT_RESET),
            data_queues: c::<32>(((1u64 << Q) - 1) & !1),
            control_bit: c::<32>(1),
            group_mask: std::array::from_fn(|g| Constant::new(bits_from(|p| group(p) == g))),
            before_mask: std::array::from_fn(|q| Constant::new(bits_from(|p| group(p) == group(q) && p < q))),
            groups_before_mask: std::array::from_fn(|g| Constant::new(bits_from(|h| h < g))),
            index_bit: std::array::from_fn(|k| Constant::new(bits_from(|q| q >> k & 1 == 1))),
            group_of: std::array::from_fn(|q| Constant::new(bits_from(|g| g == group(q)))),
            found_block: std::array::from_fn(|b| Constant::new(bits_from(|q| (q + 3) / 6 == b))),
            ready: Default::default(),
            control_ready: Default::default(),
            data_turn: Default::default(),
            candidate_after: Default::default(),
            candidate_any: Default::default(),
            group_after: Default::default(),
            group_any: Default::default(),
            groups_before_after: Default::default(),
            groups_before_any: Default::default(),
            first_after: Default::default(),
            first_any: Default::default(),
            through_after: Default::default(),
            through_any: Default::default(),
            block_after: Default::default(),
            block_any: Default::default(),
            found_after: Default::default(),
            found_any: Default::default(),
            pointer_ready: Default::default(),
            stay: Default::default(),
            table_served: Default::default(),
            table_choice: Default::default(),
            pointer_ge2: Default::default(),
            fresh_pointer: Default::default(),
            fresh_index: Default::default(),
            fresh_ge3: Default::default(),
            current_weight: Default::default(),
            streak_up: Default::default(),
            limit_write: Default::default(),
            streak_below: Default::default(),
            streak_at_most: Default::default(),
            nonempty: Default::default(),
            queue_write: Default::default(),
            written: Default::default(),
            staged_index: Default::default(),
            member_next: Default::default(),
        }
    }
}

impl<const Q: usize> Logic for Arbiter<Q> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            pop_reg,
            decided_reg,
            nonempty_idle,
            nonempty_served,
            ready_idle,
            ready_served,
            high_streak,
            high_allowed,
            high_limit,
            weight_ge2,
            weight_ge3,
            staged_queue,
            staged_weight,
            weight_set,
            arriving_weight_set
        );
        for t in 0..2 {
            self.pointer[t].clock.next = self.clock.val();
            self.at_or_after[t].clock.next = self.clock.val();
            self.fresh[t].clock.next = self.clock.val();
            self.weight_arriving[t].clock.next = self.clock.val();
            self.credit_left[t].clock.next = self.clock.val();
            self.turn_weight[t].clock.next = self.clock.val();
            self.served_in_turn_next[t].clock.next = self.clock.val();
            self.member[t].clock.next = self.clock.val();
            self.pointer[t].d.next = self.pointer[t].q.val();
            self.at_or_after[t].d.next = self.at_or_after[t].q.val();
            self.fresh[t].d.next = false;
            self.weight_arriving[t].d.next = self.fresh[t].q.val();
            self.credit_left[t].d.next = self.credit_left[t].q.val();
            self.served_in_turn_next[t].d.next = self.served_in_turn_next[t].q.val();
        }
        self.weight.read_clock.next = self.clock.val();
        self.weight.write_clock.next = self.clock.val();

        // ---- level 1: readiness picked by the previous decision; candidates per table ----
        self.ready.next =
            ((self.pop_reg.q.val() & self.ready_served.q.val()) | (!self.pop_reg.q.val() & self.ready_idle.q.val())) & !self.stall.val();
        self.control_ready.next = self.ready.val().get_bit(0);
        self.data_turn.next = self.deq_req.val() & self.running.val() & !self.control_ready.val();
        for t in 0..2 {
            self.candidate_any[t].next = self.ready.val() & self.member[t].q.val();
            self.candidate_after[t].next = self.candidate_any[t].val() & (self.at_or_after[t].q.val() << 1);
            self.pointer_ready[t].next = self.candidate_any[t].val() & self.pointer[t].q.val();
        }

        // ---- levels 2-4: the first candidate after the pointer in cyclic order, by groups ----
        for t in 0..2 {
            self.group_after[t].next = 0.into();
            self.group_any[t].next = 0.into();
            for g in 0..GROUPS {
                self.group_after[t].next = self.group_after[t]
                    .val()
                    .replace_bit(g, (self.candidate_after[t].val() & self.group_mask[g].val()).any());
                self.group_any[t].next = self.group_any[t]
                    .val()
                    .replace_bit(g, (self.candidate_any[t].val() & self.group_mask[g].val()).any());
            }
            self.groups_before_after[t].next = 0.into();
            self.groups_before_any[t].next = 0.into();
            for g in 0..GROUPS {
                self.groups_before_after[t].next = self.groups_before_after[t]
                    .val()
                    .replace_bit(g, (self.group_after[t].val() & self.groups_before_mask[g].val()).any());
                self.groups_before_any[t].next = self.groups_before_any[t]
                    .val()
                    .replace_bit(g, (self.group_any[t].val() & self.groups_before_mask[g].val()).any());
            }
            // "found" from blocks other than the groups: no sharing for synthesis to chain
            self.block_after[t].next = 0.into();
            self.block_any[t].next = 0.into();
            for b in 0..6 {
                self.block_after[t].next = self.block_after[t]
                    .val()
                    .replace_bit(b, (self.candidate_after[t].val() & self.found_block[b].val()).any());
                self.block_any[t].next = self.block_any[t]
                    .val()
                    .replace_bit(b, (self.candidate_any[t].val() & self.found_block[b].val()).any());
            }
            self.found_after[t].next = self.block_after[t].val().any();
            self.found_any[t].next = self.block_any[t].val().any();
            self.first_after[t].next = 0.into();
            self.first_any[t].next = 0.into();
            self.through_after[t].next = 0.into();
            self.through_any[t].next = 0.into();
            for q in 0..32 {
                self.first_after[t].next = self.first_after[t].val().replace_bit(
                    q,
                    self.candidate_after[t].val().get_bit(q)
                        & !(self.groups_before_after[t].val() & self.group_of[q].val()).any()
                        & !(self.candidate_after[t].val() & self.before_mask[q].val()).any(),
                );
                self.first_any[t].next = self.first_any[t].val().replace_bit(
                    q,
                    self.candidate_any[t].val().get_bit(q)
                        & !(self.groups_before_any[t].val() & self.group_of[q].val()).any()
                        & !(self.candidate_any[t].val() & self.before_mask[q].val()).any(),
                );
                self.through_after[t].next = self.through_after[t].val().replace_bit(
                    q,
                    self.candidate_after[t].val().get_bit(q)
                        | (self.groups_before_after[t].val() & self.group_of[q].val()).any()
                        | (self.candidate_after[t].val() & self.before_mask[q].val()).any(),
                );
                self.through_any[t].next = self.through_any[t].val().replace_bit(
                    q,
                    self.candidate_any[t].val().get_bit(q)
                        | (self.groups_before_any[t].val() & self.group_of[q].val()).any()
                        | (self.candidate_any[t].val() & self.before_mask[q].val()).any(),
                );
            }
            // the turn stays while the pointer's queue is eligible and has credit; a fresh turn
            // has credit if its weight is at least 2
            self.pointer_ge2[t].next = (self.pointer[t].q.val() & self.weight_ge2.q.val()).any();
            self.stay[t].next = self.credit_left[t].q.val() & self.pointer_ready[t].val().any();
            if self.fresh[t].q.val() {
                self.stay[t].next = self.pointer_ge2[t].val() & self.pointer_ready[t].val().any();
            }
        }

        // ---- level 4: classes, control > high / low with the limit of high priority ----
        self.table_served[1].next = self.data_turn.val() & self.found_any[1].val() & (!self.found_any[0].val() | self.high_allowed.q.val());
        self.table_served[0].next =
            self.data_turn.val() & self.found_any[0].val() & (!self.found_any[1].val() | !self.high_allowed.q.val());
        self.served_control.next = self.deq_req.val() & self.running.val() & self.control_ready.val();

        // ---- level 5: the served queue, one-hot; registered for stage D2 ----
        for t in 0..2 {
            self.table_choice[t].next = 0.into();
            if self.table_served[t].val() {
                if self.stay[t].val() {
                    self.table_choice[t].next = self.pointer[t].q.val();
                } else if self.found_after[t].val() {
                    self.table_choice[t].next = self.first_after[t].val();
                } else {
                    self.table_choice[t].next = self.first_any[t].val();
                }
            }
        }
        self.served_high.next = self.table_choice[1].val();
        self.served_low.next = self.table_choice[0].val();
        self.pop_reg.d.next = self.table_choice[0].val() | self.table_choice[1].val();
        if self.served_control.val() {
            self.pop_reg.d.next = self.control_bit.val();
        }
        self.decided_reg.d.next = self.deq_req.val() & self.running.val();
        for t in 0..2 {
            self.pop_parts_reg[t].clock.next = self.clock.val();
            self.pop_parts_reg[t].d.next = 0.into();
            for i in 0..15 {
                self.pop_parts_reg[t].d.next = self.pop_parts_reg[t]
                    .d
                    .val()
                    .replace_bit(i, (self.table_choice[t].val() & self.index_part[i].val()).any());
            }
            self.pop_parts[t].next = self.pop_parts_reg[t].q.val();
        }
        self.pop.next = self.pop_reg.q.val();
        self.decided.next = self.decided_reg.q.val();

        // ---- look-ahead eligibility for the next cycle, both cases of this decision ----
        self.nonempty.next = (self.pop_reg.q.val() & self.nonempty_served.q.val()) | (!self.pop_reg.q.val() & self.nonempty_idle.q.val());
        self.nonempty_idle.d.next = self.commit.val() | self.nonempty.val();
        self.nonempty_served.d.next = self.commit.val() | (self.nonempty.val() & !self.last_element.val());
        self.ready_idle.d.next = (self.commit.val() | self.nonempty.val()) & self.token_if_idle.val();
        self.ready_served.d.next = (self.commit.val() | (self.nonempty.val() & !self.last_element.val())) & self.token_if_served.val();

        // ---- round robin: new turn, or one more service of the turn. A fresh turn's credit comes
        // from the weight flags, its weight from the RAM one cycle later ----
        self.fresh_pointer.next = self.pointer[0].q.val();
        if self.fresh[1].q.val() {
            self.fresh_pointer.next = self.pointer[1].q.val();
        }
        self.fresh_index.next = 0.into();
        for k in 0..5 {
            self.fresh_index.next = self
                .fresh_index
                .val()
                .replace_bit(k, (self.fresh_pointer.val() & self.index_bit[k].val()).any());
        }
        self.fresh_ge3.next = (self.fresh_pointer.val() & self.weight_ge3.q.val()).any();
        self.weight.read_address.next = self.fresh_index.val();
        self.arriving_weight_set.d.next = (self.fresh_pointer.val() & self.weight_set.q.val()).any();
        for t in 0..2 {
            self.current_weight[t].next = self.turn_weight[t].q.val();
            if self.weight_arriving[t].q.val() {
                self.current_weight[t].next = 1.into();
                if self.arriving_weight_set.q.val() {
                    self.current_weight[t].next = self.weight.read_data.val();
                }
            }
            self.turn_weight[t].d.next = self.current_weight[t].val();
            if self.fresh[t].q.val() {
                self.credit_left[t].d.next = self.pointer_ge2[t].val();
                self.served_in_turn_next[t].d.next = 2.into();
            }
            if self.table_served[t].val() {
                if self.stay[t].val() {
                    if self.fresh[t].q.val() {
                        self.credit_left[t].d.next = self.fresh_ge3.val();
                        self.served_in_turn_next[t].d.next = 3.into();
                    } else {
                        self.credit_left[t].d.next = self.served_in_turn_next[t].q.val() < self.current_weight[t].val();
                        self.served_in_turn_next[t].d.next = self.served_in_turn_next[t].q.val() + 1;
                    }
                } else {
                    self.fresh[t].d.next = true;
                    if self.found_after[t].val() {
                        self.pointer[t].d.next = self.first_after[t].val();
                        self.at_or_after[t].d.next = self.through_after[t].val();
                    } else {
                        self.pointer[t].d.next = self.first_any[t].val();
                        self.at_or_after[t].d.next = self.through_any[t].val();
                    }
                }
            }
        }

        // ---- limit of high priority: high_allowed for the next cycle, with this cycle's write
        self.streak_up.next = self.table_served[1].val() & self.found_any[0].val();
        self.limit_write.next = self.cfg_we.val() & (self.cfg_addr.val() == self.limit_addr.val());
        self.streak_below.next = self.high_streak.q.val() < bit_cast::<9, 8>(self.high_limit.q.val());
        self.streak_at_most.next = self.high_streak.q.val() <= bit_cast::<9, 8>(self.high_limit.q.val());
        if self.limit_write.val() {
            self.high_limit.d.next = self.cfg_wdata.val().get_bits::<8>(0);
            self.streak_below.next = self.high_streak.q.val() < bit_cast::<9, 8>(self.cfg_wdata.val().get_bits::<8>(0));
            self.streak_at_most.next = self.high_streak.q.val() <= bit_cast::<9, 8>(self.cfg_wdata.val().get_bits::<8>(0));
        }
        self.high_allowed.d.next = self.streak_at_most.val();
        if self.streak_up.val() {
            self.high_streak.d.next = self.high_streak.q.val() + 1;
            self.high_allowed.d.next = self.streak_below.val();
        }
        if self.table_served[0].val() {
            self.high_streak.d.next = 0.into();
            self.high_allowed.d.next = true;
        }

        // ---- register writes: table membership now; weights and their flags one cycle later ----
        self.written.next = 0.into();
        self.member_next[0].next = self.member[0].q.val();
        self.member_next[1].next = self.member[1].q.val();
        for q in 1..Q {
            self.queue_write.next = self.cfg_we.val() & (self.cfg_addr.val() == self.queue_addr[q].val());
            self.written.next = self.written.val().replace_bit(q, self.queue_write.val());
            if self.queue_write.val() {
                self.member_next[1].next = self.member_next[1]
                    .val()
                    .replace_bit(q, self.cfg_wdata.val().get_bits::<8>(0).any() & self.cfg_wdata.val().get_bit(24));
                self.member_next[0].next = self.member_next[0]
                    .val()
                    .replace_bit(q, self.cfg_wdata.val().get_bits::<8>(0).any() & !self.cfg_wdata.val().get_bit(24));
            }
        }
        self.member[0].d.next = self.member_next[0].val();
        self.member[1].d.next = self.member_next[1].val();
        self.staged_queue.d.next = self.written.val();
        self.staged_weight.d.next = self.cfg_wdata.val().get_bits::<8>(0);
        self.staged_index.next = 0.into();
        for k in 0..5 {
            self.staged_index.next = self
                .staged_index
                .val()
                .replace_bit(k, (self.staged_queue.q.val() & self.index_bit[k].val()).any());
        }
        self.weight.write_enable.next = self.staged_queue.q.val().any();
        self.weight.write_address.next = self.staged_index.val();
        self.weight.write_data.next = self.staged_weight.q.val();
        self.weight_ge2.d.next = self.weight_ge2.q.val() & !self.staged_queue.q.val();
        if self.staged_weight.q.val() >= 2 {
            self.weight_ge2.d.next = self.weight_ge2.q.val() | self.staged_queue.q.val();
        }
        self.weight_ge3.d.next = self.weight_ge3.q.val() & !self.staged_queue.q.val();
        if self.staged_weight.q.val() >= 3 {
            self.weight_ge3.d.next = self.weight_ge3.q.val() | self.staged_queue.q.val();
        }
        self.weight_set.d.next = self.weight_set.q.val() | self.staged_queue.q.val();

        // (no reset for pop_reg and decided_reg: nothing is decided while `running` is low)
        if self.reset.val() {
            self.nonempty_idle.d.next = 0.into();
            self.nonempty_served.d.next = 0.into();
            self.ready_idle.d.next = 0.into();
            self.ready_served.d.next = 0.into();
            for t in 0..2 {
                self.pointer[t].d.next = self.control_bit.val();
                self.at_or_after[t].d.next = 0xffff_ffff_u64.into();
                self.fresh[t].d.next = false;
                self.weight_arriving[t].d.next = false;
                self.credit_left[t].d.next = false;
            }
            self.member[1].d.next = self.data_queues.val();
            self.member[0].d.next = 0.into();
            self.high_streak.d.next = 0.into();
            self.high_allowed.d.next = true;
            self.high_limit.d.next = self.limit_reset.val();
            self.weight_ge2.d.next = 0.into();
            self.weight_ge3.d.next = 0.into();
            self.staged_queue.d.next = 0.into();
            self.weight_set.d.next = 0.into();
        }
    }
}
