//! RX front end (issue 3): [`RxFront`], the MAC-side receive path of Ferroce.
//!
//! Ethernet frames in (AXI-Stream, no FCS, `tkeep` contiguous from lane 0); out:
//! - **records** (`r_valid`/`r_ready`): per RoCEv2 frame (accepted or dropped), in frame order,
//!   a final record (`r_final`) with the verdict, the drop reason and every field of
//!   `ferroce-sim rx`'s JSON; a frame longer than the 128-byte header capture gets a header
//!   record before it, as soon as the capture completes (see `r_final`); each record
//!   [`record_latency`] cycles (8 at 512 bits) after the beat that completes it;
//! - **payload** (`m_pay_*`): per record with `r_pay_len > 0`, exactly that many bytes, realigned
//!   to byte 0 (full beats but the last), without pad and ICRC; `m_pay_tuser` is 1 on the last
//!   beat of a packet that is dropped (`r_drop`), so downstream never commits it;
//! - **pass-through** (`m_pass_*`): frames that are not RoCEv2, beat for beat, untouched;
//! - **counters** (`cnt_*`): frames in, accepted, passed and drops per reason.
//!
//! The semantics are those of the software model `ferroce_models::rx::rx_model` (docs/rx.md).
//!
//! ```text
//!  s_axis ─► IcrcCore ── tail ─► IcrcVerdict ────────────┐ (the verdict, with the final record)
//!           (early beat)                                  ▼
//!               ├─► RxHeader ──┬─ first record ─► plan P1..P3 ─► plan FIFO ────┐
//!               │  (header_ce) ├─ final record ─────────────────► verdict FIFO ─┤ RxRealigner
//!               │              └─► records (r_*), counters (cnt_*)              │ (realign.rs)
//!               └─────────────────────────────────────────────► data FIFO ─────┴─► m_pay, m_pass
//! ```
//!
//! - The ICRC core ([`IcrcCore`], as in `IcrcCheck`) and `RxHeader` run side by side in lock
//!   step (`header_ce`): `RxHeader` and the data FIFO take each beat from the core's early
//!   stage (S1 at 64 and 128 bits, S2 at 256 and 512, S3 at 1024), so the final record leaves
//!   `RxHeader` in the cycle [`IcrcVerdict`] registers the frame's ICRC verdict:
//!   [`record_latency`] cycles after the frame's last beat (8 at 512 bits). Only the core's
//!   first stages carry the beat; the rest of its beat delay line is left unused (synthesis
//!   removes it).
//! - The input takes a beat only while the data FIFO has room; the beats already in the core's
//!   first stages still arrive, so the FIFO has room for `EARLY_STAGE` beats beyond `D`.
//! - `RxHeader` decodes every frame twice: a first record when its header capture completes
//!   (`CAPTURE_BEATS − 1` beats in; the last beat for shorter frames), which fixes the
//!   classification, the header checks and the payload region; and a final record at its last
//!   beat, which adds what depends on the frame length. Both go out on `r_*` (the first one only
//!   when it is not also the final one, as `r_final` = 0); the final one carries the ICRC
//!   verdict. `RxHeader` holds a record (and stops, and
//!   the input with it) while `r_ready` is low; the record enters the FIFOs below in the cycle it
//!   first appears, so the payload never waits for `r_ready`.
//! - From a first record the frame's payload is planned in beats over three stages (P1..P3, one
//!   subtraction or compare each): the beat where it starts, its offset `r` in that beat, the
//!   beat where it ends, and the size of the final output beat, so the realigner compares beat
//!   indices instead of byte offsets. A final record gives the frame's drop verdict.
//! - [`RxRealigner`] keeps the beats, plans and verdicts in LUTRAM FIFOs and cuts the payload
//!   out (its module docs give its stages). Its data FIFO holds `D` = [`data_depth`] beats: the
//!   realigner runs `CAPTURE_BEATS + HEADER_RECORD_LATENCY + 5` beats behind the input, which is
//!   when each plan is at the plan FIFO's head, plus two beats in flight, so back-to-back frames
//!   of every size flow at one beat per cycle.
//! - The counters count each final record in the cycle it leaves `RxHeader` (their registered
//!   `cnt_*` show it from the next cycle).

use super::header::{self, RxHeader};
use super::icrc_check::IcrcVerdict;
use super::realign::{FramePlan, RxRealigner};
use crate::common::counter::EventCounter;
use crate::common::elab::c;
use crate::common::fifo::CAPACITY;
use crate::common::icrc_core::{self, IcrcCore};
use ferroce_contracts::rx::{DropReason, IcrcVerdictCode, HEADER_RECORD_LATENCY};
use rust_hdl::prelude::*;

/// Data FIFO depth for `K` bytes per beat: the realigner's lag behind the input
/// (`CAPTURE_BEATS` + the header record latency + three plan stages + two cycles from a plan's
/// push to the plan FIFO's head) plus two beats in flight.
pub const fn data_depth(k: usize) -> usize {
    header::CAPTURE_BYTES / k + HEADER_RECORD_LATENCY + 7
}

/// Cycles from the cycle that takes a frame's last beat to its final record on `r_*` (and from
/// the beat that completes the header capture to a header record), for `K` bytes per beat: the
/// ICRC core's latency (7 at 64 and 128 bits, 8 at 256 and 512, 9 at 1024).
pub const fn record_latency(k: usize) -> usize {
    icrc_core::latency(k)
}

// The payload starts inside the header capture: its offset fits the 8-bit plan registers.
const _: () = assert!(header::CAPTURE_BYTES < 256);

/// Counters: frames in, accepted, passed, then one per drop reason in `DropReason::ALL` order.
const COUNTERS: usize = 3 + DropReason::ALL.len();

/// RX front end; see the module docs. `W` bus width (64..1024), `K = W / 8`, `D` data FIFO
/// depth ([`data_depth`]).
#[derive(LogicBlock)]
pub struct RxFront<const W: usize, const K: usize, const D: usize> {
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
    /// first gets a header record (`r_final` = 0) [`record_latency`] cycles after the beat that
    /// completes the capture: every header field is final in it, `r_drop`/`r_reason` reflect the header checks
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

    icrc_core: IcrcCore<W, K>,
    icrc_verdict: IcrcVerdict,
    header_decoder: RxHeader<W, K>,
    realigner: RxRealigner<W, K, D>,
    counters: [EventCounter; COUNTERS],

    // ---- constants ----
    /// K − 1 (a byte offset's lane) and log2(K) as 18-bit numbers; K, K − 1 and log2(K) as
    /// 8-bit ones, for the payload start.
    offset_mask: Constant<Bits<18>>,
    log2_bytes_per_beat: Constant<Bits<18>>,
    bytes_per_beat_8bit: Constant<Bits<8>>,
    offset_mask_8bit: Constant<Bits<8>>,
    log2_bytes_per_beat_8bit: Constant<Bits<8>>,
    /// Drop-reason code of each drop counter.
    reason_code: [Constant<Bits<4>>; 10],
    /// `IcrcCheck`'s verdict code of a good ICRC, and the drop-reason code of a bad one.
    icrc_good: Constant<Bits<2>>,
    reason_icrc: Constant<Bits<4>>,

    // ---- input side ----
    /// The ICRC core and `RxHeader` advance: no record waits for `r_ready`.
    header_ce: Signal<Local, Bit>,
    /// The input beat is taken (the data FIFO has room).
    input_take: Signal<Local, Bit>,
    /// `RxHeader` and the data FIFO take the core's early beat.
    take: Signal<Local, Bit>,
    record_valid: Signal<Local, Bit>,
    /// Drop reason of the record on `r_*` (the header's, else the ICRC's), and whether it drops.
    final_reason: Signal<Local, Bits<4>>,
    final_drop: Signal<Local, Bit>,
    /// A final record enters the verdict FIFO and the counters.
    final_push: Signal<Local, Bit>,
    /// The record on `RxHeader`'s outputs already entered the FIFOs (it waits for `r_ready`).
    record_pushed: DFF<Bit>,
    /// A first record enters the plan stages.
    first_push: Signal<Local, Bit>,
    /// What each counter counts this cycle (bit i: counter i).
    count_now: Signal<Local, Bits<COUNTERS>>,

    // ---- plan stages (a register's number is its stage) ----
    plan_valid1: DFF<Bit>,
    pass1: DFF<Bit>,
    header_failed1: DFF<Bit>,
    /// Payload start and end (exclusive) in the frame. The payload starts inside the header
    /// capture, so its start fits in 8 bits.
    start1: DFF<Bits<8>>,
    end1: DFF<Bits<18>>,
    plan_valid2: DFF<Bit>,
    pass2: DFF<Bit>,
    header_failed2: DFF<Bit>,
    start2: DFF<Bits<8>>,
    /// The payload's last byte, and whether the payload is empty.
    last_byte2: DFF<Bits<18>>,
    empty2: DFF<Bit>,
    /// The payload's bytes mod 256 (its final output beat's bytes when it fits one beat).
    single_bytes2: DFF<Bits<8>>,
    offset_rest2: DFF<Bits<8>>,
    plan_valid3: DFF<Bit>,
    pass3: DFF<Bit>,
    no_payload3: DFF<Bit>,
    start_beat3: DFF<Bits<4>>,
    offset3: DFF<Bits<8>>,
    offset_rest3: DFF<Bits<8>>,
    end_beat3: DFF<Bits<16>>,
    end_bytes3: DFF<Bits<8>>,
    /// The payload starts and ends in the same beat.
    single3: DFF<Bit>,
    single_bytes3: DFF<Bits<8>>,
    /// The payload start's lane (P1) and beat and lane (P2), the last byte's beat and lane (P2).
    start_lane: Signal<Local, Bits<8>>,
    start_beat: Signal<Local, Bits<8>>,
    start_offset: Signal<Local, Bits<8>>,
    last_beat: Signal<Local, Bits<18>>,
    last_lane: Signal<Local, Bits<18>>,
    /// The payload's last beat has more bytes than the offset: a full output beat and the final
    /// one come out of it.
    end_past_offset: Signal<Local, Bit>,
    plan: Signal<Local, FramePlan>,
}

impl<const W: usize, const K: usize, const D: usize> Default for RxFront<W, K, D> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        assert_eq!(D, data_depth(K), "D must be data_depth(K)");
        assert!(
            D + IcrcCore::<W, K>::EARLY_STAGE <= CAPACITY,
            "the data FIFO takes the beats in the core's first stages"
        );
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
            icrc_core: IcrcCore::new(true),
            icrc_verdict: Default::default(),
            header_decoder: Default::default(),
            realigner: Default::default(),
            counters: std::array::from_fn(|_| Default::default()),
            offset_mask: c::<18>(K as u64 - 1),
            log2_bytes_per_beat: c::<18>(K.trailing_zeros() as u64),
            bytes_per_beat_8bit: c::<8>(K as u64),
            offset_mask_8bit: c::<8>(K as u64 - 1),
            log2_bytes_per_beat_8bit: c::<8>(K.trailing_zeros() as u64),
            reason_code: std::array::from_fn(|i| c::<4>(DropReason::ALL[i].code() as u64)),
            icrc_good: c::<2>(IcrcVerdictCode::Good.code() as u64),
            reason_icrc: c::<4>(DropReason::Icrc.code() as u64),
            header_ce: Default::default(),
            input_take: Default::default(),
            take: Default::default(),
            record_valid: Default::default(),
            final_reason: Default::default(),
            final_drop: Default::default(),
            final_push: Default::default(),
            record_pushed: Default::default(),
            first_push: Default::default(),
            count_now: Default::default(),
            plan_valid1: Default::default(),
            pass1: Default::default(),
            header_failed1: Default::default(),
            start1: Default::default(),
            end1: Default::default(),
            plan_valid2: Default::default(),
            pass2: Default::default(),
            header_failed2: Default::default(),
            start2: Default::default(),
            last_byte2: Default::default(),
            empty2: Default::default(),
            single_bytes2: Default::default(),
            offset_rest2: Default::default(),
            plan_valid3: Default::default(),
            pass3: Default::default(),
            no_payload3: Default::default(),
            start_beat3: Default::default(),
            offset3: Default::default(),
            offset_rest3: Default::default(),
            end_beat3: Default::default(),
            end_bytes3: Default::default(),
            single3: Default::default(),
            single_bytes3: Default::default(),
            start_lane: Default::default(),
            start_beat: Default::default(),
            start_offset: Default::default(),
            last_beat: Default::default(),
            last_lane: Default::default(),
            end_past_offset: Default::default(),
            plan: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize, const D: usize> Logic for RxFront<W, K, D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            record_pushed,
            plan_valid1,
            pass1,
            header_failed1,
            start1,
            end1,
            plan_valid2,
            pass2,
            header_failed2,
            start2,
            last_byte2,
            empty2,
            single_bytes2,
            offset_rest2,
            plan_valid3,
            pass3,
            no_payload3,
            start_beat3,
            offset3,
            offset_rest3,
            end_beat3,
            end_bytes3,
            single3,
            single_bytes3
        );
        self.icrc_core.clock.next = self.clock.val();
        self.icrc_core.reset.next = self.reset.val();
        self.icrc_verdict.clock.next = self.clock.val();
        self.header_decoder.clock.next = self.clock.val();
        self.header_decoder.reset.next = self.reset.val();
        self.realigner.clock.next = self.clock.val();
        self.realigner.reset.next = self.reset.val();
        for i in 0..COUNTERS {
            self.counters[i].clock.next = self.clock.val();
            self.counters[i].reset.next = self.reset.val();
        }

        // ================= input: the ICRC core; its early beat to the header decoder and data FIFO ====
        // The record output is RxHeader's final record; RxHeader and the core (and with them the
        // input) stop while a record waits for r_ready. The input also waits for room in the
        // data FIFO; the beats in the core's first stages still go in.
        self.record_valid.next = self.header_decoder.h_valid.val() && !self.header_decoder.h_pass.val();
        self.header_ce.next = !self.record_valid.val() || self.r_ready.val();
        self.input_take.next = self.header_ce.val() && self.realigner.room.val();
        self.s_axis_tready.next = self.input_take.val();
        self.icrc_core.en.next = self.header_ce.val();
        self.icrc_core.in_valid.next = self.s_axis_tvalid.val() && self.realigner.room.val();
        self.icrc_core.in_data.next = self.s_axis_tdata.val();
        self.icrc_core.in_keep.next = self.s_axis_tkeep.val();
        self.icrc_core.in_last.next = self.s_axis_tlast.val();
        self.take.next = self.icrc_core.early_valid.val() && self.header_ce.val();
        self.header_decoder.ce.next = self.header_ce.val();
        self.header_decoder.s_axis_tvalid.next = self.take.val();
        self.header_decoder.s_axis_tdata.next = self.icrc_core.early_data.val();
        self.header_decoder.s_axis_tkeep.next = self.icrc_core.early_keep.val();
        self.header_decoder.s_axis_tlast.next = self.icrc_core.early_last.val();
        self.realigner.beat_push.next = self.take.val();
        self.realigner.beat_data.next = self.icrc_core.early_data.val();
        self.realigner.beat_keep.next = self.icrc_core.early_keep.val();
        self.realigner.beat_last.next = self.icrc_core.early_last.val();
        self.realigner.beat_bytes.next = self.icrc_core.early_byte_count.val();
        // the ICRC verdict, registered in the cycle the final record leaves RxHeader
        self.icrc_verdict.advance.next = self.header_ce.val();
        self.icrc_verdict.tail_valid.next = self.icrc_core.t_valid.val();
        self.icrc_verdict.tail_first.next = self.icrc_core.t_first.val();
        self.icrc_verdict.tail_last.next = self.icrc_core.t_last.val();
        self.icrc_verdict.tail_roce.next = self.icrc_core.t_roce.val();
        self.icrc_verdict.tail_complete.next = self.icrc_core.t_complete.val();
        self.icrc_verdict.tail_fold.next = self.icrc_core.t_fold.val();
        self.icrc_verdict.tail_icrc_rotation.next = self.icrc_core.t_icrc_rotation.val();
        self.icrc_verdict.tail_crc_valid.next = self.icrc_core.t_crc_valid.val();
        self.icrc_verdict.tail_crc.next = self.icrc_core.t_crc.val();

        // ================= records: the final verdict, the FIFO pushes =================
        // final verdict: the header-time reason, else the ICRC
        self.final_reason.next = self.header_decoder.h_reason.val();
        if self.header_decoder.h_final.val()
            && self.header_decoder.h_reason.val() == 0
            && self.icrc_verdict.verdict.val() != self.icrc_good.val()
        {
            self.final_reason.next = self.reason_icrc.val();
        }
        self.final_drop.next = self.final_reason.val() != 0;
        // A record enters the FIFOs the first cycle it is out, whether or not r_ready takes it
        // then (`record_pushed` marks it while it waits).
        self.final_push.next = self.header_decoder.h_valid.val() && self.header_decoder.h_final.val() && !self.record_pushed.q.val();
        self.first_push.next = self.header_decoder.h_valid.val() && self.header_decoder.h_first.val() && !self.record_pushed.q.val();
        self.record_pushed.d.next = self.header_decoder.h_valid.val() && !self.header_ce.val();
        self.realigner.verdict_push.next = self.final_push.val() && !self.header_decoder.h_pass.val();
        self.realigner.verdict_drop.next = self.final_drop.val();

        // ================= plan stages: the payload in beats =================
        // P1: the first record's payload region
        self.plan_valid1.d.next = self.first_push.val();
        if self.first_push.val() {
            self.pass1.d.next = self.header_decoder.h_pass.val();
            self.header_failed1.d.next = self.header_decoder.h_hfail.val();
            self.start1.d.next = self.header_decoder.h_pay_off.val().get_bits::<8>(0);
            self.end1.d.next = self.header_decoder.h_pay_end.val();
        }
        // P2: last byte, emptiness, offsets
        self.plan_valid2.d.next = self.plan_valid1.q.val();
        self.pass2.d.next = self.pass1.q.val();
        self.header_failed2.d.next = self.header_failed1.q.val();
        self.start2.d.next = self.start1.q.val();
        self.last_byte2.d.next = self.end1.q.val() - 1;
        self.empty2.d.next = self.end1.q.val() <= bit_cast::<18, 8>(self.start1.q.val());
        self.single_bytes2.d.next = self.end1.q.val().get_bits::<8>(0) - self.start1.q.val();
        self.start_lane.next = self.start1.q.val() & self.offset_mask_8bit.val();
        self.offset_rest2.d.next = self.bytes_per_beat_8bit.val() - self.start_lane.val();
        // P3: beats
        self.plan_valid3.d.next = self.plan_valid2.q.val();
        self.pass3.d.next = self.pass2.q.val();
        self.no_payload3.d.next = self.header_failed2.q.val() || self.empty2.q.val();
        self.start_beat.next = self.start2.q.val() >> self.log2_bytes_per_beat_8bit.val();
        self.start_offset.next = self.start2.q.val() & self.offset_mask_8bit.val();
        self.last_beat.next = self.last_byte2.q.val() >> self.log2_bytes_per_beat.val();
        self.last_lane.next = self.last_byte2.q.val() & self.offset_mask.val();
        self.start_beat3.d.next = self.start_beat.val().get_bits::<4>(0);
        self.offset3.d.next = self.start_offset.val();
        self.offset_rest3.d.next = self.offset_rest2.q.val();
        self.end_beat3.d.next = self.last_beat.val().get_bits::<16>(0);
        self.end_bytes3.d.next = self.last_lane.val().get_bits::<8>(0) + 1;
        self.single3.d.next = self.last_beat.val() == bit_cast::<18, 8>(self.start_beat.val());
        self.single_bytes3.d.next = self.single_bytes2.q.val();
        // the plan: the final output beat's bytes
        self.end_past_offset.next = self.end_bytes3.q.val() > self.offset3.q.val();
        self.plan.next.pass = self.pass3.q.val();
        self.plan.next.no_payload = self.no_payload3.q.val();
        self.plan.next.start_beat = self.start_beat3.q.val();
        self.plan.next.offset = self.offset3.q.val();
        self.plan.next.offset_rest = self.offset_rest3.q.val();
        self.plan.next.end_beat = self.end_beat3.q.val();
        self.plan.next.end_bytes = self.end_bytes3.q.val();
        self.plan.next.two_beats = !self.single3.q.val() && self.end_past_offset.val();
        if self.single3.q.val() {
            self.plan.next.final_bytes = self.single_bytes3.q.val();
        } else if self.end_past_offset.val() {
            self.plan.next.final_bytes = self.end_bytes3.q.val() - self.offset3.q.val();
        } else {
            self.plan.next.final_bytes = self.end_bytes3.q.val() + self.offset_rest3.q.val();
        }
        self.realigner.plan_push.next = self.plan_valid3.q.val();
        self.realigner.plan.next = self.plan.val();

        // ================= realigner =================
        self.realigner.m_pay_tready.next = self.m_pay_tready.val();
        self.realigner.m_pass_tready.next = self.m_pass_tready.val();
        self.m_pay_tvalid.next = self.realigner.m_pay_tvalid.val();
        self.m_pay_tdata.next = self.realigner.m_pay_tdata.val();
        self.m_pay_tkeep.next = self.realigner.m_pay_tkeep.val();
        self.m_pay_tlast.next = self.realigner.m_pay_tlast.val();
        self.m_pay_tuser.next = self.realigner.m_pay_tuser.val();
        self.m_pass_tvalid.next = self.realigner.m_pass_tvalid.val();
        self.m_pass_tdata.next = self.realigner.m_pass_tdata.val();
        self.m_pass_tkeep.next = self.realigner.m_pass_tkeep.val();
        self.m_pass_tlast.next = self.realigner.m_pass_tlast.val();

        // ================= counters (the final record's cycle) =================
        self.count_now.next = 0.into();
        if self.final_push.val() {
            self.count_now.next = self.count_now.val().replace_bit(0, true);
            if self.header_decoder.h_pass.val() {
                self.count_now.next = self.count_now.val().replace_bit(2, true);
            } else if !self.final_drop.val() {
                self.count_now.next = self.count_now.val().replace_bit(1, true);
            }
            for i in 0..10 {
                if !self.header_decoder.h_pass.val() && self.final_reason.val() == self.reason_code[i].val() {
                    self.count_now.next = self.count_now.val().replace_bit(i + 3, true);
                }
            }
        }
        for i in 0..COUNTERS {
            self.counters[i].increment.next = self.count_now.val().get_bit(i);
        }

        if self.reset.val() {
            self.record_pushed.d.next = false;
            self.plan_valid1.d.next = false;
            self.plan_valid2.d.next = false;
            self.plan_valid3.d.next = false;
        }

        // ================= outputs =================
        self.r_valid.next = self.record_valid.val();
        self.r_final.next = self.header_decoder.h_final.val();
        self.r_drop.next = self.final_drop.val();
        self.r_reason.next = self.final_reason.val();
        self.r_icrc_chk.next = self.header_decoder.h_icrc_chk.val();
        self.r_icrc_ok.next = self.icrc_verdict.verdict.val() == self.icrc_good.val();
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

        self.cnt_frames_in.next = self.counters[0].count.val();
        self.cnt_accepted.next = self.counters[1].count.val();
        self.cnt_passed.next = self.counters[2].count.val();
        self.cnt_drop_ip_header.next = self.counters[3].count.val();
        self.cnt_drop_truncated.next = self.counters[4].count.val();
        self.cnt_drop_ip_length.next = self.counters[5].count.val();
        self.cnt_drop_ip_checksum.next = self.counters[6].count.val();
        self.cnt_drop_ip_fragment.next = self.counters[7].count.val();
        self.cnt_drop_udp_length.next = self.counters[8].count.val();
        self.cnt_drop_tver.next = self.counters[9].count.val();
        self.cnt_drop_opcode.next = self.counters[10].count.val();
        self.cnt_drop_padcnt.next = self.counters[11].count.val();
        self.cnt_drop_icrc.next = self.counters[12].count.val();
    }
}
