//! The scheduler build (`SerialSched`: the QoS scheduler, its register file and the serial
//! bridge, for boards too small for the engine), access by access: the register file of
//! [`Map::scheduler`] ([`RegsModel`]) in front of the cycle model of the scheduler
//! ([`SchedModel`]). A write's effect on the scheduler (a QoS word, an enqueue, a decision) is
//! run to its end before the next access, as over the serial line, where accesses are hundreds
//! of cycles apart.
//!
//! The token buckets refill by the cycle, so their level at a decision depends on the cycles
//! since the last one, which an access-by-access model does not know: this model steps
//! [`IDLE_CYCLES`] between accesses, and matches the RTL's decisions whenever every bucket that
//! is enabled refills to its burst in that time (or is not enabled).

use crate::contracts::regs::{Map, Register};
use crate::regs::{RegsModel, Resp};
use crate::sched::{reset_and_init, SchedConfig, SchedEngine, SchedIn, SchedModel};
use crate::serial::RegisterTarget;

/// Cycles the scheduler runs idle after each access.
pub const IDLE_CYCLES: u32 = 8;

/// The scheduler build after reset, its scheduler initialized.
#[derive(Debug, Clone)]
pub struct SchedulerBuildModel {
    registers: RegsModel,
    sched: SchedModel,
    /// The `decision` register.
    decision: u32,
}

impl SchedulerBuildModel {
    /// The build of `2^node_bits` nodes and `queues` queues.
    pub fn new(node_bits: u32, queues: u32) -> SchedulerBuildModel {
        let map = Map::scheduler(node_bits, queues);
        let config = SchedConfig {
            node_bits,
            queues: queues as usize,
        };
        let mut sched = SchedModel::new(config).expect("a scheduler configuration Map::scheduler accepts");
        reset_and_init(&mut sched).expect("the scheduler model initializes");
        SchedulerBuildModel {
            registers: RegsModel::from_map(map),
            sched,
            decision: 0,
        }
    }

    /// The register map.
    pub fn map(&self) -> &Map {
        self.registers.map()
    }

    /// Sets the serial bridge's discard counter of `reason` (its port, `discards_<name>`).
    pub fn set_discards(&mut self, port: &str, value: u32) {
        self.registers.set_input(port, value);
    }

    /// A read of the byte address `address`.
    pub fn read(&mut self, address: u32) -> (Resp, u32) {
        let answer = self.registers.read(address);
        self.idle();
        answer
    }

    /// A write of `data` with byte strobes `strobes`.
    pub fn write(&mut self, address: u32, data: u32, strobes: u8) -> Resp {
        let resp = self.registers.write(address, data, strobes);
        for (cfg_addr, word) in std::mem::take(&mut self.registers.sched_writes) {
            self.step(SchedIn {
                cfg: Some((cfg_addr, word)),
                ..Default::default()
            });
        }
        for (port, value) in std::mem::take(&mut self.registers.strobes) {
            match port.as_str() {
                "enqueue" => {
                    let register = self.map().reg("enqueue").clone();
                    let field = |name: &str| register.field(name).expect("enqueue field").get(value);
                    let mut enq = [None; crate::sched::REQUESTERS];
                    enq[0] = Some((field("queue"), field("node")));
                    self.step(SchedIn { enq, ..Default::default() });
                }
                "decide" => {
                    self.step(SchedIn {
                        deq: true,
                        ..Default::default()
                    });
                }
                other => panic!("the scheduler build has no strobe {other}"),
            }
        }
        self.idle();
        resp
    }

    fn idle(&mut self) {
        for _ in 0..IDLE_CYCLES {
            self.step(SchedIn::default());
        }
    }

    /// One cycle of the scheduler; a decision's result goes into `decision`, the counters into
    /// their registers.
    fn step(&mut self, input: SchedIn) {
        let out = self.sched.step(&input);
        if out.deq_valid {
            let register: Register = self.map().reg("decision").clone();
            let field = |name: &str| register.field(name).expect("decision field");
            let number = (field("sequence").get(self.decision) + 1) & 0xff;
            let mut word = field("sequence").set(0, number);
            if out.deq_ok {
                word = field("served").set(word, 1);
                word = field("queue").set(word, out.deq_queue);
                word = field("node").set(word, out.deq_elem);
            }
            self.decision = word;
            self.registers.set_input("decision", word);
        }
        self.registers.set_input("cnt_dup", out.cnt_dup);
        self.registers.set_input("cnt_bad_queue", out.cnt_bad_queue);
    }

    /// The `decision` register.
    pub fn decision(&self) -> u32 {
        self.decision
    }
}

impl RegisterTarget for SchedulerBuildModel {
    fn read(&mut self, address: u32) -> (u8, u32) {
        let (resp, data) = SchedulerBuildModel::read(self, address);
        (resp as u8, data)
    }

    fn write(&mut self, address: u32, data: u32) -> u8 {
        SchedulerBuildModel::write(self, address, data, 0xf) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(m: &SchedulerBuildModel, name: &str) -> u32 {
        m.map().reg(name).offset
    }

    #[test]
    fn enqueued_nodes_leave_by_weight_and_refusals_are_counted() {
        let mut m = SchedulerBuildModel::new(6, 5);
        let (enqueue, decide, decision) = (address(&m, "enqueue"), address(&m, "decide"), address(&m, "decision"));
        // queue 1 weight 2, queue 2 weight 1, both in the low table, no buckets
        let queue_config = address(&m, "queue_config");
        assert_eq!(m.write(queue_config + 4, 2, 0xf), Resp::Okay);
        assert_eq!(m.write(queue_config + 8, 1, 0xf), Resp::Okay);
        for node in [10, 11, 12] {
            assert_eq!(m.write(enqueue, 1 << 16 | node, 0xf), Resp::Okay);
        }
        for node in [20, 21] {
            assert_eq!(m.write(enqueue, 2 << 16 | node, 0xf), Resp::Okay);
        }
        assert_eq!(m.write(enqueue, 2 << 16 | 20, 0xf), Resp::Okay);
        assert_eq!(m.write(enqueue, 7 << 16 | 30, 0xf), Resp::Okay);
        assert_eq!(m.read(address(&m, "sched_duplicate")), (Resp::Okay, 1));
        assert_eq!(m.read(address(&m, "sched_bad_queue")), (Resp::Okay, 1));
        let mut served = Vec::new();
        for n in 1..=6u32 {
            assert_eq!(m.write(decide, 0, 0xf), Resp::Okay);
            let (resp, word) = m.read(decision);
            assert_eq!((resp, word >> 24), (Resp::Okay, n));
            if word >> 23 & 1 == 1 {
                served.push((word >> 16 & 0x1f, word & 0xffff));
            }
        }
        assert_eq!(served, [(1, 10), (1, 11), (2, 20), (1, 12), (2, 21)]);
        assert_eq!(m.read(decision), (Resp::Okay, 6 << 24), "the sixth decision found nothing");
        assert_eq!(m.write(decision, 0, 0xf), Resp::SlvErr);
        assert_eq!(m.read(enqueue), (Resp::Okay, 0));
        assert_eq!(m.read(queue_config + 4 * 5), (Resp::DecErr, 0), "queue 5 of 5");
    }
}
