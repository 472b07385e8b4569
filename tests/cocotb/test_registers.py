"""The register file under cocotbext-axi's AxiLiteMaster (an AXI master Ferroce did not write),
on the Verilog that gen-verilog emits, in Icarus Verilog. The expectations come from the register
map (contracts::regs) through FERROCE_MAP, written by tests/tests/registers_cocotb.rs."""

import json
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles
from cocotbext.axi import AxiLiteBus, AxiLiteMaster, AxiResp

MAP = json.loads(os.environ["FERROCE_MAP"])


def pauses(seed, chance=0.3):
    rng = random.Random(seed)
    while True:
        yield rng.random() < chance


async def setup(dut, paused=False):
    cocotb.start_soon(Clock(dut.clock, 4, unit="ns").start())
    for name in MAP["inputs"]:
        getattr(dut, name).value = 0
    dut.reset.value = 1
    await ClockCycles(dut.clock, 2)
    dut.reset.value = 0
    master = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clock, dut.reset, reset_active_level=True)
    if paused:
        channels = [
            master.write_if.aw_channel,
            master.write_if.w_channel,
            master.write_if.b_channel,
            master.read_if.ar_channel,
            master.read_if.r_channel,
        ]
        for seed, channel in enumerate(channels):
            channel.set_pause_generator(pauses(seed))
    await ClockCycles(dut.clock, MAP["init_cycles"])
    return master


def word(data):
    return int.from_bytes(data, "little")


@cocotb.test()
async def reset_values_and_access_from_the_map(dut):
    m = await setup(dut)
    for r in MAP["registers"]:
        rd = await m.read(r["address"], 4)
        assert rd.resp == AxiResp.OKAY, r
        value = word(rd.data)
        if r["reset"] is not None:
            assert value == r["reset"] & r["read_mask"], (r, hex(value))
        if not r["writable"]:
            wr = await m.write(r["address"], ((~value) & 0xFFFFFFFF).to_bytes(4, "little"))
            assert wr.resp == AxiResp.SLVERR, r
            if r["kind"] != "poll":
                assert word((await m.read(r["address"], 4)).data) == value, r
    for hole in MAP["holes"]:
        rd = await m.read(hole, 4)
        assert rd.resp == AxiResp.DECERR and rd.data == bytes(4), hex(hole)
        wr = await m.write(hole, b"\x01\x00\x00\x00")
        assert wr.resp == AxiResp.DECERR, hex(hole)


@cocotb.test()
async def byte_strobes_and_transactions_in_flight(dut):
    m = await setup(dut, paused=True)
    scratch = MAP["scratch"]
    await m.write(scratch, bytes([0x11, 0x22, 0x33, 0x44]))
    await m.write(scratch + 1, bytes([0xAA]))
    await m.write(scratch + 3, bytes([0xBB]))
    assert word((await m.read(scratch, 4)).data) == 0xBB33AA11
    await m.write(scratch + 2, bytes([0x01, 0x02]))
    assert word((await m.read(scratch, 4)).data) == 0x0201AA11

    # many writes and reads in flight at once, each register checked against a shadow copy
    rng = random.Random(5)
    shadow = {}
    for round_ in range(20):
        writes = {}
        for r in rng.sample(MAP["rw"], 6):
            writes[r["address"]] = (rng.getrandbits(32), r["write_mask"])
        pending = [cocotb.start_soon(m.write(a, v.to_bytes(4, "little"))) for a, (v, _) in writes.items()]
        for p in pending:
            assert (await p).resp == AxiResp.OKAY
        for a, (v, mask) in writes.items():
            shadow[a] = v & mask
        reads = {a: cocotb.start_soon(m.read(a, 4)) for a in shadow}
        for a, p in reads.items():
            rd = await p
            assert rd.resp == AxiResp.OKAY and word(rd.data) == shadow[a], (round_, hex(a))
