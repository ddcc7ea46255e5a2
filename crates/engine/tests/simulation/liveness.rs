//! Liveness: what must be true once every fault has healed — the Deployment converged onto
//! live, Ready nodes, the ownership chain intact, no ownerReference left pointing at an object
//! that is gone (the garbage collector's promise), repeated Events counted rather than
//! duplicated, and every informer cache equal to the ledger, object for object.

use super::*;

impl Sim {
    pub(super) fn check_converged(&self) {
        // Every kubelet's runtime holds exactly the pods bound to its node: none left running
        // after its deletion, none missing.
        for k in self.cluster.control_plane().kubelets() {
            let bound = self
                .all_pods()
                .iter()
                .filter_map(|o| o.as_pod())
                .filter(|p| p.spec.node_name == k.node_name())
                .count();
            self.check(k.running_pods() == bound, || {
                format!(
                    "{} runs {} pods, {bound} bound to it",
                    k.node_name(),
                    k.running_pods()
                )
            });
        }
        let pods: Vec<String> = self
            .pods()
            .iter()
            .filter_map(|o| o.as_pod())
            .map(|p| {
                format!(
                    "{} on {:?} {} ready={} deleting={}",
                    p.metadata.name,
                    p.spec.node_name,
                    p.status.phase,
                    p.condition("Ready").is_some_and(|c| c.status == "True"),
                    p.metadata.deletion_timestamp.is_some()
                )
            })
            .collect();
        let good = self
            .pods()
            .iter()
            .filter_map(|o| o.as_pod())
            .filter(|p| {
                p.status.phase == "Running"
                    && p.metadata.deletion_timestamp.is_none()
                    && p.condition("Ready").is_some_and(|c| c.status == "True")
                    && NODES.contains(&p.spec.node_name.as_str())
            })
            .count();
        self.check(good == self.desired as usize && pods.len() == good, || {
            format!("want {} Running ready pods, have {pods:#?}", self.desired)
        });
        let Some(d) = self.get_deployment() else {
            self.fail("the Deployment vanished");
        };
        self.check(d.spec.replicas == Some(self.desired), || {
            format!(
                "spec.replicas {:?}, last acknowledged {}",
                d.spec.replicas, self.desired
            )
        });
        self.check(
            d.metadata.annotations.get(NOTE) == self.note.as_ref(),
            || {
                format!(
                    "annotation {:?}, last acknowledged {:?}",
                    d.metadata.annotations.get(NOTE),
                    self.note
                )
            },
        );
        let s = &d.status;
        self.check(
            s.observed_generation == d.metadata.generation.unwrap_or(0)
                && s.replicas == self.desired
                && s.updated_replicas == self.desired
                && s.ready_replicas == self.desired
                && s.available_replicas == self.desired
                && s.unavailable_replicas == 0,
            || format!("deployment status {s:?} for {} replicas", self.desired),
        );
        let nodes: Vec<String> = self
            .cluster
            .api()
            .list(Kind::Node, None, &ListOptions::from_cache())
            .map(|l| l.items)
            .unwrap_or_default()
            .iter()
            .filter_map(|o| o.as_node())
            .filter(|n| {
                !n.spec.taints.is_empty() || n.condition("Ready").is_none_or(|c| c.status != "True")
            })
            .map(|n| n.metadata.name.clone())
            .collect();
        self.check(nodes.is_empty(), || {
            format!("nodes not Ready or still tainted: {nodes:?}")
        });
        // The bare pods that survived are running too — or Succeeded, those that complete —
        // (none was left Pending or stuck).
        let stuck: Vec<String> = self
            .pods_in(Some(SANDBOX))
            .iter()
            .filter_map(|o| o.as_pod())
            .filter(|p| {
                let (_, policy, _) = lifecycle_of(&p.metadata.name);
                let done = if policy == "Never" {
                    "Succeeded"
                } else {
                    "Running"
                };
                p.status.phase != done
                    || p.metadata.deletion_timestamp.is_some()
                    || !NODES.contains(&p.spec.node_name.as_str())
            })
            .map(|p| {
                format!(
                    "{} {} on {:?}",
                    p.metadata.name, p.status.phase, p.spec.node_name
                )
            })
            .collect();
        self.check(stuck.is_empty(), || {
            format!("bare pods not running: {stuck:?}")
        });
    }

    /// The ownership chain: every ReplicaSet controlled by the Deployment, exactly one of them
    /// (named after its template's hash, with the current image) scaled to the desired count,
    /// and every pod controlled by that one, named `<rs>-<5 chars>` and labelled with its hash.
    /// The disruption controller caught up: the budget's status counts the Deployment's pods
    /// as the ledger holds them (`maxUnavailable: 1` of the replicas), at its generation.
    pub(super) fn check_budget_counted(&self) {
        let Some(obj) =
            self.cluster
                .api()
                .peek(Kind::PodDisruptionBudget, Some(NAMESPACE), DEPLOYMENT)
        else {
            self.fail("the PodDisruptionBudget vanished");
        };
        let Some(pdb) = obj.as_pod_disruption_budget() else {
            self.fail("the budget is not a budget");
        };
        let healthy = self
            .pods()
            .iter()
            .filter_map(|o| o.as_pod())
            .filter(|p| p.metadata.labels.get("app").map(String::as_str) == Some(DEPLOYMENT))
            .filter(|p| p.metadata.deletion_timestamp.is_none() && podutil::is_pod_ready(p))
            .count() as i32;
        let expected = self.desired;
        let desired = (expected - 1).max(0);
        let allowed = if expected > 0 {
            (healthy - desired).max(0)
        } else {
            0
        };
        let s = &pdb.status;
        let want = (
            pdb.metadata.generation.unwrap_or(0),
            expected,
            desired,
            healthy,
            allowed,
        );
        let have = (
            s.observed_generation,
            s.expected_pods,
            s.desired_healthy,
            s.current_healthy,
            s.disruptions_allowed,
        );
        self.check(have == want && s.disrupted_pods.is_empty(), || {
            format!(
                "budget (generation, expected, desired, healthy, allowed) {have:?}, want {want:?}; {s:?}"
            )
        });
    }

    pub(super) fn check_ownership(&self) {
        let Some(d) = self.get_deployment() else {
            self.fail("the Deployment vanished");
        };
        let rss: Vec<Arc<Object>> = self
            .cluster
            .api()
            .list(
                Kind::ReplicaSet,
                Some(NAMESPACE),
                &ListOptions::from_cache(),
            )
            .map(|l| l.items)
            .unwrap_or_default();
        let mut current = Vec::new();
        for rs in rss.iter().filter_map(|o| o.as_replica_set()) {
            let owner = rs.metadata.controller_ref();
            self.check(
                owner.is_some_and(|r| {
                    r.kind == "Deployment"
                        && r.uid == d.metadata.uid
                        && r.block_owner_deletion == Some(true)
                }),
                || {
                    format!(
                        "{} not controlled by the Deployment: {owner:?}",
                        rs.metadata.name
                    )
                },
            );
            let hash = rs
                .metadata
                .labels
                .get(deployment::POD_TEMPLATE_HASH_LABEL)
                .cloned()
                .unwrap_or_default();
            self.check(rs.metadata.name == format!("{DEPLOYMENT}-{hash}"), || {
                format!("{} does not carry its hash {hash:?}", rs.metadata.name)
            });
            if rs.spec.replicas.unwrap_or(0) > 0 {
                current.push(rs);
            }
        }
        let image = |t: &PodTemplateSpec| t.spec.containers.first().map(|c| c.image.clone());
        if self.desired == 0 {
            self.check(current.is_empty(), || {
                format!(
                    "scaled to 0, yet {} ReplicaSets have replicas",
                    current.len()
                )
            });
            return;
        }
        let Some(rs) = current.first().filter(|_| current.len() == 1) else {
            self.fail(&format!(
                "{} ReplicaSets have replicas, want 1",
                current.len()
            ));
        };
        self.check(
            rs.spec.replicas == Some(self.desired)
                && image(&rs.spec.template) == image(&d.spec.template),
            || {
                format!(
                    "{} is not the current template at {} replicas",
                    rs.metadata.name, self.desired
                )
            },
        );
        for pod in self.pods().iter().filter_map(|o| o.as_pod()) {
            let owner = pod.metadata.controller_ref();
            let suffix = pod
                .metadata
                .name
                .strip_prefix(&format!("{}-", rs.metadata.name));
            self.check(
                owner.is_some_and(|r| r.kind == "ReplicaSet" && r.uid == rs.metadata.uid)
                    && suffix.is_some_and(|s| s.len() == 5)
                    && pod.metadata.labels.get(deployment::POD_TEMPLATE_HASH_LABEL)
                        == rs.metadata.labels.get(deployment::POD_TEMPLATE_HASH_LABEL),
                || {
                    format!(
                        "{} does not belong to {}: {owner:?}",
                        pod.metadata.name, rs.metadata.name
                    )
                },
            );
        }
    }

    /// The garbage collector's promise once quiet: every ownerReference of every object (of
    /// every served kind) names an object that exists with that uid.
    pub(super) fn check_no_dangling_owners(&self) {
        let api = self.cluster.api();
        let objects: Vec<Arc<Object>> = api
            .registry()
            .kinds()
            .iter()
            .flat_map(|k| {
                api.list(*k, None, &ListOptions::from_cache())
                    .map(|l| l.items)
                    .unwrap_or_default()
            })
            .collect();
        let uids: std::collections::BTreeSet<&str> =
            objects.iter().map(|o| o.meta().uid.as_str()).collect();
        for o in &objects {
            for r in &o.meta().owner_references {
                self.check(uids.contains(r.uid.as_str()), || {
                    format!(
                        "{} {}/{} refers to a gone owner {} {} ({})",
                        o.kind().resource().kind_name,
                        o.namespace(),
                        o.name(),
                        r.kind,
                        r.name,
                        r.uid
                    )
                });
            }
        }
    }

    /// The EventCorrelator's promise: a repeat of an event (same object, reason, message and
    /// source) within ten minutes bumps the count of the one Event instead of adding another —
    /// within one process: a kube-controller-manager or kube-scheduler that lost its Lease
    /// exits, and the process that replaces it starts with an empty correlator; and two
    /// processes that both believe they lead (a paused leader resumed) each record theirs.
    pub(super) fn check_events_deduplicated(&mut self) {
        let restarts: Vec<Timestamp> = self
            .cluster
            .control_plane()
            .electors()
            .iter()
            .flat_map(|e| e.restarts().iter().copied())
            .collect();
        let events: Vec<Arc<Object>> = self
            .cluster
            .api()
            .list(Kind::Event, None, &ListOptions::from_cache())
            .map(|l| l.items)
            .unwrap_or_default();
        let mut seen: BTreeMap<String, (Option<Timestamp>, String)> = BTreeMap::new();
        let mut sorted: Vec<&Event> = events
            .iter()
            .filter_map(|o| match &**o {
                Object::Event(e) => Some(e),
                _ => None,
            })
            .collect();
        sorted.sort_by_key(|e| e.first_timestamp);
        self.coverage.repeated_events +=
            sorted.iter().filter(|e| e.count.unwrap_or(1) > 1).count() as u64;
        self.coverage.failed_scheduling += sorted
            .iter()
            .filter(|e| e.reason == "FailedScheduling")
            .count() as u64;
        for e in sorted {
            let key = format!(
                "{}/{}/{} {} {:?} {}/{}",
                e.involved_object.kind,
                e.involved_object.namespace,
                e.involved_object.name,
                e.reason,
                e.message,
                e.source.component,
                e.source.host
            );
            if let Some((last, name)) = seen.get(&key) {
                let gap = match (last, e.first_timestamp) {
                    (Some(l), Some(f)) => f.millis_since(*l),
                    _ => 0,
                };
                // Timestamps are whole seconds; the recorder's window is counted in milliseconds.
                let restarted = match (last, e.first_timestamp) {
                    (Some(l), Some(f)) => restarts.iter().any(|r| *l <= *r && *r <= f.plus_secs(1)),
                    _ => false,
                };
                // Two processes leading at once each have their correlator.
                let two_leaders = e.first_timestamp.is_some_and(|f| {
                    self.two_leader_windows
                        .iter()
                        .any(|(from, to)| *from <= f.plus_secs(1) && f <= to.plus_secs(1))
                });
                self.check(
                    restarted || two_leaders || gap + 1_000 > 10 * 60_000,
                    || {
                        format!(
                            "{} repeats {name} {gap} ms after it instead of counting: {key}",
                            e.metadata.name
                        )
                    },
                );
            }
            seen.insert(key, (e.last_timestamp, e.metadata.name.clone()));
        }
    }

    /// With the fix on (every informer's first list a consistent read), no component's
    /// informer ever listed below a resourceVersion that component had reached — whatever API
    /// server was cut, stopped or restored, whichever replica paused, restarted or took over.
    pub(super) fn check_no_time_travel(&mut self) {
        let flags: Vec<String> = self
            .cluster
            .api()
            .time_travels()
            .since(0)
            .map(|f| format!("{f:?}"))
            .collect();
        self.check(flags.is_empty(), || {
            format!("informers went back in time: {}", flags.join("; "))
        });
    }

    /// Holds the ledger still — etcd refuses writes, so no component can change it — while
    /// every component keeps reading for a few seconds, so that all deliveries land; then each
    /// informer cache (the observers' and every controller's) must hold exactly the ledger's
    /// objects that its selector matches, at their versions.
    pub(super) fn check_caches_equal_the_ledger(&mut self) {
        self.log
            .push(format!("{:>7} ms  freeze", self.cluster.now().as_millis()));
        // Two of the three etcd members go down: no quorum, so the store refuses every write.
        for i in 0..2 {
            // A member already down refuses the kill: nothing to do.
            let _ = self
                .cluster
                .apply(Action::KillEtcdMember(format!("etcd-{i}")));
        }
        self.check(!self.cluster.api().store_writable(), || {
            "the store takes writes without an etcd quorum".into()
        });
        let frozen_at = self.cluster.api().revision();
        for _ in 0..20 {
            let next = self.cluster.now().plus_millis(SLICE_MS);
            self.cluster.advance_to(next);
            let now = self.cluster.now();
            self.read_tape();
            self.step_observers(now);
        }
        for a in &self.auditors {
            let (watched, ledger) = (a.reconstructed(), a.ledger(&self.tape));
            self.check(watched == ledger, || {
                format!(
                    "auditor {}: list + watch gives {watched:?}, the ledger {ledger:?}",
                    a.name
                )
            });
        }
        self.check(self.cluster.api().revision() == frozen_at, || {
            "the ledger moved while etcd refused writes".into()
        });
        let mut caches: Vec<Cache> = self
            .observers
            .iter()
            .map(|(_, i)| Cache::of("observer", i))
            .collect();
        for c in self.cluster.control_plane().running() {
            caches.extend(c.informers().into_iter().map(|i| Cache::of(c.name(), &i)));
        }
        for Cache {
            who,
            kind,
            selector,
            items,
            synced,
        } in caches
        {
            // The ledger as the watch cache holds it: a quorum read would fail, etcd is frozen.
            let mut opts = ListOptions::from_cache();
            if let Some(sel) = &selector {
                match FieldSelector::parse(sel) {
                    Ok(fs) => opts.field_selector = fs,
                    Err(e) => self.fail(&format!("bad selector {sel}: {e}")),
                }
            }
            let ledger: BTreeSet<(String, String, u64)> = self
                .cluster
                .api()
                .list(kind, None, &opts)
                .map(|l| l.items)
                .unwrap_or_default()
                .iter()
                .map(|o| identity(o))
                .collect();
            let cache: BTreeSet<(String, String, u64)> =
                items.iter().map(|o| identity(o)).collect();
            self.check(synced && cache == ledger, || {
                format!(
                    "{who}'s {kind:?} cache ({selector:?}) differs from the ledger:\n only in \
                     cache {:?}\n only in ledger {:?}",
                    cache.difference(&ledger).collect::<Vec<_>>(),
                    ledger.difference(&cache).collect::<Vec<_>>()
                )
            });
        }
    }
}

/// A snapshot of one informer's cache.
struct Cache {
    who: String,
    kind: Kind,
    selector: Option<String>,
    items: Vec<Arc<Object>>,
    synced: bool,
}

impl Cache {
    fn of(who: &str, informer: &ApiInformer) -> Self {
        let kind = informer.kind();
        Cache {
            who: who.to_string(),
            kind,
            selector: field_selector_of(who, kind),
            items: informer.store().list(),
            synced: informer.has_synced(),
        }
    }
}
