//! The packet generator (`TxGenerator`) in Verilator against frames the wire model builds from
//! the same descriptors and QP contexts (`ferroce_wire::RoceFrame`, which shares no code with
//! the RTL), byte for byte: every SEND and WRITE opcode of RC and UC, and the Acknowledge of a
//! response (its AETH in the descriptor's `immediate`), payloads of 0 to 4096 bytes, IPv4 and IPv6, under random descriptor idle, memory stalls, output and completion
//! backpressure, at 64 and 512 bits. Every frame also passes the RX model (accepted, ICRC
//! good), the output never pauses inside a frame (memory stalls included: a frame starts with its
//! payload stored whole), and it has no gap between frames when nothing stalls it.

use ferroce_sim::contracts::tx::{MAX_PACKET_PAYLOAD, PACKET, QP_CONTEXT};
use ferroce_sim::contracts::{Opcode, Operation, Transport};
use ferroce_sim::rx::{rx_model, RxVerdict};
use ferroce_sim::tx_rtl::{run_generator, GeneratorJob, GeneratorTraffic};
use ferroce_sim::verilated::MODELS;
use ferroce_sim::wire::aeth::{self, Repr as AethRepr};
use ferroce_sim::wire::packet::{ExtRepr, IpRepr, RoceFrame};
use ferroce_sim::wire::{BthRepr, EthernetRepr, ImmDtRepr, Ipv4Repr, Ipv6Repr, RethRepr};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::net::{Ipv4Addr, Ipv6Addr};

/// A QP's addressing, as the context holds it.
#[derive(Debug, Clone)]
struct Qp {
    v6: bool,
    src_mac: [u8; 6],
    dst_mac: [u8; 6],
    src_ip: u128,
    dst_ip: u128,
    dscp: u8,
    ecn: u8,
    ttl: u8,
    flow_label: u32,
    udp_sport: u16,
    pkey: u16,
    dest_qpn: u32,
}

impl Qp {
    fn random(rng: &mut ChaCha8Rng) -> Qp {
        let v6 = rng.gen_bool(0.5);
        Qp {
            v6,
            src_mac: rng.gen(),
            dst_mac: rng.gen(),
            src_ip: if v6 { rng.gen() } else { u128::from(rng.gen::<u32>()) },
            dst_ip: if v6 { rng.gen() } else { u128::from(rng.gen::<u32>()) },
            dscp: rng.gen_range(0..64),
            ecn: rng.gen_range(0..4),
            ttl: rng.gen(),
            flow_label: rng.gen_range(0..1 << 20),
            udp_sport: rng.gen(),
            pkey: rng.gen(),
            dest_qpn: rng.gen_range(0..1 << 24),
        }
    }

    fn context(&self) -> Vec<u32> {
        let mac = |m: [u8; 6]| m.iter().fold(0u128, |v, &b| v << 8 | u128::from(b));
        QP_CONTEXT
            .encode(&[
                ("state", 3),
                ("ip_v6", u128::from(self.v6)),
                ("dscp", u128::from(self.dscp)),
                ("ecn", u128::from(self.ecn)),
                ("ttl", u128::from(self.ttl)),
                ("flow_label", u128::from(self.flow_label)),
                ("udp_sport", u128::from(self.udp_sport)),
                ("pkey", u128::from(self.pkey)),
                ("dest_qpn", u128::from(self.dest_qpn)),
                ("src_mac", mac(self.src_mac)),
                ("dst_mac", mac(self.dst_mac)),
                ("src_ip", self.src_ip),
                ("dst_ip", self.dst_ip),
            ])
            .unwrap()
    }
}

/// A packet: its QP and its own fields.
#[derive(Debug, Clone)]
struct Packet {
    qp: u32,
    opcode: Opcode,
    psn: u32,
    solicited: bool,
    ack_request: bool,
    last_of_transfer: bool,
    channel: u16,
    va: u64,
    rkey: u32,
    dma_len: u32,
    immediate: u32,
    payload: Vec<u8>,
}

impl Packet {
    fn descriptor(&self) -> Vec<u32> {
        let ext = self.opcode.ext_headers();
        PACKET
            .encode(&[
                ("qp", u128::from(self.qp)),
                ("opcode", u128::from(self.opcode.value())),
                ("psn", u128::from(self.psn)),
                ("solicited", u128::from(self.solicited)),
                ("ack_request", u128::from(self.ack_request)),
                ("pad", ((4 - self.payload.len() % 4) % 4) as u128),
                ("has_reth", u128::from(ext.reth)),
                ("has_immediate", u128::from(ext.immdt || ext.aeth)),
                ("last_of_transfer", u128::from(self.last_of_transfer)),
                ("payload_len", self.payload.len() as u128),
                ("channel", u128::from(self.channel)),
                ("rkey", u128::from(self.rkey)),
                ("dma_len", u128::from(self.dma_len)),
                ("immediate", u128::from(self.immediate)),
                ("va", u128::from(self.va)),
            ])
            .unwrap()
    }

    /// The frame the wire model builds (zero MAC padding to 60 bytes included).
    fn expected_frame(&self, qp: &Qp) -> Vec<u8> {
        let eth = EthernetRepr {
            dst: qp.dst_mac,
            src: qp.src_mac,
            vlans: vec![],
            ethertype: 0,
        };
        let tos = qp.dscp << 2 | qp.ecn;
        let ip = if qp.v6 {
            IpRepr::V6(Ipv6Repr {
                src: Ipv6Addr::from(qp.src_ip),
                dst: Ipv6Addr::from(qp.dst_ip),
                traffic_class: tos,
                flow_label: qp.flow_label,
                next_header: 17,
                hop_limit: qp.ttl,
                payload_len: 0,
            })
        } else {
            IpRepr::V4(Ipv4Repr {
                src: Ipv4Addr::from(qp.src_ip as u32),
                dst: Ipv4Addr::from(qp.dst_ip as u32),
                tos,
                ident: 0,
                dont_frag: true,
                more_frags: false,
                frag_offset: 0,
                ttl: qp.ttl,
                protocol: 17,
                payload_len: 0,
            })
        };
        let bth = BthRepr {
            opcode: self.opcode,
            solicited: self.solicited,
            migreq: false,
            pad_cnt: 0,
            p_key: qp.pkey,
            fecn: false,
            becn: false,
            resv6: 0,
            dest_qp: qp.dest_qpn,
            ack_req: self.ack_request,
            resv7: 0,
            psn: self.psn,
        };
        let mut frame = RoceFrame::new(eth, ip, bth, self.payload.clone());
        frame.udp_src_port = qp.udp_sport;
        let ext = self.opcode.ext_headers();
        frame.ext = ExtRepr {
            reth: ext.reth.then_some(RethRepr {
                va: self.va,
                r_key: self.rkey,
                dma_len: self.dma_len,
            }),
            immdt: ext.immdt.then_some(ImmDtRepr { imm: self.immediate }),
            aeth: ext.aeth.then_some(AethRepr::from_word(self.immediate)),
            ..ExtRepr::default_for(self.opcode)
        };
        frame.emit()
    }
}

/// Every SEND and WRITE opcode of RC and UC, and RC Acknowledge.
fn opcodes() -> Vec<Opcode> {
    use Operation::*;
    let ops = [
        SendFirst,
        SendMiddle,
        SendLast,
        SendLastImm,
        SendOnly,
        SendOnlyImm,
        WriteFirst,
        WriteMiddle,
        WriteLast,
        WriteLastImm,
        WriteOnly,
        WriteOnlyImm,
    ];
    [Transport::Rc, Transport::Uc]
        .iter()
        .flat_map(|&t| ops.iter().map(move |&o| Opcode::from_parts(t, o).unwrap()))
        .chain([Opcode::from_parts(Transport::Rc, Ack).unwrap()])
        .collect()
}

fn random_packets(rng: &mut ChaCha8Rng, qps: usize, n: usize) -> Vec<Packet> {
    let opcodes = opcodes();
    (0..n)
        .map(|_| {
            let len = match rng.gen_range(0..10) {
                0 => 0,
                1..=5 => rng.gen_range(1..200),
                6..=8 => rng.gen_range(200..2048),
                _ => *[256, 1024, 4096, 4095, 4093].get(rng.gen_range(0..5)).unwrap(),
            };
            let opcode = opcodes[rng.gen_range(0..opcodes.len())];
            if opcode.ext_headers().aeth {
                // a response: no payload, no SE or AckReq, a valid syndrome (ACK, RNR NAK, NAK 0-4)
                let syndrome = [0x1F, 0x20 | rng.gen_range(0..32), 0x60 | rng.gen_range(0..5)][rng.gen_range(0..3)];
                return Packet {
                    qp: rng.gen_range(0..qps as u32) * 7 + 3,
                    opcode,
                    psn: rng.gen_range(0..1 << 24),
                    solicited: false,
                    ack_request: false,
                    last_of_transfer: false,
                    channel: 0,
                    va: 0,
                    rkey: 0,
                    dma_len: 0,
                    immediate: aeth::word(syndrome, rng.gen_range(0..1 << 24)),
                    payload: Vec::new(),
                };
            }
            Packet {
                qp: rng.gen_range(0..qps as u32) * 7 + 3,
                opcode,
                psn: rng.gen_range(0..1 << 24),
                solicited: rng.gen(),
                ack_request: rng.gen(),
                last_of_transfer: rng.gen_bool(0.3),
                channel: rng.gen(),
                va: rng.gen(),
                rkey: rng.gen(),
                dma_len: rng.gen(),
                immediate: rng.gen(),
                payload: (0..len).map(|_| rng.gen()).collect(),
            }
        })
        .collect()
}

fn check(width: usize, packets: &[Packet], qps: &HashMap<u32, Qp>, traffic: GeneratorTraffic) -> ferroce_sim::tx_rtl::GeneratorRun {
    let jobs: Vec<GeneratorJob> = packets
        .iter()
        .map(|p| GeneratorJob {
            descriptor: p.descriptor(),
            payload: p.payload.clone(),
        })
        .collect();
    let contexts: HashMap<u32, Vec<u32>> = qps.iter().map(|(&n, qp)| (n, qp.context())).collect();
    let expected_completions: Vec<u16> = packets.iter().filter(|p| p.last_of_transfer).map(|p| p.channel).collect();
    let run = run_generator(width, &jobs, &contexts, expected_completions.len(), traffic)
        .unwrap_or_else(|e| panic!("{width} bits, {traffic:?}: {e}"));
    assert_eq!(run.frames.len(), packets.len());
    for (i, (p, got)) in packets.iter().zip(&run.frames).enumerate() {
        let want = p.expected_frame(&qps[&p.qp]);
        assert_eq!(
            hex(got),
            hex(&want),
            "{width} bits, {traffic:?}: frame {i} ({} {} bytes of payload, IPv{})",
            p.opcode.name(),
            p.payload.len(),
            if qps[&p.qp].v6 { 6 } else { 4 }
        );
        let rx = rx_model(got);
        assert_eq!(
            rx.verdict,
            RxVerdict::Accept,
            "{width} bits: frame {i} is not accepted by the RX model: {:?}",
            rx.verdict
        );
    }
    assert_eq!(run.completions, expected_completions, "{width} bits, {traffic:?}: completions");
    assert_eq!(
        run.underflow_cycles, 0,
        "{width} bits, {traffic:?}: the output paused inside a frame (a CMAC would underflow)"
    );
    run
}

/// The widths whose generator model is built: 512 always, 64 with `FERROCE_SIM_ALL=1`.
fn built_widths() -> Vec<usize> {
    assert!(
        MODELS.contains(&"ferroce_tx_generator_w512"),
        "the 512-bit generator model is always built"
    );
    [64, 512]
        .into_iter()
        .filter(|w| MODELS.contains(&format!("ferroce_tx_generator_w{w}").as_str()))
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn run_width(width: usize) {
    let rng = &mut ChaCha8Rng::seed_from_u64(0x7e9 + width as u64);
    let qps: HashMap<u32, Qp> = (0..8u32).map(|i| (i * 7 + 3, Qp::random(rng))).collect();
    // the last: a memory slower than the wire, which would pause frames that started early
    for (k, (idle, stall, bp, cbp)) in [(0, 0, 0, 0), (30, 0, 0, 0), (0, 30, 30, 50), (20, 20, 20, 20), (0, 60, 0, 0)]
        .into_iter()
        .enumerate()
    {
        let packets = random_packets(rng, qps.len(), 150);
        let traffic = GeneratorTraffic {
            descriptor_idle_pct: idle,
            payload_idle_pct: stall,
            output_bp_pct: bp,
            completion_bp_pct: cbp,
            seed: 100 + k as u64,
        };
        check(width, &packets, &qps, traffic);
    }
}

#[test]
#[ignore = "the generator is co-simulated at 64 bits inside tx_path and the engine; its own 64-bit model is built with FERROCE_SIM_ALL=1"]
fn frames_match_the_wire_model_w64() {
    run_width(64);
}

#[test]
fn frames_match_the_wire_model_w512() {
    run_width(512);
}

/// Back-to-back frames of every size with nothing stalling: one output beat per cycle, no gap
/// between frames (the ICRC's extra beat aside).
///
/// A frame starts when its payload is whole, so the memory must be a payload ahead of the wire.
/// The first frame carries the largest payload: while it waits, the memory gets that far ahead,
/// and a memory at the bus rate stays ahead (the headers' beats take none of it). Without that,
/// the first large payload after a run of small ones waits for its last beat once.
#[test]
fn one_beat_per_cycle_without_stalls() {
    for width in built_widths() {
        let rng = &mut ChaCha8Rng::seed_from_u64(0xb2b);
        let qps: HashMap<u32, Qp> = (0..4u32).map(|i| (i * 7 + 3, Qp::random(rng))).collect();
        let mut packets = random_packets(rng, qps.len(), 300);
        packets[0].payload = (0..MAX_PACKET_PAYLOAD).map(|_| rng.gen()).collect();
        let run = check(width, &packets, &qps, GeneratorTraffic::FULL);
        eprintln!(
            "tx_generator {width} bits: {} frames, {} beats out, first beat at cycle {:?}, last at {}, {} idle cycles between beats",
            run.frames.len(),
            run.beats_out,
            run.first_beat_cycle,
            run.cycles - 1,
            run.output_gaps
        );
        assert_eq!(run.output_gaps, 0, "{width} bits: the output idled between frames");
    }
}

/// Packets one at a time (nothing else in flight): the headers alone, before any overlap.
#[test]
fn single_packets() {
    for width in built_widths() {
        let rng = &mut ChaCha8Rng::seed_from_u64(0x51);
        let qps: HashMap<u32, Qp> = (0..2u32).map(|i| (i * 7 + 3, Qp::random(rng))).collect();
        for p in random_packets(rng, qps.len(), 12) {
            check(width, &[p], &qps, GeneratorTraffic::FULL);
        }
    }
}
