//! The MAC ingress (`MacIngress`, Verilator models `ferroce_mac_ingress_w64` and
//! `ferroce_mac_ingress_w512`, driven by `ferroce_sim::ingress_rtl`) against its model
//! (`ferroce_models::ingress`), at both widths.
//!
//! The MAC side never waits (a CMAC has no `tready`) and idles at random between and inside
//! frames; a fifth of the frames are marked bad on their last beat; sizes run from 1 byte to
//! 9,000 (jumbo) and around beat boundaries. With the RX path always ready, exactly the good
//! frames come out, whole, in order, each beat after the first of a frame in the next cycle;
//! with random and with heavy backpressure, what comes out obeys the model's rules (good frames
//! whole and in order, every missing good frame counted as dropped for room, bad frames counted
//! and never out). A frame longer than the buffer is always dropped, and the frames after it
//! pass; one of the longest length passes and fills the buffer, so the frame right behind it
//! finds no room; a frame cut by the end of reset is neither passed nor counted.

use ferroce_contracts::rx::ingress::{max_frame_beats, IngressDrop};
use ferroce_sim::ingress_rtl::{check_run, expected_unstalled, run, IngressTraffic, MacFrame};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const WIDTHS: [usize; 2] = [64, 512];

/// Random frames at `k` bytes per beat, a fifth of them bad.
fn frames(seed: u64, k: usize, count: usize) -> Vec<MacFrame> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let len = match rng.gen_range(0..5) {
                0 => rng.gen_range(1..=2 * k),
                1 => (rng.gen_range(1..=16) * k + rng.gen_range(0..=2)).max(2) - 1,
                2 => rng.gen_range(60..=9000),
                _ => rng.gen_range(60..=1600),
            };
            MacFrame {
                bytes: (0..len).map(|_| rng.gen()).collect(),
                bad: rng.gen_range(0..5) == 0,
            }
        })
        .collect()
}

#[test]
fn good_frames_pass_whole_and_bad_frames_never() {
    for width in WIDTHS {
        let k = width / 8;
        for (i, idle_pct) in [0, 30].into_iter().enumerate() {
            let input = frames(10 + i as u64, k, 120);
            let traffic = IngressTraffic {
                idle_pct,
                bp_pct: 0,
                seed: 7 + i as u64,
            };
            let got = run(&input, width, traffic, &[]).unwrap();
            let (want, counts) = expected_unstalled(&input, k);
            assert_eq!(got.frames.len(), want.len(), "w{width} idle {idle_pct}%: frames out");
            for (n, (g, w)) in got.frames.iter().zip(&want).enumerate() {
                assert!(
                    g == w,
                    "w{width} idle {idle_pct}%: frame {n} out differs ({} bytes, expected {})",
                    g.len(),
                    w.len()
                );
            }
            assert_eq!(got.counts, counts, "w{width} idle {idle_pct}%: counters");
            assert_eq!(got.gaps_in_frames, 0, "w{width}: the output paused inside a frame");
            assert!(counts.dropped(IngressDrop::BadFrame) > 10);
        }
    }
}

#[test]
fn backpressure_drops_whole_frames_and_counts_them() {
    for width in WIDTHS {
        let k = width / 8;
        for (bp_pct, idle_pct) in [(30, 0), (30, 30), (95, 0)] {
            let input = frames(20 + bp_pct as u64, k, 150);
            let traffic = IngressTraffic { idle_pct, bp_pct, seed: 3 };
            let got = run(&input, width, traffic, &[]).unwrap();
            check_run(&input, k, &got.frames, &got.counts)
                .unwrap_or_else(|e| panic!("w{width} backpressure {bp_pct}%, idle {idle_pct}%: {e}"));
            if bp_pct == 95 {
                assert!(
                    got.counts.dropped(IngressDrop::NoRoom) > 0,
                    "w{width}: a stalled RX path must make the buffer drop"
                );
                assert!(got.counts.passed > 0);
            }
        }
    }
}

#[test]
fn frame_longer_than_the_buffer_is_dropped_and_the_next_pass() {
    for width in WIDTHS {
        let k = width / 8;
        let longest = max_frame_beats(k) * k;
        let input: Vec<MacFrame> = [100, longest + 1, 200, longest, 300]
            .iter()
            .enumerate()
            .map(|(i, &len)| MacFrame::good(vec![i as u8 + 1; len]))
            .collect();
        let got = run(&input, width, IngressTraffic::FULL, &[]).unwrap();
        let lens: Vec<usize> = got.frames.iter().map(Vec::len).collect();
        // the 300-byte frame arrives while the longest one, which fills the buffer, waits
        assert_eq!(lens, [100, 200, longest], "w{width}");
        assert_eq!(got.counts.dropped(IngressDrop::NoRoom), 2, "w{width}");
    }
}

#[test]
fn frame_cut_by_reset_is_neither_passed_nor_counted() {
    for width in WIDTHS {
        let k = width / 8;
        let input = frames(30, k, 20);
        let cut: Vec<u8> = (0..6 * k as u32).map(|i| i as u8).collect();
        let got = run(
            &input,
            width,
            IngressTraffic {
                idle_pct: 10,
                bp_pct: 10,
                seed: 5,
            },
            &cut,
        )
        .unwrap();
        let (want, counts) = expected_unstalled(&input, k);
        assert_eq!(got.frames, want, "w{width}");
        assert_eq!(got.counts, counts, "w{width}");
    }
}

#[test]
fn one_beat_per_cycle_in_and_out() {
    for width in WIDTHS {
        let k = width / 8;
        let input: Vec<MacFrame> = (0..50).map(|i| MacFrame::good(vec![i as u8; 16 * k])).collect();
        let got = run(&input, width, IngressTraffic::FULL, &[]).unwrap();
        assert_eq!(got.frames.len(), 50);
        // 800 beats in back to back; the output trails by one frame's store-and-forward
        assert!(got.cycles <= 800 + 16 + 4, "w{width}: {} cycles for 800 beats", got.cycles);
    }
}
