//! Reliable Datagram Extended Transport Header (4 bytes): reserved (8), EE-Context (24).
//! Present on every RD packet (per the IBTA spec and Linux rxe).

use crate::field::{be24, bits, fits, put24};
use crate::view::fixed_view;
use crate::Result;

pub use ferroce_contracts::rdeth::{field, HEADER_LEN};

fixed_view!("RDETH", HEADER_LEN);

impl<T: AsRef<[u8]>> Packet<T> {
    /// Reserved byte 0.
    pub fn reserved(&self) -> u8 {
        self.b()[field::RESERVED]
    }
    /// End-to-end context (24 bits).
    pub fn ee_context(&self) -> u32 {
        be24(self.b(), field::EE_CONTEXT)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the reserved byte.
    pub fn set_reserved(&mut self, v: u8) {
        self.bm()[field::RESERVED] = v;
    }
    /// Sets the EE context (low 24 bits used).
    pub fn set_ee_context(&mut self, v: u32) {
        put24(self.bm(), field::EE_CONTEXT, v);
    }
}

/// Parsed RDETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Repr {
    /// Reserved byte (kept for exact round trips).
    pub reserved: u8,
    /// End-to-end context (24 bits).
    pub ee_context: u32,
}

impl Repr {
    /// Parses a checked packet.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        p.check_len()?;
        Ok(Repr {
            reserved: p.reserved(),
            ee_context: p.ee_context(),
        })
    }
    /// Header length (4).
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }
    /// Writes the header into the start of `p`'s buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        p.check_len()?;
        fits(self.ee_context.into(), bits(field::EE_CONTEXT), "RDETH EE context")?;
        p.set_reserved(self.reserved);
        p.set_ee_context(self.ee_context);
        Ok(())
    }
}
