// Ferroce on the AMD ZCU102 (Zynq UltraScale+ xczu9eg): the 64-bit engine on SFP+ cage 0
// (10GBASE-R, XXV Ethernet), its register file on the processor's M_AXI_HPM0_FPD (at
// 0xA000_0000) and its memory side on the processor's DDR through S_AXI_HP0_FPD. Structural
// only: the logic is in the generated modules (ferroce_engine_c64_q16_w64,
// ferroce_axi4_master_w64, ferroce_mac_ingress_w64) and what build.tcl creates (ferroce_xxv,
// the XXV Ethernet core; ferroce_ps, the block design of the processor and its AXI4-Lite
// converter). docs/boards.md describes the clocks, resets and what a user adds.
//
//  SFP0 ─ ferroce_xxv ─ rx_axis ─► ferroce_mac_ingress_w64 ─► engine s_axis
//                     ◄─ tx_axis ───────────────────────────── engine m_axis
//  PS ─ ferroce_ps ─ M_AXI_HPM0_FPD → AXI4-Lite ─► engine s_axil
//                  ◄─ S_AXI_HP0_FPD (DDR) ◄─ ferroce_axi4_master_w64 ◄─► engine memory side
//
// Clocks: mac_clock (156.25 MHz, the XXV core's TX clock, also its RX core clock through its
// RX FIFO) runs the engine and both processor ports; control_clock (125 MHz, the board's
// system clock) the core's DRP and reset logic.

`default_nettype none

module ferroce_board_zcu102 (
    input  wire       clk_125mhz_p,
    input  wire       clk_125mhz_n,
    input  wire       cpu_reset,
    input  wire       sfp0_refclk_p,
    input  wire       sfp0_refclk_n,
    input  wire       sfp0_rx_p,
    input  wire       sfp0_rx_n,
    output wire       sfp0_tx_p,
    output wire       sfp0_tx_n,
    output wire       sfp0_tx_disable_b,
    output wire [7:0] led
);

// the SFP+ module's transmitter on (the pin is an active-low disable)
assign sfp0_tx_disable_b = 1'b1;

// ---- the board's 125 MHz clock: the XXV core's DRP clock, power-on reset ----
wire clk_125mhz_buffered;
wire control_clock;
IBUFDS control_clock_input (.I(clk_125mhz_p), .IB(clk_125mhz_n), .O(clk_125mhz_buffered));
BUFG control_clock_buffer (.I(clk_125mhz_buffered), .O(control_clock));

// CPU_RESET (active high, asynchronous) resets the MAC and, through it, the engine
wire cpu_reset_synchronized;
xpm_cdc_async_rst #(.DEST_SYNC_FF(4), .INIT_SYNC_FF(0), .RST_ACTIVE_HIGH(1)) cpu_reset_crossing (
    .src_arst(cpu_reset), .dest_clk(control_clock), .dest_arst(cpu_reset_synchronized)
);
(* srl_style = "register" *) reg [15:0] power_on_reset = 16'hFFFF;
always @(posedge control_clock) power_on_reset <= {power_on_reset[14:0], cpu_reset_synchronized};
wire mac_reset = power_on_reset[15];

// ---- 10GBASE-R: the XXV Ethernet core ----
wire        mac_clock;
wire        mac_rx_reset;
wire        mac_tx_reset;
wire        mac_rx_status;
wire        mac_rx_tvalid;
wire [63:0] mac_rx_tdata;
wire [7:0]  mac_rx_tkeep;
wire        mac_rx_tlast;
wire        mac_rx_tuser;
wire        mac_tx_tvalid;
wire        mac_tx_tready;
wire [63:0] mac_tx_tdata;
wire [7:0]  mac_tx_tkeep;
wire        mac_tx_tlast;

// PG210's bring-up: receive enabled, remote fault indication sent until the receive side has
// block lock without fault, then transmit enabled
reg mac_tx_enable = 1'b0;
always @(posedge mac_clock) mac_tx_enable <= mac_rx_status;

ferroce_xxv xxv (
    .gt_rxp_in_0(sfp0_rx_p),
    .gt_rxn_in_0(sfp0_rx_n),
    .gt_txp_out_0(sfp0_tx_p),
    .gt_txn_out_0(sfp0_tx_n),
    .gt_refclk_p(sfp0_refclk_p),
    .gt_refclk_n(sfp0_refclk_n),
    .gt_refclk_out(),
    .dclk(control_clock),
    .sys_reset(mac_reset),
    .tx_clk_out_0(mac_clock),
    .rx_core_clk_0(mac_clock),
    .rx_clk_out_0(),
    .rx_reset_0(1'b0),
    .tx_reset_0(1'b0),
    .gtwiz_reset_tx_datapath_0(1'b0),
    .gtwiz_reset_rx_datapath_0(1'b0),
    .txoutclksel_in_0(3'b101),
    .rxoutclksel_in_0(3'b101),
    .user_rx_reset_0(mac_rx_reset),
    .user_tx_reset_0(mac_tx_reset),
    .stat_rx_status_0(mac_rx_status),
    .rx_axis_tvalid_0(mac_rx_tvalid),
    .rx_axis_tdata_0(mac_rx_tdata),
    .rx_axis_tkeep_0(mac_rx_tkeep),
    .rx_axis_tlast_0(mac_rx_tlast),
    .rx_axis_tuser_0(mac_rx_tuser),
    .tx_axis_tready_0(mac_tx_tready),
    .tx_axis_tvalid_0(mac_tx_tvalid),
    .tx_axis_tdata_0(mac_tx_tdata),
    .tx_axis_tkeep_0(mac_tx_tkeep),
    .tx_axis_tlast_0(mac_tx_tlast),
    .tx_axis_tuser_0(1'b0),
    .tx_preamblein_0(56'd0),
    .ctl_rx_enable_0(1'b1),
    .ctl_rx_check_preamble_0(1'b1),
    .ctl_rx_check_sfd_0(1'b1),
    .ctl_rx_delete_fcs_0(1'b1),
    .ctl_rx_ignore_fcs_0(1'b0),
    .ctl_rx_max_packet_len_0(15'd9600),
    .ctl_rx_min_packet_len_0(8'd64),
    .ctl_rx_process_lfi_0(1'b0),
    .ctl_rx_force_resync_0(1'b0),
    .ctl_rx_test_pattern_0(1'b0),
    .ctl_rx_test_pattern_enable_0(1'b0),
    .ctl_rx_data_pattern_select_0(1'b0),
    .ctl_tx_enable_0(mac_tx_enable),
    .ctl_tx_send_rfi_0(~mac_tx_enable),
    .ctl_tx_send_lfi_0(1'b0),
    .ctl_tx_send_idle_0(1'b0),
    .ctl_tx_fcs_ins_enable_0(1'b1),
    .ctl_tx_ignore_fcs_0(1'b0),
    .ctl_tx_test_pattern_0(1'b0),
    .ctl_tx_test_pattern_enable_0(1'b0),
    .ctl_tx_test_pattern_select_0(1'b0),
    .ctl_tx_data_pattern_select_0(1'b0),
    .ctl_tx_test_pattern_seed_a_0(58'd0),
    .ctl_tx_test_pattern_seed_b_0(58'd0)
);

// ---- the processor: registers at 0xA000_0000, DDR for the engine's memory side ----
wire ps_resetn;
// verilator lint_off UNUSEDSIGNAL
wire [39:0] regs_awaddr, regs_araddr;   // at 0xA000_0000; the register map decodes 19 bits
// verilator lint_on UNUSEDSIGNAL
wire        regs_awvalid, regs_awready, regs_wvalid, regs_wready, regs_bvalid, regs_bready;
wire        regs_arvalid, regs_arready, regs_rvalid, regs_rready;
wire [31:0] regs_wdata, regs_rdata;
wire [3:0]  regs_wstrb;
wire [1:0]  regs_bresp, regs_rresp;

// the engine resets with the MAC's user side and while the processor holds the fabric in reset;
// synchronous to mac_clock, active high
wire ps_reset_in_mac_domain;
xpm_cdc_async_rst #(.DEST_SYNC_FF(4), .INIT_SYNC_FF(0), .RST_ACTIVE_HIGH(0)) ps_reset_crossing (
    .src_arst(ps_resetn), .dest_clk(mac_clock), .dest_arst(ps_reset_in_mac_domain)
);
reg engine_reset = 1'b1;
always @(posedge mac_clock) engine_reset <= mac_rx_reset | mac_tx_reset | ~ps_reset_in_mac_domain;

wire [0:0]  memory_awid,    memory_arid;
// verilator lint_off UNUSEDSIGNAL
wire [63:0] memory_awaddr,  memory_araddr;   // the processor's 49-bit physical addresses
// verilator lint_on UNUSEDSIGNAL
wire [7:0]  memory_awlen,   memory_arlen;
wire [2:0]  memory_awsize,  memory_arsize,  memory_awprot,  memory_arprot;
wire [1:0]  memory_awburst, memory_arburst, memory_bresp,   memory_rresp;
wire [3:0]  memory_awcache, memory_arcache;
wire        memory_awvalid, memory_awready, memory_wvalid,  memory_wready, memory_wlast;
wire        memory_bvalid,  memory_bready,  memory_arvalid, memory_arready;
wire        memory_rvalid,  memory_rready,  memory_rlast;
// verilator lint_off UNUSEDSIGNAL
wire [5:0]  memory_bid,     memory_rid;      // always 0: the master's only ID
// verilator lint_on UNUSEDSIGNAL
wire [63:0] memory_wdata,   memory_rdata;
wire [7:0]  memory_wstrb;

ferroce_ps ps (
    .engine_clock(mac_clock),
    .engine_resetn(~engine_reset),
    .ps_resetn(ps_resetn),
    .m_axil_awaddr(regs_awaddr), .m_axil_awprot(), .m_axil_awvalid(regs_awvalid), .m_axil_awready(regs_awready),
    .m_axil_wdata(regs_wdata), .m_axil_wstrb(regs_wstrb), .m_axil_wvalid(regs_wvalid), .m_axil_wready(regs_wready),
    .m_axil_bresp(regs_bresp), .m_axil_bvalid(regs_bvalid), .m_axil_bready(regs_bready),
    .m_axil_araddr(regs_araddr), .m_axil_arprot(), .m_axil_arvalid(regs_arvalid), .m_axil_arready(regs_arready),
    .m_axil_rdata(regs_rdata), .m_axil_rresp(regs_rresp), .m_axil_rvalid(regs_rvalid), .m_axil_rready(regs_rready),
    .s_axi_memory_awid({5'd0, memory_awid}), .s_axi_memory_awaddr(memory_awaddr[48:0]), .s_axi_memory_awlen(memory_awlen),
    .s_axi_memory_awsize(memory_awsize), .s_axi_memory_awburst(memory_awburst), .s_axi_memory_awlock(1'b0),
    .s_axi_memory_awcache(memory_awcache), .s_axi_memory_awprot(memory_awprot), .s_axi_memory_awqos(4'd0),
    .s_axi_memory_awvalid(memory_awvalid), .s_axi_memory_awready(memory_awready),
    .s_axi_memory_wdata(memory_wdata), .s_axi_memory_wstrb(memory_wstrb), .s_axi_memory_wlast(memory_wlast),
    .s_axi_memory_wvalid(memory_wvalid), .s_axi_memory_wready(memory_wready),
    .s_axi_memory_bid(memory_bid), .s_axi_memory_bresp(memory_bresp), .s_axi_memory_bvalid(memory_bvalid),
    .s_axi_memory_bready(memory_bready),
    .s_axi_memory_arid({5'd0, memory_arid}), .s_axi_memory_araddr(memory_araddr[48:0]), .s_axi_memory_arlen(memory_arlen),
    .s_axi_memory_arsize(memory_arsize), .s_axi_memory_arburst(memory_arburst), .s_axi_memory_arlock(1'b0),
    .s_axi_memory_arcache(memory_arcache), .s_axi_memory_arprot(memory_arprot), .s_axi_memory_arqos(4'd0),
    .s_axi_memory_arvalid(memory_arvalid), .s_axi_memory_arready(memory_arready),
    .s_axi_memory_rid(memory_rid), .s_axi_memory_rdata(memory_rdata), .s_axi_memory_rresp(memory_rresp),
    .s_axi_memory_rlast(memory_rlast), .s_axi_memory_rvalid(memory_rvalid), .s_axi_memory_rready(memory_rready)
);

// ---- the engine ----
wire        rx_tvalid, rx_tready, rx_tlast;
wire [63:0] rx_tdata;
wire [7:0]  rx_tkeep;
wire        init_done;

ferroce_mac_ingress_w64 ingress (
    .clock(mac_clock), .reset(engine_reset),
    .s_mac_tvalid(mac_rx_tvalid), .s_mac_tdata(mac_rx_tdata), .s_mac_tkeep(mac_rx_tkeep),
    .s_mac_tlast(mac_rx_tlast), .s_mac_tuser(mac_rx_tuser),
    .m_axis_tvalid(rx_tvalid), .m_axis_tready(rx_tready), .m_axis_tdata(rx_tdata),
    .m_axis_tkeep(rx_tkeep), .m_axis_tlast(rx_tlast),
    .frames_passed(), .dropped_bad_frame(), .dropped_no_room()
);

wire        read_valid, read_ready, pay_tvalid, pay_tready, pay_tlast;
wire [63:0] read_addr;
wire [12:0] read_len;
wire [63:0] pay_tdata;
wire [7:0]  pay_tkeep;
wire        cmd_valid, cmd_ready, wr_tvalid, wr_tready, wr_tlast;
wire [63:0] cmd_address;
wire [15:0] cmd_length;
wire [63:0] wr_tdata;
wire [7:0]  wr_tkeep;

ferroce_engine_c64_q16_w64 engine (
    .clock(mac_clock), .reset(engine_reset), .init_done(init_done),
    .s_axil_awvalid(regs_awvalid), .s_axil_awready(regs_awready), .s_axil_awaddr(regs_awaddr[18:0]),
    .s_axil_wvalid(regs_wvalid), .s_axil_wready(regs_wready), .s_axil_wdata(regs_wdata), .s_axil_wstrb(regs_wstrb),
    .s_axil_bvalid(regs_bvalid), .s_axil_bready(regs_bready), .s_axil_bresp(regs_bresp),
    .s_axil_arvalid(regs_arvalid), .s_axil_arready(regs_arready), .s_axil_araddr(regs_araddr[18:0]),
    .s_axil_rvalid(regs_rvalid), .s_axil_rready(regs_rready), .s_axil_rdata(regs_rdata), .s_axil_rresp(regs_rresp),
    .s_axis_tvalid(rx_tvalid), .s_axis_tready(rx_tready), .s_axis_tdata(rx_tdata), .s_axis_tkeep(rx_tkeep), .s_axis_tlast(rx_tlast),
    .m_axis_tvalid(mac_tx_tvalid), .m_axis_tready(mac_tx_tready), .m_axis_tdata(mac_tx_tdata),
    .m_axis_tkeep(mac_tx_tkeep), .m_axis_tlast(mac_tx_tlast),
    // frames that are neither RoCEv2 nor answered by the engine (ARP, ICMP echo): dropped
    .m_pass_tvalid(), .m_pass_tready(1'b1), .m_pass_tdata(), .m_pass_tkeep(), .m_pass_tlast(),
    .m_read_valid(read_valid), .m_read_ready(read_ready), .m_read_addr(read_addr), .m_read_len(read_len),
    .s_pay_tvalid(pay_tvalid), .s_pay_tready(pay_tready), .s_pay_tdata(pay_tdata), .s_pay_tkeep(pay_tkeep), .s_pay_tlast(pay_tlast),
    .m_cmd_valid(cmd_valid), .m_cmd_ready(cmd_ready), .m_cmd_address(cmd_address), .m_cmd_length(cmd_length),
    .m_wr_tvalid(wr_tvalid), .m_wr_tready(wr_tready), .m_wr_tdata(wr_tdata), .m_wr_tkeep(wr_tkeep), .m_wr_tlast(wr_tlast),
    // the stream ports (docs/stream.md): no source on this board as it ships; a design that
    // streams (an ADC, a correlator) drives them in the engine's clock domain
    .s_stream_tvalid(2'd0), .s_stream_tready(), .s_stream_tdata({128{1'b0}}), .s_stream_tkeep({16{1'b0}}), .s_stream_tlast(2'd0)
);

ferroce_axi4_master_w64 memory_master (
    .clock(mac_clock), .reset(engine_reset),
    .s_read_valid(read_valid), .s_read_ready(read_ready), .s_read_addr(read_addr), .s_read_len(read_len),
    .m_pay_tvalid(pay_tvalid), .m_pay_tready(pay_tready), .m_pay_tdata(pay_tdata), .m_pay_tkeep(pay_tkeep), .m_pay_tlast(pay_tlast),
    .s_cmd_valid(cmd_valid), .s_cmd_ready(cmd_ready), .s_cmd_address(cmd_address), .s_cmd_length(cmd_length),
    .s_wr_tvalid(wr_tvalid), .s_wr_tready(wr_tready), .s_wr_tdata(wr_tdata), .s_wr_tkeep(wr_tkeep), .s_wr_tlast(wr_tlast),
    .m_axi_arvalid(memory_arvalid), .m_axi_arready(memory_arready), .m_axi_araddr(memory_araddr), .m_axi_arlen(memory_arlen),
    .m_axi_arsize(memory_arsize), .m_axi_arburst(memory_arburst), .m_axi_arid(memory_arid), .m_axi_arcache(memory_arcache),
    .m_axi_arprot(memory_arprot),
    .m_axi_rvalid(memory_rvalid), .m_axi_rready(memory_rready), .m_axi_rdata(memory_rdata), .m_axi_rresp(memory_rresp),
    .m_axi_rlast(memory_rlast), .m_axi_rid(memory_rid[0]),
    .m_axi_awvalid(memory_awvalid), .m_axi_awready(memory_awready), .m_axi_awaddr(memory_awaddr), .m_axi_awlen(memory_awlen),
    .m_axi_awsize(memory_awsize), .m_axi_awburst(memory_awburst), .m_axi_awid(memory_awid), .m_axi_awcache(memory_awcache),
    .m_axi_awprot(memory_awprot),
    .m_axi_wvalid(memory_wvalid), .m_axi_wready(memory_wready), .m_axi_wdata(memory_wdata), .m_axi_wstrb(memory_wstrb),
    .m_axi_wlast(memory_wlast),
    .m_axi_bvalid(memory_bvalid), .m_axi_bready(memory_bready), .m_axi_bresp(memory_bresp), .m_axi_bid(memory_bid[0]),
    .read_errors(), .read_error_address(), .write_errors(), .write_error_address()
);

// ---- LEDs: 0 the link (receive side aligned), 1 the engine out of reset and initialised,
// 2 a frame received, 3 a frame sent (each held for about 0.1 s) ----
reg [23:0] rx_activity = 24'd0;
reg [23:0] tx_activity = 24'd0;
always @(posedge mac_clock) begin
    rx_activity <= (mac_rx_tvalid && mac_rx_tlast) ? 24'hFFFFFF : rx_activity - {23'd0, rx_activity != 24'd0};
    tx_activity <= (mac_tx_tvalid && mac_tx_tready && mac_tx_tlast) ? 24'hFFFFFF : tx_activity - {23'd0, tx_activity != 24'd0};
end
assign led = {4'd0, tx_activity != 24'd0, rx_activity != 24'd0, init_done & ~engine_reset, mac_rx_status};

endmodule

`default_nettype wire
