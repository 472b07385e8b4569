use ferroce_hdl::common::wide::*;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;

macro_rules! tick {
    ($sim:ident, $x:ident) => {{
        $x = $sim.wait(1, $x)?;
        $x.clock.next = true.into();
        $x = $sim.wait(1, $x)?;
        $x.clock.next = false.into();
    }};
}

/// An adder takes operands `a` and `b` in one cycle.
macro_rules! load {
    ($sim:ident, $x:ident, $a:expr, $b:expr) => {{
        $x.a.next = $a.to_bits();
        $x.b.next = $b.to_bits();
        $x.load.next = true;
        tick!($sim, $x);
        $x.load.next = false;
    }};
}

/// Random operands, carries across every piece boundary included.
fn operands(rng: &mut rand::rngs::StdRng) -> (u64, u64) {
    match rng.gen_range(0..4) {
        0 => (rng.gen(), rng.gen()),
        1 => (u64::MAX - rng.gen_range(0..3), rng.gen_range(0..3)),
        2 => {
            let a: u64 = rng.gen();
            (a, a ^ (1 << rng.gen_range(0..64)))
        }
        _ => {
            let a: u64 = rng.gen();
            (a, a)
        }
    }
}

#[test]
fn piece_adder_adds_64_bits_in_four_steps() {
    let mut uut = PieceAdder::default();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_testbench(move |mut sim: Sim<PieceAdder>| {
        let mut x = sim.init()?;
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for _ in 0..500 {
            let (a, b) = operands(&mut rng);
            load!(sim, x, a, b);
            for _ in 0..4 {
                x.step.next = true;
                tick!(sim, x);
                x.step.next = false;
                // idle cycles between steps change nothing
                if rng.gen_bool(0.3) {
                    tick!(sim, x);
                }
            }
            let (sum, carry) = a.overflowing_add(b);
            sim_assert_eq!(sim, x.sum.val().to_u64(), sum, x);
            sim_assert_eq!(sim, x.carry.val(), carry, x);
        }
        sim.done(x)
    });
    sim.run(Box::new(uut), 100_000).unwrap();
}

#[test]
fn select_adder_adds_64_bits_in_two_stages() {
    let mut uut = SelectAdder::default();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_testbench(move |mut sim: Sim<SelectAdder>| {
        let mut x = sim.init()?;
        let mut rng = rand::rngs::StdRng::seed_from_u64(13);
        for _ in 0..500 {
            let (a, b) = operands(&mut rng);
            load!(sim, x, a, b);
            // other operands on the inputs after the load change nothing
            x.a.next = rng.gen::<u64>().to_bits();
            tick!(sim, x);
            tick!(sim, x);
            let (sum, carry) = a.overflowing_add(b);
            sim_assert_eq!(sim, x.sum.val().to_u64(), sum, x);
            sim_assert_eq!(sim, x.carry.val(), carry, x);
            // and the sum stays until the next load
            if rng.gen_bool(0.3) {
                tick!(sim, x);
                sim_assert_eq!(sim, x.sum.val().to_u64(), sum, x);
            }
        }
        sim.done(x)
    });
    sim.run(Box::new(uut), 100_000).unwrap();
}

#[test]
fn wide_compare_orders_64_bit_values() {
    let mut uut = WideCompare::default();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_testbench(move |mut sim: Sim<WideCompare>| {
        let mut x = sim.init()?;
        let mut rng = rand::rngs::StdRng::seed_from_u64(12);
        for _ in 0..500 {
            let (mut a, mut b) = operands(&mut rng);
            if rng.gen() {
                std::mem::swap(&mut a, &mut b);
            }
            x.a.next = a.to_bits();
            x.b.next = b.to_bits();
            tick!(sim, x);
            sim_assert_eq!(sim, x.greater.val(), a > b, x);
            sim_assert_eq!(sim, x.equal.val(), a == b, x);
        }
        sim.done(x)
    });
    sim.run(Box::new(uut), 100_000).unwrap();
}
