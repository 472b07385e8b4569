//! The serial bridge's Verilog in Verilator against its model (`ferroce_models::serial`): random
//! requests with random gaps between their bytes, garbage, framing errors, requests cut short
//! by silence and bytes sent over an answer, at several baud divisors, with a slave that stalls
//! and answers late (and with errors). Every request is executed once, in order, with all four
//! strobes; every answer and every discard counter is the model's.

use ferroce_contracts::serial::{Answer, Discard, Request, BIT_TIMES_PER_BYTE, READ, WRITE};
use ferroce_models::serial::{BridgeModel, LineEvent, RegisterTarget};
use ferroce_sim::serial_rtl::{settle_cycles, Access, SerialBridgeRtl};
use ferroce_sim::serve::Served;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

/// A memory of words; a write to a word whose address ends in 0xF0..0xFC is refused (SLVERR),
/// nothing answers above 2 GiB (DECERR).
#[derive(Default, Clone)]
struct Memory {
    words: HashMap<u32, u32>,
    log: Vec<Access>,
}

impl Memory {
    fn resp(address: u32, write: bool) -> u8 {
        if address >= 0x8000_0000 {
            3
        } else if write && address & 0xF0 == 0xF0 {
            2
        } else {
            0
        }
    }
}

impl RegisterTarget for Memory {
    fn read(&mut self, address: u32) -> (u8, u32) {
        let resp = Memory::resp(address, false);
        let data = self.words.get(&address).copied().unwrap_or(!address);
        self.log.push(Access {
            write: false,
            address,
            data,
            strobes: 0,
            resp,
        });
        (resp, data)
    }

    fn write(&mut self, address: u32, data: u32) -> u8 {
        let resp = Memory::resp(address, true);
        if resp == 0 {
            self.words.insert(address, data);
        }
        self.log.push(Access {
            write: true,
            address,
            data,
            strobes: 0xF,
            resp,
        });
        resp
    }
}

impl Served for Memory {
    fn read(&mut self, address: u32) -> Result<(u8, u32), String> {
        Ok(RegisterTarget::read(self, address))
    }

    fn write(&mut self, address: u32, data: u32, strobes: u8) -> Result<u8, String> {
        assert_eq!(strobes, 0xF, "the bridge writes whole words");
        Ok(RegisterTarget::write(self, address, data))
    }

    fn step(&mut self) -> Result<(), String> {
        Ok(())
    }
}

fn random_request(rng: &mut ChaCha8Rng) -> Request {
    let address = match rng.gen_range(0..10) {
        0 => 0x8000_0000 | rng.gen::<u32>() & !3,
        1 => 0xF0 | rng.gen_range(0..4) << 2,
        _ => rng.gen_range(0..32u32) << 2,
    };
    if rng.gen() {
        Request::Write { address, data: rng.gen() }
    } else {
        Request::Read { address }
    }
}

/// The bytes decoded from the bridge since the last call (every stop bit must be high).
fn answer_bytes(rtl: &mut SerialBridgeRtl) -> Vec<u8> {
    rtl.decoder
        .bytes
        .drain(..)
        .map(|(b, stop)| {
            assert!(stop, "a byte from the bridge with a low stop bit");
            b
        })
        .collect()
}

fn run(clocks_per_bit: u32, seed: u64, events: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut rtl = SerialBridgeRtl::new(clocks_per_bit, seed).expect("model");
    rtl.stall_pct = 30;
    rtl.max_latency = u64::from(2 * clocks_per_bit);
    let (mut model, mut model_memory, mut rtl_memory) = (BridgeModel::new(), Memory::default(), Memory::default());
    let byte_time = u64::from(BIT_TIMES_PER_BYTE * clocks_per_bit);
    let quiet = 2 * byte_time;
    let budget = 200 * byte_time;
    let mut answers = 0;
    for event in 0..events {
        let context = format!("cpb {clocks_per_bit}, seed {seed}, event {event}");
        match rng.gen_range(0..10) {
            // a request, its bytes with gaps well under the timeout
            0..=5 => {
                let request = random_request(&mut rng);
                let overrun = matches!(request, Request::Read { .. }) && rng.gen_bool(0.2);
                let mut expected = None;
                for (i, b) in request.emit().into_iter().enumerate() {
                    if i > 0 {
                        rtl.driver.idle(rng.gen_range(0..3 * byte_time));
                    }
                    rtl.driver.send(b, true);
                    expected = expected.or(model.receive(LineEvent::Byte(b), &mut model_memory));
                }
                if overrun {
                    // a byte right behind the read: it arrives while the five answer bytes go out
                    rtl.driver.send(WRITE, true);
                    model.receive(LineEvent::ByteWhileAnswering(WRITE), &mut model_memory);
                }
                rtl.run_until_quiet(&mut rtl_memory, quiet, budget).expect(&context);
                let expected = expected.expect("the model answers a whole request");
                let bytes = answer_bytes(&mut rtl);
                assert_eq!(Answer::parse(&bytes, expected.write), Ok(expected), "{context}: {bytes:02x?}");
                assert_eq!(bytes.len(), Answer::length(expected.write), "{context}");
                answers += 1;
            }
            // garbage where a request would start
            6 => {
                let b = loop {
                    let b: u8 = rng.gen();
                    if b != READ && b != WRITE {
                        break b;
                    }
                };
                rtl.driver.send(b, true);
                model.receive(LineEvent::Byte(b), &mut model_memory);
            }
            // a byte with a low stop bit, in or out of a request
            7 => {
                for b in random_request(&mut rng).emit().into_iter().take(rng.gen_range(0..4)) {
                    rtl.driver.send(b, true);
                    model.receive(LineEvent::Byte(b), &mut model_memory);
                }
                rtl.driver.send(rng.gen(), false);
                model.receive(LineEvent::FramingError, &mut model_memory);
            }
            // a request cut short, then silence
            _ => {
                let bytes = random_request(&mut rng).emit();
                for &b in &bytes[..rng.gen_range(1..bytes.len())] {
                    rtl.driver.send(b, true);
                    model.receive(LineEvent::Byte(b), &mut model_memory);
                }
                rtl.driver.idle(settle_cycles(clocks_per_bit));
                model.receive(LineEvent::Silence, &mut model_memory);
            }
        }
        rtl.run_until_quiet(&mut rtl_memory, quiet, budget).expect(&context);
        assert!(answer_bytes(&mut rtl).is_empty(), "{context}: an answer to no request");
    }
    assert!(answers > events / 3);
    assert_eq!(rtl.accesses, model_memory.log, "accesses, cpb {clocks_per_bit}");
    assert_eq!(rtl_memory.words, model_memory.words);
    let counted = rtl.discards();
    for reason in Discard::ALL {
        assert_eq!(
            counted[reason as usize - 1],
            model.discards(reason),
            "discards_{}, cpb {clocks_per_bit}",
            reason.name()
        );
        assert!(model.discards(reason) > 0, "no {} in the traffic", reason.name());
    }
}

#[test]
fn requests_execute_once_and_everything_else_is_counted() {
    // the smallest divisor, an odd one, and the Alchitry Cu's (100 MHz at 1 Mbaud) for a few events
    run(4, 1, 400);
    run(13, 2, 250);
    run(100, 3, 40);
}

/// Bit times from a request's first start bit to its answer's last stop bit, on a slave that
/// answers at once: the protocol's bytes plus the bridge's few cycles.
#[test]
fn a_register_access_takes_its_bytes_and_a_few_cycles() {
    let clocks_per_bit = 100;
    let mut rtl = SerialBridgeRtl::new(clocks_per_bit, 9).expect("model");
    let mut memory = Memory::default();
    for request in [Request::Read { address: 4 }, Request::Write { address: 4, data: 1 }] {
        let start = rtl.cycle();
        for b in request.emit() {
            rtl.driver.send(b, true);
        }
        while rtl.decoder.bytes.len() < Answer::length(matches!(request, Request::Write { .. })) {
            rtl.step(&mut memory).unwrap();
        }
        let cycles = rtl.cycle() - start;
        let bytes = (request.emit().len() + answer_bytes(&mut rtl).len()) as u64;
        let line = bytes * u64::from(BIT_TIMES_PER_BYTE * clocks_per_bit);
        println!("{request:?}: {cycles} cycles at {clocks_per_bit} clocks per bit ({bytes} bytes on the line: {line} cycles)");
        // the decoder sees the last byte in the middle of its stop bit
        assert!(cycles < line + 2 * u64::from(clocks_per_bit), "{cycles} cycles");
        rtl.run_until_quiet(&mut memory, 1_000, 100_000).unwrap();
    }
}
