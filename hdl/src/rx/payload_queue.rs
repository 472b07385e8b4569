//! [`PayloadQueue`]: the realigned payload beats on their way to `m_pay`, in LUTRAM.
//!
//! The realigner can produce two beats in one cycle (a full beat and the payload's final beat)
//! and must not show a final beat before its packet's verdict is known (the drop mark travels on
//! it). So the queue takes up to two beats per cycle, in two RAM banks (entry `e` in bank
//! `e mod 2` at address `e / 2`), and can hide the last beat it took until `reveal` writes its
//! drop mark and shows it.
//!
//! Entries `[read, write)` are in the queue; the first `visible` of them can be read. An entry
//! is counted in `fill` from the cycle after its push and is the head from the second cycle after
//! its push (or its release) at the earliest, as in [`crate::common::fifo`]. Both levels are
//! thermometer codes, so no adder sits behind the push and pop decisions.

use crate::common::fifo::CAPACITY;
use crate::common::lut_ram::LutRam;
use rust_hdl::prelude::*;

/// Address bits of each bank (16 entries per bank, 32 in all).
const BANK_ADDRESS_BITS: usize = 4;

/// Up to [`CAPACITY`] beats of a `W`-bit stream (`K = W / 8`): data, keep, last, user.
#[derive(LogicBlock)]
pub struct PayloadQueue<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empties the queue.
    pub reset: Signal<In, Bit>,
    /// Push the first beat of this cycle (at most [`CAPACITY`] entries in all).
    pub push_first: Signal<In, Bit>,
    /// First beat: data, keep, last, user.
    pub first_data: Signal<In, Bits<W>>,
    /// First beat: byte enables.
    pub first_keep: Signal<In, Bits<K>>,
    /// First beat: last beat of a payload.
    pub first_last: Signal<In, Bit>,
    /// First beat: drop mark.
    pub first_user: Signal<In, Bit>,
    /// Push a second beat after the first, in the same cycle (only with `push_first`). It is a
    /// payload's last beat.
    pub push_second: Signal<In, Bit>,
    /// Second beat: data.
    pub second_data: Signal<In, Bits<W>>,
    /// Second beat: byte enables.
    pub second_keep: Signal<In, Bits<K>>,
    /// Second beat: drop mark.
    pub second_user: Signal<In, Bit>,
    /// The last beat pushed this cycle stays hidden until `reveal` (only with a push, and only
    /// while no beat is hidden).
    pub hold: Signal<In, Bit>,
    /// Show the hidden beat, with `reveal_user` as its drop mark (never with a push).
    pub reveal: Signal<In, Bit>,
    /// Drop mark of the released beat.
    pub reveal_user: Signal<In, Bit>,
    /// Consume the head (only while `head_valid`).
    pub pop: Signal<In, Bit>,
    /// A beat is at the head.
    pub head_valid: Signal<Out, Bit>,
    /// Head beat: data (registered: the entry the banks' LUT RAMs read last cycle).
    pub head_data: Signal<Out, Bits<W>>,
    /// Head beat: byte enables.
    pub head_keep: Signal<Out, Bits<K>>,
    /// Head beat: last.
    pub head_last: Signal<Out, Bit>,
    /// Head beat: drop mark.
    pub head_user: Signal<Out, Bit>,
    /// Entries in the queue, hidden or not (thermometer: bit i, more than i; registered).
    pub fill: Signal<Out, Bits<CAPACITY>>,

    /// Data and keep of both banks, and the head register they are read into.
    banks: DataBanks<W, K>,
    /// What each bank writes this cycle.
    bank_write: [Signal<Local, Bit>; 2],
    bank_write_address: [Signal<Local, Bits<BANK_ADDRESS_BITS>>; 2],
    bank_write_data: [Signal<Local, Bits<W>>; 2],
    bank_write_keep: [Signal<Local, Bits<K>>; 2],
    /// Bit 1: last; bit 0: user (the drop mark, written again at a reveal).
    last_user_bank: [RAM<Bits<2>, BANK_ADDRESS_BITS>; 2],
    bank_index: [Constant<Bit>; 2],
    /// Entry index of the head, and the one after it (kept XOR 1, so that registers that start
    /// at 0 without a reset mean 0 and 1; the same for the write side's XOR 1 and XOR 2).
    read_pointer: DFF<Bits<5>>,
    read_pointer_next_flipped: DFF<Bits<5>>,
    read_pointer_next: Signal<Local, Bits<5>>,
    /// Entry index of the next push, and the two after it.
    write_pointer: DFF<Bits<5>>,
    write_pointer_next_flipped: DFF<Bits<5>>,
    write_pointer_after_next_flipped: DFF<Bits<5>>,
    write_pointer_next: Signal<Local, Bits<5>>,
    write_pointer_after_next: Signal<Local, Bits<5>>,
    /// `{last, user}` words written for the first and second beat and at a reveal.
    first_last_user: Signal<Local, Bits<2>>,
    second_last_user: Signal<Local, Bits<2>>,
    revealed_last_user: Signal<Local, Bits<2>>,
    /// The hidden entry.
    hidden_entry: DFF<Bits<5>>,
    /// Entries in the queue (thermometer), and the visible ones written in earlier cycles.
    entries: DFF<Bits<CAPACITY>>,
    visible: DFF<Bits<CAPACITY>>,
    /// The banks' read registers hold the head; which bank it is in.
    head_shown: DFF<Bit>,
    head_bank: DFF<Bit>,
    /// Entry read this cycle (the head after this cycle's pop).
    next_head: Signal<Local, Bits<5>>,
    /// Bank `b` writes the first beat (else the second, if any).
    takes_first: [Signal<Local, Bit>; 2],
    takes_second: [Signal<Local, Bit>; 2],
    /// Entries made visible this cycle minus the popped one: -1..2, as `entries_up`.
    visible_up_one: Signal<Local, Bit>,
    visible_up_two: Signal<Local, Bit>,
    visible_down: Signal<Local, Bit>,
    entries_up_one: Signal<Local, Bit>,
    entries_up_two: Signal<Local, Bit>,
    entries_down: Signal<Local, Bit>,
}

impl<const W: usize, const K: usize> Default for PayloadQueue<W, K> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push_first: Default::default(),
            first_data: Default::default(),
            first_keep: Default::default(),
            first_last: Default::default(),
            first_user: Default::default(),
            push_second: Default::default(),
            second_data: Default::default(),
            second_keep: Default::default(),
            second_user: Default::default(),
            hold: Default::default(),
            reveal: Default::default(),
            reveal_user: Default::default(),
            pop: Default::default(),
            head_valid: Default::default(),
            head_data: Default::default(),
            head_keep: Default::default(),
            head_last: Default::default(),
            head_user: Default::default(),
            fill: Default::default(),
            banks: Default::default(),
            bank_write: Default::default(),
            bank_write_address: Default::default(),
            bank_write_data: Default::default(),
            bank_write_keep: Default::default(),
            last_user_bank: Default::default(),
            bank_index: [Constant::new(false), Constant::new(true)],
            read_pointer: Default::default(),
            read_pointer_next_flipped: Default::default(),
            read_pointer_next: Default::default(),
            write_pointer: Default::default(),
            write_pointer_next_flipped: Default::default(),
            write_pointer_after_next_flipped: Default::default(),
            write_pointer_next: Default::default(),
            write_pointer_after_next: Default::default(),
            first_last_user: Default::default(),
            second_last_user: Default::default(),
            revealed_last_user: Default::default(),
            hidden_entry: Default::default(),
            entries: Default::default(),
            visible: Default::default(),
            head_shown: Default::default(),
            head_bank: Default::default(),
            next_head: Default::default(),
            takes_first: Default::default(),
            takes_second: Default::default(),
            visible_up_one: Default::default(),
            visible_up_two: Default::default(),
            visible_down: Default::default(),
            entries_up_one: Default::default(),
            entries_up_two: Default::default(),
            entries_down: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize> Logic for PayloadQueue<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            read_pointer,
            read_pointer_next_flipped,
            write_pointer,
            write_pointer_next_flipped,
            write_pointer_after_next_flipped,
            hidden_entry,
            entries,
            visible,
            head_shown,
            head_bank
        );
        self.read_pointer_next.next = self.read_pointer_next_flipped.q.val() ^ 1;
        self.write_pointer_next.next = self.write_pointer_next_flipped.q.val() ^ 1;
        self.write_pointer_after_next.next = self.write_pointer_after_next_flipped.q.val() ^ 2;
        self.first_last_user.next = 0.into();
        self.first_last_user.next = self.first_last_user.val().replace_bit(1, self.first_last.val());
        self.first_last_user.next = self.first_last_user.val().replace_bit(0, self.first_user.val());
        self.second_last_user.next = 2.into();
        self.second_last_user.next = self.second_last_user.val().replace_bit(0, self.second_user.val());
        self.revealed_last_user.next = 2.into();
        self.revealed_last_user.next = self.revealed_last_user.val().replace_bit(0, self.reveal_user.val());
        // ---- writes: the first beat at the write pointer, the second after it (other bank) ----
        for b in 0..2 {
            self.last_user_bank[b].write_clock.next = self.clock.val();
            self.last_user_bank[b].read_clock.next = self.clock.val();
            self.takes_first[b].next = self.push_first.val() && self.write_pointer.q.val().get_bit(0) == self.bank_index[b].val();
            self.takes_second[b].next = self.push_second.val() && self.write_pointer_next.val().get_bit(0) == self.bank_index[b].val();
            self.bank_write[b].next = self.takes_first[b].val() || self.takes_second[b].val();
            self.last_user_bank[b].write_enable.next = self.takes_first[b].val() || self.takes_second[b].val();
            self.bank_write_address[b].next = self.write_pointer_next.val().get_bits::<4>(1);
            self.last_user_bank[b].write_address.next = self.write_pointer_next.val().get_bits::<4>(1);
            self.bank_write_data[b].next = self.second_data.val();
            self.bank_write_keep[b].next = self.second_keep.val();
            self.last_user_bank[b].write_data.next = self.second_last_user.val();
            if self.takes_first[b].val() {
                self.bank_write_address[b].next = self.write_pointer.q.val().get_bits::<4>(1);
                self.last_user_bank[b].write_address.next = self.write_pointer.q.val().get_bits::<4>(1);
                self.bank_write_data[b].next = self.first_data.val();
                self.bank_write_keep[b].next = self.first_keep.val();
                self.last_user_bank[b].write_data.next = self.first_last_user.val();
            }
            // a reveal rewrites the hidden entry's drop mark (no push in that cycle)
            if self.reveal.val() && self.hidden_entry.q.val().get_bit(0) == self.bank_index[b].val() {
                self.last_user_bank[b].write_enable.next = true;
                self.last_user_bank[b].write_address.next = self.hidden_entry.q.val().get_bits::<4>(1);
                self.last_user_bank[b].write_data.next = self.revealed_last_user.val();
            }
        }
        if self.push_second.val() {
            self.write_pointer.d.next = self.write_pointer_after_next.val();
            self.write_pointer_next_flipped.d.next = (self.write_pointer_after_next.val() + 1) ^ 1;
            self.write_pointer_after_next_flipped.d.next = (self.write_pointer_after_next.val() + 2) ^ 2;
            self.hidden_entry.d.next = self.write_pointer_next.val();
        } else if self.push_first.val() {
            self.write_pointer.d.next = self.write_pointer_next.val();
            self.write_pointer_next_flipped.d.next = self.write_pointer_after_next.val() ^ 1;
            self.write_pointer_after_next_flipped.d.next = (self.write_pointer_after_next.val() + 1) ^ 2;
            self.hidden_entry.d.next = self.write_pointer.q.val();
        }

        // ---- reads: both banks read the pair of the head after this cycle's pop ----
        self.next_head.next = self.read_pointer.q.val();
        if self.pop.val() {
            self.next_head.next = self.read_pointer_next.val();
            self.read_pointer.d.next = self.read_pointer_next.val();
            self.read_pointer_next_flipped.d.next = (self.read_pointer_next.val() + 1) ^ 1;
        }
        for b in 0..2 {
            self.last_user_bank[b].read_address.next = self.next_head.val().get_bits::<4>(1);
        }
        self.head_bank.d.next = self.next_head.val().get_bit(0);
        self.banks.clock.next = self.clock.val();
        self.banks.next_head.next = self.next_head.val();
        self.banks.write_0.next = self.bank_write[0].val();
        self.banks.write_address_0.next = self.bank_write_address[0].val();
        self.banks.write_data_0.next = self.bank_write_data[0].val();
        self.banks.write_keep_0.next = self.bank_write_keep[0].val();
        self.banks.write_1.next = self.bank_write[1].val();
        self.banks.write_address_1.next = self.bank_write_address[1].val();
        self.banks.write_data_1.next = self.bank_write_data[1].val();
        self.banks.write_keep_1.next = self.bank_write_keep[1].val();

        // ---- levels: what the RAM reads now was written or released in an earlier cycle ----
        if self.pop.val() {
            self.head_shown.d.next = self.visible.q.val().get_bit(1);
        } else {
            self.head_shown.d.next = self.visible.q.val().get_bit(0);
        }
        // visible entries: + pushes shown now (all but a held one) + a reveal − a pop
        self.visible_up_two.next = self.push_second.val() && !self.hold.val() && !self.pop.val();
        self.visible_up_one.next = false;
        self.visible_down.next = false;
        if self.push_second.val() {
            self.visible_up_one.next = (self.hold.val() && !self.pop.val()) || (!self.hold.val() && self.pop.val());
        } else if self.push_first.val() {
            self.visible_up_one.next = !self.hold.val() && !self.pop.val();
            self.visible_down.next = self.hold.val() && self.pop.val();
        } else {
            self.visible_up_one.next = self.reveal.val() && !self.pop.val();
            self.visible_down.next = !self.reveal.val() && self.pop.val();
        }
        if self.visible_up_two.val() {
            self.visible.d.next = (self.visible.q.val() << 2) | 3;
        } else if self.visible_up_one.val() {
            self.visible.d.next = (self.visible.q.val() << 1) | 1;
        } else if self.visible_down.val() {
            self.visible.d.next = self.visible.q.val() >> 1;
        }
        // entries: + pushes − a pop
        self.entries_up_two.next = self.push_second.val() && !self.pop.val();
        self.entries_up_one.next =
            (self.push_second.val() && self.pop.val()) || (self.push_first.val() && !self.push_second.val() && !self.pop.val());
        self.entries_down.next = !self.push_first.val() && self.pop.val();
        if self.entries_up_two.val() {
            self.entries.d.next = (self.entries.q.val() << 2) | 3;
        } else if self.entries_up_one.val() {
            self.entries.d.next = (self.entries.q.val() << 1) | 1;
        } else if self.entries_down.val() {
            self.entries.d.next = self.entries.q.val() >> 1;
        }

        if self.reset.val() {
            self.read_pointer.d.next = 0.into();
            self.read_pointer_next_flipped.d.next = 0.into();
            self.write_pointer.d.next = 0.into();
            self.write_pointer_next_flipped.d.next = 0.into();
            self.write_pointer_after_next_flipped.d.next = 0.into();
            self.entries.d.next = 0.into();
            self.visible.d.next = 0.into();
            self.head_shown.d.next = false;
        }

        // ---- the head: its data register, and the read register of its bank for last and user ----
        self.head_valid.next = self.head_shown.q.val();
        self.head_data.next = self.banks.head_data.val();
        self.head_keep.next = self.banks.head_keep.val();
        self.head_last.next = self.last_user_bank[0].read_data.val().get_bit(1);
        self.head_user.next = self.last_user_bank[0].read_data.val().get_bit(0);
        if self.head_bank.q.val() {
            self.head_last.next = self.last_user_bank[1].read_data.val().get_bit(1);
            self.head_user.next = self.last_user_bank[1].read_data.val().get_bit(0);
        }
        self.fill.next = self.entries.q.val();
    }
}

/// The payload queue's data and keep in two LUT RAM banks, read without a clock at the next
/// head's address; the bank of the next head is chosen before the one head register (`W + K`
/// flip-flops, not a read register per bank). A block of its own, so the read address comes in
/// on a port and no always block both drives it and reads the RAMs.
#[derive(LogicBlock, Default)]
struct DataBanks<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Entry index of the head after this cycle's pop: bank (bit 0) and address.
    pub next_head: Signal<In, Bits<5>>,
    /// Bank 0 writes this cycle.
    pub write_0: Signal<In, Bit>,
    /// Bank 0's write address.
    pub write_address_0: Signal<In, Bits<BANK_ADDRESS_BITS>>,
    /// Bank 0's write data.
    pub write_data_0: Signal<In, Bits<W>>,
    /// Bank 0's write keep.
    pub write_keep_0: Signal<In, Bits<K>>,
    /// Bank 1 writes this cycle.
    pub write_1: Signal<In, Bit>,
    /// Bank 1's write address.
    pub write_address_1: Signal<In, Bits<BANK_ADDRESS_BITS>>,
    /// Bank 1's write data.
    pub write_data_1: Signal<In, Bits<W>>,
    /// Bank 1's write keep.
    pub write_keep_1: Signal<In, Bits<K>>,
    /// The head's data (registered).
    pub head_data: Signal<Out, Bits<W>>,
    /// The head's keep (registered).
    pub head_keep: Signal<Out, Bits<K>>,
    data_bank: [LutRam<Bits<W>, BANK_ADDRESS_BITS>; 2],
    keep_bank: [LutRam<Bits<K>, BANK_ADDRESS_BITS>; 2],
    head_data_register: DFF<Bits<W>>,
    head_keep_register: DFF<Bits<K>>,
}

impl<const W: usize, const K: usize> Logic for DataBanks<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, head_data_register, head_keep_register);
        for b in 0..2 {
            self.data_bank[b].write_clock.next = self.clock.val();
            self.keep_bank[b].write_clock.next = self.clock.val();
            self.data_bank[b].read_address.next = self.next_head.val().get_bits::<4>(1);
            self.keep_bank[b].read_address.next = self.next_head.val().get_bits::<4>(1);
        }
        self.data_bank[0].write_enable.next = self.write_0.val();
        self.keep_bank[0].write_enable.next = self.write_0.val();
        self.data_bank[0].write_address.next = self.write_address_0.val();
        self.keep_bank[0].write_address.next = self.write_address_0.val();
        self.data_bank[0].write_data.next = self.write_data_0.val();
        self.keep_bank[0].write_data.next = self.write_keep_0.val();
        self.data_bank[1].write_enable.next = self.write_1.val();
        self.keep_bank[1].write_enable.next = self.write_1.val();
        self.data_bank[1].write_address.next = self.write_address_1.val();
        self.keep_bank[1].write_address.next = self.write_address_1.val();
        self.data_bank[1].write_data.next = self.write_data_1.val();
        self.keep_bank[1].write_data.next = self.write_keep_1.val();
        self.head_data_register.d.next = self.data_bank[0].read_data.val();
        self.head_keep_register.d.next = self.keep_bank[0].read_data.val();
        if self.next_head.val().get_bit(0) {
            self.head_data_register.d.next = self.data_bank[1].read_data.val();
            self.head_keep_register.d.next = self.keep_bank[1].read_data.val();
        }
        self.head_data.next = self.head_data_register.q.val();
        self.head_keep.next = self.head_keep_register.q.val();
    }
}
