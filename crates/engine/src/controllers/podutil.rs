//! Small facts about pods and nodes that several controllers need, named as in Kubernetes'
//! `podutil`, `controller` and `v1helper` packages: readiness and availability, requests,
//! and toleration matching (the DefaultTolerationSeconds defaults are the API server's admission).

use crate::api::node::{Node, Taint};
pub use crate::api::pod::is_pod_ready;
use crate::api::pod::{Pod, PodSpec, Toleration};
use crate::clock::Timestamp;

pub use crate::api::node::{
    NO_EXECUTE, NO_SCHEDULE, TAINT_NOT_READY, TAINT_UNREACHABLE, TAINT_UNSCHEDULABLE,
};

/// The scheduler's default requests for containers that request nothing, used for scoring
/// only (`schedutil.DefaultMilliCPURequest` = 100m, `DefaultMemoryRequest` = 200 MiB).
pub const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
pub const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;

/// `podutil.IsPodAvailable`: ready for at least `min_ready_seconds`.
pub fn is_pod_available(pod: &Pod, min_ready_seconds: i32, now: Timestamp) -> bool {
    let Some(c) = pod.condition("Ready").filter(|c| c.status == "True") else {
        return false;
    };
    if min_ready_seconds <= 0 {
        return true;
    }
    c.last_transition_time
        .is_some_and(|t| t.plus_secs(min_ready_seconds as u64) <= now)
}

/// Succeeded or Failed: the pod will not run again.
pub fn is_terminal(pod: &Pod) -> bool {
    matches!(&*pod.status.phase, "Succeeded" | "Failed")
}

/// `controller.IsPodActive`: not terminal and not being deleted.
pub fn is_active(pod: &Pod) -> bool {
    !is_terminal(pod) && pod.metadata.deletion_timestamp.is_none()
}

/// Compute resources as the scheduler adds them up: milli-cpu and memory bytes
/// (kube-scheduler's `framework.Resource`, its `MilliCPU` and `Memory`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resources {
    pub milli_cpu: i64,
    pub memory: i64,
}

impl std::ops::Add for Resources {
    type Output = Resources;
    fn add(self, o: Resources) -> Resources {
        Resources {
            milli_cpu: self.milli_cpu + o.milli_cpu,
            memory: self.memory + o.memory,
        }
    }
}

impl std::ops::AddAssign for Resources {
    fn add_assign(&mut self, o: Resources) {
        *self = *self + o;
    }
}

impl std::ops::SubAssign for Resources {
    fn sub_assign(&mut self, o: Resources) {
        self.milli_cpu -= o.milli_cpu;
        self.memory -= o.memory;
    }
}

/// What a node offers pods: its allocatable compute and how many pods it takes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Allocatable {
    pub resources: Resources,
    pub pods: i64,
}

/// The pod's summed requests.
pub fn requests(spec: &PodSpec) -> Resources {
    spec.containers
        .iter()
        .map(|c| {
            let r = &c.resources.requests;
            Resources {
                milli_cpu: r.get("cpu").map_or(0, |q| q.milli_value()),
                memory: r.get("memory").map_or(0, |q| q.value()),
            }
        })
        .fold(Resources::default(), |sum, r| sum + r)
}

/// Requests with the scheduler's non-zero defaults per container (scoring only).
pub fn non_zero_requests(spec: &PodSpec) -> Resources {
    spec.containers
        .iter()
        .map(|c| {
            let r = &c.resources.requests;
            Resources {
                milli_cpu: r
                    .get("cpu")
                    .map_or(DEFAULT_MILLI_CPU_REQUEST, |q| q.milli_value()),
                memory: r
                    .get("memory")
                    .map_or(DEFAULT_MEMORY_REQUEST, |q| q.value()),
            }
        })
        .fold(Resources::default(), |sum, r| sum + r)
}

/// A node's allocatable cpu, memory and pods.
pub fn allocatable(node: &Node) -> Allocatable {
    let a = &node.status.allocatable;
    Allocatable {
        resources: Resources {
            milli_cpu: a.get("cpu").map_or(0, |q| q.milli_value()),
            memory: a.get("memory").map_or(0, |q| q.value()),
        },
        pods: a.get("pods").map_or(0, |q| q.value()),
    }
}

/// `Toleration.ToleratesTaint`.
pub fn tolerates(t: &Toleration, taint: &Taint) -> bool {
    if !t.effect.is_empty() && t.effect != taint.effect {
        return false;
    }
    if !t.key.is_empty() && t.key != taint.key {
        return false;
    }
    match &*t.operator {
        "Exists" => true,
        "" | "Equal" => t.key == taint.key && t.value == taint.value,
        _ => false,
    }
}

/// The first taint with one of `effects` that no toleration tolerates
/// (`v1helper.FindMatchingUntoleratedTaint`).
pub fn untolerated_taint<'a>(
    taints: &'a [Taint],
    tolerations: &[Toleration],
    effects: &[&str],
) -> Option<&'a Taint> {
    taints
        .iter()
        .filter(|t| effects.contains(&t.effect.as_str()))
        .find(|taint| !tolerations.iter().any(|t| tolerates(t, taint)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taint(key: &str, value: &str, effect: &str) -> Taint {
        Taint {
            key: key.into(),
            value: value.into(),
            effect: effect.into(),
            time_added: None,
        }
    }

    #[test]
    fn toleration_matching_follows_tolerates_taint() {
        let t = taint("dedicated", "gpu", NO_SCHEDULE);
        let equal = Toleration {
            key: "dedicated".into(),
            value: "gpu".into(),
            ..Default::default()
        };
        assert!(tolerates(&equal, &t));
        let wrong_value = Toleration {
            value: "cpu".into(),
            ..equal.clone()
        };
        assert!(!tolerates(&wrong_value, &t));
        let exists_all = Toleration {
            operator: "Exists".into(),
            ..Default::default()
        };
        assert!(tolerates(&exists_all, &t));
        let other_effect = Toleration {
            effect: NO_EXECUTE.into(),
            ..equal
        };
        assert!(!tolerates(&other_effect, &t));
        let taints = [taint("a", "", "PreferNoSchedule"), t.clone()];
        assert_eq!(
            untolerated_taint(&taints, &[], &[NO_SCHEDULE, NO_EXECUTE]),
            Some(&t)
        );
    }
}
