//! [`FrameMerge`]: two AXI-Stream sources of whole frames onto one output, a frame at a time.
//!
//! At a frame boundary the output takes `s_high` when it shows a beat, else `s_low`. Once the
//! output has shown a frame's first beat the source is fixed until that frame's last beat is
//! taken, so a beat offered and not yet taken never changes (AMBA) and frames never interleave.
//! The output is the chosen source's beat through one multiplexer: no register, no bubble
//! between frames; `tready` goes back to the chosen source only.

use rust_hdl::prelude::*;

/// The frame merge of a `W`-bit stream (`K = W / 8` keep bits).
#[derive(LogicBlock, Default)]
pub struct FrameMerge<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: no source fixed.
    pub reset: Signal<In, Bit>,
    /// The source taken first at a frame boundary: valid.
    pub s_high_tvalid: Signal<In, Bit>,
    /// `s_high`: ready.
    pub s_high_tready: Signal<Out, Bit>,
    /// `s_high`: data.
    pub s_high_tdata: Signal<In, Bits<W>>,
    /// `s_high`: keep.
    pub s_high_tkeep: Signal<In, Bits<K>>,
    /// `s_high`: last beat.
    pub s_high_tlast: Signal<In, Bit>,
    /// The other source: valid.
    pub s_low_tvalid: Signal<In, Bit>,
    /// `s_low`: ready.
    pub s_low_tready: Signal<Out, Bit>,
    /// `s_low`: data.
    pub s_low_tdata: Signal<In, Bits<W>>,
    /// `s_low`: keep.
    pub s_low_tkeep: Signal<In, Bits<K>>,
    /// `s_low`: last beat.
    pub s_low_tlast: Signal<In, Bit>,
    /// The merged frames: valid.
    pub m_axis_tvalid: Signal<Out, Bit>,
    /// Merged: ready.
    pub m_axis_tready: Signal<In, Bit>,
    /// Merged: data.
    pub m_axis_tdata: Signal<Out, Bits<W>>,
    /// Merged: keep.
    pub m_axis_tkeep: Signal<Out, Bits<K>>,
    /// Merged: last beat.
    pub m_axis_tlast: Signal<Out, Bit>,
    /// A frame is under way (its first beat was shown): the source is fixed.
    locked: DFF<Bit>,
    /// The fixed source is `s_high`.
    high_owns: DFF<Bit>,
    /// The source of this cycle's beat.
    take_high: Signal<Local, Bit>,
}

impl<const W: usize, const K: usize> Logic for FrameMerge<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, locked, high_owns);
        self.take_high.next = self.s_high_tvalid.val();
        if self.locked.q.val() {
            self.take_high.next = self.high_owns.q.val();
        }
        if self.take_high.val() {
            self.m_axis_tvalid.next = self.s_high_tvalid.val();
            self.m_axis_tdata.next = self.s_high_tdata.val();
            self.m_axis_tkeep.next = self.s_high_tkeep.val();
            self.m_axis_tlast.next = self.s_high_tlast.val();
        } else {
            self.m_axis_tvalid.next = self.s_low_tvalid.val();
            self.m_axis_tdata.next = self.s_low_tdata.val();
            self.m_axis_tkeep.next = self.s_low_tkeep.val();
            self.m_axis_tlast.next = self.s_low_tlast.val();
        }
        self.s_high_tready.next = self.m_axis_tready.val() && self.take_high.val();
        self.s_low_tready.next = self.m_axis_tready.val() && !self.take_high.val();
        if self.m_axis_tvalid.val() {
            self.locked.d.next = !(self.m_axis_tready.val() && self.m_axis_tlast.val());
            self.high_owns.d.next = self.take_high.val();
        }
        if self.reset.val() {
            self.locked.d.next = false;
        }
    }
}
