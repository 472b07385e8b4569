//! [`StreamReadRouter`]: the TX path's memory reads split between memory and the stream window
//! (address bit 63), the data of both merged back in command order.
//!
//! ```text
//!  s_read ─► bit 63? ─┬─► m_mem_read ─► memory ─────► s_mem_pay ─┐
//!                     ├─► m_win_read ─► StreamReader ► s_win_pay ─┼─► m_pay (in command order)
//!                     └─► order FIFO (one bit a read) ────────────┘
//! ```
//!
//! - A command goes to its side when that side is ready and the order FIFO has room (known from
//!   a registered fill level); its side's bit joins the FIFO. `valid` toward each side never
//!   waits for that side's `ready`.
//! - The data comes from the side at the FIFO's head until that read's `tlast`, then from the
//!   next read's side, with no cycle lost between reads (the FIFO's head is a register).
//! - Up to 31 reads in flight, more than the TX path issues.
//! - The data's choice ([`PayloadChoice`]) is a block of its own, apart from the readies: a
//!   sink whose `ready` follows its `valid` (the TX path's payload buffer) then makes no loop of
//!   blocks that Verilator would have to evaluate again and again.

use crate::common::elab::c;
use crate::common::fifo::{Fifo, CAPACITY};
use rust_hdl::prelude::*;

/// The memory reads of `W`-bit beats (`K = W / 8` lanes), split by the stream window.
#[derive(LogicBlock)]
pub struct StreamReadRouter<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: forgets the reads in flight (reset the sides with it).
    pub reset: Signal<In, Bit>,
    /// Read commands from the TX path: valid.
    pub s_read_valid: Signal<In, Bit>,
    /// Read commands: ready.
    pub s_read_ready: Signal<Out, Bit>,
    /// Read commands: the address (bit 63: the stream window).
    pub s_read_addr: Signal<In, Bits<64>>,
    /// Read commands: the length in bytes.
    pub s_read_len: Signal<In, Bits<13>>,
    /// To memory: valid.
    pub m_mem_read_valid: Signal<Out, Bit>,
    /// To memory: ready.
    pub m_mem_read_ready: Signal<In, Bit>,
    /// To memory: the address.
    pub m_mem_read_addr: Signal<Out, Bits<64>>,
    /// To memory: the length.
    pub m_mem_read_len: Signal<Out, Bits<13>>,
    /// To the stream reader: valid.
    pub m_win_read_valid: Signal<Out, Bit>,
    /// To the stream reader: ready.
    pub m_win_read_ready: Signal<In, Bit>,
    /// To the stream reader: the address.
    pub m_win_read_addr: Signal<Out, Bits<64>>,
    /// To the stream reader: the length.
    pub m_win_read_len: Signal<Out, Bits<13>>,
    /// Memory's data: valid.
    pub s_mem_pay_tvalid: Signal<In, Bit>,
    /// Memory's data: ready.
    pub s_mem_pay_tready: Signal<Out, Bit>,
    /// Memory's data.
    pub s_mem_pay_tdata: Signal<In, Bits<W>>,
    /// Memory's data: keep.
    pub s_mem_pay_tkeep: Signal<In, Bits<K>>,
    /// Memory's data: a read's last beat.
    pub s_mem_pay_tlast: Signal<In, Bit>,
    /// The stream reader's data: valid.
    pub s_win_pay_tvalid: Signal<In, Bit>,
    /// The stream reader's data: ready.
    pub s_win_pay_tready: Signal<Out, Bit>,
    /// The stream reader's data.
    pub s_win_pay_tdata: Signal<In, Bits<W>>,
    /// The stream reader's data: keep.
    pub s_win_pay_tkeep: Signal<In, Bits<K>>,
    /// The stream reader's data: a read's last beat.
    pub s_win_pay_tlast: Signal<In, Bit>,
    /// To the TX path: valid.
    pub m_pay_tvalid: Signal<Out, Bit>,
    /// To the TX path: ready.
    pub m_pay_tready: Signal<In, Bit>,
    /// To the TX path: data.
    pub m_pay_tdata: Signal<Out, Bits<W>>,
    /// To the TX path: keep.
    pub m_pay_tkeep: Signal<Out, Bits<K>>,
    /// To the TX path: a read's last beat.
    pub m_pay_tlast: Signal<Out, Bit>,

    window: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    order: Fifo<Bit>,
    choice: PayloadChoice<W, K>,
    nearly_full: Constant<Bits<8>>,
}

impl<const W: usize, const K: usize> Default for StreamReadRouter<W, K> {
    fn default() -> Self {
        assert_eq!(W, 8 * K);
        StreamReadRouter {
            clock: Default::default(),
            reset: Default::default(),
            s_read_valid: Default::default(),
            s_read_ready: Default::default(),
            s_read_addr: Default::default(),
            s_read_len: Default::default(),
            m_mem_read_valid: Default::default(),
            m_mem_read_ready: Default::default(),
            m_mem_read_addr: Default::default(),
            m_mem_read_len: Default::default(),
            m_win_read_valid: Default::default(),
            m_win_read_ready: Default::default(),
            m_win_read_addr: Default::default(),
            m_win_read_len: Default::default(),
            s_mem_pay_tvalid: Default::default(),
            s_mem_pay_tready: Default::default(),
            s_mem_pay_tdata: Default::default(),
            s_mem_pay_tkeep: Default::default(),
            s_mem_pay_tlast: Default::default(),
            s_win_pay_tvalid: Default::default(),
            s_win_pay_tready: Default::default(),
            s_win_pay_tdata: Default::default(),
            s_win_pay_tkeep: Default::default(),
            s_win_pay_tlast: Default::default(),
            m_pay_tvalid: Default::default(),
            m_pay_tready: Default::default(),
            m_pay_tdata: Default::default(),
            m_pay_tkeep: Default::default(),
            m_pay_tlast: Default::default(),
            window: Default::default(),
            room: Default::default(),
            order: Default::default(),
            choice: Default::default(),
            // room for one more read beside the one pushed in the last cycle
            nearly_full: c::<8>(CAPACITY as u64 - 2),
        }
    }
}

impl<const W: usize, const K: usize> Logic for StreamReadRouter<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, order);

        // ---- commands: to their side while the order FIFO has room ----
        self.window.next = self.s_read_addr.val().get_bit(63);
        self.room.next = !self.order.fill.val().get_bit(self.nearly_full.val().index());
        self.m_mem_read_valid.next = self.s_read_valid.val() && self.room.val() && !self.window.val();
        self.m_win_read_valid.next = self.s_read_valid.val() && self.room.val() && self.window.val();
        self.m_mem_read_addr.next = self.s_read_addr.val();
        self.m_mem_read_len.next = self.s_read_len.val();
        self.m_win_read_addr.next = self.s_read_addr.val();
        self.m_win_read_len.next = self.s_read_len.val();
        self.s_read_ready.next =
            self.room.val() && ((self.window.val() && self.m_win_read_ready.val()) || (!self.window.val() && self.m_mem_read_ready.val()));
        self.order.push.next = self.s_read_valid.val() && self.s_read_ready.val();
        self.order.push_value.next = self.window.val();

        // ---- data: from the side of the oldest read until its tlast ----
        self.choice.head_valid.next = self.order.head_valid.val();
        self.choice.from_window.next = self.order.head.val();
        self.choice.s_mem_pay_tvalid.next = self.s_mem_pay_tvalid.val();
        self.choice.s_mem_pay_tdata.next = self.s_mem_pay_tdata.val();
        self.choice.s_mem_pay_tkeep.next = self.s_mem_pay_tkeep.val();
        self.choice.s_mem_pay_tlast.next = self.s_mem_pay_tlast.val();
        self.choice.s_win_pay_tvalid.next = self.s_win_pay_tvalid.val();
        self.choice.s_win_pay_tdata.next = self.s_win_pay_tdata.val();
        self.choice.s_win_pay_tkeep.next = self.s_win_pay_tkeep.val();
        self.choice.s_win_pay_tlast.next = self.s_win_pay_tlast.val();
        self.m_pay_tvalid.next = self.choice.m_pay_tvalid.val();
        self.m_pay_tdata.next = self.choice.m_pay_tdata.val();
        self.m_pay_tkeep.next = self.choice.m_pay_tkeep.val();
        self.m_pay_tlast.next = self.choice.m_pay_tlast.val();
        self.s_mem_pay_tready.next = self.order.head_valid.val() && !self.order.head.val() && self.m_pay_tready.val();
        self.s_win_pay_tready.next = self.order.head_valid.val() && self.order.head.val() && self.m_pay_tready.val();
        self.order.pop.next = self.choice.m_pay_tvalid.val() && self.m_pay_tready.val() && self.choice.m_pay_tlast.val();
        self.order.reset.next = self.reset.val();
    }
}

/// The data of the read at the order FIFO's head: memory's or the window's.
#[derive(LogicBlock)]
pub struct PayloadChoice<const W: usize, const K: usize> {
    /// A read is at the order FIFO's head.
    pub head_valid: Signal<In, Bit>,
    /// That read is the window's.
    pub from_window: Signal<In, Bit>,
    /// Memory's data: valid.
    pub s_mem_pay_tvalid: Signal<In, Bit>,
    /// Memory's data.
    pub s_mem_pay_tdata: Signal<In, Bits<W>>,
    /// Memory's keep.
    pub s_mem_pay_tkeep: Signal<In, Bits<K>>,
    /// Memory's last beat.
    pub s_mem_pay_tlast: Signal<In, Bit>,
    /// The window's data: valid.
    pub s_win_pay_tvalid: Signal<In, Bit>,
    /// The window's data.
    pub s_win_pay_tdata: Signal<In, Bits<W>>,
    /// The window's keep.
    pub s_win_pay_tkeep: Signal<In, Bits<K>>,
    /// The window's last beat.
    pub s_win_pay_tlast: Signal<In, Bit>,
    /// The chosen data: valid.
    pub m_pay_tvalid: Signal<Out, Bit>,
    /// The chosen data.
    pub m_pay_tdata: Signal<Out, Bits<W>>,
    /// The chosen keep.
    pub m_pay_tkeep: Signal<Out, Bits<K>>,
    /// The chosen last beat.
    pub m_pay_tlast: Signal<Out, Bit>,
}

impl<const W: usize, const K: usize> Default for PayloadChoice<W, K> {
    fn default() -> Self {
        PayloadChoice {
            head_valid: Default::default(),
            from_window: Default::default(),
            s_mem_pay_tvalid: Default::default(),
            s_mem_pay_tdata: Default::default(),
            s_mem_pay_tkeep: Default::default(),
            s_mem_pay_tlast: Default::default(),
            s_win_pay_tvalid: Default::default(),
            s_win_pay_tdata: Default::default(),
            s_win_pay_tkeep: Default::default(),
            s_win_pay_tlast: Default::default(),
            m_pay_tvalid: Default::default(),
            m_pay_tdata: Default::default(),
            m_pay_tkeep: Default::default(),
            m_pay_tlast: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize> Logic for PayloadChoice<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        self.m_pay_tvalid.next = false;
        self.m_pay_tdata.next = self.s_mem_pay_tdata.val();
        self.m_pay_tkeep.next = self.s_mem_pay_tkeep.val();
        self.m_pay_tlast.next = self.s_mem_pay_tlast.val();
        if self.head_valid.val() {
            if self.from_window.val() {
                self.m_pay_tvalid.next = self.s_win_pay_tvalid.val();
                self.m_pay_tdata.next = self.s_win_pay_tdata.val();
                self.m_pay_tkeep.next = self.s_win_pay_tkeep.val();
                self.m_pay_tlast.next = self.s_win_pay_tlast.val();
            } else {
                self.m_pay_tvalid.next = self.s_mem_pay_tvalid.val();
            }
        }
    }
}
