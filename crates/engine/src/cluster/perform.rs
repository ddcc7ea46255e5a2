//! How each [`Action`] is carried out: API requests made as the playground's user agent (or
//! two editors racing), plus the machine-level faults no API can express (a node's machine
//! dying, an etcd member going down).

use std::sync::Arc;

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_apimachinery::status::{Status, StatusReason};

use crate::api::Kind;
use crate::apiserver::instance::Health;
use crate::apiserver::EtcdFault;
use crate::reconnect_comparison::ReconnectComparison;

use super::action::ResourceName;
use super::manifests::{deployment_manifest, object_path, pod_manifest, workload_manifest};
use super::{Action, Cluster, ConflictReport, DrainReport, Outcome, KUBECTL_USER, PLAYGROUND_USER};

impl Cluster {
    /// One action: the requests (or machine-level change) it stands for, then the revision.
    // Long on purpose: one short arm per kind of action, each the request it stands for.
    pub(super) fn perform(&mut self, action: Action) -> Result<Outcome, Status> {
        match action {
            Action::CreatePod {
                namespace,
                name,
                image,
                labels,
            } => {
                let body = pod_manifest(&namespace, &name, &image, &labels);
                let path = Kind::Pod.resource().path(Some(&namespace), None);
                self.post(&path, &body)?;
            }
            Action::CreateDeployment {
                namespace,
                name,
                image,
                replicas,
                labels,
            } => {
                let body = deployment_manifest(&namespace, &name, &image, replicas, &labels);
                let path = Kind::Deployment.resource().path(Some(&namespace), None);
                self.post(&path, &body)?;
            }
            Action::CreateDaemonSet {
                namespace,
                name,
                image,
                labels,
            } => {
                let body =
                    workload_manifest(Kind::DaemonSet, &namespace, &name, &image, None, &labels);
                let path = Kind::DaemonSet.resource().path(Some(&namespace), None);
                self.post(&path, &body)?;
            }
            Action::CreateStatefulSet {
                namespace,
                name,
                image,
                replicas,
                labels,
            } => {
                let kind = Kind::StatefulSet;
                let body =
                    workload_manifest(kind, &namespace, &name, &image, Some(replicas), &labels);
                self.post(&kind.resource().path(Some(&namespace), None), &body)?;
            }
            Action::Scale {
                namespace,
                name,
                replicas,
            } => {
                let patch = json!({"spec": {"replicas": replicas}});
                self.patch(&object_path(Kind::Deployment, &namespace, &name), &patch)?;
            }
            Action::Label {
                kind,
                namespace,
                name,
                key,
                value,
                overwrite,
            } => {
                let kind = self.served(&kind)?;
                self.label(
                    &object_path(kind, &namespace, &name),
                    &key,
                    &value,
                    overwrite,
                )?
            }
            Action::Delete {
                kind,
                namespace,
                name,
            } => {
                let path = object_path(self.served(&kind)?, &namespace, &name);
                let r = self
                    .api
                    .as_user(PLAYGROUND_USER)
                    .request("DELETE", &path, None, None);
                check(r.code, &r.body)?;
            }
            Action::KillNode(name) => self.set_machine_running(name, false)?,
            Action::RestoreNode(name) => self.set_machine_running(name, true)?,
            Action::PauseComponent(name) => self.set_component_paused(&name, true)?,
            Action::ResumeComponent(name) => self.set_component_paused(&name, false)?,
            Action::CutApiserver(name) => self.api.set_instance_health(&name, Health::Cut)?,
            Action::StopApiserver(name) => self.api.set_instance_health(&name, Health::Stopped)?,
            Action::RestoreApiserver(name) => {
                self.api.set_instance_health(&name, Health::Serving)?
            }
            Action::ConsistentFirstList(on) => self.control_plane.set_consistent_first_list(on),
            Action::DrainNode(name) => return self.drain_node(name).map(Outcome::Drained),
            Action::CompactNow => {
                self.api.compact_now()?;
            }
            Action::DropWatch(id) => self.api.stop_watch(id),
            Action::ConflictingWrite { namespace, name } => {
                return self
                    .conflicting_write(&namespace, &name)
                    .map(Outcome::Conflict);
            }
            Action::CompareReconnects { namespace } => {
                let path = Kind::Namespace.resource().path(None, Some(&namespace));
                self.get_json(&path)?;
                let mut c = ReconnectComparison::new(&namespace, self.config.seed);
                c.step(self.now(), &mut self.api);
                if let Some(old) = self.reconnect.replace(c) {
                    old.stop(&mut self.api);
                }
            }
            Action::CutWatchConnections => {
                let (c, api) = self.reconnecting()?;
                c.cut(api);
            }
            Action::RestoreWatchConnections => {
                let now = self.now();
                let (c, api) = self.reconnecting()?;
                c.restore(now, api);
            }
            // What is left are the etcd members' faults and etcdctl's requests.
            etcd => self.etcd_action(etcd)?,
        }
        Ok(Outcome::Done {
            revision: self.api.revision(),
        })
    }

    /// The kind an action names, among those served now (kubectl's 404 text for another).
    fn served(&self, name: &ResourceName) -> Result<Kind, Status> {
        name.resolve(self.api.registry())
            .map_err(|msg| Status::failure(404, StatusReason::NotFound, msg, None))
    }

    /// `kubectl label`: read the object, refuse to change an existing value without
    /// `--overwrite` (kubectl's own text), then a merge patch of the one label.
    fn label(&mut self, path: &str, key: &str, value: &str, overwrite: bool) -> Result<(), Status> {
        let current = self.get_json(path)?;
        let existing = current["metadata"]["labels"][key].as_str();
        if let (Some(old), false) = (existing, overwrite) {
            if old != value {
                return Err(Status::bad_request(&format!(
                    "'{key}' already has a value ({old}), and --overwrite is false"
                )));
            }
        }
        let patch = json!({"metadata": {"labels": {key: value}}});
        self.patch(path, &patch).map(|_| ())
    }

    /// A node's machine dies (its kubelet stops doing anything) or comes back.
    fn set_machine_running(&mut self, node: String, running: bool) -> Result<(), Status> {
        self.known_node(&node)?;
        if let Some(k) = self.control_plane.kubelet_mut(&node) {
            k.set_running(running);
        }
        if let Some(p) = self.control_plane.kube_proxy_mut(&node) {
            p.set_running(running);
        }
        // metrics-server's scrapes of its kubelet fail with it ([`crate::apiserver::metrics`]).
        self.api.set_node_scrapable(&node, running);
        if running {
            self.killed_nodes.remove(&node);
        } else {
            self.killed_nodes.insert(node);
        }
        Ok(())
    }

    /// Pauses or resumes the replica `name` of a leader-elected component.
    fn set_component_paused(&mut self, name: &str, paused: bool) -> Result<(), Status> {
        let now = self.now();
        let found = match paused {
            true => self.control_plane.pause(name, now),
            false => self.control_plane.resume(name, now),
        };
        if !found {
            let names = self.control_plane.replica_names().join(", ");
            return Err(Status::bad_request(&format!(
                "no component replica named {name:?}: the control plane runs {names}"
            )));
        }
        Ok(())
    }

    /// `kubectl drain NODE --ignore-daemonsets --delete-emptydir-data --force`, each request
    /// as kubectl sends it: the node read and cordoned (a strategic merge patch), its pods
    /// listed by `spec.nodeName`, mirror pods and running DaemonSet pods left, every other pod
    /// evicted once through `pods/eviction` (a refusal is reported, not retried).
    fn drain_node(&mut self, node: String) -> Result<DrainReport, Status> {
        let node_path = Kind::Node.resource().path(None, Some(&node));
        let current = self.kubectl("GET", &node_path, None, None)?;
        let already_cordoned = current["spec"]["unschedulable"].as_bool() == Some(true);
        if !already_cordoned {
            let patch = json!({"spec": {"unschedulable": true}}).to_string();
            let strategic = Some("application/strategic-merge-patch+json");
            self.kubectl("PATCH", &node_path, strategic, Some(&patch))?;
        }
        let selector = watchlab_apimachinery::request::percent_encode_query_value(&format!(
            "spec.nodeName={node}"
        ));
        let list = self.kubectl(
            "GET",
            &format!("/api/v1/pods?fieldSelector={selector}&limit=500"),
            None,
            None,
        )?;
        let mut report = DrainReport {
            node,
            already_cordoned,
            evicted: Vec::new(),
            refused: Vec::new(),
            revision: 0,
        };
        for pod in list["items"].as_array().into_iter().flatten() {
            if !drained_by_kubectl(pod) {
                continue;
            }
            let (ns, name) = (
                pod["metadata"]["namespace"].as_str().unwrap_or_default(),
                pod["metadata"]["name"].as_str().unwrap_or_default(),
            );
            let eviction = json!({"kind": "Eviction", "apiVersion": "policy/v1",
                "metadata": {"name": name, "namespace": ns}, "deleteOptions": {}})
            .to_string();
            let path = format!("{}/eviction", object_path(Kind::Pod, ns, name));
            match self.kubectl("POST", &path, None, Some(&eviction)) {
                Ok(_) => report.evicted.push(format!("{ns}/{name}")),
                Err(s) if s.code() == 404 => {}
                Err(s) => report
                    .refused
                    .push((format!("{ns}/{name}"), s.message().to_string())),
            }
        }
        report.revision = self.api.revision();
        Ok(report)
    }

    /// A request as kubectl.
    fn kubectl(
        &mut self,
        method: &str,
        path: &str,
        content_type: Option<&str>,
        body: Option<&str>,
    ) -> Result<Value, Status> {
        let r = self
            .api
            .as_user(KUBECTL_USER)
            .request(method, path, content_type, body);
        check(r.code, &r.body)
    }

    /// A fault on the etcd members (a member down or back, links cut or healed, the leader
    /// moved); the membership change (elections, a lost or regained quorum) is logged.
    fn etcd_fault(&mut self, fault: &EtcdFault) -> Result<(), Status> {
        self.api
            .etcd_fault(fault)
            .map_err(|e| Status::bad_request(&e.to_string()))?;
        self.record_membership();
        Ok(())
    }

    /// A fault on the etcd members, or what etcdctl asks of one (the API server's etcd
    /// answers it, with etcd's texts).
    fn etcd_action(&mut self, action: Action) -> Result<(), Status> {
        let refused = |text: String| Status::failure(500, StatusReason::Unknown, text, None);
        match action {
            Action::KillEtcdMember(name) => self.etcd_fault(&EtcdFault::Kill(name)),
            Action::RestoreEtcdMember(name) => self.etcd_fault(&EtcdFault::Restore(name)),
            Action::IsolateEtcdMember(name) => self.etcd_fault(&EtcdFault::Isolate(name)),
            Action::PartitionEtcd(group) => self.etcd_fault(&EtcdFault::Partition(group)),
            Action::HealEtcd(member) => self.etcd_fault(&EtcdFault::Heal(member)),
            Action::MoveEtcdLeader(name) => self.etcd_fault(&EtcdFault::MoveLeader(name)),
            Action::CompactEtcd { member, revision } => self.api.etcd_compact(&member, revision),
            Action::EtcdPut {
                member,
                key,
                value,
                lease,
            } => self
                .api
                .etcd_put(&member, &key, &value, lease)
                .map(|_| ())
                .map_err(refused),
            Action::EtcdDelete {
                member,
                key,
                range_end,
            } => self
                .api
                .etcd_delete(&member, &key, range_end.as_deref())
                .map(|_| ())
                .map_err(refused),
            Action::EtcdLeaseGrant { member, ttl_secs } => self
                .api
                .etcd_lease_grant(&member, ttl_secs)
                .map(|_| ())
                .map_err(refused),
            Action::EtcdLeaseRevoke { member, id } => {
                self.api.etcd_lease_revoke(&member, id).map_err(refused)
            }
            Action::EtcdLeaseKeepAlive { member, id } => self
                .api
                .etcd_lease_keep_alive(&member, id)
                .map(|_| ())
                .map_err(refused),
            Action::EtcdTxn {
                member,
                compares,
                success,
                failure,
            } => self
                .api
                .etcd_txn_request(&member, &compares, &success, &failure)
                .map_err(refused),
            Action::EtcdAlarmDisarm { member } => self
                .api
                .etcd_alarm_disarm(&member)
                .map(|_| ())
                .map_err(refused),
            Action::EtcdSnapshotSave { member, path } => {
                let snapshot = self.api.etcd_snapshot(&member).map_err(refused)?;
                self.etcd_snapshots.insert(path, Arc::new(snapshot));
                Ok(())
            }
            Action::EtcdSnapshotRestore {
                path,
                bump_revision,
                mark_compacted,
            } => {
                let snapshot =
                    self.etcd_snapshots.get(&path).cloned().ok_or_else(|| {
                        refused(format!("open {path}: no such file or directory"))
                    })?;
                self.api
                    .etcd_restore(&snapshot, bump_revision, mark_compacted);
                Ok(())
            }
            other => Err(Status::internal_error(&format!(
                "{other:?} is not an etcd action"
            ))),
        }
    }

    fn known_node(&self, name: &str) -> Result<(), Status> {
        self.api
            .peek(Kind::Node, None, name)
            .map(|_| ())
            .ok_or_else(|| Status::not_found(&Kind::Node.resource().group_resource(), name))
    }

    pub(super) fn create_seed_objects(&mut self) {
        let ns =
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "production"}});
        let _ = self.post("/api/v1/namespaces", &ns);
        let labels = [("app".to_string(), "orders-api".to_string())];
        let d = deployment_manifest("production", "orders-api", "orders-api:1.0", 3, &labels);
        let _ = self.post("/apis/apps/v1/namespaces/production/deployments", &d);
    }

    fn post(&mut self, path: &str, body: &Value) -> Result<Value, Status> {
        let r =
            self.api
                .as_user(PLAYGROUND_USER)
                .request("POST", path, None, Some(&body.to_string()));
        check(r.code, &r.body)
    }

    fn patch(&mut self, path: &str, patch: &Value) -> Result<Value, Status> {
        let r = self.api.as_user(PLAYGROUND_USER).request(
            "PATCH",
            path,
            Some("application/merge-patch+json"),
            Some(&patch.to_string()),
        );
        check(r.code, &r.body)
    }

    fn get_json(&mut self, path: &str) -> Result<Value, Status> {
        let r = self
            .api
            .as_user(PLAYGROUND_USER)
            .request("GET", path, None, None);
        check(r.code, &r.body)
    }

    /// Two read-modify-write cycles racing on one resourceVersion, then the loser's retry.
    fn conflicting_write(&mut self, namespace: &str, name: &str) -> Result<ConflictReport, Status> {
        let path = object_path(Kind::Deployment, namespace, name);
        let mut first = self
            .api
            .as_user("editor-1")
            .request("GET", &path, None, None);
        let mut a: Value = check(first.code, &first.body)?;
        let second = self
            .api
            .as_user("editor-2")
            .request("GET", &path, None, None);
        let mut b: Value = check(second.code, &second.body)?;
        let read_revision = rv_of(&a);

        a["metadata"]["annotations"]["watchlab.dev/edited-by"] = json!("editor-1");
        first = self
            .api
            .as_user("editor-1")
            .request("PUT", &path, None, Some(&a.to_string()));
        let winner_revision = rv_of(&check(first.code, &first.body)?);

        b["metadata"]["annotations"]["watchlab.dev/reviewed-by"] = json!("editor-2");
        let lost = self
            .api
            .as_user("editor-2")
            .request("PUT", &path, None, Some(&b.to_string()));
        let loser_message = match check(lost.code, &lost.body) {
            Err(s) => s.message().to_string(),
            Ok(_) => String::new(),
        };

        // retry.RetryOnConflict: re-read the latest version, re-apply the change, write again.
        let reread = self
            .api
            .as_user("editor-2")
            .request("GET", &path, None, None);
        let mut c = check(reread.code, &reread.body)?;
        c["metadata"]["annotations"]["watchlab.dev/reviewed-by"] = json!("editor-2");
        let retried =
            self.api
                .as_user("editor-2")
                .request("PUT", &path, None, Some(&c.to_string()));
        let retry_revision = rv_of(&check(retried.code, &retried.body)?);
        Ok(ConflictReport {
            read_revision,
            winner_revision,
            loser_message,
            retry_revision,
        })
    }
}
/// Whether `kubectl drain --ignore-daemonsets --delete-emptydir-data --force` lets the pod
/// go: not a mirror pod, not a DaemonSet's pod still running (the page serves no DaemonSets,
/// so the real filter's read of the DaemonSet is left out).
fn drained_by_kubectl(pod: &Value) -> bool {
    let finished = matches!(
        pod["status"]["phase"].as_str(),
        Some("Succeeded" | "Failed")
    );
    let daemon = pod["metadata"]["ownerReferences"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|r| r["controller"].as_bool() == Some(true) && r["kind"] == "DaemonSet");
    let mirror = pod["metadata"]["annotations"]["kubernetes.io/config.mirror"].is_string();
    !mirror && (finished || !daemon)
}

fn rv_of(v: &Value) -> u64 {
    v["metadata"]["resourceVersion"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// Turns an HTTP-shaped answer into the JSON body or the `Status` it carries.
fn check(code: u16, body: &str) -> Result<Value, Status> {
    if (200..300).contains(&code) {
        return serde_json::from_str(body).map_err(|e| Status::internal_error(&e.to_string()));
    }
    Err(serde_json::from_str::<Status>(body).unwrap_or_else(|_| Status::internal_error(body)))
}
