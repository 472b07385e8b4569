//! [`PayloadWriter`]: the RX payloads, held until the responder decides, then written to memory
//! as DataMover-style commands and data, or discarded.
//!
//! ```text
//!  s_pay (RxFront m_pay) ─► PayloadBuffer (block RAM, two 4 KiB payloads) ─┬─► m_wr (payload beats)
//!  s_dec (decision: write, address, length) ─► Idle ─► Write ─► m_cmd ─────┘   (or discarded)
//! ```
//!
//! Per decision, in order: `length` 0 takes no payload; otherwise the next payload is written
//! (`write` = 1: one command with the address and length, and the payload's beats, from lane 0,
//! `tkeep` all ones but on the last beat, `tlast` on it) or discarded. The payload's own
//! `tkeep` and drop mark are not read: the decision, made from the packet's final record, is
//! authoritative, and its length says the last beat's bytes.
//!
//! The buffer lets `RxFront` deliver the next payloads while the responder decides (7 cycles a
//! packet). A decision is taken in one cycle; the payload then leaves one beat a cycle as
//! `m_wr_tready` allows; the command waits for `m_cmd_ready` beside it.
//!
//! `retired` pulses once per decision, in order, when the writer is done with it: a decision
//! without payload when it is taken, a discarded payload when its last beat is dropped, a
//! written one when memory has taken both its command and its last beat. The engine holds each
//! decision's ACK and receive completion until then, so neither the peer nor the host hears of
//! a payload before memory has it.

use crate::common::counter::EventCounter;
use crate::common::elab::c;
use crate::tx::payload_buffer::PayloadBuffer;
use rust_hdl::prelude::*;

/// Where the writer is.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum WriterState {
    /// Waiting for a decision.
    Idle,
    /// A payload leaves for memory (its command too, if not yet taken).
    Write,
    /// A payload is dropped from the buffer.
    Discard,
}

/// The payload writer of a `W`-bit stream (`K = W / 8` bytes per beat).
#[derive(LogicBlock)]
pub struct PayloadWriter<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: forgets every payload and the decision in progress, clears
    /// the counters.
    pub reset: Signal<In, Bit>,
    /// Payloads from `RxFront`: valid.
    pub s_pay_tvalid: Signal<In, Bit>,
    /// Payloads: ready (room in the buffer).
    pub s_pay_tready: Signal<Out, Bit>,
    /// Payloads: data, from lane 0.
    pub s_pay_tdata: Signal<In, Bits<W>>,
    /// Payloads: keep (not read: the decision's length says the bytes).
    pub s_pay_tkeep: Signal<In, Bits<K>>,
    /// Payloads: the payload's last beat.
    pub s_pay_tlast: Signal<In, Bit>,
    /// Payloads: the drop mark (not read: the decision is authoritative).
    pub s_pay_tuser: Signal<In, Bit>,
    /// Decisions: valid.
    pub s_dec_valid: Signal<In, Bit>,
    /// Decisions: ready.
    pub s_dec_ready: Signal<Out, Bit>,
    /// Decisions: write the payload (else discard it).
    pub s_dec_write: Signal<In, Bit>,
    /// Decisions: where its first byte goes.
    pub s_dec_address: Signal<In, Bits<64>>,
    /// Decisions: the payload's bytes (0: no payload).
    pub s_dec_length: Signal<In, Bits<16>>,
    /// Write commands: valid.
    pub m_cmd_valid: Signal<Out, Bit>,
    /// Write commands: ready.
    pub m_cmd_ready: Signal<In, Bit>,
    /// Write commands: address of the first byte.
    pub m_cmd_address: Signal<Out, Bits<64>>,
    /// Write commands: bytes.
    pub m_cmd_length: Signal<Out, Bits<16>>,
    /// Write data: valid.
    pub m_wr_tvalid: Signal<Out, Bit>,
    /// Write data: ready.
    pub m_wr_tready: Signal<In, Bit>,
    /// Write data: data, from lane 0.
    pub m_wr_tdata: Signal<Out, Bits<W>>,
    /// Write data: keep (all ones but on the last beat).
    pub m_wr_tkeep: Signal<Out, Bits<K>>,
    /// Write data: the payload's last beat.
    pub m_wr_tlast: Signal<Out, Bit>,
    /// A decision is done with (one pulse per decision, in order; see the module's text).
    pub retired: Signal<Out, Bit>,
    /// Payloads written.
    pub cnt_written: Signal<Out, Bits<32>>,
    /// Payloads discarded.
    pub cnt_discarded: Signal<Out, Bits<32>>,

    buffer: PayloadBuffer<W, K>,
    written: EventCounter,
    discarded: EventCounter,
    state: DFF<WriterState>,
    command_pending: DFF<Bit>,
    /// The written payload's last beat has left (the command may still wait).
    data_done: DFF<Bit>,
    /// The payload's last beat leaves now or has left.
    data_finished: Signal<Local, Bit>,
    /// The command is taken now or was taken.
    command_done: Signal<Local, Bit>,
    address: DFF<Bits<64>>,
    length: DFF<Bits<16>>,
    last_keep: DFF<Bits<K>>,
    /// The head beat leaves this cycle.
    popping: Signal<Local, Bit>,
    /// Ones from bit `length mod K` up.
    ones_above_remainder: Signal<Local, Bits<K>>,
    /// The keep bits of the decision's last beat: `length mod K` bytes, all when 0.
    keep_of_remainder: Signal<Local, Bits<K>>,
    all_ones: Constant<Bits<K>>,
    remainder_mask: Constant<Bits<16>>,
}

impl<const W: usize, const K: usize> Default for PayloadWriter<W, K> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        assert!(K.is_power_of_two() && K >= 8);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_pay_tvalid: Default::default(),
            s_pay_tready: Default::default(),
            s_pay_tdata: Default::default(),
            s_pay_tkeep: Default::default(),
            s_pay_tlast: Default::default(),
            s_pay_tuser: Default::default(),
            s_dec_valid: Default::default(),
            s_dec_ready: Default::default(),
            s_dec_write: Default::default(),
            s_dec_address: Default::default(),
            s_dec_length: Default::default(),
            m_cmd_valid: Default::default(),
            m_cmd_ready: Default::default(),
            m_cmd_address: Default::default(),
            m_cmd_length: Default::default(),
            m_wr_tvalid: Default::default(),
            m_wr_tready: Default::default(),
            m_wr_tdata: Default::default(),
            m_wr_tkeep: Default::default(),
            m_wr_tlast: Default::default(),
            retired: Default::default(),
            cnt_written: Default::default(),
            cnt_discarded: Default::default(),
            buffer: Default::default(),
            written: Default::default(),
            discarded: Default::default(),
            state: Default::default(),
            command_pending: Default::default(),
            data_done: Default::default(),
            data_finished: Default::default(),
            command_done: Default::default(),
            address: Default::default(),
            length: Default::default(),
            last_keep: Default::default(),
            popping: Default::default(),
            ones_above_remainder: Default::default(),
            keep_of_remainder: Default::default(),
            all_ones: Constant::new(Bits::<K>::mask()),
            remainder_mask: c::<16>(K as u64 - 1),
        }
    }
}

impl<const W: usize, const K: usize> Logic for PayloadWriter<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, command_pending, data_done, address, length, last_keep);
        clock!(self, clock, buffer, written, discarded);
        self.buffer.reset.next = self.reset.val();
        self.written.reset.next = self.reset.val();
        self.discarded.reset.next = self.reset.val();

        // payloads into the buffer
        self.s_pay_tready.next = self.buffer.room.val();
        self.buffer.push.next = self.s_pay_tvalid.val() && self.buffer.room.val();
        self.buffer.push_data.next = self.s_pay_tdata.val();
        self.buffer.push_last.next = self.s_pay_tlast.val();

        // the last beat keeps `length mod K` bytes (all when 0)
        // (ones shifted up by the remainder, inverted: a LUT per bit, not a subtraction's carry chain)
        self.ones_above_remainder.next = self.all_ones.val() << (self.s_dec_length.val() & self.remainder_mask.val());
        self.keep_of_remainder.next = !self.ones_above_remainder.val();
        if (self.s_dec_length.val() & self.remainder_mask.val()) == 0 {
            self.keep_of_remainder.next = self.all_ones.val();
        }

        // the head beat: written or dropped
        self.m_wr_tvalid.next = (self.state.q.val() == WriterState::Write) && self.buffer.head_valid.val() && !self.data_done.q.val();
        self.m_wr_tdata.next = self.buffer.head_data.val();
        self.m_wr_tlast.next = self.buffer.head_last.val();
        self.m_wr_tkeep.next = self.all_ones.val();
        if self.buffer.head_last.val() {
            self.m_wr_tkeep.next = self.last_keep.q.val();
        }
        self.popping.next = self.buffer.head_valid.val()
            && (((self.state.q.val() == WriterState::Write) && !self.data_done.q.val() && self.m_wr_tready.val())
                || (self.state.q.val() == WriterState::Discard));
        self.buffer.pop.next = self.popping.val();

        // the command, beside the data
        self.m_cmd_valid.next = self.command_pending.q.val();
        self.m_cmd_address.next = self.address.q.val();
        self.m_cmd_length.next = self.length.q.val();
        if self.command_pending.q.val() && self.m_cmd_ready.val() {
            self.command_pending.d.next = false;
        }

        self.s_dec_ready.next = false;
        self.retired.next = false;
        self.data_finished.next = self.data_done.q.val() || (self.popping.val() && self.buffer.head_last.val());
        self.command_done.next = !self.command_pending.q.val() || self.m_cmd_ready.val();
        self.written.increment.next = false;
        self.discarded.increment.next = false;
        match self.state.q.val() {
            WriterState::Idle => {
                self.s_dec_ready.next = !self.command_pending.q.val();
                if self.s_dec_valid.val() && !self.command_pending.q.val() {
                    self.address.d.next = self.s_dec_address.val();
                    self.length.d.next = self.s_dec_length.val();
                    self.last_keep.d.next = self.keep_of_remainder.val();
                    if self.s_dec_length.val() != 0 {
                        if self.s_dec_write.val() {
                            self.command_pending.d.next = true;
                            self.state.d.next = WriterState::Write;
                        } else {
                            self.state.d.next = WriterState::Discard;
                        }
                    } else {
                        self.retired.next = true;
                    }
                }
            }
            WriterState::Write => {
                // done when memory has the last beat and the command, in either order
                self.data_done.d.next = self.data_finished.val();
                if self.popping.val() && self.buffer.head_last.val() {
                    self.written.increment.next = true;
                }
                if self.data_finished.val() && self.command_done.val() {
                    self.retired.next = true;
                    self.data_done.d.next = false;
                    self.state.d.next = WriterState::Idle;
                }
            }
            _ => {
                if self.popping.val() && self.buffer.head_last.val() {
                    self.discarded.increment.next = true;
                    self.retired.next = true;
                    self.state.d.next = WriterState::Idle;
                }
            }
        }
        if self.reset.val() {
            self.state.d.next = WriterState::Idle;
            self.command_pending.d.next = false;
            self.data_done.d.next = false;
        }
        self.cnt_written.next = self.written.count.val();
        self.cnt_discarded.next = self.discarded.count.val();
    }
}
