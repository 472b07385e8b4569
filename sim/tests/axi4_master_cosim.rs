//! The AXI4 master RTL (Verilator models `ferroce_axi4_master_w64` and `_w512`) against an AXI4
//! slave with a memory (`ferroce_sim::axi4_master_rtl`): random reads and writes of 1 to 4096
//! bytes at any address, under the four combinations of idle and backpressure on every channel
//! and random slave latency, land byte-exact with exactly the bursts of
//! `contracts::memory::bursts` (cut at 4 KiB and 256 beats, across a 4 GiB boundary); error
//! responses are counted with their address.

use ferroce_sim::axi4_master_rtl::{expected, Axi4MasterRtl, Slave, Window, WIDTHS};
use ferroce_sim::contracts::memory::block_bytes;
use ferroce_sim::verilated::Traffic;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SEED: u64 = 0xa114;
/// The window straddles the 4 GiB boundary, so that a block's next address carries into bit 32.
const BASE: u64 = 0x1_0000_0000 - 0x8000;
const WINDOW: u64 = 0x10000;
/// Where the window is split between reads and writes (the low part crosses 4 GiB).
const SPLIT: u64 = 0x1_0000_0000 + 0x2000;

fn window(rng: &mut impl Rng) -> Window {
    Window {
        base: BASE,
        bytes: (0..WINDOW).map(|_| rng.gen()).collect(),
    }
}

/// A length that exercises the edges at `bytes` per beat: 1, around a beat, 4096, or random.
fn length(rng: &mut impl Rng, bytes: u64) -> u64 {
    match rng.gen_range(0..8) {
        0 => 1,
        1 => bytes - 1 + rng.gen_range(0..3),
        2 => 4096,
        3 => rng.gen_range(1..=64),
        _ => rng.gen_range(1..=4096),
    }
}

/// `n` commands inside `[from, to)`, some of them ending at or starting on a block boundary.
fn commands(rng: &mut impl Rng, n: usize, from: u64, to: u64, bytes: u64) -> Vec<(u64, u64)> {
    let block = block_bytes(bytes);
    (0..n)
        .map(|_| {
            let len = length(rng, bytes);
            let mut address = rng.gen_range(from..=to - len);
            if rng.gen_range(0..4) == 0 {
                // just before or after a block boundary
                let boundary = (address / block + 1) * block;
                let near = boundary - rng.gen_range(0..bytes.min(len));
                if near >= from && near + len <= to {
                    address = near;
                }
            }
            (address, len)
        })
        .collect()
}

#[test]
fn random_reads_and_writes_land_byte_exact_with_the_contract_bursts_at_both_widths() {
    for width in WIDTHS {
        let mut dut = Axi4MasterRtl::new(width).unwrap_or_else(|e| panic!("{e}"));
        let bytes = (width / 8) as u64;
        for (t, traffic) in Traffic::four_ways(SEED).into_iter().enumerate() {
            for swap in [false, true] {
                let rng = &mut ChaCha8Rng::seed_from_u64(SEED + 10 * t as u64 + u64::from(swap));
                let memory = window(rng);
                let (low, high) = ((BASE, SPLIT), (SPLIT, BASE + WINDOW));
                let (read_part, write_part) = if swap { (high, low) } else { (low, high) };
                let reads = commands(rng, 24, read_part.0, read_part.1, bytes);
                let writes: Vec<(u64, Vec<u8>)> = commands(rng, 24, write_part.0, write_part.1, bytes)
                    .into_iter()
                    .map(|(a, l)| (a, (0..l).map(|_| rng.gen()).collect()))
                    .collect();
                let slave = Slave::with_latency(if t % 2 == 0 { 1..=4 } else { 20..=200 });
                let want = expected(&memory, &reads, &writes, &slave, bytes).unwrap_or_else(|e| panic!("{e}"));
                let run = dut
                    .run(&memory, &reads, &writes, &slave, traffic)
                    .unwrap_or_else(|e| panic!("w{width} {traffic:?} swap {swap}: {e}"));
                run.check(&want).unwrap_or_else(|e| panic!("w{width} {traffic:?} swap {swap}: {e}"));
            }
        }
    }
}

/// Aligned 4 KiB reads and writes, nothing idle, a slave that answers at once: the R and W
/// channels carry a beat every cycle (the measured occupancy is printed).
#[test]
fn aligned_reads_and_writes_keep_r_and_w_busy() {
    for width in WIDTHS {
        let mut dut = Axi4MasterRtl::new(width).unwrap_or_else(|e| panic!("{e}"));
        let bytes = (width / 8) as u64;
        let rng = &mut ChaCha8Rng::seed_from_u64(SEED);
        let memory = window(rng);
        let reads: Vec<(u64, u64)> = (0..8).map(|i| (BASE + i * 4096, 4096)).collect();
        let writes: Vec<(u64, Vec<u8>)> = (8..16).map(|i| (BASE + i * 4096, (0..4096).map(|_| rng.gen()).collect())).collect();
        let slave = Slave::with_latency(1..=1);
        let run = dut
            .run(&memory, &reads, &[], &slave, Traffic::FULL)
            .unwrap_or_else(|e| panic!("{e}"));
        run.check(&expected(&memory, &reads, &[], &slave, bytes).unwrap()).unwrap();
        let read_beats = 8 * 4096 / bytes;
        println!(
            "axi4_master w{width}: 8 aligned 4 KiB reads, {read_beats} R beats in {} cycles",
            run.cycles
        );
        assert!(run.cycles < read_beats + 40, "reads: {} cycles for {read_beats} beats", run.cycles);
        let run = dut
            .run(&memory, &[], &writes, &slave, Traffic::FULL)
            .unwrap_or_else(|e| panic!("{e}"));
        run.check(&expected(&memory, &[], &writes, &slave, bytes).unwrap()).unwrap();
        println!(
            "axi4_master w{width}: 8 aligned 4 KiB writes, {read_beats} W beats in {} cycles",
            run.cycles
        );
        assert!(run.cycles < read_beats + 40, "writes: {} cycles for {read_beats} beats", run.cycles);
    }
}

/// A slave that answers SLVERR in two blocks: each read command that touches one counts once,
/// each write burst in one counts once, with the address of the last; the data still flows.
#[test]
fn error_responses_are_counted_with_their_address() {
    for width in WIDTHS {
        let mut dut = Axi4MasterRtl::new(width).unwrap_or_else(|e| panic!("{e}"));
        let bytes = (width / 8) as u64;
        let block = block_bytes(bytes);
        let rng = &mut ChaCha8Rng::seed_from_u64(SEED + 99);
        let memory = window(rng);
        let first_block = BASE.div_ceil(block) * block;
        let slave = Slave {
            latency: 2..=30,
            error_blocks: vec![first_block + block, SPLIT + 2 * block],
        };
        let reads = commands(rng, 16, BASE, SPLIT, bytes);
        let writes: Vec<(u64, Vec<u8>)> = commands(rng, 16, SPLIT, BASE + WINDOW, bytes)
            .into_iter()
            .map(|(a, l)| (a, (0..l).map(|_| rng.gen()).collect()))
            .chain([(SPLIT + 2 * block + 3, vec![9; 2 * bytes as usize])])
            .collect();
        let reads: Vec<(u64, u64)> = reads.into_iter().chain([(first_block + block + 1, 3)]).collect();
        let want = expected(&memory, &reads, &writes, &slave, bytes).unwrap_or_else(|e| panic!("{e}"));
        assert!(want.read_errors > 0 && want.write_errors > 0);
        let traffic = Traffic {
            idle_pct: 20,
            bp_pct: 20,
            seed: SEED,
        };
        let run = dut
            .run(&memory, &reads, &writes, &slave, traffic)
            .unwrap_or_else(|e| panic!("w{width}: {e}"));
        run.check(&want).unwrap_or_else(|e| panic!("w{width}: {e}"));
    }
}
