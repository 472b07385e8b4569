//! The boards `gen-verilog --board` writes a build for: the engine's tops in the configuration
//! the board takes, a board top that joins them to the board's MAC, PCIe or processor and
//! memory, its constraints and a Vivado script.
//!
//! The board tops and scripts are in `bsp/<family>/`, the constraints in `constraints/`; they
//! are compiled into `gen-verilog`, which writes them next to the generated Verilog with a
//! `board.tcl` of this board's settings (part, top, file lists, the Tcl variables of
//! [`Board::settings`]). `build.tcl` reads `board.tcl` from its own folder, so the output folder
//! can be copied anywhere. docs/boards.md is the user's guide.

use crate::tops;
use std::path::{Path, PathBuf};

/// What a file a board adds to its build is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// Verilog source (the board top).
    Source,
    /// Constraints (XDC).
    Constraints,
    /// The Vivado script `vivado -mode batch -source build.tcl` runs.
    Script,
}

/// A file of a board's build that is not generated: written out as it is.
pub struct BoardFile {
    /// File name in the output folder.
    pub name: &'static str,
    /// What it is.
    pub kind: FileKind,
    /// Its text.
    pub text: &'static str,
}

/// A clock domain of a board top (`gen-verilog --list-boards` prints them).
pub struct BoardClock {
    /// Clock net in the board top.
    pub net: &'static str,
    /// Frequency in MHz.
    pub mhz: f64,
    /// What runs on it.
    pub what: &'static str,
}

/// A board `gen-verilog --board` knows.
pub struct Board {
    /// Name, as `--board` takes it.
    pub name: &'static str,
    /// One line for `--list-boards`.
    pub description: &'static str,
    /// The FPGA part Vivado targets.
    pub part: &'static str,
    /// The board top's module name.
    pub top: &'static str,
    /// The generated tops the board top instantiates: (top, variant).
    pub generated: &'static [(&'static str, &'static str)],
    /// The register map's configuration (a variant of the `registers` top) whose C header and
    /// SystemRDL description are written with the build.
    pub register_map: &'static str,
    /// The files written as they are.
    pub files: &'static [BoardFile],
    /// Tcl variables of this board for `build.tcl` (name, value), written to `board.tcl`.
    pub settings: &'static [(&'static str, &'static str)],
    /// The clock domains.
    pub clocks: &'static [BoardClock],
    /// Ports of the board top its constraints leave alone: the GT lanes, which their IP places.
    pub placed_by_ip: &'static [&'static str],
}

/// A file [`Board::write`] wrote.
pub struct Written {
    /// Where.
    pub path: PathBuf,
    /// What it is, for a progress line.
    pub what: String,
    /// Its length in bytes.
    pub bytes: usize,
}

impl Board {
    /// The generated Verilog files' names, in the order they are added to the project.
    pub fn generated_files(&self) -> Vec<String> {
        self.generated
            .iter()
            .map(|(top, variant)| format!("{}.v", tops::find(top).expect("board: unknown top").module_name(variant)))
            .collect()
    }

    /// The files of one kind written as they are.
    pub fn files_of(&self, kind: FileKind) -> impl Iterator<Item = &BoardFile> {
        self.files.iter().filter(move |f| f.kind == kind)
    }

    /// The text of `board.tcl`: this board's settings for `build.tcl`.
    pub fn settings_tcl(&self) -> String {
        let mut sources = self.generated_files();
        sources.extend(self.files_of(FileKind::Source).map(|f| f.name.to_string()));
        let constraints: Vec<_> = self.files_of(FileKind::Constraints).map(|f| f.name).collect();
        let mut t = format!(
            "# {}: the settings build.tcl reads (written by gen-verilog --board {}).\n",
            self.description, self.name
        );
        let mut set = |name: &str, value: &str| t.push_str(&format!("set {name} {{{value}}}\n"));
        set("ferroce_board", self.name);
        set("ferroce_part", self.part);
        set("ferroce_top", self.top);
        set("ferroce_sources", &sources.join(" "));
        set("ferroce_constraints", &constraints.join(" "));
        for (name, value) in self.settings {
            set(name, value);
        }
        t
    }

    /// Writes this board's build into `dir` (which must exist): the generated tops, the board
    /// files, `board.tcl`, and the register map as a C header and SystemRDL; calls `progress`
    /// after each file.
    pub fn write(&self, dir: &Path, mut progress: impl FnMut(&Written)) -> std::io::Result<()> {
        let mut put = |name: &str, text: &str, what: String| -> std::io::Result<()> {
            let path = dir.join(name);
            std::fs::write(&path, text)?;
            let w = Written {
                path,
                what,
                bytes: text.len(),
            };
            progress(&w);
            Ok(())
        };
        for (top, variant) in self.generated {
            let t = tops::find(top).expect("board: unknown top");
            let module = t.module_name(variant);
            put(
                &format!("{module}.v"),
                &t.verilog(variant),
                format!("generated, {}", variant.replace('_', ", ")),
            )?;
        }
        for f in self.files {
            let what = match f.kind {
                FileKind::Source => "board top",
                FileKind::Constraints => "constraints",
                FileKind::Script => "Vivado script",
            };
            put(f.name, f.text, what.into())?;
        }
        put("board.tcl", &self.settings_tcl(), "the board's settings for build.tcl".into())?;
        for (name, text, what) in tops::register_map_files(self.register_map) {
            put(name, &text, what)?;
        }
        Ok(())
    }
}

const ALVEO_TOP: BoardFile = BoardFile {
    name: "ferroce_board_alveo.v",
    kind: FileKind::Source,
    text: include_str!("../../bsp/alveo/ferroce_board_alveo.v"),
};
const ALVEO_BUILD: BoardFile = BoardFile {
    name: "build.tcl",
    kind: FileKind::Script,
    text: include_str!("../../bsp/alveo/build.tcl"),
};
/// The Vivado flow every board's `build.tcl` sources.
const FLOW: BoardFile = BoardFile {
    name: "flow.tcl",
    kind: FileKind::Script,
    text: include_str!("../../bsp/common/flow.tcl"),
};

/// The generated tops of both Alveo boards.
const ALVEO_GENERATED: &[(&str, &str)] = &[("engine", "c2048_q256_w512"), ("axi4_master", "w512"), ("mac_ingress", "w512")];

/// The GT lanes of both Alveo tops (QSFP28 port 0 and PCIe x16), placed by the CMAC and the
/// XDMA.
const ALVEO_GT_LANES: &[&str] = &[
    "qsfp0_rx_p",
    "qsfp0_rx_n",
    "qsfp0_tx_p",
    "qsfp0_tx_n",
    "pcie_rx_p",
    "pcie_rx_n",
    "pcie_tx_p",
    "pcie_tx_n",
];

/// The clocks of both Alveo tops.
const ALVEO_CLOCKS: &[BoardClock] = &[
    BoardClock {
        net: "mac_clock",
        mhz: 322.265625,
        what: "the engine, the MAC ingress, the AXI4 master and the CMAC's user side (its TX user clock, RX through the CMAC's FIFO)",
    },
    BoardClock {
        net: "pcie_clock",
        mhz: 250.0,
        what: "the XDMA bridge's AXI side: BAR 0 onto the register file, host memory for the engine's memory side",
    },
    BoardClock {
        net: "init_clock",
        mhz: 100.0,
        what: "the CMAC's init and DRP clock (the board's 100 MHz system clock)",
    },
];

/// Every board, in `--list-boards` order.
pub static BOARDS: [Board; 3] = [
    Board {
        name: "alveo-u280",
        description: "AMD Alveo U280: 100GbE on QSFP28 port 0 (CMAC, RS-FEC), AXI4-Lite BAR and host memory over PCIe Gen3 x16 (XDMA bridge), the 512-bit engine at 322.265625 MHz",
        part: "xcu280-fsvh2892-2L-e",
        top: "ferroce_board_alveo",
        generated: ALVEO_GENERATED,
        register_map: "c2048_q256",
        files: &[
            ALVEO_TOP,
            BoardFile { name: "alveo-u280.xdc", kind: FileKind::Constraints, text: include_str!("../../constraints/alveo-u280.xdc") },
            ALVEO_BUILD,
            FLOW,
        ],
        settings: &[
            ("ferroce_cmac_refclk_mhz", "156.25"),
            ("ferroce_cmac_core", "CMACE4_X0Y6"),
            ("ferroce_cmac_gt_group", "X0Y40~X0Y43"),
            ("ferroce_cmac_lanes", "X0Y40 X0Y41 X0Y42 X0Y43"),
            ("ferroce_pcie_block", "PCIE4C_X1Y0"),
        ],
        clocks: ALVEO_CLOCKS,
        placed_by_ip: ALVEO_GT_LANES,
    },
    Board {
        name: "alveo-u55c",
        description: "AMD Alveo U55C: 100GbE on QSFP28 port 0 (CMAC, RS-FEC), AXI4-Lite BAR and host memory over PCIe Gen3 x16 (XDMA bridge), the 512-bit engine at 322.265625 MHz",
        part: "xcu55c-fsvh2892-2L-e",
        top: "ferroce_board_alveo",
        generated: ALVEO_GENERATED,
        register_map: "c2048_q256",
        files: &[
            ALVEO_TOP,
            BoardFile { name: "alveo-u55c.xdc", kind: FileKind::Constraints, text: include_str!("../../constraints/alveo-u55c.xdc") },
            ALVEO_BUILD,
            FLOW,
        ],
        settings: &[
            ("ferroce_cmac_refclk_mhz", "161.1328125"),
            ("ferroce_cmac_core", "CMACE4_X0Y3"),
            ("ferroce_cmac_gt_group", "X0Y24~X0Y27"),
            ("ferroce_cmac_lanes", "X0Y24 X0Y25 X0Y26 X0Y27"),
            ("ferroce_pcie_block", "PCIE4C_X1Y1"),
        ],
        clocks: ALVEO_CLOCKS,
        placed_by_ip: ALVEO_GT_LANES,
    },
    Board {
        name: "zcu102",
        description: "AMD ZCU102 (Zynq UltraScale+): 10GBASE-R on SFP+ cage 0 (XXV Ethernet), the register file on the processor's M_AXI_HPM0_FPD at 0xA000_0000, the engine's memory on its DDR (S_AXI_HP0_FPD), the 64-bit engine at 156.25 MHz",
        part: "xczu9eg-ffvb1156-2-e",
        top: "ferroce_board_zcu102",
        generated: &[("engine", "c64_q16_w64"), ("axi4_master", "w64"), ("mac_ingress", "w64")],
        register_map: "c64_q16",
        files: &[
            BoardFile {
                name: "ferroce_board_zcu102.v",
                kind: FileKind::Source,
                text: include_str!("../../bsp/zcu102/ferroce_board_zcu102.v"),
            },
            BoardFile { name: "zcu102.xdc", kind: FileKind::Constraints, text: include_str!("../../constraints/zcu102.xdc") },
            BoardFile { name: "build.tcl", kind: FileKind::Script, text: include_str!("../../bsp/zcu102/build.tcl") },
            FLOW,
        ],
        settings: &[
            ("ferroce_board_parts", "*:zcu102:*"),
            ("ferroce_sfp_refclk_mhz", "156.25"),
            ("ferroce_sfp_gt_group", "Quad_X1Y3"),
            ("ferroce_sfp_lane", "X1Y12"),
            ("ferroce_engine_clock_hz", "156250000"),
        ],
        clocks: &[
            BoardClock {
                net: "mac_clock",
                mhz: 156.25,
                what: "the engine, the AXI4 master, the MAC ingress and both processor ports; the XXV core's TX clock (its RX side through its RX FIFO)",
            },
            BoardClock { net: "control_clock", mhz: 125.0, what: "the XXV core's DRP and reset logic (the board's 125 MHz system clock)" },
        ],
        placed_by_ip: &["sfp0_rx_p", "sfp0_rx_n", "sfp0_tx_p", "sfp0_tx_n"],
    },
];

/// Looks a board up by name.
pub fn find(name: &str) -> Option<&'static Board> {
    BOARDS.iter().find(|b| b.name == name)
}
