//! The shared-space FIFOs, [`SharedLists`]: enqueue stage E2 and dequeue stage D2.
//!
//! Storage as in the source engine: one next-pointer block RAM shared by every queue, per queue
//! the head in registers and the tail in a 32-entry LUT RAM. An element sits in at most one
//! queue: two N × 1 parity RAMs, `A` written by enqueues and `B` by dequeues, queued iff
//! `A[e] ≠ B[e]` (the parity written into `A` travels with the element through the list and is
//! copied into `B` when it leaves).
//!
//! | stage | cycle | work |
//! |---|---|---|
//! | E1 | accept | the accepted request addresses the parity RAMs and the tail RAM |
//! | E2 | commit | parities compared (last cycle's writes forwarded): commit or refuse; link `next[tail] = e`, new tail; head if the queue is (physically) empty |
//! | D2 | the cycle after a decision | the decided queue's head (the next-pointer RAM output when its previous element left in the previous cycle) leaves: `B` written, `next[head]` read |
//!
//! A queue's *physical* contents still hold the element the arbiter took in the previous cycle
//! (popped here, in D2). Per queue, registered: `physical_nonempty`, `physical_single` (one
//! element) and `physical_two` (two elements), kept without comparators on the per-cycle path
//! but for the queue whose head is the RAM output (`pending`): its flags are that output
//! compared with its tail and with `pretail`, the element before the tail (a LUT RAM written at
//! each commit with the old tail). From them, `last_element` tells the arbiter which queues hold
//! exactly one element *logically* (the popped queue: two physically), which is how back-to-back
//! decisions on one queue stay exact without counting elements.
//!
//! Names ending in `2` belong to stage E2.

use crate::common::elab::{bits_from, c};
use crate::common::lut_ram::LutRam;
use rust_hdl::prelude::*;

/// The lists of `Q` queues over `2^AW` elements (`EW = AW + 1`: an element and its parity).
#[derive(LogicBlock)]
pub struct SharedLists<const AW: usize, const EW: usize, const Q: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties the queues; the initializer runs after it.
    pub reset: Signal<In, Bit>,
    /// E1: a request is accepted this cycle.
    pub enq_valid: Signal<In, Bit>,
    /// E1: its queue.
    pub enq_queue: Signal<In, Bits<5>>,
    /// E1: its element.
    pub enq_elem: Signal<In, Bits<AW>>,
    /// D2: the queue decided in the previous cycle (one-hot, 0: none); its head leaves now.
    pub pop: Signal<In, Bits<32>>,
    /// D2: the same decision as parts of its index ([`super::index_part`]), per table: bit i,
    /// the table's choice is in part i. The index is one LUT level from them.
    pub pop_parts: [Signal<In, Bits<16>>; 2],
    /// E2: bit q: an element joins queue q (one-hot).
    pub commit: Signal<Out, Bits<32>>,
    /// E2: the enqueue is refused, element already queued.
    pub duplicate: Signal<Out, Bit>,
    /// E2: the enqueue is refused, queue ≥ Q.
    pub bad_queue: Signal<Out, Bit>,
    /// Bit q: queue q holds exactly one element logically (the popped one counted out).
    pub last_element: Signal<Out, Bits<32>>,
    /// D2: the element leaving (undefined without a pop).
    pub pop_elem: Signal<Out, Bits<AW>>,
    /// D2: index of `pop`.
    pub pop_queue: Signal<Out, Bits<5>>,
    /// The initializer has cleared the parity RAMs (registered).
    pub init_done: Signal<Out, Bit>,

    /// Next-pointer RAM: `{parity, next element}` per element.
    next_pointers: RAM<Bits<EW>, AW>,
    /// Parity RAM `A`, written by commits.
    parity_a: RAM<Bit, AW>,
    /// Parity RAM `B`, written by pops.
    parity_b: RAM<Bit, AW>,
    /// Tails, read by E1 for the link.
    tail_for_link: RAM<Bits<AW>, 5>,
    /// Tails (a copy), read for the popped queue.
    tail_for_pop: RAM<Bits<AW>, 5>,
    /// Per queue, the element before the tail, read for the popped queue.
    pretail: RAM<Bits<AW>, 5>,
    /// Heads `{parity, element}` written by commits into an empty queue.
    head_from_commit: LutRam<Bits<EW>, 5>,
    /// Heads `{parity, element}` written when a pending queue's head leaves the RAM output.
    head_from_pop: LutRam<Bits<EW>, 5>,
    /// Per queue: its head is in `head_from_pop` (else `head_from_commit`); stale while `pending`.
    head_in_pop_ram: [DFF<Bit>; Q],
    /// The queue popped in the previous cycle (the pending queue if `pending`), index.
    pending_queue: DFF<Bits<5>>,
    /// Per queue: holds an element (physically).
    physical_nonempty: DFF<Bits<32>>,
    /// Per queue: holds one element (valid unless `pending`).
    physical_single: DFF<Bits<32>>,
    /// Per queue: holds two elements (valid unless `pending`).
    physical_two: DFF<Bits<32>>,
    /// Per queue: its head is the next-pointer RAM output (it was popped in the previous cycle).
    pending: DFF<Bits<32>>,
    /// A commit to the popped queue in the previous cycle: its tail and pretail are forwarded.
    pending_forward: DFF<Bit>,
    /// That commit's element (the pending queue's tail).
    pending_new_tail: DFF<Bits<AW>>,
    /// The tail before that commit (the pending queue's pretail).
    pending_old_tail: DFF<Bits<AW>>,
    /// E2: a request is being checked.
    valid2: DFF<Bit>,
    /// E2: its queue.
    queue2: DFF<Bits<5>>,
    /// E2: its queue, one-hot (0 for a queue ≥ Q).
    queue2_onehot: DFF<Bits<32>>,
    /// E2: its queue is < Q.
    queue2_in_range: DFF<Bit>,
    /// E2: its element.
    elem2: DFF<Bits<AW>>,
    /// E2: same queue as the previous request (its tail is forwarded).
    same_queue2: DFF<Bit>,
    /// E2: same element as the previous request (its `A` write is forwarded).
    same_elem2: DFF<Bit>,
    /// Last cycle's write of `A`: enable.
    forward_a_valid: DFF<Bit>,
    /// Last cycle's write of `A`: element.
    forward_a_elem: DFF<Bits<AW>>,
    /// Last cycle's write of `A`: parity.
    forward_a_parity: DFF<Bit>,
    /// E2: last cycle's write of `B` was to `elem2` (compared in E1, with each head candidate).
    forward_b_hit: DFF<Bit>,
    /// Last cycle's write of `B`: parity.
    forward_b_parity: DFF<Bit>,
    /// Initializer: the element whose parities are cleared this cycle.
    init_count: DFF<Bits<AW>>,
    /// Initializer finished.
    initialized: DFF<Bit>,

    /// The parity bit of an entry (bit AW).
    parity_bit: Constant<Bits<EW>>,
    /// Queue indices.
    queue_index: [Constant<Bits<5>>; 32],
    /// Per index bit k: its parts in `pop_parts`.
    parts_of_bit: [Constant<Bits<16>>; 5],

    /// E1: the request's queue, one-hot (0 for a queue ≥ Q).
    queue1_onehot: Signal<Local, Bits<32>>,
    /// E2: `A[elem2]`, last cycle's write forwarded.
    parity_a2: Signal<Local, Bit>,
    /// E2: `B[elem2]`, last cycle's write forwarded.
    parity_b2: Signal<Local, Bit>,
    /// E2: queue index < Q.
    in_range2: Signal<Local, Bit>,
    /// E2: the enqueue is accepted.
    commit2: Signal<Local, Bit>,
    /// E2: `{parity, elem2}` with the new parity (the inverse of `A`).
    entry2: Signal<Local, Bits<EW>>,
    /// E2: the tail of `queue2`.
    tail2: Signal<Local, Bits<AW>>,
    /// E2: `queue2` holds an element.
    nonempty2: Signal<Local, Bit>,
    /// D2: the popped queue is pending (its head is the RAM output).
    pop_pending: Signal<Local, Bit>,
    /// D2: `{parity, element}` leaving.
    pop_head: Signal<Local, Bits<EW>>,
    /// Per queue: `head_in_pop_ram` as a vector.
    in_pop_ram: Signal<Local, Bits<32>>,
    /// D2: the popped queue's head is in `head_from_pop`.
    pop_in_pop_ram: Signal<Local, Bit>,
    /// The pending queue's head is written into `head_from_pop` (its flag set).
    pending_write: Signal<Local, Bit>,
    /// The RAM output (the pending queue's head) equals that queue's tail.
    equals_tail: Signal<Local, Bit>,
    /// The RAM output equals that queue's pretail.
    equals_pretail: Signal<Local, Bit>,
    /// Per queue: one element (physically), at the start of the cycle.
    single_now: Signal<Local, Bits<32>>,
    /// Per queue: two elements (physically), at the start of the cycle.
    two_now: Signal<Local, Bits<32>>,
    /// Per queue: the committed element becomes the head.
    take_entry: Signal<Local, Bits<32>>,
    /// Per queue: the pop takes its last element.
    pop_last: Signal<Local, Bits<32>>,
}

impl<const AW: usize, const EW: usize, const Q: usize> Default for SharedLists<AW, EW, Q> {
    fn default() -> Self {
        assert!(EW == AW + 1, "SharedLists: EW must be AW + 1");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enq_valid: Default::default(),
            enq_queue: Default::default(),
            enq_elem: Default::default(),
            pop: Default::default(),
            pop_parts: Default::default(),
            commit: Default::default(),
            duplicate: Default::default(),
            bad_queue: Default::default(),
            last_element: Default::default(),
            pop_elem: Default::default(),
            pop_queue: Default::default(),
            init_done: Default::default(),
            next_pointers: Default::default(),
            parity_a: Default::default(),
            parity_b: Default::default(),
            tail_for_link: Default::default(),
            tail_for_pop: Default::default(),
            pretail: Default::default(),
            head_from_commit: Default::default(),
            head_from_pop: Default::default(),
            head_in_pop_ram: std::array::from_fn(|_| Default::default()),
            pending_queue: Default::default(),
            physical_nonempty: Default::default(),
            physical_single: Default::default(),
            physical_two: Default::default(),
            pending: Default::default(),
            pending_forward: Default::default(),
            pending_new_tail: Default::default(),
            pending_old_tail: Default::default(),
            valid2: Default::default(),
            queue2: Default::default(),
            queue2_onehot: Default::default(),
            queue2_in_range: Default::default(),
            elem2: Default::default(),
            same_queue2: Default::default(),
            same_elem2: Default::default(),
            forward_a_valid: Default::default(),
            forward_a_elem: Default::default(),
            forward_a_parity: Default::default(),
            forward_b_hit: Default::default(),
            forward_b_parity: Default::default(),
            init_count: Default::default(),
            initialized: Default::default(),
            parity_bit: Constant::new(Bits::<EW>::from(1u64 << AW)),
            queue_index: std::array::from_fn(|q| c::<5>(q as u64)),
            parts_of_bit: std::array::from_fn(|k| Constant::new(bits_from(|i| i < super::INDEX_PARTS && i / 3 == k))),
            queue1_onehot: Default::default(),
            parity_a2: Default::default(),
            parity_b2: Default::default(),
            in_range2: Default::default(),
            commit2: Default::default(),
            entry2: Default::default(),
            tail2: Default::default(),
            nonempty2: Default::default(),
            pop_pending: Default::default(),
            pop_head: Default::default(),
            in_pop_ram: Default::default(),
            pop_in_pop_ram: Default::default(),
            pending_write: Default::default(),
            equals_tail: Default::default(),
            equals_pretail: Default::default(),
            single_now: Default::default(),
            two_now: Default::default(),
            take_entry: Default::default(),
            pop_last: Default::default(),
        }
    }
}

impl<const AW: usize, const EW: usize, const Q: usize> Logic for SharedLists<AW, EW, Q> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            physical_nonempty,
            physical_single,
            physical_two,
            pending,
            pending_forward,
            pending_new_tail,
            pending_old_tail,
            valid2,
            queue2,
            queue2_onehot,
            queue2_in_range,
            elem2,
            same_queue2,
            same_elem2,
            forward_a_valid,
            forward_a_elem,
            forward_a_parity,
            forward_b_hit,
            forward_b_parity,
            init_count,
            initialized,
            pending_queue
        );
        for q in 0..Q {
            self.head_in_pop_ram[q].clock.next = self.clock.val();
            self.head_in_pop_ram[q].d.next = self.head_in_pop_ram[q].q.val();
        }
        self.head_from_commit.write_clock.next = self.clock.val();
        self.head_from_pop.write_clock.next = self.clock.val();
        self.next_pointers.read_clock.next = self.clock.val();
        self.next_pointers.write_clock.next = self.clock.val();
        self.parity_a.read_clock.next = self.clock.val();
        self.parity_a.write_clock.next = self.clock.val();
        self.parity_b.read_clock.next = self.clock.val();
        self.parity_b.write_clock.next = self.clock.val();
        self.tail_for_link.read_clock.next = self.clock.val();
        self.tail_for_link.write_clock.next = self.clock.val();
        self.tail_for_pop.read_clock.next = self.clock.val();
        self.tail_for_pop.write_clock.next = self.clock.val();
        self.pretail.read_clock.next = self.clock.val();
        self.pretail.write_clock.next = self.clock.val();
        self.init_done.next = self.initialized.q.val();

        // ---- E1: address the parity RAMs and the tail RAM; register the request into E2 ----
        self.parity_a.read_address.next = self.enq_elem.val();
        self.parity_b.read_address.next = self.enq_elem.val();
        self.tail_for_link.read_address.next = self.enq_queue.val();
        self.valid2.d.next = self.enq_valid.val();
        self.queue2.d.next = self.enq_queue.val();
        self.elem2.d.next = self.enq_elem.val();
        self.same_queue2.d.next = self.enq_queue.val() == self.queue2.q.val();
        self.same_elem2.d.next = self.enq_elem.val() == self.elem2.q.val();
        self.queue1_onehot.next = 0.into();
        for q in 0..Q {
            if self.enq_queue.val() == self.queue_index[q].val() {
                self.queue1_onehot.next = self.queue1_onehot.val().replace_bit(q, true);
            }
        }
        self.queue2_onehot.d.next = self.queue1_onehot.val();
        self.queue2_in_range.d.next = self.queue1_onehot.val().any();

        // ---- E2: queued iff A != B (last cycle's writes forwarded); commit or refuse ----
        self.parity_a2.next = self.parity_a.read_data.val();
        if self.forward_a_valid.q.val() & self.same_elem2.q.val() {
            self.parity_a2.next = self.forward_a_parity.q.val();
        }
        self.parity_b2.next = self.parity_b.read_data.val();
        if self.forward_b_hit.q.val() {
            self.parity_b2.next = self.forward_b_parity.q.val();
        }
        self.in_range2.next = self.queue2_in_range.q.val();
        self.commit2.next = self.valid2.q.val() & self.in_range2.val() & !(self.parity_a2.val() ^ self.parity_b2.val());
        self.duplicate.next = self.valid2.q.val() & self.in_range2.val() & (self.parity_a2.val() ^ self.parity_b2.val());
        self.bad_queue.next = self.valid2.q.val() & !self.in_range2.val();
        self.commit.next = 0.into();
        if self.commit2.val() {
            self.commit.next = self.queue2_onehot.q.val();
        }
        self.entry2.next = bit_cast::<EW, AW>(self.elem2.q.val());
        if !self.parity_a2.val() {
            self.entry2.next = self.entry2.val() | self.parity_bit.val();
        }
        self.tail2.next = self.tail_for_link.read_data.val();
        if self.same_queue2.q.val() & self.forward_a_valid.q.val() {
            self.tail2.next = self.forward_a_elem.q.val();
        }
        self.nonempty2.next = (self.queue2_onehot.q.val() & self.physical_nonempty.q.val()).any();
        // link next[tail] = e when the queue holds an element (harmless if it leaves now)
        self.next_pointers.write_enable.next = self.commit2.val() & self.nonempty2.val();
        self.next_pointers.write_address.next = self.tail2.val();
        self.next_pointers.write_data.next = self.entry2.val();
        self.tail_for_link.write_enable.next = self.commit2.val();
        self.tail_for_link.write_address.next = self.queue2.q.val();
        self.tail_for_link.write_data.next = self.elem2.q.val();
        self.tail_for_pop.write_enable.next = self.commit2.val();
        self.tail_for_pop.write_address.next = self.queue2.q.val();
        self.tail_for_pop.write_data.next = self.elem2.q.val();
        self.pretail.write_enable.next = self.commit2.val();
        self.pretail.write_address.next = self.queue2.q.val();
        self.pretail.write_data.next = self.tail2.val();

        // ---- D2: the popped queue's head leaves (the RAM output if it is pending) ----
        self.pop_pending.next = (self.pop.val() & self.pending.q.val()).any();
        self.pop_queue.next = 0.into();
        for k in 0..5 {
            self.pop_queue.next = self.pop_queue.val().replace_bit(
                k,
                ((self.pop_parts[0].val() | self.pop_parts[1].val()) & self.parts_of_bit[k].val()).any(),
            );
        }
        self.in_pop_ram.next = 0.into();
        for q in 0..Q {
            self.in_pop_ram.next = self.in_pop_ram.val().replace_bit(q, self.head_in_pop_ram[q].q.val());
        }
        self.pop_in_pop_ram.next = (self.pop.val() & self.in_pop_ram.val()).any();
        self.head_from_commit.read_address.next = self.pop_queue.val();
        self.head_from_pop.read_address.next = self.pop_queue.val();
        self.pop_head.next = self.head_from_commit.read_data.val();
        if self.pop_in_pop_ram.val() {
            self.pop_head.next = self.head_from_pop.read_data.val();
        }
        if self.pop_pending.val() {
            self.pop_head.next = self.next_pointers.read_data.val();
        }
        self.pending_queue.d.next = self.pop_queue.val();
        self.pop_elem.next = self.pop_head.val().get_bits::<AW>(0);
        self.next_pointers.read_address.next = self.pop_head.val().get_bits::<AW>(0);
        self.tail_for_pop.read_address.next = self.pop_queue.val();
        self.pretail.read_address.next = self.pop_queue.val();
        self.pending_forward.d.next = self.commit2.val() & (self.pop.val() & self.queue2_onehot.q.val()).any();
        self.pending_new_tail.d.next = self.elem2.q.val();
        self.pending_old_tail.d.next = self.tail2.val();

        // ---- physical flags at the start of the cycle: the pending queue's from its new head ----
        self.equals_tail.next = self.next_pointers.read_data.val().get_bits::<AW>(0) == self.tail_for_pop.read_data.val();
        self.equals_pretail.next = self.next_pointers.read_data.val().get_bits::<AW>(0) == self.pretail.read_data.val();
        if self.pending_forward.q.val() {
            self.equals_tail.next = self.next_pointers.read_data.val().get_bits::<AW>(0) == self.pending_new_tail.q.val();
            self.equals_pretail.next = self.next_pointers.read_data.val().get_bits::<AW>(0) == self.pending_old_tail.q.val();
        }
        self.single_now.next = self.physical_single.q.val() & !self.pending.q.val();
        if self.equals_tail.val() {
            self.single_now.next = self.physical_single.q.val() | self.pending.q.val();
        }
        self.two_now.next = self.physical_two.q.val() & !self.pending.q.val();
        if self.equals_pretail.val() {
            self.two_now.next = self.physical_two.q.val() | self.pending.q.val();
        }
        // logically one element: the popped queue holds two, any other one
        self.last_element.next = (self.pop.val() & self.two_now.val()) | (!self.pop.val() & self.single_now.val());

        // ---- per queue: flags, heads, pending for the next cycle ----
        self.pop_last.next = self.pop.val() & self.single_now.val();
        self.take_entry.next = self.commit.val() & (!self.physical_nonempty.q.val() | self.pop.val());
        self.physical_nonempty.d.next = self.commit.val() | (self.physical_nonempty.q.val() & !self.pop_last.val());
        self.pending.d.next = self.pop.val() & !self.single_now.val();
        self.physical_single.d.next =
            self.pop.val() | (self.commit.val() & !self.physical_nonempty.q.val()) | (!self.commit.val() & self.single_now.val());
        self.physical_two.d.next = !self.pop.val()
            & ((self.commit.val() & self.physical_nonempty.q.val() & self.single_now.val()) | (!self.commit.val() & self.two_now.val()));
        // heads: a commit into an empty queue writes one RAM, the pending queue's new head the
        // other; a per-queue bit says which holds the head
        // (also when the queue is popped with more elements left: it is then pending, and its
        // head comes from the next-pointer RAM and is written into the other RAM)
        self.head_from_commit.write_enable.next =
            self.commit2.val() & (!self.nonempty2.val() | (self.pop.val() & self.queue2_onehot.q.val()).any());
        self.head_from_commit.write_address.next = self.queue2.q.val();
        self.head_from_commit.write_data.next = self.entry2.val();
        self.pending_write.next = self.pending.q.val().any();
        self.head_from_pop.write_enable.next = self.pending_write.val();
        self.head_from_pop.write_address.next = self.pending_queue.q.val();
        self.head_from_pop.write_data.next = self.next_pointers.read_data.val();
        for q in 0..Q {
            if self.pending.q.val().get_bit(q) {
                self.head_in_pop_ram[q].d.next = true;
            }
            if self.take_entry.val().get_bit(q) {
                self.head_in_pop_ram[q].d.next = false;
            }
        }

        // ---- parity writes (the initializer clears both RAMs), forwarding registers ----
        self.parity_a.write_enable.next = self.commit2.val();
        self.parity_a.write_address.next = self.elem2.q.val();
        self.parity_a.write_data.next = !self.parity_a2.val();
        self.parity_b.write_enable.next = self.pop.val().any();
        self.parity_b.write_address.next = self.pop_head.val().get_bits::<AW>(0);
        self.parity_b.write_data.next = (self.pop_head.val() & self.parity_bit.val()).any();
        self.forward_a_valid.d.next = self.commit2.val();
        self.forward_a_elem.d.next = self.elem2.q.val();
        self.forward_a_parity.d.next = !self.parity_a2.val();
        // E1 against D2: does this cycle's `B` write hit the request entering E2? Each candidate
        // of the popped head is compared, then picked as the head is.
        self.forward_b_hit.d.next = self.head_from_commit.read_data.val().get_bits::<AW>(0) == self.enq_elem.val();
        if self.pop_in_pop_ram.val() {
            self.forward_b_hit.d.next = self.head_from_pop.read_data.val().get_bits::<AW>(0) == self.enq_elem.val();
        }
        if self.pop_pending.val() {
            self.forward_b_hit.d.next = self.next_pointers.read_data.val().get_bits::<AW>(0) == self.enq_elem.val();
        }
        if !self.pop.val().any() {
            self.forward_b_hit.d.next = false;
        }
        self.forward_b_parity.d.next = (self.pop_head.val() & self.parity_bit.val()).any();
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
            self.physical_nonempty.d.next = 0.into();
            self.pending.d.next = 0.into();
            self.valid2.d.next = false;
            self.forward_a_valid.d.next = false;
            self.forward_b_hit.d.next = false;
            self.init_count.d.next = 0.into();
            self.initialized.d.next = false;
        }
    }
}
