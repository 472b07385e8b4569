//! [`SendHistory`]: per RC QP, the blocks sent and not yet acknowledged, in PSN order, so that
//! going back N can cut them again (the rules: `ferroce_models::tx::history`; the record:
//! `ferroce_contracts::reliability::SENT_BLOCK`).
//!
//! ```text
//!  record (a block the packetizer cut: QP, SENT_BLOCK, first and last PSN) ─┐
//!  release (QP, PSN acknowledged) ──────────────────────────────────────────┤ one operation
//!  rewind (QP, PSN to go back to) ─► cursor ─► replay steps ────────────────┤ at a time
//!  clear (QP reset) ────────────────────────────────────────────────────────┘
//!      ring per QP (head, count) · blocks and PSNs per slot (block RAM) · full bits
//!  replay (QP, block, first PSN, packets to skip) ◄─ one register, held until taken
//!  full_qp ─► full (one cycle later: the QP's ring has no free slot)
//! ```
//!
//! - A QP's ring holds `2^(AB − QB)` blocks. A record for a full ring is refused (`overflow`);
//!   the segmenter asks `full` (at most one slot free) before it cuts a block for the QP, so in
//!   the TX path no record is refused.
//! - A release pops the oldest blocks whose last PSN is at or before the PSN (24-bit serial
//!   arithmetic, [`PsnOrder`]), one every five cycles.
//! - A rewind starts the replay of the QP's ring from its oldest block; the block holding the
//!   PSN goes out with the packets before it to skip. A replay step runs when the replay register
//!   is empty, so releases and records go on meanwhile; blocks released during a replay are not
//!   replayed, blocks recorded during it are. A rewind of the QP being replayed starts its
//!   replay again (a timeout during a replay); `rewind_whole` replays every block whole (nothing
//!   of the QP was acknowledged yet, so there is no PSN to go back to).
//! - **Rewinds wait their turn.** One replay runs at a time: a rewind of another QP, or any
//!   rewind while others wait, is kept (per QP its PSN, the latest rewind's) and its QP joins a
//!   queue (a ring of `2^QB` QPs in RAM, each QP at most once); when a replay ends the next QP in
//!   the queue starts. A clear forgets the QP's waiting rewind. So a timeout on one QP never
//!   cancels the replay of another (many QPs timing out together each get theirs).

use crate::common::elab::c;
use crate::common::psn::PsnOrder;
use ferroce_contracts::reliability::SENT_BLOCK_BITS;
use rust_hdl::prelude::*;

mod entries {
    // the methods `LogicStruct` derives have no docs
    #![allow(missing_docs)]
    use rust_hdl::prelude::*;

    /// A QP's ring: its oldest slot and how many blocks it holds.
    #[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
    pub struct Ring {
        pub head: Bits<8>,
        pub count: Bits<9>,
    }

    /// A QP's rewind waiting for its turn.
    #[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
    pub struct WaitingRewind {
        pub valid: Bit,
        pub whole: Bit,
        pub psn: Bits<24>,
    }
}
pub use entries::{Ring, WaitingRewind};

/// The history's steps.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum HistoryState {
    /// Clearing the rings after reset.
    Init,
    /// Choosing the next operation.
    Idle,
    /// Record: the ring is read.
    RecordRing,
    /// Record: the block is written at the ring's tail (or refused).
    RecordWrite,
    /// Release: the ring is read.
    ReleaseRing,
    /// Release: the oldest block's PSNs are read (or the release ends).
    ReleaseRead,
    /// Release: its last PSN and the PSN go to the compare.
    ReleaseLoad,
    /// Release: the compare's first stage.
    ReleaseCompare,
    /// Release: the compare's second stage.
    ReleaseWait,
    /// Release: the oldest block is popped, or the release ends.
    ReleaseDecide,
    /// Release: the ring and its full bit are written.
    ReleaseWrite,
    /// Replay: the cursor's ring is read.
    StepRing,
    /// Replay: the next block and its PSNs are read (or the replay ends).
    StepRead,
    /// Replay: the block's first PSN and the rewind PSN go to the compare; their difference's
    /// low half.
    StepLoad,
    /// Replay: the compare's first stage; the difference's high half.
    StepCompare,
    /// Replay: the compare's second stage.
    StepWait,
    /// Replay: the block goes to the replay register.
    StepDecide,
    /// Rewind (a replay runs or others wait): the QP's rewind is kept, the QP queued.
    RewindKeep,
    /// The queue's head QP is read.
    RewindPop,
    /// Its rewind is read and forgotten; its replay starts.
    RewindStart,
}

/// Bits of a sent block.
pub const BLOCK_BITS: usize = SENT_BLOCK_BITS;

/// The history of `2^QB` QPs with `2^(AB − QB)` blocks each (1 to 256).
#[derive(LogicBlock)]
pub struct SendHistory<const QB: usize, const AB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: every ring is emptied, the replay stops.
    pub reset: Signal<In, Bit>,
    /// The rings are cleared.
    pub init_done: Signal<Out, Bit>,
    /// Choosing the next operation (the state alone): a record is taken in such a cycle when no
    /// clear and no release is offered (`record_ready` without its dependence on those inputs).
    pub idle: Signal<Out, Bit>,
    /// A block was sent on an RC QP: valid.
    pub record_valid: Signal<In, Bit>,
    /// Taken (depends on the state only).
    pub record_ready: Signal<Out, Bit>,
    /// Its QP.
    pub record_qp: Signal<In, Bits<QB>>,
    /// The block (`SENT_BLOCK`).
    pub record_block: Signal<In, Bits<BLOCK_BITS>>,
    /// PSN of its first packet.
    pub record_first_psn: Signal<In, Bits<24>>,
    /// PSN of its last packet.
    pub record_last_psn: Signal<In, Bits<24>>,
    /// A record was refused: the QP's ring was full (one cycle).
    pub overflow: Signal<Out, Bit>,
    /// PSNs were acknowledged: valid.
    pub release_valid: Signal<In, Bit>,
    /// Taken (depends on the state only).
    pub release_ready: Signal<Out, Bit>,
    /// The QP.
    pub release_qp: Signal<In, Bits<QB>>,
    /// The PSN acknowledged, and every one before it.
    pub release_psn: Signal<In, Bits<24>>,
    /// Go back N: valid.
    pub rewind_valid: Signal<In, Bit>,
    /// Taken (depends on the state only).
    pub rewind_ready: Signal<Out, Bit>,
    /// The QP.
    pub rewind_qp: Signal<In, Bits<QB>>,
    /// The PSN to send again from.
    pub rewind_psn: Signal<In, Bits<24>>,
    /// Every block whole (`rewind_psn` is not used).
    pub rewind_whole: Signal<In, Bit>,
    /// A replay runs.
    pub replaying: Signal<Out, Bit>,
    /// A block to cut again: valid (held until taken).
    pub replay_valid: Signal<Out, Bit>,
    /// Taken.
    pub replay_ready: Signal<In, Bit>,
    /// Its QP.
    pub replay_qp: Signal<Out, Bits<QB>>,
    /// The block.
    pub replay_block: Signal<Out, Bits<BLOCK_BITS>>,
    /// PSN of its first packet.
    pub replay_first_psn: Signal<Out, Bits<24>>,
    /// Packets of it to skip (those before the rewind PSN; 0 but in the block holding it).
    pub replay_skip: Signal<Out, Bits<24>>,
    /// The QP was reset: its ring is emptied (and its replay stopped): valid.
    pub clear_valid: Signal<In, Bit>,
    /// Taken (depends on the state only; before anything else).
    pub clear_ready: Signal<Out, Bit>,
    /// The QP.
    pub clear_qp: Signal<In, Bits<QB>>,
    /// Whose full bit to read.
    pub full_qp: Signal<In, Bits<QB>>,
    /// `full_qp`'s ring (of the cycle before) has at most one free slot: the segmenter cuts no
    /// block for the QP (the packetizer may be cutting one that takes the last).
    pub full: Signal<Out, Bit>,

    rings: RAM<Ring, QB>,
    blocks: RAM<Bits<BLOCK_BITS>, AB>,
    /// Per slot `{last PSN (47:24), first PSN (23:0)}`.
    psns: RAM<Bits<48>, AB>,
    fulls: RAM<Bit, QB>,
    /// Per QP: its rewind waiting for its turn.
    waiting: RAM<WaitingRewind, QB>,
    /// Per QP: it is in the queue (its waiting rewind may have been forgotten by a clear).
    queued: RAM<Bit, QB>,
    /// The queue of QPs whose rewinds wait, a ring; its pointers carry a wrap bit.
    queue: RAM<Bits<QB>, QB>,
    queue_head: DFF<Bits<17>>,
    queue_tail: DFF<Bits<17>>,
    /// The rewind to keep: every block whole.
    whole: DFF<Bit>,
    /// The release pops a block before the cursor: the replay of this QP keeps its place.
    cursor_moves: DFF<Bit>,
    /// The cursor one block back, computed the cycle before.
    cursor_index_less: DFF<Bits<9>>,
    state: DFF<HistoryState>,
    init_index: DFF<Bits<QB>>,
    /// The operation's QP, PSN and block.
    qp: DFF<Bits<QB>>,
    psn: DFF<Bits<24>>,
    block: DFF<Bits<BLOCK_BITS>>,
    first_psn: DFF<Bits<24>>,
    last_psn: DFF<Bits<24>>,
    ring: DFF<Ring>,
    /// The slot read or written; from the choice of an operation to its ring read, the offset of
    /// the slot from the ring's head (`slot_from_count`: the ring's count instead).
    slot: DFF<Bits<9>>,
    slot_from_count: DFF<Bit>,
    /// The replay cursor: a replay runs, of which QP, from which PSN, blocks from the head done.
    cursor_active: DFF<Bit>,
    cursor_qp: DFF<Bits<QB>>,
    cursor_psn: DFF<Bits<24>>,
    cursor_whole: DFF<Bit>,
    cursor_index: DFF<Bits<9>>,
    /// `cursor_psn − first PSN` of the block read: the low 12 bits with the borrow, then all.
    difference_low: DFF<Bits<13>>,
    difference: DFF<Bits<24>>,
    order: PsnOrder,
    first: DFF<Bits<24>>,
    second: DFF<Bits<24>>,
    out_valid: DFF<Bit>,
    out_qp: DFF<Bits<QB>>,
    out_block: DFF<Bits<BLOCK_BITS>>,
    out_first_psn: DFF<Bits<24>>,
    out_skip: DFF<Bits<24>>,
    refused: DFF<Bit>,
    slot_address: Signal<Local, Bits<AB>>,
    /// QPs wait in the queue.
    queue_waits: Signal<Local, Bit>,
    /// The rewind offered starts (or restarts) the replay at once.
    rewind_now: Signal<Local, Bit>,
    /// The queue's pointer mask: `QB` bits and the wrap bit.
    queue_mask: Constant<Bits<17>>,
    /// The ring read, its head plus the offset: the slot a ring state goes on with (the choice
    /// of the offset is a register, so the adder's inputs are flip-flops and the RAM).
    ring_offset: Signal<Local, Bits<9>>,
    ring_slot: Signal<Local, Bits<9>>,
    read_psns: Signal<Local, Bits<48>>,
    /// A ring with no block (after reset and a clear).
    empty_ring: Constant<Ring>,
    capacity: Constant<Bits<9>>,
    /// `capacity − 1`: the ring counts as full (the block being cut may take the last slot).
    almost_full: Constant<Bits<9>>,
    /// `capacity − 2`: a record makes the ring count as full.
    nearly_full: Constant<Bits<9>>,
    slot_mask: Constant<Bits<9>>,
    slot_bits: Constant<Bits<AB>>,
    last_qp: Constant<Bits<QB>>,
}

impl<const QB: usize, const AB: usize> Default for SendHistory<QB, AB> {
    fn default() -> Self {
        assert!(AB > QB && AB - QB <= 8 && QB <= 16);
        let slot_bits = AB - QB;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            init_done: Default::default(),
            idle: Default::default(),
            record_valid: Default::default(),
            record_ready: Default::default(),
            record_qp: Default::default(),
            record_block: Default::default(),
            record_first_psn: Default::default(),
            record_last_psn: Default::default(),
            overflow: Default::default(),
            release_valid: Default::default(),
            release_ready: Default::default(),
            release_qp: Default::default(),
            release_psn: Default::default(),
            rewind_valid: Default::default(),
            rewind_ready: Default::default(),
            rewind_qp: Default::default(),
            rewind_psn: Default::default(),
            rewind_whole: Default::default(),
            replaying: Default::default(),
            replay_valid: Default::default(),
            replay_ready: Default::default(),
            replay_qp: Default::default(),
            replay_block: Default::default(),
            replay_first_psn: Default::default(),
            replay_skip: Default::default(),
            clear_valid: Default::default(),
            clear_ready: Default::default(),
            clear_qp: Default::default(),
            full_qp: Default::default(),
            full: Default::default(),
            rings: Default::default(),
            blocks: Default::default(),
            psns: Default::default(),
            fulls: Default::default(),
            waiting: Default::default(),
            queued: Default::default(),
            queue: Default::default(),
            queue_head: Default::default(),
            queue_tail: Default::default(),
            whole: Default::default(),
            cursor_moves: Default::default(),
            cursor_index_less: Default::default(),
            state: Default::default(),
            init_index: Default::default(),
            qp: Default::default(),
            psn: Default::default(),
            block: Default::default(),
            first_psn: Default::default(),
            last_psn: Default::default(),
            ring: Default::default(),
            slot: Default::default(),
            slot_from_count: Default::default(),
            cursor_active: Default::default(),
            cursor_qp: Default::default(),
            cursor_psn: Default::default(),
            cursor_whole: Default::default(),
            cursor_index: Default::default(),
            difference_low: Default::default(),
            difference: Default::default(),
            order: Default::default(),
            first: Default::default(),
            second: Default::default(),
            out_valid: Default::default(),
            out_qp: Default::default(),
            out_block: Default::default(),
            out_first_psn: Default::default(),
            out_skip: Default::default(),
            refused: Default::default(),
            slot_address: Default::default(),
            queue_waits: Default::default(),
            rewind_now: Default::default(),
            queue_mask: c::<17>((2 << QB) - 1),
            ring_offset: Default::default(),
            ring_slot: Default::default(),
            read_psns: Default::default(),
            empty_ring: Constant::new(Ring::default()),
            capacity: c::<9>(1 << slot_bits),
            almost_full: c::<9>((1 << slot_bits) - 1),
            nearly_full: c::<9>((1u64 << slot_bits).saturating_sub(2)),
            slot_mask: c::<9>((1 << slot_bits) - 1),
            slot_bits: c::<AB>(slot_bits as u64),
            last_qp: c::<QB>((1 << QB) - 1),
        }
    }
}

impl<const QB: usize, const AB: usize> Logic for SendHistory<QB, AB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            init_index,
            qp,
            psn,
            block,
            first_psn,
            last_psn,
            ring,
            slot,
            slot_from_count,
            cursor_active,
            cursor_qp,
            cursor_psn,
            cursor_whole,
            cursor_index,
            difference_low,
            difference,
            first,
            second,
            out_valid,
            out_qp,
            out_block,
            out_first_psn,
            out_skip,
            refused,
            queue_head,
            queue_tail,
            whole,
            cursor_moves,
            cursor_index_less
        );
        self.rings.read_clock.next = self.clock.val();
        self.rings.write_clock.next = self.clock.val();
        self.blocks.read_clock.next = self.clock.val();
        self.blocks.write_clock.next = self.clock.val();
        self.psns.read_clock.next = self.clock.val();
        self.psns.write_clock.next = self.clock.val();
        self.fulls.read_clock.next = self.clock.val();
        self.fulls.write_clock.next = self.clock.val();
        self.waiting.read_clock.next = self.clock.val();
        self.waiting.write_clock.next = self.clock.val();
        self.queued.read_clock.next = self.clock.val();
        self.queued.write_clock.next = self.clock.val();
        self.queue.read_clock.next = self.clock.val();
        self.queue.write_clock.next = self.clock.val();
        self.order.clock.next = self.clock.val();
        self.order.first.next = self.first.q.val();
        self.order.second.next = self.second.q.val();

        // ---- defaults: the RAMs at the operation's QP and slot, nothing written or taken ----
        self.slot_address.next =
            (bit_cast::<AB, QB>(self.qp.q.val()) << self.slot_bits.val()) | bit_cast::<AB, 9>(self.slot.q.val() & self.slot_mask.val());
        self.rings.read_address.next = self.qp.q.val();
        self.rings.write_address.next = self.qp.q.val();
        self.rings.write_enable.next = false;
        self.rings.write_data.next = self.ring.q.val();
        self.blocks.read_address.next = self.slot_address.val();
        self.blocks.write_address.next = self.slot_address.val();
        self.blocks.write_enable.next = false;
        self.blocks.write_data.next = self.block.q.val();
        self.psns.read_address.next = self.slot_address.val();
        self.psns.write_address.next = self.slot_address.val();
        self.psns.write_enable.next = false;
        self.psns.write_data.next = (bit_cast::<48, 24>(self.last_psn.q.val()) << 24) | bit_cast::<48, 24>(self.first_psn.q.val());
        self.read_psns.next = self.psns.read_data.val();
        self.ring_offset.next = self.slot.q.val();
        if self.slot_from_count.q.val() {
            self.ring_offset.next = self.rings.read_data.val().count;
        }
        self.ring_slot.next = bit_cast::<9, 8>(self.rings.read_data.val().head) + self.ring_offset.val();
        self.fulls.read_address.next = self.full_qp.val();
        self.fulls.write_address.next = self.qp.q.val();
        self.fulls.write_enable.next = false;
        self.fulls.write_data.next = self.ring.q.val().count >= self.almost_full.val();
        // the waiting rewinds: at the operation's QP; the queue: its head, its tail
        self.waiting.read_address.next = self.qp.q.val();
        self.waiting.write_address.next = self.qp.q.val();
        self.waiting.write_enable.next = false;
        self.waiting.write_data.next.valid = true;
        self.waiting.write_data.next.whole = self.whole.q.val();
        self.waiting.write_data.next.psn = self.psn.q.val();
        // (only `RewindKeep` reads `queued`: at the rewind's QP of the cycle before)
        self.queued.read_address.next = self.rewind_qp.val();
        self.queued.write_address.next = self.qp.q.val();
        self.queued.write_enable.next = false;
        self.queued.write_data.next = true;
        self.queue.read_address.next = self.queue_head.q.val().get_bits::<QB>(0);
        self.queue.write_address.next = self.queue_tail.q.val().get_bits::<QB>(0);
        self.queue.write_enable.next = false;
        self.queue.write_data.next = self.qp.q.val();
        self.queue_waits.next = self.queue_head.q.val() != self.queue_tail.q.val();
        self.rewind_now.next = (self.cursor_active.q.val() && (self.cursor_qp.q.val() == self.rewind_qp.val()))
            || (!self.cursor_active.q.val() && !self.queue_waits.val());
        self.clear_ready.next = false;
        self.record_ready.next = false;
        self.release_ready.next = false;
        self.rewind_ready.next = false;
        self.refused.d.next = false;
        if self.replay_ready.val() {
            self.out_valid.d.next = false;
        }

        match self.state.q.val() {
            HistoryState::Init => {
                self.rings.write_enable.next = true;
                self.rings.write_address.next = self.init_index.q.val();
                self.rings.write_data.next = self.empty_ring.val();
                self.fulls.write_enable.next = true;
                self.fulls.write_address.next = self.init_index.q.val();
                self.fulls.write_data.next = false;
                self.waiting.write_enable.next = true;
                self.waiting.write_address.next = self.init_index.q.val();
                self.waiting.write_data.next.valid = false;
                self.queued.write_enable.next = true;
                self.queued.write_address.next = self.init_index.q.val();
                self.queued.write_data.next = false;
                self.init_index.d.next = self.init_index.q.val() + 1;
                if self.init_index.q.val() == self.last_qp.val() {
                    self.state.d.next = HistoryState::Idle;
                }
            }
            HistoryState::Idle => {
                // a clear first; then releases, records, a rewind, a replay step
                self.clear_ready.next = true;
                self.release_ready.next = !self.clear_valid.val();
                self.record_ready.next = !self.clear_valid.val() && !self.release_valid.val();
                self.rewind_ready.next = !self.clear_valid.val() && !self.release_valid.val() && !self.record_valid.val();
                if self.clear_valid.val() {
                    self.rings.write_enable.next = true;
                    self.rings.write_address.next = self.clear_qp.val();
                    self.rings.write_data.next = self.empty_ring.val();
                    self.fulls.write_enable.next = true;
                    self.fulls.write_address.next = self.clear_qp.val();
                    self.fulls.write_data.next = false;
                    if self.cursor_qp.q.val() == self.clear_qp.val() {
                        self.cursor_active.d.next = false;
                    }
                    self.waiting.write_enable.next = true;
                    self.waiting.write_address.next = self.clear_qp.val();
                    self.waiting.write_data.next.valid = false;
                } else if self.release_valid.val() {
                    self.qp.d.next = self.release_qp.val();
                    self.psn.d.next = self.release_psn.val();
                    self.slot.d.next = 0.into();
                    self.slot_from_count.d.next = false;
                    self.rings.read_address.next = self.release_qp.val();
                    self.state.d.next = HistoryState::ReleaseRing;
                } else if self.record_valid.val() {
                    self.qp.d.next = self.record_qp.val();
                    self.block.d.next = self.record_block.val();
                    self.first_psn.d.next = self.record_first_psn.val();
                    self.last_psn.d.next = self.record_last_psn.val();
                    self.slot_from_count.d.next = true;
                    self.rings.read_address.next = self.record_qp.val();
                    self.state.d.next = HistoryState::RecordRing;
                } else if self.rewind_valid.val() && self.rewind_now.val() {
                    self.cursor_active.d.next = true;
                    self.cursor_qp.d.next = self.rewind_qp.val();
                    self.cursor_psn.d.next = self.rewind_psn.val();
                    self.cursor_whole.d.next = self.rewind_whole.val();
                    self.cursor_index.d.next = 0.into();
                } else if self.rewind_valid.val() {
                    self.qp.d.next = self.rewind_qp.val();
                    self.psn.d.next = self.rewind_psn.val();
                    self.whole.d.next = self.rewind_whole.val();
                    self.state.d.next = HistoryState::RewindKeep;
                } else if self.cursor_active.q.val() && !self.out_valid.q.val() {
                    self.qp.d.next = self.cursor_qp.q.val();
                    self.slot.d.next = self.cursor_index.q.val();
                    self.slot_from_count.d.next = false;
                    self.rings.read_address.next = self.cursor_qp.q.val();
                    self.state.d.next = HistoryState::StepRing;
                } else if !self.cursor_active.q.val() && self.queue_waits.val() {
                    self.queue_head.d.next = (self.queue_head.q.val() + 1) & self.queue_mask.val();
                    self.state.d.next = HistoryState::RewindPop;
                }
            }
            HistoryState::RecordRing => {
                self.ring.d.next = self.rings.read_data.val();
                self.slot.d.next = self.ring_slot.val();
                self.state.d.next = HistoryState::RecordWrite;
            }
            HistoryState::RecordWrite => {
                self.state.d.next = HistoryState::Idle;
                if self.ring.q.val().count == self.capacity.val() {
                    self.refused.d.next = true;
                } else {
                    self.blocks.write_enable.next = true;
                    self.psns.write_enable.next = true;
                    self.rings.write_enable.next = true;
                    self.rings.write_data.next.count = self.ring.q.val().count + 1;
                    self.fulls.write_enable.next = true;
                    self.fulls.write_data.next = self.ring.q.val().count >= self.nearly_full.val();
                }
            }
            HistoryState::ReleaseRing => {
                self.ring.d.next = self.rings.read_data.val();
                self.slot.d.next = self.ring_slot.val();
                self.state.d.next = HistoryState::ReleaseRead;
            }
            HistoryState::ReleaseRead => {
                // the oldest block's PSNs are read at `slot` (the defaults)
                if self.ring.q.val().count == 0 {
                    self.state.d.next = HistoryState::ReleaseWrite;
                } else {
                    self.state.d.next = HistoryState::ReleaseLoad;
                }
            }
            HistoryState::ReleaseLoad => {
                // its last PSN at or before the PSN acknowledged
                self.first.d.next = self.read_psns.val().get_bits::<24>(24);
                self.second.d.next = self.psn.q.val();
                self.state.d.next = HistoryState::ReleaseCompare;
            }
            HistoryState::ReleaseCompare => {
                self.state.d.next = HistoryState::ReleaseWait;
            }
            HistoryState::ReleaseWait => {
                // (the cursor does not move while a release runs)
                self.cursor_moves.d.next =
                    self.cursor_active.q.val() && (self.cursor_qp.q.val() == self.qp.q.val()) && (self.cursor_index.q.val() != 0);
                self.cursor_index_less.d.next = self.cursor_index.q.val() - 1;
                self.state.d.next = HistoryState::ReleaseDecide;
            }
            HistoryState::ReleaseDecide => {
                self.state.d.next = HistoryState::ReleaseWrite;
                if self.order.at_or_before.val() {
                    self.ring.d.next.head = bit_cast::<8, 9>((bit_cast::<9, 8>(self.ring.q.val().head) + 1) & self.slot_mask.val());
                    self.ring.d.next.count = self.ring.q.val().count - 1;
                    self.slot.d.next = bit_cast::<9, 8>(self.ring.q.val().head) + 1;
                    // a replay of this QP keeps its place among the blocks left
                    if self.cursor_moves.q.val() {
                        self.cursor_index.d.next = self.cursor_index_less.q.val();
                    }
                    self.state.d.next = HistoryState::ReleaseRead;
                }
            }
            HistoryState::ReleaseWrite => {
                self.rings.write_enable.next = true;
                self.fulls.write_enable.next = true;
                self.state.d.next = HistoryState::Idle;
            }
            HistoryState::StepRing => {
                self.ring.d.next = self.rings.read_data.val();
                self.slot.d.next = self.ring_slot.val();
                self.state.d.next = HistoryState::StepRead;
            }
            HistoryState::StepRead => {
                // the block and its PSNs are read at `slot` (the defaults)
                if self.cursor_index.q.val() >= self.ring.q.val().count {
                    self.cursor_active.d.next = false;
                    self.state.d.next = HistoryState::Idle;
                } else {
                    self.state.d.next = HistoryState::StepLoad;
                }
            }
            HistoryState::StepLoad => {
                // the block holds the rewind PSN when its first PSN is at or before it
                self.block.d.next = self.blocks.read_data.val();
                self.first_psn.d.next = self.read_psns.val().get_bits::<24>(0);
                self.first.d.next = self.read_psns.val().get_bits::<24>(0);
                self.second.d.next = self.cursor_psn.q.val();
                self.difference_low.d.next = bit_cast::<13, 12>(self.cursor_psn.q.val().get_bits::<12>(0))
                    - bit_cast::<13, 12>(self.read_psns.val().get_bits::<12>(0));
                self.state.d.next = HistoryState::StepCompare;
            }
            HistoryState::StepCompare => {
                self.difference.d.next = (bit_cast::<24, 12>(
                    self.cursor_psn.q.val().get_bits::<12>(12)
                        - self.first_psn.q.val().get_bits::<12>(12)
                        - bit_cast::<12, 1>(self.difference_low.q.val().get_bit(12).into()),
                ) << 12)
                    | bit_cast::<24, 12>(self.difference_low.q.val().get_bits::<12>(0));
                self.state.d.next = HistoryState::StepWait;
            }
            HistoryState::StepWait => {
                self.state.d.next = HistoryState::StepDecide;
            }
            HistoryState::StepDecide => {
                self.out_valid.d.next = true;
                self.out_qp.d.next = self.qp.q.val();
                self.out_block.d.next = self.block.q.val();
                self.out_first_psn.d.next = self.first_psn.q.val();
                self.out_skip.d.next = 0.into();
                if self.order.at_or_before.val() && !self.cursor_whole.q.val() {
                    self.out_skip.d.next = self.difference.q.val();
                }
                self.cursor_index.d.next = self.cursor_index.q.val() + 1;
                self.state.d.next = HistoryState::Idle;
            }
            HistoryState::RewindKeep => {
                // the latest rewind's PSN; the QP queued unless it is already
                self.waiting.write_enable.next = true;
                self.queued.write_enable.next = true;
                if !self.queued.read_data.val() {
                    self.queue.write_enable.next = true;
                    self.queue_tail.d.next = (self.queue_tail.q.val() + 1) & self.queue_mask.val();
                }
                self.state.d.next = HistoryState::Idle;
            }
            HistoryState::RewindPop => {
                // the head QP was read at the head pointer of the cycle before
                self.qp.d.next = self.queue.read_data.val();
                self.waiting.read_address.next = self.queue.read_data.val();
                self.state.d.next = HistoryState::RewindStart;
            }
            HistoryState::RewindStart => {
                self.waiting.write_enable.next = true;
                self.waiting.write_data.next.valid = false;
                self.queued.write_enable.next = true;
                self.queued.write_data.next = false;
                if self.waiting.read_data.val().valid {
                    self.cursor_active.d.next = true;
                    self.cursor_qp.d.next = self.qp.q.val();
                    self.cursor_psn.d.next = self.waiting.read_data.val().psn;
                    self.cursor_whole.d.next = self.waiting.read_data.val().whole;
                    self.cursor_index.d.next = 0.into();
                }
                self.state.d.next = HistoryState::Idle;
            }
        }
        if self.reset.val() {
            self.state.d.next = HistoryState::Init;
            self.init_index.d.next = 0.into();
            self.cursor_active.d.next = false;
            self.out_valid.d.next = false;
            self.refused.d.next = false;
            self.queue_head.d.next = 0.into();
            self.queue_tail.d.next = 0.into();
        }
        self.init_done.next = self.state.q.val() != HistoryState::Init;
        self.idle.next = self.state.q.val() == HistoryState::Idle;
        self.overflow.next = self.refused.q.val();
        self.replaying.next = self.cursor_active.q.val() || self.queue_waits.val();
        self.replay_valid.next = self.out_valid.q.val();
        self.replay_qp.next = self.out_qp.q.val();
        self.replay_block.next = self.out_block.q.val();
        self.replay_first_psn.next = self.out_first_psn.q.val();
        self.replay_skip.next = self.out_skip.q.val();
        self.full.next = self.fulls.read_data.val();
    }
}
