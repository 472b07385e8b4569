//! Datagram Extended Transport Header (8 bytes): Q_Key (32), reserved (8), SrcQP (24).

use crate::field::{be24, be32, bits, fits, put24, put32};
use crate::view::fixed_view;
use crate::Result;

pub use ferroce_contracts::deth::{field, HEADER_LEN};

fixed_view!("DETH", HEADER_LEN);

impl<T: AsRef<[u8]>> Packet<T> {
    /// Queue key.
    pub fn q_key(&self) -> u32 {
        be32(self.b(), field::QKEY)
    }
    /// Reserved byte 4.
    pub fn reserved(&self) -> u8 {
        self.b()[field::RESERVED]
    }
    /// Source QP (24 bits).
    pub fn src_qp(&self) -> u32 {
        be24(self.b(), field::SRC_QP)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the queue key.
    pub fn set_q_key(&mut self, v: u32) {
        put32(self.bm(), field::QKEY, v);
    }
    /// Sets the reserved byte.
    pub fn set_reserved(&mut self, v: u8) {
        self.bm()[field::RESERVED] = v;
    }
    /// Sets the source QP (low 24 bits used).
    pub fn set_src_qp(&mut self, v: u32) {
        put24(self.bm(), field::SRC_QP, v);
    }
}

/// Parsed DETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Repr {
    /// Queue key.
    pub q_key: u32,
    /// Reserved byte (0 on the wire normally; kept for exact round trips).
    pub reserved: u8,
    /// Source QP (24 bits).
    pub src_qp: u32,
}

impl Repr {
    /// Parses a checked packet.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        p.check_len()?;
        Ok(Repr {
            q_key: p.q_key(),
            reserved: p.reserved(),
            src_qp: p.src_qp(),
        })
    }
    /// Header length (8).
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }
    /// Writes the header into the start of `p`'s buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        p.check_len()?;
        fits(self.src_qp.into(), bits(field::SRC_QP), "DETH SrcQP")?;
        p.set_q_key(self.q_key);
        p.set_reserved(self.reserved);
        p.set_src_qp(self.src_qp);
        Ok(())
    }
}
