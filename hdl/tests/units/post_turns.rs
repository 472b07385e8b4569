//! `PostTurns` in rust-hdl's simulator: nine posters offering posts at random, a TX path that
//! takes the held post when it is ready and answers each post in order one to three cycles
//! later. Every post leaves once, in its poster's order, with its entry; every result reaches
//! the poster of its post, with its code, a cycle after the TX path gives it. (The stream
//! set's co-simulation runs the emitted Verilog.)
//! No poster waits while more than one post of each other poster is taken (round robin).
use ferroce_hdl::stream::turns::{PostTurns, POSTERS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;
use std::collections::VecDeque;

/// Posters in the test (the stream set's eight streams and the host).
const USED: usize = 9;
const _: () = assert!(USED <= POSTERS);

/// The entry of post `serial` of `poster`: both in its low bits, so a post is known by its entry.
fn entry(poster: usize, serial: u64) -> u64 {
    (serial << 8) | poster as u64
}

#[test]
fn posts_leave_once_in_order_and_results_go_back_to_their_posters() {
    run(false);
}

#[test]
fn no_poster_waits_longer_than_a_round() {
    run(true);
}

/// Runs the test; with `rounds`, also checks that no poster waits longer than a round.
fn run(rounds: bool) {
    let cycles = 20_000u64;
    let mut uut = PostTurns::default();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_testbench(move |mut sim: Sim<PostTurns>| {
        let mut x = sim.init()?;
        let mut rng = ChaCha8Rng::seed_from_u64(58);
        // per poster: offering its next post (since the take count then), posts taken, results received
        let mut offering: [Option<u64>; USED] = [None; USED];
        let mut taken = [0u64; USED];
        let mut answered = [0u64; USED];
        let mut takes = 0u64;
        let mut longest = 0u64;
        // posts the TX path took, not answered yet (poster); answers due (cycle, code)
        let mut in_flight: VecDeque<usize> = VecDeque::new();
        let mut answers: VecDeque<(u64, u64)> = VecDeque::new();
        // the result the outputs must show after the next edge: (poster, code)
        let mut expected: Option<(usize, u64)> = None;
        let mut left_tx = [0u64; USED];
        x.reset.next = true;
        x = sim.wait(1, x)?;
        x.clock.next = true.into();
        x = sim.wait(1, x)?;
        x.clock.next = false.into();
        x.reset.next = false;
        for edge in 0..cycles {
            // registered outputs after the last edge: the result of the answer given before it
            let shown = x.result_valid.val().to_u64();
            match expected.take() {
                Some((poster, code)) => {
                    assert_eq!(shown, 1 << poster, "edge {edge}: the result goes to poster {poster}");
                    assert_eq!(x.result_code.val().to_u64(), code, "edge {edge}: the result's code");
                    answered[poster] += 1;
                }
                None => assert_eq!(shown, 0, "edge {edge}: a result nobody was given"),
            }
            // the posters offer (an offer stays until it is taken); the chosen one's entry
            let busy_phase = (edge / 1000) % 2 == 0;
            for offer in offering.iter_mut() {
                if offer.is_none() && rng.gen_bool(if busy_phase { 0.9 } else { 0.1 }) {
                    *offer = Some(takes);
                }
            }
            let requests = (0..USED).fold(0u64, |m, p| m | (u64::from(offering[p].is_some()) << p));
            let chosen = x.chosen.val().to_u64();
            assert!(chosen.count_ones() <= 1, "edge {edge}: one poster chosen at most");
            let chosen_poster = (chosen != 0).then(|| chosen.trailing_zeros() as usize);
            let offered_entry = chosen_poster
                .filter(|&p| p < USED && offering[p].is_some())
                .map_or(0, |p| entry(p, taken[p]));
            let ready = rng.gen_bool(0.6);
            let answer = answers.front().filter(|a| a.0 <= edge).copied();
            x.requests.next = requests.into();
            x.chosen_entry.next = offered_entry.into();
            x.m_post_ready.next = ready;
            x.m_post_result_valid.next = answer.is_some();
            x.m_post_result_code.next = answer.map_or(0, |a| a.1).into();
            x = sim.wait(1, x)?;
            // this cycle: a post taken from its poster, the held post taken by the TX path
            if x.load.val() {
                let poster = chosen_poster.expect("a post taken with a poster chosen");
                let since = offering[poster].take().expect("the poster taken offers a post");
                assert!(
                    !rounds || takes - since <= USED as u64,
                    "edge {edge}: poster {poster} waited through {} takes",
                    takes - since
                );
                longest = longest.max(takes - since);
                taken[poster] += 1;
                takes += 1;
            }
            if x.m_post_valid.val() && ready {
                let held = x.m_post_entry.val().get_bits::<64>(0).to_u64();
                let poster = (held & 0xFF) as usize;
                assert!(poster < USED, "edge {edge}: an entry of no poster ({held:#x})");
                assert_eq!(
                    held >> 8,
                    left_tx[poster],
                    "edge {edge}: poster {poster}'s posts in order, each once"
                );
                left_tx[poster] += 1;
                in_flight.push_back(poster);
                answers.push_back((edge + rng.gen_range(1..4), rng.gen_range(0..8)));
            }
            if let Some((_, code)) = answer {
                answers.pop_front();
                let poster = in_flight.pop_front().expect("an answer for a post the TX path took");
                expected = Some((poster, code));
            }
            x.clock.next = true.into();
            x = sim.wait(1, x)?;
            x.clock.next = false.into();
        }
        eprintln!("posts taken per poster {taken:?}; the longest wait {longest} takes");
        let total: u64 = taken.iter().sum();
        assert!(total > 5_000, "posts taken: {total}");
        assert!(taken.iter().all(|&n| n > 300), "every poster served: {taken:?}");
        assert!(
            answered.iter().zip(&left_tx).all(|(a, l)| l - a <= 4),
            "answered {answered:?} of {left_tx:?}"
        );
        sim.done(x)
    });
    sim.run(Box::new(uut), 4 * cycles + 20).unwrap();
}
