//! [`IcrcInsert`]: the TX ICRC insertion, the last unit of the TX path.

use crate::common::elab::c;
use crate::common::icrc_core::{lane_consts, IcrcCore};
use rust_hdl::prelude::*;

/// TX ICRC insertion: RoCEv2 frames without ICRC in (the IP and UDP lengths already count it),
/// the same frames with the 4 ICRC bytes appended out. Frames that are not RoCEv2 pass unchanged.
/// When the last beat has fewer than 4 free lanes the ICRC spills into one extra beat, and the
/// input is held for that one cycle (the output bus stays busy: bus efficiency 1.00 on the output).
/// Bytes beyond `tkeep` on the output are zero. No MAC padding is added (the MAC pads).
#[derive(LogicBlock)]
pub struct IcrcInsert<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties the pipeline and forgets any partial frame.
    pub reset: Signal<In, Bit>,
    /// Input stream (frames without ICRC): valid.
    pub s_axis_tvalid: Signal<In, Bit>,
    /// Input stream: ready (the output register is free and no spilled ICRC beat is pending).
    pub s_axis_tready: Signal<Out, Bit>,
    /// Input stream: data (frame byte 0 of a beat in bits 7:0).
    pub s_axis_tdata: Signal<In, Bits<W>>,
    /// Input stream: byte enables (contiguous from lane 0).
    pub s_axis_tkeep: Signal<In, Bits<K>>,
    /// Input stream: last beat of a frame.
    pub s_axis_tlast: Signal<In, Bit>,
    /// Output stream (RoCEv2 frames with their ICRC, other frames unchanged): valid.
    pub m_axis_tvalid: Signal<Out, Bit>,
    /// Output stream: ready.
    pub m_axis_tready: Signal<In, Bit>,
    /// Output stream: data.
    pub m_axis_tdata: Signal<Out, Bits<W>>,
    /// Output stream: byte enables.
    pub m_axis_tkeep: Signal<Out, Bits<K>>,
    /// Output stream: last beat of a frame.
    pub m_axis_tlast: Signal<Out, Bit>,
    core: IcrcCore<W, K>,
    lane: [Constant<Bits<W>>; 128],
    sh32: [Constant<Bits<16>>; 32],
    adv: Signal<Local, Bit>,
    rot: Signal<Local, Bits<32>>,
    rep: Signal<Local, Bits<W>>,
    keepm: Signal<Local, Bits<W>>,
    insm: Signal<Local, Bits<W>>,
    xm: Signal<Local, Bits<W>>,
    ov: DFF<Bit>,
    od: DFF<Bits<W>>,
    okp: DFF<Bits<K>>,
    ol: DFF<Bit>,
    pend: DFF<Bit>,
    pd: DFF<Bits<W>>,
    pk: DFF<Bits<K>>,
}

impl<const W: usize, const K: usize> Default for IcrcInsert<W, K> {
    fn default() -> Self {
        let (lane, _) = lane_consts::<W, K>();
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
            core: IcrcCore::new(false),
            lane,
            sh32: std::array::from_fn(|w| c::<16>((w * 32) as u64)),
            adv: Default::default(),
            rot: Default::default(),
            rep: Default::default(),
            keepm: Default::default(),
            insm: Default::default(),
            xm: Default::default(),
            ov: Default::default(),
            od: Default::default(),
            okp: Default::default(),
            ol: Default::default(),
            pend: Default::default(),
            pd: Default::default(),
            pk: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize> IcrcInsert<W, K> {
    const KW: usize = K / 4;
}

impl<const W: usize, const K: usize> Logic for IcrcInsert<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ov, od, okp, ol, pend, pd, pk);
        self.adv.next = !self.ov.q.val() || self.m_axis_tready.val();
        self.core.clock.next = self.clock.val();
        self.core.reset.next = self.reset.val();
        self.core.en.next = self.adv.val() && !self.pend.q.val();
        self.core.in_valid.next = self.s_axis_tvalid.val();
        self.core.in_data.next = self.s_axis_tdata.val();
        self.core.in_keep.next = self.s_axis_tkeep.val();
        self.core.in_last.next = self.s_axis_tlast.val();
        self.s_axis_tready.next = self.adv.val() && !self.pend.q.val();

        // ICRC byte k goes to lane n + k: replicate it rotated left by 8·(n mod 4).
        self.rot.next = self.core.t_crc.val();
        if self.core.t_byte_count.val().get_bits::<2>(0) == 1 {
            self.rot.next = (self.core.t_crc.val() << 8) | (self.core.t_crc.val() >> 24);
        }
        if self.core.t_byte_count.val().get_bits::<2>(0) == 2 {
            self.rot.next = (self.core.t_crc.val() << 16) | (self.core.t_crc.val() >> 16);
        }
        if self.core.t_byte_count.val().get_bits::<2>(0) == 3 {
            self.rot.next = (self.core.t_crc.val() << 24) | (self.core.t_crc.val() >> 8);
        }
        self.rep.next = 0.into();
        for w in 0..Self::KW {
            self.rep.next = self.rep.val() | (bit_cast::<W, 32>(self.rot.val()) << self.sh32[w].val());
        }
        self.keepm.next = 0.into();
        self.insm.next = 0.into();
        self.xm.next = 0.into();
        for i in 0..K {
            if self.core.t_keep.val().get_bit(i) {
                self.keepm.next = self.keepm.val() | self.lane[i].val();
            }
            if self.core.t_insert_lanes.val().get_bit(i) {
                self.insm.next = self.insm.val() | self.lane[i].val();
            }
            if self.core.t_spill_keep.val().get_bit(i) {
                self.xm.next = self.xm.val() | self.lane[i].val();
            }
        }
        if self.adv.val() {
            if self.pend.q.val() {
                self.ov.d.next = true;
                self.od.d.next = self.pd.q.val();
                self.okp.d.next = self.pk.q.val();
                self.ol.d.next = true;
                self.pend.d.next = false;
            } else {
                self.ov.d.next = self.core.t_valid.val();
                self.od.d.next = self.core.t_data.val();
                self.okp.d.next = self.core.t_keep.val();
                self.ol.d.next = self.core.t_last.val();
                if self.core.t_valid.val() && self.core.t_last.val() && self.core.t_roce.val() {
                    self.od.d.next = (self.core.t_data.val() & self.keepm.val()) | (self.rep.val() & self.insm.val());
                    self.okp.d.next = self.core.t_keep.val() | self.core.t_insert_lanes.val();
                    if self.core.t_spill.val() {
                        self.ol.d.next = false;
                        self.pend.d.next = true;
                        self.pd.d.next = self.rep.val() & self.xm.val();
                        self.pk.d.next = self.core.t_spill_keep.val();
                    }
                }
            }
        }
        if self.reset.val() {
            self.ov.d.next = false;
            self.pend.d.next = false;
        }
        self.m_axis_tvalid.next = self.ov.q.val();
        self.m_axis_tdata.next = self.od.q.val();
        self.m_axis_tkeep.next = self.okp.q.val();
        self.m_axis_tlast.next = self.ol.q.val();
    }
}
