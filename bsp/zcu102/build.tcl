# Ferroce on the ZCU102, from the generated sources to a bitstream:
#
#   vivado -mode batch -source build.tcl [-tclargs -jobs N]
#
# Reads board.tcl (written beside this script by gen-verilog --board), creates the project in
# ./vivado, adds the generated Verilog, the board top and the constraints, creates the XXV
# Ethernet core (10GBASE-R on SFP+ cage 0) and the block design ferroce_ps (the processor with
# the ZCU102's preset, M_AXI_HPM0_FPD as AXI4-Lite at 0xA000_0000, S_AXI_HP0_FPD onto DDR),
# runs synthesis and implementation (flow.tcl), stops with an error when timing is not met,
# and writes ferroce_zcu102.bit and the reports into this folder. Vivado 2022.1 or later with
# the ZCU102 board files (they come with Vivado); the XXV Ethernet MAC needs a licence.

set here [file dirname [file normalize [info script]]]
source [file join $here board.tcl]
source [file join $here flow.tcl]
ferroce_begin $here $argv

# the processor's configuration (DDR, MIO) comes from the board's preset
set board_part [lindex [get_board_parts -quiet -latest_file_version $ferroce_board_parts] 0]
if {$board_part eq ""} {
    ferroce_fail "no board part matches $ferroce_board_parts: install the ZCU102 board files (Vivado's XHub store)"
}
set_property board_part $board_part [current_project]

# 10GBASE-R on SFP+ cage 0: MAC and PCS, 64-bit AXI4-Stream, no AXI4-Lite (control by ports),
# the RX FIFO so that the RX side runs on the TX clock
ferroce_ip xxv_ethernet ferroce_xxv [list \
    CONFIG.CORE {Ethernet MAC+PCS/PMA 64-bit} \
    CONFIG.LINE_RATE {10} \
    CONFIG.BASE_R_KR {BASE-R} \
    CONFIG.NUM_OF_CORES {1} \
    CONFIG.DATA_PATH_INTERFACE {AXI Stream} \
    CONFIG.INCLUDE_AXI4_INTERFACE {0} \
    CONFIG.INCLUDE_STATISTICS_COUNTERS {0} \
    CONFIG.INCLUDE_USER_FIFO {1} \
    CONFIG.INCLUDE_SHARED_LOGIC {1} \
    CONFIG.ENABLE_PIPELINE_REG {1} \
    CONFIG.ADD_GT_CNTRL_STS_PORTS {0} \
    CONFIG.GT_REF_CLK_FREQ $ferroce_sfp_refclk_mhz \
    CONFIG.GT_DRP_CLK {125} \
    CONFIG.GT_GROUP_SELECT $ferroce_sfp_gt_group \
    CONFIG.LANE1_GT_LOC $ferroce_sfp_lane \
]
generate_target all [get_ips]

# ---- the processor: block design ferroce_ps, instantiated by the board top as a module ----
create_bd_design ferroce_ps
set ps [create_bd_cell -type ip -vlnv xilinx.com:ip:zynq_ultra_ps_e processor]
apply_bd_automation -rule xilinx.com:bd_rule:zynq_ultra_ps_e -config {apply_board_preset "1"} $ps
set_property -dict [list \
    CONFIG.PSU__USE__M_AXI_GP0 {1} \
    CONFIG.PSU__MAXIGP0__DATA_WIDTH {32} \
    CONFIG.PSU__USE__M_AXI_GP1 {0} \
    CONFIG.PSU__USE__M_AXI_GP2 {0} \
    CONFIG.PSU__USE__S_AXI_GP2 {1} \
    CONFIG.PSU__SAXIGP2__DATA_WIDTH {64} \
] $ps
set lite [create_bd_cell -type ip -vlnv xilinx.com:ip:axi_protocol_converter register_bus]
set_property -dict [list CONFIG.SI_PROTOCOL {AXI4} CONFIG.MI_PROTOCOL {AXI4LITE} CONFIG.TRANSLATION_MODE {2}] $lite
connect_bd_intf_net [get_bd_intf_pins $ps/M_AXI_HPM0_FPD] [get_bd_intf_pins $lite/S_AXI]

create_bd_port -dir I -type clk -freq_hz $ferroce_engine_clock_hz engine_clock
create_bd_port -dir I -type rst engine_resetn
create_bd_port -dir O -type rst ps_resetn
create_bd_intf_port -mode Master -vlnv xilinx.com:interface:aximm_rtl:1.0 m_axil
set_property CONFIG.PROTOCOL AXI4LITE [get_bd_intf_ports m_axil]
connect_bd_intf_net [get_bd_intf_pins $lite/M_AXI] [get_bd_intf_ports m_axil]
create_bd_intf_port -mode Slave -vlnv xilinx.com:interface:aximm_rtl:1.0 s_axi_memory
set_property -dict [list \
    CONFIG.PROTOCOL AXI4 CONFIG.DATA_WIDTH {64} CONFIG.ID_WIDTH {6} CONFIG.ADDR_WIDTH {49} \
    CONFIG.HAS_REGION {0} CONFIG.AWUSER_WIDTH {0} CONFIG.ARUSER_WIDTH {0} \
] [get_bd_intf_ports s_axi_memory]
connect_bd_intf_net [get_bd_intf_ports s_axi_memory] [get_bd_intf_pins $ps/S_AXI_HP0_FPD]
set_property CONFIG.ASSOCIATED_BUSIF {m_axil:s_axi_memory} [get_bd_ports engine_clock]
set_property CONFIG.ASSOCIATED_RESET {engine_resetn} [get_bd_ports engine_clock]
connect_bd_net [get_bd_ports engine_clock] [get_bd_pins $ps/maxihpm0_fpd_aclk] [get_bd_pins $ps/saxihp0_fpd_aclk] [get_bd_pins $lite/aclk]
connect_bd_net [get_bd_ports engine_resetn] [get_bd_pins $lite/aresetn]
connect_bd_net [get_bd_pins $ps/pl_resetn0] [get_bd_ports ps_resetn]

# the register file at 0xA000_0000 (1 MiB); the engine sees DDR at the processor's addresses
assign_bd_address -offset 0xA0000000 -range 1M -target_address_space [get_bd_addr_spaces $ps/Data] [get_bd_addr_segs m_axil/Reg]
assign_bd_address -target_address_space [get_bd_addr_spaces s_axi_memory] [get_bd_addr_segs $ps/SAXIGP2/HP0_DDR_LOW]
assign_bd_address -target_address_space [get_bd_addr_spaces s_axi_memory] [get_bd_addr_segs $ps/SAXIGP2/HP0_DDR_HIGH]
validate_bd_design
save_bd_design
generate_target all [get_files ferroce_ps.bd]

ferroce_implement $here
