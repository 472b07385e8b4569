//! An oracle this project did not write: tshark (Wireshark's dissectors) decodes a capture of
//! crafted frames, random frames and scapy's frames, and for every frame `ferroce-sim rx`
//! accepts, every field it prints agrees with tshark's: Ethernet, outer VLAN, IPv4/IPv6, UDP,
//! BTH, RETH, AETH, ImmDt, the payload (length and CRC-32 of tshark's bytes without the pad)
//! and where the ICRC sits. tshark does not verify the ICRC; it shows the 4 bytes it finds at
//! the end of the UDP datagram, which must be the ICRC we check.
//!
//! tshark 4.0 has no FECN/BECN fields: they are read from the raw BTH bytes tshark delimits
//! (`infiniband.bth`, byte 4).
//!
//! Needs tshark (Debian: `apt-get install tshark`); without it the test fails.

use ferroce_sim::rx::craft::{crafted, random_frames};
use ferroce_sim::rx::{classify, icrc_fixed};
use ferroce_sim::wire::pcap::{read_pcap, write_pcap};
use serde_json::Value;
use std::collections::HashMap;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::process::Command;

const FIELDS: [&str; 41] = [
    "frame.number",
    "frame.protocols",
    "eth.dst",
    "eth.src",
    "vlan.id",
    "ieee8021ad.id",
    "ieee8021ad.svid",
    "ieee8021ad.cvid",
    "ip.src",
    "ip.dst",
    "ip.dsfield.dscp",
    "ip.dsfield.ecn",
    "ip.ttl",
    "ip.hdr_len",
    "ipv6.src",
    "ipv6.dst",
    "ipv6.tclass.dscp",
    "ipv6.tclass.ecn",
    "ipv6.hlim",
    "ipv6.nxt",
    "udp.srcport",
    "udp.dstport",
    "infiniband.bth",
    "infiniband.bth.opcode",
    "infiniband.bth.se",
    "infiniband.bth.m",
    "infiniband.bth.padcnt",
    "infiniband.bth.tver",
    "infiniband.bth.p_key",
    "infiniband.bth.destqp",
    "infiniband.bth.a",
    "infiniband.bth.psn",
    "infiniband.reth.va",
    "infiniband.reth.r_key",
    "infiniband.reth.dmalen",
    "infiniband.aeth.syndrome",
    "infiniband.aeth.msn",
    "infiniband.immdt",
    "infiniband.invariant.crc",
    "data.data",
    "infiniband.vendor",
];

fn tshark_or_fail() {
    ferroce_sim::tshark::available().unwrap_or_else(|e| panic!("{e}"));
}

/// One map of field name to its values (tshark's comma-separated occurrences) per frame.
fn tshark(pcap: &std::path::Path, disable: &[String]) -> Vec<HashMap<&'static str, Vec<String>>> {
    ferroce_sim::tshark::fields(pcap, &FIELDS, disable).unwrap_or_else(|e| panic!("{e}"))
}

/// A number as tshark prints it: decimal, or 0x-prefixed hex for hex-based fields.
fn num(s: &str) -> u64 {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap_or_else(|_| panic!("not hex: {s}")),
        None => s.parse().unwrap_or_else(|_| panic!("not a number: {s}")),
    }
}

fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| *c != ':').collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// `ferroce-sim rx` with its default engine, the RTL of the RX front end (checked to print what
/// the software model prints, so the comparison with tshark covers both).
fn sim_rx(pcap: &std::path::Path) -> Vec<Value> {
    let run = |engine: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_ferroce-sim"));
        c.args(["rx", "--pcap", pcap.to_str().unwrap()]);
        if let Some(e) = engine {
            c.args(["--engine", e]);
        }
        let o = c.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let rtl = run(None);
    assert!(
        rtl == run(Some("model")),
        "ferroce-sim rx: the RTL and the model print different lines"
    );
    rtl.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn tshark_agrees_with_rx_on_every_accepted_frame() {
    tshark_or_fail();
    let dir = std::env::temp_dir().join(format!("ferroce-rx-tshark-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut frames: Vec<Vec<u8>> = crafted().into_iter().map(|c| c.frame).collect();
    let scapy = read_pcap(concat!(env!("CARGO_MANIFEST_DIR"), "/wire/vectors/scapy_roce.pcap"), false).unwrap();
    frames.extend(scapy.iter().cloned());
    frames.extend(random_frames(0x75A4, 1500));
    let pcap = dir.join("rx-tshark.pcap");
    write_pcap(&pcap, &frames).unwrap();
    let ours = sim_rx(&pcap);
    // tshark picks the UDP dissector by the lower of the two ports: a random source port that
    // is some protocol's well-known port takes the datagram from InfiniBand. Disable those
    // protocols and decode again.
    let mut disable: Vec<String> = Vec::new();
    let theirs = loop {
        let t = tshark(&pcap, &disable);
        let mut more: Vec<String> = ours
            .iter()
            .zip(&t)
            .filter(|(j, _)| j["verdict"] != "pass")
            .filter_map(|(_, t)| {
                let protos: Vec<&str> = t["frame.protocols"][0].split(':').collect();
                let u = protos.iter().position(|p| *p == "udp")?;
                let next = protos.get(u + 1)?;
                (*next != "infiniband" && *next != "data").then(|| next.to_string())
            })
            .collect();
        more.sort();
        more.dedup();
        if more.is_empty() {
            break t;
        }
        assert!(
            disable.len() < 40,
            "tshark keeps giving RoCEv2 datagrams to other protocols: {disable:?} {more:?}"
        );
        disable.extend(more);
    };
    assert_eq!(ours.len(), frames.len());
    assert_eq!(theirs.len(), frames.len());

    let (mut accepted, mut with_reth, mut with_aeth, mut with_imm, mut with_vlan, mut v6, mut with_payload, mut cnp) =
        (0, 0, 0, 0, 0, 0, 0, 0);
    let mut pass_decoded_by_tshark = 0;
    for (i, ((j, t), f)) in ours.iter().zip(&theirs).zip(&frames).enumerate() {
        let one = |k: &str| -> Option<&str> { t[k].first().map(|s| s.as_str()) };
        let get = |k: &str| -> &str { one(k).unwrap_or_else(|| panic!("frame {i}: tshark has no {k}: {t:?}")) };
        assert_eq!(num(get("frame.number")), i as u64 + 1);
        let protos: Vec<&str> = get("frame.protocols").split(':').collect();
        let tags: Vec<&str> = protos.iter().copied().filter(|p| *p == "vlan" || *p == "ieee8021ad").collect();
        match j["verdict"].as_str().unwrap() {
            "pass" => {
                // Frames tshark still decodes as InfiniBand are RoCEv2 the parser does not
                // support (IPv4 options, IPv6 extension headers, three VLAN tags) or UDP from
                // port 4791 to another port (tshark matches either port), or RoCEv1 (ethertype
                // 0x8915).
                if protos.contains(&"infiniband") {
                    pass_decoded_by_tshark += 1;
                    let ihl_not_5 = one("ip.hdr_len").is_some_and(|h| num(h) != 20);
                    let v6_ext = one("ipv6.nxt").is_some_and(|n| num(n) != 17);
                    let from_4791 = one("udp.srcport") == Some("4791") && one("udp.dstport") != Some("4791");
                    let roce_v1 = !protos.contains(&"udp");
                    // Each tag shows as a vlan.id, an ieee8021ad.id, or (an 802.1ad tag followed
                    // by an 802.1Q tag) an S-VID and a C-VID.
                    let ntags: usize = ["vlan.id", "ieee8021ad.id", "ieee8021ad.svid", "ieee8021ad.cvid"]
                        .iter()
                        .map(|k| t[k].len())
                        .sum();
                    assert!(
                        ihl_not_5 || v6_ext || ntags > 2 || from_4791 || roce_v1,
                        "frame {i}: pass, but tshark decodes InfiniBand: {t:?}"
                    );
                }
                continue;
            }
            "drop" => {
                // Drops with sane headers: tshark reads the same BTH.
                let r = j["reason"].as_str().unwrap();
                if ["icrc", "tver", "opcode", "padcnt"].contains(&r) {
                    assert!(protos.contains(&"infiniband"), "frame {i} ({r}): {t:?}");
                    if one("infiniband.bth.opcode").is_none() {
                        // tshark gives up on a BTH whose PadCnt exceeds the bytes after it.
                        assert!(j["bth_padcnt"].as_u64().unwrap() > 0 && r != "icrc", "frame {i} ({r}): {t:?}");
                        continue;
                    }
                    for (ours_k, theirs_k) in [
                        ("bth_opcode", "infiniband.bth.opcode"),
                        ("bth_tver", "infiniband.bth.tver"),
                        ("bth_psn", "infiniband.bth.psn"),
                        ("bth_dqpn", "infiniband.bth.destqp"),
                    ] {
                        assert_eq!(j[ours_k].as_u64().unwrap(), num(get(theirs_k)), "frame {i} ({r}): {ours_k}");
                    }
                }
                continue;
            }
            "accept" => {}
            v => panic!("frame {i}: verdict {v}"),
        }
        accepted += 1;
        let ctx = format!("frame {i}: ours {j}\ntshark {t:?}");
        assert!(protos.contains(&"infiniband"), "{ctx}");
        assert_eq!(j["eth_dst"], get("eth.dst"), "{ctx}");
        assert_eq!(j["eth_src"], get("eth.src"), "{ctx}");
        // Outer VLAN: the first tag in protocol order, from the field of its kind.
        match tags.first() {
            None => assert!(j["vlan"].is_null(), "{ctx}"),
            Some(kind) => {
                with_vlan += 1;
                // tshark shows an 802.1ad tag followed by an 802.1Q tag as one item with an
                // S-VID and a C-VID, any other 802.1ad tag with an ID.
                let field = match *kind {
                    "vlan" => "vlan.id",
                    _ if one("ieee8021ad.svid").is_some() => "ieee8021ad.svid",
                    _ => "ieee8021ad.id",
                };
                assert_eq!(j["vlan"].as_u64().unwrap(), num(get(field)), "{ctx}");
            }
        }
        if j["ip_version"] == 4 {
            assert_eq!(
                j["ip_src"].as_str().unwrap().parse::<Ipv4Addr>().unwrap(),
                get("ip.src").parse::<Ipv4Addr>().unwrap(),
                "{ctx}"
            );
            assert_eq!(
                j["ip_dst"].as_str().unwrap().parse::<Ipv4Addr>().unwrap(),
                get("ip.dst").parse::<Ipv4Addr>().unwrap(),
                "{ctx}"
            );
            assert_eq!(j["ip_dscp"].as_u64().unwrap(), num(get("ip.dsfield.dscp")), "{ctx}");
            assert_eq!(j["ip_ecn"].as_u64().unwrap(), num(get("ip.dsfield.ecn")), "{ctx}");
            assert_eq!(j["ip_ttl"].as_u64().unwrap(), num(get("ip.ttl")), "{ctx}");
        } else {
            v6 += 1;
            assert_eq!(j["ip_version"], 6, "{ctx}");
            assert_eq!(
                j["ip_src"].as_str().unwrap().parse::<Ipv6Addr>().unwrap(),
                get("ipv6.src").parse::<Ipv6Addr>().unwrap(),
                "{ctx}"
            );
            assert_eq!(
                j["ip_dst"].as_str().unwrap().parse::<Ipv6Addr>().unwrap(),
                get("ipv6.dst").parse::<Ipv6Addr>().unwrap(),
                "{ctx}"
            );
            assert_eq!(j["ip_dscp"].as_u64().unwrap(), num(get("ipv6.tclass.dscp")), "{ctx}");
            assert_eq!(j["ip_ecn"].as_u64().unwrap(), num(get("ipv6.tclass.ecn")), "{ctx}");
            assert_eq!(j["ip_ttl"].as_u64().unwrap(), num(get("ipv6.hlim")), "{ctx}");
        }
        assert_eq!(j["udp_sport"].as_u64().unwrap(), num(get("udp.srcport")), "{ctx}");
        assert_eq!(j["udp_dport"].as_u64().unwrap(), num(get("udp.dstport")), "{ctx}");
        for (ours_k, theirs_k) in [
            ("bth_opcode", "infiniband.bth.opcode"),
            ("bth_se", "infiniband.bth.se"),
            ("bth_m", "infiniband.bth.m"),
            ("bth_padcnt", "infiniband.bth.padcnt"),
            ("bth_tver", "infiniband.bth.tver"),
            ("bth_pkey", "infiniband.bth.p_key"),
            ("bth_dqpn", "infiniband.bth.destqp"),
            ("bth_ackreq", "infiniband.bth.a"),
            ("bth_psn", "infiniband.bth.psn"),
        ] {
            assert_eq!(j[ours_k].as_u64().unwrap(), num(get(theirs_k)), "{ours_k}: {ctx}");
        }
        let raw_bth = unhex(get("infiniband.bth"));
        assert_eq!(raw_bth.len(), 12, "{ctx}");
        assert_eq!(j["bth_fecn"].as_u64().unwrap(), u64::from(raw_bth[4] >> 7), "{ctx}");
        assert_eq!(j["bth_becn"].as_u64().unwrap(), u64::from((raw_bth[4] >> 6) & 1), "{ctx}");
        // Extension headers.
        if j["reth"].is_null() {
            // tshark shows the AtomicETH's VA and R_Key under the RETH field names; only a
            // RETH has a DMA length.
            assert!(one("infiniband.reth.dmalen").is_none(), "{ctx}");
        } else {
            with_reth += 1;
            let va = j["reth"]["va"].as_str().unwrap();
            assert_eq!(num(va), num(get("infiniband.reth.va")), "{ctx}");
            assert_eq!(j["reth"]["rkey"].as_u64().unwrap(), num(get("infiniband.reth.r_key")), "{ctx}");
            assert_eq!(j["reth"]["dmalen"].as_u64().unwrap(), num(get("infiniband.reth.dmalen")), "{ctx}");
        }
        if j["aeth"].is_null() {
            assert!(one("infiniband.aeth.msn").is_none(), "{ctx}");
        } else {
            with_aeth += 1;
            assert_eq!(
                j["aeth"]["syndrome"].as_u64().unwrap(),
                num(get("infiniband.aeth.syndrome")),
                "{ctx}"
            );
            assert_eq!(j["aeth"]["msn"].as_u64().unwrap(), num(get("infiniband.aeth.msn")), "{ctx}");
        }
        if j["immdt"].is_null() {
            assert!(one("infiniband.immdt").is_none(), "{ctx}");
        } else {
            with_imm += 1;
            let b = unhex(get("infiniband.immdt"));
            assert_eq!(
                j["immdt"].as_u64().unwrap(),
                u64::from(u32::from_be_bytes(b.try_into().unwrap())),
                "{ctx}"
            );
        }
        let lay = classify(f).unwrap();
        let l2 = lay.l2;
        let iplen = if lay.v6 {
            40 + usize::from(u16::from_be_bytes([f[l2 + 4], f[l2 + 5]]))
        } else {
            usize::from(u16::from_be_bytes([f[l2 + 2], f[l2 + 3]]))
        };
        let end = l2 + iplen;
        let wire = u32::from_be_bytes(f[end - 4..end].try_into().unwrap());
        assert_eq!(icrc_fixed(&f[l2..end - 4], lay.v6).to_le_bytes(), f[end - 4..end], "{ctx}");
        if j["bth_opcode"] == 0x81 {
            // tshark 4.0 does not know the CNP: it shows the 16 reserved bytes and the ICRC as
            // one unknown header.
            cnp += 1;
            let v = unhex(t["infiniband.vendor"].last().unwrap_or_else(|| panic!("{ctx}")));
            assert_eq!(v.len(), 20, "{ctx}");
            assert_eq!(u32::from_be_bytes(v[16..].try_into().unwrap()), wire, "{ctx}");
            assert_eq!(j["payload_len"], 0, "{ctx}");
            continue;
        }
        // Payload: tshark's data bytes are payload and pad.
        let data = one("data.data").map(unhex).unwrap_or_default();
        let pad = j["bth_padcnt"].as_u64().unwrap() as usize;
        assert!(data.len() >= pad || data.is_empty(), "{ctx}");
        let payload = &data[..data.len().saturating_sub(pad)];
        assert_eq!(j["payload_len"].as_u64().unwrap() as usize, payload.len(), "{ctx}");
        assert_eq!(
            j["payload_crc32"],
            format!("{:08x}", crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC).checksum(payload)),
            "{ctx}"
        );
        with_payload += usize::from(!payload.is_empty());
        // tshark's ICRC is the 4 bytes at the end of the IP packet (MAC padding excluded), and
        // they are the ICRC the parser checked.
        assert_eq!(num(get("infiniband.invariant.crc")), u64::from(wire), "{ctx}");
    }
    eprintln!(
        "tshark agrees on {accepted} accepted frames ({v6} IPv6, {with_vlan} tagged, {with_reth} RETH, {with_aeth} AETH, \
         {with_imm} ImmDt, {cnp} CNP, {with_payload} with payload); protocols disabled: {disable:?}"
    );
    assert!(accepted > 900, "{accepted} accepted");
    assert!(with_reth > 50 && with_aeth > 50 && with_imm > 50 && with_vlan > 300 && v6 > 300 && with_payload > 500);
    assert!(
        pass_decoded_by_tshark > 0 && cnp > 6,
        "{pass_decoded_by_tshark} pass frames decoded by tshark, {cnp} CNPs"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
