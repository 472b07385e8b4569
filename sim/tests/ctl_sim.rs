//! `ferroce-ctl`'s library against the register file's RTL behind `ferroce-sim serve`'s socket:
//! the host tool's view end to end (open and map check, registers, the QP table, posting with the
//! transfer-table stand-in, the poll, the counters, slave errors).

mod common;

use ferroce_ctl::{bus, Cause, Ferroce, PostOutcome};
use ferroce_sim::contracts::regs::Config;
use ferroce_sim::contracts::tx::{ChannelStatus, PostError, QpState, POST, QP_CONTEXT};
use ferroce_sim::regs_rtl::RegsRtl;
use std::os::unix::net::UnixListener;
use std::path::PathBuf;

fn socket_path(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("ferroce-{name}-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

fn post_words(channel: u128, qp: u128) -> Vec<u32> {
    POST.encode(&[
        ("channel", channel),
        ("queue", 1),
        ("op", 3),
        ("qp", qp),
        ("local_addr", 0x1000),
        ("length", 65536),
    ])
    .unwrap()
}

#[test]
fn the_host_library_drives_the_simulated_register_file() {
    let path = socket_path("lib");
    let listener = UnixListener::bind(&path).unwrap();
    std::thread::spawn(move || {
        let mut rtl = RegsRtl::with_latency(Config::SMALL, 300).unwrap();
        ferroce_sim::serve::serve(listener, &mut rtl).unwrap();
    });
    let name = format!("sim:{}", path.display());
    let mut dev = Ferroce::open(bus::open(&name).unwrap()).unwrap();
    assert_eq!(dev.map().config, Config::SMALL, "the configuration comes from the ID block");

    let scratch = dev.target("scratch").unwrap().address();
    dev.write(scratch, 0xfeed_beef).unwrap();
    assert_eq!(dev.read(scratch).unwrap(), 0xfeed_beef);

    // the QP table, word 0 last
    let words = QP_CONTEXT
        .encode(&[
            ("state", QpState::Rts.code().into()),
            ("dest_qpn", 0x11),
            ("rkey", 0xabcd),
            ("dst_ip", 0x0a00_0002),
        ])
        .unwrap();
    dev.qp_write(2, &words).unwrap();
    assert_eq!(dev.qp_read(2).unwrap(), words);

    // a post, accepted: BUSY, then DONE, then polled
    assert_eq!(dev.post(&post_words(9, 2), 100).unwrap(), PostOutcome::Accepted);
    assert_eq!(dev.channel_status(9).unwrap().0, ChannelStatus::Busy);
    let mut reads = 0;
    while dev.channel_status(9).unwrap().0 != ChannelStatus::Done {
        reads += 1;
        assert!(reads < 1000, "the stand-in never completed the transfer");
    }
    let finished = dev.poll(0, 63).unwrap();
    assert_eq!(finished.len(), 1);
    assert_eq!((finished[0].channel, finished[0].error), (9, false));
    assert_eq!(dev.channel_status(9).unwrap().0, ChannelStatus::Idle);

    // refusals: a QP that is not ready, a channel beyond the table
    assert_eq!(
        dev.post(&post_words(3, 5), 100).unwrap(),
        PostOutcome::Refused(PostError::QpNotReady.code())
    );
    assert_eq!(
        dev.post(&post_words(70, 2), 100).unwrap(),
        PostOutcome::Refused(PostError::BadChannel.code())
    );

    // counters: every register of the block
    let counters = dev.counters().unwrap();
    assert!(counters.iter().any(|(n, _)| n == "rx_drop_icrc"));
    assert!(counters.iter().any(|(n, _)| n == "completion_bad_channel"));

    // slave errors name the device, the address and the cause
    let e = dev.read(0x18).unwrap_err();
    assert_eq!(e.cause, Cause::SlaveError(3));
    assert_eq!(e.address, Some(0x18));
    assert!(e.to_string().contains(&name) && e.to_string().contains("DECERR"), "{e}");
    let e = dev.write(dev.target("device_id").unwrap().address(), 1).unwrap_err();
    assert_eq!(e.cause, Cause::SlaveError(2));
    assert!(e.to_string().contains("SLVERR"), "{e}");
}

#[test]
fn ferroce_sim_serve_answers_the_host_tool() {
    for (name, args, channels, width) in [
        ("serve", &["serve", "--variant", "c64_q16"][..], 64, 512),
        ("serve-engine", &["serve", "--top", "engine"][..], 2048, 512),
    ] {
        let path = socket_path(name);
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ferroce-sim"))
            .args(args)
            .arg("--socket")
            .arg(&path)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        while !path.exists() {
            assert!(start.elapsed().as_secs() < 20, "ferroce-sim {args:?} did not create its socket");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let result = std::panic::catch_unwind(|| {
            let mut dev = Ferroce::open(bus::open(&format!("sim:{}", path.display())).unwrap()).unwrap();
            assert_eq!((dev.map().config.channels, dev.map().config.data_width), (channels, width));
            let block = dev.target("block_size").unwrap().address();
            assert_eq!(dev.read(block).unwrap(), 16);
            let e = dev.write(block, 30).unwrap_err();
            assert_eq!(e.cause, Cause::SlaveError(2), "a block size beyond 1 MiB is refused");
            // the engine's memory through the served store and load; none behind the registers alone
            let stored = dev.memory_write(0x7fff_fff0, &[0xa5, 0, 0x5a]);
            let loaded = dev.memory_read(0x7fff_ffef, 5);
            if name == "serve-engine" {
                stored.unwrap();
                assert_eq!(loaded.unwrap(), [0, 0xa5, 0, 0x5a, 0]);
            } else {
                for e in [stored.unwrap_err(), loaded.unwrap_err()] {
                    assert!(e.to_string().contains("no memory behind the register file alone"), "{e}");
                }
            }
        });
        child.kill().unwrap();
        child.wait().unwrap();
        let _ = std::fs::remove_file(&path);
        result.unwrap_or_else(|_| panic!("ferroce-sim {args:?}"));
    }
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_ferroce-sim"))
        .args(["serve", "--top", "sched", "--socket", "/nonexistent/x.sock"])
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(2), "an unknown --top is an option error");
}

/// `ferroce-sim wire` with a lossy wire: it says so when it starts, its register file answers,
/// and its report counts the faults; a rate that is not a probability is an option error.
#[test]
fn ferroce_sim_wire_runs_a_lossy_wire_and_refuses_a_bad_rate() {
    let path = socket_path("wire-lossy");
    let peer = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_ferroce-sim"))
        .args(["wire", "--udp", "127.0.0.1:0", "--peer", &peer.local_addr().unwrap().to_string()])
        .args(["--loss", "0.5", "--faults-on", "in", "--seconds", "3", "--report", "0", "--socket"])
        .arg(&path)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while !path.exists() {
        assert!(start.elapsed().as_secs() < 20, "ferroce-sim wire did not create its socket");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let mut dev = Ferroce::open(bus::open(&format!("sim:{}", path.display())).unwrap()).unwrap();
    let block = dev.target("block_size").unwrap().address();
    assert_eq!(dev.read(block).unwrap(), 16);
    drop(dev);
    let out = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(said.lines().next().is_some_and(|l| l.ends_with(", a lossy wire")), "{said}");
    assert!(said.contains("faults to the engine FaultCounts"), "{said}");
    let _ = std::fs::remove_file(&path);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ferroce-sim"))
        .args([
            "wire",
            "--udp",
            "127.0.0.1:0",
            "--peer",
            "127.0.0.1:9",
            "--socket",
            "/tmp/unused.sock",
            "--corrupt",
            "1.5",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("'1.5' is not a probability from 0 to 1"));
}

/// `ferroce-ctl`'s library against the whole engine looped back on itself (`serve --top
/// engine`): QP 1 sends to QP 2 of the same engine; the region, the receive buffer, the post,
/// the poll and the receive completion all go through the registers, the bytes sent are
/// stored into the engine's memory and those received loaded from it (more than one
/// request's worth).
#[test]
fn the_host_library_drives_the_engine_looped_on_itself() {
    use ferroce_ctl::{ReceiveKind, ReceiveOutcome};
    use ferroce_sim::contracts::tx::{Pmtu, PostOp};
    use ferroce_sim::engine_rtl::{EngineLoop, ENGINE_W512};
    use ferroce_sim::loopback_bench::b_context;
    use ferroce_sim::peers::Peer;
    use ferroce_sim::wire::Transport;

    let path = socket_path("engine");
    let listener = UnixListener::bind(&path).unwrap();
    std::thread::spawn(move || {
        let mut engine = EngineLoop::new(&ENGINE_W512).unwrap();
        ferroce_sim::serve::serve(listener, &mut engine).unwrap();
    });
    let mut dev = Ferroce::open(bus::open(&format!("sim:{}", path.display())).unwrap()).unwrap();
    assert_eq!(dev.map().config, ENGINE_W512.config);

    // QP 1 (RC, requester) → QP 2 (the responder, its ACKs back to QP 1), region entry 1
    let peer = Peer::new(2, Transport::Rc, Pmtu::B1024, 7, 1, 0x42);
    dev.qp_write(1, &peer.requester.to_words().unwrap()).unwrap();
    dev.qp_write(2, &b_context(&peer, 1).to_words().unwrap()).unwrap();
    let region = common::host_region(&peer.region);
    dev.region_write(1, &region).unwrap();
    assert_eq!(dev.receive_post(2, 0x5000, 4096, 100).unwrap(), ReceiveOutcome::Accepted);
    let pattern = |n: usize, seed: usize| -> Vec<u8> { (0..n).map(|k| (k * 7 + seed) as u8).collect() };
    let (send_bytes, write_bytes) = (pattern(300, 1), pattern(70_000, 3));
    dev.memory_write(0x1000, &send_bytes).unwrap();
    dev.memory_write(0x20000, &write_bytes).unwrap();
    assert_eq!(dev.memory_read(0x20000, write_bytes.len()).unwrap(), write_bytes);

    // a SEND with immediate, then a WRITE into the region
    let send = POST
        .encode(&[
            ("channel", 5),
            ("queue", 1),
            ("op", PostOp::SendImm.code().into()),
            ("qp", 1),
            ("local_addr", 0x1000),
            ("length", 300),
            ("immediate", 0xfeed),
        ])
        .unwrap();
    assert_eq!(dev.post(&send, 100).unwrap(), PostOutcome::Accepted);
    let write = POST
        .encode(&[
            ("channel", 6),
            ("queue", 2),
            ("op", PostOp::Write.code().into()),
            ("qp", 1),
            ("local_addr", 0x20000 + 65_000),
            ("remote_addr", peer.region.base.into()),
            ("length", 2500),
        ])
        .unwrap();
    assert_eq!(dev.post(&write, 100).unwrap(), PostOutcome::Accepted);
    let mut finished = Vec::new();
    for _ in 0..100 {
        finished.extend(dev.poll(0, 63).unwrap().into_iter().map(|f| (f.channel, f.error)));
        if finished.len() == 2 {
            break;
        }
    }
    finished.sort_unstable();
    assert_eq!(finished, [(5, false), (6, false)]);
    // a transfer finishes when its last frame has left: the receive side may still be at work
    let (completion, overflow) = (0..100)
        .map(|_| dev.receive_completion().unwrap())
        .find(|(c, _)| c.is_some())
        .expect("the SEND's receive completion");
    let completion = completion.unwrap();
    assert!(!overflow);
    assert_eq!(
        (
            completion.qp,
            completion.kind,
            completion.status,
            completion.immediate,
            completion.length
        ),
        (2, ReceiveKind::Send, 0, Some(0xfeed), 300)
    );
    assert_eq!(dev.receive_completion().unwrap().0, None, "one completion, popped");
    // the SEND (1 packet) and the WRITE (3 packets at PMTU 1024), then QP 2's ACKs to QP 1
    let counters = (0..100)
        .map(|_| {
            dev.counters()
                .unwrap()
                .into_iter()
                .collect::<std::collections::HashMap<String, u32>>()
        })
        .find(|c| c["rx_written"] == 4)
        .expect("four payloads written");
    assert_eq!(counters["responder_packets_executed"], 4, "{counters:?}");
    assert!(counters["responder_acks"] >= 1, "{counters:?}");
    // the bytes stored for each are where they landed
    assert_eq!(dev.memory_read(0x5000, 300).unwrap(), send_bytes);
    let written = dev.memory_read(peer.region.base, 2500).unwrap();
    assert_eq!(written, write_bytes[65_000..67_500]);
}

/// `ferroce-sim serve --serial`: the register file's RTL behind the serial bridge's RTL on a
/// pseudo-terminal, reached by `ferroce-ctl`'s `serial:` device as a board's USB UART would be:
/// raw 8N1 through the tty driver, the map check on open, registers, the QP table, slave
/// errors, and a client that comes after one that left a request half sent.
#[test]
fn the_host_library_drives_the_register_file_over_the_serial_bridge() {
    serve_on_terminal("serial", &["--variant", "c64_q16"], |link| {
        // a client that sends half a write and goes away
        {
            use std::io::Write;
            let mut tty = std::fs::OpenOptions::new().write(true).open(link).unwrap();
            tty.write_all(b"W\x00\x00").unwrap();
        }
        // (a while ago: the simulation turns the host's silence into idle line only once it
        // has read what came before)
        std::thread::sleep(std::time::Duration::from_millis(50));
        let name = format!("serial:{}@1000000", link.display());
        let mut dev = Ferroce::open(bus::open(&name).unwrap()).unwrap();
        assert_eq!(dev.map().config, Config::SMALL);
        let scratch = dev.target("scratch").unwrap().address();
        for value in [0x1234_5678, 0xffff_ffff, 0] {
            dev.write(scratch, value).unwrap();
            assert_eq!(dev.read(scratch).unwrap(), value);
        }
        let words = QP_CONTEXT
            .encode(&[("state", QpState::Rts.code().into()), ("dest_qpn", 0x22), ("dst_ip", 0x0a00_0003)])
            .unwrap();
        dev.qp_write(5, &words).unwrap();
        assert_eq!(dev.qp_read(5).unwrap(), words);
        let block = dev.target("block_size").unwrap().address();
        let e = dev.write(block, 30).unwrap_err();
        assert_eq!(e.cause, Cause::SlaveError(2), "SLVERR comes back through the bridge");
    });
}

/// Runs `ferroce-sim serve ARGS --clocks-per-bit 8 --serial LINK` (LINK a fresh path named after
/// `name`), calls `client` with LINK once the terminal is there, then stops the server.
fn serve_on_terminal(name: &str, args: &[&str], client: impl FnOnce(&std::path::Path) + std::panic::UnwindSafe) {
    let link = std::env::temp_dir().join(format!("ferroce-{name}-{}", std::process::id()));
    let _ = std::fs::remove_file(&link);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ferroce-sim"))
        .arg("serve")
        .args(args)
        .args(["--clocks-per-bit", "8", "--serial"])
        .arg(&link)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while !link.exists() {
        assert!(
            start.elapsed().as_secs() < 20,
            "ferroce-sim serve {args:?} --serial did not create its terminal"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let result = std::panic::catch_unwind(|| client(&link));
    child.kill().unwrap();
    child.wait().unwrap();
    let _ = std::fs::remove_file(&link);
    result.unwrap_or_else(|_| panic!("ferroce-sim serve {args:?} --serial"));
}

/// A serial line where nothing answers: an error that says what to check, after the timeout.
#[test]
fn a_silent_serial_line_is_an_error_not_a_hang() {
    let terminal = ferroce_sim::serial_rtl::Pty::open().unwrap();
    let mut bus = bus::open(&format!("serial:{}", terminal.path.display())).unwrap();
    let start = std::time::Instant::now();
    let e = bus.read32(0).unwrap_err();
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
    assert!(e.to_string().contains("no answer within"), "{e}");
    assert_eq!(
        terminal.read(0).unwrap(),
        b"R\x00\x00\x00\x00",
        "the request went out as the protocol says"
    );
    let e = bus::open(&format!("serial:{}@12345", terminal.path.display())).err().unwrap();
    assert!(e.to_string().contains("baud rate 12345"), "{e}");
}

/// `ferroce-sim serve --top serial_sched --serial`: the scheduler build's RTL (the Alchitry
/// Cu's design, its serial bridge inside) on a pseudo-terminal, driven by `ferroce-ctl`'s
/// library as on the board: the device id and map check on open, QoS words, enqueues with
/// their refusals, decisions in weighted round-robin order, engine calls refused.
#[test]
fn the_host_library_drives_the_scheduler_build_over_its_serial_line() {
    use ferroce_ctl::EnqueueOutcome::{BadQueue, Duplicate, Queued};
    serve_on_terminal("serial-sched", &["--top", "serial_sched"], |link| {
        let name = format!("serial:{}@1000000", link.display());
        let mut dev = Ferroce::open(bus::open(&name).unwrap()).unwrap();
        assert!(dev.is_scheduler());
        assert_eq!(dev.map().config.queues, 5);
        // queue 1 weight 2, queue 2 weight 1, both in the low table
        let queue_config = dev.map().reg("queue_config").clone();
        dev.write(queue_config.address(1), 2).unwrap();
        dev.write(queue_config.address(2), 1).unwrap();
        assert_eq!(dev.read(queue_config.address(1)).unwrap(), 2);
        let outcome = dev.sched_enqueue_nodes(1, &[10, 11, 12]).unwrap();
        assert_eq!(outcome, [(10, Queued), (11, Queued), (12, Queued)]);
        let outcome = dev.sched_enqueue_nodes(2, &[20, 21, 20]).unwrap();
        assert_eq!(outcome, [(20, Queued), (21, Queued), (20, Duplicate)]);
        assert_eq!(dev.sched_enqueue_nodes(7, &[30]).unwrap(), [(30, BadQueue)]);
        let mut served = Vec::new();
        for n in 1..=6 {
            let d = dev.sched_decide().unwrap();
            assert_eq!(d.number, n);
            if d.served {
                served.push((d.queue, d.node));
            }
        }
        assert_eq!(served, [(1, 10), (1, 11), (2, 20), (1, 12), (2, 21)]);
        let counters = dev.sched_counters().unwrap();
        assert_eq!((counters.duplicate, counters.bad_queue), (1, 1));
        assert!(dev.qp_read(0).is_err(), "the scheduler build has no QP table");
        let e = dev.write(dev.map().reg("decision").offset, 1).unwrap_err();
        assert_eq!(e.cause, Cause::SlaveError(2), "SLVERR comes back through the bridge");
    });
}
