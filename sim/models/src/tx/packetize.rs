//! The packetizer: a message part cut into PMTU packets counted from the message start, with
//! opcodes, PSNs, AckReq and the extension headers.
//!
//! - First and middle packets carry exactly PMTU bytes, the last (or only) one the rest; a
//!   zero-length message is one packet without payload. PadCnt = (−len) & 3, pad bytes zero.
//! - Opcode: the QP's transport (RC 0x00.., UC 0x20..) and first / middle / last / only; the
//!   `_IMM` variant on the last or only packet of a message with an immediate, which carries it
//!   in an ImmDt. A WRITE message's first or only packet carries its RETH.
//! - PSN: per QP from the context's `sq_psn`, +1 per packet modulo 2^24, across messages and
//!   transfers.
//! - AckReq (RC only): per QP a counter `c` of packets since the last packet with AckReq. Each
//!   packet sent on the QP increments `c`; the packet has AckReq if it is its part's last
//!   packet (so its message's last, and the last of every block of a long SEND or WRITE: a
//!   block waits in the send history until it is acknowledged, and a peer acknowledges at
//!   AckReq) or if `ack_every` N > 0 and `c == N`; a packet with AckReq resets `c` to 0. `c` is
//!   0 when the run starts. UC packets never have AckReq (and leave `c` alone).
//! - SE on the message's last packet when the part says so; MigReq, TVer, FECN, BECN and the
//!   reserved bits 0; P_Key and DestQP from the context.
//! - READ responses ([`read_response_packets`]): the responder's PSNs and AETH, not the QP's
//!   send state (see `ReadResponse::packet`).

use super::record::QpContext;
use super::segment::{Block, MessagePart};
use crate::contracts::tx::{Pmtu, PACKET};
use crate::responder::{ReadResponse, Response};
use crate::wire::bth::PSN_MASK;
use crate::wire::ethernet::{self, MIN_FRAME_LEN};
use crate::wire::icrc::ICRC_LEN;
use crate::wire::opcode::{Operation, Transport};
use crate::wire::packet::natural_pad;
use crate::wire::{aeth, bth, ipv4, ipv6, udp, BthRepr, Opcode, RethRepr};

/// One packet to send: where it came from, its headers and where its payload is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxPacket {
    /// The transfer's channel.
    pub channel: u16,
    /// The transfer's queue.
    pub queue: u8,
    /// The local QP (index of its context).
    pub qp: u32,
    /// The BTH.
    pub bth: BthRepr,
    /// The RETH (first or only packet of a WRITE message).
    pub reth: Option<RethRepr>,
    /// The immediate (last or only packet of a message with one).
    pub immediate: Option<u32>,
    /// The AETH (an ACK or NAK: see [`TxPacket::response`]).
    pub aeth: Option<aeth::Repr>,
    /// Local address of the first payload byte.
    pub local_addr: u64,
    /// Payload bytes (pad excluded).
    pub payload_len: u32,
    /// The last PSN the packet takes: its own, or a READ request's response's last.
    pub last_psn: u32,
}

impl TxPacket {
    /// Length of its frame (Ethernet header to ICRC, zero MAC padding up to 60 bytes, no FCS).
    pub fn frame_len(&self, ip_v6: bool) -> usize {
        let ip = if ip_v6 { ipv6::HEADER_LEN } else { ipv4::HEADER_LEN };
        let payload = self.payload_len as usize;
        let len = ethernet::HEADER_LEN
            + ip
            + udp::HEADER_LEN
            + bth::HEADER_LEN
            + self.bth.opcode.ext_len()
            + payload
            + natural_pad(payload)
            + ICRC_LEN;
        len.max(MIN_FRAME_LEN)
    }
}

impl TxPacket {
    /// A packet of a READ response (its opcode is one).
    pub fn is_read_response(&self) -> bool {
        self.bth.opcode.operation().is_read_response()
    }

    /// The packet of a responder's ACK or NAK, `ctx` being its QP's context: opcode
    /// Acknowledge (RC), the response's PSN and AETH, no payload. P_Key and DestQP come from
    /// the context as for requests; SE, AckReq and PadCnt are 0. Its channel and queue are 0
    /// (the control class): it belongs to no transfer.
    pub fn response(response: &Response, ctx: &QpContext) -> TxPacket {
        TxPacket {
            channel: 0,
            queue: 0,
            qp: response.qp,
            bth: qp_bth(
                ctx,
                Opcode::from_parts(Transport::Rc, Operation::Ack).expect("RC has Acknowledge"),
                response.psn & PSN_MASK,
            ),
            reth: None,
            immediate: None,
            aeth: Some(aeth::Repr::from_word(response.aeth.encode())),
            local_addr: 0,
            payload_len: 0,
            last_psn: response.psn & PSN_MASK,
        }
    }

    /// The [`PACKET`] field values of its descriptor (packetizer to packet generator);
    /// `last_of_transfer`: it is its transfer's last packet. The RETH fields are 0 on a packet
    /// without RETH. The 4-byte word after the BTH (and RETH) is the ImmDt or, on an ACK, the
    /// AETH: `has_immediate` and `immediate` carry either (0 on a packet without one).
    pub fn descriptor_values(&self, last_of_transfer: bool) -> Vec<(&'static str, u128)> {
        let reth = self.reth.unwrap_or(RethRepr {
            va: 0,
            r_key: 0,
            dma_len: 0,
        });
        vec![
            ("qp", u128::from(self.qp)),
            ("opcode", u128::from(self.bth.opcode.value())),
            ("psn", u128::from(self.bth.psn)),
            ("solicited", u128::from(self.bth.solicited)),
            ("ack_request", u128::from(self.bth.ack_req)),
            ("pad", u128::from(self.bth.pad_cnt)),
            ("has_reth", u128::from(self.reth.is_some())),
            ("has_immediate", u128::from(self.immediate.is_some() || self.aeth.is_some())),
            ("last_of_transfer", u128::from(last_of_transfer)),
            ("payload_len", u128::from(self.payload_len)),
            ("channel", u128::from(self.channel)),
            ("rkey", u128::from(reth.r_key)),
            ("dma_len", u128::from(reth.dma_len)),
            ("immediate", u128::from(self.immediate.or(self.aeth.map(|a| a.word())).unwrap_or(0))),
            ("va", u128::from(reth.va)),
            ("last_psn", u128::from(self.last_psn)),
        ]
    }

    /// Its descriptor packed as [`PACKET`] (see [`TxPacket::descriptor_values`]).
    pub fn descriptor(&self, last_of_transfer: bool) -> Vec<u32> {
        PACKET
            .encode(&self.descriptor_values(last_of_transfer))
            .expect("every field of a packet fits its PACKET field")
    }
}

/// A QP's send state: the next PSN and the AckReq counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QpSender {
    /// PSN of the next packet (24 bits).
    pub next_psn: u32,
    /// Packets sent since the last one with AckReq (RC).
    pub since_ack_req: u32,
}

impl QpSender {
    /// The state at the start of a run: PSN from the context, counter 0.
    pub fn new(ctx: &QpContext) -> QpSender {
        QpSender {
            next_psn: ctx.sq_psn & PSN_MASK,
            since_ack_req: 0,
        }
    }

    /// The PSN and AckReq of the next packet; `last` = it is its part's last packet.
    fn next(&mut self, ctx: &QpContext, transport: Transport, last: bool) -> (u32, bool) {
        let psn = self.next_psn;
        self.next_psn = (psn + 1) & PSN_MASK;
        let ack_req = transport == Transport::Rc && {
            self.since_ack_req += 1;
            let every = u32::from(ctx.ack_every);
            let ack_req = last || (every > 0 && self.since_ack_req == every);
            if ack_req {
                self.since_ack_req = 0;
            }
            ack_req
        };
        (psn, ack_req)
    }
}

/// A BTH on a QP of context `ctx` (its P_Key and DestQP): `opcode`, `psn`; SE, MigReq, PadCnt,
/// FECN, BECN, AckReq and the reserved bits 0.
fn qp_bth(ctx: &QpContext, opcode: Opcode, psn: u32) -> BthRepr {
    BthRepr {
        opcode,
        solicited: false,
        migreq: false,
        pad_cnt: 0,
        p_key: ctx.pkey,
        fecn: false,
        becn: false,
        resv6: 0,
        dest_qp: ctx.dest_qpn,
        ack_req: false,
        resv7: 0,
        psn,
    }
}

/// Where a packet sits in its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Position {
    First,
    Middle,
    Last,
    Only,
}

impl Position {
    fn of(first: bool, last: bool) -> Position {
        match (first, last) {
            (true, true) => Position::Only,
            (true, false) => Position::First,
            (false, false) => Position::Middle,
            (false, true) => Position::Last,
        }
    }
}

/// The operation of a packet: SEND or WRITE, its position, with an immediate (last or only).
fn operation(write: bool, position: Position, immediate: bool) -> Operation {
    use Operation::*;
    match (write, position, immediate) {
        (false, Position::First, _) => SendFirst,
        (false, Position::Middle, _) => SendMiddle,
        (false, Position::Last, false) => SendLast,
        (false, Position::Last, true) => SendLastImm,
        (false, Position::Only, false) => SendOnly,
        (false, Position::Only, true) => SendOnlyImm,
        (true, Position::First, _) => WriteFirst,
        (true, Position::Middle, _) => WriteMiddle,
        (true, Position::Last, false) => WriteLast,
        (true, Position::Last, true) => WriteLastImm,
        (true, Position::Only, false) => WriteOnly,
        (true, Position::Only, true) => WriteOnlyImm,
    }
}

/// The packets of a message part, in order, on a QP of context `ctx` whose transport is
/// `transport` and path MTU `pmtu` (both checked when the post was accepted).
pub fn packetize(
    part: &MessagePart,
    ctx: &QpContext,
    transport: Transport,
    pmtu: Pmtu,
    sender: &mut QpSender,
    (channel, queue, qp): (u16, u8, u32),
) -> Vec<TxPacket> {
    if let (true, Some(reth)) = (part.read, part.reth) {
        return vec![read_request(reth, part.local_addr, ctx, pmtu, sender, (channel, queue, qp))];
    }
    let pmtu = u64::from(pmtu.bytes());
    let end = part.start + part.len;
    let offsets: Vec<u64> = if part.message_len == 0 {
        vec![0]
    } else {
        (part.start..end).step_by(pmtu as usize).collect()
    };
    offsets
        .into_iter()
        .map(|offset| {
            let len = pmtu.min(part.message_len - offset);
            let (first, last) = (offset == 0, offset + len == part.message_len);
            let immediate = part.immediate.filter(|_| last);
            let op = operation(part.write, Position::of(first, last), immediate.is_some());
            let opcode = Opcode::from_parts(transport, op).expect("RC and UC have every SEND and WRITE opcode");
            let (psn, ack_req) = sender.next(ctx, transport, offset + len >= end.min(part.message_len));
            TxPacket {
                channel,
                queue,
                qp,
                bth: BthRepr {
                    solicited: last && part.solicited,
                    pad_cnt: natural_pad(len as usize) as u8,
                    ack_req,
                    ..qp_bth(ctx, opcode, psn)
                },
                reth: part.reth.filter(|_| first),
                immediate,
                aeth: None,
                local_addr: part.local_addr.wrapping_add(offset - part.start),
                payload_len: len as u32,
                last_psn: psn,
            }
        })
        .collect()
}

/// The packet of an RDMA READ request for `reth` (the peer's VA, R_Key and DMA length) into
/// local memory at `local_addr`, on an RC QP of context `ctx` whose path MTU is `pmtu`: opcode
/// RC READ request, the RETH, no payload, AckReq (it ends its message). It takes the next PSN
/// and the PSNs of the rest of its response: `max(1, ⌈DMA length / PMTU⌉)` in all.
pub fn read_request(
    reth: RethRepr,
    local_addr: u64,
    ctx: &QpContext,
    pmtu: Pmtu,
    sender: &mut QpSender,
    (channel, queue, qp): (u16, u8, u32),
) -> TxPacket {
    let (psn, ack_req) = sender.next(ctx, Transport::Rc, true);
    let count = crate::responder::read_packet_count(reth.dma_len, pmtu);
    sender.next_psn = (psn + count) & PSN_MASK;
    TxPacket {
        channel,
        queue,
        qp,
        bth: BthRepr {
            ack_req,
            ..qp_bth(ctx, Opcode::RC_READ_REQUEST, psn)
        },
        reth: Some(reth),
        immediate: None,
        aeth: None,
        local_addr,
        payload_len: 0,
        last_psn: (psn + count - 1) & PSN_MASK,
    }
}

/// The packets of one group of a READ response (`block`: its bytes from the response's start,
/// a multiple of the block size, so of the PMTU), on a QP of context `ctx`: each packet as
/// [`ReadResponse::packet`] cuts it (opcode, PSN from the request's, payload, AETH on the
/// first, last and only packets), P_Key and DestQP from the context, no AckReq or SE. The QP's
/// send state ([`QpSender`]) is not used: the PSNs are the responder's.
pub fn read_response_packets(response: &ReadResponse, block: &Block, ctx: &QpContext, (channel, queue): (u16, u8)) -> Vec<TxPacket> {
    let pmtu = u64::from(response.pmtu.bytes());
    let first = (block.offset / pmtu) as u32;
    let count = if response.length == 0 { 1 } else { block.len.div_ceil(pmtu) as u32 };
    (first..first + count)
        .map(|index| {
            let packet = response.packet(index, None).expect("the group is inside the response");
            TxPacket {
                channel,
                queue,
                qp: response.qp,
                bth: BthRepr {
                    pad_cnt: natural_pad(packet.length as usize) as u8,
                    ..qp_bth(ctx, packet.opcode, packet.psn)
                },
                reth: None,
                immediate: None,
                aeth: packet.aeth.map(|a| aeth::Repr::from_word(a.encode())),
                local_addr: packet.address,
                payload_len: packet.length,
                last_psn: packet.psn,
            }
        })
        .collect()
}
