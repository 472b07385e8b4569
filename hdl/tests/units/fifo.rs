//! Both FIFOs against a queue, in rust-hdl's simulator, under random pushes, pops and
//! resets, filled to capacity (`RxFront` never fills them; its co-simulation runs the
//! emitted Verilog of both in Verilator).
use ferroce_hdl::common::fifo::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;
use std::collections::VecDeque;

/// An entry in the reference queue: its value and the clock edge that wrote it.
struct Entry {
    value: u64,
    written_at: u64,
}

/// The entries a thermometer fill level stands for; panics if it is not a thermometer code.
fn level(fill: u64) -> u64 {
    assert_eq!(fill & (fill + 1), 0, "fill {fill:#x} is not a thermometer code");
    u64::from(fill.count_ones())
}

/// The registered outputs and the inputs of one cycle of a FIFO under test.
trait UnderTest: Block {
    /// Bits of a value.
    const VALUE_MASK: u64;
    fn outputs(&self) -> (bool, u64, u64);
    fn drive(&mut self, reset: bool, push: Option<u64>, pop: bool);
    fn set_clock(&mut self, high: bool);
}

impl UnderTest for Fifo<Bits<16>> {
    const VALUE_MASK: u64 = 0xFFFF;
    fn outputs(&self) -> (bool, u64, u64) {
        (self.head_valid.val(), self.head.val().to_u64(), level(self.fill.val().to_u64()))
    }
    fn drive(&mut self, reset: bool, push: Option<u64>, pop: bool) {
        self.reset.next = reset;
        self.push.next = push.is_some();
        self.push_value.next = push.unwrap_or(0).into();
        self.pop.next = pop;
    }
    fn set_clock(&mut self, high: bool) {
        self.clock.next = high.into();
    }
}

/// The value of a beat is its data; keep, last and bytes are derived from it, so a beat
/// whose fields came from different entries is caught.
macro_rules! beat_fifo_under_test {
    ($fifo:ty) => {
        impl UnderTest for $fifo {
            const VALUE_MASK: u64 = 0xFF_FFFF;
            fn outputs(&self) -> (bool, u64, u64) {
                let data = self.head_data.val().to_u64();
                let consistent = self.head_keep.val().to_u64() == data & 0xFF
                    && self.head_last.val() == (data & 0x100 != 0)
                    && self.head_bytes.val().to_u64() == (data >> 16) & 0xFF;
                assert!(!self.head_valid.val() || consistent, "head fields of different beats");
                (self.head_valid.val(), data, level(self.fill.val().to_u64()))
            }
            fn drive(&mut self, reset: bool, push: Option<u64>, pop: bool) {
                let data = push.unwrap_or(0);
                self.reset.next = reset;
                self.push.next = push.is_some();
                self.push_data.next = data.into();
                self.push_keep.next = (data & 0xFF).into();
                self.push_last.next = data & 0x100 != 0;
                self.push_bytes.next = ((data >> 16) & 0xFF).into();
                self.pop.next = pop;
            }
            fn set_clock(&mut self, high: bool) {
                self.clock.next = high.into();
            }
        }
    };
}
beat_fifo_under_test!(BeatFifo<64, 8>);
beat_fifo_under_test!(LutHeadBeatFifo<64, 8>);

fn run<T: UnderTest + Default + Send + 'static>(seed: u64, cycles: u64) {
    let mut uut = T::default();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_testbench(move |mut sim: Sim<T>| {
        let mut x = sim.init()?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut queue: VecDeque<Entry> = VecDeque::new();
        let mut peak = 0;
        for edge in 0..cycles {
            // outputs after the previous edge
            let (head_valid, head, count) = x.outputs();
            if edge > 0 {
                assert_eq!(count, queue.len() as u64, "fill level at edge {edge}");
                let shown = queue.front().is_some_and(|e| e.written_at + 1 < edge);
                assert_eq!(head_valid, shown, "head_valid at edge {edge}");
                if head_valid {
                    assert_eq!(head, queue[0].value, "head at edge {edge}");
                }
            }
            peak = peak.max(queue.len());
            // inputs of this cycle; phases of filling and of draining
            let filling = (edge / 200) % 2 == 0;
            let reset = rng.gen_ratio(1, 500);
            let pop = head_valid && rng.gen_bool(if filling { 0.3 } else { 0.8 });
            let push = (count < CAPACITY as u64 && rng.gen_bool(if filling { 0.8 } else { 0.3 })).then(|| rng.gen::<u64>() & T::VALUE_MASK);
            x.drive(reset, push, pop);
            // the edge
            if reset {
                queue.clear();
            } else {
                if pop {
                    queue.pop_front();
                }
                if let Some(value) = push {
                    queue.push_back(Entry { value, written_at: edge });
                }
            }
            x = sim.wait(1, x)?;
            x.set_clock(true);
            x = sim.wait(1, x)?;
            x.set_clock(false);
        }
        assert_eq!(peak, CAPACITY, "the test filled the FIFO");
        sim.done(x)
    });
    sim.run(Box::new(uut), 4 * cycles + 10).unwrap();
}

#[test]
fn fifo_matches_a_queue() {
    run::<Fifo<Bits<16>>>(1, 20_000);
}

#[test]
fn beat_fifo_matches_a_queue() {
    run::<BeatFifo<64, 8>>(2, 20_000);
}

#[test]
fn lut_head_beat_fifo_matches_a_queue() {
    run::<LutHeadBeatFifo<64, 8>>(3, 20_000);
}
