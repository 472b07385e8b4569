//! The RC requester model ([`RcRequester`]) against the responder model over a lossy wire,
//! both directions through a [`FaultInjector`]: the protocol the RTL's retransmission is built
//! to, checked before the RTL (`sim/tests/rc_requester_model.rs`).
//!
//! Time runs in nanoseconds: a frame takes its time on a 100 Gb/s wire (its bytes plus 24 of
//! preamble, FCS and gap) and arrives [`ONE_WAY_NANOS`] later; the requesters' timers count
//! ticks of 4.096 µs of it. Each peer is one RC QP sending RDMA WRITE transfers, cut into blocks
//! and packets as the TX path cuts them, into the peer's region at the responder, and RDMA READ
//! transfers from it (the responder's READ responses back through the same injector); the run
//! ends when every transfer has completed, or fails at [`TIME_LIMIT_NANOS`].

use crate::contracts::reliability::TICK_NANOS;
use crate::contracts::tx::{CompletionStatus, PostOp};
use crate::faults::{FaultCounts, FaultInjector, Faults};
use crate::models::responder::{QpAttributes, Responder, ResponderCounters};
use crate::models::tx::acknowledge::Completion;
use crate::models::tx::frame::frame_bytes;
use crate::models::tx::packetize::read_response_packets;
use crate::models::tx::requester::{ArrivedResponse, RcRequester, ReadPart, RequesterCounters};
use crate::models::tx::segment::{Block, Transfer};
use crate::models::tx::{LocalMemory, PatternMemory, Post, SparseMemory, TxPacket};
use crate::peers::Peer;
use crate::wire::RoceFrame;
use std::collections::BTreeMap;

/// One-way latency of the wire, in nanoseconds.
pub const ONE_WAY_NANOS: u64 = 1_000;
/// Simulated time after which a run is an error (a hang).
pub const TIME_LIMIT_NANOS: u64 = 60_000_000_000;
/// Block size of the transfers (the segmenter's smallest).
pub const BLOCK_LOG2: u32 = 12;

/// A transfer of a peer: an RDMA WRITE of `length` bytes from `local` to `remote`, or an RDMA
/// READ of `length` bytes from `remote` to `local`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RcTransfer {
    /// An RDMA READ (else a WRITE).
    pub read: bool,
    /// The peer (index into the run's peers).
    pub peer: usize,
    /// Its channel (unique in the run).
    pub channel: u16,
    /// Local address of the first byte.
    pub local: u64,
    /// Remote address of the first byte (inside the peer's region).
    pub remote: u64,
    /// Bytes.
    pub length: u32,
}

/// What a run did.
#[derive(Debug, Clone, Default)]
pub struct ReliableRun {
    /// The completions, in order.
    pub completions: Vec<Completion>,
    /// The responder's memory (the READs' ranges filled before the run).
    pub memory: SparseMemory,
    /// The requesters' memory: what the READs brought.
    pub local_memory: SparseMemory,
    /// Per peer, the requester's counters.
    pub requesters: Vec<RequesterCounters>,
    /// The responder's counters.
    pub responder: ResponderCounters,
    /// What the injectors did: requester to responder, back.
    pub faults: (FaultCounts, FaultCounts),
    /// Simulated nanoseconds until the last completion.
    pub nanos: u64,
}

/// A frame on its way.
struct Flight {
    arrives: u64,
    to_responder: bool,
    frame: Vec<u8>,
}

/// Runs `transfers` over `peers` with `faults` on both directions (seeded by `seed`), the
/// payloads read from `source`.
/// A READ transfer's bytes at the responder are `source`'s at the transfer's local address.
pub fn run(peers: &[Peer], transfers: &[RcTransfer], faults: Faults, seed: u64, source: &PatternMemory) -> Result<ReliableRun, String> {
    let mut responder = Responder::new(256, 64).map_err(|e| format!("{e:?}"))?;
    let mut requesters = Vec::new();
    for peer in peers {
        let attributes = QpAttributes::from_context(&peer.responder).map_err(|e| format!("{e:?}"))?;
        responder.add_qp(peer.qp, attributes).map_err(|e| format!("{e:?}"))?;
        responder.add_memory_region(peer.region).map_err(|e| format!("{e:?}"))?;
        requesters.push(RcRequester::new(peer.requester));
    }
    let mut run = ReliableRun::default();
    // every transfer's parts posted up front, in order
    for t in transfers {
        if t.read {
            run.memory.write(t.remote, &source.bytes(t.local, t.length as usize));
            let part = ReadPart {
                local_addr: t.local,
                va: t.remote,
                len: t.length,
            };
            run.completions
                .extend(requesters[t.peer].post_read(&part, (t.channel, 0, t.peer as u32)));
            continue;
        }
        let post = Post {
            channel: t.channel,
            op: PostOp::Write.code(),
            qp: t.peer as u32,
            length: t.length,
            local_addr: t.local,
            remote_addr: t.remote,
            ..Post::default()
        };
        let mut transfer = Transfer::new(post, PostOp::Write);
        loop {
            let block = transfer.next_block(BLOCK_LOG2);
            let part = transfer.message_part(&block, peers[t.peer].requester.rkey);
            run.completions
                .extend(requesters[t.peer].post(&part, (t.channel, 0, t.peer as u32), block.last));
            transfer.advance(&block);
            if block.last {
                break;
            }
        }
    }
    let mut forward = FaultInjector::new(faults, seed);
    let mut backward = FaultInjector::new(faults, seed ^ 0x5eed);
    let mut flights: Vec<Flight> = Vec::new();
    let mut wire_free = 0u64;
    let mut now = 0u64;
    let mut turn = 0usize;
    let ticks = |nanos: u64| (nanos / TICK_NANOS) as u32;
    let to_nanos = |tick: u32| u64::from(tick) * TICK_NANOS;
    while run.completions.len() < transfers.len() {
        let completed = run.completions.len();
        if now > TIME_LIMIT_NANOS {
            return Err(format!(
                "{} of {} transfers completed after {now} ns",
                run.completions.len(),
                transfers.len()
            ));
        }
        // arrivals
        let (due, later): (Vec<Flight>, Vec<Flight>) = flights.drain(..).partition(|f| f.arrives <= now);
        flights = later;
        for flight in due {
            if flight.to_responder {
                let Some(outcome) = responder.receive_frame(&flight.frame) else {
                    continue;
                };
                if let Some(write) = &outcome.write {
                    write.apply(&mut run.memory);
                }
                let mut answers = Vec::new();
                if let Some(response) = outcome.response {
                    let peer = peers.iter().find(|p| p.qp == response.qp).ok_or("a response for no peer")?;
                    answers.push(frame_bytes(
                        &TxPacket::response(&response, &peer.responder),
                        &peer.responder,
                        source,
                    ));
                }
                if let Some(read) = outcome.read_response {
                    let peer = peers.iter().find(|p| p.qp == read.qp).ok_or("a READ response for no peer")?;
                    let whole = Block {
                        index: 0,
                        offset: 0,
                        len: u64::from(read.length),
                        last: true,
                    };
                    for packet in read_response_packets(&read, &whole, &peer.responder, (0, 0)) {
                        answers.push(frame_bytes(&packet, &peer.responder, &run.memory));
                    }
                }
                // the answers leave one after another: each goes through the injector
                for answer in answers {
                    for frame in backward.apply(answer, now) {
                        flights.push(Flight {
                            arrives: now + ONE_WAY_NANOS,
                            to_responder: false,
                            frame,
                        });
                    }
                }
            } else if let Ok(answer) = RoceFrame::parse(&flight.frame) {
                let Some(i) = peers.iter().position(|p| p.responder.dest_qpn == answer.bth.dest_qp) else {
                    continue;
                };
                if answer.bth.opcode.operation().is_read_response() {
                    let arrived = ArrivedResponse {
                        opcode: answer.bth.opcode,
                        psn: answer.bth.psn,
                        length: answer.payload.len() as u32,
                    };
                    let outcome = requesters[i].read_response(&arrived, ticks(now));
                    if let Some(address) = outcome.write {
                        run.local_memory.write(address, &answer.payload);
                    }
                    run.completions.extend(outcome.completions);
                } else if let Some(aeth) = answer.ext.aeth {
                    run.completions
                        .extend(requesters[i].acknowledge(answer.bth.psn, aeth.syndrome, ticks(now)));
                }
            }
        }
        for requester in &mut requesters {
            run.completions.extend(requester.expire(ticks(now)));
        }
        if run.completions.len() > completed {
            run.nanos = now;
        }
        // the wire takes the next packet, the requesters in turn
        let mut sent = false;
        if wire_free <= now {
            for k in 0..requesters.len() {
                let i = (turn + k) % requesters.len();
                if let Some(packet) = requesters[i].next_packet(ticks(now)) {
                    let frame = frame_bytes(&packet, &peers[i].requester, source);
                    wire_free = now + (frame.len() as u64 + 24) * 8 / 100;
                    for frame in forward.apply(frame, now) {
                        flights.push(Flight {
                            arrives: wire_free + ONE_WAY_NANOS,
                            to_responder: true,
                            frame,
                        });
                    }
                    turn = i + 1;
                    sent = true;
                    break;
                }
            }
        }
        for frame in forward.due(now) {
            flights.push(Flight {
                arrives: now + ONE_WAY_NANOS,
                to_responder: true,
                frame,
            });
        }
        for frame in backward.due(now) {
            flights.push(Flight {
                arrives: now + ONE_WAY_NANOS,
                to_responder: false,
                frame,
            });
        }
        // time goes to the next thing that happens
        let mut next = flights.iter().map(|f| f.arrives).min().unwrap_or(u64::MAX);
        if sent {
            next = next.min(wire_free);
        }
        if forward.holding() || backward.holding() {
            next = next.min(now + 1_000);
        }
        for deadline in requesters.iter().filter_map(RcRequester::deadline) {
            next = next.min(to_nanos(deadline).max(now + 1));
        }
        if next == u64::MAX && run.completions.len() < transfers.len() {
            return Err(format!(
                "stuck at {now} ns: nothing in flight, no timer, {} of {} transfers completed",
                run.completions.len(),
                transfers.len()
            ));
        }
        now = next.max(now + 1).min(TIME_LIMIT_NANOS + 1);
    }
    run.requesters = requesters.iter().map(RcRequester::counters).collect();
    run.responder = responder.counters().clone();
    run.faults = (forward.counts, backward.counts);
    Ok(run)
}

/// The checks of a run: one completion per transfer; when it succeeded, a WRITE's bytes at its
/// remote address, a READ's at its local address; never a byte outside the transfers' ranges,
/// at the responder (WRITEs, and the READs' ranges filled before the run) or at the requesters
/// (READs).
pub fn check(run: &ReliableRun, transfers: &[RcTransfer], source: &PatternMemory) -> Result<(), String> {
    let mut by_channel: BTreeMap<u16, Vec<CompletionStatus>> = BTreeMap::new();
    for &(channel, status) in &run.completions {
        by_channel.entry(channel).or_default().push(status);
    }
    for t in transfers {
        match by_channel.get(&t.channel).map(Vec::as_slice) {
            Some([CompletionStatus::Success]) => {
                let want = source.bytes(t.local, t.length as usize);
                let (got, place) = if t.read {
                    (run.local_memory.bytes(t.local, t.length as usize), "local")
                } else {
                    (run.memory.bytes(t.remote, t.length as usize), "remote")
                };
                if got != want {
                    return Err(format!(
                        "transfer on channel {}: its bytes differ at the {place} address",
                        t.channel
                    ));
                }
            }
            Some([_]) => {}
            other => return Err(format!("transfer on channel {}: completions {other:?}", t.channel)),
        }
    }
    let inside = |a: u64, base: u64, t: &RcTransfer| a >= base && a < base + u64::from(t.length);
    let outside = run.memory.addresses().find(|&a| !transfers.iter().any(|t| inside(a, t.remote, t)));
    if let Some(address) = outside {
        return Err(format!("a byte written at {address:#x} at the responder, outside every transfer"));
    }
    let outside = run
        .local_memory
        .addresses()
        .find(|&a| !transfers.iter().any(|t| t.read && inside(a, t.local, t)));
    if let Some(address) = outside {
        return Err(format!("a byte written at {address:#x} at a requester, outside every READ"));
    }
    Ok(())
}
