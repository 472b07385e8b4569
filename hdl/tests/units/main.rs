//! The synthesizable crate's block tests: small blocks in rust-hdl's simulator and the
//! elaboration helpers. One test binary (a unit-test build would compile the whole crate again).

mod attributes;
mod checksum;
mod counter;
mod crc;
mod emit;
mod fifo;
mod payload_buffer;
mod post_turns;
mod registers;
mod rx_header;
mod wide;
