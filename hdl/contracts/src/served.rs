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
