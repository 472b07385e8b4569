//! [`IcrcCheck`]: the RX ICRC check, the first unit of the RX path, and [`IcrcVerdict`], the
//! verdict stage it shares with `RxFront`.

use crate::common::elab::c;
use crate::common::icrc_core::IcrcCore;
use ferroce_contracts::rx::IcrcVerdictCode;
use rust_hdl::prelude::*;

/// RX ICRC check: frames in, the same frames out (same beats, same `tkeep`) with the verdict on
/// the last beat: `m_tuser` = [`IcrcVerdictCode`], `m_icrc` = the ICRC the unit computed (wire byte
/// order: bits 7:0 are the first byte on the wire), `m_icrc_valid` = the frame is RoCEv2 and holds
/// a whole IP packet long enough for the headers (otherwise there is nothing to compute).
/// One beat per cycle with back-to-back frames; [`IcrcCore::LATENCY`] cycles from last beat in to
/// verdict out (8 at 256/512 bits).
#[derive(LogicBlock)]
pub struct IcrcCheck<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties the pipeline and forgets any partial frame.
    pub reset: Signal<In, Bit>,
    /// Input stream (frames): valid.
    pub s_axis_tvalid: Signal<In, Bit>,
    /// Input stream: ready (the output register is empty or `m_axis_tready` is high).
    pub s_axis_tready: Signal<Out, Bit>,
    /// Input stream: data (frame byte 0 of a beat in bits 7:0).
    pub s_axis_tdata: Signal<In, Bits<W>>,
    /// Input stream: byte enables (contiguous from lane 0).
    pub s_axis_tkeep: Signal<In, Bits<K>>,
    /// Input stream: last beat of a frame.
    pub s_axis_tlast: Signal<In, Bit>,
    /// Output stream (the same frames): valid.
    pub m_axis_tvalid: Signal<Out, Bit>,
    /// Output stream: ready.
    pub m_axis_tready: Signal<In, Bit>,
    /// Output stream: data.
    pub m_axis_tdata: Signal<Out, Bits<W>>,
    /// Output stream: byte enables.
    pub m_axis_tkeep: Signal<Out, Bits<K>>,
    /// Output stream: last beat of a frame.
    pub m_axis_tlast: Signal<Out, Bit>,
    /// Output stream: the ICRC verdict on a frame's last beat ([`IcrcVerdictCode`]), 0 on other beats.
    pub m_axis_tuser: Signal<Out, Bits<2>>,
    /// The ICRC the unit computed (wire byte order, bits 7:0 first) when `m_icrc_valid`, else 0.
    pub m_icrc: Signal<Out, Bits<32>>,
    /// `m_icrc` is valid: last beat of a RoCEv2 frame holding a whole IP packet long enough for the headers.
    pub m_icrc_valid: Signal<Out, Bit>,
    core: IcrcCore<W, K>,
    verdict: IcrcVerdict,
    /// The pipeline advances: the output register is empty or taken.
    advance: Signal<Local, Bit>,
    /// The output register (the tail beat, registered with its verdict).
    output_valid: DFF<Bit>,
    output_data: DFF<Bits<W>>,
    output_keep: DFF<Bits<K>>,
    output_last: DFF<Bit>,
}

impl<const W: usize, const K: usize> Default for IcrcCheck<W, K> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tready: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tkeep: Default::default(),
            s_axis_tlast: Default::default(),
            m_axis_tvalid: Default::default(),
            m_axis_tready: Default::default(),
            m_axis_tdata: Default::default(),
            m_axis_tkeep: Default::default(),
            m_axis_tlast: Default::default(),
            m_axis_tuser: Default::default(),
            m_icrc: Default::default(),
            m_icrc_valid: Default::default(),
            core: IcrcCore::new(true),
            verdict: Default::default(),
            advance: Default::default(),
            output_valid: Default::default(),
            output_data: Default::default(),
            output_keep: Default::default(),
            output_last: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize> Logic for IcrcCheck<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, output_valid, output_data, output_keep, output_last);
        // the core, in lock step with the output register
        self.core.clock.next = self.clock.val();
        self.core.reset.next = self.reset.val();
        self.advance.next = !self.output_valid.q.val() || self.m_axis_tready.val();
        self.core.en.next = self.advance.val();
        self.core.in_valid.next = self.s_axis_tvalid.val();
        self.core.in_data.next = self.s_axis_tdata.val();
        self.core.in_keep.next = self.s_axis_tkeep.val();
        self.core.in_last.next = self.s_axis_tlast.val();
        self.s_axis_tready.next = self.advance.val();
        // the verdict of the tail beat, registered beside it
        self.verdict.clock.next = self.clock.val();
        self.verdict.advance.next = self.advance.val();
        self.verdict.tail_valid.next = self.core.t_valid.val();
        self.verdict.tail_first.next = self.core.t_first.val();
        self.verdict.tail_last.next = self.core.t_last.val();
        self.verdict.tail_roce.next = self.core.t_roce.val();
        self.verdict.tail_complete.next = self.core.t_complete.val();
        self.verdict.tail_fold.next = self.core.t_fold.val();
        self.verdict.tail_icrc_rotation.next = self.core.t_icrc_rotation.val();
        self.verdict.tail_crc_valid.next = self.core.t_crc_valid.val();
        self.verdict.tail_crc.next = self.core.t_crc.val();
        if self.advance.val() {
            self.output_valid.d.next = self.core.t_valid.val();
            self.output_data.d.next = self.core.t_data.val();
            self.output_keep.d.next = self.core.t_keep.val();
            self.output_last.d.next = self.core.t_last.val();
        }
        if self.reset.val() {
            self.output_valid.d.next = false;
        }
        self.m_axis_tvalid.next = self.output_valid.q.val();
        self.m_axis_tdata.next = self.output_data.q.val();
        self.m_axis_tkeep.next = self.output_keep.q.val();
        self.m_axis_tlast.next = self.output_last.q.val();
        self.m_axis_tuser.next = self.verdict.verdict.val();
        self.m_icrc.next = self.verdict.icrc.val();
        self.m_icrc_valid.next = self.verdict.icrc_valid.val();
    }
}

/// The ICRC verdict of each frame from the tail of an [`IcrcCore`] in check mode: the wire ICRC
/// is gathered from the fold of the beats that hold it (rotated back to wire order), the
/// computed one is kept from the last covered beat, and the two are compared on the frame's
/// last beat. Outputs are registered on `advance`, one cycle after the tail beat, as `IcrcCheck`
/// registers the beat itself.
#[derive(LogicBlock)]
pub struct IcrcVerdict {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// The core's pipeline advances (its `en`).
    pub advance: Signal<In, Bit>,
    /// The core's tail beat (`t_*`): valid.
    pub tail_valid: Signal<In, Bit>,
    /// Tail beat: first beat of its frame.
    pub tail_first: Signal<In, Bit>,
    /// Tail beat: last beat of its frame.
    pub tail_last: Signal<In, Bit>,
    /// Tail beat: its frame is RoCEv2.
    pub tail_roce: Signal<In, Bit>,
    /// Tail beat: the frame holds its whole IP packet, long enough for the headers.
    pub tail_complete: Signal<In, Bit>,
    /// Tail beat: XOR fold of its wire-ICRC bytes.
    pub tail_fold: Signal<In, Bits<32>>,
    /// Tail beat: ICRC position mod 4.
    pub tail_icrc_rotation: Signal<In, Bits<2>>,
    /// Tail beat: the frame's computed ICRC is on `tail_crc`.
    pub tail_crc_valid: Signal<In, Bit>,
    /// The frame's computed ICRC.
    pub tail_crc: Signal<In, Bits<32>>,
    /// [`IcrcVerdictCode`] of the frame whose last beat was the tail beat last time the core
    /// advanced; `NotRoce` (0) after other beats.
    pub verdict: Signal<Out, Bits<2>>,
    /// The computed ICRC with the verdict (wire byte order) when `icrc_valid`, else 0.
    pub icrc: Signal<Out, Bits<32>>,
    /// The frame was RoCEv2 and complete: `icrc` is meaningful.
    pub icrc_valid: Signal<Out, Bit>,
    /// The computed ICRC, this beat's or the one held since the last covered beat.
    crc_now: Signal<Local, Bits<32>>,
    /// The wire ICRC gathered so far including this beat, in fold order, and in wire order.
    fold_now: Signal<Local, Bits<32>>,
    wire_icrc: Signal<Local, Bits<32>>,
    crc_held: DFF<Bits<32>>,
    fold_gathered: DFF<Bits<32>>,
    verdict_code: DFF<Bits<2>>,
    icrc_computed: DFF<Bits<32>>,
    icrc_computed_valid: DFF<Bit>,
    verdict_good: Constant<Bits<2>>,
    verdict_bad: Constant<Bits<2>>,
}

impl Default for IcrcVerdict {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            advance: Default::default(),
            tail_valid: Default::default(),
            tail_first: Default::default(),
            tail_last: Default::default(),
            tail_roce: Default::default(),
            tail_complete: Default::default(),
            tail_fold: Default::default(),
            tail_icrc_rotation: Default::default(),
            tail_crc_valid: Default::default(),
            tail_crc: Default::default(),
            verdict: Default::default(),
            icrc: Default::default(),
            icrc_valid: Default::default(),
            crc_now: Default::default(),
            fold_now: Default::default(),
            wire_icrc: Default::default(),
            crc_held: Default::default(),
            fold_gathered: Default::default(),
            verdict_code: Default::default(),
            icrc_computed: Default::default(),
            icrc_computed_valid: Default::default(),
            verdict_good: c::<2>(IcrcVerdictCode::Good.code().into()),
            verdict_bad: c::<2>(IcrcVerdictCode::Bad.code().into()),
        }
    }
}

impl Logic for IcrcVerdict {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            crc_held,
            fold_gathered,
            verdict_code,
            icrc_computed,
            icrc_computed_valid
        );
        if self.tail_crc_valid.val() {
            self.crc_now.next = self.tail_crc.val();
        } else {
            self.crc_now.next = self.crc_held.q.val();
        }
        if self.tail_first.val() {
            self.fold_now.next = self.tail_fold.val();
        } else {
            self.fold_now.next = self.fold_gathered.q.val() ^ self.tail_fold.val();
        }
        // The fold holds ICRC byte k in lane (q + k) mod 4: rotate it back to wire order.
        self.wire_icrc.next = self.fold_now.val();
        if self.tail_icrc_rotation.val() == 1 {
            self.wire_icrc.next = (self.fold_now.val() >> 8) | (self.fold_now.val() << 24);
        }
        if self.tail_icrc_rotation.val() == 2 {
            self.wire_icrc.next = (self.fold_now.val() >> 16) | (self.fold_now.val() << 16);
        }
        if self.tail_icrc_rotation.val() == 3 {
            self.wire_icrc.next = (self.fold_now.val() >> 24) | (self.fold_now.val() << 8);
        }
        if self.advance.val() {
            self.verdict_code.d.next = 0.into(); // IcrcVerdictCode::NotRoce
            self.icrc_computed.d.next = 0.into();
            self.icrc_computed_valid.d.next = false;
            if self.tail_valid.val() {
                self.fold_gathered.d.next = self.fold_now.val();
                if self.tail_crc_valid.val() {
                    self.crc_held.d.next = self.tail_crc.val();
                }
                if self.tail_last.val() && self.tail_roce.val() {
                    if self.tail_complete.val() && self.crc_now.val() == self.wire_icrc.val() {
                        self.verdict_code.d.next = self.verdict_good.val();
                    } else {
                        self.verdict_code.d.next = self.verdict_bad.val();
                    }
                    if self.tail_complete.val() {
                        self.icrc_computed.d.next = self.crc_now.val();
                        self.icrc_computed_valid.d.next = true;
                    }
                }
            }
        }
        self.verdict.next = self.verdict_code.q.val();
        self.icrc.next = self.icrc_computed.q.val();
        self.icrc_valid.next = self.icrc_computed_valid.q.val();
    }
}
