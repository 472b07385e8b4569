//! The serial bridge's Verilator model (`ferroce_serial_bridge_8n1`) driven from Rust: a
//! software UART on each of its lines ([`LineDriver`] on `rx`, [`LineDecoder`] on `tx`) and an
//! AXI4-Lite slave on its master port that executes each access on a [`Served`] register file
//! (a memory, or the register file's own Verilator model) after a random latency, with random
//! `ready`, checking that the bridge holds `valid` and the payload until `ready`.
//!
//! [`serve_pty`] puts the bridge behind a pseudo-terminal, so that `ferroce-ctl --device
//! serial:PATH` reaches a simulated register file through a real tty.

use crate::serve::Served;
use crate::verilated::{Model, SimError};
use ferroce_contracts::serial::{BIT_TIMES_PER_BYTE, TIMEOUT_BYTE_TIMES};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// The Verilator model of the bridge.
pub const MODEL: &str = "ferroce_serial_bridge_8n1";

/// A software UART transmitter (8N1): the line's level, cycle by cycle.
#[derive(Debug, Clone)]
pub struct LineDriver {
    clocks_per_bit: u32,
    levels: VecDeque<bool>,
}

impl LineDriver {
    /// A driver at `clocks_per_bit`, the line idle.
    pub fn new(clocks_per_bit: u32) -> LineDriver {
        LineDriver {
            clocks_per_bit,
            levels: VecDeque::new(),
        }
    }

    /// Queues a byte; `good_stop` false sends its stop bit low (a framing error), followed by
    /// a bit time of idle line so that the next start bit has a falling edge.
    pub fn send(&mut self, byte: u8, good_stop: bool) {
        let bits = std::iter::once(false)
            .chain((0..8).map(|i| byte >> i & 1 != 0))
            .chain(std::iter::once(good_stop))
            .chain(std::iter::once(true).filter(|_| !good_stop));
        for bit in bits {
            self.levels.extend(std::iter::repeat_n(bit, self.clocks_per_bit as usize));
        }
    }

    /// Queues `cycles` of idle line.
    pub fn idle(&mut self, cycles: u64) {
        self.levels.extend(std::iter::repeat_n(true, cycles as usize));
    }

    /// Cycles queued.
    pub fn queued(&self) -> usize {
        self.levels.len()
    }

    /// The level for the next cycle (idle high when nothing is queued).
    pub fn next_level(&mut self) -> bool {
        self.levels.pop_front().unwrap_or(true)
    }
}

/// A software UART receiver (8N1) sampling each bit in its middle: the bytes, and whether each
/// stop bit was high.
#[derive(Debug, Clone)]
pub struct LineDecoder {
    clocks_per_bit: u32,
    previous: bool,
    /// Cycles since the start bit's falling edge, while in a byte.
    in_byte: Option<u32>,
    shift: u8,
    /// Bytes decoded, with their stop bit.
    pub bytes: VecDeque<(u8, bool)>,
}

impl LineDecoder {
    /// A decoder at `clocks_per_bit`.
    pub fn new(clocks_per_bit: u32) -> LineDecoder {
        LineDecoder {
            clocks_per_bit,
            previous: true,
            in_byte: None,
            shift: 0,
            bytes: VecDeque::new(),
        }
    }

    /// Whether a byte is being received.
    pub fn busy(&self) -> bool {
        self.in_byte.is_some()
    }

    /// The line's level this cycle.
    pub fn sample(&mut self, level: bool) {
        let cpb = self.clocks_per_bit;
        match self.in_byte {
            None => {
                if self.previous && !level {
                    self.in_byte = Some(0);
                }
            }
            Some(at) => {
                let at = at + 1;
                self.in_byte = Some(at);
                if at % cpb == cpb / 2 {
                    let bit = at / cpb;
                    match bit {
                        0 if level => self.in_byte = None,
                        1..=8 => self.shift = self.shift >> 1 | u8::from(level) << 7,
                        9 => {
                            self.bytes.push_back((self.shift, level));
                            self.in_byte = None;
                        }
                        _ => {}
                    }
                }
            }
        }
        self.previous = level;
    }
}

/// One access the slave executed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// A write (else a read).
    pub write: bool,
    /// Byte address.
    pub address: u32,
    /// Write data, or the data read.
    pub data: u32,
    /// Write strobes the bridge sent (0 for a read).
    pub strobes: u8,
    /// The response given.
    pub resp: u8,
}

struct Ports {
    rx: usize,
    tx: usize,
    clocks_per_bit: usize,
    awvalid: usize,
    awready: usize,
    awaddr: usize,
    wvalid: usize,
    wready: usize,
    wdata: usize,
    wstrb: usize,
    bvalid: usize,
    bready: usize,
    bresp: usize,
    arvalid: usize,
    arready: usize,
    araddr: usize,
    rvalid: usize,
    rready: usize,
    rdata: usize,
    rresp: usize,
    discards: [usize; 4],
}

/// The bridge's model with a UART on each line and an AXI4-Lite slave on its master port.
pub struct SerialBridgeRtl {
    m: Model,
    ports: Ports,
    rng: ChaCha8Rng,
    /// The host's line into the bridge.
    pub driver: LineDriver,
    /// The bridge's line to the host.
    pub decoder: LineDecoder,
    /// Percent chance per cycle that the slave holds a `ready` low.
    pub stall_pct: u32,
    /// The most cycles from an access's handshake to its response.
    pub max_latency: u64,
    aw: Option<u32>,
    w: Option<(u32, u8)>,
    ar: Option<u32>,
    aw_seen: Option<u32>,
    w_seen: Option<(u32, u8)>,
    ar_seen: Option<u32>,
    /// A write response waiting: (resp, the cycle it is shown from).
    b: Option<(u8, u64)>,
    /// A read response waiting: (resp, data, the cycle it is shown from).
    r: Option<(u8, u32, u64)>,
    /// Accesses executed, in order.
    pub accesses: Vec<Access>,
    cycle: u64,
}

impl SerialBridgeRtl {
    /// The bridge at `clocks_per_bit` (at least 4), reset.
    pub fn new(clocks_per_bit: u32, seed: u64) -> Result<SerialBridgeRtl, SimError> {
        let mut m = Model::new(MODEL)?;
        let p = |n: &str| m.port(n);
        let ports = Ports {
            rx: p("rx")?,
            tx: p("tx")?,
            clocks_per_bit: p("clocks_per_bit")?,
            awvalid: p("m_axil_awvalid")?,
            awready: p("m_axil_awready")?,
            awaddr: p("m_axil_awaddr")?,
            wvalid: p("m_axil_wvalid")?,
            wready: p("m_axil_wready")?,
            wdata: p("m_axil_wdata")?,
            wstrb: p("m_axil_wstrb")?,
            bvalid: p("m_axil_bvalid")?,
            bready: p("m_axil_bready")?,
            bresp: p("m_axil_bresp")?,
            arvalid: p("m_axil_arvalid")?,
            arready: p("m_axil_arready")?,
            araddr: p("m_axil_araddr")?,
            rvalid: p("m_axil_rvalid")?,
            rready: p("m_axil_rready")?,
            rdata: p("m_axil_rdata")?,
            rresp: p("m_axil_rresp")?,
            discards: [
                p("discards_unknown_command")?,
                p("discards_framing")?,
                p("discards_timeout")?,
                p("discards_overrun")?,
            ],
        };
        m.set_u64(ports.clocks_per_bit, u64::from(clocks_per_bit));
        m.set_u64(ports.rx, 1);
        m.reset(4);
        Ok(SerialBridgeRtl {
            m,
            ports,
            rng: ChaCha8Rng::seed_from_u64(seed),
            driver: LineDriver::new(clocks_per_bit),
            decoder: LineDecoder::new(clocks_per_bit),
            stall_pct: 0,
            max_latency: 0,
            aw: None,
            w: None,
            ar: None,
            aw_seen: None,
            w_seen: None,
            ar_seen: None,
            b: None,
            r: None,
            accesses: Vec::new(),
            cycle: 0,
        })
    }

    /// Cycles run.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The bridge's discard counters, in `Discard` code order.
    pub fn discards(&mut self) -> [u64; 4] {
        self.m.eval();
        let ports = self.ports.discards;
        ports.map(|p| self.m.peek_u64(p))
    }

    /// Whether the slave has an access open (taken, or its response not taken yet).
    pub fn bus_busy(&self) -> bool {
        self.aw.is_some() || self.w.is_some() || self.ar.is_some() || self.b.is_some() || self.r.is_some()
    }

    fn ready(&mut self) -> bool {
        self.rng.gen_range(0..100) >= self.stall_pct
    }

    fn latency(&mut self) -> u64 {
        self.rng.gen_range(0..=self.max_latency)
    }

    /// One clock cycle; accesses go to `target`.
    pub fn step(&mut self, target: &mut impl Served) -> Result<(), String> {
        let awready = self.aw.is_none() && self.ready();
        let wready = self.w.is_none() && self.ready();
        let arready = self.ar.is_none() && self.ready();
        let level = self.driver.next_level();
        let p = &self.ports;
        let m = &mut self.m;
        m.set_u64(p.rx, u64::from(level));
        m.set_u64(p.awready, u64::from(awready));
        m.set_u64(p.wready, u64::from(wready));
        m.set_u64(p.arready, u64::from(arready));
        let b_shown = self.b.filter(|&(_, at)| at <= self.cycle);
        m.set_u64(p.bvalid, u64::from(b_shown.is_some()));
        m.set_u64(p.bresp, u64::from(b_shown.map_or(0, |(resp, _)| resp)));
        let r_shown = self.r.filter(|&(_, _, at)| at <= self.cycle);
        m.set_u64(p.rvalid, u64::from(r_shown.is_some()));
        m.set_u64(p.rresp, u64::from(r_shown.map_or(0, |(resp, _, _)| resp)));
        m.set_u64(p.rdata, u64::from(r_shown.map_or(0, |(_, data, _)| data)));
        m.eval();
        let tx = m.peek_u64(p.tx) != 0;
        let (awvalid, awaddr) = (m.peek_u64(p.awvalid) != 0, m.peek_u64(p.awaddr) as u32);
        let (wvalid, wdata, wstrb) = (m.peek_u64(p.wvalid) != 0, m.peek_u64(p.wdata) as u32, m.peek_u64(p.wstrb) as u8);
        let (arvalid, araddr) = (m.peek_u64(p.arvalid) != 0, m.peek_u64(p.araddr) as u32);
        let (bready, rready) = (m.peek_u64(p.bready) != 0, m.peek_u64(p.rready) != 0);
        m.tick();
        let cycle = self.cycle;
        self.cycle += 1;
        self.decoder.sample(tx);

        // AXI rules: a valid stays up, its payload unchanged, until ready.
        let hold = |seen: Option<u32>, valid: bool, value: u32, channel: &str| match seen {
            Some(v) if !valid || v != value => Err(format!("cycle {cycle}: {channel} changed before its handshake")),
            _ => Ok(()),
        };
        hold(self.aw_seen, awvalid, awaddr, "AW")?;
        hold(self.w_seen.map(|(d, _)| d), wvalid, wdata, "W")?;
        hold(self.ar_seen, arvalid, araddr, "AR")?;
        self.aw_seen = (awvalid && !awready).then_some(awaddr);
        self.w_seen = (wvalid && !wready).then_some((wdata, wstrb));
        self.ar_seen = (arvalid && !arready).then_some(araddr);
        if awvalid && awready {
            self.aw = Some(awaddr);
        }
        if wvalid && wready {
            self.w = Some((wdata, wstrb));
        }
        if arvalid && arready {
            self.ar = Some(araddr);
        }
        if b_shown.is_some() && bready {
            self.b = None;
        }
        if r_shown.is_some() && rready {
            self.r = None;
        }
        // Execute an access once its address (and data) are in and no response is waiting.
        if let (Some(address), Some((data, strobes)), None) = (self.aw, self.w, self.b) {
            let resp = target.write(address, data, strobes)?;
            self.accesses.push(Access {
                write: true,
                address,
                data,
                strobes,
                resp,
            });
            let at = self.cycle + self.latency();
            self.b = Some((resp, at));
            self.aw = None;
            self.w = None;
        }
        if let (Some(address), None) = (self.ar, self.r) {
            let (resp, data) = target.read(address)?;
            self.accesses.push(Access {
                write: false,
                address,
                data,
                strobes: 0,
                resp,
            });
            let at = self.cycle + self.latency();
            self.r = Some((resp, data, at));
            self.ar = None;
        }
        Ok(())
    }

    /// Runs until the line to the bridge is idle, nothing is on the bus, no byte is coming
    /// back, and then `quiet` more cycles of that (at most `budget` cycles in all).
    pub fn run_until_quiet(&mut self, target: &mut impl Served, quiet: u64, budget: u64) -> Result<(), String> {
        let (start, mut calm) = (self.cycle, 0);
        while calm < quiet {
            self.step(target)?;
            let active = self.driver.queued() > 0 || self.bus_busy() || self.decoder.busy();
            calm = if active { 0 } else { calm + 1 };
            if self.cycle - start > budget {
                return Err(format!("the bridge was still busy after {budget} cycles"));
            }
        }
        Ok(())
    }
}

/// Cycles after which a bridge that was sent nothing has finished whatever it was doing: its
/// request timeout and an answer of five bytes.
pub fn settle_cycles(clocks_per_bit: u32) -> u64 {
    u64::from((TIMEOUT_BYTE_TIMES + 7) * BIT_TIMES_PER_BYTE * clocks_per_bit)
}

/// A design with a UART on each of its lines (the host's into it, its own back), run a cycle at
/// a time: the serial bridge with a register file behind it ([`BridgeAndTarget`]), or a design
/// with the bridge inside (the scheduler build).
pub trait SerialDevice {
    /// The host's line into the design.
    fn driver(&mut self) -> &mut LineDriver;
    /// The design's line to the host.
    fn decoder(&mut self) -> &mut LineDecoder;
    /// One clock cycle.
    fn step_cycle(&mut self) -> Result<(), String>;
    /// Something is in flight besides the lines (an access on a bus the harness serves).
    fn busy(&self) -> bool;
}

/// The bridge with the register file its accesses go to.
pub struct BridgeAndTarget<'a, T: Served> {
    /// The bridge.
    pub bridge: &'a mut SerialBridgeRtl,
    /// What its master port reaches.
    pub target: &'a mut T,
}

impl<T: Served> SerialDevice for BridgeAndTarget<'_, T> {
    fn driver(&mut self) -> &mut LineDriver {
        &mut self.bridge.driver
    }

    fn decoder(&mut self) -> &mut LineDecoder {
        &mut self.bridge.decoder
    }

    fn step_cycle(&mut self) -> Result<(), String> {
        self.bridge.step(self.target)
    }

    fn busy(&self) -> bool {
        self.bridge.bus_busy()
    }
}

/// Serves a design behind a pseudo-terminal until `stop` says so (checked at least twice a
/// second): bytes written to the terminal's other end go to its `rx` as the host's UART
/// would send them, bytes from its `tx` come back. The clock runs while there is something to
/// do; a silence of the host between bytes becomes as many idle bit times on the line (one per
/// microsecond, as at 1 Mbaud, up to the bridge's timeout and an answer), so that a host that
/// waits out the timeout finds the bridge ready, however fast the simulation runs.
pub fn serve_pty(device: &mut impl SerialDevice, terminal: &Pty, stop: &dyn Fn() -> bool) -> Result<(), String> {
    let cpb = device.driver().clocks_per_bit;
    let byte_time = u64::from(cpb * BIT_TIMES_PER_BYTE);
    let mut last_byte = std::time::Instant::now();
    let mut take = |device: &mut dyn SerialDevice, bytes: Vec<u8>| {
        if bytes.is_empty() {
            return;
        }
        let driver = device.driver();
        if driver.queued() == 0 {
            let silent_bits = last_byte.elapsed().as_micros().min(u128::from(u32::MAX)) as u64;
            driver.idle((silent_bits * u64::from(cpb)).min(settle_cycles(cpb)));
        }
        for b in bytes {
            driver.send(b, true);
        }
        last_byte = std::time::Instant::now();
    };
    while !stop() {
        let bytes = terminal.read(500)?;
        if bytes.is_empty() {
            continue;
        }
        take(device, bytes);
        // Run until the design has answered, taking the host's further bytes as they come.
        let mut calm = 0;
        while calm < settle_cycles(cpb) {
            for _ in 0..byte_time {
                device.step_cycle()?;
            }
            let answer: Vec<u8> = device.decoder().bytes.drain(..).map(|(b, _)| b).collect();
            if !answer.is_empty() {
                terminal.write(&answer)?;
            }
            take(device, terminal.read(0)?);
            let active = device.driver().queued() > 0 || device.busy() || device.decoder().busy();
            calm = if active { 0 } else { calm + byte_time };
        }
    }
    Ok(())
}

/// A pseudo-terminal: the controlling side kept here, the terminal side named by a path
/// (`/dev/pts/N`, and a symbolic link to it if asked for) and held open in raw mode, so that
/// the terminal echoes nothing and a client can come and go.
pub struct Pty {
    controller: std::fs::File,
    _terminal: std::fs::File,
    /// The terminal's path.
    pub path: std::path::PathBuf,
}

impl Pty {
    /// Opens a pseudo-terminal in raw mode.
    pub fn open() -> Result<Pty, String> {
        use std::os::fd::FromRawFd;
        let os = |what: &str| format!("{what}: {}", std::io::Error::last_os_error());
        // SAFETY: plain libc calls on a descriptor this function owns; ptsname's buffer is
        // copied before any other call.
        unsafe {
            let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
            if fd < 0 {
                return Err(os("posix_openpt"));
            }
            let controller = std::fs::File::from_raw_fd(fd);
            if libc::grantpt(fd) != 0 || libc::unlockpt(fd) != 0 {
                return Err(os("grantpt/unlockpt"));
            }
            let name = libc::ptsname(fd);
            if name.is_null() {
                return Err(os("ptsname"));
            }
            let path = std::path::PathBuf::from(std::ffi::CStr::from_ptr(name).to_string_lossy().into_owned());
            let terminal = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(&path)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let tfd = std::os::fd::AsRawFd::as_raw_fd(&terminal);
            let mut attributes: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(tfd, &mut attributes) != 0 {
                return Err(os("tcgetattr"));
            }
            libc::cfmakeraw(&mut attributes);
            if libc::tcsetattr(tfd, libc::TCSANOW, &attributes) != 0 {
                return Err(os("tcsetattr"));
            }
            Ok(Pty {
                controller,
                _terminal: terminal,
                path,
            })
        }
    }

    /// The bytes the terminal's client wrote, waiting up to `timeout_ms` for the first.
    pub fn read(&self, timeout_ms: i32) -> Result<Vec<u8>, String> {
        use std::io::Read;
        use std::os::fd::AsRawFd;
        let mut poll = libc::pollfd {
            fd: self.controller.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd that lives across the call.
        let ready = unsafe { libc::poll(&mut poll, 1, timeout_ms) };
        if ready <= 0 || poll.revents & libc::POLLIN == 0 {
            return Ok(Vec::new());
        }
        let mut buffer = [0u8; 256];
        let n = (&self.controller)
            .read(&mut buffer)
            .map_err(|e| format!("reading the terminal: {e}"))?;
        Ok(buffer[..n].to_vec())
    }

    /// Sends bytes to the terminal's client.
    pub fn write(&self, bytes: &[u8]) -> Result<(), String> {
        use std::io::Write;
        (&self.controller)
            .write_all(bytes)
            .map_err(|e| format!("writing the terminal: {e}"))
    }
}
