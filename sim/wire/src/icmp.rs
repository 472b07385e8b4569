//! ICMP for IPv4 (RFC 792): the echo request and echo reply the engine answers.
//!
//! The view's buffer is the whole ICMP message (the IP payload: total length − 20 bytes), as
//! the checksum covers the whole message. The view reads the echo header (type, code,
//! checksum, identifier, sequence number) of any message; [`Repr`] handles echo messages only.

use crate::field::{be16, put16};
use crate::ipv4::checksum;
use crate::view::view;
use crate::{Error, Result};

pub use ferroce_contracts::icmp::{field, ECHO_HEADER_LEN, ECHO_REPLY, ECHO_REQUEST};
/// The IPv4 protocol number of ICMP (`ferroce_contracts::ipv4::PROTO_ICMP`).
pub use ferroce_contracts::ipv4::PROTO_ICMP;

/// The one code of an echo request or reply.
pub const ECHO_CODE: u8 = 0;

/// Ones'-complement 16-bit addition: the sum with its carry added back in (end-around carry).
pub fn ones_add(a: u16, b: u16) -> u16 {
    let (sum, carry) = a.overflowing_add(b);
    sum + u16::from(carry)
}

/// The checksum after a 16-bit word of the message changes from `old` to `new`, from the old
/// checksum alone (RFC 1624, eqn. 3): `HC' = ~(~HC +' ~old +' new)`.
///
/// It equals the checksum computed from scratch except when every other word of the new
/// message is zero (from scratch gives 0xFFFF, the update 0x0000).
pub fn update_checksum(checksum: u16, old: u16, new: u16) -> u16 {
    !ones_add(ones_add(!checksum, !old), new)
}

view!("A checked view of an ICMP echo message over a byte buffer (the whole message).");

impl<T: AsRef<[u8]>> Packet<T> {
    /// Checks that the buffer holds the 8-byte echo header.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < ECHO_HEADER_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }
    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }
    /// Message type (8: echo request, 0: echo reply).
    pub fn msg_type(&self) -> u8 {
        self.b()[field::TYPE]
    }
    /// Code (0 for echo messages).
    pub fn code(&self) -> u8 {
        self.b()[field::CODE]
    }
    /// Checksum field.
    pub fn checksum(&self) -> u16 {
        be16(self.b(), field::CHECKSUM)
    }
    /// Echo identifier.
    pub fn identifier(&self) -> u16 {
        be16(self.b(), field::IDENTIFIER)
    }
    /// Echo sequence number.
    pub fn sequence(&self) -> u16 {
        be16(self.b(), field::SEQUENCE)
    }
    /// The echo data: every byte after the header.
    pub fn data(&self) -> &[u8] {
        &self.b()[ECHO_HEADER_LEN..]
    }
    /// Checksum computed over the whole message with the checksum field taken as zero.
    pub fn compute_checksum(&self) -> u16 {
        let mut m = self.b().to_vec();
        m[field::CHECKSUM].fill(0);
        checksum(&m)
    }
    /// True when the checksum verifies over the whole message.
    pub fn verify_checksum(&self) -> bool {
        checksum(self.b()) == 0
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    fn bm(&mut self) -> &mut [u8] {
        self.buffer.as_mut()
    }
    /// Sets the message type.
    pub fn set_msg_type(&mut self, v: u8) {
        self.bm()[field::TYPE] = v;
    }
    /// Sets the code.
    pub fn set_code(&mut self, v: u8) {
        self.bm()[field::CODE] = v;
    }
    /// Sets the checksum field as given.
    pub fn set_checksum(&mut self, v: u16) {
        put16(self.bm(), field::CHECKSUM, v);
    }
    /// Sets the echo identifier.
    pub fn set_identifier(&mut self, v: u16) {
        put16(self.bm(), field::IDENTIFIER, v);
    }
    /// Sets the echo sequence number.
    pub fn set_sequence(&mut self, v: u16) {
        put16(self.bm(), field::SEQUENCE, v);
    }
    /// Mutable echo data.
    pub fn data_mut(&mut self) -> &mut [u8] {
        &mut self.bm()[ECHO_HEADER_LEN..]
    }
    /// Computes and writes the checksum over the whole message.
    pub fn fill_checksum(&mut self) {
        let c = self.compute_checksum();
        self.set_checksum(c);
    }
}

/// Parsed ICMP echo message. The checksum is verified on parse and computed on emit.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Repr {
    /// Echo request (type 8, code 0).
    EchoRequest {
        /// Identifier.
        identifier: u16,
        /// Sequence number.
        sequence: u16,
        /// Data.
        data: Vec<u8>,
    },
    /// Echo reply (type 0, code 0).
    EchoReply {
        /// Identifier.
        identifier: u16,
        /// Sequence number.
        sequence: u16,
        /// Data.
        data: Vec<u8>,
    },
}

impl Repr {
    /// Parses a checked message: the checksum must verify ([`Error::BadIcmpChecksum`]) and
    /// the message be an echo request or reply with code 0 ([`Error::FieldRange`] otherwise).
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        p.check_len()?;
        if !p.verify_checksum() {
            return Err(Error::BadIcmpChecksum {
                wire: p.checksum(),
                computed: p.compute_checksum(),
            });
        }
        if p.code() != ECHO_CODE {
            return Err(Error::FieldRange("ICMP echo code is not 0"));
        }
        let (identifier, sequence, data) = (p.identifier(), p.sequence(), p.data().to_vec());
        match p.msg_type() {
            ECHO_REQUEST => Ok(Repr::EchoRequest {
                identifier,
                sequence,
                data,
            }),
            ECHO_REPLY => Ok(Repr::EchoReply {
                identifier,
                sequence,
                data,
            }),
            _ => Err(Error::FieldRange("ICMP type is not echo request or reply")),
        }
    }

    /// Message type on the wire.
    pub const fn msg_type(&self) -> u8 {
        match self {
            Repr::EchoRequest { .. } => ECHO_REQUEST,
            Repr::EchoReply { .. } => ECHO_REPLY,
        }
    }

    /// Message length: the echo header and the data.
    pub fn buffer_len(&self) -> usize {
        match self {
            Repr::EchoRequest { data, .. } | Repr::EchoReply { data, .. } => ECHO_HEADER_LEN + data.len(),
        }
    }

    /// Writes the message and its checksum into `p`'s buffer, which must be exactly
    /// [`Repr::buffer_len`] bytes (the checksum covers the whole buffer): shorter is
    /// [`Error::Truncated`], longer [`Error::BadLength`].
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        let len = p.buffer.as_ref().len();
        if len < self.buffer_len() {
            return Err(Error::Truncated);
        }
        if len > self.buffer_len() {
            return Err(Error::BadLength);
        }
        let (Repr::EchoRequest {
            identifier,
            sequence,
            data,
        }
        | Repr::EchoReply {
            identifier,
            sequence,
            data,
        }) = self;
        p.set_msg_type(self.msg_type());
        p.set_code(ECHO_CODE);
        p.set_identifier(*identifier);
        p.set_sequence(*sequence);
        p.data_mut().copy_from_slice(data);
        p.fill_checksum();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipv4;
    use std::net::Ipv4Addr;

    /// The data of Linux `ping`'s default 56-byte echo: a 16-byte `struct timeval`, then the
    /// bytes 0x10..=0x37.
    fn ping_data() -> Vec<u8> {
        let mut d = vec![0x2d, 0x08, 0xf4, 0x60, 0, 0, 0, 0, 0x6c, 0x83, 0x0d, 0, 0, 0, 0, 0];
        d.extend(0x10..=0x37u8);
        d
    }

    /// `ping localhost` on Linux as `tcpdump -i lo -X` shows it (a published capture): the IP
    /// datagram of the echo request, id 21780, seq 1.
    fn ping_request() -> Vec<u8> {
        let mut v = vec![
            0x45, 0x00, 0x00, 0x54, 0x92, 0x10, 0x40, 0x00, 0x40, 0x01, 0xaa, 0x96, 0x7f, 0x00, 0x00, 0x01, 0x7f, 0x00, 0x00,
            0x01, // IP
            0x08, 0x00, 0x49, 0x2b, 0x55, 0x14, 0x00, 0x01, // ICMP echo request
        ];
        v.extend(ping_data());
        v
    }

    /// The kernel's reply in the same capture: its ICMP message.
    fn ping_reply_message() -> Vec<u8> {
        let mut v = vec![0x00, 0x00, 0x51, 0x2b, 0x55, 0x14, 0x00, 0x01];
        v.extend(ping_data());
        v
    }

    #[test]
    fn captured_ping_request_parses_and_verifies() {
        let dgram = ping_request();
        let ip = ipv4::Packet::new_checked(&dgram[..]).unwrap();
        assert!(ip.verify_checksum());
        assert_eq!((ip.protocol(), ip.dst_addr()), (PROTO_ICMP, Ipv4Addr::LOCALHOST));
        let p = Packet::new_checked(ip.payload()).unwrap();
        assert!(p.verify_checksum());
        assert_eq!((p.checksum(), p.compute_checksum()), (0x492b, 0x492b));
        let r = Repr::parse(&p).unwrap();
        assert_eq!(
            r,
            Repr::EchoRequest {
                identifier: 21780,
                sequence: 1,
                data: ping_data(),
            }
        );
        let mut v = vec![0u8; r.buffer_len()];
        r.emit(&mut Packet::new_unchecked(&mut v[..])).unwrap();
        assert_eq!(v, ip.payload());
    }

    #[test]
    fn emitted_reply_is_the_kernels_reply() {
        let r = Repr::EchoReply {
            identifier: 21780,
            sequence: 1,
            data: ping_data(),
        };
        let mut v = vec![0u8; r.buffer_len()];
        r.emit(&mut Packet::new_unchecked(&mut v[..])).unwrap();
        assert_eq!(v, ping_reply_message());
        assert_eq!(Repr::parse(&Packet::new_checked(&v[..]).unwrap()).unwrap(), r);
    }

    #[test]
    fn incremental_update_gives_the_kernels_reply_checksum() {
        // Type 8 -> 0 changes the word of type and code from 0x0800 to 0x0000.
        assert_eq!(update_checksum(0x492b, 0x0800, 0x0000), 0x512b);
    }

    #[test]
    fn incremental_update_matches_rfc1624_example() {
        // RFC 1624 section 4: m 0x5555 -> 0x3285, HC 0xDD2F; recomputation gives 0x0000.
        assert_eq!(update_checksum(0xDD2F, 0x5555, 0x3285), 0x0000);
        assert_eq!(
            (ones_add(0xFFFF, 0x0001), ones_add(0x8000, 0x8000), ones_add(0x1234, 0)),
            (0x0001, 0x0001, 0x1234)
        );
    }

    #[test]
    fn incremental_update_matches_recomputation_unless_the_rest_is_zero() {
        let mut v = ping_reply_message();
        for (i, w) in [0x0000u16, 0x0001, 0xFFFF, 0x8000, 0x5514].into_iter().enumerate() {
            let mut p = Packet::new_unchecked(&mut v[..]);
            let (old, hc) = (p.identifier(), p.checksum());
            p.set_identifier(w);
            assert_eq!(update_checksum(hc, old, w), p.compute_checksum(), "case {i}");
            p.fill_checksum();
        }
        // Every word zero but the checksum: recomputation gives 0xFFFF, the update 0x0000.
        let mut z = [0u8; ECHO_HEADER_LEN];
        let mut p = Packet::new_unchecked(&mut z[..]);
        assert_eq!(p.compute_checksum(), 0xFFFF);
        p.set_msg_type(ECHO_REQUEST);
        p.fill_checksum();
        assert_eq!(p.checksum(), 0xF7FF);
        assert_eq!(update_checksum(p.checksum(), u16::from(ECHO_REQUEST) << 8, 0), 0x0000);
    }

    #[test]
    fn a_bad_checksum_is_refused() {
        let mut v = ping_reply_message();
        v[ECHO_HEADER_LEN] ^= 1;
        let p = Packet::new_checked(&v[..]).unwrap();
        assert!(!p.verify_checksum());
        assert_eq!(
            Repr::parse(&p),
            Err(Error::BadIcmpChecksum {
                wire: 0x512b,
                computed: p.compute_checksum(),
            })
        );
    }

    #[test]
    fn other_types_and_codes_are_refused() {
        for (msg_type, code) in [(3, 0), (13, 0), (ECHO_REQUEST, 1), (ECHO_REPLY, 255)] {
            let mut v = ping_reply_message();
            let mut p = Packet::new_unchecked(&mut v[..]);
            p.set_msg_type(msg_type);
            p.set_code(code);
            p.fill_checksum();
            assert!(matches!(Repr::parse(&p), Err(Error::FieldRange(_))), "type {msg_type} code {code}");
        }
    }

    #[test]
    fn round_trip_with_every_data_length() {
        for n in 0..70usize {
            let data: Vec<u8> = (0..n).map(|i| (i * 37 + n) as u8).collect();
            for r in [
                Repr::EchoRequest {
                    identifier: n as u16,
                    sequence: !(n as u16),
                    data: data.clone(),
                },
                Repr::EchoReply {
                    identifier: 0xBEEF,
                    sequence: n as u16,
                    data: data.clone(),
                },
            ] {
                let mut v = vec![0u8; r.buffer_len()];
                let mut p = Packet::new_unchecked(&mut v[..]);
                r.emit(&mut p).unwrap();
                assert!(p.verify_checksum(), "{n}");
                assert_eq!(Repr::parse(&p).unwrap(), r);
            }
        }
    }

    #[test]
    fn short_buffers_are_truncated_and_long_ones_refused_on_emit() {
        let msg = ping_reply_message();
        for n in 0..ECHO_HEADER_LEN {
            assert_eq!(Packet::new_checked(&msg[..n]).unwrap_err(), Error::Truncated, "{n} bytes");
        }
        let r = Repr::parse(&Packet::new_checked(&msg[..]).unwrap()).unwrap();
        let mut short = vec![0u8; r.buffer_len() - 1];
        assert_eq!(r.emit(&mut Packet::new_unchecked(&mut short[..])), Err(Error::Truncated));
        let mut long = vec![0u8; r.buffer_len() + 1];
        assert_eq!(r.emit(&mut Packet::new_unchecked(&mut long[..])), Err(Error::BadLength));
    }
}
