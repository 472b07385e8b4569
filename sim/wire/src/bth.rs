//! Base Transport Header (12 bytes).
//!
//! Byte 0 OpCode; byte 1 = SE(1) M(1) PadCnt(2) TVer(4); bytes 2–3 P_Key;
//! byte 4 = FECN(1) BECN(1) resv6 (the whole byte is masked in the ICRC);
//! bytes 5–7 DestQP; byte 8 = AckReq(1) resv7; bytes 9–11 PSN.

use crate::field::{be16, be24, bits, fits, put16, put24};
use crate::opcode::Opcode;
use crate::view::fixed_view;
use crate::{Error, Result};

pub use ferroce_contracts::bth::{
    field, FLAG_ACKREQ, FLAG_BECN, FLAG_FECN, FLAG_M, FLAG_SE, HEADER_LEN, PADCNT_SHIFT, PSN_MASK, TVER_MASK,
};

/// PadCnt (2 bits) in [`field::FLAGS`], before the shift by [`PADCNT_SHIFT`].
const PADCNT_MASK: u8 = 0x03;
/// The reserved 6 bits of [`field::FECN_BECN`].
const RESV6_MASK: u8 = !(FLAG_FECN | FLAG_BECN);
/// The reserved 7 bits of [`field::ACKREQ`].
const RESV7_MASK: u8 = !FLAG_ACKREQ;

/// `bit` if `set`, else 0.
fn flag(set: bool, bit: u8) -> u8 {
    if set {
        bit
    } else {
        0
    }
}

fixed_view!("BTH", HEADER_LEN);

impl<T: AsRef<[u8]>> Packet<T> {
    /// Raw opcode byte (possibly reserved).
    pub fn opcode_raw(&self) -> u8 {
        self.b()[field::OPCODE]
    }
    /// Opcode, or [`Error::UnknownOpcode`] if reserved.
    pub fn opcode(&self) -> Result<Opcode> {
        Ok(Opcode::new(self.b()[field::OPCODE])?)
    }
    /// Solicited event.
    pub fn solicited(&self) -> bool {
        self.b()[field::FLAGS] & FLAG_SE != 0
    }
    /// MigReq.
    pub fn migreq(&self) -> bool {
        self.b()[field::FLAGS] & FLAG_M != 0
    }
    /// Pad count (0–3).
    pub fn pad_cnt(&self) -> u8 {
        (self.b()[field::FLAGS] >> PADCNT_SHIFT) & PADCNT_MASK
    }
    /// Transport header version (must be 0).
    pub fn tver(&self) -> u8 {
        self.b()[field::FLAGS] & TVER_MASK
    }
    /// Partition key.
    pub fn p_key(&self) -> u16 {
        be16(self.b(), field::PKEY)
    }
    /// FECN (byte 4 bit 7).
    pub fn fecn(&self) -> bool {
        self.b()[field::FECN_BECN] & FLAG_FECN != 0
    }
    /// BECN (byte 4 bit 6).
    pub fn becn(&self) -> bool {
        self.b()[field::FECN_BECN] & FLAG_BECN != 0
    }
    /// Reserved 6 bits of byte 4.
    pub fn resv6(&self) -> u8 {
        self.b()[field::FECN_BECN] & RESV6_MASK
    }
    /// Destination QP (24 bits).
    pub fn dest_qp(&self) -> u32 {
        be24(self.b(), field::DEST_QP)
    }
    /// AckReq.
    pub fn ack_req(&self) -> bool {
        self.b()[field::ACKREQ] & FLAG_ACKREQ != 0
    }
    /// Reserved 7 bits of byte 8.
    pub fn resv7(&self) -> u8 {
        self.b()[field::ACKREQ] & RESV7_MASK
    }
    /// Packet sequence number (24 bits).
    pub fn psn(&self) -> u32 {
        be24(self.b(), field::PSN)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the raw opcode byte.
    pub fn set_opcode_raw(&mut self, v: u8) {
        self.bm()[field::OPCODE] = v;
    }
    /// Sets byte 1 from its fields (values are truncated to their widths).
    pub fn set_flags(&mut self, se: bool, m: bool, pad_cnt: u8, tver: u8) {
        self.bm()[field::FLAGS] = flag(se, FLAG_SE) | flag(m, FLAG_M) | ((pad_cnt & PADCNT_MASK) << PADCNT_SHIFT) | (tver & TVER_MASK);
    }
    /// Sets only the PadCnt bits.
    pub fn set_pad_cnt(&mut self, pad_cnt: u8) {
        let b = self.bm();
        b[field::FLAGS] = (b[field::FLAGS] & !(PADCNT_MASK << PADCNT_SHIFT)) | ((pad_cnt & PADCNT_MASK) << PADCNT_SHIFT);
    }
    /// Sets the partition key.
    pub fn set_p_key(&mut self, v: u16) {
        put16(self.bm(), field::PKEY, v);
    }
    /// Sets byte 4 from FECN, BECN and resv6.
    pub fn set_byte4(&mut self, fecn: bool, becn: bool, resv6: u8) {
        self.bm()[field::FECN_BECN] = flag(fecn, FLAG_FECN) | flag(becn, FLAG_BECN) | (resv6 & RESV6_MASK);
    }
    /// Sets the destination QP (low 24 bits used).
    pub fn set_dest_qp(&mut self, v: u32) {
        put24(self.bm(), field::DEST_QP, v);
    }
    /// Sets byte 8 from AckReq and resv7.
    pub fn set_byte8(&mut self, ack_req: bool, resv7: u8) {
        self.bm()[field::ACKREQ] = flag(ack_req, FLAG_ACKREQ) | (resv7 & RESV7_MASK);
    }
    /// Sets the PSN (low 24 bits used).
    pub fn set_psn(&mut self, v: u32) {
        put24(self.bm(), field::PSN, v & PSN_MASK);
    }
}

/// Parsed BTH. Reserved fields are kept so that parse/emit are exact inverses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Repr {
    /// Opcode.
    pub opcode: Opcode,
    /// Solicited event.
    pub solicited: bool,
    /// MigReq.
    pub migreq: bool,
    /// Pad count (0–3).
    pub pad_cnt: u8,
    /// Partition key.
    pub p_key: u16,
    /// FECN.
    pub fecn: bool,
    /// BECN.
    pub becn: bool,
    /// Reserved 6 bits of byte 4 (masked in the ICRC).
    pub resv6: u8,
    /// Destination QP (24 bits).
    pub dest_qp: u32,
    /// AckReq.
    pub ack_req: bool,
    /// Reserved 7 bits of byte 8.
    pub resv7: u8,
    /// PSN (24 bits).
    pub psn: u32,
}

impl Repr {
    /// Parses a checked packet: the opcode must be valid and TVer 0.
    pub fn parse<T: AsRef<[u8]>>(p: &Packet<T>) -> Result<Repr> {
        p.check_len()?;
        let opcode = p.opcode()?;
        if p.tver() != 0 {
            return Err(Error::BadTver(p.tver()));
        }
        Ok(Repr {
            opcode,
            solicited: p.solicited(),
            migreq: p.migreq(),
            pad_cnt: p.pad_cnt(),
            p_key: p.p_key(),
            fecn: p.fecn(),
            becn: p.becn(),
            resv6: p.resv6(),
            dest_qp: p.dest_qp(),
            ack_req: p.ack_req(),
            resv7: p.resv7(),
            psn: p.psn(),
        })
    }
    /// Header length (12).
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }
    /// Writes the 12-byte BTH (TVer 0) into the start of `p`'s buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Packet<T>) -> Result<()> {
        p.check_len()?;
        fits(self.pad_cnt.into(), PADCNT_MASK.count_ones(), "BTH PadCnt")?;
        fits(self.resv6.into(), RESV6_MASK.count_ones(), "BTH resv6")?;
        fits(self.resv7.into(), RESV7_MASK.count_ones(), "BTH resv7")?;
        fits(self.dest_qp.into(), bits(field::DEST_QP), "BTH DestQP")?;
        fits(self.psn.into(), bits(field::PSN), "BTH PSN")?;
        p.set_opcode_raw(self.opcode.value());
        p.set_flags(self.solicited, self.migreq, self.pad_cnt, 0);
        p.set_p_key(self.p_key);
        p.set_byte4(self.fecn, self.becn, self.resv6);
        p.set_dest_qp(self.dest_qp);
        p.set_byte8(self.ack_req, self.resv7);
        p.set_psn(self.psn);
        Ok(())
    }
}
