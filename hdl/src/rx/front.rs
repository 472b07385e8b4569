//! RX front end (issue 3): [`RxFront`], the MAC-side receive path of Ferroce.
//!
//! Ethernet frames in (AXI-Stream, no FCS, `tkeep` contiguous from lane 0); out:
//! - **records** (`r_valid`/`r_ready`): per RoCEv2 frame (accepted or dropped), in frame order,
//!   a final record (`r_final`) with the verdict, the drop reason and every field of
//!   `ferroce-sim rx`'s JSON; a frame longer than the 128-byte header capture gets a header
//!   record before it, 6 cycles after the capture completes (see `r_final`);
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
//!           (verdict on │ (header_ce)  ├─ final record ─► verdict FIFO ──────┤
//!            last beat) │              └─► records (r_*)                     │
//!                       └─► data FIFO (D beats, LUTRAM) ──────────► realigner ─┬─► payload queue ─► m_pay
//!                                                                              └─► pass register ─► m_pass
//! ```
//!
//! - `IcrcCheck` (8 cycles) puts the ICRC verdict on each frame's last beat.
//! - `RxHeader` decodes every frame twice: a first record when its header capture completes
//!   (`CAPTURE_BEATS − 1` beats in; the last beat for shorter frames), which fixes the classification,
//!   the header checks and the payload region; and a final record at its last beat, which adds
//!   what depends on the frame length. Both go out on `r_*` (the first one only when it is not
//!   also the final one, as `r_final` = 0); the final one carries the ICRC verdict, brought
//!   along `RxHeader`'s six stages. `RxHeader` holds a record (and stops) while `r_ready` is
//!   low; the record enters the FIFOs below in the cycle it first appears.
//! - When a first record enters the early FIFO, the frame's payload is planned in beats: the
//!   beat where it starts, its offset `r` in that beat, the beat where it ends, and the size of
//!   the final output beat, so the realigner compares beat indices instead of byte offsets.
//! - Beats wait in the data FIFO until their frame's first record is in the early FIFO; the
//!   realigner then forwards a pass frame to `m_pass`, or cuts the payload out of a RoCEv2 frame
//!   with a funnel shift (`previous >> 8r | cur << 8(K − r)`, `r` = payload offset mod K). A payload
//!   that ends before its frame does is held in one register until the frame's verdict is in the
//!   verdict FIFO, so the drop mark lands on its last beat; the rest of the frame keeps flowing
//!   meanwhile (no deadlock on frames with trailing bytes).
//! - The data FIFO ([`BeatFifo`], LUTRAM with a registered head) holds `CAPTURE_BEATS + 10`
//!   beats: the realigner runs `CAPTURE_BEATS + 7` beats behind the input, which is exactly when
//!   each first record is at the early FIFO's head (also LUTRAM, [`Fifo`]), plus two beats in
//!   flight and one in the head register, so back-to-back frames of every size flow at one beat
//!   per cycle. The early FIFO (32 entries) and the verdict FIFO (`D + 2`, flip-flops) hold more
//!   than the frames that can be between the input and the realigner, so they never fill.
//! - A payload beat that completes one output beat and starts the final one (the payload's
//!   last bytes and the frame's end in one input beat) pushes two beats into the 3-entry payload
//!   queue; the next frame's first payload beat pushes none, so the queue never runs away.

use super::header::{self, RxHeader};
use super::icrc_check::IcrcCheck;
use crate::common::delay::Delay;
use crate::common::elab::c;
use crate::common::fifo::{self, BeatFifo, Fifo};
use ferroce_contracts::rx::{DropReason, IcrcVerdictCode, HEADER_RECORD_LATENCY};
use num_bigint::BigUint;
use rust_hdl::prelude::*;

/// Data FIFO depth for `K` bytes per beat: the realigner's lag (`CAPTURE_BEATS` + the header
/// record latency + one cycle for the early FIFO's head register) plus three (two beats in
/// flight, one in the data FIFO's head register).
pub const fn data_depth(k: usize) -> usize {
    header::CAPTURE_BYTES / k + HEADER_RECORD_LATENCY + 4
}

/// A frame's payload plan in beats, made when its first record arrives: the early FIFO's entry,
/// which the realigner follows while the frame's beats go by.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
struct FramePlan {
    /// Not RoCEv2: the frame goes to `m_pass`.
    pub pass: Bit,
    /// The frame delivers nothing (a header check failed, or the payload is empty).
    pub no_payload: Bit,
    /// Beat index of the payload start.
    pub start_beat: Bits<4>,
    /// Payload offset mod K.
    pub offset: Bits<8>,
    /// K minus `offset`.
    pub offset_rest: Bits<8>,
    /// Beat index of the payload's last byte.
    pub end_beat: Bits<18>,
    /// The payload's bytes in its last beat.
    pub end_bytes: Bits<8>,
    /// The payload's final output beat when it ends at `end_beat`: its bytes.
    pub final_bytes: Bits<8>,
    /// A full output beat goes out with the final one.
    pub two_beats: Bit,
}

/// RX front end; see the module docs. `W` bus width (64..1024), `K = W / 8`, `D` data FIFO
/// depth ([`data_depth`]), `E = D + 2` verdict FIFO depth.
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
    /// first gets a header record (`r_final` = 0) 6 cycles after the beat that completes the
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

    icrc_check: IcrcCheck<W, K>,
    header_decoder: RxHeader<W, K>,

    // ---- constants ----
    /// K, and K − 1 (a byte offset's lane).
    bytes_per_beat: Constant<Bits<18>>,
    offset_mask: Constant<Bits<18>>,
    keep_all: Constant<Bits<K>>,
    /// Lane i + 1: the bytes of a beat whose last kept lane is i.
    lane_byte_count: [Constant<Bits<8>>; 128],
    /// FIFO slot numbers, for the one-hot write and read selects.
    slot_index: [Constant<Bits<6>>; 32],
    record_last_slot: Constant<Bits<6>>,
    /// Beats the data FIFO holds (D).
    data_capacity: Constant<Bits<8>>,
    queue_slot: [Constant<Bits<2>>; 3],
    log2_bytes_per_beat: Constant<Bits<18>>,
    lane_index: [Constant<Bits<8>>; 128],
    /// Drop-reason code of each `count_drop` counter.
    reason_code: [Constant<Bits<4>>; 10],

    // ---- input side ----
    /// `RxHeader` advances: no record waits for `r_ready`.
    header_ce: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    record_valid: Signal<Local, Bit>,
    /// `tkeep >> 1`, to find the last kept lane.
    keep_shifted: Signal<Local, Bits<K>>,
    /// Bytes in the input beat.
    byte_count: Signal<Local, Bits<8>>,
    /// The ICRC verdict in step with `RxHeader`'s stages.
    icrc_verdict_line: Delay<2, HEADER_RECORD_LATENCY>,
    /// `IcrcCheck`'s verdict code of a good ICRC, and the drop-reason code of a bad one.
    icrc_good: Constant<Bits<2>>,
    reason_icrc: Constant<Bits<4>>,
    /// Drop reason of the record on `r_*` (the header's, else the ICRC's), and whether it drops.
    final_reason: Signal<Local, Bits<4>>,
    final_drop: Signal<Local, Bit>,
    /// A final record enters the verdict FIFO and the counters.
    final_push: Signal<Local, Bit>,
    /// The record on `RxHeader`'s outputs already entered the FIFOs (it waits for `r_ready`).
    record_pushed: DFF<Bit>,
    /// A first record enters the early FIFO.
    first_push: Signal<Local, Bit>,

    // ---- data FIFO (LUTRAM, registered head) ----
    data_fifo: BeatFifo<W, K>,
    // ---- early FIFO (first records: frame plans; LUTRAM, registered head) ----
    early_fifo: Fifo<FramePlan>,
    /// Plan of the frame whose first record is pushed.
    plan: Signal<Local, FramePlan>,
    // its computation (`plan_last_byte` = payload end − 1)
    plan_start: Signal<Local, Bits<18>>,
    plan_last_byte: Signal<Local, Bits<18>>,
    plan_start_beat: Signal<Local, Bits<18>>,
    plan_offset: Signal<Local, Bits<18>>,
    plan_end_beat: Signal<Local, Bits<18>>,
    plan_end_bytes: Signal<Local, Bits<18>>,
    plan_final_bytes: Signal<Local, Bits<18>>,
    plan_two_beats: Signal<Local, Bit>,
    plan_offset_rest: Signal<Local, Bits<18>>,
    // ---- verdict FIFO (final records of RoCEv2 frames: drop) ----
    verdict_drop: [DFF<Bit>; E],
    verdict_write_ptr: DFF<Bits<6>>,
    verdict_read_ptr: DFF<Bits<6>>,
    verdict_count: DFF<Bits<6>>,

    // ---- realigner ----
    /// The beat at the data FIFO head: data, keep, last, bytes (registers of the FIFO).
    head_data: Signal<Local, Bits<W>>,
    head_keep: Signal<Local, Bits<K>>,
    head_last: Signal<Local, Bit>,
    head_bytes: Signal<Local, Bits<8>>,
    /// Its frame's plan (the early FIFO head) and drop verdict (the verdict FIFO head).
    frame_pass: Signal<Local, Bit>,
    frame_no_payload: Signal<Local, Bit>,
    frame_start_beat: Signal<Local, Bits<4>>,
    frame_offset: Signal<Local, Bits<8>>,
    frame_offset_rest: Signal<Local, Bits<8>>,
    frame_end_beat: Signal<Local, Bits<18>>,
    frame_end_bytes: Signal<Local, Bits<8>>,
    frame_final_bytes: Signal<Local, Bits<8>>,
    frame_two_beats: Signal<Local, Bit>,
    frame_drop: Signal<Local, Bit>,
    /// `frame_offset` and `frame_offset_rest` in bits: the funnel shifts.
    offset_bits: Signal<Local, Bits<16>>,
    offset_rest_bits: Signal<Local, Bits<16>>,
    before_start: Signal<Local, Bit>,
    at_start_beat: Signal<Local, Bit>,
    at_end_beat: Signal<Local, Bit>,
    /// The payload ends in this beat as planned (the frame does not end first).
    planned_end: Signal<Local, Bit>,
    head_past_offset: Signal<Local, Bit>,
    head_minus_offset: Signal<Local, Bits<8>>,
    /// Bytes of the final output beat when the frame ends in this beat.
    tail_bytes: Signal<Local, Bits<8>>,
    /// Bytes of the final output beat, and whether a full output beat goes out with it.
    final_bytes: Signal<Local, Bits<8>>,
    two_beats: Signal<Local, Bit>,
    /// The payload ends in this beat.
    payload_ends: Signal<Local, Bit>,
    head_shifted: Signal<Local, Bits<W>>,
    /// The beat carries payload bytes.
    work: Signal<Local, Bit>,
    /// A full output beat, and the final output beat, come out of this beat.
    full_out: Signal<Local, Bit>,
    final_out: Signal<Local, Bit>,
    /// The held final beat goes out.
    release_held: Signal<Local, Bit>,
    funnel: Signal<Local, Bits<W>>,
    final_data: Signal<Local, Bits<W>>,
    final_keep: Signal<Local, Bits<K>>,
    /// Payload queue pushes if the beat advances, and the pushes that happen.
    push_need: Signal<Local, Bits<3>>,
    queue_pop: Signal<Local, Bit>,
    /// The data FIFO head is consumed.
    advance: Signal<Local, Bit>,
    /// Payload queue pushes A (data, keep, last, user) and B (see the kernel).
    push_a: Signal<Local, Bit>,
    push_a_data: Signal<Local, Bits<W>>,
    push_a_keep: Signal<Local, Bits<K>>,
    push_a_last: Signal<Local, Bit>,
    push_a_user: Signal<Local, Bit>,
    push_b: Signal<Local, Bit>,
    /// `queue_write_ptr` + 1 and + 2, modulo 3.
    queue_write_plus_1: Signal<Local, Bits<2>>,
    queue_write_plus_2: Signal<Local, Bits<2>>,
    push_count: Signal<Local, Bits<3>>,
    /// Beat index in the frame of the beat at the data FIFO head.
    beat_index: DFF<Bits<18>>,
    /// The frame's payload is out; the rest of the frame is skipped.
    payload_done: DFF<Bit>,
    /// The previous payload beat, shifted down by the payload offset mod K.
    previous: DFF<Bits<W>>,
    /// The final payload beat held until its frame's last beat (and verdict).
    held_valid: DFF<Bit>,
    held_data: DFF<Bits<W>>,
    held_keep: DFF<Bits<K>>,
    // ---- payload queue ----
    queue_data: [DFF<Bits<W>>; 3],
    queue_keep: [DFF<Bits<K>>; 3],
    queue_last: [DFF<Bit>; 3],
    queue_user: [DFF<Bit>; 3],
    queue_write_ptr: DFF<Bits<2>>,
    queue_read_ptr: DFF<Bits<2>>,
    queue_count: DFF<Bits<2>>,
    // ---- pass register ----
    pass_valid: DFF<Bit>,
    pass_data: DFF<Bits<W>>,
    pass_keep: DFF<Bits<K>>,
    pass_last: DFF<Bit>,
    // ---- counters ----
    count_in: DFF<Bits<32>>,
    count_accepted: DFF<Bits<32>>,
    count_passed: DFF<Bits<32>>,
    count_drop: [DFF<Bits<32>>; 10],
}

impl<const W: usize, const K: usize, const D: usize, const E: usize> Default for RxFront<W, K, D, E> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        assert_eq!(D, data_depth(K), "D must be data_depth(K)");
        assert_eq!(E, D + 2, "E must be D + 2");
        assert!(E <= 32);
        assert!(D + 2 <= fifo::CAPACITY);
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
            icrc_check: Default::default(),
            header_decoder: Default::default(),
            bytes_per_beat: c::<18>(K as u64),
            offset_mask: c::<18>(K as u64 - 1),
            keep_all: Constant::new(Bits::<K>::from((BigUint::from(1u8) << K) - 1u8)),
            lane_byte_count: std::array::from_fn(|i| c::<8>(i as u64 + 1)),
            slot_index: std::array::from_fn(|i| c::<6>(i as u64)),
            record_last_slot: c::<6>(E as u64 - 1),
            data_capacity: c::<8>(D as u64),
            queue_slot: std::array::from_fn(|i| c::<2>(i as u64)),
            log2_bytes_per_beat: c::<18>(K.trailing_zeros() as u64),
            lane_index: std::array::from_fn(|i| c::<8>(i as u64)),
            reason_code: std::array::from_fn(|i| c::<4>(DropReason::ALL[i].code().into())),
            header_ce: Default::default(),
            room: Default::default(),
            take: Default::default(),
            record_valid: Default::default(),
            keep_shifted: Default::default(),
            byte_count: Default::default(),
            icrc_verdict_line: Default::default(),
            icrc_good: c::<2>(IcrcVerdictCode::Good.code().into()),
            reason_icrc: c::<4>(DropReason::Icrc.code().into()),
            final_reason: Default::default(),
            final_drop: Default::default(),
            final_push: Default::default(),
            record_pushed: Default::default(),
            first_push: Default::default(),
            data_fifo: Default::default(),
            early_fifo: Default::default(),
            plan: Default::default(),
            plan_start: Default::default(),
            plan_last_byte: Default::default(),
            plan_start_beat: Default::default(),
            plan_offset: Default::default(),
            plan_end_beat: Default::default(),
            plan_end_bytes: Default::default(),
            plan_final_bytes: Default::default(),
            plan_two_beats: Default::default(),
            plan_offset_rest: Default::default(),
            verdict_drop: std::array::from_fn(|_| Default::default()),
            verdict_write_ptr: Default::default(),
            verdict_read_ptr: Default::default(),
            verdict_count: Default::default(),
            head_data: Default::default(),
            head_keep: Default::default(),
            head_last: Default::default(),
            head_bytes: Default::default(),
            frame_pass: Default::default(),
            frame_no_payload: Default::default(),
            frame_start_beat: Default::default(),
            frame_offset: Default::default(),
            frame_offset_rest: Default::default(),
            frame_end_beat: Default::default(),
            frame_end_bytes: Default::default(),
            frame_final_bytes: Default::default(),
            frame_two_beats: Default::default(),
            frame_drop: Default::default(),
            offset_bits: Default::default(),
            offset_rest_bits: Default::default(),
            before_start: Default::default(),
            at_start_beat: Default::default(),
            at_end_beat: Default::default(),
            planned_end: Default::default(),
            head_past_offset: Default::default(),
            head_minus_offset: Default::default(),
            tail_bytes: Default::default(),
            final_bytes: Default::default(),
            two_beats: Default::default(),
            payload_ends: Default::default(),
            head_shifted: Default::default(),
            work: Default::default(),
            full_out: Default::default(),
            final_out: Default::default(),
            release_held: Default::default(),
            funnel: Default::default(),
            final_data: Default::default(),
            final_keep: Default::default(),
            push_need: Default::default(),
            queue_pop: Default::default(),
            advance: Default::default(),
            push_a: Default::default(),
            push_a_data: Default::default(),
            push_a_keep: Default::default(),
            push_a_last: Default::default(),
            push_a_user: Default::default(),
            push_b: Default::default(),
            queue_write_plus_1: Default::default(),
            queue_write_plus_2: Default::default(),
            push_count: Default::default(),
            beat_index: Default::default(),
            payload_done: Default::default(),
            previous: Default::default(),
            held_valid: Default::default(),
            held_data: Default::default(),
            held_keep: Default::default(),
            queue_data: std::array::from_fn(|_| Default::default()),
            queue_keep: std::array::from_fn(|_| Default::default()),
            queue_last: std::array::from_fn(|_| Default::default()),
            queue_user: std::array::from_fn(|_| Default::default()),
            queue_write_ptr: Default::default(),
            queue_read_ptr: Default::default(),
            queue_count: Default::default(),
            pass_valid: Default::default(),
            pass_data: Default::default(),
            pass_keep: Default::default(),
            pass_last: Default::default(),
            count_in: Default::default(),
            count_accepted: Default::default(),
            count_passed: Default::default(),
            count_drop: std::array::from_fn(|_| Default::default()),
        }
    }
}

impl<const W: usize, const K: usize, const D: usize, const E: usize> Logic for RxFront<W, K, D, E> {
    #[hdl_gen]
    // rust-hdl kernel (Verilog subset): the verdict-FIFO count conditions keep their push/pop form.
    #[allow(clippy::nonminimal_bool)]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            record_pushed,
            verdict_write_ptr,
            verdict_read_ptr,
            verdict_count,
            beat_index,
            payload_done,
            previous,
            held_valid,
            held_data,
            held_keep,
            queue_write_ptr,
            queue_read_ptr,
            queue_count,
            pass_valid,
            pass_data,
            pass_keep,
            pass_last,
            count_in,
            count_accepted,
            count_passed
        );
        for i in 0..E {
            self.verdict_drop[i].clock.next = self.clock.val();
            self.verdict_drop[i].d.next = self.verdict_drop[i].q.val();
        }
        for i in 0..3 {
            self.queue_data[i].clock.next = self.clock.val();
            self.queue_keep[i].clock.next = self.clock.val();
            self.queue_last[i].clock.next = self.clock.val();
            self.queue_user[i].clock.next = self.clock.val();
            self.queue_data[i].d.next = self.queue_data[i].q.val();
            self.queue_keep[i].d.next = self.queue_keep[i].q.val();
            self.queue_last[i].d.next = self.queue_last[i].q.val();
            self.queue_user[i].d.next = self.queue_user[i].q.val();
        }
        for i in 0..10 {
            self.count_drop[i].clock.next = self.clock.val();
            self.count_drop[i].d.next = self.count_drop[i].q.val();
        }
        self.icrc_check.clock.next = self.clock.val();
        self.icrc_check.reset.next = self.reset.val();
        self.header_decoder.clock.next = self.clock.val();
        self.header_decoder.reset.next = self.reset.val();
        self.data_fifo.clock.next = self.clock.val();
        self.data_fifo.reset.next = self.reset.val();
        self.early_fifo.clock.next = self.clock.val();
        self.early_fifo.reset.next = self.reset.val();

        // ================= input: ICRC check, then header decoder and data FIFO =================
        // The record output is RxHeader's final record; RxHeader (and with it the input) stops
        // while a record waits for r_ready.
        self.record_valid.next = self.header_decoder.h_valid.val() && !self.header_decoder.h_pass.val();
        self.header_ce.next = !self.record_valid.val() || self.r_ready.val();
        self.room.next = self.data_fifo.count.val() < self.data_capacity.val();
        self.take.next = self.icrc_check.m_axis_tvalid.val() && self.header_ce.val() && self.room.val();
        self.icrc_check.s_axis_tvalid.next = self.s_axis_tvalid.val();
        self.icrc_check.s_axis_tdata.next = self.s_axis_tdata.val();
        self.icrc_check.s_axis_tkeep.next = self.s_axis_tkeep.val();
        self.icrc_check.s_axis_tlast.next = self.s_axis_tlast.val();
        self.icrc_check.m_axis_tready.next = self.header_ce.val() && self.room.val();
        // = IcrcCheck's own s_axis_tready, computed here from its registered output
        self.s_axis_tready.next = !self.icrc_check.m_axis_tvalid.val() || (self.header_ce.val() && self.room.val());
        self.header_decoder.ce.next = self.header_ce.val();
        self.header_decoder.s_axis_tvalid.next = self.take.val();
        self.header_decoder.s_axis_tdata.next = self.icrc_check.m_axis_tdata.val();
        self.header_decoder.s_axis_tkeep.next = self.icrc_check.m_axis_tkeep.val();
        self.header_decoder.s_axis_tlast.next = self.icrc_check.m_axis_tlast.val();
        // ICRC verdict carried along RxHeader's stages
        self.icrc_verdict_line.clock.next = self.clock.val();
        self.icrc_verdict_line.ce.next = self.header_ce.val();
        self.icrc_verdict_line.d.next = self.icrc_check.m_axis_tuser.val();
        // bytes in the beat: K when full, else the last kept lane + 1
        self.byte_count.next = 0.into();
        self.keep_shifted.next = self.icrc_check.m_axis_tkeep.val() >> 1;
        for i in 0..K {
            if self.icrc_check.m_axis_tkeep.val().get_bit(i) && !self.keep_shifted.val().get_bit(i) {
                self.byte_count.next = self.byte_count.val() | self.lane_byte_count[i].val();
            }
        }

        // final verdict: the header-time reason, else the ICRC
        self.final_reason.next = self.header_decoder.h_reason.val();
        if self.header_decoder.h_final.val()
            && self.header_decoder.h_reason.val() == 0
            && self.icrc_verdict_line.q.val() != self.icrc_good.val()
        {
            self.final_reason.next = self.reason_icrc.val();
        }
        self.final_drop.next = self.final_reason.val() != 0;
        // A record enters the FIFOs the first cycle it is out, whether or not r_ready takes it
        // then (`record_pushed` marks it while it waits), so the payload never waits for r_ready.
        self.final_push.next = self.header_decoder.h_valid.val() && self.header_decoder.h_final.val() && !self.record_pushed.q.val();
        self.first_push.next = self.header_decoder.h_valid.val() && self.header_decoder.h_first.val() && !self.record_pushed.q.val();
        self.record_pushed.d.next = self.header_decoder.h_valid.val() && !self.header_ce.val();

        // data FIFO push
        self.data_fifo.push.next = self.take.val();
        self.data_fifo.push_data.next = self.icrc_check.m_axis_tdata.val();
        self.data_fifo.push_keep.next = self.icrc_check.m_axis_tkeep.val();
        self.data_fifo.push_last.next = self.icrc_check.m_axis_tlast.val();
        self.data_fifo.push_bytes.next = self.byte_count.val();
        // early FIFO push (first records), with the frame's payload plan in beats
        self.plan_start.next = bit_cast::<18, 16>(self.header_decoder.h_pay_off.val());
        self.plan_last_byte.next = self.header_decoder.h_pay_end.val() - 1;
        self.plan_start_beat.next = self.plan_start.val() >> self.log2_bytes_per_beat.val();
        self.plan_offset.next = self.plan_start.val() & self.offset_mask.val();
        self.plan_end_beat.next = self.plan_last_byte.val() >> self.log2_bytes_per_beat.val();
        self.plan_end_bytes.next = (self.plan_last_byte.val() & self.offset_mask.val()) + 1;
        self.plan_offset_rest.next = self.bytes_per_beat.val() - self.plan_offset.val();
        self.plan_two_beats.next = false;
        if self.plan_end_beat.val() == self.plan_start_beat.val() {
            self.plan_final_bytes.next = self.header_decoder.h_pay_end.val() - self.plan_start.val();
        } else if self.plan_end_bytes.val() > self.plan_offset.val() {
            self.plan_two_beats.next = true;
            self.plan_final_bytes.next = self.plan_end_bytes.val() - self.plan_offset.val();
        } else {
            self.plan_final_bytes.next = self.plan_end_bytes.val() + self.bytes_per_beat.val() - self.plan_offset.val();
        }
        self.plan.next.pass = self.header_decoder.h_pass.val();
        self.plan.next.no_payload = self.header_decoder.h_hfail.val() || self.header_decoder.h_pay_end.val() <= self.plan_start.val();
        self.plan.next.start_beat = self.plan_start_beat.val().get_bits::<4>(0);
        self.plan.next.offset = self.plan_offset.val().get_bits::<8>(0);
        self.plan.next.offset_rest = self.plan_offset_rest.val().get_bits::<8>(0);
        self.plan.next.end_beat = self.plan_end_beat.val();
        self.plan.next.end_bytes = self.plan_end_bytes.val().get_bits::<8>(0);
        self.plan.next.final_bytes = self.plan_final_bytes.val().get_bits::<8>(0);
        self.plan.next.two_beats = self.plan_two_beats.val();
        self.early_fifo.push.next = self.first_push.val();
        self.early_fifo.push_value.next = self.plan.val();
        // verdict FIFO push (final records of RoCEv2 frames)
        if self.final_push.val() && !self.header_decoder.h_pass.val() {
            for i in 0..E {
                if self.verdict_write_ptr.q.val() == self.slot_index[i].val() {
                    self.verdict_drop[i].d.next = self.final_drop.val();
                }
            }
            if self.verdict_write_ptr.q.val() == self.record_last_slot.val() {
                self.verdict_write_ptr.d.next = 0.into();
            } else {
                self.verdict_write_ptr.d.next = self.verdict_write_ptr.q.val() + 1;
            }
        }
        // counters
        if self.final_push.val() {
            self.count_in.d.next = self.count_in.q.val() + 1;
            if self.header_decoder.h_pass.val() {
                self.count_passed.d.next = self.count_passed.q.val() + 1;
            } else if !self.final_drop.val() {
                self.count_accepted.d.next = self.count_accepted.q.val() + 1;
            }
            for i in 0..10 {
                if !self.header_decoder.h_pass.val() && self.final_reason.val() == self.reason_code[i].val() {
                    self.count_drop[i].d.next = self.count_drop[i].q.val() + 1;
                }
            }
        }

        // ================= realigner =================
        self.head_data.next = self.data_fifo.head_data.val();
        self.head_keep.next = self.data_fifo.head_keep.val();
        self.head_last.next = self.data_fifo.head_last.val();
        self.head_bytes.next = self.data_fifo.head_bytes.val();
        self.frame_pass.next = self.early_fifo.head.val().pass;
        self.frame_no_payload.next = self.early_fifo.head.val().no_payload;
        self.frame_start_beat.next = self.early_fifo.head.val().start_beat;
        self.frame_offset.next = self.early_fifo.head.val().offset;
        self.frame_offset_rest.next = self.early_fifo.head.val().offset_rest;
        self.frame_end_beat.next = self.early_fifo.head.val().end_beat;
        self.frame_end_bytes.next = self.early_fifo.head.val().end_bytes;
        self.frame_final_bytes.next = self.early_fifo.head.val().final_bytes;
        self.frame_two_beats.next = self.early_fifo.head.val().two_beats;
        self.frame_drop.next = false;
        for i in 0..E {
            if self.verdict_read_ptr.q.val() == self.slot_index[i].val() {
                self.frame_drop.next = self.verdict_drop[i].q.val();
            }
        }
        self.offset_bits.next = bit_cast::<16, 8>(self.frame_offset.val()) << 3;
        self.offset_rest_bits.next = bit_cast::<16, 8>(self.frame_offset_rest.val()) << 3;
        // where the beat is in the payload plan (the payload starts within the first 16 beats)
        self.before_start.next =
            self.beat_index.q.val().get_bits::<14>(4) == 0 && self.beat_index.q.val().get_bits::<4>(0) < self.frame_start_beat.val();
        self.at_start_beat.next =
            self.beat_index.q.val().get_bits::<14>(4) == 0 && self.beat_index.q.val().get_bits::<4>(0) == self.frame_start_beat.val();
        self.at_end_beat.next = self.beat_index.q.val() == self.frame_end_beat.val();
        // the plan's end, unless the frame ends first (then the bytes come from this beat)
        self.planned_end.next = self.at_end_beat.val() && !(self.head_last.val() && self.head_bytes.val() < self.frame_end_bytes.val());
        self.head_past_offset.next = self.head_bytes.val() > self.frame_offset.val();
        self.head_minus_offset.next = self.head_bytes.val() - self.frame_offset.val();
        if self.head_past_offset.val() {
            self.tail_bytes.next = self.head_minus_offset.val();
        } else if self.at_start_beat.val() {
            self.tail_bytes.next = 0.into();
        } else {
            self.tail_bytes.next = self.head_bytes.val() + self.frame_offset_rest.val();
        }
        if self.planned_end.val() {
            self.final_bytes.next = self.frame_final_bytes.val();
            self.two_beats.next = self.frame_two_beats.val();
        } else {
            self.final_bytes.next = self.tail_bytes.val();
            self.two_beats.next = self.head_past_offset.val() && !self.at_start_beat.val();
        }
        self.payload_ends.next = self.at_end_beat.val() || self.head_last.val();
        self.work.next = !self.frame_pass.val() && !self.frame_no_payload.val() && !self.payload_done.q.val() && !self.before_start.val();
        self.head_shifted.next = self.head_data.val() >> self.offset_bits.val();
        self.funnel.next = self.previous.q.val() | (self.head_data.val() << self.offset_rest_bits.val());
        self.full_out.next = self.work.val() && !self.at_start_beat.val() && (!self.payload_ends.val() || self.two_beats.val());
        self.final_out.next = self.work.val() && self.payload_ends.val() && self.final_bytes.val() != 0;
        if self.at_start_beat.val() || self.two_beats.val() {
            self.final_data.next = self.head_shifted.val();
        } else {
            self.final_data.next = self.funnel.val();
        }
        self.final_keep.next = 0.into();
        for l in 0..K {
            self.final_keep.next = self
                .final_keep
                .val()
                .replace_bit(l, self.final_bytes.val() > self.lane_index[l].val());
        }
        // the held final beat goes out with the frame's last beat
        self.release_held.next = self.head_last.val() && self.held_valid.q.val();

        // payload queue pushes: A (a full beat, or a final one, or the held one), B (a final
        // beat after a full one in the same cycle)
        self.push_a.next = true;
        self.push_a_data.next = self.funnel.val();
        self.push_a_keep.next = self.keep_all.val();
        self.push_a_last.next = false;
        self.push_a_user.next = false;
        self.push_b.next = false;
        if self.release_held.val() {
            self.push_a_data.next = self.held_data.q.val();
            self.push_a_keep.next = self.held_keep.q.val();
            self.push_a_last.next = true;
            self.push_a_user.next = self.frame_drop.val();
        } else if self.full_out.val() {
            self.push_b.next = self.final_out.val() && self.head_last.val();
        } else if self.final_out.val() && self.head_last.val() {
            self.push_a_data.next = self.final_data.val();
            self.push_a_keep.next = self.final_keep.val();
            self.push_a_last.next = true;
            self.push_a_user.next = self.frame_drop.val();
        } else {
            self.push_a.next = false;
        }
        self.push_need.next = 0.into();
        if self.push_a.val() && self.push_b.val() {
            self.push_need.next = 2.into();
        } else if self.push_a.val() {
            self.push_need.next = 1.into();
        }
        self.queue_pop.next = self.queue_count.q.val() != 0 && self.m_pay_tready.val();
        self.advance.next = false;
        if self.data_fifo.head_valid.val() && self.early_fifo.head_valid.val() {
            if self.frame_pass.val() {
                self.advance.next = !self.pass_valid.q.val() || self.m_pass_tready.val();
            } else {
                // room for two pushes, counting this cycle's pop (the queue has three entries)
                self.advance.next = (self.queue_count.q.val() <= 1 || (self.queue_count.q.val() == 2 && self.m_pay_tready.val()))
                    && (!self.head_last.val() || self.verdict_count.q.val() != 0);
            }
        }

        // pass register
        if self.pass_valid.q.val() && self.m_pass_tready.val() {
            self.pass_valid.d.next = false;
        }
        self.push_count.next = 0.into();
        if self.queue_write_ptr.q.val() == 2 {
            self.queue_write_plus_1.next = 0.into();
        } else {
            self.queue_write_plus_1.next = self.queue_write_ptr.q.val() + 1;
        }
        if self.queue_write_plus_1.val() == 2 {
            self.queue_write_plus_2.next = 0.into();
        } else {
            self.queue_write_plus_2.next = self.queue_write_plus_1.val() + 1;
        }
        self.data_fifo.pop.next = self.advance.val();
        self.early_fifo.pop.next = self.advance.val() && self.head_last.val();
        if self.advance.val() {
            if self.head_last.val() {
                self.beat_index.d.next = 0.into();
                self.payload_done.d.next = false;
                self.held_valid.d.next = false;
                if !self.frame_pass.val() {
                    if self.verdict_read_ptr.q.val() == self.record_last_slot.val() {
                        self.verdict_read_ptr.d.next = 0.into();
                    } else {
                        self.verdict_read_ptr.d.next = self.verdict_read_ptr.q.val() + 1;
                    }
                }
            } else {
                self.beat_index.d.next = self.beat_index.q.val() + 1;
                if self.work.val() && self.payload_ends.val() {
                    self.payload_done.d.next = true;
                }
            }
            if self.frame_pass.val() {
                self.pass_valid.d.next = true;
                self.pass_data.d.next = self.head_data.val();
                self.pass_keep.d.next = self.head_keep.val();
                self.pass_last.d.next = self.head_last.val();
            } else {
                if self.work.val() && !self.payload_ends.val() {
                    self.previous.d.next = self.head_shifted.val();
                }
                if self.final_out.val() && !self.head_last.val() {
                    self.held_valid.d.next = true;
                    self.held_data.d.next = self.final_data.val();
                    self.held_keep.d.next = self.final_keep.val();
                }
                for i in 0..3 {
                    if self.push_a.val() && self.queue_write_ptr.q.val() == self.queue_slot[i].val() {
                        self.queue_data[i].d.next = self.push_a_data.val();
                        self.queue_keep[i].d.next = self.push_a_keep.val();
                        self.queue_last[i].d.next = self.push_a_last.val();
                        self.queue_user[i].d.next = self.push_a_user.val();
                    }
                    if self.push_b.val() && self.queue_write_plus_1.val() == self.queue_slot[i].val() {
                        self.queue_data[i].d.next = self.final_data.val();
                        self.queue_keep[i].d.next = self.final_keep.val();
                        self.queue_last[i].d.next = true;
                        self.queue_user[i].d.next = self.frame_drop.val();
                    }
                }
                self.push_count.next = self.push_need.val();
                if self.push_b.val() {
                    self.queue_write_ptr.d.next = self.queue_write_plus_2.val();
                } else if self.push_a.val() {
                    self.queue_write_ptr.d.next = self.queue_write_plus_1.val();
                }
            }
        }
        if self.queue_pop.val() {
            if self.queue_read_ptr.q.val() == 2 {
                self.queue_read_ptr.d.next = 0.into();
            } else {
                self.queue_read_ptr.d.next = self.queue_read_ptr.q.val() + 1;
            }
        }
        if self.queue_pop.val() {
            self.queue_count.d.next = self.queue_count.q.val() + bit_cast::<2, 3>(self.push_count.val()) - 1;
        } else {
            self.queue_count.d.next = self.queue_count.q.val() + bit_cast::<2, 3>(self.push_count.val());
        }

        // record FIFO counts
        if (self.final_push.val() && !self.header_decoder.h_pass.val())
            && !(self.advance.val() && self.head_last.val() && !self.frame_pass.val())
        {
            self.verdict_count.d.next = self.verdict_count.q.val() + 1;
        } else if !(self.final_push.val() && !self.header_decoder.h_pass.val())
            && self.advance.val()
            && self.head_last.val()
            && !self.frame_pass.val()
        {
            self.verdict_count.d.next = self.verdict_count.q.val() - 1;
        }

        if self.reset.val() {
            self.verdict_write_ptr.d.next = 0.into();
            self.verdict_read_ptr.d.next = 0.into();
            self.verdict_count.d.next = 0.into();
            self.beat_index.d.next = 0.into();
            self.payload_done.d.next = false;
            self.held_valid.d.next = false;
            self.record_pushed.d.next = false;
            self.queue_write_ptr.d.next = 0.into();
            self.queue_read_ptr.d.next = 0.into();
            self.queue_count.d.next = 0.into();
            self.pass_valid.d.next = false;
            self.count_in.d.next = 0.into();
            self.count_accepted.d.next = 0.into();
            self.count_passed.d.next = 0.into();
            for i in 0..10 {
                self.count_drop[i].d.next = 0.into();
            }
        }

        // ================= outputs =================
        self.m_pay_tvalid.next = self.queue_count.q.val() != 0;
        self.m_pay_tdata.next = 0.into();
        self.m_pay_tkeep.next = 0.into();
        self.m_pay_tlast.next = false;
        self.m_pay_tuser.next = false;
        for i in 0..3 {
            if self.queue_read_ptr.q.val() == self.queue_slot[i].val() {
                self.m_pay_tdata.next = self.queue_data[i].q.val();
                self.m_pay_tkeep.next = self.queue_keep[i].q.val();
                self.m_pay_tlast.next = self.queue_last[i].q.val();
                self.m_pay_tuser.next = self.queue_user[i].q.val();
            }
        }
        self.m_pass_tvalid.next = self.pass_valid.q.val();
        self.m_pass_tdata.next = self.pass_data.q.val();
        self.m_pass_tkeep.next = self.pass_keep.q.val();
        self.m_pass_tlast.next = self.pass_last.q.val();

        self.r_valid.next = self.record_valid.val();
        self.r_final.next = self.header_decoder.h_final.val();
        self.r_drop.next = self.final_drop.val();
        self.r_reason.next = self.final_reason.val();
        self.r_icrc_chk.next = self.header_decoder.h_icrc_chk.val();
        self.r_icrc_ok.next = self.icrc_verdict_line.q.val() == self.icrc_good.val();
        self.r_eth_dst.next = self.header_decoder.h_eth_dst.val();
        self.r_eth_src.next = self.header_decoder.h_eth_src.val();
        self.r_vlan_ok.next = self.header_decoder.h_vlan_ok.val();
        self.r_vlan.next = self.header_decoder.h_vlan.val();
        self.r_ip_v6.next = self.header_decoder.h_ip_v6.val();
        self.r_ip_src.next = self.header_decoder.h_ip_src.val();
        self.r_ip_dst.next = self.header_decoder.h_ip_dst.val();
        self.r_ip_dscp.next = self.header_decoder.h_ip_dscp.val();
        self.r_ip_ecn.next = self.header_decoder.h_ip_ecn.val();
        self.r_ip_ttl.next = self.header_decoder.h_ip_ttl.val();
        self.r_udp_sport.next = self.header_decoder.h_udp_sport.val();
        self.r_udp_dport.next = self.header_decoder.h_udp_dport.val();
        self.r_bth_ok.next = self.header_decoder.h_bth_ok.val();
        self.r_bth_opcode.next = self.header_decoder.h_bth_opcode.val();
        self.r_bth_se.next = self.header_decoder.h_bth_se.val();
        self.r_bth_m.next = self.header_decoder.h_bth_m.val();
        self.r_bth_padcnt.next = self.header_decoder.h_bth_padcnt.val();
        self.r_bth_tver.next = self.header_decoder.h_bth_tver.val();
        self.r_bth_pkey.next = self.header_decoder.h_bth_pkey.val();
        self.r_bth_fecn.next = self.header_decoder.h_bth_fecn.val();
        self.r_bth_becn.next = self.header_decoder.h_bth_becn.val();
        self.r_bth_dqpn.next = self.header_decoder.h_bth_dqpn.val();
        self.r_bth_ackreq.next = self.header_decoder.h_bth_ackreq.val();
        self.r_bth_psn.next = self.header_decoder.h_bth_psn.val();
        self.r_reth_ok.next = self.header_decoder.h_reth_ok.val();
        self.r_reth_va.next = self.header_decoder.h_reth_va.val();
        self.r_reth_rkey.next = self.header_decoder.h_reth_rkey.val();
        self.r_reth_dmalen.next = self.header_decoder.h_reth_dmalen.val();
        self.r_immdt_ok.next = self.header_decoder.h_immdt_ok.val();
        self.r_immdt.next = self.header_decoder.h_immdt.val();
        self.r_aeth_ok.next = self.header_decoder.h_aeth_ok.val();
        self.r_aeth_syndrome.next = self.header_decoder.h_aeth_syndrome.val();
        self.r_aeth_msn.next = self.header_decoder.h_aeth_msn.val();
        self.r_pay_len.next = self.header_decoder.h_pay_len.val();

        self.cnt_frames_in.next = self.count_in.q.val();
        self.cnt_accepted.next = self.count_accepted.q.val();
        self.cnt_passed.next = self.count_passed.q.val();
        self.cnt_drop_ip_header.next = self.count_drop[0].q.val();
        self.cnt_drop_truncated.next = self.count_drop[1].q.val();
        self.cnt_drop_ip_length.next = self.count_drop[2].q.val();
        self.cnt_drop_ip_checksum.next = self.count_drop[3].q.val();
        self.cnt_drop_ip_fragment.next = self.count_drop[4].q.val();
        self.cnt_drop_udp_length.next = self.count_drop[5].q.val();
        self.cnt_drop_tver.next = self.count_drop[6].q.val();
        self.cnt_drop_opcode.next = self.count_drop[7].q.val();
        self.cnt_drop_padcnt.next = self.count_drop[8].q.val();
        self.cnt_drop_icrc.next = self.count_drop[9].q.val();
    }
}
