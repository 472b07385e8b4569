//! IPv4 header. The view handles any IHL >= 5; [`Repr`] handles IHL 5 only (what RoCEv2 uses:
//! Linux rxe drops IPv4 packets with options), and reports any other IHL as [`Error::BadIhl`].

use crate::field::{be16, put16};
use crate::view::view;
use crate::{Error, Result};
use std::net::Ipv4Addr;

pub use ferroce_contracts::ipv4::{
    field, FLAG_DF, FLAG_MF, FLAG_RESERVED, FRAGMENT_OFFSET_MASK, HEADER_LEN, IHL, PROTO_TCP, PROTO_UDP, VERSION,
};

/// Bytes per IHL unit (the IHL counts 32-bit words).
pub(crate) const IHL_UNIT: usize = 4;
/// The IHL bits of [`field::VERSION_IHL`] (the version is the high nibble).
pub(crate) const IHL_MASK: u8 = 0x0F;

/// Internet checksum (ones' complement of the ones' complement sum) of `data`.
/// Over a header whose checksum field is already filled in, a correct header gives 0.
pub fn checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u32::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        sum += u32::from(*last) << 8;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

view!("A checked view of an IPv4 header (and the packet it heads) over a byte buffer.");

impl<T: AsRef<[u8]>> Packet<T> {
    /// Checks that the buffer holds 20 bytes, that IHL >= 5, and that
    /// header length <= total length <= buffer length (extra bytes, e.g. MAC padding, are allowed).
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < HEADER_LEN {
            return Err(Error::Truncated);
        }
        if self.ihl() < IHL {
            return Err(Error::BadIhl(self.ihl()));
        }
        if len < self.header_len() {
            return Err(Error::Truncated);
        }
        let total = usize::from(self.total_len());
        if total < self.header_len() {
            return Err(Error::BadLength);
        }
        if total > len {
            return Err(Error::Truncated);
        }
        Ok(())
    }
    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }
    /// Version nibble (4 for IPv4).
    pub fn version(&self) -> u8 {
        self.b()[field::VERSION_IHL] >> 4
    }
    /// Internet header length in 32-bit words.
    pub fn ihl(&self) -> u8 {
        self.b()[field::VERSION_IHL] & IHL_MASK
    }
    /// Header length in bytes (IHL × 4).
    pub fn header_len(&self) -> usize {
        usize::from(self.ihl()) * IHL_UNIT
    }
    /// Byte 1: DSCP (6 bits) and ECN (2 bits). Masked in the ICRC.
    pub fn tos(&self) -> u8 {
        self.b()[field::DSCP_ECN]
    }
    /// DSCP (upper 6 bits of byte 1).
    pub fn dscp(&self) -> u8 {
        self.b()[field::DSCP_ECN] >> 2
    }
    /// ECN (lower 2 bits of byte 1).
    pub fn ecn(&self) -> u8 {
        self.b()[field::DSCP_ECN] & 3
    }
    /// Total length (header + payload).
    pub fn total_len(&self) -> u16 {
        be16(self.b(), field::TOTAL_LEN)
    }
    /// Identification.
    pub fn ident(&self) -> u16 {
        be16(self.b(), field::IDENT)
    }
    /// Don't-fragment flag.
    pub fn dont_frag(&self) -> bool {
        self.flags_frag() & FLAG_DF != 0
    }
    /// More-fragments flag.
    pub fn more_frags(&self) -> bool {
        self.flags_frag() & FLAG_MF != 0
    }
    /// Reserved flag bit (bit 0 of the flags).
    pub fn reserved_flag(&self) -> bool {
        self.flags_frag() & FLAG_RESERVED != 0
    }
    /// Fragment offset in 8-byte units.
    pub fn frag_offset(&self) -> u16 {
        self.flags_frag() & FRAGMENT_OFFSET_MASK
    }
    /// The 16 bits of flags (reserved, DF, MF) and fragment offset.
    fn flags_frag(&self) -> u16 {
        be16(self.b(), field::FLAGS_FRAGMENT)
    }
    /// Time to live. Masked in the ICRC.
    pub fn ttl(&self) -> u8 {
        self.b()[field::TTL]
    }
    /// Protocol (17 for UDP).
    pub fn protocol(&self) -> u8 {
        self.b()[field::PROTOCOL]
    }
    /// Header checksum. Masked in the ICRC.
    pub fn checksum(&self) -> u16 {
        be16(self.b(), field::CHECKSUM)
    }
    /// Source address.
    pub fn src_addr(&self) -> Ipv4Addr {
        Ipv4Addr::from(<[u8; 4]>::try_from(&self.b()[field::SOURCE]).unwrap())
    }
    /// Destination address.
    pub fn dst_addr(&self) -> Ipv4Addr {
        Ipv4Addr::from(<[u8; 4]>::try_from(&self.b()[field::DESTINATION]).unwrap())
    }
    /// Checksum computed over the header (with the checksum field taken as zero).
    pub fn compute_checksum(&self) -> u16 {
        let mut h = self.b()[..self.header_len()].to_vec();
        h[field::CHECKSUM].fill(0);
        checksum(&h)
    }
    /// True when the header checksum verifies.
    pub fn verify_checksum(&self) -> bool {
        checksum(&self.b()[..self.header_len()]) == 0
    }
    /// The bytes from the end of the header to the end given by the total length.
    pub fn payload(&self) -> &[u8] {
        &self.b()[self.header_len()..usize::from(self.total_len())]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    fn bm(&mut self) -> &mut [u8] {
        self.buffer.as_mut()
    }
    /// Sets version and IHL.
    pub fn set_version_ihl(&mut self, version: u8, ihl: u8) {
        self.bm()[field::VERSION_IHL] = (version << 4) | (ihl & IHL_MASK);
    }
    /// Sets byte 1 (DSCP + ECN).
    pub fn set_tos(&mut self, v: u8) {
        self.bm()[field::DSCP_ECN] = v;
    }
    /// Sets the total length.
    pub fn set_total_len(&mut self, v: u16) {
        put16(self.bm(), field::TOTAL_LEN, v);
    }
    /// Sets the identification.
    pub fn set_ident(&mut self, v: u16) {
        put16(self.bm(), field::IDENT, v);
    }
    /// Sets the flags (reserved, DF, MF) and the fragment offset.
    pub fn set_flags_frag(&mut self, reserved: bool, df: bool, mf: bool, frag_offset: u16) {
        let flag = |set: bool, f: u16| if set { f } else { 0 };
        let v = flag(reserved, FLAG_RESERVED) | flag(df, FLAG_DF) | flag(mf, FLAG_MF) | (frag_offset & FRAGMENT_OFFSET_MASK);
        put16(self.bm(), field::FLAGS_FRAGMENT, v);
    }
    /// Sets the TTL.
    pub fn set_ttl(&mut self, v: u8) {
        self.bm()[field::TTL] = v;
    }
    /// Sets the protocol.
    pub fn set_protocol(&mut self, v: u8) {
        self.bm()[field::PROTOCOL] = v;
    }
    /// Sets the checksum field as given.
    pub fn set_checksum(&mut self, v: u16) {
        put16(self.bm(), field::CHECKSUM, v);
    }
    /// Sets the source address.
    pub fn set_src_addr(&mut self, a: Ipv4Addr) {
        self.bm()[field::SOURCE].copy_from_slice(&a.octets());
    }
    /// Sets the destination address.
    pub fn set_dst_addr(&mut self, a: Ipv4Addr) {
        self.bm()[field::DESTINATION].copy_from_slice(&a.octets());
    }
    /// Computes and writes the header checksum.
    pub fn fill_checksum(&mut self) {
        let c = self.compute_checksum();
        self.set_checksum(c);
    }
    /// Mutable payload (per the total length).
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let (h, t) = (self.header_len(), usize::from(self.total_len()));
        &mut self.bm()[h..t]
    }
}

/// Parsed IPv4 header (IHL 5, no options). Length and checksum are derived on emit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Repr {
    /// Source address.
    pub src: Ipv4Addr,
    /// Destination address.
    pub dst: Ipv4Addr,
    /// Byte 1: DSCP and ECN.
    pub tos: u8,
    /// Identification.
    pub ident: u16,
    /// Don't-fragment flag.
    pub dont_frag: bool,
    /// More-fragments flag.
    pub more_frags: bool,
    /// Fragment offset (13 bits, 8-byte units).
    pub frag_offset: u16,
    /// Time to live.
    pub ttl: u8,
    /// Protocol.
    pub protocol: u8,
    /// Payload length (total length − 20).
    pub payload_len: usize,
}

impl Repr {
    /// Parses a checked packet: version must be 4, IHL 5, the reserved flag clear and the
    /// checksum valid.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        p.check_len()?;
        if p.version() != VERSION {
            return Err(Error::BadVersion(p.version()));
        }
        if p.ihl() != IHL {
            return Err(Error::BadIhl(p.ihl()));
        }
        if p.reserved_flag() {
            return Err(Error::FieldRange("IPv4 reserved flag set"));
        }
        if !p.verify_checksum() {
            return Err(Error::BadChecksum {
                wire: p.checksum(),
                computed: p.compute_checksum(),
            });
        }
        Ok(Repr {
            src: p.src_addr(),
            dst: p.dst_addr(),
            tos: p.tos(),
            ident: p.ident(),
            dont_frag: p.dont_frag(),
            more_frags: p.more_frags(),
            frag_offset: p.frag_offset(),
            ttl: p.ttl(),
            protocol: p.protocol(),
            payload_len: usize::from(p.total_len()) - HEADER_LEN,
        })
    }

    /// Header length (always 20).
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the 20-byte header (IHL 5, total length from `payload_len`, checksum computed)
    /// into the start of `p`'s buffer. The payload is not touched.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        if p.buffer.as_ref().len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        if self.payload_len > usize::from(u16::MAX) - HEADER_LEN {
            return Err(Error::FieldRange("IPv4 payload length"));
        }
        if self.frag_offset > FRAGMENT_OFFSET_MASK {
            return Err(Error::FieldRange("IPv4 fragment offset"));
        }
        p.set_version_ihl(VERSION, IHL);
        p.set_tos(self.tos);
        p.set_total_len((HEADER_LEN + self.payload_len) as u16);
        p.set_ident(self.ident);
        p.set_flags_frag(false, self.dont_frag, self.more_frags, self.frag_offset);
        p.set_ttl(self.ttl);
        p.set_protocol(self.protocol);
        p.set_src_addr(self.src);
        p.set_dst_addr(self.dst);
        p.set_checksum(0);
        let c = checksum(&p.buffer.as_ref()[..HEADER_LEN]);
        p.set_checksum(c);
        Ok(())
    }
}
