//! The messages of the Linux tools' out-of-band exchanges, as checked views with `parse` and
//! `emit`: `ibv_rc_pingpong`'s address ([`PingpongAddress`]) and perftest's key
//! ([`PerftestKey`]), both fixed-length NUL-terminated text in hexadecimal; and the RoCEv2 GID
//! of an IPv4 address.

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

/// A message that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageError {
    /// Not the message's length.
    Length {
        /// The message's length.
        expected: usize,
        /// The length received.
        got: usize,
    },
    /// A field is missing or is not a number of its width.
    Field {
        /// The field.
        field: &'static str,
        /// The message as text.
        text: String,
    },
}

impl fmt::Display for MessageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MessageError::Length { expected, got } => write!(f, "{got} bytes, {expected} expected"),
            MessageError::Field { field, text } => write!(f, "no valid {field} in '{text}'"),
        }
    }
}

/// The RoCEv2 GID of an IPv4 address: `::ffff:a.b.c.d`, as Linux's GID table holds it.
pub fn ipv4_gid(ip: Ipv4Addr) -> [u8; 16] {
    ip.to_ipv6_mapped().octets()
}

/// The IPv4 address of an IPv4-mapped GID.
pub fn gid_ipv4(gid: &[u8; 16]) -> Option<Ipv4Addr> {
    Ipv6Addr::from(*gid).to_ipv4_mapped()
}

/// A text message of `N` bytes: the text, then NULs.
fn fixed_message<const N: usize>(text: &str) -> [u8; N] {
    let mut message = [0u8; N];
    message[..text.len()].copy_from_slice(text.as_bytes());
    message
}

/// The text of a message of `length` bytes, up to its first NUL.
fn checked_text(message: &[u8], length: usize) -> Result<String, MessageError> {
    if message.len() != length {
        return Err(MessageError::Length {
            expected: length,
            got: message.len(),
        });
    }
    Ok(message_text(message))
}

/// The text of a message up to its first NUL.
pub(super) fn message_text(message: &[u8]) -> String {
    let end = message.iter().position(|&b| b == 0).unwrap_or(message.len());
    String::from_utf8_lossy(&message[..end]).into_owned()
}

/// Parses the hexadecimal field `field` of at most `digits` digits.
fn hex_field(value: Option<&str>, field: &'static str, digits: usize, text: &str) -> Result<u64, MessageError> {
    let bad = || MessageError::Field {
        field,
        text: text.to_string(),
    };
    let value = value.ok_or_else(bad)?;
    if value.is_empty() || value.len() > digits {
        return Err(bad());
    }
    u64::from_str_radix(value, 16).map_err(|_| bad())
}

/// `ibv_rc_pingpong`'s address message: `LID:QPN:PSN:GID` in hexadecimal (4, 6, 6 and 32
/// digits, the GID's bytes in order), NUL-terminated, [`PingpongAddress::LEN`] bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PingpongAddress {
    /// LID (0 on RoCE).
    pub lid: u16,
    /// QP number.
    pub qpn: u32,
    /// The first PSN this side sends.
    pub psn: u32,
    /// GID.
    pub gid: [u8; 16],
}

impl PingpongAddress {
    /// Bytes of the message.
    pub const LEN: usize = 52;

    /// The message.
    pub fn emit(&self) -> [u8; Self::LEN] {
        let gid: String = self.gid.iter().map(|b| format!("{b:02x}")).collect();
        fixed_message(&format!(
            "{:04x}:{:06x}:{:06x}:{gid}",
            self.lid,
            self.qpn & 0xff_ffff,
            self.psn & 0xff_ffff
        ))
    }

    /// Parses a message.
    pub fn parse(message: &[u8]) -> Result<PingpongAddress, MessageError> {
        let text = checked_text(message, Self::LEN)?;
        let mut fields = text.split(':');
        let lid = hex_field(fields.next(), "LID", 4, &text)? as u16;
        let qpn = hex_field(fields.next(), "QPN", 6, &text)? as u32;
        let psn = hex_field(fields.next(), "PSN", 6, &text)? as u32;
        let gid_text = fields.next().filter(|g| g.len() == 32 && fields.next().is_none());
        let gid_text = gid_text.ok_or(MessageError::Field {
            field: "GID",
            text: text.clone(),
        })?;
        let mut gid = [0u8; 16];
        for (i, byte) in gid.iter_mut().enumerate() {
            *byte = hex_field(gid_text.get(2 * i..2 * i + 2), "GID", 2, &text)? as u8;
        }
        Ok(PingpongAddress { lid, qpn, psn, gid })
    }
}

/// perftest's key message (`KEY_PRINT_FMT_GID`): LID, outstanding reads, QPN, PSN, R_Key, VA,
/// the GID's 16 bytes and the SRQ number, each in hexadecimal and followed by `:`,
/// NUL-terminated, [`PerftestKey::LEN`] bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerftestKey {
    /// LID (0 on RoCE).
    pub lid: u16,
    /// RDMA READs this side takes in flight (the peer's limit on its requests).
    pub out_reads: u16,
    /// QP number.
    pub qpn: u32,
    /// The first PSN this side sends.
    pub psn: u32,
    /// R_Key of this side's buffer.
    pub rkey: u32,
    /// Address of this side's buffer (where the peer's RDMA WRITEs go).
    pub vaddr: u64,
    /// GID.
    pub gid: [u8; 16],
    /// SRQ number (0: none).
    pub srqn: u32,
}

impl PerftestKey {
    /// Bytes of the message.
    pub const LEN: usize = 108;

    /// The message.
    pub fn emit(&self) -> [u8; Self::LEN] {
        let mut text = format!(
            "{:04x}:{:04x}:{:06x}:{:06x}:{:08x}:{:016x}:",
            self.lid,
            self.out_reads,
            self.qpn & 0xff_ffff,
            self.psn & 0xff_ffff,
            self.rkey,
            self.vaddr
        );
        for b in self.gid {
            text += &format!("{b:02x}:");
        }
        text += &format!("{:08x}:", self.srqn);
        fixed_message(&text)
    }

    /// Parses a message.
    pub fn parse(message: &[u8]) -> Result<PerftestKey, MessageError> {
        let text = checked_text(message, Self::LEN)?;
        let mut fields = text.split(':');
        let mut next = |field, digits| hex_field(fields.next(), field, digits, &text);
        let lid = next("LID", 4)? as u16;
        let out_reads = next("out_reads", 4)? as u16;
        let qpn = next("QPN", 6)? as u32;
        let psn = next("PSN", 6)? as u32;
        let rkey = next("R_Key", 8)? as u32;
        let vaddr = next("VA", 16)?;
        let mut gid = [0u8; 16];
        for byte in gid.iter_mut() {
            *byte = next("GID", 2)? as u8;
        }
        let srqn = next("SRQN", 8)? as u32;
        Ok(PerftestKey {
            lid,
            out_reads,
            qpn,
            psn,
            rkey,
            vaddr,
            gid,
            srqn,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pingpong_address_round_trips_as_rdma_core_prints_it() {
        let a = PingpongAddress {
            lid: 0,
            qpn: 0x11,
            psn: 0x2468,
            gid: ipv4_gid(Ipv4Addr::new(10, 0, 0, 1)),
        };
        let m = a.emit();
        assert_eq!(&m[..51], b"0000:000011:002468:00000000000000000000ffff0a000001");
        assert_eq!(m[51], 0);
        assert_eq!(PingpongAddress::parse(&m), Ok(a));
        assert!(matches!(PingpongAddress::parse(&m[..40]), Err(MessageError::Length { .. })));
        let mut bad = m;
        bad[10] = b'x';
        assert!(matches!(
            PingpongAddress::parse(&bad),
            Err(MessageError::Field { field: "QPN", .. })
        ));
    }

    #[test]
    fn a_perftest_key_is_108_bytes_in_keys_print_fmt_gid_and_round_trips() {
        let k = PerftestKey {
            lid: 0,
            out_reads: 1,
            qpn: 0x123,
            psn: 0xabcdef,
            rkey: 0x1234,
            vaddr: 0x7f00_0001_0000,
            gid: ipv4_gid(Ipv4Addr::new(192, 168, 1, 2)),
            srqn: 0,
        };
        let m = k.emit();
        let text = b"0000:0001:000123:abcdef:00001234:00007f0000010000:00:00:00:00:00:00:00:00:00:00:ff:ff:c0:a8:01:02:00000000:";
        assert_eq!(text.len(), 107);
        assert_eq!(&m[..107], text);
        assert_eq!(m[107], 0);
        assert_eq!(PerftestKey::parse(&m), Ok(k));
        let mut bad = m;
        bad[60] = b'g';
        assert!(matches!(PerftestKey::parse(&bad), Err(MessageError::Field { field: "GID", .. })));
    }

    #[test]
    fn gids_map_ipv4_both_ways_and_refuse_others() {
        let ip = Ipv4Addr::new(10, 0, 0, 2);
        assert_eq!(gid_ipv4(&ipv4_gid(ip)), Some(ip));
        let link_local: [u8; 16] = "fe80::5054:ff:fe12:3456".parse::<Ipv6Addr>().unwrap().octets();
        assert_eq!(gid_ipv4(&link_local), None);
    }
}
