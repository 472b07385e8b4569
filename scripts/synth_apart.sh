#!/usr/bin/env bash
# Area and depth of a top without some of its sub-blocks, to compare a unit with a design that
# did not have them (the segmenter without its packetizer, say):
#   scripts/synth_apart.sh FILE.v TOP WORKDIR SUB_MODULE...
# Each SUB_MODULE (a module name in FILE.v) stays a black box: it adds nothing to the area and
# its ports start and end paths as registers do. Otherwise as scripts/synth_verilog.sh (yosys
# synth_xilinx -flatten -family xcup -nowidelut; levels by scripts/lut_levels.py); the last line is
#   TOP without SUB_MODULE...: LUT n, SRL n, LUTRAM n, FF n, BRAM ..., deepest LUT-level path between registers: n
# A sub-block alone: scripts/synth_verilog.sh FILE.v SUB_MODULE WORKDIR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: scripts/synth_apart.sh FILE.v TOP WORKDIR SUB_MODULE..."
verilog=${1:?$usage}
top=${2:?$usage}
dir=${3:?$usage}
shift 3
[[ $# -gt 0 ]] || { echo "$usage" >&2; exit 2; }
for m in "$@"; do
  grep -q "^module $m\b" "$verilog" || { echo "no module $m in $verilog" >&2; exit 2; }
done
mkdir -p "$dir"
# (yosys's warnings, its block RAM ports resized among them, go to WORKDIR/TOP.apart.log)
if ! yosys -q -p "read_verilog $verilog; blackbox $*; synth_xilinx -flatten -family xcup -nowidelut -top $top; \
  tee -q -o $dir/$top.apart.stat stat; write_json $dir/$top.apart.json" 2> "$dir/$top.apart.log"; then
  cat "$dir/$top.apart.log" >&2
  exit 1
fi
count() { { grep -E "^ +$1" "$dir/$top.apart.stat" || true; } | awk '{s+=$2} END {print s+0}'; }
# the black boxes' cells count as registers for the levels
levels=$(python3 - "$here" "$dir/$top.apart.json" "$top" "$@" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import lut_levels
lut_levels.SEQ = lut_levels.SEQ + tuple(sys.argv[4:])
sys.argv = ["lut_levels.py", sys.argv[2], sys.argv[3]]
lut_levels.main()
EOF
)
brams=$({ grep -E "^ +RAMB" "$dir/$top.apart.stat" || true; } | awk '{print $1"="$2}' | tr '\n' ' ')
echo "$top without $*: LUT $(count "LUT[1-6] "), SRL $(count SRL), LUTRAM $(count "RAM[0-9]"), FF $(count "FD[A-Z]* "), BRAM ${brams:-none}, deepest LUT-level path between registers: $levels"
