//! The registry of top modules that `gen-verilog` emits.

use crate::emit;
use crate::icrc::{IcrcCheck, IcrcInsert};

/// Bus widths every width-generic top supports.
pub const WIDTHS: [usize; 5] = [64, 128, 256, 512, 1024];

/// A top module: its Ferroce name (without the width suffix) and what it does.
pub struct Top {
    pub name: &'static str,
    pub description: &'static str,
    build: fn(usize) -> String,
}

impl Top {
    /// Module name at a bus width, e.g. `ferroce_icrc_check_w512`.
    pub fn module_name(&self, width: usize) -> String {
        format!("ferroce_{}_w{}", self.name, width)
    }

    /// Generates the Verilog of this top at `width` bits (one of [`WIDTHS`]).
    pub fn verilog(&self, width: usize) -> String {
        assert!(WIDTHS.contains(&width), "unsupported width {width}");
        let f = self.build;
        emit::with_big_stack(move || f(width))
    }
}

macro_rules! at_width {
    ($width:expr, $name:expr, $ty:ident) => {
        match $width {
            64 => emit::verilog(&mut $ty::<64, 8>::default(), $name),
            128 => emit::verilog(&mut $ty::<128, 16>::default(), $name),
            256 => emit::verilog(&mut $ty::<256, 32>::default(), $name),
            512 => emit::verilog(&mut $ty::<512, 64>::default(), $name),
            1024 => emit::verilog(&mut $ty::<1024, 128>::default(), $name),
            w => panic!("unsupported width {w}"),
        }
    };
}

fn icrc_check(width: usize) -> String {
    at_width!(width, &TOPS[0].module_name(width), IcrcCheck)
}

fn icrc_insert(width: usize) -> String {
    at_width!(width, &TOPS[1].module_name(width), IcrcInsert)
}

/// Every top, in emission order.
pub static TOPS: [Top; 2] = [
    Top {
        name: "icrc_check",
        description: "RX ICRC check: frames pass through, verdict (not RoCEv2 / bad / good) and computed ICRC on the last beat",
        build: icrc_check,
    },
    Top {
        name: "icrc_insert",
        description: "TX ICRC insertion: appends the 4 ICRC bytes to RoCEv2 frames, other frames pass unchanged",
        build: icrc_insert,
    },
];

/// Looks a top up by name.
pub fn find(name: &str) -> Option<&'static Top> {
    TOPS.iter().find(|t| t.name == name)
}
