//! Runner of the RX front end's Verilator model (`ferroce-sim rx --engine rtl`).
//!
//! The RTL of the RX front end is not written yet (issue 3); until it is, [`rx_rtl`] reports
//! that, and `ferroce-sim rx` exits with code 2.

use crate::rx::RxResult;

/// Runs frames through the Verilator model of the RX front end; one result per frame, in order.
pub fn rx_rtl(frames: &[Vec<u8>]) -> Result<Vec<RxResult>, String> {
    let _ = frames;
    Err("the RX front end RTL is not built yet (issue 3); use --engine model".into())
}
