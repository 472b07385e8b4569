//! docs/registers.md carries the register map's tables as `contracts::regs::render::markdown`
//! renders them for the default build. `FERROCE_UPDATE_DOCS=1` rewrites them.

use ferroce_contracts::regs::{render, Config, Map};
use std::path::Path;

const BEGIN: &str = "<!-- generated from contracts::regs: do not edit below";
const END: &str = "<!-- end of the generated map -->";

#[test]
fn registers_md_has_the_maps_tables() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/registers.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let begin = doc.find(BEGIN).expect("the generated section's first marker");
    let begin = begin + doc[begin..].find('\n').expect("marker line") + 1;
    let end = doc.find(END).expect("the generated section's last marker");
    let tables = render::markdown(&Map::new(Config::DEFAULT));
    if doc[begin..end] == tables {
        return;
    }
    if std::env::var("FERROCE_UPDATE_DOCS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, format!("{}{tables}{}", &doc[..begin], &doc[end..])).unwrap();
        return;
    }
    panic!(
        "docs/registers.md does not show the register map as contracts::regs defines it: \
         run FERROCE_UPDATE_DOCS=1 cargo test -p ferroce-tests --test registers_doc and commit the file"
    );
}

const STREAM_BEGIN: &str = "<!-- generated from contracts::regs (the stream block of a build with 8 streams): do not edit below";
const STREAM_END: &str = "<!-- end of the generated stream block -->";

#[test]
fn stream_md_has_the_stream_block() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/stream.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let begin = doc.find(STREAM_BEGIN).expect("the generated section's first marker");
    let begin = begin + doc[begin..].find('\n').expect("marker line") + 1;
    let end = doc.find(STREAM_END).expect("the generated section's last marker");
    let map = Map::new(Config {
        streams: 8,
        ..Config::DEFAULT
    });
    let block = map.blocks.iter().find(|b| b.name == "stream").expect("a stream block");
    let table = render::block_markdown(block);
    if doc[begin..end] == table {
        return;
    }
    if std::env::var("FERROCE_UPDATE_DOCS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, format!("{}{table}{}", &doc[..begin], &doc[end..])).unwrap();
        return;
    }
    panic!(
        "docs/stream.md does not show the stream block as contracts::regs defines it: \
         run FERROCE_UPDATE_DOCS=1 cargo test -p ferroce-tests --test registers_doc and commit the file"
    );
}
