//! [`CounterBank`]: `2^N` 32-bit event counters in LUT RAM, one counted a cycle by its index
//! and any read by index, for per-stream (or per-queue) counters where flip-flops would cost
//! 32 a counter.
//!
//! ```text
//!  increment, index ─► registered ─► read (the last count forwarded) ─► +1 ─► written
//!  read_index ─► registered ─► read ─► read_count (two cycles after read_index)
//! ```
//!
//! A count is kept in three parts of 11, 11 and 10 bits, with two flags ("the low part is all
//! ones", "the low and middle parts are"), as [`EventCounter`](super::counter::EventCounter)
//! keeps its halves: the increment is three short carries side by side, not one of 32 (the
//! count read back and one more level for the next increment's forwarding fit the 6 levels).
//! Clearing writes the increment of an all-ones word, which is zero. An increment is in the counts read from three cycles after it (two
//! after it is registered); one of the same index in the next cycle adds to it without a gap.
//! After `reset` the counters are cleared one a cycle (`clearing`, `2^N` cycles); increments
//! meanwhile are lost.

use super::elab::c;
use super::lut_ram::LutRam;
use rust_hdl::prelude::*;

/// Bits of a count in the RAM: the parts (11, 11, 10 bits), then the flags.
const COUNT_WORD_BITS: usize = 34;

/// `2^N` event counters, each wrapping at 2^32.
#[derive(LogicBlock)]
pub struct CounterBank<const N: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: the counters are cleared, one a cycle.
    pub reset: Signal<In, Bit>,
    /// Count one for `index` this cycle.
    pub increment: Signal<In, Bit>,
    /// The counter counted.
    pub index: Signal<In, Bits<N>>,
    /// The counter read.
    pub read_index: Signal<In, Bits<N>>,
    /// Its count, two cycles after `read_index`.
    pub read_count: Signal<Out, Bits<32>>,
    /// The counters are being cleared.
    pub clearing: Signal<Out, Bit>,
    taken: DFF<Bit>,
    taken_index: DFF<Bits<N>>,
    adding: DFF<Bit>,
    adding_index: DFF<Bits<N>>,
    adding_word: DFF<Bits<COUNT_WORD_BITS>>,
    read_address: DFF<Bits<N>>,
    read_word: DFF<Bits<COUNT_WORD_BITS>>,
    clearing_all: DFF<Bit>,
    clear_index: DFF<Bits<N>>,
    low: Signal<Local, Bits<11>>,
    middle: Signal<Local, Bits<11>>,
    high: Signal<Local, Bits<10>>,
    low_next: Signal<Local, Bits<11>>,
    middle_next: Signal<Local, Bits<11>>,
    high_next: Signal<Local, Bits<10>>,
    parts: Signal<Local, Bits<COUNT_WORD_BITS>>,
    low_flagged: Signal<Local, Bits<COUNT_WORD_BITS>>,
    sum: Signal<Local, Bits<COUNT_WORD_BITS>>,
    write: Signal<Local, Bit>,
    write_address: Signal<Local, Bits<N>>,
    write_data: Signal<Local, Bits<COUNT_WORD_BITS>>,
    for_increment: LutRam<Bits<COUNT_WORD_BITS>, N>,
    for_read: LutRam<Bits<COUNT_WORD_BITS>, N>,
    last_index: Constant<Bits<N>>,
    all_ones: Constant<Bits<COUNT_WORD_BITS>>,
}

impl<const N: usize> Default for CounterBank<N> {
    fn default() -> Self {
        CounterBank {
            clock: Default::default(),
            reset: Default::default(),
            increment: Default::default(),
            index: Default::default(),
            read_index: Default::default(),
            read_count: Default::default(),
            clearing: Default::default(),
            taken: Default::default(),
            taken_index: Default::default(),
            adding: Default::default(),
            adding_index: Default::default(),
            adding_word: Default::default(),
            read_address: Default::default(),
            read_word: Default::default(),
            clearing_all: Default::default(),
            clear_index: Default::default(),
            low: Default::default(),
            middle: Default::default(),
            high: Default::default(),
            low_next: Default::default(),
            middle_next: Default::default(),
            high_next: Default::default(),
            parts: Default::default(),
            low_flagged: Default::default(),
            sum: Default::default(),
            write: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            for_increment: Default::default(),
            for_read: Default::default(),
            last_index: c::<N>((1 << N) - 1),
            all_ones: c::<COUNT_WORD_BITS>((1 << COUNT_WORD_BITS) - 1),
        }
    }
}

impl<const N: usize> Logic for CounterBank<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            taken,
            taken_index,
            adding,
            adding_index,
            adding_word,
            read_address,
            read_word,
            clearing_all,
            clear_index
        );
        self.for_increment.write_clock.next = self.clock.val();
        self.for_read.write_clock.next = self.clock.val();

        // ---- an increment: registered, its count read (or the one being written), +1 ----
        self.taken.d.next = self.increment.val() && !self.clearing_all.q.val();
        self.taken_index.d.next = self.index.val();
        self.low.next = self.adding_word.q.val().get_bits::<11>(0);
        self.middle.next = self.adding_word.q.val().get_bits::<11>(11);
        self.high.next = self.adding_word.q.val().get_bits::<10>(22);
        // each part added at its own width (a sum inside `bit_cast` would carry past it)
        self.low_next.next = self.low.val() + 1;
        self.middle_next.next = self.middle.val() + bit_cast::<11, 1>(self.adding_word.q.val().get_bits::<1>(32));
        self.high_next.next = self.high.val() + bit_cast::<10, 1>(self.adding_word.q.val().get_bits::<1>(33));
        self.parts.next = bit_cast::<COUNT_WORD_BITS, 11>(self.low_next.val())
            | (bit_cast::<COUNT_WORD_BITS, 11>(self.middle_next.val()) << 11)
            | (bit_cast::<COUNT_WORD_BITS, 10>(self.high_next.val()) << 22);
        self.low_flagged.next = self.parts.val().replace_bit(32, self.low.val() == 0x7FE);
        self.sum.next = self
            .low_flagged
            .val()
            .replace_bit(33, self.low.val() == 0x7FE && self.middle.val() == 0x7FF);
        self.for_increment.read_address.next = self.taken_index.q.val();
        self.adding.d.next = self.taken.q.val();
        self.adding_index.d.next = self.taken_index.q.val();
        self.adding_word.d.next = self.for_increment.read_data.val();
        if self.adding.q.val() && self.adding_index.q.val() == self.taken_index.q.val() {
            self.adding_word.d.next = self.sum.val();
        }
        self.write.next = self.adding.q.val() || self.clearing_all.q.val();
        self.write_address.next = self.adding_index.q.val();
        self.write_data.next = self.sum.val();
        if self.clearing_all.q.val() {
            // the increment of an all-ones word, zero
            self.write_address.next = self.clear_index.q.val();
            self.adding_word.d.next = self.all_ones.val();
        }
        self.for_increment.write_enable.next = self.write.val();
        self.for_increment.write_address.next = self.write_address.val();
        self.for_increment.write_data.next = self.write_data.val();
        self.for_read.write_enable.next = self.write.val();
        self.for_read.write_address.next = self.write_address.val();
        self.for_read.write_data.next = self.write_data.val();

        // ---- a read ----
        self.read_address.d.next = self.read_index.val();
        self.for_read.read_address.next = self.read_address.q.val();
        self.read_word.d.next = self.for_read.read_data.val();
        self.read_count.next = bit_cast::<32, COUNT_WORD_BITS>(self.read_word.q.val());

        // ---- clearing after reset ----
        if self.clearing_all.q.val() {
            self.clear_index.d.next = self.clear_index.q.val() + 1;
            if self.clear_index.q.val() == self.last_index.val() {
                self.clearing_all.d.next = false;
            }
        }
        self.clearing.next = self.clearing_all.q.val();
        if self.reset.val() {
            self.clearing_all.d.next = true;
            self.clear_index.d.next = 0.into();
            self.taken.d.next = false;
            self.adding.d.next = false;
            self.adding_word.d.next = self.all_ones.val();
        }
    }
}
