//! `kubectl drain NODE`: cordon the node, then evict (or with `--disable-eviction` delete)
//! every pod on it that kubectl v1.32's filters let go (`k8s.io/kubectl` `pkg/drain` and
//! `pkg/cmd/drain`), and wait until they are gone. A drain spans virtual time — a budget's 429
//! is retried every 5 s and an evicted pod takes its grace period to go — while the console
//! runs a line at one instant, so the command returns what happened at once and, when pods are
//! still on their way, a [`crate::Follow`] that the console polls as the cluster advances (as
//! it polls `get -w`): each poll does what kubectl's goroutines would have done by then.
//! The filters, messages and error aggregation are kubectl's: unmanaged pods need `--force`,
//! DaemonSet pods `--ignore-daemonsets`, emptyDir `--delete-emptydir-data`, mirror pods are
//! skipped; a node that cannot be drained ends with `There are pending nodes to be drained:`.

use std::collections::{BTreeMap, VecDeque};

use super::{dry_run, parse_flags, Ctx, Done, DryRun};
use crate::errors::{decode_status, json_body, server_error_text, CmdError};
use crate::flags::{boolean, value, FlagSpec};
use crate::query::{escape, with_query};
use serde_json::{json, Value};
use watchlab_apimachinery::client::{ApiClient, ApiResponse};
use watchlab_apimachinery::gofmt::go_quote;
use watchlab_apimachinery::labels::LabelSelector;
use watchlab_apimachinery::unstructured::string;

const FLAGS: &[FlagSpec] = &[
    boolean("force", None),
    boolean("ignore-daemonsets", None),
    boolean("delete-emptydir-data", None),
    boolean("disable-eviction", None),
    value("grace-period", None),
    value("timeout", None),
    value("dry-run", None),
    value("pod-selector", None),
    value("selector", Some('l')),
    value("chunk-size", None),
];

const DAEMON_SET_FATAL: &str = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)";
const DAEMON_SET_WARNING: &str = "ignoring DaemonSet-managed Pods";
const LOCAL_STORAGE_FATAL: &str =
    "Pods with local storage (use --delete-emptydir-data to override)";
const UNMANAGED_FATAL: &str =
    "cannot delete Pods that declare no controller (use --force to override)";
const UNMANAGED_WARNING: &str = "deleting Pods that declare no controller";
/// `corev1.MirrorPodAnnotationKey`.
const MIRROR_ANNOTATION: &str = "kubernetes.io/config.mirror";
/// How long kubectl sleeps after a 429 before it evicts again.
pub const RETRY_MS: u64 = 5_000;
/// How often kubectl's `waitForDelete` reads an evicted pod again.
const WAIT_INTERVAL_MS: u64 = 1_000;

/// What the flags ask for.
#[derive(Debug, Clone)]
struct Options {
    force: bool,
    ignore_daemonsets: bool,
    delete_emptydir_data: bool,
    disable_eviction: bool,
    /// `-1`: each pod's own grace period.
    grace_period: i64,
    /// `--timeout` in milliseconds (`None`: 0, wait forever) and as Go prints it.
    timeout: Option<(i64, String)>,
    dry: DryRun,
    pod_selector: String,
    chunk_size: i64,
}

/// One pod the drain lets go, and where kubectl's goroutine for it is.
#[derive(Debug, Clone)]
struct PodWork {
    namespace: String,
    name: String,
    uid: String,
    state: PodState,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum PodState {
    /// Evict (or, after a 429, evict again) at this virtual millisecond.
    Evict(u64),
    /// Evicted or deleted: read it again at this millisecond until it is gone.
    Gone(u64),
    Done,
    Failed(String),
}

/// A node that could not be drained: the error as `due to error: %s` prints it, and as
/// `cmdutil.CheckErr` prints it at the end.
#[derive(Debug, Clone)]
struct Failure {
    inline: String,
    last: String,
}

impl Failure {
    /// A `utilerrors.Aggregate`: `[a, b]` inline (one alone as itself), a line each at the end.
    fn aggregate(msgs: &[String]) -> Failure {
        let inline = match msgs {
            [one] => one.clone(),
            many => format!("[{}]", many.join(", ")),
        };
        Failure {
            inline,
            last: msgs.iter().map(|m| format!("{m}\n")).collect(),
        }
    }

    /// A plain error: `error: msg` at the end.
    fn single(msg: &str) -> Failure {
        Failure {
            inline: msg.to_string(),
            last: format!("error: {msg}\n"),
        }
    }

    /// The API server's error: its message inline, kubectl's `Error from server` at the end.
    fn server(resp: &ApiResponse) -> Failure {
        Failure {
            inline: status_message(resp),
            last: format!("{}\n", server_error_text(resp)),
        }
    }
}

/// A drain in progress: the nodes left (the one being drained first), its pods, what it
/// printed since the last poll.
#[derive(Debug, Clone)]
pub(crate) struct Drain {
    opts: Options,
    nodes: VecDeque<String>,
    /// The pods of the node being drained; `None` until its pods were listed.
    pods: Option<Vec<PodWork>>,
    /// When the current node's evictions began: `--timeout` counts from there.
    started_ms: u64,
    pending_nodes: Vec<String>,
    fatal: Vec<Failure>,
    stdout: String,
    stderr: String,
}

pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let p = parse_flags("drain", args, FLAGS)?;
    let flag_err = |e: crate::flags::FlagError| CmdError::flag("drain", &e);
    let node_selector = p.last("selector").unwrap_or_default().to_string();
    if p.args.is_empty() && !p.has("selector") {
        return Err(CmdError::usage("drain", "USAGE: drain NODE [flags]"));
    }
    if !p.args.is_empty() && !node_selector.is_empty() {
        return Err(CmdError::usage(
            "drain",
            "cannot specify both a node name and a --selector option",
        ));
    }
    let timeout = match p.last("timeout") {
        None => None,
        Some(v) => Some(parse_go_duration(v).map_err(|e| {
            CmdError::raw(format!(
                "Error: invalid argument {} for \"--timeout\" flag: {e}\nSee 'kubectl drain --help' for usage.\n",
                go_quote(v)
            ))
        })?),
    };
    let opts = Options {
        force: p.flag("force"),
        ignore_daemonsets: p.flag("ignore-daemonsets"),
        delete_emptydir_data: p.flag("delete-emptydir-data"),
        disable_eviction: p.flag("disable-eviction"),
        grace_period: p.int("grace-period", None).map_err(flag_err)?.unwrap_or(-1),
        timeout: timeout
            .filter(|ms| *ms != 0)
            .map(|ms| (ms, go_duration(ms))),
        dry: dry_run(&p)?,
        pod_selector: p.last("pod-selector").unwrap_or_default().to_string(),
        chunk_size: p.int("chunk-size", None).map_err(flag_err)?.unwrap_or(500),
    };
    if !opts.pod_selector.is_empty() && LabelSelector::parse(&opts.pod_selector).is_err() {
        return Err(CmdError::msg(
            "--pod-selector=<pod_selector> must be a valid label selector",
        ));
    }
    let nodes = resolve_nodes(ctx, &p.args, &node_selector)?;
    let mut drain = Drain {
        opts,
        nodes: VecDeque::new(),
        pods: None,
        started_ms: 0,
        pending_nodes: Vec::new(),
        fatal: Vec::new(),
        stdout: String::new(),
        stderr: String::new(),
    };
    for node in &nodes {
        drain.cordon(ctx.client, node);
    }
    drain.nodes = nodes
        .iter()
        .map(|n| string(n, &["metadata", "name"]))
        .collect();
    let finished = drain.advance(ctx.client);
    let (stdout, stderr, exit_code) = drain.take_output(finished);
    Ok(Done {
        stdout,
        stderr,
        exit_code,
        follow: (!finished).then(|| crate::Follow::task(Box::new(drain))),
    })
}

/// The nodes named (each read, as kubectl's builder reads them) or those `--selector` picks.
fn resolve_nodes(ctx: &mut Ctx, names: &[String], selector: &str) -> Result<Vec<Value>, CmdError> {
    if names.is_empty() {
        let path = with_query(
            "/api/v1/nodes",
            &[
                ("labelSelector", selector.to_string()),
                ("limit", "500".into()),
            ],
        );
        let list = json_body(&ctx.client.request("GET", &path, None, None))?;
        return Ok(list["items"].as_array().cloned().unwrap_or_default());
    }
    names
        .iter()
        .map(|n| {
            let path = format!("/api/v1/nodes/{}", escape(n));
            json_body(&ctx.client.request("GET", &path, None, None))
        })
        .collect()
}

/// The `Status` message of an error answer (what a Go client's `err.Error()` is).
fn status_message(resp: &ApiResponse) -> String {
    match decode_status(resp) {
        Some(s) => s.message().to_string(),
        None => server_error_text(resp),
    }
}

/// Whether an error answer carries a cause of this reason (`apierrors.HasStatusCause`).
fn has_cause(resp: &ApiResponse, reason: &str) -> bool {
    decode_status(resp)
        .and_then(|s| s.details)
        .is_some_and(|d| d.causes.iter().any(|c| c.reason == reason))
}

/// A drain still waiting is followed by the console as virtual time goes on.
impl crate::follow::Ongoing for Drain {
    fn advance(&mut self, client: &mut dyn ApiClient) -> bool {
        Drain::advance(self, client)
    }

    fn take_output(&mut self, finished: bool) -> (String, String) {
        let (stdout, stderr, _) = Drain::take_output(self, finished);
        (stdout, stderr)
    }

    fn clone_box(&self) -> Box<dyn crate::follow::Ongoing> {
        Box::new(self.clone())
    }
}

impl Drain {
    /// `RunCordonOrUncordon(true)` for one node: a strategic merge patch of
    /// `spec.unschedulable` unless it is already set.
    fn cordon(&mut self, client: &mut dyn ApiClient, node: &Value) {
        let name = string(node, &["metadata", "name"]);
        let suffix = super::dry_run_suffix(self.opts.dry);
        if node["spec"]["unschedulable"].as_bool() == Some(true) {
            self.stdout
                .push_str(&format!("node/{name} already cordoned{suffix}\n"));
            return;
        }
        if self.opts.dry != DryRun::Client {
            let mut params = Vec::new();
            if self.opts.dry == DryRun::Server {
                params.push(("dryRun", "All".to_string()));
            }
            let path = with_query(&format!("/api/v1/nodes/{}", escape(&name)), &params);
            let body = json!({"spec": {"unschedulable": true}}).to_string();
            let resp = client.request(
                "PATCH",
                &path,
                Some("application/strategic-merge-patch+json"),
                Some(&body),
            );
            if !resp.is_success() {
                self.stderr.push_str(&format!(
                    "error: unable to cordon node {}: {}\n",
                    go_quote(&name),
                    status_message(&resp)
                ));
                return;
            }
        }
        self.stdout
            .push_str(&format!("node/{name} cordoned{suffix}\n"));
    }

    /// Does what is due by now; true once every node is done (drained or failed).
    pub(crate) fn advance(&mut self, client: &mut dyn ApiClient) -> bool {
        let now = client.now_ms();
        while let Some(node) = self.nodes.front().cloned() {
            if self.pods.is_none() && !self.begin_node(client, &node, now) {
                continue;
            }
            self.work_pods(client, now);
            let busy = self.pods.as_ref().is_some_and(|pods| {
                pods.iter()
                    .any(|p| matches!(p.state, PodState::Evict(_) | PodState::Gone(_)))
            });
            if busy {
                return false;
            }
            self.finish_node(client, &node);
        }
        true
    }

    /// What was printed since the last call, and the exit code once `finished`: kubectl's
    /// last words about the nodes it could not drain.
    pub(crate) fn take_output(&mut self, finished: bool) -> (String, String, i32) {
        let mut code = 0;
        if finished && !self.pending_nodes.is_empty() {
            self.stderr
                .push_str("There are pending nodes to be drained:\n");
            for n in &self.pending_nodes {
                self.stderr.push_str(&format!(" {n}\n"));
            }
            match self.fatal.as_slice() {
                [one] => self.stderr.push_str(&one.last),
                many => {
                    for f in many {
                        self.stderr.push_str(&format!("{}\n", f.inline));
                    }
                }
            }
            self.pending_nodes.clear();
            self.fatal.clear();
            code = 1;
        }
        (
            std::mem::take(&mut self.stdout),
            std::mem::take(&mut self.stderr),
            code,
        )
    }

    /// Lists the node's pods and starts on them; false when the node is already done with
    /// (nothing to wait for, or refused by the filters).
    fn begin_node(&mut self, client: &mut dyn ApiClient, node: &str, now: u64) -> bool {
        let pods = match self.pods_for_deletion(client, node) {
            Ok((pods, warnings)) => {
                if !warnings.is_empty() {
                    self.stderr.push_str(&format!("Warning: {warnings}\n"));
                }
                pods
            }
            Err(failure) => {
                self.node_failed(node, failure);
                return false;
            }
        };
        if self.opts.dry == DryRun::Client {
            for p in &pods {
                self.stdout.push_str(&format!(
                    "evicting pod {}/{} (dry run)\n",
                    p.namespace, p.name
                ));
            }
            self.node_drained(node);
            return false;
        }
        self.started_ms = now;
        let mut work: Vec<PodWork> = pods;
        if self.opts.disable_eviction {
            for p in &mut work {
                let resp = self.delete_pod(client, p);
                if !resp.is_success() && resp.code != 404 {
                    self.node_failed(node, Failure::server(&resp));
                    return false;
                }
                p.state = PodState::Gone(now);
            }
        }
        self.pods = Some(work);
        true
    }

    /// `GetPodsForDeletion`: the node's pods (in chunks), through the filters; the pods to
    /// let go and the warnings, or the filters' errors.
    fn pods_for_deletion(
        &self,
        client: &mut dyn ApiClient,
        node: &str,
    ) -> Result<(Vec<PodWork>, String), Failure> {
        let items = self.list_pods(client, node)?;
        let mut pods = Vec::new();
        let mut warnings: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
        let mut errors: Vec<(String, Vec<String>)> = Vec::new();
        for pod in &items {
            let who = format!(
                "{}/{}",
                string(pod, &["metadata", "namespace"]),
                string(pod, &["metadata", "name"])
            );
            match self.filter(client, pod) {
                Verdict::Delete(warning) => {
                    if let Some(w) = warning {
                        warnings.entry(w).or_default().push(who);
                    }
                    pods.push(PodWork {
                        namespace: string(pod, &["metadata", "namespace"]),
                        name: string(pod, &["metadata", "name"]),
                        uid: string(pod, &["metadata", "uid"]),
                        state: PodState::Evict(0),
                    });
                }
                Verdict::Skip(Some(w)) => warnings.entry(w).or_default().push(who),
                Verdict::Skip(None) => {}
                Verdict::Error(msg) => match errors.iter_mut().find(|(m, _)| *m == msg) {
                    Some((_, who_all)) => who_all.push(who),
                    None => errors.push((msg, vec![who])),
                },
            }
        }
        if !errors.is_empty() {
            let msgs: Vec<String> = errors
                .iter()
                .map(|(m, who)| format!("cannot delete {m}: {}", who.join(", ")))
                .collect();
            return Err(Failure::aggregate(&msgs));
        }
        let warnings: Vec<String> = warnings
            .iter()
            .map(|(m, who)| format!("{m}: {}", who.join(", ")))
            .collect();
        Ok((pods, warnings.join("; ")))
    }

    /// `GET /api/v1/pods?fieldSelector=spec.nodeName=X`, following `continue`.
    fn list_pods(&self, client: &mut dyn ApiClient, node: &str) -> Result<Vec<Value>, Failure> {
        let mut items = Vec::new();
        let mut cont = String::new();
        for _ in 0..10_000 {
            let mut params = vec![("fieldSelector", format!("spec.nodeName={node}"))];
            if let Ok(s) = LabelSelector::parse(&self.opts.pod_selector) {
                if !self.opts.pod_selector.is_empty() {
                    params.push(("labelSelector", s.to_string()));
                }
            }
            if self.opts.chunk_size > 0 {
                params.push(("limit", self.opts.chunk_size.to_string()));
            }
            if !cont.is_empty() {
                params.push(("continue", cont.clone()));
            }
            let resp = client.request("GET", &with_query("/api/v1/pods", &params), None, None);
            if !resp.is_success() {
                return Err(Failure::server(&resp));
            }
            let list: Value = serde_json::from_str(&resp.body).unwrap_or(Value::Null);
            items.extend(list["items"].as_array().cloned().unwrap_or_default());
            cont = string(&list, &["metadata", "continue"]);
            if cont.is_empty() {
                break;
            }
        }
        Ok(items)
    }

    /// kubectl's filters in order — skip-deleted (no `--skip-wait-for-delete-timeout` here),
    /// DaemonSet, mirror, local storage, unreplicated — the first that does not delete wins,
    /// and the last one run gives the warning (so an emptyDir's is dropped, as kubectl's is).
    fn filter(&self, client: &mut dyn ApiClient, pod: &Value) -> Verdict {
        let finished = matches!(
            pod["status"]["phase"].as_str(),
            Some("Succeeded" | "Failed")
        );
        let controller = pod["metadata"]["ownerReferences"]
            .as_array()
            .and_then(|refs| {
                refs.iter()
                    .find(|r| r["controller"].as_bool() == Some(true))
            });
        if let Some(c) = controller.filter(|c| c["kind"] == "DaemonSet" && !finished) {
            let path = format!(
                "/apis/apps/v1/namespaces/{}/daemonsets/{}",
                escape(&string(pod, &["metadata", "namespace"])),
                escape(&string(c, &["name"]))
            );
            let resp = client.request("GET", &path, None, None);
            // An orphan goes with --force (its warning dropped by the filters after).
            if !(resp.code == 404 && self.opts.force) {
                if !resp.is_success() {
                    return Verdict::Error(status_message(&resp));
                }
                if !self.opts.ignore_daemonsets {
                    return Verdict::Error(DAEMON_SET_FATAL.into());
                }
                return Verdict::Skip(Some(DAEMON_SET_WARNING));
            }
        }
        if pod["metadata"]["annotations"][MIRROR_ANNOTATION].is_string() {
            return Verdict::Skip(None);
        }
        let empty_dir = pod["spec"]["volumes"].as_array().is_some_and(|v| {
            v.iter()
                .any(|v| v.get("emptyDir").is_some_and(|e| !e.is_null()))
        });
        if empty_dir && !finished && !self.opts.delete_emptydir_data {
            return Verdict::Error(LOCAL_STORAGE_FATAL.into());
        }
        if finished || controller.is_some() {
            return Verdict::Delete(None);
        }
        if self.opts.force {
            return Verdict::Delete(Some(UNMANAGED_WARNING));
        }
        Verdict::Error(UNMANAGED_FATAL.into())
    }

    /// Each pod whose time has come: evicted (again), or read to see whether it is gone.
    fn work_pods(&mut self, client: &mut dyn ApiClient, now: u64) {
        let Some(mut pods) = self.pods.take() else {
            return;
        };
        // Every eviction due first, then the reads: kubectl's goroutines print their
        // `evicting pod` lines before any pod is seen gone.
        for pod in &mut pods {
            if let PodState::Evict(at) = pod.state {
                if at <= now {
                    pod.state = self.evict(client, pod, now);
                }
            }
        }
        for pod in &mut pods {
            if let PodState::Gone(at) = pod.state {
                if at <= now {
                    pod.state = self.wait_gone(client, pod, now);
                }
            }
        }
        self.pods = Some(pods);
    }

    /// Whether `--timeout` has run out for the node being drained.
    fn timed_out(&self, now: u64) -> bool {
        self.opts.timeout.as_ref().is_some_and(|(ms, _)| {
            i64::try_from(now.saturating_sub(self.started_ms)).unwrap_or(i64::MAX) >= *ms
        })
    }

    /// The eviction's (or delete's) `DeleteOptions`: the grace period when given, and the
    /// server dry run.
    fn delete_options(&self) -> Value {
        let mut opts = json!({});
        if self.opts.grace_period >= 0 {
            opts["gracePeriodSeconds"] = json!(self.opts.grace_period);
        }
        if self.opts.dry == DryRun::Server {
            opts["dryRun"] = json!(["All"]);
        }
        opts
    }

    /// One turn of kubectl's eviction loop for a pod: print, give up at the timeout, POST the
    /// `policy/v1` Eviction, and act on the answer (a 429 is retried after 5 s).
    fn evict(&mut self, client: &mut dyn ApiClient, pod: &PodWork, now: u64) -> PodState {
        let (ns, name) = (&pod.namespace, &pod.name);
        let server_dry = if self.opts.dry == DryRun::Server {
            " (server dry run)"
        } else {
            ""
        };
        self.stdout
            .push_str(&format!("evicting pod {ns}/{name}{server_dry}\n"));
        if let Some((_, text)) = self.opts.timeout.as_ref().filter(|_| self.timed_out(now)) {
            return PodState::Failed(format!(
                "error when evicting pods/{} -n {}: global timeout reached: {text}",
                go_quote(name),
                go_quote(ns)
            ));
        }
        let body = json!({
            "kind": "Eviction",
            "apiVersion": "policy/v1",
            "metadata": {"name": name, "namespace": ns},
            "deleteOptions": self.delete_options(),
        })
        .to_string();
        let path = format!(
            "/api/v1/namespaces/{}/pods/{}/eviction",
            escape(ns),
            escape(name)
        );
        let resp = client.request("POST", &path, None, Some(&body));
        let message = status_message(&resp);
        match resp.code {
            _ if resp.is_success() && self.opts.dry == DryRun::Server => PodState::Done,
            _ if resp.is_success() => PodState::Gone(now),
            404 => PodState::Done,
            429 => {
                self.stderr.push_str(&format!(
                    "error when evicting pods/{} -n {} (will retry after 5s): {message}\n",
                    go_quote(name),
                    go_quote(ns)
                ));
                PodState::Evict(now + RETRY_MS)
            }
            403 if has_cause(&resp, "NamespaceTerminating") => {
                self.stderr.push_str(&format!(
                    "error when evicting pod {} from terminating namespace {} (will retry after 5s): {message}\n",
                    go_quote(name),
                    go_quote(ns)
                ));
                PodState::Evict(now + RETRY_MS)
            }
            _ => PodState::Failed(format!(
                "error when evicting pods/{} -n {}: {message}",
                go_quote(name),
                go_quote(ns)
            )),
        }
    }

    /// `DELETE` of a pod (`--disable-eviction`).
    fn delete_pod(&self, client: &mut dyn ApiClient, pod: &PodWork) -> ApiResponse {
        let path = format!(
            "/api/v1/namespaces/{}/pods/{}",
            escape(&pod.namespace),
            escape(&pod.name)
        );
        let body = self.delete_options().to_string();
        client.request("DELETE", &path, None, Some(&body))
    }

    /// `waitForDelete`, one read: gone (404, or another pod of that name) prints
    /// `pod/x evicted`; still there is read again in a second; the timeout ends the wait.
    fn wait_gone(&mut self, client: &mut dyn ApiClient, pod: &PodWork, now: u64) -> PodState {
        let (ns, name) = (&pod.namespace, &pod.name);
        let evicting = !self.opts.disable_eviction;
        if self.timed_out(now) {
            return PodState::Failed(if evicting {
                format!(
                    "error when waiting for pod {} in namespace {} to terminate: context deadline exceeded",
                    go_quote(name),
                    go_quote(ns)
                )
            } else {
                "context deadline exceeded".to_string()
            });
        }
        let path = format!("/api/v1/namespaces/{}/pods/{}", escape(ns), escape(name));
        let resp = client.request("GET", &path, None, None);
        let (done, failed) = if evicting {
            ("evicted", "eviction failed")
        } else {
            ("deleted", "deletion failed")
        };
        let same_pod = resp.is_success()
            && serde_json::from_str::<Value>(&resp.body)
                .is_ok_and(|p| string(&p, &["metadata", "uid"]) == pod.uid);
        if resp.code == 404 || (resp.is_success() && !same_pod) {
            self.stdout.push_str(&format!("pod/{name} {done}\n"));
            return PodState::Done;
        }
        if !resp.is_success() {
            self.stdout.push_str(&format!("pod/{name} {failed}\n"));
            let message = status_message(&resp);
            return PodState::Failed(if evicting {
                format!(
                    "error when waiting for pod {} in namespace {} to terminate: {message}",
                    go_quote(name),
                    go_quote(ns)
                )
            } else {
                message
            });
        }
        PodState::Gone(now + WAIT_INTERVAL_MS)
    }

    /// Every pod of the node is done with: `node/X drained`, or the node's failure with the
    /// pods still pending on it.
    fn finish_node(&mut self, client: &mut dyn ApiClient, node: &str) {
        let failed: Vec<String> = self
            .pods
            .iter()
            .flatten()
            .filter_map(|p| match &p.state {
                PodState::Failed(m) => Some(m.clone()),
                _ => None,
            })
            .collect();
        if failed.is_empty() {
            self.node_drained(node);
            return;
        }
        let failure = if self.opts.disable_eviction {
            failed
                .first()
                .map(|m| Failure::single(m))
                .unwrap_or_else(|| Failure::single("unexpected error"))
        } else {
            Failure::aggregate(&failed)
        };
        match self.pods_for_deletion(client, node) {
            Ok((pending, _)) if !pending.is_empty() => {
                self.stderr.push_str(&format!(
                    "There are pending pods in node {} when an error occurred: {}\n",
                    go_quote(node),
                    failure.inline
                ));
                for p in &pending {
                    self.stderr.push_str(&format!("pod/{}\n", p.name));
                }
            }
            Ok(_) => {}
            Err(e) => self.stderr.push_str(&format!(
                "Following errors occurred while getting the list of pods to delete:\n{}",
                e.inline
            )),
        }
        self.node_failed(node, failure);
    }

    fn node_drained(&mut self, node: &str) {
        let suffix = super::dry_run_suffix(self.opts.dry);
        self.stdout
            .push_str(&format!("node/{node} drained{suffix}\n"));
        self.next_node();
    }

    fn node_failed(&mut self, node: &str, failure: Failure) {
        self.stderr.push_str(&format!(
            "error: unable to drain node {} due to error: {}, continuing command...\n",
            go_quote(node),
            failure.inline
        ));
        self.pending_nodes.push(node.to_string());
        self.fatal.push(failure);
        self.next_node();
    }

    fn next_node(&mut self) {
        self.nodes.pop_front();
        self.pods = None;
    }
}

/// What the filters say of one pod.
enum Verdict {
    /// Let it go, with a warning about it.
    Delete(Option<&'static str>),
    /// Leave it, with a warning about it.
    Skip(Option<&'static str>),
    /// Refuse the node for it (`cannot delete <msg>: <pods>`).
    Error(String),
}

/// Go's `time.ParseDuration`, to milliseconds (finer units truncate).
pub fn parse_go_duration(s: &str) -> Result<i64, String> {
    let invalid = || format!("time: invalid duration {}", go_quote(s));
    let (neg, mut rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(invalid());
    }
    let mut total_ns: f64 = 0.0;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, after) = rest.split_at(digits);
        let value: f64 = match number {
            "" | "." => return Err(invalid()),
            n => n.parse().map_err(|_| invalid())?,
        };
        let unit_len = after
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(after.len());
        let (unit, next) = after.split_at(unit_len);
        let scale = match unit {
            "" => return Err(format!("time: missing unit in duration {}", go_quote(s))),
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            other => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    go_quote(other),
                    go_quote(s)
                ))
            }
        };
        total_ns += value * scale;
        rest = next;
    }
    if total_ns > i64::MAX as f64 {
        return Err(invalid());
    }
    let ms = (total_ns / 1e6) as i64;
    Ok(if neg { -ms } else { ms })
}

/// Go's `time.Duration.String` of whole milliseconds: `1m0s`, `90ms`, `1h30m0s`, `2.5s`.
pub fn go_duration(ms: i64) -> String {
    if ms == 0 {
        return "0s".into();
    }
    let sign = if ms < 0 { "-" } else { "" };
    let ms = ms.unsigned_abs();
    if ms < 1000 {
        return format!("{sign}{ms}ms");
    }
    let (h, m, s, frac) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    let secs = if frac == 0 {
        format!("{s}s")
    } else {
        let f = format!("{frac:03}");
        format!("{s}.{}s", f.trim_end_matches('0'))
    };
    match (h, m) {
        (0, 0) => format!("{sign}{secs}"),
        (0, m) => format!("{sign}{m}m{secs}"),
        (h, m) => format!("{sign}{h}h{m}m{secs}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_and_print_like_go() {
        assert_eq!(parse_go_duration("90s"), Ok(90_000));
        assert_eq!(parse_go_duration("1h2m3.5s"), Ok(3_723_500));
        assert_eq!(parse_go_duration("0"), Ok(0));
        assert_eq!(parse_go_duration("250ms"), Ok(250));
        assert_eq!(
            parse_go_duration("x"),
            Err("time: invalid duration \"x\"".to_string())
        );
        assert_eq!(go_duration(60_000), "1m0s");
        assert_eq!(go_duration(12_000), "12s");
        assert_eq!(go_duration(3_723_500), "1h2m3.5s");
        assert_eq!(go_duration(500), "500ms");
    }
}
