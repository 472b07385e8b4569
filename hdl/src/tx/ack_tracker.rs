//! [`AckTracker`]: RC completion on acknowledgement. A UC transfer completes when its last frame
//! has left; an RC transfer then waits until the responder acknowledges its last PSN (the
//! model and its rules: `ferroce_models::tx::acknowledge`).
//!
//! ```text
//!  packet tap (every request descriptor the generator takes) ─► transfer RAM (per channel:
//!                                                               QP, last PSN, RC) and sent PSN
//!                                                               RAM (per QP: window)
//!  sent (the generator's completion) ─┐
//!  ack (ACK/NAK: QP, PSN, syndrome) ──┴─► one operation at a time ─► cpl (channel, status)
//!                                         waiting lists (per QP: head, tail, failure) + links
//! ```
//!
//! - A QP's waiting transfers are a linked list through the channels (a channel has one
//!   transfer at a time): per QP the head and tail channel, per channel the next one.
//! - A sent transfer is taken before an ACK: its last frame left before any answer to it could
//!   come back, so an ACK never finds the transfer it covers still on its way here.
//! - An ACK or NAK is checked against the window (at or before the QP's last request PSN) and
//!   its syndrome decoded (a table over the 256 syndromes, from the contract); then the list is
//!   drained from the head while the head's last PSN is covered, and a NAK's failure completes
//!   the next transfer (or waits in the QP's entry for it).
//! - Each step of an operation is a state; a compare of two PSNs takes two states of its own
//!   ([`PsnOrder`]'s two stages) before the state that decides on it.

use crate::common::elab::{bits_from, c};
use crate::common::psn::PsnOrder;
use ferroce_contracts::responder::Syndrome;
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
    }

    /// A QP's waiting list and kept failure.
    #[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
    pub struct QpEntry {
        /// Transfers wait.
        pub waiting: Bit,
        /// The oldest waiting transfer's channel.
        pub head: Bits<16>,
        /// The newest waiting transfer's channel.
        pub tail: Bits<16>,
        /// A NAK failed a transfer not yet sent: `failure_status` for the next one.
        pub failure_valid: Bit,
        /// The failure's `CompletionStatus` code.
        pub failure_status: Bits<4>,
        /// The failing NAK's PSN.
        pub failure_psn: Bits<24>,
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
    /// Sent: the QP's entry is read; the kept failure's PSN and the transfer's last PSN go to
    /// the compare.
    SentQp,
    /// Sent: the compare's first stage.
    SentCompare,
    /// Sent: the compare's second stage.
    SentWait,
    /// Sent: completed with the kept failure, or appended to the QP's list.
    SentDecide,
    /// ACK: the QP's entry and sent PSN are read, the syndrome decoded; the window compare.
    AckRead,
    /// ACK: the compare's first stage.
    AckCompare,
    /// ACK: the compare's second stage.
    AckWait,
    /// ACK: ignored, or the drain starts.
    AckDecide,
    /// Drain: the head's transfer entry and link are read (or the drain ends).
    DrainRead,
    /// Drain: the head's last PSN and the acknowledged PSN go to the compare.
    DrainLoad,
    /// Drain: the compare's first stage.
    DrainCompare,
    /// Drain: the compare's second stage.
    DrainWait,
    /// Drain: the head completes (covered, or failed by the NAK), or the drain ends.
    DrainDecide,
    /// Drain: the QP's entry is written back.
    Finish,
    /// A completion waits for `cpl_ready`; then `Idle`.
    EmitThenIdle,
    /// A completion waits for `cpl_ready`; then the drain goes on.
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
    /// A request descriptor was taken by the generator (responses are not taps). Its entries
    /// are written two cycles later: its transfer's `sent` must come after that.
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

    /// The packet tap, registered on its way to the RAMs.
    tap_valid: DFF<Bit>,
    tap_channel: DFF<Bits<16>>,
    tap_qp: DFF<Bits<24>>,
    tap_psn: DFF<Bits<24>>,
    tap_last: DFF<Bit>,
    tap_reliable: DFF<Bit>,
    transfers: RAM<TransferEntry, CB>,
    links: RAM<Bits<16>, CB>,
    qps: RAM<QpEntry, QB>,
    sent_psns: RAM<SentPsn, QB>,
    state: DFF<TrackerState>,
    /// The QP cleared next while `Init`.
    init_index: DFF<Bits<QB>>,
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
    /// The syndrome, decoded: reserved; an ACK; the failure's status (0: none).
    reserved: DFF<Bit>,
    is_ack: DFF<Bit>,
    failure: DFF<Bits<COMPLETION_STATUS_BITS>>,
    /// The PSN the ACK or NAK covers (itself, or the one before a NAK).
    acknowledged: DFF<Bits<24>>,
    sent_psn: DFF<SentPsn>,
    /// The PSN compare (two cycles from `first`, `second` to `at_or_before`).
    order: PsnOrder,
    first: DFF<Bits<24>>,
    second: DFF<Bits<24>>,
    /// The head's link (its successor in the list).
    next: DFF<Bits<16>>,
    out_valid: DFF<Bit>,
    out_channel: DFF<Bits<16>>,
    out_status: DFF<Bits<COMPLETION_STATUS_BITS>>,
    ignore: DFF<Bit>,
    ack_qp_high: Signal<Local, Bit>,
    tail_channel: Signal<Local, Bits<16>>,
    read_qp: Signal<Local, Bits<16>>,
    decoded_failure: Signal<Local, Bits<COMPLETION_STATUS_BITS>>,
    /// Over the 256 syndromes: bit `s` is set when `s` is reserved.
    reserved_table: Constant<Bits<256>>,
    /// Over the 256 syndromes: bit `s` is set when `s` is an ACK.
    ack_table: Constant<Bits<256>>,
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
            tap_valid: Default::default(),
            tap_channel: Default::default(),
            tap_qp: Default::default(),
            tap_psn: Default::default(),
            tap_last: Default::default(),
            tap_reliable: Default::default(),
            transfers: Default::default(),
            links: Default::default(),
            qps: Default::default(),
            sent_psns: Default::default(),
            state: Default::default(),
            init_index: Default::default(),
            channel: Default::default(),
            status: Default::default(),
            transfer: Default::default(),
            qp: Default::default(),
            entry: Default::default(),
            psn: Default::default(),
            psn_before: Default::default(),
            syndrome: Default::default(),
            reserved: Default::default(),
            is_ack: Default::default(),
            failure: Default::default(),
            acknowledged: Default::default(),
            sent_psn: Default::default(),
            order: Default::default(),
            first: Default::default(),
            second: Default::default(),
            next: Default::default(),
            out_valid: Default::default(),
            out_channel: Default::default(),
            out_status: Default::default(),
            ignore: Default::default(),
            ack_qp_high: Default::default(),
            tail_channel: Default::default(),
            read_qp: Default::default(),
            decoded_failure: Default::default(),
            reserved_table: syndrome_table(|s| Syndrome::decode(s).is_none()),
            ack_table: syndrome_table(|s| matches!(Syndrome::decode(s), Some(Syndrome::Ack { .. }))),
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
            tap_channel,
            tap_qp,
            tap_psn,
            tap_last,
            tap_reliable,
            state,
            init_index,
            channel,
            status,
            transfer,
            qp,
            entry,
            psn,
            psn_before,
            syndrome,
            reserved,
            is_ack,
            failure,
            acknowledged,
            sent_psn,
            first,
            second,
            next,
            out_valid,
            out_channel,
            out_status,
            ignore
        );
        self.transfers.read_clock.next = self.clock.val();
        self.transfers.write_clock.next = self.clock.val();
        self.links.read_clock.next = self.clock.val();
        self.links.write_clock.next = self.clock.val();
        self.qps.read_clock.next = self.clock.val();
        self.qps.write_clock.next = self.clock.val();
        self.sent_psns.read_clock.next = self.clock.val();
        self.sent_psns.write_clock.next = self.clock.val();
        self.order.clock.next = self.clock.val();
        self.order.first.next = self.first.q.val();
        self.order.second.next = self.second.q.val();

        // ---- the packet tap (registered): a transfer's last packet, a QP's last request PSN ----
        self.tap_valid.d.next = self.packet_valid.val() && !self.reset.val();
        self.tap_channel.d.next = self.packet_channel.val();
        self.tap_qp.d.next = self.packet_qp.val();
        self.tap_psn.d.next = self.packet_psn.val();
        self.tap_last.d.next = self.packet_last.val();
        self.tap_reliable.d.next = self.packet_reliable.val();
        self.transfers.write_address.next = self.tap_channel.q.val().get_bits::<CB>(0);
        self.transfers.write_enable.next = self.tap_valid.q.val() && self.tap_last.q.val();
        self.transfers.write_data.next.qp = self.tap_qp.q.val().get_bits::<16>(0);
        self.transfers.write_data.next.last_psn = self.tap_psn.q.val();
        self.transfers.write_data.next.reliable = self.tap_reliable.q.val();
        self.sent_psns.write_address.next = self.tap_qp.q.val().get_bits::<QB>(0);
        self.sent_psns.write_enable.next = self.tap_valid.q.val();
        self.sent_psns.write_data.next.valid = true;
        self.sent_psns.write_data.next.psn = self.tap_psn.q.val();

        // ---- defaults: reads at the operation's addresses, nothing written, nothing taken ----
        self.transfers.read_address.next = self.channel.q.val().get_bits::<CB>(0);
        self.links.read_address.next = self.channel.q.val().get_bits::<CB>(0);
        self.qps.read_address.next = self.qp.q.val();
        self.sent_psns.read_address.next = self.qp.q.val();
        self.links.write_enable.next = false;
        self.tail_channel.next = self.entry.q.val().tail;
        self.read_qp.next = self.transfers.read_data.val().qp;
        self.links.write_address.next = self.tail_channel.val().get_bits::<CB>(0);
        self.links.write_data.next = self.channel.q.val();
        self.qps.write_enable.next = false;
        self.qps.write_address.next = self.qp.q.val();
        self.qps.write_data.next = self.entry.q.val();
        self.sent_ready.next = false;
        self.ack_ready.next = false;
        self.ignore.d.next = false;
        self.ack_qp_high.next = self.ack_qp.val() >= self.qp_limit.val();
        self.decoded_failure.next =
            bit_cast::<COMPLETION_STATUS_BITS, 1>(self.failure_table[0].val().get_bit(self.syndrome.q.val().index()).into())
                | (bit_cast::<COMPLETION_STATUS_BITS, 1>(self.failure_table[1].val().get_bit(self.syndrome.q.val().index()).into())
                    << self.bit_shift[1].val())
                | (bit_cast::<COMPLETION_STATUS_BITS, 1>(self.failure_table[2].val().get_bit(self.syndrome.q.val().index()).into())
                    << self.bit_shift[2].val())
                | (bit_cast::<COMPLETION_STATUS_BITS, 1>(self.failure_table[3].val().get_bit(self.syndrome.q.val().index()).into())
                    << self.bit_shift[3].val());

        match self.state.q.val() {
            TrackerState::Init => {
                self.qps.write_enable.next = true;
                self.qps.write_address.next = self.init_index.q.val();
                self.qps.write_data.next.waiting = false;
                self.qps.write_data.next.failure_valid = false;
                self.sent_psns.write_enable.next = true;
                self.sent_psns.write_address.next = self.init_index.q.val();
                self.sent_psns.write_data.next.valid = false;
                self.init_index.d.next = self.init_index.q.val() + 1;
                if self.init_index.q.val() == self.last_qp.val() {
                    self.state.d.next = TrackerState::Idle;
                }
            }
            TrackerState::Idle => {
                // the readies depend on the state (and an ACK's on the sent port), not on
                // their own valid: no combinational loop through a producer that waits
                self.sent_ready.next = true;
                self.ack_ready.next = !self.sent_valid.val();
                if self.sent_valid.val() {
                    self.channel.d.next = self.sent_channel.val();
                    self.status.d.next = self.sent_status.val();
                    self.transfers.read_address.next = self.sent_channel.val().get_bits::<CB>(0);
                    self.state.d.next = TrackerState::SentRead;
                } else if self.ack_valid.val() {
                    self.qp.d.next = self.ack_qp.val().get_bits::<QB>(0);
                    self.psn.d.next = self.ack_psn.val();
                    self.psn_before.d.next = self.ack_psn.val() - 1;
                    self.syndrome.d.next = self.ack_syndrome.val();
                    self.qps.read_address.next = self.ack_qp.val().get_bits::<QB>(0);
                    self.sent_psns.read_address.next = self.ack_qp.val().get_bits::<QB>(0);
                    if self.ack_qp_high.val() {
                        self.ignore.d.next = true;
                    } else {
                        self.state.d.next = TrackerState::AckRead;
                    }
                }
            }
            TrackerState::SentRead => {
                self.transfer.d.next = self.transfers.read_data.val();
                self.qp.d.next = self.read_qp.val().get_bits::<QB>(0);
                self.qps.read_address.next = self.read_qp.val().get_bits::<QB>(0);
                self.state.d.next = TrackerState::SentQp;
            }
            TrackerState::SentQp => {
                self.entry.d.next = self.qps.read_data.val();
                // the kept failure's PSN at or before the transfer's last PSN
                self.first.d.next = self.qps.read_data.val().failure_psn;
                self.second.d.next = self.transfer.q.val().last_psn;
                self.state.d.next = TrackerState::SentCompare;
                if !self.transfer.q.val().reliable || self.status.q.val() != self.success.val() {
                    self.out_valid.d.next = true;
                    self.out_channel.d.next = self.channel.q.val();
                    self.out_status.d.next = self.status.q.val();
                    self.state.d.next = TrackerState::EmitThenIdle;
                }
            }
            TrackerState::SentCompare => {
                self.state.d.next = TrackerState::SentWait;
            }
            TrackerState::SentWait => {
                self.state.d.next = TrackerState::SentDecide;
            }
            TrackerState::SentDecide => {
                self.qps.write_enable.next = true;
                if self.entry.q.val().failure_valid && self.order.at_or_before.val() {
                    self.qps.write_data.next.failure_valid = false;
                    self.out_valid.d.next = true;
                    self.out_channel.d.next = self.channel.q.val();
                    self.out_status.d.next = self.entry.q.val().failure_status;
                    self.state.d.next = TrackerState::EmitThenIdle;
                } else {
                    self.links.write_enable.next = self.entry.q.val().waiting;
                    self.qps.write_data.next.waiting = true;
                    self.qps.write_data.next.tail = self.channel.q.val();
                    if !self.entry.q.val().waiting {
                        self.qps.write_data.next.head = self.channel.q.val();
                    }
                    self.state.d.next = TrackerState::Idle;
                }
            }
            TrackerState::AckRead => {
                self.entry.d.next = self.qps.read_data.val();
                self.sent_psn.d.next = self.sent_psns.read_data.val();
                self.reserved.d.next = self.reserved_table.val().get_bit(self.syndrome.q.val().index());
                self.is_ack.d.next = self.ack_table.val().get_bit(self.syndrome.q.val().index());
                self.failure.d.next = self.decoded_failure.val();
                // in the window: the PSN at or before the last request PSN sent
                self.first.d.next = self.psn.q.val();
                self.second.d.next = self.sent_psns.read_data.val().psn;
                self.state.d.next = TrackerState::AckCompare;
            }
            TrackerState::AckCompare => {
                self.acknowledged.d.next = self.psn_before.q.val();
                if self.is_ack.q.val() {
                    self.acknowledged.d.next = self.psn.q.val();
                }
                self.state.d.next = TrackerState::AckWait;
            }
            TrackerState::AckWait => {
                self.state.d.next = TrackerState::AckDecide;
            }
            TrackerState::AckDecide => {
                if self.sent_psn.q.val().valid && self.order.at_or_before.val() && !self.reserved.q.val() {
                    self.channel.d.next = self.entry.q.val().head;
                    self.state.d.next = TrackerState::DrainRead;
                } else {
                    self.ignore.d.next = true;
                    self.state.d.next = TrackerState::Idle;
                }
            }
            TrackerState::DrainRead => {
                // the head's entry and link are read at `channel` (the defaults)
                if self.entry.q.val().waiting {
                    self.state.d.next = TrackerState::DrainLoad;
                } else {
                    self.state.d.next = TrackerState::Finish;
                }
            }
            TrackerState::DrainLoad => {
                // the head's last PSN at or before the acknowledged PSN
                self.first.d.next = self.transfers.read_data.val().last_psn;
                self.second.d.next = self.acknowledged.q.val();
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
                if self.order.at_or_before.val() || (self.failure.q.val() != self.success.val()) {
                    self.out_valid.d.next = true;
                    self.out_channel.d.next = self.channel.q.val();
                    self.out_status.d.next = self.success.val();
                    if !self.order.at_or_before.val() {
                        // the NAK's failure, once
                        self.out_status.d.next = self.failure.q.val();
                        self.failure.d.next = self.success.val();
                    }
                    // pop the head
                    if self.channel.q.val() == self.entry.q.val().tail {
                        self.entry.d.next.waiting = false;
                    }
                    self.entry.d.next.head = self.next.q.val();
                    self.channel.d.next = self.next.q.val();
                    self.state.d.next = TrackerState::EmitThenDrain;
                }
            }
            TrackerState::Finish => {
                // a failure with nothing waiting is kept for the next transfer of the QP
                self.qps.write_enable.next = true;
                if self.failure.q.val() != self.success.val() {
                    self.qps.write_data.next.failure_valid = true;
                    self.qps.write_data.next.failure_status = self.failure.q.val();
                    self.qps.write_data.next.failure_psn = self.psn.q.val();
                }
                self.state.d.next = TrackerState::Idle;
            }
            TrackerState::EmitThenIdle => {
                if self.cpl_ready.val() {
                    self.out_valid.d.next = false;
                    self.state.d.next = TrackerState::Idle;
                }
            }
            TrackerState::EmitThenDrain => {
                if self.cpl_ready.val() {
                    self.out_valid.d.next = false;
                    self.state.d.next = TrackerState::DrainRead;
                }
            }
        }
        if self.reset.val() {
            self.state.d.next = TrackerState::Init;
            self.init_index.d.next = 0.into();
            self.out_valid.d.next = false;
            self.ignore.d.next = false;
        }
        self.init_done.next = self.state.q.val() != TrackerState::Init;
        self.cpl_valid.next = self.out_valid.q.val();
        self.cpl_channel.next = self.out_channel.q.val();
        self.cpl_status.next = self.out_status.q.val();
        self.ignored.next = self.ignore.q.val();
    }
}
