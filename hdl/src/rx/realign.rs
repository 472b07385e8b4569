//! [`RxRealigner`]: the RX front end's storage and realigner. Beats wait in the data FIFO until
//! their frame's payload plan is in the plan FIFO; the realigner then forwards a frame that is not
//! RoCEv2 to `m_pass` straight from the data FIFO's head, or cuts the payload out of a RoCEv2
//! frame, realigned to byte 0, into the payload queue that feeds `m_pay`.
//!
//! ```text
//!  beats ──► data FIFO ──┬──────────────────────────────────────────► m_pass (the head itself)
//!  plans ──► plan FIFO ──┤ R0: advance? ─► R1: compare ─► R2: decide ─► push ─► payload queue ─► m_pay
//!  drops ──► verdict FIFO┘    (rotate)       (final bytes, keep)  (funnel)
//! ```
//!
//! Stages (a register's number is its stage; every stage is at most 6 LUT levels at 512 bits):
//! - **R0** (the FIFO heads; the head's data is read from the data FIFO's LUT RAM, the rest is
//!   registered): a payload beat advances when the payload queue has room
//!   for what the beats in flight can push (a registered level: nothing behind the decision
//!   but a few gates) and, for a frame's last beat, its verdict is in. `beat_index` counts the
//!   beats of the frame at the head. A pass frame's beat leaves when `m_pass_tready`.
//! - **R0 → R1**: the beat rotated down by the low bits of the payload offset `r` (the rotation
//!   takes bytes `r..K` to lanes `0..K-r` and bytes `0..r` to lanes `K-r..K` in log2(K) stages
//!   of 2:1 multiplexers, one LUT level each as yosys maps them: here the first ⌈log2(K) / 2⌉,
//!   at most five levels with the LUT RAM read);
//!   the beat's place against the plan (start beat, end beat) and its byte count against the
//!   plan's offsets, each one compare or add.
//! - **R1 → R2**: the rest of the rotation (the high bits of `r`); per beat what comes out: a full output beat, the payload's final beat (its
//!   bytes and keep), both, or the release of a final beat that waited for its frame's last beat
//!   (the drop mark travels on the final beat). The frame state (`payload_done`, `held`) lives
//!   here.
//! - **R2**: the funnel: lanes `0..K-r` of an output beat come from the previous payload beat,
//!   the others from this one (`previous` holds the previous beat's rotation); pushes into the
//!   payload queue, which takes a full and a final beat in one cycle and keeps a final beat
//!   hidden until its release.
//!
//! The payload queue never overflows: a beat advances only while the queue holds at most
//! `CAPACITY − 9` entries, and the beats in flight (R1, R2 and the advancing one) push at most
//! two each.

use super::payload_queue::PayloadQueue;
use crate::common::elab::c;
use crate::common::fifo::{Fifo, LutHeadBeatFifo, CAPACITY};
use num_bigint::BigUint;
use rust_hdl::prelude::*;

/// A frame's payload plan in beats, made from its first record: the plan FIFO's entry, which the
/// realigner follows while the frame's beats go by.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct FramePlan {
    /// Not RoCEv2: the frame goes to `m_pass`.
    pub pass: Bit,
    /// The frame delivers nothing (a header check failed, or the payload is empty).
    pub no_payload: Bit,
    /// Beat index of the payload start (the payload starts within the first 16 beats).
    pub start_beat: Bits<4>,
    /// Payload offset mod K.
    pub offset: Bits<8>,
    /// K minus `offset`.
    pub offset_rest: Bits<8>,
    /// Beat index of the payload's last byte.
    pub end_beat: Bits<16>,
    /// The payload's bytes in its last beat.
    pub end_bytes: Bits<8>,
    /// The payload's final output beat when it ends at `end_beat`: its bytes.
    pub final_bytes: Bits<8>,
    /// A full output beat goes out with the final one.
    pub two_beats: Bit,
}

/// Payload queue entries above which no beat advances (see the module docs).
const QUEUE_ROOM_LIMIT: usize = CAPACITY - 9;

/// The RX front end's storage and realigner; see the module docs. `W` bus width, `K = W / 8`,
/// `D` the beats the data FIFO may hold (at most `CAPACITY − 2`).
#[derive(LogicBlock)]
pub struct RxRealigner<const W: usize, const K: usize, const D: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties every FIFO and the pipeline.
    pub reset: Signal<In, Bit>,
    /// Push a beat into the data FIFO (only while `room`).
    pub beat_push: Signal<In, Bit>,
    /// Beat: data.
    pub beat_data: Signal<In, Bits<W>>,
    /// Beat: byte enables.
    pub beat_keep: Signal<In, Bits<K>>,
    /// Beat: last beat of a frame.
    pub beat_last: Signal<In, Bit>,
    /// Beat: its bytes.
    pub beat_bytes: Signal<In, Bits<8>>,
    /// The data FIFO holds fewer than `D` beats (registered).
    pub room: Signal<Out, Bit>,
    /// Push a frame's plan (one per frame, in frame order).
    pub plan_push: Signal<In, Bit>,
    /// The plan.
    pub plan: Signal<In, FramePlan>,
    /// Push a RoCEv2 frame's verdict (one per RoCEv2 frame, in frame order).
    pub verdict_push: Signal<In, Bit>,
    /// The verdict: the frame is dropped.
    pub verdict_drop: Signal<In, Bit>,
    /// Payload stream: valid.
    pub m_pay_tvalid: Signal<Out, Bit>,
    /// Payload stream: ready.
    pub m_pay_tready: Signal<In, Bit>,
    /// Payload stream: data.
    pub m_pay_tdata: Signal<Out, Bits<W>>,
    /// Payload stream: byte enables.
    pub m_pay_tkeep: Signal<Out, Bits<K>>,
    /// Payload stream: last.
    pub m_pay_tlast: Signal<Out, Bit>,
    /// Payload stream: drop mark on a dropped packet's last beat.
    pub m_pay_tuser: Signal<Out, Bit>,
    /// Pass-through stream: valid.
    pub m_pass_tvalid: Signal<Out, Bit>,
    /// Pass-through stream: ready.
    pub m_pass_tready: Signal<In, Bit>,
    /// Pass-through stream: data.
    pub m_pass_tdata: Signal<Out, Bits<W>>,
    /// Pass-through stream: byte enables.
    pub m_pass_tkeep: Signal<Out, Bits<K>>,
    /// Pass-through stream: last.
    pub m_pass_tlast: Signal<Out, Bit>,

    data_fifo: LutHeadBeatFifo<W, K>,
    plan_fifo: Fifo<FramePlan>,
    verdict_fifo: Fifo<Bit>,
    payload_queue: PayloadQueue<W, K>,

    // ---- constants ----
    keep_all: Constant<Bits<K>>,
    all_ones: Constant<Bits<W>>,
    lane_index: [Constant<Bits<8>>; 128],
    /// `fill` bits: the data FIFO holds `D` beats; the payload queue is above its room limit.
    data_room_bit: Constant<Bits<8>>,
    queue_room_bit: Constant<Bits<8>>,
    /// Rotation stage s: shift down by 2^s bytes, and up by K − 2^s bytes (in bits).
    rotate_down: [Constant<Bits<16>>; 7],
    rotate_up: [Constant<Bits<16>>; 7],

    // ---- R0 ----
    /// Beats of the head frame before the head beat.
    beat_index: DFF<Bits<16>>,
    /// The head beat belongs to the payload path and advances.
    payload_advance: Signal<Local, Bit>,
    pass_advance: Signal<Local, Bit>,
    head_plan: Signal<Local, FramePlan>,
    head_offset: Signal<Local, Bits<8>>,
    /// The head beat after rotation stage s − 1 (stage 0: the beat); from stage
    /// `FIRST_ROTATE_STAGES` on, copies.
    rotation: [Signal<Local, Bits<W>>; 8],
    first_sixteen: Signal<Local, Bit>,

    // ---- R1 ----
    valid1: DFF<Bit>,
    last1: DFF<Bit>,
    drop1: DFF<Bit>,
    /// The head beat rotated by the low bits of its offset (the first rotation stages).
    rotated1: DFF<Bits<W>>,
    offset1: DFF<Bits<8>>,
    at_start1: DFF<Bit>,
    before_start1: DFF<Bit>,
    at_end1: DFF<Bit>,
    /// The beat has fewer bytes than the plan's last payload beat.
    ends_short1: DFF<Bit>,
    /// The beat has more bytes than the payload offset; its bytes minus it; plus K minus it.
    past_offset1: DFF<Bit>,
    minus_offset1: DFF<Bits<8>>,
    plus_rest1: DFF<Bits<8>>,
    no_payload1: DFF<Bit>,
    plan_final_bytes1: DFF<Bits<8>>,
    plan_two_beats1: DFF<Bit>,

    // ---- R1 -> R2 ----
    /// The payload ends in this beat as planned (the frame does not end first).
    planned_end: Signal<Local, Bit>,
    /// Bytes of the final output beat when the frame ends in this beat.
    tail_bytes: Signal<Local, Bits<8>>,
    final_bytes: Signal<Local, Bits<8>>,
    two_beats: Signal<Local, Bit>,
    payload_ends: Signal<Local, Bit>,
    /// The beat carries payload bytes.
    work: Signal<Local, Bit>,
    full_out: Signal<Local, Bit>,
    final_out: Signal<Local, Bit>,
    /// Lanes of the final output beat.
    final_keep: Signal<Local, Bits<K>>,
    /// The frame's payload is out; the rest of the frame is skipped.
    payload_done: DFF<Bit>,
    /// A final beat waits, hidden in the payload queue, for its frame's last beat.
    held: DFF<Bit>,

    // ---- R2 ----
    full2: DFF<Bit>,
    final2: DFF<Bit>,
    hold2: DFF<Bit>,
    release2: DFF<Bit>,
    drop2: DFF<Bit>,
    /// The final beat is this beat's rotation alone (the payload started or a full beat went out
    /// in this beat), else the funnel.
    final_alone2: DFF<Bit>,
    final_keep2: DFF<Bits<K>>,
    /// `rotated1` after the rotation stages of R1 → R2 (stage s at index s + 1; copies below
    /// `FIRST_ROTATE_STAGES` and from `ROTATE_STAGES` on).
    late_rotation: [Signal<Local, Bits<W>>; 8],
    rotated2: DFF<Bits<W>>,
    offset2: DFF<Bits<8>>,
    /// This beat's rotation becomes `previous`.
    keep_rotation2: DFF<Bit>,
    /// The previous payload beat's rotation.
    previous: DFF<Bits<W>>,
    /// Bits of lanes `0..K-r` (from `previous` in a funnel).
    low_lanes: Signal<Local, Bits<W>>,
    first_from_previous: Signal<Local, Bits<W>>,
    second_from_previous: Signal<Local, Bits<W>>,
}

impl<const W: usize, const K: usize, const D: usize> RxRealigner<W, K, D> {
    /// Stages of the rotation: log2(K).
    const ROTATE_STAGES: usize = K.trailing_zeros() as usize;
    /// Stages done in R0 → R1, after the LUT RAM read; the others in R1 → R2. yosys's ABC maps
    /// each 2:1 stage as one LUT3 level (it does not count the LUT RAM read, and keeping pairs
    /// of stages apart does not make it use a LUT6 per 4:1 pair), so the rotation is split in
    /// two registered halves.
    const FIRST_ROTATE_STAGES: usize = Self::ROTATE_STAGES.div_ceil(2);
}

impl<const W: usize, const K: usize, const D: usize> Default for RxRealigner<W, K, D> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        assert!(D + 2 <= CAPACITY, "the data FIFO holds at most {} beats", CAPACITY - 2);
        assert!(K.is_power_of_two() && K <= 128, "K is a power of two up to 128");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            beat_push: Default::default(),
            beat_data: Default::default(),
            beat_keep: Default::default(),
            beat_last: Default::default(),
            beat_bytes: Default::default(),
            room: Default::default(),
            plan_push: Default::default(),
            plan: Default::default(),
            verdict_push: Default::default(),
            verdict_drop: Default::default(),
            m_pay_tvalid: Default::default(),
            m_pay_tready: Default::default(),
            m_pay_tdata: Default::default(),
            m_pay_tkeep: Default::default(),
            m_pay_tlast: Default::default(),
            m_pay_tuser: Default::default(),
            m_pass_tvalid: Default::default(),
            m_pass_tready: Default::default(),
            m_pass_tdata: Default::default(),
            m_pass_tkeep: Default::default(),
            m_pass_tlast: Default::default(),
            data_fifo: Default::default(),
            plan_fifo: Default::default(),
            verdict_fifo: Default::default(),
            payload_queue: Default::default(),
            keep_all: Constant::new(Bits::<K>::from((BigUint::from(1u8) << K) - 1u8)),
            all_ones: Constant::new(Bits::<W>::from((BigUint::from(1u8) << W) - 1u8)),
            lane_index: std::array::from_fn(|i| c::<8>(i as u64)),
            data_room_bit: c::<8>(D as u64 - 1),
            queue_room_bit: c::<8>(QUEUE_ROOM_LIMIT as u64),
            rotate_down: std::array::from_fn(|s| c::<16>(8 << s)),
            rotate_up: std::array::from_fn(|s| c::<16>((W as u64).saturating_sub(8 << s))),
            beat_index: Default::default(),
            payload_advance: Default::default(),
            pass_advance: Default::default(),
            head_plan: Default::default(),
            head_offset: Default::default(),
            rotation: Default::default(),
            late_rotation: Default::default(),
            first_sixteen: Default::default(),
            valid1: Default::default(),
            last1: Default::default(),
            drop1: Default::default(),
            rotated1: Default::default(),
            offset1: Default::default(),
            at_start1: Default::default(),
            before_start1: Default::default(),
            at_end1: Default::default(),
            ends_short1: Default::default(),
            past_offset1: Default::default(),
            minus_offset1: Default::default(),
            plus_rest1: Default::default(),
            no_payload1: Default::default(),
            plan_final_bytes1: Default::default(),
            plan_two_beats1: Default::default(),
            planned_end: Default::default(),
            tail_bytes: Default::default(),
            final_bytes: Default::default(),
            two_beats: Default::default(),
            payload_ends: Default::default(),
            work: Default::default(),
            full_out: Default::default(),
            final_out: Default::default(),
            final_keep: Default::default(),
            payload_done: Default::default(),
            held: Default::default(),
            full2: Default::default(),
            final2: Default::default(),
            hold2: Default::default(),
            release2: Default::default(),
            drop2: Default::default(),
            final_alone2: Default::default(),
            final_keep2: Default::default(),
            rotated2: Default::default(),
            offset2: Default::default(),
            keep_rotation2: Default::default(),
            previous: Default::default(),
            low_lanes: Default::default(),
            first_from_previous: Default::default(),
            second_from_previous: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize, const D: usize> Logic for RxRealigner<W, K, D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            beat_index,
            valid1,
            last1,
            drop1,
            rotated1,
            offset1,
            at_start1,
            before_start1,
            at_end1,
            ends_short1,
            past_offset1,
            minus_offset1,
            plus_rest1,
            no_payload1,
            plan_final_bytes1,
            plan_two_beats1,
            payload_done,
            held,
            full2,
            final2,
            hold2,
            release2,
            drop2,
            final_alone2,
            final_keep2,
            rotated2,
            offset2,
            keep_rotation2,
            previous
        );
        self.data_fifo.clock.next = self.clock.val();
        self.data_fifo.reset.next = self.reset.val();
        self.plan_fifo.clock.next = self.clock.val();
        self.plan_fifo.reset.next = self.reset.val();
        self.verdict_fifo.clock.next = self.clock.val();
        self.verdict_fifo.reset.next = self.reset.val();
        self.payload_queue.clock.next = self.clock.val();
        self.payload_queue.reset.next = self.reset.val();

        // ================= the FIFOs' push sides =================
        self.data_fifo.push.next = self.beat_push.val();
        self.data_fifo.push_data.next = self.beat_data.val();
        self.data_fifo.push_keep.next = self.beat_keep.val();
        self.data_fifo.push_last.next = self.beat_last.val();
        self.data_fifo.push_bytes.next = self.beat_bytes.val();
        self.room.next = !self.data_fifo.fill.val().get_bit(self.data_room_bit.val().index());
        self.plan_fifo.push.next = self.plan_push.val();
        self.plan_fifo.push_value.next = self.plan.val();
        self.verdict_fifo.push.next = self.verdict_push.val();
        self.verdict_fifo.push_value.next = self.verdict_drop.val();

        // ================= R0: advance =================
        self.head_plan.next = self.plan_fifo.head.val();
        self.m_pass_tvalid.next = self.data_fifo.head_valid.val() && self.plan_fifo.head_valid.val() && self.head_plan.val().pass;
        self.m_pass_tdata.next = self.data_fifo.head_data.val();
        self.m_pass_tkeep.next = self.data_fifo.head_keep.val();
        self.m_pass_tlast.next = self.data_fifo.head_last.val();
        self.pass_advance.next = self.m_pass_tvalid.val() && self.m_pass_tready.val();
        self.payload_advance.next = self.data_fifo.head_valid.val()
            && self.plan_fifo.head_valid.val()
            && !self.head_plan.val().pass
            && !self.payload_queue.fill.val().get_bit(self.queue_room_bit.val().index())
            && (!self.data_fifo.head_last.val() || self.verdict_fifo.head_valid.val());
        self.data_fifo.pop.next = self.pass_advance.val() || self.payload_advance.val();
        self.plan_fifo.pop.next = (self.pass_advance.val() || self.payload_advance.val()) && self.data_fifo.head_last.val();
        self.verdict_fifo.pop.next = self.payload_advance.val() && self.data_fifo.head_last.val();
        if self.pass_advance.val() || self.payload_advance.val() {
            if self.data_fifo.head_last.val() {
                self.beat_index.d.next = 0.into();
            } else {
                self.beat_index.d.next = self.beat_index.q.val() + 1;
            }
        }

        // ================= R0 -> R1: rotate, compare =================
        self.valid1.d.next = self.payload_advance.val();
        // rotate down by `offset` bytes: stage s rotates by 2^s bytes if bit s of the offset is set
        self.head_offset.next = self.head_plan.val().offset;
        self.rotation[0].next = self.data_fifo.head_data.val();
        for s in 0..Self::FIRST_ROTATE_STAGES {
            self.rotation[s + 1].next = self.rotation[s].val();
            if self.head_offset.val().get_bit(s) {
                self.rotation[s + 1].next =
                    (self.rotation[s].val() >> self.rotate_down[s].val()) | (self.rotation[s].val() << self.rotate_up[s].val());
            }
        }
        for s in Self::FIRST_ROTATE_STAGES..7 {
            self.rotation[s + 1].next = self.rotation[s].val();
        }
        self.first_sixteen.next = self.beat_index.q.val().get_bits::<12>(4) == 0;
        if self.payload_advance.val() {
            self.last1.d.next = self.data_fifo.head_last.val();
            self.drop1.d.next = self.verdict_fifo.head.val();
            self.rotated1.d.next = self.rotation[7].val();
            self.offset1.d.next = self.head_plan.val().offset;
            self.at_start1.d.next = self.first_sixteen.val() && self.beat_index.q.val().get_bits::<4>(0) == self.head_plan.val().start_beat;
            self.before_start1.d.next =
                self.first_sixteen.val() && self.beat_index.q.val().get_bits::<4>(0) < self.head_plan.val().start_beat;
            self.at_end1.d.next = self.beat_index.q.val() == self.head_plan.val().end_beat;
            self.ends_short1.d.next = self.data_fifo.head_bytes.val() < self.head_plan.val().end_bytes;
            self.past_offset1.d.next = self.data_fifo.head_bytes.val() > self.head_plan.val().offset;
            self.minus_offset1.d.next = self.data_fifo.head_bytes.val() - self.head_plan.val().offset;
            self.plus_rest1.d.next = self.data_fifo.head_bytes.val() + self.head_plan.val().offset_rest;
            self.no_payload1.d.next = self.head_plan.val().no_payload;
            self.plan_final_bytes1.d.next = self.head_plan.val().final_bytes;
            self.plan_two_beats1.d.next = self.head_plan.val().two_beats;
        }

        // ================= R1 -> R2: what comes out of the beat =================
        self.planned_end.next = self.at_end1.q.val() && !(self.last1.q.val() && self.ends_short1.q.val());
        if self.past_offset1.q.val() {
            self.tail_bytes.next = self.minus_offset1.q.val();
        } else if self.at_start1.q.val() {
            self.tail_bytes.next = 0.into();
        } else {
            self.tail_bytes.next = self.plus_rest1.q.val();
        }
        if self.planned_end.val() {
            self.final_bytes.next = self.plan_final_bytes1.q.val();
            self.two_beats.next = self.plan_two_beats1.q.val();
        } else {
            self.final_bytes.next = self.tail_bytes.val();
            self.two_beats.next = self.past_offset1.q.val() && !self.at_start1.q.val();
        }
        self.payload_ends.next = self.at_end1.q.val() || self.last1.q.val();
        self.work.next = self.valid1.q.val() && !self.no_payload1.q.val() && !self.payload_done.q.val() && !self.before_start1.q.val();
        self.full_out.next = self.work.val() && !self.at_start1.q.val() && (!self.payload_ends.val() || self.two_beats.val());
        self.final_out.next = self.work.val() && self.payload_ends.val() && self.final_bytes.val() != 0;
        self.full2.d.next = self.full_out.val();
        self.final2.d.next = self.final_out.val();
        self.hold2.d.next = self.final_out.val() && !self.last1.q.val();
        self.release2.d.next = self.valid1.q.val() && self.last1.q.val() && self.held.q.val();
        self.drop2.d.next = self.drop1.q.val();
        self.final_alone2.d.next = self.at_start1.q.val() || self.two_beats.val();
        self.final_keep.next = 0.into();
        for l in 0..K {
            self.final_keep.next = self
                .final_keep
                .val()
                .replace_bit(l, self.final_bytes.val() > self.lane_index[l].val());
        }
        self.final_keep2.d.next = self.final_keep.val();
        self.late_rotation[0].next = self.rotated1.q.val();
        for s in 0..Self::FIRST_ROTATE_STAGES {
            self.late_rotation[s + 1].next = self.late_rotation[s].val();
        }
        for s in Self::FIRST_ROTATE_STAGES..Self::ROTATE_STAGES {
            self.late_rotation[s + 1].next = self.late_rotation[s].val();
            if self.offset1.q.val().get_bit(s) {
                self.late_rotation[s + 1].next =
                    (self.late_rotation[s].val() >> self.rotate_down[s].val()) | (self.late_rotation[s].val() << self.rotate_up[s].val());
            }
        }
        for s in Self::ROTATE_STAGES..7 {
            self.late_rotation[s + 1].next = self.late_rotation[s].val();
        }
        self.rotated2.d.next = self.late_rotation[7].val();
        self.offset2.d.next = self.offset1.q.val();
        self.keep_rotation2.d.next = self.work.val() && !self.payload_ends.val();
        if self.valid1.q.val() {
            if self.last1.q.val() {
                self.payload_done.d.next = false;
                self.held.d.next = false;
            } else {
                if self.work.val() && self.payload_ends.val() {
                    self.payload_done.d.next = true;
                }
                if self.final_out.val() {
                    self.held.d.next = true;
                }
            }
        }

        // ================= R2: funnel, pushes =================
        self.low_lanes.next = self.all_ones.val() >> (bit_cast::<16, 8>(self.offset2.q.val()) << 3);
        self.first_from_previous.next = 0.into();
        self.second_from_previous.next = 0.into();
        if !self.final_alone2.q.val() {
            self.first_from_previous.next = self.low_lanes.val();
            self.second_from_previous.next = self.low_lanes.val();
        }
        if self.full2.q.val() {
            self.first_from_previous.next = self.low_lanes.val();
        }
        if self.keep_rotation2.q.val() {
            self.previous.d.next = self.rotated2.q.val();
        }
        self.payload_queue.first_data.next =
            (self.previous.q.val() & self.first_from_previous.val()) | (self.rotated2.q.val() & !self.first_from_previous.val());
        self.payload_queue.second_data.next =
            (self.previous.q.val() & self.second_from_previous.val()) | (self.rotated2.q.val() & !self.second_from_previous.val());
        self.payload_queue.second_keep.next = self.final_keep2.q.val();
        self.payload_queue.second_user.next = self.drop2.q.val();
        self.payload_queue.first_keep.next = self.final_keep2.q.val();
        self.payload_queue.first_last.next = true;
        self.payload_queue.first_user.next = self.drop2.q.val();
        if self.full2.q.val() {
            self.payload_queue.first_keep.next = self.keep_all.val();
            self.payload_queue.first_last.next = false;
            self.payload_queue.first_user.next = false;
        }
        self.payload_queue.push_first.next = self.full2.q.val() || self.final2.q.val();
        self.payload_queue.push_second.next = self.full2.q.val() && self.final2.q.val();
        self.payload_queue.hold.next = self.hold2.q.val();
        self.payload_queue.reveal.next = self.release2.q.val();
        self.payload_queue.reveal_user.next = self.drop2.q.val();
        self.payload_queue.pop.next = self.payload_queue.head_valid.val() && self.m_pay_tready.val();
        self.m_pay_tvalid.next = self.payload_queue.head_valid.val();
        self.m_pay_tdata.next = self.payload_queue.head_data.val();
        self.m_pay_tkeep.next = self.payload_queue.head_keep.val();
        self.m_pay_tlast.next = self.payload_queue.head_last.val();
        self.m_pay_tuser.next = self.payload_queue.head_user.val();

        if self.reset.val() {
            self.beat_index.d.next = 0.into();
            self.valid1.d.next = false;
            self.payload_done.d.next = false;
            self.held.d.next = false;
            self.full2.d.next = false;
            self.final2.d.next = false;
            self.hold2.d.next = false;
            self.release2.d.next = false;
        }
    }
}
