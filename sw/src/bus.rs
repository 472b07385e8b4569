//! Ways to reach a register file: a memory-mapped window ([`MmapBus`]: a PCIe BAR through
//! sysfs, a UIO device, `/dev/mem`, or a file standing in for a BAR), a serial line to the
//! board's UART bridge ([`SerialBus`]) and the simulated register file of `ferroce-sim serve`
//! ([`SimBus`]). [`open`] takes the device names of the command line.

use ferroce_contracts::serial::{self, Answer, Request};
use ferroce_contracts::served::{hex_bytes, hex_string, MEMORY_BYTES};
use std::fmt;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Bytes of the register file's window (2^`ADDRESS_BITS`).
pub const WINDOW: u64 = 1 << ferroce_contracts::regs::ADDRESS_BITS;

/// Why an access failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cause {
    /// The device file can't be opened for lack of permission.
    Permission(String),
    /// No such device (or BAR, or UIO map).
    NoDevice(String),
    /// The device name is not one `ferroce-ctl` knows.
    BadName(String),
    /// The address is beyond the mapped window of `size` bytes.
    BeyondWindow {
        /// The window's size.
        size: u64,
    },
    /// The address is not a multiple of 4.
    Unaligned,
    /// The register file answered SLVERR (2) or DECERR (3).
    SlaveError(u8),
    /// The ID block read 0xFFFFFFFF: the device's memory space is off or the card is gone.
    AllOnes,
    /// The device id is not Ferroce's.
    NotFerroce(u32),
    /// The device was built from another register map.
    MapMismatch {
        /// The device's map hash.
        device: u32,
        /// This tool's.
        tool: u32,
    },
    /// The call or command is another build's: an engine call on the scheduler build (it has no
    /// QP table, posts, ...), or a scheduler build call on the engine.
    WrongBuild(String),
    /// The scheduler build's `decide` was written but `decision.number` did not advance by one:
    /// the decision was not seen (a device that makes no decisions, such as a file, or another
    /// host deciding at the same time).
    DecisionNotSeen {
        /// `decision.number` before the write.
        before: u32,
        /// After it.
        after: u32,
        /// What it should have read after it.
        expected: u32,
    },
    /// A request refused before any access (an argument the register file can't take).
    Invalid(String),
    /// The device reaches the register file only, not the memory behind the engine.
    NoMemory,
    /// Anything else from the operating system or the simulator.
    Io(String),
}

/// An error: the device, the address (when there is one) and the cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The device as named on the command line.
    pub device: String,
    /// The byte address.
    pub address: Option<u32>,
    /// Why.
    pub cause: Cause,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.device)?;
        if let Some(a) = self.address {
            write!(f, ", address {a:#07x}")?;
        }
        write!(f, ": ")?;
        match &self.cause {
            Cause::Permission(what) => write!(f, "permission denied opening {what} (run as root or give the user access)"),
            Cause::NoDevice(what) => write!(f, "no such device: {what}"),
            Cause::BadName(what) => write!(
                f,
                "unknown device name '{what}' (use pci:DOMAIN:BUS:DEV.FN[/barN], a bare BDF, uio:/dev/uioN, mem:0xADDRESS, serial:PATH[@BAUD], sim:PATH or file:PATH)"
            ),
            Cause::BeyondWindow { size } => write!(f, "beyond the mapped window of {size:#x} bytes"),
            Cause::Unaligned => write!(f, "not a multiple of 4 (registers are 32-bit words)"),
            Cause::SlaveError(2) => write!(f, "the register file answered SLVERR (read-only register or value refused)"),
            Cause::SlaveError(3) => write!(f, "the register file answered DECERR (no register at this address)"),
            Cause::SlaveError(r) => write!(f, "the register file answered response {r}"),
            Cause::AllOnes => write!(
                f,
                "read 0xFFFFFFFF from the ID block: the device's memory space is disabled or the card is gone (not taken for data)"
            ),
            Cause::NotFerroce(id) => write!(
                f,
                "device id {id:#010x} is not Ferroce's ({:#010x} the engine, {:#010x} the scheduler build)",
                ferroce_contracts::regs::DEVICE_ID,
                ferroce_contracts::regs::SCHEDULER_DEVICE_ID
            ),
            Cause::MapMismatch { device, tool } => write!(
                f,
                "the device's register map (hash {device:#010x}) is not this tool's ({tool:#010x}): use a ferroce-ctl built from the same revision"
            ),
            Cause::NoMemory => write!(
                f,
                "this device reaches the registers only, not the engine's memory (sim:PATH of `ferroce-sim serve --top engine` \
                 or `ferroce-sim wire` does; on a board, the buffer is the host's own memory or the card's, written by its DMA)"
            ),
            Cause::DecisionNotSeen { before, after, expected } => write!(
                f,
                "the decision was not seen: decision.number read {before} before the write of decide and {after} after it, \
                 not {expected} (a device that makes no decisions, such as a file, or another host deciding too)"
            ),
            Cause::WrongBuild(what) | Cause::Invalid(what) | Cause::Io(what) => write!(f, "{what}"),
        }
    }
}

impl std::error::Error for Error {}

/// 32-bit accesses to a register file.
pub trait Bus {
    /// The device's name (for errors).
    fn name(&self) -> &str;
    /// Reads the word at byte address `address`.
    fn read32(&mut self, address: u32) -> Result<u32, Error>;
    /// Writes the word at byte address `address` (all four bytes).
    fn write32(&mut self, address: u32, value: u32) -> Result<(), Error>;
    /// Writes `bytes` into the memory behind the engine at `address`, where the device reaches
    /// it.
    fn memory_write(&mut self, address: u64, bytes: &[u8]) -> Result<(), Error> {
        let _ = (address, bytes);
        Err(self.error(None, Cause::NoMemory))
    }
    /// Reads `length` bytes of the memory behind the engine at `address`, where the device
    /// reaches it.
    fn memory_read(&mut self, address: u64, length: usize) -> Result<Vec<u8>, Error> {
        let _ = (address, length);
        Err(self.error(None, Cause::NoMemory))
    }

    /// An error of this device at `address`.
    fn error(&self, address: Option<u32>, cause: Cause) -> Error {
        Error {
            device: self.name().to_string(),
            address,
            cause,
        }
    }
}

/// A window of memory mapped from a file (a sysfs `resourceN`, `/dev/uioN`, `/dev/mem`, or a
/// plain file), read and written with volatile 32-bit accesses only.
pub struct MmapBus {
    name: String,
    base: *mut u8,
    size: u64,
}

// The mapping is plain memory owned by this value.
unsafe impl Send for MmapBus {}

fn os_error(name: &str, what: &Path, e: std::io::Error) -> Error {
    let cause = match e.kind() {
        std::io::ErrorKind::PermissionDenied => Cause::Permission(what.display().to_string()),
        std::io::ErrorKind::NotFound => Cause::NoDevice(what.display().to_string()),
        _ => Cause::Io(format!("{}: {e}", what.display())),
    };
    Error {
        device: name.to_string(),
        address: None,
        cause,
    }
}

impl MmapBus {
    /// Maps `size` bytes of `path` from byte `offset` (a multiple of the page size), for reading
    /// and writing. `size` 0 maps the whole file (a BAR's `resourceN` has the BAR's size).
    pub fn open(name: &str, path: &Path, offset: u64, size: u64) -> Result<MmapBus, Error> {
        use std::os::unix::io::AsRawFd;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| os_error(name, path, e))?;
        let size = if size == 0 {
            file.metadata().map_err(|e| os_error(name, path, e))?.len()
        } else {
            size
        };
        if size == 0 {
            return Err(Error {
                device: name.into(),
                address: None,
                cause: Cause::NoDevice(format!("{}: empty", path.display())),
            });
        }
        // SAFETY: a shared mapping of a file we opened for reading and writing; the pointer is
        // checked and only used within `size` bytes.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                offset as libc::off_t,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(os_error(name, path, std::io::Error::last_os_error()));
        }
        Ok(MmapBus {
            name: name.into(),
            base: base.cast(),
            size,
        })
    }

    /// Bytes mapped.
    pub fn size(&self) -> u64 {
        self.size
    }

    fn check(&self, address: u32) -> Result<*mut u32, Error> {
        if !address.is_multiple_of(4) {
            return Err(self.error(Some(address), Cause::Unaligned));
        }
        if u64::from(address) + 4 > self.size {
            return Err(self.error(Some(address), Cause::BeyondWindow { size: self.size }));
        }
        // SAFETY: inside the mapping (checked above), aligned to 4.
        Ok(unsafe { self.base.add(address as usize) }.cast())
    }
}

impl Bus for MmapBus {
    fn name(&self) -> &str {
        &self.name
    }

    fn read32(&mut self, address: u32) -> Result<u32, Error> {
        let p = self.check(address)?;
        // SAFETY: checked pointer into the mapping; one 32-bit access, never merged or split.
        Ok(u32::from_le(unsafe { std::ptr::read_volatile(p) }))
    }

    fn write32(&mut self, address: u32, value: u32) -> Result<(), Error> {
        let p = self.check(address)?;
        // SAFETY: as in read32.
        unsafe { std::ptr::write_volatile(p, value.to_le()) };
        Ok(())
    }
}

impl Drop for MmapBus {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `open`.
        unsafe { libc::munmap(self.base.cast(), self.size as usize) };
    }
}

/// The simulated register file of `ferroce-sim serve --socket PATH`: one line per access,
/// `read ADDRESS` → `ok RESP DATA`, `write ADDRESS DATA STROBES` → `ok RESP` (hexadecimal
/// numbers with `0x`), `error MESSAGE` when the simulator fails. A response other than OKAY
/// is [`Cause::SlaveError`]. The engine's memory: `store ADDRESS BYTES` → `ok 0x0`, `load
/// ADDRESS LENGTH` → `ok 0x0 BYTES` ([`ferroce_contracts::served`]).
pub struct SimBus {
    name: String,
    reader: BufReader<UnixStream>,
    writer: UnixStream,
}

impl SimBus {
    /// Connects to the socket.
    pub fn connect(name: &str, path: &Path) -> Result<SimBus, Error> {
        let stream = UnixStream::connect(path).map_err(|e| os_error(name, path, e))?;
        let writer = stream.try_clone().map_err(|e| os_error(name, path, e))?;
        Ok(SimBus {
            name: name.into(),
            reader: BufReader::new(stream),
            writer,
        })
    }

    /// Sends `line`, returns the words after `ok RESP` (`address`, when there is one, for errors).
    fn call(&mut self, address: Option<u32>, line: String) -> Result<Vec<String>, Error> {
        let io = |e: std::io::Error| Error {
            device: self.name.clone(),
            address,
            cause: Cause::Io(format!("simulator: {e}")),
        };
        self.writer.write_all(line.as_bytes()).map_err(io)?;
        let mut answer = String::new();
        self.reader.read_line(&mut answer).map_err(io)?;
        let parts: Vec<&str> = answer.split_whitespace().collect();
        match parts.as_slice() {
            ["ok", resp, rest @ ..] => {
                let resp = u8::from_str_radix(resp.trim_start_matches("0x"), 16).unwrap_or(u8::MAX);
                if resp != 0 {
                    return Err(self.error(address, Cause::SlaveError(resp)));
                }
                Ok(rest.iter().map(|word| word.to_string()).collect())
            }
            _ => Err(self.error(
                address,
                Cause::Io(format!(
                    "simulator: {}",
                    if answer.is_empty() {
                        "closed the connection"
                    } else {
                        answer.trim()
                    }
                )),
            )),
        }
    }

    /// A number the simulator answered.
    fn number(&self, address: u32, words: &[String]) -> Result<u32, Error> {
        words
            .first()
            .and_then(|d| u32::from_str_radix(d.trim_start_matches("0x"), 16).ok())
            .ok_or_else(|| self.error(Some(address), Cause::Io(format!("simulator: no number in {words:?}"))))
    }
}

impl Bus for SimBus {
    fn name(&self) -> &str {
        &self.name
    }

    fn read32(&mut self, address: u32) -> Result<u32, Error> {
        let words = self.call(Some(address), format!("read {address:#x}\n"))?;
        self.number(address, &words)
    }

    fn write32(&mut self, address: u32, value: u32) -> Result<(), Error> {
        self.call(Some(address), format!("write {address:#x} {value:#x} 0xf\n")).map(|_| ())
    }

    fn memory_write(&mut self, address: u64, bytes: &[u8]) -> Result<(), Error> {
        for (k, chunk) in bytes.chunks(MEMORY_BYTES).enumerate() {
            let at = address.wrapping_add((k * MEMORY_BYTES) as u64);
            self.call(None, format!("store {at:#x} {}\n", hex_string(chunk)))?;
        }
        Ok(())
    }

    fn memory_read(&mut self, address: u64, length: usize) -> Result<Vec<u8>, Error> {
        let mut bytes = Vec::with_capacity(length);
        while bytes.len() < length {
            let at = address.wrapping_add(bytes.len() as u64);
            let n = (length - bytes.len()).min(MEMORY_BYTES);
            let words = self.call(None, format!("load {at:#x} {n:#x}\n"))?;
            match hex_bytes(words.first().map_or("", String::as_str)) {
                Some(chunk) if chunk.len() == n => bytes.extend(chunk),
                _ => {
                    return Err(self.error(
                        None,
                        Cause::Io(format!("simulator: {n} bytes asked at {at:#x}, not what it answered")),
                    ))
                }
            }
        }
        Ok(bytes)
    }
}

/// A serial line to a board's `SerialBridge` (a USB UART such as `/dev/ttyUSB0`), in raw 8N1 at
/// a baud rate the bridge was built for ([`serial::DEFAULT_BAUD`] unless the name says
/// `@BAUD`). One request at a time; an answer that does not come within [`SerialBus::TIMEOUT`]
/// is an error, after which the line is let go quiet so that the next request starts clean.
pub struct SerialBus {
    name: String,
    port: std::fs::File,
    baud: u32,
}

/// The `Bxxx` speed of a baud rate termios knows.
fn termios_speed(baud: u32) -> Option<libc::speed_t> {
    Some(match baud {
        9600 => libc::B9600,
        19200 => libc::B19200,
        38400 => libc::B38400,
        57600 => libc::B57600,
        115200 => libc::B115200,
        230400 => libc::B230400,
        460800 => libc::B460800,
        500000 => libc::B500000,
        921600 => libc::B921600,
        1000000 => libc::B1000000,
        1500000 => libc::B1500000,
        2000000 => libc::B2000000,
        3000000 => libc::B3000000,
        _ => return None,
    })
}

impl SerialBus {
    /// How long an answer may take (a few byte times at any rate, and the board's USB latency).
    pub const TIMEOUT: Duration = Duration::from_millis(500);

    /// Opens `path` in raw mode at `baud`, then lets the line go quiet (a request a previous
    /// client left unfinished is dropped by the bridge's timeout) and forgets what came in.
    pub fn open(name: &str, path: &Path, baud: u32) -> Result<SerialBus, Error> {
        use std::os::unix::fs::OpenOptionsExt;
        use std::os::unix::io::AsRawFd;
        let speed = termios_speed(baud).ok_or_else(|| Error {
            device: name.into(),
            address: None,
            cause: Cause::Invalid(format!(
                "baud rate {baud} is not one the serial driver takes (9600 … 3000000, e.g. {})",
                serial::DEFAULT_BAUD
            )),
        })?;
        let port = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOCTTY)
            .open(path)
            .map_err(|e| os_error(name, path, e))?;
        let fd = port.as_raw_fd();
        let failed = |what: &str| Error {
            device: name.into(),
            address: None,
            cause: Cause::Io(format!("{}: {what}: {}", path.display(), std::io::Error::last_os_error())),
        };
        // SAFETY: termios calls on a descriptor owned by `port`, with a zeroed struct that
        // tcgetattr fills.
        unsafe {
            let mut attributes: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(fd, &mut attributes) != 0 {
                return Err(failed("not a serial line (tcgetattr)"));
            }
            libc::cfmakeraw(&mut attributes);
            attributes.c_cflag |= libc::CLOCAL | libc::CREAD;
            attributes.c_cflag &= !(libc::CSTOPB | libc::PARENB | libc::CRTSCTS);
            attributes.c_cc[libc::VMIN] = 0;
            attributes.c_cc[libc::VTIME] = 0;
            if libc::cfsetispeed(&mut attributes, speed) != 0
                || libc::cfsetospeed(&mut attributes, speed) != 0
                || libc::tcsetattr(fd, libc::TCSANOW, &attributes) != 0
            {
                return Err(failed("setting raw 8N1 (tcsetattr)"));
            }
        }
        let bus = SerialBus {
            name: name.into(),
            port,
            baud,
        };
        bus.quiet();
        Ok(bus)
    }

    /// Sends nothing for longer than the bridge's request timeout, then drops what came in.
    fn quiet(&self) {
        use std::os::unix::io::AsRawFd;
        let bits = serial::TIMEOUT_BYTE_TIMES * serial::BIT_TIMES_PER_BYTE;
        let silence = Duration::from_micros(2 * u64::from(bits) * 1_000_000 / u64::from(self.baud)).max(Duration::from_millis(2));
        std::thread::sleep(silence);
        // SAFETY: flushes the input queue of a descriptor we own.
        unsafe { libc::tcflush(self.port.as_raw_fd(), libc::TCIFLUSH) };
    }

    /// Sends a request and waits for its answer.
    fn call(&mut self, request: Request) -> Result<Answer, Error> {
        use std::os::unix::io::AsRawFd;
        let address = Some(request.address());
        let name = self.name.clone();
        let io = |what: String| Error {
            device: name.clone(),
            address,
            cause: Cause::Io(what),
        };
        self.port
            .write_all(&request.emit())
            .map_err(|e| io(format!("writing the request: {e}")))?;
        let write = matches!(request, Request::Write { .. });
        let mut bytes = Vec::new();
        let deadline = Instant::now() + Self::TIMEOUT;
        while bytes.len() < Answer::length(write) {
            let left = deadline.saturating_duration_since(Instant::now());
            let mut poll = libc::pollfd {
                fd: self.port.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one pollfd that lives across the call.
            let ready = unsafe { libc::poll(&mut poll, 1, left.as_millis().min(i32::MAX as u128) as i32) };
            if ready <= 0 {
                self.quiet();
                return Err(io(format!(
                    "no answer within {} ms (got {} of {} bytes): is the bitstream with the serial bridge loaded, at {} baud?",
                    Self::TIMEOUT.as_millis(),
                    bytes.len(),
                    Answer::length(write),
                    self.baud
                )));
            }
            let mut chunk = [0u8; 16];
            let n = self.port.read(&mut chunk).map_err(|e| io(format!("reading the answer: {e}")))?;
            bytes.extend_from_slice(&chunk[..n]);
        }
        match Answer::parse(&bytes, write) {
            Ok(answer) if bytes.len() == Answer::length(write) => Ok(answer),
            _ => {
                self.quiet();
                Err(io(format!(
                    "the bridge answered {bytes:02x?}, which is not an answer to a {}",
                    if write { "write" } else { "read" }
                )))
            }
        }
    }
}

impl Bus for SerialBus {
    fn name(&self) -> &str {
        &self.name
    }

    fn read32(&mut self, address: u32) -> Result<u32, Error> {
        if !address.is_multiple_of(4) {
            return Err(self.error(Some(address), Cause::Unaligned));
        }
        let answer = self.call(Request::Read { address })?;
        if answer.resp != 0 {
            return Err(self.error(Some(address), Cause::SlaveError(answer.resp)));
        }
        Ok(answer.data)
    }

    fn write32(&mut self, address: u32, value: u32) -> Result<(), Error> {
        if !address.is_multiple_of(4) {
            return Err(self.error(Some(address), Cause::Unaligned));
        }
        let answer = self.call(Request::Write { address, data: value })?;
        if answer.resp != 0 {
            return Err(self.error(Some(address), Cause::SlaveError(answer.resp)));
        }
        Ok(())
    }
}

/// The parts of a PCI address `DOMAIN:BUS:DEV.FN` (the domain may be left out).
fn pci_address(s: &str) -> Option<String> {
    let parts: Vec<&str> = s.split(':').collect();
    let (domain, bus, devfn) = match parts.as_slice() {
        [d, b, f] => (*d, *b, *f),
        [b, f] => ("0000", *b, *f),
        _ => return None,
    };
    let (dev, func) = devfn.split_once('.')?;
    let hex = |x: &str, n: usize| x.len() <= n && !x.is_empty() && x.chars().all(|c| c.is_ascii_hexdigit());
    (hex(domain, 4) && hex(bus, 2) && hex(dev, 2) && hex(func, 1)).then(|| {
        format!(
            "{:04x}:{:02x}:{:02x}.{}",
            u32::from_str_radix(domain, 16).unwrap_or(0),
            u32::from_str_radix(bus, 16).unwrap_or(0),
            u32::from_str_radix(dev, 16).unwrap_or(0),
            func
        )
    })
}

/// Opens a device by its command-line name:
///
/// - `pci:DOMAIN:BUS:DEV.FN[/barN]` or a bare `BUS:DEV.FN` / `DOMAIN:BUS:DEV.FN`: the BAR
///   (default 0) through `/sys/bus/pci/devices/<BDF>/resourceN`, mapped whole;
/// - `uio:/dev/uioN`: the UIO device's map 0;
/// - `mem:0xADDRESS`: `/dev/mem` at a physical address (a Zynq PS), the register file's window;
/// - `serial:PATH[@BAUD]`: a board's serial bridge on a UART (`serial:/dev/ttyUSB0`), at
///   1000000 baud unless `@BAUD` says otherwise;
/// - `sim:PATH`: the simulated register file of `ferroce-sim serve --socket PATH`;
/// - `file:PATH`: a file mapped as if it were a BAR (tests, recorded images).
pub fn open(name: &str) -> Result<Box<dyn Bus>, Error> {
    let bad = || Error {
        device: name.into(),
        address: None,
        cause: Cause::BadName(name.into()),
    };
    if let Some(rest) = name.strip_prefix("serial:") {
        let (path, baud) = match rest.rsplit_once('@') {
            Some((path, baud)) => (path, baud.parse().map_err(|_| bad())?),
            None => (rest, serial::DEFAULT_BAUD),
        };
        return Ok(Box::new(SerialBus::open(name, Path::new(path), baud)?));
    }
    if let Some(path) = name.strip_prefix("sim:") {
        return Ok(Box::new(SimBus::connect(name, Path::new(path))?));
    }
    if let Some(path) = name.strip_prefix("file:") {
        return Ok(Box::new(MmapBus::open(name, Path::new(path), 0, 0)?));
    }
    if let Some(path) = name.strip_prefix("uio:") {
        let dev = Path::new(path);
        let uio = dev.file_name().and_then(|n| n.to_str()).ok_or_else(bad)?;
        let size_file = PathBuf::from(format!("/sys/class/uio/{uio}/maps/map0/size"));
        let size = std::fs::read_to_string(&size_file)
            .map_err(|e| os_error(name, &size_file, e))
            .and_then(|s| u64::from_str_radix(s.trim().trim_start_matches("0x"), 16).map_err(|_| bad()))?;
        return Ok(Box::new(MmapBus::open(name, dev, 0, size)?));
    }
    if let Some(address) = name.strip_prefix("mem:") {
        let physical = u64::from_str_radix(address.trim_start_matches("0x"), 16).map_err(|_| bad())?;
        return Ok(Box::new(MmapBus::open(name, Path::new("/dev/mem"), physical, WINDOW)?));
    }
    let spec = name.strip_prefix("pci:").unwrap_or(name);
    let (bdf, bar) = match spec.split_once('/') {
        Some((b, bar)) => (b, bar.strip_prefix("bar").and_then(|n| n.parse::<u32>().ok()).ok_or_else(bad)?),
        None => (spec, 0),
    };
    let bdf = pci_address(bdf).ok_or_else(bad)?;
    let device = PathBuf::from(format!("/sys/bus/pci/devices/{bdf}"));
    if !device.exists() {
        return Err(Error {
            device: name.into(),
            address: None,
            cause: Cause::NoDevice(format!("no PCI device {bdf}")),
        });
    }
    let resource = device.join(format!("resource{bar}"));
    if !resource.exists() {
        return Err(Error {
            device: name.into(),
            address: None,
            cause: Cause::NoDevice(format!("{bdf} has no memory BAR {bar}")),
        });
    }
    Ok(Box::new(MmapBus::open(name, &resource, 0, 0)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pci_names() {
        assert_eq!(pci_address("0000:01:00.0").as_deref(), Some("0000:01:00.0"));
        assert_eq!(pci_address("3b:00.1").as_deref(), Some("0000:3b:00.1"));
        assert_eq!(pci_address("zz:00.1"), None);
        assert!(matches!(
            open("pci:bogus").map(|_| ()),
            Err(Error {
                cause: Cause::BadName(_),
                ..
            })
        ));
        assert!(matches!(
            open("pci:0000:ff:1f.7").map(|_| ()),
            Err(Error {
                cause: Cause::NoDevice(_),
                ..
            })
        ));
    }
}
