#!/usr/bin/env bash
# Bounded formal check of the register file (harness: scripts/formal/registers_harness.v) on the
# small build, with yosys's SAT solver:
#   scripts/formal_registers.sh VERILOG [FREE_DEPTH] [READY_DEPTH] [BOUND] [WORKDIR]
# The QP table, the queue words and the status table's RAMs are cut points (their read data is
# free), so the proof covers every value they could return. From reset:
#  1. every input free, the master's ready signals too, FREE_DEPTH cycles (default 12): B, R and
#     the post stream keep the handshake rules, no response without its request, at most two
#     requests of a kind held;
#  2. the master takes every response at once, READY_DEPTH cycles (default 16): a write whose AW
#     and W are in, and a read whose AR is in, is answered within BOUND cycles (default 10); and
#     the same with BOUND − 1 must fail (the bound is tight and the check not vacuous).
# yosys-smtbmc with z3 did not finish step 0 of this design in 5 minutes (yosys 0.23); yosys's
# own `sat` (MiniSat) proves it in about a minute.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
verilog=${1:?usage: scripts/formal_registers.sh VERILOG [FREE_DEPTH] [READY_DEPTH] [BOUND] [WORKDIR]}
free_depth=${2:-12}
ready_depth=${3:-16}
bound=${4:-10}
dir=${5:-$(mktemp -d)}
mkdir -p "$dir"
m=ferroce_registers_c64_q16
prove() { # READY_ALWAYS DEPTH BOUND -> prints SUCCESS or FAIL
    local log="$dir/sat_$1_$2_$3.log"
    yosys -q -p "read_verilog $verilog; read_verilog -formal $here/formal/registers_harness.v; \
        chparam -set READY_ALWAYS $1 -set BOUND $3 ferroce_registers_formal; \
        hierarchy -top ferroce_registers_formal; proc; \
        cutpoint ${m}__qp_table__* ${m}__qp_mirror__* ${m}__queue_words ${m}__status__bitmaps ${m}__status__causes; \
        flatten; opt_clean; memory_map; opt -fast; async2sync; \
        tee -q -o $log sat -seq $2 -prove-asserts -set-assumes -set-init-zero -show-ports ferroce_registers_formal" \
        >/dev/null 2>&1 || true
    if grep -q "no model found: SUCCESS" "$log"; then echo SUCCESS; else echo FAIL; fi
}
# the three proofs are independent: run them side by side
prove 0 "$free_depth" "$bound" > "$dir/free.result" &
prove 1 "$ready_depth" "$bound" > "$dir/bound.result" &
prove 1 "$ready_depth" $((bound - 1)) > "$dir/tight.result" &
wait
[ "$(cat "$dir/free.result")" = SUCCESS ] || { echo "formal check FAILED: handshake rules (depth $free_depth), see $dir"; exit 1; }
[ "$(cat "$dir/bound.result")" = SUCCESS ] || { echo "formal check FAILED: answer within $bound cycles (depth $ready_depth), see $dir"; exit 1; }
[ "$(cat "$dir/tight.result")" = FAIL ] || { echo "formal check: the bound $bound is not tight (or the check is vacuous)"; exit 1; }
echo "formal check passed: handshake rules to depth $free_depth; every request answered within $bound cycles (not $((bound - 1))) to depth $ready_depth"
