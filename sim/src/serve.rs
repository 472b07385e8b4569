//! `ferroce-sim serve`: a Verilator model with the register file behind a Unix socket, for
//! `ferroce-ctl --device sim:PATH` (and any client that speaks the protocol below): the register
//! file alone ([`RegsRtl`]) or the whole engine looped back on itself ([`EngineLoop`]).
//! `ferroce-sim wire` serves the engine on a UDP wire ([`WireBridge`]) the same way with
//! [`serve_running`], whose clock runs between requests.
//!
//! One request a line ([`ferroce_contracts::served`]: registers, clock ticks and the engine's
//! memory). Each register transaction runs the clock until its response. With the register
//! file alone (which has no memory behind it), the transfer table is
//! [`TransferStandIn`](crate::regs_rtl::TransferStandIn) (it accepts posts that pass its checks
//! and completes them `latency` cycles later); the engine sends real frames to itself. Clients
//! are served one after the other.

use crate::engine_rtl::{EngineHost, EngineLoop};
use crate::models::tx::{LocalMemory, SparseMemory};
use crate::regs_rtl::{RegsRtl, Request};
use crate::wire_bridge::WireBridge;
use ferroce_contracts::served::{hex_bytes, hex_string, MEMORY_BYTES};
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};

/// A model with an AXI4-Lite register file that `serve` can serve.
pub trait Served {
    /// A read: `(resp, data)`.
    fn read(&mut self, address: u32) -> Result<(u8, u32), String>;
    /// A write with byte strobes: `resp`.
    fn write(&mut self, address: u32, data: u32, strobes: u8) -> Result<u8, String>;
    /// One clock cycle.
    fn step(&mut self) -> Result<(), String>;
    /// The memory behind the engine, where the model has one.
    fn memory(&mut self) -> Option<&mut SparseMemory> {
        None
    }
}

impl Served for RegsRtl {
    fn read(&mut self, address: u32) -> Result<(u8, u32), String> {
        RegsRtl::read(self, address).map_err(|e| e.to_string())
    }

    fn write(&mut self, address: u32, data: u32, strobes: u8) -> Result<u8, String> {
        RegsRtl::write(self, address, data, strobes).map_err(|e| e.to_string())
    }

    fn step(&mut self) -> Result<(), String> {
        RegsRtl::step(self).map_err(|e| e.to_string())
    }
}

impl Served for EngineLoop {
    fn read(&mut self, address: u32) -> Result<(u8, u32), String> {
        self.transact(Request::read(address))
    }

    fn write(&mut self, address: u32, data: u32, strobes: u8) -> Result<u8, String> {
        self.transact(Request::write(address, data, strobes)).map(|(resp, _)| resp)
    }

    fn step(&mut self) -> Result<(), String> {
        EngineLoop::step(self)
    }

    fn memory(&mut self) -> Option<&mut SparseMemory> {
        Some(&mut self.engine.memory)
    }
}

/// The answer to one request line.
pub fn answer(rtl: &mut impl Served, line: &str) -> String {
    let parts: Vec<&str> = line.split_whitespace().collect();
    let number = |s: &str| wide_number(s).and_then(|v| u32::try_from(v).ok());
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
        ["store", a, bytes] => match (wide_number(a), hex_bytes(bytes)) {
            (Some(a), Some(bytes)) if bytes.len() <= MEMORY_BYTES => memory(rtl).map(|m| {
                m.write(a, &bytes);
                "ok 0x0".to_string()
            }),
            _ => {
                return format!(
                    "error bad store '{}' (ADDRESS, then at most {MEMORY_BYTES:#x} bytes in hexadecimal)",
                    line.trim()
                )
            }
        },
        ["load", a, n] => match (wide_number(a), number(n)) {
            (Some(a), Some(n)) if n as usize <= MEMORY_BYTES => memory(rtl).map(|m| {
                let bytes: Vec<u8> = (0..u64::from(n)).map(|k| m.byte(a.wrapping_add(k))).collect();
                format!("ok 0x0 {}", hex_string(&bytes)).trim_end().to_string()
            }),
            _ => return format!("error bad load '{}' (ADDRESS, then at most {MEMORY_BYTES:#x} bytes)", line.trim()),
        },
        _ => return format!("error unknown request '{}' (read, write, tick, store, load)", line.trim()),
    };
    result.unwrap_or_else(|e| format!("error {e}"))
}

/// A number of the protocol: hexadecimal, `0x` first.
fn wide_number(s: &str) -> Option<u64> {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).ok()
}

fn memory(rtl: &mut impl Served) -> Result<&mut SparseMemory, String> {
    rtl.memory()
        .ok_or_else(|| "no memory behind the register file alone (serve --top engine, or wire, has the engine's)".to_string())
}

fn client(rtl: &mut impl Served, stream: UnixStream) -> std::io::Result<()> {
    let mut writer = stream.try_clone()?;
    for line in BufReader::new(stream).lines() {
        let line = line?;
        writeln!(writer, "{}", answer(rtl, &line))?;
    }
    Ok(())
}

/// Serves clients on `listener` for ever (until the process ends).
pub fn serve(listener: UnixListener, rtl: &mut impl Served) -> std::io::Result<()> {
    for stream in listener.incoming() {
        // a client that goes away mid-line ends its session, not the server
        let _ = client(rtl, stream?);
    }
    Ok(())
}

impl Served for WireBridge {
    fn read(&mut self, address: u32) -> Result<(u8, u32), String> {
        self.transact(Request::read(address))
    }

    fn write(&mut self, address: u32, data: u32, strobes: u8) -> Result<u8, String> {
        self.transact(Request::write(address, data, strobes)).map(|(resp, _)| resp)
    }

    fn step(&mut self) -> Result<(), String> {
        WireBridge::step(self)
    }

    fn memory(&mut self) -> Option<&mut SparseMemory> {
        Some(&mut self.engine().memory)
    }
}

/// A client of [`serve_running`]: its socket and the bytes of its unfinished line.
struct Client {
    stream: UnixStream,
    line: Vec<u8>,
}

/// Serves any number of clients on `listener` while `run` keeps the model going between their
/// requests (each call runs it a little); returns when `run` says to stop (`Ok(false)`) or fails.
pub fn serve_running<M: Served>(
    listener: UnixListener,
    model: &mut M,
    mut run: impl FnMut(&mut M) -> Result<bool, String>,
) -> Result<(), String> {
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    let mut clients: Vec<Client> = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(true).map_err(|e| e.to_string())?;
                clients.push(Client { stream, line: Vec::new() });
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            Err(e) => return Err(e.to_string()),
        }
        clients.retain_mut(|client| loop {
            match client.stream.read(&mut chunk) {
                Ok(0) => return false,
                Ok(n) => client.line.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == ErrorKind::WouldBlock => return true,
                Err(_) => return false,
            }
            while let Some(end) = client.line.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = client.line.drain(..=end).collect();
                let reply = answer(model, &String::from_utf8_lossy(&line));
                let _ = client.stream.set_nonblocking(false);
                let sent = writeln!(client.stream, "{reply}");
                let _ = client.stream.set_nonblocking(true);
                if sent.is_err() {
                    return false;
                }
            }
        });
        if !run(model)? {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A register file that answers every access with OKAY and 0, with memory or without.
    struct Stand {
        memory: Option<SparseMemory>,
        cycles: u64,
    }

    impl Served for Stand {
        fn read(&mut self, _: u32) -> Result<(u8, u32), String> {
            Ok((0, 0))
        }

        fn write(&mut self, _: u32, _: u32, _: u8) -> Result<u8, String> {
            Ok(0)
        }

        fn step(&mut self) -> Result<(), String> {
            self.cycles += 1;
            Ok(())
        }

        fn memory(&mut self) -> Option<&mut SparseMemory> {
            self.memory.as_mut()
        }
    }

    #[test]
    fn memory_requests_store_and_load_bytes_and_refuse_bad_lines() {
        let mut engine = Stand {
            memory: Some(SparseMemory::new()),
            cycles: 0,
        };
        assert_eq!(
            answer(&mut engine, "store 0x1_0000_0000 00a5ff"),
            "error bad store 'store 0x1_0000_0000 00a5ff' (ADDRESS, then at most 0x10000 bytes in hexadecimal)"
        );
        assert_eq!(answer(&mut engine, "store 0x100000000 00a5ff"), "ok 0x0");
        assert_eq!(answer(&mut engine, "load 0xffffffff 0x5"), "ok 0x0 0000a5ff00");
        assert_eq!(answer(&mut engine, "load 0x0 0x0"), "ok 0x0");
        assert_eq!(engine.cycles, 0, "memory requests take no clock cycle");
        for bad in ["store 0x10 abc", "store 0x10 zz", "store 0x10", "load 0x10 0x10001", "load 0x10"] {
            assert!(answer(&mut engine, bad).starts_with("error "), "{bad}");
        }
        let most = "00".repeat(MEMORY_BYTES);
        assert_eq!(answer(&mut engine, &format!("store 0x0 {most}")), "ok 0x0");
        assert!(answer(&mut engine, &format!("store 0x0 {most}00")).starts_with("error bad store"));
        let mut registers = Stand { memory: None, cycles: 0 };
        assert_eq!(
            answer(&mut registers, "load 0x0 0x1"),
            "error no memory behind the register file alone (serve --top engine, or wire, has the engine's)"
        );
        assert_eq!(answer(&mut registers, "tick 0x3"), "ok 0x0");
        assert_eq!(registers.cycles, 3);
    }
}
