//! Helpers for constants computed in Rust at elaboration (masks, tables, small numbers).

use num_bigint::BigUint;
use rust_hdl::prelude::*;

/// An `N`-bit value whose bit `i` is `f(i)`.
pub fn bits_from<const N: usize>(f: impl Fn(usize) -> bool) -> Bits<N> {
    let mut v = BigUint::default();
    for i in 0..N {
        if f(i) {
            v.set_bit(i as u64, true);
        }
    }
    Bits::<N>::from(v)
}

/// An `N`-bit constant (a `Constant` field keeps it out of rust-hdl's 32-bit literals).
pub fn c<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(BigUint::from(v)))
}

/// A pattern over the bytes of a little-endian byte register (frame byte `p` at bits
/// `8p .. 8p + 7`): which bits to compare and the values they must have, for a compare
/// `(register & mask) == value` whose constants are computed from the contracts at elaboration.
#[derive(Debug, Clone, Default)]
pub struct BytePattern {
    mask: Vec<u8>,
    value: Vec<u8>,
}

impl BytePattern {
    /// A pattern that compares nothing (always matches).
    pub fn new() -> Self {
        Self::default()
    }

    /// The bits `mask` of byte `at` equal those of `value`.
    pub fn bits(mut self, at: usize, mask: u8, value: u8) -> Self {
        if self.mask.len() <= at {
            self.mask.resize(at + 1, 0);
            self.value.resize(at + 1, 0);
        }
        self.mask[at] |= mask;
        self.value[at] = (self.value[at] & !mask) | (value & mask);
        self
    }

    /// The big-endian field at bytes `at` equals `value`.
    pub fn field(self, at: std::ops::Range<usize>, value: u64) -> Self {
        let len = at.len();
        at.enumerate()
            .fold(self, |p, (i, byte)| p.bits(byte, 0xFF, (value >> (8 * (len - 1 - i))) as u8))
    }

    /// The same pattern over a byte-reversed register of `len` bytes (frame byte `p` at byte
    /// `len − 1 − p`, so a big-endian field is one contiguous bit range).
    pub fn reversed(&self, len: usize) -> BytePattern {
        let mut out = BytePattern::new();
        for (p, (&mask, &value)) in self.mask.iter().zip(&self.value).enumerate() {
            if mask != 0 {
                out = out.bits(len - 1 - p, mask, value);
            }
        }
        out
    }

    fn constant<const N: usize>(bytes: &[u8]) -> Constant<Bits<N>> {
        assert!(bytes.len() * 8 <= N, "pattern beyond the register");
        Constant::new(bits_from::<N>(|k| bytes.get(k / 8).is_some_and(|b| (b >> (k % 8)) & 1 != 0)))
    }

    /// The mask constant.
    pub fn mask<const N: usize>(&self) -> Constant<Bits<N>> {
        Self::constant(&self.mask)
    }

    /// The value constant.
    pub fn value<const N: usize>(&self) -> Constant<Bits<N>> {
        Self::constant(&self.value)
    }
}
