//! Labs: guided exercises a trainer writes as YAML files, without Rust — steps that narrate and
//! act on the cluster, and tasks whose checks tell each learner whether they did it. The page
//! loads them (`?lab=URL`, *Open lab…*, the built-in ones in `static/labs/`) and `./x lab FILE…`
//! runs them natively, each task's solution then its checks, so a trainer's CI can test a class's
//! labs as ours tests the built-in ones.
//!
//! [`format`] reads a file (refusing a bad one with its line and column); [`run`] starts a lab's
//! cluster, enters steps and evaluates checks on the engine.

pub mod format;
pub mod run;

pub use format::{Check, Do, Lab, LabError, Step, Text};
pub use run::{
    enter, evaluate_all, lab_cluster, lab_engine, prepare, run_lab, CheckResult, Entered,
    StepReport,
};
