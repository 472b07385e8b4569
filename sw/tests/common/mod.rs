//! Helpers of the CLI tests: a file standing in for the register space, word by word.

use std::path::Path;

/// The little-endian word at byte `address` of the file.
pub fn word(path: &Path, address: u32) -> u32 {
    let b = std::fs::read(path).unwrap();
    u32::from_le_bytes(b[address as usize..address as usize + 4].try_into().unwrap())
}

/// Writes `value` at byte `address` of the file.
pub fn set_word(path: &Path, address: u32, value: u32) {
    let mut b = std::fs::read(path).unwrap();
    b[address as usize..address as usize + 4].copy_from_slice(&value.to_le_bytes());
    std::fs::write(path, b).unwrap();
}
