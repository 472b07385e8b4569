//! [`AckTracker`]: RC completion on acknowledgement. A UC transfer completes when its last frame
//! has left; an RC transfer then waits until the responder acknowledges its last PSN (the
//! model and its rules: `ferroce_models::tx::acknowledge`).
//!
//! ```text
//!  packet tap (every request descriptor the generator takes) ─► transfer RAM (per channel:
//!                                                               QP, last PSN, RC)
//!  record (a new RC block, before its first packet) ───────────► sent PSN RAM (per QP: window)
//!  sent (the generator's completion) ─┐
//!  ack (ACK/NAK: QP, PSN, syndrome) ──┴─► one operation at a time ─► cpl (channel, status)
//!                                         waiting lists (per QP: head, tail, failure) + links
//! ```
//!
//! - A QP's waiting transfers are a linked list through the channels (a channel has one
//!   transfer at a time): per QP the head and tail channel, per channel the next one.
//! - A sent transfer is taken before an ACK: its last frame left before any answer to it could
//!   come back, so an ACK never finds the transfer it covers still on its way here.
//! - A QP's last request PSN is its newest recorded block's last (`record_*`, taken between
//!   operations every other cycle, the records' turn, and written the next cycle; an ACK, clear
//!   or action is taken in neither): the packetizer records a
//!   block before its first packet and the TX path takes no record while a notice waits, so an
//!   `idle` always means every recorded packet is acknowledged, and reaches the retry timer
//!   before the `sent` of any block it does not cover.
//! - An ACK or NAK is checked against the window (at or before the QP's last request PSN) and
//!   its syndrome decoded (a table over the 256 syndromes, from the contract); then the list is
//!   drained from the head while the head's last PSN is covered. A fatal NAK (invalid request,
//!   remote access or operational error) puts the QP in error: the rest of the list fails with
//!   its status, so do the QP's later transfers, everything it sent is released and the timer
//!   is told `idle`.
//! - Each step of an operation is a state; a compare of two PSNs takes two states of its own
//!   ([`PsnOrder`]'s two stages) before the state that decides on it. An ACK's three compares
//!   overlap: the window (its PSN at or before the last sent) and the progress (the last PSN
//!   acknowledged before the one it covers) run side by side with the head's (its last PSN is
//!   kept in the QP's entry), and the ACK completes a covered head in the state that decides;
//!   an operation that empties a list without a failure writes the QP's entry while its
//!   completion waits. So an ACK that covers one transfer takes 6 cycles, its transfer's
//!   `sent` 3 (the QP's entry and the link written as the entry arrives).
//! - **Going back N**: per QP the last PSN acknowledged. An answer that acknowledges new PSNs
//!   releases them from the send history (`release_*`) and tells the retry timer `progress` or
//!   `idle` (`notice_*`), then a PSN sequence error or RNR NAK tells it so, unless it is stale
//!   (it acknowledges less than the QP already has: a duplicate, or one overtaken). A timer action
//!   (`action_*`) that sends again rewinds the send history (`rewind_*`) to the PSN after the
//!   last acknowledged (every block whole when none was); an exhausted one fails every waiting
//!   transfer, releases what the QP sent and keeps the QP failed (its transfers complete with
//!   that status when they have left). `clear_*` (the host reset the QP) completes its waiting
//!   transfers as flushed and forgets what was sent, acknowledged and failed. Each of the three
//!   outputs is one register, held until taken.
//! - **A QP's error state**: each QP's failure (0: none) is kept twice more, as `qps` keeps it,
//!   for two read ports of one cycle: `status_*` for the host (the `qp_status` register) and
//!   `post_*` for the segmenter, which refuses a post on a failed QP (`qp_not_ready`).

use crate::common::elab::{bits_from, c};
use crate::common::psn::PsnOrder;
use ferroce_contracts::reliability::{TimerAction, TimerEvent, TIMER_ACTION_BITS, TIMER_EVENT_BITS};
use ferroce_contracts::responder::{NakCode, Syndrome};
use ferroce_contracts::tx::{CompletionStatus, COMPLETION_STATUS_BITS};
use rust_hdl::prelude::*;

mod entries {
    // the methods `LogicStruct` derives have no docs
    #![allow(missing_docs)]
    use rust_hdl::prelude::*;

    /// A channel's transfer as its last packet left the packetizer.
    #[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
    pub struct TransferEntry {
        /// The QP (its low 16 bits; the tracker uses the low `QB`).
        pub qp: Bits<16>,
        /// PSN of the transfer's last packet.
        pub last_psn: Bits<24>,
        /// RC: the transfer waits for its acknowledgement.
        pub reliable: Bit,
        /// Its QP was reset after its last block was cut: it completes flushed when sent.
        pub flushed: Bit,
    }

    /// A QP's waiting list, acknowledged PSN and failed state.
    #[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
    pub struct QpEntry {
        /// Transfers wait.
        pub waiting: Bit,
        /// The oldest waiting transfer's channel.
        pub head: Bits<16>,
        /// The newest waiting transfer's channel.
        pub tail: Bits<16>,
        /// The oldest waiting transfer's last PSN (as `transfers` holds it), so an ACK compares
        /// it without reading the head's transfer entry first.
        pub head_psn: Bits<24>,
        /// A PSN was acknowledged since reset or the last clear.
        pub acked_valid: Bit,
        /// The last PSN acknowledged.
        pub acked_psn: Bits<24>,
        /// The QP is in error (the retries ran out, or a fatal NAK): transfers complete with
        /// `failed_status` until a clear.
        pub failed: Bit,
        /// That status.
        pub failed_status: Bits<4>,
    }

    /// The last request PSN a QP has sent.
    #[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
    pub struct SentPsn {
        /// A request was sent since reset.
        pub valid: Bit,
        /// Its PSN.
        pub psn: Bits<24>,
    }
}
use entries::{QpEntry, SentPsn, TransferEntry};

/// The tracker's steps.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum TrackerState {
    /// Clearing the QP RAMs after reset.
    Init,
    /// Waiting for a sent transfer or an ACK.
    Idle,
    /// Sent: the channel's transfer entry is read.
    SentRead,
    /// Sent: the QP's entry arrives; a UC, failed or failed-QP transfer completes, any other
    /// is appended to the QP's list (the entry and the link written as they arrive).
    SentQp,
    /// ACK: the QP's entry and sent PSN are read, the syndrome decoded, the PSN it covers
    /// chosen; the list's head's link is asked for.
    AckRead,
    /// ACK: the three compares' first stage (window, progress, and the head's cached last
    /// PSN); the head's link arrives.
    AckCompare,
    /// ACK: their second stage.
    AckWait,
    /// ACK: ignored, or new PSNs acknowledged (the release and the timer's `progress` or
    /// `idle`; an ACK that covers the head completes it at once, as `DrainDecide` would), or a
    /// NAK's notice.
    AckDecide,
    /// ACK: a sequence or RNR NAK is told to the timer, or a fatal NAK's release and `idle`;
    /// the drain starts.
    NakNotice,
    /// A timer action or a clear: the QP's entry and sent PSN are asked for (at `qp`).
    ActionAddress,
    /// A timer action or a clear: the QP's entry and sent PSN arrive.
    ActionRead,
    /// A timer action: the rewind, or the failure's release and drain; a clear: its drain.
    ActionDecide,
    /// Drain: the head's transfer entry and link are read (or the drain ends).
    DrainRead,
    /// Drain: the head's last PSN and the acknowledged PSN go to the compare.
    DrainLoad,
    /// Drain: the compare's first stage.
    DrainCompare,
    /// Drain: the compare's second stage.
    DrainWait,
    /// Drain: the head completes (covered, or failed), or the drain ends.
    DrainDecide,
    /// Drain: the QP's entry is written back.
    Finish,
    /// A completion waits for `cpl_ready`; then `Idle`.
    EmitThenIdle,
    /// A completion waits for `cpl_ready`; then the drain goes on with the next head (its
    /// entry read meanwhile), or ends (an ACK's drain that emptied the list writes the QP's
    /// entry meanwhile and goes straight to `Idle`).
    EmitThenDrain,
}

/// The tracker of `2^CB` channels and `2^QB` QPs.
#[derive(LogicBlock)]
pub struct AckTracker<const CB: usize, const QB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: nothing waits (the QP RAMs are cleared again).
    pub reset: Signal<In, Bit>,
    /// The QP RAMs are cleared.
    pub init_done: Signal<Out, Bit>,
    /// A request descriptor was taken by the generator (responses are not taps). Its transfer
    /// entry is written two cycles later: its transfer's `sent` must come after that.
    pub packet_valid: Signal<In, Bit>,
    /// Its channel.
    pub packet_channel: Signal<In, Bits<16>>,
    /// Its QP.
    pub packet_qp: Signal<In, Bits<24>>,
    /// Its PSN.
    pub packet_psn: Signal<In, Bits<24>>,
    /// It is its transfer's last packet.
    pub packet_last: Signal<In, Bit>,
    /// Its transport is RC.
    pub packet_reliable: Signal<In, Bit>,
    /// The packet is `flushed` (its QP was reset after its block was cut).
    pub packet_flushed: Signal<In, Bit>,
    /// A new RC block is recorded (before its first packet): valid.
    pub record_valid: Signal<In, Bit>,
    /// Taken: the tracker is between operations, in the record's turn (every other cycle).
    pub record_ready: Signal<Out, Bit>,
    /// Its QP.
    pub record_qp: Signal<In, Bits<QB>>,
    /// Its last PSN (a READ's: its response's last).
    pub record_last_psn: Signal<In, Bits<24>>,
    /// A transfer's last frame has left: valid.
    pub sent_valid: Signal<In, Bit>,
    /// Taken.
    pub sent_ready: Signal<Out, Bit>,
    /// Its channel.
    pub sent_channel: Signal<In, Bits<16>>,
    /// Its status so far (`CompletionStatus` code).
    pub sent_status: Signal<In, Bits<COMPLETION_STATUS_BITS>>,
    /// An ACK or NAK for this engine's requests: valid.
    pub ack_valid: Signal<In, Bit>,
    /// Taken.
    pub ack_ready: Signal<Out, Bit>,
    /// The local QP it is for (its BTH DestQP).
    pub ack_qp: Signal<In, Bits<24>>,
    /// Its PSN.
    pub ack_psn: Signal<In, Bits<24>>,
    /// Its AETH syndrome.
    pub ack_syndrome: Signal<In, Bits<8>>,
    /// A transfer completes: valid (held until taken).
    pub cpl_valid: Signal<Out, Bit>,
    /// Taken.
    pub cpl_ready: Signal<In, Bit>,
    /// Its channel.
    pub cpl_channel: Signal<Out, Bits<16>>,
    /// Its status (`CompletionStatus` code).
    pub cpl_status: Signal<Out, Bits<COMPLETION_STATUS_BITS>>,
    /// An ACK or NAK was ignored: reserved syndrome, QP beyond the table, or outside the window
    /// (one cycle per ACK).
    pub ignored: Signal<Out, Bit>,
    /// The retry timer's actions: valid.
    pub action_valid: Signal<In, Bit>,
    /// Taken.
    pub action_ready: Signal<Out, Bit>,
    /// Its QP (below `2^QB`).
    pub action_qp: Signal<In, Bits<24>>,
    /// Its `TimerAction` code.
    pub action_kind: Signal<In, Bits<TIMER_ACTION_BITS>>,
    /// The host reset a QP: valid.
    pub clear_valid: Signal<In, Bit>,
    /// Taken.
    pub clear_ready: Signal<Out, Bit>,
    /// The QP.
    pub clear_qp: Signal<In, Bits<QB>>,
    /// Release the send history up to a PSN: valid (held until taken).
    pub release_valid: Signal<Out, Bit>,
    /// Taken.
    pub release_ready: Signal<In, Bit>,
    /// The QP.
    pub release_qp: Signal<Out, Bits<QB>>,
    /// The PSN acknowledged.
    pub release_psn: Signal<Out, Bits<24>>,
    /// Tell the retry timer: valid (held until taken).
    pub notice_valid: Signal<Out, Bit>,
    /// Taken.
    pub notice_ready: Signal<In, Bit>,
    /// The QP.
    pub notice_qp: Signal<Out, Bits<QB>>,
    /// The `TimerEvent` code (`progress`, `idle`, `sequence_nak`, `rnr_nak`).
    pub notice_kind: Signal<Out, Bits<TIMER_EVENT_BITS>>,
    /// An RNR NAK's timer code.
    pub notice_rnr_timer: Signal<Out, Bits<5>>,
    /// Rewind the send history: valid (held until taken).
    pub rewind_valid: Signal<Out, Bit>,
    /// Taken.
    pub rewind_ready: Signal<In, Bit>,
    /// The QP.
    pub rewind_qp: Signal<Out, Bits<QB>>,
    /// The PSN to send again from.
    pub rewind_psn: Signal<Out, Bits<24>>,
    /// Every block whole (nothing acknowledged yet).
    pub rewind_whole: Signal<Out, Bit>,
    /// A QP's error state, for the host: the QP.
    pub status_qp: Signal<In, Bits<QB>>,
    /// The `CompletionStatus` that failed the previous cycle's `status_qp` (0: not failed).
    pub status_failure: Signal<Out, Bits<COMPLETION_STATUS_BITS>>,
    /// A QP's error state, for a post: the QP.
    pub post_qp: Signal<In, Bits<QB>>,
    /// The `CompletionStatus` that failed the previous cycle's `post_qp` (0: not failed).
    pub post_qp_failure: Signal<Out, Bits<COMPLETION_STATUS_BITS>>,

    /// The packet tap, registered on its way to the RAMs.
    tap_valid: DFF<Bit>,
    /// Between operations, records and the other ports (ACK, clear, action) take turns a
    /// cycle each (the readies depend on registers only).
    record_turn: DFF<Bit>,
    /// The record taken, on its way to the sent PSN RAM (no ACK is taken meanwhile).
    record_taken: DFF<Bit>,
    record_taken_qp: DFF<Bits<QB>>,
    record_taken_psn: DFF<Bits<24>>,
    tap_channel: DFF<Bits<16>>,
    tap_qp: DFF<Bits<24>>,
    tap_psn: DFF<Bits<24>>,
    tap_last: DFF<Bit>,
    tap_reliable: DFF<Bit>,
    tap_flushed: DFF<Bit>,
    transfers: RAM<TransferEntry, CB>,
    links: RAM<Bits<16>, CB>,
    qps: RAM<QpEntry, QB>,
    sent_psns: RAM<SentPsn, QB>,
    /// Each QP's failure (0: none), as in `qps`, twice: a read port for the host, one for posts.
    failures_for_host: RAM<Bits<COMPLETION_STATUS_BITS>, QB>,
    failures_for_posts: RAM<Bits<COMPLETION_STATUS_BITS>, QB>,
    /// `qps`' failure of `qp` changes this cycle (`Init`, a clear's or a failure's `Finish`).
    failure_written: Signal<Local, Bit>,
    state: DFF<TrackerState>,
    /// The entry of `qp` in the table of last PSNs sent is forgotten this cycle (`Init`, or
    /// a clear that no packet of the QP followed): one write, from registers only.
    clear_sent_psn: Signal<Local, Bit>,
    /// The state is past `Init`, as a register (low at power-up, as the state is `Init`).
    initialized: DFF<Bit>,
    /// The state is `Finish`, as a register.
    finishing: DFF<Bit>,
    /// The state is `Idle`, as a register: the readies and the RAMs' read addresses do not wait
    /// on the state's decode.
    idle: DFF<Bit>,
    /// The operation's channel (sent) or the list's head being drained.
    channel: DFF<Bits<16>>,
    /// The sent transfer's status.
    status: DFF<Bits<COMPLETION_STATUS_BITS>>,
    transfer: DFF<TransferEntry>,
    qp: DFF<Bits<QB>>,
    entry: DFF<QpEntry>,
    /// The ACK's PSN and the PSN before it.
    psn: DFF<Bits<24>>,
    psn_before: DFF<Bits<24>>,
    syndrome: DFF<Bits<8>>,
    /// The syndrome, decoded: reserved; the failure's status (0: none).
    reserved: DFF<Bit>,
    failure: DFF<Bits<COMPLETION_STATUS_BITS>>,
    /// The PSN the ACK or NAK covers (itself, or the one before a NAK).
    acknowledged: DFF<Bits<24>>,
    sent_psn: DFF<SentPsn>,
    /// The window compare: the ACK's PSN at or before the last request PSN sent (two cycles
    /// from its operands to `at_or_before`, as each compare below).
    order: PsnOrder,
    /// The progress compare: the last PSN acknowledged at or before the one this ACK covers.
    progress_order: PsnOrder,
    /// The drain's compare: the head's last PSN at or before the one acknowledged.
    drain_order: PsnOrder,
    /// The head's last PSN.
    head_psn: DFF<Bits<24>>,
    /// The head's link (its successor in the list).
    next: DFF<Bits<16>>,
    /// The head read is the tail: popping it empties the list.
    head_is_tail: DFF<Bit>,
    /// In `EmitThenDrain`: the list is empty and the QP neither fails nor is cleared, so the
    /// entry is written there and no `Finish` follows.
    done_at_emit: Signal<Local, Bit>,
    out_valid: DFF<Bit>,
    out_channel: DFF<Bits<16>>,
    out_status: DFF<Bits<COMPLETION_STATUS_BITS>>,
    ignore: DFF<Bit>,
    /// The syndrome is a PSN sequence error NAK, an RNR NAK (cleared when it is stale: it
    /// acknowledges less than the QP already has).
    sequence_nak: DFF<Bit>,
    rnr_nak: DFF<Bit>,
    /// Progress: the last PSN acknowledged is this one; this one is the last sent.
    same: DFF<Bit>,
    everything: DFF<Bit>,
    /// The action's kind; the PSN after the last acknowledged.
    action: DFF<Bits<TIMER_ACTION_BITS>>,
    acked_next: DFF<Bits<24>>,
    /// The operation is a clear; its drain (or an exhausted action's) fails every transfer.
    clearing: DFF<Bit>,
    fail_all: DFF<Bit>,
    release_out_valid: DFF<Bit>,
    release_out_qp: DFF<Bits<QB>>,
    release_out_psn: DFF<Bits<24>>,
    notice_out_valid: DFF<Bit>,
    notice_out_qp: DFF<Bits<QB>>,
    notice_out_kind: DFF<Bits<TIMER_EVENT_BITS>>,
    notice_out_rnr_timer: DFF<Bits<5>>,
    rewind_out_valid: DFF<Bit>,
    rewind_out_qp: DFF<Bits<QB>>,
    rewind_out_psn: DFF<Bits<24>>,
    rewind_out_whole: DFF<Bit>,
    progress: Signal<Local, Bit>,
    ack_qp_high: Signal<Local, Bit>,
    tail_channel: Signal<Local, Bits<16>>,
    read_qp: Signal<Local, Bits<16>>,
    /// The head of the QP entry read (its channel).
    read_head: Signal<Local, Bits<16>>,
    decoded_failure: Signal<Local, Bits<COMPLETION_STATUS_BITS>>,
    /// Over the 256 syndromes: bit `s` is set when `s` is reserved.
    reserved_table: Constant<Bits<256>>,
    /// Over the 256 syndromes: bit `s` is set when `s` is an ACK.
    ack_table: Constant<Bits<256>>,
    /// Over the 256 syndromes: a PSN sequence error NAK; an RNR NAK.
    sequence_table: Constant<Bits<256>>,
    rnr_table: Constant<Bits<256>>,
    /// Over the action codes: bit `a` is set when action `a` sends again.
    sends_again: Constant<Bits<8>>,
    rnr_exhausted: Constant<Bits<TIMER_ACTION_BITS>>,
    /// Timer event codes: progress, idle, sequence NAK, RNR NAK.
    event_code: [Constant<Bits<TIMER_EVENT_BITS>>; 4],
    retry_exceeded: Constant<Bits<COMPLETION_STATUS_BITS>>,
    receiver_not_ready: Constant<Bits<COMPLETION_STATUS_BITS>>,
    flushed: Constant<Bits<COMPLETION_STATUS_BITS>>,
    /// Over the 256 syndromes: bit `s` of table `b` is bit `b` of the status a NAK `s` fails
    /// its transfer with (0: none).
    failure_table: [Constant<Bits<256>>; COMPLETION_STATUS_BITS],
    bit_shift: [Constant<Bits<4>>; COMPLETION_STATUS_BITS],
    qp_limit: Constant<Bits<24>>,
    last_qp: Constant<Bits<QB>>,
    success: Constant<Bits<COMPLETION_STATUS_BITS>>,
}

/// A table over the 256 syndrome bytes: bit `s` is `f(s)`.
fn syndrome_table(f: impl Fn(u8) -> bool) -> Constant<Bits<256>> {
    Constant::new(bits_from::<256>(|s| f(s as u8)))
}

impl<const CB: usize, const QB: usize> Default for AckTracker<CB, QB> {
    fn default() -> Self {
        assert!(CB <= 16 && QB <= 16);
        assert!(CompletionStatus::ALL.iter().all(|s| s.code() < 16));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            init_done: Default::default(),
            packet_valid: Default::default(),
            packet_channel: Default::default(),
            packet_qp: Default::default(),
            packet_psn: Default::default(),
            packet_last: Default::default(),
            packet_reliable: Default::default(),
            packet_flushed: Default::default(),
            sent_valid: Default::default(),
            sent_ready: Default::default(),
            sent_channel: Default::default(),
            sent_status: Default::default(),
            ack_valid: Default::default(),
            ack_ready: Default::default(),
            ack_qp: Default::default(),
            ack_psn: Default::default(),
            ack_syndrome: Default::default(),
            cpl_valid: Default::default(),
            cpl_ready: Default::default(),
            cpl_channel: Default::default(),
            cpl_status: Default::default(),
            ignored: Default::default(),
            action_valid: Default::default(),
            action_ready: Default::default(),
            action_qp: Default::default(),
            action_kind: Default::default(),
            clear_valid: Default::default(),
            clear_ready: Default::default(),
            clear_qp: Default::default(),
            release_valid: Default::default(),
            release_ready: Default::default(),
            release_qp: Default::default(),
            release_psn: Default::default(),
            notice_valid: Default::default(),
            notice_ready: Default::default(),
            notice_qp: Default::default(),
            notice_kind: Default::default(),
            notice_rnr_timer: Default::default(),
            rewind_valid: Default::default(),
            rewind_ready: Default::default(),
            rewind_qp: Default::default(),
            rewind_psn: Default::default(),
            rewind_whole: Default::default(),
            status_qp: Default::default(),
            status_failure: Default::default(),
            post_qp: Default::default(),
            post_qp_failure: Default::default(),
            record_valid: Default::default(),
            record_ready: Default::default(),
            record_qp: Default::default(),
            record_last_psn: Default::default(),
            tap_valid: Default::default(),
            record_turn: Default::default(),
            record_taken: Default::default(),
            record_taken_qp: Default::default(),
            record_taken_psn: Default::default(),
            tap_channel: Default::default(),
            tap_qp: Default::default(),
            tap_psn: Default::default(),
            tap_last: Default::default(),
            tap_reliable: Default::default(),
            tap_flushed: Default::default(),
            transfers: Default::default(),
            links: Default::default(),
            qps: Default::default(),
            sent_psns: Default::default(),
            failures_for_host: Default::default(),
            failures_for_posts: Default::default(),
            failure_written: Default::default(),
            state: Default::default(),
            clear_sent_psn: Default::default(),
            initialized: Default::default(),
            finishing: Default::default(),
            idle: Default::default(),
            channel: Default::default(),
            status: Default::default(),
            transfer: Default::default(),
            qp: Default::default(),
            entry: Default::default(),
            psn: Default::default(),
            psn_before: Default::default(),
            syndrome: Default::default(),
            reserved: Default::default(),
            failure: Default::default(),
            acknowledged: Default::default(),
            sent_psn: Default::default(),
            order: Default::default(),
            progress_order: Default::default(),
            drain_order: Default::default(),
            head_psn: Default::default(),
            next: Default::default(),
            head_is_tail: Default::default(),
            done_at_emit: Default::default(),
            out_valid: Default::default(),
            out_channel: Default::default(),
            out_status: Default::default(),
            ignore: Default::default(),
            sequence_nak: Default::default(),
            rnr_nak: Default::default(),
            same: Default::default(),
            everything: Default::default(),
            action: Default::default(),
            acked_next: Default::default(),
            clearing: Default::default(),
            fail_all: Default::default(),
            release_out_valid: Default::default(),
            release_out_qp: Default::default(),
            release_out_psn: Default::default(),
            notice_out_valid: Default::default(),
            notice_out_qp: Default::default(),
            notice_out_kind: Default::default(),
            notice_out_rnr_timer: Default::default(),
            rewind_out_valid: Default::default(),
            rewind_out_qp: Default::default(),
            rewind_out_psn: Default::default(),
            rewind_out_whole: Default::default(),
            progress: Default::default(),
            ack_qp_high: Default::default(),
            tail_channel: Default::default(),
            read_qp: Default::default(),
            read_head: Default::default(),
            decoded_failure: Default::default(),
            reserved_table: syndrome_table(|s| Syndrome::decode(s).is_none()),
            ack_table: syndrome_table(|s| matches!(Syndrome::decode(s), Some(Syndrome::Ack { .. }))),
            sequence_table: syndrome_table(|s| Syndrome::decode(s) == Some(Syndrome::Nak(NakCode::PsnSequenceError))),
            rnr_table: syndrome_table(|s| matches!(Syndrome::decode(s), Some(Syndrome::RnrNak { .. }))),
            sends_again: Constant::new(bits_from::<8>(|a| {
                TimerAction::from_code(a as u8).is_some_and(TimerAction::sends_again)
            })),
            rnr_exhausted: c::<TIMER_ACTION_BITS>(u64::from(TimerAction::RnrRetriesExhausted.code())),
            event_code: [TimerEvent::Progress, TimerEvent::Idle, TimerEvent::SequenceNak, TimerEvent::RnrNak]
                .map(|e| c::<TIMER_EVENT_BITS>(u64::from(e.code()))),
            retry_exceeded: c::<COMPLETION_STATUS_BITS>(u64::from(CompletionStatus::TransportRetryExceeded.code())),
            receiver_not_ready: c::<COMPLETION_STATUS_BITS>(u64::from(CompletionStatus::ReceiverNotReady.code())),
            flushed: c::<COMPLETION_STATUS_BITS>(u64::from(CompletionStatus::Flushed.code())),
            failure_table: std::array::from_fn(|b| {
                syndrome_table(move |s| CompletionStatus::of_syndrome(s).map_or(0, CompletionStatus::code) >> b & 1 == 1)
            }),
            bit_shift: std::array::from_fn(|b| c::<4>(b as u64)),
            qp_limit: c::<24>(1 << QB),
            last_qp: c::<QB>((1 << QB) - 1),
            success: c::<COMPLETION_STATUS_BITS>(u64::from(CompletionStatus::Success.code())),
        }
    }
}

impl<const CB: usize, const QB: usize> Logic for AckTracker<CB, QB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            tap_valid,
            record_turn,
            record_taken,
            record_taken_qp,
            record_taken_psn,
            tap_channel,
            tap_qp,
            tap_psn,
            tap_last,
            tap_reliable,
            tap_flushed,
            state,
            idle,
            initialized,
            finishing,
            channel,
            status,
            transfer,
            qp,
            entry,
            psn,
            psn_before,
            syndrome,
            reserved,
            failure,
            acknowledged,
            sent_psn,
            head_psn,
            next,
            head_is_tail,
            out_valid,
            out_channel,
            out_status,
            ignore,
            sequence_nak,
            rnr_nak,
            same,
            everything,
            action,
            acked_next,
            clearing,
            fail_all,
            release_out_valid,
            release_out_qp,
            release_out_psn,
            notice_out_valid,
            notice_out_qp,
            notice_out_kind,
            notice_out_rnr_timer,
            rewind_out_valid,
            rewind_out_qp,
            rewind_out_psn,
            rewind_out_whole
        );
        self.transfers.read_clock.next = self.clock.val();
        self.transfers.write_clock.next = self.clock.val();
        self.links.read_clock.next = self.clock.val();
        self.links.write_clock.next = self.clock.val();
        self.qps.read_clock.next = self.clock.val();
        self.qps.write_clock.next = self.clock.val();
        self.sent_psns.read_clock.next = self.clock.val();
        self.sent_psns.write_clock.next = self.clock.val();
        self.failures_for_host.read_clock.next = self.clock.val();
        self.failures_for_host.write_clock.next = self.clock.val();
        self.failures_for_posts.read_clock.next = self.clock.val();
        self.failures_for_posts.write_clock.next = self.clock.val();
        self.order.clock.next = self.clock.val();
        self.order.first.next = self.psn.q.val();
        self.order.second.next = self.sent_psn.q.val().psn;
        self.progress_order.clock.next = self.clock.val();
        self.progress_order.first.next = self.entry.q.val().acked_psn;
        self.progress_order.second.next = self.acknowledged.q.val();
        self.drain_order.clock.next = self.clock.val();
        self.drain_order.first.next = self.head_psn.q.val();
        self.drain_order.second.next = self.acknowledged.q.val();

        // ---- the packet tap (registered): a transfer's last packet ----
        self.tap_valid.d.next = self.packet_valid.val() && !self.reset.val();
        self.tap_channel.d.next = self.packet_channel.val();
        self.tap_qp.d.next = self.packet_qp.val();
        self.tap_psn.d.next = self.packet_psn.val();
        self.tap_last.d.next = self.packet_last.val();
        self.tap_reliable.d.next = self.packet_reliable.val();
        self.tap_flushed.d.next = self.packet_flushed.val();
        self.transfers.write_address.next = self.tap_channel.q.val().get_bits::<CB>(0);
        self.transfers.write_enable.next = self.tap_valid.q.val() && self.tap_last.q.val();
        self.transfers.write_data.next.qp = self.tap_qp.q.val().get_bits::<16>(0);
        self.transfers.write_data.next.last_psn = self.tap_psn.q.val();
        self.transfers.write_data.next.reliable = self.tap_reliable.q.val();
        self.transfers.write_data.next.flushed = self.tap_flushed.q.val();
        // ---- a record (registered): a QP's last request PSN ----
        // (taken between operations in its turn; the next cycle takes no ACK, clear or action)
        self.record_turn.d.next = !self.record_turn.q.val();
        self.record_ready.next = self.idle.q.val() && self.record_turn.q.val();
        // (not from `record_ready`: Verilator would see a loop through the TX path's block)
        self.record_taken.d.next = self.record_valid.val() && self.idle.q.val() && self.record_turn.q.val() && !self.reset.val();
        self.record_taken_qp.d.next = self.record_qp.val();
        self.record_taken_psn.d.next = self.record_last_psn.val();
        self.sent_psns.write_address.next = self.record_taken_qp.q.val();
        self.sent_psns.write_enable.next = self.record_taken.q.val();
        self.sent_psns.write_data.next.valid = true;
        self.sent_psns.write_data.next.psn = self.record_taken_psn.q.val();

        // ---- defaults: reads at the operation's addresses, nothing written, nothing taken ----
        self.transfers.read_address.next = self.channel.q.val().get_bits::<CB>(0);
        self.links.read_address.next = self.channel.q.val().get_bits::<CB>(0);
        self.qps.read_address.next = self.qp.q.val();
        self.sent_psns.read_address.next = self.qp.q.val();
        self.links.write_enable.next = false;
        self.tail_channel.next = self.qps.read_data.val().tail;
        self.read_qp.next = self.transfers.read_data.val().qp;
        self.read_head.next = self.qps.read_data.val().head;
        self.links.write_address.next = self.tail_channel.val().get_bits::<CB>(0);
        self.links.write_data.next = self.channel.q.val();
        self.qps.write_enable.next = false;
        self.qps.write_address.next = self.qp.q.val();
        self.qps.write_data.next = self.entry.q.val();
        self.sent_ready.next = false;
        self.ack_ready.next = false;
        self.action_ready.next = false;
        self.clear_ready.next = false;
        self.ignore.d.next = false;
        if self.release_ready.val() {
            self.release_out_valid.d.next = false;
        }
        if self.notice_ready.val() {
            self.notice_out_valid.d.next = false;
        }
        if self.rewind_ready.val() {
            self.rewind_out_valid.d.next = false;
        }
        self.done_at_emit.next = !self.entry.q.val().waiting && !self.clearing.q.val() && (self.failure.q.val() == self.success.val());
        self.progress.next = !self.entry.q.val().acked_valid || (self.progress_order.at_or_before.val() && !self.same.q.val());
        self.ack_qp_high.next = self.ack_qp.val() >= self.qp_limit.val();
        self.decoded_failure.next =
            bit_cast::<COMPLETION_STATUS_BITS, 1>(self.failure_table[0].val().get_bit(self.syndrome.q.val().index()).into())
                | (bit_cast::<COMPLETION_STATUS_BITS, 1>(self.failure_table[1].val().get_bit(self.syndrome.q.val().index()).into())
                    << self.bit_shift[1].val())
                | (bit_cast::<COMPLETION_STATUS_BITS, 1>(self.failure_table[2].val().get_bit(self.syndrome.q.val().index()).into())
                    << self.bit_shift[2].val())
                | (bit_cast::<COMPLETION_STATUS_BITS, 1>(self.failure_table[3].val().get_bit(self.syndrome.q.val().index()).into())
                    << self.bit_shift[3].val());

        if self.idle.q.val() {
            // the readies depend on `idle` (and an ACK's on the sent port), not on their own
            // valid: no combinational loop through a producer that waits
            self.sent_ready.next = true;
            // (no ACK, clear or action in a record's turn or while it is written; from the
            // registers, not a Local: Verilator would see a loop through the TX path's block)
            self.ack_ready.next = !self.sent_valid.val() && !self.record_turn.q.val() && !self.record_taken.q.val();
            self.clear_ready.next =
                !self.sent_valid.val() && !self.ack_valid.val() && !self.record_turn.q.val() && !self.record_taken.q.val();
            self.action_ready.next = !self.sent_valid.val()
                && !self.ack_valid.val()
                && !self.clear_valid.val()
                && !self.record_turn.q.val()
                && !self.record_taken.q.val();
            // an ACK's reads (its choice of state is in the match below; a clear or an action
            // reads in `ActionAddress`, from `qp`)
            if self.sent_valid.val() {
                self.transfers.read_address.next = self.sent_channel.val().get_bits::<CB>(0);
            } else if self.ack_valid.val() {
                self.qps.read_address.next = self.ack_qp.val().get_bits::<QB>(0);
                self.sent_psns.read_address.next = self.ack_qp.val().get_bits::<QB>(0);
            }
        }
        match self.state.q.val() {
            TrackerState::Init => {
                // `qp` counts the QPs: both tables written at it
                self.qps.write_enable.next = true;
                self.qps.write_data.next.waiting = false;
                self.qps.write_data.next.acked_valid = false;
                self.qps.write_data.next.failed = false;
                self.qp.d.next = self.qp.q.val() + 1;
                if self.qp.q.val() == self.last_qp.val() {
                    self.state.d.next = TrackerState::Idle;
                    self.idle.d.next = true;
                    self.initialized.d.next = true;
                }
            }
            TrackerState::Idle => {
                if self.sent_valid.val() {
                    self.channel.d.next = self.sent_channel.val();
                    self.status.d.next = self.sent_status.val();
                    self.state.d.next = TrackerState::SentRead;
                    self.idle.d.next = false;
                } else if self.record_turn.q.val() || self.record_taken.q.val() {
                    // a record's turn, or its write: an ACK's read would miss it
                } else if self.ack_valid.val() {
                    self.qp.d.next = self.ack_qp.val().get_bits::<QB>(0);
                    self.psn.d.next = self.ack_psn.val();
                    self.psn_before.d.next = self.ack_psn.val() - 1;
                    self.syndrome.d.next = self.ack_syndrome.val();
                    if self.ack_qp_high.val() {
                        self.ignore.d.next = true;
                    } else {
                        self.state.d.next = TrackerState::AckRead;
                        self.idle.d.next = false;
                    }
                } else if self.clear_valid.val() {
                    self.qp.d.next = self.clear_qp.val();
                    self.clearing.d.next = true;
                    self.state.d.next = TrackerState::ActionAddress;
                    self.idle.d.next = false;
                } else if self.action_valid.val() {
                    self.qp.d.next = self.action_qp.val().get_bits::<QB>(0);
                    self.action.d.next = self.action_kind.val();
                    self.state.d.next = TrackerState::ActionAddress;
                    self.idle.d.next = false;
                }
            }
            TrackerState::SentRead => {
                self.transfer.d.next = self.transfers.read_data.val();
                if self.transfers.read_data.val().flushed {
                    self.status.d.next = self.flushed.val();
                }
                self.qp.d.next = self.read_qp.val().get_bits::<QB>(0);
                self.qps.read_address.next = self.read_qp.val().get_bits::<QB>(0);
                self.state.d.next = TrackerState::SentQp;
            }
            TrackerState::SentQp => {
                self.state.d.next = TrackerState::Idle;
                self.idle.d.next = true;
                if !self.transfer.q.val().reliable || self.status.q.val() != self.success.val() {
                    self.out_valid.d.next = true;
                    self.out_channel.d.next = self.channel.q.val();
                    self.out_status.d.next = self.status.q.val();
                    self.state.d.next = TrackerState::EmitThenIdle;
                    self.idle.d.next = false;
                } else if self.qps.read_data.val().failed {
                    self.out_valid.d.next = true;
                    self.out_channel.d.next = self.channel.q.val();
                    self.out_status.d.next = self.qps.read_data.val().failed_status;
                    self.state.d.next = TrackerState::EmitThenIdle;
                    self.idle.d.next = false;
                } else {
                    // appended: the entry as read, with this transfer as its tail (and head
                    // when none waits), the old tail linked to it
                    self.qps.write_enable.next = true;
                    self.qps.write_data.next = self.qps.read_data.val();
                    self.qps.write_data.next.waiting = true;
                    self.qps.write_data.next.tail = self.channel.q.val();
                    self.links.write_enable.next = self.qps.read_data.val().waiting;
                    if !self.qps.read_data.val().waiting {
                        self.qps.write_data.next.head = self.channel.q.val();
                        self.qps.write_data.next.head_psn = self.transfer.q.val().last_psn;
                    }
                }
            }
            TrackerState::AckRead => {
                self.entry.d.next = self.qps.read_data.val();
                self.sent_psn.d.next = self.sent_psns.read_data.val();
                self.reserved.d.next = self.reserved_table.val().get_bit(self.syndrome.q.val().index());
                self.failure.d.next = self.decoded_failure.val();
                self.sequence_nak.d.next = self.sequence_table.val().get_bit(self.syndrome.q.val().index());
                self.rnr_nak.d.next = self.rnr_table.val().get_bit(self.syndrome.q.val().index());
                // the PSN it covers: itself (an ACK) or the one before (a NAK)
                self.acknowledged.d.next = self.psn_before.q.val();
                if self.ack_table.val().get_bit(self.syndrome.q.val().index()) {
                    self.acknowledged.d.next = self.psn.q.val();
                }
                // the list's head: its last PSN to the drain's compare, its link read
                self.head_psn.d.next = self.qps.read_data.val().head_psn;
                self.head_is_tail.d.next = self.qps.read_data.val().head == self.qps.read_data.val().tail;
                self.links.read_address.next = self.read_head.val().get_bits::<CB>(0);
                self.state.d.next = TrackerState::AckCompare;
            }
            TrackerState::AckCompare => {
                // the three compares' first stage
                self.same.d.next = self.entry.q.val().acked_psn == self.acknowledged.q.val();
                self.everything.d.next = self.acknowledged.q.val() == self.sent_psn.q.val().psn;
                self.next.d.next = self.links.read_data.val();
                self.channel.d.next = self.entry.q.val().head;
                self.state.d.next = TrackerState::AckWait;
            }
            TrackerState::AckWait => {
                self.state.d.next = TrackerState::AckDecide;
            }
            TrackerState::AckDecide => {
                if !(self.sent_psn.q.val().valid && self.order.at_or_before.val() && !self.reserved.q.val()) {
                    self.ignore.d.next = true;
                    self.state.d.next = TrackerState::Idle;
                    self.idle.d.next = true;
                } else {
                    if self.entry.q.val().acked_valid && !self.progress_order.at_or_before.val() {
                        // stale: a NAK of a PSN before one already acknowledged tells the timer nothing
                        self.sequence_nak.d.next = false;
                        self.rnr_nak.d.next = false;
                    }
                    if !self.progress.val() {
                        self.state.d.next = TrackerState::NakNotice;
                    } else if self.failure.q.val() != self.success.val() {
                        // a fatal NAK: its release and notice come next
                        self.entry.d.next.acked_valid = true;
                        self.entry.d.next.acked_psn = self.acknowledged.q.val();
                        self.state.d.next = TrackerState::NakNotice;
                    } else if !self.release_out_valid.q.val() && !self.notice_out_valid.q.val() {
                        self.entry.d.next.acked_valid = true;
                        self.entry.d.next.acked_psn = self.acknowledged.q.val();
                        self.release_out_valid.d.next = true;
                        self.release_out_qp.d.next = self.qp.q.val();
                        self.release_out_psn.d.next = self.acknowledged.q.val();
                        self.notice_out_valid.d.next = true;
                        self.notice_out_qp.d.next = self.qp.q.val();
                        self.notice_out_kind.d.next = self.event_code[0].val();
                        if self.everything.q.val() {
                            self.notice_out_kind.d.next = self.event_code[1].val();
                        }
                        if self.sequence_nak.q.val() || self.rnr_nak.q.val() {
                            self.state.d.next = TrackerState::NakNotice;
                        } else if self.entry.q.val().waiting && self.drain_order.at_or_before.val() {
                            // the head's compare ran meanwhile: it is covered, it completes
                            // and leaves the list (as in `DrainDecide`)
                            self.out_valid.d.next = true;
                            self.out_channel.d.next = self.channel.q.val();
                            self.out_status.d.next = self.success.val();
                            if self.head_is_tail.q.val() {
                                self.entry.d.next.waiting = false;
                            }
                            self.entry.d.next.head = self.next.q.val();
                            self.channel.d.next = self.next.q.val();
                            self.state.d.next = TrackerState::EmitThenDrain;
                        } else {
                            self.state.d.next = TrackerState::Finish;
                            self.finishing.d.next = true;
                        }
                    }
                }
            }
            TrackerState::NakNotice => {
                if self.failure.q.val() != self.success.val() {
                    // a fatal NAK: everything sent is released, the timer stops
                    if !self.release_out_valid.q.val() && !self.notice_out_valid.q.val() {
                        self.release_out_valid.d.next = true;
                        self.release_out_qp.d.next = self.qp.q.val();
                        self.release_out_psn.d.next = self.sent_psn.q.val().psn;
                        self.notice_out_valid.d.next = true;
                        self.notice_out_qp.d.next = self.qp.q.val();
                        self.notice_out_kind.d.next = self.event_code[1].val();
                        self.channel.d.next = self.entry.q.val().head;
                        self.state.d.next = TrackerState::DrainRead;
                    }
                } else if !(self.sequence_nak.q.val() || self.rnr_nak.q.val()) || !self.notice_out_valid.q.val() {
                    self.channel.d.next = self.entry.q.val().head;
                    self.state.d.next = TrackerState::DrainRead;
                }
                if (self.sequence_nak.q.val() || self.rnr_nak.q.val()) && !self.notice_out_valid.q.val() {
                    self.notice_out_valid.d.next = true;
                    self.notice_out_qp.d.next = self.qp.q.val();
                    self.notice_out_kind.d.next = self.event_code[2].val();
                    if self.rnr_nak.q.val() {
                        self.notice_out_kind.d.next = self.event_code[3].val();
                    }
                    self.notice_out_rnr_timer.d.next = self.syndrome.q.val().get_bits::<5>(0);
                }
            }
            TrackerState::ActionAddress => {
                self.state.d.next = TrackerState::ActionRead;
            }
            TrackerState::ActionRead => {
                self.entry.d.next = self.qps.read_data.val();
                self.sent_psn.d.next = self.sent_psns.read_data.val();
                self.acked_next.d.next = self.qps.read_data.val().acked_psn + 1;
                self.state.d.next = TrackerState::ActionDecide;
            }
            TrackerState::ActionDecide => {
                if self.clearing.q.val() {
                    self.failure.d.next = self.flushed.val();
                    self.fail_all.d.next = true;
                    self.channel.d.next = self.entry.q.val().head;
                    self.state.d.next = TrackerState::DrainRead;
                } else if self.sends_again.val().get_bit(self.action.q.val().index()) {
                    if !self.rewind_out_valid.q.val() {
                        self.rewind_out_valid.d.next = true;
                        self.rewind_out_qp.d.next = self.qp.q.val();
                        self.rewind_out_psn.d.next = self.acked_next.q.val();
                        self.rewind_out_whole.d.next = !self.entry.q.val().acked_valid;
                        self.state.d.next = TrackerState::Idle;
                        self.idle.d.next = true;
                    }
                } else if !self.release_out_valid.q.val() {
                    // retries exhausted: release everything sent, fail every waiting transfer
                    self.release_out_valid.d.next = self.sent_psn.q.val().valid;
                    self.release_out_qp.d.next = self.qp.q.val();
                    self.release_out_psn.d.next = self.sent_psn.q.val().psn;
                    self.failure.d.next = self.retry_exceeded.val();
                    if self.action.q.val() == self.rnr_exhausted.val() {
                        self.failure.d.next = self.receiver_not_ready.val();
                    }
                    self.fail_all.d.next = true;
                    self.channel.d.next = self.entry.q.val().head;
                    self.state.d.next = TrackerState::DrainRead;
                }
            }
            TrackerState::DrainRead => {
                // the head's entry and link are read at `channel` (the defaults)
                if self.entry.q.val().waiting {
                    self.state.d.next = TrackerState::DrainLoad;
                } else {
                    self.state.d.next = TrackerState::Finish;
                    self.finishing.d.next = true;
                }
            }
            TrackerState::DrainLoad => {
                // the head's last PSN at or before the acknowledged PSN
                self.head_psn.d.next = self.transfers.read_data.val().last_psn;
                self.entry.d.next.head_psn = self.transfers.read_data.val().last_psn;
                self.next.d.next = self.links.read_data.val();
                self.state.d.next = TrackerState::DrainCompare;
            }
            TrackerState::DrainCompare => {
                self.state.d.next = TrackerState::DrainWait;
            }
            TrackerState::DrainWait => {
                self.state.d.next = TrackerState::DrainDecide;
            }
            TrackerState::DrainDecide => {
                self.state.d.next = TrackerState::Finish;
                self.finishing.d.next = true;
                if self.drain_order.at_or_before.val() || (self.failure.q.val() != self.success.val()) {
                    self.out_valid.d.next = true;
                    self.out_channel.d.next = self.channel.q.val();
                    self.out_status.d.next = self.success.val();
                    if self.fail_all.q.val() || !self.drain_order.at_or_before.val() {
                        // failed: the rest of the list too
                        self.out_status.d.next = self.failure.q.val();
                        self.fail_all.d.next = true;
                    }
                    // pop the head
                    if self.channel.q.val() == self.entry.q.val().tail {
                        self.entry.d.next.waiting = false;
                    }
                    self.entry.d.next.head = self.next.q.val();
                    self.channel.d.next = self.next.q.val();
                    self.state.d.next = TrackerState::EmitThenDrain;
                    self.finishing.d.next = false;
                }
            }
            TrackerState::Finish => {
                // a failure keeps the QP failed: its later transfers complete with it
                self.qps.write_enable.next = true;
                if self.clearing.q.val() {
                    self.qps.write_data.next.acked_valid = false;
                    self.qps.write_data.next.failed = false;
                    // and the last PSN sent (`clear_sent_psn`, below)
                } else if self.failure.q.val() != self.success.val() {
                    self.qps.write_data.next.failed = true;
                    self.qps.write_data.next.failed_status = self.failure.q.val();
                }
                self.clearing.d.next = false;
                self.fail_all.d.next = false;
                self.state.d.next = TrackerState::Idle;
                self.idle.d.next = true;
                self.finishing.d.next = false;
            }
            TrackerState::EmitThenIdle => {
                if self.cpl_ready.val() {
                    self.out_valid.d.next = false;
                    self.state.d.next = TrackerState::Idle;
                    self.idle.d.next = true;
                }
            }
            TrackerState::EmitThenDrain => {
                // a list emptied without a failure or a clear: the entry is written meanwhile,
                // so the operation ends with the completion taken (no `Finish`)
                self.qps.write_enable.next = self.done_at_emit.val();
                if self.cpl_ready.val() {
                    // the next head's entry and link are read at `channel` (the defaults)
                    self.out_valid.d.next = false;
                    if self.entry.q.val().waiting {
                        self.state.d.next = TrackerState::DrainLoad;
                    } else if self.done_at_emit.val() {
                        self.state.d.next = TrackerState::Idle;
                        self.idle.d.next = true;
                    } else {
                        self.state.d.next = TrackerState::Finish;
                        self.finishing.d.next = true;
                    }
                }
            }
        }
        // `Init` forgets every QP's last PSN sent; a clear's `Finish` its QP's (no record is
        // taken during an operation: the write port is free)
        self.clear_sent_psn.next = !self.initialized.q.val() || (self.finishing.q.val() && self.clearing.q.val());
        // the copies of the QPs' failures: written as `qps` is, from registers only
        self.failure_written.next = !self.initialized.q.val()
            || (self.finishing.q.val() && (self.clearing.q.val() || (self.failure.q.val() != self.success.val())));
        self.failures_for_host.write_enable.next = self.failure_written.val();
        self.failures_for_posts.write_enable.next = self.failure_written.val();
        self.failures_for_host.write_address.next = self.qp.q.val();
        self.failures_for_posts.write_address.next = self.qp.q.val();
        self.failures_for_host.write_data.next = self.success.val();
        self.failures_for_posts.write_data.next = self.success.val();
        if self.initialized.q.val() && !self.clearing.q.val() {
            self.failures_for_host.write_data.next = self.failure.q.val();
            self.failures_for_posts.write_data.next = self.failure.q.val();
        }
        self.failures_for_host.read_address.next = self.status_qp.val();
        self.failures_for_posts.read_address.next = self.post_qp.val();
        self.status_failure.next = self.failures_for_host.read_data.val();
        self.post_qp_failure.next = self.failures_for_posts.read_data.val();
        if self.clear_sent_psn.val() {
            self.sent_psns.write_enable.next = true;
            self.sent_psns.write_address.next = self.qp.q.val();
            self.sent_psns.write_data.next.valid = false;
        }
        if self.reset.val() {
            self.idle.d.next = false;
            self.state.d.next = TrackerState::Init;
            self.initialized.d.next = false;
            self.finishing.d.next = false;
            self.qp.d.next = 0.into();
            self.out_valid.d.next = false;
            self.ignore.d.next = false;
            self.clearing.d.next = false;
            self.fail_all.d.next = false;
            self.release_out_valid.d.next = false;
            self.notice_out_valid.d.next = false;
            self.rewind_out_valid.d.next = false;
        }
        self.init_done.next = self.initialized.q.val();
        self.cpl_valid.next = self.out_valid.q.val();
        self.cpl_channel.next = self.out_channel.q.val();
        self.cpl_status.next = self.out_status.q.val();
        self.ignored.next = self.ignore.q.val();
        self.release_valid.next = self.release_out_valid.q.val();
        self.release_qp.next = self.release_out_qp.q.val();
        self.release_psn.next = self.release_out_psn.q.val();
        self.notice_valid.next = self.notice_out_valid.q.val();
        self.notice_qp.next = self.notice_out_qp.q.val();
        self.notice_kind.next = self.notice_out_kind.q.val();
        self.notice_rnr_timer.next = self.notice_out_rnr_timer.q.val();
        self.rewind_valid.next = self.rewind_out_valid.q.val();
        self.rewind_qp.next = self.rewind_out_qp.q.val();
        self.rewind_psn.next = self.rewind_out_psn.q.val();
        self.rewind_whole.next = self.rewind_out_whole.q.val();
    }
}
