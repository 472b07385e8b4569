//! 64-bit arithmetic inside the 6-level budget, for control units that take one item at a time
//! and can spend cycles on it: [`PieceAdder`] adds 16 bits a cycle, [`WideCompare`] compares in
//! two register stages.
//!
//! A 64-bit adder or comparator is eight CARRY8 cells, eight levels as this project counts
//! them. Split into 16-bit pieces, every register is fed through one LUT and two CARRY8.

use rust_hdl::prelude::*;

/// `a + b` over four cycles, 16 bits a cycle, least significant piece first.
///
/// `load` takes the operands (and clears the carry); each `step` adds the low pieces with the
/// carry and shifts: the operands move down 16 bits, the sum piece enters `sum` from the top.
/// After four steps `sum` is `(a + b) mod 2^64` and `carry` the carry out of bit 63, until the
/// next `load`.
#[derive(LogicBlock, Default)]
pub struct PieceAdder {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Take `a` and `b` (wins over `step`).
    pub load: Signal<In, Bit>,
    /// First operand.
    pub a: Signal<In, Bits<64>>,
    /// Second operand.
    pub b: Signal<In, Bits<64>>,
    /// Add the next 16-bit piece.
    pub step: Signal<In, Bit>,
    /// The sum (registered; complete after four steps).
    pub sum: Signal<Out, Bits<64>>,
    /// The carry out of the pieces added so far (registered).
    pub carry: Signal<Out, Bit>,
    left: DFF<Bits<64>>,
    right: DFF<Bits<64>>,
    result: DFF<Bits<64>>,
    carry_in: DFF<Bit>,
    /// This step's 17-bit piece sum.
    piece: Signal<Local, Bits<17>>,
}

impl Logic for PieceAdder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, left, right, result, carry_in);
        self.piece.next = bit_cast::<17, 16>(self.left.q.val().get_bits::<16>(0))
            + bit_cast::<17, 16>(self.right.q.val().get_bits::<16>(0))
            + bit_cast::<17, 1>(self.carry_in.q.val().into());
        if self.step.val() {
            self.left.d.next = self.left.q.val() >> 16;
            self.right.d.next = self.right.q.val() >> 16;
            self.result.d.next = (self.result.q.val() >> 16) | (bit_cast::<64, 16>(self.piece.val().get_bits::<16>(0)) << 48);
            self.carry_in.d.next = self.piece.val().get_bit(16);
        }
        if self.load.val() {
            self.left.d.next = self.a.val();
            self.right.d.next = self.b.val();
            self.carry_in.d.next = false;
        }
        self.sum.next = self.result.q.val();
        self.carry.next = self.carry_in.q.val();
    }
}

/// `a > b` and `a == b` of 64-bit values, two cycles after the operands (held stable).
///
/// Stage 1 compares the four 16-bit pieces (greater, equal) into registers; stage 2 combines
/// them from the most significant piece down.
#[derive(LogicBlock, Default)]
pub struct WideCompare {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// First operand.
    pub a: Signal<In, Bits<64>>,
    /// Second operand.
    pub b: Signal<In, Bits<64>>,
    /// `a > b` (unsigned) of the operands two cycles ago.
    pub greater: Signal<Out, Bit>,
    /// `a == b` of the operands two cycles ago.
    pub equal: Signal<Out, Bit>,
    greater_0: DFF<Bit>,
    greater_1: DFF<Bit>,
    greater_2: DFF<Bit>,
    greater_3: DFF<Bit>,
    equal_0: DFF<Bit>,
    equal_1: DFF<Bit>,
    equal_2: DFF<Bit>,
    equal_3: DFF<Bit>,
    result_greater: DFF<Bit>,
    result_equal: DFF<Bit>,
}

impl Logic for WideCompare {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            greater_0,
            greater_1,
            greater_2,
            greater_3,
            equal_0,
            equal_1,
            equal_2,
            equal_3,
            result_greater,
            result_equal
        );
        // stage 1: per piece, bits 15:0 (piece 0) to 63:48 (piece 3)
        self.greater_0.d.next = self.a.val().get_bits::<16>(0) > self.b.val().get_bits::<16>(0);
        self.greater_1.d.next = self.a.val().get_bits::<16>(16) > self.b.val().get_bits::<16>(16);
        self.greater_2.d.next = self.a.val().get_bits::<16>(32) > self.b.val().get_bits::<16>(32);
        self.greater_3.d.next = self.a.val().get_bits::<16>(48) > self.b.val().get_bits::<16>(48);
        self.equal_0.d.next = self.a.val().get_bits::<16>(0) == self.b.val().get_bits::<16>(0);
        self.equal_1.d.next = self.a.val().get_bits::<16>(16) == self.b.val().get_bits::<16>(16);
        self.equal_2.d.next = self.a.val().get_bits::<16>(32) == self.b.val().get_bits::<16>(32);
        self.equal_3.d.next = self.a.val().get_bits::<16>(48) == self.b.val().get_bits::<16>(48);
        // stage 2: the most significant piece that differs decides
        self.result_greater.d.next = self.greater_3.q.val()
            || (self.equal_3.q.val()
                && (self.greater_2.q.val()
                    || (self.equal_2.q.val() && (self.greater_1.q.val() || (self.equal_1.q.val() && self.greater_0.q.val())))));
        self.result_equal.d.next = self.equal_0.q.val() && self.equal_1.q.val() && self.equal_2.q.val() && self.equal_3.q.val();
        self.greater.next = self.result_greater.q.val();
        self.equal.next = self.result_equal.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    macro_rules! tick {
        ($sim:ident, $x:ident) => {{
            $x = $sim.wait(1, $x)?;
            $x.clock.next = true.into();
            $x = $sim.wait(1, $x)?;
            $x.clock.next = false.into();
        }};
    }

    /// Random operands, carries across every piece boundary included.
    fn operands(rng: &mut rand::rngs::StdRng) -> (u64, u64) {
        match rng.gen_range(0..4) {
            0 => (rng.gen(), rng.gen()),
            1 => (u64::MAX - rng.gen_range(0..3), rng.gen_range(0..3)),
            2 => {
                let a: u64 = rng.gen();
                (a, a ^ (1 << rng.gen_range(0..64)))
            }
            _ => {
                let a: u64 = rng.gen();
                (a, a)
            }
        }
    }

    #[test]
    fn piece_adder_adds_64_bits_in_four_steps() {
        let mut uut = PieceAdder::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_testbench(move |mut sim: Sim<PieceAdder>| {
            let mut x = sim.init()?;
            let mut rng = rand::rngs::StdRng::seed_from_u64(11);
            for _ in 0..500 {
                let (a, b) = operands(&mut rng);
                x.a.next = a.to_bits();
                x.b.next = b.to_bits();
                x.load.next = true;
                tick!(sim, x);
                x.load.next = false;
                for _ in 0..4 {
                    x.step.next = true;
                    tick!(sim, x);
                    x.step.next = false;
                    // idle cycles between steps change nothing
                    if rng.gen_bool(0.3) {
                        tick!(sim, x);
                    }
                }
                let (sum, carry) = a.overflowing_add(b);
                sim_assert_eq!(sim, x.sum.val().to_u64(), sum, x);
                sim_assert_eq!(sim, x.carry.val(), carry, x);
            }
            sim.done(x)
        });
        sim.run(Box::new(uut), 100_000).unwrap();
    }

    #[test]
    fn wide_compare_orders_64_bit_values() {
        let mut uut = WideCompare::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_testbench(move |mut sim: Sim<WideCompare>| {
            let mut x = sim.init()?;
            let mut rng = rand::rngs::StdRng::seed_from_u64(12);
            for _ in 0..500 {
                let (mut a, mut b) = operands(&mut rng);
                if rng.gen() {
                    std::mem::swap(&mut a, &mut b);
                }
                x.a.next = a.to_bits();
                x.b.next = b.to_bits();
                tick!(sim, x);
                tick!(sim, x);
                sim_assert_eq!(sim, x.greater.val(), a > b, x);
                sim_assert_eq!(sim, x.equal.val(), a == b, x);
            }
            sim.done(x)
        });
        sim.run(Box::new(uut), 100_000).unwrap();
    }
}
