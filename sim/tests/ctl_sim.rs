//! `ferroce-ctl`'s library against the register file's RTL behind `ferroce-sim serve`'s socket:
//! the host tool's view end to end (open and map check, registers, the QP table, posting with the
//! transfer-table stand-in, the poll, the counters, slave errors).

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
    let path = socket_path("serve");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ferroce-sim"))
        .args(["serve", "--variant", "c64_q16", "--socket"])
        .arg(&path)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while !path.exists() {
        assert!(start.elapsed().as_secs() < 20, "ferroce-sim serve did not create its socket");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let result = std::panic::catch_unwind(|| {
        let mut dev = Ferroce::open(bus::open(&format!("sim:{}", path.display())).unwrap()).unwrap();
        assert_eq!(dev.map().config.channels, 64);
        let block = dev.target("block_size").unwrap().address();
        assert_eq!(dev.read(block).unwrap(), 16);
        let e = dev.write(block, 30).unwrap_err();
        assert_eq!(e.cause, Cause::SlaveError(2), "a block size beyond 1 MiB is refused");
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let _ = std::fs::remove_file(&path);
    result.unwrap();
}
