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
