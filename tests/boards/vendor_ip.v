// The AMD primitives, XPM macros and IP cores the board tops instantiate, as empty modules with
// the ports the tops use (names and widths as the IP's product guide and generated templates
// give them, for the configuration build.tcl sets), so that Verilator and yosys can check the
// tops' structure without Vivado. Blackboxes: nothing here is logic.

(* blackbox *) module IBUFDS (input wire I, input wire IB, output wire O);
endmodule

(* blackbox *) module BUFG (input wire I, output wire O);
endmodule

(* blackbox *) module IBUFDS_GTE4 #(parameter [1:0] REFCLK_HROW_CK_SEL = 2'b00) (
    input wire I, input wire IB, input wire CEB, output wire O, output wire ODIV2);
endmodule

(* blackbox *) module xpm_cdc_async_rst #(
    parameter integer DEST_SYNC_FF = 4, parameter integer INIT_SYNC_FF = 0,
    parameter integer RST_ACTIVE_HIGH = 0) (
    input wire src_arst, input wire dest_clk, output wire dest_arst);
endmodule

// cmac_usplus 3.1: CAUI-4, RS-FEC, AXI4-Stream, no AXI4-Lite, no flow control (PG203)
(* blackbox *) module ferroce_cmac (
    input wire [3:0] gt_rxp_in, input wire [3:0] gt_rxn_in,
    output wire [3:0] gt_txp_out, output wire [3:0] gt_txn_out,
    input wire gt_ref_clk_p, input wire gt_ref_clk_n, input wire init_clk, input wire sys_reset,
    input wire [11:0] gt_loopback_in, input wire gtwiz_reset_tx_datapath, input wire gtwiz_reset_rx_datapath,
    output wire gt_txusrclk2, input wire rx_clk, output wire usr_rx_reset, output wire usr_tx_reset,
    input wire core_rx_reset, input wire core_tx_reset, input wire core_drp_reset,
    input wire drp_clk, input wire [9:0] drp_addr, input wire [15:0] drp_di, input wire drp_en, input wire drp_we,
    input wire ctl_rx_enable, input wire ctl_rx_force_resync, input wire ctl_rx_test_pattern,
    input wire ctl_tx_enable, input wire ctl_tx_test_pattern, input wire ctl_tx_send_idle,
    input wire ctl_tx_send_rfi, input wire ctl_tx_send_lfi,
    input wire ctl_rsfec_ieee_error_indication_mode, input wire ctl_rx_rsfec_enable,
    input wire ctl_rx_rsfec_enable_correction, input wire ctl_rx_rsfec_enable_indication,
    input wire ctl_tx_rsfec_enable,
    output wire stat_rx_aligned,
    output wire rx_axis_tvalid, output wire [511:0] rx_axis_tdata, output wire [63:0] rx_axis_tkeep,
    output wire rx_axis_tlast, output wire rx_axis_tuser,
    output wire tx_axis_tready, input wire tx_axis_tvalid, input wire [511:0] tx_axis_tdata,
    input wire [63:0] tx_axis_tkeep, input wire tx_axis_tlast, input wire tx_axis_tuser,
    input wire [55:0] tx_preamblein);
endmodule

// xdma 4.1, AXI Bridge mode, Gen3 x16, 512-bit AXI, 64-bit addresses, 4-bit IDs (PG194/PG195)
(* blackbox *) module ferroce_pcie (
    input wire sys_clk, input wire sys_clk_gt, input wire sys_rst_n,
    input wire [15:0] pci_exp_rxp, input wire [15:0] pci_exp_rxn,
    output wire [15:0] pci_exp_txp, output wire [15:0] pci_exp_txn,
    output wire axi_aclk, output wire axi_aresetn, output wire user_lnk_up,
    output wire [3:0] m_axib_awid, output wire [63:0] m_axib_awaddr, output wire [7:0] m_axib_awlen,
    output wire [2:0] m_axib_awsize, output wire [1:0] m_axib_awburst, output wire [2:0] m_axib_awprot,
    output wire m_axib_awvalid, input wire m_axib_awready, output wire m_axib_awlock, output wire [3:0] m_axib_awcache,
    output wire [511:0] m_axib_wdata, output wire [63:0] m_axib_wstrb, output wire m_axib_wlast,
    output wire m_axib_wvalid, input wire m_axib_wready,
    input wire [3:0] m_axib_bid, input wire [1:0] m_axib_bresp, input wire m_axib_bvalid, output wire m_axib_bready,
    output wire [3:0] m_axib_arid, output wire [63:0] m_axib_araddr, output wire [7:0] m_axib_arlen,
    output wire [2:0] m_axib_arsize, output wire [1:0] m_axib_arburst, output wire [2:0] m_axib_arprot,
    output wire m_axib_arvalid, input wire m_axib_arready, output wire m_axib_arlock, output wire [3:0] m_axib_arcache,
    input wire [3:0] m_axib_rid, input wire [511:0] m_axib_rdata, input wire [1:0] m_axib_rresp, input wire m_axib_rlast,
    input wire m_axib_rvalid, output wire m_axib_rready,
    input wire [3:0] s_axib_awid, input wire [63:0] s_axib_awaddr, input wire [3:0] s_axib_awregion,
    input wire [7:0] s_axib_awlen, input wire [2:0] s_axib_awsize, input wire [1:0] s_axib_awburst,
    input wire s_axib_awvalid, output wire s_axib_awready,
    input wire [511:0] s_axib_wdata, input wire [63:0] s_axib_wstrb, input wire s_axib_wlast,
    input wire s_axib_wvalid, output wire s_axib_wready,
    output wire [3:0] s_axib_bid, output wire [1:0] s_axib_bresp, output wire s_axib_bvalid, input wire s_axib_bready,
    input wire [3:0] s_axib_arid, input wire [63:0] s_axib_araddr, input wire [3:0] s_axib_arregion,
    input wire [7:0] s_axib_arlen, input wire [2:0] s_axib_arsize, input wire [1:0] s_axib_arburst,
    input wire s_axib_arvalid, output wire s_axib_arready,
    output wire [3:0] s_axib_rid, output wire [511:0] s_axib_rdata, output wire [1:0] s_axib_rresp,
    output wire s_axib_rlast, output wire s_axib_rvalid, input wire s_axib_rready);
endmodule

// axi_dwidth_converter 2.1: AXI4, 32-bit addresses, 512 → 32 bits, 4-bit IDs on the slave side
(* blackbox *) module ferroce_bar_width (
    input wire s_axi_aclk, input wire s_axi_aresetn,
    input wire [3:0] s_axi_awid, input wire [31:0] s_axi_awaddr, input wire [7:0] s_axi_awlen, input wire [2:0] s_axi_awsize,
    input wire [1:0] s_axi_awburst, input wire s_axi_awlock, input wire [3:0] s_axi_awcache, input wire [2:0] s_axi_awprot,
    input wire [3:0] s_axi_awregion, input wire [3:0] s_axi_awqos, input wire s_axi_awvalid, output wire s_axi_awready,
    input wire [511:0] s_axi_wdata, input wire [63:0] s_axi_wstrb, input wire s_axi_wlast, input wire s_axi_wvalid, output wire s_axi_wready,
    output wire [3:0] s_axi_bid, output wire [1:0] s_axi_bresp, output wire s_axi_bvalid, input wire s_axi_bready,
    input wire [3:0] s_axi_arid, input wire [31:0] s_axi_araddr, input wire [7:0] s_axi_arlen, input wire [2:0] s_axi_arsize,
    input wire [1:0] s_axi_arburst, input wire s_axi_arlock, input wire [3:0] s_axi_arcache, input wire [2:0] s_axi_arprot,
    input wire [3:0] s_axi_arregion, input wire [3:0] s_axi_arqos, input wire s_axi_arvalid, output wire s_axi_arready,
    output wire [3:0] s_axi_rid, output wire [511:0] s_axi_rdata, output wire [1:0] s_axi_rresp, output wire s_axi_rlast,
    output wire s_axi_rvalid, input wire s_axi_rready,
    output wire [31:0] m_axi_awaddr, output wire [7:0] m_axi_awlen, output wire [2:0] m_axi_awsize, output wire [1:0] m_axi_awburst,
    output wire m_axi_awlock, output wire [3:0] m_axi_awcache, output wire [2:0] m_axi_awprot, output wire [3:0] m_axi_awregion,
    output wire [3:0] m_axi_awqos, output wire m_axi_awvalid, input wire m_axi_awready,
    output wire [31:0] m_axi_wdata, output wire [3:0] m_axi_wstrb, output wire m_axi_wlast, output wire m_axi_wvalid, input wire m_axi_wready,
    input wire [1:0] m_axi_bresp, input wire m_axi_bvalid, output wire m_axi_bready,
    output wire [31:0] m_axi_araddr, output wire [7:0] m_axi_arlen, output wire [2:0] m_axi_arsize, output wire [1:0] m_axi_arburst,
    output wire m_axi_arlock, output wire [3:0] m_axi_arcache, output wire [2:0] m_axi_arprot, output wire [3:0] m_axi_arregion,
    output wire [3:0] m_axi_arqos, output wire m_axi_arvalid, input wire m_axi_arready,
    input wire [31:0] m_axi_rdata, input wire [1:0] m_axi_rresp, input wire m_axi_rlast, input wire m_axi_rvalid, output wire m_axi_rready);
endmodule

// axi_protocol_converter 2.1: AXI4 → AXI4-Lite, 32-bit addresses and data, no IDs
(* blackbox *) module ferroce_bar_lite (
    input wire aclk, input wire aresetn,
    input wire [31:0] s_axi_awaddr, input wire [7:0] s_axi_awlen, input wire [2:0] s_axi_awsize, input wire [1:0] s_axi_awburst,
    input wire s_axi_awlock, input wire [3:0] s_axi_awcache, input wire [2:0] s_axi_awprot, input wire [3:0] s_axi_awregion,
    input wire [3:0] s_axi_awqos, input wire s_axi_awvalid, output wire s_axi_awready,
    input wire [31:0] s_axi_wdata, input wire [3:0] s_axi_wstrb, input wire s_axi_wlast, input wire s_axi_wvalid, output wire s_axi_wready,
    output wire [1:0] s_axi_bresp, output wire s_axi_bvalid, input wire s_axi_bready,
    input wire [31:0] s_axi_araddr, input wire [7:0] s_axi_arlen, input wire [2:0] s_axi_arsize, input wire [1:0] s_axi_arburst,
    input wire s_axi_arlock, input wire [3:0] s_axi_arcache, input wire [2:0] s_axi_arprot, input wire [3:0] s_axi_arregion,
    input wire [3:0] s_axi_arqos, input wire s_axi_arvalid, output wire s_axi_arready,
    output wire [31:0] s_axi_rdata, output wire [1:0] s_axi_rresp, output wire s_axi_rlast, output wire s_axi_rvalid, input wire s_axi_rready,
    output wire [31:0] m_axi_awaddr, output wire [2:0] m_axi_awprot, output wire m_axi_awvalid, input wire m_axi_awready,
    output wire [31:0] m_axi_wdata, output wire [3:0] m_axi_wstrb, output wire m_axi_wvalid, input wire m_axi_wready,
    input wire [1:0] m_axi_bresp, input wire m_axi_bvalid, output wire m_axi_bready,
    output wire [31:0] m_axi_araddr, output wire [2:0] m_axi_arprot, output wire m_axi_arvalid, input wire m_axi_arready,
    input wire [31:0] m_axi_rdata, input wire [1:0] m_axi_rresp, input wire m_axi_rvalid, output wire m_axi_rready);
endmodule

// axi_clock_converter 2.1: AXI4-Lite, 32-bit addresses and data, asynchronous clocks
(* blackbox *) module ferroce_bar_cdc (
    input wire s_axi_aclk, input wire s_axi_aresetn,
    input wire [31:0] s_axi_awaddr, input wire [2:0] s_axi_awprot, input wire s_axi_awvalid, output wire s_axi_awready,
    input wire [31:0] s_axi_wdata, input wire [3:0] s_axi_wstrb, input wire s_axi_wvalid, output wire s_axi_wready,
    output wire [1:0] s_axi_bresp, output wire s_axi_bvalid, input wire s_axi_bready,
    input wire [31:0] s_axi_araddr, input wire [2:0] s_axi_arprot, input wire s_axi_arvalid, output wire s_axi_arready,
    output wire [31:0] s_axi_rdata, output wire [1:0] s_axi_rresp, output wire s_axi_rvalid, input wire s_axi_rready,
    input wire m_axi_aclk, input wire m_axi_aresetn,
    output wire [31:0] m_axi_awaddr, output wire [2:0] m_axi_awprot, output wire m_axi_awvalid, input wire m_axi_awready,
    output wire [31:0] m_axi_wdata, output wire [3:0] m_axi_wstrb, output wire m_axi_wvalid, input wire m_axi_wready,
    input wire [1:0] m_axi_bresp, input wire m_axi_bvalid, output wire m_axi_bready,
    output wire [31:0] m_axi_araddr, output wire [2:0] m_axi_arprot, output wire m_axi_arvalid, input wire m_axi_arready,
    input wire [31:0] m_axi_rdata, input wire [1:0] m_axi_rresp, input wire m_axi_rvalid, output wire m_axi_rready);
endmodule

// axi_clock_converter 2.1: AXI4, 64-bit addresses, 512-bit data, 1-bit IDs, asynchronous clocks
(* blackbox *) module ferroce_memory_cdc (
    input wire s_axi_aclk, input wire s_axi_aresetn,
    input wire [0:0] s_axi_awid, input wire [63:0] s_axi_awaddr, input wire [7:0] s_axi_awlen, input wire [2:0] s_axi_awsize,
    input wire [1:0] s_axi_awburst, input wire s_axi_awlock, input wire [3:0] s_axi_awcache, input wire [2:0] s_axi_awprot,
    input wire [3:0] s_axi_awregion, input wire [3:0] s_axi_awqos, input wire s_axi_awvalid, output wire s_axi_awready,
    input wire [511:0] s_axi_wdata, input wire [63:0] s_axi_wstrb, input wire s_axi_wlast, input wire s_axi_wvalid, output wire s_axi_wready,
    output wire [0:0] s_axi_bid, output wire [1:0] s_axi_bresp, output wire s_axi_bvalid, input wire s_axi_bready,
    input wire [0:0] s_axi_arid, input wire [63:0] s_axi_araddr, input wire [7:0] s_axi_arlen, input wire [2:0] s_axi_arsize,
    input wire [1:0] s_axi_arburst, input wire s_axi_arlock, input wire [3:0] s_axi_arcache, input wire [2:0] s_axi_arprot,
    input wire [3:0] s_axi_arregion, input wire [3:0] s_axi_arqos, input wire s_axi_arvalid, output wire s_axi_arready,
    output wire [0:0] s_axi_rid, output wire [511:0] s_axi_rdata, output wire [1:0] s_axi_rresp, output wire s_axi_rlast,
    output wire s_axi_rvalid, input wire s_axi_rready,
    input wire m_axi_aclk, input wire m_axi_aresetn,
    output wire [0:0] m_axi_awid, output wire [63:0] m_axi_awaddr, output wire [7:0] m_axi_awlen, output wire [2:0] m_axi_awsize,
    output wire [1:0] m_axi_awburst, output wire m_axi_awlock, output wire [3:0] m_axi_awcache, output wire [2:0] m_axi_awprot,
    output wire [3:0] m_axi_awregion, output wire [3:0] m_axi_awqos, output wire m_axi_awvalid, input wire m_axi_awready,
    output wire [511:0] m_axi_wdata, output wire [63:0] m_axi_wstrb, output wire m_axi_wlast, output wire m_axi_wvalid, input wire m_axi_wready,
    input wire [0:0] m_axi_bid, input wire [1:0] m_axi_bresp, input wire m_axi_bvalid, output wire m_axi_bready,
    output wire [0:0] m_axi_arid, output wire [63:0] m_axi_araddr, output wire [7:0] m_axi_arlen, output wire [2:0] m_axi_arsize,
    output wire [1:0] m_axi_arburst, output wire m_axi_arlock, output wire [3:0] m_axi_arcache, output wire [2:0] m_axi_arprot,
    output wire [3:0] m_axi_arregion, output wire [3:0] m_axi_arqos, output wire m_axi_arvalid, input wire m_axi_arready,
    input wire [0:0] m_axi_rid, input wire [511:0] m_axi_rdata, input wire [1:0] m_axi_rresp, input wire m_axi_rlast,
    input wire m_axi_rvalid, output wire m_axi_rready);
endmodule

// xxv_ethernet 4.x: one 10GBASE-R core, MAC+PCS/PMA 64-bit, AXI4-Stream, no AXI4-Lite, the GT
// and its shared logic in the core, the RX FIFO (PG210)
(* blackbox *) module ferroce_xxv (
    input wire gt_rxp_in_0, input wire gt_rxn_in_0, output wire gt_txp_out_0, output wire gt_txn_out_0,
    input wire gt_refclk_p, input wire gt_refclk_n, output wire gt_refclk_out,
    input wire dclk, input wire sys_reset,
    output wire tx_clk_out_0, input wire rx_core_clk_0, output wire rx_clk_out_0,
    input wire rx_reset_0, input wire tx_reset_0,
    input wire gtwiz_reset_tx_datapath_0, input wire gtwiz_reset_rx_datapath_0,
    input wire [2:0] txoutclksel_in_0, input wire [2:0] rxoutclksel_in_0,
    output wire user_rx_reset_0, output wire user_tx_reset_0, output wire stat_rx_status_0,
    output wire rx_axis_tvalid_0, output wire [63:0] rx_axis_tdata_0, output wire [7:0] rx_axis_tkeep_0,
    output wire rx_axis_tlast_0, output wire rx_axis_tuser_0,
    output wire tx_axis_tready_0, input wire tx_axis_tvalid_0, input wire [63:0] tx_axis_tdata_0,
    input wire [7:0] tx_axis_tkeep_0, input wire tx_axis_tlast_0, input wire tx_axis_tuser_0,
    input wire [55:0] tx_preamblein_0,
    input wire ctl_rx_enable_0, input wire ctl_rx_check_preamble_0, input wire ctl_rx_check_sfd_0,
    input wire ctl_rx_delete_fcs_0, input wire ctl_rx_ignore_fcs_0, input wire [14:0] ctl_rx_max_packet_len_0,
    input wire [7:0] ctl_rx_min_packet_len_0, input wire ctl_rx_process_lfi_0, input wire ctl_rx_force_resync_0,
    input wire ctl_rx_test_pattern_0, input wire ctl_rx_test_pattern_enable_0, input wire ctl_rx_data_pattern_select_0,
    input wire ctl_tx_enable_0, input wire ctl_tx_send_rfi_0, input wire ctl_tx_send_lfi_0, input wire ctl_tx_send_idle_0,
    input wire ctl_tx_fcs_ins_enable_0, input wire ctl_tx_ignore_fcs_0,
    input wire ctl_tx_test_pattern_0, input wire ctl_tx_test_pattern_enable_0, input wire ctl_tx_test_pattern_select_0,
    input wire ctl_tx_data_pattern_select_0, input wire [57:0] ctl_tx_test_pattern_seed_a_0,
    input wire [57:0] ctl_tx_test_pattern_seed_b_0);
endmodule

// the block design ferroce_ps (build.tcl): zynq_ultra_ps_e with M_AXI_HPM0_FPD through an AXI4 →
// AXI4-Lite converter (40-bit addresses) and S_AXI_HP0_FPD (64-bit data, 49-bit addresses,
// 6-bit IDs), both on engine_clock
(* blackbox *) module ferroce_ps (
    input wire engine_clock, input wire engine_resetn, output wire ps_resetn,
    output wire [39:0] m_axil_awaddr, output wire [2:0] m_axil_awprot, output wire m_axil_awvalid, input wire m_axil_awready,
    output wire [31:0] m_axil_wdata, output wire [3:0] m_axil_wstrb, output wire m_axil_wvalid, input wire m_axil_wready,
    input wire [1:0] m_axil_bresp, input wire m_axil_bvalid, output wire m_axil_bready,
    output wire [39:0] m_axil_araddr, output wire [2:0] m_axil_arprot, output wire m_axil_arvalid, input wire m_axil_arready,
    input wire [31:0] m_axil_rdata, input wire [1:0] m_axil_rresp, input wire m_axil_rvalid, output wire m_axil_rready,
    input wire [5:0] s_axi_memory_awid, input wire [48:0] s_axi_memory_awaddr, input wire [7:0] s_axi_memory_awlen,
    input wire [2:0] s_axi_memory_awsize, input wire [1:0] s_axi_memory_awburst, input wire s_axi_memory_awlock,
    input wire [3:0] s_axi_memory_awcache, input wire [2:0] s_axi_memory_awprot, input wire [3:0] s_axi_memory_awqos,
    input wire s_axi_memory_awvalid, output wire s_axi_memory_awready,
    input wire [63:0] s_axi_memory_wdata, input wire [7:0] s_axi_memory_wstrb, input wire s_axi_memory_wlast,
    input wire s_axi_memory_wvalid, output wire s_axi_memory_wready,
    output wire [5:0] s_axi_memory_bid, output wire [1:0] s_axi_memory_bresp, output wire s_axi_memory_bvalid,
    input wire s_axi_memory_bready,
    input wire [5:0] s_axi_memory_arid, input wire [48:0] s_axi_memory_araddr, input wire [7:0] s_axi_memory_arlen,
    input wire [2:0] s_axi_memory_arsize, input wire [1:0] s_axi_memory_arburst, input wire s_axi_memory_arlock,
    input wire [3:0] s_axi_memory_arcache, input wire [2:0] s_axi_memory_arprot, input wire [3:0] s_axi_memory_arqos,
    input wire s_axi_memory_arvalid, output wire s_axi_memory_arready,
    output wire [5:0] s_axi_memory_rid, output wire [63:0] s_axi_memory_rdata, output wire [1:0] s_axi_memory_rresp,
    output wire s_axi_memory_rlast, output wire s_axi_memory_rvalid, input wire s_axi_memory_rready);
endmodule
