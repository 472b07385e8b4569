//! RX contracts: drop reasons and their codes, the ICRC check's verdict codes, and the schema of
//! the RX header record that `RxHeader` and `RxFront` put on their ports and the models print.

use crate::header::{aeth, bth, ethernet, immdt, ipv6, reth, udp};
use crate::opcode::{Opcode, Transport};
use crate::Field;

/// The opcodes the RX path accepts: every valid RC, UC and UD opcode and CNP. RD is not
/// supported; reserved opcodes are not opcodes. Anything else is dropped as
/// [`DropReason::Opcode`].
pub fn supported_opcode(v: u8) -> Option<Opcode> {
    Opcode::new(v).ok().filter(|o| o.transport() != Transport::Rd)
}

/// Why a frame addressed to RoCEv2 is dropped. The discriminant is the code on the RTL's
/// `reason` ports (0 = none); the names are fixed (JSON and counters). The order is the
/// precedence: the first reason that applies is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum DropReason {
    /// IPv4 version ≠ 4 or IHL ≠ 5; IPv6 version ≠ 6.
    IpHeader = 1,
    /// The frame ends before its headers or lengths say.
    Truncated = 2,
    /// The IP length is too small for the headers and ICRC, or the frame is longer than the IP
    /// packet by more than the MAC padding to 60 bytes.
    IpLength = 3,
    /// The IPv4 header checksum is wrong.
    IpChecksum = 4,
    /// IPv4 MF set or fragment offset ≠ 0.
    IpFragment = 5,
    /// The UDP length disagrees with the IP length.
    UdpLength = 6,
    /// BTH TVer ≠ 0.
    Tver = 7,
    /// Reserved or unsupported (RD) opcode.
    Opcode = 8,
    /// PadCnt larger than the payload.
    Padcnt = 9,
    /// The ICRC does not verify.
    Icrc = 10,
}

/// Width of a drop-reason code on the RTL's ports.
pub const REASON_BITS: usize = 4;
/// The code of "no drop reason".
pub const NO_REASON: u8 = 0;

impl DropReason {
    /// Every reason, in precedence order (the first that applies is reported).
    pub const ALL: [DropReason; 10] = [
        DropReason::IpHeader,
        DropReason::Truncated,
        DropReason::IpLength,
        DropReason::IpChecksum,
        DropReason::IpFragment,
        DropReason::UdpLength,
        DropReason::Tver,
        DropReason::Opcode,
        DropReason::Padcnt,
        DropReason::Icrc,
    ];

    /// The fixed name used in the JSON and the counters.
    pub const fn name(self) -> &'static str {
        match self {
            DropReason::IpHeader => "ip_header",
            DropReason::Truncated => "truncated",
            DropReason::IpLength => "ip_length",
            DropReason::IpChecksum => "ip_checksum",
            DropReason::IpFragment => "ip_fragment",
            DropReason::UdpLength => "udp_length",
            DropReason::Tver => "tver",
            DropReason::Opcode => "opcode",
            DropReason::Padcnt => "padcnt",
            DropReason::Icrc => "icrc",
        }
    }

    /// The reason with this name.
    pub fn from_name(s: &str) -> Option<DropReason> {
        DropReason::ALL.into_iter().find(|r| r.name() == s)
    }

    /// The code on the RTL's `reason` ports.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The reason with this code (`None` for 0 and unknown codes).
    pub fn from_code(code: u8) -> Option<DropReason> {
        DropReason::ALL.into_iter().find(|r| r.code() == code)
    }

    /// Position in [`DropReason::ALL`].
    pub const fn index(self) -> usize {
        self as usize - 1
    }

    /// The name of the counter of this reason (`cnt_drop_<name>` on the RTL).
    pub fn counter_port(self) -> String {
        format!("cnt_drop_{}", self.name())
    }
}

/// Cycles from the cycle in which the RX header decoder takes the beat that triggers a header
/// record to the cycle the record is on its outputs (`RxHeader` in the RTL). The RX front end
/// sizes its data FIFO and its realigner's lag on it; its co-simulation checks it.
pub const HEADER_RECORD_LATENCY: usize = 6;

/// The ICRC check's verdict, on `tuser[1:0]` of a frame's last beat out of `IcrcCheck`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum IcrcVerdictCode {
    /// Not a RoCEv2 frame (or its ICRC could not be computed).
    NotRoce = 0b00,
    /// RoCEv2, ICRC wrong.
    Bad = 0b01,
    /// RoCEv2, ICRC right.
    Good = 0b11,
}

impl IcrcVerdictCode {
    /// The 2-bit code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The verdict of a 2-bit code (`None` for the unused `0b10`).
    pub fn from_code(code: u8) -> Option<IcrcVerdictCode> {
        [IcrcVerdictCode::NotRoce, IcrcVerdictCode::Bad, IcrcVerdictCode::Good]
            .into_iter()
            .find(|v| v.code() == code)
    }
}

pub use crate::schema::RecordField;

const fn bits(f: Field) -> usize {
    8 * (f.end - f.start)
}

const fn field(name: &'static str, width: usize, doc: &'static str) -> RecordField {
    RecordField::new(name, width, doc)
}

/// The RX header record: its fields, shared by `RxHeader` (ports `h_*`) and `RxFront` (ports
/// `r_*`), and the fields each adds. Widths come from the header layouts.
pub mod record {
    use super::*;

    /// The packet is dropped (`reason` says why), else accepted.
    pub const DROP: RecordField = field("drop", 1, "the packet is dropped (`reason` says why), else accepted");
    /// The drop reason code ([`DropReason::code`]), 0 if none.
    pub const REASON: RecordField = field("reason", REASON_BITS, "drop reason code (`ip_header` 1 … `icrc` 10), 0 if none");
    /// `icrc_ok` is not null.
    pub const ICRC_CHK: RecordField = field("icrc_chk", 1, "the ICRC was checked (`icrc_ok` is not null)");
    /// The ICRC verifies.
    pub const ICRC_OK: RecordField = field("icrc_ok", 1, "the ICRC verifies (meaningful when `icrc_chk`)");
    /// Ethernet destination.
    pub const ETH_DST: RecordField = field("eth_dst", bits(ethernet::field::DESTINATION), "Ethernet destination MAC");
    /// Ethernet source.
    pub const ETH_SRC: RecordField = field("eth_src", bits(ethernet::field::SOURCE), "Ethernet source MAC");
    /// An outer VLAN tag is present.
    pub const VLAN_OK: RecordField = field("vlan_ok", 1, "an outer VLAN tag is present");
    /// VID of the outer VLAN tag.
    pub const VLAN: RecordField = field("vlan", 12, "VID of the outer VLAN tag");
    /// IPv6 (else IPv4).
    pub const IP_V6: RecordField = field("ip_v6", 1, "IP version 6 (ethertype 0x86DD), else 4");
    /// IP source (IPv4 in the low 32 bits).
    pub const IP_SRC: RecordField = field("ip_src", bits(ipv6::field::SOURCE), "IP source address (IPv4 in the low 32 bits)");
    /// IP destination (IPv4 in the low 32 bits).
    pub const IP_DST: RecordField = field(
        "ip_dst",
        bits(ipv6::field::DESTINATION),
        "IP destination address (IPv4 in the low 32 bits)",
    );
    /// DSCP.
    pub const IP_DSCP: RecordField = field("ip_dscp", 6, "DSCP");
    /// ECN.
    pub const IP_ECN: RecordField = field("ip_ecn", 2, "ECN");
    /// TTL or hop limit.
    pub const IP_TTL: RecordField = field("ip_ttl", 8, "IPv4 TTL or IPv6 hop limit");
    /// UDP source port.
    pub const UDP_SPORT: RecordField = field("udp_sport", bits(udp::field::SRC_PORT), "UDP source port (flow entropy)");
    /// UDP destination port.
    pub const UDP_DPORT: RecordField = field("udp_dport", bits(udp::field::DST_PORT), "UDP destination port (4791)");
    /// The 12 BTH bytes are in the frame.
    pub const BTH_OK: RecordField = field("bth_ok", 1, "the 12 BTH bytes are in the frame (the `bth_*` fields are meaningful)");
    /// BTH opcode.
    pub const BTH_OPCODE: RecordField = field("bth_opcode", 8, "BTH opcode (raw)");
    /// Solicited event.
    pub const BTH_SE: RecordField = field("bth_se", 1, "solicited event");
    /// MigReq.
    pub const BTH_M: RecordField = field("bth_m", 1, "MigReq");
    /// PadCnt.
    pub const BTH_PADCNT: RecordField = field("bth_padcnt", 2, "pad count");
    /// TVer.
    pub const BTH_TVER: RecordField = field("bth_tver", 4, "transport header version");
    /// P_Key.
    pub const BTH_PKEY: RecordField = field("bth_pkey", bits(bth::field::PKEY), "partition key");
    /// FECN.
    pub const BTH_FECN: RecordField = field("bth_fecn", 1, "FECN");
    /// BECN.
    pub const BTH_BECN: RecordField = field("bth_becn", 1, "BECN");
    /// Destination QP.
    pub const BTH_DQPN: RecordField = field("bth_dqpn", bits(bth::field::DEST_QP), "destination QP");
    /// AckReq.
    pub const BTH_ACKREQ: RecordField = field("bth_ackreq", 1, "AckReq");
    /// PSN.
    pub const BTH_PSN: RecordField = field("bth_psn", bits(bth::field::PSN), "packet sequence number");
    /// The opcode carries a RETH and its bytes are in the frame.
    pub const RETH_OK: RecordField = field("reth_ok", 1, "the opcode carries a RETH and its 16 bytes are in the frame");
    /// RETH virtual address.
    pub const RETH_VA: RecordField = field("reth_va", bits(reth::field::VA), "RETH virtual address");
    /// RETH remote key.
    pub const RETH_RKEY: RecordField = field("reth_rkey", bits(reth::field::RKEY), "RETH remote key");
    /// RETH DMA length.
    pub const RETH_DMALEN: RecordField = field("reth_dmalen", bits(reth::field::DMA_LEN), "RETH DMA length");
    /// The opcode carries an ImmDt and its bytes are in the frame.
    pub const IMMDT_OK: RecordField = field("immdt_ok", 1, "the opcode carries an ImmDt and its 4 bytes are in the frame");
    /// Immediate data.
    pub const IMMDT: RecordField = field("immdt", bits(immdt::field::DATA), "immediate data");
    /// The opcode carries an AETH and its bytes are in the frame.
    pub const AETH_OK: RecordField = field("aeth_ok", 1, "the opcode carries an AETH and its 4 bytes are in the frame");
    /// AETH syndrome.
    pub const AETH_SYNDROME: RecordField = field("aeth_syndrome", 8, "AETH syndrome");
    /// AETH MSN.
    pub const AETH_MSN: RecordField = field("aeth_msn", bits(aeth::field::MSN), "AETH message sequence number");
    /// Payload bytes delivered.
    pub const PAY_LEN: RecordField = field("pay_len", 16, "payload bytes delivered for this packet");
    /// The final record of the packet (else its header record).
    pub const FINAL: RecordField = field("final", 1, "the packet's final record (else its early header record)");

    /// The fields decoded from the headers, common to `RxHeader` and `RxFront`, in port order.
    pub const HEADER: [RecordField; 33] = [
        ETH_DST,
        ETH_SRC,
        VLAN_OK,
        VLAN,
        IP_V6,
        IP_SRC,
        IP_DST,
        IP_DSCP,
        IP_ECN,
        IP_TTL,
        UDP_SPORT,
        UDP_DPORT,
        BTH_OK,
        BTH_OPCODE,
        BTH_SE,
        BTH_M,
        BTH_PADCNT,
        BTH_TVER,
        BTH_PKEY,
        BTH_FECN,
        BTH_BECN,
        BTH_DQPN,
        BTH_ACKREQ,
        BTH_PSN,
        RETH_OK,
        RETH_VA,
        RETH_RKEY,
        RETH_DMALEN,
        IMMDT_OK,
        IMMDT,
        AETH_OK,
        AETH_SYNDROME,
        AETH_MSN,
    ];
    /// `RxFront`'s verdict fields, before [`HEADER`].
    pub const FRONT_VERDICT: [RecordField; 4] = [DROP, REASON, ICRC_CHK, ICRC_OK];
    /// `RxFront`'s fields after [`HEADER`].
    pub const FRONT_TAIL: [RecordField; 2] = [PAY_LEN, FINAL];
    /// Port prefix of `RxFront`'s record.
    pub const FRONT_PREFIX: &str = "r_";
    /// Port prefix of `RxHeader`'s record.
    pub const HEADER_PREFIX: &str = "h_";

    /// Every field of `RxFront`'s record (ports `r_<name>`), in order.
    pub fn front() -> impl Iterator<Item = RecordField> {
        FRONT_VERDICT.into_iter().chain(HEADER).chain(FRONT_TAIL)
    }

    /// Position of a field in [`front`].
    pub fn front_index(f: RecordField) -> usize {
        front()
            .position(|x| x == f)
            .unwrap_or_else(|| panic!("{} is not an RxFront record field", f.name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_the_precedence_order() {
        for (i, r) in DropReason::ALL.iter().enumerate() {
            assert_eq!(r.code() as usize, i + 1);
            assert_eq!(r.index(), i);
            assert_eq!(DropReason::from_code(r.code()), Some(*r));
            assert_eq!(DropReason::from_name(r.name()), Some(*r));
        }
        assert!(DropReason::ALL.iter().all(|r| u32::from(r.code()) < 1 << REASON_BITS));
        assert_eq!(DropReason::from_code(NO_REASON), None);
    }

    #[test]
    fn record_names_are_unique() {
        let names: std::collections::HashSet<_> = record::front().map(|f| f.name).collect();
        assert_eq!(names.len(), record::front().count());
        assert_eq!(record::front().count(), 39);
        assert_eq!(record::ETH_DST.width, 48);
        assert_eq!(record::IP_SRC.width, 128);
        assert_eq!(record::BTH_PSN.width, 24);
    }
}

/// The MAC ingress buffer in front of the RX path (`MacIngress`): a MAC's receive side (Xilinx
/// CMAC, XXV Ethernet) has no backpressure and marks a bad frame (FCS error, runt, too long) on
/// its last beat, so whole frames wait in this buffer until they are known good.
pub mod ingress {
    /// Bytes the buffer holds at every width (32 KiB: eight RAMB36 of data).
    pub const BUFFER_BYTES: usize = 32 * 1024;

    /// log2 of the beats the buffer holds at `k` bytes per beat.
    pub const fn address_bits(k: usize) -> usize {
        (BUFFER_BYTES / k).trailing_zeros() as usize
    }

    /// The longest frame the buffer passes, in beats: one entry stays empty to tell full from
    /// empty. Longer frames are always dropped (as [`IngressDrop::NoRoom`]).
    pub const fn max_frame_beats(k: usize) -> usize {
        (1 << address_bits(k)) - 1
    }

    /// Why the ingress drops a whole frame; each has a counter (`dropped_<name>`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum IngressDrop {
        /// The MAC marked the frame bad on its last beat (`tuser`).
        BadFrame,
        /// The buffer filled before the frame's last beat (the RX path stalled, or the frame is
        /// longer than [`max_frame_beats`]).
        NoRoom,
    }

    impl IngressDrop {
        /// Every reason, in counter order.
        pub const ALL: [IngressDrop; 2] = [IngressDrop::BadFrame, IngressDrop::NoRoom];

        /// The name of its counter port and of the reason in reports.
        pub fn name(self) -> &'static str {
            match self {
                IngressDrop::BadFrame => "bad_frame",
                IngressDrop::NoRoom => "no_room",
            }
        }
    }
}
