//! ferroce-sim's build script. With the `models` feature (a default) it builds the Verilator
//! models ([`models`], `build/models.rs`); without it, as the test command runs clippy
//! (`cargo clippy --no-default-features`), it writes an empty list of models, so clippy
//! compiles neither `ferroce-hdl` nor its dependencies a second time for this script (a third
//! of clippy's work).

use std::path::Path;

#[cfg(feature = "models")]
#[path = "build/models.rs"]
mod models;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build");
    #[cfg(feature = "models")]
    models::main();
    #[cfg(not(feature = "models"))]
    write_model_list(Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")), &[]);
}

/// `models.rs`: the names of the Verilator models built into the crate.
fn write_model_list(out: &Path, names: &[String]) {
    let list: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    std::fs::write(
        out.join("models.rs"),
        format!(
            "/// Verilator models built into this crate.\npub const MODELS: &[&str] = &[{}];\n",
            list.join(", ")
        ),
    )
    .unwrap();
}
