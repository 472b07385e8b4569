//! Frames for the host path's tests and co-simulation: seeded ARP and echo requests, and every
//! near miss of the classification rules with the outcome it must get.
//!
//! A near miss breaks one condition of a rule and nothing else: after a header field is
//! changed the IPv4 header checksum and the ICMP checksum are recomputed (unless the checksum
//! is the defect), so the only thing wrong is the defect its [`HostCase`] names. The expected
//! outcomes are written from the rules, not from [`super::answer`].

use super::{HostAddress, HostDrop, HostOutcome, ReplyKind, ECHO_HEAD_AFTER_L2, ECHO_MIN_DATAGRAM, REPLY_CAPACITY};
use crate::wire::ethernet::{self, MacAddr, ETHERTYPE_ARP, ETHERTYPE_IPV4, ETHERTYPE_IPV6, MIN_FRAME_LEN, VLAN_TAG_LEN};
use crate::wire::gen::{random_vlan_tags, FrameGen};
use crate::wire::{arp, icmp, ipv4};
use rand::{Rng, RngCore};
use rand_chacha::ChaCha8Rng;
use std::net::Ipv4Addr;

/// The Ethernet broadcast address (the destination of most ARP requests).
pub const BROADCAST: MacAddr = [0xFF; 6];

/// Echo data lengths [`HostFrameGen::case`] picks (up to a full 1500-byte MTU datagram).
const MAX_ECHO_DATA: usize = 1500 - ECHO_MIN_DATAGRAM;

/// What a crafted frame is: a request the engine answers, a near miss, or another frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HostCase {
    /// An ARP request for the local IP.
    ArpRequest,
    /// An echo request to the local IP.
    EchoRequest,
    /// An ARP request whose ethertype is another one (0x0800 or random).
    ArpEthertype,
    /// An ARP request for another IP.
    ArpOtherTarget,
    /// An ARP reply (operation 2) whose target is the local IP.
    ArpReplyOperation,
    /// An ARP packet with an operation other than 1 and 2.
    ArpOtherOperation,
    /// An ARP request whose hardware type is not Ethernet (1).
    ArpHardwareType,
    /// An ARP request whose protocol type is not IPv4.
    ArpProtocolType,
    /// An ARP request whose hardware address length is not 6.
    ArpHardwareLen,
    /// An ARP request whose protocol address length is not 4.
    ArpProtocolLen,
    /// An ARP request cut before the end of its 28 bytes.
    ArpShort,
    /// An ARP request behind three VLAN tags.
    ArpThreeTags,
    /// An echo request whose ethertype is another one (IPv6, ARP or random).
    EchoEthertype,
    /// An echo request to another IP.
    EchoOtherDestination,
    /// An echo request with IHL 6 (4 option bytes).
    EchoIhl6,
    /// An echo request with an IP version other than 4.
    EchoVersion,
    /// An echo request with MF set.
    EchoMoreFragments,
    /// An echo request with a fragment offset.
    EchoFragmentOffset,
    /// An echo request with the reserved IP flag set.
    EchoReservedFlag,
    /// An echo request with DF set: answered.
    EchoDontFragment,
    /// An echo request's IP header with another protocol (UDP or random).
    EchoProtocol,
    /// An echo request with a bad IPv4 header checksum.
    EchoIpChecksum,
    /// An echo request with a bad ICMP checksum: answered, with a bad checksum.
    EchoIcmpChecksum,
    /// An echo request whose total length is below 28 (20–27).
    EchoShortDatagram,
    /// An echo reply (type 0) to the local IP.
    EchoReplyType,
    /// Another ICMP type (neither 8 nor 0).
    EchoOtherType,
    /// An echo request with a code other than 0.
    EchoCode,
    /// A frame that ends before the classified head (`l2 + 24`) of an echo request.
    EchoShortHead,
    /// An echo request behind three VLAN tags.
    EchoThreeTags,
    /// An echo request whose datagram does not fit the reply buffer (`l2 + total > 2048`).
    EchoOverCapacity,
    /// An echo request filling the reply buffer exactly (`l2 + total = 2048`): answered.
    EchoFullBuffer,
    /// An echo request followed by a trailer, the frame still ≤ 2048 bytes: answered.
    EchoTrailer,
    /// An echo request cut inside its datagram (after the classified head): dropped.
    EchoTruncated,
    /// An echo request followed by a trailer that makes the frame > 2048 bytes: dropped.
    EchoTooLong,
    /// Any other frame ([`FrameGen::any`]: RoCEv2, UDP, TCP, IPv6, ARP for others, runts,
    /// garbage) that holds no copy of the local IP.
    Other,
}

impl HostCase {
    /// Every case.
    pub const ALL: [HostCase; 35] = [
        HostCase::ArpRequest,
        HostCase::EchoRequest,
        HostCase::ArpEthertype,
        HostCase::ArpOtherTarget,
        HostCase::ArpReplyOperation,
        HostCase::ArpOtherOperation,
        HostCase::ArpHardwareType,
        HostCase::ArpProtocolType,
        HostCase::ArpHardwareLen,
        HostCase::ArpProtocolLen,
        HostCase::ArpShort,
        HostCase::ArpThreeTags,
        HostCase::EchoEthertype,
        HostCase::EchoOtherDestination,
        HostCase::EchoIhl6,
        HostCase::EchoVersion,
        HostCase::EchoMoreFragments,
        HostCase::EchoFragmentOffset,
        HostCase::EchoReservedFlag,
        HostCase::EchoDontFragment,
        HostCase::EchoProtocol,
        HostCase::EchoIpChecksum,
        HostCase::EchoIcmpChecksum,
        HostCase::EchoShortDatagram,
        HostCase::EchoReplyType,
        HostCase::EchoOtherType,
        HostCase::EchoCode,
        HostCase::EchoShortHead,
        HostCase::EchoThreeTags,
        HostCase::EchoOverCapacity,
        HostCase::EchoFullBuffer,
        HostCase::EchoTrailer,
        HostCase::EchoTruncated,
        HostCase::EchoTooLong,
        HostCase::Other,
    ];

    /// The outcome the rules give a frame of this case.
    pub const fn expect(self) -> HostOutcome {
        match self {
            HostCase::ArpRequest => HostOutcome::Reply(ReplyKind::Arp),
            HostCase::EchoRequest
            | HostCase::EchoDontFragment
            | HostCase::EchoIcmpChecksum
            | HostCase::EchoFullBuffer
            | HostCase::EchoTrailer => HostOutcome::Reply(ReplyKind::Echo),
            HostCase::EchoTruncated => HostOutcome::Drop(HostDrop::Truncated),
            HostCase::EchoTooLong => HostOutcome::Drop(HostDrop::TooLong),
            _ => HostOutcome::Pass,
        }
    }

    /// True for the cases that break (or stretch) one condition of a rule: every case but
    /// [`HostCase::ArpRequest`], [`HostCase::EchoRequest`] and [`HostCase::Other`].
    pub const fn is_near_miss(self) -> bool {
        !matches!(self, HostCase::ArpRequest | HostCase::EchoRequest | HostCase::Other)
    }

    /// True for the cases built from an ARP request.
    pub const fn is_arp(self) -> bool {
        matches!(
            self,
            HostCase::ArpRequest
                | HostCase::ArpEthertype
                | HostCase::ArpOtherTarget
                | HostCase::ArpReplyOperation
                | HostCase::ArpOtherOperation
                | HostCase::ArpHardwareType
                | HostCase::ArpProtocolType
                | HostCase::ArpHardwareLen
                | HostCase::ArpProtocolLen
                | HostCase::ArpShort
                | HostCase::ArpThreeTags
        )
    }
}

/// A crafted frame and the outcome it must get.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crafted {
    /// What the frame is.
    pub case: HostCase,
    /// VLAN tags in front of the frame's ethertype (3 for the three-tag cases; 0 for
    /// [`HostCase::Other`], whose frames have their own).
    pub tags: usize,
    /// The frame (no FCS).
    pub frame: Vec<u8>,
    /// `case.expect()`.
    pub expect: HostOutcome,
}

/// Seeded generator of the host path's frames: the same seed gives the same frames.
#[derive(Debug, Clone)]
pub struct HostFrameGen {
    gen: FrameGen,
}

impl HostFrameGen {
    /// A generator with a fixed seed.
    pub fn new(seed: u64) -> HostFrameGen {
        HostFrameGen { gen: FrameGen::new(seed) }
    }

    /// The underlying random number generator.
    pub fn rng(&mut self) -> &mut ChaCha8Rng {
        self.gen.rng()
    }

    fn mac(&mut self) -> MacAddr {
        let mut m = [0u8; 6];
        self.rng().fill_bytes(&mut m);
        m
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = vec![0u8; n];
        self.rng().fill_bytes(&mut v);
        v
    }

    /// An IPv4 address other than `not`.
    fn ip_other_than(&mut self, not: Ipv4Addr) -> Ipv4Addr {
        loop {
            let a = Ipv4Addr::from(self.rng().gen::<u32>());
            if a != not {
                return a;
            }
        }
    }

    /// A 16-bit value other than each of `not`.
    fn u16_other_than(&mut self, not: &[u16]) -> u16 {
        loop {
            let v = self.rng().gen();
            if !not.contains(&v) {
                return v;
            }
        }
    }

    /// An 8-bit value other than `not`.
    fn u8_other_than(&mut self, not: u8) -> u8 {
        loop {
            let v = self.rng().gen();
            if v != not {
                return v;
            }
        }
    }

    /// An Ethernet header with `tags` random VLAN tags.
    fn ethernet(&mut self, tags: usize, dst: MacAddr, ethertype: u16) -> Vec<u8> {
        let vlans = random_vlan_tags(self.rng(), tags);
        let e = ethernet::Repr {
            dst,
            src: self.mac(),
            vlans,
            ethertype,
        };
        let mut v = vec![0u8; e.buffer_len()];
        e.emit(&mut ethernet::Packet::new_unchecked(&mut v[..])).expect("0-2 valid tags");
        v
    }

    /// Pads to 60 bytes: zeros, or one time in four random bytes.
    fn pad(&mut self, v: &mut Vec<u8>) {
        if v.len() < MIN_FRAME_LEN {
            let at = v.len();
            v.resize(MIN_FRAME_LEN, 0);
            if self.rng().gen_range(0..4) == 0 {
                self.rng().fill_bytes(&mut v[at..]);
            }
        }
    }

    /// An ARP request for `target_ip` behind `tags` (0–2) VLAN tags: random sender MAC and
    /// IP, to the broadcast address (or one time in four to a random MAC), target MAC zero
    /// (or one time in four random), padded to 60 bytes.
    pub fn arp_request(&mut self, tags: usize, target_ip: Ipv4Addr) -> Vec<u8> {
        let sender_mac = self.mac();
        let dst = if self.rng().gen_range(0..4) == 0 { self.mac() } else { BROADCAST };
        let target_mac = if self.rng().gen_range(0..4) == 0 { self.mac() } else { [0; 6] };
        let repr = arp::Repr {
            operation: arp::OPERATION_REQUEST,
            sender_mac,
            sender_ip: Ipv4Addr::from(self.rng().gen::<u32>()),
            target_mac,
            target_ip,
        };
        let mut v = self.ethernet(tags, dst, ETHERTYPE_ARP);
        let l2 = v.len();
        v.resize(l2 + repr.buffer_len(), 0);
        repr.emit(&mut arp::Packet::new_unchecked(&mut v[l2..])).expect("28 bytes");
        self.pad(&mut v);
        v
    }

    /// An echo request to `dst_ip` behind `tags` (0–2) VLAN tags with `data_len` bytes of
    /// random data: random MACs, source IP, TOS, identification, DF, TTL, identifier and
    /// sequence number; valid checksums; padded to 60 bytes.
    pub fn echo_request(&mut self, tags: usize, dst_ip: Ipv4Addr, data_len: usize) -> Vec<u8> {
        let dst_mac = self.mac();
        let message = icmp::Repr::EchoRequest {
            identifier: self.rng().gen(),
            sequence: self.rng().gen(),
            data: self.bytes(data_len),
        };
        let r = self.rng();
        let ip = ipv4::Repr {
            src: Ipv4Addr::from(r.gen::<u32>()),
            dst: dst_ip,
            tos: r.gen(),
            ident: r.gen(),
            dont_frag: r.gen(),
            more_frags: false,
            frag_offset: 0,
            ttl: r.gen(),
            protocol: icmp::PROTO_ICMP,
            payload_len: message.buffer_len(),
        };
        let mut v = self.ethernet(tags, dst_mac, ETHERTYPE_IPV4);
        let l2 = v.len();
        v.resize(l2 + ip.buffer_len() + message.buffer_len(), 0);
        ip.emit(&mut ipv4::Packet::new_unchecked(&mut v[l2..])).expect("datagram fits");
        message
            .emit(&mut icmp::Packet::new_unchecked(&mut v[l2 + ip.buffer_len()..]))
            .expect("message fits");
        self.pad(&mut v);
        v
    }

    /// A random case of [`HostCase::ALL`] for `address`.
    pub fn any(&mut self, address: &HostAddress) -> Crafted {
        let case = HostCase::ALL[self.rng().gen_range(0..HostCase::ALL.len())];
        self.case(case, address)
    }

    /// A random near miss or other frame (every case but the two plain requests).
    pub fn mutated(&mut self, address: &HostAddress) -> Crafted {
        loop {
            let c = self.any(address);
            if c.case != HostCase::ArpRequest && c.case != HostCase::EchoRequest {
                return c;
            }
        }
    }

    /// A frame of `case` for `address` (0–2 random VLAN tags, 3 for the three-tag cases).
    pub fn case(&mut self, case: HostCase, address: &HostAddress) -> Crafted {
        let tags = match case {
            HostCase::ArpThreeTags | HostCase::EchoThreeTags => 3,
            HostCase::Other => 0,
            _ => self.rng().gen_range(0..=ethernet::MAX_VLANS),
        };
        let inner_tags = tags.min(ethernet::MAX_VLANS);
        let mut frame = if case == HostCase::Other {
            self.other(address)
        } else if case.is_arp() {
            self.arp_case(case, inner_tags, address.ipv4)
        } else {
            self.echo_case(case, inner_tags, address.ipv4)
        };
        if tags > ethernet::MAX_VLANS {
            self.add_outer_tag(&mut frame);
        }
        Crafted {
            case,
            tags,
            frame,
            expect: case.expect(),
        }
    }

    /// A frame from [`FrameGen::any`] that holds no 4 bytes equal to the local IP (so that it
    /// cannot be a request for it by chance).
    fn other(&mut self, address: &HostAddress) -> Vec<u8> {
        let ip = address.ipv4.octets();
        loop {
            let f = self.gen.any();
            if !f.windows(ip.len()).any(|w| w == ip) {
                return f;
            }
        }
    }

    /// A third VLAN tag in front of the existing ones.
    fn add_outer_tag(&mut self, frame: &mut Vec<u8>) {
        let tag = random_vlan_tags(self.rng(), 1)[0];
        let mut bytes = [0u8; VLAN_TAG_LEN];
        bytes[ethernet::vlan_field::TPID].copy_from_slice(&tag.tpid.to_be_bytes());
        bytes[ethernet::vlan_field::TCI].copy_from_slice(&tag.tci().to_be_bytes());
        let at = ethernet::field::ETHERTYPE.start;
        frame.splice(at..at, bytes);
    }

    /// An ARP request for the local IP with the defect of `case`.
    fn arp_case(&mut self, case: HostCase, tags: usize, local: Ipv4Addr) -> Vec<u8> {
        let l2 = ethernet::header_len(tags);
        let target = if case == HostCase::ArpOtherTarget {
            self.ip_other_than(local)
        } else {
            local
        };
        let mut v = self.arp_request(tags, target);
        let operation = match case {
            HostCase::ArpReplyOperation => Some(arp::OPERATION_REPLY),
            HostCase::ArpOtherOperation => Some(self.u16_other_than(&[arp::OPERATION_REQUEST, arp::OPERATION_REPLY])),
            _ => None,
        };
        let hardware_type = (case == HostCase::ArpHardwareType).then(|| self.u16_other_than(&[arp::HARDWARE_ETHERNET]));
        let protocol_type = (case == HostCase::ArpProtocolType).then(|| self.u16_other_than(&[ETHERTYPE_IPV4]));
        let hardware_len = (case == HostCase::ArpHardwareLen).then(|| self.u8_other_than(arp::MAC_LEN));
        let protocol_len = (case == HostCase::ArpProtocolLen).then(|| self.u8_other_than(arp::IPV4_LEN));
        let ethertype = (case == HostCase::ArpEthertype).then(|| self.ethertype_other_than(ETHERTYPE_ARP, ETHERTYPE_IPV4));
        let cut = (case == HostCase::ArpShort).then(|| self.rng().gen_range(l2..l2 + arp::PACKET_LEN));
        let mut p = arp::Packet::new_unchecked(&mut v[l2..]);
        if let Some(o) = operation {
            p.set_operation(o);
        }
        if let Some(t) = hardware_type {
            p.set_hardware_type(t);
        }
        if let Some(t) = protocol_type {
            p.set_protocol_type(t);
        }
        if let Some(n) = hardware_len {
            p.set_hardware_len(n);
        }
        if let Some(n) = protocol_len {
            p.set_protocol_len(n);
        }
        if let Some(t) = ethertype {
            ethernet::Packet::new_unchecked(&mut v[..]).set_ethertype(t);
        }
        if let Some(n) = cut {
            v.truncate(n);
        }
        v
    }

    /// An ethertype other than `not` and the VLAN TPIDs: half the time `likely` (a
    /// neighbouring protocol), otherwise random.
    fn ethertype_other_than(&mut self, not: u16, likely: u16) -> u16 {
        if self.rng().gen() {
            likely
        } else {
            let mut excluded = ethernet::VLAN_TPIDS.to_vec();
            excluded.push(not);
            self.u16_other_than(&excluded)
        }
    }

    /// The data length of an echo request of `case` behind `l2` bytes of Ethernet header.
    fn echo_data_len(&mut self, case: HostCase, l2: usize) -> usize {
        let fits = REPLY_CAPACITY - l2 - ECHO_MIN_DATAGRAM;
        match case {
            HostCase::EchoFullBuffer => fits,
            HostCase::EchoOverCapacity => self.rng().gen_range(fits + 1..=fits + 600),
            HostCase::EchoTruncated => self.rng().gen_range(1..=MAX_ECHO_DATA),
            // Room for a trailer of at least 64 bytes inside the buffer.
            HostCase::EchoTooLong | HostCase::EchoTrailer => self.rng().gen_range(0..=fits - 64),
            _ if self.rng().gen_range(0..4) == 0 => self.rng().gen_range(0..=8),
            _ => self.rng().gen_range(0..=MAX_ECHO_DATA),
        }
    }

    /// An echo request to the local IP with the defect of `case`.
    fn echo_case(&mut self, case: HostCase, tags: usize, local: Ipv4Addr) -> Vec<u8> {
        let l2 = ethernet::header_len(tags);
        let dst = if case == HostCase::EchoOtherDestination {
            self.ip_other_than(local)
        } else {
            local
        };
        let data_len = self.echo_data_len(case, l2);
        let mut v = self.echo_request(tags, dst, data_len);
        let ip_end = l2 + ECHO_MIN_DATAGRAM + data_len;
        let icmp_at = l2 + ipv4::HEADER_LEN;

        // The values of the defect, drawn before the buffer is borrowed.
        let version = (case == HostCase::EchoVersion).then(|| loop {
            let n = self.rng().gen_range(0..16u8);
            if n != ipv4::VERSION {
                break n;
            }
        });
        let fragment_offset = (case == HostCase::EchoFragmentOffset).then(|| self.rng().gen_range(1..=ipv4::FRAGMENT_OFFSET_MASK));
        let total_len = (case == HostCase::EchoShortDatagram).then(|| self.rng().gen_range(ipv4::HEADER_LEN..ECHO_MIN_DATAGRAM) as u16);
        let protocol = (case == HostCase::EchoProtocol).then(|| {
            if self.rng().gen() {
                ipv4::PROTO_UDP
            } else {
                self.u8_other_than(icmp::PROTO_ICMP)
            }
        });
        let msg_type = match case {
            HostCase::EchoReplyType => Some(icmp::ECHO_REPLY),
            HostCase::EchoOtherType => Some(self.u8_other_than(icmp::ECHO_REQUEST)),
            _ => None,
        };
        let code = (case == HostCase::EchoCode).then(|| self.rng().gen_range(1..=u8::MAX));
        let bad_icmp_checksum = (case == HostCase::EchoIcmpChecksum).then(|| self.rng().gen_range(1..=u16::MAX));
        let bad_ip_checksum = (case == HostCase::EchoIpChecksum).then(|| self.rng().gen_range(1..=u16::MAX));

        // ICMP: the defect, then the checksum (spoiled when the checksum is the defect).
        let mut m = icmp::Packet::new_unchecked(&mut v[icmp_at..ip_end]);
        if let Some(t) = msg_type {
            m.set_msg_type(t);
        }
        if let Some(c) = code {
            m.set_code(c);
        }
        m.fill_checksum();
        if let Some(x) = bad_icmp_checksum {
            m.set_checksum(m.checksum() ^ x);
        }

        // IP: the defect, then the header checksum (spoiled when the checksum is the defect).
        let mut ip = ipv4::Packet::new_unchecked(&mut v[l2..]);
        let reserved = ip.reserved_flag() || case == HostCase::EchoReservedFlag;
        let df = ip.dont_frag() || case == HostCase::EchoDontFragment;
        let mf = ip.more_frags() || case == HostCase::EchoMoreFragments;
        let offset = fragment_offset.unwrap_or(ip.frag_offset());
        ip.set_flags_frag(reserved, df, mf, offset);
        if let Some(n) = version {
            ip.set_version_ihl(n, ipv4::IHL);
        }
        if let Some(p) = protocol {
            ip.set_protocol(p);
        }
        if let Some(n) = total_len {
            ip.set_total_len(n);
        }
        ip.fill_checksum();
        if let Some(x) = bad_ip_checksum {
            ip.set_checksum(ip.checksum() ^ x);
        }

        // The frame around the datagram.
        match case {
            HostCase::EchoEthertype => {
                let t = if self.rng().gen() {
                    ETHERTYPE_IPV6
                } else {
                    self.ethertype_other_than(ETHERTYPE_IPV4, ETHERTYPE_ARP)
                };
                ethernet::Packet::new_unchecked(&mut v[..]).set_ethertype(t);
            }
            HostCase::EchoIhl6 => {
                // One word of options (four NOPs) after the 20-byte header.
                let nops = [1u8; 4];
                v.splice(icmp_at..icmp_at, nops);
                let mut ip = ipv4::Packet::new_unchecked(&mut v[l2..]);
                ip.set_version_ihl(ipv4::VERSION, ipv4::IHL + 1);
                ip.set_total_len((ECHO_MIN_DATAGRAM + data_len + nops.len()) as u16);
                ip.fill_checksum();
            }
            HostCase::EchoShortHead => {
                let n = self.rng().gen_range(l2..l2 + ECHO_HEAD_AFTER_L2);
                v.truncate(n);
            }
            HostCase::EchoTruncated => {
                let n = self.rng().gen_range(l2 + ECHO_HEAD_AFTER_L2..ip_end);
                v.truncate(n);
            }
            HostCase::EchoTrailer => {
                let n = self.rng().gen_range(v.len() + 1..=REPLY_CAPACITY);
                self.trail(&mut v, n);
            }
            HostCase::EchoTooLong => {
                let n = if self.rng().gen() {
                    REPLY_CAPACITY + 1
                } else {
                    self.rng().gen_range(REPLY_CAPACITY + 1..=9000)
                };
                self.trail(&mut v, n);
            }
            _ => {}
        }
        v
    }

    /// Random bytes after the frame up to `len` bytes.
    fn trail(&mut self, frame: &mut Vec<u8>, len: usize) {
        let at = frame.len();
        frame.resize(len, 0);
        self.rng().fill_bytes(&mut frame[at..]);
    }
}

/// `n` frames of random cases for `address`, from `seed` (a co-simulation's input).
pub fn random_crafted(seed: u64, n: usize, address: &HostAddress) -> Vec<Crafted> {
    let mut g = HostFrameGen::new(seed);
    (0..n).map(|_| g.any(address)).collect()
}
