//! Big-endian field helpers (crate-internal). Every helper takes a byte range of the buffer,
//! normally a `field::X` of a header module (from `ferroce_contracts`), shifted with [`shift`]
//! when the header does not start at byte 0 of the buffer.

pub(crate) use ferroce_contracts::Field;

/// `f` moved `by` bytes further into the buffer (a field of a header that starts at `by`).
#[inline]
pub(crate) const fn shift(f: Field, by: usize) -> Field {
    f.start + by..f.end + by
}

/// Width of a field in bits.
#[inline]
pub(crate) const fn bits(f: Field) -> u32 {
    8 * (f.end - f.start) as u32
}

#[inline]
pub(crate) fn be16(b: &[u8], f: Field) -> u16 {
    debug_assert_eq!(f.len(), 2, "be16 on a {}-byte field", f.len());
    let s = &b[f];
    u16::from_be_bytes([s[0], s[1]])
}
#[inline]
pub(crate) fn be24(b: &[u8], f: Field) -> u32 {
    debug_assert_eq!(f.len(), 3, "be24 on a {}-byte field", f.len());
    let s = &b[f];
    u32::from_be_bytes([0, s[0], s[1], s[2]])
}
#[inline]
pub(crate) fn be32(b: &[u8], f: Field) -> u32 {
    debug_assert_eq!(f.len(), 4, "be32 on a {}-byte field", f.len());
    let s = &b[f];
    u32::from_be_bytes([s[0], s[1], s[2], s[3]])
}
#[inline]
pub(crate) fn be64(b: &[u8], f: Field) -> u64 {
    debug_assert_eq!(f.len(), 8, "be64 on a {}-byte field", f.len());
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[f]);
    u64::from_be_bytes(a)
}
#[inline]
pub(crate) fn put16(b: &mut [u8], f: Field, v: u16) {
    debug_assert_eq!(f.len(), 2, "put16 on a {}-byte field", f.len());
    b[f].copy_from_slice(&v.to_be_bytes());
}
/// Writes the low 24 bits of `v`.
#[inline]
pub(crate) fn put24(b: &mut [u8], f: Field, v: u32) {
    debug_assert_eq!(f.len(), 3, "put24 on a {}-byte field", f.len());
    b[f].copy_from_slice(&v.to_be_bytes()[1..]);
}
#[inline]
pub(crate) fn put32(b: &mut [u8], f: Field, v: u32) {
    debug_assert_eq!(f.len(), 4, "put32 on a {}-byte field", f.len());
    b[f].copy_from_slice(&v.to_be_bytes());
}
#[inline]
pub(crate) fn put64(b: &mut [u8], f: Field, v: u64) {
    debug_assert_eq!(f.len(), 8, "put64 on a {}-byte field", f.len());
    b[f].copy_from_slice(&v.to_be_bytes());
}

/// Checks that `v` fits in `bits` bits.
#[inline]
pub(crate) fn fits(v: u64, bits: u32, what: &'static str) -> crate::Result<()> {
    if bits < 64 && v >> bits != 0 {
        Err(crate::Error::FieldRange(what))
    } else {
        Ok(())
    }
}
