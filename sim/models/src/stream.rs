//! Streaming into remote memory with no CPU: the golden model of what a stream port sends.
//!
//! A stream port takes an AXI-Stream of samples and writes it, message by message, into a
//! **ring of remote slots** over one QP: message n is one RDMA WRITE with immediate into slot
//! `n mod slots`, so the receiver learns from each receive completion's immediate which data
//! arrived (on UC a message with a lost packet is dropped whole by the receiver, and its number
//! is simply missing).
//!
//! This module holds the parts a user sees on the wire and in the remote memory, independent of
//! how the engine buffers a stream:
//! - [`StreamConfig`]: the ring (base VA, R_Key, slot size, slot count), the immediate's format,
//!   where a message ends (at the slot size, or at `tlast`), how often the solicited-event bit
//!   is set, the rate; [`StreamConfig::check`] refuses settings that cannot work, with a reason.
//! - [`StreamCutter`]: bytes in (with `tlast`), [`StreamMessage`]s out: their slot, remote
//!   address, length, immediate and solicited bit, and their bytes.
//! - [`Pacer`]: the cycle each packet of a stream may start at a set rate, with no burst above
//!   it: a stream that was idle gains no credit, one that is backlogged leaves exactly at the
//!   rate (a virtual clock in fixed point, [`PACER_FRACTION_BITS`] bits of a cycle).

use ferroce_contracts::stream::StreamDrop;
use std::fmt;

/// The largest slot: 1 MiB.
pub const MAX_SLOT_BYTES: u32 = 1 << 20;

/// Fraction bits of the pacer's cycles per byte and of its virtual clock.
pub use ferroce_contracts::sched::PACE_FRACTION_BITS as PACER_FRACTION_BITS;

/// What a message's immediate counts (before a `tlast`-mode length is put in its low bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ImmediateFormat {
    /// The message's sequence number, from 0, modulo 2^32.
    #[default]
    Sequence,
    /// `{wrap count, slot index}`: the slot in the low [`StreamConfig::slot_bits`] bits, the
    /// number of times the ring wrapped above them (modulo 2^32).
    SlotAndWrap,
}

/// Where a message ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MessageEnd {
    /// Every message fills its slot (`tlast` is ignored).
    #[default]
    Slot,
    /// A message ends at `tlast` or when its slot is full, whichever comes first. The
    /// immediate's low `length_bits` bits carry the message's length in bytes (0: the length is
    /// not carried; the receiver's completion has it anyway), the format's value above them.
    Tlast {
        /// Bits of the immediate that carry the length: 0, or enough for a full slot.
        length_bits: u32,
    },
}

/// A stream's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamConfig {
    /// The QP the stream writes on.
    pub qp: u32,
    /// The remote address of slot 0.
    pub base_va: u64,
    /// The R_Key of the remote region that holds the ring.
    pub rkey: u32,
    /// Bytes of a slot: a multiple of 4, at most [`MAX_SLOT_BYTES`].
    pub slot_bytes: u32,
    /// Slots in the ring (any count from 1, not only powers of two).
    pub slots: u32,
    /// What the immediate counts.
    pub immediate: ImmediateFormat,
    /// Where a message ends.
    pub end: MessageEnd,
    /// The solicited-event bit on every M-th message (messages M − 1, 2M − 1, …); 0: never.
    pub solicited_every: u32,
    /// Payload bytes per second the stream may send (the pacer's rate; not 0).
    pub rate_bytes_per_second: u64,
}

/// Why a stream's settings are refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamConfigError {
    /// The slot size is 0 or not a multiple of 4.
    SlotNotMultipleOf4,
    /// The slot size is over [`MAX_SLOT_BYTES`].
    SlotTooLarge,
    /// The ring has no slot.
    NoSlots,
    /// The rate is 0.
    RateZero,
    /// The ring does not lie inside the remote region given.
    RingOutsideRegion,
    /// `tlast` mode's length bits cannot hold a full slot's length (or are over 32).
    LengthBitsTooFew,
}

impl fmt::Display for StreamConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StreamConfigError::SlotNotMultipleOf4 => "the slot size must be a non-zero multiple of 4 bytes",
            StreamConfigError::SlotTooLarge => "the slot size must be at most 1 MiB",
            StreamConfigError::NoSlots => "the ring needs at least one slot",
            StreamConfigError::RateZero => "the rate must not be 0",
            StreamConfigError::RingOutsideRegion => "the ring of slots must lie inside the remote memory region",
            StreamConfigError::LengthBitsTooFew => "the immediate's length bits must hold a full slot's length (at most 32)",
        })
    }
}

impl std::error::Error for StreamConfigError {}

impl StreamConfig {
    /// Bytes the ring spans.
    pub fn ring_bytes(&self) -> u64 {
        u64::from(self.slot_bytes) * u64::from(self.slots)
    }

    /// Bits of the slot index in [`ImmediateFormat::SlotAndWrap`]: enough for `slots − 1`.
    pub fn slot_bits(&self) -> u32 {
        u32::BITS - self.slots.saturating_sub(1).leading_zeros()
    }

    /// The remote address of slot `slot`.
    pub fn slot_va(&self, slot: u32) -> u64 {
        self.base_va.wrapping_add(u64::from(slot) * u64::from(self.slot_bytes))
    }

    /// Refuses settings that cannot work. `region` is the remote region `(base VA, length)`
    /// the R_Key names, when the caller knows it.
    pub fn check(&self, region: Option<(u64, u64)>) -> Result<(), StreamConfigError> {
        if self.slot_bytes == 0 || !self.slot_bytes.is_multiple_of(4) {
            return Err(StreamConfigError::SlotNotMultipleOf4);
        }
        if self.slot_bytes > MAX_SLOT_BYTES {
            return Err(StreamConfigError::SlotTooLarge);
        }
        if self.slots == 0 {
            return Err(StreamConfigError::NoSlots);
        }
        if self.rate_bytes_per_second == 0 {
            return Err(StreamConfigError::RateZero);
        }
        if let MessageEnd::Tlast { length_bits } = self.end {
            let needed = u32::BITS - self.slot_bytes.leading_zeros();
            if length_bits > 32 || (length_bits != 0 && length_bits < needed) {
                return Err(StreamConfigError::LengthBitsTooFew);
            }
        }
        if let Some((base, length)) = region {
            let end = self.base_va.checked_add(self.ring_bytes());
            let region_end = base.checked_add(length);
            match (end, region_end) {
                (Some(end), Some(region_end)) if self.base_va >= base && end <= region_end => {}
                _ => return Err(StreamConfigError::RingOutsideRegion),
            }
        }
        Ok(())
    }
}

/// One message of a stream: one RDMA WRITE with immediate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamMessage {
    /// The message's number in the stream, from 0.
    pub sequence: u64,
    /// Its slot: `sequence mod slots`.
    pub slot: u32,
    /// The slot's remote address.
    pub remote_va: u64,
    /// The immediate it carries.
    pub immediate: u32,
    /// The solicited-event bit.
    pub solicited: bool,
    /// Its bytes (the message's length is theirs).
    pub data: Vec<u8>,
}

/// Cuts a stream into messages.
#[derive(Debug, Clone)]
pub struct StreamCutter {
    config: StreamConfig,
    sequence: u64,
    pending: Vec<u8>,
}

impl StreamCutter {
    /// A cutter at message 0. The settings must pass [`StreamConfig::check`].
    pub fn new(config: StreamConfig) -> Result<StreamCutter, StreamConfigError> {
        config.check(None)?;
        Ok(StreamCutter {
            config,
            sequence: 0,
            pending: Vec::new(),
        })
    }

    /// The settings.
    pub fn config(&self) -> &StreamConfig {
        &self.config
    }

    /// Bytes taken that no message holds yet.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Takes a beat's bytes (`last`: the beat carries `tlast`) and returns the messages they
    /// complete, in order. A `tlast` with no byte since the last message ends nothing.
    pub fn push(&mut self, bytes: &[u8], last: bool) -> Vec<StreamMessage> {
        let slot_bytes = self.config.slot_bytes as usize;
        let mut messages = Vec::new();
        let mut rest = bytes;
        while !rest.is_empty() {
            let take = rest.len().min(slot_bytes - self.pending.len());
            self.pending.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.pending.len() == slot_bytes {
                messages.push(self.finish());
            }
        }
        if last && matches!(self.config.end, MessageEnd::Tlast { .. }) && !self.pending.is_empty() {
            messages.push(self.finish());
        }
        messages
    }

    /// Drops the message in progress (its bytes so far, and it keeps its sequence number, so
    /// the receiver sees the gap); returns its sequence number.
    pub fn drop_message(&mut self) -> u64 {
        self.pending.clear();
        self.sequence += 1;
        self.sequence - 1
    }

    /// The message of the bytes pending.
    fn finish(&mut self) -> StreamMessage {
        let config = &self.config;
        let sequence = self.sequence;
        self.sequence += 1;
        let slots = u64::from(config.slots);
        let slot = (sequence % slots) as u32;
        let counted = match config.immediate {
            ImmediateFormat::Sequence => sequence as u32,
            ImmediateFormat::SlotAndWrap => {
                let wraps = sequence / slots;
                ((wraps << config.slot_bits()) | u64::from(slot)) as u32
            }
        };
        let data = std::mem::take(&mut self.pending);
        let immediate = match config.end {
            MessageEnd::Tlast { length_bits } if length_bits > 0 => {
                let length = data.len() as u64;
                ((u64::from(counted) << length_bits) | length) as u32
            }
            _ => counted,
        };
        let solicited = config.solicited_every != 0 && (sequence + 1).is_multiple_of(u64::from(config.solicited_every));
        StreamMessage {
            sequence,
            slot,
            remote_va: config.slot_va(slot),
            immediate,
            solicited,
            data,
        }
    }
}

/// What a stream port does with a message (`ferroce_contracts::stream`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PortEvent {
    /// The message is whole in the port's buffer.
    Message(StreamMessage),
    /// The message was dropped; its sequence number is not reused.
    Dropped {
        /// Its sequence number.
        sequence: u64,
        /// Why.
        reason: StreamDrop,
    },
}

/// A stream port (`StreamPort` in the RTL) beat by beat, with room in its buffer for every
/// message (a port short of room drops some of these whole, or holds `tready` low): every beat
/// must be whole (all `beat_bytes` bytes) except one that ends a message at `tlast`; a beat
/// with bytes missing anywhere else drops the message it is part of, up to that beat.
#[derive(Debug, Clone)]
pub struct StreamPortModel {
    cutter: StreamCutter,
    beat_bytes: usize,
}

impl StreamPortModel {
    /// A port of `beat_bytes`-byte beats whose settings are `config` (slots a multiple of the
    /// beat: [`ferroce_contracts::stream::check_settings`]).
    pub fn new(config: StreamConfig, beat_bytes: usize) -> Result<StreamPortModel, StreamConfigError> {
        assert!(
            (config.slot_bytes as usize).is_multiple_of(beat_bytes),
            "a port's slot is whole beats"
        );
        Ok(StreamPortModel {
            cutter: StreamCutter::new(config)?,
            beat_bytes,
        })
    }

    /// Takes one beat (its bytes, from lane 0) and says what became of a message it ended.
    pub fn beat(&mut self, bytes: &[u8], last: bool) -> Option<PortEvent> {
        let ends_at_tlast = last && matches!(self.cutter.config().end, MessageEnd::Tlast { .. });
        if bytes.is_empty() && ends_at_tlast && self.cutter.pending() == 0 {
            return None;
        }
        if bytes.len() != self.beat_bytes && !ends_at_tlast {
            return Some(PortEvent::Dropped {
                sequence: self.cutter.drop_message(),
                reason: StreamDrop::PartialBeat,
            });
        }
        let mut messages = self.cutter.push(bytes, last);
        debug_assert!(messages.len() <= 1, "a beat ends one message at most");
        messages.pop().map(PortEvent::Message)
    }

    /// The cutter's settings.
    pub fn config(&self) -> &StreamConfig {
        self.cutter.config()
    }

    /// Bytes of the message in progress (taken into the buffer, no message yet).
    pub fn pending(&self) -> usize {
        self.cutter.pending()
    }
}

/// A stream bus (`StreamBus` in the RTL) packet by packet: `S` streams share one AXI-Stream,
/// each packet (its beats to `tlast`) belongs to the stream its `tdest` names, and each running
/// stream cuts its beats into messages as a [`StreamPortModel`] does, across its packets. The
/// beats of a packet for a stream that is not running (or past the last one) are discarded.
#[derive(Debug, Clone)]
pub struct StreamBusModel {
    streams: Vec<Option<StreamPortModel>>,
    beat_bytes: usize,
    discarded_beats: u64,
}

impl StreamBusModel {
    /// A bus of `streams` streams of `beat_bytes`-byte beats, none running.
    pub fn new(streams: usize, beat_bytes: usize) -> StreamBusModel {
        StreamBusModel {
            streams: vec![None; streams],
            beat_bytes,
            discarded_beats: 0,
        }
    }

    /// Configures `stream` with `config` (from message 0) and starts it.
    pub fn start(&mut self, stream: usize, config: StreamConfig) -> Result<(), StreamConfigError> {
        self.streams[stream] = Some(StreamPortModel::new(config, self.beat_bytes)?);
        Ok(())
    }

    /// Stops `stream` (between its messages).
    pub fn stop(&mut self, stream: usize) {
        self.streams[stream] = None;
    }

    /// Takes a packet of `stream` (each beat's bytes; the last beat carries `tlast`) and says
    /// what became of the messages it ended.
    pub fn packet(&mut self, stream: usize, beats: &[Vec<u8>]) -> Vec<PortEvent> {
        match self.streams.get_mut(stream).and_then(Option::as_mut) {
            Some(port) => beats
                .iter()
                .enumerate()
                .filter_map(|(i, bytes)| port.beat(bytes, i + 1 == beats.len()))
                .collect(),
            None => {
                self.discarded_beats += beats.len() as u64;
                Vec::new()
            }
        }
    }

    /// Bytes of `stream`'s message in progress (0 when it does not run).
    pub fn pending(&self, stream: usize) -> usize {
        self.streams
            .get(stream)
            .and_then(Option::as_ref)
            .map_or(0, StreamPortModel::pending)
    }

    /// Beats of packets discarded, their stream not running.
    pub fn discarded_beats(&self) -> u64 {
        self.discarded_beats
    }
}

/// Where a stream's messages go: its sender's settings (`StreamSender` in the RTL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamTarget {
    /// The QP.
    pub qp: u32,
    /// The scheduler queue.
    pub queue: u32,
    /// The first of its channels.
    pub first_channel: u32,
    /// Its channels: 1, 2 or 4; message i goes on `first_channel + i mod channels`.
    pub channels: u32,
    /// The remote address of slot 0.
    pub base_va: u64,
    /// Bytes of a slot.
    pub slot_bytes: u32,
    /// The local address of the port's buffer.
    pub window_base: u64,
    /// Bytes of the port's beat.
    pub beat_bytes: u32,
}

/// The post of one message: an RDMA WRITE with immediate into its slot, as one message
/// (`contracts::stream::MESSAGE_OP`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamPost {
    /// Channel.
    pub channel: u32,
    /// Scheduler queue.
    pub queue: u32,
    /// QP.
    pub qp: u32,
    /// Local address: the message in the port's buffer.
    pub local_addr: u64,
    /// Remote address: its slot.
    pub remote_addr: u64,
    /// Length in bytes.
    pub length: u32,
    /// Immediate.
    pub immediate: u32,
    /// Solicited event.
    pub solicited: bool,
}

impl StreamTarget {
    /// The post of the stream's `index`-th message taken (from 0) whose record says it is at
    /// `buffer_beat` in the port's buffer, in `slot`, `length` bytes long.
    pub fn post(&self, index: u64, buffer_beat: u32, slot: u32, length: u32, immediate: u32, solicited: bool) -> StreamPost {
        StreamPost {
            channel: self.first_channel + (index % u64::from(self.channels)) as u32,
            queue: self.queue,
            qp: self.qp,
            local_addr: self.window_base | (u64::from(buffer_beat) * u64::from(self.beat_bytes)),
            remote_addr: self.base_va.wrapping_add(u64::from(slot) * u64::from(self.slot_bytes)),
            length,
            immediate,
            solicited,
        }
    }
}

/// Paces a stream's packets at a rate: a packet of L payload bytes that wants to start at cycle
/// t starts at `max(t, next)` and moves `next` on by L × (cycles per byte) from its start, in
/// fixed point. Idle time earns nothing, so the stream never sends above its rate by more than
/// the packet that starts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pacer {
    /// Cycles per payload byte, [`PACER_FRACTION_BITS`] fraction bits.
    cycles_per_byte: u64,
    /// The earliest start of the next packet, in cycles with the same fraction.
    next: u64,
    /// A packet has started (before the first, no schedule to keep).
    started: bool,
}

impl Pacer {
    /// A pacer of `rate_bytes_per_second` on a clock of `clock_hz` (the rate is rounded to the
    /// nearest cost per byte the fixed point holds; at least one unit of it).
    pub fn new(rate_bytes_per_second: u64, clock_hz: u64) -> Pacer {
        Pacer::with_cost(ferroce_contracts::sched::pace_cost(rate_bytes_per_second, clock_hz))
    }

    /// A pacer of `cycles_per_byte` ([`PACER_FRACTION_BITS`] fraction bits; 0: never waits).
    pub fn with_cost(cycles_per_byte: u64) -> Pacer {
        Pacer {
            cycles_per_byte,
            next: 0,
            started: false,
        }
    }

    /// Whether a packet may not start at `cycle` (the last one's cost has not passed).
    pub fn waits(&self, cycle: u64) -> bool {
        cycle << PACER_FRACTION_BITS < self.next
    }

    /// Cycles per payload byte, with [`PACER_FRACTION_BITS`] fraction bits.
    pub fn cycles_per_byte(&self) -> u64 {
        self.cycles_per_byte
    }

    /// The cycle a packet of `bytes` payload bytes ready at cycle `ready` starts at.
    pub fn start(&mut self, ready: u64, bytes: u32) -> u64 {
        self.start_within(ready, bytes, 0)
    }

    /// As [`start`](Self::start), for a packet whose charge comes up to `slack` cycles after
    /// the schedule wanted it: when the last packet's cost ends after `ready − slack`, the
    /// packet starts there (in the past when `ready` is later: the pacer catches up), else at
    /// `ready` (idle time earns nothing). Returns the cycle it counts from, rounded up.
    pub fn start_within(&mut self, ready: u64, bytes: u32, slack: u64) -> u64 {
        let now = ready << PACER_FRACTION_BITS;
        let start = if self.started && self.next + (slack << PACER_FRACTION_BITS) > now {
            self.next
        } else {
            now
        };
        self.started = true;
        self.next = start + u64::from(bytes) * self.cycles_per_byte;
        // a start between cycles waits for the next whole one
        start.div_ceil(1 << PACER_FRACTION_BITS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn config(slot_bytes: u32, slots: u32) -> StreamConfig {
        StreamConfig {
            qp: 2,
            base_va: 0x1_0000,
            rkey: 0x142,
            slot_bytes,
            slots,
            immediate: ImmediateFormat::Sequence,
            end: MessageEnd::Slot,
            solicited_every: 0,
            rate_bytes_per_second: 1_000_000_000,
        }
    }

    #[test]
    fn a_bus_cuts_each_stream_across_its_packets_and_discards_the_rest() {
        let mut bus = StreamBusModel::new(4, 4);
        bus.start(1, config(8, 2)).unwrap();
        bus.start(2, config(4, 4)).unwrap();
        let beat = |b: u8| vec![b; 4];
        // stream 1's first message spans two packets; stream 2's packets interleave
        assert!(bus.packet(1, &[beat(1)]).is_empty());
        assert_eq!(bus.pending(1), 4);
        let two = bus.packet(2, &[beat(2), beat(3)]);
        assert_eq!(two.len(), 2, "two 4-byte messages of stream 2");
        let one = bus.packet(1, &[beat(4), beat(5)]);
        let PortEvent::Message(first) = &one[0] else { panic!("a message") };
        assert_eq!((first.sequence, first.data.as_slice()), (0, &[1, 1, 1, 1, 4, 4, 4, 4][..]));
        assert_eq!(bus.pending(1), 4, "the next message begun");
        // a stream not running, and one past the last, have their beats discarded
        assert!(bus.packet(3, &[beat(6), beat(7)]).is_empty());
        assert!(bus.packet(9, &[beat(8)]).is_empty());
        assert_eq!(bus.discarded_beats(), 3);
        bus.stop(2);
        assert!(bus.packet(2, &[beat(9)]).is_empty());
        assert_eq!((bus.discarded_beats(), bus.pending(2)), (4, 0));
    }

    #[test]
    fn messages_fill_their_slots_round_the_ring() {
        let mut cutter = StreamCutter::new(config(8, 3)).unwrap();
        let bytes: Vec<u8> = (0..40).collect();
        let messages = cutter.push(&bytes, false);
        assert_eq!(messages.len(), 5);
        assert_eq!(cutter.pending(), 0);
        let slots: Vec<u32> = messages.iter().map(|m| m.slot).collect();
        assert_eq!(slots, [0, 1, 2, 0, 1]);
        let vas: Vec<u64> = messages.iter().map(|m| m.remote_va).collect();
        assert_eq!(vas, [0x1_0000, 0x1_0008, 0x1_0010, 0x1_0000, 0x1_0008]);
        let immediates: Vec<u32> = messages.iter().map(|m| m.immediate).collect();
        assert_eq!(immediates, [0, 1, 2, 3, 4]);
        assert_eq!(messages[3].data, (24..32).collect::<Vec<u8>>());
    }

    #[test]
    fn slot_and_wrap_puts_the_wraps_above_the_slot_bits() {
        let mut cutter = StreamCutter::new(StreamConfig {
            immediate: ImmediateFormat::SlotAndWrap,
            ..config(4, 5)
        })
        .unwrap();
        assert_eq!(cutter.config().slot_bits(), 3);
        let immediates: Vec<u32> = cutter.push(&[0; 4 * 12], false).iter().map(|m| m.immediate).collect();
        // slots 0..4, then wrap 1 (8 + slot), then wrap 2 (16 + slot)
        assert_eq!(immediates, [0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 16, 17]);
    }

    #[test]
    fn tlast_ends_a_short_message_and_its_length_rides_in_the_immediate() {
        let mut cutter = StreamCutter::new(StreamConfig {
            end: MessageEnd::Tlast { length_bits: 12 },
            ..config(1024, 4)
        })
        .unwrap();
        assert!(cutter.push(&[7; 100], false).is_empty());
        let messages = cutter.push(&[8; 10], true);
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0].data.len(), 110);
        assert_eq!(messages[0].immediate, 110);
        let messages = cutter.push(&[9; 1030], true);
        assert_eq!(messages.iter().map(|m| m.data.len()).collect::<Vec<_>>(), [1024, 6]);
        assert_eq!(
            messages.iter().map(|m| m.immediate).collect::<Vec<_>>(),
            [(1 << 12) | 1024, (2 << 12) | 6]
        );
        assert!(cutter.push(&[], true).is_empty(), "a tlast with nothing pending sends nothing");
    }

    #[test]
    fn tlast_is_ignored_in_slot_mode() {
        let mut cutter = StreamCutter::new(config(16, 2)).unwrap();
        assert!(cutter.push(&[1; 10], true).is_empty());
        assert_eq!(cutter.push(&[2; 6], true).len(), 1);
    }

    #[test]
    fn the_solicited_bit_is_on_every_mth_message() {
        let mut cutter = StreamCutter::new(StreamConfig {
            solicited_every: 3,
            ..config(4, 4)
        })
        .unwrap();
        let solicited: Vec<bool> = cutter.push(&[0; 4 * 7], false).iter().map(|m| m.solicited).collect();
        assert_eq!(solicited, [false, false, true, false, false, true, false]);
    }

    #[test]
    fn bad_settings_are_refused_with_their_reason() {
        let good = config(4096, 8);
        assert_eq!(good.check(Some((0x1_0000, 8 * 4096))), Ok(()));
        assert_eq!(config(4094, 8).check(None), Err(StreamConfigError::SlotNotMultipleOf4));
        assert_eq!(config(0, 8).check(None), Err(StreamConfigError::SlotNotMultipleOf4));
        assert_eq!(config(MAX_SLOT_BYTES + 4, 8).check(None), Err(StreamConfigError::SlotTooLarge));
        assert_eq!(config(4096, 0).check(None), Err(StreamConfigError::NoSlots));
        let no_rate = StreamConfig {
            rate_bytes_per_second: 0,
            ..good
        };
        assert_eq!(no_rate.check(None), Err(StreamConfigError::RateZero));
        assert_eq!(
            good.check(Some((0x1_0000, 8 * 4096 - 1))),
            Err(StreamConfigError::RingOutsideRegion)
        );
        assert_eq!(good.check(Some((0x1_0001, 8 * 4096))), Err(StreamConfigError::RingOutsideRegion));
        let wrapping = StreamConfig {
            base_va: u64::MAX - 100,
            ..good
        };
        assert_eq!(wrapping.check(Some((0, u64::MAX))), Err(StreamConfigError::RingOutsideRegion));
        let few_bits = StreamConfig {
            end: MessageEnd::Tlast { length_bits: 12 },
            ..good
        };
        assert_eq!(few_bits.check(None), Err(StreamConfigError::LengthBitsTooFew), "4096 needs 13 bits");
        assert!(StreamCutter::new(config(6, 1)).is_err());
    }

    #[test]
    fn a_port_drops_a_message_with_a_partial_beat_and_keeps_its_number() {
        let mut port = StreamPortModel::new(
            StreamConfig {
                end: MessageEnd::Tlast { length_bits: 0 },
                ..config(16, 4)
            },
            8,
        )
        .unwrap();
        assert_eq!(port.beat(&[1; 8], false), None);
        let dropped = port.beat(&[2; 5], false);
        assert_eq!(
            dropped,
            Some(PortEvent::Dropped {
                sequence: 0,
                reason: StreamDrop::PartialBeat
            })
        );
        assert_eq!(port.beat(&[], true), None, "an empty tlast between messages ends nothing");
        match port.beat(&[3; 5], true) {
            Some(PortEvent::Message(m)) => assert_eq!((m.sequence, m.slot, m.data.len()), (1, 1, 5)),
            other => panic!("{other:?}"),
        }
        match port.beat(&[4; 8], false).or_else(|| port.beat(&[5; 8], false)) {
            Some(PortEvent::Message(m)) => assert_eq!((m.sequence, m.data.len()), (2, 16)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_backlogged_stream_leaves_at_its_rate_and_an_idle_one_earns_nothing() {
        // 1 byte per 4 cycles: a 100-byte packet every 400 cycles
        let mut pacer = Pacer::new(100, 400);
        assert_eq!(pacer.cycles_per_byte(), 4 << PACER_FRACTION_BITS);
        let starts: Vec<u64> = (0..4).map(|_| pacer.start(0, 100)).collect();
        assert_eq!(starts, [0, 400, 800, 1200]);
        // idle until cycle 5000: it starts at once, and the next waits its 400 cycles
        assert_eq!(pacer.start(5000, 100), 5000);
        assert_eq!(pacer.start(5000, 100), 5400);
    }

    proptest! {
        /// Whatever the beats and tlasts, the messages hold the stream's bytes in order, each
        /// at most a slot, numbered from 0, in slot `sequence mod slots`.
        #[test]
        fn messages_hold_the_stream_in_order(
            slot_words in 1u32..64,
            slots in 1u32..9,
            tlast_mode in any::<bool>(),
            beats in proptest::collection::vec((1usize..200, any::<bool>()), 1..40),
        ) {
            let end = if tlast_mode { MessageEnd::Tlast { length_bits: 0 } } else { MessageEnd::Slot };
            let mut cutter = StreamCutter::new(StreamConfig { end, ..config(slot_words * 4, slots) }).unwrap();
            let mut sent = Vec::new();
            let mut messages = Vec::new();
            let mut counter = 0u8;
            for (length, last) in beats {
                let beat: Vec<u8> = (0..length).map(|_| { counter = counter.wrapping_add(1); counter }).collect();
                sent.extend_from_slice(&beat);
                messages.extend(cutter.push(&beat, last));
            }
            let mut joined: Vec<u8> = messages.iter().flat_map(|m| m.data.iter().copied()).collect();
            prop_assert_eq!(joined.len() + cutter.pending(), sent.len());
            joined.extend_from_slice(&sent[joined.len()..]);
            prop_assert_eq!(joined, sent);
            for (n, message) in messages.iter().enumerate() {
                prop_assert_eq!(message.sequence, n as u64);
                prop_assert_eq!(message.slot, (n as u32) % slots);
                prop_assert!(!message.data.is_empty() && message.data.len() <= (slot_words * 4) as usize);
                if !tlast_mode {
                    prop_assert_eq!(message.data.len(), (slot_words * 4) as usize);
                }
            }
        }

        /// Backlogged, the bytes sent by any cycle never exceed the rate's share by more than
        /// one packet, and over a long run the achieved rate is the set rate within the fixed
        /// point's rounding.
        #[test]
        fn the_pacer_keeps_its_rate_with_no_burst(
            rate in 1_000_000u64..12_500_000_000,
            packets in proptest::collection::vec(1u32..4097, 50..200),
        ) {
            let clock = 322_265_625u64;
            let mut pacer = Pacer::new(rate, clock);
            let cycles_per_byte = clock as f64 / rate as f64;
            let mut sent = 0u64;
            let mut last_start = 0;
            for &bytes in &packets {
                let start = pacer.start(0, bytes);
                prop_assert!(start >= last_start);
                // the bytes before this packet fit the time before its start
                prop_assert!((sent as f64) * cycles_per_byte <= start as f64 + 1.0 + sent as f64 * cycles_per_byte * 1e-6);
                sent += u64::from(bytes);
                last_start = start;
            }
            let span = last_start as f64;
            let expected = (sent - u64::from(*packets.last().unwrap())) as f64 * cycles_per_byte;
            prop_assert!((span - expected).abs() <= 1.0 + expected * 1e-6, "span {} expected {}", span, expected);
        }
    }
}
