//! 64-bit arithmetic inside the 6-level budget, for control units that take one item at a time
//! and can spend cycles on it: [`PieceAdder`] adds 16 bits a cycle, [`SelectAdder`] adds in two
//! register stages (twice the adders), [`WideCompare`] compares in one register stage and two LUT
//! levels after it.
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

/// `a + b` in two register stages after the operands are loaded (carry select).
///
/// `load` takes the operands into registers; stage 1 adds each 16-bit piece twice, with carry
/// in 0 and 1; stage 2 finds each piece's carry in from the pieces below (a function of at
/// most seven registered bits) and selects. `sum` is `(a + b) mod 2^64` and `carry` the carry
/// out of bit 63 two cycles after the cycle that follows `load` (three clock edges after the
/// `load` cycle), until the next `load`.
#[derive(LogicBlock, Default)]
pub struct SelectAdder {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Take `a` and `b`.
    pub load: Signal<In, Bit>,
    /// First operand.
    pub a: Signal<In, Bits<64>>,
    /// Second operand.
    pub b: Signal<In, Bits<64>>,
    /// The sum (registered).
    pub sum: Signal<Out, Bits<64>>,
    /// The carry out of bit 63 (registered).
    pub carry: Signal<Out, Bit>,
    left: DFF<Bits<64>>,
    right: DFF<Bits<64>>,
    /// Stage 1: piece `i`'s 17-bit sum with carry in 0.
    without_carry: [DFF<Bits<17>>; 4],
    /// Stage 1: piece `i`'s 17-bit sum with carry in 1.
    with_carry: [DFF<Bits<17>>; 4],
    /// Stage 2: the carry into piece `i` (`carry_into[4]`: out of the top).
    carry_into: [Signal<Local, Bit>; 5],
    /// Stage 2: the selected pieces.
    pieces: [Signal<Local, Bits<16>>; 4],
    result: DFF<Bits<64>>,
    carry_out: DFF<Bit>,
}

impl Logic for SelectAdder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, left, right, result, carry_out);
        for i in 0..4 {
            self.without_carry[i].clock.next = self.clock.val();
            self.with_carry[i].clock.next = self.clock.val();
        }
        if self.load.val() {
            self.left.d.next = self.a.val();
            self.right.d.next = self.b.val();
        }
        // stage 1: each piece with carry in 0 and 1 (one carry chain each; `get_bits` takes no
        // loop index)
        self.without_carry[0].d.next =
            bit_cast::<17, 16>(self.left.q.val().get_bits::<16>(0)) + bit_cast::<17, 16>(self.right.q.val().get_bits::<16>(0));
        self.with_carry[0].d.next =
            bit_cast::<17, 16>(self.left.q.val().get_bits::<16>(0)) + bit_cast::<17, 16>(self.right.q.val().get_bits::<16>(0)) + 1;
        self.without_carry[1].d.next =
            bit_cast::<17, 16>(self.left.q.val().get_bits::<16>(16)) + bit_cast::<17, 16>(self.right.q.val().get_bits::<16>(16));
        self.with_carry[1].d.next =
            bit_cast::<17, 16>(self.left.q.val().get_bits::<16>(16)) + bit_cast::<17, 16>(self.right.q.val().get_bits::<16>(16)) + 1;
        self.without_carry[2].d.next =
            bit_cast::<17, 16>(self.left.q.val().get_bits::<16>(32)) + bit_cast::<17, 16>(self.right.q.val().get_bits::<16>(32));
        self.with_carry[2].d.next =
            bit_cast::<17, 16>(self.left.q.val().get_bits::<16>(32)) + bit_cast::<17, 16>(self.right.q.val().get_bits::<16>(32)) + 1;
        self.without_carry[3].d.next =
            bit_cast::<17, 16>(self.left.q.val().get_bits::<16>(48)) + bit_cast::<17, 16>(self.right.q.val().get_bits::<16>(48));
        self.with_carry[3].d.next =
            bit_cast::<17, 16>(self.left.q.val().get_bits::<16>(48)) + bit_cast::<17, 16>(self.right.q.val().get_bits::<16>(48)) + 1;
        // stage 2: the carries from the bottom up, each piece selected by its carry in
        self.carry_into[0].next = false;
        for i in 0..4 {
            self.carry_into[i + 1].next = self.without_carry[i].q.val().get_bit(16);
            if self.carry_into[i].val() {
                self.carry_into[i + 1].next = self.with_carry[i].q.val().get_bit(16);
            }
            self.pieces[i].next = self.without_carry[i].q.val().get_bits::<16>(0);
            if self.carry_into[i].val() {
                self.pieces[i].next = self.with_carry[i].q.val().get_bits::<16>(0);
            }
        }
        self.result.d.next = bit_cast::<64, 16>(self.pieces[0].val())
            | (bit_cast::<64, 16>(self.pieces[1].val()) << 16)
            | (bit_cast::<64, 16>(self.pieces[2].val()) << 32)
            | (bit_cast::<64, 16>(self.pieces[3].val()) << 48);
        self.carry_out.d.next = self.carry_into[4].val();
        self.sum.next = self.result.q.val();
        self.carry.next = self.carry_out.q.val();
    }
}

/// `a > b` and `a == b` of 64-bit values, one cycle after the operands (held stable).
///
/// Stage 1 compares the four 16-bit pieces (greater, equal) into registers; the outputs
/// combine them from the most significant piece down, two LUT levels after those registers
/// (a user's register fed from them has four levels left).
#[derive(LogicBlock, Default)]
pub struct WideCompare {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// First operand.
    pub a: Signal<In, Bits<64>>,
    /// Second operand.
    pub b: Signal<In, Bits<64>>,
    /// `a > b` (unsigned) of the operands a cycle ago.
    pub greater: Signal<Out, Bit>,
    /// `a == b` of the operands a cycle ago.
    pub equal: Signal<Out, Bit>,
    greater_0: DFF<Bit>,
    greater_1: DFF<Bit>,
    greater_2: DFF<Bit>,
    greater_3: DFF<Bit>,
    equal_0: DFF<Bit>,
    equal_1: DFF<Bit>,
    equal_2: DFF<Bit>,
    equal_3: DFF<Bit>,
}

impl Logic for WideCompare {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, greater_0, greater_1, greater_2, greater_3, equal_0, equal_1, equal_2, equal_3);
        // stage 1: per piece, bits 15:0 (piece 0) to 63:48 (piece 3)
        self.greater_0.d.next = self.a.val().get_bits::<16>(0) > self.b.val().get_bits::<16>(0);
        self.greater_1.d.next = self.a.val().get_bits::<16>(16) > self.b.val().get_bits::<16>(16);
        self.greater_2.d.next = self.a.val().get_bits::<16>(32) > self.b.val().get_bits::<16>(32);
        self.greater_3.d.next = self.a.val().get_bits::<16>(48) > self.b.val().get_bits::<16>(48);
        self.equal_0.d.next = self.a.val().get_bits::<16>(0) == self.b.val().get_bits::<16>(0);
        self.equal_1.d.next = self.a.val().get_bits::<16>(16) == self.b.val().get_bits::<16>(16);
        self.equal_2.d.next = self.a.val().get_bits::<16>(32) == self.b.val().get_bits::<16>(32);
        self.equal_3.d.next = self.a.val().get_bits::<16>(48) == self.b.val().get_bits::<16>(48);
        // the most significant piece that differs decides
        self.greater.next = self.greater_3.q.val()
            || (self.equal_3.q.val()
                && (self.greater_2.q.val()
                    || (self.equal_2.q.val() && (self.greater_1.q.val() || (self.equal_1.q.val() && self.greater_0.q.val())))));
        self.equal.next = self.equal_0.q.val() && self.equal_1.q.val() && self.equal_2.q.val() && self.equal_3.q.val();
    }
}
