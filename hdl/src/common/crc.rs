//! CRC-32 (IEEE 802.3, reflected) as GF(2) matrices, computed at elaboration.
//!
//! Conventions shared by every ICRC unit:
//! * The CRC register starts at zero. `CRC(FF×8 ‖ X)` with init `0xFFFFFFFF` equals the zero-init
//!   register after `FF×4 ‖ X` (the init is the same as complementing the first four bytes, and
//!   leading zero bytes leave a zero register unchanged), XORed with `0xFFFFFFFF` at the end.
//! * Bus bit `k` is bit `k % 8` of byte `k / 8`; bytes are fed in order, least significant bit
//!   first (the reflected CRC), so byte 0 of a beat is `tdata[7:0]`.
//! * A linear map `f` on the 32-bit register is stored as 32 row masks: bit `j` of row `i` is bit
//!   `i` of `f(1 << j)`. Output bit `i` is then `^(x & row[i])`.

/// The reflected IEEE 802.3 polynomial.
pub const POLY_REFLECTED: u32 = 0xEDB8_8320;

/// Feeds one data bit into a zero-init reflected CRC register.
pub fn step_bit(state: u32, bit: bool) -> u32 {
    let fb = (state & 1) ^ (bit as u32);
    (state >> 1) ^ if fb != 0 { POLY_REFLECTED } else { 0 }
}

/// Feeds `n` zero bits.
pub fn zeros(mut state: u32, n: usize) -> u32 {
    for _ in 0..n {
        state = step_bit(state, false);
    }
    state
}

/// Undoes one zero bit (the inverse of `step_bit(_, false)`).
pub fn unzero_bit(state: u32) -> u32 {
    if state & 0x8000_0000 != 0 {
        ((state ^ POLY_REFLECTED) << 1) | 1
    } else {
        state << 1
    }
}

/// Feeds bytes into a zero-init register (no init, no final XOR).
pub fn feed_bytes(mut state: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        for j in 0..8 {
            state = step_bit(state, (b >> j) & 1 != 0);
        }
    }
    state
}

/// Row masks of a linear map on the register given by its images of the 32 unit vectors.
pub fn rows_of_map(f: impl Fn(u32) -> u32) -> [u32; 32] {
    let mut rows = [0u32; 32];
    for j in 0..32 {
        let img = f(1 << j);
        for (i, row) in rows.iter_mut().enumerate() {
            if (img >> i) & 1 != 0 {
                *row |= 1 << j;
            }
        }
    }
    rows
}

/// Applies a map stored as row masks (the same computation the hardware does).
pub fn apply_rows(rows: &[u32; 32], x: u32) -> u32 {
    let mut out = 0;
    for (i, r) in rows.iter().enumerate() {
        out |= ((r & x).count_ones() & 1) << i;
    }
    out
}

/// Register after `nbytes` zero bytes: the state-feedback matrix of a bus `nbytes` wide.
pub fn state_rows(nbytes: usize) -> [u32; 32] {
    rows_of_map(|s| zeros(s, 8 * nbytes))
}

/// Undo `nbytes` zero bytes.
pub fn unzero_rows(nbytes: usize) -> [u32; 32] {
    rows_of_map(|mut s| {
        for _ in 0..8 * nbytes {
            s = unzero_bit(s);
        }
        s
    })
}

/// Data matrix of a block of `nbits` data bits followed by `trail_bits` zero bits, from a zero
/// register: row `i` has bit `k` set when data bit `k` flips register bit `i`. Returned as one
/// bit vector (little-endian `Vec<bool>`, index = data bit) per register bit.
pub fn data_rows(nbits: usize, trail_bits: usize) -> Vec<Vec<bool>> {
    let mut rows = vec![vec![false; nbits]; 32];
    // Image of data bit k: a one fed at step k, then (nbits-1-k) + trail zero steps.
    for k in 0..nbits {
        let s = zeros(step_bit(0, true), nbits - 1 - k + trail_bits);
        for (i, row) in rows.iter_mut().enumerate() {
            row[k] = (s >> i) & 1 != 0;
        }
    }
    rows
}
