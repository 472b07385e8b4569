//! [`QueuePacers`]: one pacer per scheduler queue, in bytes per second. A group of L bytes
//! charged at cycle a moves its queue's `next` to `base + L × cost` (`cost`: cycles per byte,
//! [`PACE_FRACTION_BITS`] fraction bits), where `base` is `next` if `next > a − SLACK`, else
//! a; the queue is paused in cycle c while `c + LEAD < next`. With `SLACK` 0 that is
//! `max(a, next)`: idle time earns nothing, so a paced queue never goes above its rate by more
//! than the group that starts it; with groups of one packet it leaves packet by packet at its
//! rate, other queues between them. `SLACK` keeps a charge that comes up to that many cycles
//! late (its decision delayed by other queues' traffic) on its queue's schedule, so the queue
//! catches up instead of losing the delay; a queue idle for longer starts afresh. `LEAD`
//! lifts the pause that many cycles early, for a user whose charge comes that long after the
//! decision it follows: a backlogged queue's charge then comes before its `next` and the rate
//! holds to the fraction of a cycle. The golden model is `ferroce_models::stream::Pacer`
//! (`start_within`); `docs/sched.md` ("Pacing") the specification.
//!
//! ```text
//!  charge (queue, bytes), stamped a − 1 ─► paced? ─► FIFO (32) ─► one at a time, 8 cycles each:
//!   S1 cost (RAM) ─► S2 bytes × cost (by halves), the queue's deadline ─► S3, S4, S5: in 16-bit
//!   pieces, deadline + charge, (a − 2^-24) + charge, deadline ≥ a − SLACK? ─► S6 the base's sum
//!   ─► S7, S8 against t + 1 + LEAD ─► write-back (cycle t): deadline, waiting, ends
//!  every queue, every cycle: waiting ← waiting and not ends; ends ← deadline = c + 1 + LEAD
//!  paused = waiting or a charge of the queue not yet counted (registered)
//! ```
//!
//! - **The deadline** of a queue is `next − 2^-24` in [`TIME_BITS`] bits: whole cycles
//!   ([`WHOLE_BITS`], wrapping) and the fraction. While the queue waits, its whole part is the
//!   last paused cycle less `LEAD`: `waiting` drops when a free-running count equals it, an
//!   equality per queue and no carry chain.
//! - **A charge** is counted at its write-back cycle t, at least [`CHARGE_LATENCY`] cycles after
//!   it came in and [`CHARGE_INTERVAL`] after the charge before it: one is in flight at a time,
//!   so a queue's deadline is always read after its last charge wrote it. Both sums and the
//!   comparisons are made in 16-bit pieces (24-bit serial arithmetic: a deadline less than 2^23
//!   cycles from the arrival), so no carry chain is longer than 16 bits.
//! - From the cycle after a charge comes in until its write-back its queue is paused
//!   (`pending`), so a charge queued behind others never lets its queue start early.
//! - **Old deadlines**: a queue not waiting at two ticks of the count's bit 22 (every 2^22
//!   cycles) has a deadline at least 2^22 cycles old; it is then taken as passed without the
//!   comparison, which wraps after 2^23. So is a queue not charged since reset.
//! - Charges of queues whose cost is 0 are not paced and not queued. A charge that finds the
//!   FIFO full is refused (`lost`), its queue not paused for it.

use crate::common::elab::c;
use crate::common::fifo::Fifo;
use ferroce_contracts::sched::{PACE_COST_BITS, PACE_FRACTION_BITS};
use rust_hdl::prelude::*;

/// Cycles from a charge on the inputs to its write-back when no charge is ahead of it.
pub const CHARGE_LATENCY: u64 = 11;
/// Cycles between the write-backs of two charges, at least.
pub const CHARGE_INTERVAL: u64 = 8;
/// Bits of a deadline's whole cycles (wrapping).
pub const WHOLE_BITS: usize = 24;
/// Bits of a deadline: whole cycles and fraction.
pub const TIME_BITS: usize = WHOLE_BITS + PACE_FRACTION_BITS as usize;
/// Bits of a charge's byte count (a packet's payload: at most 4096 bytes).
pub const CHARGE_BYTE_BITS: usize = 13;
/// The bit of the cycle count whose changes are the ticks that age deadlines.
pub const TICK_BIT: usize = 22;
/// Bits of a queued charge: its arrival stamp above its bytes above its queue.
const ENTRY_BITS: usize = WHOLE_BITS + CHARGE_BYTE_BITS + 5;
/// Bits of a queue's count of charges not yet counted: the FIFO, the input register, the one
/// in flight.
const PENDING_BITS: usize = 6;
/// The fraction's bits as a width.
const FRACTION: usize = PACE_FRACTION_BITS as usize;

/// A free-running count of cycles, [`WHOLE_BITS`] bits wrapping, from `start` after reset: a low
/// half of 16 bits and a high half that counts the low half's wraps, kept one cycle ahead.
#[derive(LogicBlock)]
pub struct CycleCount {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: the count goes to `start`.
    pub reset: Signal<In, Bit>,
    /// The count (registered).
    pub count: Signal<Out, Bits<WHOLE_BITS>>,
    low: DFF<Bits<16>>,
    high: DFF<Bits<8>>,
    low_all_ones: DFF<Bit>,
    start_low: Constant<Bits<16>>,
    start_high: Constant<Bits<8>>,
    start_low_all_ones: Constant<Bit>,
}

impl CycleCount {
    /// A count that is `start` in the cycle after reset.
    pub fn starting_at(start: u64) -> Self {
        let start = start & ((1 << WHOLE_BITS) - 1);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            count: Default::default(),
            low: Default::default(),
            high: Default::default(),
            low_all_ones: Default::default(),
            start_low: c::<16>(start & 0xFFFF),
            start_high: c::<8>(start >> 16),
            start_low_all_ones: Constant::new(start & 0xFFFF == 0xFFFF),
        }
    }
}

impl Logic for CycleCount {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, low, high, low_all_ones);
        self.low.d.next = self.low.q.val() + 1;
        if self.low_all_ones.q.val() {
            self.high.d.next = self.high.q.val() + 1;
        }
        self.low_all_ones.d.next = self.low.q.val() == 0xFFFE;
        if self.reset.val() {
            self.low.d.next = self.start_low.val();
            self.high.d.next = self.start_high.val();
            self.low_all_ones.d.next = self.start_low_all_ones.val();
        }
        self.count.next = (bit_cast::<WHOLE_BITS, 8>(self.high.q.val()) << 16) | bit_cast::<WHOLE_BITS, 16>(self.low.q.val());
    }
}

/// The pacers of `Q` queues (at most 32), their pauses lifted `LEAD` cycles early, a charge up to
/// `SLACK` cycles late (0 or a power of two up to 2^16) kept on its queue's schedule.
#[derive(LogicBlock)]
pub struct QueuePacers<const Q: usize, const LEAD: u64, const SLACK: u64> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: nothing waits, every queue not paced, the FIFO empty.
    pub reset: Signal<In, Bit>,
    /// Set a queue's cost (one cycle).
    pub cfg_we: Signal<In, Bit>,
    /// The queue.
    pub cfg_queue: Signal<In, Bits<5>>,
    /// Its cost: cycles per byte, [`PACE_FRACTION_BITS`] fraction bits (0: not paced).
    pub cfg_cost: Signal<In, Bits<PACE_COST_BITS>>,
    /// A group of the queue starts: charge its bytes (one cycle).
    pub charge_valid: Signal<In, Bit>,
    /// The queue charged.
    pub charge_queue: Signal<In, Bits<5>>,
    /// The group's bytes.
    pub charge_bytes: Signal<In, Bits<CHARGE_BYTE_BITS>>,
    /// Bit q: queue q waits (its next group may not start in this cycle); registered.
    pub paused: Signal<Out, Bits<Q>>,
    /// A charge of a paced queue was refused, the FIFO full (registered, one cycle a charge).
    pub lost: Signal<Out, Bit>,
    /// Bit q: queue q is paced, its cost not 0 (registered).
    pub paced_queues: Signal<Out, Bits<Q>>,

    // ---- per queue ----
    /// Bit q: queue q's cost is not 0.
    paced: DFF<Bits<Q>>,
    costs: RAM<Bits<PACE_COST_BITS>, 5>,
    deadline: [DFF<Bits<TIME_BITS>>; Q],
    /// Bit q: the queue waits.
    waiting: DFF<Bits<Q>>,
    /// Bit q: the deadline's whole part is this cycle's count (the wait's last cycle).
    ends: DFF<Bits<Q>>,
    /// Bit q: not waiting at the last tick / at the last two ticks, nor charged since.
    idle_tick: DFF<Bits<Q>>,
    idle_ticks: DFF<Bits<Q>>,
    /// Charges of the queue taken in and not yet counted.
    pending: [DFF<Bits<PENDING_BITS>>; Q],
    /// Bit q: `pending[q]` is not 0.
    pending_any: DFF<Bits<Q>>,
    paused_bits: DFF<Bits<Q>>,
    lost_charge: DFF<Bit>,
    // ---- the cycle, c ----
    /// c − 1: a charge's arrival stamp.
    previous_cycle: CycleCount,
    /// c + 1 + LEAD: the deadline each queue's `ends` is compared with.
    ends_at: CycleCount,
    /// c + 3 + LEAD: in S6, the write-back's t + 1 + LEAD.
    written_at: CycleCount,
    tick_level: DFF<Bit>,
    tick: DFF<Bit>,
    // ---- the charges ----
    input_valid: DFF<Bit>,
    input_entry: DFF<Bits<ENTRY_BITS>>,
    charges: Fifo<Bits<ENTRY_BITS>>,
    take: Signal<Local, Bit>,
    /// S1: the charge taken; its cost read.
    valid1: DFF<Bit>,
    onehot1: DFF<Bits<Q>>,
    bytes1: DFF<Bits<16>>,
    arrival1: DFF<Bits<WHOLE_BITS>>,
    /// S2 to S6: the new deadline.
    sums: ChargeSums<Q, SLACK>,
    /// S7: the low half of its whole part − (t + 1 + LEAD).
    valid7: DFF<Bit>,
    onehot7: DFF<Bits<Q>>,
    new7: DFF<Bits<TIME_BITS>>,
    left_low7: DFF<Bits<17>>,
    written_top7: DFF<Bits<8>>,
    /// S8, the write-back (cycle t): the queue waits after t; its wait ends at t + 1.
    valid8: DFF<Bit>,
    onehot8: DFF<Bits<Q>>,
    new8: DFF<Bits<TIME_BITS>>,
    waits_after8: DFF<Bit>,
    ends_next8: DFF<Bit>,
    // ---- combinational ----
    picked: Signal<Local, Bits<TIME_BITS>>,
    left_high: Signal<Local, Bits<8>>,
    /// Bit q: a charge of queue q comes in and is taken.
    taken_in: Signal<Local, Bits<Q>>,
    accepted: Signal<Local, Bit>,
    written_back: Signal<Local, Bits<Q>>,
    // ---- constants ----
    queue_index: [Constant<Bits<5>>; Q],
    one_hot: [Constant<Bits<Q>>; Q],
    /// Where a deadline's whole part starts; where a queued charge's bytes and stamp start.
    whole_at: Constant<Bits<8>>,
    whole_top_at: Constant<Bits<8>>,
    bytes_at: Constant<Bits<8>>,
    stamp_at: Constant<Bits<8>>,
    tick_at: Constant<Bits<8>>,
    all_queues: Constant<Bits<Q>>,
}

impl<const Q: usize, const LEAD: u64, const SLACK: u64> Default for QueuePacers<Q, LEAD, SLACK> {
    fn default() -> Self {
        assert!(Q <= 32, "at most 32 queues");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg_we: Default::default(),
            cfg_queue: Default::default(),
            cfg_cost: Default::default(),
            charge_valid: Default::default(),
            charge_queue: Default::default(),
            charge_bytes: Default::default(),
            paused: Default::default(),
            lost: Default::default(),
            paced_queues: Default::default(),
            paced: Default::default(),
            costs: Default::default(),
            deadline: std::array::from_fn(|_| Default::default()),
            waiting: Default::default(),
            ends: Default::default(),
            idle_tick: Default::default(),
            idle_ticks: Default::default(),
            pending: std::array::from_fn(|_| Default::default()),
            pending_any: Default::default(),
            paused_bits: Default::default(),
            lost_charge: Default::default(),
            previous_cycle: CycleCount::starting_at((1 << WHOLE_BITS) - 1),
            ends_at: CycleCount::starting_at(1 + LEAD),
            written_at: CycleCount::starting_at(3 + LEAD),
            tick_level: Default::default(),
            tick: Default::default(),
            input_valid: Default::default(),
            input_entry: Default::default(),
            charges: Default::default(),
            take: Default::default(),
            valid1: Default::default(),
            onehot1: Default::default(),
            bytes1: Default::default(),
            arrival1: Default::default(),
            sums: Default::default(),
            valid7: Default::default(),
            onehot7: Default::default(),
            new7: Default::default(),
            left_low7: Default::default(),
            written_top7: Default::default(),
            valid8: Default::default(),
            onehot8: Default::default(),
            new8: Default::default(),
            waits_after8: Default::default(),
            ends_next8: Default::default(),
            picked: Default::default(),
            left_high: Default::default(),
            taken_in: Default::default(),
            accepted: Default::default(),
            written_back: Default::default(),
            queue_index: std::array::from_fn(|q| c::<5>(q as u64)),
            one_hot: std::array::from_fn(|q| c::<Q>(1 << q)),
            whole_at: c::<8>(FRACTION as u64),
            whole_top_at: c::<8>(FRACTION as u64 + 16),
            bytes_at: c::<8>(5),
            stamp_at: c::<8>(5 + CHARGE_BYTE_BITS as u64),
            tick_at: c::<8>(TICK_BIT as u64),
            all_queues: c::<Q>((1u64 << Q) - 1),
        }
    }
}

impl<const Q: usize, const LEAD: u64, const SLACK: u64> Logic for QueuePacers<Q, LEAD, SLACK> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            paced,
            waiting,
            ends,
            idle_tick,
            idle_ticks,
            pending_any,
            paused_bits,
            lost_charge,
            tick_level,
            tick,
            input_valid,
            input_entry,
            valid1,
            onehot1,
            bytes1,
            arrival1,
            valid7,
            onehot7,
            new7,
            left_low7,
            written_top7,
            valid8,
            onehot8,
            new8,
            waits_after8,
            ends_next8
        );
        // ---- the cycle counts and the ticks ----
        self.previous_cycle.clock.next = self.clock.val();
        self.previous_cycle.reset.next = self.reset.val();
        self.ends_at.clock.next = self.clock.val();
        self.ends_at.reset.next = self.reset.val();
        self.written_at.clock.next = self.clock.val();
        self.written_at.reset.next = self.reset.val();
        self.tick_level.d.next = self.previous_cycle.count.val().get_bit(self.tick_at.val().index());
        self.tick.d.next = self.tick_level.q.val() != self.previous_cycle.count.val().get_bit(self.tick_at.val().index());

        // ---- costs ----
        self.costs.write_clock.next = self.clock.val();
        self.costs.read_clock.next = self.clock.val();
        self.costs.write_enable.next = self.cfg_we.val();
        self.costs.write_address.next = self.cfg_queue.val();
        self.costs.write_data.next = self.cfg_cost.val();

        // ---- a charge comes in at cycle a: taken when its queue is paced and the FIFO has room ----
        self.taken_in.next = 0.into();
        for q in 0..Q {
            if self.charge_valid.val() & (self.charge_queue.val() == self.queue_index[q].val()) & self.paced.q.val().get_bit(q) {
                self.taken_in.next = self.one_hot[q].val();
            }
        }
        self.accepted.next = self.taken_in.val().any() & !self.charges.fill.val().get_bit(30);
        self.lost_charge.d.next = self.taken_in.val().any() & self.charges.fill.val().get_bit(30);
        self.input_valid.d.next = self.accepted.val();
        self.input_entry.d.next = (bit_cast::<ENTRY_BITS, WHOLE_BITS>(self.previous_cycle.count.val()) << self.stamp_at.val())
            | (bit_cast::<ENTRY_BITS, CHARGE_BYTE_BITS>(self.charge_bytes.val()) << self.bytes_at.val())
            | bit_cast::<ENTRY_BITS, 5>(self.charge_queue.val());
        self.charges.clock.next = self.clock.val();
        self.charges.reset.next = self.reset.val();
        self.charges.push.next = self.input_valid.q.val();
        self.charges.push_value.next = self.input_entry.q.val();

        // ---- take one as the one before is written back; S1: read its cost ----
        self.take.next = self.charges.head_valid.val() & !(self.valid1.q.val() | self.sums.busy.val() | self.valid7.q.val());
        self.charges.pop.next = self.take.val();
        self.costs.read_address.next = self.charges.head.val().get_bits::<5>(0);
        self.valid1.d.next = self.take.val();
        if self.take.val() {
            self.bytes1.d.next =
                bit_cast::<16, CHARGE_BYTE_BITS>(self.charges.head.val().get_bits::<CHARGE_BYTE_BITS>(self.bytes_at.val().index()));
            self.arrival1.d.next = self.charges.head.val().get_bits::<WHOLE_BITS>(self.stamp_at.val().index());
            for q in 0..Q {
                if self.charges.head.val().get_bits::<5>(0) == self.queue_index[q].val() {
                    self.onehot1.d.next = self.one_hot[q].val();
                }
            }
        }
        // ---- S2 to S6: max(a, next) + bytes × cost, the queue's deadline picked ----
        self.picked.next = 0.into();
        for q in 0..Q {
            if self.onehot1.q.val().get_bit(q) {
                self.picked.next = self.picked.val() | self.deadline[q].q.val();
            }
        }
        self.sums.clock.next = self.clock.val();
        self.sums.reset.next = self.reset.val();
        self.sums.start.next = self.valid1.q.val();
        self.sums.start_queue.next = self.onehot1.q.val();
        self.sums.bytes.next = self.bytes1.q.val();
        self.sums.cost.next = self.costs.read_data.val();
        self.sums.deadline.next = self.picked.val();
        self.sums.old.next = (self.idle_ticks.q.val() & self.onehot1.q.val()).any();
        self.sums.arrival.next = self.arrival1.q.val();
        // ---- S7, S8: its whole part against t + 1 + LEAD (t: this cycle + 2) ----
        self.valid7.d.next = self.sums.valid.val();
        self.onehot7.d.next = self.sums.queue.val();
        self.new7.d.next = self.sums.next_deadline.val();
        self.left_low7.d.next = bit_cast::<17, 16>(self.sums.next_deadline.val().get_bits::<16>(self.whole_at.val().index()))
            - bit_cast::<17, 16>(self.written_at.count.val().get_bits::<16>(0));
        self.written_top7.d.next = self.written_at.count.val().get_bits::<8>(16);
        self.valid8.d.next = self.valid7.q.val();
        self.onehot8.d.next = self.onehot7.q.val();
        self.new8.d.next = self.new7.q.val();
        self.left_high.next = self.new7.q.val().get_bits::<8>(self.whole_top_at.val().index())
            - self.written_top7.q.val()
            - bit_cast::<8, 1>(self.left_low7.q.val().get_bit(16).into());
        self.waits_after8.d.next = !self.left_high.val().get_bit(7);
        self.ends_next8.d.next = !self.left_low7.q.val().get_bits::<16>(0).any()
            & (self.new7.q.val().get_bits::<8>(self.whole_top_at.val().index()) == self.written_top7.q.val());

        // ---- every queue: the write-back, or its wait running out ----
        self.written_back.next = 0.into();
        if self.valid8.q.val() {
            self.written_back.next = self.onehot8.q.val();
        }
        for q in 0..Q {
            self.deadline[q].clock.next = self.clock.val();
            self.pending[q].clock.next = self.clock.val();
            self.deadline[q].d.next = self.deadline[q].q.val();
            self.waiting.d.next = self
                .waiting
                .d
                .val()
                .replace_bit(q, self.waiting.q.val().get_bit(q) & !self.ends.q.val().get_bit(q));
            self.ends.d.next = self.ends.d.val().replace_bit(
                q,
                self.deadline[q].q.val().get_bits::<WHOLE_BITS>(self.whole_at.val().index()) == self.ends_at.count.val(),
            );
            if self.tick.q.val() {
                self.idle_tick.d.next = self.idle_tick.d.val().replace_bit(q, !self.waiting.q.val().get_bit(q));
                self.idle_ticks.d.next = self
                    .idle_ticks
                    .d
                    .val()
                    .replace_bit(q, self.idle_tick.q.val().get_bit(q) & !self.waiting.q.val().get_bit(q));
            }
            if self.written_back.val().get_bit(q) {
                self.deadline[q].d.next = self.new8.q.val();
                self.waiting.d.next = self.waiting.d.val().replace_bit(q, self.waits_after8.q.val());
                self.ends.d.next = self.ends.d.val().replace_bit(q, self.ends_next8.q.val());
                self.idle_tick.d.next = self.idle_tick.d.val().replace_bit(q, false);
                self.idle_ticks.d.next = self.idle_ticks.d.val().replace_bit(q, false);
            }
            // charges taken in and not yet counted
            self.pending[q].d.next = self.pending[q].q.val();
            if self.taken_in.val().get_bit(q) & self.accepted.val() & !self.written_back.val().get_bit(q) {
                self.pending[q].d.next = self.pending[q].q.val() + 1;
            }
            if !(self.taken_in.val().get_bit(q) & self.accepted.val()) & self.written_back.val().get_bit(q) {
                self.pending[q].d.next = self.pending[q].q.val() - 1;
            }
            if self.reset.val() {
                self.pending[q].d.next = 0.into();
            }
            self.pending_any.d.next = self.pending_any.d.val().replace_bit(q, self.pending[q].d.val().any());
            if self.cfg_we.val() & (self.cfg_queue.val() == self.queue_index[q].val()) {
                self.paced.d.next = self.paced.d.val().replace_bit(q, self.cfg_cost.val().any());
            }
        }
        if self.reset.val() {
            self.paced.d.next = 0.into();
            self.waiting.d.next = 0.into();
            // never charged: as a deadline long past
            self.idle_tick.d.next = self.all_queues.val();
            self.idle_ticks.d.next = self.all_queues.val();
            self.lost_charge.d.next = false;
            self.input_valid.d.next = false;
            self.valid1.d.next = false;
            self.valid7.d.next = false;
            self.valid8.d.next = false;
        }
        self.paused_bits.d.next = self.waiting.d.val() | self.pending_any.d.val();
        self.paused.next = self.paused_bits.q.val();
        self.lost.next = self.lost_charge.q.val();
        self.paced_queues.next = self.paced.q.val();
    }
}

/// The arithmetic of one charge, S2 to S6 of [`QueuePacers`]: from the charge's bytes, its
/// queue's cost and deadline and its arrival a, the queue's new deadline `base + bytes × cost`
/// (`base`: the deadline when it counts, `next > a − SLACK` and not old, else `a − 2^-24`), in
/// 16-bit pieces, five cycles after `start`.
#[derive(LogicBlock)]
pub struct ChargeSums<const Q: usize, const SLACK: u64> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: nothing in flight.
    pub reset: Signal<In, Bit>,
    /// A charge starts (S1 done).
    pub start: Signal<In, Bit>,
    /// Its queue, one hot.
    pub start_queue: Signal<In, Bits<Q>>,
    /// Its bytes.
    pub bytes: Signal<In, Bits<16>>,
    /// Its queue's cost.
    pub cost: Signal<In, Bits<PACE_COST_BITS>>,
    /// Its queue's deadline.
    pub deadline: Signal<In, Bits<TIME_BITS>>,
    /// The deadline is old (taken as passed).
    pub old: Signal<In, Bit>,
    /// Its arrival stamp, a − 1.
    pub arrival: Signal<In, Bits<WHOLE_BITS>>,
    /// A charge is in S2 to S6.
    pub busy: Signal<Out, Bit>,
    /// The new deadline is out (S6).
    pub valid: Signal<Out, Bit>,
    /// Its queue, one hot.
    pub queue: Signal<Out, Bits<Q>>,
    /// The queue's new deadline.
    pub next_deadline: Signal<Out, Bits<TIME_BITS>>,
    /// S2: the products by halves of the cost; the queue's deadline; its age.
    valid2: DFF<Bit>,
    onehot2: DFF<Bits<Q>>,
    product_low2: DFF<Bits<32>>,
    product_high2: DFF<Bits<32>>,
    deadline2: DFF<Bits<TIME_BITS>>,
    old2: DFF<Bit>,
    arrival2: DFF<Bits<WHOLE_BITS>>,
    /// S3: bits 15:0 of both sums, bits 31:16 of the charge, the low half of arrival − deadline.
    valid3: DFF<Bit>,
    onehot3: DFF<Bits<Q>>,
    waited_low3: DFF<Bits<17>>,
    idle_low3: DFF<Bits<17>>,
    charge_middle3: DFF<Bits<17>>,
    product_top3: DFF<Bits<16>>,
    deadline_upper3: DFF<Bits<32>>,
    age_low3: DFF<Bits<17>>,
    old3: DFF<Bit>,
    arrival3: DFF<Bits<WHOLE_BITS>>,
    /// S4: bits 31:16 of both sums, bits 47:32 of the charge; which base is later.
    valid4: DFF<Bit>,
    onehot4: DFF<Bits<Q>>,
    waited_low4: DFF<Bits<16>>,
    idle_low4: DFF<Bits<16>>,
    waited_middle4: DFF<Bits<17>>,
    idle_middle4: DFF<Bits<17>>,
    charge_top4: DFF<Bits<16>>,
    deadline_top4: DFF<Bits<16>>,
    arrival_top4: DFF<Bits<16>>,
    /// (a − 1) − whole(deadline), bits 23:16; its bits 15:0 from the slack's bit up are 0.
    age_high4: DFF<Bits<8>>,
    age_low_small4: DFF<Bit>,
    old4: DFF<Bit>,
    /// S5: both sums; the deadline counts (`next > a − SLACK`): the sum from it is taken.
    valid5: DFF<Bit>,
    onehot5: DFF<Bits<Q>>,
    waited5: DFF<Bits<TIME_BITS>>,
    idle5: DFF<Bits<TIME_BITS>>,
    from_deadline5: DFF<Bit>,
    /// S6: the new deadline.
    valid6: DFF<Bit>,
    onehot6: DFF<Bits<Q>>,
    new6: DFF<Bits<TIME_BITS>>,
    /// Where a deadline's whole part starts, and its top 8 bits.
    whole_at: Constant<Bits<8>>,
    /// With a slack of 2^k cycles: the bits of (a − 1) − whole(deadline) from k to 22 (below
    /// 2^k when they are 0 and the sign is not set), low and high; `has_slack`: SLACK > 0.
    slack_low_mask: Constant<Bits<16>>,
    slack_high_mask: Constant<Bits<8>>,
    has_slack: Constant<Bit>,
}

impl<const Q: usize, const SLACK: u64> Default for ChargeSums<Q, SLACK> {
    fn default() -> Self {
        assert!(
            SLACK == 0 || (SLACK.is_power_of_two() && SLACK <= 1 << 16),
            "a slack of 0 or 2^k ≤ 2^16 cycles"
        );
        let slack_mask = if SLACK == 0 { 0 } else { ((1u64 << 23) - 1) & !(SLACK - 1) };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            start_queue: Default::default(),
            bytes: Default::default(),
            cost: Default::default(),
            deadline: Default::default(),
            old: Default::default(),
            arrival: Default::default(),
            busy: Default::default(),
            valid: Default::default(),
            queue: Default::default(),
            next_deadline: Default::default(),
            valid2: Default::default(),
            onehot2: Default::default(),
            product_low2: Default::default(),
            product_high2: Default::default(),
            deadline2: Default::default(),
            old2: Default::default(),
            arrival2: Default::default(),
            valid3: Default::default(),
            onehot3: Default::default(),
            waited_low3: Default::default(),
            idle_low3: Default::default(),
            charge_middle3: Default::default(),
            product_top3: Default::default(),
            deadline_upper3: Default::default(),
            age_low3: Default::default(),
            old3: Default::default(),
            arrival3: Default::default(),
            valid4: Default::default(),
            onehot4: Default::default(),
            waited_low4: Default::default(),
            idle_low4: Default::default(),
            waited_middle4: Default::default(),
            idle_middle4: Default::default(),
            charge_top4: Default::default(),
            deadline_top4: Default::default(),
            arrival_top4: Default::default(),
            age_high4: Default::default(),
            age_low_small4: Default::default(),
            old4: Default::default(),
            valid5: Default::default(),
            onehot5: Default::default(),
            waited5: Default::default(),
            idle5: Default::default(),
            from_deadline5: Default::default(),
            valid6: Default::default(),
            onehot6: Default::default(),
            new6: Default::default(),
            whole_at: c::<8>(FRACTION as u64),
            slack_low_mask: c::<16>(slack_mask & 0xFFFF),
            slack_high_mask: c::<8>(slack_mask >> 16),
            has_slack: Constant::new(SLACK > 0),
        }
    }
}

impl<const Q: usize, const SLACK: u64> Logic for ChargeSums<Q, SLACK> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            valid2,
            onehot2,
            product_low2,
            product_high2,
            deadline2,
            old2,
            arrival2,
            valid3,
            onehot3,
            waited_low3,
            idle_low3,
            charge_middle3,
            product_top3,
            deadline_upper3,
            age_low3,
            old3,
            arrival3,
            valid4,
            onehot4,
            waited_low4,
            idle_low4,
            waited_middle4,
            idle_middle4,
            charge_top4,
            deadline_top4,
            arrival_top4,
            age_high4,
            age_low_small4,
            old4,
            valid5,
            onehot5,
            waited5,
            idle5,
            from_deadline5,
            valid6,
            onehot6,
            new6
        );
        // ---- S2: bytes × cost by halves of the cost; the queue's deadline and age ----
        self.valid2.d.next = self.start.val();
        self.onehot2.d.next = self.start_queue.val();
        self.arrival2.d.next = self.arrival.val();
        self.product_low2.d.next = self.bytes.val() * self.cost.val().get_bits::<16>(0);
        self.product_high2.d.next = self.bytes.val() * self.cost.val().get_bits::<16>(16);
        self.deadline2.d.next = self.deadline.val();
        self.old2.d.next = self.old.val();
        // ---- S3: bits 15:0 of deadline + charge and of (a − 2^-24) + charge ----
        self.valid3.d.next = self.valid2.q.val();
        self.onehot3.d.next = self.onehot2.q.val();
        self.arrival3.d.next = self.arrival2.q.val();
        self.old3.d.next = self.old2.q.val();
        self.waited_low3.d.next =
            bit_cast::<17, 16>(self.deadline2.q.val().get_bits::<16>(0)) + bit_cast::<17, 16>(self.product_low2.q.val().get_bits::<16>(0));
        self.idle_low3.d.next = bit_cast::<17, 16>(self.product_low2.q.val().get_bits::<16>(0)) + 0xFFFF;
        self.charge_middle3.d.next = bit_cast::<17, 16>(self.product_low2.q.val().get_bits::<16>(16))
            + bit_cast::<17, 16>(self.product_high2.q.val().get_bits::<16>(0));
        self.product_top3.d.next = self.product_high2.q.val().get_bits::<16>(16);
        self.deadline_upper3.d.next = self.deadline2.q.val().get_bits::<32>(16);
        // (a − 1) − whole(deadline): below 0 when the deadline is at or after a
        self.age_low3.d.next = bit_cast::<17, 16>(self.arrival2.q.val().get_bits::<16>(0))
            - bit_cast::<17, 16>(self.deadline2.q.val().get_bits::<16>(self.whole_at.val().index()));
        // ---- S4: bits 31:16; the charge's top; which base is later ----
        self.valid4.d.next = self.valid3.q.val();
        self.onehot4.d.next = self.onehot3.q.val();
        self.waited_low4.d.next = self.waited_low3.q.val().get_bits::<16>(0);
        self.idle_low4.d.next = self.idle_low3.q.val().get_bits::<16>(0);
        self.waited_middle4.d.next = bit_cast::<17, 16>(self.deadline_upper3.q.val().get_bits::<16>(0))
            + bit_cast::<17, 16>(self.charge_middle3.q.val().get_bits::<16>(0))
            + bit_cast::<17, 1>(self.waited_low3.q.val().get_bit(16).into());
        self.idle_middle4.d.next = ((bit_cast::<17, 8>(self.arrival3.q.val().get_bits::<8>(0)) << 8) | 0xFF)
            + bit_cast::<17, 16>(self.charge_middle3.q.val().get_bits::<16>(0))
            + bit_cast::<17, 1>(self.idle_low3.q.val().get_bit(16).into());
        self.charge_top4.d.next = self.product_top3.q.val() + bit_cast::<16, 1>(self.charge_middle3.q.val().get_bit(16).into());
        self.deadline_top4.d.next = self.deadline_upper3.q.val().get_bits::<16>(16);
        self.arrival_top4.d.next = self.arrival3.q.val().get_bits::<16>(8);
        self.age_high4.d.next = self.arrival3.q.val().get_bits::<8>(16)
            - self.deadline_upper3.q.val().get_bits::<8>(24)
            - bit_cast::<8, 1>(self.age_low3.q.val().get_bit(16).into());
        self.age_low_small4.d.next = !(self.age_low3.q.val().get_bits::<16>(0) & self.slack_low_mask.val()).any();
        self.old4.d.next = self.old3.q.val();
        // ---- S5: bits 47:32 ----
        self.valid5.d.next = self.valid4.q.val();
        self.onehot5.d.next = self.onehot4.q.val();
        self.from_deadline5.d.next = (self.age_high4.q.val().get_bit(7)
            | (self.has_slack.val() & self.age_low_small4.q.val() & !(self.age_high4.q.val() & self.slack_high_mask.val()).any()))
            & !self.old4.q.val();
        self.waited5.d.next = (bit_cast::<TIME_BITS, 16>(
            self.deadline_top4.q.val() + self.charge_top4.q.val() + bit_cast::<16, 1>(self.waited_middle4.q.val().get_bit(16).into()),
        ) << 32)
            | (bit_cast::<TIME_BITS, 16>(self.waited_middle4.q.val().get_bits::<16>(0)) << 16)
            | bit_cast::<TIME_BITS, 16>(self.waited_low4.q.val());
        self.idle5.d.next = (bit_cast::<TIME_BITS, 16>(
            self.arrival_top4.q.val() + self.charge_top4.q.val() + bit_cast::<16, 1>(self.idle_middle4.q.val().get_bit(16).into()),
        ) << 32)
            | (bit_cast::<TIME_BITS, 16>(self.idle_middle4.q.val().get_bits::<16>(0)) << 16)
            | bit_cast::<TIME_BITS, 16>(self.idle_low4.q.val());
        // ---- S6: max(a, next) + charge ----
        self.valid6.d.next = self.valid5.q.val();
        self.onehot6.d.next = self.onehot5.q.val();
        self.new6.d.next = self.idle5.q.val();
        if self.from_deadline5.q.val() {
            self.new6.d.next = self.waited5.q.val();
        }
        self.busy.next = self.valid2.q.val() | self.valid3.q.val() | self.valid4.q.val() | self.valid5.q.val() | self.valid6.q.val();
        self.valid.next = self.valid6.q.val();
        self.queue.next = self.onehot6.q.val();
        self.next_deadline.next = self.new6.q.val();
        if self.reset.val() {
            self.valid2.d.next = false;
            self.valid3.d.next = false;
            self.valid4.d.next = false;
            self.valid5.d.next = false;
            self.valid6.d.next = false;
        }
    }
}
