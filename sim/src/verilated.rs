//! Typed handles on the Verilator models that `build.rs` compiles into this crate.
//!
//! A [`Model`] exposes its ports by name; inputs are set as little-endian 32-bit words, the clock
//! is stepped N cycles per call, outputs are read back ([`Model::get`] settles the logic first;
//! [`Model::eval`] once, then [`Model::peek`] any number of ports, is the cheaper way every
//! cycle). The stream driver that runs on these models is [`crate::axis`]. Set `FERROCE_TRACE=1`
//! (VCD in the current directory) or `FERROCE_TRACE=DIR` to trace every model created, or call
//! [`Model::trace`]; the models trace only if they were built with `FERROCE_TRACE` set (as
//! `FERROCE_TRACE=1 cargo test ...` does), and say so on stderr otherwise.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::fmt;
use std::path::Path;

include!(concat!(env!("OUT_DIR"), "/models.rs"));

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
    fn ferroce_model_tick(m: *mut c_void);
    fn ferroce_model_eval(m: *mut c_void);
    fn ferroce_model_peek(m: *mut c_void, i: c_int, w: *mut u32);
    fn ferroce_model_trace(m: *mut c_void, path: *const c_char);
}

/// Errors of the co-simulation harness.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimError {
    /// No model of that name was built (see [`MODELS`]).
    UnknownModel(String),
    /// The model has no port of that name.
    UnknownPort {
        /// The model.
        model: String,
        /// The port asked for.
        port: String,
    },
    /// The stream did not complete within the cycle budget.
    Hang {
        /// The model.
        model: String,
        /// Cycles run.
        cycles: u64,
        /// Input beats taken.
        sent: u64,
        /// Output beats taken.
        received: u64,
    },
    /// An interface broke the AXI rules (valid dropped or payload changed while stalled) or
    /// the AXI-Stream beat format.
    Rule {
        /// The model.
        model: String,
        /// The interface (its port prefix, or a name the runner gave it).
        interface: String,
        /// The cycle it happened in.
        cycle: u64,
        /// What happened.
        what: String,
    },
    /// A port is not as wide as the interface needs.
    PortWidth {
        /// The model.
        model: String,
        /// The port.
        port: String,
        /// Its width in bits.
        width: usize,
        /// The width the interface needs.
        expected: usize,
    },
    /// An empty frame was given to a source (an AXI-Stream frame has at least one byte).
    EmptyFrame {
        /// Index of the frame.
        index: usize,
    },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::UnknownModel(m) if MODELS.is_empty() => {
                write!(
                    f,
                    "no Verilator model named '{m}': ferroce-sim was built without its `models` feature"
                )
            }
            SimError::UnknownModel(m) => write!(f, "no Verilator model named '{m}' (built: {})", MODELS.join(", ")),
            SimError::UnknownPort { model, port } => write!(f, "model '{model}' has no port '{port}'"),
            SimError::Hang {
                model,
                cycles,
                sent,
                received,
            } => write!(f, "model '{model}' hung: {cycles} cycles, {sent} beats sent, {received} received"),
            SimError::Rule {
                model,
                interface,
                cycle,
                what,
            } => write!(f, "model '{model}', {interface}, cycle {cycle}: {what}"),
            SimError::PortWidth {
                model,
                port,
                width,
                expected,
            } => write!(f, "model '{model}': port {port} is {width} bits wide, expected {expected}"),
            SimError::EmptyFrame { index } => write!(f, "frame {index} is empty: AXI-Stream frames have at least one byte"),
        }
    }
}

impl std::error::Error for SimError {}

/// A port of a model.
#[derive(Debug, Clone)]
pub struct PortInfo {
    /// Its name in the Verilog.
    pub name: String,
    /// Width in bits.
    pub width: usize,
    /// An input (else an output).
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

    /// Reads a port as of the last evaluation, as little-endian 32-bit words (no
    /// re-evaluation; see [`Model::peek_u64`]).
    pub fn peek(&mut self, port: usize) -> Vec<u32> {
        let mut w = vec![0u32; self.ports[port].words().max(2)];
        unsafe { ferroce_model_peek(self.raw, port as c_int, w.as_mut_ptr()) };
        w.truncate(self.ports[port].words());
        w
    }

    /// One clock edge with the logic as the last [`Model::eval`] settled it: the cheaper
    /// [`Model::step`]`(1)` of a cycle whose inputs were all set before that evaluation.
    pub fn tick(&mut self) {
        unsafe { ferroce_model_tick(self.raw) }
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
    /// Seed of the random draws.
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
