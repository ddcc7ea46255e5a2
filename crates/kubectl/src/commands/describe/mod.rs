//! `kubectl describe`: the human-readable reports of kubectl's describers for pods, nodes,
//! deployments, replicasets, namespaces, services, jobs, cronjobs, daemonsets, statefulsets,
//! persistent volumes and their claims and storage classes (a generic report for the rest),
//! ending with the object's Events, fetched like kubectl does with an `involvedObject.*` field
//! selector. Lines are laid out with Go's tabwriter settings describe uses (padding 2).

mod budget;
mod claim;
mod cronjob;
mod daemonset;
mod endpoints;
mod job;
mod statefulset;
mod storage;

use super::{parse_flags, Ctx, Done};
use crate::errors::CmdError;
use crate::flags::{boolean, value, FlagSpec};
use crate::resources::ResourceType;
use crate::tabwriter::align;
use crate::targets::{self, parse_targets, ListQuery};
use budget::describe_pod_disruption_budget;
use claim::describe_claim;
use cronjob::describe_cron_job;
use daemonset::describe_daemon_set;
use endpoints::described_endpoints;
use job::describe_job;
use serde_json::Value;
use statefulset::describe_stateful_set;
use std::fmt::Write;
use storage::{describe_storage_class, describe_volume};
use watchlab_apimachinery::duration::since;
use watchlab_apimachinery::labels::{node_roles, selector_string};
use watchlab_apimachinery::request::resource_path;
use watchlab_apimachinery::rfc3339::parse_unix_millis;
use watchlab_apimachinery::sort;
use watchlab_apimachinery::table::or_none;
use watchlab_apimachinery::unstructured::{
    array, at, int, joined_map, name, namespace, str_at, string, string_map,
};

const FLAGS: &[FlagSpec] = &[
    value("selector", Some('l')),
    boolean("all-namespaces", Some('A')),
    value("show-events", None),
    value("chunk-size", None),
    value("filename", Some('f')),
];

const NO_TYPE: &str = "error: You must specify the type of resource to describe. Use \"kubectl api-resources\" for a complete list of supported resources.\n";

// Long on purpose: `kubectl describe`'s steps in order (flags, the objects each type and name
// or selector finds, each described, with its events), each error with its real text.
pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let p = parse_flags("describe", args, FLAGS)?;
    if p.args.is_empty() {
        return Err(CmdError::raw(NO_TYPE));
    }
    let ns = ctx.namespace(&p);
    let all_ns = p.flag("all-namespaces");
    let show_events = p.last("show-events") != Some("false");
    let selector = p
        .last("selector")
        .filter(|s| !s.is_empty())
        .map(String::from);
    let discovery = ctx.discovery()?;
    let mut objects: Vec<(ResourceType, Value)> = Vec::new();
    let mut errors = String::new();
    for t in parse_targets(&discovery, &p.args, "describe")? {
        if t.names.is_empty() {
            let scope = (!all_ns).then_some(ns.as_str());
            let q = ListQuery {
                label_selector: selector.clone(),
                field_selector: None,
                chunk_size: 500,
            };
            objects.extend(
                targets::list(ctx.client, &t.rt, scope, &q)?
                    .items
                    .into_iter()
                    .map(|o| (t.rt.clone(), o)),
            );
            continue;
        }
        for n in &t.names {
            match targets::get(ctx.client, &t.rt, &ns, n) {
                Ok(o) => objects.push((t.rt.clone(), o)),
                Err(e) => {
                    // describe NAME_PREFIX: fall back to the objects whose name starts with it.
                    let listed = targets::list(
                        ctx.client,
                        &t.rt,
                        Some(&ns),
                        &ListQuery {
                            chunk_size: 500,
                            ..ListQuery::default()
                        },
                    );
                    let matching: Vec<Value> = listed
                        .map(|l| {
                            l.items
                                .into_iter()
                                .filter(|o| name(o).starts_with(n.as_str()))
                                .collect()
                        })
                        .unwrap_or_default();
                    if matching.is_empty() {
                        errors.push_str(&e.stderr);
                    }
                    objects.extend(matching.into_iter().map(|o| (t.rt.clone(), o)));
                }
            }
        }
    }
    if objects.is_empty() && errors.is_empty() {
        return Ok(Done {
            stderr: if all_ns {
                "No resources found\n".into()
            } else {
                format!("No resources found in {ns} namespace.\n")
            },
            ..Done::default()
        });
    }
    let now = ctx.now();
    let mut reports = Vec::new();
    for (rt, obj) in &objects {
        let mut text = match rt.plural.as_str() {
            "pods" => describe_pod(obj, now),
            "nodes" => describe_node(ctx, obj, now),
            "deployments" => describe_deployment(ctx, obj),
            "replicasets" => describe_replicaset(ctx, obj),
            "namespaces" => describe_namespace(ctx, obj),
            "services" => describe_service(ctx, obj),
            "configmaps" => describe_config_map(obj),
            "secrets" => describe_secret(obj),
            "endpoints" => describe_endpoints(obj),
            "endpointslices" => describe_endpoint_slice(obj),
            "poddisruptionbudgets" => describe_pod_disruption_budget(obj),
            "jobs" => describe_job(obj),
            "cronjobs" => describe_cron_job(obj),
            "daemonsets" => describe_daemon_set(ctx, obj),
            "statefulsets" => describe_stateful_set(ctx, obj),
            "persistentvolumeclaims" => describe_claim(ctx, obj, now),
            "persistentvolumes" => describe_volume(obj, now),
            "storageclasses" => describe_storage_class(obj),
            _ => describe_generic(obj),
        };
        // The describers that list no events: namespaces' and secrets'.
        if show_events && !matches!(rt.plural.as_str(), "namespaces" | "secrets") {
            text.push_str(&events_section(ctx, rt, obj, now));
        }
        reports.push(align(&text, 0, 2));
    }
    let mut done = Done::out(reports.join("\n\n"));
    if !errors.is_empty() {
        if done.stdout.is_empty() {
            return Err(CmdError::raw(errors));
        }
        done.stderr = errors;
        done.exit_code = 1;
    }
    Ok(done)
}

fn time_at(v: &Value, path: &[&str]) -> Option<String> {
    str_at(v, path).and_then(parse_unix_millis).map(rfc1123z)
}

/// A `Labels:`-style block of `k=v` lines (labels, node selectors): the first entry on the
/// title's line, the rest under it; `<none>` when empty.
fn map_block(out: &mut String, indent: &str, title: &str, pairs: &[(String, String)]) {
    if pairs.is_empty() {
        let _ = writeln!(out, "{indent}{title}:\t<none>");
        return;
    }
    for (i, (k, v)) in pairs.iter().enumerate() {
        let head = if i == 0 {
            format!("{indent}{title}:")
        } else {
            String::new()
        };
        let _ = writeln!(out, "{head}\t{k}={v}");
    }
}

/// The annotation `kubectl apply` writes, which describe leaves out (`skipAnnotations`).
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";
/// Above this many bytes (`key: value`), an annotation's value goes on lines of its own, each cut
/// to this many bytes (`maxAnnotationLen`).
const MAX_ANNOTATION_LEN: usize = 140;

/// `printAnnotationsMultiline`: the `Annotations:` block without `last-applied-configuration`,
/// a long or multi-line value under its key.
fn annotations_block(out: &mut String, indent: &str, pairs: &[(String, String)]) {
    let shown: Vec<&(String, String)> = pairs.iter().filter(|(k, _)| k != LAST_APPLIED).collect();
    if shown.is_empty() {
        let _ = writeln!(out, "{indent}Annotations:\t<none>");
        return;
    }
    for (i, (k, v)) in shown.into_iter().enumerate() {
        let head = if i == 0 {
            format!("{indent}Annotations:")
        } else {
            String::new()
        };
        let v = v.strip_suffix('\n').unwrap_or(v);
        if v.len() + k.len() + 2 > MAX_ANNOTATION_LEN || v.contains('\n') {
            let _ = writeln!(out, "{head}\t{k}:");
            for line in v.split('\n') {
                let _ = writeln!(out, "\t  {}", shorten(line));
            }
        } else {
            let _ = writeln!(out, "{head}\t{k}: {v}");
        }
    }
}

/// `shortenString`: at most [`MAX_ANNOTATION_LEN`] bytes (cut at a character boundary), then `...`.
fn shorten(s: &str) -> String {
    if s.len() <= MAX_ANNOTATION_LEN {
        return s.to_string();
    }
    let mut end = MAX_ANNOTATION_LEN;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

fn controlled_by(obj: &Value) -> Option<String> {
    array(obj, &["metadata", "ownerReferences"])
        .iter()
        .find(|r| r.get("controller").and_then(Value::as_bool) == Some(true))
        .map(|r| format!("{}/{}", string(r, &["kind"]), string(r, &["name"])))
}

// Long on purpose: `describe pod`'s sections in kubectl's printed order, one after another.
fn describe_pod(pod: &Value, now: i64) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Name:\t{}", name(pod));
    let _ = writeln!(o, "Namespace:\t{}", namespace(pod));
    if let Some(p) = at(pod, &["spec", "priority"]).and_then(Value::as_i64) {
        let _ = writeln!(o, "Priority:\t{p}");
    }
    let account = string(pod, &["spec", "serviceAccountName"]);
    if !account.is_empty() {
        let _ = writeln!(o, "Service Account:\t{account}");
    }
    let node = string(pod, &["spec", "nodeName"]);
    let node = if node.is_empty() {
        "<none>".to_string()
    } else {
        format!("{node}/{}", string(pod, &["status", "hostIP"]))
    };
    let _ = writeln!(o, "Node:\t{node}");
    if let Some(t) = time_at(pod, &["status", "startTime"]) {
        let _ = writeln!(o, "Start Time:\t{t}");
    }
    map_block(
        &mut o,
        "",
        "Labels",
        &string_map(pod, &["metadata", "labels"]),
    );
    annotations_block(&mut o, "", &string_map(pod, &["metadata", "annotations"]));
    let phase = string(pod, &["status", "phase"]);
    match str_at(pod, &["metadata", "deletionTimestamp"]) {
        Some(t) if phase != "Failed" && phase != "Succeeded" => {
            let _ = writeln!(o, "Status:\tTerminating (lasts {})", since(Some(t), now));
            let grace = int(pod, &["metadata", "deletionGracePeriodSeconds"]);
            let _ = writeln!(o, "Termination Grace Period:\t{grace}s");
        }
        _ => {
            let _ = writeln!(o, "Status:\t{phase}");
        }
    }
    if let Some(r) = str_at(pod, &["status", "reason"]) {
        let _ = writeln!(o, "Reason:\t{r}");
    }
    if let Some(m) = str_at(pod, &["status", "message"]) {
        let _ = writeln!(o, "Message:\t{m}");
    }
    let ip = string(pod, &["status", "podIP"]);
    let _ = writeln!(o, "IP:\t{ip}");
    if ip.is_empty() {
        let _ = writeln!(o, "IPs:\t<none>");
    } else {
        let _ = writeln!(o, "IPs:\n  IP:\t{ip}");
    }
    if let Some(c) = controlled_by(pod) {
        let _ = writeln!(o, "Controlled By:\t{c}");
    }
    describe_containers(
        &mut o,
        pod,
        "Containers",
        array(pod, &["spec", "containers"]),
        array(pod, &["status", "containerStatuses"]),
    );
    let ephemeral = array(pod, &["spec", "ephemeralContainers"]);
    if !ephemeral.is_empty() {
        describe_containers(
            &mut o,
            pod,
            "Ephemeral Containers",
            ephemeral,
            array(pod, &["status", "ephemeralContainerStatuses"]),
        );
    }
    let conditions = array(pod, &["status", "conditions"]);
    if !conditions.is_empty() {
        let _ = writeln!(o, "Conditions:\n  Type\tStatus");
        for c in conditions {
            let _ = writeln!(
                o,
                "  {} \t{} ",
                string(c, &["type"]),
                string(c, &["status"])
            );
        }
    }
    describe_volumes(&mut o, "", array(pod, &["spec", "volumes"]));
    let qos = str_at(pod, &["status", "qosClass"])
        .map(String::from)
        .unwrap_or_else(|| qos_class(pod));
    let _ = writeln!(o, "QoS Class:\t{qos}");
    map_block(
        &mut o,
        "",
        "Node-Selectors",
        &string_map(pod, &["spec", "nodeSelector"]),
    );
    tolerations(&mut o, "", array(pod, &["spec", "tolerations"]));
    o
}

/// `describeContainers`: each container of a list (`Containers`, `Ephemeral Containers`) of
/// `pod` with its status.
fn describe_containers(
    o: &mut String,
    pod: &Value,
    title: &str,
    containers: &[Value],
    statuses: &[Value],
) {
    let _ = writeln!(o, "{title}:");
    for c in containers {
        let cname = string(c, &["name"]);
        let st = statuses.iter().find(|s| string(s, &["name"]) == cname);
        let _ = writeln!(o, "  {cname}:");
        if let Some(st) = st {
            let _ = writeln!(o, "    Container ID:\t{}", string(st, &["containerID"]));
        }
        let _ = writeln!(o, "    Image:\t{}", string(c, &["image"]));
        if let Some(st) = st {
            let _ = writeln!(o, "    Image ID:\t{}", string(st, &["imageID"]));
        }
        container_ports(o, c);
        container_command(o, c);
        if let Some(st) = st {
            container_state(o, "State", at(st, &["state"]));
            if at(st, &["lastState"]).is_some_and(|s| s.as_object().is_some_and(|m| !m.is_empty()))
            {
                container_state(o, "Last State", at(st, &["lastState"]));
            }
            let ready = if st.get("ready").and_then(Value::as_bool) == Some(true) {
                "True"
            } else {
                "False"
            };
            let _ = writeln!(o, "    Ready:\t{ready}");
            let _ = writeln!(o, "    Restart Count:\t{}", int(st, &["restartCount"]));
        }
        for (label, field) in [
            ("Liveness", "livenessProbe"),
            ("Readiness", "readinessProbe"),
            ("Startup", "startupProbe"),
        ] {
            if let Some(probe) = c.get(field).filter(|p| p.is_object()) {
                let _ = writeln!(o, "    {label}:\t{}", describe_probe(probe));
            }
        }
        container_env(o, c, Some(pod));
    }
}

/// `describeVolumes`: `<none>`, or each volume by its source (the node debugger's `hostPath`,
/// a `persistentVolumeClaim` as `printPersistentVolumeClaimVolumeSource` prints it; other
/// sources by name only).
/// `space` is the indent of a pod template's block (`  `), whose volume names get one more.
fn describe_volumes(o: &mut String, space: &str, volumes: &[Value]) {
    if volumes.is_empty() {
        let _ = writeln!(o, "{space}Volumes:\t<none>");
        return;
    }
    let _ = writeln!(o, "{space}Volumes:");
    let name_indent = if space.is_empty() { "" } else { " " };
    for v in volumes {
        let _ = writeln!(o, "  {name_indent}{}:", string(v, &["name"]));
        if let Some(h) = at(v, &["hostPath"]) {
            let _ = writeln!(o, "    Type:\tHostPath (bare host directory volume)");
            let _ = writeln!(o, "    Path:\t{}", string(h, &["path"]));
            let _ = writeln!(o, "    HostPathType:\t{}", string(h, &["type"]));
        } else if let Some(c) = at(v, &["persistentVolumeClaim"]) {
            let _ = writeln!(
                o,
                "    Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)"
            );
            let _ = writeln!(o, "    ClaimName:\t{}", string(c, &["claimName"]));
            let read_only = at(c, &["readOnly"])
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let _ = writeln!(o, "    ReadOnly:\t{read_only}");
        } else if let Some(source) = v
            .as_object()
            .and_then(|m| m.keys().find(|k| k.as_str() != "name"))
        {
            let _ = writeln!(o, "    Type:\t{source}");
        }
    }
}

fn qos_class(pod: &Value) -> String {
    let containers = array(pod, &["spec", "containers"]);
    let has = |kind: &str| {
        containers.iter().any(|c| {
            at(c, &["resources", kind])
                .and_then(Value::as_object)
                .is_some_and(|m| !m.is_empty())
        })
    };
    let guaranteed = !containers.is_empty()
        && containers.iter().all(|c| {
            let req = at(c, &["resources", "requests"]);
            let lim = at(c, &["resources", "limits"]);
            ["cpu", "memory"].iter().all(|r| {
                let l = lim.and_then(|l| l.get(*r));
                l.is_some() && req.and_then(|q| q.get(*r)).is_none_or(|q| Some(q) == l)
            })
        });
    if guaranteed {
        "Guaranteed".into()
    } else if has("requests") || has("limits") {
        "Burstable".into()
    } else {
        "BestEffort".into()
    }
}

/// `describeContainerCommand`: the container's command and args, one line each (a value's own
/// lines each on a line of their own).
fn container_command(o: &mut String, c: &Value) {
    for (title, field) in [("Command", "command"), ("Args", "args")] {
        let words = array(c, &[field]);
        if words.is_empty() {
            continue;
        }
        let _ = writeln!(o, "    {title}:");
        for line in words
            .iter()
            .filter_map(Value::as_str)
            .flat_map(|w| w.split('\n'))
        {
            let _ = writeln!(o, "      {line}");
        }
    }
}

fn container_ports(o: &mut String, c: &Value) {
    let ports = array(c, &["ports"]);
    let fmt_ports = |key: &str| -> String {
        if ports.is_empty() {
            return "<none>".into();
        }
        ports
            .iter()
            .map(|p| {
                format!(
                    "{}/{}",
                    int(p, &[key]),
                    str_at(p, &["protocol"]).unwrap_or("TCP")
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(o, "    Port:\t{}", fmt_ports("containerPort"));
    let _ = writeln!(o, "    Host Port:\t{}", fmt_ports("hostPort"));
}

/// A probe on one line, as kubectl's `DescribeProbe`: the handler (`http-get
/// http://:8080/healthz`, `tcp-socket :53`, `exec [cat /tmp/healthy]`, `grpc <pod>:9000 `)
/// and `delay=0s timeout=1s period=10s #success=1 #failure=3`.
fn describe_probe(p: &Value) -> String {
    let attrs = format!(
        "delay={}s timeout={}s period={}s #success={} #failure={}",
        int(p, &["initialDelaySeconds"]),
        int(p, &["timeoutSeconds"]),
        int(p, &["periodSeconds"]),
        int(p, &["successThreshold"]),
        int(p, &["failureThreshold"])
    );
    let port = |v: Option<&Value>| match v {
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    if let Some(e) = p.get("exec") {
        let command: Vec<&str> = array(e, &["command"])
            .iter()
            .filter_map(Value::as_str)
            .collect();
        return format!("exec [{}] {attrs}", command.join(" "));
    }
    if let Some(h) = p.get("httpGet") {
        let host = string(h, &["host"]);
        let port = port(h.get("port"));
        let host_port = if port.is_empty() {
            host
        } else if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        let scheme = string(h, &["scheme"]).to_lowercase();
        let path = string(h, &["path"]);
        return format!("http-get {scheme}://{host_port}{path} {attrs}");
    }
    if let Some(t) = p.get("tcpSocket") {
        let host = string(t, &["host"]);
        return format!("tcp-socket {host}:{} {attrs}", port(t.get("port")));
    }
    if let Some(g) = p.get("grpc") {
        let service = string(g, &["service"]);
        return format!("grpc <pod>:{} {service} {attrs}", int(g, &["port"]));
    }
    format!("unknown {attrs}")
}

/// `describeContainerEnvFrom` (only when there is some) and `describeContainerEnvVars`: a
/// variable's value (each further line of it on its own line), where a `valueFrom` reads it
/// (`<set to the key 'mode' of config map 'cfg'>`), and a `fieldRef` resolved against `pod`
/// as `EnvValueFrom` does (a template has no pod: the value is empty).
fn container_env(o: &mut String, c: &Value, pod: Option<&Value>) {
    let optional = |r: &Value| r.get("optional").and_then(Value::as_bool) == Some(true);
    let env_from = array(c, &["envFrom"]);
    if !env_from.is_empty() {
        let _ = writeln!(o, "    Environment Variables from:");
        for e in env_from {
            let (r, from) = match (e.get("configMapRef"), e.get("secretRef")) {
                (Some(r), _) => (r, "ConfigMap"),
                (None, Some(r)) => (r, "Secret"),
                (None, None) => (&Value::Null, ""),
            };
            let prefix = str_at(e, &["prefix"])
                .filter(|p| !p.is_empty())
                .map(|p| format!(" with prefix '{p}'"))
                .unwrap_or_default();
            let (name, optional) = (string(r, &["name"]), optional(r));
            let _ = writeln!(o, "      {name}\t{from}{prefix}\tOptional: {optional}");
        }
    }
    let env = array(c, &["env"]);
    if env.is_empty() {
        let _ = writeln!(o, "    Environment:\t<none>");
    } else {
        let _ = writeln!(o, "    Environment:");
    }
    for e in env {
        let name = string(e, &["name"]);
        let Some(from) = e.get("valueFrom").filter(|v| v.is_object()) else {
            for (i, line) in string(e, &["value"]).split('\n').enumerate() {
                if i == 0 {
                    let _ = writeln!(o, "      {name}:\t{line}");
                } else {
                    let _ = writeln!(o, "      \t{line}");
                }
            }
            continue;
        };
        let key_ref = |field: &str| {
            let r = from.get(field)?;
            Some((string(r, &["key"]), string(r, &["name"]), optional(r)))
        };
        if let Some(f) = from.get("fieldRef") {
            let path = string(f, &["fieldPath"]);
            let value = pod.map(|p| field_value(p, &path)).unwrap_or_default();
            let version = string(f, &["apiVersion"]);
            let _ = writeln!(o, "      {name}:\t{value} ({version}:{path})");
        } else if let Some(r) = from.get("resourceFieldRef") {
            let _ = writeln!(o, "      {name}:\t ({})", string(r, &["resource"]));
        } else if let Some((key, secret, optional)) = key_ref("secretKeyRef") {
            let _ = writeln!(o, "      {name}:\t<set to the key '{key}' in secret '{secret}'>\tOptional: {optional}");
        } else if let Some((key, map, optional)) = key_ref("configMapKeyRef") {
            let _ = writeln!(o, "      {name}:\t<set to the key '{key}' of config map '{map}'>\tOptional: {optional}");
        }
    }
    container_mounts(o, c);
}

/// The downward API's value of `path` on `pod` (`metadata.name`, `status.podIP`,
/// `metadata.labels['app']`): `fieldpath.ExtractFieldPathAsString` over the JSON.
fn field_value(pod: &Value, path: &str) -> String {
    if let Some((map, rest)) = path.split_once('[') {
        let key = rest
            .trim_end_matches(']')
            .trim_matches(|c| c == '\'' || c == '"');
        let field = map.trim_start_matches("metadata.");
        return string(pod, &["metadata", field, key]);
    }
    match path {
        "status.podIPs" | "status.hostIPs" => {
            let field = path.trim_start_matches("status.");
            array(pod, &["status", field])
                .iter()
                .map(|ip| string(ip, &["ip"]))
                .collect::<Vec<_>>()
                .join(",")
        }
        _ => {
            let parts: Vec<&str> = path.split('.').collect();
            string(pod, &parts)
        }
    }
}

/// `describeContainerVolumes`: each volume mount as `PATH from VOLUME (rw|ro[,path="SUB"])`,
/// sorted by path, and the block devices.
fn container_mounts(o: &mut String, c: &Value) {
    let mut mounts: Vec<&Value> = array(c, &["volumeMounts"]).iter().collect();
    if mounts.is_empty() {
        let _ = writeln!(o, "    Mounts:\t<none>");
    } else {
        let _ = writeln!(o, "    Mounts:");
    }
    sort::sort_by_key(&mut mounts, |m| string(m, &["mountPath"]));
    for m in mounts {
        let mut flags = vec![if m["readOnly"] == Value::Bool(true) {
            "ro".to_string()
        } else {
            "rw".to_string()
        }];
        if let Some(sub) = str_at(m, &["subPath"]).filter(|s| !s.is_empty()) {
            flags.push(format!("path={sub:?}"));
        }
        let _ = writeln!(
            o,
            "      {} from {} ({})",
            string(m, &["mountPath"]),
            string(m, &["name"]),
            flags.join(",")
        );
    }
    let mut devices: Vec<&Value> = array(c, &["volumeDevices"]).iter().collect();
    if !devices.is_empty() {
        // kubectl reuses the mounts' `<none>` here.
        let none = if array(c, &["volumeMounts"]).is_empty() {
            "\t<none>"
        } else {
            ""
        };
        let _ = writeln!(o, "    Devices:{none}");
        sort::sort_by_key(&mut devices, |d| string(d, &["devicePath"]));
        for d in devices {
            let _ = writeln!(
                o,
                "      {} from {}",
                string(d, &["devicePath"]),
                string(d, &["name"])
            );
        }
    }
}

fn container_state(o: &mut String, title: &str, state: Option<&Value>) {
    let Some(state) = state else {
        let _ = writeln!(o, "    {title}:\tWaiting");
        return;
    };
    if let Some(r) = state.get("running") {
        let _ = writeln!(o, "    {title}:\tRunning");
        if let Some(t) = time_at(r, &["startedAt"]) {
            let _ = writeln!(o, "      Started:\t{t}");
        }
    } else if let Some(w) = state.get("waiting") {
        let _ = writeln!(o, "    {title}:\tWaiting");
        if let Some(r) = str_at(w, &["reason"]) {
            let _ = writeln!(o, "      Reason:\t{r}");
        }
    } else if let Some(t) = state.get("terminated") {
        let _ = writeln!(o, "    {title}:\tTerminated");
        if let Some(r) = str_at(t, &["reason"]) {
            let _ = writeln!(o, "      Reason:\t{r}");
        }
        let _ = writeln!(o, "      Exit Code:\t{}", int(t, &["exitCode"]));
        if let Some(s) = time_at(t, &["startedAt"]) {
            let _ = writeln!(o, "      Started:\t{s}");
        }
        if let Some(f) = time_at(t, &["finishedAt"]) {
            let _ = writeln!(o, "      Finished:\t{f}");
        }
    } else {
        let _ = writeln!(o, "    {title}:\tWaiting");
    }
}

/// `key=value:effect op=Exists for 300s`, one per line.
fn tolerations(o: &mut String, indent: &str, list: &[Value]) {
    if list.is_empty() {
        let _ = writeln!(o, "{indent}Tolerations:\t<none>");
        return;
    }
    for (i, t) in list.iter().enumerate() {
        let (key, val, effect) = (
            string(t, &["key"]),
            string(t, &["value"]),
            string(t, &["effect"]),
        );
        let mut s = key.clone();
        if !val.is_empty() {
            let _ = write!(s, "={val}");
        }
        if !effect.is_empty() {
            let _ = write!(s, ":{effect}");
        }
        if str_at(t, &["operator"]) == Some("Exists") && val.is_empty() {
            s.push_str(if key.is_empty() && effect.is_empty() {
                "op=Exists"
            } else {
                " op=Exists"
            });
        }
        if let Some(secs) = at(t, &["tolerationSeconds"]).and_then(Value::as_i64) {
            let _ = write!(s, " for {secs}s");
        }
        let head = if i == 0 {
            format!("{indent}Tolerations:")
        } else {
            String::new()
        };
        let _ = writeln!(o, "{head}\t{s}");
    }
}

// Long on purpose: `describe node`'s sections in kubectl's printed order, one after another.
fn describe_node(ctx: &mut Ctx, node: &Value, now: i64) -> String {
    let mut o = String::new();
    let n = name(node);
    let _ = writeln!(o, "Name:\t{n}");
    let _ = writeln!(o, "Roles:\t{}", node_roles(node));
    map_block(
        &mut o,
        "",
        "Labels",
        &string_map(node, &["metadata", "labels"]),
    );
    annotations_block(&mut o, "", &string_map(node, &["metadata", "annotations"]));
    let _ = writeln!(
        o,
        "CreationTimestamp:\t{}",
        time_at(node, &["metadata", "creationTimestamp"]).unwrap_or_default()
    );
    let taints = array(node, &["spec", "taints"]);
    if taints.is_empty() {
        let _ = writeln!(o, "Taints:\t<none>");
    }
    for (i, t) in taints.iter().enumerate() {
        let head = if i == 0 { "Taints:" } else { "" };
        let v = string(t, &["value"]);
        let kv = if v.is_empty() {
            string(t, &["key"])
        } else {
            format!("{}={v}", string(t, &["key"]))
        };
        let _ = writeln!(o, "{head}\t{kv}:{}", string(t, &["effect"]));
    }
    let unsched = at(node, &["spec", "unschedulable"])
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let _ = writeln!(o, "Unschedulable:\t{unsched}");
    if let Some(rt) = ctx.resource_type("leases") {
        if let Ok(lease) = targets::get(ctx.client, &rt, "kube-node-lease", &n) {
            let _ = writeln!(o, "Lease:");
            let _ = writeln!(
                o,
                "  HolderIdentity:\t{}",
                or_unset(str_at(&lease, &["spec", "holderIdentity"]).map(String::from))
            );
            let _ = writeln!(
                o,
                "  AcquireTime:\t{}",
                or_unset(time_at(&lease, &["spec", "acquireTime"]))
            );
            let _ = writeln!(
                o,
                "  RenewTime:\t{}",
                or_unset(time_at(&lease, &["spec", "renewTime"]))
            );
        }
    }
    let _ = writeln!(o, "Conditions:");
    let _ = writeln!(
        o,
        "  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage"
    );
    let _ = writeln!(
        o,
        "  ----\t------\t-----------------\t------------------\t------\t-------"
    );
    for c in array(node, &["status", "conditions"]) {
        let _ = writeln!(
            o,
            "  {}\t{}\t{}\t{}\t{}\t{}",
            string(c, &["type"]),
            string(c, &["status"]),
            time_at(c, &["lastHeartbeatTime"]).unwrap_or_default(),
            time_at(c, &["lastTransitionTime"]).unwrap_or_default(),
            string(c, &["reason"]),
            string(c, &["message"])
        );
    }
    let _ = writeln!(o, "Addresses:");
    for a in array(node, &["status", "addresses"]) {
        let _ = writeln!(
            o,
            "  {}:\t{}",
            string(a, &["type"]),
            string(a, &["address"])
        );
    }
    for (title, key) in [("Capacity", "capacity"), ("Allocatable", "allocatable")] {
        let res = string_map(node, &["status", key]);
        if !res.is_empty() {
            let _ = writeln!(o, "{title}:");
            for (k, v) in res {
                let _ = writeln!(o, "  {k}:\t{v}");
            }
        }
    }
    let _ = writeln!(o, "System Info:");
    let _ = writeln!(
        o,
        "  Kubelet Version:\t{}",
        string(node, &["status", "nodeInfo", "kubeletVersion"])
    );
    if let Some(pods_rt) = ctx.resource_type("pods") {
        let q = ListQuery {
            label_selector: None,
            field_selector: Some(format!(
                "spec.nodeName={n},status.phase!=Failed,status.phase!=Succeeded"
            )),
            chunk_size: 500,
        };
        if let Ok(listed) = targets::list(ctx.client, &pods_rt, None, &q) {
            let _ = writeln!(o, "Non-terminated Pods:\t({} in total)", listed.items.len());
            let _ = writeln!(o, "  Namespace\tName\tAge");
            let _ = writeln!(o, "  ---------\t----\t---");
            for p in &listed.items {
                let _ = writeln!(
                    o,
                    "  {}\t{}\t{}",
                    namespace(p),
                    name(p),
                    since(str_at(p, &["metadata", "creationTimestamp"]), now)
                );
            }
        }
    }
    o
}

fn or_unset(v: Option<String>) -> String {
    v.filter(|s| !s.is_empty())
        .unwrap_or_else(|| "<unset>".into())
}

/// `DescribePodTemplate`: the template's labels, annotations (when there are any), containers,
/// volumes, node selectors and tolerations (also `kubectl rollout history --revision`'s text).
pub(crate) fn pod_template(o: &mut String, template: Option<&Value>) {
    let empty = Value::Null;
    let t = template.unwrap_or(&empty);
    let _ = writeln!(o, "Pod Template:");
    map_block(o, "  ", "Labels", &string_map(t, &["metadata", "labels"]));
    let annotations = string_map(t, &["metadata", "annotations"]);
    if !annotations.is_empty() {
        annotations_block(o, "  ", &annotations);
    }
    let _ = writeln!(o, "  Containers:");
    for c in array(t, &["spec", "containers"]) {
        let _ = writeln!(o, "   {}:", string(c, &["name"]));
        let _ = writeln!(o, "    Image:\t{}", string(c, &["image"]));
        container_ports(o, c);
        container_command(o, c);
        container_env(o, c, None);
    }
    describe_volumes(o, "  ", array(t, &["spec", "volumes"]));
    map_block(
        o,
        "  ",
        "Node-Selectors",
        &string_map(t, &["spec", "nodeSelector"]),
    );
    tolerations(o, "  ", array(t, &["spec", "tolerations"]));
}

fn owned_by(obj: &Value, uid: &str) -> bool {
    array(obj, &["metadata", "ownerReferences"])
        .iter()
        .any(|r| str_at(r, &["uid"]) == Some(uid))
}

fn conditions_table(o: &mut String, obj: &Value) {
    let conditions = array(obj, &["status", "conditions"]);
    if conditions.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "Conditions:\n  Type\tStatus\tReason\n  ----\t------\t------"
    );
    for c in conditions {
        let _ = writeln!(
            o,
            "  {}\t{}\t{}",
            string(c, &["type"]),
            string(c, &["status"]),
            string(c, &["reason"])
        );
    }
}

// Long on purpose: `describe deployment`'s sections in kubectl's printed order.
fn describe_deployment(ctx: &mut Ctx, d: &Value) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Name:\t{}", name(d));
    let _ = writeln!(o, "Namespace:\t{}", namespace(d));
    let _ = writeln!(
        o,
        "CreationTimestamp:\t{}",
        time_at(d, &["metadata", "creationTimestamp"]).unwrap_or_default()
    );
    map_block(
        &mut o,
        "",
        "Labels",
        &string_map(d, &["metadata", "labels"]),
    );
    annotations_block(&mut o, "", &string_map(d, &["metadata", "annotations"]));
    let selector = selector_string(at(d, &["spec", "selector"]));
    let _ = writeln!(o, "Selector:\t{selector}");
    let total = int(d, &["status", "replicas"]);
    let available = int(d, &["status", "availableReplicas"]);
    let _ = writeln!(
        o,
        "Replicas:\t{} desired | {} updated | {total} total | {available} available | {} unavailable",
        int(d, &["spec", "replicas"]),
        int(d, &["status", "updatedReplicas"]),
        int(d, &["status", "unavailableReplicas"])
    );
    let strategy = str_at(d, &["spec", "strategy", "type"]).unwrap_or("RollingUpdate");
    let _ = writeln!(o, "StrategyType:\t{strategy}");
    let _ = writeln!(
        o,
        "MinReadySeconds:\t{}",
        int(d, &["spec", "minReadySeconds"])
    );
    if strategy == "RollingUpdate" {
        let ru = |k: &str| {
            at(d, &["spec", "strategy", "rollingUpdate", k])
                .map(watchlab_apimachinery::jsonpath::text_of)
                .unwrap_or_else(|| "25%".into())
        };
        let _ = writeln!(
            o,
            "RollingUpdateStrategy:\t{} max unavailable, {} max surge",
            ru("maxUnavailable"),
            ru("maxSurge")
        );
    }
    pod_template(&mut o, at(d, &["spec", "template"]));
    conditions_table(&mut o, d);
    let uid = string(d, &["metadata", "uid"]);
    let revision = str_at(
        d,
        &[
            "metadata",
            "annotations",
            "deployment.kubernetes.io/revision",
        ],
    )
    .map(String::from);
    let (mut old, mut new) = (Vec::new(), Vec::new());
    if let Some(rt) = ctx.resource_type("replicasets") {
        let q = ListQuery {
            label_selector: (selector != "<none>").then(|| selector.clone()),
            field_selector: None,
            chunk_size: 500,
        };
        if let Ok(listed) = targets::list(ctx.client, &rt, Some(&namespace(d)), &q) {
            for rs in listed.items.iter().filter(|rs| owned_by(rs, &uid)) {
                let line = format!(
                    "{} ({}/{} replicas created)",
                    name(rs),
                    int(rs, &["status", "replicas"]),
                    int(rs, &["spec", "replicas"])
                );
                let rs_rev = str_at(
                    rs,
                    &[
                        "metadata",
                        "annotations",
                        "deployment.kubernetes.io/revision",
                    ],
                );
                if revision.is_none() || rs_rev == revision.as_deref() {
                    new.push(line);
                } else if int(rs, &["spec", "replicas"]) > 0 || int(rs, &["status", "replicas"]) > 0
                {
                    old.push(line);
                }
            }
        }
    }
    let _ = writeln!(o, "OldReplicaSets:\t{}", or_none(old.join(", ")));
    let _ = writeln!(o, "NewReplicaSet:\t{}", or_none(new.join(", ")));
    o
}

fn describe_replicaset(ctx: &mut Ctx, rs: &Value) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Name:\t{}", name(rs));
    let _ = writeln!(o, "Namespace:\t{}", namespace(rs));
    let selector = selector_string(at(rs, &["spec", "selector"]));
    let _ = writeln!(o, "Selector:\t{selector}");
    map_block(
        &mut o,
        "",
        "Labels",
        &string_map(rs, &["metadata", "labels"]),
    );
    annotations_block(&mut o, "", &string_map(rs, &["metadata", "annotations"]));
    if let Some(c) = controlled_by(rs) {
        let _ = writeln!(o, "Controlled By:\t{c}");
    }
    let _ = writeln!(
        o,
        "Replicas:\t{} current / {} desired",
        int(rs, &["status", "replicas"]),
        int(rs, &["spec", "replicas"])
    );
    let _ = writeln!(o, "Pods Status:\t{}", pods_status(ctx, rs, &selector));
    pod_template(&mut o, at(rs, &["spec", "template"]));
    conditions_table(&mut o, rs);
    o
}

/// `getPodStatusForController`: `N Running / N Waiting / N Succeeded / N Failed` over the pods
/// the selector finds whose controller is `owner` (Pending counts as waiting; Unknown is not
/// counted).
fn pods_status(ctx: &mut Ctx, owner: &Value, selector: &str) -> String {
    let uid = string(owner, &["metadata", "uid"]);
    let mut counts = [0; 4];
    if let Some(rt) = ctx.resource_type("pods") {
        let q = ListQuery {
            label_selector: (!selector.is_empty() && selector != "<none>")
                .then(|| selector.to_string()),
            field_selector: None,
            chunk_size: 500,
        };
        if let Ok(listed) = targets::list(ctx.client, &rt, Some(&namespace(owner)), &q) {
            for p in listed.items.iter().filter(|p| controlled_by_uid(p, &uid)) {
                let slot = match str_at(p, &["status", "phase"]) {
                    Some("Running") => 0,
                    Some("Pending") => 1,
                    Some("Succeeded") => 2,
                    Some("Failed") => 3,
                    _ => continue,
                };
                if let Some(c) = counts.get_mut(slot) {
                    *c += 1;
                }
            }
        }
    }
    let [running, waiting, succeeded, failed] = counts;
    format!("{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed")
}

/// Whether `obj`'s controller reference (`metav1.GetControllerOf`) has this uid.
fn controlled_by_uid(obj: &Value, uid: &str) -> bool {
    array(obj, &["metadata", "ownerReferences"])
        .iter()
        .find(|r| r.get("controller").and_then(Value::as_bool) == Some(true))
        .is_some_and(|r| str_at(r, &["uid"]) == Some(uid))
}

fn describe_namespace(ctx: &mut Ctx, ns: &Value) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Name:\t{}", name(ns));
    map_block(
        &mut o,
        "",
        "Labels",
        &string_map(ns, &["metadata", "labels"]),
    );
    annotations_block(&mut o, "", &string_map(ns, &["metadata", "annotations"]));
    let _ = writeln!(o, "Status:\t{}", string(ns, &["status", "phase"]));
    // `describeNamespace` lists the namespace's quotas and limit ranges; a server that does not
    // serve them (404, as watchlab's) gets no section. Their details are not printed here (a
    // server that has some gets none either).
    for (resource, none) in [
        ("resourcequotas", "No resource quota."),
        ("limitranges", "No LimitRange resource."),
    ] {
        let path = resource_path("v1", Some(&name(ns)), resource, None);
        let r = ctx.client.request("GET", &path, None, None);
        let listed: Value = serde_json::from_str(&r.body).unwrap_or_default();
        if r.code == 200 && array(&listed, &["items"]).is_empty() {
            let _ = writeln!(o, "\n{none}");
        }
    }
    o
}

// Long on purpose: `describe service`'s fields in kubectl's printed order, one after another.
/// `describeService`: the Service's addresses and ports, each port's `Endpoints:` from the
/// EndpointSlices labelled with its name (`kubernetes.io/service-name`, as kubectl v1.32 lists
/// them), then the traffic policies.
fn describe_service(ctx: &mut Ctx, svc: &Value) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Name:\t{}", name(svc));
    let _ = writeln!(o, "Namespace:\t{}", namespace(svc));
    map_block(
        &mut o,
        "",
        "Labels",
        &string_map(svc, &["metadata", "labels"]),
    );
    annotations_block(&mut o, "", &string_map(svc, &["metadata", "annotations"]));
    let _ = writeln!(
        o,
        "Selector:\t{}",
        joined_map(&string_map(svc, &["spec", "selector"]))
    );
    let _ = writeln!(o, "Type:\t{}", string(svc, &["spec", "type"]));
    if let Some(policy) = str_at(svc, &["spec", "ipFamilyPolicy"]) {
        let _ = writeln!(o, "IP Family Policy:\t{policy}");
    }
    let joined = |path: &[&str]| {
        let items: Vec<String> = array(svc, path)
            .iter()
            .map(watchlab_apimachinery::jsonpath::text_of)
            .collect();
        items.join(",")
    };
    let _ = writeln!(
        o,
        "IP Families:\t{}",
        or_none(joined(&["spec", "ipFamilies"]))
    );
    let _ = writeln!(o, "IP:\t{}", string(svc, &["spec", "clusterIP"]));
    let _ = writeln!(o, "IPs:\t{}", or_none(joined(&["spec", "clusterIPs"])));
    let external_ips = joined(&["spec", "externalIPs"]);
    if !external_ips.is_empty() {
        let _ = writeln!(o, "External IPs:\t{external_ips}");
    }
    if let Some(ip) = str_at(svc, &["spec", "loadBalancerIP"]).filter(|s| !s.is_empty()) {
        let _ = writeln!(o, "IP:\t{ip}");
    }
    if let Some(n) = str_at(svc, &["spec", "externalName"]).filter(|s| !s.is_empty()) {
        let _ = writeln!(o, "External Name:\t{n}");
    }
    let ingress: Vec<String> = array(svc, &["status", "loadBalancer", "ingress"])
        .iter()
        .map(|i| {
            str_at(i, &["ip"])
                .filter(|s| !s.is_empty())
                .map_or_else(|| string(i, &["hostname"]), String::from)
        })
        .collect();
    if !ingress.is_empty() {
        let _ = writeln!(o, "LoadBalancer Ingress:\t{}", ingress.join(", "));
    }
    let slices = service_slices(ctx, svc);
    for p in array(svc, &["spec", "ports"]) {
        let port_name = string(p, &["name"]);
        let shown = if port_name.is_empty() {
            "<unset>".to_string()
        } else {
            port_name.clone()
        };
        let protocol = string(p, &["protocol"]);
        let _ = writeln!(o, "Port:\t{shown}\t{}/{protocol}", int(p, &["port"]));
        let target = match p.get("targetPort") {
            Some(Value::String(s)) => s.clone(),
            other => other.and_then(Value::as_i64).unwrap_or(0).to_string(),
        };
        let _ = writeln!(o, "TargetPort:\t{target}/{protocol}");
        let node_port = int(p, &["nodePort"]);
        if node_port != 0 {
            let _ = writeln!(o, "NodePort:\t{shown}\t{node_port}/{protocol}");
        }
        let _ = writeln!(
            o,
            "Endpoints:\t{}",
            described_endpoints(&slices, &port_name)
        );
    }
    let _ = writeln!(
        o,
        "Session Affinity:\t{}",
        string(svc, &["spec", "sessionAffinity"])
    );
    if let Some(p) = str_at(svc, &["spec", "externalTrafficPolicy"]).filter(|s| !s.is_empty()) {
        let _ = writeln!(o, "External Traffic Policy:\t{p}");
    }
    if let Some(p) = str_at(svc, &["spec", "internalTrafficPolicy"]) {
        let _ = writeln!(o, "Internal Traffic Policy:\t{p}");
    }
    let health = int(svc, &["spec", "healthCheckNodePort"]);
    if health != 0 {
        let _ = writeln!(o, "HealthCheck NodePort:\t{health}");
    }
    let ranges = joined(&["spec", "loadBalancerSourceRanges"]);
    if !ranges.is_empty() {
        let _ = writeln!(o, "LoadBalancer Source Ranges:\t{ranges}");
    }
    o
}

/// The EndpointSlices of a Service, as kubectl lists them
/// (`labelSelector=kubernetes.io/service-name=NAME`); none if they cannot be read.
fn service_slices(ctx: &mut Ctx, svc: &Value) -> Vec<Value> {
    let Some(rt) = ctx.resource_type("endpointslices.discovery.k8s.io") else {
        return Vec::new();
    };
    let q = ListQuery {
        label_selector: Some(format!("kubernetes.io/service-name={}", name(svc))),
        field_selector: None,
        chunk_size: 500,
    };
    targets::list(ctx.client, &rt, Some(&namespace(svc)), &q)
        .map(|l| l.items)
        .unwrap_or_default()
}

/// Name, namespace, labels and annotations: how most describers open.
fn metadata_lines(o: &mut String, obj: &Value) {
    let _ = writeln!(o, "Name:\t{}", name(obj));
    let _ = writeln!(o, "Namespace:\t{}", namespace(obj));
    map_block(o, "", "Labels", &string_map(obj, &["metadata", "labels"]));
    annotations_block(o, "", &string_map(obj, &["metadata", "annotations"]));
}

/// How many bytes a base64 text (a `binaryData` or Secret `data` value) decodes to.
fn decoded_len(base64: &str) -> usize {
    base64.trim_end_matches('=').len() * 3 / 4
}

/// `describeConfigMap`: each key's value under a `----` rule, each binary key by its size.
fn describe_config_map(cm: &Value) -> String {
    let mut o = String::new();
    metadata_lines(&mut o, cm);
    o.push_str("\nData\n====\n");
    for (k, v) in string_map(cm, &["data"]) {
        let _ = writeln!(o, "{k}:\n----\n{v}\n");
    }
    o.push_str("\nBinaryData\n====\n");
    for (k, v) in string_map(cm, &["binaryData"]) {
        let _ = writeln!(o, "{k}: {} bytes", decoded_len(&v));
    }
    o.push('\n');
    o
}

/// `describeSecret`: the type, then each key by its size only (never the value; watchlab has
/// no service-account token Secrets, whose `token` the real one prints).
fn describe_secret(secret: &Value) -> String {
    let mut o = String::new();
    metadata_lines(&mut o, secret);
    let _ = writeln!(o, "\nType:\t{}", string(secret, &["type"]));
    o.push_str("\nData\n====\n");
    for (k, v) in string_map(secret, &["data"]) {
        let _ = writeln!(o, "{k}:\t{} bytes", decoded_len(&v));
    }
    o
}

/// A port's name, `<unset>` when it has none.
fn port_name(port: &Value) -> String {
    str_at(port, &["name"])
        .filter(|n| !n.is_empty())
        .unwrap_or("<unset>")
        .to_string()
}

/// `describeEndpoints`: each subset's ready and not-ready addresses and its ports.
fn describe_endpoints(ep: &Value) -> String {
    let mut o = String::new();
    metadata_lines(&mut o, ep);
    o.push_str("Subsets:\n");
    let ips = |subset: &Value, key: &str| {
        let ips: Vec<String> = array(subset, &[key])
            .iter()
            .map(|a| string(a, &["ip"]))
            .collect();
        or_none(ips.join(","))
    };
    for subset in array(ep, &["subsets"]) {
        let _ = writeln!(o, "  Addresses:\t{}", ips(subset, "addresses"));
        let _ = writeln!(
            o,
            "  NotReadyAddresses:\t{}",
            ips(subset, "notReadyAddresses")
        );
        let ports = array(subset, &["ports"]);
        if !ports.is_empty() {
            o.push_str("  Ports:\n    Name\tPort\tProtocol\n    ----\t----\t--------\n");
            for port in ports {
                let _ = writeln!(
                    o,
                    "    {}\t{}\t{}",
                    port_name(port),
                    int(port, &["port"]),
                    string(port, &["protocol"])
                );
            }
        }
        o.push('\n');
    }
    o
}

/// `describeEndpointSliceV1`: the address type, the ports, then each endpoint's addresses,
/// readiness, hostname, target and node (`<unset>` for what it does not say).
fn describe_endpoint_slice(slice: &Value) -> String {
    let mut o = String::new();
    metadata_lines(&mut o, slice);
    let _ = writeln!(o, "AddressType:\t{}", string(slice, &["addressType"]));
    let ports = array(slice, &["ports"]);
    if ports.is_empty() {
        o.push_str("Ports: <unset>\n");
    } else {
        o.push_str("Ports:\n  Name\tPort\tProtocol\n  ----\t----\t--------\n");
        for port in ports {
            let number = at(port, &["port"])
                .and_then(Value::as_i64)
                .map_or_else(|| "<unset>".to_string(), |n| n.to_string());
            let _ = writeln!(
                o,
                "  {}\t{number}\t{}",
                port_name(port),
                string(port, &["protocol"])
            );
        }
    }
    let endpoints = array(slice, &["endpoints"]);
    if endpoints.is_empty() {
        o.push_str("Endpoints: <none>\n");
        return o;
    }
    o.push_str("Endpoints:\n");
    let unset = |v: Option<&Value>| v.map_or_else(|| "<unset>".to_string(), go_value);
    for e in endpoints {
        let addresses: Vec<String> = array(e, &["addresses"]).iter().map(go_value).collect();
        let _ = writeln!(o, "  - Addresses:\t{}", or_none(addresses.join(",")));
        o.push_str("    Conditions:\n");
        let _ = writeln!(
            o,
            "      Ready:\t{}",
            unset(at(e, &["conditions", "ready"]))
        );
        let _ = writeln!(o, "    Hostname:\t{}", unset(at(e, &["hostname"])));
        if let Some(target) = at(e, &["targetRef"]) {
            let _ = writeln!(
                o,
                "    TargetRef:\t{}/{}",
                string(target, &["kind"]),
                string(target, &["name"])
            );
        }
        let _ = writeln!(o, "    NodeName:\t{}", unset(at(e, &["nodeName"])));
        let _ = writeln!(o, "    Zone:\t{}", unset(at(e, &["zone"])));
    }
    o
}

/// kubectl's generic describer: name, namespace, labels and annotations, then every other
/// field as `printUnstructuredContent` prints it.
fn describe_generic(obj: &Value) -> String {
    let mut o = String::new();
    metadata_lines(&mut o, obj);
    if let Some(fields) = obj.as_object() {
        unstructured(&mut o, 0, fields, "");
    }
    o
}

/// What the generic describer leaves out of the object's fields: what it printed above, and
/// the managed fields.
const DESCRIBED_ABOVE: [&str; 5] = [
    ".metadata.name",
    ".metadata.namespace",
    ".metadata.labels",
    ".metadata.annotations",
    ".metadata.managedFields",
];

/// `printUnstructuredContent`: fields in name order, titled by [`smart_label`], a map as a
/// block indented under its title, a list item by item (a map item's fields one level in).
fn unstructured(o: &mut String, level: usize, fields: &serde_json::Map<String, Value>, at: &str) {
    let indent = "  ".repeat(level);
    let mut names: Vec<&String> = fields.keys().collect();
    sort::sort(&mut names);
    for field in names {
        let path = format!("{at}.{field}");
        if DESCRIBED_ABOVE.contains(&path.as_str()) {
            continue;
        }
        let label = smart_label(field);
        match fields.get(field) {
            Some(Value::Object(map)) => {
                let _ = writeln!(o, "{indent}{label}:");
                unstructured(o, level + 1, map, &path);
            }
            Some(Value::Array(items)) => {
                let _ = writeln!(o, "{indent}{label}:");
                for item in items {
                    match item {
                        Value::Object(map) => unstructured(o, level + 1, map, &path),
                        other => {
                            let _ = writeln!(o, "{indent}  {}", go_value(other));
                        }
                    }
                }
            }
            Some(other) => {
                let _ = writeln!(o, "{indent}{label}:\t{}", go_value(other));
            }
            None => {}
        }
    }
}

/// A JSON scalar as Go's `%v` prints it (`<nil>` for null).
fn go_value(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        other => watchlab_apimachinery::jsonpath::text_of(other),
    }
}

/// `smartLabelFor`: `holderIdentity` → `Holder Identity`, `apiVersion` → `API Version`; a
/// name with anything but letters and `-` (`openAPIV3Schema`) stays as it is.
fn smart_label(field: &str) -> String {
    if field.chars().any(|c| !c.is_alphabetic() && c != '-') {
        return field.to_string();
    }
    camel_case_words(field)
        .into_iter()
        .map(|word| {
            let upper = word.to_uppercase();
            if ["API", "URL", "UID", "OSB", "GUID"].contains(&upper.as_str()) {
                upper
            } else {
                let mut chars = word.chars();
                chars
                    .next()
                    .map(|c| c.to_uppercase().chain(chars).collect())
                    .unwrap_or_default()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words of a camel-case name as `fatih/camelcase.Split` finds them: runs of lower-case,
/// upper-case and other characters, an upper-case run's last letter starting the lower-case
/// run after it (`holderIdentity` → `holder`, `Identity`; `HTTPServer` → `HTTP`, `Server`).
fn camel_case_words(s: &str) -> Vec<String> {
    let class = |c: char| {
        if c.is_lowercase() {
            0
        } else if c.is_uppercase() {
            1
        } else {
            2
        }
    };
    let mut runs: Vec<Vec<char>> = Vec::new();
    let mut last = None;
    for c in s.chars() {
        match runs.last_mut() {
            Some(run) if last == Some(class(c)) => run.push(c),
            _ => runs.push(vec![c]),
        }
        last = Some(class(c));
    }
    for i in 1..runs.len() {
        let (before, after) = runs.split_at_mut(i);
        if let (Some(upper), Some(lower)) = (before.last_mut(), after.first_mut()) {
            let starts_lower = lower.first().is_some_and(|c| c.is_lowercase());
            if starts_lower && upper.first().is_some_and(|c| c.is_uppercase()) {
                if let Some(c) = upper.pop() {
                    lower.insert(0, c);
                }
            }
        }
    }
    runs.into_iter()
        .filter(|r| !r.is_empty())
        .map(|r| r.into_iter().collect())
        .collect()
}

/// The Events section: `GET .../events?fieldSelector=involvedObject.kind=...,name,namespace,uid`.
fn events_section(ctx: &mut Ctx, rt: &ResourceType, obj: &Value, now: i64) -> String {
    let Some(events_rt) = ctx.resource_type("events") else {
        return "Events:\t<none>\n".into();
    };
    let ns = namespace(obj);
    let mut selector = vec![
        format!("involvedObject.kind={}", rt.kind),
        format!("involvedObject.name={}", name(obj)),
        format!("involvedObject.namespace={ns}"),
    ];
    if let Some(uid) = str_at(obj, &["metadata", "uid"]).filter(|u| !u.is_empty()) {
        selector.push(format!("involvedObject.uid={uid}"));
    }
    let q = ListQuery {
        label_selector: None,
        field_selector: Some(selector.join(",")),
        chunk_size: 500,
    };
    let scope = (!ns.is_empty()).then_some(ns.as_str());
    let mut events = targets::list(ctx.client, &events_rt, scope, &q)
        .map(|l| l.items)
        .unwrap_or_default();
    if events.is_empty() {
        return "Events:\t<none>\n".into();
    }
    sort::sort_by_key(&mut events, |e| {
        str_at(e, &["lastTimestamp"])
            .and_then(parse_unix_millis)
            .unwrap_or(i64::MIN)
    });
    let mut o = String::from(
        "Events:\n  Type\tReason\tAge\tFrom\tMessage\n  ----\t------\t----\t----\t-------\n",
    );
    for e in &events {
        let first = match str_at(e, &["eventTime"]) {
            Some(t) => since(Some(t), now),
            None => since(str_at(e, &["firstTimestamp"]), now),
        };
        let count = int(e, &["count"]);
        let interval = if let Some(series) = at(e, &["series"]).filter(|s| s.is_object()) {
            format!(
                "{} (x{} over {first})",
                since(str_at(series, &["lastObservedTime"]), now),
                int(series, &["count"])
            )
        } else if count > 1 {
            format!(
                "{} (x{count} over {first})",
                since(str_at(e, &["lastTimestamp"]), now)
            )
        } else {
            first
        };
        let source = str_at(e, &["source", "component"])
            .filter(|s| !s.is_empty())
            .map(String::from)
            .unwrap_or_else(|| string(e, &["reportingComponent"]));
        let _ = writeln!(
            o,
            "  {}\t{}\t{interval}\t{source}\t{}",
            string(e, &["type"]),
            string(e, &["reason"]),
            string(e, &["message"]).trim()
        );
    }
    o
}

/// Go's `time.RFC1123Z` in UTC (`Thu, 01 Jan 2026 00:00:05 +0000`), as kubectl describe prints times.
fn rfc1123z(unix_ms: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs = unix_ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = watchlab_apimachinery::rfc3339::civil_from_days(days);
    let weekday = DAYS
        .get(days.rem_euclid(7) as usize)
        .copied()
        .unwrap_or("Thu");
    let month = MONTHS.get((m - 1) as usize).copied().unwrap_or("Jan");
    format!(
        "{weekday}, {d:02} {month} {y} {:02}:{:02}:{:02} +0000",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::{describe_pod, describe_probe};
    use serde_json::json;

    #[test]
    fn a_debugged_pod_lists_its_ephemeral_containers_and_host_path_volumes() {
        let pod = json!({"metadata": {"name": "web", "namespace": "default"},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}],
                "ephemeralContainers": [{"name": "debugger-x7k2p", "image": "busybox"}],
                "volumes": [{"name": "host-root", "hostPath": {"path": "/"}}]},
            "status": {"phase": "Running",
                "ephemeralContainerStatuses": [{"name": "debugger-x7k2p", "ready": false,
                    "restartCount": 0, "state": {"running": {}}}]}});
        let text = describe_pod(&pod, 0);
        let at = |needle: &str| text.find(needle).unwrap_or(usize::MAX);
        assert!(
            at("Containers:\n  web:") < at("Ephemeral Containers:\n  debugger-x7k2p:"),
            "{text}"
        );
        assert!(text.contains("    Image:\tbusybox\n"), "{text}");
        assert!(
            text.contains("Volumes:\n  host-root:\n    Type:\tHostPath (bare host directory volume)\n    Path:\t/\n"),
            "{text}"
        );
    }

    #[test]
    fn a_claim_volume_prints_as_a_reference_to_its_claim() {
        let pod = json!({"metadata": {"name": "db", "namespace": "default"},
            "spec": {"containers": [{"name": "db", "image": "postgres:16"}],
                "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}}]},
            "status": {"phase": "Pending"}});
        let text = describe_pod(&pod, 0);
        assert!(
            text.contains(
                "Volumes:\n  data:\n    Type:\tPersistentVolumeClaim (a reference to a \
                 PersistentVolumeClaim in the same namespace)\n    ClaimName:\tdata-db-0\n    \
                 ReadOnly:\tfalse\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_container_lists_its_command_and_environment_as_describe_does() {
        let pod = json!({"metadata": {"name": "web-0", "namespace": "default", "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.27",
                "command": ["sh", "-c"], "args": ["echo hi"],
                "envFrom": [{"configMapRef": {"name": "web-config"}, "prefix": "CFG_"}],
                "env": [
                    {"name": "MODE", "value": "prod\nfast"},
                    {"name": "POD", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
                    {"name": "APP", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.labels['app']"}}},
                    {"name": "PW", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}},
                    {"name": "LEVEL", "valueFrom": {"configMapKeyRef": {"name": "web-config", "key": "level", "optional": true}}},
                ]}]},
            "status": {"phase": "Pending"}});
        let text = describe_pod(&pod, 0);
        assert!(
            text.contains("    Command:\n      sh\n      -c\n    Args:\n      echo hi\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "    Environment Variables from:\n      web-config\tConfigMap with prefix 'CFG_'\tOptional: false\n\
                 \x20   Environment:\n      MODE:\tprod\n      \tfast\n      POD:\tweb-0 (v1:metadata.name)\n\
                 \x20     APP:\tweb (v1:metadata.labels['app'])\n\
                 \x20     PW:\t<set to the key 'password' in secret 'db'>\tOptional: false\n\
                 \x20     LEVEL:\t<set to the key 'level' of config map 'web-config'>\tOptional: true\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn probes_print_as_kubectl_describe_prints_them() {
        let attrs = json!({"initialDelaySeconds": 5, "timeoutSeconds": 1, "periodSeconds": 10,
                           "successThreshold": 1, "failureThreshold": 3});
        let with = |handler: serde_json::Value| {
            let mut p = attrs.clone();
            if let (Some(p), Some(h)) = (p.as_object_mut(), handler.as_object()) {
                p.extend(h.clone());
            }
            describe_probe(&p)
        };
        let tail = "delay=5s timeout=1s period=10s #success=1 #failure=3";
        assert_eq!(
            with(json!({"httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"}})),
            format!("http-get http://:8080/healthz {tail}")
        );
        assert_eq!(
            with(json!({"tcpSocket": {"port": "dns"}})),
            format!("tcp-socket :dns {tail}")
        );
        assert_eq!(
            with(json!({"exec": {"command": ["cat", "/tmp/healthy"]}})),
            format!("exec [cat /tmp/healthy] {tail}")
        );
        assert_eq!(
            with(json!({"grpc": {"port": 9000}})),
            format!("grpc <pod>:9000  {tail}")
        );
    }
}

#[cfg(test)]
mod annotation_tests {
    use super::{annotations_block, smart_label, LAST_APPLIED};

    #[test]
    fn fields_are_titled_as_smart_label_for_does() {
        for (field, label) in [
            ("holderIdentity", "Holder Identity"),
            ("apiVersion", "API Version"),
            ("uid", "UID"),
            ("creationTimestamp", "Creation Timestamp"),
            ("HTTPServer", "HTTP Server"),
            ("openAPIV3Schema", "openAPIV3Schema"),
            ("kind", "Kind"),
        ] {
            assert_eq!(smart_label(field), label, "{field}");
        }
    }

    #[test]
    fn annotations_leave_out_last_applied_and_put_long_values_on_their_own_lines() {
        let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
        let mut out = String::new();
        annotations_block(&mut out, "", &[pair(LAST_APPLIED, "{}")]);
        assert_eq!(out, "Annotations:\t<none>\n");
        let long = "x".repeat(150);
        let mut out = String::new();
        annotations_block(
            &mut out,
            "",
            &[pair("a", "1"), pair("b", &long), pair("c", "one\ntwo\n")],
        );
        assert_eq!(
            out,
            format!(
                "Annotations:\ta: 1\n\tb:\n\t  {}...\n\tc:\n\t  one\n\t  two\n",
                "x".repeat(140)
            )
        );
    }
}

#[cfg(test)]
mod rfc1123_tests {
    use super::*;
    use watchlab_apimachinery::client::EPOCH_UNIX_SECONDS;

    #[test]
    fn formats_like_go() {
        assert_eq!(
            rfc1123z(EPOCH_UNIX_SECONDS * 1000 + 5000),
            "Thu, 01 Jan 2026 00:00:05 +0000"
        );
        assert_eq!(rfc1123z(0), "Thu, 01 Jan 1970 00:00:00 +0000");
        assert_eq!(rfc1123z(951_782_400_000), "Tue, 29 Feb 2000 00:00:00 +0000");
    }
}
