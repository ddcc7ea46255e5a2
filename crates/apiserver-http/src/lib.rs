//! watchlab's API server on a real socket: the engine's JSON edge served over HTTP/1.1 on
//! 127.0.0.1, with discovery, server-side Tables and streaming watches, so the real kubectl and
//! kube-rs can drive the simulated cluster and show it behaves like Kubernetes. Native only; the
//! wasm app never depends on it.

#![cfg(not(target_arch = "wasm32"))]
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod args;
pub mod clock_driver;
pub mod discovery;
pub mod etcd_grpc;
pub mod faults;
pub mod openapi_v2_pb;
pub mod protobuf;
pub mod server;

pub use args::{Args, ArgsError};
pub use server::{ServeError, Server, Shared};
