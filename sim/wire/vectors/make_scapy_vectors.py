#!/usr/bin/env python3
"""Independent ICRC oracle for ferroce-wire: builds a deterministic set of RoCEv2 frames with
scapy (scapy.contrib.roce computes the ICRC) and writes

  scapy_roce.pcap  -- the frames (LINKTYPE_ETHERNET, no FCS)
  scapy_roce.txt   -- one line per frame: hex of the 4 ICRC wire bytes scapy computed

Only frames of at least 60 bytes are produced: scapy miscomputes the ICRC of frames that
carry MAC padding. Extension headers scapy has no layer for (RETH, DETH, ImmDt, ...) are
added as raw bytes after the BTH, which the ICRC covers the same way.

Run from anywhere:  python3 sim/wire/vectors/make_scapy_vectors.py
Needs: pip install scapy (generated with scapy 2.8.0).
"""
import os
import random
import struct
import sys

from scapy.all import Ether, Dot1Q, Dot1AD, IP, IPv6, UDP, Raw, raw, rdpcap, wrpcap
from scapy.contrib.roce import BTH, AETH, cnp

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 4791

# (opcode, bytes of extension headers after the BTH, carries payload)
def ext_for(rng, op):
    r32 = lambda: struct.pack("!I", rng.getrandbits(32))
    r64 = lambda: struct.pack("!Q", rng.getrandbits(64))
    reth = lambda: r64() + r32() + r32()
    deth = lambda: r32() + b"\x00" + struct.pack("!I", rng.getrandbits(24))[1:]
    aeth = lambda: bytes([rng.getrandbits(8)]) + struct.pack("!I", rng.getrandbits(24))[1:]
    table = {
        0x04: (b"", True),                      # RC SEND only
        0x00: (b"", True),                      # RC SEND first
        0x03: (r32(), True),                    # RC SEND last with immediate
        0x24: (b"", True),                      # UC SEND only
        0x25: (r32(), True),                    # UC SEND only with immediate
        0x0A: (reth(), True),                   # RC RDMA WRITE only
        0x0B: (reth() + r32(), True),           # RC RDMA WRITE only with immediate
        0x26: (reth(), True),                   # UC RDMA WRITE first
        0x27: (b"", True),                      # UC RDMA WRITE middle
        0x29: (r32(), True),                    # UC RDMA WRITE last with immediate
        0x2B: (reth() + r32(), True),           # UC RDMA WRITE only with immediate
        0x0C: (reth(), False),                  # RC RDMA READ request
        0x10: (aeth(), True),                   # RC RDMA READ response only
        0x0E: (b"", True),                      # RC RDMA READ response middle
        0x13: (r64() + r32() + r64() + r64(), False),  # RC CmpSwap (AtomicETH)
        0x12: (aeth() + r64(), False),          # RC atomic ACK (AETH + AtomicAckETH)
        0x17: (r32(), True),                    # RC SEND only with invalidate (IETH)
        0x64: (deth(), True),                   # UD SEND only
        0x65: (deth() + r32(), True),           # UD SEND only with immediate
    }
    return table[op]

OPCODES = [0x04, 0x00, 0x03, 0x24, 0x25, 0x0A, 0x0B, 0x26, 0x27, 0x29,
           0x0C, 0x10, 0x0E, 0x13, 0x12, 0x17, 0x64, 0x65]
SIZES = [0, 1, 2, 3, 4, 5, 7, 16, 63, 64, 100, 255, 256, 257, 1023, 1024, 1025, 4095, 4096]


def l2(rng, i):
    mac = lambda: ":".join("%02x" % rng.getrandbits(8) for _ in range(6))
    e = Ether(dst=mac(), src=mac())
    kind = i % 5
    if kind == 3:
        return e / Dot1Q(prio=rng.getrandbits(3), vlan=rng.getrandbits(12))
    if kind == 4:
        return e / Dot1AD(prio=rng.getrandbits(3), vlan=rng.getrandbits(12)) / \
            Dot1Q(prio=rng.getrandbits(3), vlan=rng.getrandbits(12))
    return e


def l3(rng, v6):
    if v6:
        a = lambda: ":".join("%x" % rng.getrandbits(16) for _ in range(8))
        return IPv6(src=a(), dst=a(), tc=rng.getrandbits(8), fl=rng.getrandbits(20),
                    hlim=rng.getrandbits(8))
    a = lambda: ".".join(str(rng.getrandbits(8)) for _ in range(4))
    return IP(src=a(), dst=a(), tos=rng.getrandbits(8), ttl=rng.getrandbits(8),
              id=rng.getrandbits(16), flags="DF" if rng.getrandbits(1) else 0)


def bth(rng, op, padcount):
    return BTH(opcode=op, solicited=rng.getrandbits(1), migreq=rng.getrandbits(1),
               padcount=padcount, pkey=rng.getrandbits(16), fecn=rng.getrandbits(1),
               becn=rng.getrandbits(1), resv6=rng.getrandbits(6), dqpn=rng.getrandbits(24),
               ackreq=rng.getrandbits(1), psn=rng.getrandbits(24))


def frame(rng, i, op, size, v6):
    ext, has_payload = ext_for(rng, op)
    n = size if has_payload else 0
    while True:
        payload = bytes(rng.getrandbits(8) for _ in range(n))
        pad = (4 - n % 4) % 4
        udp = UDP(sport=rng.getrandbits(16), dport=4791, chksum=rng.getrandbits(16))
        pkt = l2(rng, i) / l3(rng, v6) / udp / bth(rng, op, pad) / Raw(ext + payload + b"\0" * pad)
        b = raw(pkt)
        if len(b) >= 60:
            return b
        n += 1  # too short: scapy would need MAC padding; grow the payload instead
        has_payload = True


def cnp_frame(rng, i, v6):
    pkt = l2(rng, i) / l3(rng, v6) / UDP(sport=rng.getrandbits(16), dport=4791, chksum=0) / \
        cnp(rng.getrandbits(24))
    b = raw(pkt)
    assert len(b) >= 60
    return b


def main():
    rng = random.Random(SEED)
    frames = []
    i = 0
    for op in OPCODES:
        for v6 in (False, True):
            size = SIZES[rng.randrange(len(SIZES))]
            frames.append(frame(rng, i, op, size, v6))
            i += 1
    for v6 in (False, True):
        frames.append(cnp_frame(rng, i, v6))
        i += 1
    # Payload-size sweep on RC SEND only / UC WRITE only with immediate.
    for size in (1, 2, 3, 5, 6, 7, 255, 256, 257, 4095, 4096, 4093):
        frames.append(frame(rng, i, 0x04 if size % 2 else 0x2B, size, size % 3 == 0))
        i += 1
    # Sanity: re-derive the scapy vector from the scapy test suite (its UC SEND-only ICRC vector, 78 f3 53 f3).
    ref = bytes.fromhex(
        "248a07a8fa22248a07a8fa22080045010040047840004011b4d5c0a80007c0a80007c00012b7002caca22460ffff000000d3"
        "00cf17104630818be28935d90e9a95505401be885e50000078f353f3")
    re = Ether(ref)
    re[BTH].icrc = None
    assert raw(re) == ref, "scapy does not reproduce its own UC SEND-only vector"

    path = os.path.join(HERE, "scapy_roce.pcap")
    pkts = []
    for k, b in enumerate(frames):
        p = Ether(b)
        p.time = k / 1e6  # fixed timestamps keep the file byte-for-byte reproducible
        pkts.append(p)
    wrpcap(path, pkts, linktype=1)
    assert [raw(p) for p in rdpcap(path)] == frames, "pcap does not hold the exact bytes"
    with open(os.path.join(HERE, "scapy_roce.txt"), "w") as f:
        for b in frames:
            f.write(b[-4:].hex() + "\n")
    print("wrote %d frames" % len(frames), file=sys.stderr)


if __name__ == "__main__":
    main()
