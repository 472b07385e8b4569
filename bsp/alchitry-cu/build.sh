#!/usr/bin/env bash
# Ferroce on the Alchitry Cu, from the generated sources to a bitstream:
#
#   bash build.sh
#
# Reads board.sh (written beside this script by gen-verilog --board), synthesizes the Verilog
# with yosys (synth_ice40), places and routes with nextpnr-ice40 against the board's clock,
# packs the bitstream with icepack, prints the utilization and the Fmax, and stops with an
# error when a tool fails or the Fmax is below the clock. Logs: yosys.log, nextpnr.log. Debian
# packages: yosys, nextpnr-ice40, fpga-icestorm. Program the board (its FTDI) with
#
#   iceprog ferroce_board_alchitry_cu.bin
set -euo pipefail
cd "$(dirname "$0")"

fail() {
    echo "ferroce: ERROR: $*" >&2
    exit 1
}

source ./board.sh
read -r -a sources <<<"$ferroce_sources"
for file in "${sources[@]}" "$ferroce_constraints"; do
    [ -f "$file" ] || fail "$file is missing: run gen-verilog --board $ferroce_board again"
done
for tool in yosys nextpnr-ice40 icepack; do
    command -v "$tool" >/dev/null 2>&1 || fail "$tool is not installed (Debian: apt-get install yosys nextpnr-ice40 fpga-icestorm)"
done
echo "ferroce: $ferroce_board ($ferroce_part), top $ferroce_top, ${ferroce_clock_mhz} MHz"
rm -f "$ferroce_top.json" "$ferroce_top.asc" "$ferroce_top.bin"

yosys -q -l yosys.log -p "synth_ice40 -top $ferroce_top -json $ferroce_top.json" "${sources[@]}" ||
    fail "yosys failed (yosys.log)"
# timing is judged below, with the Fmax in the message
nextpnr-ice40 "--$ferroce_device" --package "$ferroce_package" --pcf "$ferroce_constraints" \
    --json "$ferroce_top.json" --asc "$ferroce_top.asc" --freq "$ferroce_clock_mhz" \
    --timing-allow-fail --log nextpnr.log --quiet ||
    fail "nextpnr-ice40 failed (nextpnr.log)"

echo "ferroce: utilization"
grep -E '(ICESTORM_LC|ICESTORM_RAM|SB_IO):' nextpnr.log | sed -E 's/^Info:[[:space:]]*/    /' ||
    fail "no utilization in nextpnr.log"
# the last estimate is the routed design's
fmax_line=$(grep 'Max frequency for clock' nextpnr.log | tail -n 1) ||
    fail "no Fmax in nextpnr.log"
fmax=$(sed -E 's/.*: ([0-9.]+) MHz \(.*/\1/' <<<"$fmax_line")
echo "ferroce: Fmax $fmax MHz (clock ${ferroce_clock_mhz} MHz)"
awk -v fmax="$fmax" -v clock="$ferroce_clock_mhz" 'BEGIN { exit !(fmax + 0 >= clock + 0) }' ||
    fail "timing not met: Fmax $fmax MHz is below the ${ferroce_clock_mhz} MHz clock (nextpnr.log)"

icepack "$ferroce_top.asc" "$ferroce_top.bin" || fail "icepack failed"
echo "ferroce: wrote $ferroce_top.bin; program the board with: iceprog $ferroce_top.bin"
