//! The scheduler build's Verilog (`ferroce_serial_sched_n64_q5`: the QoS scheduler, its
//! register file and the serial bridge, the Alchitry Cu's design) in Verilator against its model
//! (`ferroce_models::sched_build` behind `ferroce_models::serial`'s bridge): random requests on
//! the serial line with random gaps between their bytes, garbage bytes between them, QoS words,
//! enqueues (duplicates and queues beyond the five among them), decisions, reads of every
//! register and accesses that must fail. Every answer is the model's to the byte, and the LEDs
//! show the last decision.

use ferroce_contracts::regs::{Access, Map};
use ferroce_contracts::serial::{Answer, Discard, Request, BIT_TIMES_PER_BYTE, READ, WRITE};
use ferroce_models::sched::cfg_word;
use ferroce_models::sched_build::SchedulerBuildModel;
use ferroce_models::serial::{BridgeModel, LineEvent};
use ferroce_sim::sched_build_rtl::{SerialSchedRtl, NODE_BITS, QUEUES};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What a request is for (the coverage the run must reach).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Case {
    QueueWord,
    Limit,
    Enqueue,
    Decide,
    Read,
    ReadOnlyWrite,
    Nothing,
}

fn address(map: &Map, name: &str) -> u32 {
    map.reg(name).offset
}

/// A request and what it is for.
fn random_request(rng: &mut ChaCha8Rng, map: &Map) -> (Request, Case) {
    let write = |address, data| Request::Write { address, data };
    match rng.gen_range(0..20) {
        0..=1 => {
            // a queue word: weights and tables; a bucket only where it refills between decisions
            let queue = rng.gen_range(0..QUEUES + 1);
            let bucket = rng.gen_bool(0.3);
            let word = cfg_word(
                rng.gen_range(1..5),
                if bucket { rng.gen_range(128..=255) } else { rng.gen() },
                if bucket { rng.gen_range(1..=2) } else { rng.gen() },
                rng.gen(),
                bucket,
            );
            let case = if queue < QUEUES { Case::QueueWord } else { Case::Nothing };
            (write(address(map, "queue_config") + 4 * queue, word), case)
        }
        2 => (write(address(map, "high_limit"), rng.gen_range(0..8)), Case::Limit),
        3..=8 => {
            // few nodes, so that some are still queued when enqueued again; a few bad queues
            let node = rng.gen_range(0..12u32);
            let queue = if rng.gen_bool(0.1) {
                rng.gen_range(QUEUES..32)
            } else {
                rng.gen_range(0..QUEUES)
            };
            (write(address(map, "enqueue"), queue << 16 | node), Case::Enqueue)
        }
        9..=13 => (write(address(map, "decide"), rng.gen()), Case::Decide),
        14..=16 => {
            let registers: Vec<_> = map.registers().collect();
            let r = registers[rng.gen_range(0..registers.len())];
            let index = rng.gen_range(0..r.count);
            (Request::Read { address: r.address(index) }, Case::Read)
        }
        17 => {
            let read_only: Vec<_> = map
                .registers()
                .filter(|r| r.fields.iter().all(|f| f.access == Access::Ro))
                .collect();
            let r = read_only[rng.gen_range(0..read_only.len())];
            (write(r.offset, rng.gen()), Case::ReadOnlyWrite)
        }
        _ => {
            // nothing there: past the queues built, between blocks, above the map
            let address = [0x214, 0x500, 0x4_0000, 0x7_fffc][rng.gen_range(0..4)];
            if rng.gen() {
                (Request::Read { address }, Case::Nothing)
            } else {
                (write(address, rng.gen()), Case::Nothing)
            }
        }
    }
}

fn run(clocks_per_bit: u32, seed: u64, requests: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut rtl = SerialSchedRtl::new(clocks_per_bit).expect("model");
    let mut model = SchedulerBuildModel::new(NODE_BITS, QUEUES);
    let mut bridge = BridgeModel::new();
    let map = model.map().clone();
    let byte_time = u64::from(BIT_TIMES_PER_BYTE * clocks_per_bit);
    let (quiet, budget) = (2 * byte_time, 200 * byte_time);
    // the scheduler's initialization (a cycle per node) before the first request
    rtl.driver.idle(2 << NODE_BITS);
    let mut seen = std::collections::BTreeMap::<(Case, u8), usize>::new();
    let mut served = 0;
    for n in 0..requests {
        let context = format!("cpb {clocks_per_bit}, seed {seed}, request {n}");
        if rng.gen_bool(0.1) {
            let b = loop {
                let b: u8 = rng.gen();
                if b != READ && b != WRITE {
                    break b;
                }
            };
            rtl.driver.send(b, true);
            bridge.receive(LineEvent::Byte(b), &mut model);
        }
        let (request, case) = random_request(&mut rng, &map);
        let mut expected = None;
        for (i, b) in request.emit().into_iter().enumerate() {
            if i > 0 {
                rtl.driver.idle(rng.gen_range(0..3 * byte_time));
            }
            rtl.driver.send(b, true);
            for reason in Discard::ALL {
                model.set_discards(&format!("discards_{}", reason.name()), bridge.discards(reason) as u32);
            }
            expected = expected.or(bridge.receive(LineEvent::Byte(b), &mut model));
        }
        rtl.run_until_quiet(quiet, budget).expect(&context);
        let expected: Answer = expected.expect("the model answers a whole request");
        let bytes: Vec<u8> = rtl
            .decoder
            .bytes
            .drain(..)
            .map(|(b, stop)| {
                assert!(stop, "{context}: a byte with a low stop bit");
                b
            })
            .collect();
        assert_eq!(
            Answer::parse(&bytes, expected.write),
            Ok(expected),
            "{context}: {request:?}, {bytes:02x?}"
        );
        *seen.entry((case, expected.resp)).or_default() += 1;
        if case == Case::Decide {
            let decision = model.decision();
            let leds = rtl.leds();
            let expected_leds = (decision >> 16 & 0x1f) as u8 | ((decision >> 23 & 1) as u8) << 5 | 0x80;
            assert_eq!(leds, expected_leds, "{context}: the LEDs after decision {:#010x}", decision);
            served += (decision >> 23 & 1) as usize;
        }
    }
    // every kind of request, answered as it should be, and decisions that served queues
    for (case, resp) in [
        (Case::QueueWord, 0),
        (Case::Limit, 0),
        (Case::Enqueue, 0),
        (Case::Decide, 0),
        (Case::Read, 0),
        (Case::ReadOnlyWrite, 2),
        (Case::Nothing, 3),
    ] {
        assert!(seen.contains_key(&(case, resp)), "no {case:?} answered {resp} in {seen:?}");
    }
    assert!(served > requests / 20, "{served} decisions served a queue");
    let mut counter = |name: &str| model.read(address(&map, name)).1;
    assert!(
        counter("sched_duplicate") > 0 && counter("sched_bad_queue") > 0,
        "no refused enqueue"
    );
    assert!(counter("serial_unknown_command") > 0, "no garbage counted");
}

#[test]
fn requests_over_the_line_drive_the_scheduler_as_the_model_does() {
    // the smallest divisor, an odd one, and the Alchitry Cu's (100 MHz at 1 Mbaud) for a few
    run(4, 1, 600);
    run(9, 2, 300);
    run(100, 3, 40);
}
