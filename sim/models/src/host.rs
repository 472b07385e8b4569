//! The host path (`HostResponder`): what the engine does with the frames the RX front end
//! passes through (every frame that is not RoCEv2). For its own address it answers ARP
//! requests and ICMP echo requests itself; every other frame goes to the host untouched.
//! The contract (reply buffer, classified head, drop reasons) is
//! [`crate::contracts::host`].
//!
//! [`answer`] gives one [`HostVerdict`] per frame (Ethernet without FCS); [`HostPath`] runs a
//! stream of frames through it and collects the replies, the frames passed to the host and
//! the [`HostCounters`], for a co-simulation to compare against the RTL.
//!
//! # Classification
//!
//! `tags` = the number of leading VLAN TPIDs (0x8100 or 0x88A8) from byte 12, at most 2, each
//! counted only if the frame holds it; `l2 = 14 + 4·tags`; the ethertype is the word before
//! `l2`. When the local IPv4 address is 0.0.0.0 every frame is `Pass`.
//!
//! **ARP request** (ethertype 0x0806), all of: frame length ≥ `l2 + 28`; hardware type 1,
//! protocol type 0x0800, address lengths 6 and 4; operation 1 (request); target IP = local
//! IP.
//!
//! **Echo request** (ethertype 0x0800), all of: frame length ≥ `l2 + 24` (the IP header and
//! the ICMP type, code and checksum: [`ECHO_CLASSIFY_LEN`] after the untagged header); the
//! version/IHL byte is 0x45; MF clear and fragment offset 0 (DF may be set, the reserved flag
//! may not); protocol 1; destination IP = local IP; the IPv4 header checksum verifies; total
//! length ≥ 28 ([`ECHO_MIN_DATAGRAM`]); `l2 + total length ≤` the reply buffer
//! ([`reply_capacity`] of the bus width: [`REPLY_CAPACITY`], 2048 bytes, at 512 bits);
//! ICMP type 8, code 0. The ICMP checksum is not verified.
//!
//! Anything else is `Pass`.
//!
//! # Drops (found at the end of an accepted echo request)
//!
//! | reason | condition |
//! |---|---|
//! | [`HostDrop::Truncated`] | frame length < `l2 + total length` |
//! | [`HostDrop::TooLong`] | frame length > the reply buffer (what follows the datagram does not fit) |
//!
//! # Replies
//!
//! A reply is the request frame, same length, byte for byte, with these fields rewritten;
//! VLAN tags, ethertype, padding and trailer stay as they were.
//!
//! * **ARP**: Ethernet destination ← the request's sender MAC, Ethernet source ← local MAC;
//!   operation ← 2; sender ← local MAC and IP; target ← the request's sender MAC and IP.
//! * **Echo**: Ethernet destination ← the request's Ethernet source, Ethernet source ← local
//!   MAC; IP source and destination swapped (TTL, identification and header checksum kept:
//!   the swap keeps the sum); ICMP type ← 0; ICMP checksum updated for the type/code word
//!   0x0800 → 0x0000 by RFC 1624 ([`icmp::update_checksum`]), a result of 0x0000 written
//!   0xFFFF (both are zero in ones' complement; 0xFFFF also verifies when the rest of the
//!   message is all zero, where the update alone gives 0x0000).
//!
//! Since the ICMP checksum is updated, not recomputed, a request whose checksum was wrong
//! gets a reply whose checksum is wrong and the requester drops it.
//!
//! # Deferred requests
//!
//! The RTL has one reply buffer. A reply candidate that arrives while it is busy goes to the
//! host (which then answers it) and counts as `deferred`. That depends on timing, which the
//! model does not see: the model never defers, and its `deferred` counter stays 0. A
//! co-simulation compares with [`HostCounters::consistent_with`] and takes the deferred
//! candidates out of the model's replies and drops (they appear in the hardware's pass-through
//! stream instead).
//!
//! ```
//! use ferroce_models::host::{answer, craft::HostFrameGen, HostAddress, HostVerdict, ReplyKind};
//! use std::net::Ipv4Addr;
//!
//! let local = HostAddress::new([0x02, 0, 0, 0, 0, 1], Ipv4Addr::new(10, 0, 0, 2));
//! let request = HostFrameGen::new(1).arp_request(1, local.ipv4);
//! let HostVerdict::Reply { kind, frame } = answer(&request, &local) else { panic!() };
//! assert_eq!((kind, frame.len()), (ReplyKind::Arp, request.len()));
//! assert_eq!(answer(&request, &HostAddress::new(local.mac, Ipv4Addr::UNSPECIFIED)), HostVerdict::Pass);
//! ```

pub mod craft;

use crate::wire::ethernet::{self, MacAddr, ETHERTYPE_ARP, ETHERTYPE_IPV4};
use crate::wire::{arp, icmp, ipv4};
use crate::FrameEngine;
use std::net::Ipv4Addr;

pub use crate::contracts::host::{
    reply_capacity, HostDrop, ECHO_CLASSIFY_LEN, ECHO_MIN_DATAGRAM, ECHO_TYPE_WORD, REPLY_CAPACITY, WINDOW_BYTES,
};

/// The version/IHL byte of an IPv4 header without options (0x45).
const VERSION_IHL_NO_OPTIONS: u8 = (ipv4::VERSION << 4) | ipv4::IHL;

/// Bytes of an echo request the classifier needs after the VLAN tags.
const ECHO_HEAD_AFTER_L2: usize = ECHO_CLASSIFY_LEN - ethernet::HEADER_LEN;

/// The engine's own address: the one it answers ARP and echo requests for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HostAddress {
    /// The engine's MAC address (source of its replies).
    pub mac: MacAddr,
    /// The engine's IPv4 address; 0.0.0.0 (not configured) answers nothing.
    pub ipv4: Ipv4Addr,
}

impl HostAddress {
    /// An address from its parts.
    pub const fn new(mac: MacAddr, ipv4: Ipv4Addr) -> HostAddress {
        HostAddress { mac, ipv4 }
    }
    /// False while the IPv4 address is 0.0.0.0: every frame then goes to the host.
    pub fn is_configured(&self) -> bool {
        !self.ipv4.is_unspecified()
    }
}

/// Which request a reply answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReplyKind {
    /// An ARP reply.
    Arp,
    /// An ICMP echo reply.
    Echo,
}

impl ReplyKind {
    /// Both kinds.
    pub const ALL: [ReplyKind; 2] = [ReplyKind::Arp, ReplyKind::Echo];
    /// `arp` or `echo`.
    pub const fn name(self) -> &'static str {
        match self {
            ReplyKind::Arp => "arp",
            ReplyKind::Echo => "echo",
        }
    }
}

/// What the host path does with one frame.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum HostVerdict {
    /// Not for the engine: the frame goes to the host untouched.
    Pass,
    /// Answered: `frame` goes out on the reply stream (the request goes nowhere).
    Reply {
        /// ARP or echo.
        kind: ReplyKind,
        /// The reply frame (no FCS), as long as the request.
        frame: Vec<u8>,
    },
    /// An echo request found unanswerable at its end: it goes nowhere.
    Drop(HostDrop),
}

impl HostVerdict {
    /// The verdict without the reply frame.
    pub fn outcome(&self) -> HostOutcome {
        match self {
            HostVerdict::Pass => HostOutcome::Pass,
            HostVerdict::Reply { kind, .. } => HostOutcome::Reply(*kind),
            HostVerdict::Drop(r) => HostOutcome::Drop(*r),
        }
    }
}

/// A [`HostVerdict`] without the reply frame: what tests expect and counters count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HostOutcome {
    /// To the host.
    Pass,
    /// Answered.
    Reply(ReplyKind),
    /// Dropped.
    Drop(HostDrop),
}

/// The host path's verdict on one frame at 512 bits (a reply buffer of [`REPLY_CAPACITY`]
/// bytes; module docs: the rules).
pub fn answer(frame: &[u8], address: &HostAddress) -> HostVerdict {
    answer_at(frame, address, REPLY_CAPACITY)
}

/// The host path's verdict on one frame with a reply buffer of `capacity` bytes
/// ([`reply_capacity`] of the bus width: 256 bytes at 64 bits, 2048 at 512).
pub fn answer_at(frame: &[u8], address: &HostAddress, capacity: usize) -> HostVerdict {
    if !address.is_configured() {
        return HostVerdict::Pass;
    }
    let eth = ethernet::Packet::new_unchecked(frame);
    let l2 = ethernet::header_len(eth.vlan_count());
    if frame.len() < l2 {
        return HostVerdict::Pass;
    }
    match eth.ethertype() {
        ETHERTYPE_ARP if is_arp_request_for(&frame[l2..], address) => HostVerdict::Reply {
            kind: ReplyKind::Arp,
            frame: arp_reply(frame, l2, address),
        },
        ETHERTYPE_IPV4 if is_echo_request_for(&frame[l2..], l2, address, capacity) => {
            let ip_end = l2 + usize::from(ipv4::Packet::new_unchecked(&frame[l2..]).total_len());
            if frame.len() < ip_end {
                HostVerdict::Drop(HostDrop::Truncated)
            } else if frame.len() > capacity {
                HostVerdict::Drop(HostDrop::TooLong)
            } else {
                HostVerdict::Reply {
                    kind: ReplyKind::Echo,
                    frame: echo_reply(frame, l2, address),
                }
            }
        }
        _ => HostVerdict::Pass,
    }
}

/// The ARP rule, on the bytes after the Ethernet header.
fn is_arp_request_for(packet: &[u8], address: &HostAddress) -> bool {
    let Ok(p) = arp::Packet::new_checked(packet) else {
        return false;
    };
    p.hardware_type() == arp::HARDWARE_ETHERNET
        && p.protocol_type() == ETHERTYPE_IPV4
        && p.hardware_len() == arp::MAC_LEN
        && p.protocol_len() == arp::IPV4_LEN
        && p.operation() == arp::OPERATION_REQUEST
        && p.target_ip() == address.ipv4
}

/// The echo rule, on the bytes after the Ethernet header (`l2` bytes long).
fn is_echo_request_for(datagram: &[u8], l2: usize, address: &HostAddress, capacity: usize) -> bool {
    if datagram.len() < ECHO_HEAD_AFTER_L2 {
        return false;
    }
    let ip = ipv4::Packet::new_unchecked(datagram);
    let message = icmp::Packet::new_unchecked(&datagram[ipv4::HEADER_LEN..]);
    let total_len = usize::from(ip.total_len());
    datagram[ipv4::field::VERSION_IHL] == VERSION_IHL_NO_OPTIONS
        && !ip.reserved_flag()
        && !ip.more_frags()
        && ip.frag_offset() == 0
        && ip.protocol() == icmp::PROTO_ICMP
        && ip.dst_addr() == address.ipv4
        && ip.verify_checksum()
        && total_len >= ECHO_MIN_DATAGRAM
        && l2 + total_len <= capacity
        && message.msg_type() == icmp::ECHO_REQUEST
        && message.code() == icmp::ECHO_CODE
}

/// The ARP reply: the request with the Ethernet addresses and the ARP operation and
/// addresses rewritten.
fn arp_reply(request: &[u8], l2: usize, address: &HostAddress) -> Vec<u8> {
    let asked = arp::Packet::new_unchecked(&request[l2..]);
    let (asker_mac, asker_ip) = (asked.sender_mac(), asked.sender_ip());
    let mut reply = request.to_vec();
    let mut eth = ethernet::Packet::new_unchecked(&mut reply[..]);
    eth.set_dst_addr(asker_mac);
    eth.set_src_addr(address.mac);
    let mut p = arp::Packet::new_unchecked(&mut reply[l2..]);
    p.set_operation(arp::OPERATION_REPLY);
    p.set_sender_mac(address.mac);
    p.set_sender_ip(address.ipv4);
    p.set_target_mac(asker_mac);
    p.set_target_ip(asker_ip);
    reply
}

/// The echo reply: the request with the Ethernet addresses, the IP addresses swapped, the
/// ICMP type and its checksum updated.
fn echo_reply(request: &[u8], l2: usize, address: &HostAddress) -> Vec<u8> {
    let asker_mac = ethernet::Packet::new_unchecked(request).src_addr();
    let mut reply = request.to_vec();
    let mut eth = ethernet::Packet::new_unchecked(&mut reply[..]);
    eth.set_dst_addr(asker_mac);
    eth.set_src_addr(address.mac);
    let mut ip = ipv4::Packet::new_unchecked(&mut reply[l2..]);
    let (src, dst) = (ip.src_addr(), ip.dst_addr());
    ip.set_src_addr(dst);
    ip.set_dst_addr(src);
    let mut message = icmp::Packet::new_unchecked(&mut reply[l2 + ipv4::HEADER_LEN..]);
    let (request_word, reply_word) = ECHO_TYPE_WORD;
    message.set_msg_type(icmp::ECHO_REPLY);
    // (0x0000 and 0xFFFF are both zero in ones' complement: 0xFFFF verifies in every case,
    // the all-zero message included, where the update alone gives 0x0000)
    let checksum = match icmp::update_checksum(message.checksum(), request_word, reply_word) {
        0x0000 => 0xFFFF,
        c => c,
    };
    message.set_checksum(checksum);
    reply
}

/// Position of a reason in [`HostDrop::ALL`] (the index of [`HostCounters::dropped`]).
fn drop_index(reason: HostDrop) -> usize {
    HostDrop::ALL
        .iter()
        .position(|&r| r == reason)
        .expect("every reason is in HostDrop::ALL")
}

/// The host path's counters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct HostCounters {
    /// ARP replies sent.
    pub arp_replies: u64,
    /// Echo replies sent.
    pub echo_replies: u64,
    /// Reply candidates passed to the host because the reply buffer was busy. The RTL counts
    /// them; the model cannot predict them and leaves this 0 (module docs).
    pub deferred: u64,
    /// Echo requests dropped, indexed as [`HostDrop::ALL`].
    pub dropped: [u64; HostDrop::ALL.len()],
}

impl HostCounters {
    /// Counts one frame's outcome (a pass counts nothing).
    pub fn count(&mut self, outcome: HostOutcome) {
        match outcome {
            HostOutcome::Pass => {}
            HostOutcome::Reply(ReplyKind::Arp) => self.arp_replies += 1,
            HostOutcome::Reply(ReplyKind::Echo) => self.echo_replies += 1,
            HostOutcome::Drop(r) => self.dropped[drop_index(r)] += 1,
        }
    }

    /// Drops for one reason.
    pub fn drops(&self, reason: HostDrop) -> u64 {
        self.dropped[drop_index(reason)]
    }

    /// All drops.
    pub fn total_drops(&self) -> u64 {
        self.dropped.iter().sum()
    }

    /// Whether `hardware` (the RTL's counters over the same frames) agrees with these (the
    /// model's) once deferrals are accounted for: each of its replies and drops is at most the
    /// model's, and the shortfalls add up to its `deferred`.
    pub fn consistent_with(&self, hardware: &HostCounters) -> bool {
        let pairs = [(self.arp_replies, hardware.arp_replies), (self.echo_replies, hardware.echo_replies)]
            .into_iter()
            .chain(self.dropped.into_iter().zip(hardware.dropped));
        let mut shortfall = 0;
        for (model, rtl) in pairs {
            let Some(d) = model.checked_sub(rtl) else {
                return false;
            };
            shortfall += d;
        }
        self.deferred == 0 && shortfall == hardware.deferred
    }

    /// `{"arp_replies":N,"echo_replies":N,"deferred":N,"dropped":{"truncated":N,"too_long":N}}`.
    pub fn json(&self) -> String {
        let drops: Vec<String> = HostDrop::ALL
            .iter()
            .map(|r| format!("\"{}\":{}", r.name(), self.drops(*r)))
            .collect();
        format!(
            "{{\"arp_replies\":{},\"echo_replies\":{},\"deferred\":{},\"dropped\":{{{}}}}}",
            self.arp_replies,
            self.echo_replies,
            self.deferred,
            drops.join(",")
        )
    }
}

/// A reply the host path sent.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HostReply {
    /// Index of the request among the frames processed.
    pub index: usize,
    /// ARP or echo.
    pub kind: ReplyKind,
    /// The reply frame.
    pub frame: Vec<u8>,
}

/// A frame the host path passed to the host.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HostPassed {
    /// Index of the frame among the frames processed.
    pub index: usize,
    /// The frame, untouched.
    pub frame: Vec<u8>,
}

/// The host path over a stream of frames: what goes out on the reply stream and on the
/// stream to the host, in order, and the counters. Everything accumulates over
/// [`HostPath::process`] and [`FrameEngine::run`] calls.
#[derive(Debug, Clone)]
pub struct HostPath {
    /// The engine's address.
    pub address: HostAddress,
    /// Counters over every frame processed.
    pub counters: HostCounters,
    /// Replies, in the order of their requests.
    pub replies: Vec<HostReply>,
    /// Frames passed to the host, in order.
    pub passed: Vec<HostPassed>,
    frames: usize,
}

impl HostPath {
    /// A host path with nothing processed.
    pub fn new(address: HostAddress) -> HostPath {
        HostPath {
            address,
            counters: HostCounters::default(),
            replies: Vec::new(),
            passed: Vec::new(),
            frames: 0,
        }
    }

    /// Frames processed so far.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// Processes the next frame: counts it and collects its reply or the passed frame.
    pub fn process(&mut self, frame: &[u8]) -> HostVerdict {
        let index = self.frames;
        self.frames += 1;
        let verdict = answer(frame, &self.address);
        self.counters.count(verdict.outcome());
        match &verdict {
            HostVerdict::Pass => self.passed.push(HostPassed {
                index,
                frame: frame.to_vec(),
            }),
            HostVerdict::Reply { kind, frame } => self.replies.push(HostReply {
                index,
                kind: *kind,
                frame: frame.clone(),
            }),
            HostVerdict::Drop(_) => {}
        }
        verdict
    }
}

impl FrameEngine for HostPath {
    type Output = HostVerdict;
    fn run(&mut self, frames: &[Vec<u8>]) -> Result<Vec<HostVerdict>, String> {
        Ok(frames.iter().map(|f| self.process(f)).collect())
    }
}

#[cfg(test)]
mod tests;
