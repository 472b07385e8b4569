//! `ferroce-sim tx`: one transfer from options or many from a posts file, frames in a pcap
//! that the RX model accepts, a summary on stdout; bad values and bad lines exit with status 2
//! before anything is written; the RTL engine writes the model's file byte for byte.

use ferroce_sim::models::tx::{LocalMemory, PatternMemory};
use ferroce_sim::rx::{rx_model, RxVerdict};
use ferroce_sim::wire::pcap::read_pcap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn sim(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ferroce-sim"))
        .args(args)
        .output()
        .expect("run ferroce-sim");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ferroce-tx-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn tx(out: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["tx", "--out", out.to_str().unwrap()];
    all.extend_from_slice(args);
    sim(&all)
}

#[test]
fn one_transfer_from_options() {
    let d = dir("one");
    let out = d.join("write.pcap");
    let args = [
        "--op",
        "write-imm",
        "--len",
        "10000",
        "--pmtu",
        "4096",
        "--block",
        "4K",
        "--va",
        "0x1f00",
        "--imm",
        "5",
        "--seed",
        "9",
        "--local",
        "0x40",
    ];
    let (code, stdout, err) = tx(&out, &args);
    assert_eq!(code, 0, "{err}");
    let frames = read_pcap(&out, false).unwrap();
    // Blocks at the remote address's 4 KiB boundaries: 256, 4096, 4096, 1552 bytes.
    assert_eq!(frames.len(), 4);
    let results: Vec<_> = frames.iter().map(|f| rx_model(f)).collect();
    assert!(results.iter().all(|r| r.verdict == RxVerdict::Accept));
    let vas: Vec<(u64, u32)> = results
        .iter()
        .map(|r| r.record.unwrap().reth.map(|r| (r.va, r.dma_len)).unwrap())
        .collect();
    assert_eq!(vas, [(0x1f00, 256), (0x2000, 4096), (0x3000, 4096), (0x4000, 1552)]);
    assert_eq!(results[3].record.unwrap().immdt.map(|i| i.imm), Some(5));
    let payload: Vec<u8> = results.iter().flat_map(|r| r.payload.clone()).collect();
    assert_eq!(payload, PatternMemory::new(9).bytes(0x40, 10000));
    let bytes: usize = frames.iter().map(Vec::len).sum();
    assert_eq!(
        stdout,
        format!("posts: 1 accepted, 0 refused\npackets: 4\nbytes: {bytes}\nqueue 1: {bytes} bytes\ncompletions: 1\n")
    );
    // Deterministic: the same options write the same file; IPv6 on request.
    let again = d.join("again.pcap");
    assert_eq!(tx(&again, &args).0, 0);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
    let v6 = d.join("v6.pcap");
    let (code, _, err) = tx(
        &v6,
        &[
            "--op",
            "send",
            "--len",
            "0",
            "--src-ip",
            "fe80::1",
            "--dst-ip",
            "2001:db8::2",
            "--transport",
            "uc",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let r = rx_model(&read_pcap(&v6, false).unwrap()[0]);
    assert_eq!(
        (r.verdict, r.record.unwrap().ip_version, r.record.unwrap().bth.unwrap().opcode),
        (RxVerdict::Accept, 6, 0x24)
    );
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn many_transfers_from_a_posts_file() {
    let d = dir("posts");
    let posts = d.join("posts.txt");
    std::fs::write(
        &posts,
        "# bulk on queues 1 and 2, weights 1:3\n\
         channel=1 queue=1 weight=1 len=64K va=0x100000\n\
         channel=2 queue=2 weight=3 len=64K qp=2 dqpn=0x22 va=0x200000\n\
         \n\
         channel=2 queue=2 len=10   # the channel is busy\n\
         channel=3 queue=0 op=send-imm len=100 qp=3 imm=7 se\n",
    )
    .unwrap();
    let out = d.join("posts.pcap");
    let (code, stdout, err) = tx(&out, &["--posts", posts.to_str().unwrap(), "--block", "4K", "--pmtu", "4096"]);
    assert_eq!(code, 0, "{err}");
    let frames = read_pcap(&out, false).unwrap();
    assert_eq!(frames.len(), 16 + 16 + 1);
    assert!(frames.iter().all(|f| rx_model(f).verdict == RxVerdict::Accept));
    // The control post leaves first; then queue 2 (DestQP 0x22) gets 3 blocks for each of
    // queue 1's (DestQP 17, the default).
    let bth = |f: &Vec<u8>| rx_model(f).record.unwrap().bth.unwrap();
    assert_eq!(
        (bth(&frames[0]).opcode, bth(&frames[0]).se),
        (0x05, true),
        "RC SEND only with immediate"
    );
    let order: Vec<u32> = frames[1..9].iter().map(|f| bth(f).dqpn).collect();
    assert_eq!(order, [17, 0x22, 0x22, 0x22, 17, 0x22, 0x22, 0x22]);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "posts: 3 accepted, 1 refused");
    assert_eq!(lines[1], format!("refused: post 3 ({}:5): channel_busy", posts.display()));
    assert_eq!(lines[2], "packets: 33");
    assert!(lines.contains(&"completions: 3"), "{stdout}");
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn bad_values_exit_2_before_anything_is_written() {
    let d = dir("bad");
    let out = d.join("never.pcap");
    let cases: [(&[&str], &str); 9] = [
        (&["--pmtu", "300"], "is not 256, 512, 1024, 2048 or 4096"),
        (&["--len", "4G"], "4 GiB or more"),
        (&["--len", "5000000000"], "4 GiB or more"),
        (&["--src-mac", "02:00:00:00:00"], "is not a MAC address"),
        (&["--dst-ip", "10.0.0.300"], "is not an IPv4 or IPv6 address"),
        (&["--src-ip", "fe80::1"], "both must be of one family"),
        (&["--block", "2K"], "is not a power of two from 4K to 1M"),
        (&["--frobnicate", "1"], "--frobnicate"),
        (&["--dqpn", "0x1000000"], "24-bit field `dest_qpn`"),
    ];
    for (args, msg) in cases {
        let (code, stdout, err) = tx(&out, args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(msg), "{args:?}: {err}");
        assert!(stdout.is_empty() && !out.exists(), "{args:?}");
    }
    let posts = d.join("bad.txt");
    for (text, line, msg) in [
        ("channel=1\n\nchannel=2 pmtu=100\n", 3, "pmtu: path MTU '100'"),
        (
            "channel=1 queue=2 weight=5\nchannel=2 queue=2 weight=3\n",
            2,
            "queue 2 has weight 3 here but 5 on line 1",
        ),
        ("channel=1 color=red\n", 1, "unknown key 'color'"),
    ] {
        std::fs::write(&posts, text).unwrap();
        let (code, stdout, err) = tx(&out, &["--posts", posts.to_str().unwrap()]);
        assert_eq!(code, 2, "{text:?}: {err}");
        assert!(err.starts_with(&format!("error: {}:{line}: ", posts.display())), "{text:?}: {err}");
        assert!(err.contains(msg), "{text:?}: {err}");
        assert!(stdout.is_empty() && !out.exists());
    }
    std::fs::remove_dir_all(d).unwrap();
}

/// `--engine rtl` (the `tx_path` top in Verilator) writes the model's file byte for byte and
/// the same summary, plus the cycles it took.
#[test]
fn rtl_and_model_write_byte_identical_files() {
    let d = dir("rtl");
    let posts = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tx_qos.posts");
    let mut summaries = Vec::new();
    for engine in ["model", "rtl"] {
        let out = d.join(format!("{engine}.pcap"));
        let (code, stdout, err) = tx(&out, &["--posts", posts.to_str().unwrap(), "--block", "4K", "--engine", engine]);
        assert_eq!(code, 0, "{engine}: {err}");
        summaries.push(stdout);
    }
    assert_eq!(
        std::fs::read(d.join("model.pcap")).unwrap(),
        std::fs::read(d.join("rtl.pcap")).unwrap()
    );
    let cycles = summaries[1].lines().last().unwrap();
    assert!(cycles.starts_with("cycles: "), "{}", summaries[1]);
    assert_eq!(summaries[0], summaries[1].strip_suffix(&format!("{cycles}\n")).unwrap());
    std::fs::remove_dir_all(d).unwrap();
}

/// The README's example posts file runs: four posts accepted, the control SEND first.
#[test]
fn the_readme_posts_file_runs() {
    let d = dir("readme");
    let out = d.join("qos.pcap");
    let posts = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tx_qos.posts");
    let (code, stdout, err) = tx(&out, &["--posts", posts.to_str().unwrap(), "--block", "4K"]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.starts_with("posts: 4 accepted, 0 refused\n"), "{stdout}");
    assert!(stdout.contains("completions: 4\n"), "{stdout}");
    let frames = read_pcap(&out, false).unwrap();
    let first = rx_model(&frames[0]);
    assert_eq!(first.verdict, RxVerdict::Accept);
    assert_eq!(first.payload.len(), 256, "the control class's SEND leaves first");
}
