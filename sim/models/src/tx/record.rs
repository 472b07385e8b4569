//! Typed views of the TX records: [`QpContext`] (the [`QP_CONTEXT`] schema) and [`Post`] (the
//! [`POST`] schema). A struct field per schema field, of the same name, packed and unpacked
//! through the schema, so the layout exists once, in the contracts.

use crate::contracts::tx::{Pmtu, PostOp, QpState, POST, QP_CONTEXT};
use crate::wire::ethernet::MacAddr;
use crate::wire::Transport;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A Rust type that holds a record field: converts from and to the schema's `u128` (a value
/// decoded from a field always fits, the width of the Rust type being at least the field's).
pub trait FieldValue: Copy {
    /// The value of a decoded field.
    fn from_field(v: u128) -> Self;
    /// The value to encode.
    fn to_field(self) -> u128;
}

macro_rules! unsigned_field_value {
    ($($t:ty),*) => {$(
        impl FieldValue for $t {
            fn from_field(v: u128) -> Self {
                v as $t
            }
            fn to_field(self) -> u128 {
                u128::from(self)
            }
        }
    )*};
}
unsigned_field_value!(u8, u16, u32, u64, u128);

impl FieldValue for bool {
    fn from_field(v: u128) -> Self {
        v != 0
    }
    fn to_field(self) -> u128 {
        u128::from(self)
    }
}

/// Declares a struct whose fields are the fields of a [`Schema`](crate::contracts::schema::Schema), in its order, with
/// `from_words`, `values` and `to_words` through the schema.
macro_rules! record_view {
    (
        $(#[$doc:meta])*
        pub struct $name:ident ($schema:expr) {
            $($(#[$field_doc:meta])* $field:ident: $ty:ty,)*
        }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name {
            $($(#[$field_doc])* pub $field: $ty,)*
        }

        impl $name {
            /// The schema this struct is a view of.
            pub const SCHEMA: $crate::contracts::schema::Schema = $schema;

            /// Unpacks an entry packed in 32-bit words (missing words read as 0).
            pub fn from_words(words: &[u32]) -> $name {
                $name {
                    $($field: $crate::tx::record::FieldValue::from_field(Self::SCHEMA.decode(words, stringify!($field))),)*
                }
            }

            /// Every field's value, by schema name, in the schema's order.
            pub fn values(&self) -> Vec<(&'static str, u128)> {
                vec![$((stringify!($field), $crate::tx::record::FieldValue::to_field(self.$field)),)*]
            }

            /// Packs the entry into 32-bit words; fails if a value is wider than its field.
            pub fn to_words(&self) -> Result<Vec<u32>, $crate::contracts::schema::EncodeError> {
                Self::SCHEMA.encode(&self.values())
            }
        }
    };
}

pub(crate) use record_view;

record_view! {
    /// A QP context, as the host writes it and the packet generator reads it. Every field is the
    /// raw value of the [`QP_CONTEXT`] field of the same name (the all-zero default is a QP in
    /// reset). MACs are the 48-bit value of the six bytes in wire order (`02:00:00:00:00:01` is
    /// `0x0200_0000_0001`); IP addresses are the 128-bit value of the 16 bytes in wire order, an
    /// IPv4 address in the low 32 bits.
    pub struct QpContext(QP_CONTEXT) {
        /// QP state code ([`QpState`]).
        state: u8,
        /// Transport: opcode bits 7:5 (0 RC, 1 UC).
        transport: u8,
        /// Path MTU code ([`Pmtu`]).
        pmtu: u8,
        /// IPv6 (else IPv4).
        ip_v6: bool,
        /// RC: AckReq also on the packet that makes `ack_every` packets since the last AckReq.
        ack_every: u8,
        /// IP DSCP.
        dscp: u8,
        /// IP ECN.
        ecn: u8,
        /// RC local ACK timeout exponent (not used by the TX path).
        timeout: u8,
        /// Partition key (BTH P_Key).
        pkey: u16,
        /// IPv4 TTL or IPv6 hop limit.
        ttl: u8,
        /// RC transport retry count (not used by the TX path).
        retry_count: u8,
        /// RC RNR retry count (not used by the TX path).
        rnr_retry: u8,
        /// The peer's QP number (BTH DestQP).
        dest_qpn: u32,
        /// RC minimum RNR timer code (not used by the TX path).
        min_rnr_timer: u8,
        /// PSN of the next packet sent.
        sq_psn: u32,
        /// PSN the responder expects next (not used by the TX path).
        rq_psn: u32,
        /// UDP source port.
        udp_sport: u16,
        /// Protection domain (not used by the TX path).
        pd: u16,
        /// R_Key of the peer's memory region (every RETH).
        rkey: u32,
        /// IPv6 flow label.
        flow_label: u32,
        /// Ethernet source MAC.
        src_mac: u64,
        /// Ethernet destination MAC.
        dst_mac: u64,
        /// IP source address.
        src_ip: u128,
        /// IP destination address.
        dst_ip: u128,
    }
}

record_view! {
    /// A transfer post, as the host writes it: every field is the raw value of the [`POST`] field
    /// of the same name (`op` stays raw: an unknown code is refused as
    /// [`PostError::BadOperation`](crate::contracts::tx::PostError::BadOperation)).
    pub struct Post(POST) {
        /// Channel: one transfer at a time per channel (the scheduler element).
        channel: u16,
        /// Scheduler queue (0: the control class).
        queue: u8,
        /// Operation code ([`PostOp`]).
        op: u8,
        /// Solicited event on the message's last packet (SEND, or a message with an immediate).
        solicited: bool,
        /// WRITE with immediate: every block carries an immediate.
        imm_every_block: bool,
        /// Local QP (the QP context table's index).
        qp: u32,
        /// Local memory address of the first payload byte.
        local_addr: u64,
        /// Remote virtual address of the first byte (WRITE).
        remote_addr: u64,
        /// Bytes to transfer.
        length: u32,
        /// Immediate data.
        immediate: u32,
    }
}

/// The six bytes of a MAC held in the low 48 bits of `v`, in wire order.
pub fn mac_bytes(v: u64) -> MacAddr {
    let b = v.to_be_bytes();
    [b[2], b[3], b[4], b[5], b[6], b[7]]
}

/// The 48-bit value of a MAC (inverse of [`mac_bytes`]).
pub fn mac_value(mac: MacAddr) -> u64 {
    mac.iter().fold(0, |v, &b| v << 8 | u64::from(b))
}

/// The 128-bit field value of an IP address (IPv4 in the low 32 bits).
pub fn ip_value(ip: IpAddr) -> u128 {
    match ip {
        IpAddr::V4(a) => u128::from(u32::from(a)),
        IpAddr::V6(a) => u128::from(a),
    }
}

impl QpContext {
    /// The state, if the code is one.
    pub fn qp_state(&self) -> Option<QpState> {
        QpState::from_code(self.state)
    }

    /// The path MTU, if the code is one.
    pub fn path_mtu(&self) -> Option<Pmtu> {
        Pmtu::from_code(self.pmtu)
    }

    /// The transport, if the TX path has it (RC or UC).
    pub fn transport_service(&self) -> Option<Transport> {
        [Transport::Rc, Transport::Uc].into_iter().find(|t| t.bits() == self.transport)
    }

    /// The source IP address (the low 32 bits for IPv4).
    pub fn src_addr(&self) -> IpAddr {
        self.ip_addr(self.src_ip)
    }

    /// The destination IP address (the low 32 bits for IPv4).
    pub fn dst_addr(&self) -> IpAddr {
        self.ip_addr(self.dst_ip)
    }

    fn ip_addr(&self, v: u128) -> IpAddr {
        if self.ip_v6 {
            IpAddr::V6(Ipv6Addr::from(v))
        } else {
            IpAddr::V4(Ipv4Addr::from(v as u32))
        }
    }
}

impl Post {
    /// The operation, if the code is one.
    pub fn operation(&self) -> Option<PostOp> {
        PostOp::from_code(self.op)
    }
}
