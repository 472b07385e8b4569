//! The scheduler's Verilator model (`ferroce_sched_*`) behind the [`SchedEngine`] interface, so
//! everything in [`crate::sched`] (trace replay, co-simulation, fairness) runs on the RTL too.

use crate::sched::{SchedConfig, SchedEngine, SchedIn, SchedOut, REQUESTERS};
use crate::verilated::{Model, SimError};

/// Configurations with token buckets emitted as Verilator models (see `ferroce_hdl::tops`).
pub const RTL_CONFIGS: [SchedConfig; 2] = [SchedConfig { node_bits: 11, queues: 32 }, SchedConfig::SMALL];

/// Verilator model name of a configuration, e.g. `ferroce_sched_n2048_q32` (with token buckets)
/// or `ferroce_sched_n2048_q32_notb`.
pub fn model_name(cfg: &SchedConfig, token_buckets: bool) -> String {
    format!(
        "ferroce_sched_n{}_q{}{}",
        cfg.nodes(),
        cfg.queues,
        if token_buckets { "" } else { "_notb" }
    )
}

struct Ports {
    reset: usize,
    init_done: usize,
    enq_valid: [usize; REQUESTERS],
    enq_queue: [usize; REQUESTERS],
    enq_elem: [usize; REQUESTERS],
    enq_ready: [usize; REQUESTERS],
    deq_req: usize,
    deq_valid: usize,
    deq_ok: usize,
    deq_queue: usize,
    deq_elem: usize,
    stall: usize,
    cfg_we: usize,
    cfg_addr: usize,
    cfg_wdata: usize,
    cnt_dup: usize,
    cnt_bad_queue: usize,
}

/// The RTL scheduler, stepped cycle by cycle.
pub struct SchedRtl {
    cfg: SchedConfig,
    m: Model,
    p: Ports,
}

impl SchedRtl {
    /// Instantiates the Verilator model of `cfg` (one of [`RTL_CONFIGS`]) and resets it.
    pub fn new(cfg: SchedConfig) -> Result<SchedRtl, SimError> {
        SchedRtl::build(cfg, true)
    }

    /// The same without token buckets (`ferroce_sched_n2048_q32_notb`).
    pub fn without_token_buckets(cfg: SchedConfig) -> Result<SchedRtl, SimError> {
        SchedRtl::build(cfg, false)
    }

    fn build(cfg: SchedConfig, token_buckets: bool) -> Result<SchedRtl, SimError> {
        let m = Model::new(&model_name(&cfg, token_buckets))?;
        let mut port = |n: &str| m.port(n);
        let per = |f: &mut dyn FnMut(&str) -> Result<usize, SimError>, s: &str| -> Result<[usize; REQUESTERS], SimError> {
            let mut a = [0; REQUESTERS];
            for (r, slot) in a.iter_mut().enumerate() {
                *slot = f(&format!("enq{r}_{s}"))?;
            }
            Ok(a)
        };
        let p = Ports {
            reset: port("reset")?,
            init_done: port("init_done")?,
            enq_valid: per(&mut port, "valid")?,
            enq_queue: per(&mut port, "queue")?,
            enq_elem: per(&mut port, "elem")?,
            enq_ready: per(&mut port, "ready")?,
            deq_req: port("deq_req")?,
            deq_valid: port("deq_valid")?,
            deq_ok: port("deq_ok")?,
            deq_queue: port("deq_queue")?,
            deq_elem: port("deq_elem")?,
            stall: port("stall")?,
            cfg_we: port("cfg_we")?,
            cfg_addr: port("cfg_addr")?,
            cfg_wdata: port("cfg_wdata")?,
            cnt_dup: port("cnt_dup")?,
            cnt_bad_queue: port("cnt_bad_queue")?,
        };
        let mut s = SchedRtl { cfg, m, p };
        s.reset();
        Ok(s)
    }

    /// The underlying Verilator model (for traces).
    pub fn model(&mut self) -> &mut Model {
        &mut self.m
    }
}

impl SchedRtl {
    fn drive(&mut self, i: &SchedIn) {
        let (m, p) = (&mut self.m, &self.p);
        for r in 0..REQUESTERS {
            let (v, (q, e)) = match i.enq[r] {
                Some(x) => (1, x),
                None => (0, (0, 0)),
            };
            m.set_u64(p.enq_valid[r], v);
            m.set_u64(p.enq_queue[r], q as u64);
            m.set_u64(p.enq_elem[r], e as u64);
        }
        m.set_u64(p.deq_req, i.deq as u64);
        m.set_u64(p.stall, i.stall as u64);
        let (we, (a, d)) = match i.cfg {
            Some(x) => (1, x),
            None => (0, (0, 0)),
        };
        m.set_u64(p.cfg_we, we);
        m.set_u64(p.cfg_addr, a as u64);
        m.set_u64(p.cfg_wdata, d as u64);
    }
}

impl SchedEngine for SchedRtl {
    fn reset(&mut self) {
        self.drive(&SchedIn::default());
        self.m.set_u64(self.p.reset, 1);
        self.m.step(1);
        self.m.set_u64(self.p.reset, 0);
    }

    fn step(&mut self, i: &SchedIn) -> SchedOut {
        self.drive(i);
        let (m, p) = (&mut self.m, &self.p);
        m.eval();
        let mut enq_ready = [false; REQUESTERS];
        for (r, slot) in enq_ready.iter_mut().enumerate() {
            *slot = m.peek_u64(p.enq_ready[r]) != 0;
        }
        let out = SchedOut {
            init_done: m.peek_u64(p.init_done) != 0,
            enq_ready,
            deq_valid: m.peek_u64(p.deq_valid) != 0,
            deq_ok: m.peek_u64(p.deq_ok) != 0,
            deq_queue: m.peek_u64(p.deq_queue) as u32,
            deq_elem: m.peek_u64(p.deq_elem) as u32,
            cnt_dup: m.peek_u64(p.cnt_dup) as u32,
            cnt_bad_queue: m.peek_u64(p.cnt_bad_queue) as u32,
        };
        m.step(1);
        out
    }

    fn config(&self) -> SchedConfig {
        self.cfg
    }
}

/// The RTL engine of `cfg` for the `ferroce-sim sched` command.
pub fn rtl_engine(cfg: &SchedConfig) -> Result<Box<dyn SchedEngine>, String> {
    if !RTL_CONFIGS.contains(cfg) {
        let known: Vec<String> = RTL_CONFIGS.iter().map(|c| model_name(c, true)).collect();
        return Err(format!(
            "no RTL scheduler with {} nodes and {} queues (built: {})",
            cfg.nodes(),
            cfg.queues,
            known.join(", ")
        ));
    }
    SchedRtl::new(*cfg)
        .map(|s| Box::new(s) as Box<dyn SchedEngine>)
        .map_err(|e| e.to_string())
}
