//! Example.
