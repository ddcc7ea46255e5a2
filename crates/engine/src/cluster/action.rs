//! What a learner does to the cluster ([`Action`]) and what it did ([`Outcome`]). An action is
//! serialized into the journal, a kind by its resource name ([`ResourceName`]), which is
//! resolved against the served registry when the action is performed — so an action on a
//! custom kind replays once the journal's earlier inputs have established its CRD.

use serde::{Deserialize, Serialize};
use watchlab_apimachinery::client::WatchId;

use crate::api::{Kind, Registry};
use crate::apiserver::{EtcdCompare, EtcdRequestOp};

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
    /// A DaemonSet of `image` (one pod per eligible node), as a manifest applied by kubectl.
    CreateDaemonSet {
        namespace: String,
        name: String,
        image: String,
        labels: Vec<(String, String)>,
    },
    /// A StatefulSet of `image` with `replicas` ordinal pods, each with a 1Gi claim `data`.
    CreateStatefulSet {
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
        kind: ResourceName,
        namespace: String,
        name: String,
        key: String,
        value: String,
        overwrite: bool,
    },
    Delete {
        kind: ResourceName,
        namespace: String,
        name: String,
    },
    /// The node's machine dies: its kubelet stops doing anything at all.
    KillNode(String),
    RestoreNode(String),
    /// A replica of kube-scheduler or kube-controller-manager (`kube-controller-manager-0`)
    /// stops: its clock, its elector and its controllers, as a frozen VM's would.
    PauseComponent(String),
    /// The paused replica goes on where it stopped, its clock behind by the pause.
    ResumeComponent(String),
    /// An API server instance's (`kube-apiserver-1`) watch caches stop hearing etcd (their
    /// etcd watches stall): they stop advancing while it keeps serving them; its writes and
    /// consistent reads still reach etcd.
    CutApiserver(String),
    /// An API server instance's process stops: its watches end, its clients move to another.
    StopApiserver(String),
    /// A cut or stopped API server instance serves from etcd again.
    RestoreApiserver(String),
    /// Whether the informers of processes started from now on (a new leader's controllers, a
    /// restarted replica) list first with `resourceVersion=""` — a consistent read, the fix for
    /// informers going back in time — or with client-go's `"0"`.
    ConsistentFirstList(bool),
    /// `kubectl drain NODE --ignore-daemonsets --delete-emptydir-data --force` at one instant,
    /// as the user agent `kubectl`: cordon, then evict each of the node's pods through
    /// `pods/eviction` once (no retry: a pod a budget refuses stays, and the outcome says why).
    DrainNode(String),
    KillEtcdMember(String),
    RestoreEtcdMember(String),
    /// Cut every network link of an etcd member (its process keeps running).
    IsolateEtcdMember(String),
    /// Cut the links between these etcd members and the others.
    PartitionEtcd(Vec<String>),
    /// Restore every etcd link (of one member with `Some`).
    HealEtcd(Option<String>),
    /// Hand the etcd leadership to a member (`etcdctl move-leader`).
    MoveEtcdLeader(String),
    /// Compact the ledger to the current revision.
    CompactNow,
    /// `etcdctl compaction REV` asked of an etcd member.
    CompactEtcd {
        member: String,
        revision: u64,
    },
    /// `etcdctl put KEY VALUE` asked of an etcd member: a write around the API server.
    EtcdPut {
        member: String,
        key: String,
        value: String,
        /// `--lease`: the key goes when the lease does.
        lease: Option<i64>,
    },
    /// `etcdctl del KEY [RANGE_END]` asked of an etcd member.
    EtcdDelete {
        member: String,
        key: String,
        range_end: Option<String>,
    },
    /// `etcdctl lease grant TTL` asked of an etcd member.
    EtcdLeaseGrant {
        member: String,
        ttl_secs: i64,
    },
    /// `etcdctl lease revoke ID`.
    EtcdLeaseRevoke {
        member: String,
        id: i64,
    },
    /// `etcdctl lease keep-alive --once ID`.
    EtcdLeaseKeepAlive {
        member: String,
        id: i64,
    },
    /// `etcdctl txn` asked of an etcd member: compares, then one branch's requests.
    EtcdTxn {
        member: String,
        compares: Vec<EtcdCompare>,
        success: Vec<EtcdRequestOp>,
        failure: Vec<EtcdRequestOp>,
    },
    /// `etcdctl alarm disarm` asked of an etcd member.
    EtcdAlarmDisarm {
        member: String,
    },
    /// `etcdctl snapshot save PATH` asked of an etcd member.
    EtcdSnapshotSave {
        member: String,
        path: String,
    },
    /// `etcdutl snapshot restore PATH`, then etcd and the API server restarted on it.
    EtcdSnapshotRestore {
        path: String,
        bump_revision: u64,
        mark_compacted: bool,
    },
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
    Drained(DrainReport),
}

/// What a [`Action::DrainNode`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrainReport {
    pub node: String,
    /// The node was already unschedulable (`node/X already cordoned`).
    pub already_cordoned: bool,
    /// The pods evicted (`namespace/name`), in the order kubectl evicted them.
    pub evicted: Vec<String>,
    /// The pods the API server refused to evict, with its message (a budget's 429:
    /// `Cannot evict pod as it would violate the pod's disruption budget.`).
    pub refused: Vec<(String, String)>,
    /// The ledger's revision after the drain.
    pub revision: u64,
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

/// A kind as an action names it: a built-in kind's plural (`pods`, `deployments`), a custom
/// kind's `<plural>.<group>` (`websites.examples.watchlab.dev`), as kubectl's fully qualified
/// resource argument. It is resolved against the registry the cluster serves when the action is
/// performed, as kubectl resolves its argument by discovery: a custom kind exists only while its
/// CustomResourceDefinition is established, so a journal cannot resolve it when it is read.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ResourceName(String);

impl ResourceName {
    /// The name as written (`pods`, `websites.examples.watchlab.dev`).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The kind it names among those `registry` serves, or kubectl's error for a name the
    /// server does not serve.
    pub fn resolve(&self, registry: &Registry) -> Result<Kind, String> {
        registry
            .resolve(&self.0)
            .map(|r| r.kind())
            .ok_or_else(|| format!("the server doesn't have a resource type \"{}\"", self.0))
    }
}

impl From<Kind> for ResourceName {
    fn from(kind: Kind) -> ResourceName {
        let r = kind.resource();
        ResourceName(if kind.is_custom() {
            format!("{}.{}", r.plural, r.group)
        } else {
            r.plural.to_string()
        })
    }
}
