//! [`IcrcCheck`]: the RX ICRC check, the first unit of the RX path.

use crate::common::elab::c;
use crate::common::icrc_core::IcrcCore;
use ferroce_contracts::rx::IcrcVerdictCode;
use rust_hdl::prelude::*;

/// RX ICRC check: frames in, the same frames out (same beats, same `tkeep`) with the verdict on
/// the last beat: `m_tuser` = [`IcrcVerdictCode`], `m_icrc` = the ICRC the unit computed (wire byte
/// order: bits 7:0 are the first byte on the wire), `m_icrc_valid` = the frame is RoCEv2 and holds
/// a whole IP packet long enough for the headers (otherwise there is nothing to compute).
/// One beat per cycle with back-to-back frames; 8 cycles from last beat in to verdict out at
/// 256/512 bits.
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
    en: Signal<Local, Bit>,
    crc_now: Signal<Local, Bits<32>>,
    wf: Signal<Local, Bits<32>>,
    wire_icrc: Signal<Local, Bits<32>>,
    ov: DFF<Bit>,
    od: DFF<Bits<W>>,
    okp: DFF<Bits<K>>,
    ol: DFF<Bit>,
    ou: DFF<Bits<2>>,
    oc: DFF<Bits<32>>,
    ocv: DFF<Bit>,
    crch: DFF<Bits<32>>,
    wacc: DFF<Bits<32>>,
    verdict_good: Constant<Bits<2>>,
    verdict_bad: Constant<Bits<2>>,
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
            en: Default::default(),
            crc_now: Default::default(),
            wf: Default::default(),
            wire_icrc: Default::default(),
            ov: Default::default(),
            od: Default::default(),
            okp: Default::default(),
            ol: Default::default(),
            ou: Default::default(),
            oc: Default::default(),
            ocv: Default::default(),
            crch: Default::default(),
            wacc: Default::default(),
            verdict_good: c::<2>(IcrcVerdictCode::Good.code().into()),
            verdict_bad: c::<2>(IcrcVerdictCode::Bad.code().into()),
        }
    }
}

impl<const W: usize, const K: usize> Logic for IcrcCheck<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ov, od, okp, ol, ou, oc, ocv, crch, wacc);
        self.core.clock.next = self.clock.val();
        self.core.reset.next = self.reset.val();
        self.en.next = !self.ov.q.val() || self.m_axis_tready.val();
        self.core.en.next = self.en.val();
        self.core.in_valid.next = self.s_axis_tvalid.val();
        self.core.in_data.next = self.s_axis_tdata.val();
        self.core.in_keep.next = self.s_axis_tkeep.val();
        self.core.in_last.next = self.s_axis_tlast.val();
        self.s_axis_tready.next = self.en.val();

        if self.core.t_crc_valid.val() {
            self.crc_now.next = self.core.t_crc.val();
        } else {
            self.crc_now.next = self.crch.q.val();
        }
        if self.core.t_first.val() {
            self.wf.next = self.core.t_fold.val();
        } else {
            self.wf.next = self.wacc.q.val() ^ self.core.t_fold.val();
        }
        // The fold holds ICRC byte k in lane (q + k) mod 4: rotate it back to wire order.
        self.wire_icrc.next = self.wf.val();
        if self.core.t_icrc_rotation.val() == 1 {
            self.wire_icrc.next = (self.wf.val() >> 8) | (self.wf.val() << 24);
        }
        if self.core.t_icrc_rotation.val() == 2 {
            self.wire_icrc.next = (self.wf.val() >> 16) | (self.wf.val() << 16);
        }
        if self.core.t_icrc_rotation.val() == 3 {
            self.wire_icrc.next = (self.wf.val() >> 24) | (self.wf.val() << 8);
        }
        if self.en.val() {
            self.ov.d.next = self.core.t_valid.val();
            self.od.d.next = self.core.t_data.val();
            self.okp.d.next = self.core.t_keep.val();
            self.ol.d.next = self.core.t_last.val();
            self.ou.d.next = 0.into(); // IcrcVerdictCode::NotRoce
            self.oc.d.next = 0.into();
            self.ocv.d.next = false;
            if self.core.t_valid.val() {
                self.wacc.d.next = self.wf.val();
                if self.core.t_crc_valid.val() {
                    self.crch.d.next = self.core.t_crc.val();
                }
                if self.core.t_last.val() && self.core.t_roce.val() {
                    if self.core.t_complete.val() && self.crc_now.val() == self.wire_icrc.val() {
                        self.ou.d.next = self.verdict_good.val();
                    } else {
                        self.ou.d.next = self.verdict_bad.val();
                    }
                    if self.core.t_complete.val() {
                        self.oc.d.next = self.crc_now.val();
                        self.ocv.d.next = true;
                    }
                }
            }
        }
        if self.reset.val() {
            self.ov.d.next = false;
        }
        self.m_axis_tvalid.next = self.ov.q.val();
        self.m_axis_tdata.next = self.od.q.val();
        self.m_axis_tkeep.next = self.okp.q.val();
        self.m_axis_tlast.next = self.ol.q.val();
        self.m_axis_tuser.next = self.ou.q.val();
        self.m_icrc.next = self.oc.q.val();
        self.m_icrc_valid.next = self.ocv.q.val();
    }
}
