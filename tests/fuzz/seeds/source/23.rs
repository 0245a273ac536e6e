//! A syntax error: an operator with no right-hand side.

pub fn half_written(a: u32) -> u32 {
    a +
}
