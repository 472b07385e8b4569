//! Local memory: where the TX path reads payload bytes. Addresses are 64-bit and wrap (the byte
//! after `u64::MAX` is at 0).

use std::collections::BTreeMap;
use std::fmt;

/// A byte at every 64-bit address: what the packet generator's memory reads return. The model
/// and the RTL runner's memory answer read with the same implementation.
pub trait LocalMemory: fmt::Debug + Send + Sync {
    /// The byte at `addr`.
    fn byte(&self, addr: u64) -> u8;

    /// Fills `out` with the bytes from `addr` on (addresses wrap).
    fn read(&self, addr: u64, out: &mut [u8]) {
        for (k, b) in out.iter_mut().enumerate() {
            *b = self.byte(addr.wrapping_add(k as u64));
        }
    }

    /// `len` bytes from `addr` on.
    fn bytes(&self, addr: u64, len: usize) -> Vec<u8> {
        let mut out = vec![0; len];
        self.read(addr, &mut out);
        out
    }
}

/// SplitMix64's output function, a bijection of 64-bit words.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A pseudo-random byte at every address, from a seed (what `ferroce-sim tx --seed` reads):
/// the bytes of the 8-byte word `w = splitmix64(seed ^ (addr >> 3) · 0x9E3779B97F4A7C15)`
/// (wrapping product), little-endian, byte `addr & 7` of it. Any two transfers from different
/// addresses read different bytes, so a payload shows where it was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PatternMemory {
    /// The seed.
    pub seed: u64,
}

impl PatternMemory {
    /// The pattern of `seed`.
    pub const fn new(seed: u64) -> PatternMemory {
        PatternMemory { seed }
    }

    fn word(&self, index: u64) -> [u8; 8] {
        splitmix64(self.seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15)).to_le_bytes()
    }
}

impl LocalMemory for PatternMemory {
    fn byte(&self, addr: u64) -> u8 {
        self.word(addr >> 3)[(addr & 7) as usize]
    }

    fn read(&self, addr: u64, out: &mut [u8]) {
        // A word at a time: this is the payload source of every long test.
        let mut at = addr;
        let mut k = 0;
        while k < out.len() {
            let word = self.word(at >> 3);
            let from = (at & 7) as usize;
            let n = (8 - from).min(out.len() - k);
            out[k..k + n].copy_from_slice(&word[from..from + n]);
            k += n;
            at = at.wrapping_add(n as u64);
        }
    }
}

/// A sparse byte store: the bytes written, 0 everywhere else.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SparseMemory {
    bytes: BTreeMap<u64, u8>,
}

impl SparseMemory {
    /// An empty store (every byte 0).
    pub fn new() -> SparseMemory {
        SparseMemory::default()
    }

    /// Writes `data` from `addr` on (addresses wrap).
    pub fn write(&mut self, addr: u64, data: &[u8]) {
        for (k, &b) in data.iter().enumerate() {
            self.bytes.insert(addr.wrapping_add(k as u64), b);
        }
    }

    /// The addresses written, in order.
    pub fn addresses(&self) -> impl Iterator<Item = u64> + '_ {
        self.bytes.keys().copied()
    }
}

impl LocalMemory for SparseMemory {
    fn byte(&self, addr: u64) -> u8 {
        self.bytes.get(&addr).copied().unwrap_or(0)
    }
}
