//! RX front end (issue 3), first block: [`RxHeader`], the header decoder.
//!
//! `RxHeader` watches the frame stream (always ready, one beat per cycle, `tkeep` contiguous
//! from lane 0, frame byte 0 in `tdata[7:0]`) and emits registered records (below): the
//! classification (`h_pass`: not RoCEv2), the drop reason decided from the headers and the frame
//! length (`h_reason`, every reason but `icrc`), and the fields of the header record, with the
//! semantics of the software model `ferroce_models::rx::rx_model` (docs/rx.md).
//!
//! Every path between registers is at most 6 LUT levels (a carry chain of 4 bits counting as
//! one): each stage does at most one wide add or compare, and wide values that no stage changes
//! travel in [`Delay`] lines (shift-register LUTs) beside the decision stages.
//!
//! | stage | work |
//! |---|---|
//! | S0 → S1 | beat byte-reversed and merged into `header` (the first [`CAPTURE_BYTES`] frame bytes, frame byte `p` at byte `CAPTURE_BYTES − 1 − p`, so every big-endian field is one contiguous bit range) by a one-hot capture-beat register; VLAN tags, IP ethertype and RoCEv2 class per tag count compared on the merged value; frame length |
//! | S1 → S2 | the (tag count, IP version) alignment as two one-hot selects; every field taken from `header` by an AND-OR of its candidate positions, into the delay lines; per-alignment constants (BTH end, IP end offset …); IPv4 header words; length saturated to 8 bits for the short compares |
//! | S2 → S3 | opcode table; ImmDt by its offset; IP length, IP end and UDP length + IP header (one add each); payload-end offset; IPv4 checksum carry-save tree (10 words to 2); bytes after the BTH |
//! | S3 → S4 | checksum carry-propagate add; payload end; header end and the minimum IP lengths (small adds); frame length against the IP end (two compares); UDP length check; extension headers present |
//! | S4 → S5 | checksum compare; the short compares (header end, minimum IP lengths); frame length against the payload end |
//! | S5 → S6 | drop-reason precedence, header-check failure, payload length (`payload end − header end`); the record registered on the outputs |
//!
//! A register's number is its stage (`valid2` is registered at the end of S1 → S2); the S6
//! registers and the delay lines drive the `h_*` outputs.
//!
//! Records: every frame gets a *final* record (`h_final`), decoded at its last beat. A frame
//! longer than the capture (more than [`RxHeader::CAPTURE_BEATS`] beats) also gets a *first* record
//! (`h_first`, not final) decoded at beat `CAPTURE_BEATS − 1`, the beat that completes the capture: the
//! classification, the header checks (`h_hfail`), the header fields and the payload region
//! (`h_pay_off`, `h_pay_end`) are final in it, which is what a cut-through consumer needs. In a
//! first record that is not final, `h_reason` is the first failed header check (the length
//! checks `truncated`, `ip_length` from excess bytes, and `icrc` come with the final record and
//! take precedence as the docs say), `h_icrc_chk` is 0 and `h_pay_len` is the payload length
//! the headers announce. A frame that ends within the capture has one record, both first and
//! final.
//!
//! Latency: `h_valid` is high for one cycle, [`RxHeader::LATENCY`] (6) cycles after the cycle in
//! which the beat that triggers the record is taken. Records come out in frame order, at most
//! one per cycle. `ce` low freezes every register (a record then stays on the outputs). The
//! fields of a pass record (`h_pass` = 1) are undefined, and so are all outputs but `h_valid`
//! between records.

use crate::common::classify::{ethertype, roce_pattern};
use crate::common::delay::Delay;
use crate::common::elab::{bits_from, c};
use ferroce_contracts::icrc::ICRC_LEN;
use ferroce_contracts::rx::{supported_opcode, DropReason, HEADER_RECORD_LATENCY};
use ferroce_contracts::{aeth, atomic_eth, bth, ethernet, immdt, ipv4, ipv6, reth, udp, Field};
use rust_hdl::prelude::*;

/// Frame bytes captured for decoding: enough for two VLAN tags, IPv6, UDP, BTH and the largest
/// extension header (22 + 40 + 8 + 12 + 28 = 110), rounded up to a multiple of every bus width.
pub const CAPTURE_BYTES: usize = 128;
const CAPTURE_BITS: usize = CAPTURE_BYTES * 8;
const _: () = assert!(
    CAPTURE_BYTES
        >= ethernet::header_len(ethernet::MAX_VLANS) + ipv6::HEADER_LEN + udp::HEADER_LEN + bth::HEADER_LEN + atomic_eth::HEADER_LEN
);
/// Lengths below this are exact in the 8-bit saturated copies used by the short compares.
const SHORT_LIMIT: usize = 255;
const _: () = assert!(CAPTURE_BYTES < SHORT_LIMIT);

/// (Tag count, IP version) alignments: index `2 · tags + v6`.
const ALIGNMENTS: usize = 6;

/// Bit position, in the capture register, of the `len`-byte big-endian field at frame byte
/// `offset` (frame byte p sits at byte `CAPTURE_BYTES − 1 − p`).
const fn be_pos(offset: usize, len: usize) -> usize {
    8 * (CAPTURE_BYTES - offset - len)
}

/// The position of a header field `f` of a header that starts at frame byte `base`.
fn at(base: usize, f: Field) -> Constant<Bits<11>> {
    c::<11>(be_pos(base + f.start, f.len()) as u64)
}

/// The position of the one-byte field at `base + offset`.
fn at_byte(base: usize, offset: usize) -> Constant<Bits<11>> {
    at(base, offset..offset + 1)
}

/// The IP header's frame offset after `tags` VLAN tags.
fn ip_base(tags: usize) -> usize {
    ethernet::header_len(tags)
}

/// The (tag count, IPv6) of an alignment index.
fn alignment(a: usize) -> (usize, bool) {
    (a / 2, a % 2 == 1)
}

/// The BTH's frame offset in alignment `a`.
fn bth_base(a: usize) -> usize {
    let (tags, v6) = alignment(a);
    ip_base(tags) + if v6 { ipv6::HEADER_LEN } else { ipv4::HEADER_LEN } + udp::HEADER_LEN
}

/// A field position for each tag count (`base(tags)` its header's frame offset).
fn per_tags(base: impl Fn(usize) -> usize, f: Field) -> [Constant<Bits<11>>; 3] {
    std::array::from_fn(|tags| at(base(tags), f.clone()))
}

/// A field position for each alignment, relative to the BTH.
fn per_alignment(f: Field) -> [Constant<Bits<11>>; ALIGNMENTS] {
    std::array::from_fn(|a| at(bth_base(a), f.clone()))
}

/// A small per-alignment constant.
fn per_alignment_value<const N: usize>(f: impl Fn(usize, bool) -> usize) -> [Constant<Bits<N>>; ALIGNMENTS] {
    std::array::from_fn(|a| {
        let (tags, v6) = alignment(a);
        c::<N>(f(ethernet::header_len(tags), v6) as u64)
    })
}

/// The IP header length of an IP version.
fn ip_header_len(v6: bool) -> usize {
    if v6 {
        ipv6::HEADER_LEN
    } else {
        ipv4::HEADER_LEN
    }
}

/// One entry of the opcode table: bit 0 supported (RC, UC, UD, CNP; not RD, not reserved),
/// bits 5:1 length of the extension headers, bit 6 RETH (right after the BTH), bit 7 AETH (right
/// after the BTH), bit 8 ImmDt, bits 10:9 ImmDt offset after the BTH / 8 (0, 8 or 16 bytes).
/// Computed from the contracts' opcode table and RX opcode rule; the co-simulation sweeps all 256 opcodes against
/// the model.
pub fn opcode_info(v: u8) -> u16 {
    let Some(op) = supported_opcode(v) else {
        return 0;
    };
    let e = op.ext_headers();
    let mut info = 1 | ((e.len() as u16) << 1);
    // Without RDETH/DETH (RC, UC) the RETH or AETH comes first after the BTH.
    if e.reth && !e.deth {
        info |= 1 << 6;
    }
    if e.aeth && !e.deth {
        info |= 1 << 7;
    }
    if e.immdt {
        // ImmDt is the last extension header in wire order.
        info |= 1 << 8 | (((e.len() - immdt::HEADER_LEN) / 8) as u16) << 9;
    }
    info
}

/// RX header decoder; see the module docs. `W` bus width in bits (64..1024), `K = W / 8`.
#[derive(LogicBlock)]
pub struct RxHeader<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: forgets any partial frame and any record in flight.
    pub reset: Signal<In, Bit>,
    /// Pipeline advance: every register holds while it is low (outputs included). Tie high for
    /// an always-running decoder.
    pub ce: Signal<In, Bit>,
    /// Input stream (frames): valid.
    pub s_axis_tvalid: Signal<In, Bit>,
    /// Always 1 (a beat is taken when `s_axis_tvalid` and `ce` are high).
    pub s_axis_tready: Signal<Out, Bit>,
    /// Input stream: data (frame byte 0 of a beat in bits 7:0).
    pub s_axis_tdata: Signal<In, Bits<W>>,
    /// Input stream: byte enables (contiguous from lane 0).
    pub s_axis_tkeep: Signal<In, Bits<K>>,
    /// Input stream: last beat of a frame.
    pub s_axis_tlast: Signal<In, Bit>,
    /// A record (one-cycle pulse while `ce` is high, held while it is low).
    pub h_valid: Signal<Out, Bit>,
    /// The frame's first record: decoded when the header capture completes (beat
    /// [`RxHeader::CAPTURE_BEATS`]` − 1`) or at the last beat if the frame ends earlier. `h_pass`,
    /// `h_hfail`, the header fields, `h_pay_off` and `h_pay_end` are final in it.
    pub h_first: Signal<Out, Bit>,
    /// The frame's final record (decoded at its last beat): every output is final.
    pub h_final: Signal<Out, Bit>,
    /// Not RoCEv2 (the other outputs are then undefined).
    pub h_pass: Signal<Out, Bit>,
    /// Drop reason known from the headers and the frame length ([`DropReason::code`]); 0 = none
    /// (the frame is accepted or dropped for its ICRC).
    pub h_reason: Signal<Out, Bits<4>>,
    /// A header check failed: nothing is delivered (docs/rx.md, "Payload delivered").
    pub h_hfail: Signal<Out, Bit>,
    /// The IP header is valid, the ICRC is in the frame and the IP length is long enough for
    /// it (`icrc_ok` not null).
    pub h_icrc_chk: Signal<Out, Bit>,
    /// Ethernet destination MAC (record field `eth_dst`).
    pub h_eth_dst: Signal<Out, Bits<48>>,
    /// Ethernet source MAC (record field `eth_src`).
    pub h_eth_src: Signal<Out, Bits<48>>,
    /// An outer VLAN tag is present; `h_vlan` is its VID.
    pub h_vlan_ok: Signal<Out, Bit>,
    /// VID of the outer VLAN tag (record field `vlan`).
    pub h_vlan: Signal<Out, Bits<12>>,
    /// IP version 6 (ethertype 0x86DD), else 4.
    pub h_ip_v6: Signal<Out, Bit>,
    /// IP source address (IPv4 in the low 32 bits; record field `ip_src`).
    pub h_ip_src: Signal<Out, Bits<128>>,
    /// IP destination address (IPv4 in the low 32 bits; record field `ip_dst`).
    pub h_ip_dst: Signal<Out, Bits<128>>,
    /// DSCP (record field `ip_dscp`).
    pub h_ip_dscp: Signal<Out, Bits<6>>,
    /// ECN (record field `ip_ecn`).
    pub h_ip_ecn: Signal<Out, Bits<2>>,
    /// IPv4 TTL or IPv6 hop limit (record field `ip_ttl`).
    pub h_ip_ttl: Signal<Out, Bits<8>>,
    /// UDP source port (flow entropy; record field `udp_sport`).
    pub h_udp_sport: Signal<Out, Bits<16>>,
    /// UDP destination port (4791; record field `udp_dport`).
    pub h_udp_dport: Signal<Out, Bits<16>>,
    /// The 12 BTH bytes are in the frame (the `h_bth_*` fields are meaningful).
    pub h_bth_ok: Signal<Out, Bit>,
    /// BTH opcode (raw; record field `bth_opcode`).
    pub h_bth_opcode: Signal<Out, Bits<8>>,
    /// Solicited event (record field `bth_se`).
    pub h_bth_se: Signal<Out, Bit>,
    /// MigReq (record field `bth_m`).
    pub h_bth_m: Signal<Out, Bit>,
    /// Pad count (record field `bth_padcnt`).
    pub h_bth_padcnt: Signal<Out, Bits<2>>,
    /// Transport header version (record field `bth_tver`).
    pub h_bth_tver: Signal<Out, Bits<4>>,
    /// Partition key (record field `bth_pkey`).
    pub h_bth_pkey: Signal<Out, Bits<16>>,
    /// FECN (record field `bth_fecn`).
    pub h_bth_fecn: Signal<Out, Bit>,
    /// BECN (record field `bth_becn`).
    pub h_bth_becn: Signal<Out, Bit>,
    /// Destination QP (record field `bth_dqpn`).
    pub h_bth_dqpn: Signal<Out, Bits<24>>,
    /// AckReq (record field `bth_ackreq`).
    pub h_bth_ackreq: Signal<Out, Bit>,
    /// Packet sequence number (record field `bth_psn`).
    pub h_bth_psn: Signal<Out, Bits<24>>,
    /// The opcode carries a RETH and its 16 bytes are in the frame.
    pub h_reth_ok: Signal<Out, Bit>,
    /// RETH virtual address (record field `reth_va`).
    pub h_reth_va: Signal<Out, Bits<64>>,
    /// RETH remote key (record field `reth_rkey`).
    pub h_reth_rkey: Signal<Out, Bits<32>>,
    /// RETH DMA length (record field `reth_dmalen`).
    pub h_reth_dmalen: Signal<Out, Bits<32>>,
    /// The opcode carries an ImmDt and its 4 bytes are in the frame (record field `immdt_ok`).
    pub h_immdt_ok: Signal<Out, Bit>,
    /// Immediate data (record field `immdt`).
    pub h_immdt: Signal<Out, Bits<32>>,
    /// The opcode carries an AETH and its 4 bytes are in the frame (record field `aeth_ok`).
    pub h_aeth_ok: Signal<Out, Bit>,
    /// AETH syndrome (record field `aeth_syndrome`).
    pub h_aeth_syndrome: Signal<Out, Bits<8>>,
    /// AETH message sequence number (record field `aeth_msn`).
    pub h_aeth_msn: Signal<Out, Bits<24>>,
    /// Frame offset of the payload (`hdr_end`).
    pub h_pay_off: Signal<Out, Bits<16>>,
    /// Payload bytes delivered (`payload_len` of the model); final records only.
    pub h_pay_len: Signal<Out, Bits<16>>,
    /// End of the payload region (`ip_end − 4 − PadCnt`), not cut at the frame end.
    pub h_pay_end: Signal<Out, Bits<18>>,

    // ---- constants (computed from the contracts) ----
    bytes_per_beat: Constant<Bits<18>>,
    /// Lane i + 1: the bytes of a beat whose last kept lane is i.
    lane_byte_count: [Constant<Bits<18>>; 128],
    /// The shift that puts lane i at byte K − 1 − i.
    reverse_shift: [Constant<Bits<16>>; 128],
    /// Register shift and mask of capture beat j.
    capture_shift: [Constant<Bits<16>>; 16],
    capture_mask: [Constant<Bits<CAPTURE_BITS>>; 16],
    /// `capture_beat` bits 1 .. CAPTURE_BEATS − 1 (the beats that capture after the first), and
    /// the bit of the beat that completes the capture (0 when the first beat does).
    capture_beats_after_first: Constant<Bits<16>>,
    capture_complete_beat: Constant<Bits<16>>,
    /// 1 when the first beat completes the capture (`CAPTURE_BEATS` = 1).
    capture_in_first_beat: Constant<Bits<1>>,
    opcode_table: Constant<Bits<4096>>,
    /// Classification patterns per tag count over `header_next`: TPID positions, the IPv6
    /// ethertype, and RoCEv2 over IPv4 / IPv6 (ethertype, UDP, port 4791; not the version).
    tag_mask: [Constant<Bits<CAPTURE_BITS>>; 3],
    tag_q_value: [Constant<Bits<CAPTURE_BITS>>; 3],
    tag_ad_value: [Constant<Bits<CAPTURE_BITS>>; 3],
    ipv6_value: [Constant<Bits<CAPTURE_BITS>>; 3],
    roce_ipv4_mask: [Constant<Bits<CAPTURE_BITS>>; 3],
    roce_ipv4_value: [Constant<Bits<CAPTURE_BITS>>; 3],
    roce_ipv6_mask: [Constant<Bits<CAPTURE_BITS>>; 3],
    roce_ipv6_value: [Constant<Bits<CAPTURE_BITS>>; 3],
    // field positions in `header`: Ethernet (fixed), IP and UDP per tag count, BTH and its
    // extension headers per alignment
    at_eth_dst: Constant<Bits<11>>,
    at_eth_src: Constant<Bits<11>>,
    at_outer_tci: Constant<Bits<11>>,
    at_v4_version_ihl: [Constant<Bits<11>>; 3],
    at_v4_tos: [Constant<Bits<11>>; 3],
    at_v4_total_len: [Constant<Bits<11>>; 3],
    at_v4_flags_fragment: [Constant<Bits<11>>; 3],
    at_v4_ttl: [Constant<Bits<11>>; 3],
    at_v4_src: [Constant<Bits<11>>; 3],
    at_v4_dst: [Constant<Bits<11>>; 3],
    at_v4_udp_sport: [Constant<Bits<11>>; 3],
    at_v4_udp_dport: [Constant<Bits<11>>; 3],
    at_v4_udp_len: [Constant<Bits<11>>; 3],
    /// IPv4 header word w after `tags` tags: index `10 · tags + w`.
    at_v4_word: [Constant<Bits<11>>; 30],
    /// The version nibble and the traffic class (bits 4.. of the first 16-bit word).
    at_v6_version: [Constant<Bits<11>>; 3],
    at_v6_class: [Constant<Bits<11>>; 3],
    at_v6_payload_len: [Constant<Bits<11>>; 3],
    at_v6_hop_limit: [Constant<Bits<11>>; 3],
    at_v6_src: [Constant<Bits<11>>; 3],
    at_v6_dst: [Constant<Bits<11>>; 3],
    at_v6_udp_sport: [Constant<Bits<11>>; 3],
    at_v6_udp_dport: [Constant<Bits<11>>; 3],
    at_v6_udp_len: [Constant<Bits<11>>; 3],
    at_bth_opcode: [Constant<Bits<11>>; ALIGNMENTS],
    at_bth_flags: [Constant<Bits<11>>; ALIGNMENTS],
    at_bth_pkey: [Constant<Bits<11>>; ALIGNMENTS],
    at_bth_fecn_becn: [Constant<Bits<11>>; ALIGNMENTS],
    at_bth_dqpn: [Constant<Bits<11>>; ALIGNMENTS],
    /// The AckReq bit (bit 7 of its byte).
    at_bth_ackreq: [Constant<Bits<11>>; ALIGNMENTS],
    at_bth_psn: [Constant<Bits<11>>; ALIGNMENTS],
    at_reth_va: [Constant<Bits<11>>; ALIGNMENTS],
    at_reth_rkey: [Constant<Bits<11>>; ALIGNMENTS],
    at_reth_dmalen: [Constant<Bits<11>>; ALIGNMENTS],
    at_aeth_syndrome: [Constant<Bits<11>>; ALIGNMENTS],
    at_aeth_msn: [Constant<Bits<11>>; ALIGNMENTS],
    /// ImmDt 0, 8 or 16 bytes after the BTH (the opcode table's ImmDt offset / 8): index
    /// `6 · offset + alignment`.
    at_immdt: [Constant<Bits<11>>; 18],
    /// Per alignment: the frame offset where the classification ends (the UDP destination
    /// port), of the BTH end, of the IP end minus the IP length field, and of that minus the ICRC.
    class_end: [Constant<Bits<7>>; ALIGNMENTS],
    bth_end: [Constant<Bits<7>>; ALIGNMENTS],
    ip_end_offset: [Constant<Bits<7>>; ALIGNMENTS],
    /// IP length minus the IP length field (the IPv6 header, or nothing).
    ip_length_offset: [Constant<Bits<7>>; ALIGNMENTS],
    payload_end_base: [Constant<Bits<7>>; ALIGNMENTS],
    v4_version_ihl: Constant<Bits<8>>,
    v6_version: Constant<Bits<4>>,
    /// The bits of the IPv4 flags/fragment word that make a fragment: MF and the offset.
    v4_fragment_mask: Constant<Bits<16>>,
    /// IP header length, and it plus UDP + BTH + ICRC (the least an IP packet carries), per IP
    /// version.
    v4_header_len: Constant<Bits<18>>,
    v6_header_len: Constant<Bits<18>>,
    v4_min_ip_length: Constant<Bits<8>>,
    v6_min_ip_length: Constant<Bits<8>>,
    short_limit: Constant<Bits<8>>,
    icrc_len: Constant<Bits<9>>,
    min_frame_len: Constant<Bits<8>>,
    /// Bytes after the BTH that must be in the frame for a RETH, an AETH, and an ImmDt at offset
    /// 0, 8, 16.
    reth_in_len: Constant<Bits<8>>,
    aeth_in_len: Constant<Bits<8>>,
    immdt_in_len: [Constant<Bits<8>>; 3],
    /// Bit positions inside the BTH flag bytes and the IP traffic-class byte.
    se_bit: Constant<Bits<3>>,
    m_bit: Constant<Bits<3>>,
    padcnt_bit: Constant<Bits<3>>,
    fecn_bit: Constant<Bits<3>>,
    becn_bit: Constant<Bits<3>>,
    dscp_bit: Constant<Bits<3>>,
    /// Drop-reason codes (`DropReason::code`).
    reason_ip_header: Constant<Bits<4>>,
    reason_truncated: Constant<Bits<4>>,
    reason_ip_length: Constant<Bits<4>>,
    reason_ip_checksum: Constant<Bits<4>>,
    reason_ip_fragment: Constant<Bits<4>>,
    reason_udp_length: Constant<Bits<4>>,
    reason_tver: Constant<Bits<4>>,
    reason_opcode: Constant<Bits<4>>,
    reason_padcnt: Constant<Bits<4>>,

    // ---- S0 -> S1 ----
    /// Frame byte position of the input beat (a multiple of K), and it plus K.
    position: DFF<Bits<18>>,
    next_position: DFF<Bits<18>>,
    /// The input beat is inside a frame (not its first beat).
    in_frame: DFF<Bit>,
    /// One-hot: bit j (j ≥ 1) set when the input beat is capture beat j.
    capture_beat: DFF<Bits<16>>,
    /// The captured frame head, byte-reversed.
    header: DFF<Bits<CAPTURE_BITS>>,
    valid1: DFF<Bit>,
    first1: DFF<Bit>,
    final1: DFF<Bit>,
    /// Frame length (at the capture record: the captured bytes).
    length1: DFF<Bits<18>>,
    /// At least one, two, three VLAN tags; per tag count: IPv6 ethertype, RoCEv2 over IPv4 / IPv6.
    tagged1: DFF<Bit>,
    double_tagged1: DFF<Bit>,
    triple_tagged1: DFF<Bit>,
    ipv6_match1: DFF<Bits<3>>,
    roce_ipv4_match1: DFF<Bits<3>>,
    roce_ipv6_match1: DFF<Bits<3>>,
    lane_byte: Signal<Local, Bits<8>>,
    reversed_beat: Signal<Local, Bits<W>>,
    byte_count: Signal<Local, Bits<18>>,
    /// `tkeep >> 1`, to find the last kept lane.
    keep_shifted: Signal<Local, Bits<K>>,
    full: Signal<Local, Bit>,
    header_next: Signal<Local, Bits<CAPTURE_BITS>>,

    // ---- S1 -> S2 ----
    /// One-hot tag count, and the alignment as one-hot tag count per IP version.
    tag_count: Signal<Local, Bits<3>>,
    select_v4: Signal<Local, Bits<3>>,
    select_v6: Signal<Local, Bits<3>>,
    select_alignment: Signal<Local, Bits<ALIGNMENTS>>,
    /// Temporaries of the field extraction (a loop takes a field through a scalar).
    word16: Signal<Local, Bits<16>>,
    word32: Signal<Local, Bits<32>>,
    ip_src_next: Signal<Local, Bits<128>>,
    ip_dst_next: Signal<Local, Bits<128>>,
    traffic_class_next: Signal<Local, Bits<8>>,
    ttl_next: Signal<Local, Bits<8>>,
    udp_sport_next: Signal<Local, Bits<16>>,
    udp_dport_next: Signal<Local, Bits<16>>,
    pkey_next: Signal<Local, Bits<16>>,
    fecn_becn_next: Signal<Local, Bits<8>>,
    dqpn_next: Signal<Local, Bits<24>>,
    ackreq_next: Signal<Local, Bits<1>>,
    psn_next: Signal<Local, Bits<24>>,
    reth_va_next: Signal<Local, Bits<64>>,
    reth_rkey_next: Signal<Local, Bits<32>>,
    reth_dmalen_next: Signal<Local, Bits<32>>,
    aeth_syndrome_next: Signal<Local, Bits<8>>,
    aeth_msn_next: Signal<Local, Bits<24>>,
    valid2: DFF<Bit>,
    first2: DFF<Bit>,
    final2: DFF<Bit>,
    ipv6_2: DFF<Bit>,
    /// RoCEv2 by its headers (not yet by the frame length).
    roce2: DFF<Bit>,
    length2: DFF<Bits<18>>,
    /// The frame length saturated at [`SHORT_LIMIT`].
    length_short2: DFF<Bits<8>>,
    version_ok2: DFF<Bit>,
    fragment2: DFF<Bit>,
    /// IPv4 total length or IPv6 payload length, and the UDP length.
    ip_length_field2: DFF<Bits<16>>,
    udp_length2: DFF<Bits<16>>,
    checksum_word2: [DFF<Bits<16>>; 10],
    opcode2: DFF<Bits<8>>,
    bth_flags2: DFF<Bits<8>>,
    immdt_candidate2: [DFF<Bits<32>>; 3],
    class_end2: DFF<Bits<7>>,
    bth_end2: DFF<Bits<7>>,
    ip_end_offset2: DFF<Bits<7>>,
    ip_length_offset2: DFF<Bits<7>>,
    payload_end_base2: DFF<Bits<7>>,

    // ---- S2 -> S3 ----
    opcode_index: Signal<Local, Bits<12>>,
    opcode_entry: Signal<Local, Bits<16>>,
    ip_header_length: Signal<Local, Bits<18>>,
    pad_count: Signal<Local, Bits<7>>,
    /// Carry-save tree of the IPv4 header words: the words, then each 3:2 compressor's sum and carry.
    checksum_term: [Signal<Local, Bits<20>>; 26],
    valid3: DFF<Bit>,
    first3: DFF<Bit>,
    final3: DFF<Bit>,
    ipv6_3: DFF<Bit>,
    pass3: DFF<Bit>,
    length3: DFF<Bits<18>>,
    length_short3: DFF<Bits<8>>,
    version_ok3: DFF<Bit>,
    fragment3: DFF<Bit>,
    tver_bad3: DFF<Bit>,
    opcode_entry3: DFF<Bits<16>>,
    /// The IP end, the IP length, and UDP length + IP header (each one add).
    ip_end3: DFF<Bits<18>>,
    ip_length3: DFF<Bits<18>>,
    udp_ip_length3: DFF<Bits<18>>,
    ip_length_field3: DFF<Bits<16>>,
    /// IP end − ICRC − PadCnt − the IP length field.
    payload_end_offset3: DFF<Bits<7>>,
    checksum_sum3: DFF<Bits<20>>,
    checksum_carry3: DFF<Bits<20>>,
    /// The BTH is in the frame, and the bytes after it (9 bits, negative if it is not).
    bth_in_frame3: DFF<Bit>,
    after_bth3: DFF<Bits<9>>,
    /// The frame length minus the ICRC (negative if shorter).
    before_icrc3: DFF<Bits<9>>,
    longer_than_minimum3: DFF<Bit>,
    bth_end3: DFF<Bits<8>>,
    /// The least IP length without extension headers, and it plus PadCnt.
    min_ip_base3: DFF<Bits<8>>,
    padded_ip_base3: DFF<Bits<8>>,

    // ---- S3 -> S4 ----
    ext_length: Signal<Local, Bits<8>>,
    immdt_in_frame: Signal<Local, Bit>,
    valid4: DFF<Bit>,
    first4: DFF<Bit>,
    final4: DFF<Bit>,
    ipv6_4: DFF<Bit>,
    pass4: DFF<Bit>,
    length4: DFF<Bits<18>>,
    length_short4: DFF<Bits<8>>,
    version_ok4: DFF<Bit>,
    fragment4: DFF<Bit>,
    tver_bad4: DFF<Bit>,
    opcode_bad4: DFF<Bit>,
    checksum_total4: DFF<Bits<20>>,
    payload_end4: DFF<Bits<18>>,
    header_end4: DFF<Bits<8>>,
    before_icrc4: DFF<Bits<9>>,
    min_ip_length4: DFF<Bits<8>>,
    padded_min_ip_length4: DFF<Bits<8>>,
    min_ip_base4: DFF<Bits<8>>,
    ip_length_short4: DFF<Bits<8>>,
    udp_length_bad4: DFF<Bit>,
    shorter_than_ip4: DFF<Bit>,
    longer_than_ip4: DFF<Bit>,
    longer_than_minimum4: DFF<Bit>,
    bth_in_frame4: DFF<Bit>,
    reth_ok4: DFF<Bit>,
    immdt_ok4: DFF<Bit>,
    aeth_ok4: DFF<Bit>,

    // ---- S4 -> S5 ----
    valid5: DFF<Bit>,
    first5: DFF<Bit>,
    final5: DFF<Bit>,
    pass5: DFF<Bit>,
    version_ok5: DFF<Bit>,
    fragment5: DFF<Bit>,
    tver_bad5: DFF<Bit>,
    opcode_bad5: DFF<Bit>,
    checksum_ok5: DFF<Bit>,
    payload_end5: DFF<Bits<18>>,
    header_end5: DFF<Bits<8>>,
    /// The frame ends before the header end, before the header end + ICRC, before the payload end.
    header_cut5: DFF<Bit>,
    icrc_cut5: DFF<Bit>,
    payload_cut5: DFF<Bit>,
    /// Bytes from the header end to the frame end, and to the payload end (16 bits, as `h_pay_len`).
    frame_after_header5: DFF<Bits<16>>,
    payload_after_header5: DFF<Bits<16>>,
    ip_length_small5: DFF<Bit>,
    padcnt_bad5: DFF<Bit>,
    ip_covers_transport5: DFF<Bit>,
    udp_length_bad5: DFF<Bit>,
    shorter_than_ip5: DFF<Bit>,
    longer_than_ip5: DFF<Bit>,
    longer_than_minimum5: DFF<Bit>,
    bth_in_frame5: DFF<Bit>,
    reth_ok5: DFF<Bit>,
    immdt_ok5: DFF<Bit>,
    aeth_ok5: DFF<Bit>,

    // ---- S5 -> S6 ----
    truncated: Signal<Local, Bit>,
    excess: Signal<Local, Bit>,
    header_fail: Signal<Local, Bit>,
    valid6: DFF<Bit>,
    first6: DFF<Bit>,
    final6: DFF<Bit>,
    pass6: DFF<Bit>,
    reason6: DFF<Bits<4>>,
    header_fail6: DFF<Bit>,
    icrc_check6: DFF<Bit>,
    bth_in_frame6: DFF<Bit>,
    reth_ok6: DFF<Bit>,
    immdt_ok6: DFF<Bit>,
    aeth_ok6: DFF<Bit>,
    pay_off6: DFF<Bits<16>>,
    pay_len6: DFF<Bits<16>>,
    pay_end6: DFF<Bits<18>>,

    // ---- record fields, S2 (S3 for the ImmDt) to S6 ----
    eth_dst_line: Delay<48, 5>,
    eth_src_line: Delay<48, 5>,
    vlan_ok_line: Delay<1, 5>,
    vlan_id_line: Delay<12, 5>,
    ipv6_line: Delay<1, 5>,
    ip_src_line: Delay<128, 5>,
    ip_dst_line: Delay<128, 5>,
    traffic_class_line: Delay<8, 5>,
    ttl_line: Delay<8, 5>,
    udp_sport_line: Delay<16, 5>,
    udp_dport_line: Delay<16, 5>,
    opcode_line: Delay<8, 4>,
    bth_flags_line: Delay<8, 4>,
    pkey_line: Delay<16, 5>,
    fecn_becn_line: Delay<8, 5>,
    dqpn_line: Delay<24, 5>,
    ackreq_line: Delay<1, 5>,
    psn_line: Delay<24, 5>,
    reth_va_line: Delay<64, 5>,
    reth_rkey_line: Delay<32, 5>,
    reth_dmalen_line: Delay<32, 5>,
    immdt_line: Delay<32, 4>,
    aeth_syndrome_line: Delay<8, 5>,
    aeth_msn_line: Delay<24, 5>,
}

impl<const W: usize, const K: usize> RxHeader<W, K> {
    /// Beats that carry captured bytes.
    pub const CAPTURE_BEATS: usize = CAPTURE_BYTES / K;
    const LAST_LANE: usize = K - 1;
    /// Cycles from the cycle that takes the triggering beat to the cycle `h_valid` is high.
    pub const LATENCY: usize = HEADER_RECORD_LATENCY;
}

impl<const W: usize, const K: usize> Default for RxHeader<W, K> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        assert!(K.is_power_of_two() && (8..=128).contains(&K), "bus width 64..1024 bits");
        let capture_beats = Self::CAPTURE_BEATS;
        use ethernet::field as eth;
        let bit = |byte: Constant<Bits<11>>, b: u32| c::<11>(byte.val().index() as u64 + u64::from(b));
        let v4_udp = |tags| ip_base(tags) + ipv4::HEADER_LEN;
        let v6_udp = |tags| ip_base(tags) + ipv6::HEADER_LEN;
        let shifted = |f: Field, by: usize| f.start + by..f.end + by;
        let transport_min = udp::HEADER_LEN + bth::HEADER_LEN + ICRC_LEN;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ce: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tready: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tkeep: Default::default(),
            s_axis_tlast: Default::default(),
            h_valid: Default::default(),
            h_first: Default::default(),
            h_final: Default::default(),
            h_pass: Default::default(),
            h_reason: Default::default(),
            h_hfail: Default::default(),
            h_icrc_chk: Default::default(),
            h_eth_dst: Default::default(),
            h_eth_src: Default::default(),
            h_vlan_ok: Default::default(),
            h_vlan: Default::default(),
            h_ip_v6: Default::default(),
            h_ip_src: Default::default(),
            h_ip_dst: Default::default(),
            h_ip_dscp: Default::default(),
            h_ip_ecn: Default::default(),
            h_ip_ttl: Default::default(),
            h_udp_sport: Default::default(),
            h_udp_dport: Default::default(),
            h_bth_ok: Default::default(),
            h_bth_opcode: Default::default(),
            h_bth_se: Default::default(),
            h_bth_m: Default::default(),
            h_bth_padcnt: Default::default(),
            h_bth_tver: Default::default(),
            h_bth_pkey: Default::default(),
            h_bth_fecn: Default::default(),
            h_bth_becn: Default::default(),
            h_bth_dqpn: Default::default(),
            h_bth_ackreq: Default::default(),
            h_bth_psn: Default::default(),
            h_reth_ok: Default::default(),
            h_reth_va: Default::default(),
            h_reth_rkey: Default::default(),
            h_reth_dmalen: Default::default(),
            h_immdt_ok: Default::default(),
            h_immdt: Default::default(),
            h_aeth_ok: Default::default(),
            h_aeth_syndrome: Default::default(),
            h_aeth_msn: Default::default(),
            h_pay_off: Default::default(),
            h_pay_len: Default::default(),
            h_pay_end: Default::default(),
            bytes_per_beat: c::<18>(K as u64),
            lane_byte_count: std::array::from_fn(|i| c::<18>(i as u64 + 1)),
            reverse_shift: std::array::from_fn(|i| c::<16>(if i < K { (8 * (K - 1 - i)) as u64 } else { 0 })),
            capture_shift: std::array::from_fn(|j| {
                c::<16>(if j < capture_beats {
                    (8 * (CAPTURE_BYTES - (j + 1) * K)) as u64
                } else {
                    0
                })
            }),
            capture_mask: std::array::from_fn(|j| {
                // frame bytes j·K .. (j+1)·K sit at register bytes CAPTURE_BYTES-(j+1)·K .. CAPTURE_BYTES-j·K
                Constant::new(bits_from::<CAPTURE_BITS>(|k| {
                    j < capture_beats && k / 8 >= CAPTURE_BYTES - (j + 1) * K && k / 8 < CAPTURE_BYTES - j * K
                }))
            }),
            capture_beats_after_first: Constant::new(bits_from::<16>(|j| j >= 1 && j < capture_beats)),
            capture_in_first_beat: c::<1>(u64::from(capture_beats == 1)),
            capture_complete_beat: Constant::new(bits_from::<16>(|j| j >= 1 && j == capture_beats - 1)),
            opcode_table: Constant::new(bits_from::<4096>(|k| (opcode_info((k / 16) as u8) >> (k % 16)) & 1 != 0)),
            tag_mask: std::array::from_fn(|tags| ethertype(tags, 0).reversed(CAPTURE_BYTES).mask()),
            tag_q_value: std::array::from_fn(|tags| ethertype(tags, ethernet::TPID_8021Q).reversed(CAPTURE_BYTES).value()),
            tag_ad_value: std::array::from_fn(|tags| ethertype(tags, ethernet::TPID_8021AD).reversed(CAPTURE_BYTES).value()),
            ipv6_value: std::array::from_fn(|tags| ethertype(tags, ethernet::ETHERTYPE_IPV6).reversed(CAPTURE_BYTES).value()),
            roce_ipv4_mask: std::array::from_fn(|tags| roce_pattern(tags, false, false).reversed(CAPTURE_BYTES).mask()),
            roce_ipv4_value: std::array::from_fn(|tags| roce_pattern(tags, false, false).reversed(CAPTURE_BYTES).value()),
            roce_ipv6_mask: std::array::from_fn(|tags| roce_pattern(tags, true, false).reversed(CAPTURE_BYTES).mask()),
            roce_ipv6_value: std::array::from_fn(|tags| roce_pattern(tags, true, false).reversed(CAPTURE_BYTES).value()),
            at_eth_dst: at(0, eth::DESTINATION),
            at_eth_src: at(0, eth::SOURCE),
            at_outer_tci: at(ethernet::HEADER_LEN - ethernet::vlan_field::TCI.start, ethernet::vlan_field::TCI),
            at_v4_version_ihl: std::array::from_fn(|tags| at_byte(ip_base(tags), ipv4::field::VERSION_IHL)),
            at_v4_tos: std::array::from_fn(|tags| at_byte(ip_base(tags), ipv4::field::DSCP_ECN)),
            at_v4_total_len: per_tags(ip_base, ipv4::field::TOTAL_LEN),
            at_v4_flags_fragment: per_tags(ip_base, ipv4::field::FLAGS_FRAGMENT),
            at_v4_ttl: std::array::from_fn(|tags| at_byte(ip_base(tags), ipv4::field::TTL)),
            at_v4_src: per_tags(ip_base, ipv4::field::SOURCE),
            at_v4_dst: per_tags(ip_base, ipv4::field::DESTINATION),
            at_v4_udp_sport: per_tags(v4_udp, udp::field::SRC_PORT),
            at_v4_udp_dport: per_tags(v4_udp, udp::field::DST_PORT),
            at_v4_udp_len: per_tags(v4_udp, udp::field::LENGTH),
            at_v4_word: std::array::from_fn(|i| at(ip_base(i / 10), 2 * (i % 10)..2 * (i % 10) + 2)),
            at_v6_version: std::array::from_fn(|tags| bit(at_byte(ip_base(tags), 0), 4)),
            at_v6_class: std::array::from_fn(|tags| bit(at(ip_base(tags), 0..2), 4)),
            at_v6_payload_len: per_tags(ip_base, ipv6::field::PAYLOAD_LEN),
            at_v6_hop_limit: std::array::from_fn(|tags| at_byte(ip_base(tags), ipv6::field::HOP_LIMIT)),
            at_v6_src: per_tags(ip_base, ipv6::field::SOURCE),
            at_v6_dst: per_tags(ip_base, ipv6::field::DESTINATION),
            at_v6_udp_sport: per_tags(v6_udp, udp::field::SRC_PORT),
            at_v6_udp_dport: per_tags(v6_udp, udp::field::DST_PORT),
            at_v6_udp_len: per_tags(v6_udp, udp::field::LENGTH),
            at_bth_opcode: per_alignment(bth::field::OPCODE..bth::field::OPCODE + 1),
            at_bth_flags: per_alignment(bth::field::FLAGS..bth::field::FLAGS + 1),
            at_bth_pkey: per_alignment(bth::field::PKEY),
            at_bth_fecn_becn: per_alignment(bth::field::FECN_BECN..bth::field::FECN_BECN + 1),
            at_bth_dqpn: per_alignment(bth::field::DEST_QP),
            at_bth_ackreq: std::array::from_fn(|a| bit(at_byte(bth_base(a), bth::field::ACKREQ), bth::FLAG_ACKREQ.trailing_zeros())),
            at_bth_psn: per_alignment(bth::field::PSN),
            at_reth_va: per_alignment(shifted(reth::field::VA, bth::HEADER_LEN)),
            at_reth_rkey: per_alignment(shifted(reth::field::RKEY, bth::HEADER_LEN)),
            at_reth_dmalen: per_alignment(shifted(reth::field::DMA_LEN, bth::HEADER_LEN)),
            at_aeth_syndrome: per_alignment(shifted(aeth::field::SYNDROME..aeth::field::SYNDROME + 1, bth::HEADER_LEN)),
            at_aeth_msn: per_alignment(shifted(aeth::field::MSN, bth::HEADER_LEN)),
            at_immdt: std::array::from_fn(|i| at(bth_base(i % 6) + bth::HEADER_LEN + 8 * (i / 6), immdt::field::DATA)),
            class_end: per_alignment_value(|l2, v6| l2 + ip_header_len(v6) + udp::field::DST_PORT.end),
            bth_end: per_alignment_value(|l2, v6| l2 + ip_header_len(v6) + udp::HEADER_LEN + bth::HEADER_LEN),
            ip_end_offset: per_alignment_value(|l2, v6| l2 + if v6 { ipv6::HEADER_LEN } else { 0 }),
            ip_length_offset: per_alignment_value(|_, v6| if v6 { ipv6::HEADER_LEN } else { 0 }),
            payload_end_base: per_alignment_value(|l2, v6| l2 + if v6 { ipv6::HEADER_LEN } else { 0 } - ICRC_LEN),
            v4_version_ihl: c::<8>(u64::from(ipv4::VERSION << 4 | ipv4::IHL)),
            v6_version: c::<4>(ipv6::VERSION.into()),
            v4_fragment_mask: c::<16>(u64::from(ipv4::FLAG_MF | ipv4::FRAGMENT_OFFSET_MASK)),
            v4_header_len: c::<18>(ipv4::HEADER_LEN as u64),
            v6_header_len: c::<18>(ipv6::HEADER_LEN as u64),
            v4_min_ip_length: c::<8>((ipv4::HEADER_LEN + transport_min) as u64),
            v6_min_ip_length: c::<8>((ipv6::HEADER_LEN + transport_min) as u64),
            short_limit: c::<8>(SHORT_LIMIT as u64),
            icrc_len: c::<9>(ICRC_LEN as u64),
            min_frame_len: c::<8>(ethernet::MIN_FRAME_LEN as u64),
            reth_in_len: c::<8>(reth::HEADER_LEN as u64),
            aeth_in_len: c::<8>(aeth::HEADER_LEN as u64),
            immdt_in_len: std::array::from_fn(|k| c::<8>((8 * k + immdt::HEADER_LEN) as u64)),
            se_bit: c::<3>(bth::FLAG_SE.trailing_zeros().into()),
            m_bit: c::<3>(bth::FLAG_M.trailing_zeros().into()),
            padcnt_bit: c::<3>(bth::PADCNT_SHIFT.into()),
            fecn_bit: c::<3>(bth::FLAG_FECN.trailing_zeros().into()),
            becn_bit: c::<3>(bth::FLAG_BECN.trailing_zeros().into()),
            dscp_bit: c::<3>(2),
            reason_ip_header: c::<4>(DropReason::IpHeader.code().into()),
            reason_truncated: c::<4>(DropReason::Truncated.code().into()),
            reason_ip_length: c::<4>(DropReason::IpLength.code().into()),
            reason_ip_checksum: c::<4>(DropReason::IpChecksum.code().into()),
            reason_ip_fragment: c::<4>(DropReason::IpFragment.code().into()),
            reason_udp_length: c::<4>(DropReason::UdpLength.code().into()),
            reason_tver: c::<4>(DropReason::Tver.code().into()),
            reason_opcode: c::<4>(DropReason::Opcode.code().into()),
            reason_padcnt: c::<4>(DropReason::Padcnt.code().into()),
            position: Default::default(),
            next_position: Default::default(),
            in_frame: Default::default(),
            capture_beat: Default::default(),
            header: Default::default(),
            valid1: Default::default(),
            first1: Default::default(),
            final1: Default::default(),
            length1: Default::default(),
            tagged1: Default::default(),
            double_tagged1: Default::default(),
            triple_tagged1: Default::default(),
            ipv6_match1: Default::default(),
            roce_ipv4_match1: Default::default(),
            roce_ipv6_match1: Default::default(),
            lane_byte: Default::default(),
            reversed_beat: Default::default(),
            byte_count: Default::default(),
            keep_shifted: Default::default(),
            full: Default::default(),
            header_next: Default::default(),
            tag_count: Default::default(),
            select_v4: Default::default(),
            select_v6: Default::default(),
            select_alignment: Default::default(),
            word16: Default::default(),
            word32: Default::default(),
            ip_src_next: Default::default(),
            ip_dst_next: Default::default(),
            traffic_class_next: Default::default(),
            ttl_next: Default::default(),
            udp_sport_next: Default::default(),
            udp_dport_next: Default::default(),
            pkey_next: Default::default(),
            fecn_becn_next: Default::default(),
            dqpn_next: Default::default(),
            ackreq_next: Default::default(),
            psn_next: Default::default(),
            reth_va_next: Default::default(),
            reth_rkey_next: Default::default(),
            reth_dmalen_next: Default::default(),
            aeth_syndrome_next: Default::default(),
            aeth_msn_next: Default::default(),
            valid2: Default::default(),
            first2: Default::default(),
            final2: Default::default(),
            ipv6_2: Default::default(),
            roce2: Default::default(),
            length2: Default::default(),
            length_short2: Default::default(),
            version_ok2: Default::default(),
            fragment2: Default::default(),
            ip_length_field2: Default::default(),
            udp_length2: Default::default(),
            checksum_word2: Default::default(),
            opcode2: Default::default(),
            bth_flags2: Default::default(),
            immdt_candidate2: Default::default(),
            class_end2: Default::default(),
            bth_end2: Default::default(),
            ip_end_offset2: Default::default(),
            ip_length_offset2: Default::default(),
            payload_end_base2: Default::default(),
            opcode_index: Default::default(),
            opcode_entry: Default::default(),
            ip_header_length: Default::default(),
            pad_count: Default::default(),
            checksum_term: Default::default(),
            valid3: Default::default(),
            first3: Default::default(),
            final3: Default::default(),
            ipv6_3: Default::default(),
            pass3: Default::default(),
            length3: Default::default(),
            length_short3: Default::default(),
            version_ok3: Default::default(),
            fragment3: Default::default(),
            tver_bad3: Default::default(),
            opcode_entry3: Default::default(),
            ip_end3: Default::default(),
            ip_length3: Default::default(),
            udp_ip_length3: Default::default(),
            ip_length_field3: Default::default(),
            payload_end_offset3: Default::default(),
            checksum_sum3: Default::default(),
            checksum_carry3: Default::default(),
            bth_in_frame3: Default::default(),
            after_bth3: Default::default(),
            before_icrc3: Default::default(),
            longer_than_minimum3: Default::default(),
            bth_end3: Default::default(),
            min_ip_base3: Default::default(),
            padded_ip_base3: Default::default(),
            ext_length: Default::default(),
            immdt_in_frame: Default::default(),
            valid4: Default::default(),
            first4: Default::default(),
            final4: Default::default(),
            ipv6_4: Default::default(),
            pass4: Default::default(),
            length4: Default::default(),
            length_short4: Default::default(),
            version_ok4: Default::default(),
            fragment4: Default::default(),
            tver_bad4: Default::default(),
            opcode_bad4: Default::default(),
            checksum_total4: Default::default(),
            payload_end4: Default::default(),
            header_end4: Default::default(),
            before_icrc4: Default::default(),
            min_ip_length4: Default::default(),
            padded_min_ip_length4: Default::default(),
            min_ip_base4: Default::default(),
            ip_length_short4: Default::default(),
            udp_length_bad4: Default::default(),
            shorter_than_ip4: Default::default(),
            longer_than_ip4: Default::default(),
            longer_than_minimum4: Default::default(),
            bth_in_frame4: Default::default(),
            reth_ok4: Default::default(),
            immdt_ok4: Default::default(),
            aeth_ok4: Default::default(),
            valid5: Default::default(),
            first5: Default::default(),
            final5: Default::default(),
            pass5: Default::default(),
            version_ok5: Default::default(),
            fragment5: Default::default(),
            tver_bad5: Default::default(),
            opcode_bad5: Default::default(),
            checksum_ok5: Default::default(),
            payload_end5: Default::default(),
            header_end5: Default::default(),
            header_cut5: Default::default(),
            icrc_cut5: Default::default(),
            payload_cut5: Default::default(),
            frame_after_header5: Default::default(),
            payload_after_header5: Default::default(),
            ip_length_small5: Default::default(),
            padcnt_bad5: Default::default(),
            ip_covers_transport5: Default::default(),
            udp_length_bad5: Default::default(),
            shorter_than_ip5: Default::default(),
            longer_than_ip5: Default::default(),
            longer_than_minimum5: Default::default(),
            bth_in_frame5: Default::default(),
            reth_ok5: Default::default(),
            immdt_ok5: Default::default(),
            aeth_ok5: Default::default(),
            truncated: Default::default(),
            excess: Default::default(),
            header_fail: Default::default(),
            valid6: Default::default(),
            first6: Default::default(),
            final6: Default::default(),
            pass6: Default::default(),
            reason6: Default::default(),
            header_fail6: Default::default(),
            icrc_check6: Default::default(),
            bth_in_frame6: Default::default(),
            reth_ok6: Default::default(),
            immdt_ok6: Default::default(),
            aeth_ok6: Default::default(),
            pay_off6: Default::default(),
            pay_len6: Default::default(),
            pay_end6: Default::default(),
            eth_dst_line: Default::default(),
            eth_src_line: Default::default(),
            vlan_ok_line: Default::default(),
            vlan_id_line: Default::default(),
            ipv6_line: Default::default(),
            ip_src_line: Default::default(),
            ip_dst_line: Default::default(),
            traffic_class_line: Default::default(),
            ttl_line: Default::default(),
            udp_sport_line: Default::default(),
            udp_dport_line: Default::default(),
            opcode_line: Default::default(),
            bth_flags_line: Default::default(),
            pkey_line: Default::default(),
            fecn_becn_line: Default::default(),
            dqpn_line: Default::default(),
            ackreq_line: Default::default(),
            psn_line: Default::default(),
            reth_va_line: Default::default(),
            reth_rkey_line: Default::default(),
            reth_dmalen_line: Default::default(),
            immdt_line: Default::default(),
            aeth_syndrome_line: Default::default(),
            aeth_msn_line: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize> Logic for RxHeader<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            // S1
            position,
            next_position,
            in_frame,
            capture_beat,
            header,
            valid1,
            first1,
            final1,
            length1,
            tagged1,
            double_tagged1,
            triple_tagged1,
            ipv6_match1,
            roce_ipv4_match1,
            roce_ipv6_match1,
            // S2
            valid2,
            first2,
            final2,
            ipv6_2,
            roce2,
            length2,
            length_short2,
            version_ok2,
            fragment2,
            ip_length_field2,
            udp_length2,
            opcode2,
            bth_flags2,
            class_end2,
            bth_end2,
            ip_end_offset2,
            ip_length_offset2,
            payload_end_base2,
            // S3
            valid3,
            first3,
            final3,
            ipv6_3,
            pass3,
            length3,
            length_short3,
            version_ok3,
            fragment3,
            tver_bad3,
            opcode_entry3,
            ip_end3,
            ip_length3,
            udp_ip_length3,
            ip_length_field3,
            payload_end_offset3,
            checksum_sum3,
            checksum_carry3,
            bth_in_frame3,
            after_bth3,
            before_icrc3,
            longer_than_minimum3,
            bth_end3,
            min_ip_base3,
            padded_ip_base3,
            // S4
            valid4,
            first4,
            final4,
            ipv6_4,
            pass4,
            length4,
            length_short4,
            version_ok4,
            fragment4,
            tver_bad4,
            opcode_bad4,
            checksum_total4,
            payload_end4,
            header_end4,
            before_icrc4,
            min_ip_length4,
            padded_min_ip_length4,
            min_ip_base4,
            ip_length_short4,
            udp_length_bad4,
            shorter_than_ip4,
            longer_than_ip4,
            longer_than_minimum4,
            bth_in_frame4,
            reth_ok4,
            immdt_ok4,
            aeth_ok4,
            // S5
            valid5,
            first5,
            final5,
            pass5,
            version_ok5,
            fragment5,
            tver_bad5,
            opcode_bad5,
            checksum_ok5,
            payload_end5,
            header_end5,
            header_cut5,
            icrc_cut5,
            payload_cut5,
            frame_after_header5,
            payload_after_header5,
            ip_length_small5,
            padcnt_bad5,
            ip_covers_transport5,
            udp_length_bad5,
            shorter_than_ip5,
            longer_than_ip5,
            longer_than_minimum5,
            bth_in_frame5,
            reth_ok5,
            immdt_ok5,
            aeth_ok5,
            // S6
            valid6,
            first6,
            final6,
            pass6,
            reason6,
            header_fail6,
            icrc_check6,
            bth_in_frame6,
            reth_ok6,
            immdt_ok6,
            aeth_ok6,
            pay_off6,
            pay_len6,
            pay_end6
        );
        for w in 0..10 {
            self.checksum_word2[w].clock.next = self.clock.val();
            self.checksum_word2[w].d.next = self.checksum_word2[w].q.val();
        }
        for k in 0..3 {
            self.immdt_candidate2[k].clock.next = self.clock.val();
            self.immdt_candidate2[k].d.next = self.immdt_candidate2[k].q.val();
        }
        self.eth_dst_line.clock.next = self.clock.val();
        self.eth_src_line.clock.next = self.clock.val();
        self.vlan_ok_line.clock.next = self.clock.val();
        self.vlan_id_line.clock.next = self.clock.val();
        self.ipv6_line.clock.next = self.clock.val();
        self.ip_src_line.clock.next = self.clock.val();
        self.ip_dst_line.clock.next = self.clock.val();
        self.traffic_class_line.clock.next = self.clock.val();
        self.ttl_line.clock.next = self.clock.val();
        self.udp_sport_line.clock.next = self.clock.val();
        self.udp_dport_line.clock.next = self.clock.val();
        self.opcode_line.clock.next = self.clock.val();
        self.bth_flags_line.clock.next = self.clock.val();
        self.pkey_line.clock.next = self.clock.val();
        self.fecn_becn_line.clock.next = self.clock.val();
        self.dqpn_line.clock.next = self.clock.val();
        self.ackreq_line.clock.next = self.clock.val();
        self.psn_line.clock.next = self.clock.val();
        self.reth_va_line.clock.next = self.clock.val();
        self.reth_rkey_line.clock.next = self.clock.val();
        self.reth_dmalen_line.clock.next = self.clock.val();
        self.immdt_line.clock.next = self.clock.val();
        self.aeth_syndrome_line.clock.next = self.clock.val();
        self.aeth_msn_line.clock.next = self.clock.val();
        self.eth_dst_line.ce.next = self.ce.val();
        self.eth_src_line.ce.next = self.ce.val();
        self.vlan_ok_line.ce.next = self.ce.val();
        self.vlan_id_line.ce.next = self.ce.val();
        self.ipv6_line.ce.next = self.ce.val();
        self.ip_src_line.ce.next = self.ce.val();
        self.ip_dst_line.ce.next = self.ce.val();
        self.traffic_class_line.ce.next = self.ce.val();
        self.ttl_line.ce.next = self.ce.val();
        self.udp_sport_line.ce.next = self.ce.val();
        self.udp_dport_line.ce.next = self.ce.val();
        self.opcode_line.ce.next = self.ce.val();
        self.bth_flags_line.ce.next = self.ce.val();
        self.pkey_line.ce.next = self.ce.val();
        self.fecn_becn_line.ce.next = self.ce.val();
        self.dqpn_line.ce.next = self.ce.val();
        self.ackreq_line.ce.next = self.ce.val();
        self.psn_line.ce.next = self.ce.val();
        self.reth_va_line.ce.next = self.ce.val();
        self.reth_rkey_line.ce.next = self.ce.val();
        self.reth_dmalen_line.ce.next = self.ce.val();
        self.immdt_line.ce.next = self.ce.val();
        self.aeth_syndrome_line.ce.next = self.ce.val();
        self.aeth_msn_line.ce.next = self.ce.val();
        self.s_axis_tready.next = true;

        // ================= S0 -> S1: capture the frame head, classify it, count the length ====
        // reversed_beat: the beat byte-reversed (lane i at byte K-1-i), bytes beyond tkeep zero.
        // byte_count: bytes in the beat when not full (the last kept lane + 1, from a one-hot OR).
        self.reversed_beat.next = 0.into();
        self.byte_count.next = 0.into();
        self.keep_shifted.next = self.s_axis_tkeep.val() >> 1;
        for i in 0..K {
            self.lane_byte.next = self.s_axis_tdata.val().get_bits::<8>(i * 8);
            if self.s_axis_tkeep.val().get_bit(i) {
                self.reversed_beat.next =
                    self.reversed_beat.val() | (bit_cast::<W, 8>(self.lane_byte.val()) << self.reverse_shift[i].val());
            }
            if self.s_axis_tkeep.val().get_bit(i) && !self.keep_shifted.val().get_bit(i) {
                self.byte_count.next = self.byte_count.val() | self.lane_byte_count[i].val();
            }
        }
        self.full.next = false;
        for i in Self::LAST_LANE..K {
            self.full.next = self.s_axis_tkeep.val().get_bit(i);
        }
        // the frame head including this beat: the first beat clears the previous frame's bytes
        self.header_next.next = self.header.q.val();
        if !self.in_frame.q.val() {
            self.header_next.next = bit_cast::<CAPTURE_BITS, W>(self.reversed_beat.val()) << self.capture_shift[0].val();
        }
        for j in 1..Self::CAPTURE_BEATS {
            if self.capture_beat.q.val().get_bit(j) {
                self.header_next.next = (self.header.q.val() & !self.capture_mask[j].val())
                    | (bit_cast::<CAPTURE_BITS, W>(self.reversed_beat.val()) << self.capture_shift[j].val());
            }
        }
        if self.ce.val() {
            self.valid1.d.next = false;
            // classification (a frame's last update to it is the record's)
            self.tagged1.d.next = (self.header_next.val() & self.tag_mask[0].val()) == self.tag_q_value[0].val()
                || (self.header_next.val() & self.tag_mask[0].val()) == self.tag_ad_value[0].val();
            self.double_tagged1.d.next = (self.header_next.val() & self.tag_mask[1].val()) == self.tag_q_value[1].val()
                || (self.header_next.val() & self.tag_mask[1].val()) == self.tag_ad_value[1].val();
            self.triple_tagged1.d.next = (self.header_next.val() & self.tag_mask[2].val()) == self.tag_q_value[2].val()
                || (self.header_next.val() & self.tag_mask[2].val()) == self.tag_ad_value[2].val();
            for tags in 0..3 {
                self.ipv6_match1.d.next = self.ipv6_match1.d.val().replace_bit(
                    tags,
                    (self.header_next.val() & self.tag_mask[tags].val()) == self.ipv6_value[tags].val(),
                );
                self.roce_ipv4_match1.d.next = self.roce_ipv4_match1.d.val().replace_bit(
                    tags,
                    (self.header_next.val() & self.roce_ipv4_mask[tags].val()) == self.roce_ipv4_value[tags].val(),
                );
                self.roce_ipv6_match1.d.next = self.roce_ipv6_match1.d.val().replace_bit(
                    tags,
                    (self.header_next.val() & self.roce_ipv6_mask[tags].val()) == self.roce_ipv6_value[tags].val(),
                );
            }
            if self.s_axis_tvalid.val() {
                self.header.d.next = self.header_next.val();
                // first record: at the beat that completes the capture, or at the last beat
                // if the frame ends earlier; final record: at the last beat
                self.first1.d.next = !self.in_frame.q.val() || (self.capture_beat.q.val() & self.capture_beats_after_first.val()) != 0;
                self.final1.d.next = self.s_axis_tlast.val();
                if self.s_axis_tlast.val() {
                    self.valid1.d.next = true;
                    // position is a multiple of K: a partial beat adds without a carry
                    if self.full.val() {
                        self.length1.d.next = self.next_position.q.val();
                    } else {
                        self.length1.d.next = self.position.q.val() | self.byte_count.val();
                    }
                    self.position.d.next = 0.into();
                    self.next_position.d.next = self.bytes_per_beat.val();
                    self.in_frame.d.next = false;
                    self.capture_beat.d.next = 0.into();
                } else {
                    if (self.capture_beat.q.val() & self.capture_complete_beat.val()) != 0
                        || (!self.in_frame.q.val() && self.capture_in_first_beat.val() != 0)
                    {
                        self.valid1.d.next = true;
                    }
                    self.length1.d.next = self.next_position.q.val();
                    if !self.position.q.val().get_bit(17) {
                        // saturates past 128 KiB (longer than any IP packet can end)
                        self.position.d.next = self.next_position.q.val();
                        self.next_position.d.next = self.next_position.q.val() + self.bytes_per_beat.val();
                    }
                    self.in_frame.d.next = true;
                    if self.in_frame.q.val() {
                        self.capture_beat.d.next = self.capture_beat.q.val() << 1;
                    } else {
                        self.capture_beat.d.next = 2.into();
                    }
                }
            }
        }

        // ================= S1 -> S2: align, extract =================
        self.tag_count.next = 1.into();
        if self.tagged1.q.val() {
            self.tag_count.next = 2.into();
        }
        if self.tagged1.q.val() && self.double_tagged1.q.val() {
            self.tag_count.next = 4.into();
        }
        self.select_v4.next = self.tag_count.val() & !self.ipv6_match1.q.val();
        self.select_v6.next = self.tag_count.val() & self.ipv6_match1.q.val();
        self.select_alignment.next = 0.into();
        for tags in 0..3 {
            self.select_alignment.next = self
                .select_alignment
                .val()
                .replace_bit(2 * tags, self.select_v4.val().get_bit(tags));
            self.select_alignment.next = self
                .select_alignment
                .val()
                .replace_bit(2 * tags + 1, self.select_v6.val().get_bit(tags));
        }
        // IP and UDP fields: one candidate per tag count and IP version
        self.ip_src_next.next = 0.into();
        self.ip_dst_next.next = 0.into();
        self.traffic_class_next.next = 0.into();
        self.ttl_next.next = 0.into();
        self.udp_sport_next.next = 0.into();
        self.udp_dport_next.next = 0.into();
        self.ip_length_field2.d.next = 0.into();
        self.udp_length2.d.next = 0.into();
        self.version_ok2.d.next = false;
        self.fragment2.d.next = false;
        self.word32.next = 0.into();
        for tags in 0..3 {
            if self.select_v4.val().get_bit(tags) {
                self.word32.next = self.header.q.val().get_bits::<32>(self.at_v4_src[tags].val().index());
                self.ip_src_next.next = self.ip_src_next.val() | bit_cast::<128, 32>(self.word32.val());
                self.word32.next = self.header.q.val().get_bits::<32>(self.at_v4_dst[tags].val().index());
                self.ip_dst_next.next = self.ip_dst_next.val() | bit_cast::<128, 32>(self.word32.val());
                self.traffic_class_next.next =
                    self.traffic_class_next.val() | self.header.q.val().get_bits::<8>(self.at_v4_tos[tags].val().index());
                self.ttl_next.next = self.ttl_next.val() | self.header.q.val().get_bits::<8>(self.at_v4_ttl[tags].val().index());
                self.udp_sport_next.next =
                    self.udp_sport_next.val() | self.header.q.val().get_bits::<16>(self.at_v4_udp_sport[tags].val().index());
                self.udp_dport_next.next =
                    self.udp_dport_next.val() | self.header.q.val().get_bits::<16>(self.at_v4_udp_dport[tags].val().index());
                self.ip_length_field2.d.next =
                    self.ip_length_field2.d.val() | self.header.q.val().get_bits::<16>(self.at_v4_total_len[tags].val().index());
                self.udp_length2.d.next =
                    self.udp_length2.d.val() | self.header.q.val().get_bits::<16>(self.at_v4_udp_len[tags].val().index());
                self.version_ok2.d.next = self.version_ok2.d.val()
                    || self.header.q.val().get_bits::<8>(self.at_v4_version_ihl[tags].val().index()) == self.v4_version_ihl.val();
                self.fragment2.d.next = self.fragment2.d.val()
                    || (self.header.q.val().get_bits::<16>(self.at_v4_flags_fragment[tags].val().index()) & self.v4_fragment_mask.val())
                        != 0;
            }
            if self.select_v6.val().get_bit(tags) {
                self.ip_src_next.next = self.ip_src_next.val() | self.header.q.val().get_bits::<128>(self.at_v6_src[tags].val().index());
                self.ip_dst_next.next = self.ip_dst_next.val() | self.header.q.val().get_bits::<128>(self.at_v6_dst[tags].val().index());
                self.traffic_class_next.next =
                    self.traffic_class_next.val() | self.header.q.val().get_bits::<8>(self.at_v6_class[tags].val().index());
                self.ttl_next.next = self.ttl_next.val() | self.header.q.val().get_bits::<8>(self.at_v6_hop_limit[tags].val().index());
                self.udp_sport_next.next =
                    self.udp_sport_next.val() | self.header.q.val().get_bits::<16>(self.at_v6_udp_sport[tags].val().index());
                self.udp_dport_next.next =
                    self.udp_dport_next.val() | self.header.q.val().get_bits::<16>(self.at_v6_udp_dport[tags].val().index());
                self.ip_length_field2.d.next =
                    self.ip_length_field2.d.val() | self.header.q.val().get_bits::<16>(self.at_v6_payload_len[tags].val().index());
                self.udp_length2.d.next =
                    self.udp_length2.d.val() | self.header.q.val().get_bits::<16>(self.at_v6_udp_len[tags].val().index());
                self.version_ok2.d.next = self.version_ok2.d.val()
                    || self.header.q.val().get_bits::<4>(self.at_v6_version[tags].val().index()) == self.v6_version.val();
            }
        }
        // BTH and extension-header fields, and the per-alignment constants
        self.opcode2.d.next = 0.into();
        self.bth_flags2.d.next = 0.into();
        self.pkey_next.next = 0.into();
        self.fecn_becn_next.next = 0.into();
        self.dqpn_next.next = 0.into();
        self.ackreq_next.next = 0.into();
        self.psn_next.next = 0.into();
        self.reth_va_next.next = 0.into();
        self.reth_rkey_next.next = 0.into();
        self.reth_dmalen_next.next = 0.into();
        self.aeth_syndrome_next.next = 0.into();
        self.aeth_msn_next.next = 0.into();
        for k in 0..3 {
            self.immdt_candidate2[k].d.next = 0.into();
        }
        self.class_end2.d.next = 0.into();
        self.bth_end2.d.next = 0.into();
        self.ip_end_offset2.d.next = 0.into();
        self.ip_length_offset2.d.next = 0.into();
        self.payload_end_base2.d.next = 0.into();
        for a in 0..ALIGNMENTS {
            if self.select_alignment.val().get_bit(a) {
                self.opcode2.d.next = self.opcode2.d.val() | self.header.q.val().get_bits::<8>(self.at_bth_opcode[a].val().index());
                self.bth_flags2.d.next = self.bth_flags2.d.val() | self.header.q.val().get_bits::<8>(self.at_bth_flags[a].val().index());
                self.pkey_next.next = self.pkey_next.val() | self.header.q.val().get_bits::<16>(self.at_bth_pkey[a].val().index());
                self.fecn_becn_next.next =
                    self.fecn_becn_next.val() | self.header.q.val().get_bits::<8>(self.at_bth_fecn_becn[a].val().index());
                self.dqpn_next.next = self.dqpn_next.val() | self.header.q.val().get_bits::<24>(self.at_bth_dqpn[a].val().index());
                self.ackreq_next.next = self.ackreq_next.val() | self.header.q.val().get_bits::<1>(self.at_bth_ackreq[a].val().index());
                self.psn_next.next = self.psn_next.val() | self.header.q.val().get_bits::<24>(self.at_bth_psn[a].val().index());
                self.reth_va_next.next = self.reth_va_next.val() | self.header.q.val().get_bits::<64>(self.at_reth_va[a].val().index());
                self.reth_rkey_next.next =
                    self.reth_rkey_next.val() | self.header.q.val().get_bits::<32>(self.at_reth_rkey[a].val().index());
                self.reth_dmalen_next.next =
                    self.reth_dmalen_next.val() | self.header.q.val().get_bits::<32>(self.at_reth_dmalen[a].val().index());
                self.aeth_syndrome_next.next =
                    self.aeth_syndrome_next.val() | self.header.q.val().get_bits::<8>(self.at_aeth_syndrome[a].val().index());
                self.aeth_msn_next.next = self.aeth_msn_next.val() | self.header.q.val().get_bits::<24>(self.at_aeth_msn[a].val().index());
                for k in 0..3 {
                    self.immdt_candidate2[k].d.next =
                        self.immdt_candidate2[k].d.val() | self.header.q.val().get_bits::<32>(self.at_immdt[6 * k + a].val().index());
                }
                self.class_end2.d.next = self.class_end2.d.val() | self.class_end[a].val();
                self.bth_end2.d.next = self.bth_end2.d.val() | self.bth_end[a].val();
                self.ip_end_offset2.d.next = self.ip_end_offset2.d.val() | self.ip_end_offset[a].val();
                self.ip_length_offset2.d.next = self.ip_length_offset2.d.val() | self.ip_length_offset[a].val();
                self.payload_end_base2.d.next = self.payload_end_base2.d.val() | self.payload_end_base[a].val();
            }
        }
        // IPv4 header words (checked when the frame is IPv4)
        for w in 0..10 {
            self.checksum_word2[w].d.next = 0.into();
            for tags in 0..3 {
                if self.tag_count.val().get_bit(tags) {
                    self.checksum_word2[w].d.next =
                        self.checksum_word2[w].d.val() | self.header.q.val().get_bits::<16>(self.at_v4_word[10 * tags + w].val().index());
                }
            }
        }
        self.eth_dst_line.d.next = self.header.q.val().get_bits::<48>(self.at_eth_dst.val().index());
        self.eth_src_line.d.next = self.header.q.val().get_bits::<48>(self.at_eth_src.val().index());
        self.vlan_ok_line.d.next = 0.into();
        if self.tagged1.q.val() {
            self.vlan_ok_line.d.next = 1.into();
        }
        self.vlan_id_line.d.next = self.header.q.val().get_bits::<12>(self.at_outer_tci.val().index());
        self.ipv6_line.d.next = 0.into();
        if self.select_v6.val() != 0 {
            self.ipv6_line.d.next = 1.into();
        }
        self.ip_src_line.d.next = self.ip_src_next.val();
        self.ip_dst_line.d.next = self.ip_dst_next.val();
        self.traffic_class_line.d.next = self.traffic_class_next.val();
        self.ttl_line.d.next = self.ttl_next.val();
        self.udp_sport_line.d.next = self.udp_sport_next.val();
        self.udp_dport_line.d.next = self.udp_dport_next.val();
        self.pkey_line.d.next = self.pkey_next.val();
        self.fecn_becn_line.d.next = self.fecn_becn_next.val();
        self.dqpn_line.d.next = self.dqpn_next.val();
        self.ackreq_line.d.next = self.ackreq_next.val();
        self.psn_line.d.next = self.psn_next.val();
        self.reth_va_line.d.next = self.reth_va_next.val();
        self.reth_rkey_line.d.next = self.reth_rkey_next.val();
        self.reth_dmalen_line.d.next = self.reth_dmalen_next.val();
        self.aeth_syndrome_line.d.next = self.aeth_syndrome_next.val();
        self.aeth_msn_line.d.next = self.aeth_msn_next.val();
        if self.ce.val() {
            self.valid2.d.next = self.valid1.q.val();
            self.first2.d.next = self.first1.q.val();
            self.final2.d.next = self.final1.q.val();
            self.ipv6_2.d.next = self.select_v6.val() != 0;
            self.roce2.d.next = !(self.tagged1.q.val() && self.double_tagged1.q.val() && self.triple_tagged1.q.val())
                && (((self.select_v4.val() & self.roce_ipv4_match1.q.val()) != 0)
                    || ((self.select_v6.val() & self.roce_ipv6_match1.q.val()) != 0));
            self.length2.d.next = self.length1.q.val();
            self.length_short2.d.next = self.length1.q.val().get_bits::<8>(0);
            if self.length1.q.val().get_bits::<10>(8) != 0 {
                self.length_short2.d.next = self.short_limit.val();
            }
        } else {
            // hold every S2 register
            self.ip_length_field2.d.next = self.ip_length_field2.q.val();
            self.udp_length2.d.next = self.udp_length2.q.val();
            self.version_ok2.d.next = self.version_ok2.q.val();
            self.fragment2.d.next = self.fragment2.q.val();
            self.opcode2.d.next = self.opcode2.q.val();
            self.bth_flags2.d.next = self.bth_flags2.q.val();
            self.class_end2.d.next = self.class_end2.q.val();
            self.bth_end2.d.next = self.bth_end2.q.val();
            self.ip_end_offset2.d.next = self.ip_end_offset2.q.val();
            self.ip_length_offset2.d.next = self.ip_length_offset2.q.val();
            self.payload_end_base2.d.next = self.payload_end_base2.q.val();
            for w in 0..10 {
                self.checksum_word2[w].d.next = self.checksum_word2[w].q.val();
            }
            for k in 0..3 {
                self.immdt_candidate2[k].d.next = self.immdt_candidate2[k].q.val();
            }
        }

        // ================= S2 -> S3: opcode, one add per length, checksum tree =================
        self.opcode_index.next = bit_cast::<12, 8>(self.opcode2.q.val()) << 4;
        self.opcode_entry.next = self.opcode_table.val().get_bits::<16>(self.opcode_index.val().index());
        self.opcode_line.d.next = self.opcode2.q.val();
        self.bth_flags_line.d.next = self.bth_flags2.q.val();
        self.immdt_line.d.next = self.immdt_candidate2[0].q.val();
        if self.opcode_entry.val().get_bits::<2>(9) == 1 {
            self.immdt_line.d.next = self.immdt_candidate2[1].q.val();
        }
        if self.opcode_entry.val().get_bits::<2>(9) == 2 {
            self.immdt_line.d.next = self.immdt_candidate2[2].q.val();
        }
        if self.ipv6_2.q.val() {
            self.ip_header_length.next = self.v6_header_len.val();
        } else {
            self.ip_header_length.next = self.v4_header_len.val();
        }
        self.pad_count.next = bit_cast::<7, 2>(self.bth_flags2.q.val().get_bits::<2>(self.padcnt_bit.val().index()));
        // 10 words to 2 by 3:2 compressors, each taking the next three terms and appending its
        // sum and carry (terms 0..9 the words, 10..25 the outputs; 5 compressors deep)
        for w in 0..10 {
            self.word16.next = self.checksum_word2[w].q.val();
            self.checksum_term[w].next = bit_cast::<20, 16>(self.word16.val());
        }
        for k in 0..8 {
            self.checksum_term[10 + 2 * k].next =
                self.checksum_term[3 * k].val() ^ self.checksum_term[3 * k + 1].val() ^ self.checksum_term[3 * k + 2].val();
            self.checksum_term[11 + 2 * k].next = ((self.checksum_term[3 * k].val() & self.checksum_term[3 * k + 1].val())
                | (self.checksum_term[3 * k].val() & self.checksum_term[3 * k + 2].val())
                | (self.checksum_term[3 * k + 1].val() & self.checksum_term[3 * k + 2].val()))
                << 1;
        }
        if self.ce.val() {
            self.valid3.d.next = self.valid2.q.val();
            self.first3.d.next = self.first2.q.val();
            self.final3.d.next = self.final2.q.val();
            self.ipv6_3.d.next = self.ipv6_2.q.val();
            self.pass3.d.next = !(self.roce2.q.val() && self.length_short2.q.val() >= bit_cast::<8, 7>(self.class_end2.q.val()));
            self.length3.d.next = self.length2.q.val();
            self.length_short3.d.next = self.length_short2.q.val();
            self.version_ok3.d.next = self.version_ok2.q.val();
            self.fragment3.d.next = self.fragment2.q.val();
            self.tver_bad3.d.next = self.bth_flags2.q.val().get_bits::<4>(0) != 0;
            self.opcode_entry3.d.next = self.opcode_entry.val();
            self.ip_end3.d.next = bit_cast::<18, 16>(self.ip_length_field2.q.val()) + bit_cast::<18, 7>(self.ip_end_offset2.q.val());
            self.ip_length3.d.next = bit_cast::<18, 16>(self.ip_length_field2.q.val()) + bit_cast::<18, 7>(self.ip_length_offset2.q.val());
            self.udp_ip_length3.d.next = bit_cast::<18, 16>(self.udp_length2.q.val()) + self.ip_header_length.val();
            self.ip_length_field3.d.next = self.ip_length_field2.q.val();
            self.payload_end_offset3.d.next = self.payload_end_base2.q.val() - self.pad_count.val();
            self.checksum_sum3.d.next = self.checksum_term[24].val();
            self.checksum_carry3.d.next = self.checksum_term[25].val();
            self.after_bth3.d.next = bit_cast::<9, 8>(self.length_short2.q.val()) - bit_cast::<9, 7>(self.bth_end2.q.val());
            self.bth_in_frame3.d.next = self.length_short2.q.val() >= bit_cast::<8, 7>(self.bth_end2.q.val());
            self.before_icrc3.d.next = bit_cast::<9, 8>(self.length_short2.q.val()) - self.icrc_len.val();
            self.longer_than_minimum3.d.next = self.length_short2.q.val() > self.min_frame_len.val();
            self.bth_end3.d.next = bit_cast::<8, 7>(self.bth_end2.q.val());
            if self.ipv6_2.q.val() {
                self.min_ip_base3.d.next = self.v6_min_ip_length.val();
            } else {
                self.min_ip_base3.d.next = self.v4_min_ip_length.val();
            }
            self.padded_ip_base3.d.next = self.min_ip_base3.d.val() + bit_cast::<8, 7>(self.pad_count.val());
        }

        // the ImmDt candidate this opcode uses lies in the frame
        self.immdt_in_frame.next = self.after_bth3.q.val().get_bits::<8>(0) >= self.immdt_in_len[0].val();
        if self.opcode_entry3.q.val().get_bits::<2>(9) == 1 {
            self.immdt_in_frame.next = self.after_bth3.q.val().get_bits::<8>(0) >= self.immdt_in_len[1].val();
        }
        if self.opcode_entry3.q.val().get_bits::<2>(9) == 2 {
            self.immdt_in_frame.next = self.after_bth3.q.val().get_bits::<8>(0) >= self.immdt_in_len[2].val();
        }

        // ================= S3 -> S4: checksum add, payload end, header end, IP end compares =====
        self.ext_length.next = 0.into();
        if self.bth_in_frame3.q.val() {
            self.ext_length.next = bit_cast::<8, 5>(self.opcode_entry3.q.val().get_bits::<5>(1));
        }
        if self.ce.val() {
            self.valid4.d.next = self.valid3.q.val();
            self.first4.d.next = self.first3.q.val();
            self.final4.d.next = self.final3.q.val();
            self.ipv6_4.d.next = self.ipv6_3.q.val();
            self.pass4.d.next = self.pass3.q.val();
            self.length4.d.next = self.length3.q.val();
            self.length_short4.d.next = self.length_short3.q.val();
            self.version_ok4.d.next = self.version_ok3.q.val();
            self.fragment4.d.next = self.fragment3.q.val();
            self.tver_bad4.d.next = self.tver_bad3.q.val();
            self.opcode_bad4.d.next = !self.opcode_entry3.q.val().get_bit(0);
            self.checksum_total4.d.next = self.checksum_sum3.q.val() + self.checksum_carry3.q.val();
            self.payload_end4.d.next =
                bit_cast::<18, 16>(self.ip_length_field3.q.val()) + bit_cast::<18, 7>(self.payload_end_offset3.q.val());
            self.header_end4.d.next = self.bth_end3.q.val() + self.ext_length.val();
            self.before_icrc4.d.next = self.before_icrc3.q.val();
            self.min_ip_length4.d.next = self.min_ip_base3.q.val() + self.ext_length.val();
            self.padded_min_ip_length4.d.next = self.padded_ip_base3.q.val() + self.ext_length.val();
            self.min_ip_base4.d.next = self.min_ip_base3.q.val();
            self.ip_length_short4.d.next = self.ip_length3.q.val().get_bits::<8>(0);
            if self.ip_length3.q.val().get_bits::<10>(8) != 0 {
                self.ip_length_short4.d.next = self.short_limit.val();
            }
            self.udp_length_bad4.d.next = self.udp_ip_length3.q.val() != self.ip_length3.q.val();
            self.shorter_than_ip4.d.next = self.length3.q.val() < self.ip_end3.q.val();
            self.longer_than_ip4.d.next = self.length3.q.val() > self.ip_end3.q.val();
            self.longer_than_minimum4.d.next = self.longer_than_minimum3.q.val();
            self.bth_in_frame4.d.next = self.bth_in_frame3.q.val();
            // extension headers: the opcode carries them and the frame reaches their end
            self.reth_ok4.d.next = self.bth_in_frame3.q.val()
                && self.opcode_entry3.q.val().get_bit(0)
                && self.opcode_entry3.q.val().get_bit(6)
                && self.after_bth3.q.val().get_bits::<8>(0) >= self.reth_in_len.val();
            self.aeth_ok4.d.next = self.bth_in_frame3.q.val()
                && self.opcode_entry3.q.val().get_bit(0)
                && self.opcode_entry3.q.val().get_bit(7)
                && self.after_bth3.q.val().get_bits::<8>(0) >= self.aeth_in_len.val();
            self.immdt_ok4.d.next = self.bth_in_frame3.q.val()
                && self.opcode_entry3.q.val().get_bit(0)
                && self.opcode_entry3.q.val().get_bit(8)
                && self.immdt_in_frame.val();
        }

        // ================= S4 -> S5: checksum and short compares, payload cut =================
        if self.ce.val() {
            self.valid5.d.next = self.valid4.q.val();
            self.first5.d.next = self.first4.q.val();
            self.final5.d.next = self.final4.q.val();
            self.pass5.d.next = self.pass4.q.val();
            self.version_ok5.d.next = self.version_ok4.q.val();
            self.fragment5.d.next = self.fragment4.q.val();
            self.tver_bad5.d.next = self.tver_bad4.q.val();
            self.opcode_bad5.d.next = self.opcode_bad4.q.val();
            // The folded sum is 0xFFFF iff low + high = 0xFFFF (high <= 9: a second fold never
            // gives 0xFFFF), i.e. low = 0xFFF0 | !high.
            self.checksum_ok5.d.next = self.ipv6_4.q.val()
                || (self.checksum_total4.q.val().get_bits::<12>(4) == 0xFFF
                    && self.checksum_total4.q.val().get_bits::<4>(0) == !self.checksum_total4.q.val().get_bits::<4>(16));
            self.payload_end5.d.next = self.payload_end4.q.val();
            self.header_end5.d.next = self.header_end4.q.val();
            self.header_cut5.d.next = self.length_short4.q.val() < self.header_end4.q.val();
            self.icrc_cut5.d.next =
                self.before_icrc4.q.val().get_bit(8) || self.before_icrc4.q.val().get_bits::<8>(0) < self.header_end4.q.val();
            self.payload_cut5.d.next = self.length4.q.val() < self.payload_end4.q.val();
            self.frame_after_header5.d.next = bit_cast::<16, 18>(self.length4.q.val()) - bit_cast::<16, 8>(self.header_end4.q.val());
            self.payload_after_header5.d.next = bit_cast::<16, 18>(self.payload_end4.q.val()) - bit_cast::<16, 8>(self.header_end4.q.val());
            self.ip_length_small5.d.next = self.ip_length_short4.q.val() < self.min_ip_length4.q.val();
            self.padcnt_bad5.d.next = self.ip_length_short4.q.val() < self.padded_min_ip_length4.q.val();
            self.ip_covers_transport5.d.next = self.ip_length_short4.q.val() >= self.min_ip_base4.q.val();
            self.udp_length_bad5.d.next = self.udp_length_bad4.q.val();
            self.shorter_than_ip5.d.next = self.shorter_than_ip4.q.val();
            self.longer_than_ip5.d.next = self.longer_than_ip4.q.val();
            self.longer_than_minimum5.d.next = self.longer_than_minimum4.q.val();
            self.bth_in_frame5.d.next = self.bth_in_frame4.q.val();
            self.reth_ok5.d.next = self.reth_ok4.q.val();
            self.immdt_ok5.d.next = self.immdt_ok4.q.val();
            self.aeth_ok5.d.next = self.aeth_ok4.q.val();
        }

        // ================= S5 -> S6: reason, payload length; the record =================
        // the length checks belong to the final record (a first record's length is the capture's)
        self.truncated.next = self.final5.q.val() && (self.shorter_than_ip5.q.val() || self.icrc_cut5.q.val());
        self.excess.next = self.final5.q.val() && self.longer_than_ip5.q.val() && self.longer_than_minimum5.q.val();
        self.header_fail.next = !self.version_ok5.q.val()
            || self.header_cut5.q.val()
            || self.ip_length_small5.q.val()
            || !self.checksum_ok5.q.val()
            || self.fragment5.q.val()
            || self.udp_length_bad5.q.val()
            || self.tver_bad5.q.val()
            || self.opcode_bad5.q.val()
            || self.padcnt_bad5.q.val();
        if self.ce.val() {
            self.valid6.d.next = self.valid5.q.val();
            self.first6.d.next = self.first5.q.val();
            self.final6.d.next = self.final5.q.val();
            self.pass6.d.next = self.pass5.q.val();
            self.reason6.d.next = 0.into();
            if !self.version_ok5.q.val() {
                self.reason6.d.next = self.reason_ip_header.val();
            } else if self.truncated.val() {
                self.reason6.d.next = self.reason_truncated.val();
            } else if self.ip_length_small5.q.val() || self.excess.val() {
                self.reason6.d.next = self.reason_ip_length.val();
            } else if !self.checksum_ok5.q.val() {
                self.reason6.d.next = self.reason_ip_checksum.val();
            } else if self.fragment5.q.val() {
                self.reason6.d.next = self.reason_ip_fragment.val();
            } else if self.udp_length_bad5.q.val() {
                self.reason6.d.next = self.reason_udp_length.val();
            } else if self.tver_bad5.q.val() {
                self.reason6.d.next = self.reason_tver.val();
            } else if self.opcode_bad5.q.val() {
                self.reason6.d.next = self.reason_opcode.val();
            } else if self.padcnt_bad5.q.val() {
                self.reason6.d.next = self.reason_padcnt.val();
            }
            self.header_fail6.d.next = self.header_fail.val();
            self.icrc_check6.d.next =
                self.final5.q.val() && self.version_ok5.q.val() && self.ip_covers_transport5.q.val() && !self.shorter_than_ip5.q.val();
            self.bth_in_frame6.d.next = self.bth_in_frame5.q.val();
            self.reth_ok6.d.next = self.reth_ok5.q.val();
            self.immdt_ok6.d.next = self.immdt_ok5.q.val();
            self.aeth_ok6.d.next = self.aeth_ok5.q.val();
            self.pay_off6.d.next = bit_cast::<16, 8>(self.header_end5.q.val());
            // payload: from the header end to ip_end - ICRC - PadCnt, cut at the frame end
            self.pay_len6.d.next = 0.into();
            if !self.header_fail.val() {
                if self.final5.q.val() && self.payload_cut5.q.val() {
                    self.pay_len6.d.next = self.frame_after_header5.q.val();
                } else {
                    self.pay_len6.d.next = self.payload_after_header5.q.val();
                }
            }
            self.pay_end6.d.next = self.payload_end5.q.val();
        }

        if self.reset.val() {
            self.position.d.next = 0.into();
            self.next_position.d.next = self.bytes_per_beat.val();
            self.in_frame.d.next = false;
            self.capture_beat.d.next = 0.into();
            self.valid1.d.next = false;
            self.valid2.d.next = false;
            self.valid3.d.next = false;
            self.valid4.d.next = false;
            self.valid5.d.next = false;
            self.valid6.d.next = false;
        }

        self.h_valid.next = self.valid6.q.val();
        self.h_first.next = self.first6.q.val();
        self.h_final.next = self.final6.q.val();
        self.h_pay_end.next = self.pay_end6.q.val();
        self.h_pass.next = self.pass6.q.val();
        self.h_reason.next = self.reason6.q.val();
        self.h_hfail.next = self.header_fail6.q.val();
        self.h_icrc_chk.next = self.icrc_check6.q.val();
        self.h_eth_dst.next = self.eth_dst_line.q.val();
        self.h_eth_src.next = self.eth_src_line.q.val();
        self.h_vlan_ok.next = self.vlan_ok_line.q.val() != 0;
        self.h_vlan.next = self.vlan_id_line.q.val();
        self.h_ip_v6.next = self.ipv6_line.q.val() != 0;
        self.h_ip_src.next = self.ip_src_line.q.val();
        self.h_ip_dst.next = self.ip_dst_line.q.val();
        self.h_ip_dscp.next = self.traffic_class_line.q.val().get_bits::<6>(self.dscp_bit.val().index());
        self.h_ip_ecn.next = self.traffic_class_line.q.val().get_bits::<2>(0);
        self.h_ip_ttl.next = self.ttl_line.q.val();
        self.h_udp_sport.next = self.udp_sport_line.q.val();
        self.h_udp_dport.next = self.udp_dport_line.q.val();
        self.h_bth_ok.next = self.bth_in_frame6.q.val();
        self.h_bth_opcode.next = self.opcode_line.q.val();
        self.h_bth_se.next = self.bth_flags_line.q.val().get_bit(self.se_bit.val().index());
        self.h_bth_m.next = self.bth_flags_line.q.val().get_bit(self.m_bit.val().index());
        self.h_bth_padcnt.next = self.bth_flags_line.q.val().get_bits::<2>(self.padcnt_bit.val().index());
        self.h_bth_tver.next = self.bth_flags_line.q.val().get_bits::<4>(0);
        self.h_bth_pkey.next = self.pkey_line.q.val();
        self.h_bth_fecn.next = self.fecn_becn_line.q.val().get_bit(self.fecn_bit.val().index());
        self.h_bth_becn.next = self.fecn_becn_line.q.val().get_bit(self.becn_bit.val().index());
        self.h_bth_dqpn.next = self.dqpn_line.q.val();
        self.h_bth_ackreq.next = self.ackreq_line.q.val() != 0;
        self.h_bth_psn.next = self.psn_line.q.val();
        self.h_reth_ok.next = self.reth_ok6.q.val();
        self.h_reth_va.next = self.reth_va_line.q.val();
        self.h_reth_rkey.next = self.reth_rkey_line.q.val();
        self.h_reth_dmalen.next = self.reth_dmalen_line.q.val();
        self.h_immdt_ok.next = self.immdt_ok6.q.val();
        self.h_immdt.next = self.immdt_line.q.val();
        self.h_aeth_ok.next = self.aeth_ok6.q.val();
        self.h_aeth_syndrome.next = self.aeth_syndrome_line.q.val();
        self.h_aeth_msn.next = self.aeth_msn_line.q.val();
        self.h_pay_off.next = self.pay_off6.q.val();
        self.h_pay_len.next = self.pay_len6.q.val();
    }
}
