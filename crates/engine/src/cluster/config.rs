//! How a cluster starts: the seed, the nodes, the etcd size, the controllers' profile and the
//! seed objects. A journal file begins with it, so it is serialized by name.

use serde::{Deserialize, Serialize};

pub use crate::controllers::profile::ProfileName;

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
}

fn is_zero(v: &u64) -> bool {
    *v == 0
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
