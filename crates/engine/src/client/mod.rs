//! The client side of the control plane: client-go's machinery for controllers, on virtual time.
//!
//! A controller never polls the API server for state. It runs an [`informer::Informer`]: a
//! [`reflector::Reflector`] lists once and then watches from the list's resourceVersion, resuming
//! after a stream ends and relisting after `410 Expired`; the events reach a local cache
//! ([`store`]) only after a delivery delay, so a controller reads a slightly stale copy of the
//! world (eventual consistency). Work is driven through a [`workqueue::WorkQueue`] keyed by
//! `namespace/name`, and writes that race with others are retried with
//! [`retry::retry_on_conflict`].
//!
//! The I/O sits behind the small [`lister_watcher::ListerWatcher`] trait, generic over the object
//! type, so the same code runs against the real API server (with `K = Arc<Object>`) and against
//! [`fake::FakeLedger`] in tests. Nothing here reads a clock or draws hidden randomness: every
//! function that needs "now" takes a [`crate::clock::Timestamp`], and jitter comes from a seeded
//! [`crate::rng::SimRng`].

pub mod backoff;
pub mod error;
pub mod fake;
pub mod informer;
pub mod lister_watcher;
pub mod naive_watcher;
pub mod notification;
pub mod rate_limiter;
pub mod reflector;
pub mod resource;
pub mod retry;
pub mod store;
pub mod workqueue;

pub use backoff::{Backoff, BackoffManager};
pub use error::ClientError;
pub use informer::{Informer, InformerConfig};
pub use lister_watcher::{
    ListParams, ListResourceVersion, ListerWatcher, ObjectList, StreamId, WatchEvent, WatchParams,
};
pub use notification::{Deleted, DeletedFinalStateUnknown, Notification};
pub use rate_limiter::{ControllerRateLimiter, RateLimiter};
pub use reflector::{Reflector, ReflectorPhase, ReflectorStats, WatcherEvent};
pub use resource::{ObjectKey, Resource};
pub use retry::{retry_on_conflict, RetryOutcome};
pub use store::{IndexFunc, IndexValues, Store, StoreError, Writer};
pub use workqueue::WorkQueue;
