#!/usr/bin/env bash
# Reproduces the area and depth figures of docs/performance.md for one top:
#   scripts/synth.sh icrc_check 512
#   scripts/synth.sh sched n2048_q32
# Emits the top with gen-verilog (release), then scripts/synth_verilog.sh: yosys synth_xilinx
# -family xcup -nowidelut, flattened; prints the cell counts and the deepest LUT-level path
# between registers (scripts/lut_levels.py).
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
exec scripts/synth_verilog.sh "$dir/$m.v" "$m" "$dir"
