#!/usr/bin/env bash
# yosys, nextpnr-ice40 and icepack as stubs for the iCE40 boards' build.sh (called through links
# of those names): each records its call in the file named by FERROCE_STUB_LOG (the command and
# its arguments, one line) and writes the file the next step reads.
#
# FERROCE_STUB_FAIL: the tool that fails; FERROCE_STUB_FMAX: the Fmax nextpnr-ice40 reports
# (MHz; before it, a pre-routing estimate of 90 MHz).
set -euo pipefail
tool=$(basename "$0")
echo "$tool $*" >>"$FERROCE_STUB_LOG"
if [ "${FERROCE_STUB_FAIL:-}" = "$tool" ]; then
    echo "ERROR: $tool stub failing" >&2
    exit 1
fi
case "$tool" in
yosys)
    # the JSON netlist named in the -p script
    while [ $# -gt 0 ]; do
        if [ "$1" = "-p" ]; then
            json=$(sed -E 's/.*-json ([^ ;]+).*/\1/' <<<"$2")
            echo '{}' >"$json"
        fi
        shift
    done
    ;;
nextpnr-ice40)
    while [ $# -gt 0 ]; do
        case "$1" in
        --asc) asc=$2 ;;
        --log) log=$2 ;;
        esac
        shift
    done
    fmax=${FERROCE_STUB_FMAX:?the Fmax to report}
    cat >"$log" <<EOF
Info: Device utilisation:
Info: 	         ICESTORM_LC:  1000/ 7680    13%
Info: 	        ICESTORM_RAM:     5/   32    15%
Info: 	               SB_IO:    12/  256     4%
Info: Max frequency for clock 'clk\$SB_IO_IN_\$glb_clk': 90.00 MHz (FAIL at 100.00 MHz)
Info: Max frequency for clock 'clk\$SB_IO_IN_\$glb_clk': $fmax MHz (PASS at 100.00 MHz)
EOF
    echo 'asc' >"$asc"
    ;;
icepack)
    cp "$1" "$2"
    ;;
*)
    echo "icestorm_stub.sh: unknown tool $tool" >&2
    exit 2
    ;;
esac
