//! No code: this crate exists so that `cargo test --workspace` builds `idemcheck` with its
//! `sim` feature (workspace feature unification), which runs `runtime/tests/sim.rs` and
//! builds the `retry_matrix` and `fault_levels` examples; and its tests prove the example
//! agent tools (`examples/agent-tools`) with the simulator's property harness.
