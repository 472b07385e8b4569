//! BTH opcodes, their transport, operation and extension headers: the contracts' model
//! ([`ferroce_contracts::opcode`]), re-exported.

pub use ferroce_contracts::opcode::*;
