//! The stream port's Verilog (`ferroce_stream_port_w64`, `_w512`) against its model
//! (`ferroce_models::stream::StreamPortModel`): messages cut at the slot size or at `tlast`,
//! their sequence numbers, slots, immediates (both formats, lengths in the low bits) and
//! solicited bits, their bytes read back from the buffer while the port goes on writing;
//! drops for partial beats and for want of room; commands and their refusals.

use ferroce_sim::models::contracts::stream::{check_settings, StreamCommand, StreamRefusal};
use ferroce_sim::stream_port_rtl::{compare, model_events, run, script, Beat, Options, PortSettings, Step, VARIANTS};
use ferroce_sim::verilated::Traffic;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn settings(slot_bytes: u32, slots: u32) -> PortSettings {
    PortSettings {
        slot_bytes,
        slots,
        slot_and_wrap: false,
        end_at_tlast: false,
        length_bits: 0,
        drop_on_overflow: false,
        solicited_every: 0,
    }
}

/// Whole beats of a counting pattern, `count` of them.
fn whole_beats(lanes: usize, count: usize, seed: u8) -> Vec<Beat> {
    (0..count)
        .map(|i| Beat {
            bytes: (0..lanes)
                .map(|j| seed.wrapping_add((i * lanes + j) as u8).wrapping_mul(7))
                .collect(),
            last: false,
        })
        .collect()
}

fn check(variant: &str, settings: &PortSettings, beats: &[Beat], options: Options) -> ferroce_sim::stream_port_rtl::PortRun {
    let got = run(variant, settings, beats, options).unwrap_or_else(|e| panic!("{variant}: {e}"));
    let events = model_events(variant, settings, beats);
    compare(&got, &events, settings).unwrap_or_else(|e| panic!("{variant} {options:?}: {e}"));
    got
}

#[test]
fn slot_messages_are_the_models_four_ways_at_both_widths() {
    for (variant, lanes, _) in VARIANTS {
        let slot = 4 * lanes as u32;
        let settings = PortSettings {
            solicited_every: 3,
            ..settings(slot, 5)
        };
        let beats = whole_beats(lanes, 4 * 24, 3);
        for traffic in Traffic::four_ways(11) {
            let got = check(
                variant,
                &settings,
                &beats,
                Options {
                    traffic,
                    release_delay: 40,
                    hold_releases: false,
                },
            );
            assert_eq!(got.messages.len(), 24, "{variant} {traffic:?}");
            assert_eq!(got.messages.last().map(|m| (m.slot, m.solicited)), Some((3, true)));
        }
    }
}

/// Back to back through the buffer's ring more than twice: every record's buffer beat an entry
/// of the buffer (the runner checks it), a beat a cycle.
#[test]
fn back_to_back_beats_take_one_cycle_each_and_one_per_message() {
    for (variant, lanes, buffer_beats) in VARIANTS {
        let messages = 2 * buffer_beats as usize / 8 + 4;
        let beats = whole_beats(lanes, 8 * messages, 9);
        let got = check(
            variant,
            &settings(8 * lanes as u32, 4),
            &beats,
            Options {
                traffic: Traffic::FULL,
                release_delay: 0,
                hold_releases: false,
            },
        );
        assert_eq!(got.messages.len(), messages);
        // a beat a cycle, and one cycle between messages
        println!("{variant}: {messages} messages of 8 beats taken in {} cycles", got.beat_cycles);
        assert_eq!(got.beat_cycles, messages as u64 * 9 - 1, "{variant}");
    }
}

/// Random messages ended by `tlast` (short last beats, now and then an empty `tlast` beat or a
/// partial beat in the middle), the immediate `{wraps, slot}` with the length below it.
fn tlast_beats(lanes: usize, slot_beats: usize, messages: usize, rng: &mut ChaCha8Rng) -> Vec<Beat> {
    let mut beats = Vec::new();
    let mut value = 0u8;
    let mut bytes = |n: usize| -> Vec<u8> {
        (0..n)
            .map(|_| {
                value = value.wrapping_add(13);
                value
            })
            .collect()
    };
    for _ in 0..messages {
        let whole = rng.gen_range(0..slot_beats + 2);
        for _ in 0..whole {
            beats.push(Beat {
                bytes: bytes(lanes),
                last: false,
            });
        }
        match rng.gen_range(0..10) {
            0 => beats.push(Beat { bytes: vec![], last: true }),
            1 => beats.push(Beat {
                bytes: bytes(rng.gen_range(1..lanes)),
                last: false,
            }),
            _ => beats.push(Beat {
                bytes: bytes(rng.gen_range(1..=lanes)),
                last: true,
            }),
        }
    }
    beats
}

#[test]
fn tlast_messages_slot_and_wrap_immediates_and_partial_beat_drops() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for (variant, lanes, _) in VARIANTS {
        let slot_beats = 6;
        let settings = PortSettings {
            slot_and_wrap: true,
            end_at_tlast: true,
            length_bits: 12,
            solicited_every: 2,
            ..settings((slot_beats * lanes) as u32, 5)
        };
        let beats = tlast_beats(lanes, slot_beats, 60, &mut rng);
        let events = model_events(variant, &settings, &beats);
        assert!(events
            .iter()
            .any(|e| matches!(e, ferroce_sim::models::stream::PortEvent::Dropped { .. })));
        for traffic in Traffic::four_ways(21) {
            check(
                variant,
                &settings,
                &beats,
                Options {
                    traffic,
                    release_delay: 20,
                    hold_releases: false,
                },
            );
        }
    }
}

#[test]
fn a_full_buffer_holds_tready_low_and_drops_nothing() {
    for (variant, lanes, buffer_beats) in VARIANTS {
        // slots of a quarter of the buffer: four fit (the room is exact once the count settles)
        let slot_beats = buffer_beats as usize / 4;
        let beats = whole_beats(lanes, slot_beats * 6, 1);
        let got = check(
            variant,
            &settings((slot_beats * lanes) as u32, 8),
            &beats,
            Options {
                traffic: Traffic::FULL,
                release_delay: 0,
                hold_releases: true,
            },
        );
        assert_eq!(got.messages.len(), 4, "{variant}");
        assert_eq!(got.beats_not_taken, slot_beats * 2, "{variant}: the fifth message waits");
        assert_eq!(got.dropped_overflow, 0);
    }
}

#[test]
fn a_full_buffer_drops_whole_messages_with_drop_on_overflow() {
    for (variant, lanes, buffer_beats) in VARIANTS {
        let slot_beats = buffer_beats as usize / 4;
        let settings = PortSettings {
            drop_on_overflow: true,
            ..settings((slot_beats * lanes) as u32, 8)
        };
        let beats = whole_beats(lanes, slot_beats * 6, 2);
        let got = check(
            variant,
            &settings,
            &beats,
            Options {
                traffic: Traffic::FULL,
                release_delay: 0,
                hold_releases: true,
            },
        );
        assert_eq!(
            got.messages.iter().map(|m| m.sequence).collect::<Vec<_>>(),
            [0, 1, 2, 3],
            "{variant}"
        );
        assert_eq!(got.dropped_overflow, 2, "{variant}");
        assert_eq!(got.beats_not_taken, 0);
    }
}

#[test]
fn commands_are_refused_with_their_reason_and_a_stop_ends_the_message_first() {
    for (variant, lanes, buffer_beats) in VARIANTS {
        let good = settings(2 * lanes as u32, 4);
        let with = |s: PortSettings| Step::Command(StreamCommand::Configure as u64, s.encode());
        let start = Step::Command(StreamCommand::Start as u64, vec![]);
        let stop = Step::Command(StreamCommand::Stop as u64, vec![]);
        let bad = [
            (settings(lanes as u32 + 4, 4), StreamRefusal::SlotNotMultipleOfBeat),
            (settings(0, 4), StreamRefusal::SlotNotMultipleOfBeat),
            (settings((buffer_beats / 2 + 1) * lanes as u32, 4), StreamRefusal::SlotTooLarge),
            (
                PortSettings {
                    end_at_tlast: true,
                    length_bits: 3,
                    ..settings(16 * lanes as u32, 4)
                },
                StreamRefusal::LengthBitsTooFew,
            ),
            (
                PortSettings {
                    end_at_tlast: true,
                    length_bits: 33,
                    ..good
                },
                StreamRefusal::LengthBitsTooFew,
            ),
        ];
        let mut steps = vec![start.clone()];
        let mut want = vec![u64::from(StreamRefusal::NotConfigured.code())];
        for (s, refusal) in bad {
            let rule = check_settings(s.slot_bytes, s.end_at_tlast, s.length_bits, lanes as u32, buffer_beats);
            assert_eq!(rule, Some(refusal), "the contract's check agrees");
            steps.push(with(s));
            want.push(u64::from(refusal.code()));
        }
        steps.push(Step::Command(7, vec![]));
        want.push(u64::from(StreamRefusal::UnknownCommand.code()));
        // configured, started, half a message, a stop: it runs until the message ends
        let beat = whole_beats(lanes, 1, 0).remove(0);
        steps.extend([with(good), start, Step::Beat(beat.clone()), stop, Step::Running]);
        want.extend([0, 0, 1, 0, 1]);
        steps.extend([with(good), Step::Beat(beat.clone()), Step::Running, with(good)]);
        want.extend([u64::from(StreamRefusal::Running.code()), 1, 0, 0]);
        let got = script(variant, &steps).unwrap_or_else(|e| panic!("{variant}: {e}"));
        assert_eq!(got, want, "{variant}");
    }
}
