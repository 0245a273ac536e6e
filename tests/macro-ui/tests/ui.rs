//! Every grammar error and every compile-time rule of `#[side_effect]`, as the user sees it.
//! Regenerate the expected output with `TRYBUILD=overwrite cargo test -p idemcheck-macro-ui`
//! and review the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("cases/pass/*.rs");
    t.compile_fail("cases/fail/*.rs");
}
