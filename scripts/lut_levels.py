#!/usr/bin/env python3
"""Deepest LUT-level path between registers in a yosys JSON netlist (after synth_xilinx -flatten).

Counts LUT1..LUT6 cells (and each CARRY4/CARRY8 and MUXF7/8/9 cell as one level, conservatively)
on the longest combinational path from a flip-flop, SRL, block RAM or input port to a flip-flop,
SRL, block RAM or output port. INV cells count zero (Vivado folds them into the next LUT).
A distributed RAM (RAM32M, RAM64M8, RAM32X1D, ...) reads asynchronously: its read is one level
from its address inputs to its data outputs; its write inputs (data, write enable) end paths.

usage: lut_levels.py NETLIST.json [TOP] [--path] [--over N] [--to NAME]
  --path    also prints the deepest path, one cell per line with the name of the net it drives
  --over N  also lists the registers reached by paths of more than N levels, deepest first
  --to NAME also prints the deepest path into the register whose output net is NAME (as --over
            lists it)
"""
import json
import sys
from functools import lru_cache

SEQ = ("FD", "SRL", "RAMB", "BUFG", "IBUF", "OBUF", "DSP")
LUTRAM = ("RAM32", "RAM64", "RAM128", "RAM256", "RAM512")


def lutram_read_port(port):
    """The address inputs of a distributed RAM: ADDRA.., A, A0.., DPRA.."""
    return port.startswith(("ADDR", "DPRA")) or port == "A" or (port[:1] == "A" and port[1:].isdigit())


def main():
    argv = sys.argv[1:]
    over = None
    if "--over" in argv:
        i = argv.index("--over")
        over = int(argv[i + 1])
        del argv[i:i + 2]
    target = None
    if "--to" in argv:
        i = argv.index("--to")
        target = argv[i + 1]
        del argv[i:i + 2]
    args = [a for a in argv if a != "--path"]
    show_path = "--path" in argv
    net = json.load(open(args[0]))
    mods = net["modules"]
    top = args[1] if len(args) > 1 else next(m for m, v in mods.items() if v.get("attributes", {}).get("top"))
    cells = mods[top]["cells"]
    drivers = {}  # bit -> cell name (combinational outputs only)
    sinks = []    # (distributed RAM, its write-side input bits): where paths end inside a RAM
    inputs = {}   # cell -> list of input bits
    weight = {}
    for name, c in cells.items():
        t = c["type"]
        if t.startswith(SEQ):
            continue
        lutram = t.startswith(LUTRAM)
        w = 1 if lutram or t.startswith(("LUT", "CARRY", "MUXF")) else 0
        weight[name] = w
        ins = []
        for port, bits in c["connections"].items():
            d = c.get("port_directions", {}).get(port, "input")
            if d == "output":
                for b in bits:
                    if isinstance(b, int):
                        drivers[b] = name
            elif not lutram or lutram_read_port(port):
                ins += [b for b in bits if isinstance(b, int)]
            else:
                sinks.append((name, [b for b in bits if isinstance(b, int)]))
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

    def arrival(bits):
        return max((depth(drivers[b]) for b in bits if b in drivers), default=0)

    worst = max([depth(c) for c in weight] + [arrival(bits) for _, bits in sinks], default=0)
    print(worst)
    ends, end_bits = {}, {}
    if over is not None or target is not None:
        names = net_names(mods[top])
        for name, c in cells.items():
            if not c["type"].startswith(SEQ) and not c["type"].startswith(LUTRAM):
                continue
            for port, bits in c["connections"].items():
                if c.get("port_directions", {}).get(port, "input") == "output" or port in ("C", "CLK", "WCLK"):
                    continue
                if c["type"].startswith(LUTRAM) and lutram_read_port(port):
                    continue
                d = arrival(bits)
                outs = [b for p, bs in c["connections"].items()
                        if c.get("port_directions", {}).get(p) == "output" for b in bs if isinstance(b, int)]
                label = names.get(outs[0], name) if outs else name
                base = label.split("[")[0]
                if d > ends.get(base, -1):
                    ends[base] = d
                    end_bits[base] = bits
    if over is not None:
        for base, d in sorted(ends.items(), key=lambda e: -e[1]):
            if d > over:
                print(f"  {d:3} {base}")
    if target is not None:
        bits = end_bits.get(target)
        if bits is None:
            sys.exit(f"no register named {target}")
        start = [drivers[b] for b in bits if b in drivers]
        print_path(max(start, key=depth) if start else None, depth, weight, cells, inputs, drivers, names)
    if show_path and weight:
        print_path(max(weight, key=depth), depth, weight, cells, inputs, drivers, net_names(mods[top]))


def print_path(cell, depth, weight, cells, inputs, drivers, names):
    """The deepest path into `cell`'s output, back to where it starts, one cell per line."""
    while cell is not None:
        outs = [b for p, bits in cells[cell]["connections"].items()
                if cells[cell].get("port_directions", {}).get(p) == "output" for b in bits if isinstance(b, int)]
        print(f"  {depth(cell):3} {cells[cell]['type']:8} -> {names.get(outs[0], '?') if outs else '?'}")
        preds = [drivers[b] for b in inputs[cell] if b in drivers]
        start = cell
        cell = max(preds, key=depth, default=None)
        if cell is None or (depth(cell) == 0 and weight[cell] == 0):
            # where the path starts: the register (or input) outputs feeding its first cell
            sources = sorted({names.get(b, "?").split("[")[0] for b in inputs[start] if b not in drivers})
            print(f"      from {', '.join(sources)}")
            break


def net_names(module):
    """A readable name per bit: a net name from the design if there is one."""
    names = {}
    for name, n in module["netnames"].items():
        for b in n["bits"]:
            if isinstance(b, int) and (b not in names or name.startswith("$") < names[b].startswith("$")):
                names[b] = name
    return names


if __name__ == "__main__":
    main()
