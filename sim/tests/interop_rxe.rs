//! Interop with the Linux kernel's RoCE stack: the engine's Verilator model
//! (`ferroce_engine_c2048_q256_w512`) on a UDP wire ([`WireBridge`]) whose other end is the virtio
//! NIC of a QEMU VM running Debian's kernel with soft-RoCE (`rdma_rxe`) and the project's
//! `sim/interop/verbs_check` (libibverbs). The VM image is built from Debian packages by
//! `scripts/interop_vm.sh prepare` (cached under the target directory).
//!
//! What each test proves, with rxe as the independent peer:
//! - the engine as RC requester: RDMA WRITE with immediate from the engine's memory lands in
//!   the VM's memory byte for byte with its immediates (rxe checked our ICRC, PSNs, RETH and
//!   opcodes), and each transfer completes on the engine when rxe's ACK arrives;
//! - the engine as RC responder: rxe's WRITEs with immediate land in the engine's memory, each
//!   consumes a receive buffer with its immediate, and rxe completes them on our ACKs;
//! - the engine answers the kernel's ARP (the QP's path is resolved through it).
//!
//! Skipped, with a message, only where QEMU cannot be installed.

use ferroce_ctl::connect::{self, Channels, Endpoint, PerftestKind, PerftestTest, PingpongTest, Role};
use ferroce_ctl::Ferroce;
use ferroce_sim::contracts::responder::completion_kind;
use ferroce_sim::contracts::responder::{Access, CheckFailure, NakCode, ResponderCounter};
use ferroce_sim::contracts::stream::{StreamCommand, StreamSettings};
use ferroce_sim::contracts::tx::{Pmtu, PostOp, QpState};
use ferroce_sim::engine_rtl::{EngineHost, ENGINE_W512};
use ferroce_sim::faults::Faults;
use ferroce_sim::models::responder::MemoryRegion;
use ferroce_sim::models::tx::{LocalMemory, Post, QpContext};
use ferroce_sim::serve::serve_running;
use ferroce_sim::wire::{RoceFrame, Transport};
use ferroce_sim::wire_bridge::WireBridge;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::net::{TcpListener, UdpSocket};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// The engine's addresses on the wire.
const ENGINE_MAC: u64 = 0x0200_5E00_0001;
const ENGINE_IP: u32 = 0x0a00_0001;
/// The VM's (QEMU's default MAC, the address `sim/interop/init` gives eth0).
const VM_MAC: u64 = 0x5254_0012_3456;
const VM_IP: u32 = 0x0a00_0002;
/// The engine's QPs, one per transport (QPs 0 and 1 are the special QPs of the specification).
const ENGINE_RC_QP: u32 = 2;
const ENGINE_UC_QP: u32 = 3;
/// Messages per test and their size (four packets each at PMTU 1024, rxe's MTU on a 1500-byte
/// netdev).
const COUNT: u32 = 4;
const SIZE: u32 = 4096;
/// `verbs_check`'s immediates: message i carries 0x1000 + i.
const IMM_BASE: u32 = 0x1000;
/// How long the VM may take from boot to its last line (QEMU without KVM).
const VM_TIMEOUT: Duration = Duration::from_secs(120);

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace").to_path_buf()
}

/// The VM image's directory, built (or found cached) by `scripts/interop_vm.sh prepare`;
/// `None` when QEMU is not there and could not be installed.
fn prepare() -> Option<PathBuf> {
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("interop-vm");
    let status = Command::new("bash")
        .arg(workspace().join("scripts/interop_vm.sh"))
        .arg("prepare")
        .arg(&cache)
        .status()
        .expect("bash");
    let qemu = Command::new("qemu-system-x86_64")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !qemu {
        eprintln!("SKIPPED: qemu-system-x86_64 is not installed and could not be installed; the interop test needs it");
        return None;
    }
    assert!(status.success(), "scripts/interop_vm.sh prepare failed");
    Some(cache)
}

/// The byte `verbs_check` expects at offset `j` of message `i`.
fn pattern(i: u32, j: u32) -> u8 {
    ((i * 7 + j) & 0xff) as u8
}

/// The booted VM: its console lines that start with `FERROCE-VM `, and its console input.
struct Vm {
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
    /// How long the VM may run, from boot to its last line ([`VM_TIMEOUT`] unless a test says).
    limit: Duration,
    started: Instant,
    console: Vec<String>,
    /// `FERROCE-VM` lines [`Vm::watch`] took and [`Vm::expect`] has not seen.
    pending: Vec<String>,
}

impl Vm {
    /// Boots the VM with its NIC's datagrams from `vm_port` to `engine_port`, running `run`
    /// (arguments separated by commas, as `sim/interop/init` takes them).
    fn boot(cache: &Path, vm_port: u16, engine_port: u16, run: &str) -> Vm {
        Vm::boot_with(cache, vm_port, engine_port, run, None)
    }

    /// [`Vm::boot`] with a second NIC for the Linux tools' TCP: the VM's connections to
    /// 10.0.2.100:18515 go to `oob_port` on the host, the host's to 127.0.0.1:`forward` go to
    /// the VM's port 18515.
    fn boot_oob(cache: &Path, vm_port: u16, engine_port: u16, run: &str, oob_port: u16, forward: u16) -> Vm {
        Vm::boot_with(cache, vm_port, engine_port, run, Some((oob_port, forward)))
    }

    fn boot_with(cache: &Path, vm_port: u16, engine_port: u16, run: &str, oob: Option<(u16, u16)>) -> Vm {
        let mut command = Command::new("bash");
        command
            .arg(workspace().join("scripts/interop_vm.sh"))
            .args(["boot", cache.to_str().expect("a UTF-8 path")])
            .args(["--local-port", &vm_port.to_string(), "--remote-port", &engine_port.to_string()])
            .args(["--append", &format!("ferroce.run={run}")]);
        if let Some((port, forward)) = oob {
            command.args(["--oob-port", &port.to_string(), "--oob-forward", &forward.to_string()]);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("scripts/interop_vm.sh boot");
        let input = child.stdin.take().expect("stdin");
        let output = child.stdout.take().expect("stdout");
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines().map_while(Result::ok) {
                if send.send(line.trim_end().to_string()).is_err() {
                    break;
                }
            }
        });
        Vm {
            child,
            input,
            lines,
            limit: VM_TIMEOUT,
            started: Instant::now(),
            console: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// Runs the engine until the VM prints `FERROCE-VM <what>...`; that line's rest. Panics on a
    /// `FAIL` or `EXIT` line, or when the VM has run longer than its limit.
    fn expect(&mut self, bridge: &mut WireBridge, what: &str) -> String {
        loop {
            // the lines `watch` took first, then new ones; those after the one awaited stay
            let mut lines: std::collections::VecDeque<(String, bool)> = self.pending.drain(..).map(|l| (l, false)).collect();
            lines.extend(std::iter::from_fn(|| self.lines.try_recv().ok()).map(|l| (l, true)));
            while let Some((line, new)) = lines.pop_front() {
                if new {
                    self.console.push(line.clone());
                }
                let Some(at) = line.find("FERROCE-VM ") else { continue };
                let said = &line[at + "FERROCE-VM ".len()..];
                if new {
                    eprintln!("{:>6.1} s  VM: {said}", self.started.elapsed().as_secs_f64());
                }
                if let Some(rest) = said.strip_prefix(what) {
                    let rest = rest.trim().to_string();
                    for (line, new) in lines {
                        if new {
                            self.console.push(line.clone());
                        }
                        self.pending.push(line);
                    }
                    return rest;
                }
                if said.starts_with("FAIL") || said.starts_with("EXIT") {
                    panic!(
                        "waiting for '{what}', the VM said '{said}' (engine: {:?}); console:\n{}",
                        bridge.counts,
                        self.console.join("\n")
                    );
                }
            }
            assert!(
                self.started.elapsed() < self.limit,
                "no '{what}' from the VM in {:?} (engine: {:?}); console:\n{}",
                self.limit,
                bridge.counts,
                self.console.join("\n")
            );
            bridge.run_for(Duration::from_millis(5)).unwrap();
        }
    }

    /// Takes the VM's lines so far (printing its `FERROCE-VM` ones); an error on a `FAIL` line
    /// or an `EXIT` other than 0, or when the VM has run longer than its limit.
    fn watch(&mut self, bridge: &WireBridge) -> Result<(), String> {
        while let Ok(line) = self.lines.try_recv() {
            self.console.push(line.clone());
            let Some(at) = line.find("FERROCE-VM ") else { continue };
            let said = line[at + "FERROCE-VM ".len()..].to_string();
            eprintln!("{:>6.1} s  VM: {said}", self.started.elapsed().as_secs_f64());
            if said.starts_with("FAIL") || (said.starts_with("EXIT") && said != "EXIT 0") {
                return Err(format!(
                    "the VM said '{said}' (engine: {:?}); console:\n{}",
                    bridge.counts,
                    self.console.join("\n")
                ));
            }
            // seen again by `expect`
            self.pending.push(line);
        }
        if self.started.elapsed() > self.limit {
            return Err(format!(
                "the VM still runs after {:?}; console:\n{}",
                self.limit,
                self.console.join("\n")
            ));
        }
        Ok(())
    }

    fn say(&mut self, line: &str) {
        writeln!(self.input, "{line}").expect("the VM's console");
        self.input.flush().expect("the VM's console");
    }
}

impl Drop for Vm {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The fields of the VM's `QP qpn=.. psn=.. rkey=0x.. va=0x.. gid_index=..` line.
fn qp_line(line: &str) -> (u32, u32, u64) {
    let field = |name: &str| -> u64 {
        let value = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{name}=")))
            .unwrap_or_else(|| panic!("no {name} in '{line}'"));
        match value.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => value.parse(),
        }
        .unwrap_or_else(|e| panic!("{name} in '{line}': {e}"))
    };
    (field("qpn") as u32, field("rkey") as u32, field("va"))
}

/// A free UDP port on the loopback address.
fn free_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The engine on its UDP wire, its addresses set; the VM's port.
fn engine() -> (WireBridge, u16) {
    let vm_port = free_port();
    let mut bridge = WireBridge::new(
        &ENGINE_W512,
        "127.0.0.1:0".parse().unwrap(),
        format!("127.0.0.1:{vm_port}").parse().unwrap(),
    )
    .unwrap();
    bridge.capture();
    let mac = ENGINE_MAC.to_be_bytes();
    let mac = [mac[2], mac[3], mac[4], mac[5], mac[6], mac[7]];
    bridge.set_local_address(mac, ENGINE_IP.into()).unwrap();
    (bridge, vm_port)
}

/// What a connection carries: RDMA WRITEs or SENDs, each with an immediate, or RDMA READs
/// (RC).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Messages {
    Writes,
    Sends,
    Reads,
}

impl Messages {
    /// The word `verbs_check` uses (its modes and its PASS line).
    fn name(self) -> &'static str {
        match self {
            Messages::Writes => "writes",
            Messages::Sends => "sends",
            Messages::Reads => "reads",
        }
    }
}

/// One connection between an engine QP and a `verbs_check` QP in the VM.
#[derive(Clone, Copy)]
struct Connection {
    transport: Transport,
    messages: Messages,
    /// The engine's QP.
    qp: u32,
    /// The first PSN the engine sends.
    engine_psn: u32,
    /// The first PSN the VM sends.
    vm_psn: u32,
    /// Messages ([`COUNT`] unless a test says) and their bytes ([`SIZE`]).
    count: u32,
    size: u32,
    /// The engine's local ACK timeout exponent (RC; 0: none, unless a test says), with seven
    /// retries.
    timeout: u8,
}

impl Connection {
    const fn new(transport: Transport, messages: Messages, engine_psn: u32, vm_psn: u32) -> Connection {
        let qp = match transport {
            Transport::Rc => ENGINE_RC_QP,
            _ => ENGINE_UC_QP,
        };
        Connection {
            transport,
            messages,
            qp,
            engine_psn,
            vm_psn,
            count: COUNT,
            size: SIZE,
            timeout: 0,
        }
    }

    /// The `verbs_check` command of the VM's side (`direction` receive or send), `extra`
    /// arguments after.
    fn command(&self, direction: &str, extra: &str) -> String {
        let transport = if self.transport == Transport::Rc { "rc" } else { "uc" };
        format!(
            "verbs_check,--mode,{direction}-{},--peer-ip,10.0.0.1,--peer-qpn,{},--peer-psn,{},--psn,{},\
             --transport,{transport},--size,{},--count,{}{extra}",
            self.messages.name(),
            self.qp,
            self.engine_psn,
            self.vm_psn,
            self.size,
            self.count
        )
    }

    /// What `verbs_check` says after `PASS` when every message went through.
    fn pass_line(&self) -> String {
        format!("{}={} bytes={}", self.messages.name(), self.count, self.count * self.size)
    }

    /// The engine's QP context towards the VM's QP `vm_qpn` (RETHs with `vm_rkey`).
    fn context(&self, vm_qpn: u32, vm_rkey: u32) -> QpContext {
        QpContext {
            state: QpState::Rts.code(),
            transport: self.transport.bits(),
            pmtu: Pmtu::B1024.code(),
            pkey: 0xffff,
            ttl: 64,
            dest_qpn: vm_qpn,
            sq_psn: self.engine_psn,
            rq_psn: self.vm_psn,
            udp_sport: 0xc000 | self.qp as u16,
            pd: 1,
            rkey: vm_rkey,
            timeout: self.timeout,
            retry_count: 7,
            rnr_retry: 7,
            src_mac: ENGINE_MAC,
            dst_mac: VM_MAC,
            src_ip: u128::from(ENGINE_IP),
            dst_ip: u128::from(VM_IP),
            ..QpContext::default()
        }
    }
}

/// Resets the engine's QP `qp`, then commits `context` (RTS), as a host moves a verbs QP
/// through RESET to RTS for a new connection.
fn connect(bridge: &mut WireBridge, qp: u32, context: &QpContext) {
    let reset = QpContext {
        state: QpState::Reset.code(),
        ..QpContext::default()
    };
    bridge.commit(qp, &reset).unwrap();
    bridge.commit(qp, context).unwrap();
}

/// The engine sends `connection.count` messages with immediate over `connection` (WRITEs into the
/// buffer the VM announces, or SENDs into its receive buffers), one at a time: the QP reset
/// and committed afresh, so a connection that follows another on the same QP number starts
/// from its own PSNs. Each completes on the engine without an error (RC: on rxe's ACK) and the VM
/// checks bytes and immediates; or the engine RDMA READs the messages from the VM's buffer and
/// its memory must hold them, byte for byte (then `GO` lets the VM end).
fn engine_sends_to_vm(bridge: &mut WireBridge, vm: &mut Vm, connection: Connection) {
    let (vm_qpn, vm_rkey, vm_va) = qp_line(&vm.expect(bridge, "QP"));
    connect(bridge, connection.qp, &connection.context(vm_qpn, vm_rkey));
    let local = 0x1000_0000u64 * u64::from(connection.qp);
    let reads = connection.messages == Messages::Reads;
    if !reads {
        for i in 0..connection.count {
            let bytes: Vec<u8> = (0..connection.size).map(|j| pattern(i, j)).collect();
            bridge.engine().memory.write(local + u64::from(i * connection.size), &bytes);
        }
    }
    let op = match connection.messages {
        Messages::Writes => PostOp::WriteImm,
        Messages::Sends => PostOp::SendImm,
        Messages::Reads => PostOp::Read,
    };
    for i in 0..connection.count {
        let post = Post {
            channel: i as u16,
            queue: 1,
            op: op.code(),
            qp: connection.qp,
            local_addr: local + u64::from(i * connection.size),
            remote_addr: vm_va + u64::from(i * connection.size),
            length: connection.size,
            immediate: IMM_BASE + i,
            ..Post::default()
        };
        bridge.post(&post).unwrap().unwrap_or_else(|e| panic!("post {i} refused: {e:?}"));
        // one at a time: the VM checks the immediates in order
        let mut finished = Vec::new();
        bridge
            .run_until("the transfer's completion", VM_TIMEOUT, |b| {
                finished.extend(b.poll().unwrap());
                !finished.is_empty()
            })
            .unwrap();
        assert_eq!(finished, [(i, false)], "transfer {i} completes without an error");
    }
    if reads {
        // the READs hold the VM's bytes; then GO lets the VM end
        assert_messages_at(bridge, local, connection);
        assert!(
            bridge.read("rx_read_taken", 0).unwrap() >= connection.count,
            "the READ tracker took the responses"
        );
        vm.say("GO");
    }
    assert_eq!(vm.expect(bridge, "PASS"), connection.pass_line());
}

/// The engine's memory at `at` holds `connection`'s messages, byte for byte ([`pattern`]).
fn assert_messages_at(bridge: &mut WireBridge, at: u64, connection: Connection) {
    let landed = bridge.engine().memory.bytes(at, (connection.count * connection.size) as usize);
    for i in 0..connection.count {
        for j in 0..connection.size {
            let at = (i * connection.size + j) as usize;
            assert_eq!(landed[at], pattern(i, j), "byte {j} of message {i} in the engine's memory");
        }
    }
}

/// The VM RDMA READs `connection.count` messages of `region` (their bytes written to the
/// engine's memory first) after our `GO`, and checks their bytes itself.
fn vm_reads_from_engine(bridge: &mut WireBridge, vm: &mut Vm, connection: Connection, region: &MemoryRegion) {
    let (vm_qpn, _, _) = qp_line(&vm.expect(bridge, "QP"));
    connect(bridge, connection.qp, &connection.context(vm_qpn, 0));
    for i in 0..connection.count {
        let bytes: Vec<u8> = (0..connection.size).map(|j| pattern(i, j)).collect();
        bridge.engine().memory.write(region.base + u64::from(i * connection.size), &bytes);
    }
    vm.say("GO");
    assert_eq!(vm.expect(bridge, "PASS"), connection.pass_line());
}

/// The VM sends `connection.count` messages with immediate over `connection` after our `GO` (WRITEs
/// into `region`, or SENDs into our receive buffers); each lands byte for byte and consumes a
/// receive buffer with its immediate, and rxe completes them (RC: on our ACKs).
fn vm_sends_to_engine(bridge: &mut WireBridge, vm: &mut Vm, connection: Connection, region: &MemoryRegion) {
    if connection.messages == Messages::Reads {
        vm_reads_from_engine(bridge, vm, connection, region);
        return;
    }
    let (vm_qpn, _, _) = qp_line(&vm.expect(bridge, "QP"));
    connect(bridge, connection.qp, &connection.context(vm_qpn, 0));
    let buffers = 0x3000_0000 + 0x100_0000 * u64::from(connection.qp);
    for i in 0..connection.count {
        let buffer = buffers + u64::from(i * connection.size);
        assert!(bridge.post_receive(connection.qp, buffer, connection.size).unwrap());
    }
    vm.say("GO");
    assert_eq!(vm.expect(bridge, "PASS"), connection.pass_line());
    // rxe completes an RC message on our ACK, which leaves only after memory has its payload,
    // but a UC one when it has sent it: our last writes may still be under way, and in
    // simulated time (tens of thousands of cycles per second here) that is longer than the VM
    // takes to print PASS
    bridge
        .run_until("the engine's last writes", Duration::from_secs(10), |b| b.idle())
        .unwrap();
    let at = match connection.messages {
        Messages::Writes => region.base,
        _ => buffers,
    };
    assert_messages_at(bridge, at, connection);
    let completions = bridge.receive_completions().unwrap();
    let immediates: Vec<Option<u32>> = completions.iter().map(|c| c.immediate).collect();
    let wanted: Vec<Option<u32>> = (0..connection.count).map(|i| Some(IMM_BASE + i)).collect();
    assert_eq!(immediates, wanted, "one receive completion per message, with its immediate");
    let (kind, length) = match connection.messages {
        Messages::Writes => (completion_kind::WRITE, None),
        _ => (completion_kind::SEND, Some(connection.size)),
    };
    assert!(
        completions
            .iter()
            .all(|c| c.qp == connection.qp && c.kind == kind && c.status == 0 && length.is_none_or(|l| c.length == l)),
        "{completions:?}"
    );
}

/// The counters of a `STATS` line (`name=value ...`).
fn rxe_counters(line: &str) -> std::collections::HashMap<&str, u64> {
    line.split_whitespace()
        .filter_map(|w| w.split_once('='))
        .map(|(k, v)| (k, v.parse().unwrap_or_else(|e| panic!("{k}={v}: {e}"))))
        .collect()
}

/// rxe's counters (`STATS` line) after the runs: nothing retransmitted, duplicated, out of
/// sequence or refused, and every RoCEv2 frame the engine sent received (rxe counts a packet
/// once its ICRC has verified).
fn check_rxe_counters(bridge: &mut WireBridge, vm: &mut Vm) {
    let line = vm.expect(bridge, "STATS");
    let counters = rxe_counters(&line);
    for zero in [
        "duplicate_request",
        "out_of_seq_request",
        "rcvd_seq_err",
        "rcvd_rnr_err",
        "send_rnr_err",
        "retry_exceeded_err",
        "retry_rnr_exceeded_err",
        "completer_retry_err",
    ] {
        assert_eq!(counters.get(zero), Some(&0), "rxe's {zero} ({line})");
    }
    let roce_sent = bridge
        .crossed
        .iter()
        .flatten()
        .filter(|c| c.outgoing && RoceFrame::parse(&c.bytes).is_ok())
        .count() as u64;
    assert_eq!(
        counters.get("rcvd_pkts"),
        Some(&roce_sent),
        "rxe received every RoCEv2 frame we sent ({line})"
    );
    assert_eq!(bridge.read("rx_drop_icrc", 0).unwrap(), 0, "rxe's ICRCs verify in the engine");
    assert_eq!(bridge.read("tx_ack_ignored", 0).unwrap(), 0, "every ACK of rxe's was taken");
}

/// Runs `body` with a fresh engine on its wire (and its VM port) and the VM image; the
/// capture of both directions goes to `target/tmp/<name>.pcap` whether it passes or not.
fn interop(name: &str, body: impl FnOnce(&Path, &mut WireBridge, u16)) {
    let Some(cache) = prepare() else { return };
    let (mut bridge, vm_port) = engine();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&cache, &mut bridge, vm_port)));
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.pcap"));
    bridge.write_pcap(&path).unwrap();
    eprintln!("{name}: capture in {}", path.display());
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn writes_and_sends_from_the_engine_land_in_linux_rxe_over_rc_and_uc() {
    interop("interop_engine_to_rxe", |cache, bridge, vm_port| {
        // the first UC connection's PSNs wrap at 2^24; the SEND connections reuse the engine's
        // QPs of the WRITE connections, reset and committed towards new VM QPs with other PSNs
        let connections = [
            Connection::new(Transport::Rc, Messages::Writes, 0x00_0100, 0x00_0200),
            Connection::new(Transport::Uc, Messages::Writes, 0xFF_FFFD, 0x00_0300),
            Connection::new(Transport::Rc, Messages::Sends, 0x12_3400, 0x00_0010),
            Connection::new(Transport::Uc, Messages::Sends, 0x00_0020, 0x00_0030),
            Connection::new(Transport::Rc, Messages::Reads, 0xFF_FFF0, 0x00_0040),
        ];
        let commands: Vec<String> = connections.iter().map(|c| c.command("receive", "")).collect();
        let run = format!("{}+stats", commands.join("+"));
        let engine_port = bridge.local_addr().unwrap().port();
        let mut vm = Vm::boot(cache, vm_port, engine_port, &run);
        for connection in connections {
            engine_sends_to_vm(bridge, &mut vm, connection);
        }
        check_rxe_counters(bridge, &mut vm);
        assert!(bridge.read("host_arp_replies", 0).unwrap() > 0, "the kernel resolved us by ARP");
    });
}

/// Slots of the rings the stream tests fill in the VM.
const STREAM_SLOTS: u32 = 5;
/// Bytes of a slot of those rings: one and a half of the engine's 4 KiB blocks.
const STREAM_SLOT_BYTES: u32 = 6144;

/// The engine's stream ports 0 (RC) and 1 (UC), set up through its `stream` registers, each cut
/// 12 slots of 6 KiB into RDMA WRITEs with immediate into a ring of 5 slots that `verbs_check`
/// registered in the VM, the engine's TX path in blocks of 4 KiB (each slot spans a block
/// boundary and is still one WRITE message): every completion there carries its sequence number as immediate and
/// its slot holds the message's bytes; the engine's counters read every message completed.
#[test]
fn streams_from_the_engine_fill_rings_in_linux_rxe_over_rc_and_uc() {
    interop("interop_streams_to_rxe", |cache, bridge, vm_port| {
        let connections = [
            Connection {
                count: 12,
                size: STREAM_SLOT_BYTES,
                ..Connection::new(Transport::Rc, Messages::Writes, 0x00_0700, 0x00_0800)
            },
            Connection {
                count: 12,
                size: STREAM_SLOT_BYTES,
                ..Connection::new(Transport::Uc, Messages::Writes, 0xFF_FFF8, 0x00_0900)
            },
        ];
        let ring = format!(",--slots,{STREAM_SLOTS},--imm-base,0");
        let commands: Vec<String> = connections.iter().map(|c| c.command("receive", &ring)).collect();
        let run = format!("{}+stats", commands.join("+"));
        let engine_port = bridge.local_addr().unwrap().port();
        let mut vm = Vm::boot(cache, vm_port, engine_port, &run);
        let block_log2 = bridge.map().reg("block_size").field("log2").expect("block_size.log2").set(0, 12);
        bridge.write("block_size", 0, block_log2).unwrap();
        for (stream, connection) in connections.into_iter().enumerate() {
            engine_streams_to_vm(bridge, &mut vm, stream as u32, connection);
        }
        check_rxe_counters(bridge, &mut vm);
    });
}

/// Stream `stream` of the engine sends `connection.count` slots of [`pattern`] bytes into the
/// ring the VM announces, started after the QP is connected; the VM checks each completion and
/// slot, then the stream's counters must read every message completed.
fn engine_streams_to_vm(bridge: &mut WireBridge, vm: &mut Vm, stream: u32, connection: Connection) {
    let (vm_qpn, vm_rkey, vm_va) = qp_line(&vm.expect(bridge, "QP"));
    connect(bridge, connection.qp, &connection.context(vm_qpn, vm_rkey));
    let settings = StreamSettings {
        qp: connection.qp,
        queue: 1,
        first_channel: 4 * stream,
        channels: 2,
        base_va: vm_va,
        slot_bytes: connection.size,
        slots: STREAM_SLOTS,
        slot_and_wrap: false,
        end_at_tlast: None,
        drop_on_overflow: false,
        solicited_every: 0,
    };
    bridge.configure_stream(stream, &settings).unwrap();
    bridge.stream_command(stream, StreamCommand::Start).unwrap();
    let bytes: Vec<u8> = (0..connection.count)
        .flat_map(|i| (0..connection.size).map(move |j| pattern(i, j)))
        .collect();
    bridge.engine().streams.push(stream as usize, &bytes, false);
    assert_eq!(vm.expect(bridge, "PASS"), connection.pass_line());
    let count = connection.count;
    let mut completed = 0;
    bridge
        .run_until("the stream's completions", VM_TIMEOUT, |b| {
            completed = b.read("stream_completed", stream).unwrap();
            completed == count
        })
        .unwrap_or_else(|e| panic!("stream {stream}: {completed} of {count} completed: {e}"));
    for (counter, want) in [
        ("stream_messages", count),
        ("stream_posted", count),
        ("stream_failed", 0),
        ("stream_refused", 0),
    ] {
        assert_eq!(bridge.read(counter, stream).unwrap(), want, "stream {stream}: {counter}");
    }
    bridge.stream_command(stream, StreamCommand::Stop).unwrap();
}

#[test]
fn writes_and_sends_from_linux_rxe_land_in_the_engine_over_rc_and_uc() {
    interop("interop_rxe_to_engine", |cache, bridge, vm_port| {
        let region = writable_region(bridge, 0x42);
        // PSNs wrap at 2^24 inside the first RC connection's first message and the last UC
        // connection's first; the SEND connections reuse the WRITE connections' engine QPs
        let connections = [
            Connection::new(Transport::Rc, Messages::Writes, 0x00_0300, 0xFF_FFFE),
            Connection::new(Transport::Uc, Messages::Writes, 0x00_0400, 0x00_0500),
            Connection::new(Transport::Rc, Messages::Sends, 0x00_0600, 0x55_0000),
            Connection::new(Transport::Uc, Messages::Sends, 0x00_0700, 0xFF_FFFF),
            Connection::new(Transport::Rc, Messages::Reads, 0x00_0800, 0xFF_FFF8),
        ];
        let mut vm = boot_senders(cache, bridge, vm_port, &region, &connections);
        for connection in connections {
            vm_sends_to_engine(bridge, &mut vm, connection, &region);
        }
        check_rxe_counters(bridge, &mut vm);
    });
}

/// Boots the VM to run `verbs_check` as the sender of each connection in turn (WRITEs into
/// `region`), then `stats`.
fn boot_senders(cache: &Path, bridge: &mut WireBridge, vm_port: u16, region: &MemoryRegion, connections: &[Connection]) -> Vm {
    let target = format!(",--peer-rkey,{:#x},--peer-va,{:#x}", region.rkey, region.base);
    let commands: Vec<String> = connections
        .iter()
        .map(|c| c.command("send", if c.messages == Messages::Sends { "" } else { &target }))
        .collect();
    let run = format!("{}+stats", commands.join("+"));
    Vm::boot(cache, vm_port, bridge.local_addr().unwrap().port(), &run)
}

/// A 1 MiB region at 0x2000_0000 for remote writes and reads (protection domain 1, R_Key
/// `1 << 8 | key`), written to the engine's table.
fn writable_region(bridge: &mut WireBridge, key: u32) -> MemoryRegion {
    let region = MemoryRegion {
        rkey: 1 << 8 | key,
        pd: 1,
        base: 0x2000_0000,
        length: 1 << 20,
        access: Access {
            remote_write: true,
            remote_read: true,
        },
    };
    bridge.add_region(&region).unwrap();
    region
}

/// Each fault at `rate`: losses of one or two frames, reordering within three.
fn every_fault(rate: f64) -> Faults {
    Faults {
        loss: rate,
        burst: 2,
        duplicate: rate,
        reorder: rate,
        window: 3,
        corrupt: rate,
    }
}

/// RC over a lossy wire, rxe the requester and the engine the responder: the bridge loses
/// (single frames and bursts of two), duplicates, reorders (within three frames) and corrupts
/// (the ICRC) 2 % of rxe's RoCEv2 frames each, and loses or duplicates 3 % of the engine's (its
/// ACKs and NAKs), from a fixed seed (the frames themselves, with rxe's timers, vary from run
/// to run). 16 WRITEs with immediate and then 16 SENDs of 16 KiB (512 packets) still land
/// byte-exact, each once, with one receive completion each in order: the engine NAKs each gap
/// once (PSN sequence error), takes a late packet it is waiting for, acknowledges duplicates
/// again without executing them, drops the corrupted frames on their ICRC, and rxe goes back
/// to the NAKed PSN or, where the last packets or the ACK were lost, retransmits when its timer
/// (1 s) runs out. Until the engine retransmits itself (the reliability issue), only this
/// direction can be lossy.
#[test]
fn rc_writes_and_sends_from_linux_rxe_survive_a_lossy_wire() {
    interop("interop_lossy", |cache, bridge, vm_port| {
        let region = writable_region(bridge, 0x43);
        let to_engine = every_fault(0.02);
        let from_engine = Faults {
            loss: 0.03,
            duplicate: 0.03,
            ..Faults::NONE
        };
        bridge.set_faults(to_engine, from_engine, 0x10557);
        let connections = [
            Connection::new(Transport::Rc, Messages::Writes, 0x00_0800, 0xFF_FF00),
            Connection::new(Transport::Rc, Messages::Sends, 0x00_0900, 0x12_0000),
        ]
        .map(|c| Connection {
            count: 16,
            size: 16384,
            ..c
        });
        let mut vm = boot_senders(cache, bridge, vm_port, &region, &connections);
        vm.limit = Duration::from_secs(300);
        for connection in connections {
            vm_sends_to_engine(bridge, &mut vm, connection, &region);
        }
        let line = vm.expect(bridge, "STATS");
        let [to, from] = bridge.fault_counts();
        eprintln!("faults to the engine {to:?}, from it {from:?}; rxe: {line}");
        assert!(
            to.lost > 0 && to.duplicated > 0 && to.reordered > 0 && to.corrupted > 0,
            "every kind of fault happened on the way to the engine: {to:?}"
        );
        let mut counter = |c: ResponderCounter| bridge.read("responder_counter", c.index() as u32).unwrap();
        let naks = counter(ResponderCounter::Naks(NakCode::PsnSequenceError));
        let duplicates = counter(ResponderCounter::Failures(CheckFailure::PsnDuplicate));
        eprintln!("the engine: {naks} PSN sequence NAKs, {duplicates} duplicates");
        assert!(naks > 0, "the engine NAKed the gaps");
        assert!(duplicates > 0, "the engine saw the duplicates and retransmissions");
        let counters = rxe_counters(&line);
        assert!(counters.get("rcvd_seq_err").is_some_and(|&n| n > 0), "rxe took the NAKs ({line})");
        assert_eq!(counters.get("retry_exceeded_err"), Some(&0), "{line}");
        assert!(
            u64::from(bridge.read("rx_drop_icrc", 0).unwrap()) >= to.corrupted,
            "the corrupted frames were dropped on their ICRC"
        );
        assert_eq!(bridge.read("tx_ack_ignored", 0).unwrap(), 0, "every ACK of rxe's was taken");
    });
}

/// RC over a lossy wire, the engine the requester and rxe the responder: the bridge loses
/// (single frames and bursts of two), duplicates, reorders (within three frames) and corrupts
/// 2 % of the engine's RoCEv2 frames each, and loses or duplicates 3 % of rxe's (its ACKs and
/// NAKs), from a fixed seed. Eight WRITEs with immediate and eight SENDs of 16 KiB (256
/// packets) still land in the VM byte-exact with their immediates, each once and in order
/// (`verbs_check`), and each completes on the engine without an error: rxe NAKs a gap and the
/// engine goes back to the NAKed PSN, or, where the last packets or the ACK were lost, its
/// retry timer runs out (local ACK timeout 2^11 ticks of 8 cycles: about half a second here)
/// and it sends everything unacknowledged again.
#[test]
fn rc_writes_and_sends_from_the_engine_survive_a_lossy_wire() {
    interop("interop_lossy_engine", |cache, bridge, vm_port| {
        bridge.write("retry_tick", 0, 8).unwrap();
        let from_vm = Faults {
            loss: 0.03,
            duplicate: 0.03,
            ..Faults::NONE
        };
        bridge.set_faults(from_vm, every_fault(0.02), 0x5e17d);
        let connections = [
            Connection::new(Transport::Rc, Messages::Writes, 0xFF_FF80, 0x00_0b00),
            Connection::new(Transport::Rc, Messages::Sends, 0x34_5600, 0x00_0c00),
        ]
        .map(|c| Connection {
            count: 8,
            size: 16384,
            timeout: 11,
            ..c
        });
        let commands: Vec<String> = connections.iter().map(|c| c.command("receive", "")).collect();
        let run = format!("{}+stats", commands.join("+"));
        let engine_port = bridge.local_addr().unwrap().port();
        let mut vm = Vm::boot(cache, vm_port, engine_port, &run);
        vm.limit = Duration::from_secs(300);
        for connection in connections {
            engine_sends_to_vm(bridge, &mut vm, connection);
        }
        let line = vm.expect(bridge, "STATS");
        let [from, to] = bridge.fault_counts();
        let sent_again = bridge.read("tx_retransmitted", 0).unwrap();
        let timeouts = bridge.read("tx_timeouts", 0).unwrap();
        eprintln!(
            "faults to the VM {to:?}, from it {from:?}; the engine sent {sent_again} packets again after \
             {timeouts} timeouts; rxe: {line}"
        );
        assert!(
            to.lost > 0 && to.duplicated > 0 && to.reordered > 0 && to.corrupted > 0,
            "every kind of fault happened on the way to the VM: {to:?}"
        );
        assert!(sent_again > 0, "the engine went back N");
        assert_eq!(bridge.read("tx_retries_exhausted", 0).unwrap(), 0);
        let counters = rxe_counters(&line);
        assert!(
            counters.get("out_of_seq_request").is_some_and(|&n| n > 0),
            "rxe saw the gaps ({line})"
        );
        assert!(
            counters.get("duplicate_request").is_some_and(|&n| n > 0),
            "rxe saw the duplicates and the packets sent again ({line})"
        );
    });
}

/// UC over a lossy wire: rxe sends 16 RDMA WRITEs with immediate of 16 KiB (PSNs wrapping at
/// 2^24) while the bridge loses, duplicates, reorders and corrupts 1 % of its frames each (so
/// about half the messages have a fault). UC has no retransmission, so those messages are
/// lost; the engine completes exactly the messages that arrived whole, in order, each once and
/// byte-exact (a message with a missing, late, repeated or corrupted packet is dropped from
/// there on, and the next first packet starts afresh), and never more messages go missing
/// than there were faults.
#[test]
fn uc_writes_from_linux_rxe_over_a_lossy_wire_complete_only_whole_messages() {
    interop("interop_lossy_uc", |cache, bridge, vm_port| {
        let region = writable_region(bridge, 0x44);
        bridge.set_faults(every_fault(0.01), Faults::NONE, 0x0c0de);
        let connection = Connection {
            count: 16,
            size: 16384,
            ..Connection::new(Transport::Uc, Messages::Writes, 0x00_0a00, 0xFF_FF80)
        };
        let target = format!(",--peer-rkey,{:#x},--peer-va,{:#x}", region.rkey, region.base);
        let run = format!("{}+stats", connection.command("send", &target));
        let engine_port = bridge.local_addr().unwrap().port();
        let mut vm = Vm::boot(cache, vm_port, engine_port, &run);
        let (vm_qpn, _, _) = qp_line(&vm.expect(bridge, "QP"));
        connect(bridge, connection.qp, &connection.context(vm_qpn, 0));
        for i in 0..connection.count {
            let buffer = 0x3000_0000 + u64::from(i * connection.size);
            assert!(bridge.post_receive(connection.qp, buffer, connection.size).unwrap());
        }
        vm.say("GO");
        assert_eq!(vm.expect(bridge, "PASS"), connection.pass_line(), "the VM sent every message");
        vm.expect(bridge, "STATS");
        bridge
            .run_until("the engine's last writes", Duration::from_secs(10), |b| b.idle())
            .unwrap();
        let [to, _] = bridge.fault_counts();
        let completions = bridge.receive_completions().unwrap();
        let delivered: Vec<u32> = completions
            .iter()
            .map(|c| {
                assert!(c.qp == connection.qp && c.kind == completion_kind::WRITE && c.status == 0, "{c:?}");
                c.immediate.expect("an immediate") - IMM_BASE
            })
            .collect();
        let dropped = bridge
            .read("responder_counter", ResponderCounter::UcMessagesDropped.index() as u32)
            .unwrap();
        eprintln!("faults {to:?}; messages completed {delivered:?}; {dropped} dropped after their first packet");
        assert!(!delivered.is_empty(), "some messages arrive whole");
        assert!(
            delivered.windows(2).all(|w| w[0] < w[1]) && delivered.last().is_some_and(|&i| i < connection.count),
            "each message completes at most once, in order: {delivered:?}"
        );
        let missing = u64::from(connection.count) - delivered.len() as u64;
        assert!(missing > 0, "the faults cost messages: {to:?}");
        assert!(u64::from(dropped) <= missing, "a message dropped after its first packet is missing");
        assert!(
            missing <= to.lost + to.duplicated + to.reordered + to.corrupted,
            "{missing} messages missing for {to:?}"
        );
        let size = connection.size as usize;
        let landed = bridge.engine().memory.bytes(region.base, connection.count as usize * size);
        for &i in &delivered {
            for j in 0..connection.size {
                assert_eq!(landed[i as usize * size + j as usize], pattern(i, j), "byte {j} of message {i}");
            }
        }
        assert_eq!(bridge.read("tx_ack_ignored", 0).unwrap(), 0);
    });
}

/// A step of the Linux tools' runs: the tool, over UC or RC, its `-s` (or perftest's `-a`),
/// perftest's `-b` (duplex) and `-n`, and the engine's first PSN.
#[derive(Clone, Copy, Debug)]
struct ToolRun {
    tool: LinuxTool,
    uc: bool,
    size: u32,
    all_sizes: bool,
    duplex: bool,
    iterations: u32,
    engine_psn: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LinuxTool {
    Pingpong,
    WriteBw,
    /// RC only.
    ReadBw,
    SendBw,
    /// As the server, the engine writes perftest's counter into its memory before each WRITE
    /// (through the served `store` request).
    WriteLat,
}

impl ToolRun {
    /// The command in the VM (its server's address when the VM is the client).
    fn command(&self, server: Option<&str>) -> String {
        // local ACK timeout 4.096 µs × 2^20 (4 s): the simulated engine answers in wall time
        // tens of times slower than hardware (ibv_rc_pingpong has no such option: 67 ms); UC
        // has no ACKs
        let perftest = if self.uc { "-c,UC" } else { "-u,20" };
        let base = match (self.tool, self.uc) {
            (LinuxTool::Pingpong, false) => "ibv_rc_pingpong,-d,rxe0,-g,1,-m,1024".to_string(),
            (LinuxTool::Pingpong, true) => "ibv_uc_pingpong,-d,rxe0,-g,1,-m,1024".to_string(),
            (LinuxTool::WriteBw, _) => format!("ib_write_bw,-d,rxe0,-x,1,-m,1024,-F,{perftest}"),
            (LinuxTool::ReadBw, _) => format!("ib_read_bw,-d,rxe0,-x,1,-m,1024,-F,{perftest}"),
            (LinuxTool::SendBw, _) => format!("ib_send_bw,-d,rxe0,-x,1,-m,1024,-F,{perftest}"),
            (LinuxTool::WriteLat, _) => format!("ib_write_lat,-d,rxe0,-x,1,-m,1024,-F,{perftest}"),
        };
        let server = server.map_or(String::new(), |s| format!(",{s}"));
        let size = if self.all_sizes {
            "-a".to_string()
        } else {
            format!("-s,{}", self.size)
        };
        let duplex = if self.duplex { ",-b" } else { "" };
        format!("{base},{size}{duplex},-n,{}{server}", self.iterations)
    }

    /// The engine's side of the run, through ferroce-ctl's library; a line of what it did.
    fn engine_side(&self, dev: &mut Ferroce, stream: &mut TcpStream, role: Role) -> String {
        let mac = VM_MAC.to_be_bytes();
        let end = Endpoint {
            qp: if self.uc { ENGINE_UC_QP } else { ENGINE_RC_QP },
            unreliable: self.uc,
            psn: self.engine_psn,
            pmtu: Pmtu::B1024,
            peer_mac: Some([mac[2], mac[3], mac[4], mac[5], mac[6], mac[7]]),
            pd: 1,
            ack_timeout: Endpoint::LINUX_TIMEOUT,
            retry_count: Endpoint::LINUX_RETRY_COUNT,
            rnr_retry: Endpoint::LINUX_RNR_RETRY,
        };
        let log = |line: &str| eprintln!("ferroce-ctl connect: {line}");
        let buffer = 0x4000_0000;
        match self.tool {
            LinuxTool::Pingpong => {
                let test = PingpongTest {
                    size: self.size,
                    iterations: self.iterations,
                    buffer,
                    channel: 0,
                    queue: 1,
                    patience: VM_TIMEOUT,
                };
                let report = connect::pingpong(dev, stream, role, &end, &test, log).unwrap_or_else(|e| panic!("{self:?}: {e}"));
                assert_eq!(
                    (report.messages, report.bytes),
                    (u64::from(self.iterations), 2 * u64::from(self.size * self.iterations))
                );
                report.pingpong_lines()
            }
            LinuxTool::WriteBw | LinuxTool::ReadBw | LinuxTool::SendBw | LinuxTool::WriteLat => {
                let test = PerftestTest {
                    kind: match self.tool {
                        LinuxTool::WriteBw => PerftestKind::WriteBw,
                        LinuxTool::ReadBw => PerftestKind::ReadBw,
                        LinuxTool::SendBw => PerftestKind::SendBw,
                        _ => PerftestKind::WriteLat,
                    },
                    size: self.size,
                    all_sizes: self.all_sizes,
                    duplex: self.duplex,
                    iterations: self.iterations,
                    buffer,
                    region: 1,
                    channels: Channels {
                        first: 0,
                        count: 4,
                        queue: 1,
                    },
                    patience: VM_TIMEOUT,
                };
                let outcome = connect::perftest(dev, stream, role, &end, &test, log).unwrap_or_else(|e| panic!("{self:?}: {e}"));
                assert_eq!(outcome.pmtu, Pmtu::B1024, "{self:?}: the MTU agreed");
                let sizes = test.sizes();
                if self.duplex {
                    // both sides sent: the engine's reports and the peer's (of the last size)
                    let run: Vec<(u32, u64)> = outcome.reports.iter().map(|(size, r)| (*size, r.messages)).collect();
                    let expected: Vec<(u32, u64)> = sizes.iter().map(|&size| (size, u64::from(self.iterations))).collect();
                    assert_eq!(run, expected, "{self:?}: the engine's messages of each size");
                    let (size, iterations, mib, _) = outcome.peer_report.expect("the peer's report");
                    let last = *sizes.last().unwrap();
                    assert_eq!(
                        (size, iterations),
                        (u64::from(last), u64::from(self.iterations)),
                        "{self:?}: the peer's"
                    );
                    let (_, ours) = outcome.reports.last().unwrap();
                    format!(
                        "{}; the peer's report: {size} B x {iterations} at {mib:.2} MiB/s",
                        ours.perftest_line(last)
                    )
                } else if matches!(self.tool, LinuxTool::WriteBw | LinuxTool::ReadBw) && role == Role::Server {
                    // the ib_write_bw (ib_read_bw) server sees no messages: the client's report (of its last size)
                    assert!(outcome.reports.is_empty(), "{self:?}");
                    let (size, iterations, mib, _) = outcome.peer_report.expect("the client's report");
                    let last = u64::from(*sizes.last().unwrap());
                    assert_eq!((size, iterations), (last, u64::from(self.iterations)), "{self:?}");
                    format!("the client's report: {size} B x {iterations} at {mib:.2} MiB/s")
                } else {
                    let run: Vec<(u32, u64)> = outcome.reports.iter().map(|(size, r)| (*size, r.messages)).collect();
                    let expected: Vec<(u32, u64)> = sizes.iter().map(|&size| (size, u64::from(self.iterations))).collect();
                    assert_eq!(run, expected, "{self:?}: messages of each size");
                    outcome
                        .reports
                        .iter()
                        .map(|(size, r)| match self.tool {
                            LinuxTool::WriteLat => r.latency_line(*size),
                            _ => r.perftest_line(*size),
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                }
            }
        }
    }
}

/// The runs of each role: over RC, ping-pongs of 1 B, 4 KiB and 64 KiB (the engine's PSNs
/// wrapping in the last), `ib_write_bw` of 64 KiB and of 1 MiB (five messages, perftest's
/// fewest), `ib_send_bw` of 4 KiB and of 2 B, both again with `-b` (duplex: both sides send at
/// once; the engine's PSNs wrap in the SENDs), `ib_write_lat` of 2 B × 20 and 4 KiB × 5 (as
/// the server, the engine's counter written into its memory before each WRITE; PSNs wrapping
/// in the first); over UC, a ping-pong of 4 KiB (5 iterations, so
/// its lines are told from the RC one's) and `ib_send_bw` of 1 KiB, the engine's PSNs wrapping
/// in both, and `ib_write_bw` of 16 KiB.
const TOOL_RUNS: [ToolRun; 14] = [
    ToolRun {
        tool: LinuxTool::Pingpong,
        uc: false,
        size: 1,
        all_sizes: false,
        duplex: false,
        iterations: 4,
        engine_psn: 0x00_2468,
    },
    ToolRun {
        tool: LinuxTool::Pingpong,
        uc: false,
        size: 4096,
        all_sizes: false,
        duplex: false,
        iterations: 3,
        engine_psn: 0x13_5791,
    },
    ToolRun {
        tool: LinuxTool::Pingpong,
        uc: false,
        size: 65536,
        all_sizes: false,
        duplex: false,
        iterations: 1,
        engine_psn: 0xff_fff0,
    },
    ToolRun {
        tool: LinuxTool::WriteBw,
        uc: false,
        size: 65536,
        all_sizes: false,
        duplex: false,
        iterations: 8,
        engine_psn: 0x55_0000,
    },
    ToolRun {
        tool: LinuxTool::SendBw,
        uc: false,
        size: 4096,
        all_sizes: false,
        duplex: false,
        iterations: 16,
        engine_psn: 0xab_cdef,
    },
    ToolRun {
        tool: LinuxTool::WriteBw,
        uc: false,
        size: 1 << 20,
        all_sizes: false,
        duplex: false,
        iterations: 5,
        engine_psn: 0xff_fe00,
    },
    ToolRun {
        tool: LinuxTool::SendBw,
        uc: false,
        size: 2,
        all_sizes: false,
        duplex: false,
        iterations: 16,
        engine_psn: 0x00_0001,
    },
    ToolRun {
        tool: LinuxTool::WriteBw,
        uc: false,
        size: 65536,
        all_sizes: false,
        duplex: true,
        iterations: 8,
        engine_psn: 0x7f_ffff,
    },
    ToolRun {
        tool: LinuxTool::SendBw,
        uc: false,
        size: 4096,
        all_sizes: false,
        duplex: true,
        iterations: 16,
        engine_psn: 0xff_fffa,
    },
    ToolRun {
        tool: LinuxTool::WriteLat,
        uc: false,
        size: 2,
        all_sizes: false,
        duplex: false,
        iterations: 20,
        engine_psn: 0xff_fff0,
    },
    ToolRun {
        tool: LinuxTool::WriteLat,
        uc: false,
        size: 4096,
        all_sizes: false,
        duplex: false,
        iterations: 5,
        engine_psn: 0x00_1234,
    },
    ToolRun {
        tool: LinuxTool::Pingpong,
        uc: true,
        size: 4096,
        all_sizes: false,
        duplex: false,
        iterations: 5,
        engine_psn: 0xff_fffd,
    },
    ToolRun {
        tool: LinuxTool::WriteBw,
        uc: true,
        size: 16384,
        all_sizes: false,
        duplex: false,
        iterations: 8,
        engine_psn: 0x12_3456,
    },
    ToolRun {
        tool: LinuxTool::SendBw,
        uc: true,
        size: 1024,
        all_sizes: false,
        duplex: false,
        iterations: 16,
        engine_psn: 0xff_fff8,
    },
];

/// `ib_read_bw` over RC (in a VM of its own: the kernel's command line holds only so many
/// runs): 4 KiB × 8 (the engine's PSNs wrapping), 100 KiB × 5 (two READ requests a message,
/// the engine's 64 KiB blocks), 1 MiB × 5 (sixteen) and 2 B × 16.
const READ_RUNS: [ToolRun; 4] = [
    ToolRun {
        tool: LinuxTool::ReadBw,
        uc: false,
        size: 4096,
        all_sizes: false,
        duplex: false,
        iterations: 8,
        engine_psn: 0xff_fffc,
    },
    ToolRun {
        tool: LinuxTool::ReadBw,
        uc: false,
        size: 100 << 10,
        all_sizes: false,
        duplex: false,
        iterations: 5,
        engine_psn: 0x31_4159,
    },
    ToolRun {
        tool: LinuxTool::ReadBw,
        uc: false,
        size: 1 << 20,
        all_sizes: false,
        duplex: false,
        iterations: 5,
        engine_psn: 0xff_ff00,
    },
    ToolRun {
        tool: LinuxTool::ReadBw,
        uc: false,
        size: 2,
        all_sizes: false,
        duplex: false,
        iterations: 16,
        engine_psn: 0x00_0100,
    },
];

/// perftest's `-a` over RC: `ib_write_bw`, `ib_send_bw` and `ib_write_lat` with every power of
/// two from 2 B to 8 MiB, five messages of each (perftest's fewest).
const ALL_SIZES_RUNS: [ToolRun; 3] = [
    ToolRun {
        tool: LinuxTool::WriteBw,
        uc: false,
        size: 0,
        all_sizes: true,
        duplex: false,
        iterations: 5,
        engine_psn: 0xff_ff00,
    },
    ToolRun {
        tool: LinuxTool::SendBw,
        uc: false,
        size: 0,
        all_sizes: true,
        duplex: false,
        iterations: 5,
        engine_psn: 0x76_5432,
    },
    ToolRun {
        tool: LinuxTool::WriteLat,
        uc: false,
        size: 0,
        all_sizes: true,
        duplex: false,
        iterations: 5,
        engine_psn: 0xff_fff8,
    },
];

/// perftest's `-a` with `-b` over RC: `ib_write_bw` and `ib_send_bw`, both sides sending every
/// power of two from 2 B to 8 MiB at once, five messages of each.
const ALL_SIZES_DUPLEX_RUNS: [ToolRun; 2] = [
    ToolRun {
        tool: LinuxTool::WriteBw,
        uc: false,
        size: 0,
        all_sizes: true,
        duplex: true,
        iterations: 5,
        engine_psn: 0x00_1357,
    },
    ToolRun {
        tool: LinuxTool::SendBw,
        uc: false,
        size: 0,
        all_sizes: true,
        duplex: true,
        iterations: 5,
        engine_psn: 0xff_fe00,
    },
];

/// Runs the bridge with its register file served on a Unix socket, as `ferroce-sim wire`
/// does, while `host` runs in a thread with ferroce-ctl's library on that socket (as
/// `ferroce-ctl --device sim:PATH` reaches it); the VM's lines are watched meanwhile. Returns
/// what `host` returned.
fn with_ferroce_ctl<T: Send + 'static>(
    bridge: &mut WireBridge,
    vm: &mut Vm,
    name: &str,
    host: impl FnOnce(&mut Ferroce) -> T + Send + 'static,
) -> T {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.sock"));
    let _ = std::fs::remove_file(&path);
    let listener = UnixListener::bind(&path).unwrap();
    let worker = std::thread::spawn(move || {
        let bus = ferroce_ctl::bus::SimBus::connect("sim", &path).unwrap();
        let mut dev = Ferroce::open(Box::new(bus)).unwrap();
        host(&mut dev)
    });
    let served = serve_running(listener, bridge, |b| {
        b.run_for(Duration::from_millis(1))?;
        vm.watch(b)?;
        Ok(!worker.is_finished())
    });
    if let Err(e) = served {
        panic!("{e}");
    }
    worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// The stock Linux tools in the VM against the engine driven by `ferroce-ctl connect`'s
/// library: `ibv_rc_pingpong` (rdma-core) and perftest's `ib_write_bw`, `ib_read_bw`,
/// `ib_send_bw` and `ib_write_lat`,
/// unchanged, with their own out-of-band exchanges over TCP. [`TOOL_RUNS`] in order twice,
/// in one VM: first the VM's tools as clients (their TCP through QEMU's forward of
/// 10.0.2.100:18515 to our listener) and the engine as their server, then the VM's tools as
/// servers and the engine connecting to them (through QEMU's forward of a host port to the
/// VM's 18515). The engine's QP 2 is reset and committed afresh for each run (a new PSN), its
/// region registered for `ib_write_bw` and `ib_read_bw`. Each side checks what it can: the
/// engine its completions and the perftest reports, the VM its tools' exit status and iteration lines;
/// rxe's counters afterwards show no NAK, no RNR and no retry exhausted, and the engine no
/// ICRC error and no ignored ACK. About 90 s; the VM may take 300 s (a guard against a hang,
/// with room for a loaded machine).
#[test]
fn the_linux_tools_run_against_ferroce_ctl_connect_as_server_and_as_client() {
    run_tools("interop_tools", &TOOL_RUNS, Duration::from_secs(300));
}

/// perftest's `ib_read_bw` the same way ([`READ_RUNS`]): rxe READs the engine's buffer (the
/// engine's responder answers from memory), then the engine READs rxe's (its READ requests,
/// rxe's responses placed by its READ tracker); the engine checks its completions and the
/// reports.
#[test]
fn ib_read_bw_runs_against_ferroce_ctl_connect_as_server_and_as_client() {
    run_tools("interop_read_bw", &READ_RUNS, Duration::from_secs(300));
}

/// The same with perftest's `-a` ([`ALL_SIZES_RUNS`]): 80 MiB a run in each direction, about
/// 80 to 140 s each at the simulated engine's pace against rxe without KVM, so not in the test
/// command; the runs above take sizes from 2 B to 1 MiB. `cargo test -p ferroce-sim --test
/// interop_rxe -- --ignored perftest_all_sizes`.
#[test]
#[ignore = "about 11 minutes: perftest -a moves 80 MiB a run through the simulated engine and rxe without KVM"]
fn perftest_all_sizes_run_against_ferroce_ctl_connect_as_server_and_as_client() {
    run_tools("interop_all_sizes", &ALL_SIZES_RUNS, Duration::from_secs(900));
}

/// `ib_write_bw -b` over RC, 16 KiB × 8 each way (PSNs wrapping on the engine's side), on a
/// wire lossy both ways ([`LOSSY_DUPLEX`]).
const LOSSY_DUPLEX_RUNS: [ToolRun; 1] = [ToolRun {
    tool: LinuxTool::WriteBw,
    uc: false,
    size: 16384,
    all_sizes: false,
    duplex: true,
    iterations: 8,
    engine_psn: 0xff_ffc0,
}];

/// The faults of both directions in [`LOSSY_DUPLEX_RUNS`], and their seed.
const LOSSY_DUPLEX: (f64, u64) = (0.02, 0xd_0b1e);

/// Both directions lossy in one run: perftest's `ib_write_bw -b` over RC ([`LOSSY_DUPLEX_RUNS`],
/// the engine as server and as client) while the bridge loses (single frames and bursts of
/// two), duplicates, reorders (within three frames) and corrupts 2 % of the frames each way, so
/// the data and the ACKs and NAKs of both sides meet faults at once: rxe and the engine each go
/// back N (on the other's NAK, or on their timer where a tail or its ACK was lost), each answers
/// the other's gaps and duplicates as responder, and every message completes on both sides with
/// no retry count exhausted. (The byte-exact checks on a lossy wire are the one-way tests
/// above: perftest does not check bytes.)
#[test]
fn duplex_rc_writes_survive_a_wire_lossy_both_ways_with_both_sides_going_back_n() {
    tool_session(
        "interop_lossy_duplex",
        &LOSSY_DUPLEX_RUNS,
        Duration::from_secs(300),
        Some(LOSSY_DUPLEX),
    );
}

/// The same with `-a` and `-b` together ([`ALL_SIZES_DUPLEX_RUNS`]): 160 MiB a run, not in the
/// test command either. `cargo test -p ferroce-sim --test interop_rxe -- --ignored
/// perftest_all_sizes_duplex`.
#[test]
#[ignore = "about 13 minutes: perftest -a -b moves 160 MiB a run through the simulated engine and rxe without KVM"]
fn perftest_all_sizes_duplex_run_against_ferroce_ctl_connect_as_server_and_as_client() {
    run_tools("interop_all_sizes_duplex", &ALL_SIZES_DUPLEX_RUNS, Duration::from_secs(1500));
}

/// [`TOOL_RUNS`] or other runs, in order twice in one VM that may run for `limit`.
fn run_tools(name: &'static str, runs: &'static [ToolRun], limit: Duration) {
    tool_session(name, runs, limit, None);
}

/// `runs` in order twice in one VM that may run for `limit`, on a perfect wire or with every
/// fault at a rate both ways (`lossy`: the rate and the seed).
fn tool_session(name: &'static str, runs: &'static [ToolRun], limit: Duration, lossy: Option<(f64, u64)>) {
    interop(name, |cache, bridge, vm_port| {
        if let Some((rate, seed)) = lossy {
            // the engine's timer in ticks of 8 cycles: its timeouts (2^14 ticks) take about a
            // second of the simulation's wall time, as rxe's do
            bridge.write("retry_tick", 0, 8).unwrap();
            bridge.set_faults(every_fault(rate), every_fault(rate), seed);
        }
        let engine_port = bridge.local_addr().unwrap().port();
        let oob = TcpListener::bind("127.0.0.1:0").unwrap();
        let oob_port = oob.local_addr().unwrap().port();
        let forward = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let run: Vec<String> = runs
            .iter()
            .map(|r| r.command(Some("10.0.2.100")))
            .chain(runs.iter().map(|r| r.command(None)))
            .chain(["stats".to_string()])
            .collect();
        let mut vm = Vm::boot_oob(cache, vm_port, engine_port, &run.join("+"), oob_port, forward);
        vm.limit = limit;
        let said = with_ferroce_ctl(bridge, &mut vm, name, move |dev| {
            let mut said = Vec::new();
            for role in [Role::Server, Role::Client] {
                for r in runs {
                    let mut stream = match role {
                        Role::Server => connect::accept(&oob, VM_TIMEOUT).unwrap(),
                        Role::Client => connect::connect_to(&format!("127.0.0.1:{forward}"), VM_TIMEOUT).unwrap(),
                    };
                    let line = r.engine_side(dev, &mut stream, role);
                    eprintln!("{r:?}, the engine as {role:?}: {line}");
                    said.push(line);
                }
            }
            said
        });
        assert_eq!(said.len(), 2 * runs.len());
        let stats = vm.expect(bridge, "STATS");
        let counters = rxe_counters(&stats);
        eprintln!("rxe: {stats}");
        if lossy.is_some() {
            check_both_sides_went_back_n(bridge, &counters, &stats);
            vm.expect(bridge, "EXIT 0");
            return;
        }
        for zero in [
            "rcvd_seq_err",
            "rcvd_rnr_err",
            "send_rnr_err",
            "retry_exceeded_err",
            "retry_rnr_exceeded_err",
        ] {
            assert_eq!(counters.get(zero), Some(&0), "rxe's {zero} ({stats})");
        }
        vm.expect(bridge, "EXIT 0");
        // the iteration lines of the VM's ping-pongs, both roles
        for r in runs.iter().filter(|r| r.tool == LinuxTool::Pingpong) {
            let line = format!("{} iters in", r.iterations);
            let seen = vm.console.iter().filter(|l| l.contains(&line)).count();
            assert!(seen >= 2, "the ping-pong's '{line}' {seen} times: {}", vm.console.join("\n"));
        }
        assert_eq!(bridge.read("rx_drop_icrc", 0).unwrap(), 0, "rxe's ICRCs verify in the engine");
        assert_eq!(bridge.read("tx_ack_ignored", 0).unwrap(), 0, "every ACK of rxe's was taken");
    });
}

/// After a run lossy both ways: every kind of fault happened in each direction, both sides
/// sent packets again and answered the other's gaps, and neither ran out of retries.
fn check_both_sides_went_back_n(bridge: &mut WireBridge, rxe: &std::collections::HashMap<&str, u64>, stats: &str) {
    let [to, from] = bridge.fault_counts();
    let sent_again = bridge.read("tx_retransmitted", 0).unwrap();
    let timeouts = bridge.read("tx_timeouts", 0).unwrap();
    let naks = bridge
        .read(
            "responder_counter",
            ResponderCounter::Naks(NakCode::PsnSequenceError).index() as u32,
        )
        .unwrap();
    eprintln!(
        "faults to the engine {to:?}, from it {from:?}; the engine sent {sent_again} packets again after \
         {timeouts} timeouts and NAKed {naks} gaps"
    );
    for (direction, faults) in [("to the engine", to), ("to the VM", from)] {
        assert!(
            faults.lost > 0 && faults.duplicated > 0 && faults.reordered > 0 && faults.corrupted > 0,
            "every kind of fault happened on the way {direction}: {faults:?}"
        );
    }
    assert!(sent_again > 0, "the engine went back N");
    assert!(naks > 0, "the engine NAKed rxe's gaps");
    assert_eq!(bridge.read("tx_retries_exhausted", 0).unwrap(), 0);
    let count = |name: &str| rxe.get(name).copied().unwrap_or_else(|| panic!("rxe's {name} ({stats})"));
    assert!(count("completer_retry_err") > 0, "rxe went back N ({stats})");
    assert!(count("out_of_seq_request") > 0, "rxe saw the engine's gaps ({stats})");
    assert_eq!(count("retry_exceeded_err"), 0, "{stats}");
    assert_eq!(count("retry_rnr_exceeded_err"), 0, "{stats}");
}
