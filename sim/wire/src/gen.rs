//! Seeded random frame generator for tests (`rand_chacha::ChaCha8Rng`): valid RoCEv2 frames
//! with random values everywhere (masked fields included), and a mix with non-RoCE frames.

use crate::ethernet::{
    self, vlan_field, VlanTag, ETHERTYPE_ARP, ETHERTYPE_IPV4, ETHERTYPE_IPV6, MIN_FRAME_LEN, TPID_8021AD, TPID_8021Q, VLAN_TAG_LEN,
};
use crate::field::{be16, bits, put16, shift};
use crate::opcode::{Opcode, CNP_RESERVED_LEN};
use crate::packet::{ExtRepr, IpRepr, RoceFrame};
use crate::udp::ROCEV2_PORT;
use crate::{aeth, arp, atomic_ack_eth, atomic_eth, bth, deth, ieth, immdt, ipv4, ipv6, rdeth, reth, udp};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::net::{Ipv4Addr, Ipv6Addr};

/// Length of a TCP header without options.
const TCP_HEADER_LEN: usize = 20;
/// Byte of the TCP data offset (high nibble, in 32-bit words).
const TCP_DATA_OFFSET: usize = 12;
/// IPv6 next header of ICMPv6.
const IPPROTO_ICMPV6: u8 = 58;
/// IPv6 next header of a hop-by-hop options header.
const IPPROTO_HOPOPTS: u8 = 0;

/// Flips bit `bit` of `frame`, counting from the MSB of byte 0 (bit 8·k is the MSB of byte
/// k, the first bit on the wire in network order). Panics if out of range.
pub fn flip_bit(frame: &mut [u8], bit: usize) {
    frame[bit / 8] ^= 0x80 >> (bit % 8);
}

/// What kind of frame [`FrameGen::any_labeled`] produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameKind {
    /// A valid RoCEv2 frame (ICRC good).
    Roce,
    /// ARP request/reply.
    Arp,
    /// IPv4 or IPv6 UDP to a port other than 4791.
    UdpOtherPort,
    /// TCP over IPv4 or IPv6, destination port 4791 (same offset as the UDP port).
    Tcp,
    /// IPv6 whose next header is not UDP (ICMPv6, TCP or a hop-by-hop header before UDP 4791).
    Ipv6NonUdp,
    /// IPv4 with IHL 6 (4 option bytes) carrying UDP 4791 and a BTH.
    Ipv4Ihl6,
    /// A RoCEv2 frame behind three VLAN tags.
    ThreeVlans,
    /// A runt of 1–59 bytes (random bytes or a cut RoCE frame).
    Runt,
    /// Random bytes of random length (1–2000).
    Garbage,
}

impl FrameKind {
    /// Every kind.
    pub const ALL: [FrameKind; 9] = [
        FrameKind::Roce,
        FrameKind::Arp,
        FrameKind::UdpOtherPort,
        FrameKind::Tcp,
        FrameKind::Ipv6NonUdp,
        FrameKind::Ipv4Ihl6,
        FrameKind::ThreeVlans,
        FrameKind::Runt,
        FrameKind::Garbage,
    ];
}

/// Seeded generator of Ethernet frames (without FCS).
#[derive(Debug, Clone)]
pub struct FrameGen {
    rng: ChaCha8Rng,
    /// Percentage of [`FrameGen::any`] frames that are valid RoCE (default 60).
    pub roce_percent: u32,
}

impl FrameGen {
    /// A generator with a fixed seed: the same seed gives the same frames.
    pub fn new(seed: u64) -> FrameGen {
        FrameGen {
            rng: ChaCha8Rng::seed_from_u64(seed),
            roce_percent: 60,
        }
    }

    /// The underlying random number generator.
    pub fn rng(&mut self) -> &mut ChaCha8Rng {
        &mut self.rng
    }

    /// A payload length in 0..=4096: 30 % uniform, 20 % in 0–127, 10 % in 0–8, and 10 % each
    /// in 255–257, 1023–1025, 4093–4096 and 4095–4096.
    pub fn payload_len(&mut self) -> usize {
        let r = &mut self.rng;
        match r.gen_range(0..10) {
            0..=2 => r.gen_range(0..=4096),
            3 | 4 => r.gen_range(0..=127),
            5 => r.gen_range(0..=8),
            6 => r.gen_range(255..=257),
            7 => r.gen_range(1023..=1025),
            8 => r.gen_range(4093..=4096),
            _ => r.gen_range(4095..=4096),
        }
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = vec![0u8; n];
        self.rng.fill_bytes(&mut v);
        v
    }

    fn mac(&mut self) -> [u8; 6] {
        let mut m = [0u8; 6];
        self.rng.fill_bytes(&mut m);
        m
    }

    fn eth(&mut self, nvlans: usize) -> ethernet::Repr {
        let vlans = random_vlan_tags(&mut self.rng, nvlans);
        ethernet::Repr {
            dst: self.mac(),
            src: self.mac(),
            vlans,
            ethertype: ETHERTYPE_IPV4,
        }
    }

    fn ip(&mut self, v6: bool) -> IpRepr {
        random_ip_repr(&mut self.rng, v6)
    }

    fn ext(&mut self, opcode: Opcode) -> ExtRepr {
        let l = opcode.ext_headers();
        let r = &mut self.rng;
        ExtRepr {
            rdeth: l.rdeth.then(|| rdeth::Repr {
                reserved: 0,
                ee_context: r.gen_range(0..1 << bits(rdeth::field::EE_CONTEXT)),
            }),
            deth: l.deth.then(|| deth::Repr {
                q_key: r.gen(),
                reserved: 0,
                src_qp: r.gen_range(0..1 << bits(deth::field::SRC_QP)),
            }),
            reth: l.reth.then(|| reth::Repr {
                va: r.gen(),
                r_key: r.gen(),
                dma_len: r.gen(),
            }),
            atomic_eth: l.atomic_eth.then(|| atomic_eth::Repr {
                va: r.gen::<u64>() & !7,
                r_key: r.gen(),
                swap_add: r.gen(),
                compare: r.gen(),
            }),
            aeth: l.aeth.then(|| aeth::Repr {
                syndrome: r.gen(),
                msn: r.gen_range(0..1 << bits(aeth::field::MSN)),
            }),
            atomic_ack_eth: l.atomic_ack_eth.then(|| atomic_ack_eth::Repr { orig_data: r.gen() }),
            immdt: l.immdt.then(|| immdt::Repr { imm: r.gen() }),
            ieth: l.ieth.then(|| ieth::Repr { r_key: r.gen() }),
            cnp_reserved: l.cnp.then_some([0; CNP_RESERVED_LEN]),
        }
    }

    /// A random valid RoCEv2 frame representation: any valid opcode (CNP included), payload
    /// length per [`FrameGen::payload_len`] for opcodes that carry data (empty otherwise),
    /// IPv4 or IPv6, 0–2 VLAN tags, random addresses, ports, QPN, PSN, P_Key, and random
    /// values in every ICRC-masked field (IPv4 TOS/TTL, IPv6 traffic class/flow label/hop
    /// limit, UDP checksum, BTH byte 4).
    pub fn roce_frame(&mut self) -> RoceFrame {
        let all = Opcode::all();
        let opcode = all[self.rng.gen_range(0..all.len())];
        self.roce_frame_with(opcode)
    }

    /// Like [`FrameGen::roce_frame`] with a given opcode.
    pub fn roce_frame_with(&mut self, opcode: Opcode) -> RoceFrame {
        let nv = self.rng.gen_range(0..=2);
        let eth = self.eth(nv);
        let v6 = self.rng.gen();
        let ip = self.ip(v6);
        let r = &mut self.rng;
        let bth = bth::Repr {
            opcode,
            solicited: r.gen(),
            migreq: r.gen(),
            pad_cnt: 0,
            p_key: r.gen(),
            fecn: r.gen(),
            becn: r.gen(),
            resv6: r.gen_range(0..64),
            dest_qp: r.gen_range(0..1 << bits(bth::field::DEST_QP)),
            ack_req: r.gen(),
            resv7: 0,
            psn: r.gen_range(0..1 << bits(bth::field::PSN)),
        };
        let udp_src_port = r.gen();
        let udp_checksum = r.gen();
        let ext = self.ext(opcode);
        let payload = if opcode.has_payload() {
            let n = self.payload_len();
            self.bytes(n)
        } else {
            Vec::new()
        };
        let mut f = RoceFrame {
            eth,
            ip,
            udp_src_port,
            udp_checksum,
            bth,
            ext,
            payload,
            pad: None,
        };
        f.normalize();
        f
    }

    /// A random valid RoCEv2 frame (see [`FrameGen::roce_frame`]), emitted. When the frame is
    /// shorter than 60 bytes its MAC padding is zeros or, one time in four, random bytes.
    pub fn roce(&mut self) -> Vec<u8> {
        let f = self.roce_frame();
        let mut v = f.emit();
        let end = f.eth.buffer_len() + f.ip_len();
        if end < v.len() && self.rng.gen_range(0..4) == 0 {
            self.rng.fill_bytes(&mut v[end..]);
        }
        v
    }

    /// Mostly RoCE ([`FrameGen::roce_percent`] %), otherwise a non-RoCE frame of a random
    /// [`FrameKind`].
    pub fn any(&mut self) -> Vec<u8> {
        self.any_labeled().1
    }

    /// Like [`FrameGen::any`], also telling what kind of frame it is.
    pub fn any_labeled(&mut self) -> (FrameKind, Vec<u8>) {
        let kind = if self.rng.gen_range(0..100) < self.roce_percent {
            FrameKind::Roce
        } else {
            FrameKind::ALL[self.rng.gen_range(1..FrameKind::ALL.len())]
        };
        (kind, self.of_kind(kind))
    }

    /// A frame of the given kind.
    pub fn of_kind(&mut self, kind: FrameKind) -> Vec<u8> {
        match kind {
            FrameKind::Roce => self.roce(),
            FrameKind::Arp => self.arp(),
            FrameKind::UdpOtherPort => self.udp_other_port(),
            FrameKind::Tcp => self.tcp(),
            FrameKind::Ipv6NonUdp => self.ipv6_non_udp(),
            FrameKind::Ipv4Ihl6 => self.ipv4_ihl6(),
            FrameKind::ThreeVlans => self.three_vlans(),
            FrameKind::Runt => self.runt(),
            FrameKind::Garbage => {
                let n = self.rng.gen_range(1..=2000);
                self.bytes(n)
            }
        }
    }

    fn pad60(mut v: Vec<u8>) -> Vec<u8> {
        if v.len() < MIN_FRAME_LEN {
            v.resize(MIN_FRAME_LEN, 0);
        }
        v
    }

    fn l2(&mut self, ethertype: u16) -> Vec<u8> {
        let nv = self.rng.gen_range(0..=2);
        let mut e = self.eth(nv);
        e.ethertype = ethertype;
        let mut v = vec![0u8; e.buffer_len()];
        e.emit(&mut ethernet::Packet::new_unchecked(&mut v[..])).unwrap();
        v
    }

    /// An ARP request or reply (Ethernet, IPv4) with random addresses, padded to 60 bytes.
    fn arp(&mut self) -> Vec<u8> {
        let mut v = self.l2(ETHERTYPE_ARP);
        // Request or reply, drawn as a byte (as before the ARP view existed: same frames per seed).
        let operation = self.rng.gen_range(arp::OPERATION_REQUEST as u8..=arp::OPERATION_REPLY as u8);
        let l2 = v.len();
        v.resize(l2 + arp::PACKET_LEN, 0);
        let repr = arp::Repr {
            operation: u16::from(operation),
            sender_mac: [0; 6],
            sender_ip: Ipv4Addr::UNSPECIFIED,
            target_mac: [0; 6],
            target_ip: Ipv4Addr::UNSPECIFIED,
        };
        repr.emit(&mut arp::Packet::new_unchecked(&mut v[l2..])).unwrap();
        // The addresses: every byte from the sender's MAC to the end of the packet.
        self.rng.fill_bytes(&mut v[l2 + arp::field::SENDER_MAC.start..]);
        Self::pad60(v)
    }

    /// A RoCE frame with a given IP version, emitted; returns the frame and the IP offset.
    fn roce_v(&mut self, v6: bool) -> (Vec<u8>, usize) {
        let mut f = self.roce_frame();
        if v6 != matches!(f.ip, IpRepr::V6(_)) {
            f.ip = self.ip(v6);
            f.normalize();
        }
        (f.emit(), f.eth.buffer_len())
    }

    fn udp_other_port(&mut self) -> Vec<u8> {
        let v6 = self.rng.gen();
        let (mut v, l2) = self.roce_v(v6);
        let port = loop {
            let p: u16 = self.rng.gen();
            if p != ROCEV2_PORT {
                break p;
            }
        };
        let udp_at = l2 + if v6 { ipv6::HEADER_LEN } else { ipv4::HEADER_LEN };
        put16(&mut v, shift(udp::field::DST_PORT, udp_at), port);
        v
    }

    fn ip_header(&mut self, v6: bool, proto: u8, payload_len: usize) -> Vec<u8> {
        let mut ip = self.ip(v6);
        let mut v = vec![0u8; ip.header_len()];
        match &mut ip {
            IpRepr::V4(r) => {
                r.protocol = proto;
                r.payload_len = payload_len;
                r.emit(&mut ipv4::Packet::new_unchecked(&mut v[..])).unwrap();
            }
            IpRepr::V6(r) => {
                r.next_header = proto;
                r.payload_len = payload_len;
                r.emit(&mut ipv6::Packet::new_unchecked(&mut v[..])).unwrap();
            }
        }
        v
    }

    fn tcp(&mut self) -> Vec<u8> {
        let v6: bool = self.rng.gen();
        let mut v = self.l2(if v6 { ETHERTYPE_IPV6 } else { ETHERTYPE_IPV4 });
        let n = self.rng.gen_range(0..=1460);
        let ip = self.ip_header(v6, ipv4::PROTO_TCP, TCP_HEADER_LEN + n);
        v.extend_from_slice(&ip);
        let mut tcp = self.bytes(TCP_HEADER_LEN);
        // TCP's destination port is where UDP's is.
        put16(&mut tcp, udp::field::DST_PORT, ROCEV2_PORT);
        tcp[TCP_DATA_OFFSET] = 0x50;
        v.extend_from_slice(&tcp);
        let data = self.bytes(n);
        v.extend_from_slice(&data);
        Self::pad60(v)
    }

    fn ipv6_non_udp(&mut self) -> Vec<u8> {
        let (mut v, l2) = self.roce_v(true);
        let next_header = l2 + ipv6::field::NEXT_HEADER;
        match self.rng.gen_range(0..3) {
            0 => v[next_header] = IPPROTO_ICMPV6,
            1 => v[next_header] = ipv4::PROTO_TCP,
            _ => {
                // Hop-by-hop options header (8 bytes: next header UDP, PadN) before the UDP.
                v[next_header] = IPPROTO_HOPOPTS;
                let hbh = [ipv4::PROTO_UDP, 0, 1, 4, 0, 0, 0, 0];
                let payload_len = shift(ipv6::field::PAYLOAD_LEN, l2);
                let plen = be16(&v, payload_len.clone()) + hbh.len() as u16;
                put16(&mut v, payload_len, plen);
                let udp_at = l2 + ipv6::HEADER_LEN;
                v.splice(udp_at..udp_at, hbh);
            }
        }
        v
    }

    fn ipv4_ihl6(&mut self) -> Vec<u8> {
        use ipv4::field;
        let (mut v, l2) = self.roce_v(false);
        // One word of options (four NOPs): IHL 6.
        let options = [1u8, 1, 1, 1];
        let end = l2 + ipv4::HEADER_LEN;
        v.splice(end..end, options);
        v[l2 + field::VERSION_IHL] = (ipv4::VERSION << 4) | (ipv4::IHL + 1);
        let total_len = shift(field::TOTAL_LEN, l2);
        let tl = be16(&v, total_len.clone()) + options.len() as u16;
        put16(&mut v, total_len, tl);
        let checksum = shift(field::CHECKSUM, l2);
        put16(&mut v, checksum.clone(), 0);
        let c = ipv4::checksum(&v[l2..end + options.len()]);
        put16(&mut v, checksum, c);
        v
    }

    fn three_vlans(&mut self) -> Vec<u8> {
        let mut f = self.roce_frame();
        f.eth = self.eth(2);
        f.normalize();
        let mut v = f.emit();
        let tci: u16 = self.rng.gen();
        let tpid = if self.rng.gen() { TPID_8021Q } else { TPID_8021AD };
        let mut tag = [0u8; VLAN_TAG_LEN];
        put16(&mut tag, vlan_field::TPID, tpid);
        put16(&mut tag, vlan_field::TCI, tci);
        // In front of the two tags: the new outermost tag.
        let at = ethernet::field::ETHERTYPE.start;
        v.splice(at..at, tag);
        v
    }

    fn runt(&mut self) -> Vec<u8> {
        if self.rng.gen() {
            let n = self.rng.gen_range(1..=59);
            self.bytes(n)
        } else {
            // A RoCE frame cut inside its IP packet, to at most 59 bytes.
            let f = self.roce_frame();
            let v = f.emit();
            let end = f.eth.buffer_len() + f.ip_len();
            let n = self.rng.gen_range(1..=(end - 1).min(59));
            v[..n].to_vec()
        }
    }
}

/// `n` random VLAN tags (802.1Q or 802.1ad, any PCP, DEI and VID).
pub fn random_vlan_tags<R: Rng>(r: &mut R, n: usize) -> Vec<VlanTag> {
    (0..n)
        .map(|_| VlanTag {
            tpid: if r.gen() { TPID_8021Q } else { TPID_8021AD },
            pcp: r.gen_range(0..8),
            dei: r.gen(),
            vid: r.gen_range(0..4096),
        })
        .collect()
}

/// A random IPv4 (no fragmentation) or IPv6 header carrying UDP; lengths are left 0 for
/// [`RoceFrame::emit`] to fill.
pub fn random_ip_repr<R: Rng>(r: &mut R, v6: bool) -> IpRepr {
    if v6 {
        IpRepr::V6(ipv6::Repr {
            src: Ipv6Addr::from(r.gen::<u128>()),
            dst: Ipv6Addr::from(r.gen::<u128>()),
            traffic_class: r.gen(),
            flow_label: r.gen_range(0..=0xF_FFFF),
            next_header: ipv4::PROTO_UDP,
            hop_limit: r.gen(),
            payload_len: 0,
        })
    } else {
        IpRepr::V4(ipv4::Repr {
            src: Ipv4Addr::from(r.gen::<u32>()),
            dst: Ipv4Addr::from(r.gen::<u32>()),
            tos: r.gen(),
            ident: r.gen(),
            dont_frag: r.gen(),
            more_frags: false,
            frag_offset: 0,
            ttl: r.gen(),
            protocol: ipv4::PROTO_UDP,
            payload_len: 0,
        })
    }
}
