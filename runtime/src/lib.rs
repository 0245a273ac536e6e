//! idemcheck runtime.
