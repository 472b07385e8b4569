//! [`Axi4Master`]: the engine's memory side (DataMover-style read and write commands with their
//! data streams from lane 0) as one AXI4 master port, for HBM, DDR or host memory through a
//! shell: the [`AxiReader`] and [`AxiWriter`] side by side.
//!
//! Every burst is INCR, full-width beats (`xSIZE` = log2 K), ID 0 (responses in order), inside one
//! block of `ferroce_contracts::memory::block_bytes` (4 KiB; 256 beats at 64 bits). `xCACHE` is
//! 0011 (normal, non-cacheable, bufferable) and `xPROT` 000, what Vivado's AXI interconnects and
//! the XDMA and QDMA bridges take by default. Error responses are counted per direction with the
//! address of the last one (`read_errors`, `write_errors`, `*_error_address`).

use super::reader::AxiReader;
use super::writer::AxiWriter;
use crate::common::elab::c;
use rust_hdl::prelude::*;

/// The AXI4 master of `W`-bit data (`K = W / 8`).
#[derive(LogicBlock)]
pub struct Axi4Master<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: forgets every command (reset the slave with it).
    pub reset: Signal<In, Bit>,
    /// Read commands (the engine's `m_read_*`): valid.
    pub s_read_valid: Signal<In, Bit>,
    /// Read commands: ready.
    pub s_read_ready: Signal<Out, Bit>,
    /// Read commands: address.
    pub s_read_addr: Signal<In, Bits<64>>,
    /// Read commands: bytes (1 to 4096).
    pub s_read_len: Signal<In, Bits<13>>,
    /// Read data from lane 0 (the engine's `s_pay_*`): valid.
    pub m_pay_tvalid: Signal<Out, Bit>,
    /// Read data: ready.
    pub m_pay_tready: Signal<In, Bit>,
    /// Read data: data.
    pub m_pay_tdata: Signal<Out, Bits<W>>,
    /// Read data: keep.
    pub m_pay_tkeep: Signal<Out, Bits<K>>,
    /// Read data: a command's last beat.
    pub m_pay_tlast: Signal<Out, Bit>,
    /// Write commands (the engine's `m_cmd_*`): valid.
    pub s_cmd_valid: Signal<In, Bit>,
    /// Write commands: ready.
    pub s_cmd_ready: Signal<Out, Bit>,
    /// Write commands: address.
    pub s_cmd_address: Signal<In, Bits<64>>,
    /// Write commands: bytes (1 to 4096).
    pub s_cmd_length: Signal<In, Bits<16>>,
    /// Write data from lane 0 (the engine's `m_wr_*`): valid.
    pub s_wr_tvalid: Signal<In, Bit>,
    /// Write data: ready.
    pub s_wr_tready: Signal<Out, Bit>,
    /// Write data: data.
    pub s_wr_tdata: Signal<In, Bits<W>>,
    /// Write data: keep (not read: the command's length says the bytes).
    pub s_wr_tkeep: Signal<In, Bits<K>>,
    /// Write data: last (not read).
    pub s_wr_tlast: Signal<In, Bit>,
    /// AXI4 AR: valid.
    pub m_axi_arvalid: Signal<Out, Bit>,
    /// AR: ready.
    pub m_axi_arready: Signal<In, Bit>,
    /// AR: address.
    pub m_axi_araddr: Signal<Out, Bits<64>>,
    /// AR: beats minus one.
    pub m_axi_arlen: Signal<Out, Bits<8>>,
    /// AR: beat size (log2 K).
    pub m_axi_arsize: Signal<Out, Bits<3>>,
    /// AR: burst type (INCR).
    pub m_axi_arburst: Signal<Out, Bits<2>>,
    /// AR: ID.
    pub m_axi_arid: Signal<Out, Bits<1>>,
    /// AR: cache.
    pub m_axi_arcache: Signal<Out, Bits<4>>,
    /// AR: protection.
    pub m_axi_arprot: Signal<Out, Bits<3>>,
    /// R: valid.
    pub m_axi_rvalid: Signal<In, Bit>,
    /// R: ready.
    pub m_axi_rready: Signal<Out, Bit>,
    /// R: data.
    pub m_axi_rdata: Signal<In, Bits<W>>,
    /// R: response.
    pub m_axi_rresp: Signal<In, Bits<2>>,
    /// R: last beat of a burst (not read: the master counts beats).
    pub m_axi_rlast: Signal<In, Bit>,
    /// R: ID (not read: always 0).
    pub m_axi_rid: Signal<In, Bits<1>>,
    /// AW: valid.
    pub m_axi_awvalid: Signal<Out, Bit>,
    /// AW: ready.
    pub m_axi_awready: Signal<In, Bit>,
    /// AW: address.
    pub m_axi_awaddr: Signal<Out, Bits<64>>,
    /// AW: beats minus one.
    pub m_axi_awlen: Signal<Out, Bits<8>>,
    /// AW: beat size (log2 K).
    pub m_axi_awsize: Signal<Out, Bits<3>>,
    /// AW: burst type (INCR).
    pub m_axi_awburst: Signal<Out, Bits<2>>,
    /// AW: ID.
    pub m_axi_awid: Signal<Out, Bits<1>>,
    /// AW: cache.
    pub m_axi_awcache: Signal<Out, Bits<4>>,
    /// AW: protection.
    pub m_axi_awprot: Signal<Out, Bits<3>>,
    /// W: valid.
    pub m_axi_wvalid: Signal<Out, Bit>,
    /// W: ready.
    pub m_axi_wready: Signal<In, Bit>,
    /// W: data.
    pub m_axi_wdata: Signal<Out, Bits<W>>,
    /// W: strobes.
    pub m_axi_wstrb: Signal<Out, Bits<K>>,
    /// W: a burst's last beat.
    pub m_axi_wlast: Signal<Out, Bit>,
    /// B: valid.
    pub m_axi_bvalid: Signal<In, Bit>,
    /// B: ready.
    pub m_axi_bready: Signal<Out, Bit>,
    /// B: response.
    pub m_axi_bresp: Signal<In, Bits<2>>,
    /// B: ID (not read).
    pub m_axi_bid: Signal<In, Bits<1>>,
    /// Read commands that saw an error response.
    pub read_errors: Signal<Out, Bits<32>>,
    /// The address of the last such command.
    pub read_error_address: Signal<Out, Bits<64>>,
    /// Write bursts answered with an error.
    pub write_errors: Signal<Out, Bits<32>>,
    /// The address of the last such burst.
    pub write_error_address: Signal<Out, Bits<64>>,

    reader: AxiReader<W, K>,
    writer: AxiWriter<W, K>,
    size: Constant<Bits<3>>,
    incr: Constant<Bits<2>>,
    cache: Constant<Bits<4>>,
}

impl<const W: usize, const K: usize> Default for Axi4Master<W, K> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_read_valid: Default::default(),
            s_read_ready: Default::default(),
            s_read_addr: Default::default(),
            s_read_len: Default::default(),
            m_pay_tvalid: Default::default(),
            m_pay_tready: Default::default(),
            m_pay_tdata: Default::default(),
            m_pay_tkeep: Default::default(),
            m_pay_tlast: Default::default(),
            s_cmd_valid: Default::default(),
            s_cmd_ready: Default::default(),
            s_cmd_address: Default::default(),
            s_cmd_length: Default::default(),
            s_wr_tvalid: Default::default(),
            s_wr_tready: Default::default(),
            s_wr_tdata: Default::default(),
            s_wr_tkeep: Default::default(),
            s_wr_tlast: Default::default(),
            m_axi_arvalid: Default::default(),
            m_axi_arready: Default::default(),
            m_axi_araddr: Default::default(),
            m_axi_arlen: Default::default(),
            m_axi_arsize: Default::default(),
            m_axi_arburst: Default::default(),
            m_axi_arid: Default::default(),
            m_axi_arcache: Default::default(),
            m_axi_arprot: Default::default(),
            m_axi_rvalid: Default::default(),
            m_axi_rready: Default::default(),
            m_axi_rdata: Default::default(),
            m_axi_rresp: Default::default(),
            m_axi_rlast: Default::default(),
            m_axi_rid: Default::default(),
            m_axi_awvalid: Default::default(),
            m_axi_awready: Default::default(),
            m_axi_awaddr: Default::default(),
            m_axi_awlen: Default::default(),
            m_axi_awsize: Default::default(),
            m_axi_awburst: Default::default(),
            m_axi_awid: Default::default(),
            m_axi_awcache: Default::default(),
            m_axi_awprot: Default::default(),
            m_axi_wvalid: Default::default(),
            m_axi_wready: Default::default(),
            m_axi_wdata: Default::default(),
            m_axi_wstrb: Default::default(),
            m_axi_wlast: Default::default(),
            m_axi_bvalid: Default::default(),
            m_axi_bready: Default::default(),
            m_axi_bresp: Default::default(),
            m_axi_bid: Default::default(),
            read_errors: Default::default(),
            read_error_address: Default::default(),
            write_errors: Default::default(),
            write_error_address: Default::default(),
            reader: Default::default(),
            writer: Default::default(),
            size: c::<3>(K.trailing_zeros() as u64),
            incr: c::<2>(1),
            cache: c::<4>(0b0011),
        }
    }
}

impl<const W: usize, const K: usize> Logic for Axi4Master<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, reader, writer);
        self.reader.reset.next = self.reset.val();
        self.writer.reset.next = self.reset.val();

        // reads
        self.reader.s_read_valid.next = self.s_read_valid.val();
        self.s_read_ready.next = self.reader.s_read_ready.val();
        self.reader.s_read_addr.next = self.s_read_addr.val();
        self.reader.s_read_len.next = self.s_read_len.val();
        self.m_pay_tvalid.next = self.reader.m_pay_tvalid.val();
        self.reader.m_pay_tready.next = self.m_pay_tready.val();
        self.m_pay_tdata.next = self.reader.m_pay_tdata.val();
        self.m_pay_tkeep.next = self.reader.m_pay_tkeep.val();
        self.m_pay_tlast.next = self.reader.m_pay_tlast.val();
        self.m_axi_arvalid.next = self.reader.m_axi_arvalid.val();
        self.reader.m_axi_arready.next = self.m_axi_arready.val();
        self.m_axi_araddr.next = self.reader.m_axi_araddr.val();
        self.m_axi_arlen.next = self.reader.m_axi_arlen.val();
        self.m_axi_arsize.next = self.size.val();
        self.m_axi_arburst.next = self.incr.val();
        self.m_axi_arid.next = 0.into();
        self.m_axi_arcache.next = self.cache.val();
        self.m_axi_arprot.next = 0.into();
        self.reader.m_axi_rvalid.next = self.m_axi_rvalid.val();
        self.m_axi_rready.next = self.reader.m_axi_rready.val();
        self.reader.m_axi_rdata.next = self.m_axi_rdata.val();
        self.reader.m_axi_rresp.next = self.m_axi_rresp.val();
        self.read_errors.next = self.reader.read_errors.val();
        self.read_error_address.next = self.reader.read_error_address.val();

        // writes
        self.writer.s_cmd_valid.next = self.s_cmd_valid.val();
        self.s_cmd_ready.next = self.writer.s_cmd_ready.val();
        self.writer.s_cmd_address.next = self.s_cmd_address.val();
        self.writer.s_cmd_length.next = self.s_cmd_length.val().get_bits::<13>(0);
        self.writer.s_wr_tvalid.next = self.s_wr_tvalid.val();
        self.s_wr_tready.next = self.writer.s_wr_tready.val();
        self.writer.s_wr_tdata.next = self.s_wr_tdata.val();
        self.m_axi_awvalid.next = self.writer.m_axi_awvalid.val();
        self.writer.m_axi_awready.next = self.m_axi_awready.val();
        self.m_axi_awaddr.next = self.writer.m_axi_awaddr.val();
        self.m_axi_awlen.next = self.writer.m_axi_awlen.val();
        self.m_axi_awsize.next = self.size.val();
        self.m_axi_awburst.next = self.incr.val();
        self.m_axi_awid.next = 0.into();
        self.m_axi_awcache.next = self.cache.val();
        self.m_axi_awprot.next = 0.into();
        self.m_axi_wvalid.next = self.writer.m_axi_wvalid.val();
        self.writer.m_axi_wready.next = self.m_axi_wready.val();
        self.m_axi_wdata.next = self.writer.m_axi_wdata.val();
        self.m_axi_wstrb.next = self.writer.m_axi_wstrb.val();
        self.m_axi_wlast.next = self.writer.m_axi_wlast.val();
        self.writer.m_axi_bvalid.next = self.m_axi_bvalid.val();
        self.m_axi_bready.next = self.writer.m_axi_bready.val();
        self.writer.m_axi_bresp.next = self.m_axi_bresp.val();
        self.write_errors.next = self.writer.write_errors.val();
        self.write_error_address.next = self.writer.write_error_address.val();
    }
}
