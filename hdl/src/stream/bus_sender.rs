//! [`StreamBusSender`]: the sender of every stream of a [`StreamBus`](super::StreamBus). It
//! posts each message record the bus gives as one RDMA WRITE with immediate into the stream's
//! remote slot, as a [`StreamSender`](super::StreamSender) posts its port's, and gives the bus
//! the stream's beats back, in order, once the TX path has completed the message. What it
//! keeps of a stream (its target, the messages it has in flight, its counters) lives in LUT RAM, so a
//! stream costs words of LUT RAM rather than a sender.
//!
//! ```text
//!  s_message (STREAM_MESSAGE, stream) ─► Loading: the stream's target and counts (LUT RAM)
//!    ─► Checking: a channel free? ─► Multiply ─► Load ─► Add (4) ─► Post ─► Result ─┬─► pushed
//!                                                                                  └─► refused: Draining
//!  cpl (channel, status) ─► BusCompletions: the stream's oldest? ─► counted ─► release (stream, beats)
//! ```
//!
//! - **Channels**: the streams own 4·S channels from `channel_base` (a multiple of 4·S, so
//!   that a completion's channel gives its stream and place without an adder): stream s has
//!   channels `channel_base + 4s` to `channel_base + 4s + 3`
//!   (`ferroce_contracts::stream::bus_first_channel`), and it posts its messages on the first 1, 2
//!   or 4 of them in turn (`channel_mask` = channels − 1), that many in flight at once. A
//!   record whose stream has all its channels in flight waits, and the records behind it with
//!   it.
//! - **The post** is the sender's (`StreamTarget::post` in the model) but for its local
//!   address: `window_base | window beat × beat bytes`, where the window beat puts stream s's
//!   region at `s · 2^(RB + 1)` (`ferroce_contracts::stream::bus_window_beat`), twice its size
//!   from the next, so a [`StreamReader`](super::StreamReader) with buffers of `2^RB` beats
//!   serves the TX path's reads and wraps a message that passes its region's end.
//! - **Completions** come in post order on a QP, so a stream's come in the order of its
//!   messages: a completion for a stream's channel is its oldest message's when the channel is
//!   the oldest's place, and frees that message's beats (`release_*` four cycles after it);
//!   others are ignored. The sender never
//!   holds the completion stream up.
//! - **Refusals**: a post refused because its channel is busy is offered again 64 cycles later;
//!   any other refusal gives the message up (`refused`): it is released once the stream's
//!   messages before it are, and the sender goes on.
//! - **Targets** are written by stream (`settings_*`), at most one a cycle: write a stream's
//!   only while it holds no message. After `reset` the sender clears its counts, one stream a
//!   cycle (`clearing`: S cycles), and takes no record meanwhile.
//! - **Status** of `status_stream` two cycles later: its messages posted and not yet completed,
//!   and its counters (in LUT RAM, [`CounterBank`]): posted, completed (success), failed (an
//!   error status), refused; a post's result is in them three cycles after it, a completion
//!   four; a completion is out of the held messages three cycles after it.

use super::bus_completions::BusCompletions;
use super::sender::{BUSY_RETRY_CYCLES, MESSAGE_FIELDS, POST_FIELDS};
use crate::common::counter_bank::CounterBank;
use crate::common::elab::c;
use crate::common::lut_ram::LutRam;
use crate::common::wide::PieceAdder;
use ferroce_contracts::stream::{BUS_STREAM_CHANNELS, MESSAGE_OP, STREAM_MESSAGE, STREAM_MESSAGE_BITS};
use ferroce_contracts::tx::{PostError, COMPLETION_STATUS_BITS, POST, POST_BITS, POST_ERROR_BITS};
use rust_hdl::prelude::*;

/// A stream's target in LUT RAM, in order: name, bits.
const TARGET_WORD: [(&str, usize); 5] = [("qp", 24), ("queue", 5), ("channel_mask", 2), ("base_va", 64), ("slot_beats", 16)];
const TARGET_WORD_BITS: usize = 111;
/// Bits of a stream's message count (modulo 8: at most 4 in flight).
pub const COUNT_BITS: usize = 3;

/// The bus sender's steps.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum BusSenderState {
    /// Waiting for a record.
    Idle,
    /// The record's stream's target and counts come out of LUT RAM.
    Loading,
    /// Is one of the stream's channels free? If not, its counts are loaded again.
    Checking,
    /// The slot's offset in beats is multiplied.
    Multiply,
    /// The remote address's adder takes its operands.
    Load,
    /// The remote address is added, 16 bits a cycle.
    Add,
    /// The post is offered.
    Post,
    /// The post's result is awaited.
    Result,
    /// Waiting to post again (the channel was busy).
    Retry,
    /// The post was refused: the message waits for the stream's earlier ones to be released.
    Draining,
}

/// The sender of `S = 2^SB` bus streams whose beats are `K` bytes, in regions of `2^RB` beats;
/// `PL = SB + 2` bits name a stream's channel place.
#[derive(LogicBlock)]
pub struct StreamBusSender<const K: usize, const S: usize, const SB: usize, const PL: usize, const RB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: nothing in flight, counters cleared, counts cleared after.
    pub reset: Signal<In, Bit>,
    /// Write a stream's target.
    pub settings_valid: Signal<In, Bit>,
    /// The stream whose target is written.
    pub settings_stream: Signal<In, Bits<8>>,
    /// The QP its messages go on.
    pub settings_qp: Signal<In, Bits<24>>,
    /// The scheduler queue of its posts.
    pub settings_queue: Signal<In, Bits<5>>,
    /// Its channels minus one: 0, 1 or 3.
    pub settings_channel_mask: Signal<In, Bits<2>>,
    /// The remote address of its slot 0.
    pub settings_base_va: Signal<In, Bits<64>>,
    /// Beats of its slot.
    pub settings_slot_beats: Signal<In, Bits<16>>,
    /// The first channel of stream 0, a multiple of 4·S (held; its low bits are ignored).
    pub channel_base: Signal<In, Bits<16>>,
    /// The local address of the bus's stream window, aligned to twice the buffer's size (held).
    pub window_base: Signal<In, Bits<64>>,
    /// The counts are being cleared after reset: no record is taken.
    pub clearing: Signal<Out, Bit>,
    /// Records from the bus: valid.
    pub s_message_valid: Signal<In, Bit>,
    /// Records: ready (from registers).
    pub s_message_ready: Signal<Out, Bit>,
    /// Records: the record (`STREAM_MESSAGE`).
    pub s_message_entry: Signal<In, Bits<STREAM_MESSAGE_BITS>>,
    /// Records: the stream.
    pub s_message_stream: Signal<In, Bits<8>>,
    /// Posts to the TX path: valid.
    pub post_valid: Signal<Out, Bit>,
    /// Posts: ready.
    pub post_ready: Signal<In, Bit>,
    /// Posts: the post (`POST`).
    pub post_entry: Signal<Out, Bits<POST_BITS>>,
    /// A post's result: valid.
    pub post_result_valid: Signal<In, Bit>,
    /// A post's result: 0 accepted, else the `PostError` code.
    pub post_result_code: Signal<In, Bits<POST_ERROR_BITS>>,
    /// The TX path's completions: valid (taken in the same cycle).
    pub cpl_valid: Signal<In, Bit>,
    /// Completions: the channel.
    pub cpl_channel: Signal<In, Bits<16>>,
    /// Completions: the status (`CompletionStatus`).
    pub cpl_status: Signal<In, Bits<COMPLETION_STATUS_BITS>>,
    /// Free a message's beats in the bus (one cycle).
    pub release_valid: Signal<Out, Bit>,
    /// The stream whose beats are freed.
    pub release_stream: Signal<Out, Bits<8>>,
    /// The beats to free.
    pub release_beats: Signal<Out, Bits<16>>,
    /// The stream whose status is read.
    pub status_stream: Signal<In, Bits<8>>,
    /// Its messages posted and not yet completed (two cycles after naming it).
    pub status_held_messages: Signal<Out, Bits<3>>,
    /// Its messages posted (two cycles after naming it; counted since reset).
    pub status_posted: Signal<Out, Bits<32>>,
    /// Its messages completed with success.
    pub status_completed: Signal<Out, Bits<32>>,
    /// Its messages completed with an error status.
    pub status_failed: Signal<Out, Bits<32>>,
    /// Its messages given up, their post refused (not for a busy channel).
    pub status_refused: Signal<Out, Bits<32>>,

    state: DFF<BusSenderState>,
    clearing_counts: DFF<Bit>,
    // ---- the record and its stream's target ----
    stream: DFF<Bits<8>>,
    buffer_beat: DFF<Bits<16>>,
    beats: DFF<Bits<16>>,
    length: DFF<Bits<32>>,
    solicited: DFF<Bit>,
    slot: DFF<Bits<16>>,
    immediate: DFF<Bits<32>>,
    qp: DFF<Bits<24>>,
    queue: DFF<Bits<5>>,
    channel_mask: DFF<Bits<2>>,
    base_va: DFF<Bits<64>>,
    slot_beats: DFF<Bits<16>>,
    pushed: DFF<Bits<COUNT_BITS>>,
    released: DFF<Bits<COUNT_BITS>>,
    offset_beats: DFF<Bits<32>>,
    local_address: DFF<Bits<64>>,
    channel: DFF<Bits<16>>,
    place: DFF<Bits<2>>,
    add_steps: DFF<Bits<3>>,
    retry_wait: DFF<Bits<8>>,
    // ---- the release ----
    releasing: DFF<Bit>,
    released_stream: DFF<Bits<8>>,
    released_beats: DFF<Bits<16>>,
    status_index: DFF<Bits<SB>>,
    status_held: DFF<Bits<3>>,
    // ---- combinational ----
    taken: Signal<Local, Bit>,
    pushed_now: Signal<Local, Bit>,
    index: Signal<Local, Bits<SB>>,
    held: Signal<Local, Bits<COUNT_BITS>>,
    pushed_write: Signal<Local, Bit>,
    pushed_write_address: Signal<Local, Bits<SB>>,
    pushed_write_data: Signal<Local, Bits<COUNT_BITS>>,
    target: Signal<Local, Bits<TARGET_WORD_BITS>>,
    post: Signal<Local, Bits<POST_BITS>>,
    // ---- sub-blocks ----
    address: PieceAdder,
    completions: BusCompletions<SB, PL>,
    target_ram: LutRam<Bits<TARGET_WORD_BITS>, SB>,
    pushed_for_post: LutRam<Bits<COUNT_BITS>, SB>,
    pushed_for_status: LutRam<Bits<COUNT_BITS>, SB>,
    released_for_post: LutRam<Bits<COUNT_BITS>, SB>,
    released_for_status: LutRam<Bits<COUNT_BITS>, SB>,
    posted_counters: CounterBank<SB>,
    completed_counters: CounterBank<SB>,
    failed_counters: CounterBank<SB>,
    refused_counters: CounterBank<SB>,
    // ---- constants ----
    message_at: [Constant<Bits<8>>; 6],
    post_at: [Constant<Bits<9>>; 10],
    target_at: [Constant<Bits<8>>; 5],
    beat_log2: Constant<Bits<8>>,
    write_with_immediate: Constant<Bits<3>>,
    channel_busy: Constant<Bits<POST_ERROR_BITS>>,
    retry_cycles: Constant<Bits<8>>,
    last_stream: Constant<Bits<SB>>,
    beyond_places: Constant<Bits<16>>,
    place_bits: Constant<Bits<8>>,
    region_mask: Constant<Bits<16>>,
    window_stream_shift: Constant<Bits<8>>,
}

impl<const K: usize, const S: usize, const SB: usize, const PL: usize, const RB: usize> Default for StreamBusSender<K, S, SB, PL, RB> {
    fn default() -> Self {
        assert!(K.is_power_of_two() && K <= 128, "lanes {K}");
        assert!((1..=8).contains(&SB) && S == 1 << SB, "streams {S}: 2^{SB}, 2 to 256");
        assert!((2..=15).contains(&RB), "region bits {RB}");
        assert!(
            PL == SB + 2 && 1 << (PL - SB) == BUS_STREAM_CHANNELS,
            "places {PL}: the streams' bits and two"
        );
        assert_eq!(TARGET_WORD.iter().map(|f| f.1).sum::<usize>(), TARGET_WORD_BITS);
        let target_offset = |i: usize| TARGET_WORD[..i].iter().map(|f| f.1).sum::<usize>() as u64;
        StreamBusSender {
            clock: Default::default(),
            reset: Default::default(),
            settings_valid: Default::default(),
            settings_stream: Default::default(),
            settings_qp: Default::default(),
            settings_queue: Default::default(),
            settings_channel_mask: Default::default(),
            settings_base_va: Default::default(),
            settings_slot_beats: Default::default(),
            channel_base: Default::default(),
            window_base: Default::default(),
            clearing: Default::default(),
            s_message_valid: Default::default(),
            s_message_ready: Default::default(),
            s_message_entry: Default::default(),
            s_message_stream: Default::default(),
            post_valid: Default::default(),
            post_ready: Default::default(),
            post_entry: Default::default(),
            post_result_valid: Default::default(),
            post_result_code: Default::default(),
            cpl_valid: Default::default(),
            cpl_channel: Default::default(),
            cpl_status: Default::default(),
            release_valid: Default::default(),
            release_stream: Default::default(),
            release_beats: Default::default(),
            status_stream: Default::default(),
            status_held_messages: Default::default(),
            status_posted: Default::default(),
            status_completed: Default::default(),
            status_failed: Default::default(),
            status_refused: Default::default(),
            state: Default::default(),
            clearing_counts: Default::default(),
            stream: Default::default(),
            buffer_beat: Default::default(),
            beats: Default::default(),
            length: Default::default(),
            solicited: Default::default(),
            slot: Default::default(),
            immediate: Default::default(),
            qp: Default::default(),
            queue: Default::default(),
            channel_mask: Default::default(),
            base_va: Default::default(),
            slot_beats: Default::default(),
            pushed: Default::default(),
            released: Default::default(),
            offset_beats: Default::default(),
            local_address: Default::default(),
            channel: Default::default(),
            place: Default::default(),
            add_steps: Default::default(),
            retry_wait: Default::default(),
            releasing: Default::default(),
            released_stream: Default::default(),
            released_beats: Default::default(),
            status_index: Default::default(),
            status_held: Default::default(),
            taken: Default::default(),
            pushed_now: Default::default(),
            index: Default::default(),
            held: Default::default(),
            pushed_write: Default::default(),
            pushed_write_address: Default::default(),
            pushed_write_data: Default::default(),
            target: Default::default(),
            post: Default::default(),
            address: Default::default(),
            completions: Default::default(),
            target_ram: Default::default(),
            pushed_for_post: Default::default(),
            pushed_for_status: Default::default(),
            released_for_post: Default::default(),
            released_for_status: Default::default(),
            posted_counters: Default::default(),
            completed_counters: Default::default(),
            failed_counters: Default::default(),
            refused_counters: Default::default(),
            message_at: std::array::from_fn(|i| c::<8>(STREAM_MESSAGE.offset(MESSAGE_FIELDS[i]) as u64)),
            post_at: std::array::from_fn(|i| c::<9>(POST.offset(POST_FIELDS[i]) as u64)),
            target_at: std::array::from_fn(|i| c::<8>(target_offset(i))),
            beat_log2: c::<8>(u64::from(K.trailing_zeros())),
            write_with_immediate: c::<3>(u64::from(MESSAGE_OP.code())),
            channel_busy: c::<POST_ERROR_BITS>(u64::from(PostError::ChannelBusy.code())),
            retry_cycles: c::<8>(BUSY_RETRY_CYCLES - 1),
            last_stream: c::<SB>(S as u64 - 1),
            beyond_places: c::<16>(0xFFFF & !((1u64 << PL) - 1)),
            place_bits: c::<8>(2),
            region_mask: c::<16>((1 << RB) - 1),
            window_stream_shift: c::<8>((RB + 1) as u64 + u64::from(K.trailing_zeros())),
        }
    }
}

impl<const K: usize, const S: usize, const SB: usize, const PL: usize, const RB: usize> Logic for StreamBusSender<K, S, SB, PL, RB> {
    #[hdl_gen]
    // rust-hdl's kernel has no match guards: the `if` inside an arm stays as written.
    #[allow(clippy::collapsible_match)]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            clearing_counts,
            stream,
            buffer_beat,
            beats,
            length,
            solicited,
            slot,
            immediate,
            qp,
            queue,
            channel_mask,
            base_va,
            slot_beats,
            pushed,
            released,
            offset_beats,
            local_address,
            channel,
            place,
            add_steps,
            retry_wait,
            releasing,
            released_stream,
            released_beats,
            status_index,
            status_held
        );
        clock!(
            self,
            clock,
            address,
            completions,
            posted_counters,
            completed_counters,
            failed_counters,
            refused_counters
        );
        self.target_ram.write_clock.next = self.clock.val();
        self.pushed_for_post.write_clock.next = self.clock.val();
        self.pushed_for_status.write_clock.next = self.clock.val();
        self.released_for_post.write_clock.next = self.clock.val();
        self.released_for_status.write_clock.next = self.clock.val();

        // ---- targets: written by stream ----
        self.target_ram.write_enable.next = self.settings_valid.val();
        self.target_ram.write_address.next = bit_cast::<SB, 8>(self.settings_stream.val());
        self.target_ram.write_data.next = (bit_cast::<TARGET_WORD_BITS, 24>(self.settings_qp.val()) << self.target_at[0].val())
            | (bit_cast::<TARGET_WORD_BITS, 5>(self.settings_queue.val()) << self.target_at[1].val())
            | (bit_cast::<TARGET_WORD_BITS, 2>(self.settings_channel_mask.val()) << self.target_at[2].val())
            | (bit_cast::<TARGET_WORD_BITS, 64>(self.settings_base_va.val()) << self.target_at[3].val())
            | (bit_cast::<TARGET_WORD_BITS, 16>(self.settings_slot_beats.val()) << self.target_at[4].val());
        self.completions.mask_write.next = self.settings_valid.val();
        self.completions.mask_stream.next = bit_cast::<SB, 8>(self.settings_stream.val());
        self.completions.mask.next = self.settings_channel_mask.val();

        // ---- take a record: idle, counts cleared ----
        self.s_message_ready.next = self.state.q.val() == BusSenderState::Idle && !self.clearing_counts.q.val();
        self.taken.next = self.s_message_valid.val() && self.s_message_ready.val();
        if self.taken.val() {
            self.stream.d.next = self.s_message_stream.val();
            self.buffer_beat.d.next = self.s_message_entry.val().get_bits::<16>(self.message_at[0].val().index());
            self.beats.d.next = self.s_message_entry.val().get_bits::<16>(self.message_at[1].val().index());
            self.length.d.next = bit_cast::<32, 21>(self.s_message_entry.val().get_bits::<21>(self.message_at[2].val().index()));
            self.solicited.d.next = self.s_message_entry.val().get_bit(self.message_at[3].val().index());
            self.slot.d.next = self.s_message_entry.val().get_bits::<16>(self.message_at[4].val().index());
            self.immediate.d.next = self.s_message_entry.val().get_bits::<32>(self.message_at[5].val().index());
            self.state.d.next = BusSenderState::Loading;
        }

        // ---- the stream's target and counts ----
        self.index.next = bit_cast::<SB, 8>(self.stream.q.val());
        self.target_ram.read_address.next = self.index.val();
        self.pushed_for_post.read_address.next = self.index.val();
        self.released_for_post.read_address.next = self.index.val();
        self.target.next = self.target_ram.read_data.val();
        self.held.next = self.pushed.q.val() - self.released.q.val();

        // ---- the addresses: slot × slot beats, then base VA + the offset in bytes ----
        self.address.load.next = false;
        self.address.step.next = false;
        self.address.a.next = self.base_va.q.val();
        self.address.b.next = bit_cast::<64, 32>(self.offset_beats.q.val()) << self.beat_log2.val();
        match self.state.q.val() {
            BusSenderState::Loading => {
                self.qp.d.next = self.target.val().get_bits::<24>(self.target_at[0].val().index());
                self.queue.d.next = self.target.val().get_bits::<5>(self.target_at[1].val().index());
                self.channel_mask.d.next = self.target.val().get_bits::<2>(self.target_at[2].val().index());
                self.base_va.d.next = self.target.val().get_bits::<64>(self.target_at[3].val().index());
                self.slot_beats.d.next = self.target.val().get_bits::<16>(self.target_at[4].val().index());
                self.pushed.d.next = self.pushed_for_post.read_data.val();
                self.released.d.next = self.released_for_post.read_data.val();
                self.state.d.next = BusSenderState::Checking;
            }
            BusSenderState::Checking => {
                if self.held.val() > bit_cast::<COUNT_BITS, 2>(self.channel_mask.q.val()) {
                    self.state.d.next = BusSenderState::Loading;
                } else {
                    self.state.d.next = BusSenderState::Multiply;
                }
            }
            BusSenderState::Multiply => {
                self.offset_beats.d.next = self.slot.q.val() * self.slot_beats.q.val();
                self.local_address.d.next = self.window_base.val()
                    | (bit_cast::<64, 8>(self.stream.q.val()) << self.window_stream_shift.val())
                    | (bit_cast::<64, 16>(self.buffer_beat.q.val() & self.region_mask.val()) << self.beat_log2.val());
                self.place.d.next = bit_cast::<2, COUNT_BITS>(self.pushed.q.val()) & self.channel_mask.q.val();
                self.channel.d.next = (self.channel_base.val() & self.beyond_places.val())
                    | (bit_cast::<16, 8>(self.stream.q.val()) << self.place_bits.val())
                    | bit_cast::<16, 2>(bit_cast::<2, COUNT_BITS>(self.pushed.q.val()) & self.channel_mask.q.val());
                self.state.d.next = BusSenderState::Load;
            }
            BusSenderState::Load => {
                self.address.load.next = true;
                self.add_steps.d.next = 0.into();
                self.state.d.next = BusSenderState::Add;
            }
            BusSenderState::Add => {
                self.address.step.next = true;
                self.add_steps.d.next = self.add_steps.q.val() + 1;
                if self.add_steps.q.val() == 3 {
                    self.state.d.next = BusSenderState::Post;
                }
            }
            BusSenderState::Post => {
                if self.post_ready.val() {
                    self.state.d.next = BusSenderState::Result;
                }
            }
            BusSenderState::Retry => {
                self.retry_wait.d.next = self.retry_wait.q.val() - 1;
                if self.retry_wait.q.val() == 0 {
                    self.state.d.next = BusSenderState::Post;
                }
            }
            _ => {}
        }

        // ---- the post, from registers ----
        self.post.next = (bit_cast::<POST_BITS, 16>(self.channel.q.val()) << self.post_at[0].val())
            | (bit_cast::<POST_BITS, 5>(self.queue.q.val()) << self.post_at[1].val())
            | (bit_cast::<POST_BITS, 3>(self.write_with_immediate.val()) << self.post_at[2].val())
            | (bit_cast::<POST_BITS, 24>(self.qp.q.val()) << self.post_at[5].val())
            | (bit_cast::<POST_BITS, 64>(self.local_address.q.val()) << self.post_at[6].val())
            | (bit_cast::<POST_BITS, 64>(self.address.sum.val()) << self.post_at[7].val())
            | (bit_cast::<POST_BITS, 32>(self.length.q.val()) << self.post_at[8].val())
            | (bit_cast::<POST_BITS, 32>(self.immediate.q.val()) << self.post_at[9].val());
        self.post_entry.next = self.post.val().replace_bit(self.post_at[3].val().index(), self.solicited.q.val());
        self.post_valid.next = self.state.q.val() == BusSenderState::Post;

        // ---- its result: in flight, tried again, or given up ----
        self.pushed_now.next = false;
        self.posted_counters.increment.next = false;
        self.refused_counters.increment.next = false;
        self.posted_counters.index.next = self.index.val();
        self.refused_counters.index.next = self.index.val();
        if self.state.q.val() == BusSenderState::Result && self.post_result_valid.val() {
            if self.post_result_code.val() == 0 {
                self.pushed_now.next = true;
                self.posted_counters.increment.next = true;
                self.state.d.next = BusSenderState::Idle;
            } else if self.post_result_code.val() == self.channel_busy.val() {
                self.retry_wait.d.next = self.retry_cycles.val();
                self.state.d.next = BusSenderState::Retry;
            } else {
                self.refused_counters.increment.next = true;
                self.state.d.next = BusSenderState::Draining;
            }
        }
        self.completions.beats_write.next = self.pushed_now.val();
        self.completions.beats_place.next =
            (bit_cast::<PL, SB>(self.index.val()) << self.place_bits.val()) | bit_cast::<PL, 2>(self.place.q.val());
        self.completions.beats.next = self.beats.q.val();
        self.pushed_write.next = self.pushed_now.val() || self.clearing_counts.q.val();
        self.pushed_write_address.next = self.index.val();
        self.pushed_write_data.next = self.pushed.q.val() + 1;
        if self.clearing_counts.q.val() {
            // the record's stream sweeps the streams while clearing: no multiplexer on the address
            self.pushed_write_data.next = 0.into();
        }
        self.pushed_for_post.write_enable.next = self.pushed_write.val();
        self.pushed_for_post.write_address.next = self.pushed_write_address.val();
        self.pushed_for_post.write_data.next = self.pushed_write_data.val();
        self.completions.pushed_write.next = self.pushed_write.val();
        self.completions.pushed_stream.next = self.pushed_write_address.val();
        self.completions.pushed_count.next = self.pushed_write_data.val();
        self.pushed_for_status.write_enable.next = self.pushed_write.val();
        self.pushed_for_status.write_address.next = self.pushed_write_address.val();
        self.pushed_for_status.write_data.next = self.pushed_write_data.val();

        // ---- completions: the stream's oldest message's, counted and its count released ----
        self.completions.reset.next = self.reset.val();
        self.completions.clearing.next = self.clearing_counts.q.val();
        self.completions.channel_base.next = self.channel_base.val();
        self.completions.cpl_valid.next = self.cpl_valid.val();
        self.completions.cpl_channel.next = self.cpl_channel.val();
        self.completions.cpl_status.next = self.cpl_status.val();
        self.completed_counters.increment.next = self.completions.hit.val() && !self.completions.hit_failed.val();
        self.failed_counters.increment.next = self.completions.hit.val() && self.completions.hit_failed.val();
        self.completed_counters.index.next = self.completions.hit_stream.val();
        self.failed_counters.index.next = self.completions.hit_stream.val();
        self.released_for_post.write_enable.next = self.completions.released_write.val();
        self.released_for_post.write_address.next = self.completions.hit_stream.val();
        self.released_for_post.write_data.next = self.completions.hit_released.val();
        self.released_for_status.write_enable.next = self.completions.released_write.val();
        self.released_for_status.write_address.next = self.completions.hit_stream.val();
        self.released_for_status.write_data.next = self.completions.hit_released.val();

        // ---- release: a completed message, or a refused one once the stream's earlier are ----
        self.releasing.d.next = false;
        if self.completions.hit.val() {
            self.releasing.d.next = true;
            self.released_stream.d.next = bit_cast::<8, SB>(self.completions.hit_stream.val());
            self.released_beats.d.next = self.completions.hit_beats.val();
        } else if self.state.q.val() == BusSenderState::Draining && self.released_for_post.read_data.val() == self.pushed.q.val() {
            self.releasing.d.next = true;
            self.released_stream.d.next = self.stream.q.val();
            self.released_beats.d.next = self.beats.q.val();
            self.state.d.next = BusSenderState::Idle;
        }
        self.release_valid.next = self.releasing.q.val();
        self.release_stream.next = self.released_stream.q.val();
        self.release_beats.next = self.released_beats.q.val();

        // ---- status: a stream's messages held ----
        self.status_index.d.next = bit_cast::<SB, 8>(self.status_stream.val());
        self.pushed_for_status.read_address.next = self.status_index.q.val();
        self.released_for_status.read_address.next = self.status_index.q.val();
        self.status_held.d.next = self.pushed_for_status.read_data.val() - self.released_for_status.read_data.val();
        self.status_held_messages.next = self.status_held.q.val();

        // ---- clearing the counts after reset, one stream a cycle ----
        if self.clearing_counts.q.val() {
            self.stream.d.next = self.stream.q.val() + 1;
            if self.index.val() == self.last_stream.val() {
                self.clearing_counts.d.next = false;
            }
        }
        self.clearing.next = self.clearing_counts.q.val();

        // ---- a stream's counters, reset ----
        self.posted_counters.read_index.next = bit_cast::<SB, 8>(self.status_stream.val());
        self.completed_counters.read_index.next = bit_cast::<SB, 8>(self.status_stream.val());
        self.failed_counters.read_index.next = bit_cast::<SB, 8>(self.status_stream.val());
        self.refused_counters.read_index.next = bit_cast::<SB, 8>(self.status_stream.val());
        self.status_posted.next = self.posted_counters.read_count.val();
        self.status_completed.next = self.completed_counters.read_count.val();
        self.status_failed.next = self.failed_counters.read_count.val();
        self.status_refused.next = self.refused_counters.read_count.val();
        self.posted_counters.reset.next = self.reset.val();
        self.completed_counters.reset.next = self.reset.val();
        self.failed_counters.reset.next = self.reset.val();
        self.refused_counters.reset.next = self.reset.val();
        if self.reset.val() {
            self.state.d.next = BusSenderState::Idle;
            self.clearing_counts.d.next = true;
            self.stream.d.next = 0.into();
            self.releasing.d.next = false;
        }
    }
}
