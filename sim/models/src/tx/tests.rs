//! Unit tests of the TX model, one or more per rule of `docs/tx.md`.

use super::frame::frame_repr;
use super::qos::{backlogged_bytes, deviation_from_weights};
use super::spec::{parse_block_size, parse_posts, setup_of, TransferSpec, KEYS};
use super::*;
use crate::contracts::tx::{Pmtu, PACKET, POST, QP_CONTEXT};
use crate::wire::opcode::{Operation, Transport};
use crate::wire::{IpRepr, Opcode, RoceFrame};

const V4_SRC: u128 = 0x0a00_0001;
const V4_DST: u128 = 0x0a00_0002;

/// An RTS context of `transport` and `pmtu` (IPv4, DestQP 0x12, rkey 0xabcd).
fn rts(transport: Transport, pmtu: Pmtu) -> QpContext {
    QpContext {
        state: QpState::Rts.code(),
        transport: transport.bits(),
        pmtu: pmtu.code(),
        dest_qpn: 0x12,
        rkey: 0xabcd,
        pkey: 0xffff,
        ttl: 64,
        src_ip: V4_SRC,
        dst_ip: V4_DST,
        src_mac: 0x0200_0000_0001,
        dst_mac: 0x0200_0000_0002,
        udp_sport: 0xc123,
        ..QpContext::default()
    }
}

fn post(channel: u16, queue: u8, qp: u32, op: PostOp, length: u32) -> Post {
    Post {
        channel,
        queue,
        op: op.code(),
        qp,
        length,
        local_addr: 0x10_0000 * (u64::from(channel) + 1),
        ..Post::default()
    }
}

/// A setup with blocks of 2^`block_log2` bytes, context `ctx` on QPs 1 and 2, and `posts`.
fn setup(block_log2: u32, ctx: QpContext, posts: Vec<Post>) -> TxSetup {
    let mut s = TxSetup {
        block_log2,
        posts,
        ..TxSetup::default()
    };
    s.contexts.insert(1, ctx);
    s.contexts.insert(2, ctx);
    s
}

fn plan(s: &TxSetup) -> TxPlan {
    TxModel::plan(s).unwrap()
}

fn ops(p: &[TxPacket]) -> Vec<Operation> {
    p.iter().map(|p| p.bth.opcode.operation()).collect()
}

fn lens(p: &[TxPacket]) -> Vec<u32> {
    p.iter().map(|p| p.payload_len).collect()
}

#[test]
fn write_blocks_align_to_the_remote_address() {
    let mut w = post(0, 1, 1, PostOp::Write, 10_000);
    w.remote_addr = 0x1f00; // 256 bytes before a 4 KiB boundary
    let p = plan(&setup(12, rts(Transport::Rc, Pmtu::B4096), vec![w])).packets;
    let reths: Vec<(u64, u32)> = p.iter().filter_map(|p| p.reth).map(|r| (r.va, r.dma_len)).collect();
    assert_eq!(reths, [(0x1f00, 256), (0x2000, 4096), (0x3000, 4096), (0x4000, 1552)]);
    assert!(p.iter().all(|p| p.reth.is_none_or(|r| r.r_key == 0xabcd)));
    // one WRITE message per block
    assert_eq!(ops(&p), [Operation::WriteOnly; 4]);
    assert_eq!(lens(&p), [256, 4096, 4096, 1552]);
    // the local address follows the remote one
    assert_eq!(
        p.iter().map(|p| p.local_addr - w.local_addr).collect::<Vec<_>>(),
        [0, 256, 4352, 8448]
    );
}

#[test]
fn a_paced_queue_is_cut_a_pmtu_at_a_time_each_group_charged() {
    // queue 1 paced: its WRITE in 1 KiB groups aligned to the remote address, each its own
    // message; its WRITE message in 1 KiB groups of one message; queue 2's WRITE in blocks
    let mut w = post(0, 1, 1, PostOp::Write, 3000);
    w.remote_addr = 0x1f00;
    let mut m = post(1, 1, 2, PostOp::WriteImmMessage, 2500);
    m.remote_addr = 0x9_0000;
    let mut bulk = post(2, 2, 1, PostOp::Write, 5000);
    bulk.remote_addr = 0x5_0000;
    let mut s = setup(12, rts(Transport::Uc, Pmtu::B1024), vec![w, m, bulk]);
    s.pace_costs.insert(1, 1 << 24);
    let plan = plan(&s);
    let of = |channel: u16| plan.packets.iter().filter(|p| p.channel == channel).collect::<Vec<_>>();
    let write: Vec<(u64, u32)> = of(0).iter().map(|p| (p.reth.unwrap().va, p.payload_len)).collect();
    assert_eq!(write, [(0x1f00, 256), (0x2000, 1024), (0x2400, 1024), (0x2800, 696)]);
    assert_eq!(
        ops(&of(1).into_iter().cloned().collect::<Vec<_>>()),
        [Operation::WriteFirst, Operation::WriteMiddle, Operation::WriteLastImm]
    );
    assert_eq!(lens(&of(2).into_iter().cloned().collect::<Vec<_>>()), [1024, 1024, 1024, 1024, 904]);
    // the charges: queue 1's groups in cut order, none for queue 2
    let mut charged: Vec<u32> = plan
        .charges
        .iter()
        .map(|&(q, b)| {
            assert_eq!(q, 1);
            b
        })
        .collect();
    charged.sort_unstable();
    let mut groups = vec![256, 1024, 1024, 696, 1024, 1024, 452];
    groups.sort_unstable();
    assert_eq!(charged, groups);
}

#[test]
fn a_read_is_one_request_per_block_taking_its_response_s_psns() {
    // 10,000 bytes from 0x1f00 in 4 KiB blocks at PMTU 1024: four READ requests, each with
    // its block's RETH and AckReq, each taking ⌈len / PMTU⌉ PSNs; a WRITE after it goes on from
    // there, and an empty READ takes one PSN
    let mut r = post(0, 1, 1, PostOp::Read, 10_000);
    r.remote_addr = 0x1f00;
    let mut ctx = rts(Transport::Rc, Pmtu::B1024);
    ctx.sq_psn = 0xFF_FFFE;
    let w = post(1, 1, 1, PostOp::Write, 100);
    let empty = post(2, 1, 1, PostOp::Read, 0);
    let p = plan(&setup(12, ctx, vec![r, w, empty])).packets;
    let reads: Vec<_> = p.iter().filter(|p| p.channel == 0).collect();
    assert!(reads
        .iter()
        .all(|p| p.bth.opcode == Opcode::RC_READ_REQUEST && p.bth.ack_req && p.payload_len == 0));
    let reths: Vec<(u64, u32)> = reads.iter().filter_map(|p| p.reth).map(|r| (r.va, r.dma_len)).collect();
    assert_eq!(reths, [(0x1f00, 256), (0x2000, 4096), (0x3000, 4096), (0x4000, 1552)]);
    let spans: Vec<u32> = reads.iter().map(|p| p.last_psn.wrapping_sub(p.bth.psn) & 0xFF_FFFF).collect();
    assert_eq!(spans, [0, 3, 3, 1]);
    assert_eq!(
        reads.iter().map(|p| p.local_addr - r.local_addr).collect::<Vec<_>>(),
        [0, 256, 4352, 8448],
        "each block's response lands where its bytes go"
    );
    let empty = p.iter().find(|p| p.channel == 2).unwrap();
    assert_eq!((empty.bth.opcode, empty.last_psn), (Opcode::RC_READ_REQUEST, empty.bth.psn));
    // on the QP, each packet's PSN follows the last one the packet before it took
    assert_eq!(p[0].bth.psn, 0xFF_FFFE);
    for pair in p.windows(2) {
        assert_eq!(pair[1].bth.psn, (pair[0].last_psn + 1) & 0xFF_FFFF, "{pair:?}");
    }
    assert!(p
        .iter()
        .filter(|p| p.bth.opcode == Opcode::RC_READ_REQUEST)
        .all(|p| p.descriptor(false).len() == 9));
}

#[test]
fn packets_are_cut_from_the_message_start() {
    // A WRITE block unaligned to the PMTU: first and middle packets are still exactly PMTU.
    let mut w = post(0, 1, 1, PostOp::Write, 2_501);
    w.remote_addr = 0x10;
    let p = plan(&setup(16, rts(Transport::Uc, Pmtu::B1024), vec![w])).packets;
    assert_eq!(lens(&p), [1024, 1024, 453]);
    assert_eq!(ops(&p), [Operation::WriteFirst, Operation::WriteMiddle, Operation::WriteLast]);
    assert_eq!(p.iter().map(|p| p.bth.pad_cnt).collect::<Vec<_>>(), [0, 0, 3]);
    assert_eq!(p[0].reth.unwrap().dma_len, 2_501);
    assert!(p[1..].iter().all(|p| p.reth.is_none()));
    assert!(p.iter().all(|p| p.bth.opcode.transport() == Transport::Uc));
    // The same on a SEND, whose packets carry no RETH.
    let s = post(0, 1, 1, PostOp::Send, 2_050);
    let p = plan(&setup(16, rts(Transport::Rc, Pmtu::B1024), vec![s])).packets;
    assert_eq!(lens(&p), [1024, 1024, 2]);
    assert_eq!(ops(&p), [Operation::SendFirst, Operation::SendMiddle, Operation::SendLast]);
    assert_eq!(p[2].bth.pad_cnt, 2);
    assert!(p.iter().all(|p| p.reth.is_none() && p.immediate.is_none()));
}

#[test]
fn psn_wraps_and_continues_across_transfers() {
    let mut ctx = rts(Transport::Rc, Pmtu::B256);
    ctx.sq_psn = 0xff_fffe;
    let posts = vec![
        post(0, 1, 1, PostOp::Write, 700),
        post(1, 1, 1, PostOp::Send, 300),
        post(2, 1, 2, PostOp::Send, 0),
    ];
    let p = plan(&setup(12, ctx, posts)).packets;
    let psns: Vec<(u32, u32)> = p.iter().map(|p| (p.qp, p.bth.psn)).collect();
    assert_eq!(psns, [(1, 0xff_fffe), (1, 0xff_ffff), (1, 0), (1, 1), (1, 2), (2, 0xff_fffe)]);
}

#[test]
fn ack_req_on_last_packets_and_every_n_since_the_last() {
    let mut ctx = rts(Transport::Rc, Pmtu::B256);
    ctx.ack_every = 3;
    // 8 packets, then 2, then 4 (one WRITE block each: 64 KiB blocks)
    let posts = vec![
        post(0, 1, 1, PostOp::Write, 8 * 256),
        post(1, 1, 1, PostOp::Write, 2 * 256),
        post(2, 1, 1, PostOp::Send, 4 * 256),
    ];
    let p = plan(&setup(16, ctx, posts.clone())).packets;
    let acks: Vec<bool> = p.iter().map(|p| p.bth.ack_req).collect();
    let want = [
        [false, false, true, false, false, true, false, true].as_slice(),
        &[false, true],
        &[false, false, true, true],
    ]
    .concat();
    assert_eq!(acks, want);
    // N = 0: last packets only; UC: never.
    ctx.ack_every = 0;
    let p = plan(&setup(16, ctx, posts.clone())).packets;
    let lasts: Vec<usize> = p.iter().enumerate().filter(|(_, p)| p.bth.ack_req).map(|(i, _)| i).collect();
    assert_eq!(lasts, [7, 9, 13]);
    ctx.transport = Transport::Uc.bits();
    ctx.ack_every = 1;
    assert!(plan(&setup(16, ctx, posts)).packets.iter().all(|p| !p.bth.ack_req));
}

#[test]
fn ack_req_on_the_last_packet_of_every_group_of_a_send() {
    // A SEND of 3 groups of 4 KiB (16 packets of 256 bytes each). Each group ends with AckReq
    // (it waits in the send history for its ACK), with or without `ack_every`; N = 10 adds
    // AckReq on the 10th packet since the last one with it.
    let mut ctx = rts(Transport::Rc, Pmtu::B256);
    let posts = vec![post(0, 1, 1, PostOp::Send, 3 * 4096)];
    let acks = |ctx: QpContext| -> Vec<usize> {
        let p = plan(&setup(12, ctx, posts.clone())).packets;
        p.iter().enumerate().filter(|(_, p)| p.bth.ack_req).map(|(i, _)| i + 1).collect()
    };
    assert_eq!(acks(ctx), [16, 32, 48]);
    ctx.ack_every = 10;
    assert_eq!(acks(ctx), [10, 16, 26, 32, 42, 48]);
    ctx.ack_every = 20;
    assert_eq!(acks(ctx), [16, 32, 48]);
}

#[test]
fn immediate_on_the_last_block_by_default() {
    let mut w = post(0, 1, 1, PostOp::WriteImm, 3 * 4096 - 10);
    w.immediate = 0xffff_ffff;
    w.solicited = true;
    let p = plan(&setup(12, rts(Transport::Uc, Pmtu::B4096), vec![w])).packets;
    assert_eq!(ops(&p), [Operation::WriteOnly, Operation::WriteOnly, Operation::WriteOnlyImm]);
    assert_eq!(p.iter().map(|p| p.immediate).collect::<Vec<_>>(), [None, None, Some(0xffff_ffff)]);
    assert_eq!(p.iter().map(|p| p.bth.solicited).collect::<Vec<_>>(), [false, false, true]);
}

#[test]
fn immediate_on_every_block_is_the_post_s_plus_the_block_index() {
    let mut w = post(0, 1, 1, PostOp::WriteImm, 3 * 4096);
    w.remote_addr = 0x800; // 4 blocks: 2048, 4096, 4096, 2048
    w.immediate = 0xffff_fffe;
    w.imm_every_block = true;
    w.solicited = true;
    let p = plan(&setup(12, rts(Transport::Uc, Pmtu::B2048), vec![w])).packets;
    use Operation::*;
    assert_eq!(
        ops(&p),
        [WriteOnlyImm, WriteFirst, WriteLastImm, WriteFirst, WriteLastImm, WriteOnlyImm]
    );
    let imms: Vec<Option<u32>> = p.iter().map(|p| p.immediate).collect();
    assert_eq!(imms, [Some(0xffff_fffe), None, Some(0xffff_ffff), None, Some(0), Some(1)]);
    let se: Vec<bool> = p.iter().map(|p| p.bth.solicited).collect();
    assert_eq!(se, [true, false, true, false, true, true]);
    // imm_every_block means nothing to a WRITE without immediate; SE needs an immediate there.
    let mut plain = w;
    plain.op = PostOp::Write.code();
    let p = plan(&setup(12, rts(Transport::Uc, Pmtu::B2048), vec![plain])).packets;
    assert!(p.iter().all(|p| p.immediate.is_none() && !p.bth.solicited));
}

#[test]
fn send_immediate_and_solicited_go_on_the_message_s_last_packet() {
    let mut s = post(0, 1, 1, PostOp::SendImm, 9000);
    s.immediate = 7;
    s.solicited = true;
    let p = plan(&setup(12, rts(Transport::Rc, Pmtu::B4096), vec![s])).packets;
    assert_eq!(ops(&p), [Operation::SendFirst, Operation::SendMiddle, Operation::SendLastImm]);
    assert_eq!(
        p.iter().map(|p| (p.immediate, p.bth.solicited)).collect::<Vec<_>>(),
        [(None, false), (None, false), (Some(7), true)]
    );
    let mut plain = s;
    plain.op = PostOp::Send.code();
    let p = plan(&setup(12, rts(Transport::Rc, Pmtu::B4096), vec![plain])).packets;
    assert_eq!(p.iter().map(|p| p.bth.solicited).collect::<Vec<_>>(), [false, false, true]);
}

#[test]
fn zero_length_is_one_packet_without_payload() {
    use Operation::*;
    for (op, want) in [
        (PostOp::Send, SendOnly),
        (PostOp::SendImm, SendOnlyImm),
        (PostOp::Write, WriteOnly),
        (PostOp::WriteImm, WriteOnlyImm),
        (PostOp::WriteMessage, WriteOnly),
        (PostOp::WriteImmMessage, WriteOnlyImm),
    ] {
        let mut z = post(3, 1, 1, op, 0);
        z.remote_addr = 0x1234;
        let s = setup(16, rts(Transport::Rc, Pmtu::B1024), vec![z]);
        let pl = plan(&s);
        assert_eq!(ops(&pl.packets), [want], "{op:?}");
        let p = pl.packets[0];
        assert_eq!((p.payload_len, p.bth.pad_cnt, p.bth.ack_req), (0, 0, true), "{op:?}");
        assert_eq!(p.reth.map(|r| (r.va, r.dma_len)), op.is_write().then_some((0x1234, 0)), "{op:?}");
        assert_eq!(pl.completions, [(3, CompletionStatus::Success)]);
        let frame = TxModel.run(&s).unwrap().frames.remove(0);
        assert_eq!(frame.len(), p.frame_len(false));
        if op == PostOp::Send {
            assert_eq!(frame.len(), 60, "58 bytes padded to the Ethernet minimum");
        }
    }
}

#[test]
fn send_groups_are_scheduled_like_blocks() {
    // Queue 1: a SEND of 3 groups on QP 1; queue 2: a WRITE of 3 blocks on QP 2; weights 1:1.
    let posts = vec![post(0, 1, 1, PostOp::Send, 3 * 4096), post(1, 2, 2, PostOp::Write, 3 * 4096)];
    let p = plan(&setup(12, rts(Transport::Rc, Pmtu::B4096), posts)).packets;
    assert_eq!(p.iter().map(|p| p.channel).collect::<Vec<_>>(), [0, 1, 0, 1, 0, 1]);
    let send: Vec<Operation> = p.iter().filter(|p| p.channel == 0).map(|p| p.bth.opcode.operation()).collect();
    assert_eq!(
        send,
        [Operation::SendFirst, Operation::SendMiddle, Operation::SendLast],
        "still one message"
    );
}

#[test]
fn a_send_in_progress_holds_its_qp() {
    // Two channels post on QP 1: a SEND of 3 groups (queue 1) and a WRITE of 2 blocks (queue
    // 2). The WRITE is picked between the SEND's groups but cuts nothing until the SEND is done.
    let posts = vec![post(0, 1, 1, PostOp::Send, 3 * 4096), post(1, 2, 1, PostOp::Write, 2 * 4096)];
    let pl = plan(&setup(12, rts(Transport::Rc, Pmtu::B2048), posts));
    let by_channel: Vec<u16> = pl.packets.iter().map(|p| p.channel).collect();
    assert_eq!(by_channel, [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]);
    let psns: Vec<u32> = pl.packets.iter().map(|p| p.bth.psn).collect();
    assert_eq!(psns, (0..10).collect::<Vec<_>>());
    assert_eq!(pl.completions, [(0, CompletionStatus::Success), (1, CompletionStatus::Success)]);
    // WRITE blocks of two channels on one QP interleave by block: each block is a message.
    let posts = vec![post(0, 1, 1, PostOp::Write, 2 * 4096), post(1, 2, 1, PostOp::Write, 2 * 4096)];
    let pl = plan(&setup(12, rts(Transport::Rc, Pmtu::B2048), posts));
    assert_eq!(pl.packets.iter().map(|p| p.channel).collect::<Vec<_>>(), [0, 0, 1, 1, 0, 0, 1, 1]);
}

#[test]
fn a_qps_messages_leave_in_post_order_across_queues_and_holds() {
    // Six messages on QP 1 over three queues, some of several groups: whichever queue a
    // decision serves, a message waits for the ones posted before it on its QP.
    let ops = [PostOp::Send, PostOp::WriteImmMessage, PostOp::SendImm, PostOp::WriteMessage];
    let posts: Vec<Post> = (0..6u16)
        .map(|c| {
            let mut p = post(c, 3 - (c % 3) as u8, 1, ops[usize::from(c) % 4], (1 + u32::from(c % 3)) * 4096 - 8);
            p.remote_addr = 0x10_0000 * u64::from(c);
            p
        })
        .collect();
    let pl = plan(&setup(12, rts(Transport::Rc, Pmtu::B1024), posts));
    let completed: Vec<u16> = pl.completions.iter().map(|&(c, _)| c).collect();
    assert_eq!(completed, [0, 1, 2, 3, 4, 5]);
    let mut first_packets: Vec<u16> = pl.packets.iter().map(|p| p.channel).collect();
    first_packets.dedup();
    assert_eq!(first_packets, [0, 1, 2, 3, 4, 5], "each message whole");
}

#[test]
fn control_queue_transfers_wait_in_their_qps_line() {
    // A SEND of three groups on QP 1 in a data queue, then a SEND and a WRITE of two blocks on
    // QP 1 in the control queue, and a SEND on QP 2 there: the control queue is served first,
    // but QP 1's control transfers wait (off the scheduler) for the message posted before them;
    // QP 2's goes at once. Without the line, QP 1's would go first, and one posted while the
    // message is in progress would go round the control queue for ever.
    let posts = vec![
        post(0, 1, 1, PostOp::Send, 3 * 4096 - 8),
        post(1, 0, 1, PostOp::Send, 100),
        post(2, 0, 1, PostOp::Write, 2 * 4096),
        post(3, 0, 2, PostOp::Send, 100),
    ];
    let pl = plan(&setup(12, rts(Transport::Rc, Pmtu::B1024), posts));
    let completed: Vec<u16> = pl.completions.iter().map(|&(c, _)| c).collect();
    assert_eq!(completed, [3, 0, 1, 2]);
    let mut order: Vec<u16> = pl.packets.iter().map(|p| p.channel).collect();
    order.dedup();
    assert_eq!(order, [3, 0, 1, 2], "each whole, QP 1's in post order");
}

#[test]
fn a_transfer_posted_behind_a_message_waits_for_it() {
    // SEND, SEND, WRITE with immediate on one QP in one queue, each one group: the second SEND
    // waits in the line, and the WRITE, posted while the line is not empty, behind it (it would
    // otherwise be served before the SEND, enqueued when the first is cut, and the receiver's
    // completions would come out of post order). Two WRITEs of two blocks posted while the line
    // is empty interleave their blocks, as before.
    let posts = vec![
        post(0, 1, 1, PostOp::Send, 100),
        post(1, 1, 1, PostOp::Send, 100),
        post(2, 1, 1, PostOp::WriteImm, 100),
    ];
    let pl = plan(&setup(12, rts(Transport::Rc, Pmtu::B1024), posts));
    assert_eq!(pl.completions.iter().map(|&(c, _)| c).collect::<Vec<_>>(), [0, 1, 2]);
    let posts = vec![post(0, 1, 1, PostOp::Write, 2 * 4096), post(1, 1, 1, PostOp::Write, 2 * 4096)];
    let pl = plan(&setup(12, rts(Transport::Rc, Pmtu::B4096), posts));
    assert_eq!(pl.packets.iter().map(|p| p.channel).collect::<Vec<_>>(), [0, 1, 0, 1]);
}

#[test]
fn a_write_as_one_message_is_cut_into_groups_and_holds_its_qp() {
    use Operation::*;
    // 3 groups of 4 KiB from an unaligned remote address (a WRITE would be cut at its block
    // boundaries), with a WRITE on the same QP in another queue: one message, whole.
    let mut w = post(0, 1, 1, PostOp::WriteImmMessage, 2 * 4096 + 100);
    (w.remote_addr, w.immediate, w.solicited, w.imm_every_block) = (0x7_0F00, 0x55, true, true);
    let posts = vec![w, post(1, 2, 1, PostOp::Write, 4096)];
    let pl = plan(&setup(12, rts(Transport::Uc, Pmtu::B2048), posts));
    let message: Vec<&TxPacket> = pl.packets.iter().filter(|p| p.channel == 0).collect();
    assert_eq!(
        message.iter().map(|p| p.bth.opcode.operation()).collect::<Vec<_>>(),
        [WriteFirst, WriteMiddle, WriteMiddle, WriteMiddle, WriteLastImm]
    );
    assert_eq!(
        message
            .iter()
            .map(|p| p.reth.map(|r| (r.va, r.r_key, r.dma_len)))
            .collect::<Vec<_>>(),
        [Some((0x7_0F00, 0xabcd, 2 * 4096 + 100)), None, None, None, None]
    );
    assert_eq!(
        message.iter().map(|p| (p.immediate, p.bth.solicited)).collect::<Vec<_>>(),
        [(None, false), (None, false), (None, false), (None, false), (Some(0x55), true)],
        "one immediate (imm_every_block is for blocks), SE with it"
    );
    assert_eq!(
        pl.packets.iter().map(|p| p.channel).collect::<Vec<_>>(),
        [0, 0, 0, 0, 0, 1, 1],
        "the other transfer on the QP waits for the message's last group"
    );
    // Without an immediate: no SE.
    let mut plain = w;
    plain.op = PostOp::WriteMessage.code();
    let p = plan(&setup(12, rts(Transport::Rc, Pmtu::B4096), vec![plain])).packets;
    assert_eq!(ops(&p), [WriteFirst, WriteMiddle, WriteLast]);
    assert_eq!(
        p.iter().map(|p| (p.immediate, p.bth.solicited)).collect::<Vec<_>>(),
        [(None, false); 3]
    );
}

#[test]
fn posts_are_refused_in_the_order_of_the_checks() {
    let mut s = setup(16, rts(Transport::Rc, Pmtu::B1024), vec![]);
    s.channels = 8;
    s.queues = 4;
    s.qps = 16;
    s.contexts.insert(
        3,
        QpContext {
            state: QpState::Init.code(),
            ..rts(Transport::Rc, Pmtu::B1024)
        },
    );
    s.contexts.insert(
        4,
        QpContext {
            pmtu: 0,
            ..rts(Transport::Rc, Pmtu::B1024)
        },
    );
    s.contexts.insert(
        5,
        QpContext {
            transport: Transport::Ud.bits(),
            ..rts(Transport::Rc, Pmtu::B1024)
        },
    );
    s.contexts.insert(6, rts(Transport::Uc, Pmtu::B1024));
    let ok = post(0, 1, 1, PostOp::Write, 10);
    let long = 1 << 31;
    let cases: Vec<(Post, Result<PostOp, PostError>)> = vec![
        (ok, Ok(PostOp::Write)),
        (
            Post {
                channel: 8,
                queue: 4,
                ..ok
            },
            Err(PostError::BadChannel),
        ),
        (Post { channel: 7, ..ok }, Err(PostError::BadChannel)), // the responder's
        (Post { queue: 4, qp: 16, ..ok }, Err(PostError::BadQueue)),
        (Post { qp: 16, ..ok }, Err(PostError::BadQp)),
        (Post { qp: 9, ..ok }, Err(PostError::QpNotReady)), // no context: reset
        (Post { qp: 3, op: 7, ..ok }, Err(PostError::QpNotReady)),
        (Post { qp: 4, ..ok }, Err(PostError::QpNotReady)), // invalid PMTU code
        (Post { op: 5, ..ok }, Err(PostError::BadOperation)),
        (Post { qp: 5, ..ok }, Err(PostError::BadOperation)), // UD QP
        (Post { op: 4, ..ok }, Ok(PostOp::Read)),
        (Post { op: 4, qp: 6, ..ok }, Err(PostError::BadOperation)), // a READ on a UC QP
        (post(0, 1, 1, PostOp::Read, long as u32 + 1), Err(PostError::TooLong)),
        (post(0, 1, 1, PostOp::Send, long as u32), Ok(PostOp::Send)),
        (post(0, 1, 1, PostOp::SendImm, long as u32 + 1), Err(PostError::TooLong)),
        (post(0, 1, 1, PostOp::Write, u32::MAX), Ok(PostOp::Write)),
        (Post { op: 6, qp: 6, ..ok }, Ok(PostOp::WriteMessage)), // UC too
        (post(0, 1, 1, PostOp::WriteImmMessage, long as u32), Ok(PostOp::WriteImmMessage)),
        (post(0, 1, 1, PostOp::WriteMessage, long as u32 + 1), Err(PostError::TooLong)),
    ];
    for (p, want) in cases {
        assert_eq!(s.admit(&p, false), want, "{p:?}");
    }
    assert_eq!(
        s.admit(&Post { op: 5, ..ok }, true),
        Err(PostError::BadOperation),
        "busy is checked last"
    );
    // In a run: a second post on a busy channel is refused and the first transfer is untouched.
    s.posts = vec![
        post(2, 1, 1, PostOp::Write, 5000),
        post(2, 2, 2, PostOp::Send, 10),
        post(2, 9, 1, PostOp::Send, 1),
    ];
    let pl = plan(&s);
    assert_eq!(pl.post_results, [Ok(()), Err(PostError::ChannelBusy), Err(PostError::BadQueue)]);
    assert_eq!(lens(&pl.packets), [1024, 1024, 1024, 1024, 904]);
    assert_eq!(pl.completions, [(2, CompletionStatus::Success)]);
}

#[test]
fn blocks_follow_the_weights_and_control_goes_first() {
    // Queues 1, 2, 3 with weights 1, 2, 5: one 4 KiB packet per block.
    let mut s = setup(12, rts(Transport::Uc, Pmtu::B4096), vec![]);
    for (q, w) in [(1, 1), (2, 2), (3, 5)] {
        s.queue_config.insert(
            q,
            QueueCfg {
                weight: w,
                ..QueueCfg::default()
            },
        );
        s.posts.push(post(q as u16, q as u8, 1, PostOp::Write, 64 * 4096));
    }
    s.posts.push(post(9, 0, 2, PostOp::Write, 2 * 4096)); // control, posted last
    let p = plan(&s).packets;
    let queues: Vec<u8> = p.iter().take(2 + 24).map(|p| p.queue).collect();
    let round = [1, 2, 2, 3, 3, 3, 3, 3];
    assert_eq!(queues, [&[0, 0][..], &round, &round, &round].concat());
}

#[test]
fn transfers_in_a_queue_that_is_never_served_stay_busy() {
    let mut s = setup(12, rts(Transport::Uc, Pmtu::B4096), vec![]);
    s.queue_config.insert(
        2,
        QueueCfg {
            weight: 0,
            ..QueueCfg::default()
        },
    );
    s.queue_config.insert(
        3,
        QueueCfg {
            tb_en: true,
            rate: 0,
            burst: 4,
            ..QueueCfg::default()
        },
    );
    s.queue_config.insert(
        4,
        QueueCfg {
            tb_en: true,
            rate: 64,
            burst: 2,
            ..QueueCfg::default()
        },
    );
    s.posts = vec![
        post(1, 2, 1, PostOp::Write, 100),
        post(2, 3, 1, PostOp::Write, 100),
        post(3, 4, 1, PostOp::Write, 3 * 4096),
    ];
    let pl = plan(&s);
    assert_eq!(pl.post_results, [Ok(()), Ok(()), Ok(())]);
    assert_eq!(
        pl.completions,
        [(3, CompletionStatus::Success)],
        "only the rate-limited queue is served"
    );
    assert_eq!(pl.packets.len(), 3);
}

#[test]
fn frames_carry_the_context_and_parse_back() {
    let mut ctx = rts(Transport::Rc, Pmtu::B512);
    ctx.dscp = 26;
    ctx.ecn = 2;
    ctx.ttl = 9;
    let mut w = post(0, 1, 1, PostOp::WriteImm, 1000);
    w.immediate = 0x1234_5678;
    w.remote_addr = 0xdead_0000;
    let mut s = setup(16, ctx, vec![w]);
    let mut v6 = ctx;
    v6.ip_v6 = true;
    v6.src_ip = 0xfe80_0000_0000_0000_0000_0000_0000_0001;
    v6.dst_ip = 0x2001_0db8_0000_0000_0000_0000_0000_0002;
    v6.flow_label = 0xabcde;
    s.contexts.insert(2, v6);
    s.posts.push(Post { qp: 2, channel: 1, ..w });
    let run = TxModel.run(&s).unwrap();
    let pl = plan(&s);
    assert_eq!(run.frames.len(), 4);
    for (frame, p) in run.frames.iter().zip(&pl.packets) {
        let ctx = s.context(p.qp);
        assert_eq!(frame.len(), p.frame_len(ctx.ip_v6));
        let f = RoceFrame::parse(frame).unwrap();
        assert_eq!(f, frame_repr(p, &ctx, s.memory.as_ref()));
        assert_eq!(f.payload, s.memory.bytes(p.local_addr, p.payload_len as usize));
        assert_eq!((f.udp_src_port, f.udp_checksum, f.bth), (0xc123, 0, p.bth));
        assert_eq!((f.eth.src, f.eth.dst), ([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]));
        match f.ip {
            IpRepr::V4(ip) => {
                assert!(!ctx.ip_v6);
                assert_eq!((ip.tos, ip.ttl, ip.ident, ip.dont_frag), (26 << 2 | 2, 9, 0, true));
                assert_eq!((u32::from(ip.src), u32::from(ip.dst)), (V4_SRC as u32, V4_DST as u32));
            }
            IpRepr::V6(ip) => {
                assert!(ctx.ip_v6);
                assert_eq!((ip.traffic_class, ip.hop_limit, ip.flow_label), (26 << 2 | 2, 9, 0xabcde));
                assert_eq!(u128::from(ip.dst), v6.dst_ip);
            }
        }
    }
    let total: u64 = run.frames.iter().map(|f| f.len() as u64).sum();
    assert_eq!(run.queue_bytes[1], total);
    assert_eq!(run.bytes(), total);
}

#[test]
fn record_views_follow_the_schemas() {
    for (schema, names, max) in [
        (
            QP_CONTEXT,
            QpContext::default().values(),
            QpContext::from_words(&[u32::MAX; 32]).values(),
        ),
        (POST, Post::default().values(), Post::from_words(&[u32::MAX; 32]).values()),
    ] {
        let want: Vec<&str> = schema.fields.iter().map(|f| f.name).collect();
        assert_eq!(names.iter().map(|v| v.0).collect::<Vec<_>>(), want);
        for (f, (_, v)) in schema.fields.iter().zip(max) {
            assert_eq!(v, f.max(), "{}: the Rust type holds the whole field", f.name);
        }
    }
    let ctx = QpContext {
        src_mac: 0x0102_0304_0506,
        dst_ip: 7 << 100,
        sq_psn: 0xff_ffff,
        ..rts(Transport::Uc, Pmtu::B256)
    };
    assert_eq!(QpContext::from_words(&ctx.to_words().unwrap()), ctx);
    assert!(QpContext { state: 8, ..ctx }.to_words().is_err());
    let p = Post {
        immediate: 9,
        remote_addr: u64::MAX,
        ..post(65535, 31, 0xff_ffff, PostOp::WriteImm, 3)
    };
    assert_eq!(Post::from_words(&p.to_words().unwrap()), p);
}

#[test]
fn pattern_memory_reads_the_same_bytes_whatever_the_alignment() {
    let m = PatternMemory::new(42);
    let bytes: Vec<u8> = (0..40u64).map(|a| m.byte((u64::MAX - 20).wrapping_add(a))).collect();
    for start in 0..8 {
        assert_eq!(
            m.bytes((u64::MAX - 20).wrapping_add(start), 30),
            bytes[start as usize..start as usize + 30]
        );
    }
    assert_ne!(m.bytes(0, 16), PatternMemory::new(43).bytes(0, 16));
    let mut s = SparseMemory::new();
    s.write(u64::MAX, &[1, 2]);
    assert_eq!(s.bytes(u64::MAX - 1, 4), [0, 1, 2, 0]);
}

#[test]
fn setup_errors_are_typed() {
    let base = TxSetup::default();
    assert_eq!(
        TxModel::plan(&TxSetup {
            block_log2: 11,
            ..base.clone()
        }),
        Err(TxError::BlockSize(11))
    );
    assert_eq!(
        TxModel::plan(&TxSetup {
            channels: 0,
            ..base.clone()
        }),
        Err(TxError::Channels(0))
    );
    assert_eq!(
        TxModel::plan(&TxSetup {
            queues: 33,
            ..base.clone()
        }),
        Err(TxError::Queues(33))
    );
    assert_eq!(TxModel::plan(&TxSetup { qps: 0, ..base.clone() }), Err(TxError::Qps(0)));
    let mut s = base.clone();
    s.contexts.insert(256, QpContext::default());
    assert_eq!(TxModel::plan(&s), Err(TxError::ContextBeyondQps(256)));
    let mut s = TxSetup { queues: 4, ..base };
    s.queue_config.insert(4, QueueCfg::default());
    assert_eq!(TxModel::plan(&s), Err(TxError::ConfigBeyondQueues(4)));
}

#[test]
fn backlogged_window_ends_when_the_first_queue_runs_dry() {
    let frames = [(1, 10), (2, 20), (1, 10), (3, 5), (2, 20), (1, 10)];
    assert_eq!(backlogged_bytes(&frames, &[1, 2]), Some(vec![20, 40]));
    assert_eq!(backlogged_bytes(&frames, &[1, 3]), Some(vec![20, 5]));
    assert_eq!(backlogged_bytes(&frames, &[1, 4]), None);
    assert!(deviation_from_weights(&[100, 200, 500], &[1, 2, 5]) < 1e-12);
    assert!((deviation_from_weights(&[110, 200, 490], &[1, 2, 5]) - 0.1).abs() < 1e-12);
}

// ---------------------------------------------------------------------------------------------
// Transfer descriptions (the command line and posts files)
// ---------------------------------------------------------------------------------------------

#[test]
fn default_transfer_is_a_4_kib_rc_write_on_ipv4() {
    let spec = TransferSpec::default();
    let ctx = spec.context().unwrap();
    assert_eq!(spec.post.operation(), Some(PostOp::Write));
    assert_eq!(
        (spec.post.channel, spec.post.queue, spec.post.qp, spec.post.length),
        (0, 1, 1, 4096)
    );
    assert_eq!(
        (ctx.transport_service(), ctx.path_mtu(), ctx.qp_state()),
        (Some(Transport::Rc), Some(Pmtu::B1024), Some(QpState::Rts))
    );
    assert_eq!((ctx.pkey, ctx.ttl, ctx.dest_qpn, ctx.ip_v6), (0xffff, 64, 17, false));
    assert_eq!(ctx.udp_sport, crate::contracts::tx::udp_source_port_hash(1));
    assert!(KEYS
        .iter()
        .all(|k| k.default.is_empty() || TransferSpec::default().set(k.name, k.default).is_ok()));
}

#[test]
fn transfer_values_are_checked() {
    let mut s = TransferSpec::default();
    for (key, value, msg) in [
        ("pmtu", "300", "is not 256, 512, 1024, 2048 or 4096"),
        ("len", "4G", "4 GiB or more"),
        ("len", "4294967296", "4 GiB or more"),
        ("src-mac", "02:00:00:00:01", "is not a MAC address"),
        ("dst-ip", "10.0.0.300", "is not an IPv4 or IPv6 address"),
        ("dqpn", "0x1000000", "24-bit field `dest_qpn`"),
        ("queue", "32", "5-bit field `queue`"),
        (
            "op",
            "fetch-add",
            "is not send, send-imm, write, write-imm, read, write-message or write-imm-message",
        ),
        ("transport", "ud", "is not rc or uc"),
        ("weight", "256", "is not 0-255"),
        ("se", "2", "is not 0 or 1"),
        ("frobnicate", "1", "unknown key"),
    ] {
        let e = s.set(key, value).unwrap_err();
        assert!(e.contains(msg), "{key}={value}: {e}");
    }
    s.set("len", "4294967295").unwrap();
    s.set("len", "64KiB").unwrap();
    assert_eq!(s.post.length, 65536);
    s.set("src-ip", "fe80::1").unwrap();
    assert!(s.context().unwrap_err().contains("src-ip is IPv6 and dst-ip is IPv4"));
    s.set("dst-ip", "2001:db8::2").unwrap();
    assert!(s.context().unwrap().ip_v6);
    s.set("sport", "4791").unwrap();
    assert_eq!(
        (parse_block_size("4K"), parse_block_size("0x100000"), parse_block_size("64KiB")),
        (Ok(12), Ok(20), Ok(16))
    );
    for bad in ["2K", "2M", "5000", "0"] {
        assert!(
            parse_block_size(bad).unwrap_err().contains("is not a power of two from 4K to 1M"),
            "{bad}"
        );
    }
    assert_eq!(s.context().unwrap().udp_sport, 4791);
}

#[test]
fn posts_files_give_line_numbers() {
    let d = TransferSpec::default();
    let text = "# two posts\n\nchannel=1 queue=2 weight=5 len=1M op=send se\n  channel=2 qp=2 dqpn=0x33 # comment\n";
    let t = parse_posts(text, &d).unwrap();
    assert_eq!(t.iter().map(|(l, _)| *l).collect::<Vec<_>>(), [3, 4]);
    assert_eq!((t[0].1.post.length, t[0].1.post.solicited, t[0].1.weight), (1 << 20, true, Some(5)));
    let s = setup_of(TxSetup::default(), &t).unwrap();
    assert_eq!(s.posts.len(), 2);
    assert_eq!(s.contexts[&2].dest_qpn, 0x33);
    assert_eq!(s.queue_config[&2].weight, 5);
    for (text, line, msg) in [
        ("channel=1\nchannel=2 len\n", 2, "'len' is not key=value"),
        ("\n\nchannel=1 pmtu=100\n", 3, "pmtu: path MTU '100'"),
        ("channel=1 src-ip=::1\n", 1, "both must be of one family"),
    ] {
        assert_eq!(parse_posts(text, &d).unwrap_err().line, line, "{text:?}");
        assert!(parse_posts(text, &d).unwrap_err().message.contains(msg), "{text:?}");
    }
    for (text, line, msg) in [
        (
            "channel=1 queue=2 weight=5\nchannel=2 queue=2 weight=3\n",
            2,
            "queue 2 has weight 3 here but 5 on line 1",
        ),
        (
            "channel=1 qp=4\nchannel=2 qp=4 dqpn=5\n",
            2,
            "QP 4 has dest_qpn = 0x5 here but 0x11 on line 1",
        ),
    ] {
        let e = setup_of(TxSetup::default(), &parse_posts(text, &d).unwrap()).unwrap_err();
        assert_eq!(e.line, line, "{text:?}");
        assert!(e.message.contains(msg), "{text:?}: {e}");
    }
}

#[test]
fn responses_are_ack_frames_on_their_qp_s_context_apart_from_the_transfers() {
    use crate::contracts::responder::{Aeth, NakCode, Syndrome};
    use crate::responder::Response;
    use crate::rx::{rx_model, RxVerdict};

    let mut s = setup(16, rts(Transport::Rc, Pmtu::B1024), vec![post(0, 1, 1, PostOp::Write, 3000)]);
    let answers = [
        (1, 0x00_0010, Syndrome::ack(), 5),
        (2, 0xff_ffff, Syndrome::Nak(NakCode::PsnSequenceError), 0xff_ffff),
        (1, 0x12_3456, Syndrome::RnrNak { timer: 7 }, 0),
    ];
    s.responses = answers
        .iter()
        .map(|&(qp, psn, syndrome, msn)| Response {
            qp,
            psn,
            aeth: Aeth { syndrome, msn },
        })
        .collect();
    let run = TxModel.run(&s).unwrap();
    // the transfers' frames are as without responses
    assert_eq!(
        run.frames,
        TxModel
            .run(&TxSetup {
                responses: Vec::new(),
                ..s.clone()
            })
            .unwrap()
            .frames
    );
    assert_eq!(run.responses.len(), answers.len());
    for (frame, &(_, psn, syndrome, msn)) in run.responses.iter().zip(&answers) {
        // Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + AETH 4 + ICRC 4
        assert_eq!(frame.len(), 62);
        let rx = rx_model(frame);
        assert_eq!(rx.verdict, RxVerdict::Accept);
        let record = rx.record.unwrap();
        let bth = record.bth.unwrap();
        assert_eq!((bth.opcode, bth.psn, bth.dqpn, bth.pkey), (0x11, psn, 0x12, 0xffff));
        assert_eq!((bth.se, bth.ackreq, bth.padcnt), (false, false, 0));
        let aeth = record.aeth.unwrap();
        assert_eq!((aeth.syndrome, aeth.msn), (syndrome.encode(), msn));
        assert_eq!((record.udp_sport, record.payload_len), (0xc123, 0));
    }
    // a response on a QP beyond the count is refused
    s.responses[0].qp = s.qps;
    assert_eq!(TxModel.run(&s), Err(TxError::ResponseBeyondQps(s.qps).to_string()));
}

#[test]
fn read_responses_leave_in_their_queue_from_the_responder_s_psns() {
    use crate::responder::{Aeth, ReadResponse, Syndrome};
    // Queue 1: three READ responses on QP 1 (4 KiB groups, PMTU 1024); queue 2: a WRITE of two
    // blocks on QP 1. Weights 1:1: groups and blocks alternate.
    let mut s = setup(12, rts(Transport::Rc, Pmtu::B1024), vec![post(0, 2, 1, PostOp::Write, 2 * 4096)]);
    let response = |first_psn, va, length, msn| ReadResponse {
        qp: 1,
        first_psn,
        va,
        length,
        pmtu: Pmtu::B1024,
        aeth: Aeth {
            syndrome: Syndrome::ack(),
            msn,
        },
        region: None,
        duplicate: false,
    };
    s.read_responses = vec![
        response(0xFF_FFFE, 0x7000_0100, 2 * 4096 + 1, 5),
        response(7, 0x8000, 0, 6),
        response(8, 0x9000, 1024, 7),
    ];
    let pl = plan(&s);
    let responder = s.responder_channel();
    assert_eq!(responder, 2047);
    let channels: Vec<u16> = pl.packets.iter().map(|p| p.channel).collect();
    let (r, w) = (responder, 0);
    assert_eq!(channels, [r, r, r, r, w, w, w, w, r, r, r, r, w, w, w, w, r, r, r]);
    let reads: Vec<&TxPacket> = pl.packets.iter().filter(|p| p.channel == responder).collect();
    let psns: Vec<u32> = reads.iter().map(|p| p.bth.psn).collect();
    assert_eq!(psns, [0xFF_FFFE, 0xFF_FFFF, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
    let ops: Vec<Operation> = reads.iter().map(|p| p.bth.opcode.operation()).collect();
    use Operation::{ReadResponseFirst as F, ReadResponseLast as L, ReadResponseMiddle as M, ReadResponseOnly as O};
    assert_eq!(ops, [F, M, M, M, M, M, M, M, L, O, O]);
    assert_eq!(lens(&pl.packets[16..]), [1, 0, 1024]);
    let aeths: Vec<Option<u32>> = reads.iter().map(|p| p.aeth.map(|a| a.word())).collect();
    assert_eq!(aeths[0], Some(0x1F00_0005));
    assert!(aeths[1..8].iter().all(Option::is_none));
    assert_eq!(aeths[8..], [Some(0x1F00_0005), Some(0x1F00_0006), Some(0x1F00_0007)]);
    assert_eq!(reads[3].local_addr, 0x7000_0100 + 3 * 1024);
    assert!(reads.iter().all(|p| !p.bth.ack_req && !p.bth.solicited && p.queue == 1));
    assert_eq!(reads[8].bth.pad_cnt, 3);
    // The QP's own PSNs are untouched; only the WRITE completes; no READ packet ends a transfer.
    let writes: Vec<u32> = pl.packets.iter().filter(|p| p.channel == 0).map(|p| p.bth.psn).collect();
    assert_eq!(writes, (0..8).collect::<Vec<_>>());
    assert_eq!(pl.completions, [(0, CompletionStatus::Success)]);
    let last_of_transfer: Vec<usize> = pl
        .descriptors()
        .iter()
        .enumerate()
        .filter(|(_, d)| PACKET.decode(d, "last_of_transfer") == 1)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(last_of_transfer, [15]);
    // The frames carry the AETH after the BTH and the bytes of memory.
    let run = TxModel.run(&s).unwrap();
    let frame = RoceFrame::parse(&run.frames[0]).unwrap();
    assert_eq!(frame.ext.aeth.map(|a| a.word()), Some(0x1F00_0005));
    assert_eq!(frame.payload, s.memory.bytes(0x7000_0100, 1024));
    // The queue must be a data queue.
    s.read_response_queue = 0;
    assert_eq!(TxModel::plan(&s), Err(TxError::ReadResponseQueue(0)));
}
