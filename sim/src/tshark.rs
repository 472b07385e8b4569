//! tshark (Wireshark's dissectors), an independent decoder of RoCEv2: fields of every frame of
//! a capture, with the heuristic dissectors that take InfiniBand payload bytes for headers of
//! their own (RPC-over-RDMA, iSER, SMB Direct, Ethernet over IB, ...) turned off, so a payload
//! stays plain data.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

/// An error unless tshark runs, saying how to install it.
pub fn available() -> Result<(), String> {
    let ok = Command::new("tshark")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if ok {
        Ok(())
    } else {
        Err(
            "tshark is needed (an independent decoder of RoCEv2): install it with `sudo apt-get install tshark` \
             (Debian/Ubuntu); scripts/test.sh installs it when missing"
                .into(),
        )
    }
}

/// The protocols whose heuristic dissectors tshark tries on InfiniBand payloads, but Ethertype.
fn payload_heuristics() -> Result<Vec<String>, String> {
    let o = Command::new("tshark")
        .args(["-G", "heuristic-decodes"])
        .output()
        .map_err(|e| format!("tshark: {e}"))?;
    if !o.status.success() {
        return Err(format!("tshark -G heuristic-decodes: {}", String::from_utf8_lossy(&o.stderr)));
    }
    let heuristics: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            (c.len() >= 2 && c[0] == "infiniband.payload" && c[1] != "ethertype").then(|| c[1].to_string())
        })
        .collect();
    if !heuristics.iter().any(|h| h == "rpcordma") {
        return Err(format!("tshark lists no InfiniBand payload heuristics: {heuristics:?}"));
    }
    Ok(heuristics)
}

/// Per frame of `pcap`, a map of each of `fields` to its values (tshark's occurrences, empty
/// when the frame has none); the protocols `disable` are turned off too.
pub fn fields<'f>(pcap: &Path, fields: &[&'f str], disable: &[String]) -> Result<Vec<HashMap<&'f str, Vec<String>>>, String> {
    let mut args: Vec<String> = [
        "-n",
        "-T",
        "fields",
        "-E",
        "separator=/t",
        "-E",
        "occurrence=a",
        "-E",
        "aggregator=,",
        "-r",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(pcap.to_string_lossy().into_owned());
    for p in payload_heuristics()?.iter().chain(disable) {
        args.push("--disable-protocol".into());
        args.push(p.clone());
    }
    // Ethertype's own heuristic on InfiniBand payloads (Ethernet over IB).
    args.push("--disable-heuristic".into());
    args.push("eth_over_ib".into());
    for f in fields {
        args.push("-e".into());
        args.push(f.to_string());
    }
    let o = Command::new("tshark").args(&args).output().map_err(|e| format!("tshark: {e}"))?;
    if !o.status.success() {
        return Err(format!("tshark failed: {}", String::from_utf8_lossy(&o.stderr)));
    }
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| {
            let columns: Vec<&str> = l.split('\t').collect();
            if columns.len() != fields.len() {
                return Err(format!("tshark printed {} columns for {} fields: {l}", columns.len(), fields.len()));
            }
            Ok(fields
                .iter()
                .zip(columns)
                .map(|(f, c)| {
                    (
                        *f,
                        if c.is_empty() {
                            vec![]
                        } else {
                            c.split(',').map(String::from).collect()
                        },
                    )
                })
                .collect())
        })
        .collect()
}
