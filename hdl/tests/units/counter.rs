use ferroce_hdl::common::counter::*;
use rust_hdl::prelude::*;

/// Across the carry from the low half into the high half, from a preset value, with idle
/// cycles and a reset; `count` is always the number of events so far.
#[test]
fn counts_across_the_half_carry() {
    let mut uut = EventCounter::default();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_testbench(move |mut sim: Sim<EventCounter>| {
        let mut x = sim.init()?;
        let mut expected: u64 = 0;
        for cycle in 0..200_000u64 {
            assert_eq!(x.count.val().to_u64(), expected & 0xFFFF_FFFF, "cycle {cycle}");
            let reset = cycle == 150_000;
            let event = cycle % 7 != 3;
            x.reset.next = reset;
            x.increment.next = event;
            if reset {
                expected = 0;
            } else if event {
                expected += 1;
            }
            x = sim.wait(1, x)?;
            x.clock.next = true.into();
            x = sim.wait(1, x)?;
            x.clock.next = false.into();
        }
        assert!(expected > 0);
        sim.done(x)
    });
    sim.run(Box::new(uut), 1_000_000).unwrap();
}
