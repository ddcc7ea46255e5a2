//! How a cluster starts: the seed, the nodes, the etcd size, the controllers' profile and the
//! seed objects. A journal file begins with it, so it is serialized by name.

use serde::{Deserialize, Serialize};

pub use crate::controllers::profile::ProfileName;
use crate::store::DEFAULT_QUOTA_BYTES;

/// The etcd quota the page and its benchmarks run with, 3 GiB rather than etcd's 2 GiB. A
/// 5,000-node cluster starting 150,000 pods keeps ~1.6 GiB of revisions (11 KB a pod: its
/// writes and Events), and its kubelets' lease renewals add ~100 MB a minute (`Training`
/// timings) to the up to ten minutes of history compaction keeps: ~2.5 GiB before the pods'
/// history is compacted, which 2 GiB would refuse — every renewal then fails and the nodes go
/// NotReady. Large real clusters raise the quota too (etcd suggests at most 8 GiB), but a
/// tab's wasm memory stops at 4 GiB, so a learner who scales far past the envelope gets etcd's
/// `database space exceeded` rather than a dead tab.
pub const PLAYGROUND_QUOTA_BYTES: u64 = 3 * 1024 * 1024 * 1024;

/// etcd's `MaxQuotaBytes`, 8 GiB: the largest quota a cluster file may ask for (etcd only
/// warns past it; here it bounds what an imported file can make the tab hold).
pub const MAX_QUOTA_BYTES: u64 = 8 * 1024 * 1024 * 1024;

/// How a cluster starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterConfig {
    pub seed: u64,
    pub nodes: Vec<String>,
    /// 1, 3 or 5 etcd members.
    pub etcd_members: usize,
    #[serde(with = "profile_name")]
    pub profile: ProfileName,
    /// Create the seed texts' starting point: namespace `production` with the Deployment
    /// `orders-api` (3 replicas of `orders-api:1.0`).
    pub seed_objects: bool,
    /// The virtual time the cluster starts at, in milliseconds after the virtual epoch
    /// (2026-01-01T00:00:00Z). The playground starts at 0; `watchlab-apiserver` passes its
    /// wall-clock start, so real clients that compute ages on their own clock (`kubectl
    /// describe`) agree with it. The engine never reads a clock itself.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub start_ms: u64,
    /// etcd's `--quota-backend-bytes` (default 2 GiB, [`DEFAULT_QUOTA_BYTES`]): what the kept
    /// revisions may cost before puts are refused ([`crate::store::quota`]).
    #[serde(default = "default_quota", skip_serializing_if = "is_default_quota")]
    pub quota_backend_bytes: u64,
    /// Replicas of kube-scheduler and of kube-controller-manager (each leader-elected through
    /// its Lease in `kube-system`): 1 as a kubeadm cluster of one control-plane node, 2 or 3
    /// as a highly available one ([`MAX_CONTROLLER_REPLICAS`]).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub controller_replicas: u32,
    /// kube-apiserver instances on the same etcd, each with its own watch caches (1 to
    /// [`crate::apiserver::instance::MAX_INSTANCES`]); clients are spread over them.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub apiservers: u32,
    /// Every informer's first list a consistent read (`resourceVersion=""`): the fix for
    /// informers going back in time (kubernetes#59848; #83520 made it, then was reverted). Off
    /// by default: client-go v1.32 lists first at `resourceVersion=0`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub consistent_first_list: bool,
}

/// The most replicas of each leader-elected component a cluster runs (an HA control plane has
/// three control-plane nodes, or five at most).
pub const MAX_CONTROLLER_REPLICAS: u32 = 5;

fn one() -> u32 {
    1
}

fn is_one(v: &u32) -> bool {
    *v == 1
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

fn default_quota() -> u64 {
    DEFAULT_QUOTA_BYTES
}

fn is_default_quota(v: &u64) -> bool {
    *v == DEFAULT_QUOTA_BYTES
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            seed: 7,
            nodes: ["node-a", "node-b", "node-c"].map(String::from).to_vec(),
            etcd_members: 3,
            profile: ProfileName::Training,
            seed_objects: true,
            start_ms: 0,
            quota_backend_bytes: DEFAULT_QUOTA_BYTES,
            controller_replicas: 1,
            apiservers: 1,
            consistent_first_list: false,
        }
    }
}

/// serde for [`crate::cluster::ProfileName`] as `kubernetes` / `training`.
pub(crate) mod profile_name {
    use crate::cluster::ProfileName;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(p: &ProfileName, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match p {
            ProfileName::Kubernetes => "kubernetes",
            ProfileName::Training => "training",
        })
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<ProfileName, D::Error> {
        match String::deserialize(d)?.as_str() {
            "kubernetes" => Ok(ProfileName::Kubernetes),
            "training" => Ok(ProfileName::Training),
            other => Err(D::Error::custom(format!(
                "unknown profile \"{other}\" (expected \"kubernetes\" or \"training\")"
            ))),
        }
    }
}
