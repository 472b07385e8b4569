//! The packet generator: a packet's frame from its QP context and local memory.
//!
//! Ethernet (the context's MACs, ethertype by `ip_v6`, no VLAN); IPv4 (IHL 5, DSCP/ECN,
//! total length, identification 0, DF set, TTL, protocol 17, header checksum) or IPv6 (traffic
//! class = DSCP/ECN, flow label, payload length, next header 17, hop limit = TTL); UDP (the
//! context's source port, 4791, length, checksum 0); BTH, RETH, ImmDt or AETH; the payload read from
//! local memory; zero pad; the ICRC; zero MAC padding when the frame is shorter than 60 bytes.
//! No FCS.

use super::memory::LocalMemory;
use super::packetize::TxPacket;
use super::record::{mac_bytes, QpContext};
use crate::wire::{ethernet, ipv4, ipv6, ImmDtRepr, IpRepr, RoceFrame};
use std::net::IpAddr;

/// The IP header of a QP's packets (the payload length is derived when the frame is emitted).
fn ip_repr(ctx: &QpContext) -> IpRepr {
    let traffic_class = ctx.dscp << 2 | (ctx.ecn & 3);
    match (ctx.src_addr(), ctx.dst_addr()) {
        (IpAddr::V4(src), IpAddr::V4(dst)) => IpRepr::V4(ipv4::Repr {
            src,
            dst,
            tos: traffic_class,
            ident: 0,
            dont_frag: true,
            more_frags: false,
            frag_offset: 0,
            ttl: ctx.ttl,
            protocol: ipv4::PROTO_UDP,
            payload_len: 0,
        }),
        (IpAddr::V6(src), IpAddr::V6(dst)) => IpRepr::V6(ipv6::Repr {
            src,
            dst,
            traffic_class,
            flow_label: ctx.flow_label,
            next_header: ipv4::PROTO_UDP,
            hop_limit: ctx.ttl,
            payload_len: 0,
        }),
        _ => unreachable!("both addresses follow ip_v6"),
    }
}

/// The frame of `packet` (lengths, checksum and ICRC are derived by [`RoceFrame::emit`]).
pub fn frame_repr(packet: &TxPacket, ctx: &QpContext, memory: &dyn LocalMemory) -> RoceFrame {
    let eth = ethernet::Repr {
        dst: mac_bytes(ctx.dst_mac),
        src: mac_bytes(ctx.src_mac),
        vlans: Vec::new(),
        ethertype: 0,
    };
    let payload = memory.bytes(packet.local_addr, packet.payload_len as usize);
    let mut frame = RoceFrame::new(eth, ip_repr(ctx), packet.bth, payload);
    frame.udp_src_port = ctx.udp_sport;
    frame.ext.reth = packet.reth;
    frame.ext.immdt = packet.immediate.map(|imm| ImmDtRepr { imm });
    frame.ext.aeth = packet.aeth;
    frame.normalize();
    frame
}

/// The bytes of `packet`'s frame.
pub fn frame_bytes(packet: &TxPacket, ctx: &QpContext, memory: &dyn LocalMemory) -> Vec<u8> {
    frame_repr(packet, ctx, memory).emit()
}
