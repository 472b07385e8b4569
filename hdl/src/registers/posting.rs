//! [`Posting`]: the doorbell rule and the post stream of the register file.
//!
//! The host writes the eight descriptor words (the register file keeps them and tells this
//! block which were written), then the doorbell. A doorbell while a post is pending sets
//! `overrun`; before every word was written since the last post, `incomplete`; otherwise the
//! staged words are copied into the post register in that cycle and offered on `post_*` until
//! taken, and the post is pending until the transfer table's answer (`result_*`): accepted
//! (`accept` pulses, the channel becomes busy) or refused with its code. `status` is the
//! `post_status` register.

use crate::common::elab::c;
use ferroce_contracts::regs::PostState;
use ferroce_contracts::tx::{POST_BITS, POST_WORDS};
use rust_hdl::prelude::*;

/// The posting state and the post stream.
#[derive(LogicBlock)]
pub struct Posting {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: no post, no errors, no word written.
    pub reset: Signal<In, Bit>,
    /// Bit w: descriptor word w is written this cycle.
    pub words_written_now: Signal<In, Bits<POST_WORDS>>,
    /// The staged descriptor (the eight words as they are).
    pub staged: Signal<In, Bits<POST_BITS>>,
    /// A doorbell write this cycle.
    pub doorbell: Signal<In, Bit>,
    /// W1C this cycle: bit 0 clears `incomplete`, bit 1 `overrun`.
    pub clear: Signal<In, Bits<2>>,
    /// Post stream: valid.
    pub post_valid: Signal<Out, Bit>,
    /// Post stream: ready.
    pub post_ready: Signal<In, Bit>,
    /// Post stream: the entry.
    pub post_entry: Signal<Out, Bits<POST_BITS>>,
    /// The transfer table's answer: valid (one cycle).
    pub result_valid: Signal<In, Bit>,
    /// The answer's code (0 accepted).
    pub result_code: Signal<In, Bits<3>>,
    /// The pending post is accepted this cycle.
    pub accept: Signal<Out, Bit>,
    /// The `post_status` register's value.
    pub status: Signal<Out, Bits<32>>,
    offered: DFF<Bit>,
    entry: DFF<Bits<POST_BITS>>,
    state: DFF<Bits<2>>,
    code: DFF<Bits<3>>,
    incomplete: DFF<Bit>,
    overrun: DFF<Bit>,
    words_written: DFF<Bits<POST_WORDS>>,
    idle: Constant<Bits<2>>,
    pending: Constant<Bits<2>>,
    accepted: Constant<Bits<2>>,
    refused: Constant<Bits<2>>,
}

impl Default for Posting {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            words_written_now: Default::default(),
            staged: Default::default(),
            doorbell: Default::default(),
            clear: Default::default(),
            post_valid: Default::default(),
            post_ready: Default::default(),
            post_entry: Default::default(),
            result_valid: Default::default(),
            result_code: Default::default(),
            accept: Default::default(),
            status: Default::default(),
            offered: Default::default(),
            entry: Default::default(),
            state: Default::default(),
            code: Default::default(),
            incomplete: Default::default(),
            overrun: Default::default(),
            words_written: Default::default(),
            idle: c::<2>(PostState::Idle as u64),
            pending: c::<2>(PostState::Pending as u64),
            accepted: c::<2>(PostState::Accepted as u64),
            refused: c::<2>(PostState::Refused as u64),
        }
    }
}

impl Logic for Posting {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, offered, entry, state, code, incomplete, overrun, words_written);
        self.words_written.d.next = self.words_written.q.val() | self.words_written_now.val();
        self.incomplete.d.next = self.incomplete.q.val() & !self.clear.val().get_bit(0);
        self.overrun.d.next = self.overrun.q.val() & !self.clear.val().get_bit(1);
        // the doorbell rule
        if self.doorbell.val() {
            if self.state.q.val() == self.pending.val() {
                self.overrun.d.next = true;
            } else if !self.words_written.q.val().all() {
                self.incomplete.d.next = true;
            } else {
                self.offered.d.next = true;
                self.entry.d.next = self.staged.val();
                self.state.d.next = self.pending.val();
                self.code.d.next = 0.into();
                self.words_written.d.next = 0.into();
            }
        }
        // the offer is held until taken; the answer ends the post
        if self.offered.q.val() & self.post_ready.val() {
            self.offered.d.next = false;
        }
        self.accept.next = false;
        if self.result_valid.val() & (self.state.q.val() == self.pending.val()) {
            self.code.d.next = self.result_code.val();
            if self.result_code.val().any() {
                self.state.d.next = self.refused.val();
            } else {
                self.state.d.next = self.accepted.val();
                self.accept.next = true;
            }
        }
        self.post_valid.next = self.offered.q.val();
        self.post_entry.next = self.entry.q.val();
        self.status.next = (bit_cast::<32, 2>(self.state.q.val())
            | (bit_cast::<32, 3>(self.code.q.val()) << 2)
            | (bit_cast::<32, POST_WORDS>(self.words_written.q.val()) << 16))
            .replace_bit(8, self.incomplete.q.val())
            .replace_bit(9, self.overrun.q.val());
        if self.reset.val() {
            self.offered.d.next = false;
            self.state.d.next = self.idle.val();
            self.code.d.next = 0.into();
            self.incomplete.d.next = false;
            self.overrun.d.next = false;
            self.words_written.d.next = 0.into();
        }
    }
}
