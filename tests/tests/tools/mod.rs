//! The outside tools of the register file's checks: the Python ones (cocotb, cocotbext-axi, PeakRDL) in the virtual
//! environment that `scripts/python_env.sh` creates (`scripts/test.sh` runs it when the
//! environment is missing): `FERROCE_VENV`, or `.venv` at the repository's root.

// each test file uses a part of this module
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A program of the virtual environment (`python`, `peakrdl`).
pub fn venv_bin(name: &str) -> PathBuf {
    let venv = std::env::var_os("FERROCE_VENV").map_or_else(|| root().join(".venv"), PathBuf::from);
    let bin = venv.join("bin").join(name);
    assert!(
        bin.exists(),
        "{} is missing: run scripts/python_env.sh (scripts/test.sh does) to install the Python tools",
        bin.display()
    );
    bin
}

/// Runs a command; its status and its output (stdout then stderr).
pub fn run(cmd: &mut Command) -> (bool, String) {
    let o = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    (
        o.status.success(),
        format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)),
    )
}

/// A fresh temporary directory for one test.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferroce-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
