//! Connections with the Linux RDMA tools: the out-of-band exchanges of `ibv_rc_pingpong`
//! (and `ibv_uc_pingpong`) and of perftest (`ib_write_bw`, `ib_read_bw`, `ib_send_bw`, `ib_write_lat`) over TCP, the
//! engine's QP and memory region programmed from them, and the engine's side of each test,
//! all through the register file. So a stock tool on a Linux host measures a Ferroce engine as
//! it would another host's NIC.
//!
//! The messages are in [`message`] ([`PingpongAddress`], [`PerftestKey`], each with `parse`
//! and `emit`); perftest's [`PerftestPrefix`] is exchanged here; [`pingpong`] and [`perftest`]
//! run a whole test as the server (the side that listens) or the client.

pub mod message;

use crate::{Ferroce, Finished, PostOutcome, ReceiveOutcome, Region};
use ferroce_contracts::regs::{PostState, POLL_CHANNELS};
use ferroce_contracts::responder::{Access, ResponderCounter};
use ferroce_contracts::tx::{udp_source_port_hash, Pmtu, PostOp, QpState, POST, READS_PER_QP};
use message::message_text;
pub use message::{gid_ipv4, ipv4_gid, MessageError, PerftestKey, PingpongAddress};
use std::fmt;
use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The TCP port both tools use by default.
pub const DEFAULT_PORT: u16 = 18515;

/// The perftest version this exchange follows (Debian 12's perftest 4.5-0.17 says 6.06): every
/// version from 5.70 on exchanges the same messages.
pub const PERFTEST_VERSION: &str = "6.06";

/// The oldest perftest version with this exchange.
const PERFTEST_OLDEST: f64 = 5.70;

/// Reads a post's answer this many times before waiting for it by the clock.
const POST_TRIES: usize = 100;

/// Why a connection or a test failed.
#[derive(Debug)]
pub enum ConnectError {
    /// A register access failed.
    Device(crate::Error),
    /// The TCP connection failed (what was being done, and the system's error).
    Socket(String),
    /// The peer's message is not the tool's.
    Message(MessageError),
    /// The peer runs something this exchange can't talk with.
    Peer(String),
    /// The engine refused a post, or a transfer or a receive completed with an error.
    Engine(String),
    /// Nothing moved for the time allowed (what was awaited).
    Timeout(String),
    /// A test this library does not run.
    Unsupported(String),
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectError::Device(e) => write!(f, "{e}"),
            ConnectError::Socket(s) => write!(f, "out-of-band connection: {s}"),
            ConnectError::Message(e) => write!(f, "the peer's message: {e}"),
            ConnectError::Peer(s) => write!(f, "the peer: {s}"),
            ConnectError::Engine(s) => write!(f, "the engine: {s}"),
            ConnectError::Timeout(s) => write!(f, "timed out waiting for {s}"),
            ConnectError::Unsupported(s) => write!(f, "not supported: {s}"),
        }
    }
}

impl std::error::Error for ConnectError {}

impl From<crate::Error> for ConnectError {
    fn from(e: crate::Error) -> Self {
        ConnectError::Device(e)
    }
}

impl From<MessageError> for ConnectError {
    fn from(e: MessageError) -> Self {
        ConnectError::Message(e)
    }
}

/// Which end of the TCP connection: the server listens, the client connects and writes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Listens (the Linux tool run without a host name).
    Server,
    /// Connects (the Linux tool given the server's name).
    Client,
}

/// Waits for one connection on `listener` for at most `patience`.
pub fn accept(listener: &TcpListener, patience: Duration) -> Result<TcpStream, ConnectError> {
    let io = |e: std::io::Error| ConnectError::Socket(format!("accept: {e}"));
    listener.set_nonblocking(true).map_err(io)?;
    let deadline = Instant::now() + patience;
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false).map_err(io)?;
                return Ok(stream);
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                return Err(ConnectError::Timeout(format!(
                    "a client on {} ({patience:?})",
                    listener.local_addr().map_or("?".into(), |a| a.to_string())
                )))
            }
            Err(e) => return Err(io(e)),
        }
    }
}

/// Connects to `server` (`host:port`), trying again until `patience` is spent: the server may
/// not listen yet. A connection that a forwarder accepts and then closes at once counts as not
/// yet listening (QEMU's port forwarding does that), so it is tried with a read of nothing.
pub fn connect_to(server: &str, patience: Duration) -> Result<TcpStream, ConnectError> {
    let deadline = Instant::now() + patience;
    let addresses: Vec<SocketAddr> = server
        .to_socket_addrs()
        .map_err(|e| ConnectError::Socket(format!("{server}: {e}")))?
        .collect();
    let mut last = String::new();
    loop {
        for address in &addresses {
            match TcpStream::connect_timeout(address, Duration::from_secs(1)) {
                Ok(stream) if !closed_at_once(&stream) => {
                    let _ = stream.set_nodelay(true);
                    return Ok(stream);
                }
                Ok(_) => last = "accepted and closed at once".into(),
                Err(e) => last = e.to_string(),
            }
        }
        if Instant::now() >= deadline {
            return Err(ConnectError::Socket(format!("{server}: {last} (tried for {patience:?})")));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Whether the other end closed the connection within a moment of accepting it (silence is
/// what a server is before the client speaks).
fn closed_at_once(stream: &TcpStream) -> bool {
    let _ = stream.set_read_timeout(Some(Duration::from_millis(300)));
    let mut byte = [0u8; 1];
    let closed = match stream.peek(&mut byte) {
        Ok(n) => n == 0,
        Err(e) => !matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
    };
    let _ = stream.set_read_timeout(None);
    closed
}

/// One exchange of perftest's and `ibv_rc_pingpong`'s: the client writes its message then reads
/// the server's, the server the other way round; each message is one write (perftest reads a
/// message in one read).
fn exchange(stream: &mut TcpStream, role: Role, ours: &[u8], theirs: usize, what: &str) -> Result<Vec<u8>, ConnectError> {
    let io = |e: std::io::Error| ConnectError::Socket(format!("{what}: {e}"));
    let mut answer = vec![0u8; theirs];
    if role == Role::Client {
        stream.write_all(ours).map_err(io)?;
    }
    stream.read_exact(&mut answer).map_err(|e| match e.kind() {
        ErrorKind::UnexpectedEof => ConnectError::Peer(format!("closed the connection before its {what}")),
        _ => io(e),
    })?;
    if role == Role::Server {
        stream.write_all(ours).map_err(io)?;
    }
    Ok(answer)
}

/// The engine's side of a connection.
#[derive(Debug, Clone, Copy)]
pub struct Endpoint {
    /// The engine's QP (2 and up).
    pub qp: u32,
    /// RC or UC.
    pub unreliable: bool,
    /// The first PSN the engine sends.
    pub psn: u32,
    /// The path MTU the engine offers (perftest takes the smaller of both sides').
    pub pmtu: Pmtu,
    /// The peer's MAC address (the engine does not resolve addresses); `None`: from this
    /// host's neighbour table ([`neighbour_mac`]).
    pub peer_mac: Option<[u8; 6]>,
    /// Protection domain of the QP and of its memory region.
    pub pd: u16,
    /// RC: the local ACK timeout exponent (4.096 µs × 2^n; 0: none).
    pub ack_timeout: u8,
    /// RC: transport retries (0–7).
    pub retry_count: u8,
    /// RC: RNR retries (0–7; 7: for ever).
    pub rnr_retry: u8,
}

impl Endpoint {
    /// The local ACK timeout the Linux tools set: 14 (67 ms).
    pub const LINUX_TIMEOUT: u8 = 14;
    /// The transport retries the Linux tools set.
    pub const LINUX_RETRY_COUNT: u8 = 7;
    /// The RNR retries the Linux tools set: for ever.
    pub const LINUX_RNR_RETRY: u8 = 7;
}

/// The peer as its message gave it.
#[derive(Debug, Clone, Copy)]
pub struct Peer {
    /// Its QP number.
    pub qpn: u32,
    /// The first PSN it sends.
    pub psn: u32,
    /// Its IPv4 address (from its GID).
    pub ip: Ipv4Addr,
    /// R_Key of its buffer (0: none).
    pub rkey: u32,
}

impl Peer {
    /// The peer of a message with `gid`: an IPv4-mapped GID (RoCEv2 over IPv4) or an error
    /// that says how to get one.
    fn new(qpn: u32, psn: u32, gid: &[u8; 16], rkey: u32) -> Result<Peer, ConnectError> {
        let ip = gid_ipv4(gid).ok_or_else(|| {
            ConnectError::Peer(format!(
                "its GID {} is not an IPv4 one (::ffff:a.b.c.d): run the Linux tool with the GID index of its \
                 RoCEv2 IPv4 address (ibv_rc_pingpong -g N, perftest -x N; `rdma link` and \
                 /sys/class/infiniband/*/ports/1/gids list them)",
                Ipv6Addr::from(*gid)
            ))
        })?;
        Ok(Peer { qpn, psn, ip, rkey })
    }
}

/// The engine's addresses (its MAC and IPv4 registers) and GID.
fn local_address(dev: &mut Ferroce) -> Result<([u8; 6], Ipv4Addr), ConnectError> {
    let (mac, ip) = dev.local_address()?;
    if ip.is_unspecified() {
        return Err(ConnectError::Engine(
            "its IPv4 address (local_ipv4) is 0.0.0.0: set local_ipv4 and local_mac_low/high first".into(),
        ));
    }
    Ok((mac, ip))
}

/// RC: the engine asks for an ACK (AckReq) on every 64th packet as well as on the last of each
/// block, about as often as Linux rxe's requester does (it asks once 64 packets went without):
/// a peer that acknowledges only what asks for it (rxe) then acknowledges a long block's
/// packets as they come, not all at its end.
pub const ACK_EVERY: u8 = 64;

/// Resets the engine's QP and commits it (RTS) towards `peer`, with `end`'s timeout and retry
/// counts (the Linux tools set 14, 7 and 7), AckReq every [`ACK_EVERY`] packets and a min RNR
/// timer of 12.
pub fn commit_qp(dev: &mut Ferroce, end: &Endpoint, pmtu: Pmtu, peer: &Peer) -> Result<(), ConnectError> {
    let (mac, ip) = local_address(dev)?;
    let peer_mac = end.peer_mac.or_else(|| neighbour_mac(peer.ip)).ok_or_else(|| {
        ConnectError::Peer(format!(
            "{}'s MAC address is not in this host's neighbour table (/proc/net/arp): give it (--peer-mac)",
            peer.ip
        ))
    })?;
    let mac_value = |m: [u8; 6]| m.iter().fold(0u128, |v, &b| v << 8 | u128::from(b));
    let fields: [(&str, u128); 20] = [
        ("state", QpState::Rts.code().into()),
        ("transport", if end.unreliable { 1 } else { 0 }),
        ("pmtu", pmtu.code().into()),
        ("ack_every", ACK_EVERY.into()),
        ("pkey", 0xffff),
        ("ttl", 64),
        ("timeout", end.ack_timeout.into()),
        ("retry_count", end.retry_count.into()),
        ("rnr_retry", end.rnr_retry.into()),
        ("min_rnr_timer", 12),
        ("dest_qpn", peer.qpn.into()),
        ("sq_psn", end.psn.into()),
        ("rq_psn", peer.psn.into()),
        ("udp_sport", udp_source_port_hash(end.qp).into()),
        ("pd", end.pd.into()),
        ("rkey", peer.rkey.into()),
        ("src_mac", mac_value(mac)),
        ("dst_mac", mac_value(peer_mac)),
        ("src_ip", u32::from(ip).into()),
        ("dst_ip", u32::from(peer.ip).into()),
    ];
    dev.qp_commit(end.qp, &fields)?;
    Ok(())
}

/// Waits for `done` to give something, polling the engine, for at most `patience` without it.
fn wait_for<T>(
    dev: &mut Ferroce,
    patience: Duration,
    what: impl Fn() -> String,
    mut done: impl FnMut(&mut Ferroce) -> Result<Option<T>, ConnectError>,
) -> Result<T, ConnectError> {
    let deadline = Instant::now() + patience;
    loop {
        if let Some(v) = done(dev)? {
            return Ok(v);
        }
        if Instant::now() > deadline {
            return Err(ConnectError::Timeout(format!("{} ({patience:?})", what())));
        }
    }
}

/// Posts a transfer; a refused post is an error. The transfer table takes a post when the TX
/// path has room, which may take a while under load: its answer is awaited for `patience`.
fn post(dev: &mut Ferroce, fields: &[(&str, u128)], patience: Duration) -> Result<(), ConnectError> {
    let words = POST.encode(fields).map_err(|e| ConnectError::Engine(format!("post: {e}")))?;
    let outcome = match dev.post(&words, POST_TRIES) {
        Ok(outcome) => outcome,
        // still pending: wait for the answer
        Err(crate::Error {
            cause: crate::Cause::Io(_),
            ..
        }) => wait_for(
            dev,
            patience,
            || "the transfer table to take a post".into(),
            |dev| {
                Ok(match dev.post_status()? {
                    (PostState::Accepted, _, _) => Some(PostOutcome::Accepted),
                    (PostState::Refused, code, _) => Some(PostOutcome::Refused(code)),
                    _ => None,
                })
            },
        )?,
        Err(e) => return Err(e.into()),
    };
    match outcome {
        PostOutcome::Accepted => Ok(()),
        PostOutcome::Refused(code) => Err(ConnectError::Engine(format!("post refused: {}", crate::refusal_name(code)))),
        PostOutcome::NotPosted(why) => Err(ConnectError::Engine(format!("post not taken: {why}"))),
    }
}

/// A receive completion must be the peer's SEND of `size` bytes on `qp`, completed without
/// an error.
fn expect_send(c: &crate::ReceiveCompletion, qp: u32, size: u32) -> Result<(), ConnectError> {
    if c.qp != qp || c.status != 0 || c.kind != crate::ReceiveKind::Send || c.length != size {
        return Err(ConnectError::Engine(format!(
            "a receive completion that is not the peer's {size}-byte SEND: {c:?} ({})",
            crate::receive_status_name(c.status)
        )));
    }
    Ok(())
}

/// Posts a receive buffer; `false` when the QP's receive queue is full.
fn receive_post(dev: &mut Ferroce, qp: u32, address: u64, length: u32) -> Result<bool, ConnectError> {
    match dev.receive_post(qp, address, length, POST_TRIES)? {
        ReceiveOutcome::Accepted => Ok(true),
        ReceiveOutcome::Refused => Ok(false),
        other => Err(ConnectError::Engine(format!("receive post {}", other.name()))),
    }
}

/// Channels the tests post on: `first..first + count`, one transfer each at a time.
#[derive(Debug, Clone, Copy)]
pub struct Channels {
    /// The first channel.
    pub first: u32,
    /// How many (transfers in flight at most).
    pub count: u32,
    /// The scheduler queue of the posts.
    pub queue: u32,
}

impl Channels {
    /// The finished channels of the range, errors reported with their cause.
    fn finished(&self, dev: &mut Ferroce) -> Result<Vec<u32>, ConnectError> {
        let last = self.first + self.count - 1;
        let mut done = Vec::new();
        for Finished { channel, error } in dev.poll(self.first, last)? {
            if !(self.first..=last).contains(&channel) {
                continue;
            }
            if error {
                let (_, cause) = dev.channel_status(channel)?;
                return Err(ConnectError::Engine(format!(
                    "the transfer on channel {channel} failed: {}",
                    crate::status_name(cause)
                )));
            }
            done.push(channel);
        }
        Ok(done)
    }
}

/// What the engine does in an `ibv_rc_pingpong` or `ibv_uc_pingpong` run (the tool's `-s`, `-n`).
#[derive(Debug, Clone, Copy)]
pub struct PingpongTest {
    /// Bytes of each SEND.
    pub size: u32,
    /// SENDs each way.
    pub iterations: u32,
    /// The engine's buffer: received messages land here and are sent back from here.
    pub buffer: u64,
    /// The channel of the SENDs.
    pub channel: u32,
    /// The scheduler queue of the SENDs.
    pub queue: u32,
    /// How long to wait for anything (the peer, a completion).
    pub patience: Duration,
}

/// What a run did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Report {
    /// Bytes moved in the measured part (both ways for a ping-pong).
    pub bytes: u64,
    /// Messages (iterations for a ping-pong).
    pub messages: u64,
    /// Wall time of the measured part.
    pub elapsed: Duration,
}

impl Report {
    /// `ibv_rc_pingpong`'s two result lines.
    pub fn pingpong_lines(&self) -> String {
        let usec = self.elapsed.as_secs_f64() * 1e6;
        format!(
            "{} bytes in {:.2} seconds = {:.2} Mbit/sec\n{} iters in {:.2} seconds = {:.2} usec/iter\n",
            self.bytes,
            usec / 1e6,
            self.bytes as f64 * 8.0 / usec,
            self.messages,
            usec / 1e6,
            usec / self.messages as f64
        )
    }

    /// Bandwidth in MiB/s (perftest's unit).
    pub fn mebibytes_per_second(&self) -> f64 {
        self.bytes as f64 / self.elapsed.as_secs_f64() / f64::from(1 << 20)
    }

    /// Messages a second, in millions.
    pub fn mega_messages_per_second(&self) -> f64 {
        self.messages as f64 / self.elapsed.as_secs_f64() / 1e6
    }

    /// A line of perftest's latency table for messages of `size` bytes: the average half round
    /// trip in every column (the engine's side times the whole run only).
    pub fn latency_line(&self, size: u32) -> String {
        let usec = self.elapsed.as_secs_f64() * 1e6 / self.messages.max(1) as f64 / 2.0;
        format!(
            " {size:<7} {:<10}     {usec:<14.2} {usec:<14.2} {usec:<16.2} {usec:<14.2} {:<15.2} {usec:<22.2} {usec:.2}",
            self.messages, 0.0
        )
    }

    /// perftest's result line for messages of `size` bytes.
    pub fn perftest_line(&self, size: u32) -> String {
        perftest_result_line(
            u64::from(size),
            self.messages,
            self.mebibytes_per_second(),
            self.mega_messages_per_second(),
        )
    }
}

/// The header of perftest's latency table.
pub const PERFTEST_LATENCY_HEADER: &str =
    " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]";

/// The header of perftest's bandwidth table.
pub const PERFTEST_HEADER: &str = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";

/// A line of perftest's bandwidth table (the peak column shows the average: the engine's side
/// measures the whole run only).
fn perftest_result_line(size: u64, messages: u64, mebibytes_per_second: f64, mega_messages_per_second: f64) -> String {
    format!(" {size:<10} {messages:<10}       {mebibytes_per_second:.2}               {mebibytes_per_second:.2}\t\t   {mega_messages_per_second:.6}")
}

/// The address line `ibv_rc_pingpong` prints for a side.
fn pingpong_address_line(label: &str, a: &PingpongAddress) -> String {
    format!(
        "  {label} address:  LID 0x{:04x}, QPN 0x{:06x}, PSN 0x{:06x}, GID {}",
        a.lid,
        a.qpn,
        a.psn,
        Ipv6Addr::from(a.gid)
    )
}

/// Runs the engine's side of `ibv_rc_pingpong` (or `ibv_uc_pingpong` with `end.unreliable`) on
/// `stream`: the address exchange (the engine's QP committed and two receive buffers posted
/// before the engine's address goes out), then `iterations` SENDs each way. As the tool does,
/// each side sends once its previous SEND has completed and the peer's has arrived; the client
/// sends first. `progress` gets the address lines. Returns the run's figures.
pub fn pingpong(
    dev: &mut Ferroce,
    stream: &mut TcpStream,
    role: Role,
    end: &Endpoint,
    test: &PingpongTest,
    mut progress: impl FnMut(&str),
) -> Result<Report, ConnectError> {
    let (_, ip) = local_address(dev)?;
    let ours = PingpongAddress {
        lid: 0,
        qpn: end.qp,
        psn: end.psn,
        gid: ipv4_gid(ip),
    };
    progress(&pingpong_address_line("local", &ours));
    let theirs = match role {
        Role::Client => {
            let theirs = PingpongAddress::parse(&exchange(stream, role, &ours.emit(), PingpongAddress::LEN, "address")?)?;
            pingpong_ready(dev, end, test, &theirs)?;
            stream
                .write_all(b"done\0")
                .map_err(|e| ConnectError::Socket(format!("done: {e}")))?;
            theirs
        }
        Role::Server => {
            let mut message = [0u8; PingpongAddress::LEN];
            stream
                .read_exact(&mut message)
                .map_err(|e| ConnectError::Socket(format!("the client's address: {e}")))?;
            let theirs = PingpongAddress::parse(&message)?;
            pingpong_ready(dev, end, test, &theirs)?;
            stream
                .write_all(&ours.emit())
                .map_err(|e| ConnectError::Socket(format!("address: {e}")))?;
            let mut done = [0u8; 5];
            stream
                .read_exact(&mut done)
                .map_err(|e| ConnectError::Socket(format!("the client's done: {e}")))?;
            theirs
        }
    };
    progress(&pingpong_address_line("remote", &theirs));

    let started = Instant::now();
    let (mut sent, mut received) = (0u32, 0u32);
    // what the next SEND waits for: the previous one's completion, the peer's SEND
    let (mut send_pending, mut receive_pending) = (false, true);
    let send = |dev: &mut Ferroce| {
        post(
            dev,
            &[
                ("channel", test.channel.into()),
                ("queue", test.queue.into()),
                ("op", PostOp::Send.code().into()),
                ("qp", end.qp.into()),
                ("local_addr", test.buffer.into()),
                ("length", test.size.into()),
            ],
            test.patience,
        )
    };
    if role == Role::Client {
        send(dev)?;
        send_pending = true;
    }
    let channels = Channels {
        first: test.channel,
        count: 1,
        queue: test.queue,
    };
    while sent < test.iterations || received < test.iterations {
        let progress_text = || format!("the ping-pong (sent {sent} and received {received} of {})", test.iterations);
        let (completions, finished) = wait_for(dev, test.patience, progress_text, |dev| {
            let (completions, _) = dev.receive_completions(4)?;
            let finished = if send_pending { channels.finished(dev)? } else { Vec::new() };
            Ok((!completions.is_empty() || !finished.is_empty()).then_some((completions, finished)))
        })?;
        for c in completions {
            expect_send(&c, end.qp, test.size)?;
            received += 1;
            receive_pending = false;
            if !receive_post(dev, end.qp, test.buffer, test.size)? {
                return Err(ConnectError::Engine(format!("QP {}'s receive queue refused a buffer", end.qp)));
            }
        }
        if !finished.is_empty() {
            sent += 1;
            send_pending = false;
        }
        let posted = sent + u32::from(send_pending);
        if !send_pending && !receive_pending && posted < test.iterations {
            send(dev)?;
            send_pending = true;
            receive_pending = true;
        }
    }
    Ok(Report {
        bytes: 2 * u64::from(test.size) * u64::from(test.iterations),
        messages: test.iterations.into(),
        elapsed: started.elapsed(),
    })
}

/// Commits the QP towards the ping-pong peer and posts two receive buffers.
fn pingpong_ready(dev: &mut Ferroce, end: &Endpoint, test: &PingpongTest, theirs: &PingpongAddress) -> Result<(), ConnectError> {
    let peer = Peer::new(theirs.qpn, theirs.psn, &theirs.gid, 0)?;
    commit_qp(dev, end, end.pmtu, &peer)?;
    for _ in 0..2 {
        if !receive_post(dev, end.qp, test.buffer, test.size)? {
            return Err(ConnectError::Engine(format!("QP {}'s receive queue refused a buffer", end.qp)));
        }
    }
    Ok(())
}

/// A perftest bandwidth test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PerftestKind {
    /// `ib_write_bw`: the client RDMA WRITEs into the server's buffer.
    WriteBw,
    /// `ib_read_bw`: the client RDMA READs the server's buffer (RC only).
    ReadBw,
    /// `ib_send_bw`: the client SENDs into the server's receive buffers.
    SendBw,
    /// `ib_write_lat`: each side RDMA WRITEs into the other's buffer when the other's write
    /// has arrived (the server first; as the server the engine needs its memory reachable
    /// from the host: [`PerftestTest::latency_source`]).
    WriteLat,
}

impl PerftestKind {
    /// The tool's name.
    pub const fn tool(self) -> &'static str {
        match self {
            PerftestKind::WriteBw => "ib_write_bw",
            PerftestKind::ReadBw => "ib_read_bw",
            PerftestKind::SendBw => "ib_send_bw",
            PerftestKind::WriteLat => "ib_write_lat",
        }
    }
}

/// The message sizes of perftest's `-a`: every power of two from 2 bytes to 8 MiB.
pub const PERFTEST_ALL_SIZES: [u32; 23] = {
    let mut sizes = [0; 23];
    let mut i = 0;
    while i < sizes.len() {
        sizes[i] = 2 << i;
        i += 1;
    }
    sizes
};

/// What the engine does in a perftest run (the tool's `-s`, `-a`, `-n`: perftest does not
/// exchange them, so both ends must be given the same).
#[derive(Debug, Clone, Copy)]
pub struct PerftestTest {
    /// The test.
    pub kind: PerftestKind,
    /// Bytes of each message (`-s`).
    pub size: u32,
    /// perftest's `-a`: `iterations` messages of each of [`PERFTEST_ALL_SIZES`] instead of `size`.
    pub all_sizes: bool,
    /// perftest's `-b`: both sides send at once (with `all_sizes`, at every size).
    pub duplex: bool,
    /// Messages (of each size).
    pub iterations: u32,
    /// The engine's buffer: the source of its messages, or where the peer's land.
    pub buffer: u64,
    /// The memory region entry that exposes the buffer (server of `ib_write_bw` and
    /// `ib_read_bw`).
    pub region: u32,
    /// Channels of the posts (client).
    pub channels: Channels,
    /// How long to wait for anything (the peer, a completion).
    pub patience: Duration,
}

impl PerftestTest {
    /// Where the engine's receive buffers for the peer's SENDs are: its buffer, or in a duplex
    /// run (where the engine sends from its buffer at the same time) right after the largest
    /// message.
    pub fn receive_buffer(&self) -> u64 {
        if self.duplex {
            self.buffer + u64::from(self.sizes().iter().copied().max().unwrap_or(0))
        } else {
            self.buffer
        }
    }

    /// Where the engine's WRITEs come from as `ib_write_lat`'s server: a page past its largest
    /// message (the peer's land at its buffer). Before each, the counter perftest polls for
    /// (the iteration, from 1, modulo 256) is written into the message's last byte there
    /// through the host's view of the engine's memory ([`Ferroce::memory_write`]).
    pub fn latency_source(&self) -> u64 {
        let largest = self.sizes().iter().copied().max().unwrap_or(0);
        self.buffer + u64::from(largest).next_multiple_of(4096).max(4096)
    }

    /// Refuses what the engine can't run (before any connection is made): `ib_read_bw` over
    /// UC, `ib_write_lat` with `-b`, and `ib_write_lat` as the server on a device that does
    /// not reach the engine's memory.
    pub fn check(&self, dev: &mut Ferroce, role: Role, end: &Endpoint) -> Result<(), ConnectError> {
        if self.kind == PerftestKind::ReadBw && end.unreliable {
            return Err(ConnectError::Unsupported(
                "ib_read_bw over UC: RDMA READ needs an RC connection".into(),
            ));
        }
        if self.kind == PerftestKind::WriteLat && self.duplex {
            return Err(ConnectError::Unsupported("ib_write_lat has no -b: both sides write already".into()));
        }
        if self.kind == PerftestKind::WriteLat && role == Role::Server {
            dev.memory_read(self.latency_source(), 1).map_err(|e| {
                ConnectError::Unsupported(format!(
                    "ib_write_lat with the engine as its server (it writes the counter perftest polls for into \
                     each message before sending it, through the host's view of the engine's memory): {e}; or \
                     start ib_write_lat without a host name and connect the engine to it as the client"
                ))
            })?;
        }
        Ok(())
    }

    /// The message sizes, in the order the test runs them.
    pub fn sizes(&self) -> &[u32] {
        if self.all_sizes {
            &PERFTEST_ALL_SIZES
        } else {
            std::slice::from_ref(&self.size)
        }
    }
}

/// The messages perftest exchanges before any QP exists: its version (16 bytes, text), page
/// and cache line sizes (4 bytes each, big-endian; both sides take the larger) and the MTU
/// code as one ASCII digit and a NUL (both sides take the smaller).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PerftestPrefix {
    /// The version (as perftest's `atof` reads it).
    pub version: f64,
    /// Page size: the stride of small messages' addresses.
    pub page_size: u32,
    /// Cache line size.
    pub cache_line: u32,
    /// Path MTU.
    pub pmtu: Pmtu,
}

impl PerftestPrefix {
    /// Runs the four exchanges with `ours`; the peer's values.
    fn exchange(stream: &mut TcpStream, role: Role, ours: &PerftestPrefix) -> Result<PerftestPrefix, ConnectError> {
        let mut version = [0u8; 16];
        version[..PERFTEST_VERSION.len()].copy_from_slice(PERFTEST_VERSION.as_bytes());
        let theirs = exchange(stream, role, &version, 16, "version")?;
        let text = message_text(&theirs);
        let number: String = text.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
        let version = number.parse::<f64>().unwrap_or(0.0);
        if version < PERFTEST_OLDEST {
            return Err(ConnectError::Peer(format!(
                "perftest version '{text}': versions before {PERFTEST_OLDEST} exchange other messages"
            )));
        }
        let word = |stream: &mut TcpStream, v: u32, what| -> Result<u32, ConnectError> {
            let b = exchange(stream, role, &v.to_be_bytes(), 4, what)?;
            Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        };
        let page_size = word(stream, ours.page_size, "page size")?;
        let cache_line = word(stream, ours.cache_line, "cache line size")?;
        let mtu = exchange(stream, role, &[b'0' + ours.pmtu.code(), 0], 2, "MTU")?;
        let pmtu = (mtu[0] as char)
            .to_digit(10)
            .and_then(|c| Pmtu::from_code(c as u8))
            .ok_or_else(|| MessageError::Field {
                field: "MTU",
                text: message_text(&mtu),
            })?;
        Ok(PerftestPrefix {
            version,
            page_size,
            cache_line,
            pmtu,
        })
    }
}

/// perftest's closing: one more key exchange, then each side writes "done" and closes; the
/// peer's "done" is read so that the connection is not reset under it.
fn perftest_close(stream: &mut TcpStream, role: Role, key: &PerftestKey) -> Result<(), ConnectError> {
    exchange(stream, role, &key.emit(), PerftestKey::LEN, "closing handshake")?;
    stream
        .write_all(b"done\0")
        .map_err(|e| ConnectError::Socket(format!("done: {e}")))?;
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut rest = Vec::new();
    let _ = stream.read_to_end(&mut rest);
    Ok(())
}

/// perftest's bandwidth report, exchanged after an `ib_write_bw` or `ib_read_bw`: message size and iterations
/// (8 bytes each, big-endian), peak and average bandwidth in MiB/s and message rate in Mpps
/// (big-endian doubles).
fn report_bytes(size: u32, r: &Report) -> Vec<u8> {
    let mut out = Vec::with_capacity(40);
    out.extend_from_slice(&u64::from(size).to_be_bytes());
    out.extend_from_slice(&r.messages.to_be_bytes());
    out.extend_from_slice(&r.mebibytes_per_second().to_be_bytes());
    out.extend_from_slice(&r.mebibytes_per_second().to_be_bytes());
    out.extend_from_slice(&r.mega_messages_per_second().to_be_bytes());
    out
}

/// The result of a perftest run on the engine's side.
#[derive(Debug, Clone)]
pub struct PerftestOutcome {
    /// The engine's figures for each message size, in the order run (client, or `ib_send_bw`
    /// server: from the first message of a size to its last), none for an `ib_write_bw` or `ib_read_bw`
    /// server (it sees no messages).
    pub reports: Vec<(u32, Report)>,
    /// The client's report as it sent it (`ib_write_bw` and `ib_read_bw` server): size, iterations, MiB/s, Mpps
    /// (with `-a`, of the last size).
    pub peer_report: Option<(u64, u64, f64, f64)>,
    /// The peer's key message.
    pub peer: PerftestKey,
    /// The path MTU both sides agreed on.
    pub pmtu: Pmtu,
}

/// The perftest version from which `ib_write_bw -a -b` and `ib_read_bw -a -b` shake hands after
/// each size as well as before it.
const PERFTEST_SYNC_AFTER_A_SIZE: f64 = 4.6;

/// Runs the engine's side of a perftest test on `stream`: the exchanges of
/// perftest's `ib_write_bw`, `ib_read_bw` (RC), `ib_send_bw` (with or without `-a`, `-b` or both; without `-D`)
/// or `ib_write_lat` (with or without `-a`),
/// the engine's QP committed (and, for the `ib_write_bw` and `ib_read_bw` server, its memory region registered)
/// before its key goes out, then the test, for each message size in turn:
/// - `ib_write_bw` client: `iterations` RDMA WRITEs into the server's buffer (at its address,
///   or cycling through a page for messages up to half a page, as perftest does), up to
///   `channels.count` in flight; then the report (of the last size) sent to the server.
/// - `ib_read_bw` client: `iterations` RDMA READs of the server's buffer (its addresses as
///   `ib_write_bw`'s) into the engine's, up to `channels.count` posted (the engine has up to
///   `READS_PER_QP` READs on the wire per QP; perftest's `out_reads` it is told); then the
///   report.
/// - `ib_write_bw` server: the engine's buffer exposed with remote write (`ib_read_bw`: remote
///   read), as large as the
///   largest message; the client's report received.
/// - `ib_send_bw` client: `iterations` SENDs after the server's key that says its receive
///   buffers are posted (with `-a`, one more key exchange after each size).
/// - `ib_send_bw` server: `iterations` receive buffers posted (as many at a time as the QP's
///   receive queue takes) before that key, then their completions.
/// - `ib_write_lat` client: each time the server's WRITE has been executed, the same bytes
///   written back from where they landed; no report exchanged.
/// - `ib_write_lat` server: the first WRITE at once, then one each time the client's has been
///   executed, from [`PerftestTest::latency_source`] with the counter written into its last
///   byte; then the client's last WRITE awaited.
/// - With `-b` (duplex), both roles alike, for each size: `ib_write_bw` exposes the engine's
///   buffer, shakes hands and writes (with `-a`, shaking hands again after a size when the
///   peer's perftest is 4.6 or later); `ib_send_bw` posts its receive buffers (after the largest
///   message, the engine's buffer being the source of its own SENDs), shakes hands, and sends
///   while it takes the peer's SENDs; then the two sides exchange their reports.
pub fn perftest(
    dev: &mut Ferroce,
    stream: &mut TcpStream,
    role: Role,
    end: &Endpoint,
    test: &PerftestTest,
    mut progress: impl FnMut(&str),
) -> Result<PerftestOutcome, ConnectError> {
    test.check(dev, role, end)?;
    let (_, ip) = local_address(dev)?;
    let prefix = PerftestPrefix::exchange(
        stream,
        role,
        &PerftestPrefix {
            version: 0.0,
            page_size: 4096,
            cache_line: 64,
            pmtu: end.pmtu,
        },
    )?;
    let page_size = prefix.page_size.max(4096);
    let pmtu = if prefix.pmtu.bytes() < end.pmtu.bytes() {
        prefix.pmtu
    } else {
        end.pmtu
    };
    // the buffer the peer may touch: as perftest, the larger of the largest message and a page
    let exposed = test.sizes().iter().copied().max().unwrap_or(0).max(page_size);
    let rkey = test.region << ferroce_contracts::responder::REGION_KEY_BITS;
    let ours = PerftestKey {
        lid: 0,
        out_reads: READS_PER_QP as u16,
        qpn: end.qp,
        psn: end.psn,
        rkey,
        vaddr: test.buffer,
        gid: ipv4_gid(ip),
        srqn: 0,
    };
    let key = |stream: &mut TcpStream, what| -> Result<PerftestKey, ConnectError> {
        Ok(PerftestKey::parse(&exchange(stream, role, &ours.emit(), PerftestKey::LEN, what)?)?)
    };
    if test.kind == PerftestKind::WriteLat {
        // the latency tests shake hands once more first
        key(stream, "key (set up)")?;
    }
    let theirs = key(stream, "key (QP)")?;
    if gid_ipv4(&theirs.gid).is_none() != gid_ipv4(&ours.gid).is_none() {
        return Err(ConnectError::Peer(
            "its GID and ours are not of one family (IPv4-mapped or not)".into(),
        ));
    }
    let peer = Peer::new(theirs.qpn, theirs.psn, &theirs.gid, theirs.rkey)?;
    commit_qp(dev, end, pmtu, &peer)?;
    let one_sided = matches!(test.kind, PerftestKind::WriteBw | PerftestKind::ReadBw);
    if test.kind == PerftestKind::WriteLat || (one_sided && (role == Role::Server || test.duplex)) {
        let read = test.kind == PerftestKind::ReadBw;
        dev.region_write(
            test.region,
            &Region {
                valid: true,
                access: Access {
                    remote_write: !read,
                    remote_read: read,
                },
                pd: end.pd,
                rkey,
                base: test.buffer,
                length: exposed.into(),
            },
        )?;
    }
    let theirs = key(stream, "key (connected)")?;
    progress(&format!(
        " local address: LID {:#06x} QPN {:#08x} PSN {:#08x} RKey {:#010x} VAddr {:#018x} GID {}\n \
         remote address: LID {:#06x} QPN {:#08x} PSN {:#08x} RKey {:#010x} VAddr {:#018x} GID {}",
        ours.lid,
        ours.qpn,
        ours.psn,
        ours.rkey,
        ours.vaddr,
        Ipv6Addr::from(ours.gid),
        theirs.lid,
        theirs.qpn,
        theirs.psn,
        theirs.rkey,
        theirs.vaddr,
        Ipv6Addr::from(theirs.gid)
    ));
    // ib_write_lat's server writes as soon as the last key is out: count from before it
    let mut executed = dev.responder_counter(ResponderCounter::PacketsExecuted)?;
    // the peer's R_Key and VA as of its last key before the test
    let theirs = key(stream, "key (ready)")?;
    if theirs.rkey != peer.rkey {
        commit_qp(dev, end, pmtu, &Peer { rkey: theirs.rkey, ..peer })?;
    }
    let mut outcome = PerftestOutcome {
        reports: Vec::new(),
        peer_report: None,
        peer: theirs,
        pmtu,
    };
    progress(match test.kind {
        PerftestKind::WriteLat => PERFTEST_LATENCY_HEADER,
        _ => PERFTEST_HEADER,
    });
    let op = match test.kind {
        PerftestKind::ReadBw => PostOp::Read,
        _ => PostOp::Write,
    };
    let remote = Some((op, theirs.vaddr, page_size));
    match (test.kind, role, test.duplex) {
        (PerftestKind::WriteLat, _, _) => {
            for &size in test.sizes() {
                let report = write_latency(dev, end, test, role, size, pmtu, theirs.vaddr, &mut executed)?;
                progress(&report.latency_line(size));
                outcome.reports.push((size, report));
            }
            // ib_write_lat closes without another exchange
            return Ok(outcome);
        }
        (PerftestKind::WriteBw | PerftestKind::ReadBw, _, true) => {
            // perftest's -b: for each size both sides shake hands, write (read), shake hands
            // again with -a when the peer's perftest is 4.6 or later (it decides by its own
            // version), and exchange their reports
            for &size in test.sizes() {
                key(stream, "key (before a size)")?;
                let report = send_messages(dev, end, test, size, remote, None)?;
                progress(&report.perftest_line(size));
                outcome.reports.push((size, report));
                if test.all_sizes && prefix.version >= PERFTEST_SYNC_AFTER_A_SIZE {
                    key(stream, "key (after a size)")?;
                }
                outcome.peer_report = Some(exchange_report(stream, role, &report_bytes(size, &report))?);
            }
        }
        (PerftestKind::WriteBw | PerftestKind::ReadBw, Role::Client, false) => {
            for &size in test.sizes() {
                let report = send_messages(dev, end, test, size, remote, None)?;
                progress(&report.perftest_line(size));
                outcome.reports.push((size, report));
            }
            key(stream, "key (after the test)")?;
            let (size, last) = outcome.reports.last().copied().expect("a size");
            exchange_report(stream, role, &report_bytes(size, &last))?;
        }
        (PerftestKind::WriteBw | PerftestKind::ReadBw, Role::Server, false) => {
            key(stream, "key (after the test)")?;
            let client = exchange_report(stream, role, &[0u8; 40])?;
            progress(&perftest_result_line(client.0, client.1, client.2, client.3));
            outcome.peer_report = Some(client);
        }
        (PerftestKind::SendBw, _, _) => {
            for &size in test.sizes() {
                // the receiving side (the server, or both with -b) posts its buffers first
                let mut receiving = Receiving { posted: 0, received: 0 };
                if role == Role::Server || test.duplex {
                    while receiving.posted < test.iterations && receive_post(dev, end.qp, test.receive_buffer(), size)? {
                        receiving.posted += 1;
                    }
                    if receiving.posted == 0 {
                        return Err(ConnectError::Engine(format!("QP {}'s receive queue took no buffer", end.qp)));
                    }
                }
                key(stream, "key (receive buffers posted)")?;
                let report = match (role, test.duplex) {
                    (_, true) => send_messages(dev, end, test, size, None, Some(&mut receiving))?,
                    (Role::Client, false) => send_messages(dev, end, test, size, None, None)?,
                    (Role::Server, false) => receive_messages(dev, end, test, size, receiving.posted)?,
                };
                progress(&report.perftest_line(size));
                outcome.reports.push((size, report));
                if test.duplex {
                    outcome.peer_report = Some(exchange_report(stream, role, &report_bytes(size, &report))?);
                }
                if test.all_sizes {
                    // perftest's -a: both sides shake hands after each size
                    key(stream, "key (after a size)")?;
                }
            }
        }
    }
    perftest_close(stream, role, &ours)?;
    Ok(outcome)
}

/// perftest's five report values exchanged; the peer's (size, iterations, average MiB/s, Mpps).
fn exchange_report(stream: &mut TcpStream, role: Role, ours: &[u8]) -> Result<(u64, u64, f64, f64), ConnectError> {
    let mut values = [[0u8; 8]; 5];
    for (i, value) in values.iter_mut().enumerate() {
        let b = exchange(stream, role, &ours[8 * i..8 * i + 8], 8, "report")?;
        value.copy_from_slice(&b);
    }
    Ok((
        u64::from_be_bytes(values[0]),
        u64::from_be_bytes(values[1]),
        f64::from_be_bytes(values[3]),
        f64::from_be_bytes(values[4]),
    ))
}

/// Posts one of the test's messages on `channel`: `size` bytes from `local` in the engine's
/// memory to `remote` (a WRITE; a READ the other way; a SEND ignores it).
#[allow(clippy::too_many_arguments)]
fn post_message(
    dev: &mut Ferroce,
    end: &Endpoint,
    test: &PerftestTest,
    channel: u32,
    op: PostOp,
    local: u64,
    remote: u64,
    size: u32,
) -> Result<(), ConnectError> {
    post(
        dev,
        &[
            ("channel", channel.into()),
            ("queue", test.channels.queue.into()),
            ("op", op.code().into()),
            ("qp", end.qp.into()),
            ("local_addr", local.into()),
            ("remote_addr", remote.into()),
            ("length", size.into()),
        ],
        test.patience,
    )
}

/// `ib_write_lat`, `iterations` WRITEs of `size` bytes each way. The client, each time the
/// server's WRITE has been executed (the responder's executed packets, `executed` before it,
/// grow by the message's packets), RDMA WRITEs the same bytes from where they landed to the
/// server's buffer, so the counter in their last byte goes back as perftest's client sends it.
/// The server writes the counter (1, 2, ... modulo 256) into the last byte at
/// [`PerftestTest::latency_source`] and WRITEs from there: first at once, then each time the
/// client's WRITE has been executed; and it waits for the client's last. Each WRITE's
/// completion is awaited. The engine's QP must be the only one receiving meanwhile.
#[allow(clippy::too_many_arguments)]
fn write_latency(
    dev: &mut Ferroce,
    end: &Endpoint,
    test: &PerftestTest,
    role: Role,
    size: u32,
    pmtu: Pmtu,
    remote: u64,
    executed: &mut u32,
) -> Result<Report, ConnectError> {
    let packets = size.div_ceil(pmtu.bytes()).max(1);
    let channel = test.channels.first;
    let started = Instant::now();
    let mut await_peer = |dev: &mut Ferroce, iteration: u32| -> Result<(), ConnectError> {
        *executed = executed.wrapping_add(packets);
        let arrived = *executed;
        let what = || format!("the peer's WRITE {} of {}", iteration + 1, test.iterations);
        wait_for(dev, test.patience, what, |dev| {
            let now = dev.responder_counter(ResponderCounter::PacketsExecuted)?;
            Ok((now.wrapping_sub(arrived) as i32 >= 0).then_some(()))
        })
    };
    for iteration in 0..test.iterations {
        let source = match role {
            Role::Client => {
                await_peer(dev, iteration)?;
                test.buffer
            }
            Role::Server => {
                if iteration > 0 {
                    await_peer(dev, iteration - 1)?;
                }
                let source = test.latency_source();
                dev.memory_write(source + u64::from(size.max(1)) - 1, &[(iteration + 1) as u8])?;
                source
            }
        };
        post_message(dev, end, test, channel, PostOp::Write, source, remote, size)?;
        let what = || format!("the completion of WRITE {} of {}", iteration + 1, test.iterations);
        wait_for(dev, test.patience, what, |dev| {
            let done = test.channels.finished(dev)?;
            Ok(done.contains(&channel).then_some(()))
        })?;
    }
    if role == Role::Server && test.iterations > 0 {
        await_peer(dev, test.iterations - 1)?;
    }
    Ok(Report {
        bytes: 2 * u64::from(size) * u64::from(test.iterations),
        messages: test.iterations.into(),
        elapsed: started.elapsed(),
    })
}

/// The receive side of a duplex `ib_send_bw`: receive buffers posted and messages received.
struct Receiving {
    posted: u32,
    received: u32,
}

/// Posts the test's messages of `size` bytes (with `remote`, RDMA WRITEs or READs of its
/// address, cycling through a page for small ones; else SENDs) on the test's channels, as many in flight as
/// there are channels, and waits until all have completed; with `receiving` (duplex), also
/// takes the peer's SENDs meanwhile, as [`receive_messages`] does.
fn send_messages(
    dev: &mut Ferroce,
    end: &Endpoint,
    test: &PerftestTest,
    size: u32,
    remote: Option<(PostOp, u64, u32)>,
    mut receiving: Option<&mut Receiving>,
) -> Result<Report, ConnectError> {
    let channels = test.channels;
    let mut free: Vec<u32> = (channels.first..channels.first + channels.count).rev().collect();
    let (mut posted, mut completed) = (0u32, 0u32);
    // perftest's stride for messages up to half a page: the size rounded up to 64 bytes
    let stride = u64::from(size.div_ceil(64).max(1) * 64);
    let started = Instant::now();
    let receiving_more = |r: &Option<&mut Receiving>| r.as_ref().is_some_and(|r| r.received < test.iterations);
    while completed < test.iterations || receiving_more(&receiving) {
        while posted < test.iterations {
            let Some(channel) = free.pop() else { break };
            let (op, address) = match remote {
                Some((op, va, page)) if size <= page / 2 => (op, va + u64::from(posted) % (u64::from(page) / stride) * stride),
                Some((op, va, _)) => (op, va),
                None => (PostOp::Send, 0),
            };
            post_message(dev, end, test, channel, op, test.buffer, address, size)?;
            posted += 1;
        }
        let (sending, taking) = (completed < test.iterations, receiving_more(&receiving));
        let what = || format!("completions ({completed} of {} messages sent)", test.iterations);
        let (done, arrived) = wait_for(dev, test.patience, what, |dev| {
            let done = if sending { channels.finished(dev)? } else { Vec::new() };
            let arrived = if taking { dev.receive_completions(16)?.0 } else { Vec::new() };
            Ok((!done.is_empty() || !arrived.is_empty()).then_some((done, arrived)))
        })?;
        completed += done.len() as u32;
        free.extend(done);
        if let Some(r) = receiving.as_deref_mut() {
            for c in arrived {
                expect_send(&c, end.qp, size)?;
                r.received += 1;
                if r.posted < test.iterations && receive_post(dev, end.qp, test.receive_buffer(), size)? {
                    r.posted += 1;
                }
            }
        }
    }
    Ok(Report {
        bytes: u64::from(size) * u64::from(test.iterations),
        messages: test.iterations.into(),
        elapsed: started.elapsed(),
    })
}

/// Waits for the test's SENDs of `size` bytes, `posted` receive buffers already posted, one
/// more posted for each completion until every message has one.
fn receive_messages(dev: &mut Ferroce, end: &Endpoint, test: &PerftestTest, size: u32, mut posted: u32) -> Result<Report, ConnectError> {
    let mut received = 0u32;
    let mut started = None;
    while received < test.iterations {
        let what = || format!("the peer's SENDs ({received} of {})", test.iterations);
        let completions = wait_for(dev, test.patience, what, |dev| {
            let (c, _) = dev.receive_completions(16)?;
            Ok((!c.is_empty()).then_some(c))
        })?;
        started.get_or_insert_with(Instant::now);
        for c in completions {
            expect_send(&c, end.qp, size)?;
            received += 1;
            if posted < test.iterations && receive_post(dev, end.qp, test.receive_buffer(), size)? {
                posted += 1;
            }
        }
    }
    Ok(Report {
        bytes: u64::from(size) * u64::from(test.iterations),
        messages: test.iterations.into(),
        elapsed: started.map_or(Duration::ZERO, |s| s.elapsed()),
    })
}

/// The MAC address of `ip` in this host's neighbour table (`/proc/net/arp`), if it is there.
pub fn neighbour_mac(ip: Ipv4Addr) -> Option<[u8; 6]> {
    let table = std::fs::read_to_string("/proc/net/arp").ok()?;
    table.lines().skip(1).find_map(|line| {
        let columns: Vec<&str> = line.split_whitespace().collect();
        if columns.first()? != &ip.to_string() {
            return None;
        }
        let mac: Vec<u8> = columns.get(3)?.split(':').filter_map(|b| u8::from_str_radix(b, 16).ok()).collect();
        (mac.len() == 6 && mac.iter().any(|&b| b != 0)).then(|| [mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]])
    })
}

/// Channels polled together share a poll group: `count` channels from `first` must fit one.
pub fn channels_fit_a_poll_group(first: u32, count: u32) -> bool {
    count > 0 && first / POLL_CHANNELS == (first + count - 1) / POLL_CHANNELS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peer_needs_an_ipv4_gid() {
        let link_local: [u8; 16] = "fe80::5054:ff:fe12:3456".parse::<Ipv6Addr>().unwrap().octets();
        assert!(matches!(Peer::new(1, 2, &link_local, 0), Err(ConnectError::Peer(_))));
    }

    #[test]
    fn all_sizes_are_perftests_powers_of_two_from_2_bytes_to_8_mib() {
        assert_eq!(PERFTEST_ALL_SIZES.len(), 23);
        assert!(PERFTEST_ALL_SIZES.iter().enumerate().all(|(i, &size)| size == 2 << i));
        assert_eq!(*PERFTEST_ALL_SIZES.last().unwrap(), 8 << 20, "perftest's MAX_SIZE");
        let test = PerftestTest {
            kind: PerftestKind::SendBw,
            size: 4096,
            all_sizes: false,
            duplex: false,
            iterations: 5,
            buffer: 0,
            region: 1,
            channels: Channels {
                first: 0,
                count: 1,
                queue: 1,
            },
            patience: Duration::from_secs(1),
        };
        assert_eq!(test.sizes(), &[4096]);
        assert_eq!(PerftestTest { all_sizes: true, ..test }.sizes(), &PERFTEST_ALL_SIZES);
    }

    #[test]
    fn the_exchanges_run_in_perftest_order_over_a_socket() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let prefix = PerftestPrefix {
            version: 0.0,
            page_size: 4096,
            cache_line: 64,
            pmtu: Pmtu::B4096,
        };
        let server = std::thread::spawn(move || {
            let mut s = accept(&listener, Duration::from_secs(5)).unwrap();
            PerftestPrefix::exchange(
                &mut s,
                Role::Server,
                &PerftestPrefix {
                    pmtu: Pmtu::B1024,
                    page_size: 65536,
                    ..prefix
                },
            )
            .unwrap()
        });
        let mut c = connect_to(&address, Duration::from_secs(5)).unwrap();
        let theirs = PerftestPrefix::exchange(&mut c, Role::Client, &prefix).unwrap();
        let ours_seen = server.join().unwrap();
        assert_eq!((theirs.pmtu, theirs.page_size, theirs.cache_line), (Pmtu::B1024, 65536, 64));
        assert_eq!(ours_seen.version, PERFTEST_VERSION.parse::<f64>().unwrap());
        assert_eq!(ours_seen.pmtu, Pmtu::B4096);
    }

    #[test]
    fn a_perftest_too_old_is_named() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let old = std::thread::spawn(move || {
            let mut s = TcpStream::connect(address).unwrap();
            let mut version = [0u8; 16];
            version[..4].copy_from_slice(b"5.60");
            s.write_all(&version).unwrap();
            let mut answer = [0u8; 16];
            let _ = s.read_exact(&mut answer);
        });
        let mut s = accept(&listener, Duration::from_secs(5)).unwrap();
        let prefix = PerftestPrefix {
            version: 0.0,
            page_size: 4096,
            cache_line: 64,
            pmtu: Pmtu::B1024,
        };
        let e = PerftestPrefix::exchange(&mut s, Role::Server, &prefix).unwrap_err();
        assert!(e.to_string().contains("5.60"), "{e}");
        old.join().unwrap();
    }
}
