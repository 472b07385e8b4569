//! [`Ipv4HeaderCheck`]: the IPv4 header checksum verified in three pipeline stages.
//!
//! A header is good when the ones'-complement sum of its ten 16-bit words is `0xFFFF`. The sum
//! is the same with every word's bytes swapped (swapped sums are the swapped sum, and `0xFFFF`
//! is its own swap), so the header is taken as it lies in a little-endian byte register and no
//! byte is moved.
//!
//! | stage | work |
//! |---|---|
//! | `_1` | ten words to two by 3:2 compressors (carry-save, one LUT level each, five deep) |
//! | `_2` | the two added (a 20-bit carry chain) |
//! | `_3` | the 20-bit total folded and compared: `low + high == 0xFFFF` |

use rust_hdl::prelude::*;

/// Bytes of an IPv4 header without options.
pub const IPV4_HEADER_BITS: usize = 160;

/// Verifies the checksum of an IPv4 header given every cycle; the verdict follows three cycles
/// later. Free running: no valid, no stall.
#[derive(LogicBlock)]
pub struct Ipv4HeaderCheck {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// The header: frame byte `p` of the IP header at bits `8p .. 8p + 7`.
    pub header: Signal<In, Bits<IPV4_HEADER_BITS>>,
    /// The checksum of the header given three cycles ago verifies (registered).
    pub good: Signal<Out, Bit>,
    word: Signal<Local, Bits<16>>,
    word_at: [Constant<Bits<8>>; 10],
    /// The ten words, then each compressor's sum and carry.
    term: [Signal<Local, Bits<20>>; 26],
    sum_1: DFF<Bits<20>>,
    carry_1: DFF<Bits<20>>,
    total_2: DFF<Bits<20>>,
    good_3: DFF<Bit>,
}

impl Default for Ipv4HeaderCheck {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            header: Default::default(),
            good: Default::default(),
            word: Default::default(),
            word_at: std::array::from_fn(|w| crate::common::elab::c::<8>(16 * w as u64)),
            term: Default::default(),
            sum_1: Default::default(),
            carry_1: Default::default(),
            total_2: Default::default(),
            good_3: Default::default(),
        }
    }
}

impl Logic for Ipv4HeaderCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sum_1, carry_1, total_2, good_3);
        // ---- _1: 10 words to 2; compressor k takes terms 3k..3k+2 and appends its sum and carry ----
        for w in 0..10 {
            self.word.next = self.header.val().get_bits::<16>(self.word_at[w].val().index());
            self.term[w].next = bit_cast::<20, 16>(self.word.val());
        }
        for k in 0..8 {
            self.term[10 + 2 * k].next = self.term[3 * k].val() ^ self.term[3 * k + 1].val() ^ self.term[3 * k + 2].val();
            self.term[11 + 2 * k].next = ((self.term[3 * k].val() & self.term[3 * k + 1].val())
                | (self.term[3 * k].val() & self.term[3 * k + 2].val())
                | (self.term[3 * k + 1].val() & self.term[3 * k + 2].val()))
                << 1;
        }
        self.sum_1.d.next = self.term[24].val();
        self.carry_1.d.next = self.term[25].val();
        // ---- _2: carry-propagate add ----
        self.total_2.d.next = self.sum_1.q.val() + self.carry_1.q.val();
        // ---- _3: low half + high nibble == 0xFFFF (the high nibble is at most 9) ----
        self.good_3.d.next = self.total_2.q.val().get_bits::<12>(4) == 0xFFF
            && self.total_2.q.val().get_bits::<4>(0) == !self.total_2.q.val().get_bits::<4>(16);
        self.good.next = self.good_3.q.val();
    }
}
