//! Reproductions of the references (filled in below).
