//! Atomic ACK Extended Transport Header (8 bytes): original remote data (64).
//! Follows the AETH of an ATOMIC ACKNOWLEDGE (opcode 0x12 / 0x52).

use crate::field::{be64, put64};
use crate::view::fixed_view;
use crate::Result;

pub use ferroce_contracts::atomic_ack_eth::{field, HEADER_LEN};

fixed_view!("AtomicAckETH", HEADER_LEN);

impl<T: AsRef<[u8]>> Packet<T> {
    /// Original remote data.
    pub fn orig_data(&self) -> u64 {
        be64(self.b(), field::ORIGINAL)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the original remote data.
    pub fn set_orig_data(&mut self, v: u64) {
        put64(self.bm(), field::ORIGINAL, v);
    }
}

/// Parsed AtomicAckETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Repr {
    /// Original remote data.
    pub orig_data: u64,
}

impl Repr {
    /// Parses a checked packet.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        p.check_len()?;
        Ok(Repr { orig_data: p.orig_data() })
    }
    /// Header length (8).
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }
    /// Writes the header into the start of `p`'s buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        p.check_len()?;
        p.set_orig_data(self.orig_data);
        Ok(())
    }
}
