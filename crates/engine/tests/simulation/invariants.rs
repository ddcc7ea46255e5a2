//! The invariants that hold at every instant of a run (checked after every slice of virtual
//! time, faults or not): no pod left un-Terminating on a dead node past its eviction deadline,
//! no node carrying more requests than it can allocate, nothing bound to a node cordoned more
//! than a second ago, no pod's restart count going back and no Succeeded or Failed pod
//! running again. (The ledger's and the watch streams' own invariants are checked by
//! `tape` and `audit`.)

use super::*;

impl Sim {
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
        let now = self.h.now();
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
                .map(|pod| format!("{}/{}", pod.metadata.namespace, pod.metadata.name))
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
            .h
            .api
            .list(Kind::Node, None, &ListOptions::default())
            .map(|l| l.items)
            .unwrap_or_default();
        let pods = self.all_pods();
        for node in nodes.iter().filter_map(|o| o.as_node()) {
            let (cpu, mem, _) = podutil::allocatable(node);
            let (used_cpu, used_mem) = pods
                .iter()
                .filter_map(|o| o.as_pod())
                .filter(|p| p.spec.node_name == node.metadata.name && !podutil::is_terminal(p))
                .map(|p| podutil::requests(&p.spec))
                .fold((0, 0), |(c, m), (pc, pm)| (c + pc, m + pm));
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
        let now = self.h.now();
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
            let phase = p.status.phase.clone();
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
}
