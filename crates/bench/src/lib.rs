//! The whole-cluster run that `./x bench` measures, in one place so that the native benchmark
//! (`benches/scale.rs`) and its wasm32 build in headless Chromium (`src/wasm.rs`, driven by
//! `scripts/bench_wasm.mjs`) run the very same code: a cluster of `N` nodes with every component
//! on, one Deployment of `P` replicas created through `Cluster`'s public API, virtual time
//! advanced a second at a time until the Deployment reports every replica ready. Timing and
//! memory are the caller's (a counting allocator and the thread's CPU time natively,
//! `performance.now()` and the linear memory's size in the browser). Then the steady state
//! ([`steady_state`]): the converged cluster left to run, so what remains is the work every
//! cluster does all the time — kubelets renewing their leases and reporting node status, the
//! node monitor, informers — which must keep up with the clock for a page to run at 1×.
//!
//! By default the control plane is a kubeadm cluster's of one control-plane node: one
//! kube-apiserver, one replica of kube-scheduler and of kube-controller-manager.
//! [`converge_with`] runs the same cluster with a highly available control plane
//! ([`ControlPlane::HA`]: three API server instances, each with its own watch caches, and two
//! leader-elected replicas of each component).

use watchlab_engine::api::Kind;
use watchlab_engine::cluster::{
    Action, Cluster, ClusterConfig, ProfileName, PLAYGROUND_QUOTA_BYTES,
};

#[cfg(target_arch = "wasm32")]
mod wasm;

/// How a whole-cluster run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WholeCluster {
    /// Every replica ready within an hour of virtual time.
    pub converged: bool,
    /// Virtual seconds from the create to convergence (or to giving up).
    pub virtual_seconds: u64,
    /// The ledger's revision at the end: how many writes the run made.
    pub revision: u64,
    /// Events stored at the end.
    pub events: usize,
    /// What the kept revisions cost against etcd's space quota at the end (pods, their
    /// history and Events, leases...; nothing is compacted during a run).
    pub etcd_bytes: u64,
}

impl WholeCluster {
    /// The run's own fields as JSON members (no braces), for a benchmark row.
    pub fn json_fields(&self) -> String {
        format!(
            "\"converged\":{},\"virtual_seconds\":{},\"revision\":{},\"events\":{},\"etcd_bytes\":{}",
            self.converged, self.virtual_seconds, self.revision, self.events, self.etcd_bytes
        )
    }
}

/// Virtual seconds of the steady state the benchmarks measure after convergence: six lease
/// renewals of the `Kubernetes` profile's kubelets (every 10 s), 24 of the `Training` one's.
pub const STEADY_SECONDS: u64 = 60;

/// The control plane a run builds: kube-apiserver instances and replicas of kube-scheduler and
/// of kube-controller-manager (`ClusterConfig::apiservers` and `controller_replicas`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ControlPlane {
    pub apiservers: u32,
    pub controller_replicas: u32,
}

impl ControlPlane {
    /// One of each, as `ClusterConfig::default()` (a kubeadm cluster of one control-plane
    /// node): the rows every earlier comparison measured.
    pub const SINGLE: ControlPlane = ControlPlane {
        apiservers: 1,
        controller_replicas: 1,
    };
    /// Three API server instances behind the load balancer, each with its own watch caches fed
    /// by its own etcd watches, and two leader-elected replicas of each component (a leader
    /// and a standby each renewing or watching its Lease): issue #34's row.
    pub const HA: ControlPlane = ControlPlane {
        apiservers: 3,
        controller_replicas: 2,
    };

    /// Whether this is [`ControlPlane::SINGLE`].
    pub fn is_single(self) -> bool {
        self == ControlPlane::SINGLE
    }
}

impl Default for ControlPlane {
    fn default() -> Self {
        ControlPlane::SINGLE
    }
}

/// [`converge`] with the playground's `Training` profile, the cluster dropped.
pub fn whole_cluster(nodes: usize, pods: u32) -> WholeCluster {
    converge(nodes, pods, ProfileName::Training).1
}

/// [`whole_cluster`] with the control plane `plane` ([`ControlPlane::HA`]: 3 API servers × 2
/// replicas of each component).
pub fn whole_cluster_with(nodes: usize, pods: u32, plane: ControlPlane) -> WholeCluster {
    converge_with(nodes, pods, ProfileName::Training, plane).1
}

/// The profile's name as the benchmark rows spell it.
pub fn profile_name(profile: ProfileName) -> &'static str {
    match profile {
        ProfileName::Training => "training",
        ProfileName::Kubernetes => "kubernetes",
    }
}

/// The whole control plane from one create to every replica ready: `nodes` nodes named
/// `node-<i>`, a Deployment `default/web` of `pods` replicas, the timings of `profile`
/// (`Training`: the playground's short failure path; `Kubernetes`: the real defaults). Returns
/// the cluster too, for [`steady_state`].
pub fn converge(nodes: usize, pods: u32, profile: ProfileName) -> (Cluster, WholeCluster) {
    converge_with(nodes, pods, profile, ControlPlane::SINGLE)
}

/// [`converge`] on a cluster whose control plane is `plane`: the same nodes, Deployment and
/// stopping rule, so a row of each compares what the extra instances and replicas cost.
pub fn converge_with(
    nodes: usize,
    pods: u32,
    profile: ProfileName,
    plane: ControlPlane,
) -> (Cluster, WholeCluster) {
    let mut cluster = empty_cluster(nodes, profile, plane);
    let created = cluster.apply(Action::CreateDeployment {
        namespace: "default".into(),
        name: "web".into(),
        image: "nginx:1.27".into(),
        replicas: pods,
        labels: vec![("app".into(), "web".into())],
    });
    let want = i32::try_from(pods).unwrap_or(i32::MAX);
    let run = run_until(&mut cluster, created.is_ok(), |c| {
        c.api()
            .get(Kind::Deployment, Some("default"), "web")
            .ok()
            .and_then(|o| o.as_deployment().map(|d| d.status.ready_replicas))
            .unwrap_or(0)
            >= want
    });
    (cluster, run)
}

/// A DaemonSet `kube-system/agent` on `nodes` nodes (no Deployment), from its create to one
/// ready pod on every node: the DaemonSet controller's per-node work, the scheduler binding
/// each pod through its node-name affinity, and every kubelet starting one pod. Returns the
/// run as [`converge`] does (its `events` and `etcd_bytes` too).
pub fn daemon_set(nodes: usize, profile: ProfileName) -> WholeCluster {
    let mut cluster = empty_cluster(nodes, profile, ControlPlane::SINGLE);
    let created = cluster.apply(Action::CreateDaemonSet {
        namespace: "kube-system".into(),
        name: "agent".into(),
        image: "fluent-bit:3.1".into(),
        labels: vec![("app".into(), "agent".into())],
    });
    let want = i32::try_from(nodes).unwrap_or(i32::MAX);
    run_until(&mut cluster, created.is_ok(), |c| {
        c.api()
            .get(Kind::DaemonSet, Some("kube-system"), "agent")
            .ok()
            .and_then(|o| o.as_daemon_set().map(|d| d.status.number_ready))
            .unwrap_or(0)
            >= want
    })
}

/// `nodes` nodes named `node-<i>` and nothing else, the timings of `profile`, the control plane
/// `plane`, the page's etcd quota (5,000 × 150,000 keeps ~1.6 GiB of revisions, `etcd_bytes`).
fn empty_cluster(nodes: usize, profile: ProfileName, plane: ControlPlane) -> Cluster {
    let names: Vec<String> = (0..nodes).map(|i| format!("node-{i}")).collect();
    Cluster::new(ClusterConfig {
        nodes: names,
        seed_objects: false,
        profile,
        quota_backend_bytes: PLAYGROUND_QUOTA_BYTES,
        apiservers: plane.apiservers,
        controller_replicas: plane.controller_replicas,
        ..ClusterConfig::default()
    })
}

/// Advances `cluster` a virtual second at a time until `done` (an hour of virtual time without
/// it is a failure, reported as such; nothing runs if `started` is false), and reports the run.
fn run_until(
    cluster: &mut Cluster,
    started: bool,
    done: impl Fn(&Cluster) -> bool,
) -> WholeCluster {
    let mut t = cluster.now();
    let mut converged = started;
    while converged {
        t = t.plus_millis(1000);
        cluster.advance_to(t);
        if done(cluster) {
            break;
        }
        converged = t.as_millis() < 3_600_000;
    }
    // Counted on the key index (etcd's count-only range): listing 600,000 Events at
    // 5,000 x 150,000 to count them took 3% of the run.
    let events = cluster
        .api()
        .store()
        .count_prefix(&Kind::Event.resource().prefix(None));
    WholeCluster {
        converged,
        virtual_seconds: t.as_millis() / 1000,
        revision: cluster.api().revision(),
        events,
        etcd_bytes: cluster.api().store().bytes_in_use(),
    }
}

/// Runs a converged cluster `seconds` more of virtual time, a second at a time as the page's
/// clock does; returns the writes (revisions) it made meanwhile.
pub fn steady_state(cluster: &mut Cluster, seconds: u64) -> u64 {
    let before = cluster.api().revision();
    let mut t = cluster.now();
    for _ in 0..seconds {
        t = t.plus_millis(1000);
        cluster.advance_to(t);
    }
    cluster.api().revision() - before
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_daemon_set_runs_one_ready_pod_per_node() {
        let run = daemon_set(4, ProfileName::Training);
        assert!(run.converged, "{run:?}");
    }

    #[test]
    fn a_converged_cluster_keeps_renewing_its_leases_in_the_steady_state() {
        for profile in [ProfileName::Training, ProfileName::Kubernetes] {
            let (mut cluster, run) = converge(3, 3, profile);
            assert!(run.converged, "{run:?}");
            let writes = steady_state(&mut cluster, STEADY_SECONDS);
            // Three kubelets renew their Lease every 10 s (Kubernetes) or 2.5 s (Training).
            let renewals = if profile == ProfileName::Kubernetes {
                6
            } else {
                24
            };
            assert!(
                writes >= 3 * renewals,
                "{} wrote {writes}",
                profile_name(profile)
            );
            let ready = cluster
                .api()
                .get(Kind::Deployment, Some("default"), "web")
                .ok()
                .and_then(|o| o.as_deployment().map(|d| d.status.ready_replicas));
            assert_eq!(ready, Some(3), "still every replica ready");
        }
    }

    #[test]
    fn a_small_cluster_with_three_api_servers_and_two_replicas_converges() {
        let (cluster, run) = converge_with(3, 3, ProfileName::Training, ControlPlane::HA);
        assert!(run.converged, "{run:?}");
        assert_eq!(cluster.api().instances().len(), 3);
        // Every instance has clients: the load balancer spread them.
        for i in 0..3 {
            assert!(!cluster.api().clients_of(i).is_empty(), "instance {i}");
        }
    }

    #[test]
    fn a_small_cluster_converges_and_reports_its_writes() {
        let run = whole_cluster(3, 3);
        assert!(run.converged, "{run:?}");
        // Three nodes, a Deployment, its ReplicaSet and three pods at least, each written.
        assert!(run.revision > 8, "{run:?}");
        assert!(run.events > 0, "{run:?}");
        let json = format!("{{{}}}", run.json_fields());
        assert!(
            json.starts_with("{\"converged\":true,\"virtual_seconds\":"),
            "{json}"
        );
    }
}
