//! [`MessageNumbers`]: a stream port's count of its messages: the next message's sequence
//! number, slot (round the ring), immediate (before its length) and solicited bit.
//!
//! - The sequence number and the wrap count are 32-bit counters in two 16-bit halves (the high
//!   half moves on a registered "low half all ones", as `EventCounter`'s).
//! - The immediate is `sequence << length_bits`, or `wraps << (slot_bits + length_bits) |
//!   slot << length_bits` (`slot_bits`: the bits of `last_slot`, counted from its highest bit
//!   as a thermometer); each term is a register, so the immediate is ready two cycles after the
//!   counters move, before the next message can end (a message takes a beat and a closing
//!   cycle at least).

use crate::common::elab::{bits_from, c};
use rust_hdl::prelude::*;

/// Bit `b` of the count of a thermometer code `t` of `N` bits (`n < N` ones from bit 0) is set
/// when one of the bits `m·2^b − 1` (m odd) is its last one: `t & !(t >> 2^b)` at those bits.
pub fn count_mask<const N: usize>(b: usize) -> Bits<N> {
    bits_from::<N>(|lane| {
        let step = 1usize << b;
        (lane + 1) % step == 0 && ((lane + 1) / step) % 2 == 1 && lane + step < N
    })
}

/// The numbers of a stream's next message.
#[derive(LogicBlock)]
pub struct MessageNumbers {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Back to message 0, slot 0 (wins over `advance`).
    pub restart: Signal<In, Bit>,
    /// A message ended: count it.
    pub advance: Signal<In, Bit>,
    /// Slots in the ring minus one.
    pub last_slot: Signal<In, Bits<16>>,
    /// The immediate's low bits that carry the length (0: none).
    pub length_bits: Signal<In, Bits<6>>,
    /// The immediate counts `{wraps, slot}` (else the sequence number).
    pub slot_and_wrap: Signal<In, Bit>,
    /// The solicited bit every `solicited_last + 1` messages...
    pub solicited_last: Signal<In, Bits<16>>,
    /// ... or never.
    pub solicited_never: Signal<In, Bit>,
    /// The next message's sequence number.
    pub sequence_number: Signal<Out, Bits<32>>,
    /// Its slot.
    pub slot: Signal<Out, Bits<16>>,
    /// Its immediate, before the length is put in its low bits.
    pub immediate_base: Signal<Out, Bits<32>>,
    /// Its solicited bit.
    pub solicited: Signal<Out, Bit>,

    sequence_low: DFF<Bits<16>>,
    sequence_high: DFF<Bits<16>>,
    sequence_low_all_ones: DFF<Bit>,
    slot_count: DFF<Bits<16>>,
    wraps_low: DFF<Bits<16>>,
    wraps_high: DFF<Bits<16>>,
    wraps_low_all_ones: DFF<Bit>,
    solicited_count: DFF<Bits<16>>,
    solicited_now: DFF<Bit>,
    sequence_shifted: DFF<Bits<32>>,
    wraps_shifted: DFF<Bits<32>>,
    slot_shifted: DFF<Bits<32>>,
    slot_smear: DFF<Bits<16>>,
    slot_bits: DFF<Bits<6>>,
    wrap_shift: DFF<Bits<6>>,
    sequence_count: Signal<Local, Bits<32>>,
    wraps: Signal<Local, Bits<32>>,
    smear: Signal<Local, Bits<16>>,
    slot_count_bits: Signal<Local, Bits<6>>,
    slot_bits_at: [Constant<Bits<8>>; 16],
    smear_count_mask: [Constant<Bits<16>>; 4],
    smear_count_shift: [Constant<Bits<8>>; 4],
    smear_count_bit: [Constant<Bits<6>>; 5],
}

impl Default for MessageNumbers {
    fn default() -> Self {
        MessageNumbers {
            clock: Default::default(),
            restart: Default::default(),
            advance: Default::default(),
            last_slot: Default::default(),
            length_bits: Default::default(),
            slot_and_wrap: Default::default(),
            solicited_last: Default::default(),
            solicited_never: Default::default(),
            sequence_number: Default::default(),
            slot: Default::default(),
            immediate_base: Default::default(),
            solicited: Default::default(),
            sequence_low: Default::default(),
            sequence_high: Default::default(),
            sequence_low_all_ones: Default::default(),
            slot_count: Default::default(),
            wraps_low: Default::default(),
            wraps_high: Default::default(),
            wraps_low_all_ones: Default::default(),
            solicited_count: Default::default(),
            solicited_now: Default::default(),
            sequence_shifted: Default::default(),
            wraps_shifted: Default::default(),
            slot_shifted: Default::default(),
            slot_smear: Default::default(),
            slot_bits: Default::default(),
            wrap_shift: Default::default(),
            sequence_count: Default::default(),
            wraps: Default::default(),
            smear: Default::default(),
            slot_count_bits: Default::default(),
            slot_bits_at: std::array::from_fn(|b| c::<8>(b as u64)),
            smear_count_mask: std::array::from_fn(|b| Constant::new(count_mask::<16>(b))),
            smear_count_shift: std::array::from_fn(|b| c::<8>(1u64 << b)),
            smear_count_bit: std::array::from_fn(|b| c::<6>(1u64 << b)),
        }
    }
}

impl Logic for MessageNumbers {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            sequence_low,
            sequence_high,
            sequence_low_all_ones,
            slot_count,
            wraps_low,
            wraps_high,
            wraps_low_all_ones,
            solicited_count,
            solicited_now,
            sequence_shifted,
            wraps_shifted,
            slot_shifted,
            slot_smear,
            slot_bits,
            wrap_shift
        );
        // ---- the next message: sequence + 1, the next slot (round the ring), the solicited count ----
        if self.advance.val() {
            self.sequence_low.d.next = self.sequence_low.q.val() + 1;
            if self.sequence_low_all_ones.q.val() {
                self.sequence_high.d.next = self.sequence_high.q.val() + 1;
            }
            self.sequence_low_all_ones.d.next = self.sequence_low.q.val() == 0xFFFE;
            self.slot_count.d.next = self.slot_count.q.val() + 1;
            if self.slot_count.q.val() == self.last_slot.val() {
                self.slot_count.d.next = 0.into();
                self.wraps_low.d.next = self.wraps_low.q.val() + 1;
                if self.wraps_low_all_ones.q.val() {
                    self.wraps_high.d.next = self.wraps_high.q.val() + 1;
                }
                self.wraps_low_all_ones.d.next = self.wraps_low.q.val() == 0xFFFE;
            }
            self.solicited_count.d.next = self.solicited_count.q.val() + 1;
            if self.solicited_count.q.val() == self.solicited_last.val() {
                self.solicited_count.d.next = 0.into();
            }
        }
        if self.restart.val() {
            self.sequence_low.d.next = 0.into();
            self.sequence_high.d.next = 0.into();
            self.sequence_low_all_ones.d.next = false;
            self.slot_count.d.next = 0.into();
            self.wraps_low.d.next = 0.into();
            self.wraps_high.d.next = 0.into();
            self.wraps_low_all_ones.d.next = false;
            self.solicited_count.d.next = 0.into();
        }
        self.solicited_now.d.next = !self.solicited_never.val() && self.solicited_count.q.val() == self.solicited_last.val();

        // ---- the slot index's bits: those of last_slot (a thermometer of its highest bit, counted) ----
        self.smear.next = 0.into();
        for b in 0..16 {
            self.smear.next = self.smear.val().replace_bit(
                self.slot_bits_at[b].val().index(),
                (self.last_slot.val() >> self.slot_bits_at[b].val()).any(),
            );
        }
        self.slot_smear.d.next = self.smear.val();
        self.slot_count_bits.next = 0.into();
        for b in 0..4 {
            if (self.slot_smear.q.val() & !(self.slot_smear.q.val() >> self.smear_count_shift[b].val()) & self.smear_count_mask[b].val())
                .any()
            {
                self.slot_count_bits.next = self.slot_count_bits.val() | self.smear_count_bit[b].val();
            }
        }
        if self.slot_smear.q.val().get_bit(self.slot_bits_at[15].val().index()) {
            self.slot_count_bits.next = self.smear_count_bit[4].val();
        }
        self.slot_bits.d.next = self.slot_count_bits.val();
        self.wrap_shift.d.next = self.length_bits.val() + self.slot_bits.q.val();

        // ---- the immediate's terms, each a register ----
        self.sequence_count.next = (bit_cast::<32, 16>(self.sequence_high.q.val()) << 16) | bit_cast::<32, 16>(self.sequence_low.q.val());
        self.wraps.next = (bit_cast::<32, 16>(self.wraps_high.q.val()) << 16) | bit_cast::<32, 16>(self.wraps_low.q.val());
        self.sequence_shifted.d.next = self.sequence_count.val() << self.length_bits.val();
        self.wraps_shifted.d.next = self.wraps.val() << self.wrap_shift.q.val();
        self.slot_shifted.d.next = bit_cast::<32, 16>(self.slot_count.q.val()) << self.length_bits.val();
        self.immediate_base.next = self.sequence_shifted.q.val();
        if self.slot_and_wrap.val() {
            self.immediate_base.next = self.wraps_shifted.q.val() | self.slot_shifted.q.val();
        }
        self.sequence_number.next = self.sequence_count.val();
        self.slot.next = self.slot_count.q.val();
        self.solicited.next = self.solicited_now.q.val();
    }
}
