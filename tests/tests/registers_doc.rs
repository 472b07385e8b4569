//! The docs carry the register maps' tables as `contracts::regs::render` renders them:
//! docs/registers.md the default build's map and the scheduler build's, docs/stream.md the
//! stream block. `FERROCE_UPDATE_DOCS=1` rewrites them.

use ferroce_contracts::regs::{render, Config, Map};
use std::path::Path;

/// Checks that `doc` (under docs/) holds `text` between the line of `begin` and `end`, or
/// rewrites it there with `FERROCE_UPDATE_DOCS=1`.
fn section_is(doc: &str, begin: &str, end: &str, text: &str, what: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs").join(doc);
    let content = std::fs::read_to_string(&path).unwrap();
    let first = content.find(begin).expect("the generated section's first marker");
    let first = first + content[first..].find('\n').expect("marker line") + 1;
    let last = content.find(end).expect("the generated section's last marker");
    if content[first..last] == *text {
        return;
    }
    if std::env::var("FERROCE_UPDATE_DOCS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, format!("{}{text}{}", &content[..first], &content[last..])).unwrap();
        return;
    }
    panic!(
        "docs/{doc} does not show {what} as contracts::regs defines it: \
         run FERROCE_UPDATE_DOCS=1 cargo test -p ferroce-tests --test registers_doc and commit the file"
    );
}

#[test]
fn registers_md_has_the_maps_tables() {
    section_is(
        "registers.md",
        "<!-- generated from contracts::regs: do not edit below",
        "<!-- end of the generated map -->",
        &render::markdown(&Map::new(Config::DEFAULT)),
        "the register map",
    );
}

#[test]
fn registers_md_has_the_scheduler_builds_map() {
    section_is(
        "registers.md",
        "<!-- generated from contracts::regs (Map::scheduler(6, 5), the Alchitry Cu's): do not edit below",
        "<!-- end of the generated scheduler build's map -->",
        &render::markdown(&Map::scheduler(6, 5)),
        "the scheduler build's map",
    );
}

#[test]
fn stream_md_has_the_stream_block() {
    let map = Map::new(Config {
        streams: 8,
        ..Config::DEFAULT
    });
    let block = map.blocks.iter().find(|b| b.name == "stream").expect("a stream block");
    section_is(
        "stream.md",
        "<!-- generated from contracts::regs (the stream block of a build with 8 streams): do not edit below",
        "<!-- end of the generated stream block -->",
        &render::block_markdown(block),
        "the stream block",
    );
}
