//! Ferroce co-simulation: the Verilator harness ([`verilated`], built by `build.rs` from every
//! top that `ferroce-hdl` emits), the stream driver ([`axis`]), the RTL runners of each unit
//! ([`icrc_rtl`], [`ingress_rtl`], [`payload_writer_rtl`], [`regs_rtl`], [`responder_rtl`], [`rx_rtl`],
//! [`rx_path_rtl`], [`sched_rtl`], [`serial_rtl`], [`tx_rtl`], [`tx_segmenter_rtl`],
//! [`tx_path_rtl`]), the
//! two-engine loopback of the TX and RX paths ([`loopback_rtl`]) and its checks
//! ([`loopback_bench`]), the engine top driven through its ports, two back to back
//! ([`engine_rtl`]), a lossy wire ([`faults`]), the
//! requesters that feed the responder's co-simulations ([`peers`]), the cycle benchmarks
//! ([`bench`]), the register file behind a socket for the host tool ([`serve`]), tshark as an
//! oracle ([`tshark`]) and the `ferroce-sim` command.
//!
//! The golden models the runners are compared with live in [`ferroce_models`] (re-exported as
//! [`models`], with its [`rx`], [`sched`] and model-side [`icrc`] modules re-exported here), the
//! wire formats in [`ferroce_wire`] ([`wire`]), the contracts in [`ferroce_contracts`].

#![warn(missing_docs)]

pub use ferroce_contracts as contracts;
pub use ferroce_models as models;
pub use ferroce_models::{icrc, rx, sched};
pub use ferroce_wire as wire;

pub mod ack_tracker_rtl;
pub mod axi4_master_rtl;
pub mod axil_split_rtl;
pub mod axis;
pub mod bench;
pub mod engine_rtl;
pub mod faults;
pub mod host_rtl;
pub mod icrc_rtl;
pub mod ingress_rtl;
pub mod loopback_bench;
pub mod loopback_rtl;
pub mod pacers_rtl;
pub mod payload_writer_rtl;
pub mod peers;
pub mod read_tracker_rtl;
pub mod regs_rtl;
pub mod reliable_loopback;
pub mod responder_rtl;
pub mod retry_timer_rtl;
pub mod rx_path_rtl;
pub mod rx_rtl;
pub mod sched_build_rtl;
pub mod sched_rtl;
pub mod send_history_rtl;
pub mod serial_rtl;
pub mod serve;
pub mod stream_bench;
pub mod stream_bus_rtl;
pub mod stream_bus_sender_rtl;
pub mod stream_feed;
pub mod stream_port_rtl;
pub mod stream_reader_rtl;
pub mod stream_router_rtl;
pub mod stream_sender_rtl;
pub mod stream_set_rtl;
pub mod tshark;
pub mod tx_path_rtl;
pub mod tx_rtl;
pub mod tx_segmenter_rtl;
pub mod verilated;
pub mod wire_bridge;
