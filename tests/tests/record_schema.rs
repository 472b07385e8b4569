//! The RX record schema of `ferroce-contracts` is what the RTL puts on its ports: every field of
//! the schema is a port `r_<name>` of `RxFront` and (for the header fields) `h_<name>` of
//! `RxHeader`, with the schema's width, at every bus width; and every drop reason has its
//! `cnt_drop_<name>` counter port.

use ferroce_contracts::rx::{record, DropReason, RecordField};
use ferroce_hdl::{emit, tops};

/// Output ports (name, width) of a top.
fn outputs(verilog: &str, module: &str) -> Vec<(String, usize)> {
    emit::ports(verilog, module)
        .into_iter()
        .filter(|p| !p.input)
        .map(|p| (p.name, p.width))
        .collect()
}

fn check(top: &str, variant: &str, prefix: &str, fields: &[RecordField]) {
    let t = tops::find(top).unwrap();
    let ports = outputs(&t.verilog(variant), &t.module_name(variant));
    for f in fields {
        let name = format!("{prefix}{}", f.name);
        let port = ports.iter().find(|(n, _)| *n == name);
        assert_eq!(
            port.map(|p| p.1),
            Some(f.width),
            "{top} {variant}: port {name} of the schema ({} bits)",
            f.width
        );
    }
    let schema: Vec<String> = fields.iter().map(|f| format!("{prefix}{}", f.name)).collect();
    let extra: Vec<_> = ports.iter().filter(|(n, _)| n.starts_with(prefix) && !schema.contains(n)).collect();
    if prefix == record::FRONT_PREFIX {
        assert!(
            extra.iter().all(|(n, _)| n == "r_valid"),
            "{top} {variant}: record ports outside the schema: {extra:?}"
        );
    }
}

#[test]
fn rx_front_record_ports_are_the_schema() {
    let fields: Vec<RecordField> = record::front().collect();
    for variant in ["w64", "w512"] {
        check("rx_front", variant, record::FRONT_PREFIX, &fields);
    }
}

#[test]
fn rx_header_record_ports_carry_the_header_fields() {
    for variant in ["w64", "w512"] {
        check("rx_header", variant, record::HEADER_PREFIX, &record::HEADER);
    }
}

#[test]
fn every_drop_reason_has_a_counter_port() {
    let t = tops::find("rx_front").unwrap();
    let ports = outputs(&t.verilog("w512"), &t.module_name("w512"));
    for r in DropReason::ALL {
        assert!(
            ports.iter().any(|(n, w)| *n == r.counter_port() && *w == 32),
            "no 32-bit port {}",
            r.counter_port()
        );
    }
}

#[test]
fn every_stream_drop_reason_has_a_counter_port() {
    let t = tops::find("stream_port").unwrap();
    for variant in ["w64", "w512"] {
        let ports = outputs(&t.verilog(variant), &t.module_name(variant));
        for r in ferroce_contracts::stream::StreamDrop::ALL {
            let name = format!("dropped_{}", r.name());
            assert!(
                ports.iter().any(|(n, w)| *n == name && *w == 32),
                "stream_port {variant}: no 32-bit port {name}"
            );
        }
    }
}
