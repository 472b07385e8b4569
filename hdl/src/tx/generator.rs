//! [`TxGenerator`]: the packet generator, the end of the TX path before the MAC. Packet
//! descriptors (`contracts::tx::PACKET`) in, RoCEv2 frames out, with the payload taken from a
//! memory data stream and the ICRC appended by [`IcrcInsert`].
//!
//! ```text
//!  s_desc ─► QP read ─► HeaderBuilder ─► header FIFO ─► Sequencer ─► beat + command FIFOs ─┐
//!            (QL cycles)  (C1..C5)                     (a command                          │
//!                                                        per output beat)                  ▼
//!  s_pay ─────────────────────────────────────────────► payload buffer ─────────────► Assembler ─► output FIFO ─► IcrcInsert ─► m_axis
//!                                                                                          └─► completion FIFO ─► cpl
//! ```
//!
//! - A descriptor is taken when the header FIFO has room for it and everything in flight, and
//!   the frames taken and not yet started add up to fewer than [`PENDING_BEATS`] beats (each
//!   counted from its payload length and the longest header, [`TxGenerator::estimate`]): what
//!   keeps frames back to back, not more, so a frame that jumps the queue before the
//!   generator (the responder's ACK in the TX path) waits behind a few frames, not behind
//!   the header FIFO's 32 (about 380 cycles of 1 KiB frames at 512 bits before). Its
//!   QP is read from the QP context table at once (`qp_read_index`, the entry on
//!   `qp_read_entry` `QL` cycles later). [`HeaderBuilder`] builds the headers and plans the frame
//!   in beats.
//! - The sequencer turns each frame into one command per output beat: the header bytes of the
//!   beat, whether it takes a payload beat, the lanes that hold header bytes (`split`, the header
//!   length mod K), the lanes that hold data (the rest is pad, zero) and `tkeep`. It runs one
//!   command per cycle with frames back to back.
//! - The assembler takes a command, and a payload beat when the command says so: lanes below
//!   `split` from the header beat (the beat where the payload starts) or from the previous
//!   payload beat (`carry`), the others from this payload beat rotated up by `split`: one
//!   funnel for every frame, no cascade of shifters.
//! - A frame shorter than the Ethernet minimum (60 bytes without FCS: only an IPv4 packet
//!   without payload or extension header, 58 bytes) leaves with zero padding after its ICRC:
//!   `tkeep` of its last beat widened, as the model and Linux do.
//! - A completion `(channel)` leaves when the last beat of a transfer's last frame enters
//!   the output FIFO.
//! - A frame starts only when its payload is stored whole in the payload buffer (block RAM,
//!   two payloads of the largest PMTU), so the output never pauses inside a frame for memory:
//!   only the MAC's `tready` stops a frame once started.
//!
//! One output beat per cycle whenever the payload stream keeps up; a frame follows the previous
//! one without a gap. The memory side is DataMover-style: per descriptor with a payload, exactly
//! `payload_len` bytes on `s_pay`, realigned to lane 0, `tlast` on the last beat, in descriptor
//! order (the packetizer issues the reads).

use super::header_builder::{base_header_bytes, HeaderBuilder, HeaderEntry, HEADER_BITS, HEADER_BYTES, PACKET_BITS, QP_CONTEXT_BITS};
use super::icrc_insert::IcrcInsert;
use super::payload_buffer::PayloadBuffer;
use crate::common::delay::Delay;
use crate::common::elab::{bits_from, c};
use crate::common::fifo::{BeatFifo, Fifo, CAPACITY};
use ferroce_contracts::ethernet;
use ferroce_contracts::icrc::ICRC_LEN;
use ferroce_contracts::tx::PACKET;
use num_bigint::BigUint;
use rust_hdl::prelude::*;

/// Beats of frames taken and not yet started at which no descriptor is taken (the count is two
/// cycles late, so two more frames may be taken): at 512 bits a 4 KiB frame or sixteen of 64
/// bytes (the 8 cycles or so of the QP read and the header builder must be covered to keep
/// small frames back to back).
pub const PENDING_BEATS: usize = 64;
const _: () = assert!(PENDING_BEATS.is_power_of_two() && PENDING_BEATS < 1 << 11);

/// A command of the sequencer: how to make one output beat.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub(crate) struct BeatCommand {
    /// First beat of a frame: it waits for room for a completion.
    pub first: Bit,
    /// First beat of a frame with a payload: it waits until the payload is stored whole.
    pub needs_payload: Bit,
    /// Lanes below `split` come from the header beat (else from the previous payload beat).
    pub low_from_header: Bit,
    /// The beat takes a payload beat (rotated into the lanes from `split` up).
    pub consume: Bit,
    /// Header bytes mod K.
    pub split: Bits<8>,
    /// Lanes that hold header or payload bytes; the others are zero (pad) or beyond `tkeep`.
    pub data_lanes: Bits<8>,
    /// Bytes of the beat (`tkeep`).
    pub keep_bytes: Bits<8>,
    /// Last beat of the frame.
    pub last: Bit,
    /// The frame completes its transfer, on `channel`.
    pub complete: Bit,
    /// Channel of the transfer.
    pub channel: Bits<16>,
}

/// Commands a FIFO may hold before the producer stops: room for what is in flight.
const ROOM_MARGIN: usize = 4;

/// The sequencer: one command per output beat, from the header FIFO's head.
#[derive(LogicBlock)]
pub(crate) struct Sequencer<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// The header FIFO's head is valid.
    pub entry_valid: Signal<In, Bit>,
    /// The header FIFO's head.
    pub entry: Signal<In, HeaderEntry>,
    /// Pop the header FIFO (the frame's last command is out).
    pub entry_pop: Signal<Out, Bit>,
    /// The command FIFOs have room.
    pub room: Signal<In, Bit>,
    /// Push a command.
    pub push: Signal<Out, Bit>,
    /// The beat's header bytes (zero where none).
    pub header_beat: Signal<Out, Bits<W>>,
    /// The command.
    pub command: Signal<Out, BeatCommand>,

    /// Beat index in the frame.
    beat: DFF<Bits<12>>,
    /// `beat` is not 0 (a register that starts at 0 without a reset means the first beat).
    continuing: DFF<Bit>,
    /// `beat` is the frame's last beat (when not `first`).
    later_last: DFF<Bit>,
    last_command: Signal<Local, Bit>,
    advance: Signal<Local, Bit>,
    padded_header: Signal<Local, Bits<1024>>,
    header_beat_index: [Constant<Bits<12>>; 16],
    header_beat_at: [Constant<Bits<12>>; 16],
    bytes_per_beat: Constant<Bits<8>>,
    zero_lanes: Constant<Bits<8>>,
}

impl<const W: usize, const K: usize> Sequencer<W, K> {
    /// Beats the largest header spans.
    const HEADER_BEATS: usize = HEADER_BITS.div_ceil(W);
}

impl<const W: usize, const K: usize> Default for Sequencer<W, K> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        assert!(Self::HEADER_BEATS * W <= 1024 && Self::HEADER_BEATS <= 16);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            entry_valid: Default::default(),
            entry: Default::default(),
            entry_pop: Default::default(),
            room: Default::default(),
            push: Default::default(),
            header_beat: Default::default(),
            command: Default::default(),
            beat: Default::default(),
            continuing: Default::default(),
            later_last: Default::default(),
            last_command: Default::default(),
            advance: Default::default(),
            padded_header: Default::default(),
            header_beat_index: std::array::from_fn(|b| c::<12>(b as u64)),
            header_beat_at: std::array::from_fn(|b| c::<12>(if b < Self::HEADER_BEATS { (b * W) as u64 } else { 0 })),
            bytes_per_beat: c::<8>(K as u64 & 0xFF),
            zero_lanes: c::<8>(0),
        }
    }
}

impl<const W: usize, const K: usize> Logic for Sequencer<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, beat, continuing, later_last);
        self.last_command.next = self.entry.val().single_beat;
        if self.continuing.q.val() {
            self.last_command.next = self.later_last.q.val();
        }
        self.advance.next = self.entry_valid.val() && self.room.val();
        self.push.next = self.advance.val();
        self.entry_pop.next = self.advance.val() && self.last_command.val();
        if self.advance.val() {
            if self.last_command.val() {
                self.beat.d.next = 0.into();
                self.continuing.d.next = false;
            } else {
                self.beat.d.next = self.beat.q.val() + 1;
                self.continuing.d.next = true;
            }
            self.later_last.d.next = self.beat.q.val() == self.entry.val().before_last_beat;
        }
        if self.reset.val() {
            self.beat.d.next = 0.into();
            self.continuing.d.next = false;
            self.later_last.d.next = false;
        }

        // the command of beat `beat`
        self.padded_header.next = bit_cast::<1024, HEADER_BITS>(self.entry.val().header);
        self.header_beat.next = 0.into();
        for b in 0..Self::HEADER_BEATS {
            if self.beat.q.val() == self.header_beat_index[b].val() {
                self.header_beat.next = self.padded_header.val().get_bits::<W>(self.header_beat_at[b].val().index());
            }
        }
        self.command.next.low_from_header = self.beat.q.val() <= bit_cast::<12, 8>(self.entry.val().header_beats);
        self.command.next.consume =
            self.beat.q.val() >= bit_cast::<12, 8>(self.entry.val().header_beats) && self.beat.q.val() < self.entry.val().payload_end_beat;
        self.command.next.split = self.entry.val().split;
        self.command.next.data_lanes = self.bytes_per_beat.val();
        if self.beat.q.val() == self.entry.val().data_end_beat {
            self.command.next.data_lanes = self.entry.val().data_end_lane;
        } else if self.beat.q.val() > self.entry.val().data_end_beat {
            self.command.next.data_lanes = self.zero_lanes.val();
        }
        self.command.next.keep_bytes = self.bytes_per_beat.val();
        if self.last_command.val() {
            self.command.next.keep_bytes = self.entry.val().last_beat_bytes;
        }
        self.command.next.first = !self.continuing.q.val();
        self.command.next.needs_payload =
            !self.continuing.q.val() && self.entry.val().payload_end_beat != bit_cast::<12, 8>(self.entry.val().header_beats);
        self.command.next.last = self.last_command.val();
        self.command.next.complete = self.entry.val().complete && self.last_command.val();
        self.command.next.channel = self.entry.val().channel;
    }
}

/// The assembler: commands and payload beats in, frame beats out (into the output FIFO).
///
/// Stages: A0 the FIFO heads and the advance decision (registered room, the command's
/// `consume` against the payload head; a frame's first beat also waits for room for its
/// completion and for its whole payload); A0 → A1 the payload beat rotated up by `split`
/// (log2(K) stages of 2:1 multiplexers); A1 the funnel, the pad lanes zeroed, `tkeep`: the push.
#[derive(LogicBlock)]
pub(crate) struct Assembler<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Command FIFOs: head valid, the header beat, the command; pop.
    pub command_valid: Signal<In, Bit>,
    /// The command's header bytes.
    pub header_beat: Signal<In, Bits<W>>,
    /// The command.
    pub command: Signal<In, BeatCommand>,
    /// Pop the command FIFOs.
    pub command_pop: Signal<Out, Bit>,
    /// Payload FIFO: head valid and data; pop.
    pub payload_valid: Signal<In, Bit>,
    /// The payload head's data.
    pub payload_data: Signal<In, Bits<W>>,
    /// Pop the payload FIFO.
    pub payload_pop: Signal<Out, Bit>,
    /// The output FIFO has room for everything in flight.
    pub room: Signal<In, Bit>,
    /// The completion FIFO has room for everything in flight (checked at a frame's first beat).
    pub start_room: Signal<In, Bit>,
    /// The payload at the payload FIFO's head is stored whole (checked at the first beat of a
    /// frame with a payload: a frame, once started, never waits for memory).
    pub payload_whole: Signal<In, Bit>,
    /// Push a frame beat.
    pub push: Signal<Out, Bit>,
    /// Frame beat: data.
    pub push_data: Signal<Out, Bits<W>>,
    /// Frame beat: byte enables.
    pub push_keep: Signal<Out, Bits<K>>,
    /// Frame beat: last.
    pub push_last: Signal<Out, Bit>,
    /// Push a completion.
    pub complete: Signal<Out, Bit>,
    /// The completion's channel.
    pub channel: Signal<Out, Bits<16>>,

    advance: Signal<Local, Bit>,
    split: Signal<Local, Bits<8>>,
    /// The payload beat after rotation stage s − 1.
    rotation: [Signal<Local, Bits<W>>; 8],
    rotate_up: [Constant<Bits<16>>; 7],
    rotate_down: [Constant<Bits<16>>; 7],
    lane_index: [Constant<Bits<8>>; 128],
    all_ones: Constant<Bits<W>>,
    valid1: DFF<Bit>,
    rotated1: DFF<Bits<W>>,
    header1: DFF<Bits<W>>,
    command1: DFF<BeatCommand>,
    /// The previous payload beat, rotated: its lanes below `split` start the next beat.
    carry: DFF<Bits<W>>,
    low_lanes: Signal<Local, Bits<W>>,
    data_bits: Signal<Local, Bits<W>>,
    low: Signal<Local, Bits<W>>,
    high: Signal<Local, Bits<W>>,
    keep: Signal<Local, Bits<K>>,
}

impl<const W: usize, const K: usize> Assembler<W, K> {
    /// Stages of the rotation: log2(K).
    const ROTATE_STAGES: usize = K.trailing_zeros() as usize;
    /// One past the last rotation stage.
    const ROTATION_END: usize = Self::ROTATE_STAGES + 1;
}

impl<const W: usize, const K: usize> Default for Assembler<W, K> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        assert!(K.is_power_of_two() && K <= 128);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            command_valid: Default::default(),
            header_beat: Default::default(),
            command: Default::default(),
            command_pop: Default::default(),
            payload_valid: Default::default(),
            payload_data: Default::default(),
            payload_pop: Default::default(),
            room: Default::default(),
            start_room: Default::default(),
            payload_whole: Default::default(),
            push: Default::default(),
            push_data: Default::default(),
            push_keep: Default::default(),
            push_last: Default::default(),
            complete: Default::default(),
            channel: Default::default(),
            advance: Default::default(),
            split: Default::default(),
            rotation: Default::default(),
            rotate_up: std::array::from_fn(|s| c::<16>(8 << s)),
            rotate_down: std::array::from_fn(|s| c::<16>((W as u64).saturating_sub(8 << s))),
            lane_index: std::array::from_fn(|i| c::<8>(i as u64)),
            all_ones: Constant::new(Bits::<W>::from((BigUint::from(1u8) << W) - 1u8)),
            valid1: Default::default(),
            rotated1: Default::default(),
            header1: Default::default(),
            command1: Default::default(),
            carry: Default::default(),
            low_lanes: Default::default(),
            data_bits: Default::default(),
            low: Default::default(),
            high: Default::default(),
            keep: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize> Logic for Assembler<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid1, rotated1, header1, command1, carry);
        // ---- A0: advance ----
        self.advance.next = self.command_valid.val()
            && self.room.val()
            && (!self.command.val().consume || self.payload_valid.val())
            && (!self.command.val().first || self.start_room.val())
            && (!self.command.val().needs_payload || self.payload_whole.val());
        self.command_pop.next = self.advance.val();
        self.payload_pop.next = self.advance.val() && self.command.val().consume;
        // ---- A0 -> A1: the payload beat rotated up by `split` bytes ----
        self.split.next = self.command.val().split;
        self.rotation[0].next = self.payload_data.val();
        for s in 0..Self::ROTATE_STAGES {
            self.rotation[s + 1].next = self.rotation[s].val();
            if self.split.val().get_bit(s) {
                self.rotation[s + 1].next =
                    (self.rotation[s].val() << self.rotate_up[s].val()) | (self.rotation[s].val() >> self.rotate_down[s].val());
            }
        }
        for s in Self::ROTATE_STAGES..7 {
            self.rotation[s + 1].next = self.rotation[s].val();
        }
        self.valid1.d.next = self.advance.val();
        if self.advance.val() {
            for s in Self::ROTATE_STAGES..Self::ROTATION_END {
                self.rotated1.d.next = self.rotation[s].val();
            }
            self.header1.d.next = self.header_beat.val();
            self.command1.d.next = self.command.val();
        }
        // ---- A1: the funnel ----
        self.low_lanes.next = !(self.all_ones.val() << (bit_cast::<16, 8>(self.command1.q.val().split) << 3));
        self.data_bits.next = !(self.all_ones.val() << (bit_cast::<16, 8>(self.command1.q.val().data_lanes) << 3));
        self.low.next = self.carry.q.val();
        if self.command1.q.val().low_from_header {
            self.low.next = self.header1.q.val();
        }
        self.high.next = self.header1.q.val();
        if self.command1.q.val().consume {
            self.high.next = self.rotated1.q.val();
        }
        if self.valid1.q.val() && self.command1.q.val().consume {
            self.carry.d.next = self.rotated1.q.val();
        }
        self.keep.next = 0.into();
        for l in 0..K {
            self.keep.next = self
                .keep
                .val()
                .replace_bit(l, self.command1.q.val().keep_bytes > self.lane_index[l].val());
        }
        self.push.next = self.valid1.q.val();
        self.push_data.next = ((self.low.val() & self.low_lanes.val()) | (self.high.val() & !self.low_lanes.val())) & self.data_bits.val();
        self.push_keep.next = self.keep.val();
        self.push_last.next = self.command1.q.val().last;
        self.complete.next = self.valid1.q.val() && self.command1.q.val().complete;
        self.channel.next = self.command1.q.val().channel;
        if self.reset.val() {
            self.valid1.d.next = false;
        }
    }
}

/// The packet generator; see the module docs. `W` bus width (64..1024), `K = W / 8`, `QL` the
/// QP context table's read latency in cycles (the index in cycle t, the entry in t + QL).
#[derive(LogicBlock)]
pub struct TxGenerator<const W: usize, const K: usize, const QL: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: drops every packet in flight.
    pub reset: Signal<In, Bit>,
    /// Packet descriptors: valid.
    pub s_desc_valid: Signal<In, Bit>,
    /// Packet descriptors: ready.
    pub s_desc_ready: Signal<Out, Bit>,
    /// Packet descriptor (`contracts::tx::PACKET`, packed).
    pub s_desc: Signal<In, Bits<PACKET_BITS>>,
    /// QP context table read: the QP of the descriptor taken this cycle.
    pub qp_read_index: Signal<Out, Bits<24>>,
    /// QP context table read: the entry (`contracts::tx::QP_CONTEXT`, packed), `QL` cycles after
    /// its index.
    pub qp_read_entry: Signal<In, Bits<QP_CONTEXT_BITS>>,
    /// Payload stream (memory data, lane-0 aligned per descriptor): valid.
    pub s_pay_tvalid: Signal<In, Bit>,
    /// Payload stream: ready.
    pub s_pay_tready: Signal<Out, Bit>,
    /// Payload stream: data.
    pub s_pay_tdata: Signal<In, Bits<W>>,
    /// Payload stream: byte enables (full beats but a descriptor's last). Not used: the
    /// descriptor gives the payload's length.
    pub s_pay_tkeep: Signal<In, Bits<K>>,
    /// Payload stream: last beat of a descriptor's payload.
    pub s_pay_tlast: Signal<In, Bit>,
    /// Frames (with ICRC, no FCS): valid.
    pub m_axis_tvalid: Signal<Out, Bit>,
    /// Frames: ready.
    pub m_axis_tready: Signal<In, Bit>,
    /// Frames: data.
    pub m_axis_tdata: Signal<Out, Bits<W>>,
    /// Frames: byte enables.
    pub m_axis_tkeep: Signal<Out, Bits<K>>,
    /// Frames: last beat.
    pub m_axis_tlast: Signal<Out, Bit>,
    /// Completions: valid (a transfer's last frame has gone to the ICRC unit).
    pub cpl_valid: Signal<Out, Bit>,
    /// Completions: ready.
    pub cpl_ready: Signal<In, Bit>,
    /// Completions: the transfer's channel.
    pub cpl_channel: Signal<Out, Bits<16>>,

    descriptor_line: Delay<PACKET_BITS, QL>,
    valid_line: [DFF<Bit>; QL],
    header_builder: HeaderBuilder<K>,
    header_fifo: Fifo<HeaderEntry>,
    sequencer: Sequencer<W, K>,
    beat_fifo: Fifo<Bits<W>>,
    command_fifo: Fifo<BeatCommand>,
    payload_buffer: PayloadBuffer<W, K>,
    assembler: Assembler<W, K>,
    output_fifo: BeatFifo<W, K>,
    completion_fifo: Fifo<Bits<16>>,
    icrc_insert: IcrcInsert<W, K>,
    /// Beat index of the output frame (saturates at 15).
    output_beat: DFF<Bits<4>>,
    output_beat_index: [Constant<Bits<4>>; 16],
    /// Per beat index, the lanes a last beat must keep so that the frame has at least
    /// `MIN_FRAME_LEN` bytes (the bytes beyond the ICRC are zero: MAC padding).
    minimum_keep: [Constant<Bits<K>>; 16],
    at_qp: Constant<Bits<10>>,
    /// `fill` bits: the header FIFO may take a descriptor; the others have room.
    header_room_bit: Constant<Bits<8>>,
    room_bit: Constant<Bits<8>>,
    /// The beats estimated for each frame taken and not yet started, in order.
    estimates: Fifo<Bits<12>>,
    /// The estimate of the descriptor on `s_desc` (payload beats and the longest header's).
    estimate: Signal<Local, Bits<12>>,
    /// The estimate of the descriptor on `s_desc` last cycle (taken if `valid_line[0]`).
    line_estimate: DFF<Bits<12>>,
    /// The estimate of the descriptor taken last cycle, 0 when none was.
    taken_estimate: Signal<Local, Bits<12>>,
    /// The sequencer started a frame last cycle: its estimate.
    started_estimate: DFF<Bits<12>>,
    /// The estimated beats of the frames taken and not yet started (two cycles late).
    pending_beats: DFF<Bits<12>>,
    at_payload_len: Constant<Bits<10>>,
    /// log2 K: payload bytes to beats.
    beat_shift: Constant<Bits<4>>,
    /// Beats of the longest header and the ICRC, and one for the payload's partial beat.
    header_beats: Constant<Bits<12>>,
    /// log2 [`PENDING_BEATS`].
    pending_shift: Constant<Bits<4>>,
}

impl<const W: usize, const K: usize, const QL: usize> TxGenerator<W, K, QL> {
    /// The last stage of the descriptor line.
    const LAST_STAGE: usize = QL - 1;
    /// Beats that may need MAC padding: the shortest frame (IPv4, no extension header, no
    /// payload) ends in the beat where `MIN_FRAME_LEN` does, so padding only widens `tkeep`.
    const PADDED_BEATS: usize = ethernet::MIN_FRAME_LEN.div_ceil(K);

    /// The beats a frame of `payload_len` bytes is counted for while it waits: its payload's
    /// and the longest header's with the ICRC, one more for the beat they share (never fewer
    /// than the frame has). The RTL computes the same from the descriptor.
    pub fn estimate(payload_len: usize) -> usize {
        payload_len / K + Self::HEADER_AND_ICRC_BEATS + 1
    }

    /// Beats of the longest header and the ICRC.
    const HEADER_AND_ICRC_BEATS: usize = (HEADER_BYTES + ICRC_LEN).div_ceil(K);
}

impl<const W: usize, const K: usize, const QL: usize> Default for TxGenerator<W, K, QL> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        assert!((1..=4).contains(&QL), "QP read latency 1..=4");
        let shortest_frame = base_header_bytes(false) + ICRC_LEN;
        assert_eq!(
            (shortest_frame - 1) / K,
            (ethernet::MIN_FRAME_LEN - 1) / K,
            "padding within the last beat"
        );
        // in flight between the header FIFO's room check and its push: the descriptor line, the
        // builder's five stages, the room register
        let header_room = CAPACITY - QL - 5 - 2;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_desc_valid: Default::default(),
            s_desc_ready: Default::default(),
            s_desc: Default::default(),
            qp_read_index: Default::default(),
            qp_read_entry: Default::default(),
            s_pay_tvalid: Default::default(),
            s_pay_tready: Default::default(),
            s_pay_tdata: Default::default(),
            s_pay_tkeep: Default::default(),
            s_pay_tlast: Default::default(),
            m_axis_tvalid: Default::default(),
            m_axis_tready: Default::default(),
            m_axis_tdata: Default::default(),
            m_axis_tkeep: Default::default(),
            m_axis_tlast: Default::default(),
            cpl_valid: Default::default(),
            cpl_ready: Default::default(),
            cpl_channel: Default::default(),
            descriptor_line: Default::default(),
            valid_line: std::array::from_fn(|_| Default::default()),
            header_builder: Default::default(),
            header_fifo: Default::default(),
            sequencer: Default::default(),
            beat_fifo: Default::default(),
            command_fifo: Default::default(),
            payload_buffer: Default::default(),
            assembler: Default::default(),
            output_fifo: Default::default(),
            completion_fifo: Default::default(),
            icrc_insert: Default::default(),
            output_beat: Default::default(),
            output_beat_index: std::array::from_fn(|b| c::<4>(b as u64)),
            minimum_keep: std::array::from_fn(|b| {
                Constant::new(bits_from::<K>(|lane| {
                    b < Self::PADDED_BEATS && b * K + lane < ethernet::MIN_FRAME_LEN
                }))
            }),
            at_qp: c::<10>(PACKET.offset("qp") as u64),
            header_room_bit: c::<8>(header_room as u64 - 1),
            room_bit: c::<8>((CAPACITY - ROOM_MARGIN) as u64 - 1),
            estimates: Default::default(),
            estimate: Default::default(),
            line_estimate: Default::default(),
            taken_estimate: Default::default(),
            started_estimate: Default::default(),
            pending_beats: Default::default(),
            at_payload_len: c::<10>(PACKET.offset("payload_len") as u64),
            beat_shift: c::<4>(K.trailing_zeros() as u64),
            header_beats: c::<12>((Self::HEADER_AND_ICRC_BEATS + 1) as u64),
            pending_shift: c::<4>(PENDING_BEATS.trailing_zeros() as u64),
        }
    }
}

impl<const W: usize, const K: usize, const QL: usize> Logic for TxGenerator<W, K, QL> {
    #[hdl_gen]
    fn update(&mut self) {
        self.descriptor_line.clock.next = self.clock.val();
        self.descriptor_line.ce.next = true;
        for s in 0..QL {
            self.valid_line[s].clock.next = self.clock.val();
        }
        self.header_builder.clock.next = self.clock.val();
        self.header_builder.reset.next = self.reset.val();
        self.header_fifo.clock.next = self.clock.val();
        self.header_fifo.reset.next = self.reset.val();
        self.sequencer.clock.next = self.clock.val();
        self.sequencer.reset.next = self.reset.val();
        self.beat_fifo.clock.next = self.clock.val();
        self.beat_fifo.reset.next = self.reset.val();
        self.command_fifo.clock.next = self.clock.val();
        self.command_fifo.reset.next = self.reset.val();
        self.payload_buffer.clock.next = self.clock.val();
        self.payload_buffer.reset.next = self.reset.val();
        self.assembler.clock.next = self.clock.val();
        self.assembler.reset.next = self.reset.val();
        self.output_fifo.clock.next = self.clock.val();
        self.output_fifo.reset.next = self.reset.val();
        self.completion_fifo.clock.next = self.clock.val();
        self.completion_fifo.reset.next = self.reset.val();
        self.icrc_insert.clock.next = self.clock.val();
        self.icrc_insert.reset.next = self.reset.val();
        self.estimates.clock.next = self.clock.val();
        self.estimates.reset.next = self.reset.val();
        dff_setup!(self, clock, output_beat, line_estimate, started_estimate, pending_beats);

        // ---- descriptors: the QP read, then the header builder ----
        self.s_desc_ready.next = !self.header_fifo.fill.val().get_bit(self.header_room_bit.val().index())
            && ((self.pending_beats.q.val() >> self.pending_shift.val()) == 0);
        self.qp_read_index.next = self.s_desc.val().get_bits::<24>(self.at_qp.val().index());
        self.descriptor_line.d.next = self.s_desc.val();
        self.valid_line[0].d.next = self.s_desc_valid.val() && self.s_desc_ready.val();
        for s in 1..QL {
            self.valid_line[s].d.next = self.valid_line[s - 1].q.val();
        }
        if self.reset.val() {
            for s in 0..QL {
                self.valid_line[s].d.next = false;
            }
        }
        for s in Self::LAST_STAGE..QL {
            self.header_builder.in_valid.next = self.valid_line[s].q.val();
        }
        self.header_builder.descriptor.next = self.descriptor_line.q.val();
        self.header_builder.qp_context.next = self.qp_read_entry.val();
        self.header_fifo.push.next = self.header_builder.out_valid.val();
        self.header_fifo.push_value.next = self.header_builder.entry.val();

        // ---- the beats of the frames taken and not yet started: each frame's estimate added
        // a cycle after its take, taken off a cycle after the sequencer's first command of it ----
        // (registered whether or not it is taken: `s_desc_ready` does not reach it)
        self.estimate.next = (bit_cast::<12, 13>(self.s_desc.val().get_bits::<13>(self.at_payload_len.val().index()))
            >> self.beat_shift.val())
            + self.header_beats.val();
        self.line_estimate.d.next = self.estimate.val();
        self.taken_estimate.next = 0.into();
        if self.valid_line[0].q.val() {
            self.taken_estimate.next = self.line_estimate.q.val();
        }
        self.estimates.push.next = self.valid_line[0].q.val();
        self.estimates.push_value.next = self.line_estimate.q.val();
        self.estimates.pop.next = self.sequencer.push.val() && self.sequencer.command.val().first;
        self.started_estimate.d.next = 0.into();
        if self.sequencer.push.val() && self.sequencer.command.val().first {
            self.started_estimate.d.next = self.estimates.head.val();
        }
        self.pending_beats.d.next = self.pending_beats.q.val() + self.taken_estimate.val() - self.started_estimate.q.val();
        if self.reset.val() {
            self.started_estimate.d.next = 0.into();
            self.pending_beats.d.next = 0.into();
        }

        // ---- sequencer ----
        self.sequencer.entry_valid.next = self.header_fifo.head_valid.val();
        self.sequencer.entry.next = self.header_fifo.head.val();
        self.header_fifo.pop.next = self.sequencer.entry_pop.val();
        self.sequencer.room.next = !self.command_fifo.fill.val().get_bit(self.room_bit.val().index());
        self.beat_fifo.push.next = self.sequencer.push.val();
        self.beat_fifo.push_value.next = self.sequencer.header_beat.val();
        self.command_fifo.push.next = self.sequencer.push.val();
        self.command_fifo.push_value.next = self.sequencer.command.val();

        // ---- payload and assembler ----
        self.s_pay_tready.next = self.payload_buffer.room.val();
        self.payload_buffer.push.next = self.s_pay_tvalid.val() && self.s_pay_tready.val();
        self.payload_buffer.push_data.next = self.s_pay_tdata.val();
        self.payload_buffer.push_last.next = self.s_pay_tlast.val();
        self.assembler.command_valid.next = self.command_fifo.head_valid.val() && self.beat_fifo.head_valid.val();
        self.assembler.header_beat.next = self.beat_fifo.head.val();
        self.assembler.command.next = self.command_fifo.head.val();
        self.beat_fifo.pop.next = self.assembler.command_pop.val();
        self.command_fifo.pop.next = self.assembler.command_pop.val();
        self.assembler.payload_valid.next = self.payload_buffer.head_valid.val();
        self.assembler.payload_data.next = self.payload_buffer.head_data.val();
        self.assembler.payload_whole.next = self.payload_buffer.whole.val();
        self.payload_buffer.pop.next = self.assembler.payload_pop.val();
        self.assembler.room.next = !self.output_fifo.fill.val().get_bit(self.room_bit.val().index());
        self.assembler.start_room.next = !self.completion_fifo.fill.val().get_bit(self.room_bit.val().index());
        self.output_fifo.push.next = self.assembler.push.val();
        self.output_fifo.push_data.next = self.assembler.push_data.val();
        self.output_fifo.push_keep.next = self.assembler.push_keep.val();
        self.output_fifo.push_last.next = self.assembler.push_last.val();
        self.output_fifo.push_bytes.next = 0.into();
        self.completion_fifo.push.next = self.assembler.complete.val();
        self.completion_fifo.push_value.next = self.assembler.channel.val();

        // ---- ICRC, outputs ----
        self.icrc_insert.s_axis_tvalid.next = self.output_fifo.head_valid.val();
        self.icrc_insert.s_axis_tdata.next = self.output_fifo.head_data.val();
        self.icrc_insert.s_axis_tkeep.next = self.output_fifo.head_keep.val();
        self.icrc_insert.s_axis_tlast.next = self.output_fifo.head_last.val();
        self.output_fifo.pop.next = self.output_fifo.head_valid.val() && self.icrc_insert.s_axis_tready.val();
        self.icrc_insert.m_axis_tready.next = self.m_axis_tready.val();
        self.m_axis_tvalid.next = self.icrc_insert.m_axis_tvalid.val();
        self.m_axis_tdata.next = self.icrc_insert.m_axis_tdata.val();
        self.m_axis_tkeep.next = self.icrc_insert.m_axis_tkeep.val();
        if self.icrc_insert.m_axis_tlast.val() {
            for b in 0..Self::PADDED_BEATS {
                if self.output_beat.q.val() == self.output_beat_index[b].val() {
                    self.m_axis_tkeep.next = self.icrc_insert.m_axis_tkeep.val() | self.minimum_keep[b].val();
                }
            }
        }
        if self.icrc_insert.m_axis_tvalid.val() && self.m_axis_tready.val() {
            if self.icrc_insert.m_axis_tlast.val() {
                self.output_beat.d.next = 0.into();
            } else if self.output_beat.q.val() != self.output_beat_index[15].val() {
                self.output_beat.d.next = self.output_beat.q.val() + 1;
            }
        }
        if self.reset.val() {
            self.output_beat.d.next = 0.into();
        }
        self.m_axis_tlast.next = self.icrc_insert.m_axis_tlast.val();
        self.cpl_valid.next = self.completion_fifo.head_valid.val();
        self.cpl_channel.next = self.completion_fifo.head.val();
        self.completion_fifo.pop.next = self.completion_fifo.head_valid.val() && self.cpl_ready.val();
    }
}
