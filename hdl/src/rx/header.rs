//! RX front end (issue 3), first block: [`RxHeader`], the header decoder.
//!
//! `RxHeader` watches the frame stream (always ready, one beat per cycle, `tkeep` contiguous
//! from lane 0, frame byte 0 in `tdata[7:0]`) and emits registered records (below): the
//! classification (`h_pass`: not RoCEv2), the drop reason decided from the headers and the frame
//! length (`h_reason`, every reason but `icrc`), and the fields of the header record, with the
//! semantics of the software model `ferroce_models::rx::rx_model` (docs/rx.md).
//!
//! | stage | work |
//! |---|---|
//! | S0 → S1 | beat byte-reversed and merged into `header`: the first [`CAPTURE_BYTES`] frame bytes, frame byte `p` at byte `CAPTURE_BYTES − 1 − p`, so every big-endian field is one contiguous bit range; frame length counted (a partial last beat ORs its byte count into the beat position, a multiple of `K`) |
//! | S1 → S2 | (record beats only) VLAN tags, ethertype, classification; the IP header aligned to the top of the register (3-way mux: `l2` = 14, 18, 22) and the BTH aligned after it (2-way mux: IPv4/IPv6); every field taken at a fixed position; IPv4 header word sums (one per L2 length, in parallel with the VLAN decode); opcode table lookup |
//! | S2 → S3 | IPv4 checksum compare, length checks, drop-reason precedence, payload offset and length, extension header presence; the record registered on the outputs |
//!
//! A register's number is its stage (`valid2` is registered at the end of S1 → S2); the S3
//! registers drive the `h_*` outputs.
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
//! Latency: `h_valid` is high for one cycle, 3 cycles after the cycle in which the beat that
//! triggers the record is taken. Records come out in frame order, at most one per cycle. `ce`
//! low freezes every register (a record then stays on the outputs). The fields of a pass
//! record (`h_pass` = 1) are undefined.

use crate::common::elab::{bits_from, c};
use ferroce_contracts::icrc::ICRC_LEN;
use ferroce_contracts::rx::{supported_opcode, DropReason};
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

/// Bit position, in a capture register, of the `len`-byte big-endian field at byte `offset` from
/// the register's top (frame byte p of `header` sits at byte `CAPTURE_BYTES − 1 − p`).
const fn be_pos(offset: usize, len: usize) -> usize {
    8 * (CAPTURE_BYTES - offset - len)
}

/// The position of a header field `f` whose header starts `base` bytes from the register's top.
fn at(base: usize, f: Field) -> Constant<Bits<11>> {
    c::<11>(be_pos(base + f.start, f.len()) as u64)
}

/// The position of the one-byte field at `base + offset`.
fn at_byte(base: usize, offset: usize) -> Constant<Bits<11>> {
    at(base, offset..offset + 1)
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

    // ---- constants ----
    bytes_per_beat: Constant<Bits<18>>,
    /// Lane i + 1: the bytes of a beat whose last kept lane is i.
    lane_byte_count: [Constant<Bits<18>>; 128],
    /// The shift that puts lane i at byte K − 1 − i.
    reverse_shift: [Constant<Bits<16>>; 128],
    /// Beat position, register shift and register mask of capture beat j.
    capture_position: [Constant<Bits<18>>; 16],
    capture_shift: [Constant<Bits<16>>; 16],
    capture_mask: [Constant<Bits<CAPTURE_BITS>>; 16],
    /// Beat position of the beat that completes the capture (`(CAPTURE_BEATS − 1)·K`).
    last_capture_position: Constant<Bits<18>>,
    opcode_table: Constant<Bits<4096>>,

    // ---- field positions in the capture registers (from the header contracts): the Ethernet
    // fields in `header` (per VLAN tag count where they move), the IP and UDP fields in
    // `ip_aligned` (IP header at the top), the BTH and its extension headers in `bth_aligned`
    // (BTH at the top) ----
    at_ethertype: [Constant<Bits<11>>; 3],
    at_eth_dst: Constant<Bits<11>>,
    at_eth_src: Constant<Bits<11>>,
    at_outer_tci: Constant<Bits<11>>,
    at_v4_version_ihl: Constant<Bits<11>>,
    at_v4_tos: Constant<Bits<11>>,
    at_v4_total_len: Constant<Bits<11>>,
    at_v4_flags_fragment: Constant<Bits<11>>,
    at_v4_ttl: Constant<Bits<11>>,
    at_v4_protocol: Constant<Bits<11>>,
    at_v4_src: Constant<Bits<11>>,
    at_v4_dst: Constant<Bits<11>>,
    at_v4_udp_sport: Constant<Bits<11>>,
    at_v4_udp_dport: Constant<Bits<11>>,
    at_v4_udp_len: Constant<Bits<11>>,
    /// Bit 4 of the first byte: the version nibble.
    at_v6_version: Constant<Bits<11>>,
    /// Traffic class: bits 4.. of the first 16-bit word.
    at_v6_class: Constant<Bits<11>>,
    at_v6_payload_len: Constant<Bits<11>>,
    at_v6_next_header: Constant<Bits<11>>,
    at_v6_hop_limit: Constant<Bits<11>>,
    at_v6_src: Constant<Bits<11>>,
    at_v6_dst: Constant<Bits<11>>,
    at_v6_udp_sport: Constant<Bits<11>>,
    at_v6_udp_dport: Constant<Bits<11>>,
    at_v6_udp_len: Constant<Bits<11>>,
    at_bth_opcode: Constant<Bits<11>>,
    at_bth_flags: Constant<Bits<11>>,
    at_bth_pkey: Constant<Bits<11>>,
    at_bth_fecn_becn: Constant<Bits<11>>,
    at_bth_dqpn: Constant<Bits<11>>,
    /// The AckReq bit (bit 7 of its byte).
    at_bth_ackreq: Constant<Bits<11>>,
    at_bth_psn: Constant<Bits<11>>,
    at_reth_va: Constant<Bits<11>>,
    at_reth_rkey: Constant<Bits<11>>,
    at_reth_dmalen: Constant<Bits<11>>,
    at_aeth_syndrome: Constant<Bits<11>>,
    at_aeth_msn: Constant<Bits<11>>,
    /// ImmDt 0, 8 or 16 bytes after the BTH (the opcode table's ImmDt offset / 8).
    at_immdt: [Constant<Bits<11>>; 3],

    // ---- values from the contracts ----
    tpid_8021q: Constant<Bits<16>>,
    tpid_8021ad: Constant<Bits<16>>,
    ethertype_ipv4: Constant<Bits<16>>,
    ethertype_ipv6: Constant<Bits<16>>,
    /// L2 header length with 0, 1 and 2 VLAN tags, and 8 × it (the shift that puts the IP
    /// header at the top of `ip_aligned`).
    l2_len: [Constant<Bits<18>>; 3],
    l2_shift: [Constant<Bits<11>>; 3],
    /// The IPv4 version/IHL byte RoCEv2 accepts (version 4, IHL 5) and the IPv6 version.
    v4_version_ihl: Constant<Bits<8>>,
    v6_version: Constant<Bits<4>>,
    proto_udp: Constant<Bits<8>>,
    rocev2_port: Constant<Bits<16>>,
    /// The bits of the IPv4 flags/fragment word that make a fragment: MF and the offset.
    v4_fragment_mask: Constant<Bits<16>>,
    v4_header_len: Constant<Bits<18>>,
    v6_header_len: Constant<Bits<18>>,
    /// Bytes from the IP header to the end of the UDP destination port (the classification
    /// reads up to there) and to the end of the BTH.
    v4_class_len: Constant<Bits<18>>,
    v6_class_len: Constant<Bits<18>>,
    v4_bth_end: Constant<Bits<18>>,
    v6_bth_end: Constant<Bits<18>>,
    /// The shift that puts the BTH at the top of `bth_aligned` (IP and UDP headers).
    v4_bth_shift: Constant<Bits<11>>,
    v6_bth_shift: Constant<Bits<11>>,
    /// UDP + BTH + ICRC: what an IP packet carries beyond its IP and extension headers at least.
    transport_min: Constant<Bits<18>>,
    icrc_len: Constant<Bits<18>>,
    min_frame_len: Constant<Bits<18>>,
    reth_len: Constant<Bits<18>>,
    aeth_len: Constant<Bits<18>>,
    immdt_len: Constant<Bits<18>>,
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
    /// Frame byte position of the input beat (a multiple of K).
    position: DFF<Bits<18>>,
    /// The captured frame head, byte-reversed.
    header: DFF<Bits<CAPTURE_BITS>>,
    valid1: DFF<Bit>,
    first1: DFF<Bit>,
    final1: DFF<Bit>,
    /// Frame length (at the capture record: the captured bytes).
    length1: DFF<Bits<18>>,
    lane_byte: Signal<Local, Bits<8>>,
    reversed_beat: Signal<Local, Bits<W>>,
    byte_count: Signal<Local, Bits<18>>,
    /// `tkeep >> 1`, to find the last kept lane.
    keep_shifted: Signal<Local, Bits<K>>,
    full: Signal<Local, Bit>,
    next_position: Signal<Local, Bits<18>>,
    header_next: Signal<Local, Bits<CAPTURE_BITS>>,

    // ---- S1 -> S2 ----
    /// The type field after 0, 1 and 2 VLAN tags, and whether each is a VLAN TPID.
    type_untagged: Signal<Local, Bits<16>>,
    type_one_tag: Signal<Local, Bits<16>>,
    type_two_tags: Signal<Local, Bits<16>>,
    outer_tag: Signal<Local, Bit>,
    inner_tag: Signal<Local, Bit>,
    third_tag: Signal<Local, Bit>,
    ethertype: Signal<Local, Bits<16>>,
    ipv6: Signal<Local, Bit>,
    /// The capture shifted so that the IP header is at the top.
    ip_aligned: Signal<Local, Bits<CAPTURE_BITS>>,
    /// The capture shifted so that the BTH is at the top.
    bth_aligned: Signal<Local, Bits<CAPTURE_BITS>>,
    l2_length: Signal<Local, Bits<18>>,
    /// The opcode's entry in `opcode_table` ([`opcode_info`]), and its bit index there.
    opcode_entry: Signal<Local, Bits<16>>,
    opcode_index: Signal<Local, Bits<12>>,
    /// IPv4 header word sum for each L2 length, and the word being added.
    checksum_sum: [Signal<Local, Bits<20>>; 3],
    checksum_word: Signal<Local, Bits<16>>,
    /// Bit position in `header` of the first IPv4 header word for L2 = 14, 18, 22 bytes, and of
    /// word w relative to it.
    checksum_at: [Constant<Bits<11>>; 3],
    checksum_word_offset: [Constant<Bits<11>>; 10],
    valid2: DFF<Bit>,
    first2: DFF<Bit>,
    final2: DFF<Bit>,
    pass2: DFF<Bit>,
    length2: DFF<Bits<18>>,
    ip_length2: DFF<Bits<18>>,
    ip_end2: DFF<Bits<18>>,
    /// Frame offset of the BTH end, and whether the frame reaches it.
    bth_end2: DFF<Bits<18>>,
    bth_in_frame2: DFF<Bit>,
    version_ok2: DFF<Bit>,
    /// IPv4 header word sum (not folded).
    checksum_sum2: DFF<Bits<20>>,
    fragment2: DFF<Bit>,
    udp_length2: DFF<Bits<16>>,
    opcode_entry2: DFF<Bits<16>>,
    eth_dst2: DFF<Bits<48>>,
    eth_src2: DFF<Bits<48>>,
    vlan_ok2: DFF<Bit>,
    vlan_id2: DFF<Bits<12>>,
    ipv6_2: DFF<Bit>,
    ip_src2: DFF<Bits<128>>,
    ip_dst2: DFF<Bits<128>>,
    traffic_class2: DFF<Bits<8>>,
    ttl2: DFF<Bits<8>>,
    udp_sport2: DFF<Bits<16>>,
    udp_dport2: DFF<Bits<16>>,
    opcode2: DFF<Bits<8>>,
    /// BTH byte 1: SE, M, PadCnt, TVer.
    bth_flags2: DFF<Bits<8>>,
    pkey2: DFF<Bits<16>>,
    /// BTH byte 4: FECN, BECN.
    bth_fecn_becn2: DFF<Bits<8>>,
    dqpn2: DFF<Bits<24>>,
    ackreq2: DFF<Bit>,
    psn2: DFF<Bits<24>>,
    reth_va2: DFF<Bits<64>>,
    reth_rkey2: DFF<Bits<32>>,
    reth_dmalen2: DFF<Bits<32>>,
    immdt2: DFF<Bits<32>>,
    aeth_syndrome2: DFF<Bits<8>>,
    aeth_msn2: DFF<Bits<24>>,

    // ---- S2 -> S3 ----
    /// Extension header bytes after the BTH.
    ext_length: Signal<Local, Bits<18>>,
    header_end: Signal<Local, Bits<18>>,
    min_ip_length: Signal<Local, Bits<18>>,
    ip_header_length: Signal<Local, Bits<18>>,
    pad_count: Signal<Local, Bits<18>>,
    truncated: Signal<Local, Bit>,
    ip_length_small: Signal<Local, Bit>,
    checksum_ok: Signal<Local, Bit>,
    excess: Signal<Local, Bit>,
    udp_length_bad: Signal<Local, Bit>,
    tver_bad: Signal<Local, Bit>,
    opcode_bad: Signal<Local, Bit>,
    padcnt_bad: Signal<Local, Bit>,
    header_fail: Signal<Local, Bit>,
    payload_end: Signal<Local, Bits<18>>,
    immdt_offset: Signal<Local, Bits<18>>,
    ext_headers_ok: Signal<Local, Bit>,
    valid3: DFF<Bit>,
    first3: DFF<Bit>,
    final3: DFF<Bit>,
    pass3: DFF<Bit>,
    reason3: DFF<Bits<4>>,
    header_fail3: DFF<Bit>,
    icrc_check3: DFF<Bit>,
    eth_dst3: DFF<Bits<48>>,
    eth_src3: DFF<Bits<48>>,
    vlan_ok3: DFF<Bit>,
    vlan_id3: DFF<Bits<12>>,
    ipv6_3: DFF<Bit>,
    ip_src3: DFF<Bits<128>>,
    ip_dst3: DFF<Bits<128>>,
    traffic_class3: DFF<Bits<8>>,
    ttl3: DFF<Bits<8>>,
    udp_sport3: DFF<Bits<16>>,
    udp_dport3: DFF<Bits<16>>,
    bth_in_frame3: DFF<Bit>,
    opcode3: DFF<Bits<8>>,
    bth_flags3: DFF<Bits<8>>,
    pkey3: DFF<Bits<16>>,
    bth_fecn_becn3: DFF<Bits<8>>,
    dqpn3: DFF<Bits<24>>,
    ackreq3: DFF<Bit>,
    psn3: DFF<Bits<24>>,
    reth_ok3: DFF<Bit>,
    reth_va3: DFF<Bits<64>>,
    reth_rkey3: DFF<Bits<32>>,
    reth_dmalen3: DFF<Bits<32>>,
    immdt_ok3: DFF<Bit>,
    immdt3: DFF<Bits<32>>,
    aeth_ok3: DFF<Bit>,
    aeth_syndrome3: DFF<Bits<8>>,
    aeth_msn3: DFF<Bits<24>>,
    pay_off3: DFF<Bits<16>>,
    pay_len3: DFF<Bits<16>>,
    pay_end3: DFF<Bits<18>>,
}

impl<const W: usize, const K: usize> RxHeader<W, K> {
    /// Beats that carry captured bytes.
    pub const CAPTURE_BEATS: usize = CAPTURE_BYTES / K;
    const LAST_LANE: usize = K - 1;
    /// Cycles from the cycle that takes the last beat to the cycle `h_valid` is high.
    pub const LATENCY: usize = 3;
}

impl<const W: usize, const K: usize> Default for RxHeader<W, K> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        assert!(K.is_power_of_two() && (8..=128).contains(&K), "bus width 64..1024 bits");
        let capture_beats = Self::CAPTURE_BEATS;
        use ethernet::field as eth;
        let bit = |byte: Constant<Bits<11>>, b: u32| c::<11>(byte.val().index() as u64 + u64::from(b));
        let v6_udp = ipv6::HEADER_LEN;
        let v4_udp = ipv4::HEADER_LEN;
        let ext = bth::HEADER_LEN;
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
            capture_position: std::array::from_fn(|j| c::<18>(if j < capture_beats { (j * K) as u64 } else { 0x3FFFF })),
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
            last_capture_position: c::<18>(((capture_beats - 1) * K) as u64),
            opcode_table: Constant::new(bits_from::<4096>(|k| (opcode_info((k / 16) as u8) >> (k % 16)) & 1 != 0)),
            at_ethertype: std::array::from_fn(|tags| at(ethernet::VLAN_TAG_LEN * tags, eth::ETHERTYPE)),
            at_eth_dst: at(0, eth::DESTINATION),
            at_eth_src: at(0, eth::SOURCE),
            at_outer_tci: at(ethernet::HEADER_LEN - ethernet::vlan_field::TCI.start, ethernet::vlan_field::TCI),
            at_v4_version_ihl: at_byte(0, ipv4::field::VERSION_IHL),
            at_v4_tos: at_byte(0, ipv4::field::DSCP_ECN),
            at_v4_total_len: at(0, ipv4::field::TOTAL_LEN),
            at_v4_flags_fragment: at(0, ipv4::field::FLAGS_FRAGMENT),
            at_v4_ttl: at_byte(0, ipv4::field::TTL),
            at_v4_protocol: at_byte(0, ipv4::field::PROTOCOL),
            at_v4_src: at(0, ipv4::field::SOURCE),
            at_v4_dst: at(0, ipv4::field::DESTINATION),
            at_v4_udp_sport: at(v4_udp, udp::field::SRC_PORT),
            at_v4_udp_dport: at(v4_udp, udp::field::DST_PORT),
            at_v4_udp_len: at(v4_udp, udp::field::LENGTH),
            at_v6_version: bit(at_byte(0, 0), 4),
            at_v6_class: bit(at(0, 0..2), 4),
            at_v6_payload_len: at(0, ipv6::field::PAYLOAD_LEN),
            at_v6_next_header: at_byte(0, ipv6::field::NEXT_HEADER),
            at_v6_hop_limit: at_byte(0, ipv6::field::HOP_LIMIT),
            at_v6_src: at(0, ipv6::field::SOURCE),
            at_v6_dst: at(0, ipv6::field::DESTINATION),
            at_v6_udp_sport: at(v6_udp, udp::field::SRC_PORT),
            at_v6_udp_dport: at(v6_udp, udp::field::DST_PORT),
            at_v6_udp_len: at(v6_udp, udp::field::LENGTH),
            at_bth_opcode: at_byte(0, bth::field::OPCODE),
            at_bth_flags: at_byte(0, bth::field::FLAGS),
            at_bth_pkey: at(0, bth::field::PKEY),
            at_bth_fecn_becn: at_byte(0, bth::field::FECN_BECN),
            at_bth_dqpn: at(0, bth::field::DEST_QP),
            at_bth_ackreq: bit(at_byte(0, bth::field::ACKREQ), bth::FLAG_ACKREQ.trailing_zeros()),
            at_bth_psn: at(0, bth::field::PSN),
            at_reth_va: at(ext, reth::field::VA),
            at_reth_rkey: at(ext, reth::field::RKEY),
            at_reth_dmalen: at(ext, reth::field::DMA_LEN),
            at_aeth_syndrome: at_byte(ext, aeth::field::SYNDROME),
            at_aeth_msn: at(ext, aeth::field::MSN),
            at_immdt: std::array::from_fn(|k| at(ext + 8 * k, immdt::field::DATA)),
            tpid_8021q: c::<16>(ethernet::TPID_8021Q.into()),
            tpid_8021ad: c::<16>(ethernet::TPID_8021AD.into()),
            ethertype_ipv4: c::<16>(ethernet::ETHERTYPE_IPV4.into()),
            ethertype_ipv6: c::<16>(ethernet::ETHERTYPE_IPV6.into()),
            l2_len: std::array::from_fn(|tags| c::<18>(ethernet::header_len(tags) as u64)),
            l2_shift: std::array::from_fn(|tags| c::<11>(8 * ethernet::header_len(tags) as u64)),
            v4_version_ihl: c::<8>(u64::from(ipv4::VERSION << 4 | ipv4::IHL)),
            v6_version: c::<4>(ipv6::VERSION.into()),
            proto_udp: c::<8>(ipv4::PROTO_UDP.into()),
            rocev2_port: c::<16>(udp::ROCEV2_PORT.into()),
            v4_fragment_mask: c::<16>(u64::from(ipv4::FLAG_MF | ipv4::FRAGMENT_OFFSET_MASK)),
            v4_header_len: c::<18>(v4_udp as u64),
            v6_header_len: c::<18>(v6_udp as u64),
            v4_class_len: c::<18>((v4_udp + udp::field::DST_PORT.end) as u64),
            v6_class_len: c::<18>((v6_udp + udp::field::DST_PORT.end) as u64),
            v4_bth_end: c::<18>((v4_udp + udp::HEADER_LEN + bth::HEADER_LEN) as u64),
            v6_bth_end: c::<18>((v6_udp + udp::HEADER_LEN + bth::HEADER_LEN) as u64),
            v4_bth_shift: c::<11>((8 * (v4_udp + udp::HEADER_LEN)) as u64),
            v6_bth_shift: c::<11>((8 * (v6_udp + udp::HEADER_LEN)) as u64),
            transport_min: c::<18>((udp::HEADER_LEN + bth::HEADER_LEN + ICRC_LEN) as u64),
            icrc_len: c::<18>(ICRC_LEN as u64),
            min_frame_len: c::<18>(ethernet::MIN_FRAME_LEN as u64),
            reth_len: c::<18>(reth::HEADER_LEN as u64),
            aeth_len: c::<18>(aeth::HEADER_LEN as u64),
            immdt_len: c::<18>(immdt::HEADER_LEN as u64),
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
            header: Default::default(),
            valid1: Default::default(),
            first1: Default::default(),
            final1: Default::default(),
            length1: Default::default(),
            lane_byte: Default::default(),
            reversed_beat: Default::default(),
            byte_count: Default::default(),
            keep_shifted: Default::default(),
            full: Default::default(),
            next_position: Default::default(),
            header_next: Default::default(),
            type_untagged: Default::default(),
            type_one_tag: Default::default(),
            type_two_tags: Default::default(),
            outer_tag: Default::default(),
            inner_tag: Default::default(),
            third_tag: Default::default(),
            ethertype: Default::default(),
            ipv6: Default::default(),
            ip_aligned: Default::default(),
            bth_aligned: Default::default(),
            l2_length: Default::default(),
            opcode_entry: Default::default(),
            opcode_index: Default::default(),
            checksum_sum: Default::default(),
            checksum_word: Default::default(),
            checksum_at: std::array::from_fn(|tags| c::<11>(be_pos(ethernet::header_len(tags), 2) as u64)),
            checksum_word_offset: std::array::from_fn(|w| c::<11>(16 * w as u64)),
            valid2: Default::default(),
            first2: Default::default(),
            final2: Default::default(),
            pass2: Default::default(),
            length2: Default::default(),
            ip_length2: Default::default(),
            ip_end2: Default::default(),
            bth_end2: Default::default(),
            bth_in_frame2: Default::default(),
            version_ok2: Default::default(),
            checksum_sum2: Default::default(),
            fragment2: Default::default(),
            udp_length2: Default::default(),
            opcode_entry2: Default::default(),
            eth_dst2: Default::default(),
            eth_src2: Default::default(),
            vlan_ok2: Default::default(),
            vlan_id2: Default::default(),
            ipv6_2: Default::default(),
            ip_src2: Default::default(),
            ip_dst2: Default::default(),
            traffic_class2: Default::default(),
            ttl2: Default::default(),
            udp_sport2: Default::default(),
            udp_dport2: Default::default(),
            opcode2: Default::default(),
            bth_flags2: Default::default(),
            pkey2: Default::default(),
            bth_fecn_becn2: Default::default(),
            dqpn2: Default::default(),
            ackreq2: Default::default(),
            psn2: Default::default(),
            reth_va2: Default::default(),
            reth_rkey2: Default::default(),
            reth_dmalen2: Default::default(),
            immdt2: Default::default(),
            aeth_syndrome2: Default::default(),
            aeth_msn2: Default::default(),
            ext_length: Default::default(),
            header_end: Default::default(),
            min_ip_length: Default::default(),
            ip_header_length: Default::default(),
            pad_count: Default::default(),
            truncated: Default::default(),
            ip_length_small: Default::default(),
            checksum_ok: Default::default(),
            excess: Default::default(),
            udp_length_bad: Default::default(),
            tver_bad: Default::default(),
            opcode_bad: Default::default(),
            padcnt_bad: Default::default(),
            header_fail: Default::default(),
            payload_end: Default::default(),
            immdt_offset: Default::default(),
            ext_headers_ok: Default::default(),
            valid3: Default::default(),
            first3: Default::default(),
            final3: Default::default(),
            pass3: Default::default(),
            reason3: Default::default(),
            header_fail3: Default::default(),
            icrc_check3: Default::default(),
            eth_dst3: Default::default(),
            eth_src3: Default::default(),
            vlan_ok3: Default::default(),
            vlan_id3: Default::default(),
            ipv6_3: Default::default(),
            ip_src3: Default::default(),
            ip_dst3: Default::default(),
            traffic_class3: Default::default(),
            ttl3: Default::default(),
            udp_sport3: Default::default(),
            udp_dport3: Default::default(),
            bth_in_frame3: Default::default(),
            opcode3: Default::default(),
            bth_flags3: Default::default(),
            pkey3: Default::default(),
            bth_fecn_becn3: Default::default(),
            dqpn3: Default::default(),
            ackreq3: Default::default(),
            psn3: Default::default(),
            reth_ok3: Default::default(),
            reth_va3: Default::default(),
            reth_rkey3: Default::default(),
            reth_dmalen3: Default::default(),
            immdt_ok3: Default::default(),
            immdt3: Default::default(),
            aeth_ok3: Default::default(),
            aeth_syndrome3: Default::default(),
            aeth_msn3: Default::default(),
            pay_off3: Default::default(),
            pay_len3: Default::default(),
            pay_end3: Default::default(),
        }
    }
}

// Bit positions in `header` (frame byte p at bits 8(CAPTURE_BYTES-1-p) .. 8(CAPTURE_BYTES-1-p)+7): a big-endian field of
// n bytes at offset o (from the frame start, or from the IP header in `ip_aligned`, or from the BTH
// in `bth_aligned`) is bits 8(CAPTURE_BYTES-o-n) .. 8(CAPTURE_BYTES-o)-1: the `at_*` constants, computed from the contracts.
impl<const W: usize, const K: usize> Logic for RxHeader<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            position,
            header,
            valid1,
            first1,
            final1,
            length1,
            valid2,
            first2,
            final2,
            pass2,
            length2,
            ip_length2,
            ip_end2,
            bth_end2,
            bth_in_frame2,
            version_ok2,
            checksum_sum2,
            fragment2,
            udp_length2,
            opcode_entry2,
            eth_dst2,
            eth_src2,
            vlan_ok2,
            vlan_id2,
            ipv6_2,
            ip_src2,
            ip_dst2,
            traffic_class2,
            ttl2,
            udp_sport2,
            udp_dport2,
            opcode2,
            bth_flags2,
            pkey2,
            bth_fecn_becn2,
            dqpn2,
            ackreq2,
            psn2,
            reth_va2,
            reth_rkey2,
            reth_dmalen2,
            immdt2,
            aeth_syndrome2,
            aeth_msn2,
            valid3,
            pass3,
            reason3,
            header_fail3,
            icrc_check3,
            eth_dst3,
            eth_src3,
            vlan_ok3,
            vlan_id3,
            ipv6_3,
            ip_src3,
            ip_dst3,
            traffic_class3,
            ttl3,
            udp_sport3,
            udp_dport3,
            bth_in_frame3,
            opcode3,
            bth_flags3,
            pkey3,
            bth_fecn_becn3,
            dqpn3,
            ackreq3,
            psn3,
            reth_ok3,
            reth_va3,
            reth_rkey3,
            reth_dmalen3,
            immdt_ok3,
            immdt3,
            aeth_ok3,
            aeth_syndrome3,
            aeth_msn3,
            pay_off3,
            pay_len3,
            first3,
            final3,
            pay_end3
        );
        self.s_axis_tready.next = true;

        // ================= S0 -> S1: capture the frame head, count the length =================
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
        self.next_position.next = self.position.q.val() + self.bytes_per_beat.val();
        self.header_next.next = self.header.q.val();
        if self.position.q.val() == 0 {
            // the first beat clears the bytes of the previous frame
            self.header_next.next = bit_cast::<CAPTURE_BITS, W>(self.reversed_beat.val()) << self.capture_shift[0].val();
        }
        for j in 1..Self::CAPTURE_BEATS {
            if self.position.q.val() == self.capture_position[j].val() {
                self.header_next.next = (self.header.q.val() & !self.capture_mask[j].val())
                    | (bit_cast::<CAPTURE_BITS, W>(self.reversed_beat.val()) << self.capture_shift[j].val());
            }
        }
        if self.ce.val() {
            self.valid1.d.next = false;
            if self.s_axis_tvalid.val() {
                self.header.d.next = self.header_next.val();
                // first record: at the beat that completes the capture, or at the last beat
                // if the frame ends earlier; final record: at the last beat
                self.first1.d.next = self.position.q.val() <= self.last_capture_position.val();
                self.final1.d.next = self.s_axis_tlast.val();
                if self.s_axis_tlast.val() {
                    self.position.d.next = 0.into();
                    self.valid1.d.next = true;
                    // position is a multiple of K: a partial beat adds without a carry
                    if self.full.val() {
                        self.length1.d.next = self.next_position.val();
                    } else {
                        self.length1.d.next = self.position.q.val() | self.byte_count.val();
                    }
                } else {
                    if self.position.q.val() == self.last_capture_position.val() {
                        self.valid1.d.next = true;
                        self.length1.d.next = self.next_position.val();
                    }
                    if !self.position.q.val().get_bit(17) {
                        // saturates past 128 KiB (longer than any IP packet can end)
                        self.position.d.next = self.next_position.val();
                    }
                }
            }
        }

        // ================= S1 -> S2: classify, align, extract =================
        self.type_untagged.next = self.header.q.val().get_bits::<16>(self.at_ethertype[0].val().index());
        self.type_one_tag.next = self.header.q.val().get_bits::<16>(self.at_ethertype[1].val().index());
        self.type_two_tags.next = self.header.q.val().get_bits::<16>(self.at_ethertype[2].val().index());
        self.outer_tag.next = self.type_untagged.val() == self.tpid_8021q.val() || self.type_untagged.val() == self.tpid_8021ad.val();
        self.inner_tag.next = self.type_one_tag.val() == self.tpid_8021q.val() || self.type_one_tag.val() == self.tpid_8021ad.val();
        self.third_tag.next = self.type_two_tags.val() == self.tpid_8021q.val() || self.type_two_tags.val() == self.tpid_8021ad.val();
        if self.outer_tag.val() && self.inner_tag.val() {
            self.ethertype.next = self.type_two_tags.val();
            self.l2_length.next = self.l2_len[2].val();
            self.ip_aligned.next = self.header.q.val() << self.l2_shift[2].val();
        } else if self.outer_tag.val() {
            self.ethertype.next = self.type_one_tag.val();
            self.l2_length.next = self.l2_len[1].val();
            self.ip_aligned.next = self.header.q.val() << self.l2_shift[1].val();
        } else {
            self.ethertype.next = self.type_untagged.val();
            self.l2_length.next = self.l2_len[0].val();
            self.ip_aligned.next = self.header.q.val() << self.l2_shift[0].val();
        }
        self.ipv6.next = self.ethertype.val() == self.ethertype_ipv6.val();
        if self.ipv6.val() {
            self.bth_aligned.next = self.ip_aligned.val() << self.v6_bth_shift.val();
        } else {
            self.bth_aligned.next = self.ip_aligned.val() << self.v4_bth_shift.val();
        }
        self.opcode_index.next = bit_cast::<12, 8>(self.bth_aligned.val().get_bits::<8>(self.at_bth_opcode.val().index())) << 4;
        self.opcode_entry.next = self.opcode_table.val().get_bits::<16>(self.opcode_index.val().index());
        // IPv4 header checksum: sum of the 10 header words for each L2 length (14, 18, 22),
        // straight from `header` (in parallel with the VLAN decode); checked in S3.
        for l in 0..3 {
            self.checksum_sum[l].next = 0.into();
            for w in 0..10 {
                self.checksum_word.next = self
                    .header
                    .q
                    .val()
                    .get_bits::<16>((self.checksum_at[l].val() - self.checksum_word_offset[w].val()).index());
                self.checksum_sum[l].next = self.checksum_sum[l].val() + bit_cast::<20, 16>(self.checksum_word.val());
            }
        }

        if self.ce.val() {
            self.valid2.d.next = self.valid1.q.val();
            self.first2.d.next = self.first1.q.val();
            self.final2.d.next = self.final1.q.val();
            if self.valid1.q.val() {
                self.length2.d.next = self.length1.q.val();
                self.eth_dst2.d.next = self.header.q.val().get_bits::<48>(self.at_eth_dst.val().index());
                self.eth_src2.d.next = self.header.q.val().get_bits::<48>(self.at_eth_src.val().index());
                self.vlan_ok2.d.next = self.outer_tag.val();
                self.vlan_id2.d.next = self.header.q.val().get_bits::<12>(self.at_outer_tci.val().index());
                self.ipv6_2.d.next = self.ipv6.val();
                self.opcode_entry2.d.next = self.opcode_entry.val();
                self.opcode2.d.next = self.bth_aligned.val().get_bits::<8>(self.at_bth_opcode.val().index());
                self.bth_flags2.d.next = self.bth_aligned.val().get_bits::<8>(self.at_bth_flags.val().index());
                self.pkey2.d.next = self.bth_aligned.val().get_bits::<16>(self.at_bth_pkey.val().index());
                self.bth_fecn_becn2.d.next = self.bth_aligned.val().get_bits::<8>(self.at_bth_fecn_becn.val().index());
                self.dqpn2.d.next = self.bth_aligned.val().get_bits::<24>(self.at_bth_dqpn.val().index());
                self.ackreq2.d.next = self.bth_aligned.val().get_bit(self.at_bth_ackreq.val().index());
                self.psn2.d.next = self.bth_aligned.val().get_bits::<24>(self.at_bth_psn.val().index());
                self.reth_va2.d.next = self.bth_aligned.val().get_bits::<64>(self.at_reth_va.val().index());
                self.reth_rkey2.d.next = self.bth_aligned.val().get_bits::<32>(self.at_reth_rkey.val().index());
                self.reth_dmalen2.d.next = self.bth_aligned.val().get_bits::<32>(self.at_reth_dmalen.val().index());
                self.aeth_syndrome2.d.next = self.bth_aligned.val().get_bits::<8>(self.at_aeth_syndrome.val().index());
                self.aeth_msn2.d.next = self.bth_aligned.val().get_bits::<24>(self.at_aeth_msn.val().index());
                self.immdt2.d.next = self.bth_aligned.val().get_bits::<32>(self.at_immdt[0].val().index());
                if self.opcode_entry.val().get_bits::<2>(9) == 1 {
                    self.immdt2.d.next = self.bth_aligned.val().get_bits::<32>(self.at_immdt[1].val().index());
                }
                if self.opcode_entry.val().get_bits::<2>(9) == 2 {
                    self.immdt2.d.next = self.bth_aligned.val().get_bits::<32>(self.at_immdt[2].val().index());
                }
                if self.ipv6.val() {
                    self.pass2.d.next = !(self.ip_aligned.val().get_bits::<8>(self.at_v6_next_header.val().index())
                        == self.proto_udp.val()
                        && self.ip_aligned.val().get_bits::<16>(self.at_v6_udp_dport.val().index()) == self.rocev2_port.val()
                        && self.length1.q.val() >= self.l2_length.val() + self.v6_class_len.val());
                    self.ip_length2.d.next = bit_cast::<18, 16>(self.ip_aligned.val().get_bits::<16>(self.at_v6_payload_len.val().index()))
                        + self.v6_header_len.val();
                    self.ip_end2.d.next = bit_cast::<18, 16>(self.ip_aligned.val().get_bits::<16>(self.at_v6_payload_len.val().index()))
                        + self.v6_header_len.val()
                        + self.l2_length.val();
                    self.bth_end2.d.next = self.l2_length.val() + self.v6_bth_end.val();
                    self.bth_in_frame2.d.next = self.length1.q.val() >= self.l2_length.val() + self.v6_bth_end.val();
                    self.version_ok2.d.next =
                        self.ip_aligned.val().get_bits::<4>(self.at_v6_version.val().index()) == self.v6_version.val();
                    self.fragment2.d.next = false;
                    self.udp_length2.d.next = self.ip_aligned.val().get_bits::<16>(self.at_v6_udp_len.val().index());
                    self.ip_src2.d.next = self.ip_aligned.val().get_bits::<128>(self.at_v6_src.val().index());
                    self.ip_dst2.d.next = self.ip_aligned.val().get_bits::<128>(self.at_v6_dst.val().index());
                    self.traffic_class2.d.next = self.ip_aligned.val().get_bits::<8>(self.at_v6_class.val().index());
                    self.ttl2.d.next = self.ip_aligned.val().get_bits::<8>(self.at_v6_hop_limit.val().index());
                    self.udp_sport2.d.next = self.ip_aligned.val().get_bits::<16>(self.at_v6_udp_sport.val().index());
                    self.udp_dport2.d.next = self.ip_aligned.val().get_bits::<16>(self.at_v6_udp_dport.val().index());
                } else {
                    self.pass2.d.next = !(self.ethertype.val() == self.ethertype_ipv4.val()
                        && self.ip_aligned.val().get_bits::<8>(self.at_v4_protocol.val().index()) == self.proto_udp.val()
                        && self.ip_aligned.val().get_bits::<16>(self.at_v4_udp_dport.val().index()) == self.rocev2_port.val()
                        && self.length1.q.val() >= self.l2_length.val() + self.v4_class_len.val());
                    self.ip_length2.d.next = bit_cast::<18, 16>(self.ip_aligned.val().get_bits::<16>(self.at_v4_total_len.val().index()));
                    self.ip_end2.d.next =
                        bit_cast::<18, 16>(self.ip_aligned.val().get_bits::<16>(self.at_v4_total_len.val().index())) + self.l2_length.val();
                    self.bth_end2.d.next = self.l2_length.val() + self.v4_bth_end.val();
                    self.bth_in_frame2.d.next = self.length1.q.val() >= self.l2_length.val() + self.v4_bth_end.val();
                    self.version_ok2.d.next =
                        self.ip_aligned.val().get_bits::<8>(self.at_v4_version_ihl.val().index()) == self.v4_version_ihl.val();
                    self.fragment2.d.next =
                        (self.ip_aligned.val().get_bits::<16>(self.at_v4_flags_fragment.val().index()) & self.v4_fragment_mask.val()) != 0;
                    self.udp_length2.d.next = self.ip_aligned.val().get_bits::<16>(self.at_v4_udp_len.val().index());
                    self.ip_src2.d.next = bit_cast::<128, 32>(self.ip_aligned.val().get_bits::<32>(self.at_v4_src.val().index()));
                    self.ip_dst2.d.next = bit_cast::<128, 32>(self.ip_aligned.val().get_bits::<32>(self.at_v4_dst.val().index()));
                    self.traffic_class2.d.next = self.ip_aligned.val().get_bits::<8>(self.at_v4_tos.val().index());
                    self.ttl2.d.next = self.ip_aligned.val().get_bits::<8>(self.at_v4_ttl.val().index());
                    self.udp_sport2.d.next = self.ip_aligned.val().get_bits::<16>(self.at_v4_udp_sport.val().index());
                    self.udp_dport2.d.next = self.ip_aligned.val().get_bits::<16>(self.at_v4_udp_dport.val().index());
                }
                if self.outer_tag.val() && self.inner_tag.val() {
                    self.checksum_sum2.d.next = self.checksum_sum[2].val();
                } else if self.outer_tag.val() {
                    self.checksum_sum2.d.next = self.checksum_sum[1].val();
                } else {
                    self.checksum_sum2.d.next = self.checksum_sum[0].val();
                }
                if self.outer_tag.val() && self.inner_tag.val() && self.third_tag.val() {
                    self.pass2.d.next = true; // a third VLAN tag
                }
            }
        }

        // ================= S2 -> S3: checks, reason, payload =================
        self.ext_length.next = 0.into();
        if self.bth_in_frame2.q.val() {
            self.ext_length.next = bit_cast::<18, 5>(self.opcode_entry2.q.val().get_bits::<5>(1));
        }
        self.header_end.next = self.bth_end2.q.val() + self.ext_length.val();
        if self.ipv6_2.q.val() {
            self.ip_header_length.next = self.v6_header_len.val();
        } else {
            self.ip_header_length.next = self.v4_header_len.val();
        }
        self.min_ip_length.next = self.ip_header_length.val() + self.transport_min.val() + self.ext_length.val();
        self.pad_count.next = bit_cast::<18, 2>(self.bth_flags2.q.val().get_bits::<2>(self.padcnt_bit.val().index()));
        // the length checks belong to the final record (a first record's length is the capture's)
        self.truncated.next = self.final2.q.val()
            && (self.length2.q.val() < self.ip_end2.q.val() || self.length2.q.val() < self.header_end.val() + self.icrc_len.val());
        self.ip_length_small.next = self.ip_length2.q.val() < self.min_ip_length.val();
        // The folded sum is 0xFFFF iff low + high = 0xFFFF (high <= 9: a second fold never
        // gives 0xFFFF), i.e. low = 0xFFF0 | !high.
        self.checksum_ok.next = self.ipv6_2.q.val()
            || (self.checksum_sum2.q.val().get_bits::<12>(4) == 0xFFF
                && self.checksum_sum2.q.val().get_bits::<4>(0) == !self.checksum_sum2.q.val().get_bits::<4>(16));
        self.excess.next =
            self.final2.q.val() && self.length2.q.val() > self.ip_end2.q.val() && self.length2.q.val() > self.min_frame_len.val();
        self.udp_length_bad.next = bit_cast::<18, 16>(self.udp_length2.q.val()) + self.ip_header_length.val() != self.ip_length2.q.val();
        self.tver_bad.next = self.bth_flags2.q.val().get_bits::<4>(0) != 0;
        self.opcode_bad.next = !self.opcode_entry2.q.val().get_bit(0);
        self.padcnt_bad.next = self.pad_count.val() + self.min_ip_length.val() > self.ip_length2.q.val();
        self.header_fail.next = !self.version_ok2.q.val()
            || self.length2.q.val() < self.header_end.val()
            || self.ip_length_small.val()
            || !self.checksum_ok.val()
            || self.fragment2.q.val()
            || self.udp_length_bad.val()
            || self.tver_bad.val()
            || self.opcode_bad.val()
            || self.padcnt_bad.val();
        // payload end: ip_end - ICRC - PadCnt, cut at the frame end
        self.payload_end.next = self.ip_end2.q.val() - self.icrc_len.val() - self.pad_count.val();
        if self.final2.q.val() && self.length2.q.val() < self.payload_end.val() {
            self.payload_end.next = self.length2.q.val();
        }
        self.immdt_offset.next = 0.into();
        if self.opcode_entry2.q.val().get_bits::<2>(9) == 1 {
            self.immdt_offset.next = 8.into();
        }
        if self.opcode_entry2.q.val().get_bits::<2>(9) == 2 {
            self.immdt_offset.next = 16.into();
        }
        self.ext_headers_ok.next = self.bth_in_frame2.q.val() && self.opcode_entry2.q.val().get_bit(0);

        if self.ce.val() {
            self.valid3.d.next = self.valid2.q.val();
            self.first3.d.next = self.first2.q.val();
            self.final3.d.next = self.final2.q.val();
            if self.valid2.q.val() {
                self.pay_end3.d.next = self.ip_end2.q.val() - self.icrc_len.val() - self.pad_count.val();
                self.pass3.d.next = self.pass2.q.val();
                self.reason3.d.next = 0.into();
                if !self.version_ok2.q.val() {
                    self.reason3.d.next = self.reason_ip_header.val();
                } else if self.truncated.val() {
                    self.reason3.d.next = self.reason_truncated.val();
                } else if self.ip_length_small.val() || self.excess.val() {
                    self.reason3.d.next = self.reason_ip_length.val();
                } else if !self.checksum_ok.val() {
                    self.reason3.d.next = self.reason_ip_checksum.val();
                } else if self.fragment2.q.val() {
                    self.reason3.d.next = self.reason_ip_fragment.val();
                } else if self.udp_length_bad.val() {
                    self.reason3.d.next = self.reason_udp_length.val();
                } else if self.tver_bad.val() {
                    self.reason3.d.next = self.reason_tver.val();
                } else if self.opcode_bad.val() {
                    self.reason3.d.next = self.reason_opcode.val();
                } else if self.padcnt_bad.val() {
                    self.reason3.d.next = self.reason_padcnt.val();
                }
                self.header_fail3.d.next = self.header_fail.val();
                self.icrc_check3.d.next = self.final2.q.val()
                    && self.version_ok2.q.val()
                    && self.ip_length2.q.val() >= self.ip_header_length.val() + self.transport_min.val()
                    && self.length2.q.val() >= self.ip_end2.q.val();
                self.eth_dst3.d.next = self.eth_dst2.q.val();
                self.eth_src3.d.next = self.eth_src2.q.val();
                self.vlan_ok3.d.next = self.vlan_ok2.q.val();
                self.vlan_id3.d.next = self.vlan_id2.q.val();
                self.ipv6_3.d.next = self.ipv6_2.q.val();
                self.ip_src3.d.next = self.ip_src2.q.val();
                self.ip_dst3.d.next = self.ip_dst2.q.val();
                self.traffic_class3.d.next = self.traffic_class2.q.val();
                self.ttl3.d.next = self.ttl2.q.val();
                self.udp_sport3.d.next = self.udp_sport2.q.val();
                self.udp_dport3.d.next = self.udp_dport2.q.val();
                self.bth_in_frame3.d.next = self.bth_in_frame2.q.val();
                self.opcode3.d.next = self.opcode2.q.val();
                self.bth_flags3.d.next = self.bth_flags2.q.val();
                self.pkey3.d.next = self.pkey2.q.val();
                self.bth_fecn_becn3.d.next = self.bth_fecn_becn2.q.val();
                self.dqpn3.d.next = self.dqpn2.q.val();
                self.ackreq3.d.next = self.ackreq2.q.val();
                self.psn3.d.next = self.psn2.q.val();
                self.reth_ok3.d.next = self.ext_headers_ok.val()
                    && self.opcode_entry2.q.val().get_bit(6)
                    && self.length2.q.val() >= self.bth_end2.q.val() + self.reth_len.val();
                self.reth_va3.d.next = self.reth_va2.q.val();
                self.reth_rkey3.d.next = self.reth_rkey2.q.val();
                self.reth_dmalen3.d.next = self.reth_dmalen2.q.val();
                self.immdt_ok3.d.next = self.ext_headers_ok.val()
                    && self.opcode_entry2.q.val().get_bit(8)
                    && self.length2.q.val() >= self.bth_end2.q.val() + self.immdt_offset.val() + self.immdt_len.val();
                self.immdt3.d.next = self.immdt2.q.val();
                self.aeth_ok3.d.next = self.ext_headers_ok.val()
                    && self.opcode_entry2.q.val().get_bit(7)
                    && self.length2.q.val() >= self.bth_end2.q.val() + self.aeth_len.val();
                self.aeth_syndrome3.d.next = self.aeth_syndrome2.q.val();
                self.aeth_msn3.d.next = self.aeth_msn2.q.val();
                self.pay_off3.d.next = bit_cast::<16, 18>(self.header_end.val());
                self.pay_len3.d.next = 0.into();
                if !self.header_fail.val() {
                    self.pay_len3.d.next = bit_cast::<16, 18>(self.payload_end.val() - self.header_end.val());
                }
            }
        }

        if self.reset.val() {
            self.position.d.next = 0.into();
            self.valid1.d.next = false;
            self.valid2.d.next = false;
            self.valid3.d.next = false;
        }

        self.h_valid.next = self.valid3.q.val();
        self.h_first.next = self.first3.q.val();
        self.h_final.next = self.final3.q.val();
        self.h_pay_end.next = self.pay_end3.q.val();
        self.h_pass.next = self.pass3.q.val();
        self.h_reason.next = self.reason3.q.val();
        self.h_hfail.next = self.header_fail3.q.val();
        self.h_icrc_chk.next = self.icrc_check3.q.val();
        self.h_eth_dst.next = self.eth_dst3.q.val();
        self.h_eth_src.next = self.eth_src3.q.val();
        self.h_vlan_ok.next = self.vlan_ok3.q.val();
        self.h_vlan.next = self.vlan_id3.q.val();
        self.h_ip_v6.next = self.ipv6_3.q.val();
        self.h_ip_src.next = self.ip_src3.q.val();
        self.h_ip_dst.next = self.ip_dst3.q.val();
        self.h_ip_dscp.next = self.traffic_class3.q.val().get_bits::<6>(self.dscp_bit.val().index());
        self.h_ip_ecn.next = self.traffic_class3.q.val().get_bits::<2>(0);
        self.h_ip_ttl.next = self.ttl3.q.val();
        self.h_udp_sport.next = self.udp_sport3.q.val();
        self.h_udp_dport.next = self.udp_dport3.q.val();
        self.h_bth_ok.next = self.bth_in_frame3.q.val();
        self.h_bth_opcode.next = self.opcode3.q.val();
        self.h_bth_se.next = self.bth_flags3.q.val().get_bit(self.se_bit.val().index());
        self.h_bth_m.next = self.bth_flags3.q.val().get_bit(self.m_bit.val().index());
        self.h_bth_padcnt.next = self.bth_flags3.q.val().get_bits::<2>(self.padcnt_bit.val().index());
        self.h_bth_tver.next = self.bth_flags3.q.val().get_bits::<4>(0);
        self.h_bth_pkey.next = self.pkey3.q.val();
        self.h_bth_fecn.next = self.bth_fecn_becn3.q.val().get_bit(self.fecn_bit.val().index());
        self.h_bth_becn.next = self.bth_fecn_becn3.q.val().get_bit(self.becn_bit.val().index());
        self.h_bth_dqpn.next = self.dqpn3.q.val();
        self.h_bth_ackreq.next = self.ackreq3.q.val();
        self.h_bth_psn.next = self.psn3.q.val();
        self.h_reth_ok.next = self.reth_ok3.q.val();
        self.h_reth_va.next = self.reth_va3.q.val();
        self.h_reth_rkey.next = self.reth_rkey3.q.val();
        self.h_reth_dmalen.next = self.reth_dmalen3.q.val();
        self.h_immdt_ok.next = self.immdt_ok3.q.val();
        self.h_immdt.next = self.immdt3.q.val();
        self.h_aeth_ok.next = self.aeth_ok3.q.val();
        self.h_aeth_syndrome.next = self.aeth_syndrome3.q.val();
        self.h_aeth_msn.next = self.aeth_msn3.q.val();
        self.h_pay_off.next = self.pay_off3.q.val();
        self.h_pay_len.next = self.pay_len3.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::opcode_info;

    #[test]
    fn opcode_table_counts() {
        // 23 RC + 12 UC + 2 UD + CNP supported; RD and reserved opcodes not.
        let sup = (0..=255u8).filter(|&v| opcode_info(v) & 1 != 0).count();
        assert_eq!(sup, 23 + 12 + 2 + 1);
        assert_eq!(opcode_info(0x40), 0, "RD is not supported");
        assert_eq!((opcode_info(0x0B) >> 1) & 0x1F, 20, "RC WRITE ONLY IMM: RETH + ImmDt");
        assert_eq!((opcode_info(0x2C) & 1), 0, "UC READ is reserved");
    }
}
