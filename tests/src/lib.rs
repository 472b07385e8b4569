//! Cross-crate tests live in `tests/tests/`; see `lint_gate.rs`.
