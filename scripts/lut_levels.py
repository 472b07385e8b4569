#!/usr/bin/env python3
"""Deepest LUT-level path between registers in a yosys JSON netlist (after synth_xilinx -flatten).

Counts LUT1..LUT6 cells (and each CARRY4/CARRY8 and MUXF7/8/9 cell as one level, conservatively)
on the longest combinational path from a flip-flop, SRL, block RAM or input port to a flip-flop,
SRL, block RAM or output port. INV cells count zero (Vivado folds them into the next LUT).

usage: lut_levels.py NETLIST.json [TOP] [--path]
  --path  also prints the deepest path, one cell per line with the name of the net it drives
"""
import json
import sys
from functools import lru_cache

SEQ = ("FD", "SRL", "RAMB", "BUFG", "IBUF", "OBUF", "RAM", "DSP")


def main():
    args = [a for a in sys.argv[1:] if a != "--path"]
    show_path = "--path" in sys.argv
    net = json.load(open(args[0]))
    mods = net["modules"]
    top = args[1] if len(args) > 1 else next(m for m, v in mods.items() if v.get("attributes", {}).get("top"))
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
    if show_path and weight:
        names = {}
        for name, n in mods[top]["netnames"].items():
            for b in n["bits"]:
                if isinstance(b, int) and (b not in names or name.startswith("$") < names[b].startswith("$")):
                    names[b] = name
        cell = max(weight, key=depth)
        while cell is not None:
            outs = [b for p, bits in cells[cell]["connections"].items()
                    if cells[cell].get("port_directions", {}).get(p) == "output" for b in bits if isinstance(b, int)]
            print(f"  {depth(cell):3} {cells[cell]['type']:8} -> {names.get(outs[0], '?') if outs else '?'}")
            preds = [drivers[b] for b in inputs[cell] if b in drivers]
            cell = max(preds, key=depth, default=None)
            if cell is not None and depth(cell) == 0 and weight[cell] == 0:
                break


if __name__ == "__main__":
    main()
