//! FIFOs kept in RAM, with a registered head: [`BeatFifo`] for stream beats, [`Fifo`] for one
//! value (a `LogicStruct` record or `Bits`), both run by [`FifoControl`]; [`ReleasedFifo`], a
//! [`Fifo`] whose entries leave in order as something else releases them.
//!
//! The entries live in RAMs that synthesis maps to LUTRAM: 32 entries of a 512-bit beat take
//! about 330 LUTs as RAM32M16 instead of 18,000 flip-flops and their read multiplexer. The RAMs
//! read synchronously, so the head is a register: whoever consumes it starts its paths at a
//! flip-flop, and `pop` reaches the RAMs through one multiplexer on the read address.
//!
//! Timing: an entry pushed in cycle t is counted in `fill` from t + 1 and is the head from
//! t + 2 at the earliest (a RAM reads what was written in earlier cycles only); a pop in cycle t
//! shows the next entry from t + 1 when it was pushed before t. So one entry per cycle goes
//! through without a bubble once the FIFO holds two.
//!
//! The fill level is a thermometer code (`fill` bit i: more than i entries), so a push or a pop
//! moves it with one LUT level and a user compares it with a threshold by reading one bit: no
//! adder or comparator sits behind the push and pop decisions, which are the deep paths of the
//! units around a FIFO.

use super::lut_ram::LutRam;
use rust_hdl::prelude::*;

/// Address bits of the RAMs: 32 entries, the depth of a RAM32M16.
pub const ADDRESS_BITS: usize = 5;

/// Entries a FIFO holds.
pub const CAPACITY: usize = 1 << ADDRESS_BITS;

/// The addresses and fill level of a RAM FIFO of [`CAPACITY`] entries with a registered head: the
/// RAM writes `push`'s entry at `write_address` and reads `read_address` every cycle; its read
/// register is the head, valid when `head_valid` is.
#[derive(LogicBlock, Default)]
pub struct FifoControl {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties the FIFO.
    pub reset: Signal<In, Bit>,
    /// An entry is written this cycle. Only while the FIFO is not full (`fill` bit 31 low).
    pub push: Signal<In, Bit>,
    /// The head is consumed. Only while `head_valid`.
    pub pop: Signal<In, Bit>,
    /// Where the RAM writes.
    pub write_address: Signal<Out, Bits<ADDRESS_BITS>>,
    /// Where the RAM reads (its read register is the next cycle's head).
    pub read_address: Signal<Out, Bits<ADDRESS_BITS>>,
    /// The RAM's read register holds the head (registered).
    pub head_valid: Signal<Out, Bit>,
    /// Fill level as a thermometer code: bit i is high when the FIFO holds more than i entries,
    /// the head included, pushes of this cycle not yet (registered).
    pub fill: Signal<Out, Bits<CAPACITY>>,

    write_pointer: DFF<Bits<ADDRESS_BITS>>,
    /// Address of the head entry.
    head_pointer: DFF<Bits<ADDRESS_BITS>>,
    /// Address of the entry after the head, with bit 0 inverted: the registers start at 0
    /// without a reset, and this one then means 1.
    after_head_flipped: DFF<Bits<ADDRESS_BITS>>,
    after_head: Signal<Local, Bits<ADDRESS_BITS>>,
    /// Entries written in earlier cycles and not popped, the head included (thermometer).
    stored: DFF<Bits<CAPACITY>>,
    head_shown: DFF<Bit>,
}

impl Logic for FifoControl {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, write_pointer, head_pointer, after_head_flipped, stored, head_shown);
        // write side
        self.write_address.next = self.write_pointer.q.val();
        if self.push.val() {
            self.write_pointer.d.next = self.write_pointer.q.val() + 1;
        }
        // read side: the head's address, or the next one when the head is popped
        self.after_head.next = self.after_head_flipped.q.val() ^ 1;
        self.read_address.next = self.head_pointer.q.val();
        if self.pop.val() {
            self.read_address.next = self.after_head.val();
            self.head_pointer.d.next = self.after_head.val();
            self.after_head_flipped.d.next = (self.after_head.val() + 1) ^ 1;
        }
        // what the RAM reads now was written in an earlier cycle: the head is valid next cycle
        if self.pop.val() {
            self.head_shown.d.next = self.stored.q.val().get_bit(1);
        } else {
            self.head_shown.d.next = self.stored.q.val().get_bit(0);
        }
        if self.push.val() && !self.pop.val() {
            self.stored.d.next = (self.stored.q.val() << 1) | 1;
        } else if !self.push.val() && self.pop.val() {
            self.stored.d.next = self.stored.q.val() >> 1;
        }
        if self.reset.val() {
            self.write_pointer.d.next = 0.into();
            self.head_pointer.d.next = 0.into();
            self.after_head_flipped.d.next = 0.into();
            self.stored.d.next = 0.into();
            self.head_shown.d.next = false;
        }
        self.head_valid.next = self.head_shown.q.val();
        self.fill.next = self.stored.q.val();
    }
}

/// FIFO of one value per entry (a `LogicStruct` record, or `Bits`), up to [`CAPACITY`].
#[derive(LogicBlock, Default)]
pub struct Fifo<T: Synth> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties the FIFO.
    pub reset: Signal<In, Bit>,
    /// Write `push_value`. Only while the FIFO is not full.
    pub push: Signal<In, Bit>,
    /// Entry to write.
    pub push_value: Signal<In, T>,
    /// Consume the head. Only while `head_valid`.
    pub pop: Signal<In, Bit>,
    /// An entry is at the head (registered).
    pub head_valid: Signal<Out, Bit>,
    /// The head entry (registered).
    pub head: Signal<Out, T>,
    /// Fill level (thermometer: bit i, more than i entries; registered).
    pub fill: Signal<Out, Bits<CAPACITY>>,

    control: FifoControl,
    values: RAM<T, ADDRESS_BITS>,
}

impl<T: Synth> Logic for Fifo<T> {
    #[hdl_gen]
    fn update(&mut self) {
        self.control.clock.next = self.clock.val();
        self.control.reset.next = self.reset.val();
        self.control.push.next = self.push.val();
        self.control.pop.next = self.pop.val();
        self.values.write_clock.next = self.clock.val();
        self.values.read_clock.next = self.clock.val();
        self.values.write_enable.next = self.push.val();
        self.values.write_address.next = self.control.write_address.val();
        self.values.write_data.next = self.push_value.val();
        self.values.read_address.next = self.control.read_address.val();
        self.head_valid.next = self.control.head_valid.val();
        self.head.next = self.values.read_data.val();
        self.fill.next = self.control.fill.val();
    }
}

/// Bits of [`ReleasedFifo`]'s count of permitted entries: its entries and a permit ahead.
const PERMITTED_BITS: usize = CAPACITY + 2;

/// A [`Fifo`] whose head leaves only once released: `permit` pulses once per entry, in the
/// order the entries were pushed, whenever whoever must go first is done with it (before or
/// after the entry arrives); the head is shown (`head_valid`) two cycles after its permit
/// (the permit is registered, so the logic that permits ends at a flip-flop). Up to
/// [`CAPACITY`] entries; permits may run one entry ahead of the pushes. (`release` would be the
/// word, but it is a Verilog keyword.)
#[derive(LogicBlock)]
pub struct ReleasedFifo<T: Synth> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties the FIFO and forgets the permits.
    pub reset: Signal<In, Bit>,
    /// Write `push_value`. Only while `room`.
    pub push: Signal<In, Bit>,
    /// Entry to write.
    pub push_value: Signal<In, T>,
    /// The FIFO is not full (registered).
    pub room: Signal<Out, Bit>,
    /// The next entry not yet permitted may leave.
    pub permit: Signal<In, Bit>,
    /// Consume the head. Only while `head_valid`.
    pub pop: Signal<In, Bit>,
    /// The head is there and permitted (from registers).
    pub head_valid: Signal<Out, Bit>,
    /// The head entry (registered).
    pub head: Signal<Out, T>,

    entries: Fifo<T>,
    /// `permit`, one cycle later (so the permitting logic ends at a flip-flop).
    permit_registered: DFF<Bit>,
    /// Entries permitted and not yet popped, as a thermometer (bit i: more than i), so that
    /// the head's permission is one bit and `pop` reaches the count through one multiplexer.
    permitted: DFF<Bits<PERMITTED_BITS>>,
    /// The fill bit that says the FIFO is full.
    full_at: Constant<Bits<8>>,
}

impl<T: Synth> Default for ReleasedFifo<T> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            push_value: Default::default(),
            room: Default::default(),
            permit: Default::default(),
            pop: Default::default(),
            head_valid: Default::default(),
            head: Default::default(),
            entries: Default::default(),
            permit_registered: Default::default(),
            permitted: Default::default(),
            full_at: Constant::new((CAPACITY as u64 - 1).into()),
        }
    }
}

impl<T: Synth> Logic for ReleasedFifo<T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, permit_registered, permitted);
        self.entries.clock.next = self.clock.val();
        self.entries.reset.next = self.reset.val();
        self.entries.push.next = self.push.val();
        self.entries.push_value.next = self.push_value.val();
        self.room.next = !self.entries.fill.val().get_bit(self.full_at.val().index());
        self.head_valid.next = self.entries.head_valid.val() && self.permitted.q.val().get_bit(0);
        self.head.next = self.entries.head.val();
        self.entries.pop.next = self.pop.val();
        self.permit_registered.d.next = self.permit.val();
        if self.permit_registered.q.val() && !self.pop.val() {
            self.permitted.d.next = (self.permitted.q.val() << 1) | 1;
        }
        if !self.permit_registered.q.val() && self.pop.val() {
            self.permitted.d.next = self.permitted.q.val() >> 1;
        }
        if self.reset.val() {
            self.permit_registered.d.next = false;
            self.permitted.d.next = 0.into();
        }
    }
}

/// FIFO of beats of a `W`-bit stream (`K = W / 8` keep bits): data, keep, last, and the beat's
/// byte count (carried so the consumer need not count the keep bits). Up to [`CAPACITY`] beats.
#[derive(LogicBlock)]
pub struct BeatFifo<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties the FIFO.
    pub reset: Signal<In, Bit>,
    /// Write a beat. Only while the FIFO is not full (the user checks its own limit on `fill`).
    pub push: Signal<In, Bit>,
    /// Beat to write: data.
    pub push_data: Signal<In, Bits<W>>,
    /// Beat to write: byte enables.
    pub push_keep: Signal<In, Bits<K>>,
    /// Beat to write: last beat of a frame.
    pub push_last: Signal<In, Bit>,
    /// Beat to write: its bytes.
    pub push_bytes: Signal<In, Bits<8>>,
    /// Consume the head. Only while `head_valid`.
    pub pop: Signal<In, Bit>,
    /// A beat is at the head (registered).
    pub head_valid: Signal<Out, Bit>,
    /// The head beat: data (registered).
    pub head_data: Signal<Out, Bits<W>>,
    /// The head beat: byte enables.
    pub head_keep: Signal<Out, Bits<K>>,
    /// The head beat: last beat of a frame.
    pub head_last: Signal<Out, Bit>,
    /// The head beat: its bytes.
    pub head_bytes: Signal<Out, Bits<8>>,
    /// Fill level (thermometer: bit i, more than i beats; registered).
    pub fill: Signal<Out, Bits<CAPACITY>>,

    control: FifoControl,
    data: RAM<Bits<W>, ADDRESS_BITS>,
    keep: RAM<Bits<K>, ADDRESS_BITS>,
    /// Bit 8: last; bits 7:0: bytes.
    last_and_bytes: RAM<Bits<9>, ADDRESS_BITS>,
}

impl<const W: usize, const K: usize> Default for BeatFifo<W, K> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            push_data: Default::default(),
            push_keep: Default::default(),
            push_last: Default::default(),
            push_bytes: Default::default(),
            pop: Default::default(),
            head_valid: Default::default(),
            head_data: Default::default(),
            head_keep: Default::default(),
            head_last: Default::default(),
            head_bytes: Default::default(),
            fill: Default::default(),
            control: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            last_and_bytes: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize> Logic for BeatFifo<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        self.control.clock.next = self.clock.val();
        self.control.reset.next = self.reset.val();
        self.control.push.next = self.push.val();
        self.control.pop.next = self.pop.val();
        self.data.write_clock.next = self.clock.val();
        self.keep.write_clock.next = self.clock.val();
        self.last_and_bytes.write_clock.next = self.clock.val();
        self.data.read_clock.next = self.clock.val();
        self.keep.read_clock.next = self.clock.val();
        self.last_and_bytes.read_clock.next = self.clock.val();

        self.data.write_enable.next = self.push.val();
        self.keep.write_enable.next = self.push.val();
        self.last_and_bytes.write_enable.next = self.push.val();
        self.data.write_address.next = self.control.write_address.val();
        self.keep.write_address.next = self.control.write_address.val();
        self.last_and_bytes.write_address.next = self.control.write_address.val();
        self.data.write_data.next = self.push_data.val();
        self.keep.write_data.next = self.push_keep.val();
        self.last_and_bytes.write_data.next = bit_cast::<9, 8>(self.push_bytes.val());
        if self.push_last.val() {
            self.last_and_bytes.write_data.next = bit_cast::<9, 8>(self.push_bytes.val()) | 0x100;
        }
        self.data.read_address.next = self.control.read_address.val();
        self.keep.read_address.next = self.control.read_address.val();
        self.last_and_bytes.read_address.next = self.control.read_address.val();

        self.head_valid.next = self.control.head_valid.val();
        self.head_data.next = self.data.read_data.val();
        self.head_keep.next = self.keep.read_data.val();
        self.head_last.next = self.last_and_bytes.read_data.val().get_bit(8);
        self.head_bytes.next = self.last_and_bytes.read_data.val().get_bits::<8>(0);
        self.fill.next = self.control.fill.val();
    }
}

/// A [`BeatFifo`] whose head data and keep are read from the LUT RAM at the head's address in
/// the cycle they are needed, without a read register: `W + K` flip-flops fewer, and one LUT
/// level (the LUTRAM read) between the head pointer and whatever uses the head's data. The
/// head's `last` and byte count, which decide when the head moves, are registered as in
/// [`BeatFifo`]. Same ports and timing as [`BeatFifo`].
#[derive(LogicBlock)]
pub struct LutHeadBeatFifo<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties the FIFO.
    pub reset: Signal<In, Bit>,
    /// Write a beat. Only while the FIFO is not full (the user checks its own limit on `fill`).
    pub push: Signal<In, Bit>,
    /// Beat to write: data.
    pub push_data: Signal<In, Bits<W>>,
    /// Beat to write: byte enables.
    pub push_keep: Signal<In, Bits<K>>,
    /// Beat to write: last beat of a frame.
    pub push_last: Signal<In, Bit>,
    /// Beat to write: its bytes.
    pub push_bytes: Signal<In, Bits<8>>,
    /// Consume the head. Only while `head_valid`.
    pub pop: Signal<In, Bit>,
    /// A beat is at the head (registered).
    pub head_valid: Signal<Out, Bit>,
    /// The head beat: data (read from the LUT RAM at the head's address).
    pub head_data: Signal<Out, Bits<W>>,
    /// The head beat: byte enables (likewise).
    pub head_keep: Signal<Out, Bits<K>>,
    /// The head beat: last beat of a frame (registered).
    pub head_last: Signal<Out, Bit>,
    /// The head beat: its bytes (registered).
    pub head_bytes: Signal<Out, Bits<8>>,
    /// Fill level (thermometer: bit i, more than i beats; registered).
    pub fill: Signal<Out, Bits<CAPACITY>>,

    control: FifoControl,
    data: LutRam<Bits<W>, ADDRESS_BITS>,
    keep: LutRam<Bits<K>, ADDRESS_BITS>,
    /// Bit 8: last; bits 7:0: bytes.
    last_and_bytes: RAM<Bits<9>, ADDRESS_BITS>,
    /// The head's address: what the control read last cycle.
    head_address: DFF<Bits<ADDRESS_BITS>>,
}

impl<const W: usize, const K: usize> Default for LutHeadBeatFifo<W, K> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            push_data: Default::default(),
            push_keep: Default::default(),
            push_last: Default::default(),
            push_bytes: Default::default(),
            pop: Default::default(),
            head_valid: Default::default(),
            head_data: Default::default(),
            head_keep: Default::default(),
            head_last: Default::default(),
            head_bytes: Default::default(),
            fill: Default::default(),
            control: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            last_and_bytes: Default::default(),
            head_address: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize> Logic for LutHeadBeatFifo<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, head_address);
        self.control.clock.next = self.clock.val();
        self.control.reset.next = self.reset.val();
        self.control.push.next = self.push.val();
        self.control.pop.next = self.pop.val();
        self.data.write_clock.next = self.clock.val();
        self.keep.write_clock.next = self.clock.val();
        self.last_and_bytes.write_clock.next = self.clock.val();
        self.last_and_bytes.read_clock.next = self.clock.val();

        self.data.write_enable.next = self.push.val();
        self.keep.write_enable.next = self.push.val();
        self.last_and_bytes.write_enable.next = self.push.val();
        self.data.write_address.next = self.control.write_address.val();
        self.keep.write_address.next = self.control.write_address.val();
        self.last_and_bytes.write_address.next = self.control.write_address.val();
        self.data.write_data.next = self.push_data.val();
        self.keep.write_data.next = self.push_keep.val();
        self.last_and_bytes.write_data.next = bit_cast::<9, 8>(self.push_bytes.val());
        if self.push_last.val() {
            self.last_and_bytes.write_data.next = bit_cast::<9, 8>(self.push_bytes.val()) | 0x100;
        }
        // The control's read address becomes the head's address at the clock edge. An entry is
        // the head two cycles after its write at the earliest, so reading it at that address
        // now gives what a read register would hold.
        self.last_and_bytes.read_address.next = self.control.read_address.val();
        self.head_address.d.next = self.control.read_address.val();
        if self.reset.val() {
            self.head_address.d.next = 0.into();
        }
        self.data.read_address.next = self.head_address.q.val();
        self.keep.read_address.next = self.head_address.q.val();

        self.head_valid.next = self.control.head_valid.val();
        self.head_data.next = self.data.read_data.val();
        self.head_keep.next = self.keep.read_data.val();
        self.head_last.next = self.last_and_bytes.read_data.val().get_bit(8);
        self.head_bytes.next = self.last_and_bytes.read_data.val().get_bits::<8>(0);
        self.fill.next = self.control.fill.val();
    }
}
