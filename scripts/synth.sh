#!/usr/bin/env bash
# Reproduces the area and depth figures of docs/performance.md for one top:
#   scripts/synth.sh icrc_check 512
# yosys synth_xilinx -family xcup -nowidelut, flattened; prints the cell counts and the deepest
# LUT-level path between registers (scripts/lut_levels.py).
set -euo pipefail
cd "$(dirname "$0")/.."
top=${1:?usage: scripts/synth.sh TOP [WIDTH]}
width=${2:-512}
dir=out/synth
mkdir -p "$dir"
cargo run -q --release --bin gen-verilog -- --top "$top" --width "$width" --out "$dir" >/dev/null
m=ferroce_${top}_w${width}
yosys -q -p "read_verilog $dir/$m.v; synth_xilinx -flatten -family xcup -nowidelut -top $m; \
  tee -q -o $dir/$m.stat stat; write_json $dir/$m.json"
awk '/=== '"$m"' ===/,0' "$dir/$m.stat" | grep -E "^ +(LUT|FD|SRL|CARRY|RAMB|MUXF)" || true
luts=$(grep -E "^ +LUT[1-6] " "$dir/$m.stat" | awk '{s+=$2} END {print s+0}')
ffs=$(grep -E "^ +FD[A-Z]* " "$dir/$m.stat" | awk '{s+=$2} END {print s+0}')
srls=$(grep -E "^ +SRL" "$dir/$m.stat" | awk '{s+=$2} END {print s+0}')
levels=$(python3 scripts/lut_levels.py "$dir/$m.json" "$m")
echo "$m: LUT $luts, SRL $srls, FF $ffs, deepest LUT-level path between registers: $levels"
