//! Stream port contracts: the settings a stream port takes ([`STREAM_SETTINGS`]), the record of
//! each message it has whole in its buffer ([`STREAM_MESSAGE`]), its commands and their
//! refusals ([`StreamCommand`], [`StreamRefusal`]) and why it drops a message ([`StreamDrop`]).
//!
//! A stream port cuts an AXI-Stream into messages of one remote slot each (or shorter, ended by
//! `tlast`), keeps each message in its buffer until whoever sends it releases the buffer space,
//! and gives each its sequence number, slot, wrap count and immediate. Its behaviour and the
//! immediate's format are those of the golden model (`ferroce_models::stream`).

use crate::regs::Map;
use crate::schema::Schema;
use crate::tx::PostOp;

/// The most slots a ring has: the slot index is 16 bits.
pub const MAX_SLOTS: u32 = 1 << 16;
/// The largest slot in bytes (1 MiB).
pub const MAX_SLOT_BYTES: u32 = 1 << 20;

/// Channels each stream of a stream bus owns: stream `s` posts on `bus_first_channel(base, s)`
/// and the channels after it (its channel count, 1, 2 or 4, of these). The bus's channels start
/// at a multiple of 4 × its streams, so a completion's channel names its stream and place in
/// its low bits.
pub const BUS_STREAM_CHANNELS: u32 = 4;

/// The first channel of stream `stream` of a stream bus whose channels start at `channel_base`.
pub const fn bus_first_channel(channel_base: u32, stream: u32) -> u32 {
    channel_base + stream * BUS_STREAM_CHANNELS
}

/// The first channel of an engine's stream bus of `streams` streams: the bus owns the top
/// `4 × streams` of the engine's `channels` (powers of two, so a multiple of 4 × streams), the
/// host's posts the channels below.
pub const fn bus_channel_base(channels: u32, streams: u32) -> u32 {
    channels - streams * BUS_STREAM_CHANNELS
}

/// The beat of the stream window at which a stream bus's sender posts a message whose record
/// gives `buffer_beat` (the bus buffer's beat) in regions of `2^region_bits` beats: the region of
/// stream s is at window beat `s · 2^(region_bits + 1)`, twice its size from the next, so the TX
/// path's reads of a message that passes its region's end stay in the stream's window, where
/// the reader takes them from the region's start (as it does a port's buffer).
pub const fn bus_window_beat(buffer_beat: u32, region_bits: u32) -> u32 {
    ((buffer_beat >> region_bits) << (region_bits + 1)) | (buffer_beat & ((1 << region_bits) - 1))
}

/// The operation of a stream's posts: each message one RDMA WRITE with immediate wherever the
/// TX path's blocks fall, so the receiver's one completion means the whole slot has come.
pub const MESSAGE_OP: PostOp = PostOp::WriteImmMessage;

/// The fields of a stream's settings, in packing order (see [`crate::schema`]).
pub mod settings {
    use crate::schema::RecordField;

    const fn f(name: &'static str, width: usize, doc: &'static str) -> RecordField {
        RecordField::new(name, width, doc)
    }

    /// Slot size.
    pub const SLOT_BYTES: RecordField = f(
        "slot_bytes",
        21,
        "bytes of a slot: a non-zero multiple of the port's beat, at most half its buffer and 1 MiB",
    );
    /// Slot count minus one.
    pub const LAST_SLOT: RecordField = f("last_slot", 16, "slots in the ring minus one (1 to 65,536 slots)");
    /// Immediate format.
    pub const SLOT_AND_WRAP: RecordField = f(
        "slot_and_wrap",
        1,
        "the immediate counts {wraps, slot} (the slot in the low bits that hold last_slot), else the sequence number",
    );
    /// Message end.
    pub const END_AT_TLAST: RecordField = f(
        "end_at_tlast",
        1,
        "a message ends at tlast or a full slot, whichever comes first (else at a full slot; tlast is ignored)",
    );
    /// Length bits of the immediate.
    pub const LENGTH_BITS: RecordField = f(
        "length_bits",
        6,
        "with end_at_tlast: the immediate's low bits that carry the message's length (0: none; else enough for a full slot, at most 32)",
    );
    /// Drop on overflow.
    pub const DROP_ON_OVERFLOW: RecordField = f(
        "drop_on_overflow",
        1,
        "a message that starts when the buffer has no slot's room is dropped whole and counted (else the port holds tready low)",
    );
    /// Solicited every M messages.
    pub const SOLICITED_EVERY: RecordField = f(
        "solicited_every",
        16,
        "the solicited-event bit on messages M - 1, 2M - 1, ... (0: never)",
    );

    /// Every field, in packing order.
    pub const FIELDS: [RecordField; 7] = [
        SLOT_BYTES,
        LENGTH_BITS,
        SLOT_AND_WRAP,
        END_AT_TLAST,
        DROP_ON_OVERFLOW,
        LAST_SLOT,
        SOLICITED_EVERY,
    ];
}

/// A stream's settings: one packed entry (the `configure` command's operand).
pub const STREAM_SETTINGS: Schema = Schema {
    name: "stream_settings",
    fields: &settings::FIELDS,
};

/// Bits of a settings entry.
pub const STREAM_SETTINGS_BITS: usize = 64;

/// The fields of a message record, in packing order.
pub mod message {
    use crate::schema::RecordField;

    const fn f(name: &'static str, width: usize, doc: &'static str) -> RecordField {
        RecordField::new(name, width, doc)
    }

    /// First beat in the buffer.
    pub const BUFFER_BEAT: RecordField = f("buffer_beat", 16, "the buffer entry (beat) that holds the message's first byte");
    /// Beats.
    pub const BEATS: RecordField = f("beats", 16, "buffer beats the message holds (release them when it is sent)");
    /// Length.
    pub const LENGTH: RecordField = f("length", 21, "bytes (1 to the slot size)");
    /// Solicited event.
    pub const SOLICITED: RecordField = f("solicited", 1, "set the solicited-event bit");
    /// Sequence number.
    pub const SEQUENCE: RecordField = f("sequence", 32, "the message's number in the stream from 0, modulo 2^32");
    /// Slot.
    pub const SLOT: RecordField = f("slot", 16, "the remote slot: sequence modulo the slot count");
    /// Immediate.
    pub const IMMEDIATE: RecordField = f("immediate", 32, "the immediate data of its RDMA WRITE with immediate");

    /// Every field, in packing order.
    pub const FIELDS: [RecordField; 7] = [BUFFER_BEAT, BEATS, LENGTH, SOLICITED, SEQUENCE, SLOT, IMMEDIATE];
}

/// A message whole in the buffer: one packed entry.
pub const STREAM_MESSAGE: Schema = Schema {
    name: "stream_message",
    fields: &message::FIELDS,
};

/// Bits of a message record.
pub const STREAM_MESSAGE_BITS: usize = 160;

/// What a stream writes and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamSettings {
    /// The QP its WRITEs go on (its context holds the destination and the R_Key).
    pub qp: u32,
    /// The scheduler queue of its posts.
    pub queue: u32,
    /// The first of its channels (a multiple of `channels`).
    pub first_channel: u32,
    /// Channels: 1, 2 or 4 (messages in flight at once).
    pub channels: u32,
    /// The remote address of slot 0.
    pub base_va: u64,
    /// Bytes of a slot.
    pub slot_bytes: u32,
    /// Slots in the ring.
    pub slots: u32,
    /// The immediate counts `{wraps, slot}` (else the sequence number).
    pub slot_and_wrap: bool,
    /// Messages end at `tlast` (or a full slot), with the length in the immediate's low
    /// `length_bits` bits (0: none).
    pub end_at_tlast: Option<u32>,
    /// A message that finds no room is dropped whole (else the port holds `tready` low).
    pub drop_on_overflow: bool,
    /// The solicited-event bit on every M-th message (0: never).
    pub solicited_every: u32,
}

impl StreamSettings {
    /// The values of the stream's setting registers (`stream_slot` to `stream_va_high` of the
    /// map's `stream` block), by register name, in the order a host writes them before
    /// `configure`.
    pub fn register_words(&self, map: &Map) -> [(&'static str, u32); 7] {
        let value = |register: &str, fields: &[(&str, u32)]| {
            let r = map.reg(register);
            fields
                .iter()
                .fold(0, |v, (name, value)| r.field(name).expect("a stream setting field").set(v, *value))
        };
        let (length_bits, end_at_tlast) = (self.end_at_tlast.unwrap_or(0), u32::from(self.end_at_tlast.is_some()));
        [
            ("stream_slot", value("stream_slot", &[("slot_bytes", self.slot_bytes)])),
            (
                "stream_ring",
                value(
                    "stream_ring",
                    &[("last_slot", self.slots - 1), ("solicited_every", self.solicited_every)],
                ),
            ),
            (
                "stream_format",
                value(
                    "stream_format",
                    &[
                        ("length_bits", length_bits),
                        ("slot_and_wrap", u32::from(self.slot_and_wrap)),
                        ("end_at_tlast", end_at_tlast),
                        ("drop_on_overflow", u32::from(self.drop_on_overflow)),
                    ],
                ),
            ),
            ("stream_target", value("stream_target", &[("qp", self.qp), ("queue", self.queue)])),
            (
                "stream_channels",
                value(
                    "stream_channels",
                    &[("first_channel", self.first_channel), ("channel_mask", self.channels - 1)],
                ),
            ),
            ("stream_va_low", self.base_va as u32),
            ("stream_va_high", (self.base_va >> 32) as u32),
        ]
    }
}

/// Bits of a command code and of a refusal code.
pub const STREAM_CODE_BITS: usize = 3;

/// A command to a stream port. The discriminant is the code on its `command_code` port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum StreamCommand {
    /// Take the settings on `command_settings`; the stream restarts at message 0, slot 0 (0).
    Configure = 0,
    /// Start taking data (1).
    Start = 1,
    /// Stop taking data once the message in progress has ended (2).
    Stop = 2,
}

/// Why a stream port refused a command. The discriminant is its result code (0: done).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum StreamRefusal {
    /// Configure while the stream runs (or has not yet ended its message after a stop) (1).
    Running = 1,
    /// The slot size is 0 or not a multiple of the port's beat (2).
    SlotNotMultipleOfBeat = 2,
    /// The slot is over half the port's buffer (two slots must fit) or over 1 MiB (3).
    SlotTooLarge = 3,
    /// `end_at_tlast` with length bits that cannot hold a full slot's length, or over 32 (4).
    LengthBitsTooFew = 4,
    /// Start before any settings were taken (5).
    NotConfigured = 5,
    /// An unknown command code (6).
    UnknownCommand = 6,
    /// On a stream bus: the first channel is not the stream's own (`bus_first_channel`), or the
    /// channel mask is 2 (7).
    ChannelsNotTheStreams = 7,
}

impl StreamRefusal {
    /// Every refusal.
    pub const ALL: [StreamRefusal; 7] = [
        StreamRefusal::Running,
        StreamRefusal::SlotNotMultipleOfBeat,
        StreamRefusal::SlotTooLarge,
        StreamRefusal::LengthBitsTooFew,
        StreamRefusal::NotConfigured,
        StreamRefusal::UnknownCommand,
        StreamRefusal::ChannelsNotTheStreams,
    ];

    /// The code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The refusal of a code, if it is one.
    pub fn from_code(code: u8) -> Option<StreamRefusal> {
        Self::ALL.into_iter().find(|r| r.code() == code)
    }

    /// snake_case name.
    pub const fn name(self) -> &'static str {
        match self {
            StreamRefusal::Running => "running",
            StreamRefusal::SlotNotMultipleOfBeat => "slot_not_multiple_of_beat",
            StreamRefusal::SlotTooLarge => "slot_too_large",
            StreamRefusal::LengthBitsTooFew => "length_bits_too_few",
            StreamRefusal::NotConfigured => "not_configured",
            StreamRefusal::UnknownCommand => "unknown_command",
            StreamRefusal::ChannelsNotTheStreams => "channels_not_the_streams",
        }
    }
}

/// Why a stream port dropped a message (each has a counter). A dropped message keeps its
/// sequence number and slot, so the receiver sees a gap where it would have been.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StreamDrop {
    /// `drop_on_overflow`: the message started when the buffer had no slot's room.
    Overflow,
    /// A beat with bytes missing (`tkeep` not all ones) that did not end the message at
    /// `tlast`: the message it was part of, up to that beat.
    PartialBeat,
}

impl StreamDrop {
    /// Every reason.
    pub const ALL: [StreamDrop; 2] = [StreamDrop::Overflow, StreamDrop::PartialBeat];

    /// snake_case name (the counter port is `dropped_<name>`).
    pub const fn name(self) -> &'static str {
        match self {
            StreamDrop::Overflow => "overflow",
            StreamDrop::PartialBeat => "partial_beat",
        }
    }
}

/// What a port with `beat_bytes`-byte beats and a buffer of `buffer_beats` beats refuses in
/// `settings` (the fields of [`STREAM_SETTINGS`] as values), if anything: the check the RTL
/// makes on `Configure`, for hosts and models.
pub fn check_settings(slot_bytes: u32, end_at_tlast: bool, length_bits: u32, beat_bytes: u32, buffer_beats: u32) -> Option<StreamRefusal> {
    if slot_bytes == 0 || !slot_bytes.is_multiple_of(beat_bytes) {
        return Some(StreamRefusal::SlotNotMultipleOfBeat);
    }
    if slot_bytes > MAX_SLOT_BYTES || slot_bytes / beat_bytes > buffer_beats / 2 {
        return Some(StreamRefusal::SlotTooLarge);
    }
    if end_at_tlast && (length_bits > 32 || (length_bits != 0 && u64::from(slot_bytes) >> length_bits != 0)) {
        return Some(StreamRefusal::LengthBitsTooFew);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_pack_into_their_widths() {
        assert_eq!(STREAM_SETTINGS.bits(), STREAM_SETTINGS_BITS);
        assert_eq!(STREAM_MESSAGE.bits(), STREAM_MESSAGE_BITS);
    }

    #[test]
    fn refusal_codes_round_trip() {
        for r in StreamRefusal::ALL {
            assert_eq!(StreamRefusal::from_code(r.code()), Some(r));
        }
        assert_eq!(StreamRefusal::from_code(0), None);
    }

    #[test]
    fn settings_checks() {
        assert_eq!(check_settings(4096, false, 0, 64, 512), None);
        assert_eq!(
            check_settings(4096 + 4, false, 0, 64, 512),
            Some(StreamRefusal::SlotNotMultipleOfBeat)
        );
        assert_eq!(check_settings(0, false, 0, 64, 512), Some(StreamRefusal::SlotNotMultipleOfBeat));
        assert_eq!(check_settings(64 * 257, false, 0, 64, 512), Some(StreamRefusal::SlotTooLarge));
        assert_eq!(check_settings(4096, true, 12, 64, 512), Some(StreamRefusal::LengthBitsTooFew));
        assert_eq!(check_settings(4096, true, 13, 64, 512), None);
        assert_eq!(check_settings(4096, true, 0, 64, 512), None);
        assert_eq!(check_settings(4096, true, 33, 64, 512), Some(StreamRefusal::LengthBitsTooFew));
        assert_eq!(check_settings(4096, false, 5, 64, 512), None, "length bits only count with tlast");
    }
}
