//! Atomic Extended Transport Header (28 bytes): VA (64), R_Key (32), swap/add data (64),
//! compare data (64).

use crate::field::{be32, be64, put32, put64};
use crate::view::fixed_view;
use crate::Result;

pub use ferroce_contracts::atomic_eth::{field, HEADER_LEN};

fixed_view!("AtomicETH", HEADER_LEN);

impl<T: AsRef<[u8]>> Packet<T> {
    /// Virtual address.
    pub fn va(&self) -> u64 {
        be64(self.b(), field::VA)
    }
    /// Remote key.
    pub fn r_key(&self) -> u32 {
        be32(self.b(), field::RKEY)
    }
    /// Swap (CmpSwap) or add (FetchAdd) data.
    pub fn swap_add(&self) -> u64 {
        be64(self.b(), field::SWAP_ADD)
    }
    /// Compare data (CmpSwap).
    pub fn compare(&self) -> u64 {
        be64(self.b(), field::COMPARE)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the virtual address.
    pub fn set_va(&mut self, v: u64) {
        put64(self.bm(), field::VA, v);
    }
    /// Sets the remote key.
    pub fn set_r_key(&mut self, v: u32) {
        put32(self.bm(), field::RKEY, v);
    }
    /// Sets the swap/add data.
    pub fn set_swap_add(&mut self, v: u64) {
        put64(self.bm(), field::SWAP_ADD, v);
    }
    /// Sets the compare data.
    pub fn set_compare(&mut self, v: u64) {
        put64(self.bm(), field::COMPARE, v);
    }
}

/// Parsed AtomicETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Repr {
    /// Virtual address.
    pub va: u64,
    /// Remote key.
    pub r_key: u32,
    /// Swap or add data.
    pub swap_add: u64,
    /// Compare data.
    pub compare: u64,
}

impl Repr {
    /// Parses a checked packet.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        p.check_len()?;
        Ok(Repr {
            va: p.va(),
            r_key: p.r_key(),
            swap_add: p.swap_add(),
            compare: p.compare(),
        })
    }
    /// Header length (28).
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }
    /// Writes the header into the start of `p`'s buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        p.check_len()?;
        p.set_va(self.va);
        p.set_r_key(self.r_key);
        p.set_swap_add(self.swap_add);
        p.set_compare(self.compare);
        Ok(())
    }
}
