//! Compile-time tests of `#[side_effect]`; see `tests/ui.rs` and `cases/`.
