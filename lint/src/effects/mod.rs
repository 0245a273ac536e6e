//! The effect classifier's vocabularies, one module per kind of evidence, as data with pure
//! functions over it: which query-language statements write ([`statement`]), which verbs of
//! external calls and tool names write ([`verbs`]), and which operations on state the server
//! keeps between calls write ([`state`]). The per-file pass applies them to the syntax it
//! visits; nothing here sees syntax trees.

pub mod state;
pub mod statement;
pub mod verbs;
