//! RDMA Extended Transport Header (16 bytes): VA (64), R_Key (32), DMA length (32).

use crate::field::{be32, be64, put32, put64};
use crate::view::fixed_view;
use crate::Result;

pub use ferroce_contracts::reth::{field, HEADER_LEN};

fixed_view!("RETH", HEADER_LEN);

impl<T: AsRef<[u8]>> Packet<T> {
    /// Virtual address.
    pub fn va(&self) -> u64 {
        be64(self.b(), field::VA)
    }
    /// Remote key.
    pub fn r_key(&self) -> u32 {
        be32(self.b(), field::RKEY)
    }
    /// DMA length.
    pub fn dma_len(&self) -> u32 {
        be32(self.b(), field::DMA_LEN)
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
    /// Sets the DMA length.
    pub fn set_dma_len(&mut self, v: u32) {
        put32(self.bm(), field::DMA_LEN, v);
    }
}

/// Parsed RETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Repr {
    /// Virtual address.
    pub va: u64,
    /// Remote key.
    pub r_key: u32,
    /// DMA length.
    pub dma_len: u32,
}

impl Repr {
    /// Parses a checked packet.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        p.check_len()?;
        Ok(Repr {
            va: p.va(),
            r_key: p.r_key(),
            dma_len: p.dma_len(),
        })
    }
    /// Header length (16).
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }
    /// Writes the header into the start of `p`'s buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        p.check_len()?;
        p.set_va(self.va);
        p.set_r_key(self.r_key);
        p.set_dma_len(self.dma_len);
        Ok(())
    }
}
