//! The RC requester model with go-back-N retransmission against the responder model over a
//! lossy wire (`ferroce_sim::reliable_loopback`), RDMA WRITEs and READs mixed: every transfer
//! completes exactly once, the bytes land exactly once where they belong (a READ's lost
//! responses asked for again), nothing is written elsewhere, and loss beyond the retry limit
//! ends in an error, never a hang. A proptest draws the fault schedules and shrinks
//! a failure to a small one.

use ferroce_sim::contracts::tx::{CompletionStatus, Pmtu};
use ferroce_sim::faults::Faults;
use ferroce_sim::models::tx::PatternMemory;
use ferroce_sim::peers::{Peer, REGION_LENGTH};
use ferroce_sim::reliable_loopback::{check, run, RcTransfer, ReliableRun};
use ferroce_sim::wire::Transport;
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `count` RC peers (every PMTU in turn, PSNs near the wrap), timeout 4.096 µs × 2^3, seven
/// retries, RNR retry for ever, their regions open to remote reads.
fn peers(count: u32) -> Vec<Peer> {
    let pmtus = [Pmtu::B256, Pmtu::B512, Pmtu::B1024, Pmtu::B2048, Pmtu::B4096];
    (0..count)
        .map(|i| {
            let mut peer = Peer::new(2 + i, Transport::Rc, pmtus[i as usize % pmtus.len()], 1, i, 0xFF_FFF0 + i);
            peer.requester.timeout = 3;
            peer.requester.retry_count = 7;
            peer.requester.rnr_retry = 7;
            peer.region.access.remote_read = true;
            peer
        })
        .collect()
}

/// `per_peer` transfers on each peer, every third a READ (from the second), the rest WRITEs, of random lengths
/// up to `max_len` (a few of 0 and 1 byte), side by side in its region.
fn transfers(peers: &[Peer], per_peer: usize, max_len: u32, seed: u64) -> Vec<RcTransfer> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for (i, peer) in peers.iter().enumerate() {
        let mut offset = rng.gen_range(0..64u64);
        for k in 0..per_peer {
            let length = match rng.gen_range(0..10) {
                0 => 0,
                1 => 1,
                _ => rng.gen_range(2..=max_len),
            };
            assert!(offset + u64::from(length) <= REGION_LENGTH);
            out.push(RcTransfer {
                read: k % 3 == 1,
                peer: i,
                channel: out.len() as u16,
                local: 0x7000_0000 + rng.gen_range(0..1u64 << 30),
                remote: peer.region.base + offset,
                length,
            });
            offset += u64::from(length) + rng.gen_range(0..64u64);
        }
    }
    out
}

fn lossy(loss: f64) -> Faults {
    Faults { loss, ..Faults::NONE }
}

fn run_checked(name: &str, faults: Faults, seed: u64, per_peer: usize, max_len: u32) -> ReliableRun {
    run_transfers(name, faults, seed, per_peer, max_len).0
}

fn run_transfers(name: &str, faults: Faults, seed: u64, per_peer: usize, max_len: u32) -> (ReliableRun, Vec<RcTransfer>) {
    let peers = peers(5);
    let transfers = transfers(&peers, per_peer, max_len, seed);
    let source = PatternMemory::new(seed);
    let got = run(&peers, &transfers, faults, seed, &source).unwrap_or_else(|e| panic!("{name}: {e}"));
    check(&got, &transfers, &source).unwrap_or_else(|e| panic!("{name}: {e}"));
    (got, transfers)
}

fn all_succeeded(run: &ReliableRun) -> bool {
    run.completions.iter().all(|c| c.1 == CompletionStatus::Success)
}

#[test]
fn a_lossless_wire_needs_no_retransmission() {
    let got = run_checked("lossless", Faults::NONE, 1, 6, 40_000);
    assert!(all_succeeded(&got));
    // 10 READs, each response whole at the first ask
    assert!(got
        .requesters
        .iter()
        .all(|c| c.read_responses > 0 && c.read_gaps == 0 && c.bad_responses == 0));
    assert!(
        got.requesters.iter().all(|c| c.retransmitted == 0 && c.timeouts == 0),
        "{:?}",
        got.requesters
    );
}

#[test]
fn loss_duplication_reordering_and_corruption_are_survived() {
    let cases = [
        ("0.1 % loss", lossy(0.001)),
        ("1 % loss", lossy(0.01)),
        ("10 % loss", lossy(0.1)),
        (
            // a burst counts frames: one of 8 can take all eight tries of a lone last packet
            // (seven retries), which rightly ends in an error
            "bursts of up to 6",
            Faults {
                loss: 0.01,
                burst: 6,
                ..Faults::NONE
            },
        ),
        (
            "5 % duplicated",
            Faults {
                duplicate: 0.05,
                ..Faults::NONE
            },
        ),
        (
            "5 % reordered within 4",
            Faults {
                reorder: 0.05,
                window: 4,
                ..Faults::NONE
            },
        ),
        (
            "2 % corrupted",
            Faults {
                corrupt: 0.02,
                ..Faults::NONE
            },
        ),
        (
            "everything",
            Faults {
                loss: 0.02,
                burst: 3,
                duplicate: 0.02,
                reorder: 0.02,
                window: 3,
                corrupt: 0.01,
            },
        ),
    ];
    let mut read_gaps = 0;
    for (seed, (name, faults)) in cases.into_iter().enumerate() {
        let got = run_checked(name, faults, seed as u64, 4, 30_000);
        assert!(all_succeeded(&got), "{name}: {:?}", got.completions);
        let retransmitted: u64 = got.requesters.iter().map(|c| c.retransmitted).sum();
        let gaps: u64 = got.requesters.iter().map(|c| c.read_gaps).sum();
        read_gaps += gaps;
        let (forward, backward) = got.faults;
        println!(
            "{name}: {} frames each way, {retransmitted} sent again, {gaps} READ gaps asked for again, {} duplicates at the responder, done after {:.1} µs",
            forward.frames.max(backward.frames),
            got.responder.duplicates(),
            got.nanos as f64 / 1e3
        );
        if faults.loss > 0.0 || faults.corrupt > 0.0 {
            assert!(retransmitted > 0, "{name}: a lossy wire and nothing sent again");
        }
    }
    assert!(read_gaps > 0, "no READ response was lost and asked for again");
}

#[test]
fn everything_lost_ends_in_errors_not_a_hang() {
    let (got, transfers) = run_transfers("all lost", lossy(1.0), 3, 2, 5_000);
    assert!(
        got.completions.iter().all(|c| c.1 == CompletionStatus::TransportRetryExceeded),
        "{:?}",
        got.completions
    );
    // the responder holds what the READs would have read and nothing more; nothing came back
    let read_bytes: u32 = transfers.iter().filter(|t| t.read).map(|t| t.length).sum();
    assert_eq!(got.memory.addresses().count(), read_bytes as usize);
    assert_eq!(got.local_memory.addresses().count(), 0);
    // seven retries: eight times each QP's first packet, then the error
    assert!(got.requesters.iter().all(|c| c.timeouts == 7), "{:?}", got.requesters);
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct("proptest-regressions/rc_requester_model.txt"))),
        ..ProptestConfig::default()
    })]

    /// Any fault schedule: every transfer completes once, right bytes or an error, nothing
    /// written elsewhere; with light loss, all succeed. Shrunk failures are kept in
    /// `proptest-regressions/rc_requester_model.txt` and replayed first.
    #[test]
    fn any_fault_schedule_keeps_the_rules(
        loss in 0.0..0.3f64,
        burst in 1usize..5,
        duplicate in 0.0..0.2f64,
        reorder in 0.0..0.2f64,
        window in 1usize..6,
        corrupt in 0.0..0.1f64,
        seed in 0u64..1_000_000,
    ) {
        let faults = Faults { loss, burst, duplicate, reorder, window, corrupt };
        let got = run_checked(&format!("{faults:?} seed {seed}"), faults, seed, 2, 12_000);
        if loss + corrupt < 0.02 && burst <= 2 {
            prop_assert!(all_succeeded(&got), "{:?}", got.completions);
        }
    }
}
