"""The AXI4 master against cocotbext-axi's AxiRam (an AXI slave Ferroce did not write, which
asserts that no burst crosses a 4 KiB boundary and that WLAST ends each burst), on the Verilog
that gen-verilog emits, in Icarus Verilog: write commands of 1 to 4096 bytes at any address land
exactly their bytes, and read commands give the memory's bytes from lane 0, with random pauses
on every AXI channel and on the engine-side streams. FERROCE_AXI4 (JSON, from
tests/tests/axi4_master_cocotb.rs) gives the seed and the number of commands."""

import json
import logging
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiBus, AxiRam, AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

SETTINGS = json.loads(os.environ["FERROCE_AXI4"])
MEMORY = 1 << 16


def pauses(seed, chance=0.25):
    rng = random.Random(seed)
    while True:
        yield rng.random() < chance


async def setup(dut):
    cocotb.start_soon(Clock(dut.clock, 4, unit="ns").start())
    for name in ["s_read_valid", "s_cmd_valid", "s_read_addr", "s_read_len", "s_cmd_address", "s_cmd_length"]:
        getattr(dut, name).value = 0
    dut.reset.value = 1
    ram = AxiRam(AxiBus.from_prefix(dut, "m_axi"), dut.clock, dut.reset, reset_active_level=True, size=MEMORY)
    data_in = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_wr"), dut.clock, dut.reset, reset_active_level=True)
    data_out = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_pay"), dut.clock, dut.reset, reset_active_level=True)
    channels = [
        ram.write_if.aw_channel,
        ram.write_if.w_channel,
        ram.write_if.b_channel,
        ram.read_if.ar_channel,
        ram.read_if.r_channel,
    ]
    for seed, channel in enumerate(channels):
        channel.set_pause_generator(pauses(SETTINGS["seed"] + seed))
    # every burst and frame at INFO would be megabytes of log
    for log in [ram.write_if.log, ram.read_if.log, data_in.log, data_out.log]:
        log.setLevel(logging.WARNING)
    data_in.set_pause_generator(pauses(SETTINGS["seed"] + 10))
    data_out.set_pause_generator(pauses(SETTINGS["seed"] + 11))
    await ClockCycles(dut.clock, 3)
    dut.reset.value = 0
    await ClockCycles(dut.clock, 2)
    return ram, data_in, data_out


async def command(dut, prefix, fields, values):
    """Presents one command on `<prefix>_valid` with its fields until `<prefix>_ready` takes it."""
    for field, value in zip(fields, values):
        getattr(dut, f"{prefix}_{field}").value = value
    getattr(dut, f"{prefix}_valid").value = 1
    while True:
        await RisingEdge(dut.clock)
        if getattr(dut, f"{prefix}_ready").value:
            break
    getattr(dut, f"{prefix}_valid").value = 0


def commands(rng, n, lanes):
    out = []
    for _ in range(n):
        length = rng.choice([1, lanes - 1, lanes, lanes + 1, 4096, rng.randint(1, 64), rng.randint(1, 4096)])
        address = rng.randrange(0, MEMORY - length)
        if rng.random() < 0.3:
            # ends just past a 4 KiB boundary
            boundary = rng.randrange(1, MEMORY // 4096) * 4096
            address = max(0, min(MEMORY - length, boundary - rng.randint(1, min(length, lanes))))
        out.append((address, length))
    return out


@cocotb.test()
async def writes_then_reads_match_the_ram(dut):
    ram, data_in, data_out = await setup(dut)
    rng = random.Random(SETTINGS["seed"])
    lanes = len(dut.m_pay_tkeep)
    image = bytearray(rng.getrandbits(8) for _ in range(MEMORY))
    ram.write(0, bytes(image))

    writes = [(a, bytes(rng.getrandbits(8) for _ in range(n))) for a, n in commands(rng, SETTINGS["commands"], lanes)]
    for address, data in writes:
        sending = cocotb.start_soon(data_in.send(AxiStreamFrame(data)))
        await command(dut, "s_cmd", ["address", "length"], [address, len(data)])
        await sending
        image[address : address + len(data)] = data
    await data_in.wait()
    # the last W beats and their B; the master has no outstanding-write output, so wait a while
    await ClockCycles(dut.clock, 400)
    assert ram.read(0, MEMORY) == bytes(image), "memory after the writes"

    reads = commands(rng, SETTINGS["commands"], lanes)
    for address, length in reads:
        await command(dut, "s_read", ["addr", "len"], [address, length])
    for address, length in reads:
        frame = await data_out.recv()
        assert bytes(frame.tdata) == bytes(image[address : address + length]), (hex(address), length)
    assert int(dut.read_errors.value) == 0 and int(dut.write_errors.value) == 0
