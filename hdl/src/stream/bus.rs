//! [`StreamBus`]: `S` streams on one AXI-Stream, a packet at a time: `tdest` names the stream of
//! each packet (held from its first beat to its `tlast`), and each stream is cut into messages
//! of one remote slot as a [`StreamPort`](super::StreamPort) cuts its own, in its region of one
//! shared buffer. What a stream needs between its packets lives in LUT RAM: a stream costs a
//! word of LUT RAM rather than a port, and the buffer a region.
//!
//! ```text
//!  s_axis (tdest) ─► Idle ─► Loading: the stream's settings and context (LUT RAM) ─► Waiting (1 or 3)
//!       ┌──────────────────────────────────────────────────────────────────────────────┘
//!       ▼
//!  Between / Receiving / Dropping ─► buffer (block RAM: S regions of 2^(BB−SB) beats) ◄─ read
//!       │ the message ends                   │ tlast
//!       ▼                                     ▼
//!  Closing ─► record FIFO ─► m_message  Storing: the context back ─► Idle, or the next packet's
//!       └────────────► Storing                        stream: the same at once, another loaded
//!                                                     as this one is stored ─► Waiting
//!  release (stream, beats) ─► released position (LUT RAM)
//! ```
//!
//! - **Packets**: the bus takes a packet's `tdest` at its first beat. A packet of a stream not
//!   running (or past the last stream) is discarded to its `tlast` and its beats counted
//!   (`discarded_beats`). Within a packet the beats are the stream's as on a port: a message
//!   ends when it fills its slot or, with `end_at_tlast`, at `tlast`; in slot mode a message
//!   may span packets. The same rules drop a message (`dropped_overflow`,
//!   `dropped_partial_beat`), and a stream without room and without `drop_on_overflow` holds
//!   `tready` low for the whole bus.
//! - **Cycles**: a beat a cycle within a packet; one cycle after each message (`Closing`) and
//!   one after each packet (`Storing`, which also loads the next packet's stream when it is
//!   another one). A packet of another stream than the last one then waits one cycle when its
//!   stream is in the middle of a message (`Waiting`: its bits read at `tdest` a cycle ago
//!   say it may go on), three when a message starts with it (`Waiting`, while the stream's room
//!   is worked out); `Idle` and `Loading` come before them when the bus had gone idle or
//!   discarded a packet.
//! - **Regions**: stream s holds beats `s·2^(BB−SB)` to `(s+1)·2^(BB−SB) − 1` of the buffer, a
//!   ring; a record's `buffer_beat` is the absolute beat of its first byte, and a message that
//!   passes the region's end goes on at its start. A slot is at most half a region.
//! - **Records**: a message begins while the FIFO of records has room to spare, and closes
//!   once its record has room (`Closing` waits): many streams' messages may be open at once,
//!   each spanning packets, so more may close than there was room for as they began.
//! - **Release**: `release_valid` frees `release_beats` of `release_stream`'s oldest beats.
//! - **Commands** name their stream ([`BusCommands`]): `configure` (stopped streams only: it
//!   restarts the stream at message 0, slot 0, its counters kept), `start`, `stop` (at once for
//!   a stream between its messages and its packets; else the message in progress ends first, or
//!   the packet, when it ends between messages). The result comes three cycles after the command.
//! - **Status** of `status_stream`, two cycles later: as of its last message or packet end.

use super::bus_commands::BusCommands;
use super::commands::SLOT_BYTE_BITS;
use super::numbers::count_mask;
use super::port::{BEAT_BITS, POSITION_BITS};
use crate::common::counter::EventCounter;
use crate::common::dual_port_ram::BlockRam;
use crate::common::elab::{bits_from, c};
use crate::common::fifo::{Fifo, CAPACITY};
use crate::common::lut_ram::LutRam;
use ferroce_contracts::stream::{
    MAX_SLOT_BYTES, STREAM_CODE_BITS, STREAM_MESSAGE, STREAM_MESSAGE_BITS, STREAM_SETTINGS, STREAM_SETTINGS_BITS,
};
use rust_hdl::prelude::*;

/// Bits of a lane count (a beat's bytes up to 128).
const LANE_COUNT_BITS: usize = 8;
/// Bits of a message record with its stream above it.
pub const BUS_RECORD_BITS: usize = STREAM_MESSAGE_BITS + 8;

/// What the bus keeps of a stream's settings (LUT RAM), in order: name, bits.
const SETTINGS_WORD: [(&str, usize); 13] = [
    ("slot_last_beat", 16),
    ("room_limit", 16),
    ("exact_limit", 16),
    ("last_slot", 16),
    ("slot_and_wrap", 1),
    ("end_at_tlast", 1),
    ("length_bits", 6),
    ("drop_on_overflow", 1),
    ("solicited_last", 16),
    ("solicited_never", 1),
    ("immediate_step", 32),
    ("slot_field_mask", 32),
    ("immediate_step_carried", 16),
];
const SETTINGS_WORD_BITS: usize = 170;
/// A stream's context between its packets (LUT RAM): name, bits.
const CONTEXT_WORD: [(&str, usize); 18] = [
    ("receiving", 1),
    ("dropping", 1),
    ("message_beats", 16),
    ("beats_left", 16),
    ("write_position", 16),
    ("message_start", 16),
    ("sequence_low", 16),
    ("sequence_high", 16),
    ("slot", 16),
    ("immediate_low", 16),
    ("immediate_high", 16),
    ("solicited_count", 16),
    ("messages_low", 16),
    ("messages_high", 16),
    ("overflow_low", 16),
    ("overflow_high", 16),
    ("partial_low", 16),
    ("partial_high", 16),
];
const CONTEXT_WORD_BITS: usize = 258;
/// What a stream's status reads (LUT RAM, written with the context): name, bits.
const STATUS_WORD: [(&str, usize); 6] = [
    ("sequence", 32),
    ("slot", 16),
    ("write_position", 16),
    ("messages", 32),
    ("dropped_overflow", 32),
    ("dropped_partial_beat", 32),
];
const STATUS_WORD_BITS: usize = 160;

/// The `STREAM_SETTINGS` fields the bus reads, in schema order.
const SETTINGS_FIELDS: [&str; 5] = ["slot_and_wrap", "end_at_tlast", "drop_on_overflow", "last_slot", "solicited_every"];
/// The `STREAM_MESSAGE` fields, in schema order.
const MESSAGE_FIELDS: [&str; 7] = ["buffer_beat", "beats", "length", "solicited", "sequence", "slot", "immediate"];

/// The offset of each field of a word laid out as `fields`, checked to fill `bits`.
fn offsets<const N: usize>(fields: [(&str, usize); N], bits: usize) -> [Constant<Bits<16>>; N] {
    let mut at = 0;
    let offsets = fields.map(|(_, width)| {
        at += width;
        c::<16>((at - width) as u64)
    });
    assert_eq!(at, bits, "a word's fields fill it");
    offsets
}

/// The bus's steps.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum BusState {
    /// No packet: the next beat names its stream.
    Idle,
    /// The stream's settings and context come out of LUT RAM.
    Loading,
    /// Three cycles: a new configuration is applied, the stream's room worked out.
    Waiting,
    /// Between messages: the next beat starts one.
    Between,
    /// Taking a message's beats into the buffer.
    Receiving,
    /// Taking a message's beats and dropping them (no room when it started).
    Dropping,
    /// A packet of a stream that is not running: its beats are discarded.
    Discarding,
    /// A message ended in the last cycle: its record goes out, the numbers move on.
    Closing,
    /// The stream's context goes back to LUT RAM (after a message or a packet).
    Storing,
}

/// `S = 2^SB` streams at `W` bits (`K = W / 8` lanes) sharing a buffer of `2^BB` beats; a
/// position in a stream's ring (beats written or released) counts modulo `2^PB`, twice its
/// region (`PB = BB − SB + 1`: the fewer its bits, the shorter the carry into them). The
/// LUT RAM words keep 16 bits for each.
#[derive(LogicBlock)]
pub struct StreamBus<const W: usize, const K: usize, const BB: usize, const S: usize, const SB: usize, const PB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: every stream stopped and not configured, counters at 0.
    pub reset: Signal<In, Bit>,
    /// A command (one cycle).
    pub command_valid: Signal<In, Bit>,
    /// Its stream (the low `SB` bits).
    pub command_stream: Signal<In, Bits<8>>,
    /// The command's `StreamCommand` code.
    pub command_code: Signal<In, Bits<STREAM_CODE_BITS>>,
    /// `Configure`'s settings (`STREAM_SETTINGS`).
    pub command_settings: Signal<In, Bits<STREAM_SETTINGS_BITS>>,
    /// A command's result (one cycle, three after the command).
    pub command_result_valid: Signal<Out, Bit>,
    /// 0: done; else the `StreamRefusal` code.
    pub command_result_code: Signal<Out, Bits<STREAM_CODE_BITS>>,
    /// Stream data: valid.
    pub s_axis_tvalid: Signal<In, Bit>,
    /// Stream data: ready (from registers).
    pub s_axis_tready: Signal<Out, Bit>,
    /// Stream data.
    pub s_axis_tdata: Signal<In, Bits<W>>,
    /// Stream data: keep (contiguous from lane 0; all ones but at a `tlast` that ends a message).
    pub s_axis_tkeep: Signal<In, Bits<K>>,
    /// Stream data: last (ends the packet; ends a message with `end_at_tlast`).
    pub s_axis_tlast: Signal<In, Bit>,
    /// Stream data: the packet's stream (read at its first beat).
    pub s_axis_tdest: Signal<In, Bits<8>>,
    /// A message is whole in the buffer: valid.
    pub m_message_valid: Signal<Out, Bit>,
    /// Its record taken.
    pub m_message_ready: Signal<In, Bit>,
    /// Its record (`STREAM_MESSAGE`; `buffer_beat` is the beat in the whole buffer).
    pub m_message_entry: Signal<Out, Bits<STREAM_MESSAGE_BITS>>,
    /// Its stream.
    pub m_message_stream: Signal<Out, Bits<8>>,
    /// Free the oldest `release_beats` beats of `release_stream` (one cycle).
    pub release_valid: Signal<In, Bit>,
    /// The stream whose beats are freed.
    pub release_stream: Signal<In, Bits<8>>,
    /// Beats to free.
    pub release_beats: Signal<In, Bits<BEAT_BITS>>,
    /// The buffer's beat to read (its low `BB` bits).
    pub read_address: Signal<In, Bits<BEAT_BITS>>,
    /// The beat at the last cycle's `read_address`.
    pub read_data: Signal<Out, Bits<W>>,
    /// The stream whose status to show.
    pub status_stream: Signal<In, Bits<8>>,
    /// Status (of `status_stream` two cycles before): the stream takes data.
    pub status_running: Signal<Out, Bit>,
    /// Status: the next message's sequence number.
    pub status_next_sequence: Signal<Out, Bits<32>>,
    /// Status: the next message's slot.
    pub status_next_slot: Signal<Out, Bits<16>>,
    /// Status: beats held in the stream's region (written and not released).
    pub status_held_beats: Signal<Out, Bits<POSITION_BITS>>,
    /// Status, counter: messages whole in the buffer.
    pub status_messages: Signal<Out, Bits<32>>,
    /// Status, counter: messages dropped, no room when they started (`drop_on_overflow`).
    pub status_dropped_overflow: Signal<Out, Bits<32>>,
    /// Status, counter: messages dropped for a beat with bytes missing.
    pub status_dropped_partial_beat: Signal<Out, Bits<32>>,
    /// Counter: beats of packets for streams not running (or past the last stream).
    pub discarded_beats: Signal<Out, Bits<32>>,

    // ---- the streams, a bit each ----
    running_streams: DFF<Bits<S>>,
    stop_requested_streams: DFF<Bits<S>>,
    configured_streams: DFF<Bits<S>>,
    /// Configured since the stream's context was last loaded: it restarts at message 0.
    fresh_streams: DFF<Bits<S>>,
    /// The stream's counters in LUT RAM count from reset.
    counted_streams: DFF<Bits<S>>,
    // ---- the bus ----
    state: DFF<BusState>,
    current: DFF<Bits<8>>,
    wait_count: DFF<Bits<2>>,
    packet_ended: DFF<Bit>,
    stopping: DFF<Bit>,
    current_running: DFF<Bit>,
    current_stop_requested: DFF<Bit>,
    /// The stream of the packet about to start (`s_axis_tdest`, a cycle ago): running,
    /// configured since its last packet, its counters counting.
    loading_running: DFF<Bit>,
    loading_fresh: DFF<Bit>,
    loading_counted: DFF<Bit>,
    released_current: DFF<Bits<PB>>,
    // ---- the stream's settings (loaded) ----
    slot_last_beat: DFF<Bits<BEAT_BITS>>,
    room_limit: DFF<Bits<PB>>,
    exact_limit: DFF<Bits<PB>>,
    last_slot: DFF<Bits<16>>,
    slot_and_wrap: DFF<Bit>,
    end_at_tlast: DFF<Bit>,
    length_bits: DFF<Bits<6>>,
    drop_on_overflow: DFF<Bit>,
    solicited_last: DFF<Bits<16>>,
    solicited_never: DFF<Bit>,
    immediate_step: DFF<Bits<32>>,
    slot_field_mask: DFF<Bits<32>>,
    /// The step's high half + 1 (a carry out of the low half).
    immediate_step_carried: DFF<Bits<16>>,
    // ---- the stream's context (loaded, stored) ----
    receiving: DFF<Bit>,
    dropping: DFF<Bit>,
    message_beats: DFF<Bits<BEAT_BITS>>,
    beats_left: DFF<Bits<BEAT_BITS>>,
    write_position: DFF<Bits<PB>>,
    message_start: DFF<Bits<PB>>,
    sequence_low: DFF<Bits<16>>,
    sequence_high: DFF<Bits<16>>,
    slot: DFF<Bits<16>>,
    immediate_low: DFF<Bits<16>>,
    immediate_high: DFF<Bits<16>>,
    solicited_count: DFF<Bits<16>>,
    messages_low: DFF<Bits<16>>,
    messages_high: DFF<Bits<16>>,
    overflow_low: DFF<Bits<16>>,
    overflow_high: DFF<Bits<16>>,
    partial_low: DFF<Bits<16>>,
    partial_high: DFF<Bits<16>>,
    // ---- derived from the context (a cycle old) ----
    sequence_low_all_ones: DFF<Bit>,
    messages_low_all_ones: DFF<Bit>,
    overflow_low_all_ones: DFF<Bit>,
    partial_low_all_ones: DFF<Bit>,
    slot_is_last: DFF<Bit>,
    solicited_now: DFF<Bit>,
    immediate_ored: DFF<Bits<32>>,
    immediate_carry: DFF<Bit>,
    immediate_high_plain: DFF<Bits<16>>,
    immediate_high_carried: DFF<Bits<16>>,
    /// The immediate's high half waits for its step and carry (added in `Storing`).
    immediate_pending: DFF<Bit>,
    // ---- room ----
    held: DFF<Bits<PB>>,
    room_for_slot: DFF<Bit>,
    room_exact: DFF<Bit>,
    wrote_none: DFF<Bit>,
    settled: DFF<Bit>,
    // ---- the beat that ended a message ----
    ending_push: DFF<Bit>,
    ending_partial_drop: DFF<Bit>,
    ending_overflow_drop: DFF<Bit>,
    ending_beats: DFF<Bits<BEAT_BITS>>,
    ending_whole_beats: DFF<Bits<BEAT_BITS>>,
    ending_partial_bytes: DFF<Bits<LANE_COUNT_BITS>>,
    // ---- releases (registered) ----
    release_pending: DFF<Bit>,
    release_stream_registered: DFF<Bits<8>>,
    release_beats_registered: DFF<Bits<BEAT_BITS>>,
    released_read: DFF<Bits<PB>>,
    release_adding: DFF<Bit>,
    release_adding_stream: DFF<Bits<8>>,
    release_adding_beats: DFF<Bits<BEAT_BITS>>,
    release_forward: DFF<Bit>,
    release_last_sum: DFF<Bits<PB>>,
    // ---- status (two stages) ----
    status_word: DFF<Bits<STATUS_WORD_BITS>>,
    status_released: DFF<Bits<PB>>,
    status_fresh: DFF<Bit>,
    status_counted: DFF<Bit>,
    status_running_read: DFF<Bit>,
    status_running_out: DFF<Bit>,
    status_sequence_out: DFF<Bits<32>>,
    status_slot_out: DFF<Bits<16>>,
    status_held_out: DFF<Bits<PB>>,
    status_messages_out: DFF<Bits<32>>,
    status_overflow_out: DFF<Bits<32>>,
    status_partial_out: DFF<Bits<32>>,
    // ---- combinational ----
    current_index: Signal<Local, Bits<SB>>,
    /// The packet's stream, `s_axis_tdest`.
    packet_index: Signal<Local, Bits<SB>>,
    /// The next packet is another stream's: its settings and context load as the last
    /// packet's context is stored.
    load_while_storing: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    beat_full: Signal<Local, Bit>,
    beat_empty: Signal<Local, Bit>,
    ends_at_tlast: Signal<Local, Bit>,
    beat_bad: Signal<Local, Bit>,
    beat_ends: Signal<Local, Bit>,
    starts_dropped: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    record_waits: Signal<Local, Bit>,
    stop_running: Signal<Local, Bit>,
    stop_at_once: Signal<Local, Bit>,
    region_base: Signal<Local, Bits<BB>>,
    partial_bytes: Signal<Local, Bits<LANE_COUNT_BITS>>,
    length: Signal<Local, Bits<SLOT_BYTE_BITS>>,
    length_in_immediate: Signal<Local, Bits<32>>,
    immediate_low_sum: Signal<Local, Bits<17>>,
    immediate_high_next: Signal<Local, Bits<16>>,
    settings_read: Signal<Local, Bits<SETTINGS_WORD_BITS>>,
    context_read: Signal<Local, Bits<CONTEXT_WORD_BITS>>,
    release_sum: Signal<Local, Bits<PB>>,
    solicited_last_command: Signal<Local, Bits<16>>,
    // ---- sub-blocks ----
    commands: BusCommands,
    settings_ram: LutRam<Bits<SETTINGS_WORD_BITS>, SB>,
    context_ram: LutRam<Bits<CONTEXT_WORD_BITS>, SB>,
    /// Per stream, beside its context: a message runs on past its last store (a stop waits for
    /// its end); meaningless while the stream is fresh.
    mid_message: LutRam<Bits<1>, SB>,
    status_ram: LutRam<Bits<STATUS_WORD_BITS>, SB>,
    released_for_release: LutRam<Bits<PB>, SB>,
    released_for_current: LutRam<Bits<PB>, SB>,
    released_for_status: LutRam<Bits<PB>, SB>,
    buffer: BlockRam<Bits<W>, BB>,
    records: Fifo<Bits<BUS_RECORD_BITS>>,
    discarded_counter: EventCounter,
    // ---- constants ----
    settings_at: [Constant<Bits<8>>; 5],
    message_at: [Constant<Bits<8>>; 7],
    record_stream_at: Constant<Bits<8>>,
    settings_word_at: [Constant<Bits<16>>; 13],
    context_word_at: [Constant<Bits<16>>; 18],
    status_word_at: [Constant<Bits<16>>; 6],
    beat_log2: Constant<Bits<8>>,
    region_bits: Constant<Bits<8>>,
    region_mask: Constant<Bits<BB>>,
    stream_bits: Constant<Bits<8>>,
    keep_all: Constant<Bits<K>>,
    keep_count_mask: [Constant<Bits<K>>; 7],
    keep_count_shift: [Constant<Bits<8>>; 7],
    keep_count_bit: [Constant<Bits<LANE_COUNT_BITS>>; 7],
    records_nearly_full: Constant<Bits<8>>,
    records_full: Constant<Bits<8>>,
}

impl<const W: usize, const K: usize, const BB: usize, const S: usize, const SB: usize, const PB: usize> Default
    for StreamBus<W, K, BB, S, SB, PB>
{
    fn default() -> Self {
        assert_eq!(W, 8 * K);
        assert!(K.is_power_of_two() && K <= 128, "lanes {K}");
        assert!((1..=8).contains(&SB) && S == 1 << SB, "streams {S}: 2^{SB}, 2 to 256");
        assert!((SB + 2..=BEAT_BITS).contains(&BB), "buffer bits {BB}: a region of 4 beats at least");
        let beat_log2 = K.trailing_zeros() as usize;
        let region_bits = BB - SB;
        assert_eq!(PB, region_bits + 1, "position bits: a region's and one");
        // the largest slot in beats: half a region, and 1 MiB
        let max_slot_beats = (1u64 << (region_bits - 1)).min(u64::from(MAX_SLOT_BYTES) >> beat_log2);
        StreamBus {
            clock: Default::default(),
            reset: Default::default(),
            command_valid: Default::default(),
            command_stream: Default::default(),
            command_code: Default::default(),
            command_settings: Default::default(),
            command_result_valid: Default::default(),
            command_result_code: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tready: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tkeep: Default::default(),
            s_axis_tlast: Default::default(),
            s_axis_tdest: Default::default(),
            m_message_valid: Default::default(),
            m_message_ready: Default::default(),
            m_message_entry: Default::default(),
            m_message_stream: Default::default(),
            release_valid: Default::default(),
            release_stream: Default::default(),
            release_beats: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            status_stream: Default::default(),
            status_running: Default::default(),
            status_next_sequence: Default::default(),
            status_next_slot: Default::default(),
            status_held_beats: Default::default(),
            status_messages: Default::default(),
            status_dropped_overflow: Default::default(),
            status_dropped_partial_beat: Default::default(),
            discarded_beats: Default::default(),
            running_streams: Default::default(),
            stop_requested_streams: Default::default(),
            configured_streams: Default::default(),
            fresh_streams: Default::default(),
            counted_streams: Default::default(),
            state: Default::default(),
            current: Default::default(),
            wait_count: Default::default(),
            packet_ended: Default::default(),
            stopping: Default::default(),
            current_running: Default::default(),
            current_stop_requested: Default::default(),
            loading_running: Default::default(),
            loading_fresh: Default::default(),
            loading_counted: Default::default(),
            released_current: Default::default(),
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
            immediate_step: Default::default(),
            slot_field_mask: Default::default(),
            immediate_step_carried: Default::default(),
            receiving: Default::default(),
            dropping: Default::default(),
            message_beats: Default::default(),
            beats_left: Default::default(),
            write_position: Default::default(),
            message_start: Default::default(),
            sequence_low: Default::default(),
            sequence_high: Default::default(),
            slot: Default::default(),
            immediate_low: Default::default(),
            immediate_high: Default::default(),
            solicited_count: Default::default(),
            messages_low: Default::default(),
            messages_high: Default::default(),
            overflow_low: Default::default(),
            overflow_high: Default::default(),
            partial_low: Default::default(),
            partial_high: Default::default(),
            sequence_low_all_ones: Default::default(),
            messages_low_all_ones: Default::default(),
            overflow_low_all_ones: Default::default(),
            partial_low_all_ones: Default::default(),
            slot_is_last: Default::default(),
            solicited_now: Default::default(),
            immediate_carry: Default::default(),
            immediate_high_plain: Default::default(),
            immediate_high_carried: Default::default(),
            immediate_pending: Default::default(),
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
            release_pending: Default::default(),
            release_stream_registered: Default::default(),
            release_beats_registered: Default::default(),
            released_read: Default::default(),
            release_adding: Default::default(),
            release_adding_stream: Default::default(),
            release_adding_beats: Default::default(),
            release_forward: Default::default(),
            release_last_sum: Default::default(),
            status_word: Default::default(),
            status_released: Default::default(),
            status_fresh: Default::default(),
            status_counted: Default::default(),
            status_running_read: Default::default(),
            status_running_out: Default::default(),
            status_sequence_out: Default::default(),
            status_slot_out: Default::default(),
            status_held_out: Default::default(),
            status_messages_out: Default::default(),
            status_overflow_out: Default::default(),
            status_partial_out: Default::default(),
            current_index: Default::default(),
            packet_index: Default::default(),
            load_while_storing: Default::default(),
            accept: Default::default(),
            beat_full: Default::default(),
            beat_empty: Default::default(),
            ends_at_tlast: Default::default(),
            beat_bad: Default::default(),
            beat_ends: Default::default(),
            starts_dropped: Default::default(),
            room: Default::default(),
            record_waits: Default::default(),
            stop_running: Default::default(),
            stop_at_once: Default::default(),
            region_base: Default::default(),
            partial_bytes: Default::default(),
            length: Default::default(),
            length_in_immediate: Default::default(),
            immediate_ored: Default::default(),
            immediate_low_sum: Default::default(),
            immediate_high_next: Default::default(),
            settings_read: Default::default(),
            context_read: Default::default(),
            release_sum: Default::default(),
            solicited_last_command: Default::default(),
            commands: BusCommands::new(beat_log2, max_slot_beats, 1u64 << region_bits),
            settings_ram: Default::default(),
            context_ram: Default::default(),
            mid_message: Default::default(),
            status_ram: Default::default(),
            released_for_release: Default::default(),
            released_for_current: Default::default(),
            released_for_status: Default::default(),
            buffer: Default::default(),
            records: Default::default(),
            discarded_counter: Default::default(),
            settings_at: std::array::from_fn(|i| c::<8>(STREAM_SETTINGS.offset(SETTINGS_FIELDS[i]) as u64)),
            message_at: std::array::from_fn(|i| c::<8>(STREAM_MESSAGE.offset(MESSAGE_FIELDS[i]) as u64)),
            record_stream_at: c::<8>(STREAM_MESSAGE_BITS as u64),
            settings_word_at: offsets(SETTINGS_WORD, SETTINGS_WORD_BITS),
            context_word_at: offsets(CONTEXT_WORD, CONTEXT_WORD_BITS),
            status_word_at: offsets(STATUS_WORD, STATUS_WORD_BITS),
            beat_log2: c::<8>(beat_log2 as u64),
            region_bits: c::<8>(region_bits as u64),
            region_mask: Constant::new(bits_from::<BB>(|b| b < region_bits)),
            stream_bits: c::<8>(SB as u64),
            keep_all: Constant::new(bits_from::<K>(|_| true)),
            keep_count_mask: std::array::from_fn(|b| Constant::new(count_mask::<K>(b))),
            keep_count_shift: std::array::from_fn(|b| c::<8>(1u64 << b)),
            keep_count_bit: std::array::from_fn(|b| c::<LANE_COUNT_BITS>(1u64 << b)),
            // the FIFO's fill bit for 31 records: a message starts with room for its record to spare
            records_nearly_full: c::<8>(CAPACITY as u64 - 2),
            records_full: c::<8>(CAPACITY as u64 - 1),
        }
    }
}

impl<const W: usize, const K: usize, const BB: usize, const S: usize, const SB: usize, const PB: usize> Logic
    for StreamBus<W, K, BB, S, SB, PB>
{
    #[hdl_gen]
    // rust-hdl's kernel has no match guards: the `if` inside an arm stays as written.
    #[allow(clippy::collapsible_match)]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            running_streams,
            stop_requested_streams,
            configured_streams,
            fresh_streams,
            counted_streams,
            state,
            current,
            wait_count,
            packet_ended,
            stopping,
            current_running,
            current_stop_requested,
            loading_running,
            loading_fresh,
            loading_counted,
            released_current,
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
            immediate_step,
            slot_field_mask,
            immediate_step_carried,
            receiving,
            dropping,
            message_beats,
            beats_left,
            write_position,
            message_start,
            sequence_low,
            sequence_high,
            slot,
            immediate_low,
            immediate_high,
            solicited_count,
            messages_low,
            messages_high,
            overflow_low,
            overflow_high,
            partial_low,
            partial_high,
            sequence_low_all_ones,
            messages_low_all_ones,
            overflow_low_all_ones,
            partial_low_all_ones,
            slot_is_last,
            solicited_now,
            immediate_ored,
            immediate_carry,
            immediate_high_plain,
            immediate_high_carried,
            immediate_pending,
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
            ending_partial_bytes,
            release_pending,
            release_stream_registered,
            release_beats_registered,
            released_read,
            release_adding,
            release_adding_stream,
            release_adding_beats,
            release_forward,
            release_last_sum,
            status_word,
            status_released,
            status_fresh,
            status_counted,
            status_running_read,
            status_running_out,
            status_sequence_out,
            status_slot_out,
            status_held_out,
            status_messages_out,
            status_overflow_out,
            status_partial_out
        );
        clock!(self, clock, commands, buffer, records, discarded_counter);
        self.settings_ram.write_clock.next = self.clock.val();
        self.context_ram.write_clock.next = self.clock.val();
        self.mid_message.write_clock.next = self.clock.val();
        self.status_ram.write_clock.next = self.clock.val();
        self.released_for_release.write_clock.next = self.clock.val();
        self.released_for_current.write_clock.next = self.clock.val();
        self.released_for_status.write_clock.next = self.clock.val();

        // ---- the current stream's bits, its room (two cycles old) and released position ----
        self.current_index.next = bit_cast::<SB, 8>(self.current.q.val());
        self.current_running.d.next =
            self.running_streams.q.val().get_bit(self.current_index.val().index()) && (self.current.q.val() >> self.stream_bits.val()) == 0;
        self.current_stop_requested.d.next = self.stop_requested_streams.q.val().get_bit(self.current_index.val().index());
        // (for the first cycle of `Waiting`: the stream of the packet about to start)
        self.packet_index.next = bit_cast::<SB, 8>(self.s_axis_tdest.val());
        self.loading_running.d.next = self.running_streams.q.val().get_bit(self.packet_index.val().index())
            && (self.s_axis_tdest.val() >> self.stream_bits.val()) == 0;
        self.loading_fresh.d.next = self.fresh_streams.q.val().get_bit(self.packet_index.val().index());
        self.loading_counted.d.next = self.counted_streams.q.val().get_bit(self.packet_index.val().index());
        self.released_for_current.read_address.next = self.current_index.val();
        self.released_current.d.next = self.released_for_current.read_data.val();
        self.held.d.next = self.write_position.q.val() - self.released_current.q.val();
        self.room_for_slot.d.next = self.held.q.val() <= self.room_limit.q.val();
        self.room_exact.d.next = self.held.q.val() <= self.exact_limit.q.val();
        self.room.next = self.room_for_slot.q.val() || (self.settled.q.val() && self.room_exact.q.val());
        // what the next message's numbers need, a cycle old
        self.sequence_low_all_ones.d.next = self.sequence_low.q.val() == 0xFFFF;
        self.messages_low_all_ones.d.next = self.messages_low.q.val() == 0xFFFF;
        self.overflow_low_all_ones.d.next = self.overflow_low.q.val() == 0xFFFF;
        self.partial_low_all_ones.d.next = self.partial_low.q.val() == 0xFFFF;
        self.slot_is_last.d.next = self.slot.q.val() == self.last_slot.q.val();
        self.solicited_now.d.next = !self.solicited_never.q.val() && self.solicited_count.q.val() == self.solicited_last.q.val();

        // ---- the beat: taken? whole? does it end its message? ----
        self.s_axis_tready.next = false;
        match self.state.q.val() {
            BusState::Between => {
                self.s_axis_tready.next = !self.current_stop_requested.q.val()
                    && !self.records.fill.val().get_bit(self.records_nearly_full.val().index())
                    && (self.room.val() || (self.drop_on_overflow.q.val() && self.settled.q.val()));
            }
            BusState::Receiving => {
                self.s_axis_tready.next = true;
            }
            BusState::Dropping => {
                self.s_axis_tready.next = true;
            }
            BusState::Discarding => {
                self.s_axis_tready.next = true;
            }
            _ => {}
        }
        self.accept.next = self.s_axis_tvalid.val() && self.s_axis_tready.val();
        self.beat_full.next = self.s_axis_tkeep.val() == self.keep_all.val();
        self.beat_empty.next = !self.s_axis_tkeep.val().get_bit(0);
        self.ends_at_tlast.next = self.end_at_tlast.q.val() && self.s_axis_tlast.val();
        self.beat_bad.next = !self.beat_full.val() && !self.ends_at_tlast.val();
        self.beat_ends.next = self.beat_bad.val() || self.ends_at_tlast.val() || self.beats_left.q.val() == 0;
        self.starts_dropped.next =
            self.state.q.val() == BusState::Dropping || (self.state.q.val() == BusState::Between && !self.room.val());

        // ---- into the buffer: a beat of a message kept goes to the stream's write position ----
        self.region_base.next = bit_cast::<BB, 8>(self.current.q.val()) << self.region_bits.val();
        self.buffer.write.next = false;
        self.buffer.write_address.next =
            self.region_base.val() | (bit_cast::<BB, PB>(self.write_position.q.val()) & self.region_mask.val());
        self.buffer.write_data.next = self.s_axis_tdata.val();
        self.buffer.read_address.next = bit_cast::<BB, BEAT_BITS>(self.read_address.val());
        self.read_data.next = self.buffer.read_data.val();
        self.ending_push.d.next = false;
        self.ending_partial_drop.d.next = false;
        self.ending_overflow_drop.d.next = false;
        self.discarded_counter.increment.next = self.accept.val() && self.state.q.val() == BusState::Discarding;
        if self.accept.val() && self.state.q.val() == BusState::Discarding {
            if self.s_axis_tlast.val() {
                self.state.d.next = BusState::Idle;
            }
        } else if self.accept.val() {
            self.beats_left.d.next = self.beats_left.q.val() - 1;
            // (every beat counted: the record counts from the count before the message's last
            // beat, a message dropped is not recorded, and the count is cleared as it closes)
            self.message_beats.d.next = self.message_beats.q.val() + 1;
            self.state.d.next = BusState::Receiving;
            if self.state.q.val() == BusState::Between && self.beat_empty.val() && self.ends_at_tlast.val() {
                // an empty beat at tlast with nothing before it ends nothing
                self.state.d.next = BusState::Between;
                self.beats_left.d.next = self.beats_left.q.val();
                self.message_beats.d.next = 0.into();
            } else if self.starts_dropped.val() {
                self.state.d.next = BusState::Dropping;
                if self.beat_ends.val() {
                    self.state.d.next = BusState::Closing;
                    self.ending_partial_drop.d.next = self.beat_bad.val();
                    self.ending_overflow_drop.d.next = !self.beat_bad.val();
                }
            } else if self.beat_bad.val() {
                // the message is dropped: its beats are given back as it closes
                self.state.d.next = BusState::Closing;
                self.ending_partial_drop.d.next = true;
            } else {
                if !self.beat_empty.val() {
                    self.buffer.write.next = true;
                    self.write_position.d.next = self.write_position.q.val() + 1;
                }
                if self.beat_ends.val() {
                    self.state.d.next = BusState::Closing;
                    self.ending_push.d.next = true;
                }
            }
            // the packet ends: the context goes back (after the record, if a message ended)
            self.packet_ended.d.next = self.s_axis_tlast.val();
            self.receiving.d.next = self.state.d.val() == BusState::Receiving;
            self.dropping.d.next = self.state.d.val() == BusState::Dropping;
            if self.s_axis_tlast.val() && self.state.d.val() != BusState::Closing {
                self.state.d.next = BusState::Storing;
            }
        }
        self.wrote_none.d.next =
            !self.buffer.write.val() && self.state.q.val() != BusState::Loading && self.state.q.val() != BusState::Waiting;
        self.settled.d.next = self.wrote_none.d.val() && self.wrote_none.q.val();
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

        // ---- closing: the record from registers, the numbers move on ----
        self.length.next = (bit_cast::<SLOT_BYTE_BITS, BEAT_BITS>(self.ending_whole_beats.q.val()) << self.beat_log2.val())
            | bit_cast::<SLOT_BYTE_BITS, LANE_COUNT_BITS>(self.ending_partial_bytes.q.val());
        self.length_in_immediate.next = 0.into();
        if self.length_bits.q.val() != 0 {
            self.length_in_immediate.next = bit_cast::<32, SLOT_BYTE_BITS>(self.length.val());
        }
        self.records.push_value.next = (bit_cast::<BUS_RECORD_BITS, BB>(
            self.region_base.val() | (bit_cast::<BB, PB>(self.message_start.q.val()) & self.region_mask.val()),
        ) << self.message_at[0].val())
            | (bit_cast::<BUS_RECORD_BITS, BEAT_BITS>(self.ending_beats.q.val()) << self.message_at[1].val())
            | (bit_cast::<BUS_RECORD_BITS, SLOT_BYTE_BITS>(self.length.val()) << self.message_at[2].val())
            | (bit_cast::<BUS_RECORD_BITS, 16>(self.sequence_low.q.val()) << self.message_at[4].val())
            | (bit_cast::<BUS_RECORD_BITS, 16>(self.sequence_high.q.val()) << (self.message_at[4].val() + 16))
            | (bit_cast::<BUS_RECORD_BITS, 16>(self.slot.q.val()) << self.message_at[5].val())
            | (bit_cast::<BUS_RECORD_BITS, 16>(self.immediate_low.q.val() | self.length_in_immediate.val().get_bits::<16>(0))
                << self.message_at[6].val())
            | (bit_cast::<BUS_RECORD_BITS, 16>(self.immediate_high.q.val() | self.length_in_immediate.val().get_bits::<16>(16))
                << (self.message_at[6].val() + 16))
            | (bit_cast::<BUS_RECORD_BITS, 8>(self.current.q.val()) << self.record_stream_at.val());
        self.records.push_value.next = self
            .records
            .push_value
            .val()
            .replace_bit(self.message_at[3].val().index(), self.solicited_now.q.val());
        self.records.push.next = false;
        // the immediate's next value, low half now and high half as the context is stored:
        // + the step, and at the ring's last slot with {wraps, slot} the slot field carried out
        // (a register: the slot and the immediate change at least three cycles before a message closes)
        self.immediate_ored.d.next =
            (bit_cast::<32, 16>(self.immediate_high.q.val()) << 16) | bit_cast::<32, 16>(self.immediate_low.q.val());
        if self.slot_and_wrap.q.val() && self.slot_is_last.q.val() {
            self.immediate_ored.d.next = self.immediate_ored.d.val() | self.slot_field_mask.q.val();
        }
        self.immediate_low_sum.next = bit_cast::<17, 16>(self.immediate_ored.q.val().get_bits::<16>(0))
            + bit_cast::<17, 16>(self.immediate_step.q.val().get_bits::<16>(0));
        self.immediate_high_next.next = self.immediate_high.q.val();
        if self.immediate_pending.q.val() {
            self.immediate_high_next.next = self.immediate_high_plain.q.val();
            if self.immediate_carry.q.val() {
                self.immediate_high_next.next = self.immediate_high_carried.q.val();
            }
        }
        // a message closes once its record has room: many streams' messages may be open at once
        // (each may span packets), so more may close than the FIFO had room for when they began
        self.record_waits.next = self.ending_push.q.val() && self.records.fill.val().get_bit(self.records_full.val().index());
        if self.state.q.val() == BusState::Closing && self.record_waits.val() {
            self.ending_push.d.next = true;
            self.ending_beats.d.next = self.ending_beats.q.val();
            self.ending_whole_beats.d.next = self.ending_whole_beats.q.val();
            self.ending_partial_bytes.d.next = self.ending_partial_bytes.q.val();
        } else if self.state.q.val() == BusState::Closing {
            self.records.push.next = self.ending_push.q.val();
            self.message_start.d.next = self.write_position.q.val();
            if self.ending_partial_drop.q.val() {
                self.write_position.d.next = self.message_start.q.val();
                self.message_start.d.next = self.message_start.q.val();
            }
            self.message_beats.d.next = 0.into();
            self.beats_left.d.next = self.slot_last_beat.q.val();
            self.sequence_low.d.next = self.sequence_low.q.val() + 1;
            if self.sequence_low_all_ones.q.val() {
                self.sequence_high.d.next = self.sequence_high.q.val() + 1;
            }
            self.slot.d.next = self.slot.q.val() + 1;
            if self.slot_is_last.q.val() {
                self.slot.d.next = 0.into();
            }
            self.solicited_count.d.next = self.solicited_count.q.val() + 1;
            if self.solicited_count.q.val() == self.solicited_last.q.val() {
                self.solicited_count.d.next = 0.into();
            }
            self.immediate_low.d.next = self.immediate_low_sum.val().get_bits::<16>(0);
            // the high half with and without the low half's carry, one taken as the context is stored
            self.immediate_carry.d.next = self.immediate_low_sum.val().get_bit(16);
            self.immediate_high_plain.d.next =
                self.immediate_ored.q.val().get_bits::<16>(16) + self.immediate_step.q.val().get_bits::<16>(16);
            self.immediate_high_carried.d.next = self.immediate_ored.q.val().get_bits::<16>(16) + self.immediate_step_carried.q.val();
            self.immediate_pending.d.next = true;
            if self.ending_push.q.val() {
                self.messages_low.d.next = self.messages_low.q.val() + 1;
                if self.messages_low_all_ones.q.val() {
                    self.messages_high.d.next = self.messages_high.q.val() + 1;
                }
            }
            if self.ending_overflow_drop.q.val() {
                self.overflow_low.d.next = self.overflow_low.q.val() + 1;
                if self.overflow_low_all_ones.q.val() {
                    self.overflow_high.d.next = self.overflow_high.q.val() + 1;
                }
            }
            if self.ending_partial_drop.q.val() {
                self.partial_low.d.next = self.partial_low.q.val() + 1;
                if self.partial_low_all_ones.q.val() {
                    self.partial_high.d.next = self.partial_high.q.val() + 1;
                }
            }
            self.receiving.d.next = false;
            self.dropping.d.next = false;
            self.state.d.next = BusState::Storing;
        }

        // ---- storing: the context back to LUT RAM, then the next packet ----
        self.context_ram.write_enable.next = false;
        self.mid_message.write_enable.next = false;
        self.mid_message.write_address.next = self.current_index.val();
        self.mid_message.write_data.next = 0.into();
        if self.receiving.q.val() || self.dropping.q.val() {
            self.mid_message.write_data.next = 1.into();
        }
        self.status_ram.write_enable.next = false;
        self.context_ram.write_address.next = self.current_index.val();
        self.status_ram.write_address.next = self.current_index.val();
        self.context_ram.write_data.next = (bit_cast::<CONTEXT_WORD_BITS, BEAT_BITS>(self.message_beats.q.val())
            << self.context_word_at[2].val())
            | (bit_cast::<CONTEXT_WORD_BITS, BEAT_BITS>(self.beats_left.q.val()) << self.context_word_at[3].val())
            | (bit_cast::<CONTEXT_WORD_BITS, PB>(self.write_position.q.val()) << self.context_word_at[4].val())
            | (bit_cast::<CONTEXT_WORD_BITS, PB>(self.message_start.q.val()) << self.context_word_at[5].val())
            | (bit_cast::<CONTEXT_WORD_BITS, 16>(self.sequence_low.q.val()) << self.context_word_at[6].val())
            | (bit_cast::<CONTEXT_WORD_BITS, 16>(self.sequence_high.q.val()) << self.context_word_at[7].val())
            | (bit_cast::<CONTEXT_WORD_BITS, 16>(self.slot.q.val()) << self.context_word_at[8].val())
            | (bit_cast::<CONTEXT_WORD_BITS, 16>(self.immediate_low.q.val()) << self.context_word_at[9].val())
            | (bit_cast::<CONTEXT_WORD_BITS, 16>(self.immediate_high_next.val()) << self.context_word_at[10].val())
            | (bit_cast::<CONTEXT_WORD_BITS, 16>(self.solicited_count.q.val()) << self.context_word_at[11].val())
            | (bit_cast::<CONTEXT_WORD_BITS, 16>(self.messages_low.q.val()) << self.context_word_at[12].val())
            | (bit_cast::<CONTEXT_WORD_BITS, 16>(self.messages_high.q.val()) << self.context_word_at[13].val())
            | (bit_cast::<CONTEXT_WORD_BITS, 16>(self.overflow_low.q.val()) << self.context_word_at[14].val())
            | (bit_cast::<CONTEXT_WORD_BITS, 16>(self.overflow_high.q.val()) << self.context_word_at[15].val())
            | (bit_cast::<CONTEXT_WORD_BITS, 16>(self.partial_low.q.val()) << self.context_word_at[16].val())
            | (bit_cast::<CONTEXT_WORD_BITS, 16>(self.partial_high.q.val()) << self.context_word_at[17].val());
        self.context_ram.write_data.next = self
            .context_ram
            .write_data
            .val()
            .replace_bit(self.context_word_at[0].val().index(), self.receiving.q.val());
        self.context_ram.write_data.next = self
            .context_ram
            .write_data
            .val()
            .replace_bit(self.context_word_at[1].val().index(), self.dropping.q.val());
        self.status_ram.write_data.next = (bit_cast::<STATUS_WORD_BITS, 16>(self.sequence_low.q.val()) << self.status_word_at[0].val())
            | (bit_cast::<STATUS_WORD_BITS, 16>(self.sequence_high.q.val()) << (self.status_word_at[0].val() + 16))
            | (bit_cast::<STATUS_WORD_BITS, 16>(self.slot.q.val()) << self.status_word_at[1].val())
            | (bit_cast::<STATUS_WORD_BITS, PB>(self.write_position.q.val()) << self.status_word_at[2].val())
            | (bit_cast::<STATUS_WORD_BITS, 16>(self.messages_low.q.val()) << self.status_word_at[3].val())
            | (bit_cast::<STATUS_WORD_BITS, 16>(self.messages_high.q.val()) << (self.status_word_at[3].val() + 16))
            | (bit_cast::<STATUS_WORD_BITS, 16>(self.overflow_low.q.val()) << self.status_word_at[4].val())
            | (bit_cast::<STATUS_WORD_BITS, 16>(self.overflow_high.q.val()) << (self.status_word_at[4].val() + 16))
            | (bit_cast::<STATUS_WORD_BITS, 16>(self.partial_low.q.val()) << self.status_word_at[5].val())
            | (bit_cast::<STATUS_WORD_BITS, 16>(self.partial_high.q.val()) << (self.status_word_at[5].val() + 16));
        self.load_while_storing.next = false;
        match self.state.q.val() {
            BusState::Idle => {
                self.packet_ended.d.next = false;
                if self.s_axis_tvalid.val() {
                    self.current.d.next = self.s_axis_tdest.val();
                    self.state.d.next = BusState::Loading;
                }
            }
            BusState::Between => {
                if self.current_stop_requested.q.val() {
                    // the stream stops here: its context goes back, the packet's rest is discarded
                    self.stopping.d.next = true;
                    self.state.d.next = BusState::Storing;
                }
            }
            BusState::Storing => {
                self.context_ram.write_enable.next = true;
                self.mid_message.write_enable.next = true;
                self.status_ram.write_enable.next = true;
                self.immediate_high.d.next = self.immediate_high_next.val();
                self.immediate_pending.d.next = false;
                self.state.d.next = BusState::Between;
                if self.receiving.q.val() {
                    self.state.d.next = BusState::Receiving;
                }
                if self.dropping.q.val() {
                    self.state.d.next = BusState::Dropping;
                }
                // after the packet's end the same stream's next packet goes on at once, and
                // another stream's loads (its context written back in this cycle)
                if self.packet_ended.q.val() {
                    self.packet_ended.d.next = false;
                    if !self.s_axis_tvalid.val() {
                        self.state.d.next = BusState::Idle;
                    } else if self.s_axis_tdest.val() != self.current.q.val() {
                        self.current.d.next = self.s_axis_tdest.val();
                        self.state.d.next = BusState::Loading;
                        self.load_while_storing.next = !self.stopping.q.val();
                    }
                }
                // the stream stops: here, or at its packet's end between messages (a stop asked
                // for while the packet ran)
                if self.stopping.q.val()
                    || (self.packet_ended.q.val()
                        && self.current_stop_requested.q.val()
                        && !self.receiving.q.val()
                        && !self.dropping.q.val())
                {
                    self.running_streams.d.next = self.running_streams.q.val().replace_bit(self.current_index.val().index(), false);
                    self.stop_requested_streams.d.next = self
                        .stop_requested_streams
                        .q
                        .val()
                        .replace_bit(self.current_index.val().index(), false);
                }
                if self.stopping.q.val() {
                    self.stopping.d.next = false;
                    self.state.d.next = BusState::Discarding;
                    if self.packet_ended.q.val() {
                        self.state.d.next = BusState::Idle;
                    }
                }
            }
            _ => {}
        }

        // ---- loading: the stream's settings and context, then three cycles to settle ----
        // (at the packet's stream: in `Loading` it is the current one)
        self.settings_ram.read_address.next = self.packet_index.val();
        self.context_ram.read_address.next = self.packet_index.val();
        self.settings_read.next = self.settings_ram.read_data.val();
        self.context_read.next = self.context_ram.read_data.val();
        if self.state.q.val() == BusState::Loading || self.load_while_storing.val() {
            self.slot_last_beat.d.next = self.settings_read.val().get_bits::<16>(self.settings_word_at[0].val().index());
            self.room_limit.d.next = self.settings_read.val().get_bits::<PB>(self.settings_word_at[1].val().index());
            self.exact_limit.d.next = self.settings_read.val().get_bits::<PB>(self.settings_word_at[2].val().index());
            self.last_slot.d.next = self.settings_read.val().get_bits::<16>(self.settings_word_at[3].val().index());
            self.slot_and_wrap.d.next = self.settings_read.val().get_bit(self.settings_word_at[4].val().index());
            self.end_at_tlast.d.next = self.settings_read.val().get_bit(self.settings_word_at[5].val().index());
            self.length_bits.d.next = self.settings_read.val().get_bits::<6>(self.settings_word_at[6].val().index());
            self.drop_on_overflow.d.next = self.settings_read.val().get_bit(self.settings_word_at[7].val().index());
            self.solicited_last.d.next = self.settings_read.val().get_bits::<16>(self.settings_word_at[8].val().index());
            self.solicited_never.d.next = self.settings_read.val().get_bit(self.settings_word_at[9].val().index());
            self.immediate_step.d.next = self.settings_read.val().get_bits::<32>(self.settings_word_at[10].val().index());
            self.slot_field_mask.d.next = self.settings_read.val().get_bits::<32>(self.settings_word_at[11].val().index());
            self.immediate_step_carried.d.next = self.settings_read.val().get_bits::<16>(self.settings_word_at[12].val().index());
            self.receiving.d.next = self.context_read.val().get_bit(self.context_word_at[0].val().index());
            self.dropping.d.next = self.context_read.val().get_bit(self.context_word_at[1].val().index());
            self.message_beats.d.next = self.context_read.val().get_bits::<16>(self.context_word_at[2].val().index());
            self.beats_left.d.next = self.context_read.val().get_bits::<16>(self.context_word_at[3].val().index());
            self.write_position.d.next = self.context_read.val().get_bits::<PB>(self.context_word_at[4].val().index());
            self.message_start.d.next = self.context_read.val().get_bits::<PB>(self.context_word_at[5].val().index());
            self.sequence_low.d.next = self.context_read.val().get_bits::<16>(self.context_word_at[6].val().index());
            self.sequence_high.d.next = self.context_read.val().get_bits::<16>(self.context_word_at[7].val().index());
            self.slot.d.next = self.context_read.val().get_bits::<16>(self.context_word_at[8].val().index());
            self.immediate_low.d.next = self.context_read.val().get_bits::<16>(self.context_word_at[9].val().index());
            self.immediate_high.d.next = self.context_read.val().get_bits::<16>(self.context_word_at[10].val().index());
            self.solicited_count.d.next = self.context_read.val().get_bits::<16>(self.context_word_at[11].val().index());
            self.messages_low.d.next = self.context_read.val().get_bits::<16>(self.context_word_at[12].val().index());
            self.messages_high.d.next = self.context_read.val().get_bits::<16>(self.context_word_at[13].val().index());
            self.overflow_low.d.next = self.context_read.val().get_bits::<16>(self.context_word_at[14].val().index());
            self.overflow_high.d.next = self.context_read.val().get_bits::<16>(self.context_word_at[15].val().index());
            self.partial_low.d.next = self.context_read.val().get_bits::<16>(self.context_word_at[16].val().index());
            self.partial_high.d.next = self.context_read.val().get_bits::<16>(self.context_word_at[17].val().index());
            self.wait_count.d.next = 2.into();
            self.state.d.next = BusState::Waiting;
        }
        if self.state.q.val() == BusState::Waiting {
            self.wait_count.d.next = self.wait_count.q.val() - 1;
            if self.wait_count.q.val() == 2 && self.loading_running.q.val() {
                // configured since its last packet: message 0, slot 0, nothing held
                if self.loading_fresh.q.val() {
                    self.write_position.d.next = self.released_for_current.read_data.val();
                    self.message_start.d.next = self.released_for_current.read_data.val();
                    self.receiving.d.next = false;
                    self.dropping.d.next = false;
                    self.message_beats.d.next = 0.into();
                    self.beats_left.d.next = self.slot_last_beat.q.val();
                    self.sequence_low.d.next = 0.into();
                    self.sequence_high.d.next = 0.into();
                    self.slot.d.next = 0.into();
                    self.immediate_low.d.next = 0.into();
                    self.immediate_high.d.next = 0.into();
                    self.solicited_count.d.next = 0.into();
                    self.fresh_streams.d.next = self.fresh_streams.q.val().replace_bit(self.current_index.val().index(), false);
                }
                // first loaded since reset: its counters from 0
                if !self.loading_counted.q.val() {
                    self.messages_low.d.next = 0.into();
                    self.messages_high.d.next = 0.into();
                    self.overflow_low.d.next = 0.into();
                    self.overflow_high.d.next = 0.into();
                    self.partial_low.d.next = 0.into();
                    self.partial_high.d.next = 0.into();
                    self.counted_streams.d.next = self.counted_streams.q.val().replace_bit(self.current_index.val().index(), true);
                }
                // a packet that goes on with a message in progress needs no room: it starts now
                if !self.loading_fresh.q.val() {
                    if self.receiving.q.val() {
                        self.state.d.next = BusState::Receiving;
                    }
                    if self.dropping.q.val() {
                        self.state.d.next = BusState::Dropping;
                    }
                }
            }
            if self.wait_count.q.val() == 0 {
                self.state.d.next = BusState::Between;
                if self.receiving.q.val() {
                    self.state.d.next = BusState::Receiving;
                }
                if self.dropping.q.val() {
                    self.state.d.next = BusState::Dropping;
                }
                if !self.current_running.q.val() {
                    self.state.d.next = BusState::Discarding;
                }
            }
        }

        // ---- releases: the stream's released position moves on (all three copies) ----
        self.release_pending.d.next = self.release_valid.val();
        self.release_stream_registered.d.next = self.release_stream.val();
        self.release_beats_registered.d.next = self.release_beats.val();
        self.released_for_release.read_address.next = bit_cast::<SB, 8>(self.release_stream_registered.q.val());
        self.released_read.d.next = self.released_for_release.read_data.val();
        self.release_adding.d.next = self.release_pending.q.val();
        self.release_adding_stream.d.next = self.release_stream_registered.q.val();
        self.release_adding_beats.d.next = self.release_beats_registered.q.val();
        // the stream's position was being written as it was read: the sum written instead
        self.release_forward.d.next =
            self.release_adding.q.val() && self.release_adding_stream.q.val() == self.release_stream_registered.q.val();
        self.release_sum.next = self.released_read.q.val() + bit_cast::<PB, BEAT_BITS>(self.release_adding_beats.q.val());
        if self.release_forward.q.val() {
            self.release_sum.next = self.release_last_sum.q.val() + bit_cast::<PB, BEAT_BITS>(self.release_adding_beats.q.val());
        }
        self.release_last_sum.d.next = self.release_sum.val();
        self.released_for_release.write_address.next = bit_cast::<SB, 8>(self.release_adding_stream.q.val());
        self.released_for_release.write_data.next = self.release_sum.val();
        self.released_for_release.write_enable.next = self.release_adding.q.val();
        self.released_for_current.write_address.next = bit_cast::<SB, 8>(self.release_adding_stream.q.val());
        self.released_for_current.write_data.next = self.release_sum.val();
        self.released_for_current.write_enable.next = self.release_adding.q.val();
        self.released_for_status.write_address.next = bit_cast::<SB, 8>(self.release_adding_stream.q.val());
        self.released_for_status.write_data.next = self.release_sum.val();
        self.released_for_status.write_enable.next = self.release_adding.q.val();

        // ---- commands (`BusCommands`): the settings kept, streams started and stopped ----
        self.commands.command_valid.next = self.command_valid.val();
        self.commands.command_stream.next = self.command_stream.val();
        self.commands.command_code.next = self.command_code.val();
        self.commands.command_settings.next = self.command_settings.val();
        self.commands.reset.next = self.reset.val();
        self.commands.stopped.next = !self
            .running_streams
            .q
            .val()
            .get_bit(bit_cast::<SB, 8>(self.commands.registered_stream.val()).index());
        self.commands.configured.next = self
            .configured_streams
            .q
            .val()
            .get_bit(bit_cast::<SB, 8>(self.commands.registered_stream.val()).index())
            || (self.commands.configure.val() && self.commands.stream.val() == self.commands.registered_stream.val());
        self.solicited_last_command.next = self.commands.settings.val().get_bits::<16>(self.settings_at[4].val().index()) - 1;
        self.settings_ram.write_address.next = bit_cast::<SB, 8>(self.commands.stream.val());
        self.settings_ram.write_enable.next = self.commands.configure.val();
        self.settings_ram.write_data.next = (bit_cast::<SETTINGS_WORD_BITS, 16>(self.commands.slot_last_beat.val())
            << self.settings_word_at[0].val())
            | (bit_cast::<SETTINGS_WORD_BITS, 16>(bit_cast::<16, 17>(self.commands.room_limit.val())) << self.settings_word_at[1].val())
            | (bit_cast::<SETTINGS_WORD_BITS, 16>(bit_cast::<16, 17>(self.commands.exact_limit.val())) << self.settings_word_at[2].val())
            | (bit_cast::<SETTINGS_WORD_BITS, 16>(self.commands.settings.val().get_bits::<16>(self.settings_at[3].val().index()))
                << self.settings_word_at[3].val())
            | (bit_cast::<SETTINGS_WORD_BITS, 1>(self.commands.settings.val().get_bits::<1>(self.settings_at[0].val().index()))
                << self.settings_word_at[4].val())
            | (bit_cast::<SETTINGS_WORD_BITS, 1>(self.commands.settings.val().get_bits::<1>(self.settings_at[1].val().index()))
                << self.settings_word_at[5].val())
            | (bit_cast::<SETTINGS_WORD_BITS, 6>(self.commands.length_bits.val()) << self.settings_word_at[6].val())
            | (bit_cast::<SETTINGS_WORD_BITS, 1>(self.commands.settings.val().get_bits::<1>(self.settings_at[2].val().index()))
                << self.settings_word_at[7].val())
            | (bit_cast::<SETTINGS_WORD_BITS, 16>(self.solicited_last_command.val()) << self.settings_word_at[8].val())
            | (bit_cast::<SETTINGS_WORD_BITS, 32>(self.commands.immediate_step.val()) << self.settings_word_at[10].val())
            | (bit_cast::<SETTINGS_WORD_BITS, 32>(self.commands.slot_field_mask.val()) << self.settings_word_at[11].val())
            | (bit_cast::<SETTINGS_WORD_BITS, 16>(self.commands.immediate_step_carried.val()) << self.settings_word_at[12].val());
        if self.commands.settings.val().get_bits::<16>(self.settings_at[4].val().index()) == 0 {
            self.settings_ram.write_data.next = self
                .settings_ram
                .write_data
                .val()
                .replace_bit(self.settings_word_at[9].val().index(), true);
        }
        if self.commands.configure.val() {
            self.configured_streams.d.next = self
                .configured_streams
                .q
                .val()
                .replace_bit(bit_cast::<SB, 8>(self.commands.stream.val()).index(), true);
            self.fresh_streams.d.next = self
                .fresh_streams
                .d
                .val()
                .replace_bit(bit_cast::<SB, 8>(self.commands.stream.val()).index(), true);
        }
        // a start runs the stream; a stop of a running one takes effect at once between its
        // messages and its packets, else is asked for
        self.mid_message.read_address.next = bit_cast::<SB, 8>(self.commands.stream.val());
        self.stop_running.next = self.commands.stop.val()
            && self
                .running_streams
                .q
                .val()
                .get_bit(bit_cast::<SB, 8>(self.commands.stream.val()).index());
        self.stop_at_once.next = self.stop_running.val()
            && ((self.mid_message.read_data.val() == 0)
                || self
                    .fresh_streams
                    .q
                    .val()
                    .get_bit(bit_cast::<SB, 8>(self.commands.stream.val()).index()))
            && (self.state.q.val() == BusState::Idle || self.current.q.val() != self.commands.stream.val());
        if self.commands.start.val() || self.stop_at_once.val() {
            self.running_streams.d.next = self
                .running_streams
                .d
                .val()
                .replace_bit(bit_cast::<SB, 8>(self.commands.stream.val()).index(), self.commands.start.val());
        }
        if self.commands.start.val() || self.stop_running.val() {
            self.stop_requested_streams.d.next = self.stop_requested_streams.d.val().replace_bit(
                bit_cast::<SB, 8>(self.commands.stream.val()).index(),
                self.stop_running.val() && !self.stop_at_once.val(),
            );
        }
        self.command_result_valid.next = self.commands.result_valid.val();
        self.command_result_code.next = self.commands.result_code.val();

        // ---- status of one stream: read, then masked and worked out ----
        self.status_ram.read_address.next = bit_cast::<SB, 8>(self.status_stream.val());
        self.released_for_status.read_address.next = bit_cast::<SB, 8>(self.status_stream.val());
        self.status_word.d.next = self.status_ram.read_data.val();
        self.status_released.d.next = self.released_for_status.read_data.val();
        self.status_fresh.d.next = self
            .fresh_streams
            .q
            .val()
            .get_bit(bit_cast::<SB, 8>(self.status_stream.val()).index());
        self.status_counted.d.next = self
            .counted_streams
            .q
            .val()
            .get_bit(bit_cast::<SB, 8>(self.status_stream.val()).index());
        self.status_running_read.d.next = self
            .running_streams
            .q
            .val()
            .get_bit(bit_cast::<SB, 8>(self.status_stream.val()).index());
        self.status_running_out.d.next = self.status_running_read.q.val();
        self.status_sequence_out.d.next = 0.into();
        self.status_slot_out.d.next = 0.into();
        self.status_held_out.d.next = 0.into();
        if !self.status_fresh.q.val() && self.status_counted.q.val() {
            self.status_sequence_out.d.next = self.status_word.q.val().get_bits::<32>(self.status_word_at[0].val().index());
            self.status_slot_out.d.next = self.status_word.q.val().get_bits::<16>(self.status_word_at[1].val().index());
            self.status_held_out.d.next =
                self.status_word.q.val().get_bits::<PB>(self.status_word_at[2].val().index()) - self.status_released.q.val();
        }
        self.status_messages_out.d.next = 0.into();
        self.status_overflow_out.d.next = 0.into();
        self.status_partial_out.d.next = 0.into();
        if self.status_counted.q.val() {
            self.status_messages_out.d.next = self.status_word.q.val().get_bits::<32>(self.status_word_at[3].val().index());
            self.status_overflow_out.d.next = self.status_word.q.val().get_bits::<32>(self.status_word_at[4].val().index());
            self.status_partial_out.d.next = self.status_word.q.val().get_bits::<32>(self.status_word_at[5].val().index());
        }
        self.status_running.next = self.status_running_out.q.val();
        self.status_next_sequence.next = self.status_sequence_out.q.val();
        self.status_next_slot.next = self.status_slot_out.q.val();
        self.status_held_beats.next = bit_cast::<POSITION_BITS, PB>(self.status_held_out.q.val());
        self.status_messages.next = self.status_messages_out.q.val();
        self.status_dropped_overflow.next = self.status_overflow_out.q.val();
        self.status_dropped_partial_beat.next = self.status_partial_out.q.val();

        // ---- outputs, the FIFO of records, counters ----
        self.records.pop.next = self.records.head_valid.val() && self.m_message_ready.val();
        self.m_message_valid.next = self.records.head_valid.val();
        self.m_message_entry.next = self.records.head.val().get_bits::<STREAM_MESSAGE_BITS>(0);
        self.m_message_stream.next = self.records.head.val().get_bits::<8>(self.record_stream_at.val().index());
        self.discarded_beats.next = self.discarded_counter.count.val();
        self.records.reset.next = self.reset.val();
        self.discarded_counter.reset.next = self.reset.val();
        if self.reset.val() {
            self.state.d.next = BusState::Idle;
            self.stopping.d.next = false;
            self.packet_ended.d.next = false;
            self.running_streams.d.next = 0.into();
            self.stop_requested_streams.d.next = 0.into();
            self.configured_streams.d.next = 0.into();
            self.fresh_streams.d.next = 0.into();
            self.counted_streams.d.next = 0.into();
            self.release_pending.d.next = false;
            self.release_adding.d.next = false;
        }
    }
}
