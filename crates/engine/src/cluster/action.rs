//! What a learner does to the cluster ([`Action`]) and what it did ([`Outcome`]). An action is
//! serialized into the journal, a kind by its plural name.

use serde::{Deserialize, Serialize};
use watchlab_apimachinery::client::WatchId;

use crate::api::Kind;

/// Something a learner does. Serialized into the [`super::journal::Journal`] (a kind by its plural name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Action {
    CreatePod {
        namespace: String,
        name: String,
        image: String,
        labels: Vec<(String, String)>,
    },
    CreateDeployment {
        namespace: String,
        name: String,
        image: String,
        replicas: u32,
        labels: Vec<(String, String)>,
    },
    /// `kubectl scale deployment <name> --replicas=N`.
    Scale {
        namespace: String,
        name: String,
        replicas: u32,
    },
    /// `kubectl label <kind> <name> key=value [--overwrite]`.
    Label {
        #[serde(with = "kind_plural")]
        kind: Kind,
        namespace: String,
        name: String,
        key: String,
        value: String,
        overwrite: bool,
    },
    Delete {
        #[serde(with = "kind_plural")]
        kind: Kind,
        namespace: String,
        name: String,
    },
    /// The node's machine dies: its kubelet stops doing anything at all.
    KillNode(String),
    RestoreNode(String),
    KillEtcdMember(String),
    RestoreEtcdMember(String),
    /// Compact the ledger to the current revision.
    CompactNow,
    /// Ends a watch stream from the server side, as a timeout would.
    DropWatch(WatchId),
    /// Two editors read the same Deployment at the same revision and both write it back.
    ConflictingWrite {
        namespace: String,
        name: String,
    },
    /// Starts (or restarts) two clients on the namespace's pods — a naive watcher that
    /// reconnects without its resourceVersion and an informer that resumes from it
    /// ([`crate::reconnect_comparison`]).
    CompareReconnects {
        namespace: String,
    },
    /// The network between those two clients and the API server goes down.
    CutWatchConnections,
    /// ... and comes back: each reconnects its own way.
    RestoreWatchConnections,
}

/// What an action did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The ledger's revision after the action.
    Done {
        revision: u64,
    },
    Conflict(ConflictReport),
}

/// The optimistic-concurrency story, step by step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictReport {
    /// The resourceVersion both editors read.
    pub read_revision: u64,
    /// The revision of the write that won.
    pub winner_revision: u64,
    /// The loser's 409 message, verbatim from the API server.
    pub loser_message: String,
    /// The revision the loser's retry (re-read, re-apply, write) landed at.
    pub retry_revision: u64,
}

/// serde for [`crate::api::Kind`] as its resource's plural name (`pods`, `deployments`).
pub(crate) mod kind_plural {
    use crate::api::Kind;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(kind: &Kind, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(kind.resource().plural)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Kind, D::Error> {
        let name = String::deserialize(d)?;
        Kind::ALL
            .into_iter()
            .find(|k| k.resource().plural == name)
            // kubectl's wording for an unknown resource.
            .ok_or_else(|| {
                D::Error::custom(format!(
                    "the server doesn't have a resource type \"{name}\""
                ))
            })
    }
}
