//! The stream bus sender's Verilog (`ferroce_stream_bus_sender_s8_w64`, `_s256_w512`) against
//! its model (`ferroce_models::stream::StreamTarget::post` of each stream's target, laid out by
//! `ferroce_contracts::stream::bus_first_channel`): records of many streams interleaved, each
//! stream on 1, 2 or 4 of its channels; every post attempt the model's; busy channels tried
//! again, refused posts given up; releases stream by stream in record order, each after its
//! message's completion (success or error) or refusal; completions for other channels and for
//! streams with nothing in flight ignored; each stream's status (messages held) checked every
//! cycle.

use ferroce_sim::models::stream::StreamTarget;
use ferroce_sim::stream_bus_sender_rtl::{run, target, Behaviour, Record, VARIANTS};
use ferroce_sim::stream_sender_rtl::Record as Message;
use ferroce_sim::verilated::Traffic;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, HashSet};

const WINDOW_BASE: u64 = 0x8000_0000_0000_0000;

/// The bus's channels start at a multiple of 4 × its streams.
fn channel_base(streams: usize) -> u32 {
    4 * streams as u32
}

/// Targets of `streams` of the bus, on 1, 2 or 4 channels each (4 on the first).
fn targets(streams: &[usize], beat_bytes: u32, bus_streams: usize, seed: u64) -> HashMap<usize, StreamTarget> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    streams
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let channels = if i == 0 { 4 } else { [1, 2, 4][rng.gen_range(0..3)] };
            (s, target(s, channels, beat_bytes, channel_base(bus_streams), WINDOW_BASE))
        })
        .collect()
}

/// `count` records of `streams` in random turns (runs of one stream now and then).
fn records(streams: &[usize], region_bits: u32, count: usize, seed: u64) -> Vec<Record> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut stream = streams[0];
    let turns: Vec<usize> = (0..count)
        .map(|_| {
            if rng.gen_range(0..100) < 70 {
                stream = streams[rng.gen_range(0..streams.len())];
            }
            stream
        })
        .collect();
    records_in_turns(&turns, region_bits, seed)
}

/// Records of the streams in `turns`, each stream through its region of `2^region_bits` beats
/// and its ring of 8 slots.
fn records_in_turns(turns: &[usize], region_bits: u32, seed: u64) -> Vec<Record> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut next: HashMap<usize, (u32, u32)> = HashMap::new();
    turns
        .iter()
        .map(|&stream| {
            let (beat, slot) = next.entry(stream).or_default();
            let beats = rng.gen_range(1..=16u32);
            let r = Record {
                stream,
                message: Message {
                    buffer_beat: ((stream as u32) << region_bits) + *beat,
                    beats,
                    length: beats * 8 - rng.gen_range(0..8),
                    slot: *slot,
                    immediate: rng.gen(),
                    solicited: rng.gen_range(0..3) == 0,
                },
            };
            *beat = (*beat + beats) % (1 << region_bits);
            *slot = (*slot + 1) % 8;
            r
        })
        .collect()
}

#[test]
fn posts_are_each_streams_models_and_releases_follow_completions_stream_by_stream() {
    for variant in &VARIANTS {
        let (name, beat_bytes, bus_streams) = (variant.name, variant.lanes, variant.streams);
        let streams: Vec<usize> = if bus_streams == 8 {
            (0..8).collect()
        } else {
            vec![0, 1, 2, 17, 64, 100, 128, 200, 254, 255]
        };
        let ways = if bus_streams == 8 {
            Traffic::four_ways(21).to_vec()
        } else {
            Traffic::four_ways(23)[..2].to_vec()
        };
        for traffic in ways {
            let behaviour = Behaviour {
                traffic,
                busy_pct: 15,
                refused: HashSet::from([5, 17, 18, 90]),
                completion_delay: 300,
                failed_pct: 10,
            };
            let records = records(&streams, variant.region_bits, 240, traffic.seed);
            let targets = targets(&streams, beat_bytes, bus_streams, traffic.seed);
            let got = run(variant, channel_base(bus_streams), WINDOW_BASE, &targets, &records, &behaviour)
                .unwrap_or_else(|e| panic!("{name}, {traffic:?}: {e}"));
            assert_eq!(got.posted, 236, "{name}: every record posted but the refused");
            assert!(got.busy > 0 && got.failed > 0 && got.ignored > 0, "{got:?}");
            assert_eq!(got.most_in_flight, 4, "{name}: a stream's four channels used at once");
        }
    }
}

#[test]
fn a_stream_on_one_channel_waits_for_its_completion_and_the_records_behind_it_wait_with_it() {
    // Stream 3 on one channel, its completions slow: the records of stream 5 behind its second
    // record wait for its first completion, and nothing is posted on a channel in flight.
    for variant in &VARIANTS {
        let (name, beat_bytes, bus_streams) = (variant.name, variant.lanes, variant.streams);
        let mut targets = HashMap::new();
        targets.insert(3, target(3, 1, beat_bytes, channel_base(bus_streams), WINDOW_BASE));
        targets.insert(5, target(5, 4, beat_bytes, channel_base(bus_streams), WINDOW_BASE));
        let records = records_in_turns(&[3, 3, 5, 5, 5, 3, 5], variant.region_bits, 9);
        let behaviour = Behaviour {
            traffic: Traffic::FULL,
            busy_pct: 0,
            refused: HashSet::new(),
            completion_delay: 2_000,
            failed_pct: 0,
        };
        let got =
            run(variant, channel_base(bus_streams), WINDOW_BASE, &targets, &records, &behaviour).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got.posted, 7);
        // stream 3 never has two in flight (the runner checks each stream against its channels)
        // and posts go in record order, so stream 5's records waited behind stream 3's second
        assert!(got.most_in_flight >= 3, "{name}: stream 5's records in flight together: {got:?}");
    }
}

#[test]
fn figures_records_of_many_streams_posted_and_released() {
    for variant in &VARIANTS {
        let (name, beat_bytes, bus_streams) = (variant.name, variant.lanes, variant.streams);
        let streams: Vec<usize> = (0..bus_streams.min(122)).collect();
        let behaviour = Behaviour {
            traffic: Traffic::FULL,
            busy_pct: 0,
            refused: HashSet::new(),
            completion_delay: 8,
            failed_pct: 0,
        };
        let records = records(&streams, variant.region_bits, 488, 5);
        let targets = targets(&streams, beat_bytes, bus_streams, 5);
        let got = run(variant, channel_base(bus_streams), WINDOW_BASE, &targets, &records, &behaviour).unwrap();
        println!(
            "{name}: {} records of {} streams posted and released in {} cycles, {:.2} cycles a message",
            records.len(),
            streams.len(),
            got.cycles,
            got.cycles as f64 / records.len() as f64
        );
        assert_eq!(got.posted, records.len() as u64);
    }
}
