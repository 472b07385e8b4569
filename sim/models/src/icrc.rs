//! The software models that `IcrcCheck` and `IcrcInsert` must match, built on the
//! `ferroce-wire` ICRC (which is checked against zlib, scapy and a real NIC's vector).

use crate::wire::icrc::{icrc, icrc_verdict, locate, IcrcVerdict};
use crate::FrameEngine;

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
            (
                self.icrc_ok.to_string(),
                self.icrc_hex().map_or("null".into(), |h| format!("\"{h}\"")),
            )
        } else {
            ("null".into(), "null".into())
        };
        format!("{{\"frame\":{frame},\"roce\":{},\"icrc_ok\":{ok},\"icrc_wire\":{wire}}}", self.roce)
    }
}

/// The software model of `IcrcCheck`.
pub fn check_model(frame: &[u8]) -> CheckResult {
    match icrc_verdict(frame) {
        IcrcVerdict::NotRoce => CheckResult {
            roce: false,
            icrc_ok: false,
            icrc: None,
        },
        IcrcVerdict::Roce { computed, ok, .. } => CheckResult {
            roce: true,
            icrc_ok: ok,
            icrc: computed,
        },
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

/// [`check_model`] as a [`FrameEngine`].
#[derive(Debug, Clone, Copy, Default)]
pub struct IcrcCheckModel;

impl FrameEngine for IcrcCheckModel {
    type Output = CheckResult;
    fn run(&mut self, frames: &[Vec<u8>]) -> Result<Vec<CheckResult>, String> {
        Ok(frames.iter().map(|f| check_model(f)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_shape() {
        let r = CheckResult {
            roce: true,
            icrc_ok: true,
            icrc: Some(u32::from_le_bytes([0x82, 0xfd, 0x00, 0x2a])),
        };
        assert_eq!(r.json(0), r#"{"frame":0,"roce":true,"icrc_ok":true,"icrc_wire":"82fd002a"}"#);
        let n = CheckResult {
            roce: false,
            icrc_ok: false,
            icrc: None,
        };
        assert_eq!(n.json(3), r#"{"frame":3,"roce":false,"icrc_ok":null,"icrc_wire":null}"#);
    }
}
