//! [`AxiLiteSplit`]: one AXI4-Lite slave port in front of two: the accesses to an address
//! window go to the high port, every other to the low port (the engine: the stream set's
//! `stream` block, the register file).
//!
//! ```text
//!  s_axil AW, W ─► held ─► window? ─► m_high AW, W ─► (its B) ─┐
//!                                 └─► m_low  AW, W ─► (its B) ─┴─► held B ─► s_axil B
//!  s_axil AR    ─► held ─► window? ─► m_high AR / m_low AR ─► (its R) ─► held R ─► s_axil R
//! ```
//!
//! - One write and one read at a time: a write goes on once its AW and W are both held, and
//!   the next only after its response is taken from its port; reads likewise. So the responses
//!   come back in the order of the requests whichever port answers, as AXI4-Lite requires.
//! - Every output is a register (valid and payload held while stalled); `ready` towards either
//!   side is high while the register it fills is empty. The window's decision is registered.
//! - A write and a read go on independently of each other, to the same port or not.

use ferroce_contracts::regs::ADDRESS_BITS;
use rust_hdl::prelude::*;

/// One AXI4-Lite slave port in front of two master ports (addresses of [`ADDRESS_BITS`] bits).
#[derive(LogicBlock)]
pub struct AxiLiteSplit {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: drops whatever is held (only between transactions).
    pub reset: Signal<In, Bit>,
    /// Slave: write address valid.
    pub s_axil_awvalid: Signal<In, Bit>,
    /// Slave: write address ready.
    pub s_axil_awready: Signal<Out, Bit>,
    /// Slave: write address.
    pub s_axil_awaddr: Signal<In, Bits<ADDRESS_BITS>>,
    /// Slave: write data valid.
    pub s_axil_wvalid: Signal<In, Bit>,
    /// Slave: write data ready.
    pub s_axil_wready: Signal<Out, Bit>,
    /// Slave: write data.
    pub s_axil_wdata: Signal<In, Bits<32>>,
    /// Slave: write strobes.
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    /// Slave: write response valid.
    pub s_axil_bvalid: Signal<Out, Bit>,
    /// Slave: write response ready.
    pub s_axil_bready: Signal<In, Bit>,
    /// Slave: write response (the answering port's).
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    /// Slave: read address valid.
    pub s_axil_arvalid: Signal<In, Bit>,
    /// Slave: read address ready.
    pub s_axil_arready: Signal<Out, Bit>,
    /// Slave: read address.
    pub s_axil_araddr: Signal<In, Bits<ADDRESS_BITS>>,
    /// Slave: read data valid.
    pub s_axil_rvalid: Signal<Out, Bit>,
    /// Slave: read data ready.
    pub s_axil_rready: Signal<In, Bit>,
    /// Slave: read data.
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    /// Slave: read response.
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    /// Low port (outside the window): write address valid.
    pub m_low_axil_awvalid: Signal<Out, Bit>,
    /// Low port: write address ready.
    pub m_low_axil_awready: Signal<In, Bit>,
    /// Low port: write address.
    pub m_low_axil_awaddr: Signal<Out, Bits<ADDRESS_BITS>>,
    /// Low port: write data valid.
    pub m_low_axil_wvalid: Signal<Out, Bit>,
    /// Low port: write data ready.
    pub m_low_axil_wready: Signal<In, Bit>,
    /// Low port: write data.
    pub m_low_axil_wdata: Signal<Out, Bits<32>>,
    /// Low port: write strobes.
    pub m_low_axil_wstrb: Signal<Out, Bits<4>>,
    /// Low port: write response valid.
    pub m_low_axil_bvalid: Signal<In, Bit>,
    /// Low port: write response ready.
    pub m_low_axil_bready: Signal<Out, Bit>,
    /// Low port: write response.
    pub m_low_axil_bresp: Signal<In, Bits<2>>,
    /// Low port: read address valid.
    pub m_low_axil_arvalid: Signal<Out, Bit>,
    /// Low port: read address ready.
    pub m_low_axil_arready: Signal<In, Bit>,
    /// Low port: read address.
    pub m_low_axil_araddr: Signal<Out, Bits<ADDRESS_BITS>>,
    /// Low port: read data valid.
    pub m_low_axil_rvalid: Signal<In, Bit>,
    /// Low port: read data ready.
    pub m_low_axil_rready: Signal<Out, Bit>,
    /// Low port: read data.
    pub m_low_axil_rdata: Signal<In, Bits<32>>,
    /// Low port: read response.
    pub m_low_axil_rresp: Signal<In, Bits<2>>,
    /// High port (the window): write address valid.
    pub m_high_axil_awvalid: Signal<Out, Bit>,
    /// High port: write address ready.
    pub m_high_axil_awready: Signal<In, Bit>,
    /// High port: write address.
    pub m_high_axil_awaddr: Signal<Out, Bits<ADDRESS_BITS>>,
    /// High port: write data valid.
    pub m_high_axil_wvalid: Signal<Out, Bit>,
    /// High port: write data ready.
    pub m_high_axil_wready: Signal<In, Bit>,
    /// High port: write data.
    pub m_high_axil_wdata: Signal<Out, Bits<32>>,
    /// High port: write strobes.
    pub m_high_axil_wstrb: Signal<Out, Bits<4>>,
    /// High port: write response valid.
    pub m_high_axil_bvalid: Signal<In, Bit>,
    /// High port: write response ready.
    pub m_high_axil_bready: Signal<Out, Bit>,
    /// High port: write response.
    pub m_high_axil_bresp: Signal<In, Bits<2>>,
    /// High port: read address valid.
    pub m_high_axil_arvalid: Signal<Out, Bit>,
    /// High port: read address ready.
    pub m_high_axil_arready: Signal<In, Bit>,
    /// High port: read address.
    pub m_high_axil_araddr: Signal<Out, Bits<ADDRESS_BITS>>,
    /// High port: read data valid.
    pub m_high_axil_rvalid: Signal<In, Bit>,
    /// High port: read data ready.
    pub m_high_axil_rready: Signal<Out, Bit>,
    /// High port: read data.
    pub m_high_axil_rdata: Signal<In, Bits<32>>,
    /// High port: read response.
    pub m_high_axil_rresp: Signal<In, Bits<2>>,

    // ---- the write ----
    aw_full: DFF<Bit>,
    aw_address: DFF<Bits<ADDRESS_BITS>>,
    w_full: DFF<Bit>,
    w_data: DFF<Bits<32>>,
    w_strobes: DFF<Bits<4>>,
    /// A write is on its way (from its start to its response taken from its port).
    writing: DFF<Bit>,
    write_high: DFF<Bit>,
    /// Its AW, its W not yet taken by its port.
    aw_forward: DFF<Bit>,
    w_forward: DFF<Bit>,
    b_full: DFF<Bit>,
    b_response: DFF<Bits<2>>,
    // ---- the read ----
    ar_full: DFF<Bit>,
    ar_address: DFF<Bits<ADDRESS_BITS>>,
    reading: DFF<Bit>,
    read_high: DFF<Bit>,
    ar_forward: DFF<Bit>,
    r_full: DFF<Bit>,
    r_data: DFF<Bits<32>>,
    r_response: DFF<Bits<2>>,
    // ---- combinational ----
    aw_taken: Signal<Local, Bit>,
    w_taken: Signal<Local, Bit>,
    b_taken: Signal<Local, Bit>,
    ar_taken: Signal<Local, Bit>,
    r_taken: Signal<Local, Bit>,
    // ---- the window: address & mask == base ----
    window_mask: Constant<Bits<ADDRESS_BITS>>,
    window_base: Constant<Bits<ADDRESS_BITS>>,
}

impl AxiLiteSplit {
    /// A split whose high port takes the `size` bytes from `base` (a power of two, `base` a
    /// multiple of it).
    pub fn new(base: u32, size: u32) -> AxiLiteSplit {
        assert!(size.is_power_of_two() && base.is_multiple_of(size) && u64::from(base) + u64::from(size) <= 1 << ADDRESS_BITS);
        let all = (1u64 << ADDRESS_BITS) - 1;
        AxiLiteSplit {
            clock: Default::default(),
            reset: Default::default(),
            s_axil_awvalid: Default::default(),
            s_axil_awready: Default::default(),
            s_axil_awaddr: Default::default(),
            s_axil_wvalid: Default::default(),
            s_axil_wready: Default::default(),
            s_axil_wdata: Default::default(),
            s_axil_wstrb: Default::default(),
            s_axil_bvalid: Default::default(),
            s_axil_bready: Default::default(),
            s_axil_bresp: Default::default(),
            s_axil_arvalid: Default::default(),
            s_axil_arready: Default::default(),
            s_axil_araddr: Default::default(),
            s_axil_rvalid: Default::default(),
            s_axil_rready: Default::default(),
            s_axil_rdata: Default::default(),
            s_axil_rresp: Default::default(),
            m_low_axil_awvalid: Default::default(),
            m_low_axil_awready: Default::default(),
            m_low_axil_awaddr: Default::default(),
            m_low_axil_wvalid: Default::default(),
            m_low_axil_wready: Default::default(),
            m_low_axil_wdata: Default::default(),
            m_low_axil_wstrb: Default::default(),
            m_low_axil_bvalid: Default::default(),
            m_low_axil_bready: Default::default(),
            m_low_axil_bresp: Default::default(),
            m_low_axil_arvalid: Default::default(),
            m_low_axil_arready: Default::default(),
            m_low_axil_araddr: Default::default(),
            m_low_axil_rvalid: Default::default(),
            m_low_axil_rready: Default::default(),
            m_low_axil_rdata: Default::default(),
            m_low_axil_rresp: Default::default(),
            m_high_axil_awvalid: Default::default(),
            m_high_axil_awready: Default::default(),
            m_high_axil_awaddr: Default::default(),
            m_high_axil_wvalid: Default::default(),
            m_high_axil_wready: Default::default(),
            m_high_axil_wdata: Default::default(),
            m_high_axil_wstrb: Default::default(),
            m_high_axil_bvalid: Default::default(),
            m_high_axil_bready: Default::default(),
            m_high_axil_bresp: Default::default(),
            m_high_axil_arvalid: Default::default(),
            m_high_axil_arready: Default::default(),
            m_high_axil_araddr: Default::default(),
            m_high_axil_rvalid: Default::default(),
            m_high_axil_rready: Default::default(),
            m_high_axil_rdata: Default::default(),
            m_high_axil_rresp: Default::default(),
            aw_full: Default::default(),
            aw_address: Default::default(),
            w_full: Default::default(),
            w_data: Default::default(),
            w_strobes: Default::default(),
            writing: Default::default(),
            write_high: Default::default(),
            aw_forward: Default::default(),
            w_forward: Default::default(),
            b_full: Default::default(),
            b_response: Default::default(),
            ar_full: Default::default(),
            ar_address: Default::default(),
            reading: Default::default(),
            read_high: Default::default(),
            ar_forward: Default::default(),
            r_full: Default::default(),
            r_data: Default::default(),
            r_response: Default::default(),
            aw_taken: Default::default(),
            w_taken: Default::default(),
            b_taken: Default::default(),
            ar_taken: Default::default(),
            r_taken: Default::default(),
            window_mask: Constant::new(Bits::<ADDRESS_BITS>::from(all & !(u64::from(size) - 1))),
            window_base: Constant::new(Bits::<ADDRESS_BITS>::from(u64::from(base))),
        }
    }
}

impl Logic for AxiLiteSplit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, aw_full, aw_address, w_full, w_data, w_strobes, writing, write_high, aw_forward, w_forward, b_full, b_response,
            ar_full, ar_address, reading, read_high, ar_forward, r_full, r_data, r_response
        );

        // ---- a write: AW and W held, sent on to their port, its response held ----
        self.s_axil_awready.next = !self.aw_full.q.val();
        self.s_axil_wready.next = !self.w_full.q.val();
        if self.s_axil_awvalid.val() & !self.aw_full.q.val() {
            self.aw_full.d.next = true;
            self.aw_address.d.next = self.s_axil_awaddr.val();
        }
        if self.s_axil_wvalid.val() & !self.w_full.q.val() {
            self.w_full.d.next = true;
            self.w_data.d.next = self.s_axil_wdata.val();
            self.w_strobes.d.next = self.s_axil_wstrb.val();
        }
        if self.aw_full.q.val() & self.w_full.q.val() & !self.writing.q.val() {
            self.writing.d.next = true;
            self.aw_forward.d.next = true;
            self.w_forward.d.next = true;
            self.write_high.d.next = (self.aw_address.q.val() & self.window_mask.val()) == self.window_base.val();
        }
        self.m_low_axil_awvalid.next = self.aw_forward.q.val() & !self.write_high.q.val();
        self.m_high_axil_awvalid.next = self.aw_forward.q.val() & self.write_high.q.val();
        self.m_low_axil_awaddr.next = self.aw_address.q.val();
        self.m_high_axil_awaddr.next = self.aw_address.q.val();
        self.m_low_axil_wvalid.next = self.w_forward.q.val() & !self.write_high.q.val();
        self.m_high_axil_wvalid.next = self.w_forward.q.val() & self.write_high.q.val();
        self.m_low_axil_wdata.next = self.w_data.q.val();
        self.m_high_axil_wdata.next = self.w_data.q.val();
        self.m_low_axil_wstrb.next = self.w_strobes.q.val();
        self.m_high_axil_wstrb.next = self.w_strobes.q.val();
        self.aw_taken.next = (self.m_low_axil_awvalid.val() & self.m_low_axil_awready.val())
            | (self.m_high_axil_awvalid.val() & self.m_high_axil_awready.val());
        self.w_taken.next =
            (self.m_low_axil_wvalid.val() & self.m_low_axil_wready.val()) | (self.m_high_axil_wvalid.val() & self.m_high_axil_wready.val());
        if self.aw_taken.val() {
            self.aw_forward.d.next = false;
            self.aw_full.d.next = false;
        }
        if self.w_taken.val() {
            self.w_forward.d.next = false;
            self.w_full.d.next = false;
        }
        self.m_low_axil_bready.next = self.writing.q.val() & !self.write_high.q.val() & !self.b_full.q.val();
        self.m_high_axil_bready.next = self.writing.q.val() & self.write_high.q.val() & !self.b_full.q.val();
        self.b_taken.next =
            (self.m_low_axil_bvalid.val() & self.m_low_axil_bready.val()) | (self.m_high_axil_bvalid.val() & self.m_high_axil_bready.val());
        if self.b_taken.val() {
            self.writing.d.next = false;
            self.b_full.d.next = true;
            self.b_response.d.next = self.m_low_axil_bresp.val();
            if self.write_high.q.val() {
                self.b_response.d.next = self.m_high_axil_bresp.val();
            }
        }
        self.s_axil_bvalid.next = self.b_full.q.val();
        self.s_axil_bresp.next = self.b_response.q.val();
        if self.s_axil_bready.val() & self.b_full.q.val() {
            self.b_full.d.next = false;
        }

        // ---- a read: AR held, sent on to its port, its data held ----
        self.s_axil_arready.next = !self.ar_full.q.val();
        if self.s_axil_arvalid.val() & !self.ar_full.q.val() {
            self.ar_full.d.next = true;
            self.ar_address.d.next = self.s_axil_araddr.val();
        }
        if self.ar_full.q.val() & !self.reading.q.val() {
            self.reading.d.next = true;
            self.ar_forward.d.next = true;
            self.read_high.d.next = (self.ar_address.q.val() & self.window_mask.val()) == self.window_base.val();
        }
        self.m_low_axil_arvalid.next = self.ar_forward.q.val() & !self.read_high.q.val();
        self.m_high_axil_arvalid.next = self.ar_forward.q.val() & self.read_high.q.val();
        self.m_low_axil_araddr.next = self.ar_address.q.val();
        self.m_high_axil_araddr.next = self.ar_address.q.val();
        self.ar_taken.next = (self.m_low_axil_arvalid.val() & self.m_low_axil_arready.val())
            | (self.m_high_axil_arvalid.val() & self.m_high_axil_arready.val());
        if self.ar_taken.val() {
            self.ar_forward.d.next = false;
            self.ar_full.d.next = false;
        }
        self.m_low_axil_rready.next = self.reading.q.val() & !self.read_high.q.val() & !self.r_full.q.val();
        self.m_high_axil_rready.next = self.reading.q.val() & self.read_high.q.val() & !self.r_full.q.val();
        self.r_taken.next =
            (self.m_low_axil_rvalid.val() & self.m_low_axil_rready.val()) | (self.m_high_axil_rvalid.val() & self.m_high_axil_rready.val());
        if self.r_taken.val() {
            self.reading.d.next = false;
            self.r_full.d.next = true;
            self.r_data.d.next = self.m_low_axil_rdata.val();
            self.r_response.d.next = self.m_low_axil_rresp.val();
            if self.read_high.q.val() {
                self.r_data.d.next = self.m_high_axil_rdata.val();
                self.r_response.d.next = self.m_high_axil_rresp.val();
            }
        }
        self.s_axil_rvalid.next = self.r_full.q.val();
        self.s_axil_rdata.next = self.r_data.q.val();
        self.s_axil_rresp.next = self.r_response.q.val();
        if self.s_axil_rready.val() & self.r_full.q.val() {
            self.r_full.d.next = false;
        }

        if self.reset.val() {
            self.aw_full.d.next = false;
            self.w_full.d.next = false;
            self.writing.d.next = false;
            self.aw_forward.d.next = false;
            self.w_forward.d.next = false;
            self.b_full.d.next = false;
            self.ar_full.d.next = false;
            self.reading.d.next = false;
            self.ar_forward.d.next = false;
            self.r_full.d.next = false;
        }
    }
}
