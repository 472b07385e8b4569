//! [`BusStagedSettings`]: the staged settings of a [`StreamBusSet`](super::StreamBusSet)'s
//! streams, a word of LUT RAM per setting register (`stream_slot` to `stream_va_high`) and
//! stream, read at the register operation's stream. A write merges its strobed bytes into the
//! word it names; a read takes the word it names (`value`); a `configure` takes them all, as
//! the bus's settings (`STREAM_SETTINGS`) and the sender's target, with the check of the
//! stream's channels against its own (registered: the operation's stream holds).
//!
//! ```text
//!  index ─► 7 words (LUT RAM) ─┬─► value (the word named) ─► the register read
//!  write, word, mask, data ─►  ├─► settings ─► the bus;  qp, queue, channels, VA, slot beats ─► the sender
//!                              └─► channels_wrong (registered)
//! ```
//!
//! While `clearing` every word at `index` is written zero (the parent sweeps `index`).

use super::registers::{Layout, SETTING_WORDS};
use crate::common::elab::c;
use crate::common::lut_ram::LutRam;
use ferroce_contracts::stream::{STREAM_SETTINGS, STREAM_SETTINGS_BITS};
use rust_hdl::prelude::*;

/// The staged settings of `2^SB` streams whose beats are `K` bytes.
#[derive(LogicBlock)]
pub struct BusStagedSettings<const K: usize, const SB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// The operation's stream.
    pub index: Signal<In, Bits<SB>>,
    /// Write the word named (one cycle).
    pub write: Signal<In, Bit>,
    /// The word named: bit `i` for the block's register `i` (one bit set).
    pub word: Signal<In, Bits<32>>,
    /// The write's bits (its strobes as a mask).
    pub mask: Signal<In, Bits<32>>,
    /// The write's data.
    pub data: Signal<In, Bits<32>>,
    /// Write zero to every word at `index`.
    pub clearing: Signal<In, Bit>,
    /// The first channel of stream 0 (held).
    pub channel_base: Signal<In, Bits<16>>,
    /// The word named, when it is a setting (else 0).
    pub value: Signal<Out, Bits<32>>,
    /// The settings, as the bus takes them.
    pub settings: Signal<Out, Bits<STREAM_SETTINGS_BITS>>,
    /// The sender's target: QP.
    pub qp: Signal<Out, Bits<24>>,
    /// Scheduler queue.
    pub queue: Signal<Out, Bits<5>>,
    /// Channels minus one.
    pub channel_mask: Signal<Out, Bits<2>>,
    /// Remote address of slot 0.
    pub base_va: Signal<Out, Bits<64>>,
    /// Beats of a slot.
    pub slot_beats: Signal<Out, Bits<16>>,
    /// The first channel is not the stream's own (`channel_base + 4 × stream`), or the mask is 2
    /// (registered: for the `index` of the cycle before).
    pub channels_wrong: Signal<Out, Bit>,

    staged: [LutRam<Bits<32>, SB>; 7],
    wrong: DFF<Bit>,
    written: Signal<Local, Bits<32>>,
    own_first_channel: Signal<Local, Bits<16>>,
    word_setting: [Constant<Bits<5>>; 7],
    write_mask: [Constant<Bits<32>>; 7],
    lsb_last_slot: Constant<Bits<8>>,
    lsb_solicited_every: Constant<Bits<8>>,
    lsb_length_bits: Constant<Bits<8>>,
    lsb_slot_and_wrap: Constant<Bits<8>>,
    lsb_end_at_tlast: Constant<Bits<8>>,
    lsb_drop_on_overflow: Constant<Bits<8>>,
    lsb_queue: Constant<Bits<8>>,
    lsb_channel_mask: Constant<Bits<8>>,
    at_slot_bytes: Constant<Bits<8>>,
    at_last_slot: Constant<Bits<8>>,
    at_solicited_every: Constant<Bits<8>>,
    at_length_bits: Constant<Bits<8>>,
    at_slot_and_wrap: Constant<Bits<8>>,
    at_end_at_tlast: Constant<Bits<8>>,
    at_drop_on_overflow: Constant<Bits<8>>,
    beat_log2: Constant<Bits<8>>,
    place_bits: Constant<Bits<8>>,
}

impl<const K: usize, const SB: usize> Default for BusStagedSettings<K, SB> {
    fn default() -> Self {
        let layout = Layout::new(1 << SB);
        let at = |field: &str| c::<8>(STREAM_SETTINGS.offset(field) as u64);
        BusStagedSettings {
            clock: Default::default(),
            index: Default::default(),
            write: Default::default(),
            word: Default::default(),
            mask: Default::default(),
            data: Default::default(),
            clearing: Default::default(),
            channel_base: Default::default(),
            value: Default::default(),
            settings: Default::default(),
            qp: Default::default(),
            queue: Default::default(),
            channel_mask: Default::default(),
            base_va: Default::default(),
            slot_beats: Default::default(),
            channels_wrong: Default::default(),
            staged: std::array::from_fn(|_| Default::default()),
            wrong: Default::default(),
            written: Default::default(),
            own_first_channel: Default::default(),
            word_setting: std::array::from_fn(|i| layout.word(SETTING_WORDS[i])),
            write_mask: std::array::from_fn(|i| layout.write_mask(SETTING_WORDS[i])),
            lsb_last_slot: layout.lsb("stream_ring", "last_slot"),
            lsb_solicited_every: layout.lsb("stream_ring", "solicited_every"),
            lsb_length_bits: layout.lsb("stream_format", "length_bits"),
            lsb_slot_and_wrap: layout.lsb("stream_format", "slot_and_wrap"),
            lsb_end_at_tlast: layout.lsb("stream_format", "end_at_tlast"),
            lsb_drop_on_overflow: layout.lsb("stream_format", "drop_on_overflow"),
            lsb_queue: layout.lsb("stream_target", "queue"),
            lsb_channel_mask: layout.lsb("stream_channels", "channel_mask"),
            at_slot_bytes: at("slot_bytes"),
            at_last_slot: at("last_slot"),
            at_solicited_every: at("solicited_every"),
            at_length_bits: at("length_bits"),
            at_slot_and_wrap: at("slot_and_wrap"),
            at_end_at_tlast: at("end_at_tlast"),
            at_drop_on_overflow: at("drop_on_overflow"),
            beat_log2: c::<8>(u64::from(K.trailing_zeros())),
            place_bits: c::<8>(2),
        }
    }
}

impl<const K: usize, const SB: usize> Logic for BusStagedSettings<K, SB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wrong);

        // ---- each word: read at the stream, a write merged in, zero while clearing ----
        self.value.next = 0.into();
        for i in 0..7 {
            self.staged[i].write_clock.next = self.clock.val();
            self.staged[i].read_address.next = self.index.val();
            self.staged[i].write_address.next = self.index.val();
            self.staged[i].write_enable.next = self.write.val() & self.word.val().get_bit(self.word_setting[i].val().index());
            self.written.next = self.mask.val() & self.write_mask[i].val();
            self.staged[i].write_data.next =
                (self.staged[i].read_data.val() & !self.written.val()) | (self.data.val() & self.written.val());
            if self.clearing.val() {
                self.staged[i].write_enable.next = true;
                self.staged[i].write_data.next = 0.into();
            }
            // one word bit is set: the values OR together
            if self.word.val().get_bit(self.word_setting[i].val().index()) {
                self.value.next = self.value.val() | self.staged[i].read_data.val();
            }
        }

        // ---- the bus's settings ----
        self.settings.next = (bit_cast::<STREAM_SETTINGS_BITS, 21>(self.staged[0].read_data.val().get_bits::<21>(0))
            << self.at_slot_bytes.val())
            | (bit_cast::<STREAM_SETTINGS_BITS, 16>(self.staged[1].read_data.val().get_bits::<16>(self.lsb_last_slot.val().index()))
                << self.at_last_slot.val())
            | (bit_cast::<STREAM_SETTINGS_BITS, 16>(
                self.staged[1]
                    .read_data
                    .val()
                    .get_bits::<16>(self.lsb_solicited_every.val().index()),
            ) << self.at_solicited_every.val())
            | (bit_cast::<STREAM_SETTINGS_BITS, 6>(self.staged[2].read_data.val().get_bits::<6>(self.lsb_length_bits.val().index()))
                << self.at_length_bits.val())
            | (bit_cast::<STREAM_SETTINGS_BITS, 1>(self.staged[2].read_data.val().get_bits::<1>(self.lsb_slot_and_wrap.val().index()))
                << self.at_slot_and_wrap.val())
            | (bit_cast::<STREAM_SETTINGS_BITS, 1>(self.staged[2].read_data.val().get_bits::<1>(self.lsb_end_at_tlast.val().index()))
                << self.at_end_at_tlast.val())
            | (bit_cast::<STREAM_SETTINGS_BITS, 1>(
                self.staged[2]
                    .read_data
                    .val()
                    .get_bits::<1>(self.lsb_drop_on_overflow.val().index()),
            ) << self.at_drop_on_overflow.val());

        // ---- the sender's target, and its channels' check ----
        self.qp.next = self.staged[3].read_data.val().get_bits::<24>(0);
        self.queue.next = self.staged[3].read_data.val().get_bits::<5>(self.lsb_queue.val().index());
        self.channel_mask.next = self.staged[4].read_data.val().get_bits::<2>(self.lsb_channel_mask.val().index());
        self.base_va.next = (bit_cast::<64, 32>(self.staged[6].read_data.val()) << 32) | bit_cast::<64, 32>(self.staged[5].read_data.val());
        self.slot_beats.next = bit_cast::<16, 21>(self.staged[0].read_data.val().get_bits::<21>(0) >> self.beat_log2.val());
        self.own_first_channel.next = self.channel_base.val() | (bit_cast::<16, SB>(self.index.val()) << self.place_bits.val());
        self.wrong.d.next = (self.staged[4].read_data.val().get_bits::<16>(0) != self.own_first_channel.val())
            | (self.staged[4].read_data.val().get_bits::<2>(self.lsb_channel_mask.val().index()) == 2);
        self.channels_wrong.next = self.wrong.q.val();
    }
}
