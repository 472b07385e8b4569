//! ACK Extended Transport Header (4 bytes): syndrome (8), MSN (24).

use crate::field::{be24, bits, fits, put24};
use crate::view::fixed_view;
use crate::Result;

pub use ferroce_contracts::aeth::{field, split, word, HEADER_LEN};

fixed_view!("AETH", HEADER_LEN);

/// Meaning of an AETH syndrome byte (bits 6:5 select the kind, bits 4:0 the value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Syndrome {
    /// ACK, with the 5-bit credit count.
    Ack {
        /// Credit count (0x1F = invalid credit).
        credits: u8,
    },
    /// RNR NAK, with the 5-bit timer code.
    RnrNak {
        /// RNR timer code.
        timer: u8,
    },
    /// NAK, with the 5-bit code (0 PSN sequence error, 1 invalid request,
    /// 2 remote access error, 3 remote operational error, 4 invalid RD request).
    Nak {
        /// NAK code.
        code: u8,
    },
    /// Reserved kind (0b10) or bit 7 set.
    Reserved(u8),
}

impl Syndrome {
    /// Decodes a syndrome byte.
    pub fn from_byte(s: u8) -> Syndrome {
        if s & 0x80 != 0 {
            return Syndrome::Reserved(s);
        }
        let v = s & 0x1F;
        match (s >> 5) & 3 {
            0 => Syndrome::Ack { credits: v },
            1 => Syndrome::RnrNak { timer: v },
            3 => Syndrome::Nak { code: v },
            _ => Syndrome::Reserved(s),
        }
    }
    /// Encodes to a syndrome byte.
    pub fn to_byte(self) -> u8 {
        match self {
            Syndrome::Ack { credits } => credits & 0x1F,
            Syndrome::RnrNak { timer } => 0x20 | (timer & 0x1F),
            Syndrome::Nak { code } => 0x60 | (code & 0x1F),
            Syndrome::Reserved(s) => s,
        }
    }
}

impl<T: AsRef<[u8]>> Packet<T> {
    /// Syndrome byte.
    pub fn syndrome(&self) -> u8 {
        self.b()[field::SYNDROME]
    }
    /// Message sequence number (24 bits).
    pub fn msn(&self) -> u32 {
        be24(self.b(), field::MSN)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the syndrome byte.
    pub fn set_syndrome(&mut self, v: u8) {
        self.bm()[field::SYNDROME] = v;
    }
    /// Sets the MSN (low 24 bits used).
    pub fn set_msn(&mut self, v: u32) {
        put24(self.bm(), field::MSN, v);
    }
}

/// Parsed AETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Repr {
    /// Syndrome byte (see [`Syndrome`]).
    pub syndrome: u8,
    /// Message sequence number (24 bits).
    pub msn: u32,
}

impl Repr {
    /// Parses a checked packet.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        p.check_len()?;
        Ok(Repr {
            syndrome: p.syndrome(),
            msn: p.msn(),
        })
    }
    /// The header as one 32-bit word: syndrome in bits 31:24, MSN in bits 23:0 (see
    /// [`word`]).
    pub const fn word(&self) -> u32 {
        word(self.syndrome, self.msn)
    }
    /// The header of a 32-bit word (see [`word`]).
    pub const fn from_word(word: u32) -> Repr {
        let (syndrome, msn) = split(word);
        Repr { syndrome, msn }
    }
    /// Decoded syndrome.
    pub fn kind(&self) -> Syndrome {
        Syndrome::from_byte(self.syndrome)
    }
    /// Header length (4).
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }
    /// Writes the header into the start of `p`'s buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        p.check_len()?;
        fits(self.msn.into(), bits(field::MSN), "AETH MSN")?;
        p.set_syndrome(self.syndrome);
        p.set_msn(self.msn);
        Ok(())
    }
}
