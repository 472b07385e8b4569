// Ferroce on an AMD Alveo U280 or U55C: the 512-bit engine on QSFP28 port 0 (100GbE, CMAC with
// RS-FEC), its register file on PCIe BAR 0 and its memory side on host memory (XDMA in AXI
// Bridge mode). Structural only: the logic is in the generated modules (ferroce_engine_*,
// ferroce_axi4_master_w512, ferroce_mac_ingress_w512) and the AMD IP that build.tcl creates
// (ferroce_cmac, ferroce_pcie, ferroce_bar_width, ferroce_bar_lite, ferroce_bar_cdc,
// ferroce_memory_cdc). docs/boards.md describes the clocks, resets and what a user adds.
//
//  QSFP28 0 ─ ferroce_cmac ─ rx_axis ─► ferroce_mac_ingress ─► engine s_axis
//                          ◄─ tx_axis ──────────────────────── engine m_axis
//  PCIe ─ ferroce_pcie ─ M_AXI_B (BAR 0) ─► width 512→32 ─► AXI4-Lite ─► clock crossing ─► engine s_axil
//                      ◄─ S_AXI_B (host memory) ◄─ clock crossing ◄─ ferroce_axi4_master ◄─► engine memory side
//
// Clocks: mac_clock (322.265625 MHz, the CMAC's TX user clock, also its RX clock) runs the
// engine; pcie_clock (250 MHz, the XDMA's axi_aclk) the PCIe side; init_clock (100 MHz, the
// board's system clock) the CMAC's init and DRP logic.

`default_nettype none

module ferroce_board_alveo (
    input  wire        sysclk_100_p,
    input  wire        sysclk_100_n,
    input  wire        qsfp0_refclk_p,
    input  wire        qsfp0_refclk_n,
    input  wire [3:0]  qsfp0_rx_p,
    input  wire [3:0]  qsfp0_rx_n,
    output wire [3:0]  qsfp0_tx_p,
    output wire [3:0]  qsfp0_tx_n,
    input  wire        pcie_refclk_p,
    input  wire        pcie_refclk_n,
    input  wire        pcie_perst_n,
    input  wire [15:0] pcie_rx_p,
    input  wire [15:0] pcie_rx_n,
    output wire [15:0] pcie_tx_p,
    output wire [15:0] pcie_tx_n,
    output wire        hbm_cattrip
);

// HBM is not used: its temperature trip output held low, or the card's controller powers it off
assign hbm_cattrip = 1'b0;

// ---- the board's 100 MHz clock: CMAC init and DRP clock, power-on reset ----
wire sysclk_100_buffered;
wire init_clock;
IBUFDS sysclk_100_buffer (.I(sysclk_100_p), .IB(sysclk_100_n), .O(sysclk_100_buffered));
BUFG init_clock_buffer (.I(sysclk_100_buffered), .O(init_clock));

(* srl_style = "register" *) reg [15:0] power_on_reset = 16'hFFFF;
always @(posedge init_clock) power_on_reset <= {power_on_reset[14:0], 1'b0};
wire cmac_reset = power_on_reset[15];

// ---- 100GbE: the CMAC ----
wire         mac_clock;
wire         mac_rx_reset;
wire         mac_tx_reset;
wire         mac_rx_aligned;
wire         mac_rx_tvalid;
wire [511:0] mac_rx_tdata;
wire [63:0]  mac_rx_tkeep;
wire         mac_rx_tlast;
wire         mac_rx_tuser;
wire         mac_tx_tvalid;
wire         mac_tx_tready;
wire [511:0] mac_tx_tdata;
wire [63:0]  mac_tx_tkeep;
wire         mac_tx_tlast;

// PG203 bring-up without its AXI4-Lite interface: receive enabled, remote fault indication sent
// until the receive side is aligned, then transmit enabled
reg mac_tx_enable = 1'b0;
always @(posedge mac_clock) mac_tx_enable <= mac_rx_aligned;

ferroce_cmac cmac (
    .gt_rxp_in(qsfp0_rx_p),
    .gt_rxn_in(qsfp0_rx_n),
    .gt_txp_out(qsfp0_tx_p),
    .gt_txn_out(qsfp0_tx_n),
    .gt_ref_clk_p(qsfp0_refclk_p),
    .gt_ref_clk_n(qsfp0_refclk_n),
    .init_clk(init_clock),
    .sys_reset(cmac_reset),
    .gt_loopback_in(12'd0),
    .gtwiz_reset_tx_datapath(1'b0),
    .gtwiz_reset_rx_datapath(1'b0),
    .gt_txusrclk2(mac_clock),
    .rx_clk(mac_clock),
    .usr_rx_reset(mac_rx_reset),
    .usr_tx_reset(mac_tx_reset),
    .core_rx_reset(1'b0),
    .core_tx_reset(1'b0),
    .core_drp_reset(1'b0),
    .drp_clk(1'b0),
    .drp_addr(10'd0),
    .drp_di(16'd0),
    .drp_en(1'b0),
    .drp_we(1'b0),
    .ctl_rx_enable(1'b1),
    .ctl_rx_force_resync(1'b0),
    .ctl_rx_test_pattern(1'b0),
    .ctl_tx_enable(mac_tx_enable),
    .ctl_tx_test_pattern(1'b0),
    .ctl_tx_send_idle(1'b0),
    .ctl_tx_send_rfi(~mac_tx_enable),
    .ctl_tx_send_lfi(1'b0),
    .ctl_rsfec_ieee_error_indication_mode(1'b0),
    .ctl_rx_rsfec_enable(1'b1),
    .ctl_rx_rsfec_enable_correction(1'b1),
    .ctl_rx_rsfec_enable_indication(1'b1),
    .ctl_tx_rsfec_enable(1'b1),
    .stat_rx_aligned(mac_rx_aligned),
    .rx_axis_tvalid(mac_rx_tvalid),
    .rx_axis_tdata(mac_rx_tdata),
    .rx_axis_tkeep(mac_rx_tkeep),
    .rx_axis_tlast(mac_rx_tlast),
    .rx_axis_tuser(mac_rx_tuser),
    .tx_axis_tready(mac_tx_tready),
    .tx_axis_tvalid(mac_tx_tvalid),
    .tx_axis_tdata(mac_tx_tdata),
    .tx_axis_tkeep(mac_tx_tkeep),
    .tx_axis_tlast(mac_tx_tlast),
    .tx_axis_tuser(1'b0),
    .tx_preamblein(56'd0)
);

// ---- PCIe Gen3 x16: the XDMA in AXI Bridge mode ----
wire pcie_refclk;
wire pcie_refclk_gt;
IBUFDS_GTE4 #(.REFCLK_HROW_CK_SEL(2'b00)) pcie_refclk_buffer (
    .I(pcie_refclk_p), .IB(pcie_refclk_n), .CEB(1'b0), .O(pcie_refclk_gt), .ODIV2(pcie_refclk)
);

wire pcie_clock;
wire pcie_resetn;

// BAR 0 → the register file: AXI4 512 bits (pcie_clock) → AXI4 32 bits → AXI4-Lite → mac_clock
wire [3:0]   bar_awid,    bar_arid,    bar_bid,    bar_rid;
// verilator lint_off UNUSEDSIGNAL
wire [63:0]  bar_awaddr,  bar_araddr;    // BAR 0 is 1 MiB: the low 32 bits go on
// verilator lint_on UNUSEDSIGNAL
wire [7:0]   bar_awlen,   bar_arlen;
wire [2:0]   bar_awsize,  bar_arsize,  bar_awprot,  bar_arprot;
wire [1:0]   bar_awburst, bar_arburst, bar_bresp,   bar_rresp;
wire [3:0]   bar_awcache, bar_arcache;
wire         bar_awlock,  bar_arlock;
wire         bar_awvalid, bar_awready, bar_wvalid,  bar_wready, bar_wlast;
wire         bar_bvalid,  bar_bready,  bar_arvalid, bar_arready;
wire         bar_rvalid,  bar_rready,  bar_rlast;
wire [511:0] bar_wdata,   bar_rdata;
wire [63:0]  bar_wstrb;

// host memory ← the AXI4 master (after the clock crossing, pcie_clock); the master uses ID 0
// only, the bridge's IDs are 4 bits wide
wire [0:0]   host_awid,    host_arid;
// verilator lint_off UNUSEDSIGNAL
wire [3:0]   host_bid,     host_rid;     // always 0: the master's only ID
// verilator lint_on UNUSEDSIGNAL
wire [63:0]  host_awaddr,  host_araddr;
wire [7:0]   host_awlen,   host_arlen;
wire [2:0]   host_awsize,  host_arsize;
wire [1:0]   host_awburst, host_arburst, host_bresp,   host_rresp;
wire         host_awvalid, host_awready, host_wvalid,  host_wready, host_wlast;
wire         host_bvalid,  host_bready,  host_arvalid, host_arready;
wire         host_rvalid,  host_rready,  host_rlast;
wire [511:0] host_wdata,   host_rdata;
wire [63:0]  host_wstrb;

ferroce_pcie pcie (
    .sys_clk(pcie_refclk),
    .sys_clk_gt(pcie_refclk_gt),
    .sys_rst_n(pcie_perst_n),
    .pci_exp_rxp(pcie_rx_p),
    .pci_exp_rxn(pcie_rx_n),
    .pci_exp_txp(pcie_tx_p),
    .pci_exp_txn(pcie_tx_n),
    .axi_aclk(pcie_clock),
    .axi_aresetn(pcie_resetn),
    .user_lnk_up(),
    .m_axib_awid(bar_awid), .m_axib_awaddr(bar_awaddr), .m_axib_awlen(bar_awlen),
    .m_axib_awsize(bar_awsize), .m_axib_awburst(bar_awburst), .m_axib_awprot(bar_awprot),
    .m_axib_awvalid(bar_awvalid), .m_axib_awready(bar_awready), .m_axib_awlock(bar_awlock),
    .m_axib_awcache(bar_awcache),
    .m_axib_wdata(bar_wdata), .m_axib_wstrb(bar_wstrb), .m_axib_wlast(bar_wlast),
    .m_axib_wvalid(bar_wvalid), .m_axib_wready(bar_wready),
    .m_axib_bid(bar_bid), .m_axib_bresp(bar_bresp), .m_axib_bvalid(bar_bvalid), .m_axib_bready(bar_bready),
    .m_axib_arid(bar_arid), .m_axib_araddr(bar_araddr), .m_axib_arlen(bar_arlen),
    .m_axib_arsize(bar_arsize), .m_axib_arburst(bar_arburst), .m_axib_arprot(bar_arprot),
    .m_axib_arvalid(bar_arvalid), .m_axib_arready(bar_arready), .m_axib_arlock(bar_arlock),
    .m_axib_arcache(bar_arcache),
    .m_axib_rid(bar_rid), .m_axib_rdata(bar_rdata), .m_axib_rresp(bar_rresp), .m_axib_rlast(bar_rlast),
    .m_axib_rvalid(bar_rvalid), .m_axib_rready(bar_rready),
    .s_axib_awid({3'd0, host_awid}), .s_axib_awaddr(host_awaddr), .s_axib_awregion(4'd0),
    .s_axib_awlen(host_awlen), .s_axib_awsize(host_awsize), .s_axib_awburst(host_awburst),
    .s_axib_awvalid(host_awvalid), .s_axib_awready(host_awready),
    .s_axib_wdata(host_wdata), .s_axib_wstrb(host_wstrb), .s_axib_wlast(host_wlast),
    .s_axib_wvalid(host_wvalid), .s_axib_wready(host_wready),
    .s_axib_bid(host_bid), .s_axib_bresp(host_bresp), .s_axib_bvalid(host_bvalid), .s_axib_bready(host_bready),
    .s_axib_arid({3'd0, host_arid}), .s_axib_araddr(host_araddr), .s_axib_arregion(4'd0),
    .s_axib_arlen(host_arlen), .s_axib_arsize(host_arsize), .s_axib_arburst(host_arburst),
    .s_axib_arvalid(host_arvalid), .s_axib_arready(host_arready),
    .s_axib_rid(host_rid), .s_axib_rdata(host_rdata), .s_axib_rresp(host_rresp), .s_axib_rlast(host_rlast),
    .s_axib_rvalid(host_rvalid), .s_axib_rready(host_rready)
);

// the BAR's accesses narrowed to 32 bits (they are single 32-bit accesses from the host)
wire [31:0] narrow_awaddr, narrow_araddr;
wire [7:0]  narrow_awlen,  narrow_arlen;
wire [2:0]  narrow_awsize, narrow_arsize, narrow_awprot, narrow_arprot;
wire [1:0]  narrow_awburst, narrow_arburst, narrow_bresp, narrow_rresp;
wire [3:0]  narrow_awcache, narrow_arcache;
wire        narrow_awlock, narrow_arlock;
wire        narrow_awvalid, narrow_awready, narrow_wvalid, narrow_wready, narrow_wlast;
wire        narrow_bvalid, narrow_bready, narrow_arvalid, narrow_arready;
wire        narrow_rvalid, narrow_rready, narrow_rlast;
wire [31:0] narrow_wdata, narrow_rdata;
wire [3:0]  narrow_wstrb;

ferroce_bar_width bar_width (
    .s_axi_aclk(pcie_clock), .s_axi_aresetn(pcie_resetn),
    .s_axi_awid(bar_awid), .s_axi_awaddr(bar_awaddr[31:0]), .s_axi_awlen(bar_awlen), .s_axi_awsize(bar_awsize),
    .s_axi_awburst(bar_awburst), .s_axi_awlock(bar_awlock), .s_axi_awcache(bar_awcache), .s_axi_awprot(bar_awprot),
    .s_axi_awregion(4'd0), .s_axi_awqos(4'd0), .s_axi_awvalid(bar_awvalid), .s_axi_awready(bar_awready),
    .s_axi_wdata(bar_wdata), .s_axi_wstrb(bar_wstrb), .s_axi_wlast(bar_wlast), .s_axi_wvalid(bar_wvalid), .s_axi_wready(bar_wready),
    .s_axi_bid(bar_bid), .s_axi_bresp(bar_bresp), .s_axi_bvalid(bar_bvalid), .s_axi_bready(bar_bready),
    .s_axi_arid(bar_arid), .s_axi_araddr(bar_araddr[31:0]), .s_axi_arlen(bar_arlen), .s_axi_arsize(bar_arsize),
    .s_axi_arburst(bar_arburst), .s_axi_arlock(bar_arlock), .s_axi_arcache(bar_arcache), .s_axi_arprot(bar_arprot),
    .s_axi_arregion(4'd0), .s_axi_arqos(4'd0), .s_axi_arvalid(bar_arvalid), .s_axi_arready(bar_arready),
    .s_axi_rid(bar_rid), .s_axi_rdata(bar_rdata), .s_axi_rresp(bar_rresp), .s_axi_rlast(bar_rlast),
    .s_axi_rvalid(bar_rvalid), .s_axi_rready(bar_rready),
    .m_axi_awaddr(narrow_awaddr), .m_axi_awlen(narrow_awlen), .m_axi_awsize(narrow_awsize), .m_axi_awburst(narrow_awburst),
    .m_axi_awlock(narrow_awlock), .m_axi_awcache(narrow_awcache), .m_axi_awprot(narrow_awprot), .m_axi_awregion(),
    .m_axi_awqos(), .m_axi_awvalid(narrow_awvalid), .m_axi_awready(narrow_awready),
    .m_axi_wdata(narrow_wdata), .m_axi_wstrb(narrow_wstrb), .m_axi_wlast(narrow_wlast), .m_axi_wvalid(narrow_wvalid), .m_axi_wready(narrow_wready),
    .m_axi_bresp(narrow_bresp), .m_axi_bvalid(narrow_bvalid), .m_axi_bready(narrow_bready),
    .m_axi_araddr(narrow_araddr), .m_axi_arlen(narrow_arlen), .m_axi_arsize(narrow_arsize), .m_axi_arburst(narrow_arburst),
    .m_axi_arlock(narrow_arlock), .m_axi_arcache(narrow_arcache), .m_axi_arprot(narrow_arprot), .m_axi_arregion(),
    .m_axi_arqos(), .m_axi_arvalid(narrow_arvalid), .m_axi_arready(narrow_arready),
    .m_axi_rdata(narrow_rdata), .m_axi_rresp(narrow_rresp), .m_axi_rlast(narrow_rlast), .m_axi_rvalid(narrow_rvalid), .m_axi_rready(narrow_rready)
);

wire [31:0] lite_awaddr, lite_araddr;
wire [2:0]  lite_awprot, lite_arprot;
wire        lite_awvalid, lite_awready, lite_wvalid, lite_wready, lite_bvalid, lite_bready;
wire        lite_arvalid, lite_arready, lite_rvalid, lite_rready;
wire [31:0] lite_wdata, lite_rdata;
wire [3:0]  lite_wstrb;
wire [1:0]  lite_bresp, lite_rresp;

ferroce_bar_lite bar_lite (
    .aclk(pcie_clock), .aresetn(pcie_resetn),
    .s_axi_awaddr(narrow_awaddr), .s_axi_awlen(narrow_awlen), .s_axi_awsize(narrow_awsize), .s_axi_awburst(narrow_awburst),
    .s_axi_awlock(narrow_awlock), .s_axi_awcache(narrow_awcache), .s_axi_awprot(narrow_awprot), .s_axi_awregion(4'd0),
    .s_axi_awqos(4'd0), .s_axi_awvalid(narrow_awvalid), .s_axi_awready(narrow_awready),
    .s_axi_wdata(narrow_wdata), .s_axi_wstrb(narrow_wstrb), .s_axi_wlast(narrow_wlast), .s_axi_wvalid(narrow_wvalid), .s_axi_wready(narrow_wready),
    .s_axi_bresp(narrow_bresp), .s_axi_bvalid(narrow_bvalid), .s_axi_bready(narrow_bready),
    .s_axi_araddr(narrow_araddr), .s_axi_arlen(narrow_arlen), .s_axi_arsize(narrow_arsize), .s_axi_arburst(narrow_arburst),
    .s_axi_arlock(narrow_arlock), .s_axi_arcache(narrow_arcache), .s_axi_arprot(narrow_arprot), .s_axi_arregion(4'd0),
    .s_axi_arqos(4'd0), .s_axi_arvalid(narrow_arvalid), .s_axi_arready(narrow_arready),
    .s_axi_rdata(narrow_rdata), .s_axi_rresp(narrow_rresp), .s_axi_rlast(narrow_rlast), .s_axi_rvalid(narrow_rvalid), .s_axi_rready(narrow_rready),
    .m_axi_awaddr(lite_awaddr), .m_axi_awprot(lite_awprot), .m_axi_awvalid(lite_awvalid), .m_axi_awready(lite_awready),
    .m_axi_wdata(lite_wdata), .m_axi_wstrb(lite_wstrb), .m_axi_wvalid(lite_wvalid), .m_axi_wready(lite_wready),
    .m_axi_bresp(lite_bresp), .m_axi_bvalid(lite_bvalid), .m_axi_bready(lite_bready),
    .m_axi_araddr(lite_araddr), .m_axi_arprot(lite_arprot), .m_axi_arvalid(lite_arvalid), .m_axi_arready(lite_arready),
    .m_axi_rdata(lite_rdata), .m_axi_rresp(lite_rresp), .m_axi_rvalid(lite_rvalid), .m_axi_rready(lite_rready)
);

// ---- the engine's clock domain: its reset ----
// The engine resets with the CMAC's user side and with the PCIe link (the register file and
// the clock crossings are reset together); synchronous to mac_clock, active high.
wire pcie_reset_in_mac_domain;
xpm_cdc_async_rst #(.DEST_SYNC_FF(4), .INIT_SYNC_FF(0), .RST_ACTIVE_HIGH(0)) pcie_reset_crossing (
    .src_arst(pcie_resetn), .dest_clk(mac_clock), .dest_arst(pcie_reset_in_mac_domain)
);
reg engine_reset = 1'b1;
always @(posedge mac_clock) engine_reset <= mac_rx_reset | mac_tx_reset | ~pcie_reset_in_mac_domain;

// verilator lint_off UNUSEDSIGNAL
wire [31:0] regs_awaddr, regs_araddr;   // the register map decodes 19 bits
// verilator lint_on UNUSEDSIGNAL
wire        regs_awvalid, regs_awready, regs_wvalid, regs_wready, regs_bvalid, regs_bready;
wire        regs_arvalid, regs_arready, regs_rvalid, regs_rready;
wire [31:0] regs_wdata, regs_rdata;
wire [3:0]  regs_wstrb;
wire [1:0]  regs_bresp, regs_rresp;

ferroce_bar_cdc bar_cdc (
    .s_axi_aclk(pcie_clock), .s_axi_aresetn(pcie_resetn),
    .s_axi_awaddr(lite_awaddr), .s_axi_awprot(lite_awprot), .s_axi_awvalid(lite_awvalid), .s_axi_awready(lite_awready),
    .s_axi_wdata(lite_wdata), .s_axi_wstrb(lite_wstrb), .s_axi_wvalid(lite_wvalid), .s_axi_wready(lite_wready),
    .s_axi_bresp(lite_bresp), .s_axi_bvalid(lite_bvalid), .s_axi_bready(lite_bready),
    .s_axi_araddr(lite_araddr), .s_axi_arprot(lite_arprot), .s_axi_arvalid(lite_arvalid), .s_axi_arready(lite_arready),
    .s_axi_rdata(lite_rdata), .s_axi_rresp(lite_rresp), .s_axi_rvalid(lite_rvalid), .s_axi_rready(lite_rready),
    .m_axi_aclk(mac_clock), .m_axi_aresetn(~engine_reset),
    .m_axi_awaddr(regs_awaddr), .m_axi_awprot(), .m_axi_awvalid(regs_awvalid), .m_axi_awready(regs_awready),
    .m_axi_wdata(regs_wdata), .m_axi_wstrb(regs_wstrb), .m_axi_wvalid(regs_wvalid), .m_axi_wready(regs_wready),
    .m_axi_bresp(regs_bresp), .m_axi_bvalid(regs_bvalid), .m_axi_bready(regs_bready),
    .m_axi_araddr(regs_araddr), .m_axi_arprot(), .m_axi_arvalid(regs_arvalid), .m_axi_arready(regs_arready),
    .m_axi_rdata(regs_rdata), .m_axi_rresp(regs_rresp), .m_axi_rvalid(regs_rvalid), .m_axi_rready(regs_rready)
);

// ---- the engine ----
wire         rx_tvalid, rx_tready, rx_tlast;
wire [511:0] rx_tdata;
wire [63:0]  rx_tkeep;

ferroce_mac_ingress_w512 ingress (
    .clock(mac_clock), .reset(engine_reset),
    .s_mac_tvalid(mac_rx_tvalid), .s_mac_tdata(mac_rx_tdata), .s_mac_tkeep(mac_rx_tkeep),
    .s_mac_tlast(mac_rx_tlast), .s_mac_tuser(mac_rx_tuser),
    .m_axis_tvalid(rx_tvalid), .m_axis_tready(rx_tready), .m_axis_tdata(rx_tdata),
    .m_axis_tkeep(rx_tkeep), .m_axis_tlast(rx_tlast),
    .frames_passed(), .dropped_bad_frame(), .dropped_no_room()
);

wire         read_valid, read_ready, pay_tvalid, pay_tready, pay_tlast;
wire [63:0]  read_addr;
wire [12:0]  read_len;
wire [511:0] pay_tdata;
wire [63:0]  pay_tkeep;
wire         cmd_valid, cmd_ready, wr_tvalid, wr_tready, wr_tlast;
wire [63:0]  cmd_address;
wire [15:0]  cmd_length;
wire [511:0] wr_tdata;
wire [63:0]  wr_tkeep;

ferroce_engine_c2048_q256_w512 engine (
    .clock(mac_clock), .reset(engine_reset), .init_done(),
    .s_axil_awvalid(regs_awvalid), .s_axil_awready(regs_awready), .s_axil_awaddr(regs_awaddr[18:0]),
    .s_axil_wvalid(regs_wvalid), .s_axil_wready(regs_wready), .s_axil_wdata(regs_wdata), .s_axil_wstrb(regs_wstrb),
    .s_axil_bvalid(regs_bvalid), .s_axil_bready(regs_bready), .s_axil_bresp(regs_bresp),
    .s_axil_arvalid(regs_arvalid), .s_axil_arready(regs_arready), .s_axil_araddr(regs_araddr[18:0]),
    .s_axil_rvalid(regs_rvalid), .s_axil_rready(regs_rready), .s_axil_rdata(regs_rdata), .s_axil_rresp(regs_rresp),
    .s_axis_tvalid(rx_tvalid), .s_axis_tready(rx_tready), .s_axis_tdata(rx_tdata), .s_axis_tkeep(rx_tkeep), .s_axis_tlast(rx_tlast),
    .m_axis_tvalid(mac_tx_tvalid), .m_axis_tready(mac_tx_tready), .m_axis_tdata(mac_tx_tdata),
    .m_axis_tkeep(mac_tx_tkeep), .m_axis_tlast(mac_tx_tlast),
    // frames that are neither RoCEv2 nor answered by the engine (ARP, ICMP echo) have no host
    // path on this board: taken and dropped
    .m_pass_tvalid(), .m_pass_tready(1'b1), .m_pass_tdata(), .m_pass_tkeep(), .m_pass_tlast(),
    .m_read_valid(read_valid), .m_read_ready(read_ready), .m_read_addr(read_addr), .m_read_len(read_len),
    .s_pay_tvalid(pay_tvalid), .s_pay_tready(pay_tready), .s_pay_tdata(pay_tdata), .s_pay_tkeep(pay_tkeep), .s_pay_tlast(pay_tlast),
    .m_cmd_valid(cmd_valid), .m_cmd_ready(cmd_ready), .m_cmd_address(cmd_address), .m_cmd_length(cmd_length),
    .m_wr_tvalid(wr_tvalid), .m_wr_tready(wr_tready), .m_wr_tdata(wr_tdata), .m_wr_tkeep(wr_tkeep), .m_wr_tlast(wr_tlast),
    // the stream ports (docs/stream.md): no source on this board as it ships; a design that
    // streams (an ADC, a correlator) drives them in the engine's clock domain
    .s_stream_tvalid(8'd0), .s_stream_tready(), .s_stream_tdata({4096{1'b0}}), .s_stream_tkeep({512{1'b0}}), .s_stream_tlast(8'd0)
);

// ---- the engine's memory side: AXI4 master, then the clock crossing to the PCIe side ----
wire [0:0]   memory_awid,    memory_arid;
wire [63:0]  memory_awaddr,  memory_araddr;
wire [7:0]   memory_awlen,   memory_arlen;
wire [2:0]   memory_awsize,  memory_arsize,  memory_awprot,  memory_arprot;
wire [1:0]   memory_awburst, memory_arburst, memory_bresp,   memory_rresp;
wire [3:0]   memory_awcache, memory_arcache;
wire         memory_awvalid, memory_awready, memory_wvalid,  memory_wready, memory_wlast;
wire         memory_bvalid,  memory_bready,  memory_arvalid, memory_arready;
wire         memory_rvalid,  memory_rready,  memory_rlast;
wire [0:0]   memory_bid,     memory_rid;
wire [511:0] memory_wdata,   memory_rdata;
wire [63:0]  memory_wstrb;

ferroce_axi4_master_w512 memory_master (
    .clock(mac_clock), .reset(engine_reset),
    .s_read_valid(read_valid), .s_read_ready(read_ready), .s_read_addr(read_addr), .s_read_len(read_len),
    .m_pay_tvalid(pay_tvalid), .m_pay_tready(pay_tready), .m_pay_tdata(pay_tdata), .m_pay_tkeep(pay_tkeep), .m_pay_tlast(pay_tlast),
    .s_cmd_valid(cmd_valid), .s_cmd_ready(cmd_ready), .s_cmd_address(cmd_address), .s_cmd_length(cmd_length),
    .s_wr_tvalid(wr_tvalid), .s_wr_tready(wr_tready), .s_wr_tdata(wr_tdata), .s_wr_tkeep(wr_tkeep), .s_wr_tlast(wr_tlast),
    .m_axi_arvalid(memory_arvalid), .m_axi_arready(memory_arready), .m_axi_araddr(memory_araddr), .m_axi_arlen(memory_arlen),
    .m_axi_arsize(memory_arsize), .m_axi_arburst(memory_arburst), .m_axi_arid(memory_arid), .m_axi_arcache(memory_arcache),
    .m_axi_arprot(memory_arprot),
    .m_axi_rvalid(memory_rvalid), .m_axi_rready(memory_rready), .m_axi_rdata(memory_rdata), .m_axi_rresp(memory_rresp),
    .m_axi_rlast(memory_rlast), .m_axi_rid(memory_rid),
    .m_axi_awvalid(memory_awvalid), .m_axi_awready(memory_awready), .m_axi_awaddr(memory_awaddr), .m_axi_awlen(memory_awlen),
    .m_axi_awsize(memory_awsize), .m_axi_awburst(memory_awburst), .m_axi_awid(memory_awid), .m_axi_awcache(memory_awcache),
    .m_axi_awprot(memory_awprot),
    .m_axi_wvalid(memory_wvalid), .m_axi_wready(memory_wready), .m_axi_wdata(memory_wdata), .m_axi_wstrb(memory_wstrb),
    .m_axi_wlast(memory_wlast),
    .m_axi_bvalid(memory_bvalid), .m_axi_bready(memory_bready), .m_axi_bresp(memory_bresp), .m_axi_bid(memory_bid),
    .read_errors(), .read_error_address(), .write_errors(), .write_error_address()
);

ferroce_memory_cdc memory_cdc (
    .s_axi_aclk(mac_clock), .s_axi_aresetn(~engine_reset),
    .s_axi_awid(memory_awid), .s_axi_awaddr(memory_awaddr), .s_axi_awlen(memory_awlen), .s_axi_awsize(memory_awsize),
    .s_axi_awburst(memory_awburst), .s_axi_awlock(1'b0), .s_axi_awcache(memory_awcache), .s_axi_awprot(memory_awprot),
    .s_axi_awregion(4'd0), .s_axi_awqos(4'd0), .s_axi_awvalid(memory_awvalid), .s_axi_awready(memory_awready),
    .s_axi_wdata(memory_wdata), .s_axi_wstrb(memory_wstrb), .s_axi_wlast(memory_wlast), .s_axi_wvalid(memory_wvalid), .s_axi_wready(memory_wready),
    .s_axi_bid(memory_bid), .s_axi_bresp(memory_bresp), .s_axi_bvalid(memory_bvalid), .s_axi_bready(memory_bready),
    .s_axi_arid(memory_arid), .s_axi_araddr(memory_araddr), .s_axi_arlen(memory_arlen), .s_axi_arsize(memory_arsize),
    .s_axi_arburst(memory_arburst), .s_axi_arlock(1'b0), .s_axi_arcache(memory_arcache), .s_axi_arprot(memory_arprot),
    .s_axi_arregion(4'd0), .s_axi_arqos(4'd0), .s_axi_arvalid(memory_arvalid), .s_axi_arready(memory_arready),
    .s_axi_rid(memory_rid), .s_axi_rdata(memory_rdata), .s_axi_rresp(memory_rresp), .s_axi_rlast(memory_rlast),
    .s_axi_rvalid(memory_rvalid), .s_axi_rready(memory_rready),
    .m_axi_aclk(pcie_clock), .m_axi_aresetn(pcie_resetn),
    .m_axi_awid(host_awid), .m_axi_awaddr(host_awaddr), .m_axi_awlen(host_awlen), .m_axi_awsize(host_awsize),
    .m_axi_awburst(host_awburst), .m_axi_awlock(), .m_axi_awcache(), .m_axi_awprot(),
    .m_axi_awregion(), .m_axi_awqos(), .m_axi_awvalid(host_awvalid), .m_axi_awready(host_awready),
    .m_axi_wdata(host_wdata), .m_axi_wstrb(host_wstrb), .m_axi_wlast(host_wlast), .m_axi_wvalid(host_wvalid), .m_axi_wready(host_wready),
    .m_axi_bid(host_bid[0]), .m_axi_bresp(host_bresp), .m_axi_bvalid(host_bvalid), .m_axi_bready(host_bready),
    .m_axi_arid(host_arid), .m_axi_araddr(host_araddr), .m_axi_arlen(host_arlen), .m_axi_arsize(host_arsize),
    .m_axi_arburst(host_arburst), .m_axi_arlock(), .m_axi_arcache(), .m_axi_arprot(),
    .m_axi_arregion(), .m_axi_arqos(), .m_axi_arvalid(host_arvalid), .m_axi_arready(host_arready),
    .m_axi_rid(host_rid[0]), .m_axi_rdata(host_rdata), .m_axi_rresp(host_rresp), .m_axi_rlast(host_rlast),
    .m_axi_rvalid(host_rvalid), .m_axi_rready(host_rready)
);

endmodule

`default_nettype wire
