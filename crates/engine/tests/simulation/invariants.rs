//! The invariants that hold at every instant of a run (checked after every slice of virtual
//! time, faults or not): no pod left un-Terminating on a dead node past its eviction deadline,
//! no node carrying more requests than it can allocate, nothing bound to a node cordoned more
//! than a second ago, no pod's restart count going back and no Succeeded or Failed pod
//! running again. (The ledger's and the watch streams' own invariants are checked by
//! `tape` and `audit`.) Also the Service chain's invariants, which hold once its writers have
//! caught up: every ready selected pod in exactly one slice and nothing else there, and every
//! node's kube-proxy rules equal to the slices (called once healed, for what has been quiet).
//! And etcd's: one leader per term, and no member applied past the store.

use super::*;
use watchlab_engine::api::endpoint_slice::{EndpointSlice, LABEL_SERVICE_NAME};

impl Sim {
    /// Raft's election safety over the whole run (an isolated old leader may still lead its
    /// older term; two members never lead the same one), and state machine safety as the
    /// store sees it: no member has applied a revision the store has not reached.
    pub(super) fn check_one_etcd_leader_per_term(&mut self) {
        let revision = self.cluster.api().revision();
        let members = self.cluster.etcd().members().to_vec();
        for m in members {
            self.check(m.applied_revision <= revision, || {
                format!(
                    "{} applied revision {} beyond the store's {revision}",
                    m.name, m.applied_revision
                )
            });
            if m.role != watchlab_engine::etcd::Role::Leader {
                continue;
            }
            let first = self
                .etcd_leaders
                .entry(m.term)
                .or_insert_with(|| m.name.clone())
                .clone();
            self.check(first == m.name, || {
                format!(
                    "two etcd leaders in term {}: {first} and {}",
                    m.term, m.name
                )
            });
        }
    }

    /// A pod bound to a node dead since `t` must be Terminating once the node's lease has gone
    /// stale (grace period), a monitor pass noticed, the toleration ran out and a few more
    /// monitor passes went by — plus however long the store refused writes meanwhile.
    pub(super) fn check_no_pod_left_on_a_dead_node(&mut self) {
        let p = &self.profile;
        let budget = p.node_monitor_grace_period_ms
            + 3 * p.node_monitor_period_ms
            + p.default_toleration_seconds as u64 * 1000
            + 10_000
            + self.outage_ms;
        let now = self.cluster.now();
        for (node, since) in &self.dead_since {
            if now.millis_since(*since) < budget {
                continue;
            }
            self.coverage.eviction_checks += 1;
            let stuck: Vec<String> = self
                .all_pods()
                .iter()
                .filter_map(|o| o.as_pod())
                .filter(|pod| &pod.spec.node_name == node)
                .filter(|pod| pod.metadata.deletion_timestamp.is_none())
                // A DaemonSet's pods tolerate `unreachable:NoExecute` for ever: never evicted.
                .filter(|pod| !tolerates_unreachable_forever(pod))
                .map(|pod| {
                    let phase = &pod.status.phase;
                    format!("{}/{} ({phase})", pod.metadata.namespace, pod.metadata.name)
                })
                .collect();
            self.check(stuck.is_empty(), || {
                format!(
                    "{node} dead since {} ms, yet {stuck:?} not Terminating (budget {budget} ms)",
                    since.as_millis()
                )
            });
        }
    }

    /// The scheduler never binds beyond a node's allocatable cpu and memory, counting every
    /// bound pod that has not finished (Terminating ones still hold their room).
    pub(super) fn check_no_node_overcommitted(&self) {
        let nodes = self
            .cluster
            .api()
            .list(Kind::Node, None, &ListOptions::from_cache())
            .map(|l| l.items)
            .unwrap_or_default();
        let pods = self.all_pods();
        for node in nodes.iter().filter_map(|o| o.as_node()) {
            let capacity = podutil::allocatable(node).resources;
            let (cpu, mem) = (capacity.milli_cpu, capacity.memory);
            let used = pods
                .iter()
                .filter_map(|o| o.as_pod())
                .filter(|p| p.spec.node_name == node.metadata.name && !podutil::is_terminal(p))
                .map(|p| podutil::requests(&p.spec))
                .fold(podutil::Resources::default(), |sum, r| sum + r);
            let (used_cpu, used_mem) = (used.milli_cpu, used.memory);
            self.check(used_cpu <= cpu && used_mem <= mem, || {
                format!(
                    "{} overcommitted: {used_cpu}m of {cpu}m cpu, {used_mem} of {mem} bytes",
                    node.metadata.name
                )
            });
        }
    }

    /// A pod newly seen bound must not be on a node cordoned more than a second ago (the
    /// scheduler's cache may lag the cordon by its informer delay, as the real one does).
    pub(super) fn check_no_binding_to_a_cordoned_node(&mut self) {
        let now = self.cluster.now();
        for o in self.all_pods() {
            let Some(pod) = o.as_pod() else { continue };
            if pod.spec.node_name.is_empty() || self.seen_bound.contains(&pod.metadata.uid) {
                continue;
            }
            self.seen_bound.insert(pod.metadata.uid.clone());
            if let Some(since) = self.cordoned_since.get(&pod.spec.node_name) {
                self.check(now.millis_since(*since) <= 1_000, || {
                    format!(
                        "{} bound to {}, cordoned since {} ms",
                        pod.metadata.name,
                        pod.spec.node_name,
                        since.as_millis()
                    )
                });
            }
        }
    }

    /// The kubelet's lifecycle writes only move forward, whatever the faults (a restarted
    /// kubelet adopting its pods, stale caches, 409s, lost quorum): a container's restartCount
    /// never decreases, and a pod once Succeeded or Failed never shows another phase.
    pub(super) fn check_pod_lifecycles_move_forward(&mut self) {
        for o in self.all_pods() {
            let Some(p) = o.as_pod() else { continue };
            let restarts: i32 = p
                .status
                .container_statuses
                .iter()
                .map(|c| c.restart_count)
                .sum();
            let phase = p.status.phase.to_string();
            let terminal = matches!(phase.as_str(), "Succeeded" | "Failed");
            let name = format!("{}/{}", p.metadata.namespace, p.metadata.name);
            let entry = self
                .lifecycles
                .entry(p.metadata.uid.clone())
                .or_insert((0, None));
            let (before, ended) = entry.clone();
            if restarts > before {
                entry.0 = restarts;
            }
            if terminal && ended.is_none() {
                entry.1 = Some(phase.clone());
            }
            self.coverage.restarts += u64::try_from(restarts - before).unwrap_or(0);
            self.coverage.terminal_pods += u64::from(terminal && ended.is_none());
            self.check(restarts >= before, || {
                format!("{name}: restartCount went back from {before} to {restarts}")
            });
            self.check(ended.as_ref().is_none_or(|e| *e == phase), || {
                format!("{name}: was {ended:?}, now {phase}")
            });
        }
    }

    /// Whether `namespace` has seen no write of `kind` for [`QUIET_MS`].
    fn quiet(&self, kind: Kind, namespace: &str) -> bool {
        self.last_write
            .get(&(kind, namespace.to_string()))
            .is_none_or(|t| self.cluster.now().millis_since(*t) >= QUIET_MS)
    }

    fn services(&self) -> Vec<Arc<Object>> {
        self.cluster
            .api()
            .list(Kind::Service, None, &ListOptions::from_cache())
            .map(|l| l.items)
            .unwrap_or_default()
    }

    /// The EndpointSlices labelled with a Service's name.
    fn slices_of(&self, svc: &Service) -> Vec<EndpointSlice> {
        self.cluster
            .api()
            .list(
                Kind::EndpointSlice,
                Some(&svc.metadata.namespace),
                &ListOptions::from_cache(),
            )
            .map(|l| l.items)
            .unwrap_or_default()
            .iter()
            .filter_map(|o| o.as_endpoint_slice())
            .filter(|s| s.metadata.labels.get(LABEL_SERVICE_NAME) == Some(&svc.metadata.name))
            .cloned()
            .collect()
    }

    /// Once a Service's pods have been quiet: each ready pod it selects is a ready endpoint in
    /// exactly one of its slices, and every endpoint of its slices is a selected pod with that
    /// pod's IP and readiness (so nothing unselected, deleted or finished lingers there).
    pub(super) fn check_ready_pods_in_exactly_one_slice(&mut self) {
        for obj in self.services() {
            let Some(svc) = obj.as_service() else {
                continue;
            };
            let ns = svc.metadata.namespace.as_str();
            if svc.spec.selector.is_empty() || !self.quiet(Kind::Pod, ns) {
                continue;
            }
            self.coverage.endpoint_checks += 1;
            let selected: BTreeMap<String, Pod> = self
                .pods_in(Some(ns))
                .iter()
                .filter_map(|o| o.as_pod())
                .filter(|p| {
                    svc.spec
                        .selector
                        .iter()
                        .all(|(k, v)| p.metadata.labels.get(k) == Some(v))
                })
                .map(|p| (p.metadata.name.clone(), p.clone()))
                .collect();
            let ready = |p: &Pod| {
                p.metadata.deletion_timestamp.is_none()
                    && !p.status.pod_ip.is_empty()
                    && p.condition("Ready").is_some_and(|c| c.status == "True")
            };
            let mut seen: BTreeMap<String, usize> = BTreeMap::new();
            let name = format!("{ns}/{}", svc.metadata.name);
            for slice in self.slices_of(svc) {
                for e in &slice.endpoints {
                    let pod_name = e.target_ref.as_ref().map_or("", |r| r.name.as_str());
                    *seen.entry(pod_name.to_string()).or_default() += 1;
                    let pod = selected.get(pod_name);
                    self.check(
                        pod.is_some_and(|p| {
                            e.addresses == [p.status.pod_ip.clone()]
                                && e.conditions.ready == Some(ready(p))
                                && !podutil::is_terminal(p)
                        }),
                        || {
                            format!(
                                "{name}: slice {} holds {e:?}, the pod is {:?}",
                                slice.metadata.name,
                                pod.map(|p| (&p.status, &p.metadata.deletion_timestamp))
                            )
                        },
                    );
                }
            }
            for (pod_name, pod) in &selected {
                let times = seen.get(pod_name).copied().unwrap_or(0);
                self.check(times <= 1 && (times == 1 || !ready(pod)), || {
                    format!("{name}: ready pod {pod_name} is in {times} slices")
                });
            }
        }
    }

    /// Once a namespace's slices have been quiet: every running kube-proxy maps each Service
    /// port's ClusterIP to exactly the ready `ip:port`s its slices give for that port, and has
    /// no rule for a Service that is not there (headless ones have none).
    pub(super) fn check_proxy_rules_equal_the_slices(&mut self) {
        let quiet = |ns: &str| self.quiet(Kind::EndpointSlice, ns) && self.quiet(Kind::Service, ns);
        let mut expected: BTreeMap<(String, String, i32), Vec<String>> = BTreeMap::new();
        for obj in self.services() {
            let Some(svc) = obj.as_service() else {
                continue;
            };
            let ns = svc.metadata.namespace.as_str();
            let key = format!("{ns}/{}", svc.metadata.name);
            if !quiet(ns) {
                continue;
            }
            if svc.spec.cluster_ip.is_empty() || svc.spec.is_headless() {
                continue;
            }
            let slices = self.slices_of(svc);
            for p in &svc.spec.ports {
                let mut eps: Vec<String> = slices
                    .iter()
                    .flat_map(|s| {
                        let port = s
                            .ports
                            .iter()
                            .find(|sp| sp.name.as_deref().unwrap_or("") == p.name)
                            .and_then(|sp| sp.port);
                        s.endpoints
                            .iter()
                            .filter(|e| e.conditions.ready == Some(true))
                            .flat_map(move |e| {
                                e.addresses
                                    .iter()
                                    .filter_map(move |a| Some(format!("{a}:{}", port?)))
                            })
                    })
                    .collect();
                eps.sort();
                eps.dedup();
                expected.insert((key.clone(), svc.spec.cluster_ip.clone(), p.port), eps);
            }
        }
        for proxy in self.cluster.control_plane().kube_proxies() {
            let node = proxy.node_name();
            let rules: BTreeMap<(String, String, i32), Vec<String>> = proxy
                .rules()
                .into_iter()
                .filter(|r| quiet(r.service.split('/').next().unwrap_or_default()))
                .map(|r| ((r.service, r.cluster_ip, r.port), r.endpoints))
                .collect();
            self.check(rules == expected, || {
                format!("{node}'s kube-proxy rules {rules:?}, the slices say {expected:?}")
            });
        }
        self.coverage.proxy_checks += self.cluster.control_plane().kube_proxies().len() as u64;
    }
}

/// How long a namespace's pods (or slices) must have gone unwritten before the slices (or the
/// kube-proxies' rules) are held to them: far beyond the informers' delivery delay, the
/// EndpointSlice controller's queue and kube-proxy's 1 s `--iptables-min-sync-period`.
const QUIET_MS: u64 = 5_000;

/// Whether `pod` tolerates `node.kubernetes.io/unreachable:NoExecute` without a time limit
/// (every DaemonSet pod, `util.AddOrUpdateDaemonPodTolerations`), so the taint never evicts it.
fn tolerates_unreachable_forever(pod: &Pod) -> bool {
    pod.spec.tolerations.iter().any(|t| {
        t.key == "node.kubernetes.io/unreachable"
            && t.effect == "NoExecute"
            && t.toleration_seconds.is_none()
    })
}
