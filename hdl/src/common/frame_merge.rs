//! [`FrameMerge`]: two AXI-Stream sources of whole frames onto one output, a frame at a time.
//!
//! The selected source is a register: the output is its beat through one multiplexer, and
//! `tready` goes back to it through one LUT (the sources' ready paths grow by one level, not by
//! the selection's logic). Once the output has shown a frame's first beat the source is fixed
//! until that frame's last beat is taken, so a beat offered and not yet taken never changes
//! (AMBA) and frames never interleave. Between frames, when `s_high` shows a beat and `s_low`
//! is selected, `s_low`'s next beat is held back and the selection moves to `s_high`: a frame
//! of `s_high` waits at most for the frame under way, and each change of source costs one
//! cycle; frames of one source follow each other without a bubble.

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
    /// The selected source is `s_high`.
    select_high: DFF<Bit>,
    /// At a frame boundary with `s_low` selected, `s_high` waits: `s_low`'s next beat is not
    /// shown while the selection moves.
    hold_low: Signal<Local, Bit>,
}

impl<const W: usize, const K: usize> Logic for FrameMerge<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, locked, select_high);
        self.hold_low.next = !self.locked.q.val() && !self.select_high.q.val() && self.s_high_tvalid.val();
        if self.select_high.q.val() {
            self.m_axis_tvalid.next = self.s_high_tvalid.val();
            self.m_axis_tdata.next = self.s_high_tdata.val();
            self.m_axis_tkeep.next = self.s_high_tkeep.val();
            self.m_axis_tlast.next = self.s_high_tlast.val();
        } else {
            self.m_axis_tvalid.next = self.s_low_tvalid.val() && !self.hold_low.val();
            self.m_axis_tdata.next = self.s_low_tdata.val();
            self.m_axis_tkeep.next = self.s_low_tkeep.val();
            self.m_axis_tlast.next = self.s_low_tlast.val();
        }
        self.s_high_tready.next = self.m_axis_tready.val() && self.select_high.q.val();
        self.s_low_tready.next = self.m_axis_tready.val() && !self.select_high.q.val() && !self.hold_low.val();
        if self.m_axis_tvalid.val() {
            self.locked.d.next = !(self.m_axis_tready.val() && self.m_axis_tlast.val());
        } else if !self.locked.q.val() {
            // between frames, nothing shown: select the source that waits, `s_high` first
            self.select_high.d.next = self.s_high_tvalid.val();
        }
        if self.reset.val() {
            self.locked.d.next = false;
            self.select_high.d.next = false;
        }
    }
}
