#!/usr/bin/env bash
# Synthesizes one emitted Verilog file for UltraScale+ and prints its area and depth:
#   scripts/synth_verilog.sh out/synth/ferroce_rx_front_w512.v ferroce_rx_front_w512 [WORKDIR]
# yosys synth_xilinx -family xcup -nowidelut, flattened; the last line is
#   MODULE: LUT n, SRL n, LUTRAM n, FF n, BRAM ..., deepest LUT-level path between registers: n
# (scripts/lut_levels.py counts the levels). Used by scripts/synth.sh and by the levels gate
# (tests/tests/lint_gate.rs), so both measure the same way.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
verilog=${1:?usage: scripts/synth_verilog.sh FILE.v MODULE [WORKDIR]}
m=${2:?usage: scripts/synth_verilog.sh FILE.v MODULE [WORKDIR]}
dir=${3:-$(dirname "$verilog")}
mkdir -p "$dir"
sx="synth_xilinx -flatten -family xcup -nowidelut -top $m"
if [[ $m == ferroce_sched* ]]; then
  # yosys 0.23's SAT-based `share` pass (in synth_xilinx's coarse step) exhausts 24 GiB on the
  # scheduler's 32 token-bucket datapaths: run the coarse step without it.
  flow="$sx -run :coarse; techmap -map +/cmp2lut.v -map +/cmp2lcu.v -D LUT_WIDTH=6; alumacc; opt; \
    memory -nomap; opt_clean; $sx -run map_memory:"
else
  flow="$sx"
fi
yosys -q -p "read_verilog $verilog; $flow; tee -q -o $dir/$m.stat stat; write_json $dir/$m.json"
awk '/=== '"$m"' ===/,0' "$dir/$m.stat" | grep -E "^ +(LUT|FD|SRL|CARRY|RAM|MUXF)" || true
luts=$({ grep -E "^ +LUT[1-6] " "$dir/$m.stat" || true; } | awk '{s+=$2} END {print s+0}')
ffs=$({ grep -E "^ +FD[A-Z]* " "$dir/$m.stat" || true; } | awk '{s+=$2} END {print s+0}')
srls=$({ grep -E "^ +SRL" "$dir/$m.stat" || true; } | awk '{s+=$2} END {print s+0}')
levels=$(python3 "$here/lut_levels.py" "$dir/$m.json" "$m")
brams=$({ grep -E "^ +RAMB" "$dir/$m.stat" || true; } | awk '{print $1"="$2}' | tr '\n' ' ')
lutram=$({ grep -E "^ +RAM[0-9]" "$dir/$m.stat" || true; } | awk '{s+=$2} END {print s+0}')
echo "$m: LUT $luts, SRL $srls, LUTRAM $lutram, FF $ffs, BRAM ${brams:-none}, deepest LUT-level path between registers: $levels"
