//! Typed handles on the Verilator models that `build.rs` compiles into this crate.
//!
//! A [`Model`] exposes its ports by name; inputs are set as little-endian 32-bit words, the clock
//! is stepped N cycles per call, outputs are read back. [`Model::run_stream`] runs a whole
//! AXI-Stream exchange (source idle and sink backpressure drawn per cycle from a seed) inside C++
//! so the FFI is crossed once per run. Set `FERROCE_TRACE=1` (VCD in the current directory) or
//! `FERROCE_TRACE=DIR` to trace every model created, or call [`Model::trace`].

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::fmt;
use std::path::Path;

include!(concat!(env!("OUT_DIR"), "/models.rs"));

#[repr(C)]
struct RawStream {
    src_valid: c_int,
    src_ready: c_int,
    n_src: c_int,
    src_ports: *const c_int,
    snk_valid: c_int,
    snk_ready: c_int,
    n_snk: c_int,
    snk_ports: *const c_int,
    idle_pct: u32,
    bp_pct: u32,
    seed: u64,
    max_cycles: u64,
    src_words: *const u32,
    n_src_beats: u64,
    snk_words: *mut u32,
    snk_cap: u64,
    expect_snk_beats: u64,
    src_cycle: *mut u64,
    snk_cycle: *mut u64,
    n_snk_beats: u64,
    cycles: u64,
    protocol_errors: u64,
    first_error_cycle: u64,
    n_src_sent: u64,
}

extern "C" {
    fn ferroce_model_new(name: *const c_char) -> *mut c_void;
    fn ferroce_model_free(m: *mut c_void);
    fn ferroce_model_port_count(m: *mut c_void) -> c_int;
    fn ferroce_model_port_name(m: *mut c_void, i: c_int) -> *const c_char;
    fn ferroce_model_port_width(m: *mut c_void, i: c_int) -> c_int;
    fn ferroce_model_port_dir(m: *mut c_void, i: c_int) -> c_int;
    fn ferroce_model_set(m: *mut c_void, i: c_int, w: *const u32);
    fn ferroce_model_get(m: *mut c_void, i: c_int, w: *mut u32);
    fn ferroce_model_step(m: *mut c_void, n: u64);
    fn ferroce_model_eval(m: *mut c_void);
    fn ferroce_model_peek(m: *mut c_void, i: c_int, w: *mut u32);
    fn ferroce_model_trace(m: *mut c_void, path: *const c_char);
    fn ferroce_model_run_stream(m: *mut c_void, s: *mut RawStream);
}

/// Errors of the co-simulation harness.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimError {
    /// No model of that name was built (see [`MODELS`]).
    UnknownModel(String),
    /// The model has no port of that name.
    UnknownPort { model: String, port: String },
    /// The stream did not complete within the cycle budget.
    Hang {
        model: String,
        cycles: u64,
        sent: u64,
        received: u64,
    },
    /// The sink side broke the AXI-Stream rules (valid dropped or payload changed while stalled).
    Protocol { model: String, errors: u64, first_cycle: u64 },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::UnknownModel(m) => write!(f, "no Verilator model named '{m}' (built: {})", MODELS.join(", ")),
            SimError::UnknownPort { model, port } => write!(f, "model '{model}' has no port '{port}'"),
            SimError::Hang {
                model,
                cycles,
                sent,
                received,
            } => write!(f, "model '{model}' hung: {cycles} cycles, {sent} beats sent, {received} received"),
            SimError::Protocol {
                model,
                errors,
                first_cycle,
            } => write!(
                f,
                "model '{model}' broke AXI-Stream rules {errors} times, first at cycle {first_cycle}"
            ),
        }
    }
}

impl std::error::Error for SimError {}

/// A port of a model.
#[derive(Debug, Clone)]
pub struct PortInfo {
    pub name: String,
    pub width: usize,
    pub input: bool,
}

impl PortInfo {
    /// 32-bit words the port's value takes.
    pub fn words(&self) -> usize {
        self.width.div_ceil(32)
    }
}

/// One Verilator model instance.
pub struct Model {
    raw: *mut c_void,
    name: String,
    ports: Vec<PortInfo>,
}

// The model is plain C++ state with no thread affinity.
unsafe impl Send for Model {}

impl Model {
    /// Instantiates the model `name` (a module name such as `ferroce_icrc_check_w512`).
    pub fn new(name: &str) -> Result<Model, SimError> {
        let c = CString::new(name).map_err(|_| SimError::UnknownModel(name.into()))?;
        let raw = unsafe { ferroce_model_new(c.as_ptr()) };
        if raw.is_null() {
            return Err(SimError::UnknownModel(name.into()));
        }
        let n = unsafe { ferroce_model_port_count(raw) };
        let ports = (0..n)
            .map(|i| unsafe {
                PortInfo {
                    name: CStr::from_ptr(ferroce_model_port_name(raw, i)).to_string_lossy().into_owned(),
                    width: ferroce_model_port_width(raw, i) as usize,
                    input: ferroce_model_port_dir(raw, i) == 0,
                }
            })
            .collect();
        let mut m = Model {
            raw,
            name: name.into(),
            ports,
        };
        if let Ok(t) = std::env::var("FERROCE_TRACE") {
            if !t.is_empty() && t != "0" {
                let dir = if t == "1" { ".".to_string() } else { t };
                let _ = std::fs::create_dir_all(&dir);
                let mut k = 0;
                let path = loop {
                    let p = Path::new(&dir).join(format!("{name}-{k}.vcd"));
                    if !p.exists() {
                        break p;
                    }
                    k += 1;
                };
                m.trace(&path);
            }
        }
        Ok(m)
    }

    /// The model's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The model's ports.
    pub fn ports(&self) -> &[PortInfo] {
        &self.ports
    }

    /// Index of a port by name.
    pub fn port(&self, name: &str) -> Result<usize, SimError> {
        self.ports.iter().position(|p| p.name == name).ok_or_else(|| SimError::UnknownPort {
            model: self.name.clone(),
            port: name.into(),
        })
    }

    /// Sets an input from little-endian 32-bit words (missing words are zero).
    pub fn set(&mut self, port: usize, words: &[u32]) {
        let mut w = vec![0u32; self.ports[port].words().max(2)];
        let n = words.len().min(w.len());
        w[..n].copy_from_slice(&words[..n]);
        unsafe { ferroce_model_set(self.raw, port as c_int, w.as_ptr()) }
    }

    /// Sets an input of up to 64 bits.
    pub fn set_u64(&mut self, port: usize, v: u64) {
        self.set(port, &[v as u32, (v >> 32) as u32]);
    }

    /// Reads a port (after settling the combinational logic) as little-endian 32-bit words.
    pub fn get(&mut self, port: usize) -> Vec<u32> {
        let mut w = vec![0u32; self.ports[port].words().max(2)];
        unsafe { ferroce_model_get(self.raw, port as c_int, w.as_mut_ptr()) };
        w.truncate(self.ports[port].words());
        w
    }

    /// Reads a port of up to 64 bits.
    pub fn get_u64(&mut self, port: usize) -> u64 {
        let w = self.get(port);
        w[0] as u64 | (w.get(1).copied().unwrap_or(0) as u64) << 32
    }

    /// Settles the combinational logic after inputs were set (for [`Model::peek_u64`]).
    pub fn eval(&mut self) {
        unsafe { ferroce_model_eval(self.raw) }
    }

    /// Reads a port of up to 64 bits as of the last evaluation (no re-evaluation: call
    /// [`Model::eval`] once after setting inputs, then peek any number of outputs).
    pub fn peek_u64(&mut self, port: usize) -> u64 {
        let mut w = [0u32; 2];
        assert!(self.ports[port].width <= 64, "peek_u64 on a port wider than 64 bits");
        unsafe { ferroce_model_peek(self.raw, port as c_int, w.as_mut_ptr()) };
        w[0] as u64 | (w[1] as u64) << 32
    }

    /// Steps the clock `n` cycles with the inputs as they are.
    pub fn step(&mut self, n: u64) {
        unsafe { ferroce_model_step(self.raw, n) }
    }

    /// Writes a VCD trace of everything from now on to `path`.
    pub fn trace(&mut self, path: &Path) {
        let c = CString::new(path.to_string_lossy().as_bytes()).expect("trace path");
        unsafe { ferroce_model_trace(self.raw, c.as_ptr()) }
    }

    /// Pulses `reset` (if the model has one) for `cycles` cycles.
    pub fn reset(&mut self, cycles: u64) {
        if let Ok(r) = self.port("reset") {
            self.set_u64(r, 1);
            self.step(cycles);
            self.set_u64(r, 0);
        }
    }

    /// Runs a batched AXI-Stream exchange; see [`Stream`].
    pub fn run_stream(&mut self, s: &Stream) -> Result<StreamResult, SimError> {
        let idx = |names: &[&str]| -> Result<Vec<c_int>, SimError> { names.iter().map(|n| self.port(n).map(|i| i as c_int)).collect() };
        let src = idx(&s.src_payload)?;
        let snk = idx(&s.snk_payload)?;
        let src_w: usize = src.iter().map(|&i| self.ports[i as usize].words()).sum();
        let snk_w: usize = snk.iter().map(|&i| self.ports[i as usize].words()).sum();
        assert_eq!(s.src_words.len(), s.n_src_beats * src_w, "source words do not match the ports");
        let cap = s.expect_snk_beats.max(s.n_src_beats * 2 + 16);
        let mut snk_words = vec![0u32; cap * snk_w];
        let mut src_cycle = vec![0u64; s.n_src_beats];
        let mut snk_cycle = vec![0u64; cap];
        let mut raw = RawStream {
            src_valid: self.port(s.src_valid)? as c_int,
            src_ready: self.port(s.src_ready)? as c_int,
            n_src: src.len() as c_int,
            src_ports: src.as_ptr(),
            snk_valid: self.port(s.snk_valid)? as c_int,
            snk_ready: self.port(s.snk_ready)? as c_int,
            n_snk: snk.len() as c_int,
            snk_ports: snk.as_ptr(),
            idle_pct: s.traffic.idle_pct,
            bp_pct: s.traffic.bp_pct,
            seed: s.traffic.seed,
            max_cycles: s.max_cycles,
            src_words: s.src_words.as_ptr(),
            n_src_beats: s.n_src_beats as u64,
            snk_words: snk_words.as_mut_ptr(),
            snk_cap: cap as u64,
            expect_snk_beats: s.expect_snk_beats as u64,
            src_cycle: src_cycle.as_mut_ptr(),
            snk_cycle: snk_cycle.as_mut_ptr(),
            n_snk_beats: 0,
            cycles: 0,
            protocol_errors: 0,
            first_error_cycle: 0,
            n_src_sent: 0,
        };
        unsafe { ferroce_model_run_stream(self.raw, &mut raw) };
        if raw.protocol_errors > 0 {
            return Err(SimError::Protocol {
                model: self.name.clone(),
                errors: raw.protocol_errors,
                first_cycle: raw.first_error_cycle,
            });
        }
        let got = (raw.n_snk_beats as usize).min(cap);
        let sent = raw.n_src_sent;
        if raw.cycles >= s.max_cycles || sent < s.n_src_beats as u64 || (s.expect_snk_beats > 0 && got < s.expect_snk_beats) {
            return Err(SimError::Hang {
                model: self.name.clone(),
                cycles: raw.cycles,
                sent,
                received: raw.n_snk_beats,
            });
        }
        snk_words.truncate(got * snk_w);
        snk_cycle.truncate(got);
        Ok(StreamResult {
            snk_words,
            words_per_beat: snk_w,
            beats: got,
            cycles: raw.cycles,
            src_cycle,
            snk_cycle,
        })
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        unsafe { ferroce_model_free(self.raw) }
    }
}

/// Random source idle and sink backpressure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Traffic {
    /// Percent chance per cycle that the source idles before presenting its next beat.
    pub idle_pct: u32,
    /// Percent chance per cycle that the sink holds `tready` low.
    pub bp_pct: u32,
    pub seed: u64,
}

impl Traffic {
    /// Back to back, never stalled.
    pub const FULL: Traffic = Traffic {
        idle_pct: 0,
        bp_pct: 0,
        seed: 1,
    };

    /// The four combinations of {no idle, random idle} × {no backpressure, random backpressure}.
    pub fn four_ways(seed: u64) -> [Traffic; 4] {
        [
            Traffic {
                idle_pct: 0,
                bp_pct: 0,
                seed,
            },
            Traffic {
                idle_pct: 30,
                bp_pct: 0,
                seed,
            },
            Traffic {
                idle_pct: 0,
                bp_pct: 30,
                seed,
            },
            Traffic {
                idle_pct: 30,
                bp_pct: 30,
                seed,
            },
        ]
    }
}

/// A batched stream exchange: the source presents `n_src_beats` beats whose payload ports take
/// `src_words` (beat-major, ports in order, each port's words little-endian).
pub struct Stream<'a> {
    pub src_valid: &'a str,
    pub src_ready: &'a str,
    pub src_payload: Vec<&'a str>,
    pub snk_valid: &'a str,
    pub snk_ready: &'a str,
    pub snk_payload: Vec<&'a str>,
    pub src_words: Vec<u32>,
    pub n_src_beats: usize,
    /// Stop once this many sink beats arrived (0: when the sink has been quiet 1000 cycles).
    pub expect_snk_beats: usize,
    pub traffic: Traffic,
    pub max_cycles: u64,
}

/// What a [`Stream`] produced.
pub struct StreamResult {
    pub snk_words: Vec<u32>,
    pub words_per_beat: usize,
    pub beats: usize,
    pub cycles: u64,
    /// Cycle at which each source beat was accepted.
    pub src_cycle: Vec<u64>,
    /// Cycle at which each sink beat was taken.
    pub snk_cycle: Vec<u64>,
}

impl StreamResult {
    /// Words of sink beat `i`.
    pub fn beat(&self, i: usize) -> &[u32] {
        &self.snk_words[i * self.words_per_beat..(i + 1) * self.words_per_beat]
    }
}
