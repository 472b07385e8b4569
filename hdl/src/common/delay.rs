//! [`Delay`], a fixed pipeline delay: what enters at `d` leaves at `q` `D` advances later.
//!
//! The stages have no reset and share one enable, so synthesis maps the line to shift-register
//! LUTs (one SRL16E per bit up to 16 stages) instead of `N · D` flip-flops. A pipeline uses it to
//! carry wide values that no stage changes (record fields) alongside its narrow decision stages.

use rust_hdl::prelude::*;

/// `N` bits delayed by `D ≥ 1` advances of `ce`.
#[derive(LogicBlock)]
pub struct Delay<const N: usize, const D: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Advance: every stage shifts while it is high and holds while it is low.
    pub ce: Signal<In, Bit>,
    /// Value entering the line.
    pub d: Signal<In, Bits<N>>,
    /// Value `D` advances old.
    pub q: Signal<Out, Bits<N>>,
    stage: [DFF<Bits<N>>; D],
}

impl<const N: usize, const D: usize> Delay<N, D> {
    /// The last stage (a loop over `LAST..D` names it in `update`).
    const LAST: usize = D - 1;
}

impl<const N: usize, const D: usize> Default for Delay<N, D> {
    fn default() -> Self {
        assert!(D >= 1, "a delay of at least one stage");
        Self {
            clock: Default::default(),
            ce: Default::default(),
            d: Default::default(),
            q: Default::default(),
            stage: std::array::from_fn(|_| Default::default()),
        }
    }
}

impl<const N: usize, const D: usize> Logic for Delay<N, D> {
    #[hdl_gen]
    fn update(&mut self) {
        for s in 0..D {
            self.stage[s].clock.next = self.clock.val();
            self.stage[s].d.next = self.stage[s].q.val();
        }
        if self.ce.val() {
            self.stage[0].d.next = self.d.val();
            for s in 1..D {
                self.stage[s].d.next = self.stage[s - 1].q.val();
            }
        }
        for s in Self::LAST..D {
            self.q.next = self.stage[s].q.val();
        }
    }
}
