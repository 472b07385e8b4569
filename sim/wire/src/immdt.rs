//! ImmDt (4 bytes): Immediate data (32 bits).

use crate::field::{be32, put32};
use crate::view::fixed_view;
use crate::Result;

pub use ferroce_contracts::immdt::{field, HEADER_LEN};

fixed_view!("ImmDt", HEADER_LEN);

impl<T: AsRef<[u8]>> Packet<T> {
    /// The 32-bit value.
    pub fn imm(&self) -> u32 {
        be32(self.b(), field::DATA)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the 32-bit value.
    pub fn set_imm(&mut self, v: u32) {
        put32(self.bm(), field::DATA, v);
    }
}

/// Parsed ImmDt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Repr {
    /// The 32-bit value.
    pub imm: u32,
}

impl Repr {
    /// Parses a checked packet.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        p.check_len()?;
        Ok(Repr { imm: p.imm() })
    }
    /// Header length (4).
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }
    /// Writes the header into the start of `p`'s buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        p.check_len()?;
        p.set_imm(self.imm);
        Ok(())
    }
}
