//! Unit tests of the responder model, one or more per rule of `docs/engine.md`. The frames come
//! from the TX model and go through the RX front end model, so the test data does not depend on
//! the responder.

use super::*;
use crate::contracts::tx::PostOp;
use crate::rx::RxResult;
use crate::tx::frame::frame_repr;
use crate::tx::{LocalMemory, PatternMemory, Post, TxModel, TxPacket, TxSetup};
use crate::wire::{ExtRepr, Operation, RoceFrame};
use proptest::prelude::*;
use std::sync::Arc;

/// The responder's QP (the requester's DestQP).
const QPN: u32 = 7;
/// The requester's QP in the TX model.
const REQUESTER_QP: u32 = 1;
const PD: u16 = 3;
/// Region table entry 5, key byte 0x42.
const RKEY: u32 = 0x0542;
const REGION_BASE: u64 = 0x4000_0000;
const REGION_LEN: u64 = 1 << 26;
const BUFFER_BASE: u64 = 0x8000_0000;
const RNR_TIMER: u8 = 14;
const SEED: u64 = 0x5eed;

/// The requester's context: RTS, P_Key 0xffff, DestQP [`QPN`], R_Key [`RKEY`], PSN 0.
fn requester(transport: Transport, pmtu: Pmtu) -> QpContext {
    QpContext {
        state: QpState::Rts.code(),
        transport: transport.bits(),
        pmtu: pmtu.code(),
        dest_qpn: QPN,
        rkey: RKEY,
        pkey: 0xffff,
        ttl: 64,
        src_ip: 0x0a00_0001,
        dst_ip: 0x0a00_0002,
        src_mac: 0x0200_0000_0001,
        dst_mac: 0x0200_0000_0002,
        udp_sport: 0xc123,
        ..QpContext::default()
    }
}

fn post(channel: u16, op: PostOp, length: u32) -> Post {
    Post {
        channel,
        queue: 1,
        op: op.code(),
        qp: REQUESTER_QP,
        length,
        local_addr: 0x10_0000 * (u64::from(channel) + 1),
        remote_addr: REGION_BASE + 0x10_0000 * u64::from(channel),
        immediate: 0x1234_5600 + u32::from(channel),
        ..Post::default()
    }
}

/// A requester (TX model) and a responder with one QP and one region, joined by the RX model.
struct Link {
    requester: QpContext,
    source: PatternMemory,
    responder: Responder,
    memory: SparseMemory,
}

impl Link {
    /// The responder's QP mirrors the requester's context; the responder coalesces ACKs every
    /// `ack_every` packets. One region: [`RKEY`], [`PD`], remote write.
    fn with(requester: QpContext, ack_every: u8) -> Link {
        let mut responder = Responder::default();
        let attributes = QpAttributes {
            state: QpState::Rtr,
            transport: requester.transport_service().unwrap(),
            pmtu: requester.path_mtu().unwrap(),
            pkey: requester.pkey,
            pd: PD,
            expected_psn: requester.sq_psn,
            min_rnr_timer: RNR_TIMER,
            ack_every,
        };
        responder.add_qp(QPN, attributes).unwrap();
        responder.add_memory_region(region(RKEY, PD, true)).unwrap();
        Link {
            requester,
            source: PatternMemory::new(SEED),
            responder,
            memory: SparseMemory::new(),
        }
    }

    fn new(transport: Transport, pmtu: Pmtu) -> Link {
        Link::with(requester(transport, pmtu), 0)
    }

    /// The packets the TX model sends for `posts`, in wire order.
    fn packets(&self, posts: Vec<Post>) -> Vec<TxPacket> {
        let mut setup = TxSetup {
            posts,
            memory: Arc::new(self.source),
            ..TxSetup::default()
        };
        setup.contexts.insert(REQUESTER_QP, self.requester);
        let plan = TxModel::plan(&setup).unwrap();
        assert!(plan.post_results.iter().all(Result::is_ok));
        plan.packets
    }

    fn frame(&self, packet: &TxPacket) -> RoceFrame {
        frame_repr(packet, &self.requester, &self.source)
    }

    /// Delivers a frame the RX model accepts and applies the memory write.
    fn deliver_frame(&mut self, frame: &RoceFrame) -> Outcome {
        let outcome = self.responder.receive_frame(&frame.emit()).expect("the RX model accepts the frame");
        if let Some(write) = &outcome.write {
            write.apply(&mut self.memory);
        }
        outcome
    }

    fn deliver(&mut self, packet: &TxPacket) -> Outcome {
        self.deliver_frame(&self.frame(packet))
    }

    fn deliver_all(&mut self, packets: &[TxPacket]) -> Vec<Outcome> {
        packets.iter().map(|p| self.deliver(p)).collect()
    }

    fn qp(&self) -> &ResponderQp {
        self.responder.qp(QPN).unwrap()
    }

    /// The bytes `post` reads from local memory, `from..to` of its transfer.
    fn sent(&self, post: &Post, range: std::ops::Range<u64>) -> Vec<u8> {
        self.source.bytes(post.local_addr + range.start, (range.end - range.start) as usize)
    }

    fn written(&self, address: u64, len: u64) -> Vec<u8> {
        self.memory.bytes(address, len as usize)
    }
}

fn region(rkey: u32, pd: u16, remote_write: bool) -> MemoryRegion {
    MemoryRegion {
        rkey,
        pd,
        base: REGION_BASE,
        length: REGION_LEN,
        access: Access {
            remote_write,
            remote_read: true,
        },
    }
}

fn nak(code: NakCode) -> Syndrome {
    Syndrome::Nak(code)
}

fn verdicts(outcomes: &[Outcome]) -> Vec<Verdict> {
    outcomes.iter().map(|o| o.verdict).collect()
}

fn responses(outcomes: &[Outcome]) -> Vec<Option<(u32, Syndrome, u32)>> {
    outcomes
        .iter()
        .map(|o| o.response.map(|r| (r.psn, r.aeth.syndrome, r.aeth.msn)))
        .collect()
}

const EXECUTED: Verdict = Verdict::Executed;

fn failed(f: CheckFailure) -> Verdict {
    Verdict::Failed(f)
}

#[test]
fn write_lands_byte_exact_and_is_acked_on_ackreq() {
    let mut link = Link::new(Transport::Rc, Pmtu::B1024);
    let w = post(0, PostOp::Write, 3000);
    let packets = link.packets(vec![w]);
    let outcomes = link.deliver_all(&packets);
    assert_eq!(verdicts(&outcomes), [EXECUTED; 3]);
    assert_eq!(link.written(w.remote_addr, 3000), link.sent(&w, 0..3000));
    // the bytes before and after are untouched
    assert_eq!(link.written(w.remote_addr - 1, 1), [0]);
    assert_eq!(link.written(w.remote_addr + 3000, 1), [0]);
    assert_eq!(responses(&outcomes), [None, None, Some((2, Syndrome::ack(), 1))]);
    assert!(outcomes.iter().all(|o| o.completion.is_none()));
    let qp = link.qp();
    assert_eq!((qp.expected_psn, qp.msn, qp.message), (3, 1, None));
    let counters = link.responder.counters();
    assert_eq!((counters.packets_executed, counters.bytes_executed, counters.acks), (3, 3000, 1));
}

#[test]
fn send_lands_in_the_head_receive_buffer_with_one_completion() {
    let mut link = Link::new(Transport::Rc, Pmtu::B1024);
    let s = post(0, PostOp::SendImm, 2500);
    link.responder.post_receive(QPN, BUFFER_BASE, 4096).unwrap();
    link.responder.post_receive(QPN, BUFFER_BASE + 0x10000, 4096).unwrap();
    let outcomes = link.deliver_all(&link.packets(vec![s]));
    assert_eq!(verdicts(&outcomes), [EXECUTED; 3]);
    assert_eq!(link.written(BUFFER_BASE, 2500), link.sent(&s, 0..2500));
    let completions: Vec<Completion> = outcomes.iter().filter_map(|o| o.completion).collect();
    assert_eq!(
        completions,
        [Completion {
            qp: QPN,
            kind: MessageKind::Send,
            buffer: ReceiveBuffer {
                address: BUFFER_BASE,
                length: 4096
            },
            length: 2500,
            immediate: Some(s.immediate),
            solicited: false,
            status: ReceiveStatus::Success,
        }]
    );
    assert!(outcomes[2].completion.is_some());
    assert_eq!(link.qp().receive_queue.len(), 1);
    assert_eq!(link.responder.counters().completions, 1);
}

#[test]
fn duplicate_write_is_reacked_not_rewritten() {
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    let w = post(0, PostOp::Write, 512);
    let packets = link.packets(vec![w]);
    link.deliver_all(&packets);
    // the host changes the region; a retransmitted packet must not write it again
    link.memory.write(w.remote_addr, &[0xAA; 512]);
    let again = link.deliver(&packets[0]);
    assert_eq!(again.verdict, failed(CheckFailure::PsnDuplicate));
    assert_eq!(again.write, None);
    // ACK of the last executed PSN, with the current MSN
    assert_eq!(responses(&[again]), [Some((1, Syndrome::ack(), 1))]);
    assert_eq!(link.written(w.remote_addr, 512), [0xAA; 512]);
    assert_eq!(link.qp().expected_psn, 2);
    assert_eq!(link.responder.counters().duplicates(), 1);
}

#[test]
fn one_psn_nak_per_gap() {
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    let (a, b) = (post(0, PostOp::Write, 1024), post(1, PostOp::Write, 512));
    let packets = link.packets(vec![a, b]);
    // a: PSN 0..=3, b: 4, 5. Lose PSN 1: one NAK for PSN 1, then silence.
    let outcomes = link.deliver_all(&[packets[0], packets[2], packets[3]]);
    assert_eq!(
        verdicts(&outcomes),
        [
            EXECUTED,
            failed(CheckFailure::PsnOutOfSequence),
            failed(CheckFailure::PsnOutOfSequence)
        ]
    );
    assert_eq!(responses(&outcomes), [None, Some((1, nak(NakCode::PsnSequenceError), 0)), None]);
    assert_eq!(link.written(a.remote_addr + 256, 768), [0; 768]);
    // The requester resends from PSN 1.
    let outcomes = link.deliver_all(&packets[1..4]);
    assert_eq!(verdicts(&outcomes), [EXECUTED; 3]);
    assert_eq!(link.written(a.remote_addr, 1024), link.sent(&a, 0..1024));
    // A new gap gets its own NAK.
    let outcome = link.deliver(&packets[5]);
    assert_eq!(responses(&[outcome]), [Some((4, nak(NakCode::PsnSequenceError), 1))]);
    let counters = link.responder.counters();
    assert_eq!(counters.naks_sent(NakCode::PsnSequenceError), 2);
    assert_eq!(counters.out_of_sequence(), 3);
    assert_eq!(link.qp().state, QpState::Rtr);
}

#[test]
fn rkey_of_another_pd_is_a_remote_access_error() {
    let mut ctx = requester(Transport::Rc, Pmtu::B1024);
    ctx.rkey = 0x0677;
    let mut link = Link::with(ctx, 0);
    link.responder.add_memory_region(region(0x0677, PD + 1, true)).unwrap();
    let packets = link.packets(vec![post(0, PostOp::Write, 100), post(1, PostOp::Write, 100)]);
    let outcome = link.deliver(&packets[0]);
    assert_eq!(outcome.verdict, failed(CheckFailure::RkeyDomain));
    assert_eq!(outcome.write, None);
    assert_eq!(responses(&[outcome]), [Some((0, nak(NakCode::RemoteAccessError), 0))]);
    assert_eq!(link.qp().state, QpState::Error);
    let after = link.deliver(&packets[1]);
    assert_eq!((after.verdict, after.response), (failed(CheckFailure::QpState), None));
    assert_eq!(link.responder.counters().naks_sent(NakCode::RemoteAccessError), 1);
}

#[test]
fn unknown_rkey_missing_write_access_and_out_of_bounds_are_remote_access_errors() {
    // (R_Key of the requester, region registered, remote address, length, failure)
    let (read_only, short) = (0x0301, 0x0744);
    let short_region = MemoryRegion {
        length: 1000,
        ..region(short, PD, true)
    };
    let cases = [
        (0x0942, None, REGION_BASE, 64, CheckFailure::RkeyInvalid),
        (0x0543, None, REGION_BASE, 64, CheckFailure::RkeyInvalid), // entry 5, wrong key byte
        (
            read_only,
            Some(region(read_only, PD, false)),
            REGION_BASE,
            64,
            CheckFailure::RkeyAccess,
        ),
        (short, Some(short_region), REGION_BASE + 900, 200, CheckFailure::RkeyBounds),
        (RKEY, None, REGION_BASE - 1, 64, CheckFailure::RkeyBounds), // its first block is 1 byte
    ];
    for (rkey, extra_region, remote_addr, length, failure) in cases {
        let mut ctx = requester(Transport::Rc, Pmtu::B4096);
        ctx.rkey = rkey;
        let mut link = Link::with(ctx, 0);
        if let Some(r) = extra_region {
            link.responder.add_memory_region(r).unwrap();
        }
        let packets = link.packets(vec![Post {
            remote_addr,
            ..post(0, PostOp::Write, length)
        }]);
        let outcome = link.deliver(&packets[0]);
        assert_eq!(outcome.verdict, failed(failure), "{rkey:#x} {remote_addr:#x}");
        assert_eq!(outcome.response.map(|r| r.aeth.syndrome.encode()), Some(0x62));
        assert_eq!(outcome.write, None);
    }
    // The last byte of the region is inside it.
    let mut link = Link::new(Transport::Rc, Pmtu::B4096);
    let w = Post {
        remote_addr: REGION_BASE + REGION_LEN - 200,
        ..post(0, PostOp::Write, 200)
    };
    let outcome = link.deliver(&link.packets(vec![w])[0]);
    assert_eq!(outcome.verdict, EXECUTED);
}

#[test]
fn uc_gap_drops_the_rest_of_the_message_and_resyncs() {
    let mut link = Link::new(Transport::Uc, Pmtu::B256);
    let (a, b) = (post(0, PostOp::Write, 1280), post(1, PostOp::Write, 512));
    let packets = link.packets(vec![a, b]);
    // a: PSN 0..=4, b: 5, 6. Lose PSN 2.
    let delivered = [packets[0], packets[1], packets[3], packets[4], packets[5], packets[6]];
    let outcomes = link.deliver_all(&delivered);
    let gap = failed(CheckFailure::PsnOutOfSequence);
    assert_eq!(verdicts(&outcomes), [EXECUTED, EXECUTED, gap, gap, EXECUTED, EXECUTED]);
    assert_eq!(
        outcomes.iter().map(|o| o.dropped_message).collect::<Vec<_>>(),
        [false, false, true, false, false, false]
    );
    assert!(outcomes.iter().all(|o| o.response.is_none()));
    // a: its first two packets landed, nothing after; b whole.
    assert_eq!(link.written(a.remote_addr, 512), link.sent(&a, 0..512));
    assert_eq!(link.written(a.remote_addr + 512, 768), [0; 768]);
    assert_eq!(link.written(b.remote_addr, 512), link.sent(&b, 0..512));
    let counters = link.responder.counters();
    assert_eq!((counters.uc_messages_dropped, counters.out_of_sequence()), (1, 2));
    assert_eq!((link.qp().expected_psn, link.qp().msn), (7, 1));
}

#[test]
fn uc_first_packet_while_a_message_is_open_drops_the_open_one() {
    let mut link = Link::new(Transport::Uc, Pmtu::B256);
    let (a, b) = (post(0, PostOp::Write, 768), post(1, PostOp::Write, 100));
    let packets = link.packets(vec![a, b]);
    link.deliver_all(&packets[..2]);
    // b's only packet arrives with the PSN a's last packet should have had
    let mut b_only = packets[3];
    b_only.bth.psn = packets[2].bth.psn;
    let outcome = link.deliver(&b_only);
    assert_eq!(outcome.verdict, EXECUTED);
    assert!(outcome.dropped_message);
    assert_eq!(link.written(b.remote_addr, 100), link.sent(&b, 0..100));
    // a's last packet now has no open message (and a PSN behind)
    let outcome = link.deliver(&packets[2]);
    assert_eq!(outcome.verdict, failed(CheckFailure::PsnOutOfSequence));
    assert_eq!(link.responder.counters().uc_messages_dropped, 1);
}

#[test]
fn send_without_receive_buffer_gets_rnr_nak_with_the_qps_timer() {
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    let s = post(0, PostOp::Send, 300);
    let packets = link.packets(vec![s]);
    let outcomes = link.deliver_all(&packets);
    assert_eq!(
        verdicts(&outcomes),
        [failed(CheckFailure::NoReceiveBuffer), failed(CheckFailure::PsnOutOfSequence)]
    );
    // RNR NAK for the packet's PSN with timer 14 (0x2E); the packet ahead of it gets no answer
    assert_eq!(responses(&outcomes), [Some((0, Syndrome::RnrNak { timer: RNR_TIMER }, 0)), None]);
    assert_eq!(outcomes[0].response.unwrap().aeth.encode(), 0x2E00_0000);
    assert!(outcomes.iter().all(|o| o.write.is_none()));
    assert_eq!(link.qp().state, QpState::Rtr);
    // The requester retries after the timer; a buffer has been posted meanwhile.
    link.responder.post_receive(QPN, BUFFER_BASE, 300).unwrap();
    let outcomes = link.deliver_all(&packets);
    assert_eq!(verdicts(&outcomes), [EXECUTED; 2]);
    assert_eq!(link.written(BUFFER_BASE, 300), link.sent(&s, 0..300));
    assert_eq!(
        outcomes[1].completion.map(|c| (c.length, c.status)),
        Some((300, ReceiveStatus::Success))
    );
    assert_eq!(link.responder.counters().rnr_naks, 1);
}

#[test]
fn uc_send_without_receive_buffer_is_dropped_and_counted() {
    let mut link = Link::new(Transport::Uc, Pmtu::B256);
    let (s, t) = (post(0, PostOp::Send, 300), post(1, PostOp::Send, 200));
    let packets = link.packets(vec![s, t]);
    let outcomes = link.deliver_all(&packets[..2]);
    assert_eq!(
        verdicts(&outcomes),
        [failed(CheckFailure::NoReceiveBuffer), failed(CheckFailure::PsnOutOfSequence)]
    );
    assert!(outcomes.iter().all(|o| o.response.is_none() && o.write.is_none()));
    // the next message starts the QP again
    link.responder.post_receive(QPN, BUFFER_BASE, 4096).unwrap();
    let outcome = link.deliver(&packets[2]);
    assert_eq!(outcome.verdict, EXECUTED);
    assert_eq!(outcome.completion.map(|c| c.length), Some(200));
    assert_eq!(link.written(BUFFER_BASE, 200), link.sent(&t, 0..200));
    assert_eq!(link.responder.counters().failed(CheckFailure::NoReceiveBuffer), 1);
    assert_eq!(link.responder.counters().uc_messages_dropped, 0);
}

#[test]
fn short_middle_packet_is_invalid_request() {
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    let w = post(0, PostOp::Write, 768);
    let mut packets = link.packets(vec![w]);
    packets[1].payload_len = 255;
    let outcomes = link.deliver_all(&packets);
    assert_eq!(
        verdicts(&outcomes),
        [EXECUTED, failed(CheckFailure::PayloadLength), failed(CheckFailure::QpState)]
    );
    assert_eq!(responses(&outcomes), [None, Some((1, nak(NakCode::InvalidRequest), 0)), None]);
    assert_eq!(outcomes[1].response.unwrap().aeth.syndrome.encode(), 0x61);
    assert_eq!(link.written(w.remote_addr, 256), link.sent(&w, 0..256));
    assert_eq!(link.written(w.remote_addr + 256, 512), [0; 512]);
    assert_eq!(link.qp().state, QpState::Error);
}

#[test]
fn payload_length_rules_by_position() {
    // (packet to alter, new payload length, verdict) on a 3-packet WRITE at PMTU 256
    let cases = [
        (0, 255, failed(CheckFailure::PayloadLength)),
        (0, 257, failed(CheckFailure::PayloadLength)),
        (2, 0, failed(CheckFailure::PayloadLength)),
        (2, 257, failed(CheckFailure::PayloadLength)),
    ];
    for (index, len, verdict) in cases {
        let mut link = Link::new(Transport::Rc, Pmtu::B256);
        let mut packets = link.packets(vec![post(0, PostOp::Write, 700)]);
        packets[index].payload_len = len;
        let outcomes = link.deliver_all(&packets[..=index]);
        assert_eq!(outcomes[index].verdict, verdict, "packet {index}, {len} bytes");
    }
    // An only packet of PMTU bytes is legal, one more is not.
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    let mut packets = link.packets(vec![post(0, PostOp::Write, 256), post(1, PostOp::Write, 256)]);
    assert_eq!(link.deliver(&packets[0]).verdict, EXECUTED);
    packets[1].payload_len = 257;
    packets[1].reth = packets[1].reth.map(|r| RethRepr { dma_len: 257, ..r });
    assert_eq!(link.deliver(&packets[1]).verdict, failed(CheckFailure::PayloadLength));
}

#[test]
fn write_bytes_must_match_the_dma_length() {
    // beyond the DMA length on a middle packet
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    let w = post(0, PostOp::Write, 768);
    let mut packets = link.packets(vec![w]);
    packets[0].reth = packets[0].reth.map(|r| RethRepr { dma_len: 300, ..r });
    let outcomes = link.deliver_all(&packets[..2]);
    assert_eq!(verdicts(&outcomes), [EXECUTED, failed(CheckFailure::DmaLength)]);
    assert_eq!(outcomes[1].response.map(|r| r.aeth.syndrome), Some(nak(NakCode::InvalidRequest)));
    // short of it on an only packet
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    let mut packets = link.packets(vec![post(0, PostOp::Write, 100)]);
    packets[0].reth = packets[0].reth.map(|r| RethRepr { dma_len: 101, ..r });
    assert_eq!(link.deliver(&packets[0]).verdict, failed(CheckFailure::DmaLength));
}

#[test]
fn zero_length_write_only_is_legal() {
    // Its R_Key and VA are not checked: the requester's R_Key names no region.
    let mut ctx = requester(Transport::Rc, Pmtu::B1024);
    ctx.rkey = 0xdead_0000;
    let mut link = Link::with(ctx, 0);
    let packets = link.packets(vec![Post {
        remote_addr: 0,
        ..post(0, PostOp::Write, 0)
    }]);
    assert_eq!(packets[0].bth.opcode, Opcode::RC_WRITE_ONLY);
    let outcome = link.deliver(&packets[0]);
    assert_eq!(outcome.verdict, EXECUTED);
    assert_eq!((&outcome.write, outcome.completion), (&None, None));
    assert_eq!(responses(&[outcome]), [Some((0, Syndrome::ack(), 1))]);
    // A zero-length SEND completes with length 0.
    link.responder.post_receive(QPN, BUFFER_BASE, 0).unwrap();
    let packets = link.packets(vec![post(1, PostOp::Send, 0)]);
    let mut send = packets[0];
    send.bth.psn = 1;
    let outcome = link.deliver(&send);
    assert_eq!(outcome.verdict, EXECUTED);
    assert_eq!(outcome.completion.map(|c| c.length), Some(0));
}

#[test]
fn psn_wraps_at_2_24() {
    let mut ctx = requester(Transport::Rc, Pmtu::B256);
    ctx.sq_psn = 0xFF_FFFE;
    let mut link = Link::with(ctx, 0);
    let w = post(0, PostOp::Write, 1024);
    let packets = link.packets(vec![w]);
    assert_eq!(packets.iter().map(|p| p.bth.psn).collect::<Vec<_>>(), [0xFF_FFFE, 0xFF_FFFF, 0, 1]);
    let outcomes = link.deliver_all(&packets);
    assert_eq!(verdicts(&outcomes), [EXECUTED; 4]);
    assert_eq!(link.written(w.remote_addr, 1024), link.sent(&w, 0..1024));
    assert_eq!(outcomes[3].response.map(|r| r.psn), Some(1));
    assert_eq!(link.qp().expected_psn, 2);
    // PSN 0xFF_FFFF is 3 behind PSN 2: a duplicate
    let again = link.deliver(&packets[1]);
    assert_eq!(again.verdict, failed(CheckFailure::PsnDuplicate));
    assert_eq!(again.response.map(|r| r.psn), Some(1));
}

#[test]
fn psn_window_splits_at_half() {
    const HALF: u32 = 1 << 23;
    for expected in [0, 5, HALF, PSN_MASK] {
        let at = |d: u32| expected.wrapping_add(d) & PSN_MASK;
        assert_eq!(PsnPlace::of(expected, expected), PsnPlace::Expected);
        assert_eq!(PsnPlace::of(at(PSN_MASK), expected), PsnPlace::Duplicate); // 1 behind
        assert_eq!(PsnPlace::of(at(HALF), expected), PsnPlace::Duplicate); // 2^23 behind
        assert_eq!(PsnPlace::of(at(1), expected), PsnPlace::Ahead);
        assert_eq!(PsnPlace::of(at(HALF - 1), expected), PsnPlace::Ahead);
    }
    // The same through the responder.
    let mut ctx = requester(Transport::Rc, Pmtu::B256);
    ctx.sq_psn = 100;
    let mut link = Link::with(ctx, 0);
    let mut packet = link.packets(vec![post(0, PostOp::Write, 10)])[0];
    packet.bth.psn = (100 + (1 << 23) - 1) & PSN_MASK;
    let outcome = link.deliver(&packet);
    assert_eq!(outcome.response.map(|r| r.aeth.syndrome), Some(nak(NakCode::PsnSequenceError)));
    packet.bth.psn = (100u32.wrapping_sub(1 << 23)) & PSN_MASK;
    let outcome = link.deliver(&packet);
    assert_eq!(outcome.verdict, failed(CheckFailure::PsnDuplicate));
    assert_eq!(outcome.response.map(|r| (r.psn, r.aeth.syndrome)), Some((99, Syndrome::ack())));
}

#[test]
fn ack_coalescing_every_n_and_on_ackreq() {
    // The requester asks for an ACK on last packets only; the responder ACKs every 3 packets.
    let mut link = Link::with(requester(Transport::Rc, Pmtu::B256), 3);
    let packets = link.packets(vec![post(0, PostOp::Write, 8 * 256), post(1, PostOp::Write, 4 * 256)]);
    let outcomes = link.deliver_all(&packets);
    let acked: Vec<u32> = outcomes.iter().filter_map(|o| o.response.map(|r| r.psn)).collect();
    // 3rd and 6th packets, the 8th (AckReq, counter back to 0), then 3 more (11th), the 12th (AckReq)
    assert_eq!(acked, [2, 5, 7, 10, 11]);
    assert!(outcomes
        .iter()
        .filter_map(|o| o.response)
        .all(|r| r.aeth.syndrome == Syndrome::ack()));
    assert_eq!(outcomes[7].response.map(|r| r.aeth.msn), Some(1));
    assert_eq!(outcomes[11].response.map(|r| r.aeth.msn), Some(2));
    // A NAK is never held back, and restarts the count.
    let mut link = Link::with(requester(Transport::Rc, Pmtu::B256), 3);
    let packets = link.packets(vec![post(0, PostOp::Write, 8 * 256)]);
    let outcomes = link.deliver_all(&[packets[0], packets[2], packets[1], packets[2], packets[3], packets[4]]);
    assert_eq!(
        responses(&outcomes),
        [
            None,
            Some((1, nak(NakCode::PsnSequenceError), 0)),
            None,
            None,
            Some((3, Syndrome::ack(), 0)),
            None
        ]
    );
}

#[test]
fn send_longer_than_the_buffer_is_invalid_request_with_a_length_error_completion() {
    let buffer = ReceiveBuffer {
        address: BUFFER_BASE,
        length: 300,
    };
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    link.responder.post_receive(QPN, buffer.address, buffer.length).unwrap();
    let s = post(0, PostOp::Send, 600);
    let outcomes = link.deliver_all(&link.packets(vec![s])[..2]);
    assert_eq!(verdicts(&outcomes), [EXECUTED, failed(CheckFailure::ReceiveBufferTooSmall)]);
    assert_eq!(outcomes[1].response.map(|r| r.aeth.syndrome), Some(nak(NakCode::InvalidRequest)));
    let completion = outcomes[1].completion.unwrap();
    assert_eq!(
        (completion.buffer, completion.length, completion.status),
        (buffer, 256, ReceiveStatus::LengthError)
    );
    assert_eq!(link.written(BUFFER_BASE + 256, 44), [0; 44]);
    assert_eq!(link.qp().state, QpState::Error);
    assert!(link.qp().receive_queue.is_empty());
    // UC: the message is dropped and the buffer kept for the next SEND.
    let mut link = Link::new(Transport::Uc, Pmtu::B256);
    link.responder.post_receive(QPN, buffer.address, buffer.length).unwrap();
    let packets = link.packets(vec![s, post(1, PostOp::Send, 200)]);
    let outcomes = link.deliver_all(&packets);
    assert_eq!(
        verdicts(&outcomes),
        [
            EXECUTED,
            failed(CheckFailure::ReceiveBufferTooSmall),
            failed(CheckFailure::PsnOutOfSequence),
            EXECUTED
        ]
    );
    assert!(outcomes[1].dropped_message && outcomes[1].completion.is_none());
    assert_eq!(outcomes[3].completion.map(|c| (c.buffer, c.length)), Some((buffer, 200)));
    assert_eq!(link.written(BUFFER_BASE, 200), link.sent(&post(1, PostOp::Send, 200), 0..200));
}

#[test]
fn write_with_immediate_consumes_a_buffer_and_completes_with_the_immediate() {
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    let w = post(0, PostOp::WriteImm, 700);
    let packets = link.packets(vec![w]);
    assert_eq!(packets[2].bth.opcode, Opcode::RC_WRITE_LAST_IMM);
    // No buffer: the first packets execute, the last gets an RNR NAK.
    let outcomes = link.deliver_all(&packets);
    assert_eq!(verdicts(&outcomes), [EXECUTED, EXECUTED, failed(CheckFailure::NoReceiveBuffer)]);
    assert_eq!(
        outcomes[2].response.map(|r| (r.psn, r.aeth.syndrome)),
        Some((2, Syndrome::RnrNak { timer: RNR_TIMER }))
    );
    // The requester retries the last packet once a buffer is posted.
    link.responder.post_receive(QPN, BUFFER_BASE, 0).unwrap();
    let outcome = link.deliver(&packets[2]);
    assert_eq!(outcome.verdict, EXECUTED);
    assert_eq!(link.written(w.remote_addr, 700), link.sent(&w, 0..700));
    let completion = outcome.completion.unwrap();
    assert_eq!(
        (completion.kind, completion.length, completion.immediate, completion.status),
        (MessageKind::Write, 700, Some(w.immediate), ReceiveStatus::Success)
    );
    assert_eq!(link.written(BUFFER_BASE, 1), [0]); // the buffer receives no data
}

#[test]
fn middle_without_first_is_invalid_request() {
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    link.responder.post_receive(QPN, BUFFER_BASE, 4096).unwrap();
    let mut middle = link.packets(vec![post(0, PostOp::Send, 600)])[1];
    middle.bth.psn = 0;
    let outcome = link.deliver(&middle);
    assert_eq!(outcome.verdict, failed(CheckFailure::OpcodeSequence));
    assert_eq!(outcome.response.map(|r| r.aeth.syndrome), Some(nak(NakCode::InvalidRequest)));
    assert_eq!(outcome.completion, None);
    assert_eq!(link.qp().state, QpState::Error);
}

#[test]
fn first_while_an_rc_message_is_open_is_invalid_request() {
    // a WRITE first packet, then a WRITE middle, while a SEND is open
    let buffer = ReceiveBuffer {
        address: BUFFER_BASE,
        length: 4096,
    };
    let intruders = |link: &Link| {
        let packets = link.packets(vec![post(0, PostOp::Send, 600), post(1, PostOp::Write, 768)]);
        [packets[0], packets[3], packets[4]]
    };
    for intruder in [1, 2] {
        let mut link = Link::new(Transport::Rc, Pmtu::B256);
        link.responder.post_receive(QPN, buffer.address, buffer.length).unwrap();
        let packets = intruders(&link);
        assert_eq!(link.deliver(&packets[0]).verdict, EXECUTED);
        let mut wrong = packets[intruder];
        wrong.bth.psn = 1;
        let outcome = link.deliver(&wrong);
        assert_eq!(outcome.verdict, failed(CheckFailure::OpcodeSequence));
        assert_eq!(outcome.response.map(|r| r.aeth.syndrome), Some(nak(NakCode::InvalidRequest)));
        // the open SEND's buffer completes in error
        let completion = outcome.completion.unwrap();
        assert_eq!(
            (completion.buffer, completion.length, completion.status),
            (buffer, 256, ReceiveStatus::InvalidRequest)
        );
    }
}

#[test]
fn connection_failures_are_silent_and_change_nothing() {
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    let mut init = requester(Transport::Rc, Pmtu::B256);
    init.state = QpState::Init.code();
    link.responder.add_qp(QPN + 1, QpAttributes::from_context(&init).unwrap()).unwrap();
    let base = link.packets(vec![post(0, PostOp::Write, 64)])[0];
    let with = |change: &dyn Fn(&mut TxPacket)| {
        let mut p = base;
        change(&mut p);
        p
    };
    let uc = Opcode::from_parts(Transport::Uc, Operation::WriteOnly).unwrap();
    let cases = [
        (with(&|p| p.bth.dest_qp = DEFAULT_QPS), CheckFailure::QpNumber),
        (with(&|p| p.bth.dest_qp = 0), CheckFailure::QpNumber), // the special QPs
        (with(&|p| p.bth.dest_qp = 1), CheckFailure::QpNumber),
        (with(&|p| p.bth.dest_qp = QPN + 2), CheckFailure::QpState), // never added
        (with(&|p| p.bth.dest_qp = QPN + 1), CheckFailure::QpState), // in Init
        (with(&|p| p.bth.p_key = 0x1234), CheckFailure::Pkey),
        (with(&|p| p.bth.opcode = uc), CheckFailure::Transport),
    ];
    for (packet, failure) in cases {
        let outcome = link.deliver(&packet);
        assert_eq!((outcome.verdict, outcome.response, outcome.write), (failed(failure), None, None));
    }
    assert_eq!(link.qp().expected_psn, 0);
    assert_eq!(link.deliver(&base).verdict, EXECUTED);
    assert_eq!(link.responder.counters().failed(CheckFailure::QpState), 2);
}

#[test]
fn pkeys_match_by_partition_and_membership() {
    assert!(pkey_matches(0xffff, 0xffff));
    assert!(pkey_matches(0x7fff, 0xffff)); // limited member to full member
    assert!(pkey_matches(0xffff, 0x7fff));
    assert!(!pkey_matches(0x7fff, 0x7fff)); // two limited members
    assert!(!pkey_matches(0x8000, 0x8000)); // the invalid partition
    assert!(!pkey_matches(0x9234, 0x9235));
}

#[test]
fn responses_and_cnp_are_forwarded() {
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    let base = link.frame(&link.packets(vec![post(0, PostOp::Write, 0)])[0]);
    for (opcode, aeth) in [
        (Opcode::RC_ACK, Some(0x60_00_01_23)),
        (Opcode::RC_READ_RESPONSE_ONLY, Some(0x1F_AB_CD_EF)),
        (Opcode::CNP, None),
    ] {
        let mut frame = base.clone();
        frame.bth.opcode = opcode;
        frame.bth.psn = 0x45_6789;
        frame.ext = ExtRepr::default_for(opcode);
        frame.ext.aeth = aeth.map(crate::wire::aeth::Repr::from_word);
        frame.normalize();
        let outcome = link.deliver_frame(&frame);
        assert_eq!((outcome.verdict, outcome.response), (Verdict::Forwarded, None));
        // the requester reads the packet's PSN and AETH from the decision's response fields
        assert_eq!(
            outcome.forwarded,
            Some(Forwarded {
                opcode: opcode.value(),
                psn: 0x45_6789,
                aeth
            })
        );
        assert_eq!(Decision::of(&outcome, QPN, 0).forwarded_opcode, opcode.value());
        let d = Decision::of(&outcome, QPN, 0);
        assert_eq!((d.forwarded, d.response), (true, false));
        assert_eq!((d.response_psn, d.response_aeth()), (0x45_6789, aeth.unwrap_or(0)));
    }
    assert_eq!(link.responder.counters().forwarded, 3);
    assert_eq!(link.qp().expected_psn, 0);
}

#[test]
fn malformed_records_fail_first() {
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    let frame = link.frame(&link.packets(vec![post(0, PostOp::Write, 64)])[0]).emit();
    let RxResult { record, payload, .. } = rx_model(&frame);
    let record = record.unwrap();
    let cases = [
        (record, &payload[..63]),
        (RxRecord { icrc_ok: None, ..record }, &payload[..]),
        (RxRecord { bth: None, ..record }, &payload[..]),
        (RxRecord { reth: None, ..record }, &payload[..]),
    ];
    for (record, payload) in cases {
        assert_eq!(link.responder.receive(&record, payload).verdict, failed(CheckFailure::Malformed));
    }
    assert_eq!(link.responder.receive(&record, &payload).verdict, EXECUTED);
}

#[test]
fn the_rx_path_fails_dropped_frames_and_skips_passed_ones() {
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    let mut frame = link.frame(&link.packets(vec![post(0, PostOp::Write, 64)])[0]).emit();
    // a frame the front end passes (not IP) has no record and no decision
    let mut not_roce = frame.clone();
    not_roce[12..14].copy_from_slice(&[0x88, 0xb5]);
    assert_eq!(link.responder.receive_rx(&rx_model(&not_roce)), None);
    // a bad ICRC: dropped by the front end, malformed here, counted, nothing written
    let last = frame.len() - 1;
    frame[last] ^= 1;
    let rx = rx_model(&frame);
    assert!(matches!(rx.verdict, RxVerdict::Drop(_)));
    let outcome = link.responder.receive_rx(&rx).unwrap();
    assert_eq!((outcome.verdict, outcome.write), (failed(CheckFailure::Malformed), None));
    assert_eq!(link.responder.counters().failed(CheckFailure::Malformed), 1);
    // the good frame is executed
    frame[last] ^= 1;
    assert_eq!(link.responder.receive_rx(&rx_model(&frame)).unwrap().verdict, EXECUTED);
}

#[test]
fn syndromes_agree_with_the_wire_crate() {
    use crate::wire::aeth::Syndrome as WireSyndrome;
    for byte in 0..=u8::MAX {
        let wire = WireSyndrome::from_byte(byte);
        match Syndrome::decode(byte) {
            Some(Syndrome::Ack { credit }) => assert_eq!(wire, WireSyndrome::Ack { credits: credit }),
            Some(Syndrome::RnrNak { timer }) => assert_eq!(wire, WireSyndrome::RnrNak { timer }),
            Some(Syndrome::Nak(code)) => assert_eq!(wire, WireSyndrome::Nak { code: code.code() }),
            None => assert!(matches!(wire, WireSyndrome::Reserved(_) | WireSyndrome::Nak { code: 5.. })),
        }
    }
}

#[test]
fn setup_errors_are_refused() {
    assert_eq!(Responder::new(0, 64), Err(SetupError::QpCount(0)));
    assert_eq!(Responder::new(256, MAX_REGIONS + 1), Err(SetupError::RegionCount(MAX_REGIONS + 1)));
    let mut responder = Responder::new(16, 4).unwrap();
    let attributes = QpAttributes::from_context(&requester(Transport::Uc, Pmtu::B512)).unwrap();
    assert_eq!(attributes.state, QpState::Rts);
    assert_eq!(responder.add_qp(16, attributes), Err(SetupError::QpNumber(16)));
    let ud = QpAttributes {
        transport: Transport::Ud,
        ..attributes
    };
    assert_eq!(responder.add_qp(1, ud), Err(SetupError::Transport(Transport::Ud)));
    let psn = QpAttributes {
        expected_psn: 1 << 24,
        ..attributes
    };
    assert_eq!(responder.add_qp(1, psn), Err(SetupError::Psn(1 << 24)));
    let timer = QpAttributes {
        min_rnr_timer: 32,
        ..attributes
    };
    assert_eq!(responder.add_qp(1, timer), Err(SetupError::RnrTimer(32)));
    responder.add_qp(1, attributes).unwrap();
    assert_eq!(responder.add_qp(1, attributes), Err(SetupError::QpInUse(1)));
    assert_eq!(responder.post_receive(2, 0, 16), Err(SetupError::QpInReset(2)));
    assert_eq!(responder.post_receive(1, u64::MAX, 2), Err(SetupError::Wraps));
    responder.post_receive(1, u64::MAX - 1, 2).unwrap();
    assert_eq!(
        responder.add_memory_region(region(4 << 8, PD, true)),
        Err(SetupError::RegionIndex(4 << 8))
    );
    let top = MemoryRegion {
        base: u64::MAX - 9,
        length: 10,
        ..region(3 << 8, PD, true)
    };
    responder.add_memory_region(top).unwrap();
    assert_eq!(
        responder.add_memory_region(region(3 << 8 | 1, PD, true)),
        Err(SetupError::RegionInUse(3 << 8 | 1))
    );
    let wraps = MemoryRegion { length: 11, ..top };
    assert_eq!(Responder::default().add_memory_region(wraps), Err(SetupError::Wraps));
    assert_eq!(QpAttributes::from_context(&QpContext::default()), Err(SetupError::PmtuCode(0)));
}

#[test]
fn reset_qp_forgets_state_and_buffers() {
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    link.responder.post_receive(QPN, BUFFER_BASE, 4096).unwrap();
    let packets = link.packets(vec![post(0, PostOp::Send, 600)]);
    link.deliver_all(&packets[..2]);
    assert!(link.qp().message.is_some());
    link.responder.reset_qp(QPN).unwrap();
    assert!(link.responder.qp(QPN).is_none());
    assert_eq!(link.deliver(&packets[2]).verdict, failed(CheckFailure::QpState));
    let attributes = QpAttributes::from_context(&link.requester).unwrap();
    link.responder.add_qp(QPN, attributes).unwrap();
    let qp = link.qp();
    assert_eq!((qp.expected_psn, qp.msn, qp.message, qp.receive_queue.len()), (0, 0, None, 0));
}

/// One transfer of the property test: operation, length, spare bytes in its receive buffer.
fn transfer() -> impl Strategy<Value = (PostOp, u32, u32)> {
    let sends_and_writes = PostOp::ALL.into_iter().filter(|&o| o != PostOp::Read).collect::<Vec<_>>();
    (prop::sample::select(sends_and_writes), 0u32..9000, 0u32..64)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random WRITE and SEND transfers from the TX model (WRITEs as blocks or as one message),
    /// delivered in order, land byte-exact, with one receive completion per SEND and WRITE with
    /// immediate, in order.
    #[test]
    fn random_transfers_land_byte_exact_with_one_completion_each(
        rc in any::<bool>(),
        pmtu in prop::sample::select(Pmtu::ALL.to_vec()),
        start_psn in prop_oneof![Just(PSN_MASK - 3), 0..=PSN_MASK],
        ack_every in 0u8..5,
        transfers in prop::collection::vec(transfer(), 1..8),
    ) {
        let transport = if rc { Transport::Rc } else { Transport::Uc };
        let mut ctx = requester(transport, pmtu);
        ctx.sq_psn = start_psn;
        ctx.ack_every = ack_every;
        let mut link = Link::with(ctx, ack_every);
        // Each transfer is one message (one block: below 64 KiB, aligned remote address).
        let posts: Vec<Post> = transfers.iter().enumerate().map(|(i, &(op, length, _))| post(i as u16, op, length)).collect();
        let mut buffers = Vec::new();
        for (i, (post, &(_, _, spare))) in posts.iter().zip(&transfers).enumerate() {
            let op = post.operation().unwrap();
            if !op.is_write() || op.has_immediate() {
                let buffer = ReceiveBuffer { address: BUFFER_BASE + 0x10_0000 * i as u64, length: post.length + spare };
                link.responder.post_receive(QPN, buffer.address, buffer.length).unwrap();
                buffers.push((*post, buffer));
            }
        }
        let packets = link.packets(posts.clone());
        let outcomes = link.deliver_all(&packets);

        prop_assert!(outcomes.iter().all(Outcome::executed));
        for post in &posts {
            let len = u64::from(post.length);
            if post.operation().unwrap().is_write() {
                prop_assert_eq!(link.written(post.remote_addr, len), link.sent(post, 0..len));
            }
        }
        let completions: Vec<Completion> = outcomes.iter().filter_map(|o| o.completion).collect();
        prop_assert_eq!(completions.len(), buffers.len());
        for (completion, (post, buffer)) in completions.iter().zip(&buffers) {
            let op = post.operation().unwrap();
            prop_assert_eq!(completion.buffer, *buffer);
            prop_assert_eq!((completion.length, completion.status), (post.length, ReceiveStatus::Success));
            prop_assert_eq!(completion.immediate, op.has_immediate().then_some(post.immediate));
            if !op.is_write() {
                let len = u64::from(post.length);
                prop_assert_eq!(link.written(buffer.address, len), link.sent(post, 0..len));
            }
        }
        let acks: Vec<Response> = outcomes.iter().filter_map(|o| o.response).collect();
        if rc {
            prop_assert!(acks.iter().all(|r| r.aeth.syndrome == Syndrome::ack()));
            prop_assert_eq!(acks.last().map(|r| r.psn), packets.last().map(|p| p.bth.psn));
        } else {
            prop_assert!(acks.is_empty());
        }
        let qp = link.qp();
        prop_assert_eq!(qp.msn, posts.len() as u32);
        prop_assert_eq!(qp.expected_psn, (start_psn + packets.len() as u32) & PSN_MASK);
        prop_assert!(qp.message.is_none() && qp.receive_queue.is_empty());
        let total: u64 = posts.iter().map(|p| u64::from(p.length)).sum();
        prop_assert_eq!(link.responder.counters().bytes_executed, total);
    }
}

#[test]
fn decisions_carry_the_outcome_and_round_trip_through_their_words() {
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    link.responder.post_receive(QPN, BUFFER_BASE, 4096).unwrap();
    let (w, s) = (
        post(0, PostOp::Write, 300),
        Post {
            solicited: true,
            ..post(1, PostOp::SendImm, 100)
        },
    );
    let packets = link.packets(vec![w, s]);
    let outcomes = link.deliver_all(&packets);
    assert_eq!(verdicts(&outcomes), [EXECUTED; 3]);
    let decisions: Vec<Decision> = packets
        .iter()
        .zip(&outcomes)
        .map(|(p, o)| Decision::of(o, p.bth.dest_qp, p.payload_len as u16))
        .collect();
    // WRITE first: the write only.
    assert_eq!(
        decisions[0],
        Decision {
            write: true,
            write_address: w.remote_addr,
            write_length: 256,
            qp: QPN,
            ..Decision::default()
        }
    );
    // WRITE last: the write and the ACK of PSN 1, MSN 1.
    let d = decisions[1];
    assert_eq!((d.write_address, d.write_length), (w.remote_addr + 256, 44));
    assert_eq!(
        (d.response, d.response_syndrome, d.response_psn, d.response_msn),
        (true, 0x1F, 1, 1)
    );
    // SEND only with immediate: into the buffer, completed, solicited.
    let d = decisions[2];
    assert_eq!((d.write, d.write_address, d.completion), (true, BUFFER_BASE, true));
    assert_eq!(d.completion_kind, crate::contracts::responder::completion_kind::SEND);
    assert_eq!(
        (d.completion_length, d.completion_buffer_length, d.completion_buffer_address),
        (100, 4096, BUFFER_BASE)
    );
    assert_eq!(
        (d.completion_immediate_valid, d.completion_immediate, d.completion_solicited),
        (true, s.immediate, true)
    );
    assert_eq!(d.completion_status, ReceiveStatus::Success.code());
    // A failure: the code, the NAK, and still the QP and length.
    let mut bad = packets[0];
    bad.bth.psn = 3;
    bad.reth = bad.reth.map(|r| RethRepr { r_key: 0x0942, ..r });
    let outcome = link.deliver(&bad);
    let d = Decision::of(&outcome, QPN, 256);
    assert_eq!(
        (d.failure, d.write, d.write_length, d.qp),
        (CheckFailure::RkeyInvalid.code(), false, 256, QPN)
    );
    assert_eq!((d.response_syndrome, d.response_psn, d.response_msn), (0x62, 3, 2));
    assert!(d.to_string().contains("rkey_invalid") && d.to_string().contains("NAK remote_access_error"));
    // Forwarded.
    let forwarded = Decision::of(&Outcome::of(Verdict::Forwarded), 1 << 24 | 5, 0);
    assert_eq!((forwarded.forwarded, forwarded.failure, forwarded.qp), (true, 0, 5));

    for d in decisions.iter().chain([&d, &forwarded]) {
        let words = d.to_words().unwrap();
        assert_eq!(words.len(), crate::contracts::responder::DECISION_WORDS);
        assert_eq!(Decision::from_words(&words), *d);
    }
    assert_eq!(decision_words(&outcomes[2], QPN, 100), decisions[2].to_words().unwrap());
    let mut other = decisions[2];
    other.completion_length = 99;
    assert_eq!(decisions[2].differences(&other), [("completion_length", 100, 99)]);
}

#[test]
fn counter_values_follow_the_rtl_counter_index() {
    use crate::contracts::responder::ResponderCounter;
    let mut link = Link::new(Transport::Rc, Pmtu::B256);
    let packets = link.packets(vec![post(0, PostOp::Write, 600), post(1, PostOp::Send, 10)]);
    // three WRITE packets, a duplicate, then a SEND without a receive buffer
    let outcomes = link.deliver_all(&[packets[0], packets[1], packets[2], packets[0], packets[3]]);
    assert_eq!(outcomes[4].verdict, failed(CheckFailure::NoReceiveBuffer));
    let counters = link.responder.counters();
    let expected = |c: ResponderCounter| match c {
        ResponderCounter::PacketsExecuted => 3,
        ResponderCounter::Acks => 2,
        ResponderCounter::RnrNaks => 1,
        ResponderCounter::Failures(CheckFailure::PsnDuplicate | CheckFailure::NoReceiveBuffer) => 1,
        _ => 0,
    };
    for c in ResponderCounter::ALL {
        assert_eq!(counters.value(c), expected(c), "{}", c.name());
    }
}

#[test]
fn well_formed_records_are_those_request_of_accepts() {
    let link = Link::new(Transport::Rc, Pmtu::B256);
    let frame = link.frame(&link.packets(vec![post(0, PostOp::Write, 64)])[0]).emit();
    let record = rx_model(&frame).record.unwrap();
    assert!(is_well_formed(&record));
    for bad in [
        RxRecord { icrc_ok: None, ..record },
        RxRecord {
            icrc_ok: Some(false),
            ..record
        },
        RxRecord { bth: None, ..record },
        RxRecord { reth: None, ..record },
        RxRecord {
            immdt: Some(crate::wire::immdt::Repr { imm: 1 }),
            ..record
        },
    ] {
        assert!(!is_well_formed(&bad));
    }
    // the payload length is the record's: any length is well formed
    assert!(is_well_formed(&RxRecord {
        payload_len: 5000,
        ..record
    }));
}

mod read;
