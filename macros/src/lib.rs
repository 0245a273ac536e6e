//! `#[side_effect]`.
