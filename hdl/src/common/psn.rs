//! [`PsnOrder`]: whether one PSN is at or before another in 24-bit serial arithmetic
//! (`second − first` modulo 2^24 below 2^23), in two pipeline stages so that no path is deeper
//! than 6 LUT levels at 322 MHz (a 24-bit subtraction alone is six CARRY4 levels).

use rust_hdl::prelude::*;

/// `at_or_before` is `first` at or before `second`, for the operands of two cycles before.
///
/// Stage 1: the low 12 bits' difference with its borrow, and the high 12 bits' difference.
/// Stage 2: the sign of the whole difference: the high difference's bit 11, flipped when the
/// borrow runs through its low 11 bits (all zero).
#[derive(LogicBlock, Default)]
pub struct PsnOrder {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// The PSN that is at or before...
    pub first: Signal<In, Bits<24>>,
    /// ...this one.
    pub second: Signal<In, Bits<24>>,
    /// `first` at or before `second` (operands of two cycles before; registered).
    pub at_or_before: Signal<Out, Bit>,
    /// `second − first` over the low 12 bits; bit 12 is the borrow.
    low: DFF<Bits<13>>,
    /// `second − first` over the high 12 bits.
    high: DFF<Bits<12>>,
    result: DFF<Bit>,
}

impl Logic for PsnOrder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, low, high, result);
        self.low.d.next = bit_cast::<13, 12>(self.second.val().get_bits::<12>(0)) - bit_cast::<13, 12>(self.first.val().get_bits::<12>(0));
        self.high.d.next = self.second.val().get_bits::<12>(12) - self.first.val().get_bits::<12>(12);
        self.result.d.next =
            !(self.high.q.val().get_bit(11) ^ (self.low.q.val().get_bit(12) && (self.high.q.val().get_bits::<11>(0) == 0)));
        self.at_or_before.next = self.result.q.val();
    }
}
