//! The stream reader's Verilog (`ferroce_stream_reader_w64`, `_w512`) serving DataMover-style
//! reads from a window of beats: each read's bytes from its address's beat, round its port's
//! buffer (the ring) when it runs past the buffer's end, from lane 0, the
//! last beat with `tlast` and the keep of the bytes left; random lengths (1 to 4096 bytes) four
//! ways; reads off a beat served from the beat that holds their first byte and counted; the
//! cycles of back-to-back packet reads.

use ferroce_sim::stream_reader_rtl::{run, Read, VARIANTS};
use ferroce_sim::verilated::Traffic;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn reads(lanes: usize, buffer_beats: u64, count: usize, aligned: bool, seed: u64) -> Vec<Read> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            // any port (the bits above a buffer's beats and a spare bit), often near a buffer's end
            let beat = if rng.gen_range(0..3) == 0 {
                rng.gen_range(0..8u64) * 2 * buffer_beats + buffer_beats - rng.gen_range(1..8)
            } else {
                rng.gen_range(0..1u64 << 20)
            };
            let offset = if aligned { 0 } else { rng.gen_range(1..lanes as u64) };
            let length = match rng.gen_range(0..4) {
                0 => 4096,
                1 => 256 << rng.gen_range(0..4),
                _ => rng.gen_range(1..=4096),
            };
            Read {
                address: (1 << 63) | (beat * lanes as u64 + offset),
                length,
            }
        })
        .collect()
}

#[test]
fn reads_give_the_windows_bytes_from_lane_0_four_ways() {
    for (variant, lanes, buffer_beats) in VARIANTS {
        for traffic in Traffic::four_ways(3) {
            let reads = reads(lanes, buffer_beats, 60, true, traffic.seed + lanes as u64);
            let got = run(variant, &reads, traffic).unwrap_or_else(|e| panic!("{variant} {traffic:?}: {e}"));
            assert_eq!(got.misaligned, 0);
        }
    }
}

#[test]
fn reads_off_a_beat_are_counted_and_served_from_their_first_bytes_beat() {
    for (variant, lanes, buffer_beats) in VARIANTS {
        let reads = reads(lanes, buffer_beats, 20, false, 9);
        let got = run(variant, &reads, Traffic::four_ways(5)[3]).unwrap_or_else(|e| panic!("{variant}: {e}"));
        assert_eq!(got.misaligned, 20);
    }
}

#[test]
fn packet_reads_back_to_back_take_a_cycle_a_beat_and_one_between_reads() {
    for (variant, lanes, _) in VARIANTS {
        let reads: Vec<Read> = (0..16)
            .map(|i| Read {
                address: (i * 4096) as u64,
                length: 4096,
            })
            .collect();
        let got = run(variant, &reads, Traffic::FULL).unwrap();
        let beats = 16 * 4096 / lanes as u64;
        println!("{variant}: 16 reads of 4096 bytes ({beats} beats) in {} cycles", got.busy_cycles);
        assert_eq!(got.beats, beats);
        assert!(got.busy_cycles <= beats + 16 + 3, "{variant}: {} cycles", got.busy_cycles);
    }
}
