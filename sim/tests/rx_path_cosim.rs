//! The RX path RTL (Verilator models `ferroce_rx_path_q256_w64` and `_w512`: RxFront, Responder
//! and PayloadWriter joined) against the golden models (the RX front end model, then the
//! responder model), through [`RxLockstep`]: every decision word for word, every pass-through
//! frame byte for byte, every memory write (command and data), every counter, and at the end the
//! destination memory against the bytes the requesters sent. The frames come from the TX model
//! (a requester per connection reading `PatternMemory`), so the data does not come from the
//! responder.
//!
//! - random RC and UC transfers (SEND, SEND with immediate, WRITE, WRITE with immediate; 0 B to
//!   64 KiB; PMTU 256 to 4096; ACK coalescing on some QPs) at both widths, under the four
//!   traffic patterns (frame idle and output backpressure on and off);
//! - bad input among good frames: corrupted ICRC, truncated frames, frames longer than their IP
//!   length, frames that are not RoCEv2, an unknown QP, a QP in reset, a wrong R_Key, a WRITE
//!   out of its region, PSN gaps, a SEND without a receive buffer; none writes a byte; the
//!   peer's ACKs and NAKs are forwarded with their PSN and AETH;
//! - the throughput of back-to-back WRITEs at 512 bits (`--nocapture` prints it);
//! - a run that cannot progress is an error, and an output outside a run is one too.

use ferroce_sim::axis::pack_beat;
use ferroce_sim::contracts::responder::{Aeth, NakCode, Syndrome};
use ferroce_sim::contracts::tx::{Pmtu, PostOp};
use ferroce_sim::models::responder::{CheckFailure, Forwarded, Outcome, Response, Verdict};
use ferroce_sim::models::tx::frame::{frame_bytes, frame_repr};
use ferroce_sim::models::tx::{LocalMemory, Post, QpContext, SparseMemory, TxEngine, TxModel, TxPacket, TxSetup};
use ferroce_sim::peers::{distinct_qps, random_op, random_psn, Peer, Requesters};
use ferroce_sim::responder_rtl::{PairedSetup, QPS};
use ferroce_sim::rx::{rx_model, DropReason, RxVerdict};
use ferroce_sim::rx_path_rtl::{RxLockstep, RxPathRtl, RECEIVE_QUEUE_DEPTH, WIDTHS};
use ferroce_sim::verilated::Traffic;
use ferroce_sim::wire::{Opcode, Transport};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

const SEED: u64 = 0x5a7_4c0e;
const PSN_MASK: u32 = 0xFF_FFFF;
/// Each post's slice of its region: WRITE destinations never overlap.
const SLOT: u64 = 0x2_0000;
/// Bytes of each connection's region.
const REGION_LEN: u64 = 1 << 24;

/// The models and the RTL in lockstep, the requesters that feed them and the memory the
/// transfers that landed must leave.
struct Bench {
    cosim: RxLockstep,
    requesters: Requesters,
    /// WRITE slots handed out so far.
    slots: u64,
    /// What the destination memory must hold: the bytes of every transfer that landed.
    expected: SparseMemory,
    /// Where they landed: (address, bytes).
    landed: Vec<(u64, usize)>,
}

impl Bench {
    /// Both sides with every peer's region and committed context.
    fn new(width: usize, traffic: Traffic, peers: Vec<Peer>) -> Bench {
        let mut cosim = RxLockstep::new(width, traffic).unwrap();
        for peer in &peers {
            cosim.add_region(peer.region).unwrap();
            cosim.commit(peer.qp, &peer.responder).unwrap();
        }
        Bench {
            cosim,
            requesters: Requesters::new(traffic.seed, peers),
            slots: 0,
            expected: SparseMemory::new(),
            landed: Vec::new(),
        }
    }

    /// A post of `op` on peer `peer` (channel `channel`); a WRITE goes to a slot of its region
    /// no other post uses.
    fn post(&mut self, peer: usize, channel: u16, op: PostOp, length: u32) -> Post {
        assert!(u64::from(length) <= SLOT);
        let region = self.requesters.peers[peer].region;
        self.slots += 1;
        let offset = (self.slots * SLOT) % region.length + self.requesters.rng.gen_range(0..=SLOT - u64::from(length));
        let remote_addr = region.base + offset.min(region.length - u64::from(length));
        self.requesters.post_at(peer, channel, op, length, remote_addr)
    }

    /// Posts a receive buffer of `length` bytes to the peer's QP at a fresh address, on both
    /// sides; panics if the RTL refuses it. Returns the address.
    fn post_buffer(&mut self, peer: usize, length: u32) -> u64 {
        self.requesters.post_buffer(&mut self.cosim, peer, length)
    }

    /// Posts the receive buffers the packets' messages need, each 8 bytes longer than its
    /// message ([`Requesters::post_buffers`]). Returns each SEND's buffer address by channel.
    fn post_buffers(&mut self, posts: &[Post], packets: &[TxPacket]) -> HashMap<u16, u64> {
        self.requesters
            .post_buffers(&mut self.cosim, posts, packets, |post| Some(post.length + 8))
    }

    /// Delivers frames to both, panicking with the mismatch if the RTL disagrees.
    fn deliver(&mut self, frames: &[Vec<u8>]) -> Vec<Option<Outcome>> {
        self.cosim.deliver(frames).unwrap_or_else(|e| panic!("{e}"))
    }

    /// `post`'s bytes `range` (of its transfer) landed at `address + range.start`.
    fn landed(&mut self, post: &Post, address: u64, range: std::ops::Range<u64>) {
        let bytes = self
            .requesters
            .source
            .bytes(post.local_addr + range.start, (range.end - range.start) as usize);
        self.expected.write(address + range.start, &bytes);
        self.landed.push((address + range.start, bytes.len()));
    }

    /// The whole of `post` landed: a WRITE at its remote address, a SEND in `buffer`.
    fn landed_whole(&mut self, post: &Post, buffer: Option<u64>) {
        let address = match PostOp::from_code(post.op) {
            Some(PostOp::Send | PostOp::SendImm) => buffer.expect("a SEND's buffer"),
            _ => post.remote_addr,
        };
        self.landed(post, address, 0..u64::from(post.length));
    }

    /// The requester goes on from the PSN the responder expects (as after a NAK).
    fn resync(&mut self, peer: usize) {
        self.requesters.resync(&self.cosim.model, peer);
    }

    /// Restarts the peer's responder QP at the requester's PSN (out of the error state).
    fn recommit(&mut self, peer: usize) {
        self.requesters.recommit(&mut self.cosim, peer);
    }

    /// One good transfer on `peer` (with a buffer that fits, if it needs one), delivered: every
    /// packet executed, the bytes landed.
    fn good_transfer(&mut self, peer: usize, op: PostOp, length: u32) {
        let post = self.post(peer, 0, op, length);
        let packets = self.requesters.packets(&[post]);
        let buffers = self.post_buffers(&[post], &packets);
        let outcomes = self.deliver(&self.requesters.frames(&packets));
        assert!(
            outcomes.iter().all(|o| o.as_ref().is_some_and(Outcome::executed)),
            "{op:?} {length} B on QP {}: {:?}",
            self.requesters.peers[peer].qp,
            verdicts(&outcomes)
        );
        self.landed_whole(&post, buffers.get(&0).copied());
        self.resync(peer);
    }

    /// The RTL's writes left exactly the bytes of the transfers that landed, nothing else.
    fn check_memory(&self) {
        for &(address, len) in &self.landed {
            let (got, want) = (self.cosim.memory.bytes(address, len), self.expected.bytes(address, len));
            if let Some(at) = got.iter().zip(&want).position(|(a, b)| a != b) {
                panic!(
                    "{len} bytes sent to {address:#x}: byte {at} is {:#04x} in memory, {:#04x} sent",
                    got[at], want[at]
                );
            }
        }
        assert!(
            self.cosim.memory == self.expected,
            "the RTL wrote bytes outside every transfer's destination"
        );
    }

    fn check_counters(&mut self) {
        self.cosim.check_counters().unwrap_or_else(|e| panic!("{e}"));
    }
}

fn verdicts(outcomes: &[Option<Outcome>]) -> Vec<Option<Verdict>> {
    outcomes.iter().map(|o| o.as_ref().map(|o| o.verdict)).collect()
}

fn failed(f: CheckFailure) -> Option<Verdict> {
    Some(Verdict::Failed(f))
}

/// A random payload length: mostly small, some up to 64 KiB.
fn length(rng: &mut ChaCha8Rng) -> u32 {
    match rng.gen_range(0..10) {
        0 => 0,
        1..=4 => rng.gen_range(1..600),
        5..=8 => rng.gen_range(600..9000),
        _ => rng.gen_range(9000..=65536),
    }
}

/// Four connections, RC and UC, four PMTUs in a row from a random one, ACK coalescing on an RC
/// and a UC one (which ignores it), PSNs near the wrap or anywhere.
fn random_peers(rng: &mut ChaCha8Rng) -> Vec<Peer> {
    let qps = distinct_qps(rng, 4, QPS);
    let first_pmtu = rng.gen_range(0..Pmtu::ALL.len());
    qps.iter()
        .enumerate()
        .map(|(i, &qp)| {
            let transport = if i % 2 == 0 { Transport::Rc } else { Transport::Uc };
            let pmtu = Pmtu::ALL[(first_pmtu + i) % Pmtu::ALL.len()];
            let psn = random_psn(rng);
            let mut peer = Peer::new(qp, transport, pmtu, 1 + i as u16, 1 + i as u32, psn)
                .ack_every([0, 1, 3, 2][i])
                .region_length(REGION_LEN);
            peer.requester.ack_every = rng.gen_range(0..4);
            peer
        })
        .collect()
}

/// Rounds of random posts on every peer, delivered as frames: every packet executed, every
/// byte where the requester sent it.
fn random_transfers(width: usize, traffic: Traffic, rounds: usize, posts_per_round: u16) {
    let mut rng = ChaCha8Rng::seed_from_u64(traffic.seed);
    let mut bench = Bench::new(width, traffic, random_peers(&mut rng));
    let mut packets_executed = 0;
    for round in 0..rounds {
        let mut posts = Vec::new();
        let mut queued = [0usize; 4];
        for channel in 0..posts_per_round {
            let peer = rng.gen_range(0..bench.requesters.peers.len());
            let op = random_op(&mut rng, peer, &mut queued, RECEIVE_QUEUE_DEPTH);
            let length = length(&mut rng);
            posts.push(bench.post(peer, channel, op, length));
        }
        let packets = bench.requesters.packets(&posts);
        let buffers = bench.post_buffers(&posts, &packets);
        let outcomes = bench.deliver(&bench.requesters.frames(&packets));
        let not_executed: Vec<(usize, Option<Verdict>)> = verdicts(&outcomes)
            .into_iter()
            .enumerate()
            .filter(|(_, v)| *v != Some(Verdict::Executed))
            .collect();
        assert!(not_executed.is_empty(), "round {round}: packets not executed: {not_executed:?}");
        packets_executed += outcomes.len();
        for post in &posts {
            bench.landed_whole(post, buffers.get(&post.channel).copied());
        }
        for peer in 0..bench.requesters.peers.len() {
            bench.resync(peer);
        }
    }
    bench.check_memory();
    bench.check_counters();
    assert!(packets_executed > rounds * usize::from(posts_per_round));
    let counters = bench.cosim.model.counters();
    assert!(counters.completions > 0 && counters.acks > 0, "{counters:?}");
}

#[test]
fn random_rc_and_uc_transfers_land_byte_exact_four_ways_at_both_widths() {
    for width in WIDTHS {
        for (i, traffic) in Traffic::four_ways(SEED).into_iter().enumerate() {
            let traffic = Traffic {
                seed: SEED + 4 * width as u64 + i as u64,
                ..traffic
            };
            random_transfers(width, traffic, 3, 16);
        }
    }
}

/// Frames that are not RoCEv2: ARP, IPv4 TCP, IPv4 UDP to port 4790, IPv6 UDP to port 53, a
/// VLAN-tagged ARP; random bytes after their headers.
fn not_rocev2(rng: &mut ChaCha8Rng) -> Vec<Vec<u8>> {
    let ethernet = |ethertype: u16| {
        let mut f = vec![0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1];
        f.extend(ethertype.to_be_bytes());
        f
    };
    let mut random = |f: &mut Vec<u8>, n: usize| f.extend((0..n).map(|_| rng.gen::<u8>()));
    let mut arp = ethernet(0x0806);
    random(&mut arp, 46);
    let mut tcp = ethernet(0x0800);
    tcp.extend([0x45, 0, 0, 60, 0, 0, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
    random(&mut tcp, 40);
    let mut udp = ethernet(0x0800);
    udp.extend([0x45, 0, 1, 0, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
    udp.extend([0xc0, 0x00, 0x12, 0xB6, 0x00, 0xEC, 0, 0]); // to port 4790
    random(&mut udp, 228);
    let mut v6 = ethernet(0x86DD);
    v6.extend([0x60, 0, 0, 0, 0, 200, 17, 64]);
    random(&mut v6, 32);
    v6.extend([0xc0, 0x00, 0x00, 53, 0, 200, 0, 0]);
    random(&mut v6, 192);
    let mut vlan_arp = ethernet(0x8100);
    vlan_arp.extend([0x00, 0x05, 0x08, 0x06]);
    random(&mut vlan_arp, 1500);
    let frames = vec![arp, tcp, udp, v6, vlan_arp];
    for f in &frames {
        assert_eq!(rx_model(f).verdict, RxVerdict::Pass);
    }
    frames
}

/// The frame of `packet` with its payload changed (the ICRC recomputed: a valid frame).
fn other_payload(bench: &Bench, packet: &TxPacket) -> Vec<u8> {
    let mut frame = frame_repr(
        packet,
        &bench.requesters.peers[packet.qp as usize].requester,
        &bench.requesters.source,
    );
    for b in &mut frame.payload {
        *b = !*b;
    }
    frame.emit()
}

/// Corrupt copies of a good frame, each with the front end's verdict on it: a payload byte
/// flipped, the ICRC's last byte flipped, the last 10 bytes cut, cut inside the headers, 8
/// bytes more than the IP length.
fn corrupt_copies(frame: &[u8]) -> Vec<(Vec<u8>, DropReason)> {
    let mut payload_flipped = frame.to_vec();
    payload_flipped[70] ^= 0x20;
    let mut icrc_flipped = frame.to_vec();
    *icrc_flipped.last_mut().unwrap() ^= 1;
    let mut longer = frame.to_vec();
    longer.extend([0xAA; 8]);
    vec![
        (payload_flipped, DropReason::Icrc),
        (icrc_flipped, DropReason::Icrc),
        (frame[..frame.len() - 10].to_vec(), DropReason::Truncated),
        (frame[..50].to_vec(), DropReason::Truncated),
        (longer, DropReason::IpLength),
    ]
}

/// Bad input among good frames on an RC and a UC connection (PMTU 256; WRITE messages of 700 B
/// are three packets): each case's frames, then a good transfer. The model's verdict is checked
/// for each bad frame, so every case is exercised; the RTL's decisions, writes and pass-through
/// frames are compared with the model's; at the end the destination memory holds exactly the
/// bytes of the transfers that landed.
fn bad_input(width: usize, traffic: Traffic) {
    let mut rng = ChaCha8Rng::seed_from_u64(traffic.seed);
    let peers = vec![
        Peer::new(10, Transport::Rc, Pmtu::B256, 1, 1, 0x100)
            .ack_every(2)
            .region_length(REGION_LEN),
        Peer::new(11, Transport::Uc, Pmtu::B256, 2, 2, PSN_MASK - 1)
            .ack_every(0)
            .region_length(REGION_LEN),
    ];
    let mut bench = Bench::new(width, traffic, peers);
    let mut passed = not_rocev2(&mut rng).into_iter();
    for peer in 0..2 {
        let rc = peer == 0;
        let qp = bench.requesters.peers[peer].qp;

        // Corrupt copies after each good packet, a frame that is not RoCEv2 between packets;
        // RC: a duplicate with other bytes. None of them writes.
        let post = bench.post(peer, 0, PostOp::Write, 700);
        let packets = bench.requesters.packets(&[post]);
        let mut frames = Vec::new();
        let mut want = Vec::new();
        for (i, packet) in packets.iter().enumerate() {
            let good = bench.requesters.frame(packet).emit();
            frames.push(good.clone());
            want.push(Some(Verdict::Executed));
            for (copy, reason) in corrupt_copies(&good) {
                assert_eq!(rx_model(&copy).verdict, RxVerdict::Drop(reason));
                frames.push(copy);
                want.push(failed(CheckFailure::Malformed));
            }
            frames.push(passed.next().unwrap_or_else(|| not_rocev2(&mut rng).remove(0)));
            want.push(None);
            if rc && i == 1 {
                frames.push(other_payload(&bench, &packets[0]));
                want.push(failed(CheckFailure::PsnDuplicate));
            }
        }
        assert_eq!(verdicts(&bench.deliver(&frames)), want, "QP {qp}: corrupt copies");
        bench.landed_whole(&post, None);
        bench.resync(peer);

        // An unknown QP and a QP in reset, between the packets of a good WRITE.
        let post = bench.post(peer, 0, PostOp::Write, 700);
        let stray = bench.post(peer, 1, PostOp::Write, 700);
        let mut strays = Vec::new();
        for dest in [300, 77] {
            let requester = QpContext {
                dest_qpn: dest,
                ..bench.requesters.peers[peer].requester
            };
            let packets = bench.requesters.packets_of(&[requester], &[Post { qp: 0, ..stray }]);
            strays.extend(packets.iter().map(|p| frame_bytes(p, &requester, &bench.requesters.source)));
        }
        let mut frames = bench.requesters.frames(&bench.requesters.packets(&[post]));
        for (k, frame) in strays.into_iter().enumerate() {
            frames.insert(1 + k, frame);
        }
        let outcomes = bench.deliver(&frames);
        let want_stray = [failed(CheckFailure::QpNumber); 3]
            .into_iter()
            .chain([failed(CheckFailure::QpState); 3]);
        let want: Vec<Option<Verdict>> = [Some(Verdict::Executed)]
            .into_iter()
            .chain(want_stray)
            .chain([Some(Verdict::Executed); 2])
            .collect();
        assert_eq!(verdicts(&outcomes), want, "QP {qp}: unknown QP and QP in reset");
        bench.landed_whole(&post, None);
        bench.resync(peer);

        // A wrong R_Key, then a WRITE past its region's end: RC NAKs them (the QP goes to the
        // error state and is restarted), UC drops them.
        let region = bench.requesters.peers[peer].region;
        for (case, failure) in [
            ("wrong R_Key", CheckFailure::RkeyInvalid),
            ("out of bounds", CheckFailure::RkeyBounds),
        ] {
            let mut requester = bench.requesters.peers[peer].requester;
            if failure == CheckFailure::RkeyInvalid {
                requester.rkey ^= 0x01;
            }
            let post = bench.post(peer, 0, PostOp::Write, 700);
            let packets = bench.requesters.packets_of(&[requester], &[Post { qp: 0, ..post }]);
            let mut frames = Vec::new();
            for (i, packet) in packets.iter().enumerate() {
                let mut frame = frame_repr(packet, &requester, &bench.requesters.source);
                if i == 0 && failure == CheckFailure::RkeyBounds {
                    // the RETH's VA 300 bytes before the region's end, its DMA length 700
                    frame.ext.reth.as_mut().expect("a RETH").va = region.base + region.length - 300;
                }
                frames.push(frame.emit());
            }
            let outcomes = bench.deliver(&frames);
            assert_eq!(verdicts(&outcomes)[0], failed(failure), "QP {qp}: {case}");
            if rc {
                assert!(outcomes[0].as_ref().unwrap().response.is_some(), "QP {qp}: {case}: NAK");
                bench.resync(peer);
                bench.recommit(peer);
            }
            bench.good_transfer(peer, PostOp::Write, 300);
        }

        // A PSN gap: the second of four packets lost. RC: one NAK, then the requester resends
        // from it; UC: the rest of the message is dropped (its first packet stays written).
        let post = bench.post(peer, 0, PostOp::Write, 1000);
        let frames = bench.requesters.frames(&bench.requesters.packets(&[post]));
        let outcomes = bench.deliver(&[frames[0].clone(), frames[2].clone(), frames[3].clone()]);
        let gap = failed(CheckFailure::PsnOutOfSequence);
        assert_eq!(verdicts(&outcomes), [Some(Verdict::Executed), gap, gap], "QP {qp}: PSN gap");
        assert_eq!(outcomes[1].as_ref().unwrap().response.is_some(), rc, "QP {qp}: NAK of the gap");
        assert!(outcomes[2].as_ref().unwrap().response.is_none());
        if rc {
            let outcomes = bench.deliver(&frames[1..]);
            assert!(
                outcomes.iter().all(|o| o.as_ref().is_some_and(Outcome::executed)),
                "QP {qp}: resend"
            );
            bench.landed_whole(&post, None);
        } else {
            assert!(outcomes[1].as_ref().unwrap().dropped_message);
            bench.landed(&post, post.remote_addr, 0..256);
        }
        bench.resync(peer);
        bench.good_transfer(peer, PostOp::Write, 500);

        // A SEND with no receive buffer: RC answers an RNR NAK and the requester resends once a
        // buffer is posted; UC drops it.
        let post = bench.post(peer, 0, PostOp::Send, 300);
        let frames = bench.requesters.frames(&bench.requesters.packets(&[post]));
        let outcomes = bench.deliver(&frames);
        assert_eq!(
            verdicts(&outcomes)[0],
            failed(CheckFailure::NoReceiveBuffer),
            "QP {qp}: no receive buffer"
        );
        assert_eq!(outcomes[0].as_ref().unwrap().response.is_some(), rc, "QP {qp}: RNR NAK");
        if rc {
            let buffer = bench.post_buffer(peer, 300);
            let outcomes = bench.deliver(&frames);
            assert!(
                outcomes.iter().all(|o| o.as_ref().is_some_and(Outcome::executed)),
                "QP {qp}: resend"
            );
            bench.landed_whole(&post, Some(buffer));
        }
        bench.resync(peer);
        bench.good_transfer(peer, PostOp::SendImm, 400);

        // The peer's own ACKs and NAKs (TX model frames): forwarded with their PSN and AETH,
        // word for word as the model decides, nothing written.
        let requester = bench.requesters.peers[peer].requester;
        let answers: Vec<Response> = [
            Syndrome::ack(),
            Syndrome::Nak(NakCode::RemoteAccessError),
            Syndrome::RnrNak { timer: 9 },
        ]
        .into_iter()
        .map(|syndrome| Response {
            qp: 1,
            psn: rng.gen_range(0..1 << 24),
            aeth: Aeth {
                syndrome,
                msn: rng.gen_range(0..1 << 24),
            },
        })
        .collect();
        let mut setup = TxSetup {
            responses: answers.clone(),
            ..TxSetup::default()
        };
        setup.contexts.insert(1, requester);
        let frames = TxModel.run(&setup).unwrap().responses;
        let outcomes = bench.deliver(&frames);
        for (outcome, answer) in outcomes.iter().zip(&answers) {
            let outcome = outcome.as_ref().unwrap();
            assert_eq!(outcome.verdict, Verdict::Forwarded, "QP {qp}: a response is forwarded");
            assert_eq!(
                outcome.forwarded,
                Some(Forwarded {
                    opcode: Opcode::RC_ACK.value(),
                    psn: answer.psn,
                    aeth: Some(answer.aeth.encode())
                }),
                "QP {qp}"
            );
        }
    }
    bench.check_memory();
    bench.check_counters();
    let c = &bench.cosim.front;
    assert!(c.drops(DropReason::Icrc) >= 12 && c.drops(DropReason::Truncated) >= 12 && c.passed >= 6);
    assert!(bench.cosim.discarded > 20, "{} payloads discarded", bench.cosim.discarded);
}

#[test]
fn bad_frames_among_good_ones_write_nothing_and_decide_as_the_model_at_both_widths() {
    for width in WIDTHS {
        for traffic in [Traffic::four_ways(SEED + 7)[0], Traffic::four_ways(SEED + 8)[3]] {
            bad_input(width, traffic);
        }
    }
}

/// Cycles per packet of the responder (back to back: 5 + the context latency, `docs/engine.md`,
/// Timing).
const RESPONDER_CYCLES: u64 = 7;

/// Cycle figures of back-to-back packets in the steady state.
struct Throughput {
    /// Beats of each frame.
    frame_beats: u64,
    /// Cycles per packet, between decisions.
    cycles: f64,
    /// Beats a cycle taken on `s_axis`.
    input: f64,
    /// Beats a cycle written on `m_wr`.
    output: f64,
    /// Cycles from the first frame's last beat to its decision.
    decision_latency: u64,
}

/// Back-to-back UC WRITEs of `size` bytes (each an only packet) at 512 bits, nothing idle or
/// pushing back. The steady state is measured between decisions, after the first
/// [`WARM_UP`](throughput) packets (more than the record FIFO holds, so that it is full when the
/// responder is the bottleneck).
fn throughput(size: u32) -> Throughput {
    const FRAMES: usize = 120;
    const WARM_UP: usize = 40;
    let peer = Peer::new(20, Transport::Uc, Pmtu::B4096, 1, 1, 0)
        .ack_every(0)
        .region_length(REGION_LEN);
    let mut bench = Bench::new(512, Traffic::FULL, vec![peer]);
    // aligned, so that no WRITE crosses a block and each is one packet
    let posts: Vec<Post> = (0..FRAMES as u16)
        .map(|c| Post {
            remote_addr: peer.region.base + u64::from(c) * 0x2000,
            ..bench.post(0, c, PostOp::Write, size)
        })
        .collect();
    let packets = bench.requesters.packets(&posts);
    assert_eq!(packets.len(), FRAMES);
    let frames = bench.requesters.frames(&packets);
    let outcomes = bench.deliver(&frames);
    assert!(outcomes.iter().all(|o| o.as_ref().is_some_and(Outcome::executed)));
    for post in &posts {
        bench.landed_whole(post, None);
    }
    bench.check_memory();
    let run = &bench.cosim.last;
    let beats = |f: &Vec<u8>| f.len().div_ceil(64) as u64;
    let span = (run.decision_cycles[FRAMES - 1] - run.decision_cycles[WARM_UP - 1]) as f64;
    let packets = (FRAMES - WARM_UP) as f64;
    let beats_in: u64 = frames[WARM_UP..].iter().map(beats).sum();
    Throughput {
        frame_beats: beats(&frames[0]),
        cycles: span / packets,
        input: beats_in as f64 / span,
        output: packets * f64::from(size.div_ceil(64)) / span,
        decision_latency: run.decision_cycles[0] - run.frame_cycles[0],
    }
}

#[test]
fn back_to_back_writes_take_seven_cycles_or_their_beats() {
    for size in [64, 256, 1024, 4096] {
        let t = throughput(size);
        eprintln!(
            "rx_path w512, back-to-back UC WRITE only packets of {size} B ({} beats a frame): {:.2} cycles per packet, \
             s_axis {:.3} beats per cycle, m_wr {:.3} beats per cycle, decision {} cycles after the first frame's last beat",
            t.frame_beats, t.cycles, t.input, t.output, t.decision_latency
        );
        // the responder's 10 cycles, or the frame's beats when it is longer: the wire's rate
        let bound = RESPONDER_CYCLES.max(t.frame_beats) as f64;
        assert!(
            t.cycles <= bound,
            "{size} B: {:.2} cycles per packet, at most {bound} expected",
            t.cycles
        );
    }
}

#[test]
fn a_stuck_output_is_an_error_naming_each_interface_not_a_hang() {
    // Every output held back: the path fills up and stops.
    let stuck = Traffic {
        idle_pct: 0,
        bp_pct: 100,
        seed: SEED,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let peer = Peer::new(3, Transport::Rc, Pmtu::B1024, 1, 1, 0)
        .ack_every(0)
        .region_length(REGION_LEN);
    let mut bench = Bench::new(64, Traffic::FULL, vec![peer]);
    let post = bench.post(0, 0, PostOp::Write, 30_000);
    let mut frames = bench.requesters.frames(&bench.requesters.packets(&[post]));
    frames.extend(not_rocev2(&mut rng));
    let mut rtl = RxPathRtl::new(64, stuck).unwrap();
    let error = rtl.deliver(&frames).unwrap_err();
    for interface in [
        "no handshake",
        "s_axis_tready 0",
        "m_dec_valid 1",
        "m_cmd_valid",
        "m_wr_tvalid",
        "m_pass_tvalid",
    ] {
        assert!(error.contains(interface), "{interface} not in: {error}");
    }

    // A frame slipped in outside a run: what comes out is an error.
    let mut rtl = RxPathRtl::new(512, Traffic::FULL).unwrap();
    rtl.idle(20).unwrap();
    let arp = &not_rocev2(&mut rng)[0];
    let (data, keep) = pack_beat(arp, 64);
    let m = rtl.model();
    for (port, words) in [
        ("s_axis_tdata", data),
        ("s_axis_tkeep", keep),
        ("s_axis_tvalid", vec![1]),
        ("s_axis_tlast", vec![1]),
    ] {
        let i = m.port(port).unwrap();
        m.set(i, &words);
    }
    m.step(1);
    let error = rtl.idle(200).unwrap_err();
    assert!(error.contains("m_pass_tvalid high"), "{error}");
}
