//! `kubectl logs POD [-c CONTAINER] [-p] [--tail=N] [--timestamps] [--since=D | --since-time=T]
//! [--limit-bytes=N]`: reads `pods/log` as kubectl v1.32's `logs` command does
//! (`staging/src/k8s.io/kubectl/pkg/cmd/logs/logs.go`): it GETs the pod first, picks the
//! container (`-c`, else the `kubectl.kubernetes.io/default-container` annotation, else the
//! first, saying `Defaulted container "a" out of: a, b` when there was a choice —
//! `pkg/cmd/util/podcmd/podcmd.go`), then prints the log text as the server sends it. `--since`
//! is sent as whole seconds (rounded), `--tail=-1` (the default) sends no tailLines.
//!
//! `-f` prints what the run has written so far, then follows it as the virtual clock moves
//! ([`super::logs_follow`]) until the container stops.

use super::logs_follow::LogFollow;
use super::{parse_flags, Ctx, Done};
use crate::errors::{json_body, CmdError};
use crate::flags::{boolean, value, FlagSpec};
use watchlab_apimachinery::duration::parse_go_duration;

const FLAGS: &[FlagSpec] = &[
    value("container", Some('c')),
    boolean("previous", Some('p')),
    boolean("follow", Some('f')),
    boolean("timestamps", None),
    value("tail", None),
    value("since", None),
    value("since-time", None),
    value("limit-bytes", None),
];

/// The annotation naming the container kubectl picks by default.
const DEFAULT_CONTAINER: &str = "kubectl.kubernetes.io/default-container";

// Long on purpose: kubectl's `LogsOptions` Complete, Validate and Run in order (the pod and
// container arguments, the flags' conflicts, the default container's note, the request).
pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let p = parse_flags("logs", args, FLAGS)?;
    let flag_err = |e| CmdError::flag("logs", &e);
    let mut inline_container = None;
    let target = match p.args.as_slice() {
        [one] => one.clone(),
        [pod, container] if !p.has("container") => {
            inline_container = Some(container.clone());
            pod.clone()
        }
        [] => {
            return Err(CmdError::usage(
                "logs",
                "expected POD_NAME or TYPE/NAME along with optional -c CONTAINER",
            ))
        }
        _ => {
            return Err(CmdError::msg(
                "only one of -c or an inline [CONTAINER] arg is allowed",
            ))
        }
    };
    let name = match target.split_once('/') {
        None => target.as_str(),
        Some(("pod" | "pods" | "po", n)) => n,
        Some((kind, _)) => {
            return Err(CmdError::msg(format!(
                "cannot get the logs from {kind}: this playground's kubectl logs reads pods only"
            )))
        }
    };
    let since = p.last("since").map(str::to_string);
    let since_time = p.last("since-time").map(str::to_string);
    if since.is_some() && since_time.is_some() {
        return Err(CmdError::msg(
            "at most one of `sinceTime` or `sinceSeconds` may be specified",
        ));
    }
    let ns = ctx.namespace(&p);
    let pod_path = format!("/api/v1/namespaces/{ns}/pods/{name}");
    let pod = json_body(&ctx.client.request("GET", &pod_path, None, None))?;
    let mut done = Done::default();
    let named = p.last("container").map(str::to_string).or(inline_container);
    let container = match named.filter(|c| !c.is_empty()) {
        Some(c) => c,
        None => {
            let names: Vec<&str> = pod["spec"]["containers"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| c["name"].as_str())
                .collect();
            let annotated = pod["metadata"]["annotations"][DEFAULT_CONTAINER]
                .as_str()
                .filter(|a| names.contains(a));
            match (annotated, names.first()) {
                (Some(a), _) => a.to_string(),
                (None, Some(first)) => {
                    if names.len() > 1 {
                        done.stderr = format!(
                            "Defaulted container \"{first}\" out of: {}\n",
                            names.join(", ")
                        );
                    }
                    first.to_string()
                }
                (None, None) => String::new(),
            }
        }
    };
    let mut query = vec![format!("container={container}")];
    if p.flag("previous") {
        query.push("previous=true".into());
    }
    if p.flag("timestamps") {
        query.push("timestamps=true".into());
    }
    if let Some(n) = p.int("tail", None).map_err(flag_err)?.filter(|n| *n != -1) {
        query.push(format!("tailLines={n}"));
    }
    if let Some(n) = p
        .int("limit-bytes", None)
        .map_err(flag_err)?
        .filter(|n| *n != 0)
    {
        query.push(format!("limitBytes={n}"));
    }
    if let Some(d) = since {
        let ms = parse_go_duration(&d).map_err(|e| {
            CmdError::raw(format!(
                "Error: invalid argument {d:?} for \"--since\" flag: {e}\nSee 'kubectl logs --help' for usage.\n"
            ))
        })?;
        query.push(format!("sinceSeconds={}", ms.saturating_add(500) / 1000));
    }
    if let Some(t) = since_time {
        query.push(format!("sinceTime={}", t.replace('+', "%2B")));
    }
    let path = format!("{pod_path}/log?{}", query.join("&"));
    let resp = ctx.client.request("GET", &path, None, None);
    if !resp.is_success() {
        return Err(CmdError::server(&resp));
    }
    done.stdout = resp.body;
    if p.flag("follow") && !p.flag("previous") {
        let timestamps = p.flag("timestamps");
        done.follow = LogFollow::start(ctx.client, &pod_path, &container, timestamps)
            .map(|f| crate::Follow::task(Box::new(f)));
    }
    Ok(done)
}
