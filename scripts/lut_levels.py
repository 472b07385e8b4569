#!/usr/bin/env python3
"""Deepest LUT-level path between registers in a yosys JSON netlist (after synth_xilinx -flatten).

Counts LUT1..LUT6 cells (and each CARRY4/CARRY8 and MUXF7/8/9 cell as one level, conservatively)
on the longest combinational path from a flip-flop, SRL, block RAM or input port to a flip-flop,
SRL, block RAM or output port. INV cells count zero (Vivado folds them into the next LUT).

usage: lut_levels.py NETLIST.json [TOP]
"""
import json
import sys
from functools import lru_cache

SEQ = ("FD", "SRL", "RAMB", "BUFG", "IBUF", "OBUF", "RAM", "DSP")


def main():
    net = json.load(open(sys.argv[1]))
    mods = net["modules"]
    top = sys.argv[2] if len(sys.argv) > 2 else next(m for m, v in mods.items() if v.get("attributes", {}).get("top"))
    cells = mods[top]["cells"]
    drivers = {}  # bit -> cell name (combinational outputs only)
    inputs = {}   # cell -> list of input bits
    weight = {}
    for name, c in cells.items():
        t = c["type"]
        if t.startswith(SEQ):
            continue
        w = 1 if t.startswith(("LUT", "CARRY", "MUXF")) else 0
        weight[name] = w
        ins = []
        for port, bits in c["connections"].items():
            d = c.get("port_directions", {}).get(port, "input")
            if d == "output":
                for b in bits:
                    if isinstance(b, int):
                        drivers[b] = name
            else:
                ins += [b for b in bits if isinstance(b, int)]
        inputs[name] = ins
    sys.setrecursionlimit(1000000)

    @lru_cache(maxsize=None)
    def depth(cell):
        best = 0
        for b in inputs[cell]:
            d = drivers.get(b)
            if d is not None:
                best = max(best, depth(d))
        return best + weight[cell]

    worst = max((depth(c) for c in weight), default=0)
    print(worst)


if __name__ == "__main__":
    main()
