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

#[cfg(test)]
mod tests {
    use super::*;

    /// Across the carry from the low half into the high half, from a preset value, with idle
    /// cycles and a reset; `count` is always the number of events so far.
    #[test]
    fn counts_across_the_half_carry() {
        let mut uut = EventCounter::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_testbench(move |mut sim: Sim<EventCounter>| {
            let mut x = sim.init()?;
            let mut expected: u64 = 0;
            for cycle in 0..200_000u64 {
                assert_eq!(x.count.val().to_u64(), expected & 0xFFFF_FFFF, "cycle {cycle}");
                let reset = cycle == 150_000;
                let event = cycle % 7 != 3;
                x.reset.next = reset;
                x.increment.next = event;
                if reset {
                    expected = 0;
                } else if event {
                    expected += 1;
                }
                x = sim.wait(1, x)?;
                x.clock.next = true.into();
                x = sim.wait(1, x)?;
                x.clock.next = false.into();
            }
            assert!(expected > 0);
            sim.done(x)
        });
        sim.run(Box::new(uut), 1_000_000).unwrap();
    }
}
