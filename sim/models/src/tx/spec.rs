//! Transfers as `ferroce-sim tx` describes them: one [`TransferSpec`] per transfer, set key by
//! key from command-line options (`--len 4096`) or from a line of a posts file (`len=4096`),
//! with the same keys, values and checks ([`KEYS`]).
//!
//! A posts file has one post per line, `key=value` pairs separated by blanks (a flag key alone
//! means `key=1`); `#` starts a comment; blank lines are skipped. Keys a line does not give take
//! the command line's values (or the defaults). Lines posting on the same QP must describe the
//! same QP context, and lines giving a queue's weight the same weight.

use super::record::{ip_value, mac_value, Post, QpContext};
use super::TxSetup;
use crate::contracts::schema::Schema;
use crate::contracts::tx::{udp_source_port_hash, Pmtu, PostOp, QpState, BLOCK_LOG2_MAX, BLOCK_LOG2_MIN, POST, QP_CONTEXT};
use crate::wire::Transport;
use std::fmt;
use std::net::IpAddr;

/// A key of a transfer description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// Name (`--name` on the command line, `name=` in a posts file).
    pub name: &'static str,
    /// What the value looks like; empty for a flag (no value on the command line).
    pub value: &'static str,
    /// The default, as text; empty when the key is unset by default.
    pub default: &'static str,
    /// What it sets.
    pub help: &'static str,
}

const fn key(name: &'static str, value: &'static str, default: &'static str, help: &'static str) -> Key {
    Key {
        name,
        value,
        default,
        help,
    }
}

/// Every key, with its default.
pub const KEYS: [Key; 27] = [
    key("channel", "N", "0", "channel (one transfer at a time; the scheduler element)"),
    key("queue", "N", "1", "scheduler queue (0 is the control class)"),
    key(
        "weight",
        "W",
        "",
        "WRR weight of the queue, 0-255 (unset: the queue keeps its reset weight, 1)",
    ),
    key("qp", "N", "1", "local QP number (the QP context's index)"),
    key(
        "op",
        "send|send-imm|write|write-imm|read|write-message|write-imm-message",
        "write",
        "operation",
    ),
    key(
        "len",
        "BYTES",
        "4096",
        "bytes to transfer, below 4 GiB (suffixes K, M, G for KiB, MiB, GiB)",
    ),
    key("local", "ADDR", "0", "local address of the first payload byte"),
    key("va", "ADDR", "0", "remote virtual address of the first byte (write)"),
    key("imm", "N", "0", "immediate data (send-imm, write-imm)"),
    key("se", "", "", "solicited event on the message's last packet"),
    key(
        "imm-every-block",
        "",
        "",
        "write-imm: every block carries the immediate plus its block index",
    ),
    key("transport", "rc|uc", "rc", "transport of the QP"),
    key("pmtu", "BYTES", "1024", "path MTU: 256, 512, 1024, 2048 or 4096"),
    key("src-mac", "MAC", "02:00:00:00:00:01", "Ethernet source MAC"),
    key("dst-mac", "MAC", "02:00:00:00:00:02", "Ethernet destination MAC"),
    key("src-ip", "IP", "10.0.0.1", "source IP address (IPv4 or IPv6, the family of dst-ip)"),
    key("dst-ip", "IP", "10.0.0.2", "destination IP address"),
    key("flow-label", "N", "0", "IPv6 flow label"),
    key("dqpn", "N", "17", "destination QP number"),
    key("psn", "N", "0", "PSN of the QP's first packet"),
    key("pkey", "N", "0xffff", "partition key"),
    key("rkey", "N", "0", "R_Key of the remote memory region"),
    key("dscp", "N", "0", "IP DSCP"),
    key("ecn", "N", "0", "IP ECN"),
    key("ttl", "N", "64", "IPv4 TTL or IPv6 hop limit"),
    key(
        "sport",
        "PORT|hash",
        "hash",
        "UDP source port, or `hash`: Linux rxe's hash of the local QP number",
    ),
    key(
        "ackreq",
        "N",
        "0",
        "RC: AckReq also on every N-th packet since the last one (0: last packets only)",
    ),
];

/// The UDP source port of a QP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourcePort {
    /// [`udp_source_port_hash`] of the local QP number.
    Hash,
    /// This port.
    Port(u16),
}

/// One transfer: the post, its QP's context and its queue's weight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferSpec {
    /// The post.
    pub post: Post,
    /// The QP context (state RTS; `ip_v6` and `udp_sport` are set by [`TransferSpec::context`]).
    pub context: QpContext,
    /// The queue's weight, if given.
    pub weight: Option<u8>,
    /// The UDP source port.
    pub sport: SourcePort,
    /// The source address is IPv6.
    pub src_v6: bool,
    /// The destination address is IPv6.
    pub dst_v6: bool,
}

impl Default for TransferSpec {
    /// Every key at its default ([`KEYS`]).
    fn default() -> TransferSpec {
        let mut spec = TransferSpec {
            post: Post::default(),
            context: QpContext {
                state: QpState::Rts.code(),
                ..QpContext::default()
            },
            weight: None,
            sport: SourcePort::Hash,
            src_v6: false,
            dst_v6: false,
        };
        for k in KEYS.iter().filter(|k| !k.default.is_empty()) {
            spec.set(k.name, k.default).expect("the defaults are valid");
        }
        spec
    }
}

/// A number: decimal, or hexadecimal after `0x`; `_` separators allowed.
pub fn parse_number(text: &str) -> Result<u128, String> {
    let t = text.replace('_', "");
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u128::from_str_radix(hex, 16),
        None => t.parse(),
    };
    parsed.map_err(|_| format!("'{text}' is not a number"))
}

/// A byte count: a number with an optional suffix K, M or G (KiB, MiB, GiB; `KiB` etc. too).
pub fn parse_size(text: &str) -> Result<u128, String> {
    let units = [("KiB", 10), ("MiB", 20), ("GiB", 30), ("K", 10), ("M", 20), ("G", 30)];
    let (digits, shift) = units
        .iter()
        .find_map(|&(u, s)| text.strip_suffix(u).map(|d| (d, s)))
        .unwrap_or((text, 0));
    let n = parse_number(digits).map_err(|_| format!("'{text}' is not a byte count"))?;
    n.checked_mul(1 << shift).ok_or_else(|| format!("'{text}' is too large"))
}

/// A block size in bytes (a power of two from 4 KiB to 1 MiB, suffixes as [`parse_size`]), as
/// its log2.
pub fn parse_block_size(text: &str) -> Result<u32, String> {
    let bytes = parse_size(text)?;
    let log2 = bytes.trailing_zeros();
    if bytes.is_power_of_two() && (BLOCK_LOG2_MIN..=BLOCK_LOG2_MAX).contains(&log2) {
        Ok(log2)
    } else {
        Err(format!("block size '{text}' is not a power of two from 4K to 1M"))
    }
}

/// A MAC address `aa:bb:cc:dd:ee:ff` (or with `-`), as its 48-bit value.
pub fn parse_mac(text: &str) -> Result<u64, String> {
    let bad = || format!("'{text}' is not a MAC address (six hex bytes: 02:00:00:00:00:01)");
    let bytes: Vec<u8> = text
        .split([':', '-'])
        .map(|b| if b.len() == 2 { u8::from_str_radix(b, 16).ok() } else { None })
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    let mac: [u8; 6] = bytes.try_into().map_err(|_| bad())?;
    Ok(mac_value(mac))
}

/// A path MTU in bytes.
pub fn parse_pmtu(text: &str) -> Result<Pmtu, String> {
    parse_number(text)
        .ok()
        .and_then(|n| u32::try_from(n).ok())
        .and_then(Pmtu::from_bytes)
        .ok_or_else(|| format!("path MTU '{text}' is not 256, 512, 1024, 2048 or 4096"))
}

/// A value of the field `field` of `schema`, checked against its width.
fn field_value(schema: &Schema, field: &str, text: &str, parse: fn(&str) -> Result<u128, String>) -> Result<u128, String> {
    let v = parse(text)?;
    let f = schema.field(field).expect("a field of the schema");
    if v > f.max() {
        return Err(format!(
            "{text} does not fit the {}-bit field `{field}` (at most {:#x})",
            f.width,
            f.max()
        ));
    }
    Ok(v)
}

fn post_field(field: &str, text: &str) -> Result<u128, String> {
    field_value(&POST, field, text, parse_number)
}

fn qp_field(field: &str, text: &str) -> Result<u128, String> {
    field_value(&QP_CONTEXT, field, text, parse_number)
}

fn flag(text: &str) -> Result<bool, String> {
    match text {
        "1" | "true" | "yes" => Ok(true),
        "0" | "false" | "no" => Ok(false),
        _ => Err(format!("'{text}' is not 0 or 1")),
    }
}

fn ip(text: &str) -> Result<(u128, bool), String> {
    let a: IpAddr = text.parse().map_err(|_| format!("'{text}' is not an IPv4 or IPv6 address"))?;
    Ok((ip_value(a), a.is_ipv6()))
}

impl TransferSpec {
    /// Sets key `name` from its text; the error says what is wrong with the value.
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), String> {
        let (p, c) = (&mut self.post, &mut self.context);
        match name {
            "channel" => p.channel = post_field("channel", text)? as u16,
            "queue" => p.queue = post_field("queue", text)? as u8,
            "weight" => {
                let w = parse_number(text)?;
                self.weight = Some(u8::try_from(w).map_err(|_| format!("weight {text} is not 0-255"))?);
            }
            "qp" => p.qp = post_field("qp", text)? as u32,
            "op" => {
                let op = PostOp::from_name(text)
                    .ok_or_else(|| format!("'{text}' is not send, send-imm, write, write-imm, read, write-message or write-imm-message"))?;
                p.op = op.code();
            }
            "len" => {
                let len = parse_size(text)?;
                p.length = u32::try_from(len).map_err(|_| format!("length {text} is 4 GiB or more (the post's length has 32 bits)"))?;
            }
            "local" => p.local_addr = post_field("local_addr", text)? as u64,
            "va" => p.remote_addr = post_field("remote_addr", text)? as u64,
            "imm" => p.immediate = post_field("immediate", text)? as u32,
            "se" => p.solicited = flag(text)?,
            "imm-every-block" => p.imm_every_block = flag(text)?,
            "transport" => {
                let t = match text {
                    "rc" => Transport::Rc,
                    "uc" => Transport::Uc,
                    _ => return Err(format!("transport '{text}' is not rc or uc")),
                };
                c.transport = t.bits();
            }
            "pmtu" => c.pmtu = parse_pmtu(text)?.code(),
            "src-mac" => c.src_mac = parse_mac(text)?,
            "dst-mac" => c.dst_mac = parse_mac(text)?,
            "src-ip" => (c.src_ip, self.src_v6) = ip(text)?,
            "dst-ip" => (c.dst_ip, self.dst_v6) = ip(text)?,
            "flow-label" => c.flow_label = qp_field("flow_label", text)? as u32,
            "dqpn" => c.dest_qpn = qp_field("dest_qpn", text)? as u32,
            "psn" => c.sq_psn = qp_field("sq_psn", text)? as u32,
            "pkey" => c.pkey = qp_field("pkey", text)? as u16,
            "rkey" => c.rkey = qp_field("rkey", text)? as u32,
            "dscp" => c.dscp = qp_field("dscp", text)? as u8,
            "ecn" => c.ecn = qp_field("ecn", text)? as u8,
            "ttl" => c.ttl = qp_field("ttl", text)? as u8,
            "sport" => {
                self.sport = if text == "hash" {
                    SourcePort::Hash
                } else {
                    SourcePort::Port(qp_field("udp_sport", text)? as u16)
                }
            }
            "ackreq" => c.ack_every = qp_field("ack_every", text)? as u8,
            _ => return Err(format!("unknown key '{name}'")),
        }
        Ok(())
    }

    /// The QP context: both IP addresses of one family, the UDP source port resolved.
    pub fn context(&self) -> Result<QpContext, String> {
        if self.src_v6 != self.dst_v6 {
            let family = |v6: bool| if v6 { "IPv6" } else { "IPv4" };
            return Err(format!(
                "src-ip is {} and dst-ip is {}: both must be of one family",
                family(self.src_v6),
                family(self.dst_v6)
            ));
        }
        Ok(QpContext {
            ip_v6: self.src_v6,
            udp_sport: match self.sport {
                SourcePort::Hash => udp_source_port_hash(self.post.qp),
                SourcePort::Port(p) => p,
            },
            ..self.context
        })
    }
}

/// An error of a posts file: the line (from 1) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostsError {
    /// Line number, from 1.
    pub line: usize,
    /// The message.
    pub message: String,
}

impl fmt::Display for PostsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for PostsError {}

/// The transfers of a posts file, each with its line number; keys a line does not give come
/// from `defaults`.
pub fn parse_posts(text: &str, defaults: &TransferSpec) -> Result<Vec<(usize, TransferSpec)>, PostsError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let err = |message: String| PostsError { line, message };
        let body = raw.split('#').next().unwrap_or("").trim();
        if body.is_empty() {
            continue;
        }
        let mut spec = defaults.clone();
        for pair in body.split_whitespace() {
            let (name, value) = match pair.split_once('=') {
                Some(kv) => kv,
                None if KEYS.iter().any(|k| k.name == pair && k.value.is_empty()) => (pair, "1"),
                None => return Err(err(format!("'{pair}' is not key=value"))),
            };
            spec.set(name, value).map_err(|e| err(format!("{name}: {e}")))?;
        }
        spec.context().map_err(err)?;
        out.push((line, spec));
    }
    Ok(out)
}

/// `base` with the transfers' posts, QP contexts and queue weights. A context or weight for a
/// QP or queue beyond `base`'s counts is left out (the post is then refused). Two transfers on
/// one QP must give the same context, two weights of one queue the same weight; the error names
/// the later line.
pub fn setup_of(base: TxSetup, transfers: &[(usize, TransferSpec)]) -> Result<TxSetup, PostsError> {
    let mut setup = base;
    let mut context_line = std::collections::HashMap::new();
    let mut weight_line = std::collections::HashMap::new();
    for (line, spec) in transfers {
        let err = |message: String| PostsError { line: *line, message };
        let (qp, queue) = (spec.post.qp, u32::from(spec.post.queue));
        let ctx = spec.context().map_err(err)?;
        if qp < setup.qps {
            match setup.contexts.get(&qp) {
                Some(old) if *old != ctx => {
                    let (name, now, then) = ctx
                        .values()
                        .into_iter()
                        .zip(old.values())
                        .find_map(|((n, a), (_, b))| (a != b).then_some((n, a, b)))
                        .expect("contexts that differ differ in a field");
                    return Err(err(format!(
                        "QP {qp} has {name} = {now:#x} here but {then:#x} on line {}",
                        context_line[&qp]
                    )));
                }
                Some(_) => {}
                None => {
                    setup.contexts.insert(qp, ctx);
                    context_line.insert(qp, *line);
                }
            }
        }
        if let Some(w) = spec.weight.filter(|_| (queue as usize) < setup.queues) {
            let cfg = setup.queue_config.entry(queue).or_default();
            match weight_line.get(&queue) {
                Some(&(l, old)) if old != w => {
                    return Err(err(format!("queue {queue} has weight {w} here but {old} on line {l}")));
                }
                _ => {
                    cfg.weight = w;
                    weight_line.insert(queue, (*line, w));
                }
            }
        }
        setup.posts.push(spec.post);
    }
    Ok(setup)
}
