//! watchlab's engine: the Kubernetes control plane's memory and nervous system as a pure,
//! deterministic library.
//!
//! Data flows one way, as in the real system: an action becomes an API request, the API server
//! writes the [`store`] (the etcd-like ledger), the write is broadcast to every matching watch
//! stream, informers update their caches, and controllers answer with API requests of their own.
//! Nothing here reads a wall clock, keeps global state or draws hidden randomness: time is a
//! [`clock::Timestamp`] the driver advances, and randomness comes from a seeded [`rng::SimRng`].
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub use watchlab_api as api;
pub mod apiserver;
pub mod client;
pub use watchlab_api::clock;
pub mod cluster;
pub mod controllers;
pub mod etcd;
pub use watchlab_api::hash;
/// Save and restore under their old name: the journal ([`cluster::journal`]) and the digests
/// its replay is checked with.
pub mod journal {
    pub use crate::cluster::journal::*;
    pub use crate::cluster::{history_digest, ledger_fingerprint};
}
pub mod reconnect_comparison;
pub mod rng;
pub mod sorted_set;
pub mod store;
