use ferroce_hdl::common::checksum::*;
use rust_hdl::prelude::*;

fn header_bits(bytes: &[u8; 20]) -> Bits<IPV4_HEADER_BITS> {
    let mut v = num_bigint::BigUint::default();
    for (p, b) in bytes.iter().enumerate() {
        v |= num_bigint::BigUint::from(*b) << (8 * p);
    }
    Bits::from(v)
}

/// The block's verdicts on `headers`, one header a cycle, through rust-hdl's simulator.
fn verdicts(headers: Vec<[u8; 20]>) -> Vec<bool> {
    let mut uut = Ipv4HeaderCheck::default();
    uut.connect_all();
    let mut sim = Simulation::new();
    let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = out.clone();
    let count = headers.len();
    sim.add_testbench(move |mut sim: Sim<Ipv4HeaderCheck>| {
        let mut x = sim.init()?;
        for cycle in 0..count + 2 {
            if let Some(h) = headers.get(cycle) {
                x.header.next = header_bits(h);
            }
            x = sim.wait(1, x)?;
            x.clock.next = true.into();
            x = sim.wait(1, x)?;
            x.clock.next = false.into();
            if cycle >= 2 {
                seen.lock().unwrap().push(x.good.val());
            }
        }
        sim.done(x)
    });
    sim.run(Box::new(uut), 100_000).unwrap();
    let v = out.lock().unwrap().clone();
    v
}

/// The checksum that makes `bytes` verify (RFC 1071).
fn fill(mut bytes: [u8; 20]) -> [u8; 20] {
    bytes[10] = 0;
    bytes[11] = 0;
    let mut sum: u32 = bytes.chunks(2).map(|w| u32::from(w[0]) << 8 | u32::from(w[1])).sum();
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    let c = !(sum as u16);
    bytes[10..12].copy_from_slice(&c.to_be_bytes());
    bytes
}

#[test]
fn good_headers_verify_and_a_changed_bit_does_not() {
    // Wikipedia's example header (checksum 0xB861), then headers of a simple generator with
    // their checksums filled, each followed by itself with one bit changed.
    let example = [
        0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xB8, 0x61, 0xC0, 0xA8, 0x00, 0x01, 0xC0, 0xA8, 0x00, 0xC7,
    ];
    assert_eq!(fill(example), example);
    let mut headers = Vec::new();
    let mut state: u32 = 1;
    for k in 0..40usize {
        let mut h = example;
        for b in h.iter_mut().skip(2) {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            *b = (state >> 16) as u8;
        }
        // some all-ones words, where the end-around carry matters
        if k % 5 == 0 {
            h[12..20].fill(0xFF);
        }
        let good = fill(h);
        let mut bad = good;
        bad[k % 20] ^= 1 << (k % 8);
        headers.push(good);
        headers.push(bad);
    }
    let verdicts = verdicts(headers);
    for (i, v) in verdicts.iter().enumerate() {
        assert_eq!(*v, i % 2 == 0, "header {i}");
    }
}
