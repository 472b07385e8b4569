//! Header layouts: for each header its length, a `field` module of byte ranges (a one-byte
//! field is a single offset) and its well-known values. Multi-byte fields are big-endian.

/// Ethernet II with up to two VLAN tags (the frame carries no FCS).
pub mod ethernet {
    /// Byte ranges of the untagged header.
    pub mod field {
        use crate::Field;
        /// Destination MAC address.
        pub const DESTINATION: Field = 0..6;
        /// Source MAC address.
        pub const SOURCE: Field = 6..12;
        /// Ethertype, or the TPID of the first VLAN tag.
        pub const ETHERTYPE: Field = 12..14;
    }
    /// Byte ranges of a VLAN tag (from the first byte of the tag: its TPID).
    pub mod vlan_field {
        use crate::Field;
        /// Tag protocol identifier (where the ethertype would be).
        pub const TPID: Field = 0..2;
        /// Tag control information: PCP (3), DEI (1), VID (12).
        pub const TCI: Field = 2..4;
    }
    /// Length of the untagged header (dst, src, ethertype).
    pub const HEADER_LEN: usize = 14;
    /// Length of one VLAN tag.
    pub const VLAN_TAG_LEN: usize = 4;
    /// Most VLAN tags handled (a third one makes a frame "not RoCEv2").
    pub const MAX_VLANS: usize = 2;
    /// Mask of the VLAN identifier in the TCI.
    pub const VID_MASK: u16 = 0x0FFF;
    /// Minimum Ethernet frame length without FCS; shorter frames are padded with zeros.
    pub const MIN_FRAME_LEN: usize = 60;
    /// Ethertype of IPv4.
    pub const ETHERTYPE_IPV4: u16 = 0x0800;
    /// Ethertype of IPv6.
    pub const ETHERTYPE_IPV6: u16 = 0x86DD;
    /// Ethertype of ARP.
    pub const ETHERTYPE_ARP: u16 = 0x0806;
    /// TPID of an 802.1Q (customer) VLAN tag.
    pub const TPID_8021Q: u16 = 0x8100;
    /// TPID of an 802.1ad (service) VLAN tag.
    pub const TPID_8021AD: u16 = 0x88A8;
    /// Both VLAN TPIDs.
    pub const VLAN_TPIDS: [u16; 2] = [TPID_8021Q, TPID_8021AD];

    /// Length of the Ethernet header with `tags` VLAN tags.
    pub const fn header_len(tags: usize) -> usize {
        HEADER_LEN + VLAN_TAG_LEN * tags
    }
}

/// IPv4 (RoCEv2 needs IHL 5: no options).
pub mod ipv4 {
    /// Byte ranges of the header.
    pub mod field {
        use crate::Field;
        /// Version (high nibble) and IHL (low nibble).
        pub const VERSION_IHL: usize = 0;
        /// DSCP (6) and ECN (2): masked in the ICRC.
        pub const DSCP_ECN: usize = 1;
        /// Total length.
        pub const TOTAL_LEN: Field = 2..4;
        /// Identification.
        pub const IDENT: Field = 4..6;
        /// Flags (reserved, DF, MF) and fragment offset (13).
        pub const FLAGS_FRAGMENT: Field = 6..8;
        /// Time to live: masked in the ICRC.
        pub const TTL: usize = 8;
        /// Protocol.
        pub const PROTOCOL: usize = 9;
        /// Header checksum: masked in the ICRC.
        pub const CHECKSUM: Field = 10..12;
        /// Source address.
        pub const SOURCE: Field = 12..16;
        /// Destination address.
        pub const DESTINATION: Field = 16..20;
    }
    /// Header length without options.
    pub const HEADER_LEN: usize = 20;
    /// The version nibble. With [`IHL`] it makes the only version/IHL byte RoCEv2 accepts
    /// (`VERSION << 4 | IHL` = 0x45).
    pub const VERSION: u8 = 4;
    /// IHL of a header without options.
    pub const IHL: u8 = 5;
    /// Protocol number of ICMP.
    pub const PROTO_ICMP: u8 = 1;
    /// Protocol number of UDP.
    pub const PROTO_UDP: u8 = 17;
    /// Protocol number of TCP.
    pub const PROTO_TCP: u8 = 6;
    /// More-fragments flag in [`field::FLAGS_FRAGMENT`] (as a 16-bit value).
    pub const FLAG_MF: u16 = 0x2000;
    /// Don't-fragment flag.
    pub const FLAG_DF: u16 = 0x4000;
    /// Reserved flag.
    pub const FLAG_RESERVED: u16 = 0x8000;
    /// Fragment offset mask.
    pub const FRAGMENT_OFFSET_MASK: u16 = 0x1FFF;
}

/// IPv6 (no extension headers: the next header is UDP).
pub mod ipv6 {
    /// Byte ranges of the header.
    pub mod field {
        use crate::Field;
        /// Version (4), traffic class (8), flow label (20).
        pub const VERSION_CLASS_FLOW: Field = 0..4;
        /// Payload length.
        pub const PAYLOAD_LEN: Field = 4..6;
        /// Next header.
        pub const NEXT_HEADER: usize = 6;
        /// Hop limit: masked in the ICRC.
        pub const HOP_LIMIT: usize = 7;
        /// Source address.
        pub const SOURCE: Field = 8..24;
        /// Destination address.
        pub const DESTINATION: Field = 24..40;
    }
    /// Header length.
    pub const HEADER_LEN: usize = 40;
    /// The version nibble.
    pub const VERSION: u8 = 6;
}

/// UDP.
pub mod udp {
    /// Byte ranges of the header.
    pub mod field {
        use crate::Field;
        /// Source port (RoCEv2: flow entropy).
        pub const SRC_PORT: Field = 0..2;
        /// Destination port.
        pub const DST_PORT: Field = 2..4;
        /// Length (header and payload).
        pub const LENGTH: Field = 4..6;
        /// Checksum (0 allowed on IPv4): masked in the ICRC.
        pub const CHECKSUM: Field = 6..8;
    }
    /// Header length.
    pub const HEADER_LEN: usize = 8;
    /// The IANA UDP destination port of RoCEv2.
    pub const ROCEV2_PORT: u16 = 4791;
}

/// Base Transport Header.
pub mod bth {
    /// Byte ranges of the header.
    pub mod field {
        use crate::Field;
        /// OpCode.
        pub const OPCODE: usize = 0;
        /// SE (1), M (1), PadCnt (2), TVer (4).
        pub const FLAGS: usize = 1;
        /// Partition key.
        pub const PKEY: Field = 2..4;
        /// FECN (1), BECN (1), reserved (6): the whole byte is masked in the ICRC.
        pub const FECN_BECN: usize = 4;
        /// Destination QP.
        pub const DEST_QP: Field = 5..8;
        /// AckReq (1), reserved (7).
        pub const ACKREQ: usize = 8;
        /// Packet sequence number.
        pub const PSN: Field = 9..12;
    }
    /// Header length.
    pub const HEADER_LEN: usize = 12;
    /// PSNs are 24 bits and wrap modulo 2^24.
    pub const PSN_MASK: u32 = 0xFF_FFFF;
    /// Solicited event, in [`field::FLAGS`].
    pub const FLAG_SE: u8 = 0x80;
    /// MigReq, in [`field::FLAGS`].
    pub const FLAG_M: u8 = 0x40;
    /// PadCnt shift in [`field::FLAGS`] (2 bits).
    pub const PADCNT_SHIFT: u32 = 4;
    /// TVer mask in [`field::FLAGS`] (must be 0).
    pub const TVER_MASK: u8 = 0x0F;
    /// FECN, in [`field::FECN_BECN`].
    pub const FLAG_FECN: u8 = 0x80;
    /// BECN, in [`field::FECN_BECN`].
    pub const FLAG_BECN: u8 = 0x40;
    /// AckReq, in [`field::ACKREQ`].
    pub const FLAG_ACKREQ: u8 = 0x80;
}

/// Reliable Datagram Extended Transport Header (RD only).
pub mod rdeth {
    /// Byte ranges of the header.
    pub mod field {
        use crate::Field;
        /// Reserved.
        pub const RESERVED: usize = 0;
        /// EE context.
        pub const EE_CONTEXT: Field = 1..4;
    }
    /// Header length.
    pub const HEADER_LEN: usize = 4;
}

/// Datagram Extended Transport Header (UD).
pub mod deth {
    /// Byte ranges of the header.
    pub mod field {
        use crate::Field;
        /// Q_Key.
        pub const QKEY: Field = 0..4;
        /// Reserved.
        pub const RESERVED: usize = 4;
        /// Source QP.
        pub const SRC_QP: Field = 5..8;
    }
    /// Header length.
    pub const HEADER_LEN: usize = 8;
}

/// RDMA Extended Transport Header.
pub mod reth {
    /// Byte ranges of the header.
    pub mod field {
        use crate::Field;
        /// Virtual address.
        pub const VA: Field = 0..8;
        /// Remote key.
        pub const RKEY: Field = 8..12;
        /// DMA length.
        pub const DMA_LEN: Field = 12..16;
    }
    /// Header length.
    pub const HEADER_LEN: usize = 16;
}

/// Atomic Extended Transport Header.
pub mod atomic_eth {
    /// Byte ranges of the header.
    pub mod field {
        use crate::Field;
        /// Virtual address.
        pub const VA: Field = 0..8;
        /// Remote key.
        pub const RKEY: Field = 8..12;
        /// Swap or add data.
        pub const SWAP_ADD: Field = 12..20;
        /// Compare data.
        pub const COMPARE: Field = 20..28;
    }
    /// Header length.
    pub const HEADER_LEN: usize = 28;
}

/// ACK Extended Transport Header.
pub mod aeth {
    /// Byte ranges of the header.
    pub mod field {
        use crate::Field;
        /// Syndrome.
        pub const SYNDROME: usize = 0;
        /// Message sequence number.
        pub const MSN: Field = 1..4;
    }
    /// Header length.
    pub const HEADER_LEN: usize = 4;

    /// MSNs are 24 bits and wrap modulo 2^24.
    pub const MSN_MASK: u32 = 0xFF_FFFF;
    /// Place of the syndrome in the header's 32-bit word.
    pub const SYNDROME_SHIFT: u32 = 24;

    /// The header as one 32-bit word, its four bytes read big-endian: syndrome in bits 31:24,
    /// MSN in bits 23:0 (cut to 24 bits). The engine's AETH ports and the `PACKET` descriptor's
    /// ImmDt place carry it so.
    pub const fn word(syndrome: u8, msn: u32) -> u32 {
        (syndrome as u32) << SYNDROME_SHIFT | (msn & MSN_MASK)
    }

    /// The syndrome and MSN of a word (see [`word`]).
    pub const fn split(word: u32) -> (u8, u32) {
        ((word >> SYNDROME_SHIFT) as u8, word & MSN_MASK)
    }
}

/// Atomic ACK Extended Transport Header.
pub mod atomic_ack_eth {
    /// Byte ranges of the header.
    pub mod field {
        use crate::Field;
        /// Original remote data.
        pub const ORIGINAL: Field = 0..8;
    }
    /// Header length.
    pub const HEADER_LEN: usize = 8;
}

/// Immediate data.
pub mod immdt {
    /// Byte ranges of the header.
    pub mod field {
        use crate::Field;
        /// The immediate value.
        pub const DATA: Field = 0..4;
    }
    /// Header length.
    pub const HEADER_LEN: usize = 4;
}

/// Invalidate Extended Transport Header.
pub mod ieth {
    /// Byte ranges of the header.
    pub mod field {
        use crate::Field;
        /// The R_Key to invalidate.
        pub const RKEY: Field = 0..4;
    }
    /// Header length.
    pub const HEADER_LEN: usize = 4;
}

/// ARP for IPv4 over Ethernet (the engine answers requests for its own address).
pub mod arp {
    /// Byte ranges of the packet.
    pub mod field {
        use crate::Field;
        /// Hardware type (1: Ethernet).
        pub const HARDWARE_TYPE: Field = 0..2;
        /// Protocol type (the IPv4 ethertype).
        pub const PROTOCOL_TYPE: Field = 2..4;
        /// Hardware address length (6).
        pub const HARDWARE_LEN: usize = 4;
        /// Protocol address length (4).
        pub const PROTOCOL_LEN: usize = 5;
        /// Operation (1: request, 2: reply).
        pub const OPERATION: Field = 6..8;
        /// Sender hardware address.
        pub const SENDER_MAC: Field = 8..14;
        /// Sender protocol address.
        pub const SENDER_IP: Field = 14..18;
        /// Target hardware address.
        pub const TARGET_MAC: Field = 18..24;
        /// Target protocol address.
        pub const TARGET_IP: Field = 24..28;
    }
    /// Packet length for Ethernet and IPv4.
    pub const PACKET_LEN: usize = 28;
    /// Hardware type of Ethernet.
    pub const HARDWARE_ETHERNET: u16 = 1;
    /// Length of an Ethernet address.
    pub const MAC_LEN: u8 = 6;
    /// Length of an IPv4 address.
    pub const IPV4_LEN: u8 = 4;
    /// Operation: request.
    pub const OPERATION_REQUEST: u16 = 1;
    /// Operation: reply.
    pub const OPERATION_REPLY: u16 = 2;
}

/// ICMP for IPv4: echo request and reply (the engine answers echo requests to its address).
pub mod icmp {
    /// Byte ranges of the header.
    pub mod field {
        use crate::Field;
        /// Message type.
        pub const TYPE: usize = 0;
        /// Code.
        pub const CODE: usize = 1;
        /// Checksum: ones' complement of the ones'-complement sum of the message.
        pub const CHECKSUM: Field = 2..4;
        /// Echo identifier.
        pub const IDENTIFIER: Field = 4..6;
        /// Echo sequence number.
        pub const SEQUENCE: Field = 6..8;
    }
    /// Header length of an echo message (the data follows).
    pub const ECHO_HEADER_LEN: usize = 8;
    /// Type of an echo request.
    pub const ECHO_REQUEST: u8 = 8;
    /// Type of an echo reply.
    pub const ECHO_REPLY: u8 = 0;
}
