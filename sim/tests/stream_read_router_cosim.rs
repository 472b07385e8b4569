//! The stream read router's Verilog (`ferroce_stream_read_router_w64`, `_w512`): reads to
//! memory and to the stream window (address bit 63) mixed, each on its side, every read's
//! bytes back whole and in command order although the window answers faster than memory;
//! four ways; packet reads from the two sides back to back at full rate.

use ferroce_sim::stream_router_rtl::{run, Read, VARIANTS};
use ferroce_sim::verilated::Traffic;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn reads(count: usize, seed: u64) -> Vec<Read> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| Read {
            address: (u64::from(rng.gen_bool(0.5)) << 63) | rng.gen_range(0..1u64 << 40),
            length: if rng.gen_bool(0.3) { 4096 } else { rng.gen_range(1..=4096) },
        })
        .collect()
}

#[test]
fn reads_come_back_in_command_order_from_their_side_four_ways() {
    for (variant, _) in VARIANTS {
        for traffic in Traffic::four_ways(13) {
            let got = run(variant, &reads(80, traffic.seed), traffic).unwrap_or_else(|e| panic!("{variant} {traffic:?}: {e}"));
            assert!(got.reads[0] > 20 && got.reads[1] > 20, "{got:?}");
        }
    }
}

#[test]
fn alternating_packet_reads_keep_a_beat_a_cycle() {
    for (variant, lanes) in VARIANTS {
        let reads: Vec<Read> = (0..32u64)
            .map(|i| Read {
                address: ((i % 2) << 63) | (i * 4096),
                length: 4096,
            })
            .collect();
        let got = run(variant, &reads, Traffic::FULL).unwrap();
        let beats = 32 * 4096 / lanes as u64;
        println!(
            "{variant}: 32 reads of 4096 bytes, memory and window in turn, in {} cycles ({beats} beats)",
            got.cycles
        );
        // a beat a cycle once memory's first answer (30 cycles) is there
        assert!(got.cycles <= beats + 40, "{variant}: {} cycles for {beats} beats", got.cycles);
    }
}
