//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A CNP captured from a Mellanox ConnectX-4 Lx; ICRC 82 fd 00 2a.
pub const CX4_CNP: &str = "e41d2dab2bc27cfe90643b32080045c2003c718c400040119161\
0a0011010a001201000012b7002800008100ffff400001180000\
00000000000000000000000000000000000082fd002a";

/// scapy's UC SEND-only test vector; ICRC 78 f3 53 f3.
pub const SCAPY_UC_SEND: &str = "248a07a8fa22248a07a8fa22080045010040047840004011b4d5c0a80007c0a80007c00012b7002caca22460ffff000000d3\
00cf17104630818be28935d90e9a95505401be885e50000078f353f3";
