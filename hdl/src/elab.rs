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
