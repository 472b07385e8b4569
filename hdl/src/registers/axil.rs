//! [`AxiLiteFront`]: the five AXI4-Lite channels of the register file, each in its own
//! register, and the choice of the next operation.
//!
//! - AW, W and AR: `ready` is high while the channel's register is empty; a handshake fills it.
//!   The write strobes are expanded to a bit mask on the way in.
//! - An operation starts when the register file is idle: a write when AW and W are both full and
//!   B is empty, a read when AR is full and R is empty; when both can, the one that did not go
//!   last. The registers it came from empty in the same cycle (so the next request can come in
//!   while it runs), and `op_start` is high for the cycle after.
//! - B and R: the register file's `finish` fills the response register of the operation; it is
//!   held until the master's `ready`.
//!
//! So no channel waits for another, a response never changes while it is offered, and a request
//! is always taken within one operation's time once its response register is empty.

use ferroce_contracts::regs::ADDRESS_BITS;
use rust_hdl::prelude::*;

use super::WORD_BITS;

/// The channel registers and the operation choice.
#[derive(LogicBlock)]
pub struct AxiLiteFront {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties every channel register.
    pub reset: Signal<In, Bit>,
    /// Write address: valid.
    pub awvalid: Signal<In, Bit>,
    /// Write address: ready.
    pub awready: Signal<Out, Bit>,
    /// Write address.
    pub awaddr: Signal<In, Bits<ADDRESS_BITS>>,
    /// Write data: valid.
    pub wvalid: Signal<In, Bit>,
    /// Write data: ready.
    pub wready: Signal<Out, Bit>,
    /// Write data.
    pub wdata: Signal<In, Bits<32>>,
    /// Write strobes.
    pub wstrb: Signal<In, Bits<4>>,
    /// Write response: valid.
    pub bvalid: Signal<Out, Bit>,
    /// Write response: ready.
    pub bready: Signal<In, Bit>,
    /// Write response.
    pub bresp: Signal<Out, Bits<2>>,
    /// Read address: valid.
    pub arvalid: Signal<In, Bit>,
    /// Read address: ready.
    pub arready: Signal<Out, Bit>,
    /// Read address.
    pub araddr: Signal<In, Bits<ADDRESS_BITS>>,
    /// Read data: valid.
    pub rvalid: Signal<Out, Bit>,
    /// Read data: ready.
    pub rready: Signal<In, Bit>,
    /// Read data.
    pub rdata: Signal<Out, Bits<32>>,
    /// Read response.
    pub rresp: Signal<Out, Bits<2>>,
    /// The register file can start an operation this cycle.
    pub idle: Signal<In, Bit>,
    /// High for one cycle: `op_*` hold a new operation.
    pub op_start: Signal<Out, Bit>,
    /// The operation is a write.
    pub op_write: Signal<Out, Bit>,
    /// Its word address.
    pub op_address: Signal<Out, Bits<WORD_BITS>>,
    /// A write's data.
    pub op_data: Signal<Out, Bits<32>>,
    /// A write's strobes as a bit mask.
    pub op_mask: Signal<Out, Bits<32>>,
    /// The operation finishes: its response goes into B or R.
    pub finish: Signal<In, Bit>,
    /// The response (OKAY, SLVERR, DECERR).
    pub finish_response: Signal<In, Bits<2>>,
    /// A read's data.
    pub finish_data: Signal<In, Bits<32>>,

    aw_full: DFF<Bit>,
    aw_address: DFF<Bits<WORD_BITS>>,
    w_full: DFF<Bit>,
    w_data: DFF<Bits<32>>,
    w_mask: DFF<Bits<32>>,
    ar_full: DFF<Bit>,
    ar_address: DFF<Bits<WORD_BITS>>,
    b_valid: DFF<Bit>,
    b_resp: DFF<Bits<2>>,
    r_valid: DFF<Bit>,
    r_data: DFF<Bits<32>>,
    r_resp: DFF<Bits<2>>,
    started: DFF<Bit>,
    write: DFF<Bit>,
    address: DFF<Bits<WORD_BITS>>,
    data: DFF<Bits<32>>,
    mask: DFF<Bits<32>>,
    last_was_write: DFF<Bit>,
    byte_mask: [Constant<Bits<32>>; 4],
    write_waits: Signal<Local, Bit>,
    read_waits: Signal<Local, Bit>,
    start_write: Signal<Local, Bit>,
    start_read: Signal<Local, Bit>,
    strobes: Signal<Local, Bits<32>>,
}

impl Default for AxiLiteFront {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            awvalid: Default::default(),
            awready: Default::default(),
            awaddr: Default::default(),
            wvalid: Default::default(),
            wready: Default::default(),
            wdata: Default::default(),
            wstrb: Default::default(),
            bvalid: Default::default(),
            bready: Default::default(),
            bresp: Default::default(),
            arvalid: Default::default(),
            arready: Default::default(),
            araddr: Default::default(),
            rvalid: Default::default(),
            rready: Default::default(),
            rdata: Default::default(),
            rresp: Default::default(),
            idle: Default::default(),
            op_start: Default::default(),
            op_write: Default::default(),
            op_address: Default::default(),
            op_data: Default::default(),
            op_mask: Default::default(),
            finish: Default::default(),
            finish_response: Default::default(),
            finish_data: Default::default(),
            aw_full: Default::default(),
            aw_address: Default::default(),
            w_full: Default::default(),
            w_data: Default::default(),
            w_mask: Default::default(),
            ar_full: Default::default(),
            ar_address: Default::default(),
            b_valid: Default::default(),
            b_resp: Default::default(),
            r_valid: Default::default(),
            r_data: Default::default(),
            r_resp: Default::default(),
            started: Default::default(),
            write: Default::default(),
            address: Default::default(),
            data: Default::default(),
            mask: Default::default(),
            last_was_write: Default::default(),
            byte_mask: std::array::from_fn(|b| super::mask32(0xff << (8 * b))),
            write_waits: Default::default(),
            read_waits: Default::default(),
            start_write: Default::default(),
            start_read: Default::default(),
            strobes: Default::default(),
        }
    }
}

impl Logic for AxiLiteFront {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            aw_full,
            aw_address,
            w_full,
            w_data,
            w_mask,
            ar_full,
            ar_address,
            b_valid,
            b_resp,
            r_valid,
            r_data,
            r_resp,
            started,
            write,
            address,
            data,
            mask,
            last_was_write
        );
        // requests: each channel into its register
        self.awready.next = !self.aw_full.q.val();
        self.wready.next = !self.w_full.q.val();
        self.arready.next = !self.ar_full.q.val();
        if self.awvalid.val() & !self.aw_full.q.val() {
            self.aw_full.d.next = true;
            self.aw_address.d.next = self.awaddr.val().get_bits::<WORD_BITS>(2);
        }
        self.strobes.next = 0.into();
        for b in 0..4 {
            if self.wstrb.val().get_bit(b) {
                self.strobes.next = self.strobes.val() | self.byte_mask[b].val();
            }
        }
        if self.wvalid.val() & !self.w_full.q.val() {
            self.w_full.d.next = true;
            self.w_data.d.next = self.wdata.val();
            self.w_mask.d.next = self.strobes.val();
        }
        if self.arvalid.val() & !self.ar_full.q.val() {
            self.ar_full.d.next = true;
            self.ar_address.d.next = self.araddr.val().get_bits::<WORD_BITS>(2);
        }

        // the next operation: a write or a read, alternating when both wait
        self.write_waits.next = self.aw_full.q.val() & self.w_full.q.val() & !self.b_valid.q.val();
        self.read_waits.next = self.ar_full.q.val() & !self.r_valid.q.val();
        self.start_write.next = self.idle.val() & self.write_waits.val() & (!self.read_waits.val() | !self.last_was_write.q.val());
        self.start_read.next = self.idle.val() & self.read_waits.val() & !self.start_write.val();
        self.started.d.next = self.start_write.val() | self.start_read.val();
        if self.start_write.val() {
            self.aw_full.d.next = false;
            self.w_full.d.next = false;
            self.write.d.next = true;
            self.address.d.next = self.aw_address.q.val();
            self.data.d.next = self.w_data.q.val();
            self.mask.d.next = self.w_mask.q.val();
            self.last_was_write.d.next = true;
        }
        if self.start_read.val() {
            self.ar_full.d.next = false;
            self.write.d.next = false;
            self.address.d.next = self.ar_address.q.val();
            self.last_was_write.d.next = false;
        }
        self.op_start.next = self.started.q.val();
        self.op_write.next = self.write.q.val();
        self.op_address.next = self.address.q.val();
        self.op_data.next = self.data.q.val();
        self.op_mask.next = self.mask.q.val();

        // responses: held until taken
        if self.b_valid.q.val() & self.bready.val() {
            self.b_valid.d.next = false;
        }
        if self.r_valid.q.val() & self.rready.val() {
            self.r_valid.d.next = false;
        }
        if self.finish.val() & self.write.q.val() {
            self.b_valid.d.next = true;
            self.b_resp.d.next = self.finish_response.val();
        }
        if self.finish.val() & !self.write.q.val() {
            self.r_valid.d.next = true;
            self.r_resp.d.next = self.finish_response.val();
            self.r_data.d.next = self.finish_data.val();
        }
        self.bvalid.next = self.b_valid.q.val();
        self.bresp.next = self.b_resp.q.val();
        self.rvalid.next = self.r_valid.q.val();
        self.rdata.next = self.r_data.q.val();
        self.rresp.next = self.r_resp.q.val();
        if self.reset.val() {
            self.aw_full.d.next = false;
            self.w_full.d.next = false;
            self.ar_full.d.next = false;
            self.b_valid.d.next = false;
            self.r_valid.d.next = false;
            self.started.d.next = false;
        }
    }
}
