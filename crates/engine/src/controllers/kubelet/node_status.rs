//! The kubelet's side of its Node: registration, the status it posts (capacity, allocatable,
//! addresses, `nodeInfo`, the four conditions with their heartbeats) and the Lease it renews in
//! `kube-node-lease`. It exists apart from the pods the kubelet runs because the node lifecycle
//! controller judges a node by these writes alone: a node that stops them is NotReady, whatever
//! its pods do. Upstream: `pkg/kubelet/kubelet_node_status.go` (`registerWithAPIServer`,
//! `syncNodeStatus`, `setNodeStatus`) and `pkg/kubelet/nodelease` (the lease controller).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::Kubelet;
use crate::api::lease::{Lease, LeaseSpec};
use crate::api::meta::OwnerReference;
use crate::api::node::{Node, NodeAddress, NodeCondition, NodeSpec, NodeStatus, NodeSystemInfo};
use crate::api::{Kind, Object, ObjectMeta};
use crate::apiserver::ApiServer;
use crate::clock::Timestamp;
use crate::controllers::node_addresses;
use watchlab_apimachinery::quantity::Quantity;
use watchlab_apimachinery::status::StatusReason;

/// The namespace of node heartbeats.
pub const NODE_LEASE_NAMESPACE: &str = "kube-node-lease";
/// The cpu every simulated node offers (a modest VM; documented choice): 4 cores.
pub const NODE_CPU: &str = "4";
/// The memory every simulated node offers: 16 GiB.
pub const NODE_MEMORY: &str = "16Gi";
/// The pods every node takes: the kubelet's `maxPods` default, 110.
pub const NODE_PODS: &str = "110";
/// The kubelet's default hard eviction threshold `memory.available<100Mi`, withheld from
/// allocatable.
pub const EVICTION_HARD_MEMORY: &str = "100Mi";
/// The kubelet's (and kube-proxy's) version in `status.nodeInfo`.
pub const KUBELET_VERSION: &str = "v1.32.0";

impl Kubelet {
    /// One step of the node's own writes (the lease controller's and `syncNodeStatus`'s loops,
    /// each on its own period): registers the Node first, then renews the Lease and posts
    /// status when each is due. `false` while the Node is not registered: the step retries in
    /// 1 s and does nothing else meanwhile.
    pub(super) fn sync_node(&mut self, now: Timestamp, api: &mut ApiServer) -> bool {
        if !self.registered {
            self.register(now, api);
            if !self.registered {
                return false;
            }
        }
        if now >= self.next_lease {
            let ok = self.renew_lease(now, api);
            self.next_lease = if ok {
                now.plus_millis(self.profile.lease_renew_interval_ms)
            } else {
                now.plus_secs(1)
            };
        }
        if now >= self.next_status {
            let ok = self.sync_node_status(now, api);
            self.next_status = if ok {
                now.plus_millis(self.profile.node_status_update_frequency_ms)
            } else {
                now.plus_secs(1)
            };
        }
        true
    }

    /// The Node as the kubelet first registers it (`initialNode`): capacity and allocatable,
    /// the well-known labels, the pod CIDR, addresses, `nodeInfo` and fresh conditions.
    fn node_object(&self, now: Timestamp) -> Node {
        let q = |s: &str| Quantity::parse(s).unwrap_or_else(|_| Quantity::from_value(0));
        let capacity: BTreeMap<String, Quantity> = [
            ("cpu", NODE_CPU),
            ("memory", NODE_MEMORY),
            ("pods", NODE_PODS),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), q(v)))
        .collect();
        let mut allocatable = capacity.clone();
        allocatable.insert(
            "memory".into(),
            q(NODE_MEMORY).sub(&q(EVICTION_HARD_MEMORY)),
        );
        let mut meta = ObjectMeta::named("", &self.node);
        for (k, v) in [
            ("beta.kubernetes.io/arch", "amd64"),
            ("beta.kubernetes.io/os", "linux"),
            ("kubernetes.io/arch", "amd64"),
            ("kubernetes.io/hostname", self.node.as_str()),
            ("kubernetes.io/os", "linux"),
        ] {
            meta.labels.insert(k.to_string(), v.to_string());
        }
        Node {
            metadata: meta,
            spec: NodeSpec {
                pod_cidr: node_addresses::pod_cidr(self.ordinal),
                ..Default::default()
            },
            status: NodeStatus {
                capacity,
                allocatable,
                conditions: conditions(now, None),
                addresses: vec![
                    NodeAddress {
                        type_: "InternalIP".into(),
                        address: self.host_ip.to_string(),
                    },
                    NodeAddress {
                        type_: "Hostname".into(),
                        address: self.node.clone(),
                    },
                ],
                node_info: Arc::new(system_info(self.ordinal)),
            },
        }
    }

    /// Registers the Node (`registerWithAPIServer`); an existing one is taken over.
    fn register(&mut self, now: Timestamp, api: &mut ApiServer) {
        match api.create(&self.user, Object::Node(self.node_object(now))) {
            Ok(_) => {
                self.registered = true;
                self.last_report = Some(now);
                self.next_status = now.plus_millis(self.profile.node_status_update_frequency_ms);
            }
            Err(s) if s.reason() == StatusReason::AlreadyExists => {
                self.registered = true;
                self.next_status = now;
            }
            Err(_) => {}
        }
    }

    /// Renews (or creates) the node Lease (`nodelease.controller.sync`); `false` if the write
    /// failed (the Lease is re-read next time).
    fn renew_lease(&mut self, now: Timestamp, api: &mut ApiServer) -> bool {
        if self.lease.is_none() {
            match api.get(Kind::Lease, Some(NODE_LEASE_NAMESPACE), &self.node) {
                Ok(l) => self.lease = Some(l),
                Err(s) if s.reason() == StatusReason::NotFound => {}
                Err(_) => return false,
            }
        }
        let node_uid = api
            .get(Kind::Node, None, &self.node)
            .map(|n| n.meta().uid.clone())
            .unwrap_or_default();
        let mut lease = match self.lease.as_deref() {
            Some(Object::Lease(l)) => l.clone(),
            _ => Lease {
                metadata: ObjectMeta {
                    owner_references: vec![OwnerReference {
                        api_version: "v1".into(),
                        kind: "Node".into(),
                        name: self.node.clone(),
                        uid: node_uid,
                        ..Default::default()
                    }]
                    .into(),
                    ..ObjectMeta::named(NODE_LEASE_NAMESPACE, &self.node)
                },
                spec: LeaseSpec::default(),
            },
        };
        lease.spec.holder_identity = Some(self.node.clone());
        lease.spec.lease_duration_seconds = Some(self.profile.lease_duration_seconds);
        lease.spec.renew_time = Some(now);
        let result = if self.lease.is_some() {
            api.update(&self.user, Object::Lease(lease))
        } else {
            api.create(&self.user, Object::Lease(lease))
        };
        match result {
            Ok(l) => {
                self.lease = Some(l);
                true
            }
            Err(_) => {
                // Conflict or gone: re-read next time.
                self.lease = None;
                false
            }
        }
    }

    /// `syncNodeStatus`: posts status when it changed or the report interval has passed;
    /// `false` if the Node could not be read or written (a Node gone is registered again).
    fn sync_node_status(&mut self, now: Timestamp, api: &mut ApiServer) -> bool {
        let current = match api.get(Kind::Node, None, &self.node) {
            Ok(current) => current,
            Err(s) => {
                // Only a Node that is gone is registered again; any other failure (etcd
                // without a majority) is retried on the next status period's retry.
                if s.reason() == StatusReason::NotFound {
                    self.registered = false;
                }
                return false;
            }
        };
        let Some(node) = current.as_node() else {
            return false;
        };
        let ready = node.condition("Ready").is_some_and(|c| c.status == "True");
        let due = self
            .last_report
            .is_none_or(|t| now.millis_since(t) >= self.profile.node_status_report_frequency_ms);
        if ready && !due {
            return true;
        }
        let mut updated = node.clone();
        updated.status.conditions = conditions(now, Some(node));
        match api.update_status(&self.user, Object::Node(updated)) {
            Ok(_) => {
                self.last_report = Some(now);
                true
            }
            Err(_) => false,
        }
    }
}

/// The node's conditions at `now` (`setNodeStatus`'s condition setters): no memory, disk or
/// PID pressure, and Ready; each heartbeat is `now`, each transition time kept from `old`
/// while the status stays the same.
fn conditions(now: Timestamp, old: Option<&Node>) -> Vec<NodeCondition> {
    let specs = [
        (
            "MemoryPressure",
            "False",
            "KubeletHasSufficientMemory",
            "kubelet has sufficient memory available",
        ),
        (
            "DiskPressure",
            "False",
            "KubeletHasNoDiskPressure",
            "kubelet has no disk pressure",
        ),
        (
            "PIDPressure",
            "False",
            "KubeletHasSufficientPID",
            "kubelet has sufficient PID available",
        ),
        (
            "Ready",
            "True",
            "KubeletReady",
            "kubelet is posting ready status",
        ),
    ];
    specs
        .iter()
        .map(|(t, status, reason, message)| {
            let previous = old.and_then(|n| n.condition(t));
            let transition = match previous {
                Some(p) if p.status == *status => p.last_transition_time,
                _ => Some(now),
            };
            NodeCondition {
                type_: t.to_string(),
                status: status.to_string(),
                last_heartbeat_time: Some(now),
                last_transition_time: transition,
                reason: reason.to_string(),
                message: message.to_string(),
            }
        })
        .collect()
}

/// `status.nodeInfo` as the kubelet reads it from the machine (cAdvisor's MachineInfo and
/// the runtime): the identities are derived from the node's ordinal, so a run replays.
fn system_info(ordinal: u32) -> NodeSystemInfo {
    let id = u64::from(ordinal) + 1;
    NodeSystemInfo {
        machine_id: format!("{id:032x}"),
        system_uuid: format!("00000000-0000-4000-8000-{id:012x}"),
        boot_id: format!("00000000-0000-4000-9000-{id:012x}"),
        kernel_version: "6.8.0-49-generic".into(),
        os_image: "Ubuntu 24.04.1 LTS".into(),
        container_runtime_version: "containerd://1.7.24".into(),
        kubelet_version: KUBELET_VERSION.into(),
        kube_proxy_version: KUBELET_VERSION.into(),
        operating_system: "linux".into(),
        architecture: "amd64".into(),
    }
}
