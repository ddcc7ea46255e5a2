//! The cluster's size as the learner picks it in the header: how many nodes a Restart creates
//! and how many replicas the demo Deployment asks for. What was typed is checked here before
//! anything changes — a size beyond Kubernetes' envelope, replicas the nodes cannot hold, or
//! text that is not a number is refused with a message and the cluster stays as it was (a
//! typo must never start building a million pods and freeze the tab).

use watchlab_engine::api::Kind;
use watchlab_engine::apiserver::instance::MAX_INSTANCES;

use crate::i18n::{Lang, T};
use watchlab_engine::cluster::{
    Cluster, ClusterConfig, MAX_CONTROLLER_REPLICAS, PLAYGROUND_QUOTA_BYTES,
};
use watchlab_engine::controllers::kubelet::NODE_PODS;

use crate::seeds::{SEED_DEPLOYMENT, SEED_NAMESPACE};

/// The sizes the control offers.
pub const NODE_SIZES: [usize; 4] = [3, 100, 1_000, 5_000];
/// Kubernetes' scalability envelope ("No more than 5,000 nodes", kubernetes.io, "Considerations
/// for large clusters"): the engine's own limit on a cluster file, so a Restart never builds a
/// cluster that could not be saved and restored.
pub use watchlab_engine::cluster::journal::MAX_NODES;
/// The replicas the seed texts' Deployment starts with (`ClusterConfig::seed_objects`).
pub const SEED_REPLICAS: u32 = 3;

/// Pods one node holds: the kubelet's `maxPods` (default 110), as every simulated node reports
/// in `status.capacity.pods`.
pub fn pods_per_node() -> u64 {
    NODE_PODS.parse().unwrap_or(110)
}

/// How big a Restart makes the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClusterSize {
    pub nodes: usize,
    /// The demo Deployment's replicas.
    pub replicas: u32,
    /// Replicas of kube-scheduler and of kube-controller-manager (leader-elected).
    pub controller_replicas: u32,
    /// kube-apiserver instances.
    pub apiservers: u32,
}

impl ClusterSize {
    /// The same size with `n` replicas of each leader-elected component (within 1 and
    /// [`MAX_CONTROLLER_REPLICAS`]).
    pub fn with_controllers(self, n: u32) -> ClusterSize {
        ClusterSize {
            controller_replicas: n.clamp(1, MAX_CONTROLLER_REPLICAS),
            ..self
        }
    }

    /// The same size with `n` kube-apiserver instances (within 1 and [`MAX_INSTANCES`]).
    pub fn with_apiservers(self, n: u32) -> ClusterSize {
        ClusterSize {
            apiservers: n.clamp(1, MAX_INSTANCES as u32),
            ..self
        }
    }

    /// This size's control plane (replicas and instances) on another size.
    pub fn keeping_control_plane_of(self, current: ClusterSize) -> ClusterSize {
        ClusterSize {
            controller_replicas: current.controller_replicas,
            apiservers: current.apiservers,
            ..self
        }
    }
}

impl Default for ClusterSize {
    fn default() -> Self {
        ClusterSize {
            nodes: ClusterConfig::default().nodes.len(),
            replicas: SEED_REPLICAS,
            controller_replicas: 1,
            apiservers: 1,
        }
    }
}

/// Why a size was refused (the cluster is unchanged).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SizeError {
    /// The nodes field is not a whole number (what was typed).
    NodesNotANumber(String),
    /// Zero nodes, or more than [`MAX_NODES`].
    NodesOutOfRange(u64),
    /// The replicas field is not a whole number (what was typed).
    ReplicasNotANumber(String),
    /// More replicas than `nodes` × [`pods_per_node`] pods.
    ReplicasOverCapacity {
        replicas: u64,
        nodes: usize,
        capacity: u64,
    },
}

impl SizeError {
    /// The message, in `lang`.
    pub fn text(&self, lang: Lang) -> String {
        match self {
            SizeError::NodesNotANumber(text) => T::SizeNodesNotANumber.fill(lang, &[text]),
            SizeError::NodesOutOfRange(n) => {
                T::SizeNodesOutOfRange.fill(lang, &[&n.to_string(), &MAX_NODES.to_string()])
            }
            SizeError::ReplicasNotANumber(text) => T::SizeReplicasNotANumber.fill(lang, &[text]),
            SizeError::ReplicasOverCapacity {
                replicas,
                nodes,
                capacity,
            } => T::SizeOverCapacity.fill(
                lang,
                &[
                    &replicas.to_string(),
                    &nodes.to_string(),
                    &capacity.to_string(),
                    &pods_per_node().to_string(),
                ],
            ),
        }
    }
}

/// Reads the two fields as typed (surrounding blanks and `,`/`_` digit separators allowed).
pub fn parse_size(nodes: &str, replicas: &str) -> Result<ClusterSize, SizeError> {
    let number = |text: &str| -> Option<u64> {
        let digits: String = text
            .trim()
            .chars()
            .filter(|c| *c != ',' && *c != '_')
            .collect();
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        // Digits only: a failure here is overflow, which is out of range anyway.
        Some(digits.parse().unwrap_or(u64::MAX))
    };
    let n = number(nodes).ok_or_else(|| SizeError::NodesNotANumber(nodes.trim().to_string()))?;
    if n == 0 || n > MAX_NODES as u64 {
        return Err(SizeError::NodesOutOfRange(n));
    }
    let nodes = n as usize;
    let r = number(replicas)
        .ok_or_else(|| SizeError::ReplicasNotANumber(replicas.trim().to_string()))?;
    let capacity = n * pods_per_node();
    match u32::try_from(r) {
        Ok(replicas) if r <= capacity => Ok(ClusterSize {
            nodes,
            replicas,
            controller_replicas: 1,
            apiservers: 1,
        }),
        _ => Err(SizeError::ReplicasOverCapacity {
            replicas: r,
            nodes,
            capacity,
        }),
    }
}

/// The node names of a cluster of `n`: the three of the texts (`node-a` … `node-c`) for the
/// default size, else `node-001` … numbered to the same width, so name order is number order.
pub fn node_names(n: usize) -> Vec<String> {
    let default = ClusterConfig::default().nodes;
    if n == default.len() {
        return default;
    }
    let width = n.to_string().len();
    (1..=n).map(|i| format!("node-{i:0width$}")).collect()
}

/// A fresh cluster of `size` from `seed`: the demo Deployment is scaled to the chosen replicas
/// by a recorded action, so the choice is part of the saved cluster.
pub fn sized_cluster(seed: u64, size: ClusterSize) -> Cluster {
    let config = ClusterConfig {
        seed,
        nodes: node_names(size.nodes),
        controller_replicas: size.controller_replicas,
        apiservers: size.apiservers,
        ..ClusterConfig::default()
    };
    sized_cluster_from(config, size.replicas)
}

/// A fresh cluster of `config` (with the playground's etcd quota) whose demo Deployment asks for
/// `replicas`, scaled by a recorded action as [`sized_cluster`] does.
pub fn sized_cluster_from(config: ClusterConfig, replicas: u32) -> Cluster {
    let mut cluster = Cluster::new(ClusterConfig {
        quota_backend_bytes: PLAYGROUND_QUOTA_BYTES,
        ..config
    });
    if replicas != SEED_REPLICAS && cluster.config().seed_objects {
        // The Deployment was just created by the seed objects: this cannot be refused.
        let _ = cluster.apply(watchlab_engine::cluster::Action::Scale {
            namespace: SEED_NAMESPACE.into(),
            name: SEED_DEPLOYMENT.into(),
            replicas,
        });
    }
    cluster
}

/// The size a (restored or imported) cluster has: its nodes, and the demo Deployment's
/// replicas if it still exists.
pub fn size_of(cluster: &Cluster) -> ClusterSize {
    let replicas = cluster
        .api()
        .get(Kind::Deployment, Some(SEED_NAMESPACE), SEED_DEPLOYMENT)
        .ok()
        .and_then(|o| o.as_deployment().and_then(|d| d.spec.replicas))
        .and_then(|r| u32::try_from(r).ok())
        .unwrap_or(SEED_REPLICAS);
    ClusterSize {
        nodes: cluster.config().nodes.len(),
        replicas,
        controller_replicas: cluster.config().controller_replicas,
        apiservers: cluster.config().apiservers,
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn the_offered_sizes_and_their_capacity_are_accepted() {
        for n in NODE_SIZES {
            let full = n as u64 * 110;
            assert_eq!(
                parse_size(&n.to_string(), &full.to_string()),
                Ok(ClusterSize {
                    nodes: n,
                    replicas: full as u32,
                    controller_replicas: 1,
                    apiservers: 1,
                })
            );
        }
        assert_eq!(
            parse_size(" 5,000 ", "150_000"),
            Ok(ClusterSize {
                nodes: 5_000,
                replicas: 150_000,
                controller_replicas: 1,
                apiservers: 1,
            })
        );
    }

    #[test]
    fn bad_sizes_are_refused_with_what_was_wrong() {
        assert_eq!(
            parse_size("5001", "3"),
            Err(SizeError::NodesOutOfRange(5001))
        );
        assert_eq!(parse_size("0", "3"), Err(SizeError::NodesOutOfRange(0)));
        assert_eq!(
            parse_size("99999999999999999999999", "3"),
            Err(SizeError::NodesOutOfRange(u64::MAX))
        );
        for bad in ["", "ten", "-3", "3.5", "1e3"] {
            assert_eq!(
                parse_size(bad, "3"),
                Err(SizeError::NodesNotANumber(bad.trim().to_string())),
                "{bad:?}"
            );
        }
        assert_eq!(
            parse_size("3", "many"),
            Err(SizeError::ReplicasNotANumber("many".into()))
        );
        assert_eq!(
            parse_size("3", "331"),
            Err(SizeError::ReplicasOverCapacity {
                replicas: 331,
                nodes: 3,
                capacity: 330
            })
        );
        assert!(matches!(
            parse_size("5000", "99999999999"),
            Err(SizeError::ReplicasOverCapacity { .. })
        ));
    }

    #[test]
    fn node_names_keep_the_texts_names_and_sort_by_number() {
        assert_eq!(node_names(3), ["node-a", "node-b", "node-c"]);
        let names = node_names(100);
        assert_eq!(names.len(), 100);
        assert_eq!(names[0], "node-001");
        assert_eq!(names[99], "node-100");
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(sorted, names);
    }

    #[test]
    fn a_sized_cluster_runs_the_pages_etcd_quota_and_keeps_it_when_saved() {
        let cluster = sized_cluster(1, ClusterSize::default());
        assert_eq!(cluster.config().quota_backend_bytes, PLAYGROUND_QUOTA_BYTES);
        let saved = cluster.export().expect("export");
        assert!(
            saved.contains("\"quota_backend_bytes\":3221225472"),
            "{saved}"
        );
        let restored = Cluster::import(&saved).expect("import");
        assert_eq!(
            restored.config().quota_backend_bytes,
            PLAYGROUND_QUOTA_BYTES
        );
    }

    #[test]
    fn a_refused_size_is_explained_in_both_languages() {
        let cases = [
            (parse_size("6000", "3"), ["6000", "5000"]),
            (parse_size("3", "400"), ["400", "330"]),
            (parse_size("ten", "3"), ["ten", "ten"]),
            (parse_size("3", "?"), ["?", "?"]),
        ];
        for (refused, figures) in cases {
            let Err(e) = refused else {
                panic!("{figures:?} was accepted")
            };
            for lang in [Lang::En, Lang::Zh] {
                let text = e.text(lang);
                for f in figures {
                    assert!(text.contains(f), "{lang:?}: {text}");
                }
            }
            assert_ne!(e.text(Lang::En), e.text(Lang::Zh));
        }
    }
}
