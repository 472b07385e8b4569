//! Checks of the TX model's frames that share no code with its generator: over seeded random
//! setups (lengths 0 to a few MiB, every PMTU, several block sizes, unaligned addresses, PSNs
//! near the wrap, many channels and queues, IPv4 and IPv6, RC and UC):
//!
//! - every frame passes the RX model (accepted, ICRC good);
//! - the frames, read back through the RX model only, give per QP consecutive PSNs, whole
//!   messages that never interleave, first and middle packets of exactly PMTU, PadCnt, AckReq
//!   (recounted), SE and ImmDt as the posts ask; WRITE blocks whose RETH VA/length tile each
//!   transfer's destination range at block boundaries, a WRITE as one message whole; payloads equal to local memory; one
//!   completion per transfer, in the order of their last packets;
//! - Python's zlib (with its own masking) agrees with every ICRC and the IPv4 header checksums
//!   verify in Python;
//! - tshark decodes the BTH, RETH, ImmDt and AETH fields the model meant (responses included),
//!   and finds the IPv4 checksums good;
//! - QoS: queues weighted 1:2:5, all backlogged, get bytes on the wire within 2 % of 1:2:5; a
//!   control-queue post overtakes backlogged bulk.

use ferroce_models::contracts::responder::{Aeth, NakCode, Syndrome};
use ferroce_models::contracts::tx::{udp_source_port_hash, CompletionStatus, Pmtu, PostError, PostOp, QpState};
use ferroce_models::responder::Response;
use ferroce_models::rx::rx_model;
use ferroce_models::sched::QueueCfg;
use ferroce_models::tx::qos::{
    add_control_post, backlogged_bytes, deviation_from_weights, weighted_setup, wire_dest_qpn as dest_qpn, wire_queue,
};
use ferroce_models::tx::{PatternMemory, Post, QpContext, TxEngine, TxModel, TxPacket, TxRun, TxSetup};
use ferroce_models::wire::opcode::{Opcode, Operation, Transport};
use ferroce_models::wire::pcap::write_pcap;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::net::IpAddr;
use std::process::{Command, Stdio};
use std::sync::Arc;

const PSN_MODULO: u32 = 1 << 24;
/// QPs of a random setup: 1..=QPS.
const QPS: u32 = 6;

/// A random RTS context for local QP `qp` (DestQP `dest_qpn(qp)`, so frames name their QP).
fn random_context(rng: &mut ChaCha8Rng, qp: u32) -> QpContext {
    let ip_v6 = rng.gen_bool(0.4);
    let addr = |rng: &mut ChaCha8Rng| if ip_v6 { rng.gen::<u128>() } else { u128::from(rng.gen::<u32>()) };
    QpContext {
        state: QpState::Rts.code(),
        transport: if rng.gen_bool(0.5) { Transport::Rc } else { Transport::Uc }.bits(),
        pmtu: Pmtu::ALL[rng.gen_range(0..Pmtu::ALL.len())].code(),
        ip_v6,
        ack_every: [0, 0, 1, 3, 7, 255][rng.gen_range(0..6)],
        dscp: rng.gen_range(0..64),
        ecn: rng.gen_range(0..4),
        pkey: rng.gen(),
        ttl: rng.gen_range(1..=255),
        dest_qpn: dest_qpn(qp),
        sq_psn: PSN_MODULO - rng.gen_range(1..64),
        udp_sport: udp_source_port_hash(rng.gen()),
        rkey: rng.gen(),
        flow_label: rng.gen_range(0..1 << 20),
        src_mac: rng.gen::<u64>() & 0xfeff_ffff_ffff,
        dst_mac: rng.gen::<u64>() & 0xfeff_ffff_ffff,
        src_ip: addr(rng),
        dst_ip: addr(rng),
        ..QpContext::default()
    }
}

/// A random length: zero, small, medium or (rarely) a few MiB, within what `budget` leaves.
fn random_length(rng: &mut ChaCha8Rng, budget: &mut u64) -> u32 {
    let len = match rng.gen_range(0..10) {
        0 => 0,
        1..=3 => rng.gen_range(1..=5_000),
        4..=8 => rng.gen_range(5_001..=200_000),
        _ => rng.gen_range(200_001..=3 << 20),
    };
    let len = if len > *budget { rng.gen_range(0..=5_000) } else { len };
    *budget = budget.saturating_sub(len);
    len as u32
}

/// A seeded random setup: up to 18 posts on 6 QPs in 8 queues with random weights and tables,
/// some on a busy channel; each post's destination range in its own 64 GiB region.
fn random_setup(seed: u64, max_bytes: u64) -> TxSetup {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut setup = TxSetup {
        block_log2: [12, 13, 14, 16, 20][rng.gen_range(0..5)],
        limit: rng.gen(),
        memory: Arc::new(PatternMemory::new(seed)),
        ..TxSetup::default()
    };
    for qp in 1..=QPS {
        setup.contexts.insert(qp, random_context(&mut rng, qp));
    }
    for q in 1..8 {
        setup.queue_config.insert(
            q,
            QueueCfg {
                weight: rng.gen_range(1..=8),
                high: rng.gen_bool(0.5),
                ..QueueCfg::default()
            },
        );
    }
    let mut budget = max_bytes;
    let mut channels: Vec<u16> = Vec::new();
    for k in 0..rng.gen_range(10..=18u64) {
        let channel = if !channels.is_empty() && rng.gen_bool(0.15) {
            channels[rng.gen_range(0..channels.len())]
        } else {
            rng.gen_range(0..2047) // the last channel is the responder's
        };
        channels.push(channel);
        setup.posts.push(Post {
            channel,
            queue: if rng.gen_bool(0.1) { 0 } else { rng.gen_range(1..8) },
            op: [0, 1, 2, 3, 6, 7][rng.gen_range(0..6)],
            solicited: rng.gen_bool(0.3),
            imm_every_block: rng.gen_bool(0.5),
            qp: rng.gen_range(1..=QPS),
            local_addr: rng.gen::<u64>() >> 16,
            remote_addr: (k + 1) << 36 | rng.gen_range(0..1 << 21),
            length: random_length(&mut rng, &mut budget),
            immediate: rng.gen(),
        });
    }
    setup
}

/// Packets of one message as the RX model shows them.
#[derive(Debug, Default)]
struct Message {
    qp: u32,
    write: bool,
    payload: Vec<u8>,
    /// (VA, R_Key, DMA length) of a WRITE.
    reth: Option<(u64, u32, u32)>,
    immediate: Option<u32>,
    solicited: bool,
    /// Index of its last frame.
    last_frame: usize,
}

/// What a QP's frames have shown so far.
struct QpTrack {
    ctx: QpContext,
    next_psn: u32,
    since_ack_req: u32,
    open: Option<Message>,
}

/// Reads every frame back with the RX model and checks the packet rules of docs/tx.md per QP;
/// returns the messages in the order they ended.
fn messages(setup: &TxSetup, run: &TxRun) -> Vec<Message> {
    let mut qps: HashMap<u32, (u32, QpTrack)> = setup
        .contexts
        .iter()
        .map(|(&qp, &ctx)| {
            let track = QpTrack {
                ctx,
                next_psn: ctx.sq_psn,
                since_ack_req: 0,
                open: None,
            };
            (ctx.dest_qpn, (qp, track))
        })
        .collect();
    let mut done = Vec::new();
    for (i, frame) in run.frames.iter().enumerate() {
        let rx = rx_model(frame);
        assert!(
            rx.verdict.reason().is_none() && rx.verdict.name() == "accept",
            "frame {i}: {:?}",
            rx.verdict
        );
        let rec = rx.record.unwrap();
        assert_eq!(rec.icrc_ok, Some(true), "frame {i}");
        let bth = rec.bth.unwrap();
        let (qp, t) = qps
            .get_mut(&bth.dqpn)
            .unwrap_or_else(|| panic!("frame {i}: DestQP {:#x} of no QP", bth.dqpn));
        let ctx = t.ctx;
        // Headers from the context.
        assert_eq!((rec.eth_src, rec.eth_dst), (mac(ctx.src_mac), mac(ctx.dst_mac)), "frame {i}");
        assert_eq!(rec.ip_version, if ctx.ip_v6 { 6 } else { 4 }, "frame {i}");
        assert_eq!(
            (rec.ip_src, rec.ip_dst),
            (ip(ctx.src_ip, ctx.ip_v6), ip(ctx.dst_ip, ctx.ip_v6)),
            "frame {i}"
        );
        assert_eq!((rec.ip_dscp, rec.ip_ecn, rec.ip_ttl), (ctx.dscp, ctx.ecn, ctx.ttl), "frame {i}");
        assert_eq!((rec.udp_sport, rec.udp_dport, rec.vlan), (ctx.udp_sport, 4791, None), "frame {i}");
        assert_eq!(
            (bth.pkey, bth.m, bth.tver, bth.fecn, bth.becn),
            (ctx.pkey, false, 0, false, false),
            "frame {i}"
        );
        // PSN: consecutive per QP from sq_psn, modulo 2^24.
        assert_eq!(bth.psn, t.next_psn, "frame {i}: QP {qp}");
        t.next_psn = (t.next_psn + 1) % PSN_MODULO;
        // Opcode: the QP's transport, a SEND or WRITE position.
        let opcode = Opcode::new(bth.opcode).unwrap();
        assert_eq!(opcode.transport().bits(), ctx.transport, "frame {i}");
        use Operation::*;
        let op = opcode.operation();
        let write = matches!(op, WriteFirst | WriteMiddle | WriteLast | WriteLastImm | WriteOnly | WriteOnlyImm);
        let first = matches!(op, SendFirst | SendOnly | SendOnlyImm | WriteFirst | WriteOnly | WriteOnlyImm);
        let last = matches!(
            op,
            SendLast | SendLastImm | SendOnly | SendOnlyImm | WriteLast | WriteLastImm | WriteOnly | WriteOnlyImm
        );
        let imm = matches!(op, SendLastImm | SendOnlyImm | WriteLastImm | WriteOnlyImm);
        assert!(
            write || matches!(op, SendFirst | SendMiddle | SendLast | SendLastImm | SendOnly | SendOnlyImm),
            "frame {i}: {op:?}"
        );
        // Lengths: first and middle exactly PMTU; PadCnt.
        let pmtu = Pmtu::from_code(ctx.pmtu).unwrap().bytes() as usize;
        let len = rx.payload.len();
        if !last {
            assert_eq!(len, pmtu, "frame {i}: {op:?}");
        } else {
            assert!(len <= pmtu && (first || len > 0), "frame {i}: {op:?} of {len} bytes");
        }
        assert_eq!(usize::from(bth.padcnt), len.wrapping_neg() & 3, "frame {i}");
        // AckReq, recounted: RC only, on the last packet of a message or of a block of a long
        // SEND (its bytes so far a multiple of the block size) and the N-th since the last AckReq.
        let so_far = if first { 0 } else { t.open.as_ref().map_or(0, |m| m.payload.len()) } + len;
        let block_last = last || so_far.is_multiple_of(1usize << setup.block_log2);
        let want_ack = ctx.transport == Transport::Rc.bits() && {
            t.since_ack_req += 1;
            let ack = block_last || (ctx.ack_every > 0 && t.since_ack_req == u32::from(ctx.ack_every));
            if ack {
                t.since_ack_req = 0;
            }
            ack
        };
        assert_eq!(bth.ackreq, want_ack, "frame {i}");
        assert!(last || !bth.se, "frame {i}: SE on a packet that does not end its message");
        assert_eq!(rec.immdt.is_some(), imm, "frame {i}");
        assert_eq!(rec.reth.is_some(), write && first, "frame {i}");
        // Messages: whole, never interleaved on a QP.
        if first {
            assert!(t.open.is_none(), "frame {i}: QP {qp} starts a message inside another");
            t.open = Some(Message {
                qp: *qp,
                write,
                reth: rec.reth.map(|r| (r.va, r.r_key, r.dma_len)),
                ..Message::default()
            });
        }
        let m = t.open.as_mut().unwrap_or_else(|| panic!("frame {i}: {op:?} outside a message"));
        assert_eq!(m.write, write, "frame {i}");
        m.payload.extend_from_slice(&rx.payload);
        if last {
            let mut m = t.open.take().unwrap();
            m.immediate = rec.immdt.map(|d| d.imm);
            m.solicited = bth.se;
            m.last_frame = i;
            done.push(m);
        }
    }
    for (qp, t) in qps.values() {
        assert!(t.open.is_none(), "QP {qp} ends inside a message");
    }
    done
}

fn mac(v: u64) -> [u8; 6] {
    let b = v.to_be_bytes();
    [b[2], b[3], b[4], b[5], b[6], b[7]]
}

fn ip(v: u128, v6: bool) -> IpAddr {
    if v6 {
        IpAddr::from(v.to_be_bytes())
    } else {
        IpAddr::from((v as u32).to_be_bytes())
    }
}

/// An accepted post and what the frames showed of it.
struct Expected {
    post: Post,
    covered: u64,
    blocks: u32,
    last_frame: Option<usize>,
}

/// Matches the messages with the posts: WRITE blocks tile each destination range at block
/// boundaries with their RETH, SEND messages are whole; payloads are local memory; immediates,
/// SE and completions as the posts ask.
fn check_against_posts(setup: &TxSetup, run: &TxRun, msgs: &[Message]) {
    // Posts: all are valid; a post on a channel with an earlier accepted one is refused.
    let mut used = std::collections::HashSet::new();
    let want: Vec<Result<(), PostError>> = setup
        .posts
        .iter()
        .map(|p| {
            if used.insert(p.channel) {
                Ok(())
            } else {
                Err(PostError::ChannelBusy)
            }
        })
        .collect();
    assert_eq!(run.post_results, want);
    let mut transfers: Vec<Expected> = setup
        .posts
        .iter()
        .zip(&want)
        .filter(|(_, r)| r.is_ok())
        .map(|(&post, _)| Expected {
            post,
            covered: 0,
            blocks: 0,
            last_frame: None,
        })
        .collect();
    let block = 1u64 << setup.block_log2;
    for m in msgs {
        let op = |t: &Expected| PostOp::from_code(t.post.op).unwrap();
        let len = m.payload.len() as u64;
        let (t, offset) = if m.write {
            let (va, rkey, dma_len) = m.reth.unwrap();
            assert_eq!((rkey, u64::from(dma_len)), (setup.contexts[&m.qp].rkey, len));
            let t = transfers
                .iter_mut()
                .find(|t| {
                    let p = &t.post;
                    op(t).is_write() && p.qp == m.qp && va >= p.remote_addr && va + len <= p.remote_addr + u64::from(p.length)
                })
                .unwrap_or_else(|| panic!("a WRITE to {va:#x} + {len} of no post on QP {}", m.qp));
            let offset = va - t.post.remote_addr;
            assert_eq!(offset, t.covered, "blocks of a transfer leave in order, without gap");
            let end = va + len;
            let transfer_end = t.post.remote_addr + u64::from(t.post.length);
            let want_imm = if op(t).is_one_message() {
                assert_eq!((offset, end), (0, transfer_end), "a WRITE as one message is whole");
                op(t).has_immediate().then_some(t.post.immediate)
            } else {
                assert!(va % block + len <= block, "a block crosses a block boundary");
                assert!(end == transfer_end || end.is_multiple_of(block), "a block ends before a boundary");
                let last_block = end == transfer_end;
                match op(t) {
                    PostOp::WriteImm if t.post.imm_every_block => Some(t.post.immediate.wrapping_add(t.blocks)),
                    PostOp::WriteImm if last_block => Some(t.post.immediate),
                    _ => None,
                }
            };
            assert_eq!(m.immediate, want_imm, "block {} of {:?}", t.blocks, t.post);
            assert_eq!(m.solicited, t.post.solicited && want_imm.is_some());
            (t, offset)
        } else {
            let t = transfers
                .iter_mut()
                .find(|t| {
                    let p = &t.post;
                    !op(t).is_write()
                        && t.last_frame.is_none()
                        && p.qp == m.qp
                        && u64::from(p.length) == len
                        && setup.memory.bytes(p.local_addr, len as usize) == m.payload
                })
                .unwrap_or_else(|| panic!("a SEND of {len} bytes on QP {} that is no post's", m.qp));
            assert_eq!(m.immediate, (op(t) == PostOp::SendImm).then_some(t.post.immediate));
            assert_eq!(m.solicited, t.post.solicited);
            (t, 0)
        };
        assert!(
            setup.memory.bytes(t.post.local_addr + offset, len as usize) == m.payload,
            "payload of {:?} at offset {offset}",
            t.post
        );
        t.covered += len;
        t.blocks += 1;
        if t.covered == u64::from(t.post.length) {
            assert!(t.last_frame.is_none(), "a transfer sent twice: {:?}", t.post);
            t.last_frame = Some(m.last_frame);
        }
    }
    assert!(
        transfers.iter().all(|t| t.last_frame.is_some()),
        "every accepted transfer is sent whole"
    );
    transfers.sort_by_key(|t| t.last_frame);
    let want: Vec<(u16, CompletionStatus)> = transfers.iter().map(|t| (t.post.channel, CompletionStatus::Success)).collect();
    assert_eq!(
        run.completions, want,
        "one completion per transfer, in the order of their last packets"
    );
}

/// 24 random setups of up to 4 MiB each through the model, read back independently.
fn random_runs() -> Vec<(TxSetup, TxRun)> {
    (0..24u64)
        .map(|seed| {
            let setup = random_setup(0x7e57_0000 + seed, 4 << 20);
            let run = TxModel.run(&setup).unwrap();
            (setup, run)
        })
        .collect()
}

#[test]
fn random_frames_read_back_independently() {
    let (mut frames, mut v6, mut uc, mut blocks) = (0, 0, 0, std::collections::BTreeSet::new());
    for (setup, run) in random_runs() {
        let msgs = messages(&setup, &run);
        check_against_posts(&setup, &run, &msgs);
        frames += run.frames.len();
        v6 += msgs.iter().filter(|m| setup.contexts[&m.qp].ip_v6).count();
        uc += msgs
            .iter()
            .filter(|m| setup.contexts[&m.qp].transport == Transport::Uc.bits())
            .count();
        blocks.insert(setup.block_log2);
    }
    assert!(
        frames > 10_000 && v6 > 100 && uc > 100 && blocks.len() >= 4,
        "{frames} frames, {v6} v6 and {uc} UC messages, blocks {blocks:?}"
    );
}

/// Python parses the pcap, verifies each IPv4 header checksum and computes each ICRC with
/// zlib.crc32 after its own masking; prints one line per frame.
const PY_ICRC: &str = r#"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
at = 24
while at < len(data):
    incl = struct.unpack_from("<I", data, at + 8)[0]
    f = data[at + 16 : at + 16 + incl]
    at += 16 + incl
    ethertype = struct.unpack_from(">H", f, 12)[0]
    p = bytearray(f[14:])
    if ethertype == 0x0800:
        hl = 20
        s = sum(struct.unpack_from(">10H", p, 0))
        s = (s & 0xFFFF) + (s >> 16)
        s = (s & 0xFFFF) + (s >> 16)
        csum = "ok" if s == 0xFFFF else "bad"
        n = struct.unpack_from(">H", p, 2)[0]
        for o in (1, 8, 10, 11): p[o] = 0xFF
    else:
        hl = 40
        csum = "-"
        n = 40 + struct.unpack_from(">H", p, 4)[0]
        p[0] |= 0x0F
        for o in (1, 2, 3, 7): p[o] = 0xFF
    for o in (hl + 6, hl + 7, hl + 12): p[o] = 0xFF
    crc = zlib.crc32(b"\xff" * 8 + bytes(p[: n - 4]))
    wire = struct.unpack_from("<I", f, 14 + n - 4)[0]
    print(csum, "ok" if crc == wire else "bad %08x %08x" % (crc, wire))
"#;

fn temp_pcap(name: &str, frames: &[Vec<u8>]) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("ferroce-tx-{name}-{}.pcap", std::process::id()));
    write_pcap(&path, frames).unwrap();
    path
}

#[test]
fn python_zlib_agrees_with_every_icrc_and_ipv4_checksum() {
    let frames: Vec<Vec<u8>> = random_runs().into_iter().take(8).flat_map(|(_, r)| r.frames).collect();
    let pcap = temp_pcap("zlib", &frames);
    let out = match Command::new("python3")
        .arg("-c")
        .arg(PY_ICRC)
        .arg(&pcap)
        .stdin(Stdio::null())
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("python3 is needed (apt-get install python3): {e}"),
    };
    std::fs::remove_file(&pcap).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().map(String::from).collect();
    assert_eq!(lines.len(), frames.len());
    let (mut v4, mut v6) = (0, 0);
    for (i, l) in lines.iter().enumerate() {
        match l.as_str() {
            "ok ok" => v4 += 1,
            "- ok" => v6 += 1,
            _ => panic!("frame {i}: python says {l}"),
        }
    }
    assert!(v4 > 100 && v6 > 100, "{v4} IPv4 and {v6} IPv6 frames");
}

const TSHARK_FIELDS: [&str; 15] = [
    "infiniband.bth.opcode",
    "infiniband.bth.se",
    "infiniband.bth.padcnt",
    "infiniband.bth.p_key",
    "infiniband.bth.destqp",
    "infiniband.bth.a",
    "infiniband.bth.psn",
    "infiniband.reth.va",
    "infiniband.reth.r_key",
    "infiniband.reth.dmalen",
    "infiniband.immdt",
    "infiniband.aeth.syndrome",
    "infiniband.aeth.msn",
    "ip.checksum.status",
    "udp.length",
];

/// A number as tshark prints it: decimal, or 0x-prefixed hex.
fn num(s: &str) -> u64 {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap_or_else(|_| panic!("not hex: {s}")),
        None => s.parse().unwrap_or_else(|_| panic!("not a number: {s}")),
    }
}

#[test]
fn tshark_decodes_the_fields_the_model_meant() {
    if Command::new("tshark").arg("--version").output().is_err() {
        eprintln!("SKIPPED tshark_decodes_the_fields_the_model_meant: tshark is not installed (scripts/test.sh installs it)");
        return;
    }
    // Small setups: a few thousand frames of every kind, and responses (ACK, RNR NAK, NAKs).
    let setups: Vec<TxSetup> = (0..6)
        .map(|s| {
            let mut setup = random_setup(0x75_4a00 + s, 600 << 10);
            let rng = &mut ChaCha8Rng::seed_from_u64(s);
            let qps: Vec<u32> = setup.contexts.keys().copied().collect();
            setup.responses = (0..20)
                .map(|i| Response {
                    qp: qps[rng.gen_range(0..qps.len())],
                    psn: rng.gen_range(0..1 << 24),
                    aeth: Aeth {
                        syndrome: match i % 3 {
                            0 => Syndrome::ack(),
                            1 => Syndrome::RnrNak {
                                timer: rng.gen_range(0..32),
                            },
                            _ => Syndrome::Nak(NakCode::ALL[rng.gen_range(0..NakCode::ALL.len())]),
                        },
                        msn: rng.gen_range(0..1 << 24),
                    },
                })
                .collect();
            setup
        })
        .collect();
    let mut frames = Vec::new();
    let mut packets = Vec::new();
    for s in &setups {
        let run = TxModel.run(s).unwrap();
        frames.extend(run.frames.into_iter().chain(run.responses));
        packets.extend(TxModel::plan(s).unwrap().packets.into_iter().map(|p| (p, s.context(p.qp))));
        packets.extend(
            s.responses
                .iter()
                .map(|r| (TxPacket::response(r, &s.context(r.qp)), s.context(r.qp))),
        );
    }
    assert_eq!(frames.len(), packets.len());
    let pcap = temp_pcap("tshark", &frames);
    let mut args: Vec<String> = [
        "-r",
        pcap.to_str().unwrap(),
        "-n",
        "-o",
        "ip.check_checksum:TRUE",
        "-T",
        "fields",
        "-E",
        "separator=/t",
        "-E",
        "occurrence=f",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for f in TSHARK_FIELDS {
        args.extend(["-e".to_string(), f.to_string()]);
    }
    let out = Command::new("tshark").args(&args).output().unwrap();
    std::fs::remove_file(&pcap).unwrap();
    assert!(out.status.success(), "tshark: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), frames.len());
    let (mut with_reth, mut with_aeth) = (0, 0);
    for (i, (row, (p, ctx))) in rows.iter().zip(&packets).enumerate() {
        let get = |k: &str| row[TSHARK_FIELDS.iter().position(|f| *f == k).unwrap()];
        let flag = |k: &str| matches!(get(k), "1" | "True");
        let b = &p.bth;
        assert_eq!(num(get("infiniband.bth.opcode")), u64::from(b.opcode.value()), "frame {i}: {row:?}");
        assert_eq!(flag("infiniband.bth.se"), b.solicited, "frame {i}");
        assert_eq!(num(get("infiniband.bth.padcnt")), u64::from(b.pad_cnt), "frame {i}");
        assert_eq!(num(get("infiniband.bth.p_key")), u64::from(b.p_key), "frame {i}");
        assert_eq!(num(get("infiniband.bth.destqp")), u64::from(b.dest_qp), "frame {i}");
        assert_eq!(flag("infiniband.bth.a"), b.ack_req, "frame {i}");
        assert_eq!(num(get("infiniband.bth.psn")), u64::from(b.psn), "frame {i}");
        match p.reth {
            Some(r) => {
                with_reth += 1;
                assert_eq!(num(get("infiniband.reth.va")), r.va, "frame {i}");
                assert_eq!(num(get("infiniband.reth.r_key")), u64::from(r.r_key), "frame {i}");
                assert_eq!(num(get("infiniband.reth.dmalen")), u64::from(r.dma_len), "frame {i}");
            }
            None => assert_eq!(get("infiniband.reth.va"), "", "frame {i}"),
        }
        let imm = get("infiniband.immdt").replace(':', "");
        assert_eq!(imm, p.immediate.map(|v| format!("{v:08x}")).unwrap_or_default(), "frame {i}");
        match p.aeth {
            Some(a) => {
                with_aeth += 1;
                assert_eq!(num(get("infiniband.aeth.syndrome")), u64::from(a.syndrome), "frame {i}: {row:?}");
                assert_eq!(num(get("infiniband.aeth.msn")), u64::from(a.msn), "frame {i}");
            }
            None => assert_eq!(get("infiniband.aeth.syndrome"), "", "frame {i}"),
        }
        // IPv4 header checksum: 1 = good.
        assert_eq!(get("ip.checksum.status"), if ctx.ip_v6 { "" } else { "1" }, "frame {i}");
        let udp_len = 8 + 12 + p.bth.opcode.ext_len() + p.payload_len as usize + usize::from(p.bth.pad_cnt) + 4;
        assert_eq!(num(get("udp.length")), udp_len as u64, "frame {i}");
    }
    assert!(
        frames.len() > 1000 && with_reth > 100 && with_aeth == 120,
        "{} frames, {with_reth} with a RETH, {with_aeth} with an AETH",
        frames.len()
    );
}

// ---------------------------------------------------------------------------------------------
// QoS on the wire
// ---------------------------------------------------------------------------------------------

#[test]
fn weights_1_2_5_share_the_wire_by_bytes_at_4_kib_blocks() {
    // At least 4 MiB per queue while all are backlogged: 4 MiB per unit of weight, plus 256 KiB
    // each so no queue runs dry before the lightest has sent 4 MiB.
    let setup = weighted_setup(12, 4 << 20, 256 << 10, 1 << 20);
    let run = TxModel.run(&setup).unwrap();
    let wire: Vec<(u32, u64)> = run.frames.iter().map(|f| (wire_queue(f), f.len() as u64)).collect();
    let bytes = backlogged_bytes(&wire, &[1, 2, 3]).unwrap();
    let deviation = deviation_from_weights(&bytes, &[1, 2, 5]);
    println!(
        "4 KiB blocks, weights 1:2:5, all backlogged: bytes {bytes:?}, largest deviation {:.3} %",
        deviation * 100.0
    );
    assert!(bytes[0] >= 4 << 20, "{bytes:?}");
    assert!(deviation < 0.02, "{bytes:?}: {:.2} %", deviation * 100.0);
    let total: Vec<u64> = (0..4).map(|q| wire.iter().filter(|w| w.0 == q).map(|w| w.1).sum()).collect();
    assert_eq!(run.queue_bytes[..4], total, "the run's per-queue bytes are its frames'");
}

#[test]
fn weights_1_2_5_share_the_wire_by_bytes_at_64_kib_blocks() {
    // The default block over at least 64 MiB per queue: headers only (the plan), no payload.
    let setup = weighted_setup(16, 64 << 20, 4 << 20, 16 << 20);
    let plan = TxModel::plan(&setup).unwrap();
    let wire: Vec<(u32, u64)> = plan
        .packets
        .iter()
        .map(|p| (u32::from(p.queue), p.frame_len(false) as u64))
        .collect();
    let bytes = backlogged_bytes(&wire, &[1, 2, 3]).unwrap();
    let deviation = deviation_from_weights(&bytes, &[1, 2, 5]);
    println!(
        "64 KiB blocks, weights 1:2:5, all backlogged: bytes {bytes:?}, largest deviation {:.3} %",
        deviation * 100.0
    );
    assert!(bytes[0] >= 64 << 20, "{bytes:?}");
    assert!(deviation < 0.02, "{bytes:?}: {:.2} %", deviation * 100.0);
}

#[test]
fn a_control_post_overtakes_backlogged_bulk() {
    let mut setup = weighted_setup(12, 1 << 20, 0, 1 << 20);
    add_control_post(&mut setup);
    let run = TxModel.run(&setup).unwrap();
    let queues: Vec<u32> = run.frames.iter().map(|f| wire_queue(f)).collect();
    let first = queues.iter().position(|&q| q == 4).unwrap();
    let last = queues.iter().rposition(|&q| q == 4).unwrap();
    assert!(
        first <= 1,
        "at most one bulk block (one 4 KiB packet) before the control post: {first}"
    );
    assert_eq!(
        last - first,
        3,
        "the control transfer's 4 groups (one packet each) leave back to back"
    );
    assert_eq!(run.completions[0], (100, CompletionStatus::Success));
}
