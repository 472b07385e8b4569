//! RX front end (issue 3): [`RxFront`], the MAC-side receive path of Ferroce.
//!
//! Ethernet frames in (AXI-Stream, no FCS, `tkeep` contiguous from lane 0); out:
//! - **records** (`r_valid`/`r_ready`): per RoCEv2 frame (accepted or dropped), in frame order,
//!   a final record (`r_final`) with the verdict, the drop reason and every field of
//!   `ferroce-sim rx`'s JSON; a frame longer than the 128-byte header capture gets a header
//!   record before it, 3 cycles after the capture completes (see `r_final`);
//! - **payload** (`m_pay_*`): per record with `r_pay_len > 0`, exactly that many bytes, realigned
//!   to byte 0 (full beats but the last), without pad and ICRC; `m_pay_tuser` is 1 on the last
//!   beat of a packet that is dropped (`r_drop`), so downstream never commits it;
//! - **pass-through** (`m_pass_*`): frames that are not RoCEv2, beat for beat, untouched;
//! - **counters** (`cnt_*`): frames in, accepted, passed and drops per reason.
//!
//! The semantics are those of the software model `ferroce_models::rx::rx_model` (docs/rx.md).
//!
//! ```text
//!  s_axis ─► IcrcCheck ─┬─► RxHeader ──┬─ first record ─► early FIFO (plan) ─┐
//!           (verdict on │  (ce = hce)  ├─ final record ─► verdict FIFO ──────┤
//!            last beat) │              └─► records (r_*)                     │
//!                       └─► data FIFO (D beats) ──────────────────► realigner ─┬─► payload queue ─► m_pay
//!                                                                              └─► pass register ─► m_pass
//! ```
//!
//! - `IcrcCheck` (8 cycles) puts the ICRC verdict on each frame's last beat.
//! - `RxHeader` decodes every frame twice: a first record when its header capture completes
//!   (`NCAP − 1` beats in; the last beat for shorter frames), which fixes the classification,
//!   the header checks and the payload region; and a final record at its last beat, which adds
//!   what depends on the frame length. Both go out on `r_*` (the first one only when it is not
//!   also the final one, as `r_final` = 0); the final one carries the ICRC verdict, brought
//!   along `RxHeader`'s three stages. `RxHeader` holds a record (and stops) while `r_ready` is
//!   low; the record enters the FIFOs below in the cycle it first appears.
//! - When a first record enters the early FIFO, the frame's payload is planned in beats: the
//!   beat where it starts, its offset `r` in that beat, the beat where it ends, and the size of
//!   the final output beat, so the realigner compares beat indices instead of byte offsets.
//! - Beats wait in the data FIFO until their frame's first record is in the early FIFO; the
//!   realigner then forwards a pass frame to `m_pass`, or cuts the payload out of a RoCEv2 frame
//!   with a funnel shift (`prev >> 8r | cur << 8(K − r)`, `r` = payload offset mod K). A payload
//!   that ends before its frame does is held in one register until the frame's verdict is in the
//!   verdict FIFO, so the drop mark lands on its last beat; the rest of the frame keeps flowing
//!   meanwhile (no deadlock on frames with trailing bytes).
//! - The data FIFO holds `NCAP + 5` beats: the realigner runs `NCAP + 3` beats behind the
//!   input, which is exactly when each first record arrives, so back-to-back frames of every
//!   size flow at one beat per cycle. The early and verdict FIFOs hold `D + 2` entries, more than
//!   the frames that can be between the input and the realigner, so they never fill.
//! - A payload beat that completes one output beat and starts the final one (the payload's
//!   last bytes and the frame's end in one input beat) pushes two beats into the 3-entry payload
//!   queue; the next frame's first payload beat pushes none, so the queue never runs away.

use super::header::{self, RxHeader};
use super::icrc_check::IcrcCheck;
use crate::common::elab::c;
use ferroce_contracts::rx::{DropReason, IcrcVerdictCode};
use num_bigint::BigUint;
use rust_hdl::prelude::*;

/// Data FIFO depth for `K` bytes per beat: the realigner's lag (`NCAP + 3`) plus two.
pub const fn data_depth(k: usize) -> usize {
    header::HB / k + 5
}

/// RX front end; see the module docs. `W` bus width (64..1024), `K = W / 8`, `D` data FIFO
/// depth ([`data_depth`]), `E = D + 2` record FIFO depth.
#[derive(LogicBlock)]
pub struct RxFront<const W: usize, const K: usize, const D: usize, const E: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: drops every frame in flight and clears the counters.
    pub reset: Signal<In, Bit>,
    /// Input stream (frames from the MAC, no FCS): valid.
    pub s_axis_tvalid: Signal<In, Bit>,
    /// Input stream: ready (low only when an output is back-pressured).
    pub s_axis_tready: Signal<Out, Bit>,
    /// Input stream: data (frame byte 0 of a beat in bits 7:0).
    pub s_axis_tdata: Signal<In, Bits<W>>,
    /// Input stream: byte enables (contiguous from lane 0).
    pub s_axis_tkeep: Signal<In, Bits<K>>,
    /// Input stream: last beat of a frame.
    pub s_axis_tlast: Signal<In, Bit>,
    /// Payload stream: valid.
    pub m_pay_tvalid: Signal<Out, Bit>,
    /// Payload stream: ready.
    pub m_pay_tready: Signal<In, Bit>,
    /// Payload stream: data (realigned to byte 0).
    pub m_pay_tdata: Signal<Out, Bits<W>>,
    /// Payload stream: byte enables (full beats but a payload's last).
    pub m_pay_tkeep: Signal<Out, Bits<K>>,
    /// Payload stream: last beat of a packet's payload.
    pub m_pay_tlast: Signal<Out, Bit>,
    /// 1 on the last beat of a dropped packet's payload.
    pub m_pay_tuser: Signal<Out, Bit>,
    /// Pass-through stream (frames that are not RoCEv2): valid.
    pub m_pass_tvalid: Signal<Out, Bit>,
    /// Pass-through stream: ready.
    pub m_pass_tready: Signal<In, Bit>,
    /// Pass-through stream: data.
    pub m_pass_tdata: Signal<Out, Bits<W>>,
    /// Pass-through stream: byte enables.
    pub m_pass_tkeep: Signal<Out, Bits<K>>,
    /// Pass-through stream: last beat of a frame.
    pub m_pass_tlast: Signal<Out, Bit>,
    /// Record stream: valid (a record is on `r_*`).
    pub r_valid: Signal<Out, Bit>,
    /// Record stream: ready.
    pub r_ready: Signal<In, Bit>,
    /// The final record of the packet. A packet longer than the header capture (128 bytes)
    /// first gets a header record (`r_final` = 0) 3 cycles after the beat that completes the
    /// capture: every header field is final in it, `r_drop`/`r_reason` reflect the header checks
    /// only, `r_icrc_chk` is 0 and `r_pay_len` is the payload length its headers announce. The
    /// final record (`r_final` = 1) follows at the end of the frame and is authoritative. Take
    /// a header record without waiting for the payload it announces: while it waits, the
    /// decoder and the input stop.
    pub r_final: Signal<Out, Bit>,
    /// The packet is dropped (`r_reason` says why), else accepted.
    pub r_drop: Signal<Out, Bit>,
    /// Drop reason: position in `DropReason::ALL` + 1 (`ip_header` 1 … `icrc` 10), 0 if none.
    pub r_reason: Signal<Out, Bits<4>>,
    /// `icrc_ok` is not null; `r_icrc_ok` is its value.
    pub r_icrc_chk: Signal<Out, Bit>,
    /// The ICRC verifies (meaningful when `r_icrc_chk`; record field `icrc_ok`).
    pub r_icrc_ok: Signal<Out, Bit>,
    /// Ethernet destination MAC (record field `eth_dst`).
    pub r_eth_dst: Signal<Out, Bits<48>>,
    /// Ethernet source MAC (record field `eth_src`).
    pub r_eth_src: Signal<Out, Bits<48>>,
    /// An outer VLAN tag is present (record field `vlan_ok`).
    pub r_vlan_ok: Signal<Out, Bit>,
    /// VID of the outer VLAN tag (record field `vlan`).
    pub r_vlan: Signal<Out, Bits<12>>,
    /// IP version 6 (ethertype 0x86DD), else 4 (record field `ip_v6`).
    pub r_ip_v6: Signal<Out, Bit>,
    /// IP source address (IPv4 in the low 32 bits; record field `ip_src`).
    pub r_ip_src: Signal<Out, Bits<128>>,
    /// IP destination address (IPv4 in the low 32 bits; record field `ip_dst`).
    pub r_ip_dst: Signal<Out, Bits<128>>,
    /// DSCP (record field `ip_dscp`).
    pub r_ip_dscp: Signal<Out, Bits<6>>,
    /// ECN (record field `ip_ecn`).
    pub r_ip_ecn: Signal<Out, Bits<2>>,
    /// IPv4 TTL or IPv6 hop limit (record field `ip_ttl`).
    pub r_ip_ttl: Signal<Out, Bits<8>>,
    /// UDP source port (flow entropy; record field `udp_sport`).
    pub r_udp_sport: Signal<Out, Bits<16>>,
    /// UDP destination port (4791; record field `udp_dport`).
    pub r_udp_dport: Signal<Out, Bits<16>>,
    /// The 12 BTH bytes are in the frame (`r_bth_*` are meaningful; record field `bth_ok`).
    pub r_bth_ok: Signal<Out, Bit>,
    /// BTH opcode (raw; record field `bth_opcode`).
    pub r_bth_opcode: Signal<Out, Bits<8>>,
    /// Solicited event (record field `bth_se`).
    pub r_bth_se: Signal<Out, Bit>,
    /// MigReq (record field `bth_m`).
    pub r_bth_m: Signal<Out, Bit>,
    /// Pad count (record field `bth_padcnt`).
    pub r_bth_padcnt: Signal<Out, Bits<2>>,
    /// Transport header version (record field `bth_tver`).
    pub r_bth_tver: Signal<Out, Bits<4>>,
    /// Partition key (record field `bth_pkey`).
    pub r_bth_pkey: Signal<Out, Bits<16>>,
    /// FECN (record field `bth_fecn`).
    pub r_bth_fecn: Signal<Out, Bit>,
    /// BECN (record field `bth_becn`).
    pub r_bth_becn: Signal<Out, Bit>,
    /// Destination QP (record field `bth_dqpn`).
    pub r_bth_dqpn: Signal<Out, Bits<24>>,
    /// AckReq (record field `bth_ackreq`).
    pub r_bth_ackreq: Signal<Out, Bit>,
    /// Packet sequence number (record field `bth_psn`).
    pub r_bth_psn: Signal<Out, Bits<24>>,
    /// The opcode carries a RETH and its 16 bytes are in the frame (record field `reth_ok`).
    pub r_reth_ok: Signal<Out, Bit>,
    /// RETH virtual address (record field `reth_va`).
    pub r_reth_va: Signal<Out, Bits<64>>,
    /// RETH remote key (record field `reth_rkey`).
    pub r_reth_rkey: Signal<Out, Bits<32>>,
    /// RETH DMA length (record field `reth_dmalen`).
    pub r_reth_dmalen: Signal<Out, Bits<32>>,
    /// The opcode carries an ImmDt and its 4 bytes are in the frame (record field `immdt_ok`).
    pub r_immdt_ok: Signal<Out, Bit>,
    /// Immediate data (record field `immdt`).
    pub r_immdt: Signal<Out, Bits<32>>,
    /// The opcode carries an AETH and its 4 bytes are in the frame (record field `aeth_ok`).
    pub r_aeth_ok: Signal<Out, Bit>,
    /// AETH syndrome (record field `aeth_syndrome`).
    pub r_aeth_syndrome: Signal<Out, Bits<8>>,
    /// AETH message sequence number (record field `aeth_msn`).
    pub r_aeth_msn: Signal<Out, Bits<24>>,
    /// Payload bytes on `m_pay` for this packet.
    pub r_pay_len: Signal<Out, Bits<16>>,
    /// Counter: frames in (`cnt_accepted` + `cnt_passed` + the drops).
    pub cnt_frames_in: Signal<Out, Bits<32>>,
    /// Counter: RoCEv2 frames accepted.
    pub cnt_accepted: Signal<Out, Bits<32>>,
    /// Counter: frames passed through (not RoCEv2).
    pub cnt_passed: Signal<Out, Bits<32>>,
    /// Counter: RoCEv2 frames dropped as `ip_header` (IPv4 version ≠ 4 or IHL ≠ 5; IPv6 version ≠ 6).
    pub cnt_drop_ip_header: Signal<Out, Bits<32>>,
    /// Counter: RoCEv2 frames dropped as `truncated` (the frame ends before its headers or lengths say).
    pub cnt_drop_truncated: Signal<Out, Bits<32>>,
    /// Counter: RoCEv2 frames dropped as `ip_length` (IP length too small, or bytes beyond the IP packet and MAC padding).
    pub cnt_drop_ip_length: Signal<Out, Bits<32>>,
    /// Counter: RoCEv2 frames dropped as `ip_checksum` (the IPv4 header checksum is wrong).
    pub cnt_drop_ip_checksum: Signal<Out, Bits<32>>,
    /// Counter: RoCEv2 frames dropped as `ip_fragment` (IPv4 MF set or fragment offset ≠ 0).
    pub cnt_drop_ip_fragment: Signal<Out, Bits<32>>,
    /// Counter: RoCEv2 frames dropped as `udp_length` (the UDP length disagrees with the IP length).
    pub cnt_drop_udp_length: Signal<Out, Bits<32>>,
    /// Counter: RoCEv2 frames dropped as `tver` (BTH TVer ≠ 0).
    pub cnt_drop_tver: Signal<Out, Bits<32>>,
    /// Counter: RoCEv2 frames dropped as `opcode` (a reserved opcode, or RD).
    pub cnt_drop_opcode: Signal<Out, Bits<32>>,
    /// Counter: RoCEv2 frames dropped as `padcnt` (PadCnt larger than the payload).
    pub cnt_drop_padcnt: Signal<Out, Bits<32>>,
    /// Counter: RoCEv2 frames dropped as `icrc` (the ICRC does not verify).
    pub cnt_drop_icrc: Signal<Out, Bits<32>>,

    ic: IcrcCheck<W, K>,
    hd: RxHeader<W, K>,

    // ---- constants ----
    ck: Constant<Bits<18>>,
    kmask: Constant<Bits<18>>,
    kall: Constant<Bits<K>>,
    lane_n: [Constant<Bits<8>>; 128],
    dix: [Constant<Bits<6>>; 32],
    dlast: Constant<Bits<6>>,
    elast: Constant<Bits<6>>,
    ddep: Constant<Bits<6>>,
    qix: [Constant<Bits<2>>; 3],
    lk: Constant<Bits<18>>,
    lidx: [Constant<Bits<8>>; 128],
    rix: [Constant<Bits<4>>; 10],

    // ---- input side ----
    hce: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    rvalid: Signal<Local, Bit>,
    kx: Signal<Local, Bits<K>>,
    nb: Signal<Local, Bits<8>>,
    ic1: DFF<Bits<2>>,
    ic2: DFF<Bits<2>>,
    ic3: DFF<Bits<2>>,
    /// `IcrcCheck`'s verdict code of a good ICRC, and the drop-reason code of a bad one.
    icrc_good: Constant<Bits<2>>,
    reason_icrc: Constant<Bits<4>>,
    freason: Signal<Local, Bits<4>>,
    fbad: Signal<Local, Bit>,
    fev: Signal<Local, Bit>,
    opush: DFF<Bit>,
    eev: Signal<Local, Bit>,

    // ---- data FIFO ----
    dd: [DFF<Bits<W>>; D],
    dk: [DFF<Bits<K>>; D],
    dl: [DFF<Bit>; D],
    dn: [DFF<Bits<8>>; D],
    dwp: DFF<Bits<6>>,
    drp: DFF<Bits<6>>,
    dcnt: DFF<Bits<6>>,
    // ---- early FIFO (first records) ----
    ep: [DFF<Bit>; E],
    /// the frame delivers nothing (a header check failed, or the payload is empty)
    en: [DFF<Bit>; E],
    /// beat index of the payload start
    esb: [DFF<Bits<4>>; E],
    /// payload offset mod K, and K minus it
    er: [DFF<Bits<8>>; E],
    ekr: [DFF<Bits<8>>; E],
    /// beat index of the payload's last byte, and its bytes in that beat
    eeb: [DFF<Bits<18>>; E],
    eel: [DFF<Bits<8>>; E],
    /// the payload's final output beat when it ends at `eeb`: bytes, and whether a full output
    /// beat goes out with it
    efc: [DFF<Bits<8>>; E],
    edbl: [DFF<Bit>; E],
    // plan of the pushed frame
    ps: Signal<Local, Bits<18>>,
    pe1: Signal<Local, Bits<18>>,
    psb: Signal<Local, Bits<18>>,
    pr: Signal<Local, Bits<18>>,
    peb: Signal<Local, Bits<18>>,
    pel: Signal<Local, Bits<18>>,
    pfc: Signal<Local, Bits<18>>,
    pdbl: Signal<Local, Bit>,
    pkr: Signal<Local, Bits<18>>,
    ewp: DFF<Bits<6>>,
    erp: DFF<Bits<6>>,
    ecnt: DFF<Bits<6>>,
    // ---- verdict FIFO (final records of RoCEv2 frames: drop) ----
    vb: [DFF<Bit>; E],
    vwp: DFF<Bits<6>>,
    vrp: DFF<Bits<6>>,
    vcnt: DFF<Bits<6>>,

    // ---- realigner ----
    hdat: Signal<Local, Bits<W>>,
    hkeep: Signal<Local, Bits<K>>,
    hlast: Signal<Local, Bit>,
    hn8: Signal<Local, Bits<8>>,
    ipass: Signal<Local, Bit>,
    inod: Signal<Local, Bit>,
    isb: Signal<Local, Bits<4>>,
    ir: Signal<Local, Bits<8>>,
    ikr: Signal<Local, Bits<8>>,
    ieb: Signal<Local, Bits<18>>,
    iel: Signal<Local, Bits<8>>,
    ifc: Signal<Local, Bits<8>>,
    idbl: Signal<Local, Bit>,
    vbad: Signal<Local, Bit>,
    r8: Signal<Local, Bits<16>>,
    kr8: Signal<Local, Bits<16>>,
    pre: Signal<Local, Bit>,
    at_sb: Signal<Local, Bit>,
    at_eb: Signal<Local, Bit>,
    normal: Signal<Local, Bit>,
    hgt: Signal<Local, Bit>,
    hmr: Signal<Local, Bits<8>>,
    tcnt: Signal<Local, Bits<8>>,
    fcnt: Signal<Local, Bits<8>>,
    dbl: Signal<Local, Bit>,
    ends: Signal<Local, Bit>,
    hsh: Signal<Local, Bits<W>>,
    work: Signal<Local, Bit>,
    full_o: Signal<Local, Bit>,
    fin_o: Signal<Local, Bit>,
    rel: Signal<Local, Bit>,
    funnel: Signal<Local, Bits<W>>,
    fin_d: Signal<Local, Bits<W>>,
    fin_k: Signal<Local, Bits<K>>,
    need: Signal<Local, Bits<3>>,
    qpop: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    pa: Signal<Local, Bit>,
    pa_d: Signal<Local, Bits<W>>,
    pa_k: Signal<Local, Bits<K>>,
    pa_l: Signal<Local, Bit>,
    pa_u: Signal<Local, Bit>,
    pb: Signal<Local, Bit>,
    qw1: Signal<Local, Bits<2>>,
    qw2: Signal<Local, Bits<2>>,
    npush: Signal<Local, Bits<3>>,
    /// beat index in the frame of the beat at the data FIFO head
    bi: DFF<Bits<18>>,
    rdone: DFF<Bit>,
    /// the previous payload beat, shifted down by the payload offset mod K
    prev: DFF<Bits<W>>,
    hv: DFF<Bit>,
    hd_d: DFF<Bits<W>>,
    hd_k: DFF<Bits<K>>,
    // ---- payload queue ----
    qd: [DFF<Bits<W>>; 3],
    qk: [DFF<Bits<K>>; 3],
    ql: [DFF<Bit>; 3],
    qu: [DFF<Bit>; 3],
    qwp: DFF<Bits<2>>,
    qrp: DFF<Bits<2>>,
    qcnt: DFF<Bits<2>>,
    // ---- pass register ----
    pv: DFF<Bit>,
    pd: DFF<Bits<W>>,
    pk: DFF<Bits<K>>,
    pl: DFF<Bit>,
    // ---- counters ----
    c_in: DFF<Bits<32>>,
    c_acc: DFF<Bits<32>>,
    c_pass: DFF<Bits<32>>,
    c_drop: [DFF<Bits<32>>; 10],
}

impl<const W: usize, const K: usize, const D: usize, const E: usize> Default for RxFront<W, K, D, E> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        assert_eq!(D, data_depth(K), "D must be data_depth(K)");
        assert_eq!(E, D + 2, "E must be D + 2");
        assert!(E <= 32);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tready: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tkeep: Default::default(),
            s_axis_tlast: Default::default(),
            m_pay_tvalid: Default::default(),
            m_pay_tready: Default::default(),
            m_pay_tdata: Default::default(),
            m_pay_tkeep: Default::default(),
            m_pay_tlast: Default::default(),
            m_pay_tuser: Default::default(),
            m_pass_tvalid: Default::default(),
            m_pass_tready: Default::default(),
            m_pass_tdata: Default::default(),
            m_pass_tkeep: Default::default(),
            m_pass_tlast: Default::default(),
            r_valid: Default::default(),
            r_ready: Default::default(),
            r_final: Default::default(),
            r_drop: Default::default(),
            r_reason: Default::default(),
            r_icrc_chk: Default::default(),
            r_icrc_ok: Default::default(),
            r_eth_dst: Default::default(),
            r_eth_src: Default::default(),
            r_vlan_ok: Default::default(),
            r_vlan: Default::default(),
            r_ip_v6: Default::default(),
            r_ip_src: Default::default(),
            r_ip_dst: Default::default(),
            r_ip_dscp: Default::default(),
            r_ip_ecn: Default::default(),
            r_ip_ttl: Default::default(),
            r_udp_sport: Default::default(),
            r_udp_dport: Default::default(),
            r_bth_ok: Default::default(),
            r_bth_opcode: Default::default(),
            r_bth_se: Default::default(),
            r_bth_m: Default::default(),
            r_bth_padcnt: Default::default(),
            r_bth_tver: Default::default(),
            r_bth_pkey: Default::default(),
            r_bth_fecn: Default::default(),
            r_bth_becn: Default::default(),
            r_bth_dqpn: Default::default(),
            r_bth_ackreq: Default::default(),
            r_bth_psn: Default::default(),
            r_reth_ok: Default::default(),
            r_reth_va: Default::default(),
            r_reth_rkey: Default::default(),
            r_reth_dmalen: Default::default(),
            r_immdt_ok: Default::default(),
            r_immdt: Default::default(),
            r_aeth_ok: Default::default(),
            r_aeth_syndrome: Default::default(),
            r_aeth_msn: Default::default(),
            r_pay_len: Default::default(),
            cnt_frames_in: Default::default(),
            cnt_accepted: Default::default(),
            cnt_passed: Default::default(),
            cnt_drop_ip_header: Default::default(),
            cnt_drop_truncated: Default::default(),
            cnt_drop_ip_length: Default::default(),
            cnt_drop_ip_checksum: Default::default(),
            cnt_drop_ip_fragment: Default::default(),
            cnt_drop_udp_length: Default::default(),
            cnt_drop_tver: Default::default(),
            cnt_drop_opcode: Default::default(),
            cnt_drop_padcnt: Default::default(),
            cnt_drop_icrc: Default::default(),
            ic: Default::default(),
            hd: Default::default(),
            ck: c::<18>(K as u64),
            kmask: c::<18>(K as u64 - 1),
            kall: Constant::new(Bits::<K>::from((BigUint::from(1u8) << K) - 1u8)),
            lane_n: std::array::from_fn(|i| c::<8>(i as u64 + 1)),
            dix: std::array::from_fn(|i| c::<6>(i as u64)),
            dlast: c::<6>(D as u64 - 1),
            elast: c::<6>(E as u64 - 1),
            ddep: c::<6>(D as u64),
            qix: std::array::from_fn(|i| c::<2>(i as u64)),
            lk: c::<18>(K.trailing_zeros() as u64),
            lidx: std::array::from_fn(|i| c::<8>(i as u64)),
            rix: std::array::from_fn(|i| c::<4>(DropReason::ALL[i].code().into())),
            hce: Default::default(),
            room: Default::default(),
            take: Default::default(),
            rvalid: Default::default(),
            kx: Default::default(),
            nb: Default::default(),
            ic1: Default::default(),
            ic2: Default::default(),
            ic3: Default::default(),
            icrc_good: c::<2>(IcrcVerdictCode::Good.code().into()),
            reason_icrc: c::<4>(DropReason::Icrc.code().into()),
            freason: Default::default(),
            fbad: Default::default(),
            fev: Default::default(),
            opush: Default::default(),
            eev: Default::default(),
            dd: std::array::from_fn(|_| Default::default()),
            dk: std::array::from_fn(|_| Default::default()),
            dl: std::array::from_fn(|_| Default::default()),
            dn: std::array::from_fn(|_| Default::default()),
            dwp: Default::default(),
            drp: Default::default(),
            dcnt: Default::default(),
            ep: std::array::from_fn(|_| Default::default()),
            en: std::array::from_fn(|_| Default::default()),
            esb: std::array::from_fn(|_| Default::default()),
            er: std::array::from_fn(|_| Default::default()),
            ekr: std::array::from_fn(|_| Default::default()),
            eeb: std::array::from_fn(|_| Default::default()),
            eel: std::array::from_fn(|_| Default::default()),
            efc: std::array::from_fn(|_| Default::default()),
            edbl: std::array::from_fn(|_| Default::default()),
            ps: Default::default(),
            pe1: Default::default(),
            psb: Default::default(),
            pr: Default::default(),
            peb: Default::default(),
            pel: Default::default(),
            pfc: Default::default(),
            pdbl: Default::default(),
            pkr: Default::default(),
            ewp: Default::default(),
            erp: Default::default(),
            ecnt: Default::default(),
            vb: std::array::from_fn(|_| Default::default()),
            vwp: Default::default(),
            vrp: Default::default(),
            vcnt: Default::default(),
            hdat: Default::default(),
            hkeep: Default::default(),
            hlast: Default::default(),
            hn8: Default::default(),
            ipass: Default::default(),
            inod: Default::default(),
            isb: Default::default(),
            ir: Default::default(),
            ikr: Default::default(),
            ieb: Default::default(),
            iel: Default::default(),
            ifc: Default::default(),
            idbl: Default::default(),
            vbad: Default::default(),
            r8: Default::default(),
            kr8: Default::default(),
            pre: Default::default(),
            at_sb: Default::default(),
            at_eb: Default::default(),
            normal: Default::default(),
            hgt: Default::default(),
            hmr: Default::default(),
            tcnt: Default::default(),
            fcnt: Default::default(),
            dbl: Default::default(),
            ends: Default::default(),
            hsh: Default::default(),
            work: Default::default(),
            full_o: Default::default(),
            fin_o: Default::default(),
            rel: Default::default(),
            funnel: Default::default(),
            fin_d: Default::default(),
            fin_k: Default::default(),
            need: Default::default(),
            qpop: Default::default(),
            go: Default::default(),
            pa: Default::default(),
            pa_d: Default::default(),
            pa_k: Default::default(),
            pa_l: Default::default(),
            pa_u: Default::default(),
            pb: Default::default(),
            qw1: Default::default(),
            qw2: Default::default(),
            npush: Default::default(),
            bi: Default::default(),
            rdone: Default::default(),
            prev: Default::default(),
            hv: Default::default(),
            hd_d: Default::default(),
            hd_k: Default::default(),
            qd: std::array::from_fn(|_| Default::default()),
            qk: std::array::from_fn(|_| Default::default()),
            ql: std::array::from_fn(|_| Default::default()),
            qu: std::array::from_fn(|_| Default::default()),
            qwp: Default::default(),
            qrp: Default::default(),
            qcnt: Default::default(),
            pv: Default::default(),
            pd: Default::default(),
            pk: Default::default(),
            pl: Default::default(),
            c_in: Default::default(),
            c_acc: Default::default(),
            c_pass: Default::default(),
            c_drop: std::array::from_fn(|_| Default::default()),
        }
    }
}

impl<const W: usize, const K: usize, const D: usize, const E: usize> Logic for RxFront<W, K, D, E> {
    #[hdl_gen]
    // rust-hdl kernel (Verilog subset): the verdict-FIFO count conditions keep their push/pop form.
    #[allow(clippy::nonminimal_bool)]
    fn update(&mut self) {
        dff_setup!(
            self, clock, ic1, ic2, ic3, opush, dwp, drp, dcnt, ewp, erp, ecnt, vwp, vrp, vcnt, bi, rdone, prev, hv, hd_d, hd_k, qwp, qrp,
            qcnt, pv, pd, pk, pl, c_in, c_acc, c_pass
        );
        for i in 0..D {
            self.dd[i].clock.next = self.clock.val();
            self.dk[i].clock.next = self.clock.val();
            self.dl[i].clock.next = self.clock.val();
            self.dn[i].clock.next = self.clock.val();
            self.dd[i].d.next = self.dd[i].q.val();
            self.dk[i].d.next = self.dk[i].q.val();
            self.dl[i].d.next = self.dl[i].q.val();
            self.dn[i].d.next = self.dn[i].q.val();
        }
        for i in 0..E {
            self.ep[i].clock.next = self.clock.val();
            self.en[i].clock.next = self.clock.val();
            self.esb[i].clock.next = self.clock.val();
            self.er[i].clock.next = self.clock.val();
            self.ekr[i].clock.next = self.clock.val();
            self.eeb[i].clock.next = self.clock.val();
            self.eel[i].clock.next = self.clock.val();
            self.efc[i].clock.next = self.clock.val();
            self.edbl[i].clock.next = self.clock.val();
            self.vb[i].clock.next = self.clock.val();
            self.ep[i].d.next = self.ep[i].q.val();
            self.en[i].d.next = self.en[i].q.val();
            self.esb[i].d.next = self.esb[i].q.val();
            self.er[i].d.next = self.er[i].q.val();
            self.ekr[i].d.next = self.ekr[i].q.val();
            self.eeb[i].d.next = self.eeb[i].q.val();
            self.eel[i].d.next = self.eel[i].q.val();
            self.efc[i].d.next = self.efc[i].q.val();
            self.edbl[i].d.next = self.edbl[i].q.val();
            self.vb[i].d.next = self.vb[i].q.val();
        }
        for i in 0..3 {
            self.qd[i].clock.next = self.clock.val();
            self.qk[i].clock.next = self.clock.val();
            self.ql[i].clock.next = self.clock.val();
            self.qu[i].clock.next = self.clock.val();
            self.qd[i].d.next = self.qd[i].q.val();
            self.qk[i].d.next = self.qk[i].q.val();
            self.ql[i].d.next = self.ql[i].q.val();
            self.qu[i].d.next = self.qu[i].q.val();
        }
        for i in 0..10 {
            self.c_drop[i].clock.next = self.clock.val();
            self.c_drop[i].d.next = self.c_drop[i].q.val();
        }
        self.ic.clock.next = self.clock.val();
        self.ic.reset.next = self.reset.val();
        self.hd.clock.next = self.clock.val();
        self.hd.reset.next = self.reset.val();

        // ================= input: ICRC check, then header decoder and data FIFO =================
        // The record output is RxHeader's final record; RxHeader (and with it the input) stops
        // while a record waits for r_ready.
        self.rvalid.next = self.hd.h_valid.val() && !self.hd.h_pass.val();
        self.hce.next = !self.rvalid.val() || self.r_ready.val();
        self.room.next = self.dcnt.q.val() < self.ddep.val();
        self.take.next = self.ic.m_axis_tvalid.val() && self.hce.val() && self.room.val();
        self.ic.s_axis_tvalid.next = self.s_axis_tvalid.val();
        self.ic.s_axis_tdata.next = self.s_axis_tdata.val();
        self.ic.s_axis_tkeep.next = self.s_axis_tkeep.val();
        self.ic.s_axis_tlast.next = self.s_axis_tlast.val();
        self.ic.m_axis_tready.next = self.hce.val() && self.room.val();
        // = IcrcCheck's own s_axis_tready, computed here from its registered output
        self.s_axis_tready.next = !self.ic.m_axis_tvalid.val() || (self.hce.val() && self.room.val());
        self.hd.ce.next = self.hce.val();
        self.hd.s_axis_tvalid.next = self.take.val();
        self.hd.s_axis_tdata.next = self.ic.m_axis_tdata.val();
        self.hd.s_axis_tkeep.next = self.ic.m_axis_tkeep.val();
        self.hd.s_axis_tlast.next = self.ic.m_axis_tlast.val();
        // ICRC verdict carried along RxHeader's three stages
        if self.hce.val() {
            self.ic1.d.next = self.ic.m_axis_tuser.val();
            self.ic2.d.next = self.ic1.q.val();
            self.ic3.d.next = self.ic2.q.val();
        }
        // bytes in the beat: K when full, else the last kept lane + 1
        self.nb.next = 0.into();
        self.kx.next = self.ic.m_axis_tkeep.val() >> 1;
        for i in 0..K {
            if self.ic.m_axis_tkeep.val().get_bit(i) && !self.kx.val().get_bit(i) {
                self.nb.next = self.nb.val() | self.lane_n[i].val();
            }
        }

        // final verdict: the header-time reason, else the ICRC
        self.freason.next = self.hd.h_reason.val();
        if self.hd.h_final.val() && self.hd.h_reason.val() == 0 && self.ic3.q.val() != self.icrc_good.val() {
            self.freason.next = self.reason_icrc.val();
        }
        self.fbad.next = self.freason.val() != 0;
        // A record enters the FIFOs the first cycle it is out, whether or not r_ready takes it
        // then (`opush` marks it while it waits), so the payload never waits for r_ready.
        self.fev.next = self.hd.h_valid.val() && self.hd.h_final.val() && !self.opush.q.val();
        self.eev.next = self.hd.h_valid.val() && self.hd.h_first.val() && !self.opush.q.val();
        self.opush.d.next = self.hd.h_valid.val() && !self.hce.val();

        // data FIFO push
        if self.take.val() {
            for i in 0..D {
                if self.dwp.q.val() == self.dix[i].val() {
                    self.dd[i].d.next = self.ic.m_axis_tdata.val();
                    self.dk[i].d.next = self.ic.m_axis_tkeep.val();
                    self.dl[i].d.next = self.ic.m_axis_tlast.val();
                    self.dn[i].d.next = self.nb.val();
                }
            }
            if self.dwp.q.val() == self.dlast.val() {
                self.dwp.d.next = 0.into();
            } else {
                self.dwp.d.next = self.dwp.q.val() + 1;
            }
        }
        // early FIFO push (first records), with the frame's payload plan in beats
        self.ps.next = bit_cast::<18, 16>(self.hd.h_pay_off.val());
        self.pe1.next = self.hd.h_pay_end.val() - 1;
        self.psb.next = self.ps.val() >> self.lk.val();
        self.pr.next = self.ps.val() & self.kmask.val();
        self.peb.next = self.pe1.val() >> self.lk.val();
        self.pel.next = (self.pe1.val() & self.kmask.val()) + 1;
        self.pkr.next = self.ck.val() - self.pr.val();
        self.pdbl.next = false;
        if self.peb.val() == self.psb.val() {
            self.pfc.next = self.hd.h_pay_end.val() - self.ps.val();
        } else if self.pel.val() > self.pr.val() {
            self.pdbl.next = true;
            self.pfc.next = self.pel.val() - self.pr.val();
        } else {
            self.pfc.next = self.pel.val() + self.ck.val() - self.pr.val();
        }
        if self.eev.val() {
            for i in 0..E {
                if self.ewp.q.val() == self.dix[i].val() {
                    self.ep[i].d.next = self.hd.h_pass.val();
                    self.en[i].d.next = self.hd.h_hfail.val() || self.hd.h_pay_end.val() <= self.ps.val();
                    self.esb[i].d.next = self.psb.val().get_bits::<4>(0);
                    self.er[i].d.next = self.pr.val().get_bits::<8>(0);
                    self.ekr[i].d.next = self.pkr.val().get_bits::<8>(0);
                    self.eeb[i].d.next = self.peb.val();
                    self.eel[i].d.next = self.pel.val().get_bits::<8>(0);
                    self.efc[i].d.next = self.pfc.val().get_bits::<8>(0);
                    self.edbl[i].d.next = self.pdbl.val();
                }
            }
            if self.ewp.q.val() == self.elast.val() {
                self.ewp.d.next = 0.into();
            } else {
                self.ewp.d.next = self.ewp.q.val() + 1;
            }
        }
        // verdict FIFO push (final records of RoCEv2 frames)
        if self.fev.val() && !self.hd.h_pass.val() {
            for i in 0..E {
                if self.vwp.q.val() == self.dix[i].val() {
                    self.vb[i].d.next = self.fbad.val();
                }
            }
            if self.vwp.q.val() == self.elast.val() {
                self.vwp.d.next = 0.into();
            } else {
                self.vwp.d.next = self.vwp.q.val() + 1;
            }
        }
        // counters
        if self.fev.val() {
            self.c_in.d.next = self.c_in.q.val() + 1;
            if self.hd.h_pass.val() {
                self.c_pass.d.next = self.c_pass.q.val() + 1;
            } else if !self.fbad.val() {
                self.c_acc.d.next = self.c_acc.q.val() + 1;
            }
            for i in 0..10 {
                if !self.hd.h_pass.val() && self.freason.val() == self.rix[i].val() {
                    self.c_drop[i].d.next = self.c_drop[i].q.val() + 1;
                }
            }
        }

        // ================= realigner =================
        self.hdat.next = 0.into();
        self.hkeep.next = 0.into();
        self.hlast.next = false;
        self.hn8.next = 0.into();
        for i in 0..D {
            if self.drp.q.val() == self.dix[i].val() {
                self.hdat.next = self.dd[i].q.val();
                self.hkeep.next = self.dk[i].q.val();
                self.hlast.next = self.dl[i].q.val();
                self.hn8.next = self.dn[i].q.val();
            }
        }
        self.ipass.next = false;
        self.inod.next = false;
        self.isb.next = 0.into();
        self.ir.next = 0.into();
        self.ikr.next = 0.into();
        self.ieb.next = 0.into();
        self.iel.next = 0.into();
        self.ifc.next = 0.into();
        self.idbl.next = false;
        for i in 0..E {
            if self.erp.q.val() == self.dix[i].val() {
                self.ipass.next = self.ep[i].q.val();
                self.inod.next = self.en[i].q.val();
                self.isb.next = self.esb[i].q.val();
                self.ir.next = self.er[i].q.val();
                self.ikr.next = self.ekr[i].q.val();
                self.ieb.next = self.eeb[i].q.val();
                self.iel.next = self.eel[i].q.val();
                self.ifc.next = self.efc[i].q.val();
                self.idbl.next = self.edbl[i].q.val();
            }
        }
        self.vbad.next = false;
        for i in 0..E {
            if self.vrp.q.val() == self.dix[i].val() {
                self.vbad.next = self.vb[i].q.val();
            }
        }
        self.r8.next = bit_cast::<16, 8>(self.ir.val()) << 3;
        self.kr8.next = bit_cast::<16, 8>(self.ikr.val()) << 3;
        // where the beat is in the payload plan (the payload starts within the first 16 beats)
        self.pre.next = self.bi.q.val().get_bits::<14>(4) == 0 && self.bi.q.val().get_bits::<4>(0) < self.isb.val();
        self.at_sb.next = self.bi.q.val().get_bits::<14>(4) == 0 && self.bi.q.val().get_bits::<4>(0) == self.isb.val();
        self.at_eb.next = self.bi.q.val() == self.ieb.val();
        // the plan's end, unless the frame ends first (then the bytes come from this beat)
        self.normal.next = self.at_eb.val() && !(self.hlast.val() && self.hn8.val() < self.iel.val());
        self.hgt.next = self.hn8.val() > self.ir.val();
        self.hmr.next = self.hn8.val() - self.ir.val();
        if self.hgt.val() {
            self.tcnt.next = self.hmr.val();
        } else if self.at_sb.val() {
            self.tcnt.next = 0.into();
        } else {
            self.tcnt.next = self.hn8.val() + self.ikr.val();
        }
        if self.normal.val() {
            self.fcnt.next = self.ifc.val();
            self.dbl.next = self.idbl.val();
        } else {
            self.fcnt.next = self.tcnt.val();
            self.dbl.next = self.hgt.val() && !self.at_sb.val();
        }
        self.ends.next = self.at_eb.val() || self.hlast.val();
        self.work.next = !self.ipass.val() && !self.inod.val() && !self.rdone.q.val() && !self.pre.val();
        self.hsh.next = self.hdat.val() >> self.r8.val();
        self.funnel.next = self.prev.q.val() | (self.hdat.val() << self.kr8.val());
        self.full_o.next = self.work.val() && !self.at_sb.val() && (!self.ends.val() || self.dbl.val());
        self.fin_o.next = self.work.val() && self.ends.val() && self.fcnt.val() != 0;
        if self.at_sb.val() || self.dbl.val() {
            self.fin_d.next = self.hsh.val();
        } else {
            self.fin_d.next = self.funnel.val();
        }
        self.fin_k.next = 0.into();
        for l in 0..K {
            self.fin_k.next = self.fin_k.val().replace_bit(l, self.fcnt.val() > self.lidx[l].val());
        }
        // the held final beat goes out with the frame's last beat
        self.rel.next = self.hlast.val() && self.hv.q.val();

        // payload queue pushes: A (a full beat, or a final one, or the held one), B (a final
        // beat after a full one in the same cycle)
        self.pa.next = true;
        self.pa_d.next = self.funnel.val();
        self.pa_k.next = self.kall.val();
        self.pa_l.next = false;
        self.pa_u.next = false;
        self.pb.next = false;
        if self.rel.val() {
            self.pa_d.next = self.hd_d.q.val();
            self.pa_k.next = self.hd_k.q.val();
            self.pa_l.next = true;
            self.pa_u.next = self.vbad.val();
        } else if self.full_o.val() {
            self.pb.next = self.fin_o.val() && self.hlast.val();
        } else if self.fin_o.val() && self.hlast.val() {
            self.pa_d.next = self.fin_d.val();
            self.pa_k.next = self.fin_k.val();
            self.pa_l.next = true;
            self.pa_u.next = self.vbad.val();
        } else {
            self.pa.next = false;
        }
        self.need.next = 0.into();
        if self.pa.val() && self.pb.val() {
            self.need.next = 2.into();
        } else if self.pa.val() {
            self.need.next = 1.into();
        }
        self.qpop.next = self.qcnt.q.val() != 0 && self.m_pay_tready.val();
        self.go.next = false;
        if self.dcnt.q.val() != 0 && self.ecnt.q.val() != 0 {
            if self.ipass.val() {
                self.go.next = !self.pv.q.val() || self.m_pass_tready.val();
            } else {
                // room for two pushes, counting this cycle's pop (the queue has three entries)
                self.go.next = (self.qcnt.q.val() <= 1 || (self.qcnt.q.val() == 2 && self.m_pay_tready.val()))
                    && (!self.hlast.val() || self.vcnt.q.val() != 0);
            }
        }

        // pass register
        if self.pv.q.val() && self.m_pass_tready.val() {
            self.pv.d.next = false;
        }
        self.npush.next = 0.into();
        if self.qwp.q.val() == 2 {
            self.qw1.next = 0.into();
        } else {
            self.qw1.next = self.qwp.q.val() + 1;
        }
        if self.qw1.val() == 2 {
            self.qw2.next = 0.into();
        } else {
            self.qw2.next = self.qw1.val() + 1;
        }
        if self.go.val() {
            // pop the data FIFO
            if self.drp.q.val() == self.dlast.val() {
                self.drp.d.next = 0.into();
            } else {
                self.drp.d.next = self.drp.q.val() + 1;
            }
            if self.hlast.val() {
                self.bi.d.next = 0.into();
                self.rdone.d.next = false;
                self.hv.d.next = false;
                if self.erp.q.val() == self.elast.val() {
                    self.erp.d.next = 0.into();
                } else {
                    self.erp.d.next = self.erp.q.val() + 1;
                }
                if !self.ipass.val() {
                    if self.vrp.q.val() == self.elast.val() {
                        self.vrp.d.next = 0.into();
                    } else {
                        self.vrp.d.next = self.vrp.q.val() + 1;
                    }
                }
            } else {
                self.bi.d.next = self.bi.q.val() + 1;
                if self.work.val() && self.ends.val() {
                    self.rdone.d.next = true;
                }
            }
            if self.ipass.val() {
                self.pv.d.next = true;
                self.pd.d.next = self.hdat.val();
                self.pk.d.next = self.hkeep.val();
                self.pl.d.next = self.hlast.val();
            } else {
                if self.work.val() && !self.ends.val() {
                    self.prev.d.next = self.hsh.val();
                }
                if self.fin_o.val() && !self.hlast.val() {
                    self.hv.d.next = true;
                    self.hd_d.d.next = self.fin_d.val();
                    self.hd_k.d.next = self.fin_k.val();
                }
                for i in 0..3 {
                    if self.pa.val() && self.qwp.q.val() == self.qix[i].val() {
                        self.qd[i].d.next = self.pa_d.val();
                        self.qk[i].d.next = self.pa_k.val();
                        self.ql[i].d.next = self.pa_l.val();
                        self.qu[i].d.next = self.pa_u.val();
                    }
                    if self.pb.val() && self.qw1.val() == self.qix[i].val() {
                        self.qd[i].d.next = self.fin_d.val();
                        self.qk[i].d.next = self.fin_k.val();
                        self.ql[i].d.next = true;
                        self.qu[i].d.next = self.vbad.val();
                    }
                }
                self.npush.next = self.need.val();
                if self.pb.val() {
                    self.qwp.d.next = self.qw2.val();
                } else if self.pa.val() {
                    self.qwp.d.next = self.qw1.val();
                }
            }
        }
        if self.qpop.val() {
            if self.qrp.q.val() == 2 {
                self.qrp.d.next = 0.into();
            } else {
                self.qrp.d.next = self.qrp.q.val() + 1;
            }
        }
        if self.qpop.val() {
            self.qcnt.d.next = self.qcnt.q.val() + bit_cast::<2, 3>(self.npush.val()) - 1;
        } else {
            self.qcnt.d.next = self.qcnt.q.val() + bit_cast::<2, 3>(self.npush.val());
        }

        // FIFO counts
        if self.take.val() && !(self.go.val()) {
            self.dcnt.d.next = self.dcnt.q.val() + 1;
        } else if !self.take.val() && self.go.val() {
            self.dcnt.d.next = self.dcnt.q.val() - 1;
        }
        if self.eev.val() && !(self.go.val() && self.hlast.val()) {
            self.ecnt.d.next = self.ecnt.q.val() + 1;
        } else if !self.eev.val() && self.go.val() && self.hlast.val() {
            self.ecnt.d.next = self.ecnt.q.val() - 1;
        }
        if (self.fev.val() && !self.hd.h_pass.val()) && !(self.go.val() && self.hlast.val() && !self.ipass.val()) {
            self.vcnt.d.next = self.vcnt.q.val() + 1;
        } else if !(self.fev.val() && !self.hd.h_pass.val()) && self.go.val() && self.hlast.val() && !self.ipass.val() {
            self.vcnt.d.next = self.vcnt.q.val() - 1;
        }

        if self.reset.val() {
            self.dwp.d.next = 0.into();
            self.drp.d.next = 0.into();
            self.dcnt.d.next = 0.into();
            self.ewp.d.next = 0.into();
            self.erp.d.next = 0.into();
            self.ecnt.d.next = 0.into();
            self.vwp.d.next = 0.into();
            self.vrp.d.next = 0.into();
            self.vcnt.d.next = 0.into();
            self.bi.d.next = 0.into();
            self.rdone.d.next = false;
            self.hv.d.next = false;
            self.opush.d.next = false;
            self.qwp.d.next = 0.into();
            self.qrp.d.next = 0.into();
            self.qcnt.d.next = 0.into();
            self.pv.d.next = false;
            self.c_in.d.next = 0.into();
            self.c_acc.d.next = 0.into();
            self.c_pass.d.next = 0.into();
            for i in 0..10 {
                self.c_drop[i].d.next = 0.into();
            }
        }

        // ================= outputs =================
        self.m_pay_tvalid.next = self.qcnt.q.val() != 0;
        self.m_pay_tdata.next = 0.into();
        self.m_pay_tkeep.next = 0.into();
        self.m_pay_tlast.next = false;
        self.m_pay_tuser.next = false;
        for i in 0..3 {
            if self.qrp.q.val() == self.qix[i].val() {
                self.m_pay_tdata.next = self.qd[i].q.val();
                self.m_pay_tkeep.next = self.qk[i].q.val();
                self.m_pay_tlast.next = self.ql[i].q.val();
                self.m_pay_tuser.next = self.qu[i].q.val();
            }
        }
        self.m_pass_tvalid.next = self.pv.q.val();
        self.m_pass_tdata.next = self.pd.q.val();
        self.m_pass_tkeep.next = self.pk.q.val();
        self.m_pass_tlast.next = self.pl.q.val();

        self.r_valid.next = self.rvalid.val();
        self.r_final.next = self.hd.h_final.val();
        self.r_drop.next = self.fbad.val();
        self.r_reason.next = self.freason.val();
        self.r_icrc_chk.next = self.hd.h_icrc_chk.val();
        self.r_icrc_ok.next = self.ic3.q.val() == 3;
        self.r_eth_dst.next = self.hd.h_eth_dst.val();
        self.r_eth_src.next = self.hd.h_eth_src.val();
        self.r_vlan_ok.next = self.hd.h_vlan_ok.val();
        self.r_vlan.next = self.hd.h_vlan.val();
        self.r_ip_v6.next = self.hd.h_ip_v6.val();
        self.r_ip_src.next = self.hd.h_ip_src.val();
        self.r_ip_dst.next = self.hd.h_ip_dst.val();
        self.r_ip_dscp.next = self.hd.h_ip_dscp.val();
        self.r_ip_ecn.next = self.hd.h_ip_ecn.val();
        self.r_ip_ttl.next = self.hd.h_ip_ttl.val();
        self.r_udp_sport.next = self.hd.h_udp_sport.val();
        self.r_udp_dport.next = self.hd.h_udp_dport.val();
        self.r_bth_ok.next = self.hd.h_bth_ok.val();
        self.r_bth_opcode.next = self.hd.h_bth_opcode.val();
        self.r_bth_se.next = self.hd.h_bth_se.val();
        self.r_bth_m.next = self.hd.h_bth_m.val();
        self.r_bth_padcnt.next = self.hd.h_bth_padcnt.val();
        self.r_bth_tver.next = self.hd.h_bth_tver.val();
        self.r_bth_pkey.next = self.hd.h_bth_pkey.val();
        self.r_bth_fecn.next = self.hd.h_bth_fecn.val();
        self.r_bth_becn.next = self.hd.h_bth_becn.val();
        self.r_bth_dqpn.next = self.hd.h_bth_dqpn.val();
        self.r_bth_ackreq.next = self.hd.h_bth_ackreq.val();
        self.r_bth_psn.next = self.hd.h_bth_psn.val();
        self.r_reth_ok.next = self.hd.h_reth_ok.val();
        self.r_reth_va.next = self.hd.h_reth_va.val();
        self.r_reth_rkey.next = self.hd.h_reth_rkey.val();
        self.r_reth_dmalen.next = self.hd.h_reth_dmalen.val();
        self.r_immdt_ok.next = self.hd.h_immdt_ok.val();
        self.r_immdt.next = self.hd.h_immdt.val();
        self.r_aeth_ok.next = self.hd.h_aeth_ok.val();
        self.r_aeth_syndrome.next = self.hd.h_aeth_syndrome.val();
        self.r_aeth_msn.next = self.hd.h_aeth_msn.val();
        self.r_pay_len.next = self.hd.h_pay_len.val();

        self.cnt_frames_in.next = self.c_in.q.val();
        self.cnt_accepted.next = self.c_acc.q.val();
        self.cnt_passed.next = self.c_pass.q.val();
        self.cnt_drop_ip_header.next = self.c_drop[0].q.val();
        self.cnt_drop_truncated.next = self.c_drop[1].q.val();
        self.cnt_drop_ip_length.next = self.c_drop[2].q.val();
        self.cnt_drop_ip_checksum.next = self.c_drop[3].q.val();
        self.cnt_drop_ip_fragment.next = self.c_drop[4].q.val();
        self.cnt_drop_udp_length.next = self.c_drop[5].q.val();
        self.cnt_drop_tver.next = self.c_drop[6].q.val();
        self.cnt_drop_opcode.next = self.c_drop[7].q.val();
        self.cnt_drop_padcnt.next = self.c_drop[8].q.val();
        self.cnt_drop_icrc.next = self.c_drop[9].q.val();
    }
}
