//! [`BusCompletions`]: the TX path's completions for a [`StreamBusSender`](super::StreamBusSender)'s
//! streams. A completion's channel names its stream and place (the streams own 4·S channels
//! from `channel_base`, a multiple of 4·S); it is the stream's oldest message's when the stream
//! has a message in flight and the channel is that message's place. Such a completion is
//! registered (`hit`, its stream, status, beats and the stream's released count after it) for
//! the sender to count and release; any other is ignored. One is taken a cycle, never held up.
//!
//! ```text
//!  cpl ─► registered ─► stream and place ─► the stream's oldest? (LUT RAM reads) ─► hit
//! ```
//!
//! What it reads of a stream is written by the sender: its channel mask (`mask_*`), its count
//! of messages pushed (`pushed_*`) and each place's beats (`beats_*`). The released count it
//! keeps is the sender's to copy (`released_write`, `hit_stream`, `hit_released`); a hit's count
//! is forwarded to the next completion of the same stream, as the LUT RAM has it a cycle later.
//! While `clearing` it sweeps the streams' released counts to zero, one a cycle from reset, as
//! the sender sweeps its own.

use super::bus_sender::COUNT_BITS;
use crate::common::elab::c;
use crate::common::lut_ram::LutRam;
use ferroce_contracts::tx::COMPLETION_STATUS_BITS;
use rust_hdl::prelude::*;

/// The completions of `2^SB` bus streams, `PL = SB + 2` bits naming a stream's channel place.
#[derive(LogicBlock)]
pub struct BusCompletions<const SB: usize, const PL: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: nothing registered, the sweep back at stream 0.
    pub reset: Signal<In, Bit>,
    /// The counts are cleared, a stream a cycle from reset: no completion is taken.
    pub clearing: Signal<In, Bit>,
    /// The first channel of stream 0, a multiple of 4·S (held).
    pub channel_base: Signal<In, Bits<16>>,
    /// The TX path's completions: valid.
    pub cpl_valid: Signal<In, Bit>,
    /// Completions: the channel.
    pub cpl_channel: Signal<In, Bits<16>>,
    /// Completions: the status (`CompletionStatus`).
    pub cpl_status: Signal<In, Bits<COMPLETION_STATUS_BITS>>,
    /// Write a stream's channel mask.
    pub mask_write: Signal<In, Bit>,
    /// Its stream.
    pub mask_stream: Signal<In, Bits<SB>>,
    /// Its channels minus one.
    pub mask: Signal<In, Bits<2>>,
    /// Write a stream's count of messages pushed.
    pub pushed_write: Signal<In, Bit>,
    /// Its stream.
    pub pushed_stream: Signal<In, Bits<SB>>,
    /// The count.
    pub pushed_count: Signal<In, Bits<COUNT_BITS>>,
    /// Write a place's beats (its stream's message on that channel).
    pub beats_write: Signal<In, Bit>,
    /// The place: stream × 4 + channel offset.
    pub beats_place: Signal<In, Bits<PL>>,
    /// The beats.
    pub beats: Signal<In, Bits<16>>,
    /// A stream's oldest message completed (registered, one cycle).
    pub hit: Signal<Out, Bit>,
    /// Its stream (also the stream swept while clearing).
    pub hit_stream: Signal<Out, Bits<SB>>,
    /// Its status was an error.
    pub hit_failed: Signal<Out, Bit>,
    /// Its beats.
    pub hit_beats: Signal<Out, Bits<16>>,
    /// The stream's released count after it (zero while clearing).
    pub hit_released: Signal<Out, Bits<COUNT_BITS>>,
    /// Write `hit_released` at `hit_stream`: a hit, or the sweep.
    pub released_write: Signal<Out, Bit>,

    completion_seen: DFF<Bit>,
    completion_channel: DFF<Bits<16>>,
    completion_failed: DFF<Bit>,
    place_seen: DFF<Bit>,
    place_in_range: DFF<Bit>,
    place_offset: DFF<Bits<PL>>,
    place_failed: DFF<Bit>,
    same_stream: DFF<Bit>,
    registered_hit: DFF<Bit>,
    registered_stream: DFF<Bits<SB>>,
    registered_failed: DFF<Bit>,
    registered_released: DFF<Bits<COUNT_BITS>>,
    registered_beats: DFF<Bits<16>>,
    registered_clearing: DFF<Bit>,
    stream: Signal<Local, Bits<SB>>,
    released_before: Signal<Local, Bits<COUNT_BITS>>,
    hits: Signal<Local, Bit>,
    mask_of: LutRam<Bits<2>, SB>,
    pushed_of: LutRam<Bits<COUNT_BITS>, SB>,
    released_of: LutRam<Bits<COUNT_BITS>, SB>,
    beats_of: LutRam<Bits<16>, PL>,
    beyond_places: Constant<Bits<16>>,
    place_bits: Constant<Bits<8>>,
    place_step: Constant<Bits<PL>>,
}

impl<const SB: usize, const PL: usize> Default for BusCompletions<SB, PL> {
    fn default() -> Self {
        assert!((1..=8).contains(&SB) && PL == SB + 2, "streams 2^{SB}, places {PL}");
        BusCompletions {
            clock: Default::default(),
            reset: Default::default(),
            clearing: Default::default(),
            channel_base: Default::default(),
            cpl_valid: Default::default(),
            cpl_channel: Default::default(),
            cpl_status: Default::default(),
            mask_write: Default::default(),
            mask_stream: Default::default(),
            mask: Default::default(),
            pushed_write: Default::default(),
            pushed_stream: Default::default(),
            pushed_count: Default::default(),
            beats_write: Default::default(),
            beats_place: Default::default(),
            beats: Default::default(),
            hit: Default::default(),
            hit_stream: Default::default(),
            hit_failed: Default::default(),
            hit_beats: Default::default(),
            hit_released: Default::default(),
            released_write: Default::default(),
            completion_seen: Default::default(),
            completion_channel: Default::default(),
            completion_failed: Default::default(),
            place_seen: Default::default(),
            place_in_range: Default::default(),
            place_offset: Default::default(),
            place_failed: Default::default(),
            same_stream: Default::default(),
            registered_hit: Default::default(),
            registered_stream: Default::default(),
            registered_failed: Default::default(),
            registered_released: Default::default(),
            registered_beats: Default::default(),
            registered_clearing: Default::default(),
            stream: Default::default(),
            released_before: Default::default(),
            hits: Default::default(),
            mask_of: Default::default(),
            pushed_of: Default::default(),
            released_of: Default::default(),
            beats_of: Default::default(),
            beyond_places: c::<16>(0xFFFF & !((1u64 << PL) - 1)),
            place_bits: c::<8>(2),
            place_step: c::<PL>(4),
        }
    }
}

impl<const SB: usize, const PL: usize> Logic for BusCompletions<SB, PL> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            completion_seen,
            completion_channel,
            completion_failed,
            place_seen,
            place_in_range,
            place_offset,
            place_failed,
            same_stream,
            registered_hit,
            registered_stream,
            registered_failed,
            registered_released,
            registered_beats,
            registered_clearing
        );
        self.mask_of.write_clock.next = self.clock.val();
        self.pushed_of.write_clock.next = self.clock.val();
        self.released_of.write_clock.next = self.clock.val();
        self.beats_of.write_clock.next = self.clock.val();

        // ---- what the sender writes of a stream ----
        self.mask_of.write_enable.next = self.mask_write.val();
        self.mask_of.write_address.next = self.mask_stream.val();
        self.mask_of.write_data.next = self.mask.val();
        self.pushed_of.write_enable.next = self.pushed_write.val();
        self.pushed_of.write_address.next = self.pushed_stream.val();
        self.pushed_of.write_data.next = self.pushed_count.val();
        self.beats_of.write_enable.next = self.beats_write.val();
        self.beats_of.write_address.next = self.beats_place.val();
        self.beats_of.write_data.next = self.beats.val();

        // ---- a completion: registered; then its stream and place ----
        self.completion_seen.d.next = self.cpl_valid.val();
        self.completion_channel.d.next = self.cpl_channel.val();
        self.completion_failed.d.next = self.cpl_status.val() != 0;
        self.place_seen.d.next = self.completion_seen.q.val();
        self.place_in_range.d.next =
            (self.completion_channel.q.val() & self.beyond_places.val()) == (self.channel_base.val() & self.beyond_places.val());
        self.place_offset.d.next = bit_cast::<PL, 16>(self.completion_channel.q.val());
        self.place_failed.d.next = self.completion_failed.q.val();
        self.stream.next = bit_cast::<SB, PL>(self.place_offset.q.val() >> self.place_bits.val());
        // the next completion's stream is this one's: its released count is a cycle behind in LUT RAM
        self.same_stream.d.next = bit_cast::<SB, 16>(self.completion_channel.q.val() >> self.place_bits.val()) == self.stream.val();

        // ---- the stream's oldest message's? ----
        self.mask_of.read_address.next = self.stream.val();
        self.pushed_of.read_address.next = self.stream.val();
        self.released_of.read_address.next = self.stream.val();
        self.beats_of.read_address.next = self.place_offset.q.val();
        self.released_before.next = self.released_of.read_data.val();
        if self.registered_hit.q.val() & self.same_stream.q.val() {
            self.released_before.next = self.registered_released.q.val();
        }
        self.hits.next = self.place_seen.q.val()
            && !self.clearing.val()
            && self.place_in_range.q.val()
            && self.pushed_of.read_data.val() != self.released_before.val()
            && bit_cast::<2, PL>(self.place_offset.q.val())
                == (bit_cast::<2, COUNT_BITS>(self.released_before.val()) & self.mask_of.read_data.val());

        // ---- registered: the hit and the stream's released count after it ----
        self.registered_hit.d.next = self.hits.val();
        self.registered_stream.d.next = self.stream.val();
        self.registered_failed.d.next = self.place_failed.q.val();
        self.registered_released.d.next = self.released_before.val() + 1;
        if self.clearing.val() {
            // the completion's place sweeps the streams while clearing
            self.registered_released.d.next = 0.into();
            self.place_offset.d.next = self.place_offset.q.val() + self.place_step.val();
        }
        self.registered_beats.d.next = self.beats_of.read_data.val();
        self.registered_clearing.d.next = self.clearing.val();
        self.released_write.next = self.registered_hit.q.val() || self.registered_clearing.q.val();
        self.released_of.write_enable.next = self.released_write.val();
        self.released_of.write_address.next = self.registered_stream.q.val();
        self.released_of.write_data.next = self.registered_released.q.val();
        self.hit.next = self.registered_hit.q.val();
        self.hit_stream.next = self.registered_stream.q.val();
        self.hit_failed.next = self.registered_failed.q.val();
        self.hit_beats.next = self.registered_beats.q.val();
        self.hit_released.next = self.registered_released.q.val();

        if self.reset.val() {
            self.completion_seen.d.next = false;
            self.place_seen.d.next = false;
            self.place_offset.d.next = 0.into();
            self.registered_hit.d.next = false;
        }
    }
}
