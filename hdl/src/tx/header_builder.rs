//! [`HeaderBuilder`]: the first part of the packet generator. From a packet descriptor
//! (`contracts::tx::PACKET`) and its QP's context (`contracts::tx::QP_CONTEXT`) it builds the
//! frame's headers (Ethernet, IPv4 or IPv6, UDP, BTH, RETH, ImmDt) with their lengths and the
//! IPv4 header checksum, and plans the frame in beats for the sequencer: one packet per cycle,
//! a free-running pipeline (the generator admits a descriptor only when the header FIFO has room
//! for everything in flight).
//!
//! | stage | work |
//! |---|---|
//! | C0 → C1 | every field placed in the header (a byte-reversed register: frame byte `p` at byte `HEADER_BYTES − 1 − p`, so a big-endian field is one bit range), by layout (IPv4 or IPv6; RETH, ImmDt); header length; UDP length base; checksum words in carry-save form |
//! | C1 → C2 | UDP length, header + payload bytes, payload beats (one add each); checksum sum |
//! | C2 → C3 | IPv4 total length; frame bytes; end of the payload beats; checksum plus the total length |
//! | C3 → C4 | frame bytes − 1; first checksum fold |
//! | C4 → C5 | last beat's bytes, last beat index − 1; second fold |
//! | C5 | lengths and checksum put in place, the header byte-reversed to wire order: the entry |
//!
//! A register's number is its stage. Frame lengths count the 4 ICRC bytes that `IcrcInsert`
//! appends (the generator's frames go to it without them).

use crate::common::delay::Delay;
use crate::common::elab::{bits_from, c};
use ferroce_contracts::tx::{PACKET, QP_CONTEXT};
use ferroce_contracts::{bth, ethernet, immdt, ipv4, ipv6, reth, udp};
use rust_hdl::prelude::*;

/// Largest header: Ethernet, IPv6, UDP, BTH, RETH and ImmDt.
pub const HEADER_BYTES: usize =
    ethernet::HEADER_LEN + ipv6::HEADER_LEN + udp::HEADER_LEN + bth::HEADER_LEN + reth::HEADER_LEN + immdt::HEADER_LEN;
/// [`HEADER_BYTES`] in bits.
pub const HEADER_BITS: usize = HEADER_BYTES * 8;
const _: () = assert!(HEADER_BITS == 752);
pub use ferroce_contracts::tx::{PACKET_BITS, QP_CONTEXT_BITS};
/// ICRC bytes counted in the lengths.
const ICRC_BYTES: u64 = ferroce_contracts::icrc::ICRC_LEN as u64;

/// A frame's headers and its plan in beats: the header FIFO's entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub(crate) struct HeaderEntry {
    /// The header bytes in wire order (frame byte `p` at bits `8p..8p+8`), zero after the header.
    pub header: Bits<HEADER_BITS>,
    /// Header bytes mod K: the lanes of the beat where the payload starts that hold header bytes.
    pub split: Bits<8>,
    /// Beats made of header bytes only (header bytes div K).
    pub header_beats: Bits<8>,
    /// The first beat after the payload's beats: header beats + payload beats.
    pub payload_end_beat: Bits<12>,
    /// Beat of the first byte after the payload (header + payload bytes, div K).
    pub data_end_beat: Bits<12>,
    /// Its lane (the data lanes of that beat).
    pub data_end_lane: Bits<8>,
    /// Index of the last beat.
    pub last_beat: Bits<12>,
    /// Index of the beat before the last.
    pub before_last_beat: Bits<12>,
    /// The frame is one beat.
    pub single_beat: Bit,
    /// Bytes of the last beat (1..=K).
    pub last_beat_bytes: Bits<8>,
    /// The transfer completes with this frame.
    pub complete: Bit,
    /// Channel of the transfer.
    pub channel: Bits<16>,
}

/// Position of a big-endian field of `len` bytes at frame byte `offset` in the byte-reversed
/// header register.
fn place(offset: usize, len: usize) -> Constant<Bits<10>> {
    c::<10>((8 * (HEADER_BYTES - offset - len)) as u64)
}

/// Position of a field of a schema in its packed entry.
fn at(schema: &ferroce_contracts::schema::Schema, name: &str) -> Constant<Bits<10>> {
    c::<10>(schema.offset(name) as u64)
}

/// The constant bytes of a layout (IPv4 or IPv6) in the byte-reversed register.
fn template(v6: bool) -> Constant<Bits<HEADER_BITS>> {
    let mut bytes = [0u8; HEADER_BYTES];
    let mut put = |offset: usize, value: &[u8]| bytes[offset..offset + value.len()].copy_from_slice(value);
    let l2 = ethernet::HEADER_LEN;
    if v6 {
        put(ethernet::field::ETHERTYPE.start, &ethernet::ETHERTYPE_IPV6.to_be_bytes());
        put(l2 + ipv6::field::VERSION_CLASS_FLOW.start, &[6 << 4]);
        put(l2 + ipv6::field::NEXT_HEADER, &[ipv4::PROTO_UDP]);
    } else {
        put(ethernet::field::ETHERTYPE.start, &ethernet::ETHERTYPE_IPV4.to_be_bytes());
        put(l2 + ipv4::field::VERSION_IHL, &[ipv4::VERSION << 4 | ipv4::IHL]);
        put(l2 + ipv4::field::FLAGS_FRAGMENT.start, &ipv4::FLAG_DF.to_be_bytes());
        put(l2 + ipv4::field::PROTOCOL, &[ipv4::PROTO_UDP]);
    }
    let u = l2 + if v6 { ipv6::HEADER_LEN } else { ipv4::HEADER_LEN };
    put(u + udp::field::DST_PORT.start, &udp::ROCEV2_PORT.to_be_bytes());
    Constant::new(bits_from::<HEADER_BITS>(|bit| {
        let p = HEADER_BYTES - 1 - bit / 8;
        bytes[p] >> (bit % 8) & 1 == 1
    }))
}

/// Where the layout-dependent fields go, for one layout.
struct Layout {
    udp: usize,
    bth: usize,
    reth: usize,
}

impl Layout {
    fn new(v6: bool) -> Layout {
        let udp = ethernet::HEADER_LEN + if v6 { ipv6::HEADER_LEN } else { ipv4::HEADER_LEN };
        let bth = udp + udp::HEADER_LEN;
        Layout {
            udp,
            bth,
            reth: bth + bth::HEADER_LEN,
        }
    }
}

/// The header builder; see the module docs. `K` bytes per beat.
#[derive(LogicBlock)]
pub(crate) struct HeaderBuilder<const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties the pipeline.
    pub reset: Signal<In, Bit>,
    /// A descriptor and its QP context are on `descriptor` and `context`.
    pub in_valid: Signal<In, Bit>,
    /// Packed packet descriptor.
    pub descriptor: Signal<In, Bits<PACKET_BITS>>,
    /// Packed QP context of the descriptor's QP.
    pub qp_context: Signal<In, Bits<QP_CONTEXT_BITS>>,
    /// The entry on `entry` is complete (5 cycles after its input).
    pub out_valid: Signal<Out, Bit>,
    /// Headers and plan.
    pub entry: Signal<Out, HeaderEntry>,

    // ---- constants ----
    template_v4: Constant<Bits<HEADER_BITS>>,
    template_v6: Constant<Bits<HEADER_BITS>>,
    // descriptor and context fields
    at_opcode: Constant<Bits<10>>,
    at_psn: Constant<Bits<10>>,
    at_solicited: Constant<Bits<10>>,
    at_ack_request: Constant<Bits<10>>,
    at_pad: Constant<Bits<10>>,
    at_has_reth: Constant<Bits<10>>,
    at_has_immediate: Constant<Bits<10>>,
    at_last_of_transfer: Constant<Bits<10>>,
    at_payload_len: Constant<Bits<10>>,
    at_channel: Constant<Bits<10>>,
    at_rkey: Constant<Bits<10>>,
    at_dma_len: Constant<Bits<10>>,
    at_immediate: Constant<Bits<10>>,
    at_va: Constant<Bits<10>>,
    at_ip_v6: Constant<Bits<10>>,
    at_dscp: Constant<Bits<10>>,
    at_ecn: Constant<Bits<10>>,
    at_ttl: Constant<Bits<10>>,
    at_flow_label: Constant<Bits<10>>,
    at_udp_sport: Constant<Bits<10>>,
    at_pkey: Constant<Bits<10>>,
    at_dest_qpn: Constant<Bits<10>>,
    at_src_mac: Constant<Bits<10>>,
    at_dst_mac: Constant<Bits<10>>,
    at_src_ip: Constant<Bits<10>>,
    at_dst_ip: Constant<Bits<10>>,
    // places in the header: index 0 IPv4, 1 IPv6 where they differ
    to_dst_mac: Constant<Bits<10>>,
    to_src_mac: Constant<Bits<10>>,
    to_v4_tos: Constant<Bits<10>>,
    to_v4_ttl: Constant<Bits<10>>,
    to_v4_src: Constant<Bits<10>>,
    to_v4_dst: Constant<Bits<10>>,
    to_v4_total_len: Constant<Bits<10>>,
    to_v4_checksum: Constant<Bits<10>>,
    to_v6_class_flow: Constant<Bits<10>>,
    to_v6_hop: Constant<Bits<10>>,
    to_v6_src: Constant<Bits<10>>,
    to_v6_dst: Constant<Bits<10>>,
    to_v6_payload_len: Constant<Bits<10>>,
    to_udp_sport: [Constant<Bits<10>>; 2],
    to_udp_len: [Constant<Bits<10>>; 2],
    to_opcode: [Constant<Bits<10>>; 2],
    to_bth_flags: [Constant<Bits<10>>; 2],
    to_pkey: [Constant<Bits<10>>; 2],
    to_dest_qpn: [Constant<Bits<10>>; 2],
    to_ack_request: [Constant<Bits<10>>; 2],
    to_psn: [Constant<Bits<10>>; 2],
    to_va: [Constant<Bits<10>>; 2],
    to_rkey: [Constant<Bits<10>>; 2],
    to_dma_len: [Constant<Bits<10>>; 2],
    /// ImmDt: [IPv4, IPv6] × [no RETH, RETH].
    to_immediate: [Constant<Bits<10>>; 4],
    /// Frame byte `p` of the reversed register, for the byte reversal.
    reversed_byte: [Constant<Bits<10>>; HEADER_BYTES],
    wire_byte: [Constant<Bits<10>>; HEADER_BYTES],
    log2_bytes_per_beat: Constant<Bits<16>>,
    offset_mask: Constant<Bits<16>>,
    /// K − 1, to round a byte count up to beats.
    beat_round_up: Constant<Bits<16>>,
    /// Header bytes by (IPv6, RETH, ImmDt), index `4·v6 + 2·reth + imm`; the UDP length base
    /// (UDP, BTH, ICRC, extension headers) by (RETH, ImmDt).
    header_bytes_of: [Constant<Bits<8>>; 8],
    udp_base_of: [Constant<Bits<16>>; 4],
    layout_code: [Constant<Bits<3>>; 8],
    checksum_start: Constant<Bits<20>>,
    ipv4_header_bytes: Constant<Bits<16>>,

    // ---- C0 -> C1 ----
    v6: Signal<Local, Bit>,
    has_reth: Signal<Local, Bit>,
    has_immediate: Signal<Local, Bit>,
    traffic_class: Signal<Local, Bits<8>>,
    /// Index into `header_bytes_of` / `udp_base_of`.
    layout_index: Signal<Local, Bits<3>>,
    src_ip: Signal<Local, Bits<128>>,
    dst_ip: Signal<Local, Bits<128>>,
    bth_flags: Signal<Local, Bits<8>>,
    ack_byte: Signal<Local, Bits<8>>,
    /// The header of each layout, before the lengths and the checksum.
    layout_v4: Signal<Local, Bits<HEADER_BITS>>,
    layout_v6: Signal<Local, Bits<HEADER_BITS>>,
    /// The checksum's words but the total length, reduced to two by three carry-save steps.
    checksum_terms: [Signal<Local, Bits<20>>; 6],
    csa: [Signal<Local, Bits<20>>; 6],
    valid1: DFF<Bit>,
    v6_1: DFF<Bit>,
    header_bytes1: DFF<Bits<8>>,
    udp_base1: DFF<Bits<16>>,
    payload_len1: DFF<Bits<16>>,
    pad1: DFF<Bits<16>>,
    /// Payload and pad bytes (what the UDP and IP lengths count).
    padded_len1: DFF<Bits<16>>,
    checksum_sum1: DFF<Bits<20>>,
    checksum_carry1: DFF<Bits<20>>,
    complete1: DFF<Bit>,
    channel1: DFF<Bits<16>>,
    partial_header: Delay<HEADER_BITS, 5>,
    // ---- C1 -> C2 ----
    header_lane: Signal<Local, Bits<16>>,
    header_beat_count: Signal<Local, Bits<16>>,
    valid2: DFF<Bit>,
    v6_2: DFF<Bit>,
    udp_len2: DFF<Bits<16>>,
    data_bytes2: DFF<Bits<16>>,
    /// Payload bytes + K − 1 (payload beats once shifted).
    payload_round2: DFF<Bits<16>>,
    split2: DFF<Bits<8>>,
    header_beats2: DFF<Bits<8>>,
    pad2: DFF<Bits<16>>,
    checksum2: DFF<Bits<20>>,
    complete2: DFF<Bit>,
    channel2: DFF<Bits<16>>,
    // ---- C2 -> C3 ----
    data_lane: Signal<Local, Bits<16>>,
    valid3: DFF<Bit>,
    v6_3: DFF<Bit>,
    udp_len3: DFF<Bits<16>>,
    total_len3: DFF<Bits<16>>,
    frame_bytes3: DFF<Bits<16>>,
    payload_end_beat3: DFF<Bits<16>>,
    data_end_beat3: DFF<Bits<16>>,
    data_end_lane3: DFF<Bits<8>>,
    split3: DFF<Bits<8>>,
    header_beats3: DFF<Bits<8>>,
    checksum3: DFF<Bits<20>>,
    complete3: DFF<Bit>,
    channel3: DFF<Bits<16>>,
    // ---- C3 -> C4 ----
    valid4: DFF<Bit>,
    v6_4: DFF<Bit>,
    udp_len4: DFF<Bits<16>>,
    ip_len4: DFF<Bits<16>>,
    frame_bytes_less_one4: DFF<Bits<16>>,
    payload_end_beat4: DFF<Bits<16>>,
    data_end_beat4: DFF<Bits<16>>,
    data_end_lane4: DFF<Bits<8>>,
    split4: DFF<Bits<8>>,
    header_beats4: DFF<Bits<8>>,
    folded4: DFF<Bits<20>>,
    complete4: DFF<Bit>,
    channel4: DFF<Bits<16>>,
    // ---- C4 -> C5 ----
    last_beat_wide: Signal<Local, Bits<16>>,
    last_lane: Signal<Local, Bits<16>>,
    folded_again: Signal<Local, Bits<20>>,
    valid5: DFF<Bit>,
    v6_5: DFF<Bit>,
    udp_len5: DFF<Bits<16>>,
    ip_len5: DFF<Bits<16>>,
    last_beat5: DFF<Bits<16>>,
    before_last_beat5: DFF<Bits<16>>,
    single_beat5: DFF<Bit>,
    last_beat_bytes5: DFF<Bits<8>>,
    payload_end_beat5: DFF<Bits<16>>,
    data_end_beat5: DFF<Bits<16>>,
    data_end_lane5: DFF<Bits<8>>,
    split5: DFF<Bits<8>>,
    header_beats5: DFF<Bits<8>>,
    checksum5: DFF<Bits<16>>,
    complete5: DFF<Bit>,
    channel5: DFF<Bits<16>>,
    // ---- C5 ----
    /// The fields the C stages computed, placed.
    lengths: Signal<Local, Bits<HEADER_BITS>>,
    finished: Signal<Local, Bits<HEADER_BITS>>,
    header_byte: Signal<Local, Bits<8>>,
    wire_order: Signal<Local, Bits<HEADER_BITS>>,
}

impl<const K: usize> Default for HeaderBuilder<K> {
    fn default() -> Self {
        assert!(K.is_power_of_two() && (8..=128).contains(&K), "K is a power of two from 8 to 128");
        let (v4, v6) = (Layout::new(false), Layout::new(true));
        let l2 = ethernet::HEADER_LEN;
        let both = |f: fn(&Layout) -> (usize, usize)| [f(&v4), f(&v6)].map(|(o, n)| place(o, n));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            descriptor: Default::default(),
            qp_context: Default::default(),
            out_valid: Default::default(),
            entry: Default::default(),
            template_v4: template(false),
            template_v6: template(true),
            at_opcode: at(&PACKET, "opcode"),
            at_psn: at(&PACKET, "psn"),
            at_solicited: at(&PACKET, "solicited"),
            at_ack_request: at(&PACKET, "ack_request"),
            at_pad: at(&PACKET, "pad"),
            at_has_reth: at(&PACKET, "has_reth"),
            at_has_immediate: at(&PACKET, "has_immediate"),
            at_last_of_transfer: at(&PACKET, "last_of_transfer"),
            at_payload_len: at(&PACKET, "payload_len"),
            at_channel: at(&PACKET, "channel"),
            at_rkey: at(&PACKET, "rkey"),
            at_dma_len: at(&PACKET, "dma_len"),
            at_immediate: at(&PACKET, "immediate"),
            at_va: at(&PACKET, "va"),
            at_ip_v6: at(&QP_CONTEXT, "ip_v6"),
            at_dscp: at(&QP_CONTEXT, "dscp"),
            at_ecn: at(&QP_CONTEXT, "ecn"),
            at_ttl: at(&QP_CONTEXT, "ttl"),
            at_flow_label: at(&QP_CONTEXT, "flow_label"),
            at_udp_sport: at(&QP_CONTEXT, "udp_sport"),
            at_pkey: at(&QP_CONTEXT, "pkey"),
            at_dest_qpn: at(&QP_CONTEXT, "dest_qpn"),
            at_src_mac: at(&QP_CONTEXT, "src_mac"),
            at_dst_mac: at(&QP_CONTEXT, "dst_mac"),
            at_src_ip: at(&QP_CONTEXT, "src_ip"),
            at_dst_ip: at(&QP_CONTEXT, "dst_ip"),
            to_dst_mac: place(ethernet::field::DESTINATION.start, 6),
            to_src_mac: place(ethernet::field::SOURCE.start, 6),
            to_v4_tos: place(l2 + ipv4::field::DSCP_ECN, 1),
            to_v4_ttl: place(l2 + ipv4::field::TTL, 1),
            to_v4_src: place(l2 + ipv4::field::SOURCE.start, 4),
            to_v4_dst: place(l2 + ipv4::field::DESTINATION.start, 4),
            to_v4_total_len: place(l2 + ipv4::field::TOTAL_LEN.start, 2),
            to_v4_checksum: place(l2 + ipv4::field::CHECKSUM.start, 2),
            to_v6_class_flow: place(l2 + ipv6::field::VERSION_CLASS_FLOW.start, 4),
            to_v6_hop: place(l2 + ipv6::field::HOP_LIMIT, 1),
            to_v6_src: place(l2 + ipv6::field::SOURCE.start, 16),
            to_v6_dst: place(l2 + ipv6::field::DESTINATION.start, 16),
            to_v6_payload_len: place(l2 + ipv6::field::PAYLOAD_LEN.start, 2),
            to_udp_sport: both(|l| (l.udp + udp::field::SRC_PORT.start, 2)),
            to_udp_len: both(|l| (l.udp + udp::field::LENGTH.start, 2)),
            to_opcode: both(|l| (l.bth + bth::field::OPCODE, 1)),
            to_bth_flags: both(|l| (l.bth + bth::field::FLAGS, 1)),
            to_pkey: both(|l| (l.bth + bth::field::PKEY.start, 2)),
            to_dest_qpn: both(|l| (l.bth + bth::field::DEST_QP.start, 3)),
            to_ack_request: both(|l| (l.bth + bth::field::ACKREQ, 1)),
            to_psn: both(|l| (l.bth + bth::field::PSN.start, 3)),
            to_va: both(|l| (l.reth + reth::field::VA.start, 8)),
            to_rkey: both(|l| (l.reth + reth::field::RKEY.start, 4)),
            to_dma_len: both(|l| (l.reth + reth::field::DMA_LEN.start, 4)),
            to_immediate: [
                place(v4.reth, 4),
                place(v4.reth + reth::HEADER_LEN, 4),
                place(v6.reth, 4),
                place(v6.reth + reth::HEADER_LEN, 4),
            ],
            reversed_byte: std::array::from_fn(|p| c::<10>((8 * (HEADER_BYTES - 1 - p)) as u64)),
            wire_byte: std::array::from_fn(|p| c::<10>((8 * p) as u64)),
            log2_bytes_per_beat: c::<16>(K.trailing_zeros() as u64),
            offset_mask: c::<16>(K as u64 - 1),
            beat_round_up: c::<16>(K as u64 - 1),
            header_bytes_of: std::array::from_fn(|i| {
                let ext = if i & 2 != 0 { reth::HEADER_LEN } else { 0 } + if i & 1 != 0 { immdt::HEADER_LEN } else { 0 };
                c::<8>((base_header_bytes(i & 4 != 0) + ext) as u64)
            }),
            udp_base_of: std::array::from_fn(|i| {
                let ext = if i & 2 != 0 { reth::HEADER_LEN } else { 0 } + if i & 1 != 0 { immdt::HEADER_LEN } else { 0 };
                c::<16>((udp_base_bytes() + ext) as u64)
            }),
            layout_code: std::array::from_fn(|i| c::<3>(i as u64)),
            checksum_start: c::<20>(checksum_constant()),
            ipv4_header_bytes: c::<16>(ipv4::HEADER_LEN as u64),
            v6: Default::default(),
            has_reth: Default::default(),
            has_immediate: Default::default(),
            traffic_class: Default::default(),
            layout_index: Default::default(),
            src_ip: Default::default(),
            dst_ip: Default::default(),
            bth_flags: Default::default(),
            ack_byte: Default::default(),
            layout_v4: Default::default(),
            layout_v6: Default::default(),
            checksum_terms: Default::default(),
            csa: Default::default(),
            valid1: Default::default(),
            v6_1: Default::default(),
            header_bytes1: Default::default(),
            udp_base1: Default::default(),
            payload_len1: Default::default(),
            pad1: Default::default(),
            padded_len1: Default::default(),
            checksum_sum1: Default::default(),
            checksum_carry1: Default::default(),
            complete1: Default::default(),
            channel1: Default::default(),
            partial_header: Default::default(),
            header_lane: Default::default(),
            header_beat_count: Default::default(),
            valid2: Default::default(),
            v6_2: Default::default(),
            udp_len2: Default::default(),
            data_bytes2: Default::default(),
            payload_round2: Default::default(),
            split2: Default::default(),
            header_beats2: Default::default(),
            pad2: Default::default(),
            checksum2: Default::default(),
            complete2: Default::default(),
            channel2: Default::default(),
            data_lane: Default::default(),
            valid3: Default::default(),
            v6_3: Default::default(),
            udp_len3: Default::default(),
            total_len3: Default::default(),
            frame_bytes3: Default::default(),
            payload_end_beat3: Default::default(),
            data_end_beat3: Default::default(),
            data_end_lane3: Default::default(),
            split3: Default::default(),
            header_beats3: Default::default(),
            checksum3: Default::default(),
            complete3: Default::default(),
            channel3: Default::default(),
            valid4: Default::default(),
            v6_4: Default::default(),
            udp_len4: Default::default(),
            ip_len4: Default::default(),
            frame_bytes_less_one4: Default::default(),
            payload_end_beat4: Default::default(),
            data_end_beat4: Default::default(),
            data_end_lane4: Default::default(),
            split4: Default::default(),
            header_beats4: Default::default(),
            folded4: Default::default(),
            complete4: Default::default(),
            channel4: Default::default(),
            last_beat_wide: Default::default(),
            last_lane: Default::default(),
            folded_again: Default::default(),
            valid5: Default::default(),
            v6_5: Default::default(),
            udp_len5: Default::default(),
            ip_len5: Default::default(),
            last_beat5: Default::default(),
            before_last_beat5: Default::default(),
            single_beat5: Default::default(),
            last_beat_bytes5: Default::default(),
            payload_end_beat5: Default::default(),
            data_end_beat5: Default::default(),
            data_end_lane5: Default::default(),
            split5: Default::default(),
            header_beats5: Default::default(),
            checksum5: Default::default(),
            complete5: Default::default(),
            channel5: Default::default(),
            lengths: Default::default(),
            finished: Default::default(),
            header_byte: Default::default(),
            wire_order: Default::default(),
        }
    }
}

/// The constant part of the IPv4 header checksum: the version/IHL byte, the flags (DF) and the
/// protocol, plus 20 (the total length is the UDP length plus the IPv4 header, and the sum takes
/// the UDP length).
pub fn checksum_constant() -> u64 {
    let version_ihl = u64::from(ipv4::VERSION << 4 | ipv4::IHL) << 8;
    version_ihl + u64::from(ipv4::FLAG_DF) + u64::from(ipv4::PROTO_UDP) + ipv4::HEADER_LEN as u64
}

/// Header bytes before the extension headers, by layout (Ethernet, IP, UDP, BTH).
pub const fn base_header_bytes(v6: bool) -> usize {
    ethernet::HEADER_LEN + if v6 { ipv6::HEADER_LEN } else { ipv4::HEADER_LEN } + udp::HEADER_LEN + bth::HEADER_LEN
}

/// The UDP length without payload, pad and extension headers: UDP, BTH and the ICRC.
pub const fn udp_base_bytes() -> usize {
    udp::HEADER_LEN + bth::HEADER_LEN + ICRC_BYTES as usize
}

impl<const K: usize> Logic for HeaderBuilder<K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            valid1,
            v6_1,
            header_bytes1,
            udp_base1,
            payload_len1,
            pad1,
            padded_len1,
            checksum_sum1,
            checksum_carry1,
            complete1,
            channel1,
            valid2,
            v6_2,
            udp_len2,
            data_bytes2,
            payload_round2,
            split2,
            header_beats2,
            pad2,
            checksum2,
            complete2,
            channel2,
            valid3,
            v6_3,
            udp_len3,
            total_len3,
            frame_bytes3,
            payload_end_beat3,
            data_end_beat3,
            data_end_lane3,
            split3,
            header_beats3,
            checksum3,
            complete3,
            channel3,
            valid4,
            v6_4,
            udp_len4,
            ip_len4,
            frame_bytes_less_one4,
            payload_end_beat4,
            data_end_beat4,
            data_end_lane4,
            split4,
            header_beats4,
            folded4,
            complete4,
            channel4,
            valid5,
            v6_5,
            udp_len5,
            ip_len5,
            last_beat5,
            before_last_beat5,
            single_beat5,
            last_beat_bytes5,
            payload_end_beat5,
            data_end_beat5,
            data_end_lane5,
            split5,
            header_beats5,
            checksum5,
            complete5,
            channel5
        );
        self.partial_header.clock.next = self.clock.val();
        self.partial_header.ce.next = true;

        // ================= C0 -> C1: fields in place =================
        self.v6.next = self.qp_context.val().get_bit(self.at_ip_v6.val().index());
        self.has_reth.next = self.descriptor.val().get_bit(self.at_has_reth.val().index());
        self.has_immediate.next = self.descriptor.val().get_bit(self.at_has_immediate.val().index());
        self.traffic_class.next = (bit_cast::<8, 6>(self.qp_context.val().get_bits::<6>(self.at_dscp.val().index())) << 2)
            | bit_cast::<8, 2>(self.qp_context.val().get_bits::<2>(self.at_ecn.val().index()));
        self.src_ip.next = self.qp_context.val().get_bits::<128>(self.at_src_ip.val().index());
        self.dst_ip.next = self.qp_context.val().get_bits::<128>(self.at_dst_ip.val().index());
        self.bth_flags.next = bit_cast::<8, 2>(self.descriptor.val().get_bits::<2>(self.at_pad.val().index())) << 4;
        if self.descriptor.val().get_bit(self.at_solicited.val().index()) {
            self.bth_flags.next = self.bth_flags.val() | 0x80;
        }
        self.ack_byte.next = 0.into();
        if self.descriptor.val().get_bit(self.at_ack_request.val().index()) {
            self.ack_byte.next = 0x80.into();
        }
        // the fields both layouts share, then each layout's own
        self.layout_v4.next = (bit_cast::<HEADER_BITS, 48>(self.qp_context.val().get_bits::<48>(self.at_dst_mac.val().index()))
            << self.to_dst_mac.val())
            | (bit_cast::<HEADER_BITS, 48>(self.qp_context.val().get_bits::<48>(self.at_src_mac.val().index())) << self.to_src_mac.val());
        self.layout_v6.next = self.layout_v4.val() | self.template_v6.val();
        self.layout_v6.next = self.layout_v6.val()
            | (((bit_cast::<HEADER_BITS, 8>(self.traffic_class.val()) << 20)
                | bit_cast::<HEADER_BITS, 20>(self.qp_context.val().get_bits::<20>(self.at_flow_label.val().index())))
                << self.to_v6_class_flow.val())
            | (bit_cast::<HEADER_BITS, 8>(self.qp_context.val().get_bits::<8>(self.at_ttl.val().index())) << self.to_v6_hop.val())
            | (bit_cast::<HEADER_BITS, 128>(self.src_ip.val()) << self.to_v6_src.val())
            | (bit_cast::<HEADER_BITS, 128>(self.dst_ip.val()) << self.to_v6_dst.val());
        self.layout_v4.next = self.layout_v4.val()
            | self.template_v4.val()
            | (bit_cast::<HEADER_BITS, 8>(self.traffic_class.val()) << self.to_v4_tos.val())
            | (bit_cast::<HEADER_BITS, 8>(self.qp_context.val().get_bits::<8>(self.at_ttl.val().index())) << self.to_v4_ttl.val())
            | (bit_cast::<HEADER_BITS, 32>(self.src_ip.val().get_bits::<32>(0)) << self.to_v4_src.val())
            | (bit_cast::<HEADER_BITS, 32>(self.dst_ip.val().get_bits::<32>(0)) << self.to_v4_dst.val());
        self.layout_v4.next = self.layout_v4.val()
            | (bit_cast::<HEADER_BITS, 16>(self.qp_context.val().get_bits::<16>(self.at_udp_sport.val().index()))
                << self.to_udp_sport[0].val())
            | (bit_cast::<HEADER_BITS, 8>(self.descriptor.val().get_bits::<8>(self.at_opcode.val().index())) << self.to_opcode[0].val())
            | (bit_cast::<HEADER_BITS, 8>(self.bth_flags.val()) << self.to_bth_flags[0].val())
            | (bit_cast::<HEADER_BITS, 16>(self.qp_context.val().get_bits::<16>(self.at_pkey.val().index())) << self.to_pkey[0].val())
            | (bit_cast::<HEADER_BITS, 24>(self.qp_context.val().get_bits::<24>(self.at_dest_qpn.val().index()))
                << self.to_dest_qpn[0].val())
            | (bit_cast::<HEADER_BITS, 8>(self.ack_byte.val()) << self.to_ack_request[0].val())
            | (bit_cast::<HEADER_BITS, 24>(self.descriptor.val().get_bits::<24>(self.at_psn.val().index())) << self.to_psn[0].val());
        self.layout_v6.next = self.layout_v6.val()
            | (bit_cast::<HEADER_BITS, 16>(self.qp_context.val().get_bits::<16>(self.at_udp_sport.val().index()))
                << self.to_udp_sport[1].val())
            | (bit_cast::<HEADER_BITS, 8>(self.descriptor.val().get_bits::<8>(self.at_opcode.val().index())) << self.to_opcode[1].val())
            | (bit_cast::<HEADER_BITS, 8>(self.bth_flags.val()) << self.to_bth_flags[1].val())
            | (bit_cast::<HEADER_BITS, 16>(self.qp_context.val().get_bits::<16>(self.at_pkey.val().index())) << self.to_pkey[1].val())
            | (bit_cast::<HEADER_BITS, 24>(self.qp_context.val().get_bits::<24>(self.at_dest_qpn.val().index()))
                << self.to_dest_qpn[1].val())
            | (bit_cast::<HEADER_BITS, 8>(self.ack_byte.val()) << self.to_ack_request[1].val())
            | (bit_cast::<HEADER_BITS, 24>(self.descriptor.val().get_bits::<24>(self.at_psn.val().index())) << self.to_psn[1].val());
        if self.has_reth.val() {
            self.layout_v4.next = self.layout_v4.val()
                | (bit_cast::<HEADER_BITS, 64>(self.descriptor.val().get_bits::<64>(self.at_va.val().index())) << self.to_va[0].val())
                | (bit_cast::<HEADER_BITS, 32>(self.descriptor.val().get_bits::<32>(self.at_rkey.val().index())) << self.to_rkey[0].val())
                | (bit_cast::<HEADER_BITS, 32>(self.descriptor.val().get_bits::<32>(self.at_dma_len.val().index()))
                    << self.to_dma_len[0].val());
            self.layout_v6.next = self.layout_v6.val()
                | (bit_cast::<HEADER_BITS, 64>(self.descriptor.val().get_bits::<64>(self.at_va.val().index())) << self.to_va[1].val())
                | (bit_cast::<HEADER_BITS, 32>(self.descriptor.val().get_bits::<32>(self.at_rkey.val().index())) << self.to_rkey[1].val())
                | (bit_cast::<HEADER_BITS, 32>(self.descriptor.val().get_bits::<32>(self.at_dma_len.val().index()))
                    << self.to_dma_len[1].val());
        }
        if self.has_immediate.val() {
            if self.has_reth.val() {
                self.layout_v4.next = self.layout_v4.val()
                    | (bit_cast::<HEADER_BITS, 32>(self.descriptor.val().get_bits::<32>(self.at_immediate.val().index()))
                        << self.to_immediate[1].val());
                self.layout_v6.next = self.layout_v6.val()
                    | (bit_cast::<HEADER_BITS, 32>(self.descriptor.val().get_bits::<32>(self.at_immediate.val().index()))
                        << self.to_immediate[3].val());
            } else {
                self.layout_v4.next = self.layout_v4.val()
                    | (bit_cast::<HEADER_BITS, 32>(self.descriptor.val().get_bits::<32>(self.at_immediate.val().index()))
                        << self.to_immediate[0].val());
                self.layout_v6.next = self.layout_v6.val()
                    | (bit_cast::<HEADER_BITS, 32>(self.descriptor.val().get_bits::<32>(self.at_immediate.val().index()))
                        << self.to_immediate[2].val());
            }
        }
        if self.v6.val() {
            self.partial_header.d.next = self.layout_v6.val();
        } else {
            self.partial_header.d.next = self.layout_v4.val();
        }
        // lengths
        self.layout_index.next = 0.into();
        self.layout_index.next = self.layout_index.val().replace_bit(2, self.v6.val());
        self.layout_index.next = self.layout_index.val().replace_bit(1, self.has_reth.val());
        self.layout_index.next = self.layout_index.val().replace_bit(0, self.has_immediate.val());
        self.header_bytes1.d.next = self.header_bytes_of[0].val();
        self.udp_base1.d.next = self.udp_base_of[0].val();
        for i in 1..8 {
            if self.layout_index.val() == self.layout_code[i].val() {
                self.header_bytes1.d.next = self.header_bytes_of[i].val();
            }
        }
        for i in 1..4 {
            if self.layout_index.val().get_bits::<2>(0) == self.layout_code[i].val().get_bits::<2>(0) {
                self.udp_base1.d.next = self.udp_base_of[i].val();
            }
        }
        self.valid1.d.next = self.in_valid.val();
        self.v6_1.d.next = self.v6.val();
        self.payload_len1.d.next = bit_cast::<16, 13>(self.descriptor.val().get_bits::<13>(self.at_payload_len.val().index()));
        self.pad1.d.next = bit_cast::<16, 2>(self.descriptor.val().get_bits::<2>(self.at_pad.val().index()));
        self.padded_len1.d.next = bit_cast::<16, 13>(self.descriptor.val().get_bits::<13>(self.at_payload_len.val().index()))
            + bit_cast::<16, 2>(self.descriptor.val().get_bits::<2>(self.at_pad.val().index()));
        self.complete1.d.next = self.descriptor.val().get_bit(self.at_last_of_transfer.val().index());
        self.channel1.d.next = self.descriptor.val().get_bits::<16>(self.at_channel.val().index());
        // IPv4 checksum: the constant, TTL·256 + TOS, the four address words; three carry-save steps
        self.checksum_terms[0].next = self.checksum_start.val();
        self.checksum_terms[1].next = (bit_cast::<20, 8>(self.qp_context.val().get_bits::<8>(self.at_ttl.val().index())) << 8)
            | bit_cast::<20, 8>(self.traffic_class.val());
        self.checksum_terms[2].next = bit_cast::<20, 16>(self.src_ip.val().get_bits::<16>(16));
        self.checksum_terms[3].next = bit_cast::<20, 16>(self.src_ip.val().get_bits::<16>(0));
        self.checksum_terms[4].next = bit_cast::<20, 16>(self.dst_ip.val().get_bits::<16>(16));
        self.checksum_terms[5].next = bit_cast::<20, 16>(self.dst_ip.val().get_bits::<16>(0));
        self.csa[0].next = self.checksum_terms[0].val() ^ self.checksum_terms[1].val() ^ self.checksum_terms[2].val();
        self.csa[1].next = ((self.checksum_terms[0].val() & self.checksum_terms[1].val())
            | (self.checksum_terms[0].val() & self.checksum_terms[2].val())
            | (self.checksum_terms[1].val() & self.checksum_terms[2].val()))
            << 1;
        self.csa[2].next = self.checksum_terms[3].val() ^ self.checksum_terms[4].val() ^ self.checksum_terms[5].val();
        self.csa[3].next = ((self.checksum_terms[3].val() & self.checksum_terms[4].val())
            | (self.checksum_terms[3].val() & self.checksum_terms[5].val())
            | (self.checksum_terms[4].val() & self.checksum_terms[5].val()))
            << 1;
        // four operands to three, then to two
        self.csa[4].next = self.csa[0].val() ^ self.csa[1].val() ^ self.csa[2].val();
        self.csa[5].next =
            ((self.csa[0].val() & self.csa[1].val()) | (self.csa[0].val() & self.csa[2].val()) | (self.csa[1].val() & self.csa[2].val()))
                << 1;
        self.checksum_sum1.d.next = self.csa[4].val() ^ self.csa[5].val() ^ self.csa[3].val();
        self.checksum_carry1.d.next =
            ((self.csa[4].val() & self.csa[5].val()) | (self.csa[4].val() & self.csa[3].val()) | (self.csa[5].val() & self.csa[3].val()))
                << 1;

        // ================= C1 -> C2 =================
        self.valid2.d.next = self.valid1.q.val();
        self.v6_2.d.next = self.v6_1.q.val();
        self.udp_len2.d.next = self.udp_base1.q.val() + self.padded_len1.q.val();
        self.data_bytes2.d.next = bit_cast::<16, 8>(self.header_bytes1.q.val()) + self.payload_len1.q.val();
        self.payload_round2.d.next = self.payload_len1.q.val() + self.beat_round_up.val();
        self.header_lane.next = bit_cast::<16, 8>(self.header_bytes1.q.val()) & self.offset_mask.val();
        self.header_beat_count.next = bit_cast::<16, 8>(self.header_bytes1.q.val()) >> self.log2_bytes_per_beat.val();
        self.split2.d.next = self.header_lane.val().get_bits::<8>(0);
        self.header_beats2.d.next = self.header_beat_count.val().get_bits::<8>(0);
        self.pad2.d.next = self.pad1.q.val();
        self.checksum2.d.next = self.checksum_sum1.q.val() + self.checksum_carry1.q.val();
        self.complete2.d.next = self.complete1.q.val();
        self.channel2.d.next = self.channel1.q.val();

        // ================= C2 -> C3 =================
        self.valid3.d.next = self.valid2.q.val();
        self.v6_3.d.next = self.v6_2.q.val();
        self.udp_len3.d.next = self.udp_len2.q.val();
        self.total_len3.d.next = self.udp_len2.q.val() + self.ipv4_header_bytes.val();
        self.frame_bytes3.d.next = self.data_bytes2.q.val() + self.pad2.q.val();
        self.payload_end_beat3.d.next =
            bit_cast::<16, 8>(self.header_beats2.q.val()) + (self.payload_round2.q.val() >> self.log2_bytes_per_beat.val());
        self.data_end_beat3.d.next = self.data_bytes2.q.val() >> self.log2_bytes_per_beat.val();
        self.data_lane.next = self.data_bytes2.q.val() & self.offset_mask.val();
        self.data_end_lane3.d.next = self.data_lane.val().get_bits::<8>(0);
        self.split3.d.next = self.split2.q.val();
        self.header_beats3.d.next = self.header_beats2.q.val();
        self.checksum3.d.next = self.checksum2.q.val() + bit_cast::<20, 16>(self.udp_len2.q.val());
        self.complete3.d.next = self.complete2.q.val();
        self.channel3.d.next = self.channel2.q.val();

        // ================= C3 -> C4 =================
        self.valid4.d.next = self.valid3.q.val();
        self.v6_4.d.next = self.v6_3.q.val();
        self.udp_len4.d.next = self.udp_len3.q.val();
        self.ip_len4.d.next = self.total_len3.q.val();
        if self.v6_3.q.val() {
            self.ip_len4.d.next = self.udp_len3.q.val();
        }
        self.frame_bytes_less_one4.d.next = self.frame_bytes3.q.val() - 1;
        self.payload_end_beat4.d.next = self.payload_end_beat3.q.val();
        self.data_end_beat4.d.next = self.data_end_beat3.q.val();
        self.data_end_lane4.d.next = self.data_end_lane3.q.val();
        self.split4.d.next = self.split3.q.val();
        self.header_beats4.d.next = self.header_beats3.q.val();
        self.folded4.d.next = (self.checksum3.q.val() & 0xFFFF) + (self.checksum3.q.val() >> 16);
        self.complete4.d.next = self.complete3.q.val();
        self.channel4.d.next = self.channel3.q.val();

        // ================= C4 -> C5 =================
        self.last_beat_wide.next = self.frame_bytes_less_one4.q.val() >> self.log2_bytes_per_beat.val();
        self.valid5.d.next = self.valid4.q.val();
        self.v6_5.d.next = self.v6_4.q.val();
        self.udp_len5.d.next = self.udp_len4.q.val();
        self.ip_len5.d.next = self.ip_len4.q.val();
        self.last_beat5.d.next = self.last_beat_wide.val();
        self.before_last_beat5.d.next = self.last_beat_wide.val() - 1;
        self.single_beat5.d.next = self.last_beat_wide.val() == 0;
        self.last_lane.next = self.frame_bytes_less_one4.q.val() & self.offset_mask.val();
        self.last_beat_bytes5.d.next = self.last_lane.val().get_bits::<8>(0) + 1;
        self.payload_end_beat5.d.next = self.payload_end_beat4.q.val();
        self.data_end_beat5.d.next = self.data_end_beat4.q.val();
        self.data_end_lane5.d.next = self.data_end_lane4.q.val();
        self.split5.d.next = self.split4.q.val();
        self.header_beats5.d.next = self.header_beats4.q.val();
        self.folded_again.next = (self.folded4.q.val() & 0xFFFF) + (self.folded4.q.val() >> 16);
        self.checksum5.d.next = !self.folded_again.val().get_bits::<16>(0);
        self.complete5.d.next = self.complete4.q.val();
        self.channel5.d.next = self.channel4.q.val();

        if self.reset.val() {
            self.valid1.d.next = false;
            self.valid2.d.next = false;
            self.valid3.d.next = false;
            self.valid4.d.next = false;
            self.valid5.d.next = false;
        }

        // ================= C5: lengths and checksum in place, wire order =================
        if self.v6_5.q.val() {
            self.lengths.next = (bit_cast::<HEADER_BITS, 16>(self.ip_len5.q.val()) << self.to_v6_payload_len.val())
                | (bit_cast::<HEADER_BITS, 16>(self.udp_len5.q.val()) << self.to_udp_len[1].val());
        } else {
            self.lengths.next = (bit_cast::<HEADER_BITS, 16>(self.ip_len5.q.val()) << self.to_v4_total_len.val())
                | (bit_cast::<HEADER_BITS, 16>(self.udp_len5.q.val()) << self.to_udp_len[0].val())
                | (bit_cast::<HEADER_BITS, 16>(self.checksum5.q.val()) << self.to_v4_checksum.val());
        }
        self.finished.next = self.partial_header.q.val() | self.lengths.val();
        self.wire_order.next = 0.into();
        for i in 0..HEADER_BYTES {
            self.header_byte.next = self.finished.val().get_bits::<8>(self.reversed_byte[i].val().index());
            self.wire_order.next = self.wire_order.val() | (bit_cast::<HEADER_BITS, 8>(self.header_byte.val()) << self.wire_byte[i].val());
        }
        self.out_valid.next = self.valid5.q.val();
        self.entry.next.header = self.wire_order.val();
        self.entry.next.split = self.split5.q.val();
        self.entry.next.header_beats = self.header_beats5.q.val();
        self.entry.next.payload_end_beat = self.payload_end_beat5.q.val().get_bits::<12>(0);
        self.entry.next.data_end_beat = self.data_end_beat5.q.val().get_bits::<12>(0);
        self.entry.next.data_end_lane = self.data_end_lane5.q.val();
        self.entry.next.last_beat = self.last_beat5.q.val().get_bits::<12>(0);
        self.entry.next.before_last_beat = self.before_last_beat5.q.val().get_bits::<12>(0);
        self.entry.next.single_beat = self.single_beat5.q.val();
        self.entry.next.last_beat_bytes = self.last_beat_bytes5.q.val();
        self.entry.next.complete = self.complete5.q.val();
        self.entry.next.channel = self.channel5.q.val();
    }
}
