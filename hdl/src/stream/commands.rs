//! [`PortCommands`]: a stream port's commands (`StreamCommand`) registered, checked (each of
//! `StreamRefusal`'s rules in a register of its own), then done: the result, and a pulse for
//! the port to take the settings, start or stop.

use crate::common::elab::c;
use ferroce_contracts::stream::{StreamCommand, StreamRefusal, STREAM_CODE_BITS, STREAM_SETTINGS, STREAM_SETTINGS_BITS};
use rust_hdl::prelude::*;

/// Bits of a slot's byte count.
pub const SLOT_BYTE_BITS: usize = 21;

/// The commands of a port whose beats are `2^beat_log2` bytes.
#[derive(LogicBlock)]
pub struct PortCommands {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: no command in flight, not configured.
    pub reset: Signal<In, Bit>,
    /// A command (one cycle).
    pub command_valid: Signal<In, Bit>,
    /// Its `StreamCommand` code.
    pub command_code: Signal<In, Bits<STREAM_CODE_BITS>>,
    /// `Configure`'s settings.
    pub command_settings: Signal<In, Bits<STREAM_SETTINGS_BITS>>,
    /// The port is stopped (a configure is refused otherwise).
    pub stopped: Signal<In, Bit>,
    /// The result (one cycle, three after the command).
    pub result_valid: Signal<Out, Bit>,
    /// 0 or the `StreamRefusal` code.
    pub result_code: Signal<Out, Bits<STREAM_CODE_BITS>>,
    /// Take `settings`, `slot_last_beat` and `room_limit` now, and restart at message 0.
    pub configure: Signal<Out, Bit>,
    /// Start now.
    pub start: Signal<Out, Bit>,
    /// Stop once the message in progress has ended.
    pub stop: Signal<Out, Bit>,
    /// The settings checked.
    pub settings: Signal<Out, Bits<STREAM_SETTINGS_BITS>>,
    /// Their slot's last beat (beats − 1).
    pub slot_last_beat: Signal<Out, Bits<16>>,
    /// The most beats held with which a slot still fits (two beats spare).
    pub room_limit: Signal<Out, Bits<17>>,

    command_pending: DFF<Bit>,
    code_command: DFF<Bits<STREAM_CODE_BITS>>,
    settings_command: DFF<Bits<STREAM_SETTINGS_BITS>>,
    checked_pending: DFF<Bit>,
    code_checked: DFF<Bits<STREAM_CODE_BITS>>,
    settings_checked: DFF<Bits<STREAM_SETTINGS_BITS>>,
    slot_not_multiple_checked: DFF<Bit>,
    slot_too_large_checked: DFF<Bit>,
    length_bits_too_few_checked: DFF<Bit>,
    slot_last_beat_checked: DFF<Bits<16>>,
    room_limit_checked: DFF<Bits<17>>,
    result_valid_done: DFF<Bit>,
    result_code_done: DFF<Bits<STREAM_CODE_BITS>>,
    configured: DFF<Bit>,
    slot_bytes_command: Signal<Local, Bits<SLOT_BYTE_BITS>>,
    length_bits_command: Signal<Local, Bits<6>>,
    refusal: Signal<Local, Bits<STREAM_CODE_BITS>>,
    settings_at: [Constant<Bits<8>>; 3],
    beat_log2: Constant<Bits<8>>,
    beat_mask: Constant<Bits<SLOT_BYTE_BITS>>,
    max_slot_beats: Constant<Bits<SLOT_BYTE_BITS>>,
    buffer_room: Constant<Bits<17>>,
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

impl PortCommands {
    /// The commands of a port of `2^beat_log2`-byte beats whose slot may be up to
    /// `max_slot_beats` beats, with `buffer_beats` beats of buffer.
    pub fn new(beat_log2: usize, max_slot_beats: u64, buffer_beats: u64) -> PortCommands {
        let code = |r: StreamRefusal| c::<STREAM_CODE_BITS>(u64::from(r.code()));
        let command = |command: StreamCommand| c::<STREAM_CODE_BITS>(command as u64);
        PortCommands {
            clock: Default::default(),
            reset: Default::default(),
            command_valid: Default::default(),
            command_code: Default::default(),
            command_settings: Default::default(),
            stopped: Default::default(),
            result_valid: Default::default(),
            result_code: Default::default(),
            configure: Default::default(),
            start: Default::default(),
            stop: Default::default(),
            settings: Default::default(),
            slot_last_beat: Default::default(),
            room_limit: Default::default(),
            command_pending: Default::default(),
            code_command: Default::default(),
            settings_command: Default::default(),
            checked_pending: Default::default(),
            code_checked: Default::default(),
            settings_checked: Default::default(),
            slot_not_multiple_checked: Default::default(),
            slot_too_large_checked: Default::default(),
            length_bits_too_few_checked: Default::default(),
            slot_last_beat_checked: Default::default(),
            room_limit_checked: Default::default(),
            result_valid_done: Default::default(),
            result_code_done: Default::default(),
            configured: Default::default(),
            slot_bytes_command: Default::default(),
            length_bits_command: Default::default(),
            refusal: Default::default(),
            settings_at: ["slot_bytes", "length_bits", "end_at_tlast"].map(|f| c::<8>(STREAM_SETTINGS.offset(f) as u64)),
            beat_log2: c::<8>(beat_log2 as u64),
            beat_mask: c::<SLOT_BYTE_BITS>((1u64 << beat_log2) - 1),
            max_slot_beats: c::<SLOT_BYTE_BITS>(max_slot_beats),
            // room for a slot: held + slot + 2 ≤ the buffer
            buffer_room: c::<17>(buffer_beats - 2),
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

impl Logic for PortCommands {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            command_pending,
            code_command,
            settings_command,
            checked_pending,
            code_checked,
            settings_checked,
            slot_not_multiple_checked,
            slot_too_large_checked,
            length_bits_too_few_checked,
            slot_last_beat_checked,
            room_limit_checked,
            result_valid_done,
            result_code_done,
            configured
        );
        // ---- registered ----
        self.command_pending.d.next = self.command_valid.val();
        self.code_command.d.next = self.command_code.val();
        self.settings_command.d.next = self.command_settings.val();

        // ---- checked: each rule in a register, and what the port takes ----
        self.slot_bytes_command.next = self
            .settings_command
            .q
            .val()
            .get_bits::<SLOT_BYTE_BITS>(self.settings_at[0].val().index());
        self.length_bits_command.next = self.settings_command.q.val().get_bits::<6>(self.settings_at[1].val().index());
        self.checked_pending.d.next = self.command_pending.q.val();
        self.code_checked.d.next = self.code_command.q.val();
        self.settings_checked.d.next = self.settings_command.q.val();
        self.slot_not_multiple_checked.d.next =
            self.slot_bytes_command.val() == 0 || (self.slot_bytes_command.val() & self.beat_mask.val()) != 0;
        self.slot_too_large_checked.d.next = (self.slot_bytes_command.val() >> self.beat_log2.val()) > self.max_slot_beats.val();
        self.length_bits_too_few_checked.d.next = self.settings_command.q.val().get_bit(self.settings_at[2].val().index())
            && (self.length_bits_command.val() > 32
                || (self.length_bits_command.val() != 0 && (self.slot_bytes_command.val() >> self.length_bits_command.val()) != 0));
        self.slot_last_beat_checked.d.next = bit_cast::<16, SLOT_BYTE_BITS>((self.slot_bytes_command.val() >> self.beat_log2.val()) - 1);
        self.room_limit_checked.d.next =
            self.buffer_room.val() - bit_cast::<17, SLOT_BYTE_BITS>(self.slot_bytes_command.val() >> self.beat_log2.val());

        // ---- done: the refusal in precedence order, or the pulse ----
        self.refusal.next = 0.into();
        self.configure.next = false;
        self.start.next = false;
        self.stop.next = false;
        if self.code_checked.q.val() == self.configure_code.val() {
            if !self.stopped.val() {
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
            if !self.configured.q.val() {
                self.refusal.next = self.refused_not_configured.val();
            } else {
                self.start.next = self.checked_pending.q.val();
            }
        } else if self.code_checked.q.val() == self.stop_code.val() {
            self.stop.next = self.checked_pending.q.val();
        } else {
            self.refusal.next = self.refused_unknown.val();
        }
        if self.configure.val() {
            self.configured.d.next = true;
        }
        self.result_valid_done.d.next = self.checked_pending.q.val();
        self.result_code_done.d.next = 0.into();
        if self.checked_pending.q.val() {
            self.result_code_done.d.next = self.refusal.val();
        }
        self.result_valid.next = self.result_valid_done.q.val();
        self.result_code.next = self.result_code_done.q.val();
        self.settings.next = self.settings_checked.q.val();
        self.slot_last_beat.next = self.slot_last_beat_checked.q.val();
        self.room_limit.next = self.room_limit_checked.q.val();
        if self.reset.val() {
            self.command_pending.d.next = false;
            self.checked_pending.d.next = false;
            self.result_valid_done.d.next = false;
            self.configured.d.next = false;
        }
    }
}
