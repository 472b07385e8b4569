# Ferroce on the AMD Alveo U280 (xcu280-fsvh2892-2L-e): the pins and clocks of
# ferroce_board_alveo. Pins from the card's user guide (UG1314) and board files.
#
# The GT lanes of QSFP28 port 0 (quad 134, GTYE4_CHANNEL_X0Y40..X0Y43) and of PCIe (quads
# 224..227) are placed by their IP (CMAC GT_GROUP_SELECT, XDMA pcie_blk_locn in board.tcl).
# Clock-domain crossings: every crossing is in the AXI clock converters (ferroce_bar_cdc,
# ferroce_memory_cdc) and the reset synchronizer (xpm_cdc_async_rst), which carry their own
# constraints; no clock groups here, so those constraints stay in force.

# 100 MHz system clock (SYSCLK0, LVDS): the CMAC's init and DRP clock
set_property -dict {PACKAGE_PIN BJ43 IOSTANDARD LVDS} [get_ports sysclk_100_p]
set_property -dict {PACKAGE_PIN BJ44 IOSTANDARD LVDS} [get_ports sysclk_100_n]
create_clock -period 10.000 -name sysclk_100 [get_ports sysclk_100_p]

# QSFP28 port 0 reference clock: 156.25 MHz (MGTREFCLK0 of quad 134, from the SI570)
set_property PACKAGE_PIN T42 [get_ports qsfp0_refclk_p]
set_property PACKAGE_PIN T43 [get_ports qsfp0_refclk_n]
create_clock -period 6.400 -name qsfp0_refclk [get_ports qsfp0_refclk_p]

# PCIe: 100 MHz reference clock (MGTREFCLK0 of quad 225) and PERST#
set_property PACKAGE_PIN AR15 [get_ports pcie_refclk_p]
set_property PACKAGE_PIN AR14 [get_ports pcie_refclk_n]
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_p]
set_property -dict {PACKAGE_PIN BH26 IOSTANDARD LVCMOS18 PULLUP true} [get_ports pcie_perst_n]
set_false_path -from [get_ports pcie_perst_n]

# HBM catastrophic temperature trip: driven low (HBM unused); left floating it reads high and
# the card's controller powers the card off
set_property -dict {PACKAGE_PIN D32 IOSTANDARD LVCMOS18 PULLDOWN true} [get_ports hbm_cattrip]

# configuration from the card's quad SPI flash
set_property CONFIG_VOLTAGE 1.8 [current_design]
set_property CONFIG_MODE SPIx4 [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 4 [current_design]
set_property BITSTREAM.CONFIG.CONFIGRATE 85.0 [current_design]
set_property BITSTREAM.CONFIG.EXTMASTERCCLK_EN disable [current_design]
set_property BITSTREAM.CONFIG.SPI_FALL_EDGE YES [current_design]
set_property BITSTREAM.CONFIG.SPI_32BIT_ADDR YES [current_design]
set_property BITSTREAM.CONFIG.UNUSEDPIN Pullup [current_design]
set_property BITSTREAM.CONFIG.CONFIGFALLBACK Enable [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE [current_design]
