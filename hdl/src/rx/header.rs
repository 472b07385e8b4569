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
//! | S0 → S1 | beat byte-reversed and merged into `hdr`: the first [`HB`] frame bytes, frame byte `p` at byte `HB − 1 − p`, so every big-endian field is one contiguous bit range; frame length counted (a partial last beat ORs its byte count into the beat position, a multiple of `K`) |
//! | S1 → S2 | (record beats only) VLAN tags, ethertype, classification; the IP header aligned to the top of the register (3-way mux: `l2` = 14, 18, 22) and the BTH aligned after it (2-way mux: IPv4/IPv6); every field taken at a fixed position; IPv4 header word sums (one per L2 length, in parallel with the VLAN decode); opcode table lookup |
//! | S2 → S3 | IPv4 checksum compare, length checks, drop-reason precedence, payload offset and length, extension header presence; the record registered on the outputs |
//!
//! Records: every frame gets a *final* record (`h_final`), decoded at its last beat. A frame
//! longer than the capture (more than [`RxHeader::NCAP`] beats) also gets a *first* record
//! (`h_first`, not final) decoded at beat `NCAP − 1`, the beat that completes the capture: the
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
pub const HB: usize = 128;
const HBITS: usize = HB * 8;
const _: () = assert!(
    HB >= ethernet::header_len(ethernet::MAX_VLANS) + ipv6::HEADER_LEN + udp::HEADER_LEN + bth::HEADER_LEN + atomic_eth::HEADER_LEN
);

/// Bit position, in a capture register, of the `len`-byte big-endian field at byte `offset` from
/// the register's top (frame byte p of `hdr` sits at byte `HB − 1 − p`).
const fn be_pos(offset: usize, len: usize) -> usize {
    8 * (HB - offset - len)
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
    /// [`RxHeader::NCAP`]` − 1`) or at the last beat if the frame ends earlier. `h_pass`,
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
    ck: Constant<Bits<18>>,
    lane_n: [Constant<Bits<18>>; 128],
    rsh: [Constant<Bits<16>>; 128],
    cap_pos: [Constant<Bits<18>>; 16],
    cap_sh: [Constant<Bits<16>>; 16],
    cap_mask: [Constant<Bits<HBITS>>; 16],
    /// Beat position of the beat that completes the capture (`(NCAP − 1)·K`).
    hpt: Constant<Bits<18>>,
    optab: Constant<Bits<4096>>,

    // ---- field positions in the capture registers (from the header contracts): the Ethernet
    // fields in `hdr` (per VLAN tag count where they move), the IP and UDP fields in `al` (IP
    // header at the top), the BTH and its extension headers in `bt` (BTH at the top) ----
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
    /// header at the top of `al`).
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
    /// The shift that puts the BTH at the top of `bt` (IP and UDP headers).
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
    pos: DFF<Bits<18>>,
    hdr: DFF<Bits<HBITS>>,
    v1: DFF<Bit>,
    f1: DFF<Bit>,
    e1: DFF<Bit>,
    l1: DFF<Bits<18>>,
    tb: Signal<Local, Bits<8>>,
    rb: Signal<Local, Bits<W>>,
    nb: Signal<Local, Bits<18>>,
    kx: Signal<Local, Bits<K>>,
    full: Signal<Local, Bit>,
    posk: Signal<Local, Bits<18>>,
    hn: Signal<Local, Bits<HBITS>>,

    // ---- S1 -> S2 ----
    tp1: Signal<Local, Bits<16>>,
    tp2: Signal<Local, Bits<16>>,
    tp3: Signal<Local, Bits<16>>,
    t1: Signal<Local, Bit>,
    t2: Signal<Local, Bit>,
    t3: Signal<Local, Bit>,
    et: Signal<Local, Bits<16>>,
    v6: Signal<Local, Bit>,
    al: Signal<Local, Bits<HBITS>>, // IP header at the top
    bt: Signal<Local, Bits<HBITS>>, // BTH at the top
    l2v: Signal<Local, Bits<18>>,
    ent: Signal<Local, Bits<16>>,
    opx: Signal<Local, Bits<12>>,
    cs: [Signal<Local, Bits<20>>; 3],
    csw: Signal<Local, Bits<16>>,
    /// Bit position in `hdr` of the first IPv4 header word for L2 = 14, 18, 22 bytes, and of
    /// word w relative to it.
    cs_base: [Constant<Bits<11>>; 3],
    cs_word: [Constant<Bits<11>>; 10],
    v2: DFF<Bit>,
    f2: DFF<Bit>,
    e2: DFF<Bit>,
    pass2: DFF<Bit>,
    len2: DFF<Bits<18>>,
    iplen2: DFF<Bits<18>>,
    ipend2: DFF<Bits<18>>,
    bth12_2: DFF<Bits<18>>,
    bthin2: DFF<Bit>,
    verok2: DFF<Bit>,
    cs2: DFF<Bits<20>>, // IPv4 header word sum (not folded)
    frag2: DFF<Bit>,
    udpl2: DFF<Bits<16>>,
    ent2: DFF<Bits<16>>,
    ethd2: DFF<Bits<48>>,
    eths2: DFF<Bits<48>>,
    vok2: DFF<Bit>,
    vid2: DFF<Bits<12>>,
    v6_2: DFF<Bit>,
    src2: DFF<Bits<128>>,
    dst2: DFF<Bits<128>>,
    tc2: DFF<Bits<8>>,
    ttl2: DFF<Bits<8>>,
    sport2: DFF<Bits<16>>,
    dport2: DFF<Bits<16>>,
    opc2: DFF<Bits<8>>,
    b1_2: DFF<Bits<8>>, // BTH byte 1: SE, M, PadCnt, TVer
    pkey2: DFF<Bits<16>>,
    b4_2: DFF<Bits<8>>, // BTH byte 4: FECN, BECN
    dqpn2: DFF<Bits<24>>,
    ack2: DFF<Bit>,
    psn2: DFF<Bits<24>>,
    va2: DFF<Bits<64>>,
    rkey2: DFF<Bits<32>>,
    dlen2: DFF<Bits<32>>,
    imm2: DFF<Bits<32>>,
    syn2: DFF<Bits<8>>,
    msn2: DFF<Bits<24>>,

    // ---- S2 -> S3 ----
    ext: Signal<Local, Bits<18>>,
    hend: Signal<Local, Bits<18>>,
    miniplen: Signal<Local, Bits<18>>,
    hl: Signal<Local, Bits<18>>,
    pad: Signal<Local, Bits<18>>,
    trunc: Signal<Local, Bit>,
    ipsmall: Signal<Local, Bit>,
    csok: Signal<Local, Bit>,
    excess: Signal<Local, Bit>,
    udpbad: Signal<Local, Bit>,
    tverbad: Signal<Local, Bit>,
    opcbad: Signal<Local, Bit>,
    padbad: Signal<Local, Bit>,
    hfail: Signal<Local, Bit>,
    pend: Signal<Local, Bits<18>>,
    immoff: Signal<Local, Bits<18>>,
    extok: Signal<Local, Bit>,
    ov: DFF<Bit>,
    ofirst: DFF<Bit>,
    ofinal: DFF<Bit>,
    opass: DFF<Bit>,
    oreason: DFF<Bits<4>>,
    ohfail: DFF<Bit>,
    oicrc: DFF<Bit>,
    oethd: DFF<Bits<48>>,
    oeths: DFF<Bits<48>>,
    ovok: DFF<Bit>,
    ovid: DFF<Bits<12>>,
    ov6: DFF<Bit>,
    osrc: DFF<Bits<128>>,
    odst: DFF<Bits<128>>,
    otc: DFF<Bits<8>>,
    ottl: DFF<Bits<8>>,
    osport: DFF<Bits<16>>,
    odport: DFF<Bits<16>>,
    obthok: DFF<Bit>,
    oopc: DFF<Bits<8>>,
    ob1: DFF<Bits<8>>,
    opkey: DFF<Bits<16>>,
    ob4: DFF<Bits<8>>,
    odqpn: DFF<Bits<24>>,
    oack: DFF<Bit>,
    opsn: DFF<Bits<24>>,
    orethok: DFF<Bit>,
    ova: DFF<Bits<64>>,
    orkey: DFF<Bits<32>>,
    odlen: DFF<Bits<32>>,
    oimmok: DFF<Bit>,
    oimm: DFF<Bits<32>>,
    oaethok: DFF<Bit>,
    osyn: DFF<Bits<8>>,
    omsn: DFF<Bits<24>>,
    opoff: DFF<Bits<16>>,
    oplen: DFF<Bits<16>>,
    opend: DFF<Bits<18>>,
}

impl<const W: usize, const K: usize> RxHeader<W, K> {
    /// Beats that carry captured bytes.
    pub const NCAP: usize = HB / K;
    const KM1: usize = K - 1;
    /// Cycles from the cycle that takes the last beat to the cycle `h_valid` is high.
    pub const LATENCY: usize = 3;
}

impl<const W: usize, const K: usize> Default for RxHeader<W, K> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        assert!(K.is_power_of_two() && (8..=128).contains(&K), "bus width 64..1024 bits");
        let ncap = Self::NCAP;
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
            ck: c::<18>(K as u64),
            lane_n: std::array::from_fn(|i| c::<18>(i as u64 + 1)),
            rsh: std::array::from_fn(|i| c::<16>(if i < K { (8 * (K - 1 - i)) as u64 } else { 0 })),
            cap_pos: std::array::from_fn(|j| c::<18>(if j < ncap { (j * K) as u64 } else { 0x3FFFF })),
            cap_sh: std::array::from_fn(|j| c::<16>(if j < ncap { (8 * (HB - (j + 1) * K)) as u64 } else { 0 })),
            cap_mask: std::array::from_fn(|j| {
                // frame bytes j·K .. (j+1)·K sit at register bytes HB-(j+1)·K .. HB-j·K
                Constant::new(bits_from::<HBITS>(|k| j < ncap && k / 8 >= HB - (j + 1) * K && k / 8 < HB - j * K))
            }),
            hpt: c::<18>(((ncap - 1) * K) as u64),
            optab: Constant::new(bits_from::<4096>(|k| (opcode_info((k / 16) as u8) >> (k % 16)) & 1 != 0)),
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
            pos: Default::default(),
            hdr: Default::default(),
            v1: Default::default(),
            f1: Default::default(),
            e1: Default::default(),
            l1: Default::default(),
            tb: Default::default(),
            rb: Default::default(),
            nb: Default::default(),
            kx: Default::default(),
            full: Default::default(),
            posk: Default::default(),
            hn: Default::default(),
            tp1: Default::default(),
            tp2: Default::default(),
            tp3: Default::default(),
            t1: Default::default(),
            t2: Default::default(),
            t3: Default::default(),
            et: Default::default(),
            v6: Default::default(),
            al: Default::default(),
            bt: Default::default(),
            l2v: Default::default(),
            ent: Default::default(),
            opx: Default::default(),
            cs: Default::default(),
            csw: Default::default(),
            cs_base: std::array::from_fn(|tags| c::<11>(be_pos(ethernet::header_len(tags), 2) as u64)),
            cs_word: std::array::from_fn(|w| c::<11>(16 * w as u64)),
            v2: Default::default(),
            f2: Default::default(),
            e2: Default::default(),
            pass2: Default::default(),
            len2: Default::default(),
            iplen2: Default::default(),
            ipend2: Default::default(),
            bth12_2: Default::default(),
            bthin2: Default::default(),
            verok2: Default::default(),
            cs2: Default::default(),
            frag2: Default::default(),
            udpl2: Default::default(),
            ent2: Default::default(),
            ethd2: Default::default(),
            eths2: Default::default(),
            vok2: Default::default(),
            vid2: Default::default(),
            v6_2: Default::default(),
            src2: Default::default(),
            dst2: Default::default(),
            tc2: Default::default(),
            ttl2: Default::default(),
            sport2: Default::default(),
            dport2: Default::default(),
            opc2: Default::default(),
            b1_2: Default::default(),
            pkey2: Default::default(),
            b4_2: Default::default(),
            dqpn2: Default::default(),
            ack2: Default::default(),
            psn2: Default::default(),
            va2: Default::default(),
            rkey2: Default::default(),
            dlen2: Default::default(),
            imm2: Default::default(),
            syn2: Default::default(),
            msn2: Default::default(),
            ext: Default::default(),
            hend: Default::default(),
            miniplen: Default::default(),
            hl: Default::default(),
            pad: Default::default(),
            trunc: Default::default(),
            ipsmall: Default::default(),
            csok: Default::default(),
            excess: Default::default(),
            udpbad: Default::default(),
            tverbad: Default::default(),
            opcbad: Default::default(),
            padbad: Default::default(),
            hfail: Default::default(),
            pend: Default::default(),
            immoff: Default::default(),
            extok: Default::default(),
            ov: Default::default(),
            ofirst: Default::default(),
            ofinal: Default::default(),
            opass: Default::default(),
            oreason: Default::default(),
            ohfail: Default::default(),
            oicrc: Default::default(),
            oethd: Default::default(),
            oeths: Default::default(),
            ovok: Default::default(),
            ovid: Default::default(),
            ov6: Default::default(),
            osrc: Default::default(),
            odst: Default::default(),
            otc: Default::default(),
            ottl: Default::default(),
            osport: Default::default(),
            odport: Default::default(),
            obthok: Default::default(),
            oopc: Default::default(),
            ob1: Default::default(),
            opkey: Default::default(),
            ob4: Default::default(),
            odqpn: Default::default(),
            oack: Default::default(),
            opsn: Default::default(),
            orethok: Default::default(),
            ova: Default::default(),
            orkey: Default::default(),
            odlen: Default::default(),
            oimmok: Default::default(),
            oimm: Default::default(),
            oaethok: Default::default(),
            osyn: Default::default(),
            omsn: Default::default(),
            opoff: Default::default(),
            oplen: Default::default(),
            opend: Default::default(),
        }
    }
}

// Bit positions in `hdr` (frame byte p at bits 8(HB-1-p) .. 8(HB-1-p)+7): a big-endian field of
// n bytes at offset o (from the frame start, or from the IP header in `al`, or from the BTH in
// `bt`) is bits 8(HB-o-n) .. 8(HB-o)-1: the `at_*` constants, computed from the contracts.
impl<const W: usize, const K: usize> Logic for RxHeader<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, pos, hdr, v1, f1, e1, l1, v2, f2, e2, pass2, len2, iplen2, ipend2, bth12_2, bthin2, verok2, cs2, frag2, udpl2,
            ent2, ethd2, eths2, vok2, vid2, v6_2, src2, dst2, tc2, ttl2, sport2, dport2, opc2, b1_2, pkey2, b4_2, dqpn2, ack2, psn2, va2,
            rkey2, dlen2, imm2, syn2, msn2, ov, opass, oreason, ohfail, oicrc, oethd, oeths, ovok, ovid, ov6, osrc, odst, otc, ottl,
            osport, odport, obthok, oopc, ob1, opkey, ob4, odqpn, oack, opsn, orethok, ova, orkey, odlen, oimmok, oimm, oaethok, osyn,
            omsn, opoff, oplen, ofirst, ofinal, opend
        );
        self.s_axis_tready.next = true;

        // ================= S0 -> S1: capture the frame head, count the length =================
        // rb: the beat byte-reversed (lane i at byte K-1-i), bytes beyond tkeep zero.
        // nb: bytes in the beat when not full (the last kept lane + 1, from a one-hot OR).
        self.rb.next = 0.into();
        self.nb.next = 0.into();
        self.kx.next = self.s_axis_tkeep.val() >> 1;
        for i in 0..K {
            self.tb.next = self.s_axis_tdata.val().get_bits::<8>(i * 8);
            if self.s_axis_tkeep.val().get_bit(i) {
                self.rb.next = self.rb.val() | (bit_cast::<W, 8>(self.tb.val()) << self.rsh[i].val());
            }
            if self.s_axis_tkeep.val().get_bit(i) && !self.kx.val().get_bit(i) {
                self.nb.next = self.nb.val() | self.lane_n[i].val();
            }
        }
        self.full.next = false;
        for i in Self::KM1..K {
            self.full.next = self.s_axis_tkeep.val().get_bit(i);
        }
        self.posk.next = self.pos.q.val() + self.ck.val();
        self.hn.next = self.hdr.q.val();
        if self.pos.q.val() == 0 {
            // the first beat clears the bytes of the previous frame
            self.hn.next = bit_cast::<HBITS, W>(self.rb.val()) << self.cap_sh[0].val();
        }
        for j in 1..Self::NCAP {
            if self.pos.q.val() == self.cap_pos[j].val() {
                self.hn.next = (self.hdr.q.val() & !self.cap_mask[j].val()) | (bit_cast::<HBITS, W>(self.rb.val()) << self.cap_sh[j].val());
            }
        }
        if self.ce.val() {
            self.v1.d.next = false;
            if self.s_axis_tvalid.val() {
                self.hdr.d.next = self.hn.val();
                // first record: at the beat that completes the capture, or at the last beat
                // if the frame ends earlier; final record: at the last beat
                self.f1.d.next = self.pos.q.val() <= self.hpt.val();
                self.e1.d.next = self.s_axis_tlast.val();
                if self.s_axis_tlast.val() {
                    self.pos.d.next = 0.into();
                    self.v1.d.next = true;
                    // pos is a multiple of K: a partial beat adds without a carry
                    if self.full.val() {
                        self.l1.d.next = self.posk.val();
                    } else {
                        self.l1.d.next = self.pos.q.val() | self.nb.val();
                    }
                } else {
                    if self.pos.q.val() == self.hpt.val() {
                        self.v1.d.next = true;
                        self.l1.d.next = self.posk.val();
                    }
                    if !self.pos.q.val().get_bit(17) {
                        // saturates past 128 KiB (longer than any IP packet can end)
                        self.pos.d.next = self.posk.val();
                    }
                }
            }
        }

        // ================= S1 -> S2: classify, align, extract =================
        self.tp1.next = self.hdr.q.val().get_bits::<16>(self.at_ethertype[0].val().index());
        self.tp2.next = self.hdr.q.val().get_bits::<16>(self.at_ethertype[1].val().index());
        self.tp3.next = self.hdr.q.val().get_bits::<16>(self.at_ethertype[2].val().index());
        self.t1.next = self.tp1.val() == self.tpid_8021q.val() || self.tp1.val() == self.tpid_8021ad.val();
        self.t2.next = self.tp2.val() == self.tpid_8021q.val() || self.tp2.val() == self.tpid_8021ad.val();
        self.t3.next = self.tp3.val() == self.tpid_8021q.val() || self.tp3.val() == self.tpid_8021ad.val();
        if self.t1.val() && self.t2.val() {
            self.et.next = self.tp3.val();
            self.l2v.next = self.l2_len[2].val();
            self.al.next = self.hdr.q.val() << self.l2_shift[2].val();
        } else if self.t1.val() {
            self.et.next = self.tp2.val();
            self.l2v.next = self.l2_len[1].val();
            self.al.next = self.hdr.q.val() << self.l2_shift[1].val();
        } else {
            self.et.next = self.tp1.val();
            self.l2v.next = self.l2_len[0].val();
            self.al.next = self.hdr.q.val() << self.l2_shift[0].val();
        }
        self.v6.next = self.et.val() == self.ethertype_ipv6.val();
        if self.v6.val() {
            self.bt.next = self.al.val() << self.v6_bth_shift.val();
        } else {
            self.bt.next = self.al.val() << self.v4_bth_shift.val();
        }
        self.opx.next = bit_cast::<12, 8>(self.bt.val().get_bits::<8>(self.at_bth_opcode.val().index())) << 4;
        self.ent.next = self.optab.val().get_bits::<16>(self.opx.val().index());
        // IPv4 header checksum: sum of the 10 header words for each L2 length (14, 18, 22),
        // straight from `hdr` (in parallel with the VLAN decode); checked in S3.
        for l in 0..3 {
            self.cs[l].next = 0.into();
            for w in 0..10 {
                self.csw.next = self
                    .hdr
                    .q
                    .val()
                    .get_bits::<16>((self.cs_base[l].val() - self.cs_word[w].val()).index());
                self.cs[l].next = self.cs[l].val() + bit_cast::<20, 16>(self.csw.val());
            }
        }

        if self.ce.val() {
            self.v2.d.next = self.v1.q.val();
            self.f2.d.next = self.f1.q.val();
            self.e2.d.next = self.e1.q.val();
            if self.v1.q.val() {
                self.len2.d.next = self.l1.q.val();
                self.ethd2.d.next = self.hdr.q.val().get_bits::<48>(self.at_eth_dst.val().index());
                self.eths2.d.next = self.hdr.q.val().get_bits::<48>(self.at_eth_src.val().index());
                self.vok2.d.next = self.t1.val();
                self.vid2.d.next = self.hdr.q.val().get_bits::<12>(self.at_outer_tci.val().index());
                self.v6_2.d.next = self.v6.val();
                self.ent2.d.next = self.ent.val();
                self.opc2.d.next = self.bt.val().get_bits::<8>(self.at_bth_opcode.val().index());
                self.b1_2.d.next = self.bt.val().get_bits::<8>(self.at_bth_flags.val().index());
                self.pkey2.d.next = self.bt.val().get_bits::<16>(self.at_bth_pkey.val().index());
                self.b4_2.d.next = self.bt.val().get_bits::<8>(self.at_bth_fecn_becn.val().index());
                self.dqpn2.d.next = self.bt.val().get_bits::<24>(self.at_bth_dqpn.val().index());
                self.ack2.d.next = self.bt.val().get_bit(self.at_bth_ackreq.val().index());
                self.psn2.d.next = self.bt.val().get_bits::<24>(self.at_bth_psn.val().index());
                self.va2.d.next = self.bt.val().get_bits::<64>(self.at_reth_va.val().index());
                self.rkey2.d.next = self.bt.val().get_bits::<32>(self.at_reth_rkey.val().index());
                self.dlen2.d.next = self.bt.val().get_bits::<32>(self.at_reth_dmalen.val().index());
                self.syn2.d.next = self.bt.val().get_bits::<8>(self.at_aeth_syndrome.val().index());
                self.msn2.d.next = self.bt.val().get_bits::<24>(self.at_aeth_msn.val().index());
                self.imm2.d.next = self.bt.val().get_bits::<32>(self.at_immdt[0].val().index());
                if self.ent.val().get_bits::<2>(9) == 1 {
                    self.imm2.d.next = self.bt.val().get_bits::<32>(self.at_immdt[1].val().index());
                }
                if self.ent.val().get_bits::<2>(9) == 2 {
                    self.imm2.d.next = self.bt.val().get_bits::<32>(self.at_immdt[2].val().index());
                }
                if self.v6.val() {
                    self.pass2.d.next = !(self.al.val().get_bits::<8>(self.at_v6_next_header.val().index()) == self.proto_udp.val()
                        && self.al.val().get_bits::<16>(self.at_v6_udp_dport.val().index()) == self.rocev2_port.val()
                        && self.l1.q.val() >= self.l2v.val() + self.v6_class_len.val());
                    self.iplen2.d.next =
                        bit_cast::<18, 16>(self.al.val().get_bits::<16>(self.at_v6_payload_len.val().index())) + self.v6_header_len.val();
                    self.ipend2.d.next = bit_cast::<18, 16>(self.al.val().get_bits::<16>(self.at_v6_payload_len.val().index()))
                        + self.v6_header_len.val()
                        + self.l2v.val();
                    self.bth12_2.d.next = self.l2v.val() + self.v6_bth_end.val();
                    self.bthin2.d.next = self.l1.q.val() >= self.l2v.val() + self.v6_bth_end.val();
                    self.verok2.d.next = self.al.val().get_bits::<4>(self.at_v6_version.val().index()) == self.v6_version.val();
                    self.frag2.d.next = false;
                    self.udpl2.d.next = self.al.val().get_bits::<16>(self.at_v6_udp_len.val().index());
                    self.src2.d.next = self.al.val().get_bits::<128>(self.at_v6_src.val().index());
                    self.dst2.d.next = self.al.val().get_bits::<128>(self.at_v6_dst.val().index());
                    self.tc2.d.next = self.al.val().get_bits::<8>(self.at_v6_class.val().index());
                    self.ttl2.d.next = self.al.val().get_bits::<8>(self.at_v6_hop_limit.val().index());
                    self.sport2.d.next = self.al.val().get_bits::<16>(self.at_v6_udp_sport.val().index());
                    self.dport2.d.next = self.al.val().get_bits::<16>(self.at_v6_udp_dport.val().index());
                } else {
                    self.pass2.d.next = !(self.et.val() == self.ethertype_ipv4.val()
                        && self.al.val().get_bits::<8>(self.at_v4_protocol.val().index()) == self.proto_udp.val()
                        && self.al.val().get_bits::<16>(self.at_v4_udp_dport.val().index()) == self.rocev2_port.val()
                        && self.l1.q.val() >= self.l2v.val() + self.v4_class_len.val());
                    self.iplen2.d.next = bit_cast::<18, 16>(self.al.val().get_bits::<16>(self.at_v4_total_len.val().index()));
                    self.ipend2.d.next =
                        bit_cast::<18, 16>(self.al.val().get_bits::<16>(self.at_v4_total_len.val().index())) + self.l2v.val();
                    self.bth12_2.d.next = self.l2v.val() + self.v4_bth_end.val();
                    self.bthin2.d.next = self.l1.q.val() >= self.l2v.val() + self.v4_bth_end.val();
                    self.verok2.d.next = self.al.val().get_bits::<8>(self.at_v4_version_ihl.val().index()) == self.v4_version_ihl.val();
                    self.frag2.d.next =
                        (self.al.val().get_bits::<16>(self.at_v4_flags_fragment.val().index()) & self.v4_fragment_mask.val()) != 0;
                    self.udpl2.d.next = self.al.val().get_bits::<16>(self.at_v4_udp_len.val().index());
                    self.src2.d.next = bit_cast::<128, 32>(self.al.val().get_bits::<32>(self.at_v4_src.val().index()));
                    self.dst2.d.next = bit_cast::<128, 32>(self.al.val().get_bits::<32>(self.at_v4_dst.val().index()));
                    self.tc2.d.next = self.al.val().get_bits::<8>(self.at_v4_tos.val().index());
                    self.ttl2.d.next = self.al.val().get_bits::<8>(self.at_v4_ttl.val().index());
                    self.sport2.d.next = self.al.val().get_bits::<16>(self.at_v4_udp_sport.val().index());
                    self.dport2.d.next = self.al.val().get_bits::<16>(self.at_v4_udp_dport.val().index());
                }
                if self.t1.val() && self.t2.val() {
                    self.cs2.d.next = self.cs[2].val();
                } else if self.t1.val() {
                    self.cs2.d.next = self.cs[1].val();
                } else {
                    self.cs2.d.next = self.cs[0].val();
                }
                if self.t1.val() && self.t2.val() && self.t3.val() {
                    self.pass2.d.next = true; // a third VLAN tag
                }
            }
        }

        // ================= S2 -> S3: checks, reason, payload =================
        self.ext.next = 0.into();
        if self.bthin2.q.val() {
            self.ext.next = bit_cast::<18, 5>(self.ent2.q.val().get_bits::<5>(1));
        }
        self.hend.next = self.bth12_2.q.val() + self.ext.val();
        if self.v6_2.q.val() {
            self.hl.next = self.v6_header_len.val();
        } else {
            self.hl.next = self.v4_header_len.val();
        }
        self.miniplen.next = self.hl.val() + self.transport_min.val() + self.ext.val();
        self.pad.next = bit_cast::<18, 2>(self.b1_2.q.val().get_bits::<2>(self.padcnt_bit.val().index()));
        // the length checks belong to the final record (a first record's length is the capture's)
        self.trunc.next =
            self.e2.q.val() && (self.len2.q.val() < self.ipend2.q.val() || self.len2.q.val() < self.hend.val() + self.icrc_len.val());
        self.ipsmall.next = self.iplen2.q.val() < self.miniplen.val();
        // The folded sum is 0xFFFF iff low + high = 0xFFFF (high <= 9: a second fold never
        // gives 0xFFFF), i.e. low = 0xFFF0 | !high.
        self.csok.next = self.v6_2.q.val()
            || (self.cs2.q.val().get_bits::<12>(4) == 0xFFF && self.cs2.q.val().get_bits::<4>(0) == !self.cs2.q.val().get_bits::<4>(16));
        self.excess.next = self.e2.q.val() && self.len2.q.val() > self.ipend2.q.val() && self.len2.q.val() > self.min_frame_len.val();
        self.udpbad.next = bit_cast::<18, 16>(self.udpl2.q.val()) + self.hl.val() != self.iplen2.q.val();
        self.tverbad.next = self.b1_2.q.val().get_bits::<4>(0) != 0;
        self.opcbad.next = !self.ent2.q.val().get_bit(0);
        self.padbad.next = self.pad.val() + self.miniplen.val() > self.iplen2.q.val();
        self.hfail.next = !self.verok2.q.val()
            || self.len2.q.val() < self.hend.val()
            || self.ipsmall.val()
            || !self.csok.val()
            || self.frag2.q.val()
            || self.udpbad.val()
            || self.tverbad.val()
            || self.opcbad.val()
            || self.padbad.val();
        // payload end: ip_end - ICRC - PadCnt, cut at the frame end
        self.pend.next = self.ipend2.q.val() - self.icrc_len.val() - self.pad.val();
        if self.e2.q.val() && self.len2.q.val() < self.pend.val() {
            self.pend.next = self.len2.q.val();
        }
        self.immoff.next = 0.into();
        if self.ent2.q.val().get_bits::<2>(9) == 1 {
            self.immoff.next = 8.into();
        }
        if self.ent2.q.val().get_bits::<2>(9) == 2 {
            self.immoff.next = 16.into();
        }
        self.extok.next = self.bthin2.q.val() && self.ent2.q.val().get_bit(0);

        if self.ce.val() {
            self.ov.d.next = self.v2.q.val();
            self.ofirst.d.next = self.f2.q.val();
            self.ofinal.d.next = self.e2.q.val();
            if self.v2.q.val() {
                self.opend.d.next = self.ipend2.q.val() - self.icrc_len.val() - self.pad.val();
                self.opass.d.next = self.pass2.q.val();
                self.oreason.d.next = 0.into();
                if !self.verok2.q.val() {
                    self.oreason.d.next = self.reason_ip_header.val();
                } else if self.trunc.val() {
                    self.oreason.d.next = self.reason_truncated.val();
                } else if self.ipsmall.val() || self.excess.val() {
                    self.oreason.d.next = self.reason_ip_length.val();
                } else if !self.csok.val() {
                    self.oreason.d.next = self.reason_ip_checksum.val();
                } else if self.frag2.q.val() {
                    self.oreason.d.next = self.reason_ip_fragment.val();
                } else if self.udpbad.val() {
                    self.oreason.d.next = self.reason_udp_length.val();
                } else if self.tverbad.val() {
                    self.oreason.d.next = self.reason_tver.val();
                } else if self.opcbad.val() {
                    self.oreason.d.next = self.reason_opcode.val();
                } else if self.padbad.val() {
                    self.oreason.d.next = self.reason_padcnt.val();
                }
                self.ohfail.d.next = self.hfail.val();
                self.oicrc.d.next = self.e2.q.val()
                    && self.verok2.q.val()
                    && self.iplen2.q.val() >= self.hl.val() + self.transport_min.val()
                    && self.len2.q.val() >= self.ipend2.q.val();
                self.oethd.d.next = self.ethd2.q.val();
                self.oeths.d.next = self.eths2.q.val();
                self.ovok.d.next = self.vok2.q.val();
                self.ovid.d.next = self.vid2.q.val();
                self.ov6.d.next = self.v6_2.q.val();
                self.osrc.d.next = self.src2.q.val();
                self.odst.d.next = self.dst2.q.val();
                self.otc.d.next = self.tc2.q.val();
                self.ottl.d.next = self.ttl2.q.val();
                self.osport.d.next = self.sport2.q.val();
                self.odport.d.next = self.dport2.q.val();
                self.obthok.d.next = self.bthin2.q.val();
                self.oopc.d.next = self.opc2.q.val();
                self.ob1.d.next = self.b1_2.q.val();
                self.opkey.d.next = self.pkey2.q.val();
                self.ob4.d.next = self.b4_2.q.val();
                self.odqpn.d.next = self.dqpn2.q.val();
                self.oack.d.next = self.ack2.q.val();
                self.opsn.d.next = self.psn2.q.val();
                self.orethok.d.next =
                    self.extok.val() && self.ent2.q.val().get_bit(6) && self.len2.q.val() >= self.bth12_2.q.val() + self.reth_len.val();
                self.ova.d.next = self.va2.q.val();
                self.orkey.d.next = self.rkey2.q.val();
                self.odlen.d.next = self.dlen2.q.val();
                self.oimmok.d.next = self.extok.val()
                    && self.ent2.q.val().get_bit(8)
                    && self.len2.q.val() >= self.bth12_2.q.val() + self.immoff.val() + self.immdt_len.val();
                self.oimm.d.next = self.imm2.q.val();
                self.oaethok.d.next =
                    self.extok.val() && self.ent2.q.val().get_bit(7) && self.len2.q.val() >= self.bth12_2.q.val() + self.aeth_len.val();
                self.osyn.d.next = self.syn2.q.val();
                self.omsn.d.next = self.msn2.q.val();
                self.opoff.d.next = bit_cast::<16, 18>(self.hend.val());
                self.oplen.d.next = 0.into();
                if !self.hfail.val() {
                    self.oplen.d.next = bit_cast::<16, 18>(self.pend.val() - self.hend.val());
                }
            }
        }

        if self.reset.val() {
            self.pos.d.next = 0.into();
            self.v1.d.next = false;
            self.v2.d.next = false;
            self.ov.d.next = false;
        }

        self.h_valid.next = self.ov.q.val();
        self.h_first.next = self.ofirst.q.val();
        self.h_final.next = self.ofinal.q.val();
        self.h_pay_end.next = self.opend.q.val();
        self.h_pass.next = self.opass.q.val();
        self.h_reason.next = self.oreason.q.val();
        self.h_hfail.next = self.ohfail.q.val();
        self.h_icrc_chk.next = self.oicrc.q.val();
        self.h_eth_dst.next = self.oethd.q.val();
        self.h_eth_src.next = self.oeths.q.val();
        self.h_vlan_ok.next = self.ovok.q.val();
        self.h_vlan.next = self.ovid.q.val();
        self.h_ip_v6.next = self.ov6.q.val();
        self.h_ip_src.next = self.osrc.q.val();
        self.h_ip_dst.next = self.odst.q.val();
        self.h_ip_dscp.next = self.otc.q.val().get_bits::<6>(self.dscp_bit.val().index());
        self.h_ip_ecn.next = self.otc.q.val().get_bits::<2>(0);
        self.h_ip_ttl.next = self.ottl.q.val();
        self.h_udp_sport.next = self.osport.q.val();
        self.h_udp_dport.next = self.odport.q.val();
        self.h_bth_ok.next = self.obthok.q.val();
        self.h_bth_opcode.next = self.oopc.q.val();
        self.h_bth_se.next = self.ob1.q.val().get_bit(self.se_bit.val().index());
        self.h_bth_m.next = self.ob1.q.val().get_bit(self.m_bit.val().index());
        self.h_bth_padcnt.next = self.ob1.q.val().get_bits::<2>(self.padcnt_bit.val().index());
        self.h_bth_tver.next = self.ob1.q.val().get_bits::<4>(0);
        self.h_bth_pkey.next = self.opkey.q.val();
        self.h_bth_fecn.next = self.ob4.q.val().get_bit(self.fecn_bit.val().index());
        self.h_bth_becn.next = self.ob4.q.val().get_bit(self.becn_bit.val().index());
        self.h_bth_dqpn.next = self.odqpn.q.val();
        self.h_bth_ackreq.next = self.oack.q.val();
        self.h_bth_psn.next = self.opsn.q.val();
        self.h_reth_ok.next = self.orethok.q.val();
        self.h_reth_va.next = self.ova.q.val();
        self.h_reth_rkey.next = self.orkey.q.val();
        self.h_reth_dmalen.next = self.odlen.q.val();
        self.h_immdt_ok.next = self.oimmok.q.val();
        self.h_immdt.next = self.oimm.q.val();
        self.h_aeth_ok.next = self.oaethok.q.val();
        self.h_aeth_syndrome.next = self.osyn.q.val();
        self.h_aeth_msn.next = self.omsn.q.val();
        self.h_pay_off.next = self.opoff.q.val();
        self.h_pay_len.next = self.oplen.q.val();
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
