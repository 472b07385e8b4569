//! [`StreamPort`]: one stream's AXI-Stream cut into messages of one remote slot each (or
//! shorter, ended by `tlast`), kept in the port's buffer until whoever sends them releases them.
//!
//! ```text
//!  command (configure, start, stop) ─► check ─► settings, command_result
//!  s_axis ─► beat (write, count, end?) ─► buffer (block RAM, 2^BB beats) ◄─ read_address ─► read_data
//!                    │ end                       ring: write ── message_start ── released ◄─ release
//!                    ▼
//!                 closing ─► message record (STREAM_MESSAGE) ─► FIFO ─► m_message
//!                    └─► sequence, slot, wraps, solicited count ─► next message's immediate
//! ```
//!
//! - **Messages**: a message ends when it fills its slot or, with `end_at_tlast`, at `tlast`.
//!   Its record says where its beats are in the buffer and carries its sequence number, slot
//!   (`sequence mod slots`), immediate and solicited bit, as `ferroce_models::stream` computes
//!   them. Every beat must be whole (`tkeep` all ones) except the one that ends a message at
//!   `tlast`. Slots are whole beats (the settings refuse others), so every message starts at a
//!   beat of the buffer and every packet read of it (a multiple of the path MTU into it) does too.
//! - **Room**: a message starts only when the buffer has a slot's room. The count of beats held
//!   is two cycles old; right after a message it may lack the last beat written, so it is read
//!   with two beats to spare, and once no beat has been written for two cycles (`settled`) it is
//!   exact and read without: the buffer holds exactly the slots that fit in it. Without room
//!   the port holds `tready` low, or with
//!   `drop_on_overflow` takes the message and drops it whole (`dropped_overflow`). A beat with
//!   bytes missing that does not end its message at `tlast` drops that message
//!   (`dropped_partial_beat`): its beats are given back. A dropped message keeps its sequence
//!   number and slot, so the receiver sees the gap.
//! - **Release**: `release_beats` frees the oldest beats held; whoever sends the messages
//!   releases each message's `beats`, in order, once it no longer needs to read them (after the
//!   acknowledgement on RC, after its last packet on UC).
//! - **Cycles**: one beat per cycle while a message is taken; one cycle after each message
//!   (`Closing`: the record goes to the FIFO, the counters move on), so a port at 512 bits and
//!   322 MHz with 4 KiB slots takes 64 beats in 65 cycles, above a 100 Gb/s wire's rate.
//! - **Commands** take effect three cycles after `command_valid` (registered, checked, done:
//!   [`PortCommands`]); `command_result_valid` pulses then with 0 or a `StreamRefusal` code.
//!   `Configure` is refused while the stream runs (stop it first: a stop ends the message in
//!   progress first); it restarts the stream at message 0. The settings' RTL check is
//!   `ferroce_contracts::stream::check_settings`.
//!
//! Registers named `ending_…` hold what the beat that ended a message said, for `Closing`.

use super::commands::{PortCommands, SLOT_BYTE_BITS};
use super::numbers::{count_mask, MessageNumbers};
use crate::common::counter::EventCounter;
use crate::common::dual_port_ram::BlockRam;
use crate::common::elab::{bits_from, c};
use crate::common::fifo::{Fifo, CAPACITY};
use ferroce_contracts::stream::{
    MAX_SLOT_BYTES, STREAM_CODE_BITS, STREAM_MESSAGE, STREAM_MESSAGE_BITS, STREAM_SETTINGS, STREAM_SETTINGS_BITS,
};
use rust_hdl::prelude::*;

/// Bits of a beat index (the buffer holds at most 2^16 beats).
pub const BEAT_BITS: usize = 16;
/// Bits of a position in the buffer's ring (beats written or released, modulo 2^17).
pub const POSITION_BITS: usize = 17;
/// Bits of a lane count (a beat's bytes up to 128).
const LANE_COUNT_BITS: usize = 8;

/// The `STREAM_SETTINGS` fields the port reads, in schema order.
const SETTINGS_FIELDS: [&str; 7] = [
    "slot_bytes",
    "length_bits",
    "slot_and_wrap",
    "end_at_tlast",
    "drop_on_overflow",
    "last_slot",
    "solicited_every",
];
/// The `STREAM_MESSAGE` fields, in schema order.
const MESSAGE_FIELDS: [&str; 7] = ["buffer_beat", "beats", "length", "solicited", "sequence", "slot", "immediate"];

/// The port's steps.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum StreamState {
    /// Not taking data.
    Stopped,
    /// Between messages: the next beat starts one.
    Between,
    /// Taking a message's beats into the buffer.
    Receiving,
    /// Taking a message's beats and dropping them (no room when it started).
    Dropping,
    /// A message ended in the last cycle: its record goes out, the counters move on.
    Closing,
}

/// One stream at `W` bits (`K = W / 8` lanes) with a buffer of `2^BB` beats (`BB` at most 16).
#[derive(LogicBlock)]
pub struct StreamPort<const W: usize, const K: usize, const BB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: stopped, not configured, the buffer empty.
    pub reset: Signal<In, Bit>,
    /// A command (one cycle).
    pub command_valid: Signal<In, Bit>,
    /// The command's `StreamCommand` code.
    pub command_code: Signal<In, Bits<STREAM_CODE_BITS>>,
    /// `Configure`'s settings (`STREAM_SETTINGS`).
    pub command_settings: Signal<In, Bits<STREAM_SETTINGS_BITS>>,
    /// A command's result (one cycle, three after the command).
    pub command_result_valid: Signal<Out, Bit>,
    /// 0: done; else the `StreamRefusal` code.
    pub command_result_code: Signal<Out, Bits<STREAM_CODE_BITS>>,
    /// The stream takes data (until a stop's message has ended).
    pub running: Signal<Out, Bit>,
    /// Stream data: valid.
    pub s_axis_tvalid: Signal<In, Bit>,
    /// Stream data: ready (from registers).
    pub s_axis_tready: Signal<Out, Bit>,
    /// Stream data.
    pub s_axis_tdata: Signal<In, Bits<W>>,
    /// Stream data: keep (contiguous from lane 0; all ones but at a `tlast` that ends a message).
    pub s_axis_tkeep: Signal<In, Bits<K>>,
    /// Stream data: last (ends a message with `end_at_tlast`).
    pub s_axis_tlast: Signal<In, Bit>,
    /// A message is whole in the buffer: valid.
    pub m_message_valid: Signal<Out, Bit>,
    /// Its record taken.
    pub m_message_ready: Signal<In, Bit>,
    /// Its record (`STREAM_MESSAGE`).
    pub m_message_entry: Signal<Out, Bits<STREAM_MESSAGE_BITS>>,
    /// Free the oldest `release_beats` beats held (one cycle).
    pub release_valid: Signal<In, Bit>,
    /// Beats to free.
    pub release_beats: Signal<In, Bits<BEAT_BITS>>,
    /// The buffer's beat to read (its low `BB` bits).
    pub read_address: Signal<In, Bits<BEAT_BITS>>,
    /// The beat at the last cycle's `read_address`.
    pub read_data: Signal<Out, Bits<W>>,
    /// The next message's sequence number.
    pub next_sequence: Signal<Out, Bits<32>>,
    /// The next message's slot.
    pub next_slot: Signal<Out, Bits<16>>,
    /// Beats held in the buffer (written and not released).
    pub held_beats: Signal<Out, Bits<POSITION_BITS>>,
    /// Counter: messages whole in the buffer.
    pub messages: Signal<Out, Bits<32>>,
    /// Counter: messages dropped, no room when they started (`drop_on_overflow`).
    pub dropped_overflow: Signal<Out, Bits<32>>,
    /// Counter: messages dropped for a beat with bytes missing.
    pub dropped_partial_beat: Signal<Out, Bits<32>>,

    // ---- commands ----
    // ---- settings ----
    slot_last_beat: DFF<Bits<BEAT_BITS>>,
    room_limit: DFF<Bits<POSITION_BITS>>,
    /// `room_limit` without the two beats to spare.
    exact_limit: DFF<Bits<POSITION_BITS>>,
    last_slot: DFF<Bits<16>>,
    slot_and_wrap: DFF<Bit>,
    end_at_tlast: DFF<Bit>,
    length_bits: DFF<Bits<6>>,
    drop_on_overflow: DFF<Bit>,
    solicited_last: DFF<Bits<16>>,
    solicited_never: DFF<Bit>,
    // ---- the stream ----
    state: DFF<StreamState>,
    stop_requested: DFF<Bit>,
    message_beats: DFF<Bits<BEAT_BITS>>,
    beats_left: DFF<Bits<BEAT_BITS>>,
    write_position: DFF<Bits<POSITION_BITS>>,
    message_start: DFF<Bits<POSITION_BITS>>,
    released_position: DFF<Bits<POSITION_BITS>>,
    held: DFF<Bits<POSITION_BITS>>,
    room_for_slot: DFF<Bit>,
    room_exact: DFF<Bit>,
    /// No beat written in the last cycle; in the last two (`held` is exact, `room_exact` true).
    wrote_none: DFF<Bit>,
    settled: DFF<Bit>,
    ending_push: DFF<Bit>,
    ending_partial_drop: DFF<Bit>,
    ending_overflow_drop: DFF<Bit>,
    ending_beats: DFF<Bits<BEAT_BITS>>,
    ending_whole_beats: DFF<Bits<BEAT_BITS>>,
    ending_partial_bytes: DFF<Bits<LANE_COUNT_BITS>>,
    // ---- the message counters ----
    // ---- commands, checked ----
    // ---- combinational ----
    accept: Signal<Local, Bit>,
    beat_full: Signal<Local, Bit>,
    beat_empty: Signal<Local, Bit>,
    ends_at_tlast: Signal<Local, Bit>,
    beat_bad: Signal<Local, Bit>,
    beat_ends: Signal<Local, Bit>,
    starts_dropped: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    partial_bytes: Signal<Local, Bits<LANE_COUNT_BITS>>,
    length: Signal<Local, Bits<SLOT_BYTE_BITS>>,
    length_in_immediate: Signal<Local, Bits<32>>,
    // ---- sub-blocks ----
    commands: PortCommands,
    numbers: MessageNumbers,
    buffer: BlockRam<Bits<W>, BB>,
    records: Fifo<Bits<STREAM_MESSAGE_BITS>>,
    messages_counter: EventCounter,
    overflow_counter: EventCounter,
    partial_beat_counter: EventCounter,
    // ---- constants ----
    settings_at: [Constant<Bits<8>>; 7],
    message_at: [Constant<Bits<8>>; 7],
    beat_log2: Constant<Bits<8>>,
    keep_all: Constant<Bits<K>>,
    keep_count_mask: [Constant<Bits<K>>; 7],
    keep_count_shift: [Constant<Bits<8>>; 7],
    keep_count_bit: [Constant<Bits<LANE_COUNT_BITS>>; 7],
    records_nearly_full: Constant<Bits<8>>,
}

impl<const W: usize, const K: usize, const BB: usize> Default for StreamPort<W, K, BB> {
    fn default() -> Self {
        assert_eq!(W, 8 * K);
        assert!(K.is_power_of_two() && K <= 128, "lanes {K}");
        assert!((2..=BEAT_BITS).contains(&BB), "buffer bits {BB}");
        let beat_log2 = K.trailing_zeros() as usize;
        // the largest slot in beats: half the buffer, and 1 MiB
        let max_slot_beats = (1u64 << (BB - 1)).min(u64::from(MAX_SLOT_BYTES) >> beat_log2);
        // bit b of the byte count of a keep of n < K ones from lane 0: one of the lanes
        // m·2^b − 1 (m odd) is the last one set
        let keep_count_mask = std::array::from_fn(|b| c_bits(count_mask::<K>(b)));
        StreamPort {
            clock: Default::default(),
            reset: Default::default(),
            command_valid: Default::default(),
            command_code: Default::default(),
            command_settings: Default::default(),
            command_result_valid: Default::default(),
            command_result_code: Default::default(),
            running: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tready: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tkeep: Default::default(),
            s_axis_tlast: Default::default(),
            m_message_valid: Default::default(),
            m_message_ready: Default::default(),
            m_message_entry: Default::default(),
            release_valid: Default::default(),
            release_beats: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            next_sequence: Default::default(),
            next_slot: Default::default(),
            held_beats: Default::default(),
            messages: Default::default(),
            dropped_overflow: Default::default(),
            dropped_partial_beat: Default::default(),
            slot_last_beat: Default::default(),
            room_limit: Default::default(),
            exact_limit: Default::default(),
            last_slot: Default::default(),
            slot_and_wrap: Default::default(),
            end_at_tlast: Default::default(),
            length_bits: Default::default(),
            drop_on_overflow: Default::default(),
            solicited_last: Default::default(),
            solicited_never: Default::default(),
            state: Default::default(),
            stop_requested: Default::default(),
            message_beats: Default::default(),
            beats_left: Default::default(),
            write_position: Default::default(),
            message_start: Default::default(),
            released_position: Default::default(),
            held: Default::default(),
            room_for_slot: Default::default(),
            room_exact: Default::default(),
            wrote_none: Default::default(),
            settled: Default::default(),
            ending_push: Default::default(),
            ending_partial_drop: Default::default(),
            ending_overflow_drop: Default::default(),
            ending_beats: Default::default(),
            ending_whole_beats: Default::default(),
            ending_partial_bytes: Default::default(),
            accept: Default::default(),
            beat_full: Default::default(),
            beat_empty: Default::default(),
            ends_at_tlast: Default::default(),
            beat_bad: Default::default(),
            beat_ends: Default::default(),
            starts_dropped: Default::default(),
            room: Default::default(),
            partial_bytes: Default::default(),
            length: Default::default(),
            length_in_immediate: Default::default(),
            commands: PortCommands::new(beat_log2, max_slot_beats, 1u64 << BB),
            numbers: Default::default(),
            buffer: Default::default(),
            records: Default::default(),
            messages_counter: Default::default(),
            overflow_counter: Default::default(),
            partial_beat_counter: Default::default(),
            settings_at: std::array::from_fn(|i| c::<8>(STREAM_SETTINGS.offset(SETTINGS_FIELDS[i]) as u64)),
            message_at: std::array::from_fn(|i| c::<8>(STREAM_MESSAGE.offset(MESSAGE_FIELDS[i]) as u64)),
            beat_log2: c::<8>(beat_log2 as u64),
            keep_all: c_bits(bits_from::<K>(|_| true)),
            keep_count_mask,
            keep_count_shift: std::array::from_fn(|b| c::<8>(1u64 << b)),
            keep_count_bit: std::array::from_fn(|b| c::<LANE_COUNT_BITS>(1u64 << b)),
            // the FIFO's fill bit for 31 records: a message starts with room for its record to spare
            records_nearly_full: c::<8>(CAPACITY as u64 - 2),
        }
    }
}

fn c_bits<const N: usize>(v: Bits<N>) -> Constant<Bits<N>> {
    Constant::new(v)
}

impl<const W: usize, const K: usize, const BB: usize> Logic for StreamPort<W, K, BB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            slot_last_beat,
            room_limit,
            exact_limit,
            last_slot,
            slot_and_wrap,
            end_at_tlast,
            length_bits,
            drop_on_overflow,
            solicited_last,
            solicited_never,
            state,
            stop_requested,
            message_beats,
            beats_left,
            write_position,
            message_start,
            released_position,
            held,
            room_for_slot,
            room_exact,
            wrote_none,
            settled,
            ending_push,
            ending_partial_drop,
            ending_overflow_drop,
            ending_beats,
            ending_whole_beats,
            ending_partial_bytes
        );
        clock!(
            self,
            clock,
            commands,
            numbers,
            buffer,
            records,
            messages_counter,
            overflow_counter,
            partial_beat_counter
        );

        // ---- room: beats held, and whether a slot fits beside them (two cycles old) ----
        self.held.d.next = self.write_position.q.val() - self.released_position.q.val();
        self.room_for_slot.d.next = self.held.q.val() <= self.room_limit.q.val();
        self.room_exact.d.next = self.held.q.val() <= self.exact_limit.q.val();
        self.room.next = self.room_for_slot.q.val() || (self.settled.q.val() && self.room_exact.q.val());
        if self.release_valid.val() {
            self.released_position.d.next = self.released_position.q.val() + bit_cast::<POSITION_BITS, BEAT_BITS>(self.release_beats.val());
        }

        // ---- the beat: taken? whole? does it end its message? ----
        self.s_axis_tready.next = false;
        match self.state.q.val() {
            StreamState::Stopped => {}
            StreamState::Between => {
                self.s_axis_tready.next = !self.stop_requested.q.val()
                    && !self.records.fill.val().get_bit(self.records_nearly_full.val().index())
                    && (self.room.val() || (self.drop_on_overflow.q.val() && self.settled.q.val()));
            }
            StreamState::Receiving => {
                self.s_axis_tready.next = true;
            }
            StreamState::Dropping => {
                self.s_axis_tready.next = true;
            }
            StreamState::Closing => {}
            _ => {}
        }
        self.accept.next = self.s_axis_tvalid.val() && self.s_axis_tready.val();
        self.beat_full.next = self.s_axis_tkeep.val() == self.keep_all.val();
        self.beat_empty.next = !self.s_axis_tkeep.val().get_bit(0);
        self.ends_at_tlast.next = self.end_at_tlast.q.val() && self.s_axis_tlast.val();
        self.beat_bad.next = !self.beat_full.val() && !self.ends_at_tlast.val();
        self.beat_ends.next = self.beat_bad.val() || self.ends_at_tlast.val() || self.beats_left.q.val() == 0;
        self.starts_dropped.next =
            self.state.q.val() == StreamState::Dropping || (self.state.q.val() == StreamState::Between && !self.room.val());

        // ---- into the buffer: a beat of a message kept goes to the write position ----
        self.buffer.write.next = false;
        self.buffer.write_address.next = bit_cast::<BB, POSITION_BITS>(self.write_position.q.val());
        self.buffer.write_data.next = self.s_axis_tdata.val();
        self.buffer.read_address.next = bit_cast::<BB, BEAT_BITS>(self.read_address.val());
        self.read_data.next = self.buffer.read_data.val();
        self.ending_push.d.next = false;
        self.ending_partial_drop.d.next = false;
        self.ending_overflow_drop.d.next = false;
        if self.accept.val() {
            self.beats_left.d.next = self.beats_left.q.val() - 1;
            self.state.d.next = StreamState::Receiving;
            if self.state.q.val() == StreamState::Between && self.beat_empty.val() && self.ends_at_tlast.val() {
                // an empty beat at tlast with nothing before it ends nothing
                self.state.d.next = StreamState::Between;
                self.beats_left.d.next = self.beats_left.q.val();
            } else if self.starts_dropped.val() {
                self.state.d.next = StreamState::Dropping;
                if self.beat_ends.val() {
                    self.state.d.next = StreamState::Closing;
                    self.ending_partial_drop.d.next = self.beat_bad.val();
                    self.ending_overflow_drop.d.next = !self.beat_bad.val();
                }
            } else if self.beat_bad.val() {
                // the message is dropped: its beats are given back
                self.write_position.d.next = self.message_start.q.val();
                self.state.d.next = StreamState::Closing;
                self.ending_partial_drop.d.next = true;
            } else {
                if !self.beat_empty.val() {
                    self.buffer.write.next = true;
                    self.write_position.d.next = self.write_position.q.val() + 1;
                    self.message_beats.d.next = self.message_beats.q.val() + 1;
                }
                if self.beat_ends.val() {
                    self.state.d.next = StreamState::Closing;
                    self.ending_push.d.next = true;
                }
            }
        }
        self.wrote_none.d.next = !self.buffer.write.val();
        self.settled.d.next = !self.buffer.write.val() && self.wrote_none.q.val();
        // the bytes of a beat that is not whole (its keep a thermometer code)
        self.partial_bytes.next = 0.into();
        for b in 0..7 {
            if (self.s_axis_tkeep.val() & !(self.s_axis_tkeep.val() >> self.keep_count_shift[b].val()) & self.keep_count_mask[b].val())
                .any()
            {
                self.partial_bytes.next = self.partial_bytes.val() | self.keep_count_bit[b].val();
            }
        }
        self.ending_partial_bytes.d.next = self.partial_bytes.val();
        if self.beat_full.val() {
            self.ending_partial_bytes.d.next = 0.into();
        }
        self.ending_beats.d.next = self.message_beats.q.val() + 1;
        if self.beat_empty.val() {
            self.ending_beats.d.next = self.message_beats.q.val();
        }
        self.ending_whole_beats.d.next = self.message_beats.q.val();
        if self.beat_full.val() {
            self.ending_whole_beats.d.next = self.message_beats.q.val() + 1;
        }

        // ---- closing: the record, built from registers ----
        self.length.next = (bit_cast::<SLOT_BYTE_BITS, BEAT_BITS>(self.ending_whole_beats.q.val()) << self.beat_log2.val())
            | bit_cast::<SLOT_BYTE_BITS, LANE_COUNT_BITS>(self.ending_partial_bytes.q.val());
        self.length_in_immediate.next = 0.into();
        if self.length_bits.q.val() != 0 {
            self.length_in_immediate.next = bit_cast::<32, SLOT_BYTE_BITS>(self.length.val());
        }
        // the message's numbers (`MessageNumbers`: they move on when it closes)
        self.numbers.advance.next = self.state.q.val() == StreamState::Closing;
        self.numbers.restart.next = false;
        self.numbers.last_slot.next = self.last_slot.q.val();
        self.numbers.length_bits.next = self.length_bits.q.val();
        self.numbers.slot_and_wrap.next = self.slot_and_wrap.q.val();
        self.numbers.solicited_last.next = self.solicited_last.q.val();
        self.numbers.solicited_never.next = self.solicited_never.q.val();
        self.records.push_value.next = (bit_cast::<STREAM_MESSAGE_BITS, BB>(bit_cast::<BB, POSITION_BITS>(self.message_start.q.val()))
            << self.message_at[0].val())
            | (bit_cast::<STREAM_MESSAGE_BITS, BEAT_BITS>(self.ending_beats.q.val()) << self.message_at[1].val())
            | (bit_cast::<STREAM_MESSAGE_BITS, SLOT_BYTE_BITS>(self.length.val()) << self.message_at[2].val())
            | (bit_cast::<STREAM_MESSAGE_BITS, 32>(self.numbers.sequence_number.val()) << self.message_at[4].val())
            | (bit_cast::<STREAM_MESSAGE_BITS, 16>(self.numbers.slot.val()) << self.message_at[5].val())
            | (bit_cast::<STREAM_MESSAGE_BITS, 32>(self.numbers.immediate_base.val() | self.length_in_immediate.val())
                << self.message_at[6].val());
        self.records.push_value.next = self
            .records
            .push_value
            .val()
            .replace_bit(self.message_at[3].val().index(), self.numbers.solicited.val());
        self.records.push.next = false;
        if self.state.q.val() == StreamState::Closing {
            self.records.push.next = self.ending_push.q.val();
            self.message_start.d.next = self.write_position.q.val();
            self.message_beats.d.next = 0.into();
            self.beats_left.d.next = self.slot_last_beat.q.val();
            self.state.d.next = StreamState::Between;
        }
        if self.state.q.val() == StreamState::Between && self.stop_requested.q.val() {
            self.state.d.next = StreamState::Stopped;
            self.stop_requested.d.next = false;
        }

        // ---- commands (`PortCommands`): the settings taken, started, stopped ----
        self.commands.command_valid.next = self.command_valid.val();
        self.commands.command_code.next = self.command_code.val();
        self.commands.command_settings.next = self.command_settings.val();
        self.commands.stopped.next = self.state.q.val() == StreamState::Stopped;
        self.commands.reset.next = self.reset.val();
        if self.commands.configure.val() {
            self.slot_last_beat.d.next = self.commands.slot_last_beat.val();
            self.room_limit.d.next = self.commands.room_limit.val();
            self.exact_limit.d.next = self.commands.room_limit.val() + 2;
            self.beats_left.d.next = self.commands.slot_last_beat.val();
            self.end_at_tlast.d.next = self.commands.settings.val().get_bit(self.settings_at[3].val().index());
            self.length_bits.d.next = 0.into();
            if self.commands.settings.val().get_bit(self.settings_at[3].val().index()) {
                self.length_bits.d.next = self.commands.settings.val().get_bits::<6>(self.settings_at[1].val().index());
            }
            self.slot_and_wrap.d.next = self.commands.settings.val().get_bit(self.settings_at[2].val().index());
            self.drop_on_overflow.d.next = self.commands.settings.val().get_bit(self.settings_at[4].val().index());
            self.last_slot.d.next = self.commands.settings.val().get_bits::<16>(self.settings_at[5].val().index());
            self.solicited_last.d.next = self.commands.settings.val().get_bits::<16>(self.settings_at[6].val().index()) - 1;
            self.solicited_never.d.next = self.commands.settings.val().get_bits::<16>(self.settings_at[6].val().index()) == 0;
            self.numbers.restart.next = true;
        }
        if self.commands.start.val() {
            self.stop_requested.d.next = false;
            if self.state.q.val() == StreamState::Stopped {
                self.state.d.next = StreamState::Between;
            }
        }
        if self.commands.stop.val() && self.state.q.val() != StreamState::Stopped {
            self.stop_requested.d.next = true;
        }

        // ---- outputs, the FIFO of records, counters ----
        self.records.pop.next = self.records.head_valid.val() && self.m_message_ready.val();
        self.m_message_valid.next = self.records.head_valid.val();
        self.m_message_entry.next = self.records.head.val();
        self.running.next = self.state.q.val() != StreamState::Stopped;
        self.command_result_valid.next = self.commands.result_valid.val();
        self.command_result_code.next = self.commands.result_code.val();
        self.next_sequence.next = self.numbers.sequence_number.val();
        self.next_slot.next = self.numbers.slot.val();
        self.held_beats.next = self.held.q.val();
        self.messages_counter.increment.next = self.state.q.val() == StreamState::Closing && self.ending_push.q.val();
        self.overflow_counter.increment.next = self.state.q.val() == StreamState::Closing && self.ending_overflow_drop.q.val();
        self.partial_beat_counter.increment.next = self.state.q.val() == StreamState::Closing && self.ending_partial_drop.q.val();
        self.messages.next = self.messages_counter.count.val();
        self.dropped_overflow.next = self.overflow_counter.count.val();
        self.dropped_partial_beat.next = self.partial_beat_counter.count.val();
        self.records.reset.next = self.reset.val();
        self.messages_counter.reset.next = self.reset.val();
        self.overflow_counter.reset.next = self.reset.val();
        self.partial_beat_counter.reset.next = self.reset.val();
        if self.reset.val() {
            self.state.d.next = StreamState::Stopped;
            self.stop_requested.d.next = false;
            self.write_position.d.next = 0.into();
            self.message_start.d.next = 0.into();
            self.released_position.d.next = 0.into();
            self.message_beats.d.next = 0.into();
        }
    }
}
