//! [`StreamReader`]: the TX path's memory reads of the stream window served from the stream
//! ports' buffers (a DataMover-style read: a command of address and length, then that many
//! bytes from lane 0, the last beat with `tlast`).
//!
//! ```text
//!  s_read (address, length) ─► command ─► beat reads (one a cycle) ─► buffer_address ─► ports' buffers
//!                                                   buffer_data (a cycle later) ─► beat FIFO (32) ─► m_pay
//! ```
//!
//! - The window's beat index is `address / beat bytes`: its low `BB` bits the beat in a port's
//!   buffer, the bits above `BB + 1` the port (the engine decodes them): the ports' buffers lie
//!   twice their size apart, so a message near a buffer's end reads on past it without
//!   reaching the next port's addresses, and the reader takes those beats from the buffer's
//!   start (the buffer is a ring; `buffer_address` carries the port's bits and the beat); a stream sender's posts
//!   put every packet read on a beat (`window_base | buffer_beat × beat bytes`, packets a
//!   multiple of the path MTU into a message). A read whose address is not on a beat is served
//!   from the beat that holds its first byte and counted (`misaligned_reads`): only the
//!   window's own posts read it.
//! - One beat read a cycle while the FIFO has room for the beats in flight, so a read of n beats
//!   is answered in n cycles when `m_pay` is ready; the next command is taken the cycle after a
//!   command's last beat read.

use crate::common::counter::EventCounter;
use crate::common::elab::{bits_from, c};
use crate::common::fifo::{BeatFifo, CAPACITY};
use rust_hdl::prelude::*;

/// Bits of a beat index in the window (ports × beats per buffer).
pub const WINDOW_BEAT_BITS: usize = 24;

/// Serves reads of `W`-bit beats (`K = W / 8` lanes) from the ports' buffers of `2^BB` beats
/// each, `2^(BB + 1)` beats apart in the window (a read that runs past a buffer's last beat
/// goes on at its first: the buffer is a ring).
#[derive(LogicBlock)]
pub struct StreamReader<const W: usize, const K: usize, const BB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Read commands: valid.
    pub s_read_valid: Signal<In, Bit>,
    /// Read commands: ready (from registers).
    pub s_read_ready: Signal<Out, Bit>,
    /// Read commands: the address.
    pub s_read_addr: Signal<In, Bits<64>>,
    /// Read commands: the length in bytes (1 to 4096).
    pub s_read_len: Signal<In, Bits<13>>,
    /// The window's beat to read.
    pub buffer_address: Signal<Out, Bits<WINDOW_BEAT_BITS>>,
    /// The beat at the last cycle's `buffer_address`.
    pub buffer_data: Signal<In, Bits<W>>,
    /// Payload: valid.
    pub m_pay_tvalid: Signal<Out, Bit>,
    /// Payload: ready.
    pub m_pay_tready: Signal<In, Bit>,
    /// Payload: data (from lane 0).
    pub m_pay_tdata: Signal<Out, Bits<W>>,
    /// Payload: keep.
    pub m_pay_tkeep: Signal<Out, Bits<K>>,
    /// Payload: the command's last beat.
    pub m_pay_tlast: Signal<Out, Bit>,
    /// Counter: reads whose address was not on a beat.
    pub misaligned_reads: Signal<Out, Bits<32>>,

    reading: DFF<Bit>,
    /// The read's buffer (the window's beat index above `BB + 1`).
    buffer_base: DFF<Bits<WINDOW_BEAT_BITS>>,
    /// The next beat in the buffer (its low `BB` bits).
    beat: DFF<Bits<16>>,
    beats_left: DFF<Bits<13>>,
    last_keep: DFF<Bits<K>>,
    /// The beat read in the last cycle: its keep and last, to push with its data.
    read_valid: DFF<Bit>,
    read_last: DFF<Bit>,
    read_keep: DFF<Bits<K>>,
    taken: Signal<Local, Bit>,
    read_now: Signal<Local, Bit>,
    remainder: Signal<Local, Bits<8>>,
    payload: BeatFifo<W, K>,
    misaligned_counter: EventCounter,
    beat_log2: Constant<Bits<8>>,
    lane_mask: Constant<Bits<13>>,
    keep_all: Constant<Bits<K>>,
    lanes: Constant<Bits<8>>,
    buffer_mask: Constant<Bits<WINDOW_BEAT_BITS>>,
    buffer_stride_mask: Constant<Bits<WINDOW_BEAT_BITS>>,
    fifo_nearly_full: Constant<Bits<8>>,
}

impl<const W: usize, const K: usize, const BB: usize> Default for StreamReader<W, K, BB> {
    fn default() -> Self {
        assert_eq!(W, 8 * K);
        assert!(K.is_power_of_two() && K <= 128, "lanes {K}");
        assert!((2..=16).contains(&BB), "buffer bits {BB}");
        StreamReader {
            clock: Default::default(),
            reset: Default::default(),
            s_read_valid: Default::default(),
            s_read_ready: Default::default(),
            s_read_addr: Default::default(),
            s_read_len: Default::default(),
            buffer_address: Default::default(),
            buffer_data: Default::default(),
            m_pay_tvalid: Default::default(),
            m_pay_tready: Default::default(),
            m_pay_tdata: Default::default(),
            m_pay_tkeep: Default::default(),
            m_pay_tlast: Default::default(),
            misaligned_reads: Default::default(),
            reading: Default::default(),
            buffer_base: Default::default(),
            beat: Default::default(),
            beats_left: Default::default(),
            last_keep: Default::default(),
            read_valid: Default::default(),
            read_last: Default::default(),
            read_keep: Default::default(),
            taken: Default::default(),
            read_now: Default::default(),
            remainder: Default::default(),
            payload: Default::default(),
            misaligned_counter: Default::default(),
            beat_log2: c::<8>(u64::from(K.trailing_zeros())),
            lane_mask: c::<13>(K as u64 - 1),
            keep_all: Constant::new(bits_from::<K>(|_| true)),
            lanes: c::<8>(K as u64),
            buffer_mask: c::<WINDOW_BEAT_BITS>((1u64 << BB) - 1),
            buffer_stride_mask: c::<WINDOW_BEAT_BITS>((1u64 << (BB + 1)) - 1),
            // room for the beat in flight and the one read now
            fifo_nearly_full: c::<8>(CAPACITY as u64 - 3),
        }
    }
}

impl<const W: usize, const K: usize, const BB: usize> Logic for StreamReader<W, K, BB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            reading,
            buffer_base,
            beat,
            beats_left,
            last_keep,
            read_valid,
            read_last,
            read_keep
        );
        clock!(self, clock, payload, misaligned_counter);

        // ---- a command: its first beat, its beat count, the last beat's keep ----
        self.s_read_ready.next = !self.reading.q.val();
        self.taken.next = self.s_read_valid.val() && !self.reading.q.val();
        self.remainder.next = bit_cast::<8, 13>(self.s_read_len.val() & self.lane_mask.val());
        self.misaligned_counter.increment.next = false;
        if self.taken.val() {
            self.reading.d.next = self.s_read_len.val() != 0;
            self.buffer_base.d.next =
                bit_cast::<WINDOW_BEAT_BITS, 64>(self.s_read_addr.val() >> self.beat_log2.val()) & !self.buffer_stride_mask.val();
            self.beat.d.next = bit_cast::<16, 64>(self.s_read_addr.val() >> self.beat_log2.val());
            self.beats_left.d.next = (self.s_read_len.val() + self.lane_mask.val()) >> self.beat_log2.val();
            self.last_keep.d.next = self.keep_all.val();
            if self.remainder.val() != 0 {
                self.last_keep.d.next = self.keep_all.val() >> (self.lanes.val() - self.remainder.val());
            }
            self.misaligned_counter.increment.next = (bit_cast::<13, 64>(self.s_read_addr.val()) & self.lane_mask.val()) != 0;
        }

        // ---- beat reads: one a cycle while the FIFO has room ----
        self.read_now.next = self.reading.q.val() && !self.payload.fill.val().get_bit(self.fifo_nearly_full.val().index());
        self.buffer_address.next =
            self.buffer_base.q.val() | (bit_cast::<WINDOW_BEAT_BITS, 16>(self.beat.q.val()) & self.buffer_mask.val());
        self.read_valid.d.next = self.read_now.val();
        self.read_last.d.next = self.beats_left.q.val() == 1;
        self.read_keep.d.next = self.keep_all.val();
        if self.beats_left.q.val() == 1 {
            self.read_keep.d.next = self.last_keep.q.val();
        }
        if self.read_now.val() {
            self.beat.d.next = self.beat.q.val() + 1;
            self.beats_left.d.next = self.beats_left.q.val() - 1;
            if self.beats_left.q.val() == 1 {
                self.reading.d.next = false;
            }
        }

        // ---- the data a cycle later into the FIFO, out on m_pay ----
        self.payload.push.next = self.read_valid.q.val();
        self.payload.push_data.next = self.buffer_data.val();
        self.payload.push_keep.next = self.read_keep.q.val();
        self.payload.push_last.next = self.read_last.q.val();
        self.payload.push_bytes.next = 0.into();
        self.payload.pop.next = self.payload.head_valid.val() && self.m_pay_tready.val();
        self.m_pay_tvalid.next = self.payload.head_valid.val();
        self.m_pay_tdata.next = self.payload.head_data.val();
        self.m_pay_tkeep.next = self.payload.head_keep.val();
        self.m_pay_tlast.next = self.payload.head_last.val();
        self.misaligned_reads.next = self.misaligned_counter.count.val();
        self.payload.reset.next = self.reset.val();
        self.misaligned_counter.reset.next = self.reset.val();
        if self.reset.val() {
            self.reading.d.next = false;
            self.read_valid.d.next = false;
        }
    }
}
