//! The mmap backend and the command line against a temporary file standing in for a BAR: a
//! memory image with a Ferroce ID block, read and written through `--device file:PATH`.

mod common;

use common::{set_word, word};
use ferroce_contracts::regs::{Config, Map, QP_STATUS};
use ferroce_contracts::responder::{
    completion_kind, receive_state, NakCode, ResponderCounter, MEMORY_REGION, RECEIVE_COMPLETION, RECEIVE_POST,
};
use ferroce_contracts::tx::{CompletionStatus, QP_CONTEXT};
use std::path::Path;
use std::process::Command;

/// A BAR image of `size` bytes with the ID block and the reset values of the flip-flop
/// registers of `config`'s map.
fn image(dir: &Path, size: usize, config: Config) -> std::path::PathBuf {
    let map = Map::new(config);
    let mut bytes = vec![0u8; size];
    for r in map.registers().filter(|r| (r.offset as usize) < size) {
        if let Some(v) = r.reset() {
            bytes[r.offset as usize..r.offset as usize + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
    let path = dir.join(format!("bar-{size}.bin"));
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The words of a packed entry staged in the registers `<prefix>0..`.
fn staged(path: &Path, map: &Map, prefix: &str, words: usize) -> Vec<u32> {
    (0..words).map(|w| word(path, map.reg(&format!("{prefix}{w}")).offset)).collect()
}

fn ctl(path: &Path, args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ferroce-ctl"))
        .arg("--device")
        .arg(format!("file:{}", path.display()))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn registers_by_name_and_address_through_the_mapped_file() {
    let dir = tempfile::tempdir().unwrap();
    let bar = image(dir.path(), 1 << 19, Config::SMALL);
    let map = Map::new(Config::SMALL);
    let scratch = map.reg("scratch").offset;

    let (code, out, err) = ctl(&bar, &["write", "scratch", "0x1234abcd"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("scratch"), "{out}");
    assert_eq!(word(&bar, scratch), 0x1234_abcd, "the write reached the mapped file");
    let (_, out, _) = ctl(&bar, &["read", &format!("{scratch:#x}")]);
    assert!(out.contains("0x1234abcd"), "{out}");

    let (code, out, _) = ctl(&bar, &["--json", "read", "block_size"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["fields"]["log2"]["value"], 16);
    assert_eq!(v["fields"]["log2"]["meaning"], "64 KiB");

    let (code, out, err) = ctl(&bar, &["info"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("64 channels") && out.contains("matches"), "{out}");

    // the QP context through its schema: words written, word 0 last
    let (code, _, err) = ctl(
        &bar,
        &[
            "qp",
            "set",
            "1",
            "--state",
            "rts",
            "--dst-ip",
            "10.0.0.2",
            "--dst-mac",
            "02:00:00:00:00:02",
            "--dqpn",
            "0x12",
            "--psn",
            "100",
            "--rkey",
            "0x55",
            "--pmtu",
            "4096",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let entry: Vec<u32> = (0..QP_CONTEXT.words() as u32)
        .map(|w| word(&bar, map.reg(&format!("qp_word{w}")).address(1)))
        .collect();
    assert_eq!(QP_CONTEXT.decode(&entry, "state"), 3);
    assert_eq!(QP_CONTEXT.decode(&entry, "dst_ip"), 0x0a00_0002);
    assert_eq!(QP_CONTEXT.decode(&entry, "dst_mac"), 0x0200_0000_0002);
    assert_eq!(QP_CONTEXT.decode(&entry, "pmtu"), 5);
    assert_eq!(
        QP_CONTEXT.decode(&entry, "udp_sport"),
        u128::from(ferroce_contracts::tx::udp_source_port_hash(1))
    );
    let (_, out, _) = ctl(&bar, &["--json", "qp", "show", "1"]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["context"]["state"], "rts");
    assert_eq!(v["context"]["dst_ip"], "10.0.0.2");
    assert_eq!(v["error"], serde_json::Value::Null, "not in error");
    // the TX path failed the QP: `qp show` names the cause
    let status = map.reg(QP_STATUS).address(1);
    set_word(&bar, status, u32::from(CompletionStatus::TransportRetryExceeded.code()));
    let (code, out, err) = ctl(&bar, &["qp", "show", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("error          transport_retry_exceeded (posts refused"), "{out}");
    let (_, out, _) = ctl(&bar, &["read", "qp_status[1]"]);
    assert!(out.contains("transport_retry_exceeded"), "{out}");

    let (code, out, _) = ctl(&bar, &["--json", "counters"]);
    assert_eq!(code, 0);
    assert!(out.contains("rx_drop_icrc"));
    let (code, out, _) = ctl(&bar, &["dump", "qos"]);
    assert_eq!(code, 0);
    assert!(out.contains("queue_config[0]") && out.contains("weight"), "{out}");
}

#[test]
fn errors_name_the_device_the_address_and_the_cause() {
    let dir = tempfile::tempdir().unwrap();
    // a window too small for the QP table
    let small = image(dir.path(), 4096, Config::SMALL);
    let (code, _, err) = ctl(&small, &["read", "qp_word0[0]"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("file:") && err.contains("0x40000") && err.contains("beyond the mapped window"),
        "{err}"
    );

    // a device whose memory space is off reads all ones
    let gone = dir.path().join("gone.bin");
    std::fs::write(&gone, vec![0xffu8; 4096]).unwrap();
    let (code, _, err) = ctl(&gone, &["info"]);
    assert_eq!(code, 2);
    assert!(err.contains("0xFFFFFFFF") && err.contains("0x00000"), "{err}");

    // a device built from another map
    let other = image(dir.path(), 1 << 19, Config::SMALL);
    let hash = Map::new(Config::SMALL).reg("map_hash").offset as usize;
    let mut bytes = std::fs::read(&other).unwrap();
    bytes[hash] ^= 1;
    std::fs::write(&other, bytes).unwrap();
    let (code, _, err) = ctl(&other, &["info"]);
    assert_eq!(code, 2);
    assert!(err.contains("register map") && err.contains("same revision"), "{err}");

    // no such file, no such register, an unknown device kind
    let (code, _, err) = ctl(&dir.path().join("missing"), &["info"]);
    assert_eq!(code, 2);
    assert!(err.contains("no such device"), "{err}");
    let bar = image(dir.path(), 1 << 19, Config::SMALL);
    let (code, _, err) = ctl(&bar, &["read", "no_such_register"]);
    assert_eq!(code, 2);
    assert!(err.contains("no_such_register"), "{err}");

    // the engine's memory is the simulated engine's only; bad bytes are refused before that
    for args in [&["memory", "read", "0x1000", "16"][..], &["memory", "write", "0x1000", "00 a5"]] {
        let (code, _, err) = ctl(&bar, args);
        assert_eq!(code, 2);
        assert!(
            err.contains("reaches the registers only, not the engine's memory"),
            "{args:?}: {err}"
        );
    }
    let (code, _, err) = ctl(&bar, &["memory", "write", "0x1000", "0xabc"]);
    assert_eq!(code, 2);
    assert!(err.contains("two hexadecimal digits a byte"), "{err}");
    let (code, _, err) = ctl(&bar, &["memory", "read", "0x1000", "0x2000000"]);
    assert_eq!(code, 2);
    assert!(err.contains("at most 16777216 bytes a read"), "{err}");
    let o = Command::new(env!("CARGO_BIN_EXE_ferroce-ctl"))
        .args(["--device", "bogus:1", "info"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown device name"));
}

#[test]
fn region_set_stages_the_entry_then_writes_its_index() {
    let dir = tempfile::tempdir().unwrap();
    let bar = image(dir.path(), 1 << 19, Config::SMALL);
    let map = Map::new(Config::SMALL);
    let region_write = map.reg("region_write").offset;
    let entry = |bar: &Path| staged(bar, &map, "region_word", MEMORY_REGION.words());

    let (code, out, err) = ctl(
        &bar,
        &[
            "region",
            "set",
            "3",
            "--pd",
            "7",
            "--base",
            "0x1_0000_0000",
            "--length",
            "4096",
            "--write",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("R_Key 0x300"), "the default R_Key is the index in bits 31:8: {out}");
    let words = entry(&bar);
    for (field, value) in [
        ("valid", 1),
        ("access", 1),
        ("pd", 7),
        ("rkey", 0x300),
        ("base", 1 << 32),
        ("length", 4096),
    ] {
        assert_eq!(MEMORY_REGION.decode(&words, field), value, "{field}");
    }
    assert_eq!(word(&bar, region_write), 3, "the index reached region_write");

    let (code, out, err) = ctl(
        &bar,
        &[
            "--json", "region", "set", "5", "--pd", "1", "--base", "0", "--length", "64", "--rkey", "0x5aa", "--read", "--write",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!((v["region"].clone(), v["rkey"].clone()), (5.into(), "0x5aa".into()));
    let words = entry(&bar);
    assert_eq!(
        (MEMORY_REGION.decode(&words, "access"), MEMORY_REGION.decode(&words, "rkey")),
        (3, 0x5aa)
    );
    assert_eq!(word(&bar, region_write), 5);

    // refused before any write: the staging words and region_write keep entry 5's
    for (args, expect) in [
        (
            vec![
                "region", "set", "6", "--pd", "1", "--base", "0", "--length", "64", "--rkey", "0x700", "--write",
            ],
            "selects entry 7",
        ),
        (
            vec!["region", "set", "64", "--pd", "1", "--base", "0", "--length", "64", "--write"],
            "64 entries",
        ),
        (
            vec!["region", "set", "6", "--pd", "1", "--base", "0", "--length", "64"],
            "--read, --write",
        ),
        (
            vec!["region", "set", "6", "--pd", "0x10000", "--base", "0", "--length", "64", "--read"],
            "16 bits",
        ),
        (
            vec![
                "region",
                "set",
                "6",
                "--pd",
                "1",
                "--base",
                "0xffff_ffff_ffff_f000",
                "--length",
                "0x2000",
                "--read",
            ],
            "beyond 2^64",
        ),
    ] {
        let (code, _, err) = ctl(&bar, &args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains(expect), "{args:?}: {err}");
        assert_eq!(word(&bar, region_write), 5, "{args:?} wrote region_write");
        assert_eq!(
            MEMORY_REGION.decode(&entry(&bar), "rkey"),
            0x5aa,
            "{args:?} wrote the staging words"
        );
    }
    let (_, _, err) = ctl(
        &bar,
        &[
            "region", "set", "6", "--pd", "1", "--base", "0", "--length", "64", "--rkey", "0x700", "--write",
        ],
    );
    assert!(
        err.contains("R_Key 0x700") && err.contains("bits 31:8") && err.contains("from 0x600 to 0x6ff"),
        "{err}"
    );

    let (code, _, err) = ctl(&bar, &["region", "clear", "5"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        entry(&bar),
        vec![0; MEMORY_REGION.words()],
        "a cleared entry is written with valid 0"
    );
    assert_eq!(word(&bar, region_write), 5);
}

#[test]
fn recv_post_stages_the_buffer_and_reports_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let bar = image(dir.path(), 1 << 19, Config::SMALL);
    let map = Map::new(Config::SMALL);
    let (status, post) = (map.reg("receive_status").offset, map.reg("receive_post").offset);

    set_word(&bar, status, receive_state::ACCEPTED);
    let (code, out, err) = ctl(
        &bar,
        &["recv", "post", "--qp", "2", "--address", "0x2000_0000_1000", "--length", "256"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("accepted"), "{out}");
    let words = staged(&bar, &map, "receive_word", RECEIVE_POST.words());
    assert_eq!(RECEIVE_POST.decode(&words, "qp"), 2);
    assert_eq!(RECEIVE_POST.decode(&words, "address"), 0x2000_0000_1000);
    assert_eq!(RECEIVE_POST.decode(&words, "length"), 256);
    assert_eq!(word(&bar, post), 1, "the post was written");

    // the register file's other answers: not accepted is exit status 1
    for (value, name, text) in [
        (receive_state::REFUSED, "refused", "receive queue is full"),
        (receive_state::PENDING | 1 << 9, "overrun", "still pending"),
        (receive_state::PENDING, "timeout", "1000 reads"),
    ] {
        set_word(&bar, status, value);
        let (code, out, err) = ctl(
            &bar,
            &["--json", "recv", "post", "--qp", "2", "--address", "0x1000", "--length", "64"],
        );
        assert_eq!(code, 1, "{name}: {err}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(v["post"], name);
        assert!(v["reason"].as_str().unwrap().contains(text), "{v}");
    }
    set_word(&bar, status, receive_state::REFUSED);
    let (_, out, _) = ctl(&bar, &["recv", "post", "--qp", "16", "--address", "0x1000", "--length", "64"]);
    assert!(out.contains("beyond the QP table (16 QPs)"), "{out}");
}

#[test]
fn a_completion_in_the_receive_words_is_decoded_then_popped() {
    let dir = tempfile::tempdir().unwrap();
    let bar = image(dir.path(), 1 << 19, Config::SMALL);
    let map = Map::new(Config::SMALL);
    let pop = map.reg("receive_completion_pop").offset;
    let place = |values: &[(&str, u128)]| {
        for (w, v) in RECEIVE_COMPLETION.encode(values).unwrap().into_iter().enumerate() {
            set_word(&bar, map.reg(&format!("receive_completion{w}")).offset, v);
        }
        set_word(&bar, pop, 0);
    };

    place(&[
        ("valid", 1),
        ("kind", completion_kind::WRITE.into()),
        ("status", 0),
        ("solicited", 1),
        ("immediate_valid", 1),
        ("qp", 5),
        ("immediate", 0xdead_beef),
        ("length", 1234),
    ]);
    let (code, out, err) = ctl(&bar, &["--json", "recv", "completions", "--max", "1"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let c = &v["completions"][0];
    assert_eq!(v["completions"].as_array().unwrap().len(), 1);
    assert_eq!(
        (c["qp"].clone(), c["kind"].clone(), c["status"].clone()),
        (5.into(), "write-imm".into(), "success".into())
    );
    assert_eq!(
        (c["immediate"].clone(), c["length"].clone(), c["solicited"].clone()),
        (0xdead_beefu32.into(), 1234.into(), true.into())
    );
    assert_eq!(v["overflow"], false);
    assert!(err.is_empty(), "no warning without overflow: {err}");
    assert_eq!(word(&bar, pop), 1, "pop = 1 reached receive_completion_pop");

    place(&[
        ("valid", 1),
        ("kind", completion_kind::SEND.into()),
        ("status", 1),
        ("qp", 3),
        ("length", 99),
    ]);
    let (code, out, _) = ctl(&bar, &["recv", "completions", "--max", "1"]);
    assert_eq!(code, 0);
    assert_eq!(out, "QP 3: send length_error, 99 bytes\n");

    // an empty queue with the overflow flag: a warning with the lost count, then the flag cleared
    place(&[("valid", 0), ("overflow", 1)]);
    set_word(&bar, map.reg("receive_completions_lost").offset, 9);
    let (code, out, err) = ctl(&bar, &["recv", "completions"]);
    assert_eq!(code, 0);
    assert_eq!(out, "no receive completion\n");
    assert!(err.contains("warning") && err.contains("receive_completions_lost = 9"), "{err}");
    assert_eq!(word(&bar, pop), 2, "clear_overflow, and no pop of an empty queue");

    // --wait: none arrives, exit status 1
    place(&[("valid", 0)]);
    let (code, out, _) = ctl(&bar, &["--json", "recv", "completions", "--wait", "0.05"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!((v["timeout"].clone(), v["completions"].as_array().unwrap().len()), (true.into(), 0));
    assert_eq!(word(&bar, pop), 0, "nothing popped");
}

#[test]
fn counters_name_the_responder_counters_and_dump_skips_strobes() {
    let dir = tempfile::tempdir().unwrap();
    let bar = image(dir.path(), 1 << 19, Config::SMALL);
    let map = Map::new(Config::SMALL);
    let counter = map.reg("responder_counter");
    let nak = ResponderCounter::Naks(NakCode::RemoteAccessError);
    set_word(&bar, counter.address(nak.index() as u32), 42);
    set_word(&bar, counter.address(ResponderCounter::ALL.len() as u32 - 1), 7);
    set_word(&bar, map.reg("rx_written").offset, 11);
    set_word(&bar, map.reg("receive_completions_lost").offset, 3);

    let (code, out, err) = ctl(&bar, &["--json", "counters"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["responder_naks_remote_access_error"], 42);
    assert_eq!(v["responder_read_duplicates"], 7, "the last counter");
    assert_eq!(v["responder_packets_executed"], 0);
    assert_eq!((v["rx_written"].clone(), v["rx_discarded"].clone()), (11.into(), 0.into()));
    assert_eq!(v["receive_completions_lost"], 3);
    let responder = v.as_object().unwrap().keys().filter(|k| k.starts_with("responder_")).count();
    assert_eq!(responder, ResponderCounter::ALL.len());
    let (_, out, _) = ctl(&bar, &["counters"]);
    assert!(
        out.lines()
            .any(|l| l.starts_with("responder_naks_remote_access_error") && l.ends_with(" 42")),
        "{out}"
    );

    // strobes are write only: listed, not read; the rest of the block is
    set_word(&bar, map.reg("region_write").offset, 0x3f);
    let (code, out, err) = ctl(&bar, &["--json", "dump", "receive"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let names: Vec<&str> = v.as_array().unwrap().iter().map(|r| r["register"].as_str().unwrap()).collect();
    assert!(
        names.contains(&"receive_status") && names.contains(&"receive_completion0"),
        "{names:?}"
    );
    for strobe in ["region_write", "receive_post", "receive_completion_pop"] {
        assert!(!names.contains(&strobe), "{strobe} was read");
    }
    let (code, out, _) = ctl(&bar, &["dump", "responder", "--elements", "32"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("responder_counter[29]") && !out.contains("responder_counter[30]"),
        "{out}"
    );
}

/// `connect write-bw --server`: perftest's exchange with a stand-in server on a socket (its
/// version, page and cache line sizes, MTU and three keys), then the QP context as the BAR
/// holds it: the server's QPN, PSN and R_Key, the MTU both sides agreed on, the addresses. A
/// file is no transfer table (a post reads back what was written), so the command ends with
/// an error at its first post.
#[test]
fn connect_programs_the_qp_from_a_perftest_servers_keys() {
    use ferroce_ctl::connect::{ipv4_gid, PerftestKey};
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let config = Config::SMALL;
    let bar = image(dir.path(), 1 << 19, config);
    let map = Map::new(config);
    set_word(&bar, map.reg("local_ipv4").offset, 0x0a00_0001);
    set_word(&bar, map.reg("local_mac_low").offset, 0x5e00_0001);
    set_word(&bar, map.reg("local_mac_high").offset, 0x0200);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let theirs = PerftestKey {
        lid: 0,
        out_reads: 1,
        qpn: 0x11,
        psn: 0x12_3456,
        rkey: 0x5a5a,
        vaddr: 0x7f00_0000_1000,
        gid: ipv4_gid(std::net::Ipv4Addr::new(10, 0, 0, 2)),
        srqn: 0,
    };
    let server = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let answer = |s: &mut std::net::TcpStream, length: usize, reply: &[u8]| {
            let mut message = vec![0u8; length];
            s.read_exact(&mut message).unwrap();
            s.write_all(reply).unwrap();
            message
        };
        let mut version = [0u8; 16];
        version[..4].copy_from_slice(b"6.06");
        let client_version = answer(&mut s, 16, &version);
        answer(&mut s, 4, &4096u32.to_be_bytes());
        answer(&mut s, 4, &64u32.to_be_bytes());
        let mtu = answer(&mut s, 2, b"3\0");
        let keys: Vec<PerftestKey> = (0..3)
            .map(|_| PerftestKey::parse(&answer(&mut s, PerftestKey::LEN, &theirs.emit())).unwrap())
            .collect();
        let mut rest = Vec::new();
        let _ = s.read_to_end(&mut rest);
        (client_version, mtu, keys)
    });
    let (code, _, err) = ctl(
        &bar,
        &[
            "connect",
            "write-bw",
            "--server",
            &format!("127.0.0.1:{port}"),
            "--qp",
            "2",
            "--psn",
            "0x777",
            "--mtu",
            "4096",
            "--peer-mac",
            "52:54:00:12:34:56",
            "-s",
            "4096",
            "-n",
            "1",
            "--timeout",
            "1",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("post"), "{err}");
    let (client_version, mtu, keys) = server.join().unwrap();
    assert_eq!(&client_version[..5], b"6.06\0", "the version perftest checks (at least 5.70)");
    assert_eq!(mtu, b"5\0", "the MTU offered, as perftest's digit");
    assert!(keys
        .iter()
        .all(|k| k.qpn == 2 && k.psn == 0x777 && k.gid == ipv4_gid(std::net::Ipv4Addr::new(10, 0, 0, 1))));
    let context = staged(&bar, &map, "qp_word", QP_CONTEXT.words());
    let words: Vec<u32> = (0..QP_CONTEXT.words())
        .map(|w| word(&bar, map.reg(&format!("qp_word{w}")).address(2)))
        .collect();
    assert_ne!(words, context, "QP 2's entry, not QP 0's");
    let field = |name| QP_CONTEXT.decode(&words, name);
    assert_eq!(field("dest_qpn"), 0x11);
    assert_eq!(field("sq_psn"), 0x777);
    assert_eq!(field("rq_psn"), 0x12_3456);
    assert_eq!(field("rkey"), 0x5a5a);
    assert_eq!(field("pmtu"), 3, "1024 bytes: the smaller of both sides'");
    assert_eq!(field("state"), 3, "RTS");
    assert_eq!(field("dst_ip"), 0x0a00_0002);
    assert_eq!(field("src_ip"), 0x0a00_0001);
    assert_eq!(field("dst_mac"), 0x5254_0012_3456);
    assert_eq!(field("src_mac"), 0x0200_5e00_0001);
}

#[test]
fn connect_refuses_bad_arguments_before_any_connection() {
    let dir = tempfile::tempdir().unwrap();
    let bar = image(dir.path(), 1 << 19, Config::SMALL);
    let (code, _, err) = ctl(&bar, &["connect", "pingpong", "--mtu", "1000"]);
    assert_eq!(code, 2);
    assert!(err.contains("--mtu 1000: 256, 512, 1024, 2048 or 4096"), "{err}");
    let (code, _, err) = ctl(&bar, &["connect", "write-bw", "--channel", "30", "--channels", "4"]);
    assert_eq!(code, 2);
    assert!(err.contains("within one group of 32"), "{err}");
    let (code, _, err) = ctl(&bar, &["connect", "send-bw", "--server", "127.0.0.1:1", "--timeout", "0.5"]);
    assert_eq!(code, 2);
    assert!(err.contains("127.0.0.1:1"), "{err}");
    let (code, _, err) = ctl(&bar, &["connect", "pingpong", "-a"]);
    assert_eq!(code, 2);
    assert!(err.contains("--all: the pingpong tools have no -a"), "{err}");
    for (option, value) in [("--ack-timeout", "32"), ("--retry-count", "8"), ("--rnr-retry", "9")] {
        let (code, _, err) = ctl(&bar, &["connect", "pingpong", option, value]);
        assert_eq!(code, 2, "{option} {value}");
        assert!(err.contains(option) && err.contains(value), "{option} {value}: {err}");
    }
    let (code, _, err) = ctl(&bar, &["connect", "write-bw", "-a", "-s", "4096"]);
    assert_ne!(code, 0);
    assert!(err.contains("cannot be used with"), "-a and -s together: {err}");
    // -a with -b is taken (every size both ways): it gets as far as the connection
    let (code, _, err) = ctl(
        &bar,
        &["connect", "send-bw", "-a", "-b", "--server", "127.0.0.1:1", "--timeout", "0.5"],
    );
    assert_eq!(code, 2);
    assert!(err.contains("127.0.0.1:1"), "-a and -b together: {err}");
    let (code, _, err) = ctl(&bar, &["connect", "pingpong", "-b"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--bidirectional: a ping-pong or latency test is both ways already"),
        "{err}"
    );
    // as ib_write_lat's server the engine needs its memory reached: refused before listening
    let (code, _, err) = ctl(&bar, &["connect", "write-lat", "--listen", "127.0.0.1:0"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("ib_write_lat with the engine as its server") && err.contains("reaches the registers only"),
        "{err}"
    );
    let (code, _, err) = ctl(&bar, &["connect", "write-lat", "-b", "--server", "127.0.0.1:1"]);
    assert_eq!(code, 2);
    assert!(err.contains("a ping-pong or latency test is both ways already"), "{err}");
}

#[test]
fn stream_commands_say_when_the_build_has_no_stream_ports() {
    let dir = tempfile::tempdir().unwrap();
    let bar = image(
        dir.path(),
        1 << 19,
        Config {
            streams: 0,
            ..Config::SMALL
        },
    );
    for args in [
        &["stream", "status"][..],
        &["stream", "start", "0"],
        &[
            "stream", "set", "0", "--qp", "1", "--va", "0x10000", "--slot", "4096", "--slots", "8",
        ],
    ] {
        let (code, _, err) = ctl(&bar, args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains("no stream ports"), "{args:?}: {err}");
    }
    // settings the tool refuses before any access: an unknown immediate format
    let (code, _, err) = ctl(
        &bar,
        &[
            "stream",
            "set",
            "0",
            "--qp",
            "1",
            "--va",
            "0x10000",
            "--slot",
            "4096",
            "--slots",
            "8",
            "--immediate",
            "wrap",
        ],
    );
    assert_eq!(code, 2);
    assert!(err.contains("--immediate wrap"), "{err}");
}

#[test]
fn stream_set_writes_the_settings_then_configure() {
    let dir = tempfile::tempdir().unwrap();
    let bar = image(dir.path(), 1 << 19, Config::SMALL);
    let map = Map::new(Config::SMALL);
    let (code, out, err) = ctl(
        &bar,
        &[
            "stream",
            "set",
            "1",
            "--qp",
            "3",
            "--va",
            "0x7f0000002000",
            "--slot",
            "8192",
            "--slots",
            "100",
            "--se-every",
            "4",
            "--immediate",
            "slot",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("stream 1: QP 3, 100 slots of 8192 bytes from 0x7f0000002000, channels 56 to 57, configured"),
        "{out}"
    );
    let at = |name: &str| map.reg(name).address(1);
    let field = |name: &str, f: &str, v: u32| map.reg(name).field(f).unwrap().get(v);
    assert_eq!(word(&bar, at("stream_slot")), 8192);
    assert_eq!(field("stream_ring", "last_slot", word(&bar, at("stream_ring"))), 99);
    assert_eq!(field("stream_ring", "solicited_every", word(&bar, at("stream_ring"))), 4);
    assert_eq!(field("stream_format", "slot_and_wrap", word(&bar, at("stream_format"))), 1);
    assert_eq!(field("stream_target", "qp", word(&bar, at("stream_target"))), 3);
    assert_eq!(field("stream_channels", "first_channel", word(&bar, at("stream_channels"))), 56);
    assert_eq!(field("stream_channels", "channel_mask", word(&bar, at("stream_channels"))), 1);
    assert_eq!(
        (word(&bar, at("stream_va_low")), word(&bar, at("stream_va_high"))),
        (0x2000, 0x7f00)
    );
    assert_eq!(word(&bar, at("stream_command")), 0, "configure is command 0");
    // refused before any write: a slot that is not a multiple of 4 bytes, one over 1 MiB
    for slot in ["4098", "2097152"] {
        let (code, _, err) = ctl(
            &bar,
            &["stream", "set", "0", "--qp", "3", "--va", "0x1800", "--slot", slot, "--slots", "2"],
        );
        assert_eq!(code, 2);
        assert!(err.contains("a multiple of 4 bytes, 4 B to 1 MiB"), "{err}");
        assert_eq!(word(&bar, map.reg("stream_slot").address(0)), 0, "nothing written");
    }
    // refused before any write: a slot over half the port's buffer (32 KiB in this build)
    let (code, _, err) = ctl(
        &bar,
        &[
            "stream", "set", "0", "--qp", "3", "--va", "0x1800", "--slot", "32768", "--slots", "2",
        ],
    );
    assert_eq!(code, 2);
    assert!(err.contains("at most half a stream port's buffer, 16 KiB in this build"), "{err}");
    assert_eq!(word(&bar, map.reg("stream_slot").address(0)), 0, "nothing written");
    let (code, out, _) = ctl(&bar, &["--json", "stream", "status"]);
    assert_eq!(code, 0);
    assert!(out.contains("\"stream\":1") && out.contains("\"configured\":false"), "{out}");
    // a rate paces the stream's queue: its pacer cost, cycles a byte at 322.265625 MHz
    let set = |rate: &str| {
        ctl(
            &bar,
            &[
                "stream", "set", "0", "--qp", "3", "--va", "0x1800", "--slot", "4096", "--slots", "2", "--queue", "3", "--rate", rate,
            ],
        )
    };
    let (code, out, err) = set("1G");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("queue 3 paced at 1000000000 B/s (0.3223 cycles a byte)"), "{out}");
    // every queue of the file reads as the low table, not paced: a note names queue 3's mates
    let queues = map.reg("queue_config").count;
    assert_eq!(queues, 5, "the image's build");
    assert!(
        err.contains("queue 3 shares its table of the scheduler with 3 queue(s) not paced (1, 2, 4)"),
        "{err}"
    );
    // bulk queues 1 and 2 in the low table, queue 3 and its paced neighbours in the high one
    let high = ferroce_contracts::sched::QUEUE_CONFIG
        .encode(&[("weight", 1), ("high_table", 1)])
        .unwrap()[0];
    for q in 3..queues {
        set_word(&bar, map.reg("queue_config").address(q), high);
        set_word(&bar, map.reg("pace_cost").address(q), 5_406_720);
    }
    let (code, _, err) = set("1G");
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("note:"), "{err}");
    assert_eq!(word(&bar, map.reg("pace_cost").address(3)), 5_406_720, "0.322265625 × 2^24");
    // refused before any write: 0, and below 1.26 MB/s (256 cycles a byte)
    for (rate, why) in [("0", "sends nothing"), ("1M", "below the pacer's least, 1258851")] {
        let (code, _, err) = set(rate);
        assert_eq!(code, 2, "{rate}");
        assert!(err.contains(why), "{rate}: {err}");
        assert_eq!(word(&bar, map.reg("pace_cost").address(3)), 5_406_720, "nothing written");
    }
    let (code, _, err) = set("fast");
    assert_eq!(code, 2);
    assert!(err.contains("--rate fast: 'fast' is not a rate in bytes per second"), "{err}");
}
