#!/usr/bin/env python3
"""A yosys JSON netlist with each multi-port LUT RAM told apart by read port, for lut_levels.py.

lut_levels.py counts a distributed RAM as one level from any address input to any data
output. In a multi-port LUT RAM (RAM32M, RAM32M16, RAM64M, RAM64M8) output DOx reads at
ADDRx only, and the last port's address (ADDRD or ADDRH) is also the write address: a path into
the write address then counts as a read of every port, a level that does not exist. This
rewrites each such cell into one cell per used read port (`ADDRx` in, `DOx` out) and one
that holds the write inputs (`DI*`, `WE` and the write address as `WADR`, which end paths), so
that `lut_levels.py` counts only the real reads. Diagnostic: the levels gate does not use it.

usage: split_lutram_ports.py NETLIST.json OUT.json
       python3 scripts/lut_levels.py OUT.json TOP --path
"""
import json
import sys

MULTI_PORT = {"RAM32M": "ABCD", "RAM64M": "ABCD", "RAM32M16": "ABCDEFGH", "RAM64M8": "ABCDEFGH"}


def split(cells):
    out = {}
    for name, c in cells.items():
        ports = MULTI_PORT.get(c["type"])
        if ports is None:
            out[name] = c
            continue
        conn, write = c["connections"], ports[-1]
        for p in ports:
            data = conn.get("DO" + p, [])
            if any(isinstance(b, int) for b in data):
                out[f"{name}/read_{p}"] = {
                    "type": c["type"],
                    "connections": {"ADDR" + p: conn["ADDR" + p], "DO" + p: data},
                    "port_directions": {"ADDR" + p: "input", "DO" + p: "output"},
                }
        inputs = {k: v for k, v in conn.items() if k.startswith("DI") or k in ("WE", "WCLK")}
        inputs["WADR"] = conn["ADDR" + write]
        out[f"{name}/write"] = {
            "type": c["type"],
            "connections": inputs,
            "port_directions": {k: "input" for k in inputs},
        }
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    net = json.load(open(sys.argv[1]))
    for module in net["modules"].values():
        module["cells"] = split(module.get("cells", {}))
    json.dump(net, open(sys.argv[2], "w"))


if __name__ == "__main__":
    main()
