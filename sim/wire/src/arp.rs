//! ARP for IPv4 over Ethernet (RFC 826): the 28-byte packet the engine answers for its own
//! address. Other hardware or protocol types are outside this crate: the view still reads
//! their first 28 bytes, and [`Repr::parse`] refuses them.

use crate::ethernet::{MacAddr, ETHERTYPE_IPV4};
use crate::field::{be16, put16};
use crate::view::view;
use crate::{Error, Result};
use std::net::Ipv4Addr;

pub use ferroce_contracts::arp::{field, HARDWARE_ETHERNET, IPV4_LEN, MAC_LEN, OPERATION_REPLY, OPERATION_REQUEST, PACKET_LEN};

view!("A checked view of an ARP packet (Ethernet, IPv4) over a byte buffer.");

impl<T: AsRef<[u8]>> Packet<T> {
    /// Checks that the buffer holds the 28 bytes of an Ethernet/IPv4 ARP packet (extra bytes,
    /// e.g. MAC padding, are allowed). The address lengths are not read: [`Repr::parse`]
    /// checks them.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < PACKET_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }
    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }
    /// Hardware type (1: Ethernet).
    pub fn hardware_type(&self) -> u16 {
        be16(self.b(), field::HARDWARE_TYPE)
    }
    /// Protocol type (0x0800: IPv4).
    pub fn protocol_type(&self) -> u16 {
        be16(self.b(), field::PROTOCOL_TYPE)
    }
    /// Hardware address length (6).
    pub fn hardware_len(&self) -> u8 {
        self.b()[field::HARDWARE_LEN]
    }
    /// Protocol address length (4).
    pub fn protocol_len(&self) -> u8 {
        self.b()[field::PROTOCOL_LEN]
    }
    /// Operation (1: request, 2: reply).
    pub fn operation(&self) -> u16 {
        be16(self.b(), field::OPERATION)
    }
    /// Sender hardware address.
    pub fn sender_mac(&self) -> MacAddr {
        self.b()[field::SENDER_MAC].try_into().unwrap()
    }
    /// Sender protocol address.
    pub fn sender_ip(&self) -> Ipv4Addr {
        Ipv4Addr::from(<[u8; 4]>::try_from(&self.b()[field::SENDER_IP]).unwrap())
    }
    /// Target hardware address (zero in a request).
    pub fn target_mac(&self) -> MacAddr {
        self.b()[field::TARGET_MAC].try_into().unwrap()
    }
    /// Target protocol address.
    pub fn target_ip(&self) -> Ipv4Addr {
        Ipv4Addr::from(<[u8; 4]>::try_from(&self.b()[field::TARGET_IP]).unwrap())
    }
    /// The bytes after the packet (MAC padding).
    pub fn padding(&self) -> &[u8] {
        &self.b()[PACKET_LEN..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    fn bm(&mut self) -> &mut [u8] {
        self.buffer.as_mut()
    }
    /// Sets the hardware type.
    pub fn set_hardware_type(&mut self, v: u16) {
        put16(self.bm(), field::HARDWARE_TYPE, v);
    }
    /// Sets the protocol type.
    pub fn set_protocol_type(&mut self, v: u16) {
        put16(self.bm(), field::PROTOCOL_TYPE, v);
    }
    /// Sets the hardware address length.
    pub fn set_hardware_len(&mut self, v: u8) {
        self.bm()[field::HARDWARE_LEN] = v;
    }
    /// Sets the protocol address length.
    pub fn set_protocol_len(&mut self, v: u8) {
        self.bm()[field::PROTOCOL_LEN] = v;
    }
    /// Sets the operation.
    pub fn set_operation(&mut self, v: u16) {
        put16(self.bm(), field::OPERATION, v);
    }
    /// Sets the sender hardware address.
    pub fn set_sender_mac(&mut self, a: MacAddr) {
        self.bm()[field::SENDER_MAC].copy_from_slice(&a);
    }
    /// Sets the sender protocol address.
    pub fn set_sender_ip(&mut self, a: Ipv4Addr) {
        self.bm()[field::SENDER_IP].copy_from_slice(&a.octets());
    }
    /// Sets the target hardware address.
    pub fn set_target_mac(&mut self, a: MacAddr) {
        self.bm()[field::TARGET_MAC].copy_from_slice(&a);
    }
    /// Sets the target protocol address.
    pub fn set_target_ip(&mut self, a: Ipv4Addr) {
        self.bm()[field::TARGET_IP].copy_from_slice(&a.octets());
    }
}

/// Parsed ARP packet (Ethernet, IPv4). Hardware and protocol types and lengths are implied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Repr {
    /// Operation ([`OPERATION_REQUEST`], [`OPERATION_REPLY`] or any other value, kept as is).
    pub operation: u16,
    /// Sender hardware address.
    pub sender_mac: MacAddr,
    /// Sender protocol address.
    pub sender_ip: Ipv4Addr,
    /// Target hardware address.
    pub target_mac: MacAddr,
    /// Target protocol address.
    pub target_ip: Ipv4Addr,
}

impl Repr {
    /// Parses a checked packet: hardware type Ethernet (1), protocol type IPv4 (0x0800),
    /// address lengths 6 and 4; anything else is [`Error::FieldRange`].
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        p.check_len()?;
        if p.hardware_type() != HARDWARE_ETHERNET {
            return Err(Error::FieldRange("ARP hardware type is not Ethernet"));
        }
        if p.protocol_type() != ETHERTYPE_IPV4 {
            return Err(Error::FieldRange("ARP protocol type is not IPv4"));
        }
        if p.hardware_len() != MAC_LEN || p.protocol_len() != IPV4_LEN {
            return Err(Error::FieldRange("ARP address lengths are not 6 and 4"));
        }
        Ok(Repr {
            operation: p.operation(),
            sender_mac: p.sender_mac(),
            sender_ip: p.sender_ip(),
            target_mac: p.target_mac(),
            target_ip: p.target_ip(),
        })
    }

    /// Packet length (always 28).
    pub const fn buffer_len(&self) -> usize {
        PACKET_LEN
    }

    /// Writes the 28-byte packet into the start of `p`'s buffer (the padding is not touched).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        p.check_len()?;
        p.set_hardware_type(HARDWARE_ETHERNET);
        p.set_protocol_type(ETHERTYPE_IPV4);
        p.set_hardware_len(MAC_LEN);
        p.set_protocol_len(IPV4_LEN);
        p.set_operation(self.operation);
        p.set_sender_mac(self.sender_mac);
        p.set_sender_ip(self.sender_ip);
        p.set_target_mac(self.target_mac);
        p.set_target_ip(self.target_ip);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ethernet::{self, ETHERTYPE_ARP, MIN_FRAME_LEN};

    /// A 60-byte ARP request as a network monitor captured it: who-has 172.16.1.50 tell
    /// 172.16.1.101, from 00:a0:c9:22:b2:10, with 18 bytes of zero padding (a published
    /// capture of a normal ARP exchange, its request).
    const REQUEST: [u8; 60] = [
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0xa0, 0xc9, 0x22, 0xb2, 0x10, 0x08, 0x06, // Ethernet
        0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01, // Ethernet/IPv4, request
        0x00, 0xa0, 0xc9, 0x22, 0xb2, 0x10, 0xac, 0x10, 0x01, 0x65, // sender
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xac, 0x10, 0x01, 0x32, // target
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // padding
    ];

    fn request_repr() -> Repr {
        Repr {
            operation: OPERATION_REQUEST,
            sender_mac: [0x00, 0xa0, 0xc9, 0x22, 0xb2, 0x10],
            sender_ip: Ipv4Addr::new(172, 16, 1, 101),
            target_mac: [0; 6],
            target_ip: Ipv4Addr::new(172, 16, 1, 50),
        }
    }

    #[test]
    fn captured_request_parses_to_its_fields() {
        let eth = ethernet::Packet::new_checked(&REQUEST[..]).unwrap();
        assert_eq!(eth.ethertype(), ETHERTYPE_ARP);
        let p = Packet::new_checked(eth.payload()).unwrap();
        assert_eq!((p.hardware_type(), p.protocol_type()), (HARDWARE_ETHERNET, ETHERTYPE_IPV4));
        assert_eq!((p.hardware_len(), p.protocol_len()), (MAC_LEN, IPV4_LEN));
        assert_eq!(p.padding(), &[0; MIN_FRAME_LEN - ethernet::HEADER_LEN - PACKET_LEN]);
        assert_eq!(Repr::parse(&p).unwrap(), request_repr());
    }

    #[test]
    fn emit_rebuilds_the_captured_request() {
        let r = request_repr();
        let mut v = vec![0u8; r.buffer_len()];
        r.emit(&mut Packet::new_unchecked(&mut v[..])).unwrap();
        assert_eq!(v, REQUEST[ethernet::HEADER_LEN..ethernet::HEADER_LEN + PACKET_LEN]);
    }

    #[test]
    fn setters_and_getters_round_trip() {
        let mut v = [0u8; PACKET_LEN];
        let mut p = Packet::new_unchecked(&mut v[..]);
        p.set_hardware_type(0x1234);
        p.set_protocol_type(0x5678);
        p.set_hardware_len(9);
        p.set_protocol_len(10);
        p.set_operation(OPERATION_REPLY);
        p.set_sender_mac([1, 2, 3, 4, 5, 6]);
        p.set_sender_ip(Ipv4Addr::new(10, 0, 0, 1));
        p.set_target_mac([7, 8, 9, 10, 11, 12]);
        p.set_target_ip(Ipv4Addr::new(10, 0, 0, 2));
        assert_eq!(
            (p.hardware_type(), p.protocol_type(), p.hardware_len(), p.protocol_len()),
            (0x1234, 0x5678, 9, 10)
        );
        assert_eq!(p.operation(), OPERATION_REPLY);
        assert_eq!((p.sender_mac(), p.sender_ip()), ([1, 2, 3, 4, 5, 6], Ipv4Addr::new(10, 0, 0, 1)));
        assert_eq!((p.target_mac(), p.target_ip()), ([7, 8, 9, 10, 11, 12], Ipv4Addr::new(10, 0, 0, 2)));
    }

    #[test]
    fn short_buffers_are_truncated() {
        let body = &REQUEST[ethernet::HEADER_LEN..];
        for n in 0..PACKET_LEN {
            assert_eq!(Packet::new_checked(&body[..n]).unwrap_err(), Error::Truncated, "{n} bytes");
            let mut v = vec![0u8; n];
            assert_eq!(request_repr().emit(&mut Packet::new_unchecked(&mut v[..])), Err(Error::Truncated));
        }
    }

    #[test]
    fn other_hardware_or_protocol_types_are_refused() {
        let body = &REQUEST[ethernet::HEADER_LEN..];
        let changes: [(usize, u8); 4] = [
            (field::HARDWARE_TYPE.end - 1, 6),
            (field::PROTOCOL_TYPE.start, 0x86),
            (field::HARDWARE_LEN, 8),
            (field::PROTOCOL_LEN, 16),
        ];
        for (at, v) in changes {
            let mut b = body.to_vec();
            b[at] = v;
            let e = Repr::parse(&Packet::new_unchecked(&b[..])).unwrap_err();
            assert!(matches!(e, Error::FieldRange(_)), "byte {at}: {e:?}");
        }
    }
}
