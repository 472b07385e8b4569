//! The requester side of the co-simulations that drive a responder with the TX model's traffic
//! (`sim/tests/responder_cosim.rs`, `sim/tests/rx_path_cosim.rs`).
//!
//! - A [`Peer`] is a connection: the requester's context in the TX model, the responder's QP,
//!   its context and the memory region the requester's WRITEs go to, all made from one set of
//!   parameters so that the two sides agree. [`Peer::new`] takes what every test sets; the
//!   builder methods ([`Peer::pkeys`], [`Peer::ack_every`], [`Peer::region_length`]) change
//!   what only some tests do.
//! - [`Requesters`] are the peers' requesters: it makes posts, turns them into the TX model's
//!   packets and frames (the payloads read from a [`PatternMemory`]) and posts the receive
//!   buffers their messages need to a lockstep ([`PairedSetup`]), in the order the messages use
//!   them.
//! - [`distinct_qps`] and [`random_psn`] draw a random set of connections' QP numbers and PSNs,
//!   [`random_op`] an operation within the receive buffers a peer has.

use crate::contracts::header::bth::PSN_MASK;
use crate::contracts::responder::{message_operation, MessageKind, FIRST_QP};
use crate::contracts::tx::{Pmtu, PostOp, QpState};
use crate::models::responder::{Access, MemoryRegion, Responder};
use crate::models::tx::frame::{frame_bytes, frame_repr};
use crate::models::tx::{PatternMemory, Post, QpContext, TxModel, TxPacket, TxSetup};
use crate::responder_rtl::PairedSetup;
use crate::wire::{RoceFrame, Transport};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::sync::Arc;

/// Where the receive buffers are: the `n`th buffer posted is in the `n`th MiB above, at a
/// random offset in its first 4 KiB.
pub const BUFFER_BASE: u64 = 0x9000_0000_0000;
/// Bytes of a peer's region unless [`Peer::region_length`] says otherwise (256 KiB).
pub const REGION_LENGTH: u64 = 1 << 18;
/// The P_Key of a full member of the default partition, a peer's on both sides unless
/// [`Peer::pkeys`] says otherwise.
pub const FULL_PKEY: u16 = 0xFFFF;

/// A connection: the requester's QP (in the TX model) and the responder's.
#[derive(Debug, Clone, Copy)]
pub struct Peer {
    /// The requester's context: its DestQP is `qp`, its R_Key `region.rkey`.
    pub requester: QpContext,
    /// The responder's QP.
    pub qp: u32,
    /// The responder's context: mirrors the requester (state RTR, same transport, PMTU, P_Key
    /// unless [`Peer::pkeys`] sets two; `rq_psn` its `sq_psn`).
    pub responder: QpContext,
    /// The region its WRITEs go to.
    pub region: MemoryRegion,
}

impl Peer {
    /// A connection to responder QP `qp` (RTR; its requester RTS with the same PSN `psn`), both
    /// full members of the default partition, a writable region of [`REGION_LENGTH`] bytes in
    /// PD `pd` at region table entry `entry` (its base `entry` × 2^36). The responder coalesces
    /// ACKs by `qp % 4` and asks for an RNR timer of `qp % 32`.
    pub fn new(qp: u32, transport: Transport, pmtu: Pmtu, pd: u16, entry: u32, psn: u32) -> Peer {
        let region = MemoryRegion {
            rkey: entry << 8 | (0x40 + qp % 0x80),
            pd,
            base: 0x10_0000_0000 * u64::from(entry),
            length: REGION_LENGTH,
            access: Access {
                remote_write: true,
                remote_read: false,
            },
        };
        let requester = QpContext {
            state: QpState::Rts.code(),
            transport: transport.bits(),
            pmtu: pmtu.code(),
            dest_qpn: qp,
            rkey: region.rkey,
            pkey: FULL_PKEY,
            sq_psn: psn,
            ttl: 64,
            src_ip: 0x0a00_0001,
            dst_ip: 0x0a00_0002,
            src_mac: 0x0200_0000_0001,
            dst_mac: 0x0200_0000_0002,
            udp_sport: 0xc000 | qp as u16,
            ..QpContext::default()
        };
        let responder = QpContext {
            state: QpState::Rtr.code(),
            transport: transport.bits(),
            pmtu: pmtu.code(),
            pkey: FULL_PKEY,
            pd,
            rq_psn: psn,
            min_rnr_timer: (qp % 32) as u8,
            ack_every: (qp % 4) as u8,
            dest_qpn: 0x100 + qp,
            ..QpContext::default()
        };
        Peer {
            requester,
            qp,
            responder,
            region,
        }
    }

    /// The same connection with its region readable too (RDMA READ).
    pub fn readable(mut self) -> Peer {
        self.region.access.remote_read = true;
        self
    }

    /// The same connection with P_Key `requester` on the requester's side and `responder` on
    /// the responder's.
    pub fn pkeys(mut self, requester: u16, responder: u16) -> Peer {
        self.requester.pkey = requester;
        self.responder.pkey = responder;
        self
    }

    /// The same connection with the responder acknowledging every `packets` packets
    /// (`ack_every` of its context).
    pub fn ack_every(mut self, packets: u8) -> Peer {
        self.responder.ack_every = packets;
        self
    }

    /// The same connection with the requester's local ACK timeout exponent `timeout` (0: none),
    /// `retry_count` transport retries and `rnr_retry` RNR retries (7: for ever).
    pub fn retries(mut self, timeout: u8, retry_count: u8, rnr_retry: u8) -> Peer {
        self.requester.timeout = timeout;
        self.requester.retry_count = retry_count;
        self.requester.rnr_retry = rnr_retry;
        self
    }

    /// The same connection with a region of `bytes` bytes.
    pub fn region_length(mut self, bytes: u64) -> Peer {
        self.region.length = bytes;
        self
    }
}

/// The peers' requesters: their posts, the TX model's packets and frames of them, and the
/// receive buffers their messages need. `post.qp` of a post is a peer's index.
#[derive(Debug, Clone)]
pub struct Requesters {
    /// The connections.
    pub peers: Vec<Peer>,
    /// The local memory the requesters read their payloads from.
    pub source: PatternMemory,
    /// Draws the posts' fields and the buffers' offsets.
    pub rng: ChaCha8Rng,
    /// Receive buffers posted so far (each gets its own MiB above [`BUFFER_BASE`]).
    pub buffers: u64,
}

impl Requesters {
    /// The requesters of `peers`, their memory and random draws made from `seed`.
    pub fn new(seed: u64, peers: Vec<Peer>) -> Requesters {
        Requesters {
            peers,
            source: PatternMemory::new(seed),
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0xb0f),
            buffers: 0,
        }
    }

    /// The packets the TX model sends for `posts`, in wire order.
    pub fn packets(&self, posts: &[Post]) -> Vec<TxPacket> {
        let contexts: Vec<QpContext> = self.peers.iter().map(|p| p.requester).collect();
        self.packets_of(&contexts, posts)
    }

    /// The packets of requesters `contexts` (`post.qp` indexes them) for `posts`, in wire
    /// order; panics if the TX model refuses a post.
    pub fn packets_of(&self, contexts: &[QpContext], posts: &[Post]) -> Vec<TxPacket> {
        let mut setup = TxSetup {
            posts: posts.to_vec(),
            memory: Arc::new(self.source),
            ..TxSetup::default()
        };
        for (i, context) in contexts.iter().enumerate() {
            setup.contexts.insert(i as u32, *context);
        }
        let plan = TxModel::plan(&setup).unwrap();
        assert!(plan.post_results.iter().all(Result::is_ok), "{:?}", plan.post_results);
        plan.packets
    }

    /// The frame of one of the peers' packets.
    pub fn frame(&self, packet: &TxPacket) -> RoceFrame {
        frame_repr(packet, &self.peers[packet.qp as usize].requester, &self.source)
    }

    /// The frames of the peers' packets, as bytes.
    pub fn frames(&self, packets: &[TxPacket]) -> Vec<Vec<u8>> {
        packets
            .iter()
            .map(|p| frame_bytes(p, &self.peers[p.qp as usize].requester, &self.source))
            .collect()
    }

    /// A post of `op` on peer `peer` (channel `channel`): WRITEs to a random place of its region.
    pub fn post(&mut self, peer: usize, channel: u16, op: PostOp, length: u32) -> Post {
        let region = self.peers[peer].region;
        let offset = self.rng.gen_range(0..=region.length - u64::from(length));
        self.post_at(peer, channel, op, length, region.base + offset)
    }

    /// A post of `op` on peer `peer` (channel `channel`) whose WRITEs go to `remote_addr`; its
    /// other fields (queue, solicited, local address, immediate) drawn at random.
    pub fn post_at(&mut self, peer: usize, channel: u16, op: PostOp, length: u32, remote_addr: u64) -> Post {
        Post {
            channel,
            queue: self.rng.gen_range(1..4),
            op: op.code(),
            qp: peer as u32,
            length,
            solicited: self.rng.gen_bool(0.3),
            local_addr: self.rng.gen::<u64>() >> 8,
            remote_addr,
            immediate: self.rng.gen(),
            ..Post::default()
        }
    }

    /// The peer's requester goes on from the PSN `model`'s QP expects (as after a NAK); a QP
    /// the model does not have changes nothing.
    pub fn resync(&mut self, model: &Responder, peer: usize) {
        let peer = &mut self.peers[peer];
        if let Some(state) = model.qp(peer.qp) {
            peer.requester.sq_psn = state.expected_psn;
        }
    }

    /// Restarts the peer's responder QP at its requester's PSN, through `lockstep` (a commit:
    /// the QP out of the error state, its receive queue emptied).
    pub fn recommit(&mut self, lockstep: &mut impl PairedSetup, peer: usize) {
        let peer = &mut self.peers[peer];
        peer.responder.rq_psn = peer.requester.sq_psn;
        lockstep.commit(peer.qp, &peer.responder).unwrap();
    }

    /// Posts a receive buffer of `length` bytes to the peer's QP at a fresh address, through
    /// `lockstep` (on the model and the RTL); panics if the RTL refuses it. Returns the address.
    pub fn post_buffer(&mut self, lockstep: &mut impl PairedSetup, peer: usize, length: u32) -> u64 {
        self.buffers += 1;
        let address = BUFFER_BASE + (self.buffers << 20) + self.rng.gen_range(0..4096);
        let qp = self.peers[peer].qp;
        assert!(lockstep.post_receive(qp, address, length).unwrap(), "receive queue of QP {qp} full");
        address
    }

    /// Posts the receive buffers the messages of `packets` (those of `posts`) need, in the order
    /// the messages use them (wire order per QP; the TX scheduler may reorder posts): a SEND's
    /// on its first packet, a WRITE with immediate's on the packet with the immediate. A
    /// message's buffer is `length(post)` bytes long; `None` posts none. Returns each SEND's
    /// buffer address by channel.
    pub fn post_buffers(
        &mut self,
        lockstep: &mut impl PairedSetup,
        posts: &[Post],
        packets: &[TxPacket],
        length: impl Fn(&Post) -> Option<u32>,
    ) -> HashMap<u16, u64> {
        let mut addresses = HashMap::new();
        for p in packets {
            let kind = message_operation(p.bth.opcode.operation());
            let needs_buffer = match kind {
                Some((MessageKind::Send, position)) => position.starts(),
                Some((MessageKind::Write, _)) => p.immediate.is_some(),
                None => false,
            };
            if needs_buffer {
                let post = posts.iter().find(|q| q.channel == p.channel).unwrap();
                if let Some(length) = length(post) {
                    let address = self.post_buffer(lockstep, p.qp as usize, length);
                    if matches!(kind, Some((MessageKind::Send, _))) {
                        addresses.insert(p.channel, address);
                    }
                }
            }
        }
        addresses
    }
}

/// `count` different QP numbers from [`FIRST_QP`] up of a responder of `below` QPs
/// ([`crate::responder_rtl::QPS`] for the RX path's), in the order drawn.
pub fn distinct_qps(rng: &mut ChaCha8Rng, count: usize, below: u32) -> Vec<u32> {
    assert!(
        count as u64 + u64::from(FIRST_QP) <= u64::from(below),
        "{count} distinct QPs below {below}"
    );
    let mut qps: Vec<u32> = Vec::new();
    while qps.len() < count {
        let qp = rng.gen_range(FIRST_QP..below);
        if !qps.contains(&qp) {
            qps.push(qp);
        }
    }
    qps
}

/// A random operation for a post to peer `peer`, of which `used[peer]` receive buffers are
/// spoken for: a SEND, a SEND with immediate or a WRITE with immediate, by blocks or as one
/// message (each needs a buffer) while fewer than `depth` are, a WRITE otherwise; or a WRITE by
/// blocks or as one message (one time in three).
pub fn random_op(rng: &mut ChaCha8Rng, peer: usize, used: &mut [usize], depth: usize) -> PostOp {
    let op = [
        PostOp::Send,
        PostOp::SendImm,
        PostOp::Write,
        PostOp::WriteImm,
        PostOp::WriteMessage,
        PostOp::WriteImmMessage,
    ][rng.gen_range(0..6)];
    if (op.is_write() && !op.has_immediate()) || used[peer] >= depth {
        return if op == PostOp::WriteMessage { op } else { PostOp::Write };
    }
    used[peer] += 1;
    op
}

/// A starting PSN: within 40 of the wrap for three connections in ten, anywhere otherwise.
pub fn random_psn(rng: &mut ChaCha8Rng) -> u32 {
    if rng.gen_bool(0.3) {
        PSN_MASK - rng.gen_range(0..40)
    } else {
        rng.gen_range(0..=PSN_MASK)
    }
}
