//! The engine's receive side as the host sees it through the register file:
//! [`ReceivePosting`] (a staged receive buffer posted to the responder, its state in
//! `receive_status`) and [`CompletionQueue`] (receive completions kept until the host pops them,
//! the oldest shown in `receive_completion0..2`). `docs/registers.md` gives the host's rules.

use crate::common::counter::EventCounter;
use crate::common::elab::c;
use crate::common::fifo::{Fifo, CAPACITY};
use ferroce_contracts::responder::{receive_state, RECEIVE_COMPLETION, RECEIVE_COMPLETION_BITS, RECEIVE_POST, RECEIVE_POST_BITS};
use rust_hdl::prelude::*;

/// A receive buffer post from the staged words: offered to the responder until taken, pending
/// until its answer. A post while one is pending is ignored and sets `overrun`; a post to a QP
/// beyond `2^QB` is refused at once.
#[derive(LogicBlock)]
pub struct ReceivePosting<const QB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: idle, nothing offered.
    pub reset: Signal<In, Bit>,
    /// The host wrote `receive_post` (one cycle).
    pub post: Signal<In, Bit>,
    /// The staged `RECEIVE_POST` entry.
    pub staged: Signal<In, Bits<RECEIVE_POST_BITS>>,
    /// To the responder: valid.
    pub recv_valid: Signal<Out, Bit>,
    /// To the responder: ready.
    pub recv_ready: Signal<In, Bit>,
    /// To the responder: the QP.
    pub recv_qp: Signal<Out, Bits<QB>>,
    /// To the responder: the buffer's address.
    pub recv_address: Signal<Out, Bits<64>>,
    /// To the responder: the buffer's length.
    pub recv_length: Signal<Out, Bits<32>>,
    /// The responder's answer (one cycle per post taken).
    pub result_valid: Signal<In, Bit>,
    /// The answer: the QP's receive queue was full.
    pub result_full: Signal<In, Bit>,
    /// The `receive_status` register.
    pub status: Signal<Out, Bits<32>>,
    offered: DFF<Bit>,
    state: DFF<Bits<2>>,
    overrun: DFF<Bit>,
    qp: DFF<Bits<QB>>,
    address: DFF<Bits<64>>,
    length: DFF<Bits<32>>,
    staged_qp: Signal<Local, Bits<24>>,
    qp_at: Constant<Bits<8>>,
    address_at: Constant<Bits<8>>,
    length_at: Constant<Bits<8>>,
    qps: Constant<Bits<25>>,
    pending: Constant<Bits<2>>,
    accepted: Constant<Bits<2>>,
    refused: Constant<Bits<2>>,
}

impl<const QB: usize> Default for ReceivePosting<QB> {
    fn default() -> Self {
        let at = |name: &str| c::<8>(RECEIVE_POST.offset(name) as u64);
        assert_eq!(RECEIVE_POST.field("qp").map(|f| f.width), Some(24));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            post: Default::default(),
            staged: Default::default(),
            recv_valid: Default::default(),
            recv_ready: Default::default(),
            recv_qp: Default::default(),
            recv_address: Default::default(),
            recv_length: Default::default(),
            result_valid: Default::default(),
            result_full: Default::default(),
            status: Default::default(),
            offered: Default::default(),
            state: Default::default(),
            overrun: Default::default(),
            qp: Default::default(),
            address: Default::default(),
            length: Default::default(),
            staged_qp: Default::default(),
            qp_at: at("qp"),
            address_at: at("address"),
            length_at: at("length"),
            qps: c::<25>(1 << QB),
            pending: c::<2>(u64::from(receive_state::PENDING)),
            accepted: c::<2>(u64::from(receive_state::ACCEPTED)),
            refused: c::<2>(u64::from(receive_state::REFUSED)),
        }
    }
}

impl<const QB: usize> Logic for ReceivePosting<QB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, offered, state, overrun, qp, address, length);
        self.staged_qp.next = self.staged.val().get_bits::<24>(self.qp_at.val().index());
        // the answer, then the offer taken, then a new post
        if self.result_valid.val() {
            self.state.d.next = self.accepted.val();
            if self.result_full.val() {
                self.state.d.next = self.refused.val();
            }
        }
        if self.recv_ready.val() {
            self.offered.d.next = false;
        }
        if self.post.val() {
            if self.state.q.val() == self.pending.val() {
                self.overrun.d.next = true;
            } else if bit_cast::<25, 24>(self.staged_qp.val()) >= self.qps.val() {
                self.state.d.next = self.refused.val();
            } else {
                self.offered.d.next = true;
                self.state.d.next = self.pending.val();
                self.overrun.d.next = false;
                self.qp.d.next = self.staged_qp.val().get_bits::<QB>(0);
                self.address.d.next = self.staged.val().get_bits::<64>(self.address_at.val().index());
                self.length.d.next = self.staged.val().get_bits::<32>(self.length_at.val().index());
            }
        }
        if self.reset.val() {
            self.offered.d.next = false;
            self.state.d.next = 0.into();
            self.overrun.d.next = false;
        }
        self.recv_valid.next = self.offered.q.val();
        self.recv_qp.next = self.qp.q.val();
        self.recv_address.next = self.address.q.val();
        self.recv_length.next = self.length.q.val();
        self.status.next = bit_cast::<32, 2>(self.state.q.val()).replace_bit(9, self.overrun.q.val());
    }
}

mod completion {
    // the methods `LogicStruct` derives have no docs
    #![allow(missing_docs)]
    use rust_hdl::prelude::*;

    /// A receive completion as the queue keeps it (the fields of `RECEIVE_COMPLETION` but `valid`
    /// and `overflow`).
    #[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
    pub struct ReceiveCompletion {
        /// 0: SEND, 1: WRITE with immediate.
        pub kind: Bit,
        /// `ReceiveStatus` code.
        pub status: Bits<2>,
        /// Solicited event.
        pub solicited: Bit,
        /// The message carried an immediate.
        pub immediate_valid: Bit,
        /// The QP.
        pub qp: Bits<24>,
        /// The immediate.
        pub immediate: Bits<32>,
        /// The message's bytes.
        pub length: Bits<32>,
    }
}
pub use completion::ReceiveCompletion;

/// Receive completions in arrival order ([`CAPACITY`] in LUTRAM); the oldest is shown packed as
/// `RECEIVE_COMPLETION` until popped. A completion that finds the queue full is lost: counted,
/// and `overflow` is set until cleared.
#[derive(LogicBlock)]
pub struct CompletionQueue {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empty, no overflow, count cleared.
    pub reset: Signal<In, Bit>,
    /// A completion arrives (one cycle).
    pub push: Signal<In, Bit>,
    /// The completion.
    pub push_value: Signal<In, ReceiveCompletion>,
    /// The host wrote `receive_completion_pop` (one cycle).
    pub pop_write: Signal<In, Bit>,
    /// The value written (bit 0: pop, bit 1: clear the overflow flag).
    pub pop_data: Signal<In, Bits<32>>,
    /// The oldest completion, packed (`RECEIVE_COMPLETION`).
    pub head: Signal<Out, Bits<RECEIVE_COMPLETION_BITS>>,
    /// Completions lost.
    pub lost: Signal<Out, Bits<32>>,
    completions: Fifo<ReceiveCompletion>,
    lost_count: EventCounter,
    overflow: DFF<Bit>,
    full: Signal<Local, Bit>,
    oldest: Signal<Local, ReceiveCompletion>,
    /// The oldest completion's fields of more than one bit, packed.
    fields: Signal<Local, Bits<RECEIVE_COMPLETION_BITS>>,
    full_at: Constant<Bits<8>>,
    /// Where each field goes in the packed completion.
    at: [Constant<Bits<7>>; 9],
}

/// The fields of `RECEIVE_COMPLETION` in the order of [`CompletionQueue`]'s `at`.
const PACKED_ORDER: [&str; 9] = [
    "valid",
    "overflow",
    "kind",
    "status",
    "solicited",
    "immediate_valid",
    "qp",
    "immediate",
    "length",
];

impl Default for CompletionQueue {
    fn default() -> Self {
        for (name, width) in PACKED_ORDER.iter().zip([1, 1, 1, 2, 1, 1, 24, 32, 32]) {
            assert_eq!(RECEIVE_COMPLETION.field(name).map(|f| f.width), Some(width), "{name}");
        }
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            push_value: Default::default(),
            pop_write: Default::default(),
            pop_data: Default::default(),
            head: Default::default(),
            lost: Default::default(),
            completions: Default::default(),
            lost_count: Default::default(),
            overflow: Default::default(),
            full: Default::default(),
            oldest: Default::default(),
            fields: Default::default(),
            full_at: c::<8>(CAPACITY as u64 - 1),
            at: PACKED_ORDER.map(|name| c::<7>(RECEIVE_COMPLETION.offset(name) as u64)),
        }
    }
}

impl Logic for CompletionQueue {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, overflow);
        clock!(self, clock, completions, lost_count);
        self.completions.reset.next = self.reset.val();
        self.lost_count.reset.next = self.reset.val();
        self.full.next = self.completions.fill.val().get_bit(self.full_at.val().index());
        self.completions.push.next = self.push.val() & !self.full.val();
        self.completions.push_value.next = self.push_value.val();
        self.completions.pop.next = self.pop_write.val() & self.pop_data.val().get_bit(0) & self.completions.head_valid.val();
        self.lost_count.increment.next = self.push.val() & self.full.val();
        if self.pop_write.val() & self.pop_data.val().get_bit(1) {
            self.overflow.d.next = false;
        }
        if self.push.val() & self.full.val() {
            self.overflow.d.next = true;
        }
        if self.reset.val() {
            self.overflow.d.next = false;
        }
        self.lost.next = self.lost_count.count.val();
        self.oldest.next = self.completions.head.val();
        self.fields.next = (bit_cast::<RECEIVE_COMPLETION_BITS, 2>(self.oldest.val().status) << self.at[3].val())
            | (bit_cast::<RECEIVE_COMPLETION_BITS, 24>(self.oldest.val().qp) << self.at[6].val())
            | (bit_cast::<RECEIVE_COMPLETION_BITS, 32>(self.oldest.val().immediate) << self.at[7].val())
            | (bit_cast::<RECEIVE_COMPLETION_BITS, 32>(self.oldest.val().length) << self.at[8].val());
        self.head.next = self
            .fields
            .val()
            .replace_bit(self.at[0].val().index(), self.completions.head_valid.val())
            .replace_bit(self.at[1].val().index(), self.overflow.q.val())
            .replace_bit(self.at[2].val().index(), self.oldest.val().kind)
            .replace_bit(self.at[4].val().index(), self.oldest.val().solicited)
            .replace_bit(self.at[5].val().index(), self.oldest.val().immediate_valid);
    }
}
