//! The buffer against a queue in rust-hdl's simulator: random pushes (while `room`), pops
//! (while `head_valid`) and resets, filled to its limit; `whole` checked against the
//! queue's last beats. The generator's co-simulation runs its Verilog in Verilator.
use ferroce_hdl::tx::payload_buffer::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;
use std::collections::VecDeque;

#[test]
fn address_bits_hold_two_payloads() {
    assert_eq!(address_bits(8), 10);
    assert_eq!(address_bits(64), 7);
    assert_eq!(address_bits(128), 6);
}

#[test]
fn matches_a_queue() {
    let mut uut = PayloadBuffer::<64, 8>::default();
    uut.connect_all();
    let capacity = 1usize << address_bits(8);
    let cycles = 30_000u64;
    let mut sim = Simulation::new();
    sim.add_testbench(move |mut sim: Sim<PayloadBuffer<64, 8>>| {
        let mut x = sim.init()?;
        let rng = &mut ChaCha8Rng::seed_from_u64(7);
        // value, last, the edge that wrote it
        let mut queue: VecDeque<(u64, bool, u64)> = VecDeque::new();
        let mut most = 0;
        for edge in 0..cycles {
            // outputs after the previous edge
            let (head_valid, head, last, whole) = (x.head_valid.val(), x.head_data.val().to_u64(), x.head_last.val(), x.whole.val());
            if edge > 0 {
                let shown = queue.front().is_some_and(|e| e.2 + 1 < edge);
                assert_eq!(head_valid, shown, "head_valid at edge {edge}");
                if head_valid {
                    assert_eq!((head, last), (queue[0].0, queue[0].1), "head at edge {edge}");
                }
                // whole: some last beat is stored, and every last beat written two edges
                // ago or earlier counts
                assert!(!whole || queue.iter().any(|e| e.1), "edge {edge}: whole without a last beat");
                assert!(
                    whole || !queue.iter().any(|e| e.1 && e.2 + 2 <= edge),
                    "edge {edge}: a stored last beat not counted"
                );
            }
            most = most.max(queue.len());
            // phases: filling, draining, mixed
            let phase = (edge / 3000) % 3;
            let reset = rng.gen_ratio(1, 4000);
            let pop = head_valid && rng.gen_bool(if phase == 0 { 0.2 } else { 0.7 });
            let push = (x.room.val() && rng.gen_bool(if phase == 1 { 0.2 } else { 0.8 })).then(|| (rng.gen::<u64>(), rng.gen_bool(0.05)));
            x.reset.next = reset;
            x.push.next = push.is_some();
            x.push_data.next = push.map_or(0, |p| p.0).into();
            x.push_last.next = push.is_some_and(|p| p.1);
            x.pop.next = pop;
            // the edge
            if reset {
                queue.clear();
            } else {
                if pop {
                    queue.pop_front();
                }
                if let Some((value, last)) = push {
                    queue.push_back((value, last, edge));
                }
            }
            assert!(queue.len() <= capacity, "edge {edge}: {} beats in {capacity}", queue.len());
            x = sim.wait(1, x)?;
            x.clock.next = true.into();
            x = sim.wait(1, x)?;
            x.clock.next = false.into();
        }
        assert!(most + 3 >= capacity, "filled to {most} of {capacity}");
        sim.done(x)
    });
    sim.run(Box::new(uut), 4 * cycles + 10).unwrap();
}
