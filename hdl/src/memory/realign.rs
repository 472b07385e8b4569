//! [`BeatRealigner`]: moves a stream of beats by a byte offset, for both directions of the AXI4
//! master: memory beats (the first byte at lane `address mod K`) to a stream from lane 0, and a
//! stream from lane 0 to memory beats.
//!
//! ```text
//!  token ─► S1 (beat, shift, flags) ─► S2 (rotated, lane mask) ─► out (merged with the held beat)
//! ```
//!
//! The owner hands in one **token** per input beat, in a cycle where the realigner moves (the
//! output free or taken, and no flush pending: the owner computes it from `m_valid`, `m_ready`
//! and `flushing`), with what that beat makes: the beat is rotated down by `shift` bytes (lane i
//! takes byte `(i + shift) mod K`), and an output beat takes lanes below `K − shift` from the
//! previous token's rotation (`held`) and the others from this one (all from this one when
//! `shift` is 0). A token
//! - with `emit` makes that merged beat, with `keep` and `last`;
//! - with `flush` then makes one more beat from its own rotation alone (`flush_keep`, `last`),
//!   the cycle after; the pipeline waits that cycle;
//! - with `flush` and no `emit` makes only the beat of its own rotation, at once.
//!
//! Rotation in 4:1 stages (two shift bits each; at most three LUT levels up to 512 bits) between
//! S1 and S2; the merge is one level. Every stage moves together, so the output is a register
//! that holds still while `m_ready` is low.

use crate::common::elab::c;
use rust_hdl::prelude::*;

/// Rotation stages of two shift bits (shifts up to 255 bytes; K is at most 128).
const STAGES: usize = 4;

/// A realigner of `W`-bit beats (`K = W / 8` bytes); see the module docs.
#[derive(LogicBlock)]
pub struct BeatRealigner<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: forgets every token in flight.
    pub reset: Signal<In, Bit>,
    /// The next output beat is the held rotation alone, and no token is taken (registered).
    /// Every stage moves, and a token offered is taken, in a cycle where `(!m_valid || m_ready)
    /// && !flushing`: the owner computes that itself, so that no output here depends on an input
    /// (Verilator would see a loop through the owner's `token`).
    pub flushing: Signal<Out, Bit>,
    /// A token is offered (only in a cycle where the realigner moves, see `flushing`).
    pub token: Signal<In, Bit>,
    /// The token's beat.
    pub data: Signal<In, Bits<W>>,
    /// Rotate down by this many bytes (mod K).
    pub shift: Signal<In, Bits<8>>,
    /// The token makes the merged beat.
    pub emit: Signal<In, Bit>,
    /// The merged beat's keep.
    pub keep: Signal<In, Bits<K>>,
    /// The merged beat's `last`.
    pub last: Signal<In, Bit>,
    /// The token's own rotation makes a beat too (after the merged one, if any); its `last` is 1.
    pub flush: Signal<In, Bit>,
    /// The keep of that beat.
    pub flush_keep: Signal<In, Bits<K>>,
    /// Output: valid (registered).
    pub m_valid: Signal<Out, Bit>,
    /// Output: ready.
    pub m_ready: Signal<In, Bit>,
    /// Output: data.
    pub m_data: Signal<Out, Bits<W>>,
    /// Output: keep.
    pub m_keep: Signal<Out, Bits<K>>,
    /// Output: last.
    pub m_last: Signal<Out, Bit>,

    // S1: the token as handed in
    valid1: DFF<Bit>,
    data1: DFF<Bits<W>>,
    shift1: DFF<Bits<8>>,
    emit1: DFF<Bit>,
    keep1: DFF<Bits<K>>,
    last1: DFF<Bit>,
    flush1: DFF<Bit>,
    flush_keep1: DFF<Bits<K>>,
    /// The beat after rotation stage s − 1 (index 0: the beat).
    rotation: [Signal<Local, Bits<W>>; STAGES + 1],
    rotate_down: [Constant<Bits<16>>; 3 * STAGES],
    rotate_up: [Constant<Bits<16>>; 3 * STAGES],
    shift_mask: Constant<Bits<8>>,
    all_ones: Constant<Bits<W>>,
    /// Lanes below `K − shift` (none when `shift` is 0), bit per data bit.
    from_held: Signal<Local, Bits<W>>,
    // S2: rotated
    valid2: DFF<Bit>,
    rotated2: DFF<Bits<W>>,
    from_held2: DFF<Bits<W>>,
    emit2: DFF<Bit>,
    keep2: DFF<Bits<K>>,
    last2: DFF<Bit>,
    flush2: DFF<Bit>,
    flush_keep2: DFF<Bits<K>>,
    /// The previous token's rotation.
    held: DFF<Bits<W>>,
    // the output
    out_valid: DFF<Bit>,
    out_data: DFF<Bits<W>>,
    out_keep: DFF<Bits<K>>,
    out_last: DFF<Bit>,
    /// The next output beat is the held rotation alone (a flush after a merged beat).
    flush_next: DFF<Bit>,
    flushing_keep: DFF<Bits<K>>,
    /// The output register may change this cycle.
    enable: Signal<Local, Bit>,
    /// Every stage moves.
    advance: Signal<Local, Bit>,
    shift_bits: Signal<Local, Bits<16>>,
}

impl<const W: usize, const K: usize> Default for BeatRealigner<W, K> {
    fn default() -> Self {
        assert_eq!(W, 8 * K, "K must be W / 8");
        assert!(K.is_power_of_two() && (8..=128).contains(&K), "K is a power of two from 8 to 128");
        // stage s, digit d (1..=3): rotate by d · 4^s bytes (mod K: digits that would reach K or
        // beyond never occur, the shift being masked to K − 1)
        let bytes = |i: usize| ((i % 3 + 1) << (2 * (i / 3))) % K;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            flushing: Default::default(),
            token: Default::default(),
            data: Default::default(),
            shift: Default::default(),
            emit: Default::default(),
            keep: Default::default(),
            last: Default::default(),
            flush: Default::default(),
            flush_keep: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            m_data: Default::default(),
            m_keep: Default::default(),
            m_last: Default::default(),
            valid1: Default::default(),
            data1: Default::default(),
            shift1: Default::default(),
            emit1: Default::default(),
            keep1: Default::default(),
            last1: Default::default(),
            flush1: Default::default(),
            flush_keep1: Default::default(),
            rotation: Default::default(),
            rotate_down: std::array::from_fn(|i| c::<16>(8 * bytes(i) as u64)),
            rotate_up: std::array::from_fn(|i| c::<16>((W - 8 * bytes(i)) as u64)),
            shift_mask: c::<8>(K as u64 - 1),
            all_ones: Constant::new(Bits::<W>::mask()),
            from_held: Default::default(),
            valid2: Default::default(),
            rotated2: Default::default(),
            from_held2: Default::default(),
            emit2: Default::default(),
            keep2: Default::default(),
            last2: Default::default(),
            flush2: Default::default(),
            flush_keep2: Default::default(),
            held: Default::default(),
            out_valid: Default::default(),
            out_data: Default::default(),
            out_keep: Default::default(),
            out_last: Default::default(),
            flush_next: Default::default(),
            flushing_keep: Default::default(),
            enable: Default::default(),
            advance: Default::default(),
            shift_bits: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize> Logic for BeatRealigner<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            valid1,
            data1,
            shift1,
            emit1,
            keep1,
            last1,
            flush1,
            flush_keep1,
            valid2,
            rotated2,
            from_held2,
            emit2,
            keep2,
            last2,
            flush2,
            flush_keep2,
            held,
            out_valid,
            out_data,
            out_keep,
            out_last,
            flush_next,
            flushing_keep
        );
        self.enable.next = !self.out_valid.q.val() || self.m_ready.val();
        self.advance.next = self.enable.val() && !self.flush_next.q.val();

        // ================= -> S1: the token =================
        if self.advance.val() {
            self.valid1.d.next = self.token.val();
            self.data1.d.next = self.data.val();
            self.shift1.d.next = self.shift.val() & self.shift_mask.val();
            self.emit1.d.next = self.emit.val();
            self.keep1.d.next = self.keep.val();
            self.last1.d.next = self.last.val();
            self.flush1.d.next = self.flush.val();
            self.flush_keep1.d.next = self.flush_keep.val();
        }

        // ================= S1 -> S2: rotate, lane mask =================
        self.rotation[0].next = self.data1.q.val();
        // (a literal: `hdl_gen` does not read constants in a loop's range; 4 is STAGES)
        for s in 0..4 {
            self.rotation[s + 1].next = self.rotation[s].val();
            if self.shift1.q.val().get_bits::<2>(2 * s) == 1 {
                self.rotation[s + 1].next =
                    (self.rotation[s].val() >> self.rotate_down[3 * s].val()) | (self.rotation[s].val() << self.rotate_up[3 * s].val());
            } else if self.shift1.q.val().get_bits::<2>(2 * s) == 2 {
                self.rotation[s + 1].next = (self.rotation[s].val() >> self.rotate_down[3 * s + 1].val())
                    | (self.rotation[s].val() << self.rotate_up[3 * s + 1].val());
            } else if self.shift1.q.val().get_bits::<2>(2 * s) == 3 {
                self.rotation[s + 1].next = (self.rotation[s].val() >> self.rotate_down[3 * s + 2].val())
                    | (self.rotation[s].val() << self.rotate_up[3 * s + 2].val());
            }
        }
        self.shift_bits.next = bit_cast::<16, 8>(self.shift1.q.val()) << 3;
        self.from_held.next = self.all_ones.val() >> self.shift_bits.val();
        if self.shift1.q.val() == 0 {
            self.from_held.next = 0.into();
        }
        if self.advance.val() {
            self.valid2.d.next = self.valid1.q.val();
            self.rotated2.d.next = self.rotation[4].val();
            self.from_held2.d.next = self.from_held.val();
            self.emit2.d.next = self.emit1.q.val();
            self.keep2.d.next = self.keep1.q.val();
            self.last2.d.next = self.last1.q.val();
            self.flush2.d.next = self.flush1.q.val();
            self.flush_keep2.d.next = self.flush_keep1.q.val();
        }

        // ================= S2 -> out: merge with the held rotation =================
        if self.enable.val() {
            self.out_valid.d.next = false;
            if self.flush_next.q.val() {
                self.out_valid.d.next = true;
                self.out_data.d.next = self.held.q.val();
                self.out_keep.d.next = self.flushing_keep.q.val();
                self.out_last.d.next = true;
                self.flush_next.d.next = false;
            } else if self.valid2.q.val() {
                self.held.d.next = self.rotated2.q.val();
                if self.emit2.q.val() {
                    self.out_valid.d.next = true;
                    self.out_data.d.next =
                        (self.held.q.val() & self.from_held2.q.val()) | (self.rotated2.q.val() & !self.from_held2.q.val());
                    self.out_keep.d.next = self.keep2.q.val();
                    self.out_last.d.next = self.last2.q.val();
                    self.flush_next.d.next = self.flush2.q.val();
                    self.flushing_keep.d.next = self.flush_keep2.q.val();
                } else if self.flush2.q.val() {
                    self.out_valid.d.next = true;
                    self.out_data.d.next = self.rotated2.q.val();
                    self.out_keep.d.next = self.flush_keep2.q.val();
                    self.out_last.d.next = true;
                }
            }
        }
        if self.reset.val() {
            self.valid1.d.next = false;
            self.valid2.d.next = false;
            self.out_valid.d.next = false;
            self.flush_next.d.next = false;
        }
        self.m_valid.next = self.out_valid.q.val();
        self.flushing.next = self.flush_next.q.val();
        self.m_data.next = self.out_data.q.val();
        self.m_keep.next = self.out_keep.q.val();
        self.m_last.next = self.out_last.q.val();
    }
}
