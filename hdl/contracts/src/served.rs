//! The simulated device's line protocol: `ferroce-sim serve` and `ferroce-sim wire` answer it,
//! `ferroce-ctl --device sim:PATH` speaks it. One request a line, numbers in hexadecimal with
//! `0x`; the answer `ok RESP [DATA]` or `error MESSAGE`:
//!
//! | request | answer |
//! |---|---|
//! | `read ADDRESS` | `ok RESP DATA` |
//! | `write ADDRESS DATA STROBES` | `ok RESP` |
//! | `tick CYCLES` | `ok 0x0` (runs the clock) |
//! | `store ADDRESS BYTES` | `ok 0x0` (the bytes written into the engine's memory) |
//! | `load ADDRESS LENGTH` | `ok 0x0 BYTES` (the engine's memory read) |
//!
//! `RESP` is the AXI response (0 OKAY, 2 SLVERR, 3 DECERR). `store` and `load` are the host's
//! view of the memory behind the engine (on a board: host memory it writes itself, or the
//! card's through a DMA engine) and take no clock cycle; `BYTES` are two hexadecimal digits a
//! byte, without `0x`.

/// Bytes a `store` or `load` request moves at most.
pub const MEMORY_BYTES: usize = 65536;

/// `bytes` as `BYTES`: two lowercase hexadecimal digits a byte.
pub fn hex_string(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `BYTES` read back: `None` unless `text` is an even number of hexadecimal digits.
pub fn hex_bytes(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|k| u8::from_str_radix(&text[k..k + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_go_to_hexadecimal_and_back() {
        assert_eq!(hex_string(&[0, 0xa5, 0xff]), "00a5ff");
        assert_eq!(hex_bytes("00a5FF"), Some(vec![0, 0xa5, 0xff]));
        assert_eq!(hex_bytes(""), Some(vec![]));
        for bad in ["abc", "zz", "0x00", "é0"] {
            assert_eq!(hex_bytes(bad), None, "{bad}");
        }
    }
}
