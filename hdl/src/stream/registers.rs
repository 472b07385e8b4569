//! [`StreamRegisters`]: one stream's registers in the stream block of the register map: its
//! settings staged as written and read back, applied all at once by a `configure` the stream
//! set has accepted, the checks the set makes before a command, and the value of the word an
//! operation reads (the stream's state and counters among them).
//!
//! ```text
//!  write (word, data, mask) ─► staged settings ─► settings (the port's entry)
//!                                   │         └─► checks (registered) ─► busy
//!  done (configure, result 0) ──────┴─► applied settings ─► the sender's (qp, queue, channels, VA, slot)
//!  op_word + the stream's state ─► read_value (a cycle later)
//! ```

use crate::common::elab::c;
use ferroce_contracts::regs::{Config, Map, STREAM_BLOCK};
use ferroce_contracts::stream::{StreamCommand, STREAM_CODE_BITS, STREAM_SETTINGS, STREAM_SETTINGS_BITS};
use rust_hdl::prelude::*;

/// The stream block's settings registers (staged, applied by `configure`), in address order.
pub(super) const SETTING_WORDS: [&str; 7] = [
    "stream_slot",
    "stream_ring",
    "stream_format",
    "stream_target",
    "stream_channels",
    "stream_va_low",
    "stream_va_high",
];

/// The stream block's registers after `stream_command` and `stream_state`: the stream's counts
/// and numbers, in address order.
pub(super) const COUNT_WORDS: [&str; 10] = [
    "stream_messages",
    "stream_dropped_overflow",
    "stream_dropped_partial_beat",
    "stream_posted",
    "stream_completed",
    "stream_failed",
    "stream_refused",
    "stream_next_sequence",
    "stream_next_slot",
    "stream_held_beats",
];

/// The word offsets (in a stream's registers) and the fields of the stream block.
pub(super) struct Layout {
    pub(super) map: Map,
}

impl Layout {
    pub(super) fn new(streams: usize) -> Layout {
        Layout {
            map: Map::new(Config {
                streams: streams as u32,
                ..Config::DEFAULT
            }),
        }
    }

    /// The word of register `name` in a stream's registers.
    pub(super) fn word(&self, name: &str) -> Constant<Bits<5>> {
        c::<5>(self.word_index(name))
    }

    /// The word index of register `name` in a stream's registers.
    pub(super) fn word_index(&self, name: &str) -> u64 {
        u64::from((self.map.reg(name).offset - STREAM_BLOCK) / 4)
    }

    /// The least significant bit of field `field` of register `name`.
    pub(super) fn lsb(&self, name: &str, field: &str) -> Constant<Bits<8>> {
        let register = self.map.reg(name);
        let field = register.field(field).unwrap_or_else(|| panic!("{name} has no field {field}"));
        c::<8>(u64::from(field.lsb))
    }

    /// The words of a stream's registers, a bit each: those that are registers and those a
    /// write may change. `unit` serves every register of the block, and only those.
    pub(super) fn served_words(&self, unit: &str) -> (u64, u64) {
        let words: Vec<&str> = SETTING_WORDS
            .into_iter()
            .chain(["stream_command", "stream_state"])
            .chain(COUNT_WORDS)
            .collect();
        let stream_block = self.map.blocks.iter().find(|b| b.name == "stream").expect("a stream block");
        let block: Vec<&str> = stream_block.registers.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(block, words, "{unit}: the stream block's registers");
        let bit_of = |name: &str| 1u64 << self.word_index(name);
        let known = words.iter().fold(0, |m, n| m | bit_of(n));
        let writable = words.iter().filter(|n| self.map.reg(n).writable()).fold(0, |m, n| m | bit_of(n));
        (known, writable)
    }

    /// The bits of register `name` a write changes.
    pub(super) fn write_mask(&self, name: &str) -> Constant<Bits<32>> {
        c::<32>(u64::from(self.map.reg(name).write_mask()))
    }
}

/// The registers of one stream (`K` lanes a beat: the applied slot is counted in beats).
#[derive(LogicBlock)]
pub struct StreamRegisters<const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: the settings zero, not configured.
    pub reset: Signal<In, Bit>,
    /// The operation's word, one bit per word of the stream's registers.
    pub op_word: Signal<In, Bits<32>>,
    /// Write `write_data` into the operation's word where `write_mask` is set (one cycle).
    pub write: Signal<In, Bit>,
    /// The data written.
    pub write_data: Signal<In, Bits<32>>,
    /// The bits written (from the write's strobes).
    pub write_mask: Signal<In, Bits<32>>,
    /// A command of this stream is done (one cycle): its code and its result.
    pub done: Signal<In, Bit>,
    /// The command done: its `StreamCommand` code.
    pub done_command: Signal<In, Bits<STREAM_CODE_BITS>>,
    /// The command's result: 0, or its `StreamRefusal` code.
    pub done_result: Signal<In, Bits<STREAM_CODE_BITS>>,
    /// The stream's state (read in `stream_state`): the port takes data.
    pub running: Signal<In, Bit>,
    /// Messages the sender holds.
    pub held_messages: Signal<In, Bits<3>>,
    /// Beats the port's buffer holds.
    pub held_beats: Signal<In, Bits<17>>,
    /// The next message's sequence number.
    pub next_sequence: Signal<In, Bits<32>>,
    /// The next message's slot.
    pub next_slot: Signal<In, Bits<16>>,
    /// Counter: messages whole in the buffer.
    pub messages: Signal<In, Bits<32>>,
    /// Counter: messages dropped for want of room.
    pub dropped_overflow: Signal<In, Bits<32>>,
    /// Counter: messages dropped for a beat with bytes missing.
    pub dropped_partial_beat: Signal<In, Bits<32>>,
    /// Counter: messages posted.
    pub posted: Signal<In, Bits<32>>,
    /// Counter: messages completed.
    pub completed: Signal<In, Bits<32>>,
    /// Counter: messages failed.
    pub failed: Signal<In, Bits<32>>,
    /// Counter: posts refused.
    pub refused: Signal<In, Bits<32>>,
    /// The value of the word at `op_word` in the cycle before.
    pub read_value: Signal<Out, Bits<32>>,
    /// The staged settings as the port takes them (`STREAM_SETTINGS`).
    pub settings: Signal<Out, Bits<STREAM_SETTINGS_BITS>>,
    /// The stream holds beats or messages (a `configure` waits for none; registered).
    pub busy: Signal<Out, Bit>,
    /// A `configure` has been applied.
    pub configured: Signal<Out, Bit>,
    /// Applied: the QP.
    pub qp: Signal<Out, Bits<24>>,
    /// Applied: the scheduler queue.
    pub scheduler_queue: Signal<Out, Bits<5>>,
    /// Applied: the first channel.
    pub first_channel: Signal<Out, Bits<16>>,
    /// Applied: the channel mask (channels `first_channel + (n & mask)`).
    pub channel_mask: Signal<Out, Bits<2>>,
    /// Applied: the ring's base address.
    pub base_va: Signal<Out, Bits<64>>,
    /// Applied: the slot, in beats.
    pub slot_beats: Signal<Out, Bits<16>>,

    // ---- staged settings, as written ----
    slot_setting: DFF<Bits<32>>,
    ring_setting: DFF<Bits<32>>,
    format_setting: DFF<Bits<32>>,
    target_setting: DFF<Bits<32>>,
    channels_setting: DFF<Bits<32>>,
    va_low_setting: DFF<Bits<32>>,
    va_high_setting: DFF<Bits<32>>,
    // ---- applied settings ----
    applied_target: DFF<Bits<32>>,
    applied_channels: DFF<Bits<32>>,
    applied_va: DFF<Bits<64>>,
    applied_slot_beats: DFF<Bits<16>>,
    applied: DFF<Bit>,
    last_result: DFF<Bits<STREAM_CODE_BITS>>,
    // ---- checks ----
    holds: DFF<Bit>,
    value: DFF<Bits<32>>,
    // ---- combinational ----
    word_value: Signal<Local, Bits<32>>,
    write_bits: Signal<Local, Bits<32>>,
    // ---- constants ----
    one: Constant<Bits<32>>,
    beat_log2: Constant<Bits<8>>,
    configure: Constant<Bits<STREAM_CODE_BITS>>,
    /// Words: settings, the values read.
    word_slot: Constant<Bits<5>>,
    word_ring: Constant<Bits<5>>,
    word_format: Constant<Bits<5>>,
    word_target: Constant<Bits<5>>,
    word_channels: Constant<Bits<5>>,
    word_va_low: Constant<Bits<5>>,
    word_va_high: Constant<Bits<5>>,
    word_state: Constant<Bits<5>>,
    word_messages: Constant<Bits<5>>,
    word_dropped_overflow: Constant<Bits<5>>,
    word_dropped_partial_beat: Constant<Bits<5>>,
    word_posted: Constant<Bits<5>>,
    word_completed: Constant<Bits<5>>,
    word_failed: Constant<Bits<5>>,
    word_refused: Constant<Bits<5>>,
    word_next_sequence: Constant<Bits<5>>,
    word_next_slot: Constant<Bits<5>>,
    word_held_beats: Constant<Bits<5>>,
    mask_slot: Constant<Bits<32>>,
    mask_ring: Constant<Bits<32>>,
    mask_format: Constant<Bits<32>>,
    mask_target: Constant<Bits<32>>,
    mask_channels: Constant<Bits<32>>,
    /// Field positions: in the registers, and in the port's settings entry.
    lsb_last_slot: Constant<Bits<8>>,
    lsb_solicited_every: Constant<Bits<8>>,
    lsb_length_bits: Constant<Bits<8>>,
    lsb_slot_and_wrap: Constant<Bits<8>>,
    lsb_end_at_tlast: Constant<Bits<8>>,
    lsb_drop_on_overflow: Constant<Bits<8>>,
    lsb_queue: Constant<Bits<8>>,
    lsb_channel_mask: Constant<Bits<8>>,
    lsb_running: Constant<Bits<8>>,
    lsb_configured: Constant<Bits<8>>,
    lsb_held_messages: Constant<Bits<8>>,
    at_slot_bytes: Constant<Bits<8>>,
    at_last_slot: Constant<Bits<8>>,
    at_solicited_every: Constant<Bits<8>>,
    at_length_bits: Constant<Bits<8>>,
    at_slot_and_wrap: Constant<Bits<8>>,
    at_end_at_tlast: Constant<Bits<8>>,
    at_drop_on_overflow: Constant<Bits<8>>,
}

impl<const K: usize> Default for StreamRegisters<K> {
    fn default() -> Self {
        let layout = Layout::new(1);
        let at = |field: &str| c::<8>(STREAM_SETTINGS.offset(field) as u64);
        StreamRegisters {
            clock: Default::default(),
            reset: Default::default(),
            op_word: Default::default(),
            write: Default::default(),
            write_data: Default::default(),
            write_mask: Default::default(),
            done: Default::default(),
            done_command: Default::default(),
            done_result: Default::default(),
            running: Default::default(),
            held_messages: Default::default(),
            held_beats: Default::default(),
            next_sequence: Default::default(),
            next_slot: Default::default(),
            messages: Default::default(),
            dropped_overflow: Default::default(),
            dropped_partial_beat: Default::default(),
            posted: Default::default(),
            completed: Default::default(),
            failed: Default::default(),
            refused: Default::default(),
            read_value: Default::default(),
            settings: Default::default(),
            busy: Default::default(),
            configured: Default::default(),
            qp: Default::default(),
            scheduler_queue: Default::default(),
            first_channel: Default::default(),
            channel_mask: Default::default(),
            base_va: Default::default(),
            slot_beats: Default::default(),
            slot_setting: Default::default(),
            ring_setting: Default::default(),
            format_setting: Default::default(),
            target_setting: Default::default(),
            channels_setting: Default::default(),
            va_low_setting: Default::default(),
            va_high_setting: Default::default(),
            applied_target: Default::default(),
            applied_channels: Default::default(),
            applied_va: Default::default(),
            applied_slot_beats: Default::default(),
            applied: Default::default(),
            last_result: Default::default(),
            holds: Default::default(),
            value: Default::default(),
            word_value: Default::default(),
            write_bits: Default::default(),
            one: c::<32>(1),
            beat_log2: c::<8>(K.trailing_zeros() as u64),
            configure: c::<STREAM_CODE_BITS>(StreamCommand::Configure as u64),
            word_slot: layout.word("stream_slot"),
            word_ring: layout.word("stream_ring"),
            word_format: layout.word("stream_format"),
            word_target: layout.word("stream_target"),
            word_channels: layout.word("stream_channels"),
            word_va_low: layout.word("stream_va_low"),
            word_va_high: layout.word("stream_va_high"),
            word_state: layout.word("stream_state"),
            word_messages: layout.word("stream_messages"),
            word_dropped_overflow: layout.word("stream_dropped_overflow"),
            word_dropped_partial_beat: layout.word("stream_dropped_partial_beat"),
            word_posted: layout.word("stream_posted"),
            word_completed: layout.word("stream_completed"),
            word_failed: layout.word("stream_failed"),
            word_refused: layout.word("stream_refused"),
            word_next_sequence: layout.word("stream_next_sequence"),
            word_next_slot: layout.word("stream_next_slot"),
            word_held_beats: layout.word("stream_held_beats"),
            mask_slot: layout.write_mask("stream_slot"),
            mask_ring: layout.write_mask("stream_ring"),
            mask_format: layout.write_mask("stream_format"),
            mask_target: layout.write_mask("stream_target"),
            mask_channels: layout.write_mask("stream_channels"),
            lsb_last_slot: layout.lsb("stream_ring", "last_slot"),
            lsb_solicited_every: layout.lsb("stream_ring", "solicited_every"),
            lsb_length_bits: layout.lsb("stream_format", "length_bits"),
            lsb_slot_and_wrap: layout.lsb("stream_format", "slot_and_wrap"),
            lsb_end_at_tlast: layout.lsb("stream_format", "end_at_tlast"),
            lsb_drop_on_overflow: layout.lsb("stream_format", "drop_on_overflow"),
            lsb_queue: layout.lsb("stream_target", "queue"),
            lsb_channel_mask: layout.lsb("stream_channels", "channel_mask"),
            lsb_running: layout.lsb("stream_state", "running"),
            lsb_configured: layout.lsb("stream_state", "configured"),
            lsb_held_messages: layout.lsb("stream_state", "held_messages"),
            at_slot_bytes: at("slot_bytes"),
            at_last_slot: at("last_slot"),
            at_solicited_every: at("solicited_every"),
            at_length_bits: at("length_bits"),
            at_slot_and_wrap: at("slot_and_wrap"),
            at_end_at_tlast: at("end_at_tlast"),
            at_drop_on_overflow: at("drop_on_overflow"),
        }
    }
}

impl<const K: usize> Logic for StreamRegisters<K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            slot_setting,
            ring_setting,
            format_setting,
            target_setting,
            channels_setting,
            va_low_setting,
            va_high_setting,
            applied_target,
            applied_channels,
            applied_va,
            applied_slot_beats,
            applied,
            last_result,
            holds,
            value
        );

        // ---- a write: the bits of its word a write may change ----
        self.write_bits.next = 0.into();
        if self.write.val() {
            self.write_bits.next = self.write_mask.val() & self.mask_slot.val();
            if self.op_word.val().get_bit(self.word_slot.val().index()) {
                self.slot_setting.d.next =
                    (self.slot_setting.q.val() & !self.write_bits.val()) | (self.write_data.val() & self.write_bits.val());
            }
            self.write_bits.next = self.write_mask.val() & self.mask_ring.val();
            if self.op_word.val().get_bit(self.word_ring.val().index()) {
                self.ring_setting.d.next =
                    (self.ring_setting.q.val() & !self.write_bits.val()) | (self.write_data.val() & self.write_bits.val());
            }
            self.write_bits.next = self.write_mask.val() & self.mask_format.val();
            if self.op_word.val().get_bit(self.word_format.val().index()) {
                self.format_setting.d.next =
                    (self.format_setting.q.val() & !self.write_bits.val()) | (self.write_data.val() & self.write_bits.val());
            }
            self.write_bits.next = self.write_mask.val() & self.mask_target.val();
            if self.op_word.val().get_bit(self.word_target.val().index()) {
                self.target_setting.d.next =
                    (self.target_setting.q.val() & !self.write_bits.val()) | (self.write_data.val() & self.write_bits.val());
            }
            self.write_bits.next = self.write_mask.val() & self.mask_channels.val();
            if self.op_word.val().get_bit(self.word_channels.val().index()) {
                self.channels_setting.d.next =
                    (self.channels_setting.q.val() & !self.write_bits.val()) | (self.write_data.val() & self.write_bits.val());
            }
            if self.op_word.val().get_bit(self.word_va_low.val().index()) {
                self.va_low_setting.d.next =
                    (self.va_low_setting.q.val() & !self.write_mask.val()) | (self.write_data.val() & self.write_mask.val());
            }
            if self.op_word.val().get_bit(self.word_va_high.val().index()) {
                self.va_high_setting.d.next =
                    (self.va_high_setting.q.val() & !self.write_mask.val()) | (self.write_data.val() & self.write_mask.val());
            }
        }

        // ---- the word read (one word bit is set: the values OR together) ----
        self.word_value.next = 0.into();
        if self.op_word.val().get_bit(self.word_slot.val().index()) {
            self.word_value.next = self.word_value.val() | self.slot_setting.q.val();
        }
        if self.op_word.val().get_bit(self.word_ring.val().index()) {
            self.word_value.next = self.word_value.val() | self.ring_setting.q.val();
        }
        if self.op_word.val().get_bit(self.word_format.val().index()) {
            self.word_value.next = self.word_value.val() | self.format_setting.q.val();
        }
        if self.op_word.val().get_bit(self.word_target.val().index()) {
            self.word_value.next = self.word_value.val() | self.target_setting.q.val();
        }
        if self.op_word.val().get_bit(self.word_channels.val().index()) {
            self.word_value.next = self.word_value.val() | self.channels_setting.q.val();
        }
        if self.op_word.val().get_bit(self.word_va_low.val().index()) {
            self.word_value.next = self.word_value.val() | self.va_low_setting.q.val();
        }
        if self.op_word.val().get_bit(self.word_va_high.val().index()) {
            self.word_value.next = self.word_value.val() | self.va_high_setting.q.val();
        }
        if self.op_word.val().get_bit(self.word_state.val().index()) {
            self.word_value.next = self.word_value.val()
                | bit_cast::<32, STREAM_CODE_BITS>(self.last_result.q.val())
                | (bit_cast::<32, 3>(self.held_messages.val()) << self.lsb_held_messages.val());
            if self.running.val() {
                self.word_value.next = self.word_value.val() | (self.one.val() << self.lsb_running.val());
            }
            if self.applied.q.val() {
                self.word_value.next = self.word_value.val() | (self.one.val() << self.lsb_configured.val());
            }
        }
        if self.op_word.val().get_bit(self.word_messages.val().index()) {
            self.word_value.next = self.word_value.val() | self.messages.val();
        }
        if self.op_word.val().get_bit(self.word_dropped_overflow.val().index()) {
            self.word_value.next = self.word_value.val() | self.dropped_overflow.val();
        }
        if self.op_word.val().get_bit(self.word_dropped_partial_beat.val().index()) {
            self.word_value.next = self.word_value.val() | self.dropped_partial_beat.val();
        }
        if self.op_word.val().get_bit(self.word_posted.val().index()) {
            self.word_value.next = self.word_value.val() | self.posted.val();
        }
        if self.op_word.val().get_bit(self.word_completed.val().index()) {
            self.word_value.next = self.word_value.val() | self.completed.val();
        }
        if self.op_word.val().get_bit(self.word_failed.val().index()) {
            self.word_value.next = self.word_value.val() | self.failed.val();
        }
        if self.op_word.val().get_bit(self.word_refused.val().index()) {
            self.word_value.next = self.word_value.val() | self.refused.val();
        }
        if self.op_word.val().get_bit(self.word_next_sequence.val().index()) {
            self.word_value.next = self.word_value.val() | self.next_sequence.val();
        }
        if self.op_word.val().get_bit(self.word_next_slot.val().index()) {
            self.word_value.next = self.word_value.val() | bit_cast::<32, 16>(self.next_slot.val());
        }
        if self.op_word.val().get_bit(self.word_held_beats.val().index()) {
            self.word_value.next = self.word_value.val() | bit_cast::<32, 17>(self.held_beats.val());
        }
        self.value.d.next = self.word_value.val();
        self.read_value.next = self.value.q.val();

        // ---- busy ----
        self.holds.d.next = (self.held_beats.val() != 0) | (self.held_messages.val() != 0);
        self.busy.next = self.holds.q.val();

        // ---- a command done: its result kept; a configure's settings applied ----
        if self.done.val() {
            self.last_result.d.next = self.done_result.val();
            if (self.done_command.val() == self.configure.val()) & (self.done_result.val() == 0) {
                self.applied.d.next = true;
                self.applied_target.d.next = self.target_setting.q.val();
                self.applied_channels.d.next = self.channels_setting.q.val();
                self.applied_va.d.next =
                    (bit_cast::<64, 32>(self.va_high_setting.q.val()) << 32) | bit_cast::<64, 32>(self.va_low_setting.q.val());
                self.applied_slot_beats.d.next = bit_cast::<16, 21>(self.slot_setting.q.val().get_bits::<21>(0) >> self.beat_log2.val());
            }
        }

        // ---- outputs: the port's settings entry, the sender's applied settings ----
        self.settings.next = (bit_cast::<STREAM_SETTINGS_BITS, 21>(self.slot_setting.q.val().get_bits::<21>(0))
            << self.at_slot_bytes.val())
            | (bit_cast::<STREAM_SETTINGS_BITS, 16>(self.ring_setting.q.val().get_bits::<16>(self.lsb_last_slot.val().index()))
                << self.at_last_slot.val())
            | (bit_cast::<STREAM_SETTINGS_BITS, 16>(self.ring_setting.q.val().get_bits::<16>(self.lsb_solicited_every.val().index()))
                << self.at_solicited_every.val())
            | (bit_cast::<STREAM_SETTINGS_BITS, 6>(self.format_setting.q.val().get_bits::<6>(self.lsb_length_bits.val().index()))
                << self.at_length_bits.val())
            | (bit_cast::<STREAM_SETTINGS_BITS, 1>(self.format_setting.q.val().get_bits::<1>(self.lsb_slot_and_wrap.val().index()))
                << self.at_slot_and_wrap.val())
            | (bit_cast::<STREAM_SETTINGS_BITS, 1>(self.format_setting.q.val().get_bits::<1>(self.lsb_end_at_tlast.val().index()))
                << self.at_end_at_tlast.val())
            | (bit_cast::<STREAM_SETTINGS_BITS, 1>(self.format_setting.q.val().get_bits::<1>(self.lsb_drop_on_overflow.val().index()))
                << self.at_drop_on_overflow.val());
        self.configured.next = self.applied.q.val();
        self.qp.next = self.applied_target.q.val().get_bits::<24>(0);
        self.scheduler_queue.next = self.applied_target.q.val().get_bits::<5>(self.lsb_queue.val().index());
        self.first_channel.next = self.applied_channels.q.val().get_bits::<16>(0);
        self.channel_mask.next = self.applied_channels.q.val().get_bits::<2>(self.lsb_channel_mask.val().index());
        self.base_va.next = self.applied_va.q.val();
        self.slot_beats.next = self.applied_slot_beats.q.val();

        if self.reset.val() {
            self.applied.d.next = false;
            self.last_result.d.next = 0.into();
            self.slot_setting.d.next = 0.into();
            self.ring_setting.d.next = 0.into();
            self.format_setting.d.next = 0.into();
            self.target_setting.d.next = 0.into();
            self.channels_setting.d.next = 0.into();
            self.va_low_setting.d.next = 0.into();
            self.va_high_setting.d.next = 0.into();
        }
    }
}
