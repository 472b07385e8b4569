//! `ferroce-sim serve`: the register file's Verilator model behind a Unix socket, for
//! `ferroce-ctl --device sim:PATH` (and any client that speaks the protocol below).
//!
//! One line per AXI4-Lite transaction, numbers in hexadecimal with `0x`:
//!
//! | request | answer |
//! |---|---|
//! | `read ADDRESS` | `ok RESP DATA` |
//! | `write ADDRESS DATA STROBES` | `ok RESP` |
//! | `tick CYCLES` | `ok 0x0` (runs the clock) |
//! | anything else | `error MESSAGE` |
//!
//! `RESP` is the AXI response (0 OKAY, 2 SLVERR, 3 DECERR). Each transaction runs the clock
//! until its response; the transfer table is [`TransferStandIn`](crate::regs_rtl::TransferStandIn)
//! (it accepts posts that pass its checks and completes them `latency` cycles later) until the
//! TX path is joined to the register file. Clients are served one after the other.

use crate::regs_rtl::RegsRtl;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};

/// The answer to one request line.
pub fn answer(rtl: &mut RegsRtl, line: &str) -> String {
    let parts: Vec<&str> = line.split_whitespace().collect();
    let number = |s: &str| u32::from_str_radix(s.trim_start_matches("0x"), 16).ok();
    let result = match parts.as_slice() {
        ["read", a] => match number(a) {
            Some(a) => rtl.read(a).map(|(r, d)| format!("ok {r:#x} {d:#x}")),
            None => return format!("error bad address '{a}'"),
        },
        ["write", a, d, s] => match (number(a), number(d), number(s)) {
            (Some(a), Some(d), Some(s)) if s < 16 => rtl.write(a, d, s as u8).map(|r| format!("ok {r:#x}")),
            _ => return format!("error bad write '{}'", line.trim()),
        },
        ["tick", n] => match number(n) {
            Some(n) => (0..n).try_for_each(|_| rtl.step()).map(|_| "ok 0x0".to_string()),
            None => return format!("error bad cycle count '{n}'"),
        },
        _ => return format!("error unknown request '{}' (read, write, tick)", line.trim()),
    };
    result.unwrap_or_else(|e| format!("error {e}"))
}

fn client(rtl: &mut RegsRtl, stream: UnixStream) -> std::io::Result<()> {
    let mut writer = stream.try_clone()?;
    for line in BufReader::new(stream).lines() {
        let line = line?;
        writeln!(writer, "{}", answer(rtl, &line))?;
    }
    Ok(())
}

/// Serves clients on `listener` for ever (until the process ends).
pub fn serve(listener: UnixListener, rtl: &mut RegsRtl) -> std::io::Result<()> {
    for stream in listener.incoming() {
        // a client that goes away mid-line ends its session, not the server
        let _ = client(rtl, stream?);
    }
    Ok(())
}
