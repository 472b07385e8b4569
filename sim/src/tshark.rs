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
    fields_with(pcap, fields, disable, &[])
}

/// [`fields`] with tshark preferences (`-o name:value`), such as `ip.check_checksum:TRUE`.
pub fn fields_with<'f>(
    pcap: &Path,
    fields: &[&'f str],
    disable: &[String],
    preferences: &[&str],
) -> Result<Vec<HashMap<&'f str, Vec<String>>>, String> {
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
    for p in preferences {
        args.push("-o".into());
        args.push(p.to_string());
    }
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

/// Writes `frames` (RoCEv2, Ethernet header to ICRC) to a temporary capture named after
/// `label` and checks that tshark reads every one as InfiniBand, not malformed, with the BTH
/// opcode, DestQP and PSN the wire model reads. A SEND to QP 0 or 1 is taken by tshark for a
/// management datagram (QP 1 is InfiniBand's GSI, where RDMA CM's MADs go), whose random payload
/// it may find malformed: those frames are not held to "not malformed".
pub fn check_roce_frames(label: &str, frames: &[Vec<u8>]) -> Result<(), String> {
    available()?;
    let name = label.replace(|c: char| !c.is_ascii_alphanumeric(), "_");
    let path = std::env::temp_dir().join(format!("ferroce-{}-{name}.pcap", std::process::id()));
    crate::wire::pcap::write_pcap(&path, frames).map_err(|e| format!("{}: {e}", path.display()))?;
    const FIELDS: [&str; 5] = [
        "frame.protocols",
        "infiniband.bth.opcode",
        "infiniband.bth.destqp",
        "infiniband.bth.psn",
        "_ws.malformed",
    ];
    let decoded = fields(&path, &FIELDS, &[]);
    std::fs::remove_file(&path).ok();
    let decoded = decoded?;
    if decoded.len() != frames.len() {
        return Err(format!("{label}: tshark read {} frames of {}", decoded.len(), frames.len()));
    }
    for (i, (t, frame)) in decoded.iter().zip(frames).enumerate() {
        let bth = crate::wire::RoceFrame::parse(frame)
            .map_err(|e| format!("{label}: frame {i} does not parse in the wire model: {e:?}"))?
            .bth;
        let management_qp = bth.dest_qp <= 1;
        if !t["frame.protocols"].join(",").contains("infiniband") || !(management_qp || t["_ws.malformed"].is_empty()) {
            return Err(format!("{label}: frame {i}: tshark decodes {t:?}"));
        }
        let number = |f: &str| -> Option<u32> {
            let v = t[f].first()?;
            v.strip_prefix("0x")
                .map_or_else(|| v.parse().ok(), |h| u32::from_str_radix(h, 16).ok())
        };
        let got = (
            number("infiniband.bth.opcode"),
            number("infiniband.bth.destqp"),
            number("infiniband.bth.psn"),
        );
        let want = (Some(u32::from(bth.opcode.value())), Some(bth.dest_qp), Some(bth.psn));
        if got != want {
            return Err(format!(
                "{label}: frame {i}: tshark reads (opcode, DestQP, PSN) {got:?}, the wire model {want:?}"
            ));
        }
    }
    Ok(())
}

/// Writes the host responder's `replies` (ARP replies and ICMP echo replies) to a temporary
/// capture named after `label` and checks that tshark reads each as a reply from `mac` and
/// `ipv4` to the frame's destination, not malformed, with a good IPv4 header checksum and a
/// good ICMP checksum (tshark verifies both: the IP one with `ip.check_checksum`).
pub fn check_host_replies(label: &str, replies: &[Vec<u8>], mac: [u8; 6], ipv4: std::net::Ipv4Addr) -> Result<(), String> {
    available()?;
    let name = label.replace(|c: char| !c.is_ascii_alphanumeric(), "_");
    let path = std::env::temp_dir().join(format!("ferroce-{}-{name}.pcap", std::process::id()));
    crate::wire::pcap::write_pcap(&path, replies).map_err(|e| format!("{}: {e}", path.display()))?;
    const FIELDS: [&str; 12] = [
        "eth.dst",
        "eth.src",
        "arp.opcode",
        "arp.src.hw_mac",
        "arp.src.proto_ipv4",
        "arp.dst.hw_mac",
        "ip.src",
        "ip.checksum.status",
        "icmp.type",
        "icmp.code",
        "icmp.checksum.status",
        "_ws.malformed",
    ];
    let decoded = fields_with(&path, &FIELDS, &[], &["ip.check_checksum:TRUE"]);
    std::fs::remove_file(&path).ok();
    let decoded = decoded?;
    if decoded.len() != replies.len() {
        return Err(format!("{label}: tshark read {} frames of {}", decoded.len(), replies.len()));
    }
    let mac_text = mac.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":");
    let ip_text = ipv4.to_string();
    for (i, t) in decoded.iter().enumerate() {
        let one = |f: &str| t[f].first().map(String::as_str);
        let from_us = one("eth.src") == Some(mac_text.as_str()) && t["_ws.malformed"].is_empty();
        let arp_ok = one("arp.opcode") == Some("2")
            && one("arp.src.hw_mac") == Some(mac_text.as_str())
            && one("arp.src.proto_ipv4") == Some(ip_text.as_str())
            && one("arp.dst.hw_mac") == one("eth.dst");
        let echo_ok = one("icmp.type") == Some("0")
            && one("icmp.code") == Some("0")
            && one("ip.src") == Some(ip_text.as_str())
            && one("ip.checksum.status") == Some("1")
            && one("icmp.checksum.status") == Some("1");
        if !from_us || !(arp_ok || echo_ok) {
            return Err(format!("{label}: reply {i}: tshark decodes {t:?}"));
        }
    }
    Ok(())
}
