# Ferroce on an Alveo U280 or U55C, from the generated sources to a bitstream:
#
#   vivado -mode batch -source build.tcl [-tclargs -jobs N]
#
# Reads board.tcl (written beside this script by gen-verilog --board), creates the project in
# ./vivado, adds the generated Verilog, the board top and the constraints, creates the AMD IP
# the board top instantiates (CMAC, XDMA bridge, AXI width, protocol and clock converters),
# runs synthesis and implementation (flow.tcl), stops with an error when timing is not met, and
# writes ferroce_<board>.bit and the reports into this folder. Vivado 2022.1 or later; the CMAC needs
# its (free) licence.

set here [file dirname [file normalize [info script]]]
source [file join $here board.tcl]
source [file join $here flow.tcl]
ferroce_begin $here $argv

# ---- the AMD IP the board top instantiates, by module name ----
# 100GbE on QSFP28 port 0: CAUI-4 with RS-FEC, 512-bit AXI4-Stream, FCS added on TX and
# checked and removed on RX (bad frames marked in tuser), no pause frames, control by ports
ferroce_ip cmac_usplus ferroce_cmac [list \
    CONFIG.CMAC_CAUI4_MODE {1} \
    CONFIG.NUM_LANES {4x25} \
    CONFIG.GT_REF_CLK_FREQ $ferroce_cmac_refclk_mhz \
    CONFIG.USER_INTERFACE {AXIS} \
    CONFIG.GT_DRP_CLK {100} \
    CONFIG.CMAC_CORE_SELECT $ferroce_cmac_core \
    CONFIG.GT_GROUP_SELECT $ferroce_cmac_gt_group \
    CONFIG.LANE1_GT_LOC [lindex $ferroce_cmac_lanes 0] \
    CONFIG.LANE2_GT_LOC [lindex $ferroce_cmac_lanes 1] \
    CONFIG.LANE3_GT_LOC [lindex $ferroce_cmac_lanes 2] \
    CONFIG.LANE4_GT_LOC [lindex $ferroce_cmac_lanes 3] \
    CONFIG.INCLUDE_RS_FEC {1} \
    CONFIG.ENABLE_AXI_INTERFACE {0} \
    CONFIG.ENABLE_PIPELINE_REG {1} \
    CONFIG.TX_FLOW_CONTROL {0} \
    CONFIG.RX_FLOW_CONTROL {0} \
    CONFIG.TX_OTN_INTERFACE {0} \
    CONFIG.TX_FRAME_CRC_CHECKING {Enable FCS Insertion} \
    CONFIG.RX_FRAME_CRC_CHECKING {Enable FCS Stripping} \
    CONFIG.RX_MAX_PACKET_LEN {9600} \
]

# PCIe Gen3 x16 as an AXI bridge: BAR 0 (1 MiB) onto M_AXI_B for the register file, S_AXI_B
# onto host memory (AXI addresses are host bus addresses, untranslated)
ferroce_ip xdma ferroce_pcie [list \
    CONFIG.functional_mode {AXI_Bridge} \
    CONFIG.mode_selection {Advanced} \
    CONFIG.pcie_blk_locn $ferroce_pcie_block \
    CONFIG.pl_link_cap_max_link_width {X16} \
    CONFIG.pl_link_cap_max_link_speed {8.0_GT/s} \
    CONFIG.axi_addr_width {64} \
    CONFIG.axi_data_width {512_bit} \
    CONFIG.axisten_freq {250} \
    CONFIG.en_axi_slave_if {true} \
    CONFIG.pf0_bar0_size {1} \
    CONFIG.pf0_bar0_scale {Megabytes} \
    CONFIG.pf0_bar0_64bit {true} \
    CONFIG.pciebar2axibar_0 {0x0000000000000000} \
    CONFIG.axibar_num {1} \
    CONFIG.axibar2pciebar_0 {0x0000000000000000} \
    CONFIG.BASEADDR {0x0000000000000000} \
    CONFIG.HIGHADDR {0xFFFFFFFFFFFFFFFF} \
]

# BAR accesses: 512-bit AXI4 narrowed to 32 bits, then AXI4-Lite, then onto the engine's clock
ferroce_ip axi_dwidth_converter ferroce_bar_width [list \
    CONFIG.PROTOCOL {AXI4} \
    CONFIG.ADDR_WIDTH {32} \
    CONFIG.SI_DATA_WIDTH {512} \
    CONFIG.MI_DATA_WIDTH {32} \
    CONFIG.SI_ID_WIDTH {4} \
    CONFIG.READ_WRITE_MODE {READ_WRITE} \
]
ferroce_ip axi_protocol_converter ferroce_bar_lite [list \
    CONFIG.SI_PROTOCOL {AXI4} \
    CONFIG.MI_PROTOCOL {AXI4LITE} \
    CONFIG.ADDR_WIDTH {32} \
    CONFIG.DATA_WIDTH {32} \
    CONFIG.ID_WIDTH {0} \
    CONFIG.TRANSLATION_MODE {2} \
]
ferroce_ip axi_clock_converter ferroce_bar_cdc [list \
    CONFIG.PROTOCOL {AXI4LITE} \
    CONFIG.ADDR_WIDTH {32} \
    CONFIG.DATA_WIDTH {32} \
    CONFIG.ID_WIDTH {0} \
    CONFIG.ACLK_ASYNC {1} \
    CONFIG.SYNCHRONIZATION_STAGES {3} \
]

# the engine's memory side onto the PCIe clock: 512-bit AXI4, 64-bit addresses, ID 1 bit
ferroce_ip axi_clock_converter ferroce_memory_cdc [list \
    CONFIG.PROTOCOL {AXI4} \
    CONFIG.ADDR_WIDTH {64} \
    CONFIG.DATA_WIDTH {512} \
    CONFIG.ID_WIDTH {1} \
    CONFIG.ACLK_ASYNC {1} \
    CONFIG.SYNCHRONIZATION_STAGES {3} \
]

generate_target all [get_ips]
ferroce_implement $here
