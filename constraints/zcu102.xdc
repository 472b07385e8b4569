# Ferroce on the AMD ZCU102 (xczu9eg-ffvb1156-2-e): the pins and clocks of ferroce_board_zcu102.
# Pins from the board's user guide (UG1182) and board files.
#
# The GTH lane of SFP+ cage 0 (quad 230, GTHE4_CHANNEL_X1Y12: RX D2/D1, TX E4/E3) is placed by
# the XXV Ethernet core (GT_GROUP_SELECT, LANE1_GT_LOC in board.tcl).
# Clock-domain crossings: the engine and both processor ports run on the MAC's clock; the only
# crossings are the two reset synchronizers (xpm_cdc_async_rst), which carry their own
# constraints.

# 125 MHz system clock (LVDS_25): the XXV core's DRP and control clock
set_property -dict {PACKAGE_PIN G21 IOSTANDARD LVDS_25} [get_ports clk_125mhz_p]
set_property -dict {PACKAGE_PIN F21 IOSTANDARD LVDS_25} [get_ports clk_125mhz_n]
create_clock -period 8.000 -name clk_125mhz [get_ports clk_125mhz_p]

# CPU_RESET push button (active high)
set_property -dict {PACKAGE_PIN AM13 IOSTANDARD LVCMOS33} [get_ports cpu_reset]
set_false_path -from [get_ports cpu_reset]

# SFP+ reference clock: 156.25 MHz (MGTREFCLK0 of quad 230, the user MGT SI570's default)
set_property PACKAGE_PIN C8 [get_ports sfp0_refclk_p]
set_property PACKAGE_PIN C7 [get_ports sfp0_refclk_n]
create_clock -period 6.400 -name sfp0_refclk [get_ports sfp0_refclk_p]

# SFP+ cage 0 transmitter disable (driven high: transmitter on)
set_property -dict {PACKAGE_PIN A12 IOSTANDARD LVCMOS33 SLEW SLOW DRIVE 8} [get_ports sfp0_tx_disable_b]
set_false_path -to [get_ports sfp0_tx_disable_b]

# user LEDs GPIO_LED_0..7 (active high)
set_property -dict {PACKAGE_PIN AG14 IOSTANDARD LVCMOS33 SLEW SLOW DRIVE 8} [get_ports {led[0]}]
set_property -dict {PACKAGE_PIN AF13 IOSTANDARD LVCMOS33 SLEW SLOW DRIVE 8} [get_ports {led[1]}]
set_property -dict {PACKAGE_PIN AE13 IOSTANDARD LVCMOS33 SLEW SLOW DRIVE 8} [get_ports {led[2]}]
set_property -dict {PACKAGE_PIN AJ14 IOSTANDARD LVCMOS33 SLEW SLOW DRIVE 8} [get_ports {led[3]}]
set_property -dict {PACKAGE_PIN AJ15 IOSTANDARD LVCMOS33 SLEW SLOW DRIVE 8} [get_ports {led[4]}]
set_property -dict {PACKAGE_PIN AH13 IOSTANDARD LVCMOS33 SLEW SLOW DRIVE 8} [get_ports {led[5]}]
set_property -dict {PACKAGE_PIN AH14 IOSTANDARD LVCMOS33 SLEW SLOW DRIVE 8} [get_ports {led[6]}]
set_property -dict {PACKAGE_PIN AL12 IOSTANDARD LVCMOS33 SLEW SLOW DRIVE 8} [get_ports {led[7]}]
set_false_path -to [get_ports {led[*]}]
