//! [`StreamSender`]: posts each message a [`super::StreamPort`] has whole as one RDMA WRITE with
//! immediate into its remote slot (`write-imm-message`: one message wherever the TX path's
//! blocks fall, so the receiver's one completion means the whole slot has come), and gives the
//! port its buffer space back, in order, once the TX path has completed the message.
//!
//! ```text
//!  s_message (STREAM_MESSAGE) ─► take ─► slot × slot beats (DSP) ─► base VA + offset (16 bits a cycle)
//!                                                                        │
//!               post (POST: WRITE with immediate as one message) ◄───────┘ ─► post_result
//!  cpl (channel, status) ─► registered ─► the message on that channel done ─┐
//!                                 ring of the messages posted (1, 2 or 4) ──┴─► release (beats), in order
//! ```
//!
//! - **Channels**: message i goes on channel `first_channel + (i mod channels)`, with 1, 2 or 4
//!   channels (`channel_mask` = channels − 1), so that many messages are in flight at once (an
//!   RC message stays in flight until its acknowledgement). A message is taken only when its
//!   channel's previous message has been released.
//! - **The post**: channel, `scheduler_queue`, WRITE with immediate as one message, the record's
//!   solicited bit, `qp`,
//!   local address `window_base | buffer_beat × beat bytes` (the TX path's reads of it go to
//!   the port's buffer: `window_base` is aligned to the buffer's size), remote address
//!   `base_va + slot × slot_beats × beat bytes`, the record's length and immediate.
//! - **Refusals**: a post refused because its channel is busy (the host posted on it) is tried
//!   again 64 cycles later; any other refusal (QP not ready, ...) gives the message up
//!   (`refused`) and releases it in its turn, so the stream goes on.
//! - **Completions** on the TX path's completion stream for the sender's channels mark their
//!   message done (`completed`, or `failed` for a status other than success); the sender
//!   never holds the stream up, and completions for other channels are ignored.
//! - The settings (`qp` to `window_base`) are held while `enable` is high.

use crate::common::counter::EventCounter;
use crate::common::elab::c;
use crate::common::lut_ram::LutRam;
use crate::common::wide::PieceAdder;
use ferroce_contracts::stream::{MESSAGE_OP, STREAM_MESSAGE, STREAM_MESSAGE_BITS};
use ferroce_contracts::tx::{PostError, COMPLETION_STATUS_BITS, POST, POST_BITS, POST_ERROR_BITS};
use rust_hdl::prelude::*;

/// The `STREAM_MESSAGE` fields the sender reads, in schema order.
pub(crate) const MESSAGE_FIELDS: [&str; 6] = ["buffer_beat", "beats", "length", "solicited", "slot", "immediate"];
/// The `POST` fields the sender writes, in schema order.
pub(crate) const POST_FIELDS: [&str; 10] = [
    "channel",
    "queue",
    "op",
    "solicited",
    "imm_every_block",
    "qp",
    "local_addr",
    "remote_addr",
    "length",
    "immediate",
];
/// Cycles before a post refused for a busy channel is tried again.
pub const BUSY_RETRY_CYCLES: u64 = 64;

/// The sender's steps.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum SenderState {
    /// Waiting for a message (and room in the ring).
    Idle,
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
}

/// The sender of a stream port whose beats are `K` bytes.
#[derive(LogicBlock)]
pub struct StreamSender<const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: nothing in flight, counters cleared.
    pub reset: Signal<In, Bit>,
    /// The settings hold: take messages.
    pub enable: Signal<In, Bit>,
    /// The QP the stream writes on.
    pub qp: Signal<In, Bits<24>>,
    /// The scheduler queue of its posts.
    pub scheduler_queue: Signal<In, Bits<5>>,
    /// Its first channel.
    pub first_channel: Signal<In, Bits<16>>,
    /// Its channels minus one: 0, 1 or 3.
    pub channel_mask: Signal<In, Bits<2>>,
    /// The remote address of slot 0.
    pub base_va: Signal<In, Bits<64>>,
    /// Beats of a slot (the port's `slot_bytes` / beat bytes).
    pub slot_beats: Signal<In, Bits<16>>,
    /// The local address of the port's buffer (aligned to the buffer's size).
    pub window_base: Signal<In, Bits<64>>,
    /// Messages from the port: valid.
    pub s_message_valid: Signal<In, Bit>,
    /// Messages: ready (from registers).
    pub s_message_ready: Signal<Out, Bit>,
    /// Messages: the record (`STREAM_MESSAGE`).
    pub s_message_entry: Signal<In, Bits<STREAM_MESSAGE_BITS>>,
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
    /// Free a message's beats in the port (one cycle).
    pub release_valid: Signal<Out, Bit>,
    /// The beats to free.
    pub release_beats: Signal<Out, Bits<16>>,
    /// Messages posted or given up and not yet released.
    pub held_messages: Signal<Out, Bits<3>>,
    /// Counter: messages posted.
    pub posted: Signal<Out, Bits<32>>,
    /// Counter: messages completed with success.
    pub completed: Signal<Out, Bits<32>>,
    /// Counter: messages completed with an error status.
    pub failed: Signal<Out, Bits<32>>,
    /// Counter: messages given up, their post refused (not for a busy channel).
    pub refused: Signal<Out, Bits<32>>,

    state: DFF<SenderState>,
    buffer_beat: DFF<Bits<16>>,
    beats: DFF<Bits<16>>,
    length: DFF<Bits<32>>,
    solicited: DFF<Bit>,
    slot: DFF<Bits<16>>,
    immediate: DFF<Bits<32>>,
    offset_beats: DFF<Bits<32>>,
    local_address: DFF<Bits<64>>,
    channel: DFF<Bits<16>>,
    add_steps: DFF<Bits<3>>,
    retry_wait: DFF<Bits<8>>,
    /// The ring: the next message's place, the oldest's, and how many it holds.
    position: DFF<Bits<2>>,
    head: DFF<Bits<2>>,
    count: DFF<Bits<3>>,
    /// Per place: posted and waiting for its completion; done (completed or given up).
    pending: DFF<Bits<4>>,
    done: DFF<Bits<4>>,
    completion_seen: DFF<Bit>,
    completion_offset: DFF<Bits<16>>,
    completion_failed: DFF<Bit>,
    releasing: DFF<Bit>,
    released_beats: DFF<Bits<16>>,
    // ---- combinational ----
    taken: Signal<Local, Bit>,
    pushed: Signal<Local, Bit>,
    popped: Signal<Local, Bit>,
    completion_place: Signal<Local, Bits<4>>,
    completion_hits: Signal<Local, Bit>,
    pending_next: Signal<Local, Bits<4>>,
    done_next: Signal<Local, Bits<4>>,
    post: Signal<Local, Bits<POST_BITS>>,
    // ---- sub-blocks ----
    address: PieceAdder,
    beats_of: LutRam<Bits<16>, 2>,
    posted_counter: EventCounter,
    completed_counter: EventCounter,
    failed_counter: EventCounter,
    refused_counter: EventCounter,
    // ---- constants ----
    message_at: [Constant<Bits<8>>; 6],
    post_at: [Constant<Bits<9>>; 10],
    beat_log2: Constant<Bits<8>>,
    write_with_immediate: Constant<Bits<3>>,
    channel_busy: Constant<Bits<POST_ERROR_BITS>>,
    retry_cycles: Constant<Bits<8>>,
    one_place: Constant<Bits<4>>,
}

impl<const K: usize> Default for StreamSender<K> {
    fn default() -> Self {
        assert!(K.is_power_of_two() && K <= 128, "lanes {K}");
        StreamSender {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            qp: Default::default(),
            scheduler_queue: Default::default(),
            first_channel: Default::default(),
            channel_mask: Default::default(),
            base_va: Default::default(),
            slot_beats: Default::default(),
            window_base: Default::default(),
            s_message_valid: Default::default(),
            s_message_ready: Default::default(),
            s_message_entry: Default::default(),
            post_valid: Default::default(),
            post_ready: Default::default(),
            post_entry: Default::default(),
            post_result_valid: Default::default(),
            post_result_code: Default::default(),
            cpl_valid: Default::default(),
            cpl_channel: Default::default(),
            cpl_status: Default::default(),
            release_valid: Default::default(),
            release_beats: Default::default(),
            held_messages: Default::default(),
            posted: Default::default(),
            completed: Default::default(),
            failed: Default::default(),
            refused: Default::default(),
            state: Default::default(),
            buffer_beat: Default::default(),
            beats: Default::default(),
            length: Default::default(),
            solicited: Default::default(),
            slot: Default::default(),
            immediate: Default::default(),
            offset_beats: Default::default(),
            local_address: Default::default(),
            channel: Default::default(),
            add_steps: Default::default(),
            retry_wait: Default::default(),
            position: Default::default(),
            head: Default::default(),
            count: Default::default(),
            pending: Default::default(),
            done: Default::default(),
            completion_seen: Default::default(),
            completion_offset: Default::default(),
            completion_failed: Default::default(),
            releasing: Default::default(),
            released_beats: Default::default(),
            taken: Default::default(),
            pushed: Default::default(),
            popped: Default::default(),
            completion_place: Default::default(),
            completion_hits: Default::default(),
            pending_next: Default::default(),
            done_next: Default::default(),
            post: Default::default(),
            address: Default::default(),
            beats_of: Default::default(),
            posted_counter: Default::default(),
            completed_counter: Default::default(),
            failed_counter: Default::default(),
            refused_counter: Default::default(),
            message_at: std::array::from_fn(|i| c::<8>(STREAM_MESSAGE.offset(MESSAGE_FIELDS[i]) as u64)),
            post_at: std::array::from_fn(|i| c::<9>(POST.offset(POST_FIELDS[i]) as u64)),
            beat_log2: c::<8>(u64::from(K.trailing_zeros())),
            write_with_immediate: c::<3>(u64::from(MESSAGE_OP.code())),
            channel_busy: c::<POST_ERROR_BITS>(u64::from(PostError::ChannelBusy.code())),
            retry_cycles: c::<8>(BUSY_RETRY_CYCLES - 1),
            one_place: c::<4>(1),
        }
    }
}

impl<const K: usize> Logic for StreamSender<K> {
    #[hdl_gen]
    // rust-hdl's kernel has no match guards: the `if` inside an arm stays as written.
    #[allow(clippy::collapsible_match)]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            buffer_beat,
            beats,
            length,
            solicited,
            slot,
            immediate,
            offset_beats,
            local_address,
            channel,
            add_steps,
            retry_wait,
            position,
            head,
            count,
            pending,
            done,
            completion_seen,
            completion_offset,
            completion_failed,
            releasing,
            released_beats
        );
        clock!(
            self,
            clock,
            address,
            posted_counter,
            completed_counter,
            failed_counter,
            refused_counter
        );
        self.beats_of.write_clock.next = self.clock.val();

        // ---- take a message: idle, enabled, its channel's place free ----
        self.s_message_ready.next =
            self.state.q.val() == SenderState::Idle && self.enable.val() && self.count.q.val() <= bit_cast::<3, 2>(self.channel_mask.val());
        self.taken.next = self.s_message_valid.val() && self.s_message_ready.val();
        if self.taken.val() {
            self.buffer_beat.d.next = self.s_message_entry.val().get_bits::<16>(self.message_at[0].val().index());
            self.beats.d.next = self.s_message_entry.val().get_bits::<16>(self.message_at[1].val().index());
            self.length.d.next = bit_cast::<32, 21>(self.s_message_entry.val().get_bits::<21>(self.message_at[2].val().index()));
            self.solicited.d.next = self.s_message_entry.val().get_bit(self.message_at[3].val().index());
            self.slot.d.next = self.s_message_entry.val().get_bits::<16>(self.message_at[4].val().index());
            self.immediate.d.next = self.s_message_entry.val().get_bits::<32>(self.message_at[5].val().index());
            self.state.d.next = SenderState::Multiply;
        }

        // ---- the addresses: slot × slot beats, then base VA + the offset in bytes ----
        self.address.load.next = false;
        self.address.step.next = false;
        self.address.a.next = self.base_va.val();
        self.address.b.next = bit_cast::<64, 32>(self.offset_beats.q.val()) << self.beat_log2.val();
        match self.state.q.val() {
            SenderState::Multiply => {
                self.offset_beats.d.next = self.slot.q.val() * self.slot_beats.val();
                self.local_address.d.next = self.window_base.val() | (bit_cast::<64, 16>(self.buffer_beat.q.val()) << self.beat_log2.val());
                self.channel.d.next = self.first_channel.val() + bit_cast::<16, 2>(self.position.q.val());
                self.state.d.next = SenderState::Load;
            }
            SenderState::Load => {
                self.address.load.next = true;
                self.add_steps.d.next = 0.into();
                self.state.d.next = SenderState::Add;
            }
            SenderState::Add => {
                self.address.step.next = true;
                self.add_steps.d.next = self.add_steps.q.val() + 1;
                if self.add_steps.q.val() == 3 {
                    self.state.d.next = SenderState::Post;
                }
            }
            SenderState::Post => {
                if self.post_ready.val() {
                    self.state.d.next = SenderState::Result;
                }
            }
            SenderState::Result => {}
            SenderState::Retry => {
                self.retry_wait.d.next = self.retry_wait.q.val() - 1;
                if self.retry_wait.q.val() == 0 {
                    self.state.d.next = SenderState::Post;
                }
            }
            _ => {}
        }

        // ---- the post, from registers ----
        self.post.next = (bit_cast::<POST_BITS, 16>(self.channel.q.val()) << self.post_at[0].val())
            | (bit_cast::<POST_BITS, 5>(self.scheduler_queue.val()) << self.post_at[1].val())
            | (bit_cast::<POST_BITS, 3>(self.write_with_immediate.val()) << self.post_at[2].val())
            | (bit_cast::<POST_BITS, 24>(self.qp.val()) << self.post_at[5].val())
            | (bit_cast::<POST_BITS, 64>(self.local_address.q.val()) << self.post_at[6].val())
            | (bit_cast::<POST_BITS, 64>(self.address.sum.val()) << self.post_at[7].val())
            | (bit_cast::<POST_BITS, 32>(self.length.q.val()) << self.post_at[8].val())
            | (bit_cast::<POST_BITS, 32>(self.immediate.q.val()) << self.post_at[9].val());
        self.post_entry.next = self.post.val().replace_bit(self.post_at[3].val().index(), self.solicited.q.val());
        self.post_valid.next = self.state.q.val() == SenderState::Post;

        // ---- its result: in flight, tried again, or given up ----
        self.pushed.next = false;
        self.posted_counter.increment.next = false;
        self.refused_counter.increment.next = false;
        self.pending_next.next = self.pending.q.val();
        self.done_next.next = self.done.q.val();
        if self.state.q.val() == SenderState::Result && self.post_result_valid.val() {
            if self.post_result_code.val() == 0 {
                self.pushed.next = true;
                self.posted_counter.increment.next = true;
                self.pending_next.next = self.pending_next.val() | (self.one_place.val() << self.position.q.val());
                self.state.d.next = SenderState::Idle;
            } else if self.post_result_code.val() == self.channel_busy.val() {
                self.retry_wait.d.next = self.retry_cycles.val();
                self.state.d.next = SenderState::Retry;
            } else {
                self.pushed.next = true;
                self.refused_counter.increment.next = true;
                self.done_next.next = self.done_next.val() | (self.one_place.val() << self.position.q.val());
                self.state.d.next = SenderState::Idle;
            }
        }
        self.beats_of.write_enable.next = self.pushed.val();
        self.beats_of.write_address.next = self.position.q.val();
        self.beats_of.write_data.next = self.beats.q.val();
        if self.pushed.val() {
            self.position.d.next = (self.position.q.val() + 1) & self.channel_mask.val();
        }

        // ---- completions: registered, then the message on that channel is done ----
        self.completion_seen.d.next = self.cpl_valid.val();
        self.completion_offset.d.next = self.cpl_channel.val() - self.first_channel.val();
        self.completion_failed.d.next = self.cpl_status.val() != 0;
        self.completion_place.next = self.one_place.val() << self.completion_offset.q.val().get_bits::<2>(0);
        self.completion_hits.next = self.completion_seen.q.val()
            && self.completion_offset.q.val().get_bits::<14>(2) == 0
            && (self.completion_offset.q.val().get_bits::<2>(0) & !self.channel_mask.val()) == 0
            && (self.pending.q.val() & self.completion_place.val()) != 0;
        self.completed_counter.increment.next = self.completion_hits.val() && !self.completion_failed.q.val();
        self.failed_counter.increment.next = self.completion_hits.val() && self.completion_failed.q.val();
        if self.completion_hits.val() {
            self.pending_next.next = self.pending_next.val() & !self.completion_place.val();
            self.done_next.next = self.done_next.val() | self.completion_place.val();
        }

        // ---- release: the oldest message, once done ----
        self.beats_of.read_address.next = self.head.q.val();
        self.popped.next =
            !self.releasing.q.val() && self.count.q.val() != 0 && (self.done.q.val() & (self.one_place.val() << self.head.q.val())) != 0;
        self.releasing.d.next = self.popped.val();
        self.released_beats.d.next = self.beats_of.read_data.val();
        if self.popped.val() {
            self.done_next.next = self.done_next.val() & !(self.one_place.val() << self.head.q.val());
            self.head.d.next = (self.head.q.val() + 1) & self.channel_mask.val();
        }
        self.pending.d.next = self.pending_next.val();
        self.done.d.next = self.done_next.val();
        if self.pushed.val() && !self.popped.val() {
            self.count.d.next = self.count.q.val() + 1;
        }
        if self.popped.val() && !self.pushed.val() {
            self.count.d.next = self.count.q.val() - 1;
        }
        self.release_valid.next = self.releasing.q.val();
        self.release_beats.next = self.released_beats.q.val();
        self.held_messages.next = self.count.q.val();

        // ---- counters, reset ----
        self.posted.next = self.posted_counter.count.val();
        self.completed.next = self.completed_counter.count.val();
        self.failed.next = self.failed_counter.count.val();
        self.refused.next = self.refused_counter.count.val();
        self.posted_counter.reset.next = self.reset.val();
        self.completed_counter.reset.next = self.reset.val();
        self.failed_counter.reset.next = self.reset.val();
        self.refused_counter.reset.next = self.reset.val();
        if self.reset.val() {
            self.state.d.next = SenderState::Idle;
            self.position.d.next = 0.into();
            self.head.d.next = 0.into();
            self.count.d.next = 0.into();
            self.pending.d.next = 0.into();
            self.done.d.next = 0.into();
            self.releasing.d.next = false;
            self.completion_seen.d.next = false;
        }
    }
}
