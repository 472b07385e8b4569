//! One engine whose MAC is a UDP socket: every frame the engine puts on its MAC TX leaves as one
//! datagram to the peer, and every datagram that arrives is a frame on its MAC RX (no FCS either
//! way). This is the frame format of QEMU's `-netdev dgram` (and `socket,udp=`) backends, so
//! a Linux VM's NIC and the engine's MAC share a wire; `ferroce-sim wire` runs it with the
//! register file served to `ferroce-ctl`, and `sim/tests/interop_rxe.rs` drives it against the
//! Linux kernel's soft-RoCE driver.
//!
//! The wire is lossless, as a link with flow control: every datagram is taken off the socket
//! as soon as the bridge looks (every [`POLL_CYCLES`] cycles) and waits in a queue until the
//! MAC RX has room, since the simulated engine takes frames at its line rate in simulated time,
//! far slower in wall time than a peer sends them (the kernel's socket buffer would overflow
//! and drop them; beyond [`QUEUED_BYTES`] the bridge counts and drops them itself).
//! A datagram that cannot be an Ethernet frame (shorter than its header) or is longer than
//! [`LARGEST_FRAME`] is counted and dropped, never fatal. Frames to the host (`m_pass`) are
//! counted and dropped. [`WireBridge::set_faults`] makes either direction lossy instead
//! ([`crate::faults`]: RoCEv2 frames lost, duplicated, reordered, corrupted, from a seed).
//! While nothing moves on any port for [`IDLE_CYCLES`], the clock stops and
//! the bridge waits for a datagram (a millisecond at a time), so an idle engine takes no core
//! from the VM beside it.

use crate::contracts::regs::Map;
use crate::engine_rtl::{transact_stepping, EngineHost, EngineRtl, EngineVariant, Surroundings};
use crate::faults::{FaultCounts, FaultInjector, Faults};
use crate::regs_rtl::Request;
use crate::tx_path_rtl::MemoryTiming;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::path::Path;
use std::time::{Duration, Instant};

/// The shortest datagram taken: an Ethernet header.
pub const SHORTEST_FRAME: usize = 14;
/// The longest datagram taken: a RoCEv2 frame at PMTU 4096 with two VLAN tags, IPv6, RETH and
/// immediate is 4,202 bytes without FCS; rounded up.
pub const LARGEST_FRAME: usize = 4224;
/// Cycles without a handshake after which the clock stops until a datagram arrives.
pub const IDLE_CYCLES: u64 = 4096;
/// Cycles between two looks at the socket while the engine runs.
const POLL_CYCLES: u64 = 64;
/// Bytes of frames waiting for the MAC RX at most (beyond: dropped and counted).
pub const QUEUED_BYTES: usize = 256 << 20;

/// Asks for a socket receive buffer of [`SOCKET_BUFFER`] bytes, beyond `net.core.rmem_max`
/// where the process may (`SO_RCVBUFFORCE`), else as large as it allows: the kernel drops
/// datagrams that arrive while the buffer is full, between two looks of the bridge.
fn enlarge_receive_buffer(socket: &UdpSocket) {
    use std::os::fd::AsRawFd;
    let size = SOCKET_BUFFER as libc::c_int;
    for option in [libc::SO_RCVBUFFORCE, libc::SO_RCVBUF] {
        // SAFETY: a valid socket descriptor and a c_int option value of the right length.
        let set = unsafe {
            libc::setsockopt(
                socket.as_raw_fd(),
                libc::SOL_SOCKET,
                option,
                (&size as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if set == 0 {
            return;
        }
    }
}

/// The socket receive buffer asked for.
const SOCKET_BUFFER: usize = 32 << 20;

/// What crossed the bridge.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BridgeCounts {
    /// Datagrams taken onto the MAC RX.
    pub frames_in: u64,
    /// Frames sent as datagrams from the MAC TX.
    pub frames_out: u64,
    /// Datagrams dropped: shorter than an Ethernet header.
    pub dropped_short: u64,
    /// Datagrams dropped: longer than [`LARGEST_FRAME`].
    pub dropped_long: u64,
    /// Frames the engine passed to its host (`m_pass`), dropped here.
    pub passed_to_host: u64,
    /// Frames whose datagram could not be sent (the error is not fatal: the wire lost them).
    pub send_errors: u64,
    /// Datagrams dropped: [`QUEUED_BYTES`] were waiting for the MAC RX.
    pub dropped_queue_full: u64,
    /// The most frames that waited for the MAC RX at once.
    pub most_queued: u64,
}

/// A frame that crossed the bridge, for the capture.
#[derive(Debug, Clone)]
pub struct Crossed {
    /// When, since the bridge started.
    pub at: Duration,
    /// From the engine (true) or to it.
    pub outgoing: bool,
    /// The frame.
    pub bytes: Vec<u8>,
}

/// The engine, its UDP wire and its host port.
pub struct WireBridge {
    engine: EngineRtl,
    map: Map,
    socket: UdpSocket,
    peer: SocketAddr,
    rng: ChaCha8Rng,
    cycle: u64,
    started: Instant,
    /// Cycle of the last handshake on any port.
    last_event: (u64, u64),
    /// What crossed so far.
    pub counts: BridgeCounts,
    /// Every frame both ways, when capturing ([`WireBridge::capture`]).
    pub crossed: Option<Vec<Crossed>>,
    buffer: Vec<u8>,
    /// Frames taken off the socket, waiting for the MAC RX, and their bytes.
    waiting: std::collections::VecDeque<Vec<u8>>,
    waiting_bytes: usize,
    /// Faults on the frames to the engine and on those from it ([`WireBridge::set_faults`]).
    faults: [Option<FaultInjector>; 2],
}

impl WireBridge {
    /// The engine of `variant`, reset, with its MAC on a UDP socket bound to `local` that sends
    /// to `peer`.
    pub fn new(variant: &EngineVariant, local: SocketAddr, peer: SocketAddr) -> Result<WireBridge, String> {
        let socket = UdpSocket::bind(local).map_err(|e| format!("binding {local}: {e}"))?;
        socket.set_nonblocking(true).map_err(|e| format!("socket {local}: {e}"))?;
        enlarge_receive_buffer(&socket);
        let surroundings = Surroundings {
            memory: MemoryTiming::IMMEDIATE,
            bp_pct: 0,
            idle_pct: 0,
            seed: 1,
        };
        Ok(WireBridge {
            engine: EngineRtl::new("wire", variant, &surroundings)?,
            map: Map::new(variant.config),
            socket,
            peer,
            rng: ChaCha8Rng::seed_from_u64(1),
            cycle: 0,
            started: Instant::now(),
            last_event: (0, 0),
            counts: BridgeCounts::default(),
            crossed: None,
            buffer: vec![0; 65536],
            waiting: Default::default(),
            waiting_bytes: 0,
            faults: [None, None],
        })
    }

    /// Makes the wire lossy from now on: `to_engine` on the frames the peer sends, `from_engine`
    /// on the engine's, each drawn from its own seed (`seed`, `seed + 1`). The capture shows
    /// the frames as they left their sender.
    pub fn set_faults(&mut self, to_engine: Faults, from_engine: Faults, seed: u64) {
        self.faults = [
            Some(FaultInjector::new(to_engine, seed)),
            Some(FaultInjector::new(from_engine, seed.wrapping_add(1))),
        ];
    }

    /// What the faults did so far, to the engine and from it.
    pub fn fault_counts(&self) -> [FaultCounts; 2] {
        [0, 1].map(|i| self.faults[i].as_ref().map_or_else(FaultCounts::default, |f| f.counts))
    }

    /// The local address of the socket (the port the peer sends to).
    pub fn local_addr(&self) -> Result<SocketAddr, String> {
        self.socket.local_addr().map_err(|e| e.to_string())
    }

    /// Keeps every frame from now on, both ways, for [`WireBridge::write_pcap`].
    pub fn capture(&mut self) {
        self.crossed.get_or_insert_with(Vec::new);
    }

    /// The engine (its memory, its ports).
    pub fn engine(&mut self) -> &mut EngineRtl {
        &mut self.engine
    }

    /// Cycles run so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// One clock cycle; a look at the socket every few cycles.
    pub fn step(&mut self) -> Result<(), String> {
        if self.cycle.is_multiple_of(POLL_CYCLES) {
            self.receive()?;
            self.release_held();
        }
        let e = &mut self.engine;
        e.drive(&mut self.rng, self.cycle);
        e.m.eval();
        let beat_out = e.sample(self.cycle)?;
        e.m.tick();
        if beat_out.is_some_and(|(_, _, last)| last) {
            self.send()?;
        }
        self.counts.passed_to_host += self.engine.take_passed().len() as u64;
        self.engine.forget_written();
        if self.engine.events() != self.last_event.1 {
            self.last_event = (self.cycle, self.engine.events());
        }
        self.cycle += 1;
        Ok(())
    }

    /// Whether nothing has moved for [`IDLE_CYCLES`] and nothing waits on the wire in.
    pub fn idle(&self) -> bool {
        self.cycle - self.last_event.0 > IDLE_CYCLES
            && self.waiting.is_empty()
            && !self.faults.iter().flatten().any(FaultInjector::holding)
            && self.engine.incoming_beats() == 0
            && self.engine.axil.outstanding() == 0
    }

    /// Runs until `done` holds (checked every [`POLL_CYCLES`] cycles) or `timeout` of wall time
    /// has passed (an error naming `what`). While idle the clock stops and the bridge waits
    /// for datagrams.
    pub fn run_until(&mut self, what: &str, timeout: Duration, mut done: impl FnMut(&mut WireBridge) -> bool) -> Result<(), String> {
        let deadline = Instant::now() + timeout;
        loop {
            if done(self) {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "waiting for {what}: not done after {timeout:?} (cycle {}, {:?})",
                    self.cycle, self.counts
                ));
            }
            if self.idle() {
                self.wait_for_datagram(Duration::from_millis(1))?;
                self.receive()?;
                if self.engine.incoming_beats() == 0 {
                    continue;
                }
            }
            for _ in 0..POLL_CYCLES {
                self.step()?;
            }
        }
    }

    /// Runs for `duration` of wall time (datagrams in both directions keep flowing).
    pub fn run_for(&mut self, duration: Duration) -> Result<(), String> {
        let end = Instant::now() + duration;
        self.run_until("time to pass", duration + Duration::from_secs(1), |_| Instant::now() >= end)
    }

    /// Blocks until a datagram can be read or `timeout` passed.
    fn wait_for_datagram(&mut self, timeout: Duration) -> Result<(), String> {
        let io = |e: std::io::Error| format!("socket: {e}");
        self.socket.set_nonblocking(false).map_err(io)?;
        self.socket.set_read_timeout(Some(timeout)).map_err(io)?;
        let peeked = self.socket.peek(&mut self.buffer[..1]);
        self.socket.set_nonblocking(true).map_err(io)?;
        match peeked {
            Ok(_) => Ok(()),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => Ok(()),
            // a port-unreachable answer to an earlier send: the peer is not listening yet
            Err(e) if e.kind() == ErrorKind::ConnectionRefused => Ok(()),
            Err(e) => Err(io(e)),
        }
    }

    /// Takes the datagrams waiting on the socket onto the MAC RX, while the wire in is short.
    fn receive(&mut self) -> Result<(), String> {
        loop {
            let length = match self.socket.recv(&mut self.buffer) {
                Ok(n) => n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::ConnectionRefused => continue,
                Err(e) => return Err(format!("socket: {e}")),
            };
            if length < SHORTEST_FRAME {
                self.counts.dropped_short += 1;
            } else if length > LARGEST_FRAME {
                self.counts.dropped_long += 1;
            } else if self.waiting_bytes + length > QUEUED_BYTES {
                self.counts.dropped_queue_full += 1;
            } else {
                let frame = self.buffer[..length].to_vec();
                self.keep(false, frame.clone());
                let frames = match &mut self.faults[0] {
                    Some(faults) => faults.apply(frame, self.cycle),
                    None => vec![frame],
                };
                self.queue_for_the_engine(frames);
            }
        }
        let room = 2 * LARGEST_FRAME / self.engine.input_bytes_per_beat();
        while self.engine.incoming_beats() < room {
            let Some(frame) = self.waiting.pop_front() else { break };
            self.waiting_bytes -= frame.len();
            self.engine.inject(&frame);
            self.counts.frames_in += 1;
            self.last_event = (self.cycle, self.engine.events());
        }
        Ok(())
    }

    /// Frames for the MAC RX, after the faults to the engine.
    fn queue_for_the_engine(&mut self, frames: Vec<Vec<u8>>) {
        for frame in frames {
            self.waiting_bytes += frame.len();
            self.waiting.push_back(frame);
            self.counts.most_queued = self.counts.most_queued.max(self.waiting.len() as u64);
        }
    }

    /// Sends the frames the MAC TX finished, after the faults from the engine.
    fn send(&mut self) -> Result<(), String> {
        for frame in self.engine.take_frames_out() {
            self.keep(true, frame.clone());
            let frames = match &mut self.faults[1] {
                Some(faults) => faults.apply(frame, self.cycle),
                None => vec![frame],
            };
            self.send_datagrams(frames);
        }
        Ok(())
    }

    fn send_datagrams(&mut self, frames: Vec<Vec<u8>>) {
        for frame in frames {
            match self.socket.send_to(&frame, self.peer) {
                Ok(_) => self.counts.frames_out += 1,
                Err(_) => self.counts.send_errors += 1,
            }
        }
    }

    /// Frames the faults held back whose time has come, both ways.
    fn release_held(&mut self) {
        let cycle = self.cycle;
        if let Some(due) = self.faults[0].as_mut().map(|f| f.due(cycle)) {
            self.queue_for_the_engine(due);
        }
        if let Some(due) = self.faults[1].as_mut().map(|f| f.due(cycle)) {
            self.send_datagrams(due);
        }
    }

    fn keep(&mut self, outgoing: bool, bytes: Vec<u8>) {
        let at = self.started.elapsed();
        if let Some(crossed) = &mut self.crossed {
            crossed.push(Crossed { at, outgoing, bytes });
        }
    }

    /// Writes the captured frames (both ways, in order) to a pcap file.
    pub fn write_pcap(&self, path: &Path) -> Result<(), String> {
        let frames: Vec<Vec<u8>> = self.crossed.iter().flatten().map(|c| c.bytes.clone()).collect();
        crate::wire::pcap::write_pcap(path, &frames).map_err(|e| format!("{}: {e}", path.display()))
    }
}

impl EngineHost for WireBridge {
    fn map(&self) -> &Map {
        &self.map
    }

    fn label(&self) -> String {
        "the engine on the wire".to_string()
    }

    fn transact(&mut self, request: Request) -> Result<(u8, u32), String> {
        transact_stepping(self, request, |b| &mut b.engine, WireBridge::step)
    }
}
