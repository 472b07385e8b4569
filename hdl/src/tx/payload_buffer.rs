//! [`PayloadBuffer`]: the packet generator's payload FIFO in block RAM (and the RX payload
//! writer's, `crate::engine::PayloadWriter`), deep enough for two packets of the largest
//! payload, which says when the payload of the packet at its head is stored whole.
//!
//! The generator starts a frame only when its payload is whole, so a frame, once started, never
//! waits for memory: a MAC that must not underflow (Xilinx CMAC) can take the stream directly.
//! Holding two payloads lets the next packet's payload arrive while the current one leaves.
//!
//! Timing as [`crate::common::fifo::FifoControl`]'s: a beat pushed in cycle t is the head from
//! t + 2 at the earliest; a pop in cycle t shows the next beat from t + 1 when it was pushed
//! before t. `room` and `whole` are registers, conservative by the pushes of the last cycles.

use crate::common::elab::c;
use ferroce_contracts::tx::MAX_PACKET_PAYLOAD;
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// Address bits the widest depth needs (two payloads of 4096 bytes at 64 bits: 1024 beats).
pub const MAX_ADDRESS_BITS: usize = 10;

/// Address bits of the buffer at `k` bytes per beat: two payloads of [`MAX_PACKET_PAYLOAD`].
pub const fn address_bits(k: usize) -> usize {
    (2 * MAX_PACKET_PAYLOAD as usize / k).trailing_zeros() as usize
}

/// Beats pushed that `room` may not have counted yet: the push in the cycle `room` was computed
/// from and the push in the cycle it is used.
const PUSHES_UNCOUNTED: u64 = 2;

/// `2^n` beats (`W` data bits and a `last` bit) in block RAM, `n` chosen at elaboration
/// (`MAX_ADDRESS_BITS` at most; the addresses' high bits are ignored). One write port, one
/// synchronous read port. A Verilog leaf because rust-hdl's RAM size is a type parameter, and
/// the depth here follows from the bus width.
#[derive(LogicBlock)]
pub struct PayloadRam<const W: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Write `write_data` and `write_last` at `write_address`.
    pub write: Signal<In, bool>,
    /// Write address.
    pub write_address: Signal<In, Bits<MAX_ADDRESS_BITS>>,
    /// Beat to write: data.
    pub write_data: Signal<In, Bits<W>>,
    /// Beat to write: last beat of a payload.
    pub write_last: Signal<In, Bit>,
    /// Read address.
    pub read_address: Signal<In, Bits<MAX_ADDRESS_BITS>>,
    /// Data of the beat at the last cycle's `read_address` (before that cycle's write).
    pub read_data: Signal<Out, Bits<W>>,
    /// Its `last` bit.
    pub read_last: Signal<Out, Bit>,
    _address_bits: usize,
    _sim: BTreeMap<u64, (Bits<W>, Bit)>,
}

impl<const W: usize> PayloadRam<W> {
    /// A RAM of `2^address_bits` beats.
    pub fn new(address_bits: usize) -> Self {
        assert!((1..=MAX_ADDRESS_BITS).contains(&address_bits));
        Self {
            clock: Default::default(),
            write: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            write_last: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            read_last: Default::default(),
            _address_bits: address_bits,
            _sim: BTreeMap::new(),
        }
    }

    fn index(&self, address: Bits<MAX_ADDRESS_BITS>) -> u64 {
        address.to_u64() & ((1 << self._address_bits) - 1)
    }
}

impl<const W: usize> Logic for PayloadRam<W> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let (data, last) = self._sim.get(&self.index(self.read_address.val())).copied().unwrap_or_default();
            self.read_data.next = data;
            self.read_last.next = last;
            if self.write.val() {
                let at = self.index(self.write_address.val());
                self._sim.insert(at, (self.write_data.val(), self.write_last.val()));
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
        self.read_last.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
(* ram_style = \"block\" *) reg[{W}:0] mem[{last}:0];

always @(posedge clock) begin
   if (write) begin
      mem[write_address[{a}:0]] <= {{write_last, write_data}};
   end
   {{read_last, read_data}} <= mem[read_address[{a}:0]];
end
",
            W = W,
            last = (1usize << self._address_bits) - 1,
            a = self._address_bits - 1,
        ))
    }
}

/// A count that steps by one, kept with its neighbours `count + 1` and `count - 1` in
/// registers, so a step is a choice among registers: the `increment` and `decrement` inputs
/// (late in the cycle) reach the count through one multiplexer, not through a carry chain.
/// (Written as one adder after a choice of ±1, yosys shares the two into one carry chain
/// behind the choice.)
#[derive(LogicBlock, Default)]
pub struct StepCounter {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: the count goes to 0.
    pub reset: Signal<In, Bit>,
    /// Count one up (nothing when `decrement` too).
    pub increment: Signal<In, Bit>,
    /// Count one down (nothing when `increment` too).
    pub decrement: Signal<In, Bit>,
    /// The count (registered).
    pub count: Signal<Out, Bits<12>>,
    value: DFF<Bits<12>>,
    /// `value + 1` with bit 0 inverted (the registers start at 0 without a reset: 1 then).
    above_flipped: DFF<Bits<12>>,
    /// `value - 1` inverted (0 without a reset: all ones then).
    below_inverted: DFF<Bits<12>>,
    above: Signal<Local, Bits<12>>,
    below: Signal<Local, Bits<12>>,
}

impl Logic for StepCounter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, value, above_flipped, below_inverted);
        self.above.next = self.above_flipped.q.val() ^ 1;
        self.below.next = !self.below_inverted.q.val();
        if self.increment.val() && !self.decrement.val() {
            self.value.d.next = self.above.val();
            self.above_flipped.d.next = (self.above.val() + 1) ^ 1;
            self.below_inverted.d.next = !self.value.q.val();
        } else if self.decrement.val() && !self.increment.val() {
            self.value.d.next = self.below.val();
            self.above_flipped.d.next = self.value.q.val() ^ 1;
            self.below_inverted.d.next = !(self.below.val() - 1);
        }
        if self.reset.val() {
            self.value.d.next = 0.into();
            self.above_flipped.d.next = 0.into();
            self.below_inverted.d.next = 0.into();
        }
        self.count.next = self.value.q.val();
    }
}

/// The payload FIFO of the packet generator: beats (data and `last`) in a [`PayloadRam`] of
/// two largest payloads, a registered head, `room` for the writer and `whole` for the reader.
#[derive(LogicBlock)]
pub struct PayloadBuffer<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties the buffer.
    pub reset: Signal<In, Bit>,
    /// A push may be made this cycle (registered).
    pub room: Signal<Out, Bit>,
    /// Write a beat. Only while `room`.
    pub push: Signal<In, Bit>,
    /// Beat to write: data.
    pub push_data: Signal<In, Bits<W>>,
    /// Beat to write: last beat of a payload.
    pub push_last: Signal<In, Bit>,
    /// Consume the head. Only while `head_valid`.
    pub pop: Signal<In, Bit>,
    /// A beat is at the head (registered).
    pub head_valid: Signal<Out, Bit>,
    /// The head beat: data (registered).
    pub head_data: Signal<Out, Bits<W>>,
    /// The head beat: last beat of its payload (registered).
    pub head_last: Signal<Out, Bit>,
    /// A payload's last beat is stored and not popped: the payload at the head is whole
    /// (registered; a last beat counts from two cycles after its push).
    pub whole: Signal<Out, Bit>,

    ram: PayloadRam<W>,
    write_pointer: DFF<Bits<MAX_ADDRESS_BITS>>,
    head_pointer: DFF<Bits<MAX_ADDRESS_BITS>>,
    /// Address of the beat after the head, with bit 0 inverted (the registers start at 0
    /// without a reset, and this one then means 1).
    after_head_flipped: DFF<Bits<MAX_ADDRESS_BITS>>,
    after_head: Signal<Local, Bits<MAX_ADDRESS_BITS>>,
    /// Beats written in earlier cycles and not popped, the head included.
    stored: StepCounter,
    /// Last beats among them.
    stored_lasts: StepCounter,
    head_shown: DFF<Bit>,
    room_register: DFF<Bit>,
    whole_register: DFF<Bit>,
    popped_last: Signal<Local, Bit>,
    address_mask: Constant<Bits<MAX_ADDRESS_BITS>>,
    one: Constant<Bits<12>>,
    /// The most beats stored when `room` may be high.
    room_limit: Constant<Bits<12>>,
}

impl<const W: usize, const K: usize> Default for PayloadBuffer<W, K> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        let bits = address_bits(K);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            room: Default::default(),
            push: Default::default(),
            push_data: Default::default(),
            push_last: Default::default(),
            pop: Default::default(),
            head_valid: Default::default(),
            head_data: Default::default(),
            head_last: Default::default(),
            whole: Default::default(),
            ram: PayloadRam::new(bits),
            write_pointer: Default::default(),
            head_pointer: Default::default(),
            after_head_flipped: Default::default(),
            after_head: Default::default(),
            stored: Default::default(),
            stored_lasts: Default::default(),
            head_shown: Default::default(),
            room_register: Default::default(),
            whole_register: Default::default(),
            popped_last: Default::default(),
            address_mask: c::<MAX_ADDRESS_BITS>((1 << bits) - 1),
            one: c::<12>(1),
            room_limit: c::<12>((1 << bits) - PUSHES_UNCOUNTED - 1),
        }
    }
}

impl<const W: usize, const K: usize> Logic for PayloadBuffer<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            write_pointer,
            head_pointer,
            after_head_flipped,
            head_shown,
            room_register,
            whole_register
        );
        self.ram.clock.next = self.clock.val();
        self.stored.clock.next = self.clock.val();
        self.stored.reset.next = self.reset.val();
        self.stored_lasts.clock.next = self.clock.val();
        self.stored_lasts.reset.next = self.reset.val();
        // write side
        self.ram.write.next = self.push.val();
        self.ram.write_address.next = self.write_pointer.q.val();
        self.ram.write_data.next = self.push_data.val();
        self.ram.write_last.next = self.push_last.val();
        if self.push.val() {
            self.write_pointer.d.next = (self.write_pointer.q.val() + 1) & self.address_mask.val();
        }
        // read side: the head's address, or the next one when the head is popped
        self.after_head.next = self.after_head_flipped.q.val() ^ 1;
        self.ram.read_address.next = self.head_pointer.q.val();
        if self.pop.val() {
            self.ram.read_address.next = self.after_head.val();
            self.head_pointer.d.next = self.after_head.val();
            self.after_head_flipped.d.next = ((self.after_head.val() + 1) & self.address_mask.val()) ^ 1;
        }
        // what the RAM reads now was written in an earlier cycle: the head is valid next cycle
        if self.pop.val() {
            self.head_shown.d.next = self.stored.count.val() > self.one.val();
        } else {
            self.head_shown.d.next = self.stored.count.val().any();
        }
        self.stored.increment.next = self.push.val();
        self.stored.decrement.next = self.pop.val();
        self.room_register.d.next = self.stored.count.val() <= self.room_limit.val();
        // whole payloads: last beats stored, this cycle's pop taken off, its push not yet counted
        self.popped_last.next = self.pop.val() && self.ram.read_last.val();
        self.stored_lasts.increment.next = self.push.val() && self.push_last.val();
        self.stored_lasts.decrement.next = self.popped_last.val();
        self.whole_register.d.next =
            self.stored_lasts.count.val() > self.one.val() || (self.stored_lasts.count.val().any() && !self.popped_last.val());
        if self.reset.val() {
            self.write_pointer.d.next = 0.into();
            self.head_pointer.d.next = 0.into();
            self.after_head_flipped.d.next = 0.into();
            self.head_shown.d.next = false;
            self.room_register.d.next = false;
            self.whole_register.d.next = false;
        }
        self.room.next = self.room_register.q.val();
        self.head_valid.next = self.head_shown.q.val();
        self.head_data.next = self.ram.read_data.val();
        self.head_last.next = self.ram.read_last.val();
        self.whole.next = self.whole_register.q.val();
    }
}
