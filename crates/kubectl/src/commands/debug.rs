//! `kubectl debug` in the console, as kubectl v1.32 runs it without attaching
//! (`staging/src/k8s.io/kubectl/pkg/cmd/debug/debug.go`, `profiles.go`):
//!
//! - `kubectl debug POD --image=IMG [-c NAME] [--target=CTR] [-- COMMAND...]` adds an
//!   ephemeral container: the pod is read, the container (named `debugger-xxxxx` unless `-c`
//!   says, with `Defaulting debug container name to …`) strategic-merge-patched into
//!   `pods/POD/ephemeralcontainers`;
//! - `kubectl debug node/NAME --image=IMG` creates the node-debugger pod: on that node, in its
//!   network, PID and IPC namespaces, its `/` mounted at `/host`, every taint tolerated,
//!   `restartPolicy: Never`;
//! - `kubectl debug POD --copy-to=NEW …` creates a copy of the pod with the debug container
//!   added (or an existing one changed with `-c`), `--set-image`, `--same-node`, `--replace`.
//!
//! Each `--profile` shapes the container and pod as kubectl's does (the default `legacy` with
//! its deprecation warning). The console cannot attach to a container: `-i`/`--attach` create
//! the same objects, and a note says how to read the container's output instead.
//!
//! The console has no random source of its own, so the random suffixes come from the server's
//! seeded randomness: the node-debugger pod is created with `generateName:
//! node-debugger-NODE-` (the API server draws its suffix as for any generated name; the message
//! is printed once the name is known, and the pod keeps its `generateName`, which the real
//! kubectl does not set), and a debug container's suffix is derived from the pod's uid (drawn
//! by the server) and resourceVersion, so a replay of the same lines names the same things.

use super::{parse_flags, Ctx, Done};
use crate::errors::{json_body, CmdError};
use crate::flags::{boolean, value, FlagSpec};
use serde_json::{json, Map, Value};
use watchlab_apimachinery::sort;

const FLAGS: &[FlagSpec] = &[
    value("image", None),
    value("container", Some('c')),
    value("target", None),
    value("image-pull-policy", None),
    value("profile", None),
    value("copy-to", None),
    value("set-image", None),
    value("env", None),
    value("custom", None),
    value("filename", Some('f')),
    boolean("stdin", Some('i')),
    boolean("tty", Some('t')),
    boolean("attach", None),
    boolean("quiet", Some('q')),
    boolean("arguments-only", None),
    boolean("same-node", None),
    boolean("replace", None),
    boolean("share-processes", None),
    boolean("keep-labels", None),
    boolean("keep-annotations", None),
    boolean("keep-liveness", None),
    boolean("keep-readiness", None),
    boolean("keep-startup", None),
    boolean("keep-init-containers", None),
];

/// What `utilrand.String` draws from (no vowels, no look-alikes).
const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

const LEGACY_WARNING: &str = "--profile=legacy is deprecated and will be removed in the future. It is recommended to explicitly specify a profile, for example \"--profile=general\".\n";

/// `--profile` (`NewProfileApplier`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Profile {
    Legacy,
    General,
    Baseline,
    Restricted,
    Netadmin,
    Sysadmin,
}

impl Profile {
    fn parse(name: &str) -> Result<Profile, CmdError> {
        Ok(match name {
            "legacy" => Profile::Legacy,
            "general" => Profile::General,
            "baseline" => Profile::Baseline,
            "restricted" => Profile::Restricted,
            "netadmin" => Profile::Netadmin,
            "sysadmin" => Profile::Sysadmin,
            other => return Err(CmdError::msg(format!("unknown profile: {other}"))),
        })
    }

    /// The debug container's `securityContext` in a pod (ephemeral or copy); on a node the
    /// general profile clears it instead of adding `SYS_PTRACE`.
    fn security_context(self, node: bool) -> Option<Value> {
        match self {
            Profile::General if !node => Some(json!({"capabilities": {"add": ["SYS_PTRACE"]}})),
            Profile::Restricted => Some(json!({
                "capabilities": {"drop": ["ALL"]},
                "runAsNonRoot": true,
                "allowPrivilegeEscalation": false,
                "seccompProfile": {"type": "RuntimeDefault"},
            })),
            Profile::Netadmin => Some(json!({"capabilities": {"add": ["NET_ADMIN", "NET_RAW"]}})),
            Profile::Sysadmin => Some(json!({"privileged": true})),
            _ => None,
        }
    }
}

/// The command's options once completed and validated (`DebugOptions`).
struct Options {
    image: String,
    container: String,
    target: String,
    pull_policy: String,
    profile: Profile,
    interactive: bool,
    tty: bool,
    attach: bool,
    quiet: bool,
    /// What follows `--`: the command (or, with `--arguments-only`, its arguments).
    args: Vec<String>,
    args_only: bool,
    env: Vec<(String, String)>,
    copy_to: String,
    set_images: Vec<(String, String)>,
    same_node: bool,
    replace: bool,
    share_processes: Option<bool>,
    keep: [bool; 5],
}

pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let (flag_words, command) = match args.iter().position(|a| a == "--") {
        Some(i) => (&args[..i], args[i + 1..].to_vec()),
        None => (args, Vec::new()),
    };
    let p = parse_flags("debug", flag_words, FLAGS)?;
    if p.has("filename") || p.has("custom") {
        return Err(CmdError::msg(
            "this console's kubectl debug takes a pod or node by name (no -f, no --custom)",
        ));
    }
    let profile = Profile::parse(p.last("profile").unwrap_or("legacy"))?;
    let mut done = Done::default();
    let o = options(&p, command, profile);
    validate(&o, &p, &mut done)?;
    if profile == Profile::Legacy {
        done.stderr.push_str(LEGACY_WARNING);
    }
    let ns = ctx.namespace(&p);
    for target in &p.args {
        // What was printed before a failure stays printed, as kubectl's lines do.
        if let Err(e) = visit(ctx, &o, &ns, target, &mut done) {
            done.stderr.push_str(&e.stderr);
            done.exit_code = e.exit_code;
            break;
        }
    }
    Ok(done)
}

/// One `TYPE/NAME` (or pod name) debugged, then the note that replaces attaching.
fn visit(
    ctx: &mut Ctx,
    o: &Options,
    ns: &str,
    target: &str,
    done: &mut Done,
) -> Result<(), CmdError> {
    let (pod, container) = match target.split_once('/') {
        Some(("node" | "nodes" | "no", node)) => debug_node(ctx, o, ns, node, done)?,
        Some(("pod" | "pods" | "po", pod)) => debug_pod(ctx, o, ns, pod, done)?,
        None => debug_pod(ctx, o, ns, target, done)?,
        Some((kind, name)) => return Err(unsupported(ctx, ns, kind, name)),
    };
    if o.attach && !container.is_empty() {
        done.stderr.push_str(&format!(
            "note: this console cannot attach to a container; read its output with: kubectl logs {pod} -c {container}\n"
        ));
    }
    Ok(())
}

/// `Complete`: the flags read into [`Options`] (`--env` and `--set-image` pairs sorted: kubectl
/// reads them from a Go map, in no set order).
fn options(p: &crate::flags::Parsed, args: Vec<String>, profile: Profile) -> Options {
    let text = |name: &str| p.last(name).unwrap_or_default().to_string();
    let pairs = |name: &str| -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = p
            .all(name)
            .iter()
            .flat_map(|spec| spec.split(','))
            .filter_map(|pair| pair.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        sort::sort(&mut out);
        out
    };
    let interactive = p.flag("stdin");
    Options {
        image: text("image"),
        container: text("container"),
        target: text("target"),
        pull_policy: text("image-pull-policy"),
        profile,
        interactive,
        tty: p.flag("tty"),
        attach: if p.has("attach") {
            p.flag("attach")
        } else {
            interactive
        },
        quiet: p.flag("quiet"),
        args,
        args_only: p.flag("arguments-only"),
        env: pairs("env"),
        copy_to: text("copy-to"),
        set_images: pairs("set-image"),
        same_node: p.flag("same-node"),
        replace: p.flag("replace"),
        share_processes: p.has("share-processes").then(|| p.flag("share-processes")),
        keep: [
            p.flag("keep-labels"),
            p.flag("keep-annotations"),
            p.flag("keep-liveness"),
            p.flag("keep-readiness"),
            p.flag("keep-startup"),
        ],
    }
}

/// `Validate`, its checks in kubectl's order with its texts; `Targeting container …` is printed
/// on the way, as there.
fn validate(o: &Options, p: &crate::flags::Parsed, done: &mut Done) -> Result<(), CmdError> {
    if o.attach && p.has("attach") && o.image.is_empty() && o.container.is_empty() {
        return Err(CmdError::msg("you must specify --container or create a new container using --image in order to attach."));
    }
    if !o.copy_to.is_empty() {
        if o.image.is_empty() && o.set_images.is_empty() && o.args.is_empty() {
            return Err(CmdError::msg(
                "you must specify --image, --set-image or command arguments.",
            ));
        }
        if !o.args.is_empty() && o.container.is_empty() && o.image.is_empty() {
            return Err(CmdError::msg(
                "you must specify an existing container or a new image when specifying args.",
            ));
        }
    } else if o.replace {
        return Err(CmdError::msg("--replace may only be used with --copy-to."));
    } else if o.same_node {
        return Err(CmdError::msg(
            "--same-node may only be used with --copy-to.",
        ));
    } else if !o.set_images.is_empty() {
        return Err(CmdError::msg(
            "--set-image may only be used with --copy-to.",
        ));
    } else if o.image.is_empty() {
        return Err(CmdError::msg(
            "you must specify --image when not using --copy-to.",
        ));
    }
    for image in std::iter::once(&o.image).chain(o.set_images.iter().map(|(_, i)| i)) {
        if image.chars().any(char::is_whitespace) {
            return Err(CmdError::msg(format!(
                "invalid image name {image:?}: invalid reference format"
            )));
        }
    }
    if p.args.is_empty() {
        return Err(CmdError::msg("NAME or filename is required for debug"));
    }
    if !["", "Always", "IfNotPresent", "Never"].contains(&o.pull_policy.as_str()) {
        return Err(CmdError::msg(format!(
            "invalid image pull policy: {}",
            o.pull_policy
        )));
    }
    if !o.target.is_empty() {
        if !o.copy_to.is_empty() {
            return Err(CmdError::msg(
                "--target is incompatible with --copy-to. Use --share-processes instead.",
            ));
        }
        if !o.quiet {
            done.stdout.push_str(&format!("Targeting container {:?}. If you don't see processes from this container it may be because the container runtime doesn't support this feature.\n", o.target));
        }
    }
    if o.tty && !o.interactive {
        return Err(CmdError::msg(
            "-i/--stdin is required for containers with -t/--tty=true",
        ));
    }
    Ok(())
}

/// The debug container kubectl builds (`generateDebugContainer`, `generateNodeDebugPod`):
/// name, env, image, pull policy, stdin/tty, `terminationMessagePolicy: File`, the command or
/// its arguments, and the profile's `securityContext`.
fn container(o: &Options, name: &str, node: bool) -> Value {
    let mut c = json!({"name": name, "image": o.image, "resources": {},
                       "terminationMessagePolicy": "File"});
    if !o.env.is_empty() {
        c["env"] = o
            .env
            .iter()
            .map(|(k, v)| json!({"name": k, "value": v}))
            .collect();
    }
    if !o.pull_policy.is_empty() {
        c["imagePullPolicy"] = json!(o.pull_policy);
    }
    if o.interactive {
        c["stdin"] = json!(true);
    }
    if o.tty {
        c["tty"] = json!(true);
    }
    if !o.args.is_empty() {
        c[if o.args_only { "args" } else { "command" }] = json!(o.args);
    }
    if let Some(sc) = o.profile.security_context(node) {
        c["securityContext"] = sc;
    }
    c
}

/// A 5-character suffix from kubectl's alphabet, derived from `seed` (FNV-1a, the bytes of the
/// hash taken in turn).
fn suffix(seed: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (0..5)
        .map(|i| {
            let byte = (h >> (8 * i)) as usize % ALPHABET.len();
            char::from(ALPHABET.get(byte).copied().unwrap_or(b'x'))
        })
        .collect()
}

/// Every container name of a pod (regular, init, ephemeral: `containerNameToRef`).
fn container_names(pod: &Value) -> Vec<String> {
    ["containers", "initContainers", "ephemeralContainers"]
        .iter()
        .flat_map(|list| pod["spec"][list].as_array().cloned().unwrap_or_default())
        .filter_map(|c| c["name"].as_str().map(str::to_string))
        .collect()
}

/// `computeDebugContainerName`: `-c`, else `debugger-xxxxx` not taken by any container of
/// `pod` (the suffix from `seed`), announced unless `-q`.
fn debug_container_name(o: &Options, pod: &Value, seed: &str, done: &mut Done) -> String {
    if !o.container.is_empty() {
        return o.container.clone();
    }
    let taken = container_names(pod);
    let name = (0..)
        .map(|attempt| format!("debugger-{}", suffix(&format!("{seed}/{attempt}"))))
        .find(|n| !taken.contains(n))
        .unwrap_or_default();
    if !o.quiet {
        done.stdout
            .push_str(&format!("Defaulting debug container name to {name}.\n"));
    }
    name
}

/// The pod's uid and resourceVersion, the seed of its debug container's suffix.
fn seed_of(pod: &Value) -> String {
    let meta = &pod["metadata"];
    format!(
        "{}/{}",
        meta["uid"].as_str().unwrap_or_default(),
        meta["resourceVersion"].as_str().unwrap_or_default()
    )
}

/// `visitPod`: a copy with `--copy-to`, else an ephemeral container. Returns the pod and the
/// container to attach to.
fn debug_pod(
    ctx: &mut Ctx,
    o: &Options,
    ns: &str,
    name: &str,
    done: &mut Done,
) -> Result<(String, String), CmdError> {
    let path = format!("/api/v1/namespaces/{ns}/pods/{name}");
    let pod = json_body(&ctx.client.request("GET", &path, None, None))?;
    if !o.copy_to.is_empty() {
        return debug_by_copy(ctx, o, ns, &pod, done);
    }
    let container_name = debug_container_name(o, &pod, &seed_of(&pod), done);
    let mut ec = container(o, &container_name, false);
    if !o.target.is_empty() {
        ec["targetContainerName"] = json!(o.target);
    }
    // `CreateTwoWayMergePatch` of the pod before and after: the new container, and the
    // order of the list when it had some already.
    let mut spec = json!({"ephemeralContainers": [ec]});
    if let Some(existing) = pod["spec"]["ephemeralContainers"]
        .as_array()
        .filter(|a| !a.is_empty())
    {
        let order: Vec<Value> = existing
            .iter()
            .map(|c| json!({"name": c["name"]}))
            .chain([json!({"name": container_name})])
            .collect();
        spec["$setElementOrder/ephemeralContainers"] = Value::Array(order);
    }
    let patch = json!({ "spec": spec }).to_string();
    let resp = ctx.client.request(
        "PATCH",
        &format!("{path}/ephemeralcontainers"),
        Some("application/strategic-merge-patch+json"),
        Some(&patch),
    );
    json_body(&resp)?;
    Ok((name.to_string(), container_name))
}

/// `visitNode`: the node read, the node-debugger pod created on it (`generateNodeDebugPod`
/// and the profile's node style).
fn debug_node(
    ctx: &mut Ctx,
    o: &Options,
    ns: &str,
    node: &str,
    done: &mut Done,
) -> Result<(String, String), CmdError> {
    let node_path = format!("/api/v1/nodes/{node}");
    json_body(&ctx.client.request("GET", &node_path, None, None))?;
    let cn = if o.container.is_empty() {
        "debugger".to_string()
    } else {
        o.container.clone()
    };
    let mut c = container(o, &cn, true);
    let mut spec = Map::new();
    let root = matches!(
        o.profile,
        Profile::Legacy | Profile::General | Profile::Sysadmin
    );
    if root {
        spec.insert(
            "volumes".into(),
            json!([{"name": "host-root", "hostPath": {"path": "/"}}]),
        );
        c["volumeMounts"] = json!([{"name": "host-root", "mountPath": "/host"}]);
    }
    spec.insert("containers".into(), json!([c]));
    spec.insert("nodeName".into(), json!(node));
    spec.insert("restartPolicy".into(), json!("Never"));
    spec.insert("tolerations".into(), json!([{"operator": "Exists"}]));
    if !matches!(o.profile, Profile::Baseline | Profile::Restricted) {
        for ns in ["hostNetwork", "hostPID", "hostIPC"] {
            spec.insert(ns.into(), json!(true));
        }
    }
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"generateName": format!("node-debugger-{node}-")}, "spec": spec});
    let created = create_pod(ctx, ns, &pod)?;
    let name = created["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    if !o.quiet {
        done.stdout.push_str(&format!(
            "Creating debugging pod {name} with container {cn} on node {node}.\n"
        ));
    }
    Ok((name, cn))
}

/// POSTs a pod to `ns` (the typed client's `Create`: no options), answering it as created.
fn create_pod(ctx: &mut Ctx, ns: &str, pod: &Value) -> Result<Value, CmdError> {
    let body = pod.to_string();
    let resp = ctx.client.request(
        "POST",
        &format!("/api/v1/namespaces/{ns}/pods"),
        Some("application/json"),
        Some(&body),
    );
    json_body(&resp)
}

/// `debugByCopy`: the copy created (`generatePodCopyWithDebugContainer` and the profile's copy
/// style), then with `--replace` the original deleted at once.
fn debug_by_copy(
    ctx: &mut Ctx,
    o: &Options,
    ns: &str,
    pod: &Value,
    done: &mut Done,
) -> Result<(String, String), CmdError> {
    let (copy, container_name) = pod_copy(o, pod, done);
    create_pod(ctx, ns, &copy)?;
    if o.replace {
        let name = pod["metadata"]["name"].as_str().unwrap_or_default();
        let path = format!("/api/v1/namespaces/{ns}/pods/{name}");
        let body = json!({"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0});
        let resp = ctx.client.request(
            "DELETE",
            &path,
            Some("application/json"),
            Some(&body.to_string()),
        );
        json_body(&resp)?;
    }
    Ok((o.copy_to.clone(), container_name))
}

/// The copy of `pod` `--copy-to` creates, and its debug container's name (empty for a
/// `--set-image`-only copy).
fn pod_copy(o: &Options, pod: &Value, done: &mut Done) -> (Value, String) {
    let meta = &pod["metadata"];
    let mut spec = pod["spec"].clone();
    if let Some(s) = spec.as_object_mut() {
        s.remove("ephemeralContainers");
        if !o.same_node {
            s.remove("nodeName");
        }
        if let Some(share) = o.share_processes {
            s.insert("shareProcessNamespace".into(), json!(share));
        }
    }
    for c in spec["containers"].as_array_mut().into_iter().flatten() {
        let own = c["name"].as_str().unwrap_or_default().to_string();
        let wanted = o.set_images.iter().find(|(n, _)| *n == own);
        let any = o.set_images.iter().find(|(n, _)| n == "*");
        if let Some((_, image)) = wanted.or(any) {
            c["image"] = json!(image);
        }
    }
    let mut name = o.container.clone();
    let existing = container_names(&json!({ "spec": spec })).contains(&name);
    if !existing {
        if o.image.is_empty() {
            name.clear();
        } else {
            name = debug_container_name(o, &json!({ "spec": spec }), &seed_of(pod), done);
            let c = json!({"name": name, "terminationMessagePolicy": "File"});
            if let Some(list) = spec["containers"].as_array_mut() {
                list.push(c);
            }
        }
    }
    if !name.is_empty() {
        if let Some(c) = spec["containers"]
            .as_array_mut()
            .and_then(|l| l.iter_mut().find(|c| c["name"] == name.as_str()))
        {
            change_container(o, c);
        }
    }
    let mut copy = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": o.copy_to, "namespace": meta["namespace"],
                     "labels": meta["labels"], "annotations": meta["annotations"]},
        "spec": spec});
    copy_profile(o, &mut copy);
    (copy, name)
}

/// The debug container of a copy as `--image`, `--image-pull-policy`, `-i`, `-t`, `--env` and
/// the command after `--` change it.
fn change_container(o: &Options, c: &mut Value) {
    if !o.args.is_empty() {
        if o.args_only {
            c["args"] = json!(o.args);
        } else {
            c["command"] = json!(o.args);
            if let Some(m) = c.as_object_mut() {
                m.remove("args");
            }
        }
    }
    let debug = container(o, "", false);
    for field in ["env", "image", "imagePullPolicy", "securityContext"] {
        if let Some(v) = debug.get(field).filter(|v| v.as_str() != Some("")) {
            c[field] = v.clone();
        }
    }
    c["stdin"] = json!(o.interactive);
    c["tty"] = json!(o.tty);
}

/// The profile's copy style: labels dropped (always with `legacy`), and for the others
/// annotations and probes unless kept, and process namespace sharing.
fn copy_profile(o: &Options, copy: &mut Value) {
    let [labels, annotations, liveness, readiness, startup] = o.keep;
    let legacy = o.profile == Profile::Legacy;
    if let Some(m) = copy["metadata"].as_object_mut() {
        if legacy || !labels {
            m.remove("labels");
        }
        if !legacy && !annotations {
            m.remove("annotations");
        }
        m.retain(|_, v| !v.is_null());
    }
    if legacy {
        return;
    }
    for c in copy["spec"]["containers"]
        .as_array_mut()
        .into_iter()
        .flatten()
    {
        if let Some(m) = c.as_object_mut() {
            for (probe, keep) in [
                ("livenessProbe", liveness),
                ("readinessProbe", readiness),
                ("startupProbe", startup),
            ] {
                if !keep {
                    m.remove(probe);
                }
            }
        }
    }
    if copy["spec"].get("shareProcessNamespace").is_none() {
        copy["spec"]["shareProcessNamespace"] = json!(true);
    }
}

/// A resource kubectl debug does not take: its builder's lookup, then `"<gvk>" not supported
/// by debug`.
fn unsupported(ctx: &mut Ctx, ns: &str, kind: &str, name: &str) -> CmdError {
    let Some(rt) = ctx.resource_type(kind) else {
        return CmdError::msg(format!(
            "the server doesn't have a resource type \"{kind}\""
        ));
    };
    let path = rt.object_path(ns, name);
    let resp = ctx.client.request("GET", &path, None, None);
    if !resp.is_success() {
        return CmdError::server(&resp);
    }
    CmdError::msg(format!(
        "\"{}, Kind={}\" not supported by debug",
        rt.api_version(),
        rt.kind
    ))
}
