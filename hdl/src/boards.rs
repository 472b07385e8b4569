//! The boards `gen-verilog --board` writes a build for: the engine's tops in the configuration
//! the board takes (the scheduler build on a board too small for the engine), a board top that
//! joins them to the board's MAC, PCIe, processor, memory or UART, its constraints and the
//! script of its [`Flow`].
//!
//! The board tops and scripts are in `bsp/<family>/`, the constraints in `constraints/`; they
//! are compiled into `gen-verilog`, which writes them next to the generated Verilog with the
//! board's settings (part, top, file lists, the variables of [`Board::settings`]): `board.tcl`
//! for Vivado's `build.tcl`, `board.sh` for the iCE40 boards' `build.sh`. The script reads them
//! from its own folder, so the output folder can be copied anywhere. docs/boards.md is the
//! user's guide.

use crate::tops;
use ferroce_contracts::regs::Map;
use std::path::{Path, PathBuf};

/// What a file a board adds to its build is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// Verilog source (the board top).
    Source,
    /// Constraints (XDC for Vivado, PCF for nextpnr).
    Constraints,
    /// A script of the board's [`Flow`] (`build.tcl` and what it sources, `build.sh`).
    Script,
}

/// The tools that build a board's bitstream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// AMD Vivado: `vivado -mode batch -source build.tcl`, settings in `board.tcl`.
    Vivado,
    /// yosys, nextpnr-ice40 and icepack (Lattice iCE40): `bash build.sh`, settings in
    /// `board.sh` (with `ferroce_clock_mhz`, the first clock's frequency, the target of place
    /// and route).
    Icestorm,
}

impl Flow {
    /// The command that builds the bitstream in the output folder.
    pub fn command(self) -> &'static str {
        match self {
            Flow::Vivado => "vivado -mode batch -source build.tcl",
            Flow::Icestorm => "bash build.sh",
        }
    }
}

/// The register map written with a board's build (C header and SystemRDL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegisterMap {
    /// The engine's, in the configuration of a variant of the `engine` top (its register file's map hash).
    Engine(&'static str),
    /// The scheduler build's ([`Map::scheduler`]): `2^node_bits` nodes, `queues` queues.
    Scheduler {
        /// Node address bits.
        node_bits: u32,
        /// Queues.
        queues: u32,
    },
}

impl RegisterMap {
    /// The map.
    pub fn map(self) -> Map {
        match self {
            RegisterMap::Engine(variant) => Map::new(tops::engine_config(variant)),
            RegisterMap::Scheduler { node_bits, queues } => Map::scheduler(node_bits, queues),
        }
    }

    /// Its files: (name, text, what it is).
    pub fn files(self) -> [(&'static str, String, String); 2] {
        tops::map_files(&self.map())
    }
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
    /// The tools that build it.
    pub flow: Flow,
    /// The FPGA part (as Vivado names it; for iCE40 boards, device and package).
    pub part: &'static str,
    /// The board top's module name.
    pub top: &'static str,
    /// The generated tops the board top instantiates: (top, variant).
    pub generated: &'static [(&'static str, &'static str)],
    /// The register map whose C header and SystemRDL description are written with the build.
    pub register_map: RegisterMap,
    /// The files written as they are.
    pub files: &'static [BoardFile],
    /// Variables of this board for its script (name, value), written to `board.tcl` (Tcl) or
    /// `board.sh` (shell).
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

    /// The text of `board.sh`: this board's settings for `build.sh` (shell variables; the
    /// sources separated by spaces).
    pub fn settings_sh(&self) -> String {
        let mut sources = self.generated_files();
        sources.extend(self.files_of(FileKind::Source).map(|f| f.name.to_string()));
        let constraints: Vec<_> = self.files_of(FileKind::Constraints).map(|f| f.name).collect();
        let mut t = format!(
            "# {}: the settings build.sh reads (written by gen-verilog --board {}).\n",
            self.description, self.name
        );
        let mut set = |name: &str, value: &str| {
            assert!(!value.contains('\''), "board.sh: {name} has a quote");
            t.push_str(&format!("{name}='{value}'\n"));
        };
        set("ferroce_board", self.name);
        set("ferroce_part", self.part);
        set("ferroce_top", self.top);
        set("ferroce_sources", &sources.join(" "));
        set("ferroce_constraints", &constraints.join(" "));
        set("ferroce_clock_mhz", &self.clocks[0].mhz.to_string());
        for (name, value) in self.settings {
            set(name, value);
        }
        t
    }

    /// Writes this board's build into `dir` (which must exist): the generated tops, the board
    /// files, `board.tcl` or `board.sh`, and the register map as a C header and SystemRDL; calls
    /// `progress` after each file.
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
            let what = match (f.kind, self.flow) {
                (FileKind::Source, _) => "board top",
                (FileKind::Constraints, _) => "constraints",
                (FileKind::Script, Flow::Vivado) => "Vivado script",
                (FileKind::Script, Flow::Icestorm) => "build script (yosys, nextpnr-ice40, icepack)",
            };
            put(f.name, f.text, what.into())?;
        }
        match self.flow {
            Flow::Vivado => put("board.tcl", &self.settings_tcl(), "the board's settings for build.tcl".into())?,
            Flow::Icestorm => put("board.sh", &self.settings_sh(), "the board's settings for build.sh".into())?,
        }
        for (name, text, what) in self.register_map.files() {
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
pub static BOARDS: [Board; 4] = [
    Board {
        name: "alveo-u280",
        description: "AMD Alveo U280: 100GbE on QSFP28 port 0 (CMAC, RS-FEC), AXI4-Lite BAR and host memory over PCIe Gen3 x16 (XDMA bridge), the 512-bit engine at 322.265625 MHz",
        flow: Flow::Vivado,
        part: "xcu280-fsvh2892-2L-e",
        top: "ferroce_board_alveo",
        generated: ALVEO_GENERATED,
        register_map: RegisterMap::Engine("c2048_q256_w512"),
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
        flow: Flow::Vivado,
        part: "xcu55c-fsvh2892-2L-e",
        top: "ferroce_board_alveo",
        generated: ALVEO_GENERATED,
        register_map: RegisterMap::Engine("c2048_q256_w512"),
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
        flow: Flow::Vivado,
        part: "xczu9eg-ffvb1156-2-e",
        top: "ferroce_board_zcu102",
        generated: &[("engine", "c64_q16_w64"), ("axi4_master", "w64"), ("mac_ingress", "w64")],
        register_map: RegisterMap::Engine("c64_q16_w64"),
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
    Board {
        name: "alchitry-cu",
        description: "Alchitry Cu (Lattice iCE40-HX8K): the scheduler build (the QoS scheduler of 64 nodes and 5 queues, its register file) on the FTDI USB UART at 1 Mbaud (the serial bridge), its state on the eight LEDs, at 50 MHz (a PLL from the board's 100 MHz); the engine does not fit",
        flow: Flow::Icestorm,
        part: "iCE40-HX8K-CB132",
        top: "ferroce_board_alchitry_cu",
        generated: &[("serial_sched", "n64_q5")],
        register_map: RegisterMap::Scheduler { node_bits: 6, queues: 5 },
        files: &[
            BoardFile {
                name: "ferroce_board_alchitry_cu.v",
                kind: FileKind::Source,
                text: include_str!("../../bsp/alchitry-cu/ferroce_board_alchitry_cu.v"),
            },
            BoardFile { name: "alchitry-cu.pcf", kind: FileKind::Constraints, text: include_str!("../../constraints/alchitry-cu.pcf") },
            BoardFile { name: "build.sh", kind: FileKind::Script, text: include_str!("../../bsp/alchitry-cu/build.sh") },
        ],
        // nextpnr-ice40 --hx8k --package cb132
        settings: &[("ferroce_device", "hx8k"), ("ferroce_package", "cb132")],
        clocks: &[
            BoardClock {
                net: "core_clock",
                mhz: 50.0,
                what: "everything (the PLL's output, from the board's 100 MHz oscillator on clk)",
            },
        ],
        placed_by_ip: &[],
    },
];

/// Looks a board up by name.
pub fn find(name: &str) -> Option<&'static Board> {
    BOARDS.iter().find(|b| b.name == name)
}
