//! Co-simulation of the register file (`ferroce_registers_*`) against its model
//! (`ferroce_models::regs::RegsModel`): random transactions under random valid/ready on all five
//! AXI channels, the AXI rules checked on every output every cycle; every register's reset value
//! and access checked from the map; completions at full rate against polls; posting through the
//! transfer table stand-in.

use ferroce_sim::axis::Channel;
use ferroce_sim::contracts::regs::{Config, Kind, Map, PostState, QP_READ_LATENCY};
use ferroce_sim::contracts::responder::{MEMORY_REGION_WORDS, RECEIVE_POST_WORDS};
use ferroce_sim::contracts::tx::{PostError, QpState, POST, QP_CONTEXT};
use ferroce_sim::models::regs::{RegsModel, Resp};
use ferroce_sim::regs_rtl::{model_name, AxiLiteMaster, RegsRtl, Request};
use ferroce_sim::verilated::{Model, SimError};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

const CONFIG: Config = Config::SMALL;

fn port(m: &Model, name: &str) -> usize {
    m.port(name).unwrap()
}

/// The model, reset, with the status table cleared.
fn reset_model() -> Model {
    let mut m = Model::new(&model_name(&CONFIG)).unwrap();
    m.reset(2);
    m.step(u64::from(CONFIG.channels / 32) + 4);
    m
}

/// A random transaction: mostly a register of the map (any element, sometimes one beyond the
/// array's count), sometimes any address of the window.
fn random_request(map: &Map, rng: &mut ChaCha8Rng) -> Request {
    let registers: Vec<_> = map
        .registers()
        .filter(|r| r.kind != Kind::Poll && r.kind != Kind::ChannelStatus)
        .collect();
    let address = if rng.gen_bool(0.1) {
        rng.gen_range(0..1u32 << 19) & !3
    } else {
        let r = registers[rng.gen_range(0..registers.len())];
        let index = if rng.gen_bool(0.05) {
            rng.gen_range(0..r.max_count)
        } else {
            rng.gen_range(0..r.count)
        };
        r.address(index) | rng.gen_range(0..4)
    };
    Request {
        write: rng.gen_bool(0.5),
        address,
        data: rng.gen(),
        strobes: rng.gen_range(0..16),
    }
}

fn run_random(idle_pct: u32, bp_pct: u32, seed: u64) -> Result<(), SimError> {
    let map = Map::new(CONFIG);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut m = reset_model();
    let mut model = RegsModel::new(CONFIG);
    let mut master = AxiLiteMaster::new(&mut m, idle_pct, bp_pct)?;
    // the transfer table never takes a post here: the offer must stay, unchanged
    let mut post = Channel::new(&m, "post", "post_valid", Some("post_ready"), &["post_entry"], 100)?;
    let counters: Vec<(usize, String)> = map
        .of_kind(Kind::Input)
        .iter()
        .map(|r| {
            let port = r.port.clone().unwrap();
            (m.port(&port).unwrap(), port)
        })
        .collect();
    let (qp_index, qp_entry) = (port(&m, "qp_read_index"), port(&m, "qp_read_entry"));
    let (qp_rx_index, qp_rx_entry) = (port(&m, "qp_rx_read_index"), port(&m, "qp_rx_read_entry"));
    let (commit_valid, commit_index) = (port(&m, "qp_commit_valid"), port(&m, "qp_commit_index"));
    let (sched_we, sched_addr, sched_data) = (port(&m, "sched_cfg_we"), port(&m, "sched_cfg_addr"), port(&m, "sched_cfg_wdata"));
    let strobe_ports: Vec<(usize, usize, String)> = map
        .of_kind(Kind::Strobe)
        .iter()
        .map(|r| {
            let name = r.port.clone().unwrap();
            (port(&m, &format!("{name}_valid")), port(&m, &format!("{name}_data")), name)
        })
        .collect();
    let mut strobes = Vec::new();
    // the tables behind the indexed registers (`responder_counter_*`, `qp_status_*`): any
    // values, read by index
    let tables: Vec<(usize, usize, Vec<u32>)> = map
        .of_kind(Kind::Indexed)
        .iter()
        .map(|r| {
            let name = r.port.clone().unwrap();
            let table: Vec<u32> = (0..r.max_count).map(|_| rng.gen()).collect();
            for (i, v) in table.iter().enumerate().take(r.count as usize) {
                model.set_indexed(&name, i as u32, *v);
            }
            (port(&m, &format!("{name}_index")), port(&m, &format!("{name}_value")), table)
        })
        .collect();
    let requests = 1500;
    for _ in 0..requests {
        master.push(random_request(&map, &mut rng));
    }
    // the inputs of this cycle and of the two before
    let mut inputs = VecDeque::from(vec![vec![0u32; counters.len()]; 3]);
    let mut entry_checks: VecDeque<(u64, u32, Vec<u32>)> = VecDeque::new();
    let mut rx_entry_checks: VecDeque<(u64, u32, Vec<u32>)> = VecDeque::new();
    let (mut commits, mut sched_writes) = (Vec::new(), Vec::new());
    let mut cycle = 0u64;
    while master.outstanding() > 0 {
        assert!(cycle < 200 * requests as u64, "register file hung at cycle {cycle}");
        master.drive(&mut m, &mut rng);
        post.drive(&mut m, &mut rng);
        let now: Vec<u32> = counters.iter().map(|_| rng.gen()).collect();
        for (i, (p, _)) in counters.iter().enumerate() {
            m.set_u64(*p, u64::from(now[i]));
        }
        inputs.pop_front();
        inputs.push_back(now);
        let qp = rng.gen_range(0..CONFIG.qps);
        m.set_u64(qp_index, u64::from(qp));
        let rx_qp = rng.gen_range(0..CONFIG.qps);
        m.set_u64(qp_rx_index, u64::from(rx_qp));
        m.eval();
        let indices: Vec<usize> = tables.iter().map(|(index, _, _)| m.peek_u64(*index) as usize).collect();
        let answered = master.answers.len();
        master.sample(&mut m, cycle)?;
        post.sample(&mut m, cycle)?;
        // a read takes its value (registered) two cycles before its response shows: the inputs
        // of that cycle
        for answer in &master.answers[answered..] {
            for (i, (_, name)) in counters.iter().enumerate() {
                model.set_input(name, inputs[0][i]);
            }
            let r = answer.what;
            let (resp, data) = if r.write {
                (model.write(r.address, r.data, r.strobes), 0)
            } else {
                model.read(r.address)
            };
            assert_eq!(
                (answer.resp, answer.data),
                (resp as u8, data),
                "request {} {r:x?} at cycle {}",
                answer.request,
                answer.cycle
            );
        }
        if m.peek_u64(commit_valid) != 0 {
            commits.push(m.peek_u64(commit_index) as u32);
        }
        if m.peek_u64(sched_we) != 0 {
            sched_writes.push((m.peek_u64(sched_addr) as u32, m.peek_u64(sched_data) as u32));
        }
        for (valid, data, name) in &strobe_ports {
            if m.peek_u64(*valid) != 0 {
                strobes.push((name.clone(), m.peek_u64(*data) as u32));
            }
        }
        if let Some((due, qp, expected)) = entry_checks.front() {
            if *due == cycle {
                assert_eq!(&m.peek(qp_entry), expected, "QP {qp} entry at cycle {cycle}");
                entry_checks.pop_front();
            }
        }
        entry_checks.push_back((cycle + QP_READ_LATENCY as u64, qp, model.qp_entry(qp)));
        if let Some((due, qp, expected)) = rx_entry_checks.front() {
            if *due == cycle {
                assert_eq!(&m.peek(qp_rx_entry), expected, "QP {qp} entry on the second port at cycle {cycle}");
                rx_entry_checks.pop_front();
            }
        }
        rx_entry_checks.push_back((cycle + QP_READ_LATENCY as u64, rx_qp, model.qp_entry(rx_qp)));
        m.tick();
        // the tables answer the index of the cycle that ended
        for ((_, value, table), index) in tables.iter().zip(&indices) {
            m.set_u64(*value, u64::from(table[*index]));
        }
        cycle += 1;
    }
    assert_eq!(master.answers.len(), requests);
    assert_eq!(strobes, model.strobes, "strobe writes");
    assert!(!strobes.is_empty(), "the run wrote strobe registers");
    assert_eq!(commits, model.commits, "QP commits");
    assert_eq!(sched_writes, model.sched_writes, "scheduler writes");
    assert!(model.posts.len() <= 1);
    if let Some(p) = model.posts.first() {
        assert_eq!(&m.get(port(&m, "post_entry")), p, "the post offered");
        assert_eq!(m.get_u64(port(&m, "post_valid")), 1);
    }
    let outputs = [
        ("cfg_block_log2", map.reg("block_size").offset),
        ("cfg_read_queue", map.reg("read_response_queue").offset),
        ("cfg_local_ipv4", map.reg("local_ipv4").offset),
    ];
    for (out, address) in outputs {
        assert_eq!(m.get_u64(port(&m, out)) as u32, model.read(address).1, "{out}");
    }
    for (out, prefix, words) in [
        ("region_entry", "region_word", MEMORY_REGION_WORDS),
        ("receive_entry", "receive_word", RECEIVE_POST_WORDS),
    ] {
        let staged: Vec<u32> = (0..words).map(|w| model.read(map.reg(&format!("{prefix}{w}")).offset).1).collect();
        assert_eq!(m.get(port(&m, out)), staged, "{out}");
    }
    Ok(())
}

#[test]
fn random_transactions_match_the_model_under_random_valid_ready() {
    for (k, (idle, bp)) in [(0, 0), (40, 0), (0, 40), (40, 40)].into_iter().enumerate() {
        run_random(idle, bp, 7 + k as u64).unwrap_or_else(|e| panic!("idle {idle}%, backpressure {bp}%: {e}"));
    }
}

#[test]
fn every_register_resets_to_the_map_and_answers_by_its_access() {
    for config in [Config::SMALL, Config::DEFAULT] {
        let mut rtl = RegsRtl::new(config).unwrap();
        let map = rtl.map().clone();
        let elements = |r: &ferroce_sim::contracts::regs::Register| {
            let mut indices: Vec<u32> = (0..r.count.min(3)).collect();
            if r.count > 3 {
                indices.push(r.count - 1);
            }
            indices
        };
        // the stream block is the stream set's: the register file alone answers DECERR there
        for r in map.registers().filter(|r| r.kind.in_stream_set()) {
            assert_eq!(rtl.read(r.address(0)).unwrap().0, Resp::DecErr as u8, "{}", r.name);
        }
        // every register as reset left it, before anything is written
        for r in map.registers().filter(|r| !r.kind.in_stream_set()) {
            for i in elements(r) {
                let (resp, value) = rtl.read(r.address(i)).unwrap();
                assert_eq!(resp, Resp::Okay as u8, "{}[{i}]", r.name);
                if let Some(reset) = r.reset() {
                    assert_eq!(value, reset & r.read_mask(), "{}[{i}] after reset", r.name);
                }
            }
        }
        for r in map.registers().filter(|r| !r.kind.in_stream_set()) {
            let mut indices: Vec<u32> = (0..r.count.min(3)).collect();
            if r.count > 3 {
                indices.push(r.count - 1);
            }
            for i in indices {
                let address = r.address(i);
                let value = rtl.read(address).unwrap().1;
                if !r.writable() {
                    assert_eq!(
                        rtl.write(address, !value, 0xf).unwrap(),
                        Resp::SlvErr as u8,
                        "{}[{i}] is read-only",
                        r.name
                    );
                    if r.kind != Kind::Poll {
                        assert_eq!(rtl.read(address).unwrap().1, value, "{}[{i}] unchanged by a refused write", r.name);
                    }
                } else if r.kind == Kind::Flops || r.kind == Kind::QpContext || r.kind == Kind::QueueConfig {
                    // every writable bit, and only those, can be set
                    let ones = match r.name.as_str() {
                        "block_size" => 16,
                        "read_response_queue" => map.config.queues - 1,
                        _ => u32::MAX,
                    };
                    assert_eq!(rtl.write(address, ones, 0xf).unwrap(), Resp::Okay as u8, "{}[{i}]", r.name);
                    assert_eq!(rtl.read(address).unwrap().1, ones & r.write_mask(), "{}[{i}] writable bits", r.name);
                }
            }
            if r.count < r.max_count {
                assert_eq!(
                    rtl.read(r.address(r.count)).unwrap(),
                    (Resp::DecErr as u8, 0),
                    "{} beyond its count",
                    r.name
                );
            }
        }
        for hole in [0x18, 0xfc, 0x2fc, 0x3fc, 0x4_0054, 0x7_fffc] {
            assert!(map.decode(hole).is_none());
            assert_eq!(rtl.read(hole).unwrap(), (Resp::DecErr as u8, 0), "{hole:#x}");
            assert_eq!(rtl.write(hole, 1, 0xf).unwrap(), Resp::DecErr as u8, "{hole:#x}");
        }
        let block = map.reg("block_size").offset;
        assert_eq!(rtl.write(block, 11, 0xf).unwrap(), Resp::SlvErr as u8, "block size below 4 KiB");
        assert_eq!(rtl.write(block, 21, 0xf).unwrap(), Resp::SlvErr as u8, "block size above 1 MiB");
        assert_eq!(rtl.read(block).unwrap().1, 16, "unchanged by refused writes");
        let queue = map.reg("read_response_queue").offset;
        assert_eq!(
            rtl.write(queue, 0, 0xf).unwrap(),
            Resp::SlvErr as u8,
            "READ responses in the control class"
        );
        let queues = map.config.queues;
        assert_eq!(
            rtl.write(queue, queues, 0xf).unwrap(),
            Resp::SlvErr as u8,
            "READ responses beyond the queues"
        );
        assert_eq!(rtl.read(queue).unwrap().1, queues - 1, "unchanged by refused writes");
    }
}

/// Polls (a group, then `poll_error`) until `done` says stop, then one sweep of every group;
/// completions are offered one per cycle meanwhile. Returns, per channel, the error bits
/// reported, and the cycles `cpl_ready` held a completion back.
struct PollRun<'a> {
    m: &'a mut Model,
    master: AxiLiteMaster,
    rng: ChaCha8Rng,
    cycle: u64,
    stalls: u64,
    host_ops: u64,
}

impl PollRun<'_> {
    fn round(&mut self, map: &Map, mut completions: VecDeque<(u32, u32)>) -> Vec<Vec<u32>> {
        let (valid, ready, channel, status) = (
            port(self.m, "cpl_valid"),
            port(self.m, "cpl_ready"),
            port(self.m, "cpl_channel"),
            port(self.m, "cpl_status"),
        );
        let poll = map.reg("poll");
        let poll_error = map.reg("poll_error").offset;
        let groups = CONFIG.channels / 32;
        let mut reported = vec![Vec::new(); CONFIG.channels as usize];
        let mut pending_poll: VecDeque<u32> = VecDeque::new();
        let mut finished_by_group = vec![0u32; groups as usize];
        let mut sweep: Option<u32> = None;
        let start = self.cycle;
        while !completions.is_empty() || self.master.outstanding() > 0 || sweep.is_none_or(|g| g < groups) {
            assert!(self.cycle - start < 50_000, "hung: {} completions left", completions.len());
            if completions.is_empty() && self.master.outstanding() == 0 && sweep.is_none() {
                sweep = Some(0);
            }
            let polling = if sweep.is_some() {
                sweep.is_some_and(|g| g < groups)
            } else {
                !completions.is_empty()
            };
            if self.master.outstanding() < 2 && polling {
                let g = match sweep.as_mut() {
                    Some(next) => {
                        *next += 1;
                        *next - 1
                    }
                    None => self.rng.gen_range(0..groups),
                };
                for address in [poll.address(g), poll_error] {
                    self.master.push(Request {
                        write: false,
                        address,
                        data: 0,
                        strobes: 0,
                    });
                }
                pending_poll.push_back(g);
                self.host_ops += 1;
            }
            self.master.drive(self.m, &mut self.rng);
            let head = completions.front().copied();
            self.m.set_u64(valid, u64::from(head.is_some()));
            self.m.set_u64(channel, u64::from(head.map_or(0, |h| h.0)));
            self.m.set_u64(status, u64::from(head.map_or(0, |h| h.1)));
            self.m.eval();
            if head.is_some() {
                if self.m.peek_u64(ready) != 0 {
                    completions.pop_front();
                } else {
                    self.stalls += 1;
                }
            }
            let answered = self.master.answers.len();
            self.master.sample(self.m, self.cycle).unwrap();
            for a in self.master.answers[answered..].iter().copied() {
                if a.what.address == poll_error {
                    let g = pending_poll.pop_front().unwrap();
                    let finished = std::mem::take(&mut finished_by_group[g as usize]);
                    assert_eq!(a.data & !finished, 0, "errors only for finished channels");
                    for i in (0..32).filter(|i| finished >> i & 1 == 1) {
                        reported[(g * 32 + i) as usize].push(a.data >> i & 1);
                    }
                } else {
                    finished_by_group[((a.what.address - poll.offset) / 4) as usize] = a.data;
                }
            }
            self.m.tick();
            self.cycle += 1;
        }
        reported
    }
}

#[test]
fn completions_at_full_rate_are_each_polled_once() {
    let map = Map::new(CONFIG);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut m = reset_model();
    let master = AxiLiteMaster::new(&mut m, 20, 20).unwrap();
    let mut run = PollRun {
        m: &mut m,
        master,
        rng: ChaCha8Rng::seed_from_u64(4),
        cycle: 0,
        stalls: 0,
        host_ops: 0,
    };
    // rounds in which every channel completes once (random order, random status) while the
    // host polls random groups; a completion beyond the table in each
    for round in 0..4 {
        let mut order: Vec<u32> = (0..CONFIG.channels).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.gen_range(0..=i));
        }
        let beyond = CONFIG.channels + rng.gen_range(0..1000);
        let completions: VecDeque<(u32, u32)> = order
            .into_iter()
            .map(|c| (c, u32::from(rng.gen_bool(0.3))))
            .chain([(beyond, 0)])
            .collect();
        let reported = run.round(&map, completions.clone());
        for &(c, s) in completions.iter().filter(|(c, _)| *c < CONFIG.channels) {
            assert_eq!(
                reported[c as usize],
                [s],
                "round {round}, channel {c}: reported once with its error bit"
            );
        }
    }
    assert!(
        run.stalls <= run.host_ops,
        "cpl_ready low {} cycles for {} polls",
        run.stalls,
        run.host_ops
    );
    // the completions beyond the table were counted
    let master = &mut run.master;
    master.push(Request {
        write: false,
        address: map.reg("completion_bad_channel").offset,
        data: 0,
        strobes: 0,
    });
    while master.outstanding() > 0 {
        master.drive(run.m, &mut rng);
        run.m.set_u64(port(run.m, "cpl_valid"), 0);
        run.m.eval();
        master.sample(run.m, run.cycle).unwrap();
        run.m.tick();
        run.cycle += 1;
    }
    assert_eq!(master.answers.last().unwrap().data, 4);
}

#[test]
fn posting_through_the_stand_in_sets_busy_then_done_then_idle() {
    let mut rtl = RegsRtl::with_latency(CONFIG, 3000).unwrap();
    let map = rtl.map().clone();
    let qp = 3;
    // QP 3 in RTS: the other words first, word 0 last (it commits the entry)
    let words = QP_CONTEXT
        .encode(&[("state", QpState::Rts.code().into()), ("pmtu", 5), ("dest_qpn", 0x12)])
        .unwrap();
    for w in (0..words.len()).rev() {
        assert_eq!(rtl.write(map.reg(&format!("qp_word{w}")).address(qp), words[w], 0xf).unwrap(), 0);
    }
    let post = |rtl: &mut RegsRtl, channel: u128, qp: u128| {
        let words = POST
            .encode(&[
                ("channel", channel),
                ("queue", 1),
                ("op", 3),
                ("qp", qp),
                ("length", 4096),
                ("immediate", 7),
            ])
            .unwrap();
        for (w, v) in words.iter().enumerate() {
            rtl.write(map.reg(&format!("post_word{w}")).offset, *v, 0xf).unwrap();
        }
        rtl.write(map.reg("doorbell").offset, 1, 0xf).unwrap();
        loop {
            let s = rtl.read(map.reg("post_status").offset).unwrap().1;
            if s & 3 != PostState::Pending as u32 {
                return s;
            }
        }
    };
    let status = |rtl: &mut RegsRtl, c: u32| rtl.read(map.reg("channel_status").address(c)).unwrap().1;
    assert_eq!(post(&mut rtl, 5, u128::from(qp)) & 0x1f, PostState::Accepted as u32);
    assert_eq!(status(&mut rtl, 5), 1, "BUSY");
    let refused = post(&mut rtl, 5, u128::from(qp));
    assert_eq!(refused & 3, PostState::Refused as u32);
    assert_eq!(refused >> 2 & 7, u32::from(PostError::ChannelBusy.code()));
    let not_ready = post(&mut rtl, 6, 4);
    assert_eq!(not_ready >> 2 & 7, u32::from(PostError::QpNotReady.code()));
    // the stand-in completes the transfer: DONE until polled, then IDLE
    while status(&mut rtl, 5) != 2 {}
    assert_eq!(rtl.read(map.reg("poll").address(0)).unwrap().1, 1 << 5);
    assert_eq!(status(&mut rtl, 5), 0, "IDLE after the poll");
    // a doorbell with a word missing since the last post posts nothing
    rtl.write(map.reg("post_word0").offset, 9, 0xf).unwrap();
    rtl.write(map.reg("doorbell").offset, 1, 0xf).unwrap();
    let s = rtl.read(map.reg("post_status").offset).unwrap().1;
    assert_eq!(s >> 8 & 1, 1, "incomplete");
    assert_eq!(s >> 16 & 0xff, 1, "only word 0 written since the last post");
}
