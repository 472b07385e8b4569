"""Builds a Verilog file with Icarus Verilog and runs a cocotb test module on it.
Usage: run.py VERILOG TOPLEVEL BUILD_DIR TEST_MODULE (the module's inputs in the environment).
Exits non-zero if a test fails."""

import os
import sys
import xml.etree.ElementTree as ET

from cocotb_tools.runner import get_runner


def main():
    verilog, top, build_dir, module = sys.argv[1:5]
    here = os.path.dirname(os.path.abspath(__file__))
    runner = get_runner("icarus")
    runner.build(sources=[verilog], hdl_toplevel=top, build_dir=build_dir, always=True, timescale=("1ns", "1ps"))
    results = runner.test(
        hdl_toplevel=top,
        test_module=module,
        test_dir=here,
        build_dir=build_dir,
        results_xml=os.path.join(build_dir, "results.xml"),
    )
    cases = ET.parse(results).getroot().iter("testcase")
    ran, failed = 0, 0
    for case in cases:
        ran += 1
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
            print(f"FAILED: {case.get('name')}")
    print(f"{ran - failed} passed, {failed} failed")
    return 0 if ran > 0 and failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
