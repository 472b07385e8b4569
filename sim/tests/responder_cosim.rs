//! The responder RTL (Verilator model `ferroce_responder_q256`) against the golden model
//! `ferroce_models::responder`: every decision word for word (the `DECISION` schema) and the 30
//! counters, through [`Lockstep`]. The records are those the RX front end model makes of the TX
//! model's frames, as in the model's own tests; bad packets are made by altering the records.
//!
//! - random RC and UC traffic on several QPs (PDs, P_Keys, PMTUs 256 to 4096; SEND, SEND with
//!   immediate, WRITE, WRITE with immediate, 0 B to 64 KiB), clean and with loss, duplicates
//!   and reordering, each under the four traffic patterns (record idle and decision
//!   backpressure on and off);
//! - one case per check of `docs/engine.md` (R_Key, PD, bounds, access, P_Key, QP number and
//!   state, PSN window, opcode sequence, lengths, receive buffers, ...) on RC and UC, each
//!   followed by a good transfer;
//! - the receive queue's 16 buffers, header records, a commit restarting a QP, and region
//!   entries cleared and re-registered, up to the last byte of the address space;
//! - RDMA READ requests at every PMTU: lengths around the PMTU up to 2^31 bytes and past it,
//!   the PSNs each consumes, duplicates executed again (and failing at their own PSN), the
//!   checks a READ has (R_Key, read access, bounds, payload, DMA length, opcode sequence).
//!
//! The RTL takes 7 cycles a record back to back (the next one taken as the last is executed, a
//! QP's state and pointers forwarded when it is the same QP); header records are taken and
//! ignored beside them (`Lockstep::last` has the cycle counts of a batch).

use ferroce_sim::contracts::responder::RECEIVING_STATES;
use ferroce_sim::contracts::tx::{Pmtu, PostOp};
use ferroce_sim::models::responder::{Access, CheckFailure, MemoryRegion, Outcome, Verdict};
use ferroce_sim::models::tx::{Post, QpContext, TxPacket};
use ferroce_sim::peers::{distinct_qps, random_psn, Peer, Requesters};
use ferroce_sim::responder_rtl::{Lockstep, PairedSetup, RecordIn, QPS, RECEIVE_QUEUE_DEPTH};
use ferroce_sim::rx::{rx_model, RxRecord, RxVerdict};
use ferroce_sim::verilated::Traffic;
use ferroce_sim::wire::{aeth, Opcode, Transport};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

const SEED: u64 = 0x7e5_90d3;
const PSN_MASK: u32 = 0xFF_FFFF;

/// The model and the RTL in lockstep and the requesters that feed them.
struct Bench {
    cosim: Lockstep,
    requesters: Requesters,
}

impl Bench {
    /// Both sides with every peer's region and committed context.
    fn new(traffic: Traffic, peers: Vec<Peer>) -> Bench {
        let mut cosim = Lockstep::new(traffic).unwrap();
        for peer in &peers {
            cosim.add_region(peer.region).unwrap();
            cosim.commit(peer.qp, &peer.responder).unwrap();
        }
        Bench {
            cosim,
            requesters: Requesters::new(traffic.seed, peers),
        }
    }

    /// The packets of `posts`, after posting the receive buffers their messages need
    /// ([`Requesters::post_buffers`]). `buffers[channel]` is the buffer's length (`None`: no
    /// buffer); a channel not in it gets a buffer of its post's length.
    fn packets_with_buffers(&mut self, posts: &[Post], buffers: &HashMap<u16, Option<u32>>) -> Vec<TxPacket> {
        let packets = self.requesters.packets(posts);
        self.requesters.post_buffers(&mut self.cosim, posts, &packets, |post| {
            buffers.get(&post.channel).copied().unwrap_or(Some(post.length))
        });
        packets
    }

    /// The RX front end model's records of the packets' frames (all accepted).
    fn records(&self, packets: &[TxPacket]) -> Vec<RxRecord> {
        packets
            .iter()
            .map(|p| {
                let rx = rx_model(&self.requesters.frame(p).emit());
                assert_eq!(rx.verdict, RxVerdict::Accept);
                rx.record.unwrap()
            })
            .collect()
    }

    /// Posts a receive buffer of `length` bytes to the peer's QP, at a fresh address; panics
    /// if the RTL refuses it.
    fn post_buffer(&mut self, peer: usize, length: u32) {
        self.requesters.post_buffer(&mut self.cosim, peer, length);
    }

    /// Delivers final records, panicking with the mismatch if the RTL disagrees.
    fn deliver(&mut self, records: &[RxRecord]) -> Vec<Outcome> {
        let records: Vec<RecordIn> = records.iter().map(|&r| RecordIn::fin(r)).collect();
        self.deliver_in(&records)
    }

    fn deliver_in(&mut self, records: &[RecordIn]) -> Vec<Outcome> {
        self.cosim.deliver(records).unwrap_or_else(|e| panic!("{e}"))
    }

    /// One transfer on peer `peer` with its receive buffer (SEND, WRITE with immediate); its
    /// records are returned, not delivered. WRITEs go to an aligned address of the region: one
    /// message below 60 KiB.
    fn transfer_records(&mut self, peer: usize, op: PostOp, length: u32, buffer: Option<u32>) -> Vec<RxRecord> {
        let remote_addr = self.requesters.peers[peer].region.base + 0x1000;
        self.transfer_records_at(peer, op, length, buffer, remote_addr)
    }

    /// [`Bench::transfer_records`] to `remote_addr`.
    fn transfer_records_at(&mut self, peer: usize, op: PostOp, length: u32, buffer: Option<u32>, remote_addr: u64) -> Vec<RxRecord> {
        if let Some(buffer_length) = buffer {
            self.post_buffer(peer, buffer_length);
        }
        let post = Post {
            remote_addr,
            ..self.requesters.post(peer, 0, op, length)
        };
        let packets = self.requesters.packets(&[post]);
        self.records(&packets)
    }

    /// One transfer on peer `peer` using the buffers already queued, delivered; the requester
    /// then resumes at the expected PSN.
    fn deliver_transfer(&mut self, peer: usize, op: PostOp, length: u32) -> Vec<Outcome> {
        let records = self.transfer_records(peer, op, length, None);
        let outcomes = self.deliver(&records);
        self.resync(peer);
        outcomes
    }

    /// One good transfer (with a buffer that fits, if it needs one): every packet executed.
    fn good_transfer(&mut self, peer: usize, op: PostOp, length: u32) {
        let buffer = (op != PostOp::Write).then_some(length + 8);
        let records = self.transfer_records(peer, op, length, buffer);
        let outcomes = self.deliver(&records);
        let verdicts: Vec<Verdict> = outcomes.iter().map(|o| o.verdict).collect();
        assert!(
            outcomes.iter().all(Outcome::executed),
            "{op:?} {length} B on QP {}: {verdicts:?}",
            self.requesters.peers[peer].qp
        );
        self.resync(peer);
    }

    /// The requester goes on from the PSN the responder expects (as after a NAK).
    fn resync(&mut self, peer: usize) {
        self.requesters.resync(&self.cosim.model, peer);
    }

    /// Restarts the peer's responder QP at the requester's PSN (its receive queue emptied).
    fn recommit(&mut self, peer: usize) {
        self.requesters.recommit(&mut self.cosim, peer);
    }

    /// Whether the model's QP of `peer` executes requests.
    fn receiving(&self, peer: usize) -> bool {
        self.cosim
            .model
            .qp(self.requesters.peers[peer].qp)
            .is_some_and(|q| RECEIVING_STATES.contains(&q.state))
    }

    fn check_counters(&mut self) {
        self.cosim.check_counters().unwrap_or_else(|e| panic!("{e}"));
    }
}

/// A random payload length: mostly small, some up to 64 KiB.
fn length(rng: &mut ChaCha8Rng) -> u32 {
    match rng.gen_range(0..10) {
        0 => 0,
        1..=4 => rng.gen_range(1..600),
        5..=7 => rng.gen_range(600..9000),
        _ => rng.gen_range(9000..=65536),
    }
}

/// Six connections: RC and UC, every PMTU among them, three PDs, three P_Key pairs (full to
/// full, limited to full, full to limited), PSNs near the wrap or anywhere.
fn random_peers(rng: &mut ChaCha8Rng) -> Vec<Peer> {
    let pkeys = [(0xFFFF, 0xFFFF), (0x0005, 0x8005), (0x8007, 0x0007)];
    let qps = distinct_qps(rng, 6, QPS);
    qps.iter()
        .enumerate()
        .map(|(i, &qp)| {
            let transport = if i % 2 == 0 { Transport::Rc } else { Transport::Uc };
            let pmtu = Pmtu::ALL[rng.gen_range(0..Pmtu::ALL.len())];
            let psn = random_psn(rng);
            let (requester_pkey, responder_pkey) = pkeys[i % 3];
            let mut peer = Peer::new(qp, transport, pmtu, 1 + (i % 3) as u16, 1 + i as u32, psn).pkeys(requester_pkey, responder_pkey);
            peer.requester.ack_every = rng.gen_range(0..4);
            peer.responder.ack_every = rng.gen_range(0..4);
            peer
        })
        .collect()
}

/// Loss, duplicates (of a recent record), swaps of neighbours and header records, at random.
fn disturb(rng: &mut ChaCha8Rng, records: &[RxRecord]) -> Vec<RecordIn> {
    let mut out: Vec<RecordIn> = Vec::with_capacity(records.len() + 8);
    let mut i = 0;
    while i < records.len() {
        let r = records[i];
        match rng.gen_range(0..60) {
            0 => {} // lost
            1 => {
                let earlier = records[i.saturating_sub(rng.gen_range(0..8))];
                out.push(RecordIn::fin(r));
                out.push(RecordIn::fin(earlier));
            }
            2 if i + 1 < records.len() => {
                out.push(RecordIn::fin(records[i + 1]));
                out.push(RecordIn::fin(r));
                i += 1;
            }
            3 => {
                out.push(RecordIn::header(RxRecord { payload_len: 0, ..r }));
                out.push(RecordIn::fin(r));
            }
            _ => out.push(RecordIn::fin(r)),
        }
        i += 1;
    }
    out
}

/// Delivers a round's records disturbed, in chunks; after each chunk every RC requester whose
/// packets the responder is still waiting for goes back to the PSN it expects and resends from
/// there (go-back-N, as after a NAK), a few times at most.
fn deliver_disturbed(bench: &mut Bench, rng: &mut ChaCha8Rng, records: &[RxRecord]) -> Vec<Outcome> {
    const CHUNK: usize = 24;
    let mut outcomes = Vec::new();
    for start in (0..records.len()).step_by(CHUNK) {
        let end = (start + CHUNK).min(records.len());
        outcomes.extend(bench.deliver_in(&disturb(rng, &records[start..end])));
        for _attempt in 0..3 {
            let mut resend = Vec::new();
            for peer in bench.requesters.peers.clone() {
                let Some(qp) = bench
                    .cosim
                    .model
                    .qp(peer.qp)
                    .filter(|q| q.transport == Transport::Rc && RECEIVING_STATES.contains(&q.state))
                else {
                    continue;
                };
                let of_qp = |r: &&RxRecord| r.bth.unwrap().dqpn == peer.qp;
                if let Some(from) = records[..end]
                    .iter()
                    .position(|r| of_qp(&r) && r.bth.unwrap().psn == qp.expected_psn)
                {
                    resend.extend(records[from..end].iter().filter(of_qp));
                }
            }
            if resend.is_empty() {
                break;
            }
            outcomes.extend(bench.deliver_in(&disturb(rng, &resend)));
        }
    }
    outcomes
}

/// Rounds of random posts on every peer, delivered to both sides, clean (every packet must be
/// executed) or `disturbed` (records lost, duplicated, swapped, header records, and now and
/// then a receive buffer missing or too small). The requesters resume at the responder's
/// expected PSN after each round; a QP in error (RC NAK) is restarted by a commit, and now and
/// then a healthy one too, at a new PSN.
fn random_traffic(traffic: Traffic, rounds: usize, posts_per_round: usize, disturbed: bool) {
    let mut rng = ChaCha8Rng::seed_from_u64(traffic.seed);
    let mut bench = Bench::new(traffic, random_peers(&mut rng));
    let mut executed = 0;
    for round in 0..rounds {
        for peer in 0..bench.requesters.peers.len() {
            if !bench.receiving(peer) || (round > 0 && rng.gen_ratio(1, 8)) {
                if rng.gen_bool(0.5) {
                    bench.requesters.peers[peer].requester.sq_psn = rng.gen_range(0..=PSN_MASK);
                }
                bench.recommit(peer);
            }
        }
        let mut posts = Vec::new();
        let mut buffers = HashMap::new();
        let mut queued: Vec<usize> = (0..bench.requesters.peers.len())
            .map(|peer| {
                bench
                    .cosim
                    .model
                    .qp(bench.requesters.peers[peer].qp)
                    .map_or(0, |q| q.receive_queue.len())
            })
            .collect();
        for channel in 0..posts_per_round as u16 {
            let peer = rng.gen_range(0..bench.requesters.peers.len());
            let mut op = PostOp::ALL[rng.gen_range(0..4)];
            let length = length(&mut rng);
            if op != PostOp::Write {
                if queued[peer] < RECEIVE_QUEUE_DEPTH {
                    queued[peer] += 1;
                    let spare = if rng.gen_bool(0.3) { 0 } else { rng.gen_range(1..64) };
                    let buffer = match rng.gen_range(0..16) {
                        0 if disturbed => None,             // RNR NAK (RC), dropped (UC)
                        1 if disturbed => Some(length / 2), // too small for a SEND
                        _ => Some(length + spare),
                    };
                    buffers.insert(channel, buffer);
                } else {
                    op = PostOp::Write;
                }
            }
            posts.push(bench.requesters.post(peer, channel, op, length));
        }
        let packets = bench.packets_with_buffers(&posts, &buffers);
        let records = bench.records(&packets);
        let outcomes = if disturbed {
            deliver_disturbed(&mut bench, &mut rng, &records)
        } else {
            bench.deliver(&records)
        };
        if !disturbed {
            let failed: Vec<(usize, Verdict)> = outcomes
                .iter()
                .map(|o| o.verdict)
                .enumerate()
                .filter(|(_, v)| *v != Verdict::Executed)
                .collect();
            assert!(failed.is_empty(), "round {round}: clean traffic not executed: {failed:?}");
        }
        executed += outcomes.iter().filter(|o| o.executed()).count();
        for peer in 0..bench.requesters.peers.len() {
            bench.resync(peer);
        }
    }
    bench.check_counters();
    assert!(executed > rounds * posts_per_round / 2, "{executed} packets executed");
}

#[test]
fn random_rc_and_uc_traffic_decides_as_the_model_four_ways() {
    for seed in 0..3 {
        for (i, traffic) in Traffic::four_ways(SEED).into_iter().enumerate() {
            random_traffic(
                Traffic {
                    seed: SEED + 4 * seed + i as u64,
                    ..traffic
                },
                4,
                24,
                false,
            );
        }
    }
}

#[test]
fn random_traffic_with_loss_duplicates_and_reordering_decides_as_the_model_four_ways() {
    for seed in 0..4 {
        for (i, traffic) in Traffic::four_ways(SEED).into_iter().enumerate() {
            random_traffic(
                Traffic {
                    seed: SEED + 100 + 4 * seed + i as u64,
                    ..traffic
                },
                6,
                12,
                true,
            );
        }
    }
}

/// Region entries of the security cases besides the peer's (entry 1, PD 1).
const OTHER_PD_RKEY: u32 = 20 << 8 | 0x11;
const READ_ONLY_RKEY: u32 = 21 << 8 | 0x22;

/// A bad packet: a transfer of `op`, `length` bytes (at PMTU 256: three packets for 700 B),
/// altered by `alter`, which returns the index of the record whose verdict is checked.
struct Case {
    name: &'static str,
    op: PostOp,
    length: u32,
    /// The receive buffer posted first (SEND, WRITE with immediate).
    buffer: Option<u32>,
    /// Changes the responder's context before the transfer.
    context: Option<fn(&mut QpContext)>,
    alter: fn(&mut Vec<RxRecord>, &Peer) -> usize,
    rc: Verdict,
    uc: Verdict,
}

fn failed(f: CheckFailure) -> Verdict {
    Verdict::Failed(f)
}

fn reth(records: &mut [RxRecord], i: usize, change: impl Fn(&mut ferroce_sim::wire::reth::Repr)) {
    let mut reth = records[i].reth.expect("a RETH");
    change(&mut reth);
    records[i].reth = Some(reth);
}

fn bth(records: &mut [RxRecord], i: usize, change: impl Fn(&mut ferroce_sim::rx::RxBth)) {
    let mut bth = records[i].bth.expect("a BTH");
    change(&mut bth);
    records[i].bth = Some(bth);
}

fn cases() -> Vec<Case> {
    use ferroce_sim::contracts::tx::QpState as State;
    use CheckFailure::*;
    let write = |name, alter, rc, uc| Case {
        name,
        op: PostOp::Write,
        length: 700,
        buffer: None,
        context: None,
        alter,
        rc,
        uc,
    };
    let both = |name, alter, f: CheckFailure| write(name, alter, failed(f), failed(f));
    vec![
        both(
            "rkey of an empty entry",
            |r, _| {
                reth(r, 0, |h| h.r_key = 9 << 8 | 0x42);
                0
            },
            RkeyInvalid,
        ),
        both(
            "rkey with the wrong key byte",
            |r, p| {
                reth(r, 0, |h| h.r_key = p.region.rkey ^ 1);
                0
            },
            RkeyInvalid,
        ),
        both(
            "rkey beyond the region table",
            |r, _| {
                reth(r, 0, |h| h.r_key = 0xFFFF_FF00 | h.r_key & 0xFF);
                0
            },
            RkeyInvalid,
        ),
        both(
            "rkey of another PD",
            |r, _| {
                reth(r, 0, |h| {
                    h.r_key = OTHER_PD_RKEY;
                    h.va = 0x14_0000_0000;
                });
                0
            },
            RkeyDomain,
        ),
        both(
            "read-only region",
            |r, _| {
                reth(r, 0, |h| {
                    h.r_key = READ_ONLY_RKEY;
                    h.va = 0x15_0000_0000;
                });
                0
            },
            RkeyAccess,
        ),
        both(
            "VA one byte before the region",
            |r, p| {
                reth(r, 0, |h| h.va = p.region.base - 1);
                0
            },
            RkeyBounds,
        ),
        both(
            "VA at the region's end",
            |r, p| {
                reth(r, 0, |h| h.va = p.region.base + p.region.length);
                0
            },
            RkeyBounds,
        ),
        both(
            "length crossing the region's end",
            |r, p| {
                reth(r, 0, |h| h.va = p.region.base + p.region.length - 699);
                0
            },
            RkeyBounds,
        ),
        both(
            "VA wrapping the address space",
            |r, _| {
                reth(r, 0, |h| h.va = u64::MAX - 100);
                0
            },
            RkeyBounds,
        ),
        both(
            "DMA length beyond the message",
            |r, _| {
                reth(r, 0, |h| h.dma_len = 701);
                2
            },
            DmaLength,
        ),
        both(
            "DMA length short of the message",
            |r, _| {
                reth(r, 0, |h| h.dma_len = 600);
                2
            },
            DmaLength,
        ),
        both(
            "wrong P_Key",
            |r, _| {
                for i in 0..r.len() {
                    bth(r, i, |b| b.pkey = 0x1234);
                }
                0
            },
            Pkey,
        ),
        both(
            "P_Key of the invalid partition",
            |r, _| {
                bth(r, 0, |b| b.pkey = 0x8000);
                0
            },
            Pkey,
        ),
        Case {
            context: Some(|c| c.pkey = 0x7FFF),
            ..both(
                "P_Keys of two limited members",
                |r, _| {
                    for i in 0..r.len() {
                        bth(r, i, |b| b.pkey = 0x7FFF);
                    }
                    0
                },
                Pkey,
            )
        },
        Case {
            context: Some(|c| c.pkey = 0x7FFF),
            ..write(
                "P_Key of a full member to a limited one",
                |_, _| 2,
                Verdict::Executed,
                Verdict::Executed,
            )
        },
        both(
            "DestQP at the QP count",
            |r, _| {
                bth(r, 0, |b| b.dqpn = 256);
                0
            },
            QpNumber,
        ),
        both(
            "DestQP 2^24 - 1",
            |r, _| {
                bth(r, 1, |b| b.dqpn = PSN_MASK);
                1
            },
            QpNumber,
        ),
        both(
            "DestQP of a QP never committed",
            |r, p| {
                bth(r, 0, |b| b.dqpn = p.qp + 1);
                0
            },
            QpState,
        ),
        Case {
            context: Some(|c| c.state = State::Init.code()),
            ..both("QP in Init", |_, _| 0, QpState)
        },
        Case {
            context: Some(|c| c.state = State::Reset.code()),
            ..both("QP in Reset", |_, _| 0, QpState)
        },
        Case {
            context: Some(|c| c.state = State::Error.code()),
            ..both("QP in Error", |_, _| 0, QpState)
        },
        Case {
            context: Some(|c| c.state = State::Sqe.code()),
            ..write("QP in SQE receives", |_, _| 2, Verdict::Executed, Verdict::Executed)
        },
        both(
            "opcode of the other transport",
            |r, _| {
                bth(r, 0, |b| b.opcode ^= 0x20);
                0
            },
            Transport,
        ),
        both(
            "ICRC not verified",
            |r, _| {
                r[1].icrc_ok = Some(false);
                1
            },
            Malformed,
        ),
        both(
            "RETH missing",
            |r, _| {
                r[0].reth = None;
                0
            },
            Malformed,
        ),
        write(
            "PSN 2^22 ahead",
            |r, _| {
                bth(r, 1, |b| b.psn = (b.psn + (1 << 22)) & PSN_MASK);
                1
            },
            failed(PsnOutOfSequence),
            failed(PsnOutOfSequence),
        ),
        write(
            "PSN 2^23 - 1 ahead",
            |r, _| {
                bth(r, 1, |b| b.psn = (b.psn + (1 << 23) - 1) & PSN_MASK);
                1
            },
            failed(PsnOutOfSequence),
            failed(PsnOutOfSequence),
        ),
        write(
            "PSN 2^23 behind",
            |r, _| {
                bth(r, 1, |b| b.psn = (b.psn + (1 << 23)) & PSN_MASK);
                1
            },
            failed(PsnDuplicate),
            failed(PsnOutOfSequence),
        ),
        write(
            "first packet far ahead",
            |r, _| {
                bth(r, 0, |b| b.psn = (b.psn + 0x40_0000) & PSN_MASK);
                0
            },
            failed(PsnOutOfSequence),
            Verdict::Executed, // UC resynchronises on a first packet
        ),
        both(
            "middle without first",
            |r, _| {
                let first_psn = r[0].bth.unwrap().psn;
                r.remove(0);
                bth(r, 0, |b| b.psn = first_psn);
                0
            },
            OpcodeSequence,
        ),
        write(
            "first packet while a message is open",
            |r, _| {
                let first = r[0];
                bth(r, 1, |b| b.opcode = first.bth.unwrap().opcode);
                r[1].reth = first.reth;
                1
            },
            failed(OpcodeSequence),
            Verdict::Executed, // UC drops the open message and starts the new one
        ),
        both(
            "short middle packet",
            |r, _| {
                r[1].payload_len = 255;
                1
            },
            PayloadLength,
        ),
        both(
            "long first packet",
            |r, _| {
                r[0].payload_len = 257;
                0
            },
            PayloadLength,
        ),
        both(
            "empty last packet",
            |r, _| {
                r[2].payload_len = 0;
                2
            },
            PayloadLength,
        ),
        write(
            "RDMA READ request of a write-only region",
            |r, _| {
                r.truncate(1);
                bth(r, 0, |b| b.opcode = Opcode::RC_READ_REQUEST.value() | (b.opcode & 0xE0));
                r[0].payload_len = 0;
                0
            },
            failed(RkeyAccess),
            failed(Malformed), // UC has no READ: a reserved opcode
        ),
        write(
            "an ACK is forwarded",
            |r, _| {
                r.truncate(1);
                bth(r, 0, |b| b.opcode = Opcode::RC_ACK.value());
                r[0].reth = None;
                r[0].aeth = Some(aeth::Repr { syndrome: 0x1F, msn: 3 });
                r[0].payload_len = 0;
                0
            },
            Verdict::Forwarded,
            Verdict::Forwarded,
        ),
        write(
            "zero-length WRITE with a bad R_Key is legal",
            |r, _| {
                r.truncate(1);
                bth(r, 0, |b| b.opcode = (b.opcode & 0xE0) | 0x0A); // WRITE only
                reth(r, 0, |h| {
                    h.dma_len = 0;
                    h.r_key = 0xdead_beef;
                    h.va = 0;
                });
                r[0].payload_len = 0;
                0
            },
            Verdict::Executed,
            Verdict::Executed,
        ),
        Case {
            op: PostOp::Send,
            length: 300,
            ..both("SEND without receive buffer", |_, _| 0, NoReceiveBuffer)
        },
        Case {
            op: PostOp::WriteImm,
            length: 700,
            ..both("WRITE with immediate without receive buffer", |_, _| 2, NoReceiveBuffer)
        },
        Case {
            op: PostOp::Send,
            length: 700,
            buffer: Some(500),
            ..both("SEND longer than its buffer", |_, _| 1, ReceiveBufferTooSmall)
        },
        Case {
            op: PostOp::SendImm,
            length: 256,
            buffer: Some(255),
            ..both("SEND only one byte longer than its buffer", |_, _| 0, ReceiveBufferTooSmall)
        },
        Case {
            op: PostOp::SendImm,
            length: 700,
            buffer: Some(4096),
            ..both(
                "SEND middle cut short keeps the buffer bound",
                |r, _| {
                    r[1].payload_len = 100;
                    1
                },
                PayloadLength,
            )
        },
    ]
}

/// Runs one case on a fresh bench: the bad transfer, then recovery as a requester would (a
/// commit for a QP the NAK put in error, else a resend from the expected PSN), then good
/// transfers; every decision and the counters compared with the model.
fn run_case(case: &Case, transport: Transport, traffic: Traffic) {
    let peer = Peer::new(7, transport, Pmtu::B256, 1, 1, 0x10);
    let mut bench = Bench::new(traffic, vec![peer]);
    bench
        .cosim
        .add_region(MemoryRegion {
            rkey: OTHER_PD_RKEY,
            pd: 2,
            base: 0x14_0000_0000,
            length: 1 << 16,
            ..peer.region
        })
        .unwrap();
    bench
        .cosim
        .add_region(MemoryRegion {
            rkey: READ_ONLY_RKEY,
            base: 0x15_0000_0000,
            access: Access {
                remote_write: false,
                remote_read: true,
            },
            ..peer.region
        })
        .unwrap();
    bench.good_transfer(0, PostOp::Write, 300);
    if let Some(change) = case.context {
        change(&mut bench.requesters.peers[0].responder);
        bench.recommit(0);
    }
    let original = bench.transfer_records(0, case.op, case.length, case.buffer);
    let mut records = original.clone();
    let checked = (case.alter)(&mut records, &bench.requesters.peers[0]);
    let outcomes = bench.deliver(&records);
    let want = if transport == Transport::Rc { case.rc } else { case.uc };
    assert_eq!(outcomes[checked].verdict, want, "{} ({transport:?}): model verdict", case.name);

    // Recovery.
    let state = bench
        .cosim
        .model
        .qp(peer.qp)
        .map(|q| (q.state, q.message.is_some(), q.expected_psn));
    match state {
        Some((s, open, expected)) if RECEIVING_STATES.contains(&s) => {
            if open && transport == Transport::Rc {
                // go back to the expected PSN and resend the rest of the message (with a
                // receive buffer, if it was missing)
                if bench.cosim.model.qp(peer.qp).unwrap().receive_queue.is_empty() {
                    bench.post_buffer(0, 4096);
                }
                let resend: Vec<RxRecord> = original.iter().copied().skip_while(|r| r.bth.unwrap().psn != expected).collect();
                let outcomes = bench.deliver(&resend);
                assert!(outcomes.iter().all(Outcome::executed), "{}: resend {:?}", case.name, outcomes);
            }
        }
        _ => {
            bench.requesters.peers[0].responder = peer.responder;
            bench.resync(0);
            bench.recommit(0);
        }
    }
    bench.resync(0);
    bench.good_transfer(0, PostOp::Write, 1000);
    // shorter than any buffer a case leaves at the head of a UC queue
    bench.good_transfer(0, PostOp::SendImm, 200);
    bench.check_counters();
}

#[test]
fn every_failed_check_decides_as_the_model_and_a_good_transfer_follows() {
    for case in cases() {
        for transport in [Transport::Rc, Transport::Uc] {
            for traffic in Traffic::four_ways(SEED) {
                run_case(&case, transport, traffic);
            }
        }
    }
}

#[test]
fn receive_queue_holds_sixteen_buffers_and_refuses_the_seventeenth() {
    let peers = vec![
        Peer::new(3, Transport::Rc, Pmtu::B1024, 1, 1, 0),
        Peer::new(4, Transport::Uc, Pmtu::B1024, 1, 2, 0),
    ];
    let mut bench = Bench::new(Traffic::four_ways(SEED)[3], peers);
    for _ in 0..RECEIVE_QUEUE_DEPTH {
        bench.post_buffer(0, 2000);
    }
    // Full: refused, changing nothing (Lockstep checks the RTL refuses exactly then).
    assert!(!bench.cosim.post_receive(3, 0x1234_0000, 64).unwrap());
    assert!(!bench.cosim.post_receive(3, 0x1234_0000, 64).unwrap());
    // The other QP's queue is its own.
    bench.post_buffer(1, 2000);
    // A SEND consumes the head buffer; one post is accepted again, the next refused.
    assert!(bench.deliver_transfer(0, PostOp::Send, 1500).iter().all(Outcome::executed));
    bench.post_buffer(0, 2000);
    assert!(!bench.cosim.post_receive(3, 0x1234_0000, 64).unwrap());
    // The sixteen buffers are consumed in order.
    for _ in 0..RECEIVE_QUEUE_DEPTH {
        let outcomes = bench.deliver_transfer(0, PostOp::SendImm, 100);
        assert!(outcomes[0].completion.is_some());
    }
    let outcomes = bench.deliver_transfer(0, PostOp::Send, 100);
    assert_eq!(outcomes[0].verdict, failed(CheckFailure::NoReceiveBuffer));
    // A commit empties a full queue.
    for _ in 0..RECEIVE_QUEUE_DEPTH {
        bench.post_buffer(0, 2000);
    }
    bench.recommit(0);
    assert!(bench.cosim.model.qp(3).unwrap().receive_queue.is_empty());
    let outcomes = bench.deliver_transfer(0, PostOp::Send, 100);
    assert_eq!(outcomes[0].verdict, failed(CheckFailure::NoReceiveBuffer));
    for _ in 0..RECEIVE_QUEUE_DEPTH {
        bench.post_buffer(0, 2000);
    }
    assert!(!bench.cosim.post_receive(3, 0x1234_0000, 64).unwrap());
    assert!(bench.deliver_transfer(0, PostOp::Send, 100).iter().all(Outcome::executed));
    bench.good_transfer(1, PostOp::Send, 100);
    bench.check_counters();
}

#[test]
fn header_records_are_ignored() {
    for traffic in Traffic::four_ways(SEED + 2) {
        let mut rng = ChaCha8Rng::seed_from_u64(traffic.seed);
        let peers = vec![
            Peer::new(10, Transport::Rc, Pmtu::B512, 1, 1, 100),
            Peer::new(11, Transport::Uc, Pmtu::B256, 2, 2, 200),
        ];
        let mut bench = Bench::new(traffic, peers);
        let mut posts = Vec::new();
        for channel in 0..8 {
            let peer = channel as usize % 2;
            posts.push(bench.requesters.post(peer, channel, PostOp::ALL[channel as usize % 4], 2500));
            posts.push(bench.requesters.post(peer, channel + 8, PostOp::Write, 2500));
        }
        let packets = bench.packets_with_buffers(&posts, &HashMap::new());
        let records = bench.records(&packets);
        let mut stream = Vec::new();
        for r in &records {
            if rng.gen_bool(0.5) {
                // the header record of the same packet, as RxFront sends it ahead
                stream.push(RecordIn::header(RxRecord { payload_len: 0, ..*r }));
            }
            if rng.gen_bool(0.3) {
                // one that would fail every check if it were decided
                let mut junk = *r;
                bth(std::slice::from_mut(&mut junk), 0, |b| {
                    b.psn ^= 0x55_5555;
                    b.opcode = 0x11;
                });
                junk.payload_len = rng.gen_range(0..5000);
                junk.icrc_ok = None;
                stream.push(RecordIn::header(junk));
            }
            stream.push(RecordIn::fin(*r));
        }
        let outcomes = bench.deliver_in(&stream);
        assert_eq!(outcomes.len(), records.len());
        assert!(outcomes.iter().all(Outcome::executed));
        bench.check_counters();
    }
}

#[test]
fn a_commit_restarts_the_qp_from_its_rq_psn() {
    for transport in [Transport::Rc, Transport::Uc] {
        let peer = Peer::new(200, transport, Pmtu::B256, 1, 1, 0x1000);
        let mut bench = Bench::new(Traffic::four_ways(SEED + 3)[2], vec![peer]);
        bench.good_transfer(0, PostOp::Write, 2000);
        // A SEND left open (its first two packets), two more buffers queued.
        let open = bench.transfer_records(0, PostOp::Send, 1000, Some(1000));
        bench.post_buffer(0, 64);
        bench.post_buffer(0, 64);
        bench.deliver(&open[..2]);
        assert!(bench.cosim.model.qp(200).unwrap().message.is_some());
        // Restart near the PSN wrap: the message and the buffers are gone, the MSN back to 0.
        bench.requesters.peers[0].requester.sq_psn = PSN_MASK - 2;
        bench.recommit(0);
        // The rest of the old message: its PSNs are far from the new expected one.
        let outcomes = bench.deliver(&open[2..]);
        assert!(outcomes.iter().all(|o| !o.executed()));
        let records = bench.transfer_records(0, PostOp::Send, 100, None);
        assert_eq!(bench.deliver(&records)[0].verdict, failed(CheckFailure::NoReceiveBuffer));
        bench.resync(0);
        bench.good_transfer(0, PostOp::WriteImm, 1200); // PSNs 2^24 - 3 .. 1
        let qp = bench.cosim.model.qp(200).unwrap();
        assert_eq!((qp.expected_psn, qp.msn), (2, 1));
        // A commit of the same context again: the same restart.
        bench.recommit(0);
        bench.good_transfer(0, PostOp::Send, 10);
        assert_eq!(bench.cosim.model.qp(200).unwrap().msn, 1);
        bench.check_counters();
    }
}

#[test]
fn region_entries_are_checked_whole_to_the_top_of_the_address_space() {
    // Entry 63 (the table's last), its last byte the address space's last.
    let mut peer = Peer::new(5, Transport::Rc, Pmtu::B1024, 1, 63, 0);
    peer.region.base = 0u64.wrapping_sub(1 << 18);
    let top = |back: u64| 0u64.wrapping_sub(back);
    let mut bench = Bench::new(Traffic::four_ways(SEED + 4)[1], vec![peer]);
    bench.good_transfer(0, PostOp::Write, 1000);
    let records = bench.transfer_records_at(0, PostOp::WriteImm, 700, Some(0), top(700));
    assert!(bench.deliver(&records).iter().all(Outcome::executed));
    bench.resync(0);
    // One byte more runs past 2^64.
    let mut records = bench.transfer_records_at(0, PostOp::Write, 700, None, top(700));
    reth(&mut records, 0, |h| h.dma_len = 701);
    assert_eq!(bench.deliver(&records)[0].verdict, failed(CheckFailure::RkeyBounds));
    bench.resync(0);
    bench.recommit(0);

    // A WRITE open when its entry is cleared keeps its target; the next one finds no region.
    let rkey = peer.region.rkey;
    let records = bench.transfer_records_at(0, PostOp::Write, 3000, None, top(3000));
    assert!(bench.deliver(&records[..1]).iter().all(Outcome::executed));
    bench.cosim.clear_region(63).unwrap();
    assert!(bench.deliver(&records[1..]).iter().all(Outcome::executed));
    bench.resync(0);
    let records = bench.transfer_records(0, PostOp::Write, 100, None);
    assert_eq!(bench.deliver(&records)[0].verdict, failed(CheckFailure::RkeyInvalid));
    bench.resync(0);
    bench.recommit(0);
    // Registered again with another key byte: the stale R_Key does not match, the new one does.
    let fresh = MemoryRegion {
        rkey: rkey ^ 0x01,
        ..peer.region
    };
    bench.cosim.add_region(fresh).unwrap();
    let records = bench.transfer_records(0, PostOp::Write, 100, None);
    assert_eq!(bench.deliver(&records)[0].verdict, failed(CheckFailure::RkeyInvalid));
    bench.resync(0);
    bench.recommit(0);
    bench.requesters.peers[0].requester.rkey = fresh.rkey;
    bench.good_transfer(0, PostOp::Write, 5000);
    // Zero-length WRITEs need no region at all.
    bench.cosim.clear_region(63).unwrap();
    bench.good_transfer(0, PostOp::Write, 0);
    bench.check_counters();
}

/// A READ request record of peer `peer` at its requester's next PSN: the only packet of a
/// zero-length WRITE made a READ request for `length` bytes at `va` with `rkey`. The requester
/// is not moved past its PSNs (`Bench::resync` does that from the responder's expected PSN).
fn read_request(bench: &mut Bench, peer: usize, va: u64, length: u32, rkey: u32) -> RxRecord {
    let mut records = bench.transfer_records(peer, PostOp::Write, 0, None);
    assert_eq!(records.len(), 1);
    bth(&mut records, 0, |b| b.opcode = Opcode::RC_READ_REQUEST.value());
    reth(&mut records, 0, |h| {
        h.va = va;
        h.dma_len = length;
        h.r_key = rkey;
    });
    records[0]
}

/// A region that allows remote reads (entry 30, PD 1), 2^32 bytes: room for a 2^31-byte READ.
const READABLE_RKEY: u32 = 30 << 8 | 0x33;
const READABLE_BASE: u64 = 0x40_0000_0000;

#[test]
fn rdma_read_requests_decide_as_the_model() {
    use CheckFailure::{DmaLength, OpcodeSequence, PayloadLength, PsnOutOfSequence, RkeyAccess, RkeyBounds, RkeyInvalid};
    for (pmtu, traffic) in [Pmtu::B256, Pmtu::B1024, Pmtu::B4096].into_iter().zip(Traffic::four_ways(SEED + 5)) {
        let peer = Peer::new(9, Transport::Rc, pmtu, 1, 1, PSN_MASK - 40);
        let mut bench = Bench::new(traffic, vec![peer]);
        bench
            .cosim
            .add_region(MemoryRegion {
                rkey: READABLE_RKEY,
                pd: 1,
                base: READABLE_BASE,
                length: 1 << 32,
                access: Access {
                    remote_write: false,
                    remote_read: true,
                },
            })
            .unwrap();
        let bytes = pmtu.bytes();
        // Lengths around the PMTU and far beyond it, across the PSN wrap: each executed and
        // the expected PSN moved by its packet count.
        for length in [
            0,
            1,
            bytes - 1,
            bytes,
            bytes + 1,
            3 * bytes,
            3 * bytes + 7,
            1 << 20,
            (1 << 31) - 1,
            1 << 31,
        ] {
            let before = bench.cosim.model.qp(9).unwrap().expected_psn;
            let record = read_request(&mut bench, 0, READABLE_BASE + 64, length, READABLE_RKEY);
            let outcome = &bench.deliver(&[record])[0];
            let response = outcome.read_response.expect("a READ response");
            let count = length.div_ceil(bytes).max(1);
            assert_eq!((response.first_psn, response.length), (before, length), "{pmtu:?} {length}");
            assert_eq!(
                bench.cosim.model.qp(9).unwrap().expected_psn,
                (before + count) & PSN_MASK,
                "{pmtu:?} {length}"
            );
            bench.resync(0);
        }
        bench.good_transfer(0, PostOp::Write, 3000);

        // A duplicate READ, after WRITEs and with a SEND open: executed again, nothing moves.
        let record = read_request(&mut bench, 0, READABLE_BASE, 5 * bytes, READABLE_RKEY);
        assert!(bench.deliver(&[record])[0].executed());
        bench.resync(0);
        bench.good_transfer(0, PostOp::Write, 1000);
        let open = bench.transfer_records(0, PostOp::Send, 2 * bytes, Some(2 * bytes));
        assert!(bench.deliver(&open[..1]).iter().all(Outcome::executed));
        let mut again = record;
        again.bth.as_mut().unwrap().psn = (record.bth.unwrap().psn + 2) & PSN_MASK; // from its third packet
        again.reth.as_mut().unwrap().va += 2 * u64::from(bytes);
        again.reth.as_mut().unwrap().dma_len -= 2 * bytes;
        for r in [record, again] {
            let outcome = &bench.deliver(&[r])[0];
            assert!(outcome.read_response.unwrap().duplicate);
        }
        // A new READ while the SEND is open is out of sequence (an invalid request: the QP is
        // restarted).
        bench.resync(0);
        let record = read_request(&mut bench, 0, READABLE_BASE, 100, READABLE_RKEY);
        assert_eq!(bench.deliver(&[record])[0].verdict, failed(OpcodeSequence));
        bench.recommit(0);
        bench.resync(0);

        // The checks a READ has, each followed by a READ that works.
        let checks: [(&str, u64, u32, u32, usize, CheckFailure); 7] = [
            ("rkey of an empty entry", READABLE_BASE, 100, 31 << 8 | 0x33, 0, RkeyInvalid),
            ("write-only region", peer.region.base, 100, peer.region.rkey, 0, RkeyAccess),
            ("VA before the region", READABLE_BASE - 1, 100, READABLE_RKEY, 0, RkeyBounds),
            (
                "end past the region",
                READABLE_BASE + (1 << 32) - 99,
                100,
                READABLE_RKEY,
                0,
                RkeyBounds,
            ),
            ("a payload", READABLE_BASE, 100, READABLE_RKEY, 4, PayloadLength),
            ("2^31 + 1 bytes", READABLE_BASE, (1 << 31) + 1, READABLE_RKEY, 0, DmaLength),
            ("2^32 - 1 bytes", READABLE_BASE, u32::MAX, READABLE_RKEY, 0, DmaLength),
        ];
        for (name, va, length, rkey, payload, failure) in checks {
            let mut record = read_request(&mut bench, 0, va, length, rkey);
            record.payload_len = payload;
            assert_eq!(bench.deliver(&[record])[0].verdict, failed(failure), "{name}");
            bench.recommit(0);
            bench.resync(0);
            let record = read_request(&mut bench, 0, READABLE_BASE, 10, READABLE_RKEY);
            assert!(bench.deliver(&[record])[0].executed(), "{name}: the READ after");
            bench.resync(0);
        }
        // A zero-length READ needs no region; a duplicate that fails is answered at its PSN.
        let record = read_request(&mut bench, 0, 0, 0, 0xdead_beef);
        assert!(bench.deliver(&[record])[0].executed());
        bench.resync(0);
        let mut stale = read_request(&mut bench, 0, READABLE_BASE, 10, READABLE_RKEY);
        bench.resync(0);
        bench.good_transfer(0, PostOp::Write, 10);
        stale.bth.as_mut().unwrap().psn = (stale.bth.unwrap().psn + PSN_MASK - 3) & PSN_MASK;
        stale.reth.as_mut().unwrap().r_key = 31 << 8;
        let outcome = &bench.deliver(&[stale])[0];
        assert_eq!(outcome.verdict, failed(RkeyInvalid));
        assert_eq!(outcome.response.unwrap().psn, stale.bth.unwrap().psn);
        bench.recommit(0);
        bench.resync(0);
        // A READ ahead gets the PSN sequence NAK.
        let mut ahead = read_request(&mut bench, 0, READABLE_BASE, 10, READABLE_RKEY);
        ahead.bth.as_mut().unwrap().psn = (ahead.bth.unwrap().psn + 5) & PSN_MASK;
        assert_eq!(bench.deliver(&[ahead])[0].verdict, failed(PsnOutOfSequence));
        bench.resync(0);
        bench.good_transfer(0, PostOp::SendImm, 200);
        bench.check_counters();
        let counters = bench.cosim.model.counters();
        assert_eq!((counters.read_requests, counters.read_duplicates), (19, 2), "{counters:?}");
    }
}
