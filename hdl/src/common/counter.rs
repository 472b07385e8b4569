//! [`EventCounter`], a 32-bit event counter whose carry chains fit the 6-level budget.
//!
//! A 32-bit increment is eight CARRY4 stages, too deep for 322 MHz as this project counts
//! levels. The counter is two 16-bit halves: the low half counts events; the high half counts
//! the events that find the low half at `0xFFFF`, a condition kept in a register of its own one
//! cycle ahead. Both halves change on the same clock edge, so `count` never shows a half-carried
//! value.

use rust_hdl::prelude::*;

/// Counts the cycles `increment` is high; wraps at 2^32; `reset` clears it.
#[derive(LogicBlock, Default)]
pub struct EventCounter {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: the count goes to 0 (it wins over `increment`).
    pub reset: Signal<In, Bit>,
    /// Count one this cycle.
    pub increment: Signal<In, Bit>,
    /// Events counted until the previous cycle (registered).
    pub count: Signal<Out, Bits<32>>,
    low: DFF<Bits<16>>,
    high: DFF<Bits<16>>,
    /// `low` is `0xFFFF`: the next event carries into `high`.
    low_all_ones: DFF<Bit>,
}

impl Logic for EventCounter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, low, high, low_all_ones);
        if self.increment.val() {
            self.low.d.next = self.low.q.val() + 1;
            if self.low_all_ones.q.val() {
                self.high.d.next = self.high.q.val() + 1;
            }
            self.low_all_ones.d.next = self.low.q.val() == 0xFFFE;
        }
        if self.reset.val() {
            self.low.d.next = 0.into();
            self.high.d.next = 0.into();
            self.low_all_ones.d.next = false;
        }
        self.count.next = (bit_cast::<32, 16>(self.high.q.val()) << 16) | bit_cast::<32, 16>(self.low.q.val());
    }
}
