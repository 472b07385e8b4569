#!/usr/bin/env bash
# Reproduces the area and depth figures of docs/performance.md for one top:
#   scripts/synth.sh icrc_check 512
#   scripts/synth.sh sched n2048_q32
# yosys synth_xilinx -family xcup -nowidelut, flattened; prints the cell counts and the deepest
# LUT-level path between registers (scripts/lut_levels.py).
set -euo pipefail
cd "$(dirname "$0")/.."
top=${1:?usage: scripts/synth.sh TOP [WIDTH|VARIANT]}
arg=${2:-512}
dir=out/synth
mkdir -p "$dir"
if [[ $arg =~ ^[0-9]+$ ]]; then
  cargo run -q --release --bin gen-verilog -- --top "$top" --width "$arg" --out "$dir" >/dev/null
  m=ferroce_${top}_w${arg}
else
  cargo run -q --release --bin gen-verilog -- --top "$top" --variant "$arg" --out "$dir" >/dev/null
  m=ferroce_${top}_${arg}
fi
sx="synth_xilinx -flatten -family xcup -nowidelut -top $m"
if [[ $top == sched ]]; then
  # yosys 0.23's SAT-based `share` pass (in synth_xilinx's coarse step) exhausts 24 GiB on the
  # scheduler's 32 token-bucket datapaths: run the coarse step without it.
  flow="$sx -run :coarse; techmap -map +/cmp2lut.v -map +/cmp2lcu.v -D LUT_WIDTH=6; alumacc; opt; \
    memory -nomap; opt_clean; $sx -run map_memory:"
else
  flow="$sx"
fi
yosys -q -p "read_verilog $dir/$m.v; $flow; tee -q -o $dir/$m.stat stat; write_json $dir/$m.json"
awk '/=== '"$m"' ===/,0' "$dir/$m.stat" | grep -E "^ +(LUT|FD|SRL|CARRY|RAM|MUXF)" || true
luts=$({ grep -E "^ +LUT[1-6] " "$dir/$m.stat" || true; } | awk '{s+=$2} END {print s+0}')
ffs=$({ grep -E "^ +FD[A-Z]* " "$dir/$m.stat" || true; } | awk '{s+=$2} END {print s+0}')
srls=$({ grep -E "^ +SRL" "$dir/$m.stat" || true; } | awk '{s+=$2} END {print s+0}')
levels=$(python3 scripts/lut_levels.py "$dir/$m.json" "$m")
brams=$({ grep -E "^ +RAMB" "$dir/$m.stat" || true; } | awk '{print $1"="$2}' | tr '\n' ' ')
lutram=$({ grep -E "^ +RAM[0-9]" "$dir/$m.stat" || true; } | awk '{s+=$2} END {print s+0}')
echo "$m: LUT $luts, SRL $srls, LUTRAM $lutram, FF $ffs, BRAM ${brams:-none}, deepest LUT-level path between registers: $levels"
