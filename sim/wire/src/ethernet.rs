//! Ethernet II header with zero, one or two VLAN tags (802.1Q / 802.1ad).
//!
//! Layout: dst MAC (6), src MAC (6), then up to two 4-byte tags (TPID 0x8100 or 0x88A8 followed
//! by PCP(3) DEI(1) VID(12)), then the ethertype. The frame carries no FCS.

use crate::field::{be16, put16, shift, Field};
use crate::view::view;
use crate::{Error, Result};

pub use ferroce_contracts::ethernet::{
    field, header_len, vlan_field, ETHERTYPE_ARP, ETHERTYPE_IPV4, ETHERTYPE_IPV6, HEADER_LEN, MAX_VLANS, MIN_FRAME_LEN, TPID_8021AD,
    TPID_8021Q, VID_MASK, VLAN_TAG_LEN, VLAN_TPIDS,
};

/// A 48-bit MAC address.
pub type MacAddr = [u8; 6];

/// True for the TPIDs this crate recognises as VLAN tags ([`VLAN_TPIDS`]: 0x8100, 0x88A8).
pub fn is_vlan_tpid(t: u16) -> bool {
    VLAN_TPIDS.contains(&t)
}

/// The ethertype field after `tags` VLAN tags (also the TPID of tag `tags`, if there is one).
pub(crate) fn ethertype_field(tags: usize) -> Field {
    shift(field::ETHERTYPE, VLAN_TAG_LEN * tags)
}

/// Field `f` (a [`vlan_field`]) of VLAN tag `i` (0 = outermost), from the frame start.
fn vlan_tag_field(i: usize, f: Field) -> Field {
    shift(f, ethertype_field(i).start)
}

/// TCI bits of the PCP (3 bits, on top).
const PCP_SHIFT: u32 = 13;
/// TCI bit of the DEI.
const DEI_BIT: u16 = 0x1000;

/// One VLAN tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VlanTag {
    /// Tag protocol identifier: 0x8100 or 0x88A8.
    pub tpid: u16,
    /// Priority code point (3 bits).
    pub pcp: u8,
    /// Drop eligible indicator.
    pub dei: bool,
    /// VLAN identifier (12 bits).
    pub vid: u16,
}

impl VlanTag {
    /// Decodes a tag from its TPID and 16-bit TCI.
    pub fn from_tci(tpid: u16, tci: u16) -> VlanTag {
        VlanTag {
            tpid,
            pcp: (tci >> PCP_SHIFT) as u8,
            dei: tci & DEI_BIT != 0,
            vid: tci & VID_MASK,
        }
    }
    /// The 16-bit tag control information (PCP, DEI, VID).
    pub fn tci(&self) -> u16 {
        (u16::from(self.pcp & 7) << PCP_SHIFT) | (if self.dei { DEI_BIT } else { 0 }) | (self.vid & VID_MASK)
    }
    fn check(&self) -> Result<()> {
        if !is_vlan_tpid(self.tpid) {
            return Err(Error::BadTpid(self.tpid));
        }
        if self.pcp > 7 {
            return Err(Error::FieldRange("VLAN PCP"));
        }
        if self.vid > VID_MASK {
            return Err(Error::FieldRange("VLAN VID"));
        }
        Ok(())
    }
}

view!("A checked view of an Ethernet header (with its VLAN tags) over a byte buffer.");

impl<T: AsRef<[u8]>> Packet<T> {
    /// Checks the buffer length against the header length implied by the VLAN tags.
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        let mut tags = 0;
        loop {
            let et = ethertype_field(tags);
            if b.len() < et.end {
                return Err(Error::Truncated);
            }
            if !is_vlan_tpid(be16(b, et)) {
                return Ok(());
            }
            tags += 1;
            if tags > MAX_VLANS {
                return Err(Error::TooManyVlans);
            }
        }
    }

    /// Destination MAC address.
    pub fn dst_addr(&self) -> MacAddr {
        self.buffer.as_ref()[field::DESTINATION].try_into().unwrap()
    }

    /// Source MAC address.
    pub fn src_addr(&self) -> MacAddr {
        self.buffer.as_ref()[field::SOURCE].try_into().unwrap()
    }

    /// Number of VLAN tags (0..=2 on a checked packet).
    pub fn vlan_count(&self) -> usize {
        let b = self.buffer.as_ref();
        let mut n = 0;
        while n < MAX_VLANS && b.len() >= ethertype_field(n).end && is_vlan_tpid(be16(b, ethertype_field(n))) {
            n += 1;
        }
        n
    }

    /// VLAN tag number `i` (0 = outermost). Panics if `i >= vlan_count()`.
    pub fn vlan(&self, i: usize) -> VlanTag {
        assert!(i < self.vlan_count(), "no VLAN tag {i}");
        let b = self.buffer.as_ref();
        VlanTag::from_tci(
            be16(b, vlan_tag_field(i, vlan_field::TPID)),
            be16(b, vlan_tag_field(i, vlan_field::TCI)),
        )
    }

    /// Header length: 14 + 4 per VLAN tag.
    pub fn header_len(&self) -> usize {
        header_len(self.vlan_count())
    }

    /// The ethertype following the VLAN tags.
    pub fn ethertype(&self) -> u16 {
        be16(self.buffer.as_ref(), ethertype_field(self.vlan_count()))
    }

    /// The bytes after the header.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len()..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the destination MAC address.
    pub fn set_dst_addr(&mut self, a: MacAddr) {
        self.buffer.as_mut()[field::DESTINATION].copy_from_slice(&a);
    }
    /// Sets the source MAC address.
    pub fn set_src_addr(&mut self, a: MacAddr) {
        self.buffer.as_mut()[field::SOURCE].copy_from_slice(&a);
    }
    /// Overwrites VLAN tag `i` in place (the tag must exist).
    pub fn set_vlan(&mut self, i: usize, tag: VlanTag) {
        assert!(i < self.vlan_count(), "no VLAN tag {i}");
        let b = self.buffer.as_mut();
        put16(b, vlan_tag_field(i, vlan_field::TPID), tag.tpid);
        put16(b, vlan_tag_field(i, vlan_field::TCI), tag.tci());
    }
    /// Sets the ethertype that follows the existing VLAN tags.
    pub fn set_ethertype(&mut self, t: u16) {
        let et = ethertype_field(self.vlan_count());
        put16(self.buffer.as_mut(), et, t);
    }
    /// Mutable bytes after the header.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let at = self.header_len();
        &mut self.buffer.as_mut()[at..]
    }
}

/// Parsed Ethernet header.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Repr {
    /// Destination MAC.
    pub dst: MacAddr,
    /// Source MAC.
    pub src: MacAddr,
    /// VLAN tags, outermost first (0–2).
    pub vlans: Vec<VlanTag>,
    /// Ethertype after the tags.
    pub ethertype: u16,
}

impl Repr {
    /// Parses a checked packet.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        p.check_len()?;
        let vlans = (0..p.vlan_count()).map(|i| p.vlan(i)).collect();
        Ok(Repr {
            dst: p.dst_addr(),
            src: p.src_addr(),
            vlans,
            ethertype: p.ethertype(),
        })
    }

    /// Header length this representation emits.
    pub fn buffer_len(&self) -> usize {
        header_len(self.vlans.len())
    }

    /// Writes the header into the start of `p`'s buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        if self.vlans.len() > MAX_VLANS {
            return Err(Error::TooManyVlans);
        }
        for v in &self.vlans {
            v.check()?;
        }
        if is_vlan_tpid(self.ethertype) {
            return Err(Error::FieldRange("ethertype is a VLAN TPID"));
        }
        let b = p.buffer.as_mut();
        if b.len() < self.buffer_len() {
            return Err(Error::Truncated);
        }
        b[field::DESTINATION].copy_from_slice(&self.dst);
        b[field::SOURCE].copy_from_slice(&self.src);
        for (i, v) in self.vlans.iter().enumerate() {
            put16(b, vlan_tag_field(i, vlan_field::TPID), v.tpid);
            put16(b, vlan_tag_field(i, vlan_field::TCI), v.tci());
        }
        put16(b, ethertype_field(self.vlans.len()), self.ethertype);
        Ok(())
    }
}
