//! Excluded by configuration: not parsed, even though it does not parse.
fn broken( {
