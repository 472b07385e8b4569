//! IPv6 fixed header (40 bytes; extension headers are not interpreted).

use crate::field::{be16, be32, put16, put32};
use crate::view::view;
use crate::{Error, Result};
use std::net::Ipv6Addr;

pub use ferroce_contracts::ipv6::{field, HEADER_LEN, VERSION};

/// Shift of the version in [`field::VERSION_CLASS_FLOW`] (as a 32-bit value).
const VERSION_SHIFT: u32 = 28;
/// Shift of the traffic class in [`field::VERSION_CLASS_FLOW`].
const CLASS_SHIFT: u32 = 20;
/// Mask of the flow label (20 bits) in [`field::VERSION_CLASS_FLOW`].
const FLOW_MASK: u32 = 0xF_FFFF;

view!("A checked view of an IPv6 header (and the packet it heads) over a byte buffer.");

impl<T: AsRef<[u8]>> Packet<T> {
    /// Checks that the buffer holds the 40-byte header and the payload length it announces
    /// (extra bytes, e.g. MAC padding, are allowed).
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < HEADER_LEN || len < HEADER_LEN + usize::from(self.payload_len()) {
            return Err(Error::Truncated);
        }
        Ok(())
    }
    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }
    /// Version nibble (6): the high nibble of the first byte.
    pub fn version(&self) -> u8 {
        self.b()[field::VERSION_CLASS_FLOW.start] >> 4
    }
    /// Traffic class (8 bits). Masked in the ICRC.
    pub fn traffic_class(&self) -> u8 {
        (be32(self.b(), field::VERSION_CLASS_FLOW) >> CLASS_SHIFT) as u8
    }
    /// Flow label (20 bits). Masked in the ICRC.
    pub fn flow_label(&self) -> u32 {
        be32(self.b(), field::VERSION_CLASS_FLOW) & FLOW_MASK
    }
    /// Payload length (bytes after the fixed header).
    pub fn payload_len(&self) -> u16 {
        be16(self.b(), field::PAYLOAD_LEN)
    }
    /// Next header (17 for UDP).
    pub fn next_header(&self) -> u8 {
        self.b()[field::NEXT_HEADER]
    }
    /// Hop limit. Masked in the ICRC.
    pub fn hop_limit(&self) -> u8 {
        self.b()[field::HOP_LIMIT]
    }
    /// Source address.
    pub fn src_addr(&self) -> Ipv6Addr {
        Ipv6Addr::from(<[u8; 16]>::try_from(&self.b()[field::SOURCE]).unwrap())
    }
    /// Destination address.
    pub fn dst_addr(&self) -> Ipv6Addr {
        Ipv6Addr::from(<[u8; 16]>::try_from(&self.b()[field::DESTINATION]).unwrap())
    }
    /// The payload bytes (per the payload length).
    pub fn payload(&self) -> &[u8] {
        &self.b()[HEADER_LEN..HEADER_LEN + usize::from(self.payload_len())]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    fn bm(&mut self) -> &mut [u8] {
        self.buffer.as_mut()
    }
    /// Sets version, traffic class and flow label (the first 4 bytes).
    pub fn set_version_tc_flow(&mut self, version: u8, tc: u8, flow: u32) {
        let w = (u32::from(version) << VERSION_SHIFT) | (u32::from(tc) << CLASS_SHIFT) | (flow & FLOW_MASK);
        put32(self.bm(), field::VERSION_CLASS_FLOW, w);
    }
    /// Sets the payload length.
    pub fn set_payload_len(&mut self, v: u16) {
        put16(self.bm(), field::PAYLOAD_LEN, v);
    }
    /// Sets the next header.
    pub fn set_next_header(&mut self, v: u8) {
        self.bm()[field::NEXT_HEADER] = v;
    }
    /// Sets the hop limit.
    pub fn set_hop_limit(&mut self, v: u8) {
        self.bm()[field::HOP_LIMIT] = v;
    }
    /// Sets the source address.
    pub fn set_src_addr(&mut self, a: Ipv6Addr) {
        self.bm()[field::SOURCE].copy_from_slice(&a.octets());
    }
    /// Sets the destination address.
    pub fn set_dst_addr(&mut self, a: Ipv6Addr) {
        self.bm()[field::DESTINATION].copy_from_slice(&a.octets());
    }
    /// Mutable payload (per the payload length).
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let end = HEADER_LEN + usize::from(self.payload_len());
        &mut self.bm()[HEADER_LEN..end]
    }
}

/// Parsed IPv6 fixed header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Repr {
    /// Source address.
    pub src: Ipv6Addr,
    /// Destination address.
    pub dst: Ipv6Addr,
    /// Traffic class (DSCP + ECN).
    pub traffic_class: u8,
    /// Flow label (20 bits).
    pub flow_label: u32,
    /// Next header.
    pub next_header: u8,
    /// Hop limit.
    pub hop_limit: u8,
    /// Payload length.
    pub payload_len: usize,
}

impl Repr {
    /// Parses a checked packet (version must be 6).
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        p.check_len()?;
        if p.version() != VERSION {
            return Err(Error::BadVersion(p.version()));
        }
        Ok(Repr {
            src: p.src_addr(),
            dst: p.dst_addr(),
            traffic_class: p.traffic_class(),
            flow_label: p.flow_label(),
            next_header: p.next_header(),
            hop_limit: p.hop_limit(),
            payload_len: usize::from(p.payload_len()),
        })
    }
    /// Header length (40).
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }
    /// Writes the 40-byte header into the start of `p`'s buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        if p.buffer.as_ref().len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        if self.flow_label > FLOW_MASK {
            return Err(Error::FieldRange("IPv6 flow label"));
        }
        if self.payload_len > usize::from(u16::MAX) {
            return Err(Error::FieldRange("IPv6 payload length"));
        }
        p.set_version_tc_flow(VERSION, self.traffic_class, self.flow_label);
        p.set_payload_len(self.payload_len as u16);
        p.set_next_header(self.next_header);
        p.set_hop_limit(self.hop_limit);
        p.set_src_addr(self.src);
        p.set_dst_addr(self.dst);
        Ok(())
    }
}
