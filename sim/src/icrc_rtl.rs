//! Runners for the Verilator models of `IcrcCheck` and `IcrcInsert`; their software models are
//! in [`ferroce_models::icrc`].

use crate::axis::{run_frames, FrameRun};
use crate::verilated::{Model, SimError, Traffic};
use ferroce_contracts::rx::IcrcVerdictCode;
pub use ferroce_models::icrc::{check_model, insert_model, CheckResult, IcrcCheckModel};
use ferroce_models::FrameEngine;

/// Verilator model name of a top at a width.
pub fn model_name(top: &str, width: usize) -> String {
    format!("ferroce_{top}_w{width}")
}

/// Runs frames through the Verilator model of `IcrcCheck`; returns the frames as they came out
/// and the per-frame results (the verdict is `m_axis_tuser` on the last beat).
pub fn check_rtl(frames: &[Vec<u8>], width: usize, traffic: Traffic) -> Result<(FrameRun, Vec<CheckResult>), SimError> {
    let mut m = Model::new(&model_name("icrc_check", width))?;
    let beats: usize = frames.iter().map(|f| f.len().div_ceil(width / 8)).sum();
    let run = run_frames(&mut m, frames, traffic, &["m_icrc", "m_icrc_valid"], beats)?;
    let res = run
        .frames
        .iter()
        .map(|f| CheckResult {
            roce: f.user != u64::from(IcrcVerdictCode::NotRoce.code()),
            icrc_ok: f.user == u64::from(IcrcVerdictCode::Good.code()),
            icrc: (f.side[1] != 0).then_some(f.side[0] as u32),
        })
        .collect();
    Ok((run, res))
}

/// Runs frames through the Verilator model of `IcrcInsert`.
pub fn insert_rtl(frames: &[Vec<u8>], width: usize, traffic: Traffic) -> Result<FrameRun, SimError> {
    let mut m = Model::new(&model_name("icrc_insert", width))?;
    let beats: usize = frames.iter().map(|f| insert_model(f).len().div_ceil(width / 8)).sum();
    run_frames(&mut m, frames, traffic, &[], beats)
}

/// The Verilator model of `IcrcCheck` as a [`FrameEngine`]. Empty frames cannot travel on
/// AXI-Stream: they get the model's result (not RoCEv2).
#[derive(Debug, Clone, Copy)]
pub struct IcrcCheckRtl {
    /// Bus width in bits.
    pub width: usize,
    /// Source idle and sink backpressure.
    pub traffic: Traffic,
}

impl FrameEngine for IcrcCheckRtl {
    type Output = CheckResult;
    fn run(&mut self, frames: &[Vec<u8>]) -> Result<Vec<CheckResult>, String> {
        let nonempty: Vec<Vec<u8>> = frames.iter().filter(|f| !f.is_empty()).cloned().collect();
        let mut rtl = if nonempty.is_empty() {
            Vec::new()
        } else {
            check_rtl(&nonempty, self.width, self.traffic).map_err(|e| e.to_string())?.1
        }
        .into_iter();
        Ok(frames
            .iter()
            .map(|f| if f.is_empty() { check_model(f) } else { rtl.next().unwrap() })
            .collect())
    }
}
