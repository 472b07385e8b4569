//! The scheduler build (device id "FRCQ", `Map::scheduler`) from `ferroce-ctl` and its library:
//! its ID block in a file standing in for the register space (`file:`: registers read and
//! written, but no decision is ever made), and a stand-in scheduler served on a socket in the
//! protocol of `ferroce-sim serve` (`sim:`), whose counters and decisions move. The real
//! behaviour, the RTL through the serial bridge, is the lead's `sim/tests`; this stand-in only
//! gives the tool something that answers.

mod common;

use common::{set_word, word};
use ferroce_contracts::regs::{Config, Map, DEVICE_ID, SCHEDULER_DEVICE_ID};
use ferroce_contracts::sched::queue as queue_field;
use ferroce_ctl::{bus, Cause, Decision, EnqueueOutcome, Ferroce};
use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Alchitry Cu's build: 64 nodes, 5 queues.
const NODE_BITS: u32 = 6;
const QUEUES: u32 = 5;

fn scheduler_map() -> Map {
    Map::scheduler(NODE_BITS, QUEUES)
}

/// A register space image of `map` (512 KiB) with the reset values of its registers.
fn image(dir: &Path, map: &Map, name: &str) -> PathBuf {
    let mut bytes = vec![0u8; 1 << 19];
    for r in map.registers() {
        if let Some(v) = r.reset() {
            for i in 0..r.count {
                let a = r.address(i) as usize;
                bytes[a..a + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
    }
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A value of register `name` with its fields set by name.
fn value(map: &Map, name: &str, fields: &[(&str, u32)]) -> u32 {
    let r = map.reg(name);
    fields.iter().fold(0, |v, (f, x)| r.field(f).unwrap().set(v, *x))
}

fn run(device: &str, args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ferroce-ctl"))
        .arg("--device")
        .arg(device)
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn ctl(path: &Path, args: &[&str]) -> (i32, String, String) {
    run(&format!("file:{}", path.display()), args)
}

/// The refusal of an engine command on the scheduler build.
const NO_QP_TABLE: &str = "this device is the scheduler build (FRCQ: the QoS scheduler alone, as on the Alchitry Cu): it has no QP \
                           table; its commands: info, read, write, dump, counters, sched";

#[test]
fn info_read_dump_and_counters_show_the_scheduler_build() {
    let dir = tempfile::tempdir().unwrap();
    let map = scheduler_map();
    let file = image(dir.path(), &map, "sched.bin");
    assert_eq!(word(&file, map.reg("device_id").offset), SCHEDULER_DEVICE_ID);

    let (code, out, err) = ctl(&file, &["info"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("the scheduler build") && out.contains("64 nodes, 5 queues") && out.contains("matches this tool"),
        "{out}"
    );
    assert!(out.contains("build_sched") && out.contains("node_bits=6 (64 nodes)"), "{out}");
    assert!(!out.contains("channels") && !out.contains("QPs"), "no engine build line: {out}");
    let (code, out, err) = ctl(&file, &["--json", "info"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        (v["build"].as_str(), v["nodes"].as_u64(), v["queues"].as_u64()),
        (Some("scheduler"), Some(64), Some(5))
    );
    assert_eq!(v["build_sched"]["queues"], 5);

    // a decision left in the register: read decodes it by its fields
    let decision = map.reg("decision").offset;
    set_word(
        &file,
        decision,
        value(&map, "decision", &[("node", 42), ("queue", 3), ("served", 1), ("sequence", 17)]),
    );
    let (code, out, err) = ctl(&file, &["--json", "read", "decision"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["fields"]["node"], 42);
    assert_eq!(v["fields"]["queue"], 3);
    assert_eq!(v["fields"]["sequence"], 17);
    assert_eq!(v["fields"]["served"]["meaning"], "a queue was served");
    let (_, out, _) = ctl(&file, &["read", &format!("{decision:#x}")]);
    assert!(out.starts_with("decision @") && out.contains("0x2a"), "{out}");

    // dump: the block's readable registers read, the strobes named and not read
    let (code, out, err) = ctl(&file, &["dump", "scheduler"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("== scheduler @"), "{out}");
    assert!(out.contains("decision @") && out.contains("served"), "{out}");
    for strobe in ["enqueue", "decide"] {
        assert!(
            out.contains(&format!("{strobe} @ ")) && out.contains("not read (WO"),
            "{strobe}: {out}"
        );
    }
    let (code, _, err) = ctl(&file, &["dump", "qp"]);
    assert_eq!(code, 2);
    assert!(err.contains("no block 'qp'") && err.contains("scheduler"), "{err}");
    let (code, out, err) = ctl(&file, &["dump", "--elements", "32"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("queue_config[4]") && !out.contains("queue_config[5]"),
        "five queues: {out}"
    );

    // counters: the scheduler build's counters block, no engine counter
    set_word(&file, map.reg("sched_duplicate").offset, 7);
    let (code, out, err) = ctl(&file, &["--json", "counters"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let names: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(v["sched_duplicate"], 7);
    assert_eq!(v["sched_bad_queue"], 0);
    assert!(
        names
            .iter()
            .all(|n| !n.starts_with("responder_") && !n.starts_with("rx_") && *n != "receive_completions_lost"),
        "{names:?}"
    );

    // write, and a queue's configuration by its fields
    let (code, _, err) = ctl(&file, &["write", "high_limit", "9"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(word(&file, map.reg("high_limit").offset), 9);
    let config = map.reg("queue_config").address(2);
    let (code, out, err) = ctl(
        &file,
        &[
            "sched", "config", "2", "--weight", "5", "--rate", "64", "--burst", "3", "--low", "--bucket", "on",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("queue_config[2] @"), "{out}");
    let written = word(&file, config);
    let field = |name: &str| map.reg("queue_config").field(name).unwrap().get(written);
    assert_eq!(
        [
            field(queue_field::WEIGHT.name),
            field(queue_field::RATE.name),
            field(queue_field::BURST.name),
            field(queue_field::HIGH_TABLE.name),
            field(queue_field::BUCKET_ENABLE.name)
        ],
        [5, 64, 3, 0, 1]
    );
    // the fields not given are kept
    let (code, _, err) = ctl(&file, &["sched", "config", "2", "--weight", "8", "--high"]);
    assert_eq!(code, 0, "{err}");
    let kept = word(&file, config);
    let field = |name: &str| map.reg("queue_config").field(name).unwrap().get(kept);
    assert_eq!(
        [
            field("weight"),
            field("rate"),
            field("burst"),
            field("high_table"),
            field("bucket_enable")
        ],
        [8, 64, 3, 1, 1]
    );
    let (code, _, err) = ctl(&file, &["sched", "config", "5", "--weight", "1"]);
    assert_eq!(code, 2);
    assert!(err.contains("queue_config has 5 elements"), "{err}");
    let (code, _, err) = ctl(&file, &["sched", "config", "1", "--weight", "256"]);
    assert_eq!(code, 2);
    assert!(err.contains("does not fit 8 bits"), "{err}");
    assert_eq!(word(&file, config), kept, "nothing written");
}

#[test]
fn engine_commands_are_refused_on_the_scheduler_build() {
    let dir = tempfile::tempdir().unwrap();
    let file = image(dir.path(), &scheduler_map(), "sched.bin");
    let before = std::fs::read(&file).unwrap();
    for args in [
        &["qp", "show", "1"][..],
        &["qp", "set", "1", "--state", "rts"],
        &["post", "--channel", "0", "--qp", "1", "--op", "write", "--src", "0", "--len", "64"],
        &["poll"],
        &["region", "clear", "1"],
        &["region", "set", "1", "--pd", "1", "--base", "0", "--length", "4096", "--write"],
        &["recv", "post", "--qp", "1", "--address", "0", "--length", "64"],
        &["recv", "completions"],
        &["memory", "read", "0", "16"],
        &["connect", "pingpong", "--listen", "127.0.0.1:0"],
        &["stream", "status"],
        &["stream", "start", "0"],
    ] {
        let (code, out, err) = ctl(&file, args);
        assert_eq!(code, 2, "{args:?}: {out} {err}");
        assert!(err.contains(NO_QP_TABLE), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
    }
    assert_eq!(std::fs::read(&file).unwrap(), before, "nothing was written");
    let (code, out, _) = ctl(&file, &["--json", "poll"]);
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert!(v["error"].as_str().unwrap().contains(NO_QP_TABLE), "{v}");
}

#[test]
fn the_library_refuses_engine_calls_on_the_scheduler_build_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let file = image(dir.path(), &scheduler_map(), "sched.bin");
    let mut dev = Ferroce::open(bus::open(&format!("file:{}", file.display())).unwrap()).unwrap();
    assert!(dev.is_scheduler());
    let wrong = |e: ferroce_ctl::Error| match e.cause {
        Cause::WrongBuild(m) => m,
        other => panic!("{other:?}"),
    };
    assert!(wrong(dev.qp_read(0).unwrap_err()).ends_with("it has no QP table"));
    wrong(dev.qp_failure(0).unwrap_err());
    wrong(dev.qp_commit(0, &[]).unwrap_err());
    wrong(dev.local_address().unwrap_err());
    wrong(dev.post(&[0; 8], 1).unwrap_err());
    wrong(dev.post_status().unwrap_err());
    wrong(dev.poll(0, 31).unwrap_err());
    wrong(dev.channel_status(0).unwrap_err());
    wrong(dev.region_clear(0).unwrap_err());
    wrong(dev.receive_post(0, 0, 64, 1).unwrap_err());
    wrong(dev.receive_completions(4).unwrap_err());
    wrong(dev.receive_completions_lost().unwrap_err());
    wrong(dev.responder_counters().unwrap_err());
    assert_eq!(dev.region_entries(), 0);
    assert!(dev.streams().status(0).is_err());
    assert!(dev.streams().pace(1, None, 1).is_err());
    assert!(dev.streams().unpaced_table_mates(1).is_err());
    let names: Vec<String> = dev.counters().unwrap().into_iter().map(|(n, _)| n).collect();
    assert!(names.contains(&"sched_duplicate".to_string()), "{names:?}");

    // and the scheduler build's calls on the engine
    let engine = image(dir.path(), &Map::new(Config::SMALL), "engine.bin");
    let mut dev = Ferroce::open(bus::open(&format!("file:{}", engine.display())).unwrap()).unwrap();
    assert!(!dev.is_scheduler());
    for e in [dev.sched_enqueue(1, 1).unwrap_err(), dev.sched_decide().unwrap_err()] {
        assert!(wrong(e).contains("the engine (FRCE): its scheduler is fed by its TX path"));
    }
    assert!(dev.sched_counters().is_ok(), "the engine has the scheduler's counters too");
}

#[test]
fn sched_on_a_file_decides_nothing_and_enqueues_by_the_fields() {
    let dir = tempfile::tempdir().unwrap();
    let map = scheduler_map();
    let file = image(dir.path(), &map, "sched.bin");
    let (decision, decide, enqueue) = (map.reg("decision").offset, map.reg("decide").offset, map.reg("enqueue").offset);
    let stale = value(&map, "decision", &[("node", 42), ("queue", 3), ("served", 1), ("sequence", 17)]);
    set_word(&file, decision, stale);

    // a file makes no decision: the number does not advance, so no stale decision is printed
    for json in [false, true] {
        set_word(&file, decide, 0);
        let args: &[&str] = if json {
            &["--json", "sched", "decide"]
        } else {
            &["sched", "decide"]
        };
        let (code, out, err) = ctl(&file, args);
        assert_eq!(code, 2, "{out} {err}");
        assert!(
            err.contains("the decision was not seen") && err.contains("read 17 before") && err.contains("not 18"),
            "{err}"
        );
        assert!(!out.contains("decision 17") && !out.contains("\"number\""), "{out}");
        assert_ne!(word(&file, decide), 0, "decide was written");
    }
    let (code, out, err) = ctl(&file, &["sched", "decide", "--count", "3"]);
    assert_eq!(code, 2);
    assert!(out.is_empty() && err.contains("not seen"), "{out} {err}");

    // enqueue: the node and the queue in their fields, the last write the last node
    let (code, out, err) = ctl(&file, &["sched", "enqueue", "--queue", "3", "5", "0x2a"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("node 5: queued on queue 3") && out.contains("node 42: queued on queue 3"),
        "{out}"
    );
    assert!(out.contains("2 queued, 0 refused"), "{out}");
    assert_eq!(word(&file, enqueue), value(&map, "enqueue", &[("node", 42), ("queue", 3)]));
    // a node beyond the build's nodes is refused before any write
    set_word(&file, enqueue, 0);
    let (code, _, err) = ctl(&file, &["sched", "enqueue", "--queue", "1", "3", "64"]);
    assert_eq!(code, 2);
    assert!(err.contains("node 64 is beyond the build's 64 nodes (0 to 63)"), "{err}");
    assert_eq!(word(&file, enqueue), 0, "nothing written");
    let (code, _, err) = ctl(&file, &["sched", "enqueue", "--queue", "32", "3"]);
    assert_eq!(code, 2);
    assert!(err.contains("queue 32 does not fit"), "{err}");

    // the engine has no enqueue or decide by hand
    let engine = image(dir.path(), &Map::new(Config::SMALL), "engine.bin");
    for args in [&["sched", "decide"][..], &["sched", "enqueue", "--queue", "1", "3"]] {
        let (code, out, err) = ctl(&engine, args);
        assert_eq!(code, 2, "{args:?}: {out}");
        assert!(err.contains("this device is the engine (FRCE)"), "{args:?}: {err}");
    }
    let (code, out, err) = ctl(&engine, &["sched", "config", "1"]);
    assert_eq!(code, 0, "the qos block is the engine's too: {err}");
    assert!(out.contains("queue_config[1]") && out.contains("weight"), "{out}");
}

#[test]
fn open_checks_the_scheduler_builds_id_block() {
    let dir = tempfile::tempdir().unwrap();
    let map = scheduler_map();
    let open = |path: &Path| Ferroce::open(bus::open(&format!("file:{}", path.display())).unwrap());

    // the map of the build the ID block says
    let file = image(dir.path(), &Map::scheduler(4, 3), "n16_q3.bin");
    let dev = open(&file).unwrap();
    assert_eq!(dev.map(), &Map::scheduler(4, 3));

    // another hash: the same error as the engine's
    let file = image(dir.path(), &map, "hash.bin");
    let hash = map.reg("map_hash").offset;
    set_word(&file, hash, word(&file, hash) ^ 1);
    let e = open(&file).err().unwrap();
    assert!(matches!(e.cause, Cause::MapMismatch { .. }), "{e}");
    let (code, _, err) = ctl(&file, &["info"]);
    assert_eq!(code, 2);
    assert!(err.contains("register map") && err.contains("same revision"), "{err}");

    // a build this tool can't describe (0 node bits) is a map mismatch, not a panic
    let file = image(dir.path(), &map, "zero.bin");
    let build = map.reg("build_sched");
    set_word(&file, build.offset, build.field("queues").unwrap().set(0, 5));
    let e = open(&file).err().unwrap();
    assert!(matches!(e.cause, Cause::MapMismatch { .. }), "{e}");

    // another id
    let file = image(dir.path(), &map, "other.bin");
    set_word(&file, map.reg("device_id").offset, 0x1234_5678);
    let (code, _, err) = ctl(&file, &["info"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("0x12345678 is not Ferroce's")
            && err.contains(&format!("{DEVICE_ID:#010x}"))
            && err.contains(&format!("{SCHEDULER_DEVICE_ID:#010x}")),
        "{err}"
    );
}

/// A stand-in for the scheduler build: the register space of its map, `enqueue` refusing a
/// node already queued and a queue beyond the build's (counted), `decide` serving the lowest
/// non-empty queue first in first out (not the QoS arbiter: enough to make decisions move).
struct StandIn {
    map: Map,
    words: HashMap<u32, u32>,
    queues: Vec<VecDeque<u32>>,
    decisions: u32,
    /// Some(k): the decide write after the next k makes no decision (a lost write), for the
    /// tool to notice.
    lose_decide_in: Option<u32>,
}

impl StandIn {
    fn new() -> StandIn {
        let map = scheduler_map();
        let words = map
            .registers()
            .filter_map(|r| Some((r.offset, r.reset()?)))
            .chain((0..QUEUES).map(|q| (map.reg("queue_config").address(q), map.reg("queue_config").reset().unwrap())))
            .collect();
        StandIn {
            map,
            words,
            queues: vec![VecDeque::new(); QUEUES as usize],
            decisions: 0,
            lose_decide_in: None,
        }
    }

    fn count(&mut self, name: &str) {
        *self.words.entry(self.map.reg(name).offset).or_default() += 1;
    }

    fn write(&mut self, address: u32, value: u32) {
        let field = |reg: &str, name: &str| self.map.reg(reg).field(name).unwrap().get(value);
        if address == self.map.reg("enqueue").offset {
            let (node, queue) = (field("enqueue", "node"), field("enqueue", "queue"));
            if queue >= QUEUES {
                self.count("sched_bad_queue");
            } else if self.queues.iter().any(|q| q.contains(&node)) {
                self.count("sched_duplicate");
            } else {
                self.queues[queue as usize].push_back(node);
            }
        } else if address == self.map.reg("decide").offset {
            match self.lose_decide_in {
                Some(0) => {
                    self.lose_decide_in = None;
                    return;
                }
                Some(k) => self.lose_decide_in = Some(k - 1),
                None => {}
            }
            self.decisions += 1;
            let number = self.decisions % 256;
            let served = self
                .queues
                .iter_mut()
                .enumerate()
                .find_map(|(q, list)| Some((q as u32, list.pop_front()?)));
            let word = match served {
                Some((queue, node)) => value_of(&self.map, &[("node", node), ("queue", queue), ("served", 1), ("sequence", number)]),
                None => value_of(&self.map, &[("sequence", number)]),
            };
            self.words.insert(self.map.reg("decision").offset, word);
        } else {
            self.words.insert(address, value);
        }
    }
}

fn value_of(map: &Map, fields: &[(&str, u32)]) -> u32 {
    value(map, "decision", fields)
}

/// Serves `stand_in` on a socket in `dir` in `ferroce-sim serve`'s protocol, one connection
/// after another; returns the device name.
fn serve(dir: &Path, stand_in: StandIn) -> (String, std::sync::Arc<std::sync::Mutex<StandIn>>) {
    let path = dir.join("sched.sock");
    let listener = UnixListener::bind(&path).unwrap();
    let shared = std::sync::Arc::new(std::sync::Mutex::new(stand_in));
    let model = shared.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let mut writer = stream.try_clone().unwrap();
            for line in BufReader::new(stream).lines() {
                let Ok(line) = line else { break };
                let words: Vec<u32> = line
                    .split_whitespace()
                    .skip(1)
                    .map(|w| u32::from_str_radix(w.trim_start_matches("0x"), 16).unwrap())
                    .collect();
                let mut m = model.lock().unwrap();
                let answer = match (line.split_whitespace().next(), words.as_slice()) {
                    (Some("read"), [a]) => format!("ok 0x0 {:#x}\n", m.words.get(a).copied().unwrap_or(0)),
                    (Some("write"), [a, v, _]) => {
                        m.write(*a, *v);
                        "ok 0x0\n".to_string()
                    }
                    _ => format!("error {line}\n"),
                };
                if writer.write_all(answer.as_bytes()).is_err() {
                    break;
                }
            }
        }
    });
    (format!("sim:{}", path.display()), shared)
}

#[test]
fn sched_enqueue_names_the_refused_nodes_and_decide_prints_each_decision() {
    let dir = tempfile::tempdir().unwrap();
    let (device, model) = serve(dir.path(), StandIn::new());

    let (code, out, err) = run(&device, &["sched", "enqueue", "--queue", "3", "42", "7", "42"]);
    assert_eq!(code, 1, "a refusal: {out} {err}");
    assert!(
        out.contains("node 42: queued on queue 3") && out.contains("node 7: queued on queue 3"),
        "{out}"
    );
    assert!(
        out.contains("node 42: refused: already queued (counted in sched_duplicate)"),
        "{out}"
    );
    assert!(
        out.contains("2 queued, 1 refused; sched_duplicate 0 -> 1, sched_bad_queue 0 -> 0"),
        "{out}"
    );
    let (code, out, err) = run(&device, &["--json", "sched", "enqueue", "--queue", "6", "9"]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["nodes"][0]["result"], "bad_queue");
    assert_eq!(v["refused"], serde_json::json!([9]));
    assert_eq!(
        (v["sched_bad_queue"]["before"].clone(), v["sched_bad_queue"]["after"].clone()),
        (0.into(), 1.into())
    );
    let (code, out, err) = run(&device, &["sched", "enqueue", "--queue", "1", "9"]);
    assert_eq!(code, 0, "{out} {err}");
    assert!(
        out.contains("node 9: queued on queue 1") && out.contains("1 queued, 0 refused"),
        "{out}"
    );

    // queue 1 first, then queue 3's two in order, then nothing
    let (code, out, err) = run(&device, &["sched", "decide", "--count", "4"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "decision 1: queue 1 node 9\ndecision 2: queue 3 node 42\ndecision 3: queue 3 node 7\ndecision 4: nothing eligible\n"
    );
    let (code, out, err) = run(&device, &["--json", "sched", "decide", "--count", "2"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v[0], serde_json::json!({"number": 5, "served": false, "queue": null, "node": null}));
    assert_eq!(v[1]["number"], 6);

    // the number wraps at 256: decisions across the wrap are still seen
    let (code, out, err) = run(&device, &["sched", "decide", "--count", "260"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("decision 255: nothing eligible\ndecision 0: nothing eligible\ndecision 1:"),
        "wrap"
    );

    // a decide that made no decision stops the run there: the ones before are printed
    model.lock().unwrap().lose_decide_in = Some(2);
    let (code, out, err) = run(&device, &["sched", "decide", "--count", "5"]);
    assert_eq!(code, 2);
    assert_eq!(out, "decision 11: nothing eligible\ndecision 12: nothing eligible\n");
    assert!(err.contains("the decision was not seen") && err.contains("read 12 before"), "{err}");
    model.lock().unwrap().lose_decide_in = Some(1);
    let (code, out, err) = run(&device, &["--json", "sched", "decide", "--count", "3"]);
    assert_eq!(code, 2);
    let lines: Vec<&str> = out.lines().collect();
    let made: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(
        made,
        serde_json::json!([{"number": 13, "served": false, "queue": null, "node": null}])
    );
    assert!(lines[1].contains("\"error\"") && err.contains("not seen"), "{out} {err}");
    let (code, out, err) = run(&device, &["sched", "decide"]);
    assert_eq!((code, out.as_str()), (0, "decision 14: nothing eligible\n"), "{err}");
}

#[test]
fn the_library_says_what_became_of_each_enqueue_and_decision() {
    let dir = tempfile::tempdir().unwrap();
    let (device, _model) = serve(dir.path(), StandIn::new());
    let mut dev = Ferroce::open(bus::open(&device).unwrap()).unwrap();
    assert!(dev.is_scheduler());

    let outcomes = dev.sched_enqueue_nodes(2, &[1, 2, 1, 63]).unwrap();
    assert_eq!(
        outcomes,
        [
            (1, EnqueueOutcome::Queued),
            (2, EnqueueOutcome::Queued),
            (1, EnqueueOutcome::Duplicate),
            (63, EnqueueOutcome::Queued)
        ]
    );
    assert_eq!(dev.sched_enqueue_nodes(5, &[3]).unwrap(), [(3, EnqueueOutcome::BadQueue)]);
    let counters = dev.sched_counters().unwrap();
    assert_eq!((counters.duplicate, counters.bad_queue), (1, 1));
    dev.sched_enqueue(4, 0).unwrap();
    assert!(matches!(dev.sched_enqueue(64, 0).unwrap_err().cause, Cause::Invalid(_)));

    let made: Vec<Decision> = (0..5).map(|_| dev.sched_decide().unwrap()).collect();
    let served: Vec<(u32, u32)> = made.iter().filter(|d| d.served).map(|d| (d.queue, d.node)).collect();
    assert_eq!(served, [(0, 4), (2, 1), (2, 2), (2, 63)]);
    assert_eq!(made.iter().map(|d| d.number).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    assert!(!made[4].served);
    assert_eq!(dev.sched_decision().unwrap(), made[4], "reading the decision makes none");
    assert_eq!(dev.sched_decide().unwrap().number, 6);
}
