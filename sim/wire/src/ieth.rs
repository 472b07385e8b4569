//! IETH (4 bytes): Invalidate extended transport header; the R_Key to invalidate (32 bits).

use crate::field::{be32, put32};
use crate::view::fixed_view;
use crate::Result;

pub use ferroce_contracts::ieth::{field, HEADER_LEN};

fixed_view!("IETH", HEADER_LEN);

impl<T: AsRef<[u8]>> Packet<T> {
    /// The 32-bit value.
    pub fn r_key(&self) -> u32 {
        be32(self.b(), field::RKEY)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the 32-bit value.
    pub fn set_r_key(&mut self, v: u32) {
        put32(self.bm(), field::RKEY, v);
    }
}

/// Parsed IETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Repr {
    /// The 32-bit value.
    pub r_key: u32,
}

impl Repr {
    /// Parses a checked packet.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        p.check_len()?;
        Ok(Repr { r_key: p.r_key() })
    }
    /// Header length (4).
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }
    /// Writes the header into the start of `p`'s buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        p.check_len()?;
        p.set_r_key(self.r_key);
        Ok(())
    }
}
