//! The stream sender's Verilog (`ferroce_stream_sender_w64`, `_w512`) against its model
//! (`ferroce_models::stream::StreamTarget::post`): every post attempt is the model's post of its
//! record, on 1, 2 and 4 channels in turn, never two in flight on one channel; busy channels
//! tried again, refused posts given up; releases in record order, each after its message's
//! completion (success or error) or refusal; completions for other channels ignored.

use ferroce_sim::models::stream::StreamTarget;
use ferroce_sim::stream_sender_rtl::{run, Behaviour, Record, VARIANTS};
use ferroce_sim::verilated::Traffic;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;

fn target(beat_bytes: u32, channels: u32) -> StreamTarget {
    StreamTarget {
        qp: 0x2a,
        queue: 3,
        first_channel: 40,
        channels,
        base_va: 0x7f00_dead_f000,
        slot_bytes: 16 * beat_bytes,
        window_base: 0x8000_0000_0000_0000,
        beat_bytes,
    }
}

/// Records of a stream port with a buffer of 512 beats and 8 slots, messages of up to 16 beats.
fn records(count: usize, seed: u64) -> Vec<Record> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut beat = 0u32;
    (0..count)
        .map(|i| {
            let beats = rng.gen_range(1..=16u32);
            let r = Record {
                buffer_beat: beat,
                beats,
                length: beats * 8 - rng.gen_range(0..8),
                slot: (i % 8) as u32,
                immediate: rng.gen(),
                solicited: i % 3 == 2,
            };
            beat = (beat + beats) % 512;
            r
        })
        .collect()
}

#[test]
fn posts_are_the_models_and_releases_follow_completions_on_one_two_and_four_channels() {
    for (variant, beat_bytes) in VARIANTS {
        for channels in [1, 2, 4] {
            for traffic in Traffic::four_ways(7 + u64::from(channels)) {
                let behaviour = Behaviour {
                    traffic,
                    busy_pct: 15,
                    refused: HashSet::from([5, 17]),
                    completion_delay: 300,
                    failed_pct: 10,
                };
                let records = records(40, u64::from(channels));
                let got = run(variant, &target(beat_bytes, channels), &records, &behaviour)
                    .unwrap_or_else(|e| panic!("{variant}, {channels} channels, {traffic:?}: {e}"));
                assert_eq!(got.posted, 38);
                assert!(got.busy > 0 && got.failed > 0, "{got:?}");
                if channels > 1 {
                    assert_eq!(got.most_in_flight, channels as usize, "{variant}: every channel used at once");
                }
            }
        }
    }
}

#[test]
fn a_message_is_posted_within_a_few_cycles_of_its_record() {
    for (variant, beat_bytes) in VARIANTS {
        let behaviour = Behaviour {
            traffic: Traffic::FULL,
            busy_pct: 0,
            refused: HashSet::new(),
            completion_delay: 8,
            failed_pct: 0,
        };
        let got = run(variant, &target(beat_bytes, 4), &records(64, 3), &behaviour).unwrap();
        println!("{variant}: 64 messages posted and released in {} cycles", got.cycles);
        assert_eq!(got.posted, 64);
    }
}
