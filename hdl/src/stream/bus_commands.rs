//! [`BusCommands`]: the commands (`StreamCommand`) of a stream bus's streams, each naming its
//! stream: registered, checked (each of `StreamRefusal`'s rules in a register of its own, and the
//! stream's state sampled), then done: the result, and a pulse for the bus to take the settings,
//! start or stop that stream. Besides the checked settings it computes what the bus keeps of
//! them to number a stream's messages without shifting: the immediate's step (`1 <<
//! length_bits`) and the bits of its slot field (`last_slot`'s bits, above the length).

use super::commands::SLOT_BYTE_BITS;
use crate::common::elab::c;
use ferroce_contracts::stream::{StreamCommand, StreamRefusal, STREAM_CODE_BITS, STREAM_SETTINGS, STREAM_SETTINGS_BITS};
use rust_hdl::prelude::*;

/// The commands of a bus whose beats are `2^beat_log2` bytes.
#[derive(LogicBlock)]
pub struct BusCommands {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: no command in flight.
    pub reset: Signal<In, Bit>,
    /// A command (one cycle).
    pub command_valid: Signal<In, Bit>,
    /// Its stream.
    pub command_stream: Signal<In, Bits<8>>,
    /// Its `StreamCommand` code.
    pub command_code: Signal<In, Bits<STREAM_CODE_BITS>>,
    /// `Configure`'s settings.
    pub command_settings: Signal<In, Bits<STREAM_SETTINGS_BITS>>,
    /// The stream of the command registered (for `stopped` and `configured`).
    pub registered_stream: Signal<Out, Bits<8>>,
    /// `registered_stream` is stopped (sampled as the command is checked).
    pub stopped: Signal<In, Bit>,
    /// `registered_stream` has settings.
    pub configured: Signal<In, Bit>,
    /// The result (one cycle, three after the command).
    pub result_valid: Signal<Out, Bit>,
    /// 0 or the `StreamRefusal` code.
    pub result_code: Signal<Out, Bits<STREAM_CODE_BITS>>,
    /// `stream` takes the settings now and restarts at message 0.
    pub configure: Signal<Out, Bit>,
    /// `stream` starts now.
    pub start: Signal<Out, Bit>,
    /// `stream` stops once the message in progress has ended.
    pub stop: Signal<Out, Bit>,
    /// The stream of `configure`, `start`, `stop`.
    pub stream: Signal<Out, Bits<8>>,
    /// The settings checked.
    pub settings: Signal<Out, Bits<STREAM_SETTINGS_BITS>>,
    /// Their slot's last beat (beats − 1).
    pub slot_last_beat: Signal<Out, Bits<16>>,
    /// The most beats held with which a slot still fits (two beats spare).
    pub room_limit: Signal<Out, Bits<17>>,
    /// ... and with none spare.
    pub exact_limit: Signal<Out, Bits<17>>,
    /// The immediate's length bits (0 unless `end_at_tlast`).
    pub length_bits: Signal<Out, Bits<6>>,
    /// What one message adds to the immediate: `1 << length_bits`.
    pub immediate_step: Signal<Out, Bits<32>>,
    /// The step's high half + 1: what a carry out of the immediate's low half adds to its high half.
    pub immediate_step_carried: Signal<Out, Bits<16>>,
    /// The immediate's slot field (`{wraps, slot}` format): `last_slot`'s bits above the length.
    pub slot_field_mask: Signal<Out, Bits<32>>,

    command_pending: DFF<Bit>,
    stream_command: DFF<Bits<8>>,
    code_command: DFF<Bits<STREAM_CODE_BITS>>,
    settings_command: DFF<Bits<STREAM_SETTINGS_BITS>>,
    checked_pending: DFF<Bit>,
    stream_checked: DFF<Bits<8>>,
    code_checked: DFF<Bits<STREAM_CODE_BITS>>,
    settings_checked: DFF<Bits<STREAM_SETTINGS_BITS>>,
    stopped_checked: DFF<Bit>,
    configured_checked: DFF<Bit>,
    slot_not_multiple_checked: DFF<Bit>,
    slot_too_large_checked: DFF<Bit>,
    length_bits_too_few_checked: DFF<Bit>,
    slot_last_beat_checked: DFF<Bits<16>>,
    room_limit_checked: DFF<Bits<17>>,
    length_bits_checked: DFF<Bits<6>>,
    immediate_step_checked: DFF<Bits<32>>,
    slot_smear_checked: DFF<Bits<32>>,
    result_valid_done: DFF<Bit>,
    result_code_done: DFF<Bits<STREAM_CODE_BITS>>,
    slot_bytes_command: Signal<Local, Bits<SLOT_BYTE_BITS>>,
    length_bits_command: Signal<Local, Bits<6>>,
    last_slot_command: Signal<Local, Bits<16>>,
    refusal: Signal<Local, Bits<STREAM_CODE_BITS>>,
    settings_at: [Constant<Bits<8>>; 4],
    smear_at: [Constant<Bits<8>>; 16],
    one: Constant<Bits<32>>,
    beat_log2: Constant<Bits<8>>,
    beat_mask: Constant<Bits<SLOT_BYTE_BITS>>,
    max_slot_beats: Constant<Bits<SLOT_BYTE_BITS>>,
    region_room: Constant<Bits<17>>,
    configure_code: Constant<Bits<STREAM_CODE_BITS>>,
    start_code: Constant<Bits<STREAM_CODE_BITS>>,
    stop_code: Constant<Bits<STREAM_CODE_BITS>>,
    refused_running: Constant<Bits<STREAM_CODE_BITS>>,
    refused_slot_not_multiple: Constant<Bits<STREAM_CODE_BITS>>,
    refused_slot_too_large: Constant<Bits<STREAM_CODE_BITS>>,
    refused_length_bits: Constant<Bits<STREAM_CODE_BITS>>,
    refused_not_configured: Constant<Bits<STREAM_CODE_BITS>>,
    refused_unknown: Constant<Bits<STREAM_CODE_BITS>>,
}

impl BusCommands {
    /// The commands of a bus of `2^beat_log2`-byte beats whose slots may be up to
    /// `max_slot_beats` beats, each stream with `region_beats` beats of the buffer.
    pub fn new(beat_log2: usize, max_slot_beats: u64, region_beats: u64) -> BusCommands {
        let code = |r: StreamRefusal| c::<STREAM_CODE_BITS>(u64::from(r.code()));
        let command = |command: StreamCommand| c::<STREAM_CODE_BITS>(command as u64);
        BusCommands {
            clock: Default::default(),
            reset: Default::default(),
            command_valid: Default::default(),
            command_stream: Default::default(),
            command_code: Default::default(),
            command_settings: Default::default(),
            registered_stream: Default::default(),
            stopped: Default::default(),
            configured: Default::default(),
            result_valid: Default::default(),
            result_code: Default::default(),
            configure: Default::default(),
            start: Default::default(),
            stop: Default::default(),
            stream: Default::default(),
            settings: Default::default(),
            slot_last_beat: Default::default(),
            room_limit: Default::default(),
            exact_limit: Default::default(),
            length_bits: Default::default(),
            immediate_step: Default::default(),
            immediate_step_carried: Default::default(),
            slot_field_mask: Default::default(),
            command_pending: Default::default(),
            stream_command: Default::default(),
            code_command: Default::default(),
            settings_command: Default::default(),
            checked_pending: Default::default(),
            stream_checked: Default::default(),
            code_checked: Default::default(),
            settings_checked: Default::default(),
            stopped_checked: Default::default(),
            configured_checked: Default::default(),
            slot_not_multiple_checked: Default::default(),
            slot_too_large_checked: Default::default(),
            length_bits_too_few_checked: Default::default(),
            slot_last_beat_checked: Default::default(),
            room_limit_checked: Default::default(),
            length_bits_checked: Default::default(),
            immediate_step_checked: Default::default(),
            slot_smear_checked: Default::default(),
            result_valid_done: Default::default(),
            result_code_done: Default::default(),
            slot_bytes_command: Default::default(),
            length_bits_command: Default::default(),
            last_slot_command: Default::default(),
            refusal: Default::default(),
            settings_at: ["slot_bytes", "length_bits", "end_at_tlast", "last_slot"].map(|f| c::<8>(STREAM_SETTINGS.offset(f) as u64)),
            smear_at: std::array::from_fn(|b| c::<8>(b as u64)),
            one: c::<32>(1),
            beat_log2: c::<8>(beat_log2 as u64),
            beat_mask: c::<SLOT_BYTE_BITS>((1u64 << beat_log2) - 1),
            max_slot_beats: c::<SLOT_BYTE_BITS>(max_slot_beats),
            // room for a slot: held + slot + 2 ≤ the stream's region
            region_room: c::<17>(region_beats - 2),
            configure_code: command(StreamCommand::Configure),
            start_code: command(StreamCommand::Start),
            stop_code: command(StreamCommand::Stop),
            refused_running: code(StreamRefusal::Running),
            refused_slot_not_multiple: code(StreamRefusal::SlotNotMultipleOfBeat),
            refused_slot_too_large: code(StreamRefusal::SlotTooLarge),
            refused_length_bits: code(StreamRefusal::LengthBitsTooFew),
            refused_not_configured: code(StreamRefusal::NotConfigured),
            refused_unknown: code(StreamRefusal::UnknownCommand),
        }
    }
}

impl Logic for BusCommands {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            command_pending,
            stream_command,
            code_command,
            settings_command,
            checked_pending,
            stream_checked,
            code_checked,
            settings_checked,
            stopped_checked,
            configured_checked,
            slot_not_multiple_checked,
            slot_too_large_checked,
            length_bits_too_few_checked,
            slot_last_beat_checked,
            room_limit_checked,
            length_bits_checked,
            immediate_step_checked,
            slot_smear_checked,
            result_valid_done,
            result_code_done
        );
        // ---- registered ----
        self.command_pending.d.next = self.command_valid.val();
        self.stream_command.d.next = self.command_stream.val();
        self.code_command.d.next = self.command_code.val();
        self.settings_command.d.next = self.command_settings.val();
        self.registered_stream.next = self.stream_command.q.val();

        // ---- checked: each rule in a register, the stream's state, and what the bus keeps ----
        self.slot_bytes_command.next = self
            .settings_command
            .q
            .val()
            .get_bits::<SLOT_BYTE_BITS>(self.settings_at[0].val().index());
        self.length_bits_command.next = self.settings_command.q.val().get_bits::<6>(self.settings_at[1].val().index());
        self.last_slot_command.next = self.settings_command.q.val().get_bits::<16>(self.settings_at[3].val().index());
        self.checked_pending.d.next = self.command_pending.q.val();
        self.stream_checked.d.next = self.stream_command.q.val();
        self.code_checked.d.next = self.code_command.q.val();
        self.settings_checked.d.next = self.settings_command.q.val();
        self.stopped_checked.d.next = self.stopped.val();
        self.configured_checked.d.next = self.configured.val();
        self.slot_not_multiple_checked.d.next =
            self.slot_bytes_command.val() == 0 || (self.slot_bytes_command.val() & self.beat_mask.val()) != 0;
        self.slot_too_large_checked.d.next = (self.slot_bytes_command.val() >> self.beat_log2.val()) > self.max_slot_beats.val();
        self.length_bits_too_few_checked.d.next = self.settings_command.q.val().get_bit(self.settings_at[2].val().index())
            && (self.length_bits_command.val() > 32
                || (self.length_bits_command.val() != 0 && (self.slot_bytes_command.val() >> self.length_bits_command.val()) != 0));
        self.slot_last_beat_checked.d.next = bit_cast::<16, SLOT_BYTE_BITS>((self.slot_bytes_command.val() >> self.beat_log2.val()) - 1);
        self.room_limit_checked.d.next =
            self.region_room.val() - bit_cast::<17, SLOT_BYTE_BITS>(self.slot_bytes_command.val() >> self.beat_log2.val());
        // the length is in the immediate only with end_at_tlast
        self.length_bits_checked.d.next = 0.into();
        self.immediate_step_checked.d.next = 1.into();
        if self.settings_command.q.val().get_bit(self.settings_at[2].val().index()) {
            self.length_bits_checked.d.next = self.length_bits_command.val();
            self.immediate_step_checked.d.next = self.one.val() << self.length_bits_command.val();
        }
        // bit b of the slot field: last_slot has a bit at b or above
        self.slot_smear_checked.d.next = 0.into();
        for b in 0..16 {
            self.slot_smear_checked.d.next = self.slot_smear_checked.d.val().replace_bit(
                self.smear_at[b].val().index(),
                (self.last_slot_command.val() >> self.smear_at[b].val()).any(),
            );
        }

        // ---- done: the refusal in precedence order, or the pulse ----
        self.refusal.next = 0.into();
        self.configure.next = false;
        self.start.next = false;
        self.stop.next = false;
        if self.code_checked.q.val() == self.configure_code.val() {
            if !self.stopped_checked.q.val() {
                self.refusal.next = self.refused_running.val();
            } else if self.slot_not_multiple_checked.q.val() {
                self.refusal.next = self.refused_slot_not_multiple.val();
            } else if self.slot_too_large_checked.q.val() {
                self.refusal.next = self.refused_slot_too_large.val();
            } else if self.length_bits_too_few_checked.q.val() {
                self.refusal.next = self.refused_length_bits.val();
            } else {
                self.configure.next = self.checked_pending.q.val();
            }
        } else if self.code_checked.q.val() == self.start_code.val() {
            if !self.configured_checked.q.val() {
                self.refusal.next = self.refused_not_configured.val();
            } else {
                self.start.next = self.checked_pending.q.val();
            }
        } else if self.code_checked.q.val() == self.stop_code.val() {
            self.stop.next = self.checked_pending.q.val();
        } else {
            self.refusal.next = self.refused_unknown.val();
        }
        self.result_valid_done.d.next = self.checked_pending.q.val();
        self.result_code_done.d.next = 0.into();
        if self.checked_pending.q.val() {
            self.result_code_done.d.next = self.refusal.val();
        }
        self.result_valid.next = self.result_valid_done.q.val();
        self.result_code.next = self.result_code_done.q.val();
        self.stream.next = self.stream_checked.q.val();
        self.settings.next = self.settings_checked.q.val();
        self.slot_last_beat.next = self.slot_last_beat_checked.q.val();
        self.room_limit.next = self.room_limit_checked.q.val();
        self.exact_limit.next = self.room_limit_checked.q.val() + 2;
        self.length_bits.next = self.length_bits_checked.q.val();
        self.immediate_step.next = self.immediate_step_checked.q.val();
        self.immediate_step_carried.next = self.immediate_step_checked.q.val().get_bits::<16>(16) + 1;
        self.slot_field_mask.next = self.slot_smear_checked.q.val() << self.length_bits_checked.q.val();
        if self.reset.val() {
            self.command_pending.d.next = false;
            self.checked_pending.d.next = false;
            self.result_valid_done.d.next = false;
        }
    }
}
