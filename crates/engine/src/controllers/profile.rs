//! The timings of the control loops, in one place. [`Profile::kubernetes`] has the real
//! defaults (each field cites its flag); [`Profile::training`] shortens the failure path so the
//! seed's story — node-c lost → NotReady → pods Terminating → the ReplicaSet sees 2 < 3 → a new
//! pod on another node — plays out in about two virtual minutes instead of six.

/// A named set of timings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileName {
    /// The real defaults.
    Kubernetes,
    /// Shorter timings for the playground.
    Training,
}

/// Every timing the controllers use, in milliseconds unless named otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    pub name: ProfileName,
    /// Node Lease `leaseDurationSeconds` (kubelet `nodeLeaseDurationSeconds`, default 40).
    pub lease_duration_seconds: i32,
    /// How often the kubelet renews its Lease: `renewInterval` = 0.25 × lease duration
    /// (`kubelet.nodeLeaseRenewIntervalFraction`), 10 s by default.
    pub lease_renew_interval_ms: u64,
    /// Kubelet `nodeStatusUpdateFrequency` (default 10 s): how often it computes node status.
    pub node_status_update_frequency_ms: u64,
    /// Kubelet `nodeStatusReportFrequency` (default 5 min with leases): an unchanged status is
    /// still posted this often.
    pub node_status_report_frequency_ms: u64,
    /// kube-controller-manager `--node-monitor-period` (default 5 s).
    pub node_monitor_period_ms: u64,
    /// `--node-monitor-grace-period` (default 50 s since v1.32, 40 s before): a node whose
    /// lease was not renewed for this long becomes Ready=Unknown.
    pub node_monitor_grace_period_ms: u64,
    /// kube-apiserver `--default-not-ready-toleration-seconds` and
    /// `--default-unreachable-toleration-seconds` (DefaultTolerationSeconds admission, 300).
    pub default_toleration_seconds: i64,
    /// kube-scheduler `podInitialBackoffSeconds` (default 1 s).
    pub pod_initial_backoff_ms: u64,
    /// kube-scheduler `podMaxBackoffSeconds` (default 10 s).
    pub pod_max_backoff_ms: u64,
    /// Virtual image pull + container start, drawn uniformly from this range (no real default:
    /// a small image on a warm node takes a few seconds).
    pub pod_start_delay_min_ms: u64,
    pub pod_start_delay_max_ms: u64,
    /// Start delay when the image is already on the node (`IfNotPresent`).
    pub container_start_delay_ms: u64,
    /// How long stopping a container takes at most; the kubelet waits
    /// min(grace period, this) before the final delete (real: until the process exits, at most
    /// the grace period, 30 s by default).
    pub container_stop_delay_ms: u64,
    /// Informer delivery lag range (watch hop + handler queue).
    pub informer_delay_min_ms: u64,
    pub informer_delay_max_ms: u64,
    /// Every informer's first list a consistent read (`resourceVersion=""`, kubernetes#83520,
    /// reverted) instead of client-go's `resourceVersion="0"`: off, as in v1.32. The fix for
    /// informers going back in time across restarts ([`crate::apiserver::time_travel`]).
    pub consistent_first_list: bool,
}

impl Profile {
    /// The real Kubernetes v1.32 defaults.
    pub fn kubernetes() -> Self {
        Profile {
            name: ProfileName::Kubernetes,
            lease_duration_seconds: 40,
            lease_renew_interval_ms: 10_000,
            node_status_update_frequency_ms: 10_000,
            node_status_report_frequency_ms: 5 * 60_000,
            node_monitor_period_ms: 5_000,
            node_monitor_grace_period_ms: 50_000,
            default_toleration_seconds: 300,
            pod_initial_backoff_ms: 1_000,
            pod_max_backoff_ms: 10_000,
            pod_start_delay_min_ms: 2_000,
            pod_start_delay_max_ms: 5_000,
            container_start_delay_ms: 500,
            container_stop_delay_ms: 2_000,
            informer_delay_min_ms: 50,
            informer_delay_max_ms: 200,
            consistent_first_list: false,
        }
    }

    /// The playground's short failure path: lease 10 s (renewed every 2.5 s), grace 20 s,
    /// toleration 60 s, status report every minute; everything else as in Kubernetes.
    pub fn training() -> Self {
        Profile {
            name: ProfileName::Training,
            lease_duration_seconds: 10,
            lease_renew_interval_ms: 2_500,
            node_status_report_frequency_ms: 60_000,
            node_monitor_grace_period_ms: 20_000,
            default_toleration_seconds: 60,
            ..Profile::kubernetes()
        }
    }

    pub fn named(name: ProfileName) -> Self {
        match name {
            ProfileName::Kubernetes => Profile::kubernetes(),
            ProfileName::Training => Profile::training(),
        }
    }

    /// The informer configuration every controller uses (no resync, as the controllers here
    /// build on a factory with resync 0).
    pub fn informer_config(&self) -> crate::client::InformerConfig {
        crate::client::InformerConfig {
            delivery_delay_min_ms: self.informer_delay_min_ms,
            delivery_delay_max_ms: self.informer_delay_max_ms,
            consistent_first_list: self.consistent_first_list,
            ..Default::default()
        }
    }
}

impl Default for Profile {
    fn default() -> Self {
        Profile::kubernetes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renew_interval_is_a_quarter_of_the_lease() {
        for p in [Profile::kubernetes(), Profile::training()] {
            assert_eq!(
                p.lease_renew_interval_ms * 4,
                p.lease_duration_seconds as u64 * 1000
            );
            assert!(p.node_monitor_grace_period_ms > p.lease_duration_seconds as u64 * 1000);
        }
        assert_eq!(
            Profile::named(ProfileName::Training).default_toleration_seconds,
            60
        );
    }
}
