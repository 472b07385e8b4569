//! ICRC units: the software models that `IcrcCheck` and `IcrcInsert` must match, and runners
//! for their Verilator models.

use crate::axis::{run_frames, FrameRun};
use crate::verilated::{Model, SimError, Traffic};
use crate::wire::icrc::{icrc, icrc_verdict, locate, IcrcVerdict};
use ferroce_hdl::icrc::verdict;

/// Per-frame result of an ICRC check, as the hardware reports it on the last beat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckResult {
    /// The frame is RoCEv2 (Ethernet, 0–2 VLAN tags, IPv4 IHL 5 or IPv6, UDP port 4791).
    pub roce: bool,
    /// The frame carries the ICRC the unit computed.
    pub icrc_ok: bool,
    /// The ICRC the unit computed (`u32::from_le_bytes` of the wire bytes), when the frame holds a
    /// whole IP packet long enough for the headers.
    pub icrc: Option<u32>,
}

impl CheckResult {
    /// The ICRC as 8 hex digits in wire byte order (`82fd002a`).
    pub fn icrc_hex(&self) -> Option<String> {
        self.icrc.map(|v| v.to_le_bytes().iter().map(|b| format!("{b:02x}")).collect())
    }

    /// One JSON object for the `ferroce-sim icrc` command.
    pub fn json(&self, frame: usize) -> String {
        let (ok, wire) = if self.roce {
            (self.icrc_ok.to_string(), self.icrc_hex().map_or("null".into(), |h| format!("\"{h}\"")))
        } else {
            ("null".into(), "null".into())
        };
        format!("{{\"frame\":{frame},\"roce\":{},\"icrc_ok\":{ok},\"icrc_wire\":{wire}}}", self.roce)
    }
}

/// The software model of `IcrcCheck`.
pub fn check_model(frame: &[u8]) -> CheckResult {
    match icrc_verdict(frame) {
        IcrcVerdict::NotRoce => CheckResult { roce: false, icrc_ok: false, icrc: None },
        IcrcVerdict::Roce { computed, ok, .. } => CheckResult { roce: true, icrc_ok: ok, icrc: computed },
    }
}

/// The software model of `IcrcInsert`: a RoCEv2 frame (by the same rules as the check) gets the
/// ICRC of everything from its IP header to its end appended; any other frame is unchanged.
pub fn insert_model(frame: &[u8]) -> Vec<u8> {
    let mut out = frame.to_vec();
    if let Some((l2, _, _)) = locate(frame) {
        out.extend_from_slice(&icrc(&frame[l2..]).to_le_bytes());
    }
    out
}

/// Verilator model name of a top at a width.
pub fn model_name(top: &str, width: usize) -> String {
    format!("ferroce_{top}_w{width}")
}

/// Runs frames through the Verilator model of `IcrcCheck`; returns the frames as they came out
/// and the per-frame results.
pub fn check_rtl(frames: &[Vec<u8>], width: usize, traffic: Traffic) -> Result<(FrameRun, Vec<CheckResult>), SimError> {
    let mut m = Model::new(&model_name("icrc_check", width))?;
    let beats: usize = frames.iter().map(|f| f.len().div_ceil(width / 8)).sum();
    let run = run_frames(&mut m, frames, width, traffic, &["m_axis_tuser", "m_icrc", "m_icrc_valid"], beats)?;
    let res = run
        .frames
        .iter()
        .map(|f| CheckResult {
            roce: f.side[0] != verdict::NOT_ROCE,
            icrc_ok: f.side[0] == verdict::ICRC_GOOD,
            icrc: (f.side[2] != 0).then_some(f.side[1] as u32),
        })
        .collect();
    Ok((run, res))
}

/// Runs frames through the Verilator model of `IcrcInsert`.
pub fn insert_rtl(frames: &[Vec<u8>], width: usize, traffic: Traffic) -> Result<FrameRun, SimError> {
    let mut m = Model::new(&model_name("icrc_insert", width))?;
    let beats: usize = frames.iter().map(|f| insert_model(f).len().div_ceil(width / 8)).sum();
    run_frames(&mut m, frames, width, traffic, &[], beats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_shape() {
        let r = CheckResult { roce: true, icrc_ok: true, icrc: Some(u32::from_le_bytes([0x82, 0xfd, 0x00, 0x2a])) };
        assert_eq!(r.json(0), r#"{"frame":0,"roce":true,"icrc_ok":true,"icrc_wire":"82fd002a"}"#);
        let n = CheckResult { roce: false, icrc_ok: false, icrc: None };
        assert_eq!(n.json(3), r#"{"frame":3,"roce":false,"icrc_ok":null,"icrc_wire":null}"#);
    }
}

#[cfg(test)]
mod verdict_codes {
    /// The kernel writes the verdict codes as literals (a path does not translate to Verilog):
    /// keep them equal to the documented constants.
    #[test]
    fn literals_match_constants() {
        let src = include_str!("../../hdl/src/icrc.rs");
        assert!(src.contains("self.ou.d.next = 3.into(); // verdict::ICRC_GOOD"));
        assert!(src.contains("self.ou.d.next = 1.into(); // verdict::ICRC_BAD"));
        assert_eq!(ferroce_hdl::icrc::verdict::ICRC_GOOD, 3);
        assert_eq!(ferroce_hdl::icrc::verdict::ICRC_BAD, 1);
        assert_eq!(ferroce_hdl::icrc::verdict::NOT_ROCE, 0);
    }
}
