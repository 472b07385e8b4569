//! UDP header. The checksum is stored as a plain value: RoCEv2 sends 0 on IPv4, and it is
//! masked in the ICRC, so this crate neither computes nor verifies it.

use crate::field::{be16, put16};
use crate::view::view;
use crate::{Error, Result};

pub use ferroce_contracts::udp::{field, HEADER_LEN, ROCEV2_PORT};

view!("A checked view of a UDP header (and datagram) over a byte buffer.");

impl<T: AsRef<[u8]>> Packet<T> {
    /// Checks 8 <= length field <= buffer length.
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < HEADER_LEN {
            return Err(Error::Truncated);
        }
        let l = usize::from(self.len());
        if l < HEADER_LEN {
            return Err(Error::BadLength);
        }
        if l > len {
            return Err(Error::Truncated);
        }
        Ok(())
    }
    /// Source port.
    pub fn src_port(&self) -> u16 {
        be16(self.buffer.as_ref(), field::SRC_PORT)
    }
    /// Destination port.
    pub fn dst_port(&self) -> u16 {
        be16(self.buffer.as_ref(), field::DST_PORT)
    }
    /// Length field (header + payload).
    pub fn len(&self) -> u16 {
        be16(self.buffer.as_ref(), field::LENGTH)
    }
    /// True when the length field is zero (never for a valid datagram).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Checksum field. Masked in the ICRC.
    pub fn checksum(&self) -> u16 {
        be16(self.buffer.as_ref(), field::CHECKSUM)
    }
    /// Payload (per the length field).
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..usize::from(self.len())]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the source port.
    pub fn set_src_port(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::SRC_PORT, v);
    }
    /// Sets the destination port.
    pub fn set_dst_port(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::DST_PORT, v);
    }
    /// Sets the length field.
    pub fn set_len(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::LENGTH, v);
    }
    /// Sets the checksum field.
    pub fn set_checksum(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::CHECKSUM, v);
    }
    /// Mutable payload (per the length field).
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let end = usize::from(self.len());
        &mut self.buffer.as_mut()[HEADER_LEN..end]
    }
}

/// Parsed UDP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Repr {
    /// Source port (RoCEv2: flow entropy).
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Checksum value, stored as is.
    pub checksum: u16,
    /// Payload length (length field − 8).
    pub payload_len: usize,
}

impl Repr {
    /// Parses a checked packet.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        p.check_len()?;
        Ok(Repr {
            src_port: p.src_port(),
            dst_port: p.dst_port(),
            checksum: p.checksum(),
            payload_len: usize::from(p.len()) - HEADER_LEN,
        })
    }
    /// Header length (8).
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }
    /// Writes the 8-byte header (length = 8 + `payload_len`) into the start of `p`'s buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        if p.buffer.as_ref().len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        if self.payload_len > usize::from(u16::MAX) - HEADER_LEN {
            return Err(Error::FieldRange("UDP length"));
        }
        p.set_src_port(self.src_port);
        p.set_dst_port(self.dst_port);
        p.set_len((HEADER_LEN + self.payload_len) as u16);
        p.set_checksum(self.checksum);
        Ok(())
    }
}
