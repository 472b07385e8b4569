//! Two engine tops back to back (each built engine: `ferroce_engine_c2048_q256_w512` and the
//! ZCU102 build's `ferroce_engine_c64_q16_w64`), driven only through their
//! ports: set up over AXI4-Lite (QP contexts, memory regions, receive buffers), transfers posted
//! through the post words and the doorbell, completions polled, receive completions read from
//! the registers, with random backpressure on every stream and random memory latency. Checked
//! against first principles, not against our models' output: every byte A sent lands at its
//! remote address (or in the receive buffer) in B's memory, each transfer completes once on A
//! (an RC one when B has acknowledged it), each message that consumes a buffer completes once on
//! B with its length and immediate, and every frame on both wires parses in the wire model with
//! a good ICRC and decodes in tshark. Then a WRITE with a bad R_Key: nothing written, a remote
//! access NAK on the wire and in B's counters, the transfer in ERROR on A with the NAK's cause,
//! A's QP in error (`qp_status`) refusing posts until the host rewrites its context, and the
//! next good transfer lands.

use ferroce_sim::contracts::regs::QP_STATUS;
use ferroce_sim::contracts::responder::{completion_kind, CheckFailure, NakCode, ResponderCounter};
use ferroce_sim::contracts::tx::{ChannelStatus, CompletionStatus, Pmtu, PostError, PostOp, BLOCK_LOG2_DEFAULT};
use ferroce_sim::engine_rtl::{built_engines, EnginePair, EngineVariant, HostCompletion, Side, Surroundings};
use ferroce_sim::loopback_bench::b_context;
use ferroce_sim::models::tx::{LocalMemory, Post, SparseMemory};
use ferroce_sim::peers::{Peer, Requesters, BUFFER_BASE};
use ferroce_sim::wire::{RoceFrame, Transport};
use rand::{Rng, SeedableRng};
use std::sync::Arc;

/// B's QPs: RC at PMTU 256, UC at 1024, RC at 4096.
fn peers() -> Vec<Peer> {
    vec![
        Peer::new(3, Transport::Rc, Pmtu::B256, 1, 1, 0x00_0100).ack_every(2),
        Peer::new(9, Transport::Uc, Pmtu::B1024, 2, 2, 0xFF_FFF0),
        Peer::new(14, Transport::Rc, Pmtu::B4096, 3, 3, 0x12_3456),
    ]
}

/// The pair with A's requesters and B's responders committed and B's regions written.
fn setup(engine: &EngineVariant, seed: u64, bp_pct: u32) -> Result<(EnginePair, Requesters), String> {
    let surroundings = Surroundings::stalling(seed, bp_pct);
    let mut pair = EnginePair::new(engine, &surroundings)?;
    let requesters = Requesters::new(seed, peers());
    pair.a.source = Some(Arc::new(requesters.source));
    for (i, peer) in requesters.peers.iter().enumerate() {
        pair.commit(Side::A, i as u32, &peer.requester)?;
        pair.commit(Side::B, peer.qp, &b_context(peer, i as u32))?;
        pair.add_region(Side::B, &peer.region)?;
    }
    Ok((pair, requesters))
}

/// Posts `posts` on A (each on its own channel), waits until A has polled each one finished
/// (an RC one once B has acknowledged it) without an error and B has every receive completion
/// expected; returns B's completions.
fn run(pair: &mut EnginePair, posts: &[Post], expected_completions: usize) -> Result<Vec<HostCompletion>, String> {
    for post in posts {
        pair.post(Side::A, post)?
            .map_err(|e| format!("post on channel {} refused: {e:?}", post.channel))?;
    }
    let mut finished = Vec::new();
    let mut completions = Vec::new();
    for _ in 0..1000 {
        finished.extend(pair.poll(Side::A)?);
        completions.extend(pair.receive_completions(Side::B)?);
        if finished.len() >= posts.len() && completions.len() >= expected_completions {
            break;
        }
        pair.idle(200)?;
    }
    let mut channels: Vec<u32> = finished.iter().map(|&(c, _)| c).collect();
    channels.sort_unstable();
    let mut wanted: Vec<u32> = posts.iter().map(|p| u32::from(p.channel)).collect();
    wanted.sort_unstable();
    assert_eq!(channels, wanted, "each post finishes once on A");
    assert!(finished.iter().all(|&(_, error)| !error), "A's completions: {finished:?}");
    pair.idle(500)?;
    completions.extend(pair.receive_completions(Side::B)?);
    assert_eq!(completions.len(), expected_completions, "B's receive completions: {completions:?}");
    Ok(completions)
}

/// Bytes of the last block of a WRITE of `length` bytes to `address` (blocks of the default
/// size, aligned to the destination address).
fn last_block(address: u64, length: u32) -> u32 {
    let block = 1u64 << BLOCK_LOG2_DEFAULT;
    let first = block - address % block;
    match u64::from(length).checked_sub(first) {
        None | Some(0) => length,
        Some(rest) => ((rest - 1) % block + 1) as u32,
    }
}

/// Every frame that crossed either wire parses in the wire model, ICRC checked: A's frames,
/// B's frames.
fn check_frames(pair: &EnginePair) -> (Vec<RoceFrame>, Vec<RoceFrame>) {
    let parse = |f: &[u8]| RoceFrame::parse(f).unwrap_or_else(|e| panic!("a frame on the wire does not parse: {e:?}: {f:02x?}"));
    (pair.a.frames_out().map(parse).collect(), pair.b.frames_out().map(parse).collect())
}

#[test]
fn transfers_land_and_complete_through_the_registers() {
    for (engine, (seed, bp)) in built_engines().iter().flat_map(|e| [(1, 0), (2, 30), (3, 60)].map(|s| (e, s))) {
        let (mut pair, mut requesters) = setup(engine, seed, bp).unwrap();
        let source = requesters.source;
        let mut expected = SparseMemory::new();
        let mut buffers = 0u64;
        let mut channel = 0u16;
        let mut sent = 0u64;
        for round in 0..8 {
            let mut posts = Vec::new();
            let mut wanted = Vec::new();
            for peer in 0..requesters.peers.len() {
                let op = [PostOp::Write, PostOp::WriteImm, PostOp::Send, PostOp::SendImm][(round + peer) % 4];
                let length = match (round + 2 * peer) % 5 {
                    0 => 0,
                    1 => 1,
                    _ => pair.rng().gen_range(2..3000),
                };
                let mut post = requesters.post(peer, channel, op, length);
                post.imm_every_block = false;
                channel += 1;
                let qp = requesters.peers[peer].qp;
                let data = source.bytes(post.local_addr, length as usize);
                sent += u64::from(length);
                // a SEND lands in a receive buffer; a WRITE with immediate consumes one too
                if op != PostOp::Write {
                    let address = BUFFER_BASE + (buffers << 20) + pair.rng().gen_range(0..4096);
                    buffers += 1;
                    assert!(pair.post_receive(Side::B, qp, address, 4096).unwrap(), "receive buffer on QP {qp}");
                    if op != PostOp::WriteImm {
                        expected.write(address, &data);
                    }
                }
                if matches!(op, PostOp::Write | PostOp::WriteImm) {
                    expected.write(post.remote_addr, &data);
                }
                let kind = if matches!(op, PostOp::Send | PostOp::SendImm) {
                    Some(completion_kind::SEND)
                } else if op == PostOp::WriteImm {
                    Some(completion_kind::WRITE)
                } else {
                    None
                };
                if let Some(kind) = kind {
                    let immediate = matches!(op, PostOp::SendImm | PostOp::WriteImm).then_some(post.immediate);
                    // a WRITE is one message per block: the immediate comes with the last
                    let length = if op == PostOp::WriteImm {
                        last_block(post.remote_addr, length)
                    } else {
                        length
                    };
                    wanted.push(HostCompletion {
                        qp,
                        kind,
                        status: 0,
                        immediate,
                        length,
                    });
                }
                posts.push(post);
            }
            let mut got = run(&mut pair, &posts, wanted.len()).unwrap_or_else(|e| panic!("seed {seed} round {round}: {e}"));
            got.sort_by_key(|c| c.qp);
            wanted.sort_by_key(|c| c.qp);
            assert_eq!(got, wanted, "seed {seed} round {round}: B's receive completions");
        }
        for &(address, length) in &pair.b.writes {
            assert_eq!(
                pair.b.memory.bytes(address, length),
                expected.bytes(address, length),
                "seed {seed}: B's memory at {address:#x}"
            );
        }
        let written: usize = pair.b.writes.iter().map(|w| w.1).sum();
        assert_eq!(written as u64, sent, "seed {seed}: bytes written on B");
        let (_, from_b) = check_frames(&pair);
        assert!(from_b.iter().any(|f| f.ext.aeth.is_some()), "B acknowledged the RC transfers");
        if seed == 1 {
            // tshark, an outside decoder, reads them as the wire model does
            let frames: Vec<Vec<u8>> = pair.a.frames_out().chain(pair.b.frames_out()).map(<[u8]>::to_vec).collect();
            ferroce_sim::tshark::check_roce_frames("engine", &frames).unwrap();
        }
        assert!(pair.responder_counter(Side::B, ResponderCounter::Acks).unwrap() > 0);
        assert_eq!(pair.read(Side::B, "receive_completions_lost", 0).unwrap(), 0);
        assert!(
            pair.a.passed().next().is_none() && pair.b.passed().next().is_none(),
            "nothing passed through"
        );
    }
}

#[test]
fn a_bad_rkey_writes_nothing_is_nakked_and_the_next_transfer_lands() {
    for engine in built_engines() {
        a_bad_rkey_on(&engine);
    }
}

fn a_bad_rkey_on(engine: &EngineVariant) {
    let (mut pair, mut requesters) = setup(engine, 3, 20).unwrap();
    // RC peer 0 (B's QP 3): A's context names a key byte the region does not have
    let peer = 0;
    let good = requesters.peers[peer].requester;
    let mut bad = good;
    bad.rkey ^= 1;
    pair.commit(Side::A, peer as u32, &bad).unwrap();
    let post = requesters.post(peer, 0, PostOp::Write, 700);
    pair.post(Side::A, &post).unwrap().unwrap();
    // the NAK fails the transfer on A: ERROR, with the NAK's cause, until polled
    let channel = u32::from(post.channel);
    let mut status = 0;
    for _ in 0..100 {
        pair.idle(200).unwrap();
        status = pair.read(Side::A, "channel_status", channel).unwrap();
        if status & 3 == ChannelStatus::Error as u32 {
            break;
        }
    }
    assert_eq!(status & 3, ChannelStatus::Error as u32, "channel status {status:#x}");
    assert_eq!(status >> 4 & 0xF, u32::from(CompletionStatus::RemoteAccessError.code()), "cause");
    assert_eq!(pair.poll(Side::A).unwrap(), [(channel, true)], "polled finished, with an error");
    assert!(pair.b.writes.is_empty(), "nothing written: {:?}", pair.b.writes);
    assert_eq!(
        pair.responder_counter(Side::B, ResponderCounter::Failures(CheckFailure::RkeyInvalid))
            .unwrap(),
        1
    );
    assert_eq!(
        pair.responder_counter(Side::B, ResponderCounter::Naks(NakCode::RemoteAccessError))
            .unwrap(),
        1
    );
    let (from_a, from_b) = check_frames(&pair);
    let failed_psn = from_a.first().expect("A's WRITE on the wire").bth.psn;
    let nak = from_b.iter().find_map(|f| f.ext.aeth).expect("B's NAK on the wire");
    assert_eq!(nak.syndrome, 0x60 | NakCode::RemoteAccessError as u8, "remote access error NAK");
    // A's QP is in error, with the NAK's cause, and refuses posts until the host resets it
    let failure = u32::from(CompletionStatus::RemoteAccessError.code());
    assert_eq!(pair.read(Side::A, QP_STATUS, peer as u32).unwrap(), failure, "A's QP status");
    for other in (0..requesters.peers.len() as u32).filter(|&q| q != peer as u32) {
        assert_eq!(pair.read(Side::A, QP_STATUS, other).unwrap(), 0, "QP {other} not in error");
    }
    let refused = requesters.post(peer, 2, PostOp::Write, 700);
    assert_eq!(
        pair.post(Side::A, &refused).unwrap(),
        Err(PostError::QpNotReady),
        "a post on a QP in error"
    );
    // the NAK put B's QP in the error state: the host resets both ends to the PSN B expects,
    // with the right key
    let mut fixed = good;
    fixed.sq_psn = failed_psn;
    pair.commit(Side::A, peer as u32, &fixed).unwrap();
    // (the TX path takes the reset within a few cycles of the commit)
    pair.idle(32).unwrap();
    assert_eq!(pair.read(Side::A, QP_STATUS, peer as u32).unwrap(), 0, "A's QP out of error");
    let mut responder = b_context(&requesters.peers[peer], peer as u32);
    responder.rq_psn = failed_psn;
    pair.commit(Side::B, requesters.peers[peer].qp, &responder).unwrap();
    let post = requesters.post(peer, 1, PostOp::Write, 700);
    run(&mut pair, &[post], 0).unwrap();
    assert_eq!(pair.b.writes.iter().map(|w| w.1).sum::<usize>(), 700, "the good WRITE landed");
    let data = requesters.source.bytes(post.local_addr, 700);
    assert_eq!(pair.b.memory.bytes(post.remote_addr, 700), data);
}

/// A third station resolves and pings engine B on B's wire while A writes to B over RC: B
/// answers the ARP request and the echo request itself (its replies join its ACKs on its MAC
/// TX, which the harness wires to A, whose host path passes them to its host), counts them,
/// and passes a request for another address to its host untouched. The replies are the
/// model's and decode in tshark; the writes complete.
#[test]
fn the_engine_answers_arp_and_ping_for_its_address() {
    for engine in built_engines() {
        arp_and_ping_on(&engine);
    }
}

fn arp_and_ping_on(engine: &EngineVariant) {
    use ferroce_sim::models::host::craft::HostFrameGen;
    use ferroce_sim::models::host::{answer_at, reply_capacity, HostAddress, HostVerdict};
    use std::net::Ipv4Addr;
    let (mut pair, mut requesters) = setup(engine, 5, 20).unwrap();
    let address = HostAddress::new([0x02, 0x00, 0x5E, 0x00, 0x00, 0x0B], Ipv4Addr::new(192, 168, 1, 11));
    let mac = address.mac;
    pair.write(Side::B, "local_mac_low", 0, u32::from_be_bytes([mac[2], mac[3], mac[4], mac[5]]))
        .unwrap();
    pair.write(Side::B, "local_mac_high", 0, u32::from(u16::from_be_bytes([mac[0], mac[1]])))
        .unwrap();
    pair.write(Side::B, "local_ipv4", 0, u32::from(address.ipv4)).unwrap();
    let mut g = HostFrameGen::new(77);
    let arp = g.arp_request(0, address.ipv4);
    let ping = g.echo_request(1, address.ipv4, 100);
    let elsewhere = g.arp_request(0, Ipv4Addr::new(192, 168, 1, 12));
    // RC WRITEs from A (B acknowledges them on the wire the replies take)
    let posts: Vec<Post> = [0usize, 2]
        .into_iter()
        .enumerate()
        .map(|(channel, peer)| {
            let mut post = requesters.post(peer, channel as u16, PostOp::Write, 24_000);
            post.imm_every_block = false;
            post
        })
        .collect();
    for post in &posts {
        pair.post(Side::A, post).unwrap().unwrap();
    }
    for frame in [&arp, &ping, &elsewhere] {
        pair.inject(Side::B, frame);
        pair.idle(150).unwrap();
    }
    let mut finished = Vec::new();
    for _ in 0..200 {
        finished.extend(pair.poll(Side::A).unwrap());
        if finished.len() == posts.len() {
            break;
        }
        pair.idle(200).unwrap();
    }
    finished.sort_unstable();
    assert_eq!(finished, [(0, false), (1, false)], "A's writes finish without an error");
    pair.idle(400).unwrap();
    let capacity = reply_capacity(engine.config.data_width as usize / 8);
    let replies: Vec<Vec<u8>> = [&arp, &ping]
        .map(|f| match answer_at(f, &address, capacity) {
            HostVerdict::Reply { frame, .. } => frame,
            v => panic!("the model does not answer: {v:?}"),
        })
        .to_vec();
    let reached_a: Vec<Vec<u8>> = pair.engine(Side::A).passed().map(<[u8]>::to_vec).collect();
    assert_eq!(reached_a, replies, "B's replies, passed to A's host");
    let reached_b: Vec<Vec<u8>> = pair.engine(Side::B).passed().map(<[u8]>::to_vec).collect();
    assert_eq!(reached_b, [elsewhere], "the request for another address, to B's host");
    assert_eq!(pair.read(Side::B, "host_arp_replies", 0).unwrap(), 1);
    assert_eq!(pair.read(Side::B, "host_echo_replies", 0).unwrap(), 1);
    assert_eq!(pair.read(Side::B, "host_deferred", 0).unwrap(), 0);
    ferroce_sim::tshark::check_host_replies("engine_host_replies", &replies, address.mac, address.ipv4).unwrap();
}

#[test]
fn rdma_reads_posted_on_a_land_in_its_memory() {
    for engine in built_engines() {
        reads_from_a_on(&engine);
    }
}

/// A posts RDMA READs of B's memory on its two RC QPs (PMTU 256 and 4096): empty, one byte,
/// a PMTU, several packets, and one across the 64 KiB block size (two READ requests), three on
/// each QP at once (all in flight together: up to 4 READs per QP), beside a WRITE into the other
/// half of the region (a WRITE posted after a READ may land before the READ's later blocks are
/// read, as blocks of different transfers interleave): each finishes
/// without an error, and A's memory holds B's bytes at each READ's local address, written
/// nowhere else; A's READ requests and B's READ responses parse with good ICRCs and decode in
/// tshark.
fn reads_from_a_on(engine: &EngineVariant) {
    use ferroce_sim::models::responder::Access;
    use ferroce_sim::wire::Opcode;
    let (mut pair, mut requesters) = setup(engine, 21, 20).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
    for peer in [0usize, 2] {
        // B's region of the QP readable too, filled with bytes
        let mut region = requesters.peers[peer].region;
        region.access = Access {
            remote_write: true,
            remote_read: true,
        };
        pair.add_region(Side::B, &region).unwrap();
        let bytes: Vec<u8> = (0..region.length).map(|_| rng.gen()).collect();
        pair.engine(Side::B).memory.write(region.base, &bytes);
    }
    let mut channel = 0u16;
    let mut reads = Vec::new();
    for round in 0..2 {
        let mut posts = Vec::new();
        for peer in [0usize, 2] {
            let pmtu = requesters.peers[peer].requester.path_mtu().unwrap().bytes();
            let lengths = [[0, 1, pmtu], [3 * pmtu + 5, 70_000, 2 * pmtu]][round];
            let region = requesters.peers[peer].region;
            let half = region.length / 2;
            for length in lengths {
                let remote = region.base + rng.gen_range(0..=half - u64::from(length));
                let mut post = requesters.post_at(peer, channel, PostOp::Read, length, remote);
                post.local_addr = 0x7000_0000_0000 + (u64::from(channel) << 20) + rng.gen_range(0..4096);
                reads.push(post);
                posts.push(post);
                channel += 1;
            }
            let write_at = region.base + half + rng.gen_range(0..=half - 500);
            posts.push(requesters.post_at(peer, channel, PostOp::Write, 500, write_at));
            channel += 1;
        }
        run(&mut pair, &posts, 0).unwrap_or_else(|e| panic!("round {round}: {e}"));
    }
    let b_memory = &pair.b.memory;
    for post in &reads {
        let length = post.length as usize;
        assert_eq!(
            pair.a.memory.bytes(post.local_addr, length),
            b_memory.bytes(post.remote_addr, length),
            "the READ on channel {} ({length} bytes from {:#x})",
            post.channel,
            post.remote_addr
        );
    }
    let written: usize = pair.a.writes.iter().map(|w| w.1).sum();
    let read: usize = reads.iter().map(|p| p.length as usize).sum();
    assert_eq!(written, read, "A wrote exactly the bytes it read");
    let (from_a, from_b) = check_frames(&pair);
    let requests = from_a.iter().filter(|f| f.bth.opcode == Opcode::RC_READ_REQUEST).count();
    let block = 1u64 << BLOCK_LOG2_DEFAULT;
    let blocks: u64 = reads
        .iter()
        .map(|p| (p.remote_addr + u64::from(p.length.max(1)) - 1) / block - p.remote_addr / block + 1)
        .sum();
    assert_eq!(requests as u64, blocks, "one READ request per block");
    assert!(from_b.iter().any(|f| f.bth.opcode == Opcode::RC_READ_RESPONSE_MIDDLE));
    let responses = from_b.iter().filter(|f| f.bth.opcode.operation().is_read_response()).count();
    assert_eq!(
        pair.read(Side::A, "rx_read_taken", 0).unwrap() as usize,
        responses,
        "A's READ tracker took every response B sent"
    );
    for counter in ["rx_read_duplicates", "rx_read_gaps", "rx_read_bad"] {
        assert_eq!(pair.read(Side::A, counter, 0).unwrap(), 0, "{counter} on a lossless wire");
    }
    let frames: Vec<Vec<u8>> = pair.a.frames_out().chain(pair.b.frames_out()).map(<[u8]>::to_vec).collect();
    ferroce_sim::tshark::check_roce_frames("engine READ", &frames).unwrap();
}

#[test]
fn rdma_read_requests_are_answered_from_memory() {
    for engine in built_engines() {
        read_requests_on(&engine);
    }
}

/// READ requests crafted as A's QPs would send them, injected into B: B answers each from its
/// memory, in its READ response queue, checked from first principles (opcodes in order, PSNs
/// from the request's, the AETH an ACK with the MSN counting the READ, the payload B's bytes)
/// and decoded by tshark; B's counters count them; a READ of a write-only region is NAKed.
fn read_requests_on(engine: &EngineVariant) {
    use ferroce_sim::models::responder::{Access, MemoryRegion};
    use ferroce_sim::wire::opcode::Operation;
    use ferroce_sim::wire::{Opcode, RethRepr};
    let (mut pair, requesters) = setup(engine, 11, 20).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    // B's readable regions, one per RC peer (0: PMTU 256, 2: PMTU 4096), filled with bytes
    let mut want = Vec::new();
    let mut msn = [0u32; 3];
    let mut next_psn = [0u32; 3];
    for (k, peer) in [0usize, 2].into_iter().enumerate() {
        let p = &requesters.peers[peer];
        let region = MemoryRegion {
            rkey: (40 + k as u32) << 8 | 0x5A,
            pd: p.region.pd,
            base: 0x60_0000_0000 * (k as u64 + 1),
            length: 1 << 20,
            access: Access {
                remote_write: false,
                remote_read: true,
            },
        };
        pair.add_region(Side::B, &region).unwrap();
        let bytes: Vec<u8> = (0..region.length).map(|_| rng.gen()).collect();
        pair.engine(Side::B).memory.write(region.base, &bytes);
        let pmtu = p.requester.path_mtu().unwrap().bytes();
        let mut psn = p.requester.sq_psn;
        for length in [0, 1, pmtu, 3 * pmtu + 5, 100_000] {
            let va = region.base + rng.gen_range(0..1000);
            let reth = RethRepr {
                va,
                r_key: region.rkey,
                dma_len: length,
            };
            let packet = crafted(peer, &p.requester, Opcode::RC_READ_REQUEST, psn, Some(reth), 0);
            pair.inject(Side::B, &requesters.frame(&packet).emit());
            msn[peer] += 1;
            let count = length.div_ceil(pmtu).max(1);
            want.push((peer as u32, psn, va, length, pmtu, msn[peer])); // B answers to A's QP (`b_context`)
            psn = (psn + count) & 0xFF_FFFF;
            pair.idle(100).unwrap();
        }
        next_psn[peer] = psn;
    }
    // a WRITE with AckReq right behind a long READ on peer 0's QP: its ACK leaves after the
    // READ response's last packet
    let p = &requesters.peers[0];
    let long_read = RethRepr {
        va: 0x60_0000_0000,
        r_key: 40 << 8 | 0x5A,
        dma_len: 40_000,
    };
    let read_psn = next_psn[0];
    let write_psn = (read_psn + 40_000u32.div_ceil(256)) & 0xFF_FFFF;
    let write = RethRepr {
        va: p.region.base,
        r_key: p.region.rkey,
        dma_len: 100,
    };
    pair.inject(
        Side::B,
        &requesters
            .frame(&crafted(0, &p.requester, Opcode::RC_READ_REQUEST, read_psn, Some(long_read), 0))
            .emit(),
    );
    pair.inject(
        Side::B,
        &requesters
            .frame(&crafted(0, &p.requester, Opcode::RC_WRITE_ONLY, write_psn, Some(write), 100))
            .emit(),
    );
    msn[0] += 1;
    want.push((0, read_psn, long_read.va, long_read.dma_len, 256, msn[0]));
    // B's READ responses, in order per QP
    let expected_frames: usize = want.iter().map(|w| w.3.div_ceil(w.4).max(1) as usize).sum();
    let is_read = |f: &RoceFrame| f.bth.opcode.operation().is_read_response();
    pair.run_until("B's READ responses and the WRITE's ACK", |pair| {
        let frames: Vec<RoceFrame> = pair.b.frames_out().filter_map(|f| RoceFrame::parse(f).ok()).collect();
        frames.iter().filter(|f| is_read(f)).count() >= expected_frames
            && frames.iter().any(|f| f.bth.opcode == Opcode::RC_ACK && f.bth.psn == write_psn)
    })
    .unwrap();
    let (_, b_frames) = check_frames(&pair);
    let reads: Vec<&RoceFrame> = b_frames.iter().filter(|f| is_read(f)).collect();
    assert_eq!(reads.len(), expected_frames);
    let b_memory = pair.engine(Side::B).memory.clone();
    for &(dest_qp, first_psn, va, length, pmtu, msn) in &want {
        let count = length.div_ceil(pmtu).max(1);
        let mine: Vec<&&RoceFrame> = reads
            .iter()
            .filter(|f| f.bth.dest_qp == dest_qp)
            .skip(packets_before(&want, dest_qp, first_psn))
            .take(count as usize)
            .collect();
        assert_eq!(mine.len(), count as usize, "QP {dest_qp:#x} PSN {first_psn:#x}");
        for (k, f) in mine.iter().enumerate() {
            let k = k as u32;
            let op = match (k == 0, k + 1 == count) {
                (true, true) => Operation::ReadResponseOnly,
                (true, false) => Operation::ReadResponseFirst,
                (false, false) => Operation::ReadResponseMiddle,
                (false, true) => Operation::ReadResponseLast,
            };
            assert_eq!(f.bth.opcode.operation(), op, "QP {dest_qp:#x} PSN {first_psn:#x} packet {k}");
            assert_eq!(f.bth.psn, (first_psn + k) & 0xFF_FFFF);
            assert!(!f.bth.ack_req);
            let aeth = f.ext.aeth.map(|a| a.word());
            if op == Operation::ReadResponseMiddle {
                assert_eq!(aeth, None);
            } else {
                assert_eq!(aeth, Some(0x1F00_0000 | msn), "an ACK with the MSN counting the READ");
            }
            let offset = u64::from(k * pmtu);
            let bytes = (length - k * pmtu).min(pmtu) as usize;
            assert_eq!(
                f.payload,
                b_memory.bytes(va + offset, bytes),
                "QP {dest_qp:#x} PSN {first_psn:#x} packet {k}"
            );
        }
    }
    let last_read = b_frames
        .iter()
        .position(|f| is_read(f) && f.bth.psn == (write_psn + 0xFF_FFFF) & 0xFF_FFFF)
        .expect("the long READ's last packet");
    let ack = b_frames
        .iter()
        .position(|f| f.bth.opcode == Opcode::RC_ACK && f.bth.psn == write_psn)
        .expect("the WRITE's ACK");
    assert!(
        ack > last_read,
        "the ACK of the WRITE after the READ leaves after the READ response"
    );
    let frames: Vec<Vec<u8>> = pair.b.frames_out().map(<[u8]>::to_vec).collect();
    ferroce_sim::tshark::check_roce_frames("engine_read_responses", &frames).unwrap();
    assert_eq!(pair.responder_counter(Side::B, ResponderCounter::ReadRequests).unwrap(), 11);
    assert_eq!(pair.responder_counter(Side::B, ResponderCounter::ReadDuplicates).unwrap(), 0);
}

/// How many READ response packets of `dest_qp` come before the response at `first_psn` in
/// `want` (the responses of one QP leave in order).
fn packets_before(want: &[(u32, u32, u64, u32, u32, u32)], dest_qp: u32, first_psn: u32) -> usize {
    want.iter()
        .filter(|w| w.0 == dest_qp)
        .take_while(|w| w.1 != first_psn)
        .map(|w| w.3.div_ceil(w.4).max(1) as usize)
        .sum()
}

/// A request of A's QP `qp` (context `ctx`) as its TX path would cut it: `payload_len` bytes
/// from A's memory at 0.
fn crafted(
    qp: usize,
    ctx: &ferroce_sim::models::tx::QpContext,
    opcode: ferroce_sim::wire::Opcode,
    psn: u32,
    reth: Option<ferroce_sim::wire::RethRepr>,
    payload_len: u32,
) -> ferroce_sim::models::tx::TxPacket {
    ferroce_sim::models::tx::TxPacket {
        channel: 0,
        queue: 0,
        qp: qp as u32,
        bth: ferroce_sim::wire::BthRepr {
            opcode,
            solicited: false,
            migreq: false,
            pad_cnt: ((4 - payload_len % 4) % 4) as u8,
            p_key: ctx.pkey,
            fecn: false,
            becn: false,
            resv6: 0,
            dest_qp: ctx.dest_qpn,
            ack_req: true,
            resv7: 0,
            psn,
        },
        reth,
        immediate: None,
        aeth: None,
        local_addr: 0,
        payload_len,
        last_psn: psn,
    }
}
