//! The workloads of issue #36 through every fault, in their own namespace: a Job of six
//! completions two at a time, an every-minute CronJob with `concurrencyPolicy: Forbid` whose
//! Jobs outlast a minute, a DaemonSet, and a two-member OrderedReady StatefulSet. Their
//! invariants are checked on the tape, write by write in revision order (so at every revision,
//! not only at the end of a slice):
//! - no Job ever has more active pods (not finished, not being deleted) than its parallelism;
//! - the Forbid CronJob never has two unfinished Jobs at once;
//! - a StatefulSet pod `db-N` is created only while `db-0` … `db-N-1` exist and have each been
//!   Running and Ready (OrderedReady), and never at an ordinal beyond `replicas`.
//!
//! And once healed: every node runs exactly one Running, Ready pod of the DaemonSet.

use super::*;
use watchlab_engine::store::Revision;

/// The namespace the workloads run in (apart from the Deployment's).
pub(super) const WORKLOADS: &str = "workloads";
const JOB: &str = "batch";
const CRON_JOB: &str = "tick";
const DAEMON_SET: &str = "agent";
const STATEFUL_SET: &str = "db";
const STATEFUL_REPLICAS: usize = 2;

/// What the tape has shown so far of the workloads' pods and Jobs.
#[derive(Debug, Default)]
pub(super) struct Workloads {
    pods: BTreeMap<Arc<str>, Arc<Object>>,
    jobs: BTreeMap<Arc<str>, Arc<Object>>,
    /// StatefulSet pods (by uid) seen Running and Ready at least once.
    ready_once: BTreeSet<String>,
    /// Writes checked, for the coverage report.
    pub checks: u64,
}

/// The namespace and the four workloads, as a learner would apply them.
pub(super) fn objects() -> Vec<Object> {
    let template = |behaviour: &str, restart: &str| {
        serde_json::json!({
            "metadata": {"labels": {"app": "w"}, "annotations": {ANNOTATION: behaviour}},
            "spec": {"restartPolicy": restart, "containers": [{"name": "main", "image": "busybox:1.36"}]},
        })
    };
    let labelled = |app: &str, behaviour: &str| {
        let mut t = template(behaviour, "Always");
        t["metadata"]["labels"] = serde_json::json!({"app": app});
        t
    };
    let docs = [
        serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": WORKLOADS}}),
        serde_json::json!({"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": JOB, "namespace": WORKLOADS},
            "spec": {"completions": 6, "parallelism": 2, "template": template("complete-after=20s", "Never")}}),
        serde_json::json!({"apiVersion": "batch/v1", "kind": "CronJob",
            "metadata": {"name": CRON_JOB, "namespace": WORKLOADS},
            "spec": {"schedule": "*/1 * * * *", "concurrencyPolicy": "Forbid",
                     "jobTemplate": {"spec": {"template": template("complete-after=90s", "OnFailure")}}}}),
        serde_json::json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": DAEMON_SET, "namespace": WORKLOADS},
            "spec": {"selector": {"matchLabels": {"app": DAEMON_SET}},
                     "template": labelled(DAEMON_SET, "ready-after=2s")}}),
        serde_json::json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": STATEFUL_SET, "namespace": WORKLOADS},
            "spec": {"replicas": STATEFUL_REPLICAS, "serviceName": STATEFUL_SET,
                     "selector": {"matchLabels": {"app": STATEFUL_SET}},
                     "template": labelled(STATEFUL_SET, "ready-after=5s")}}),
    ];
    docs.iter()
        .map(|d| Object::from_json(&d.to_string()).expect("a valid workload"))
        .collect()
}

/// The controller that owns `o`, as `(kind, name)`.
fn controller(o: &Object) -> Option<(&str, &str)> {
    o.meta()
        .controller_ref()
        .map(|r| (r.kind.as_str(), r.name.as_str()))
}

fn is_active(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_none()
        && pod.status.phase != "Succeeded"
        && pod.status.phase != "Failed"
}

fn running_and_ready(pod: &Pod) -> bool {
    pod.status.phase == "Running" && pod.condition("Ready").is_some_and(|c| c.status == "True")
}

impl Sim {
    /// Applies the tape's writes of the workloads' Jobs and pods since `before`, in revision
    /// order, checking the running invariants after each.
    pub(super) fn check_workloads_on_the_tape(&mut self, before: Revision) {
        let upto = self.tape.upto();
        // Two leaders at once (and a while after): their writes may break what one leader
        // keeps; the records are still kept up to date.
        let judged = self.cluster.now() >= self.two_leaders_until;
        let jobs: Vec<_> = self.tape.between(Kind::Job, before, upto).to_vec();
        for w in jobs {
            self.workloads.checks += 1;
            match &w.cur {
                Some(o) if o.namespace() == WORKLOADS => {
                    self.workloads.jobs.insert(w.key.clone(), o.clone());
                }
                _ => {
                    self.workloads.jobs.remove(&w.key);
                }
            }
            if judged {
                self.check_forbid_never_overlaps();
            }
        }
        let pods: Vec<_> = self.tape.between(Kind::Pod, before, upto).to_vec();
        for w in pods {
            let Some(o) = w.cur.as_ref().or(w.prev.as_ref()) else {
                continue;
            };
            if o.namespace() != WORKLOADS {
                continue;
            }
            self.workloads.checks += 1;
            if w.prev.is_none() && judged {
                if let Some(cur) = &w.cur {
                    self.check_ordered_ready_creation(cur);
                }
            }
            match &w.cur {
                Some(cur) => {
                    if let Some(p) = cur.as_pod().filter(|p| running_and_ready(p)) {
                        self.workloads.ready_once.insert(p.metadata.uid.clone());
                    }
                    self.workloads.pods.insert(w.key.clone(), cur.clone());
                    if let Some(("Job", job)) = controller(cur).filter(|_| judged) {
                        let job = job.to_string();
                        self.check_parallelism(&job);
                    }
                }
                None => {
                    self.workloads.pods.remove(&w.key);
                }
            }
        }
    }

    /// The Job `job` has no more active pods than its parallelism.
    fn check_parallelism(&self, job: &str) {
        let key = Kind::Job.key(WORKLOADS, job);
        let Some(parallelism) = self
            .workloads
            .jobs
            .get(key.as_str())
            .and_then(|o| o.as_job())
            .and_then(|j| j.spec.parallelism)
        else {
            return;
        };
        let active = self
            .workloads
            .pods
            .values()
            .filter(|o| controller(o) == Some(("Job", job)))
            .filter_map(|o| o.as_pod())
            .filter(|p| is_active(p))
            .count();
        self.check(active <= parallelism as usize, || {
            format!("Job {job} has {active} active pods, parallelism {parallelism}")
        });
    }

    /// The Forbid CronJob has at most one unfinished Job not being deleted.
    fn check_forbid_never_overlaps(&self) {
        let running: Vec<&str> = self
            .workloads
            .jobs
            .values()
            .filter(|o| controller(o) == Some(("CronJob", CRON_JOB)))
            .filter_map(|o| o.as_job())
            .filter(|j| !j.is_finished() && j.metadata.deletion_timestamp.is_none())
            .map(|j| j.metadata.name.as_str())
            .collect();
        let status = self
            .tape
            .live(Kind::CronJob)
            .find(|o| o.name() == CRON_JOB)
            .and_then(|o| o.as_cron_job())
            .map(|c| c.status.clone());
        self.check(running.len() <= 1, || {
            format!("the Forbid CronJob {CRON_JOB} runs {running:?} at once; its status {status:?}")
        });
    }

    /// A new StatefulSet pod's ordinal is below `replicas`, and every lower ordinal exists and
    /// has been Running and Ready.
    fn check_ordered_ready_creation(&self, created: &Arc<Object>) {
        if controller(created) != Some(("StatefulSet", STATEFUL_SET)) {
            return;
        }
        let name = created.name();
        let ordinal: Option<usize> = name.strip_prefix("db-").and_then(|n| n.parse().ok());
        let Some(ordinal) = ordinal else {
            self.fail(&format!("StatefulSet pod {name} has no ordinal name"));
        };
        self.check(ordinal < STATEFUL_REPLICAS, || {
            format!("{name} created beyond replicas {STATEFUL_REPLICAS}")
        });
        for lower in 0..ordinal {
            let key = Kind::Pod.key(WORKLOADS, &format!("db-{lower}"));
            let before = self
                .workloads
                .pods
                .get(key.as_str())
                .and_then(|o| o.as_pod());
            let ok = before.is_some_and(|p| self.workloads.ready_once.contains(&p.metadata.uid));
            self.check(ok, || {
                format!("{name} created while db-{lower} was not yet Running and Ready: {before:?}")
            });
        }
    }

    /// Once healed (after letting the DaemonSet catch up for up to two minutes): every node
    /// runs exactly one Running, Ready pod of it, not being deleted.
    pub(super) fn check_daemon_set_on_every_node(&mut self) {
        let mut wrong = Vec::new();
        for _ in 0..24 {
            wrong = NODES
                .iter()
                .filter_map(|node| {
                    let on: Vec<&Pod> = self
                        .workloads
                        .pods
                        .values()
                        .filter(|o| controller(o) == Some(("DaemonSet", DAEMON_SET)))
                        .filter_map(|o| o.as_pod())
                        .filter(|p| {
                            p.spec.node_name == *node && p.metadata.deletion_timestamp.is_none()
                        })
                        .collect();
                    let good = on.len() == 1 && on.iter().all(|p| running_and_ready(p));
                    (!good).then(|| format!("{node}: {} pods", on.len()))
                })
                .collect();
            if wrong.is_empty() {
                return;
            }
            self.run_for(5_000);
        }
        self.fail(&format!(
            "the DaemonSet is not on every node once healed: {wrong:?}"
        ));
    }
}
