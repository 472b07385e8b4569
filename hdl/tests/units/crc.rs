use ferroce_hdl::common::crc::*;

fn zlib_like(data: &[u8]) -> u32 {
    // Standard CRC-32 via the zero-init register: complement the first four bytes.
    let mut v = data.to_vec();
    for b in v.iter_mut().take(4) {
        *b ^= 0xFF;
    }
    feed_bytes(0, &v) ^ 0xFFFF_FFFF
}

#[test]
fn check_value() {
    // The catalogue check value of CRC-32/ISO-HDLC.
    assert_eq!(zlib_like(b"123456789"), 0xCBF4_3926);
}

#[test]
fn icrc_prefix_constant() {
    // The ICRC contract: the raw register after FF×8 with init 0xFFFFFFFF is 0xDEBB20E3,
    // which is the zero-init register after FF×4.
    assert_eq!(feed_bytes(0, &[0xFF; 4]), 0xDEBB_20E3);
}

#[test]
fn unzero_inverts_zero() {
    let r = unzero_rows(5);
    for s in [1u32, 0xDEAD_BEEF, 0x8000_0001, 0x1234_5678] {
        assert_eq!(apply_rows(&r, zeros(s, 40)), s);
    }
}

#[test]
fn matrices_match_bitwise() {
    let bytes: Vec<u8> = (0..16u32).map(|i| (i * 37 + 11) as u8).collect();
    let rows = data_rows(128, 0);
    let a = state_rows(16);
    let s0 = 0x0BAD_F00D;
    let mut out = apply_rows(&a, s0);
    for (i, row) in rows.iter().enumerate() {
        let mut x = false;
        for (k, &m) in row.iter().enumerate() {
            x ^= m && (bytes[k / 8] >> (k % 8)) & 1 != 0;
        }
        out ^= (x as u32) << i;
    }
    assert_eq!(out, feed_bytes(s0, &bytes));
}
