//! The guarded-tool test (`../guard.rs`) on rmcp 2.

#[cfg(test)]
#[path = "../../meta_param.rs"]
mod meta_param;
#[cfg(test)]
use meta_param::call_in_run;

#[path = "../../guard.rs"]
pub mod guard;
