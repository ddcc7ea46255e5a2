//! The informational commands: `api-resources` (from the served resource table, in
//! discovery's layout), `api-versions`, `version` (client v1.32 plus the server's `/version`),
//! and help texts.

use super::{parse_flags, Ctx, Done};
use crate::errors::CmdError;
use crate::flags::{boolean, value, FlagSpec};
use crate::tabwriter::TabWriter;
use serde_json::Value;
use watchlab_apimachinery::sort;

/// The client version this kubectl models.
pub const CLIENT_VERSION: &str = "v1.32.4";
/// The kustomize version kubectl v1.32 embeds.
const KUSTOMIZE_VERSION: &str = "v5.5.0";

const API_RESOURCES_FLAGS: &[FlagSpec] = &[
    value("output", Some('o')),
    value("namespaced", None),
    value("api-group", None),
    boolean("no-headers", None),
    value("sort-by", None),
    value("verbs", None),
    boolean("cached", None),
];

pub(crate) fn api_resources(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let p = parse_flags("api-resources", args, API_RESOURCES_FLAGS)?;
    let discovery = ctx.discovery()?;
    let namespaced = match p.last("namespaced") {
        None => None,
        Some("true") => Some(true),
        Some("false") => Some(false),
        Some(v) => {
            return Err(CmdError::flag(
                "api-resources",
                &crate::flags::FlagError::InvalidBool {
                    value: v.into(),
                    flag: "--namespaced".into(),
                },
            ))
        }
    };
    let mut selected: Vec<_> = discovery
        .types()
        .iter()
        .filter(|r| namespaced.is_none_or(|n| r.namespaced == n))
        .filter(|r| p.last("api-group").is_none_or(|g| r.group == g))
        .collect();
    // kubectl's `sortableResource`: by API group unless `--sort-by name|kind`, ties by name.
    match p.last("sort-by") {
        Some("name") => sort::sort_by(&mut selected, |a, b| a.plural.cmp(&b.plural)),
        Some("kind") => sort::sort_by(&mut selected, |a, b| {
            (&a.kind, &a.plural).cmp(&(&b.kind, &b.plural))
        }),
        _ => sort::sort_by(&mut selected, |a, b| {
            (&a.group, &a.plural).cmp(&(&b.group, &b.plural))
        }),
    }
    match p.last("output") {
        Some("name") => {
            let names: String = selected
                .iter()
                .map(|r| {
                    if r.group.is_empty() {
                        format!("{}\n", r.plural)
                    } else {
                        format!("{}.{}\n", r.plural, r.group)
                    }
                })
                .collect();
            return Ok(Done::out(names));
        }
        None | Some("wide") => {}
        Some(other) => return Err(CmdError::msg(format!("--output {other} is not available"))),
    }
    let wide = p.last("output") == Some("wide");
    let mut rows = Vec::new();
    if !p.flag("no-headers") {
        let mut header = ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"].to_vec();
        if wide {
            header.extend(["VERBS", "CATEGORIES"]);
        }
        rows.push(header.into_iter().map(String::from).collect());
    }
    for r in selected {
        let mut row = vec![
            r.plural.clone(),
            r.short_names.join(","),
            r.api_version(),
            r.namespaced.to_string(),
            r.kind.clone(),
        ];
        if wide {
            row.extend([r.verbs.join(","), r.categories.join(",")]);
        }
        rows.push(row);
    }
    Ok(Done::out(TabWriter::new().render(&rows)))
}

pub(crate) fn api_versions(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    parse_flags("api-versions", args, &[])?;
    let discovery = ctx.discovery()?;
    let mut versions: Vec<String> = discovery.types().iter().map(|r| r.api_version()).collect();
    sort::sort(&mut versions);
    versions.dedup();
    Ok(Done::out(
        versions
            .iter()
            .map(|v| format!("{v}\n"))
            .collect::<String>(),
    ))
}

pub(crate) fn version(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let p = parse_flags(
        "version",
        args,
        &[boolean("client", None), value("output", Some('o'))],
    )?;
    let mut out =
        format!("Client Version: {CLIENT_VERSION}\nKustomize Version: {KUSTOMIZE_VERSION}\n");
    if p.flag("client") {
        return Ok(Done::out(out));
    }
    let resp = ctx.client.request("GET", "/version", None, None);
    if !resp.is_success() {
        return Ok(Done {
            stdout: out,
            stderr: CmdError::server(&resp).stderr,
            follow: None,
            exit_code: 1,
        });
    }
    let server: Value = serde_json::from_str(&resp.body).unwrap_or(Value::Null);
    let git = watchlab_apimachinery::unstructured::string(&server, &["gitVersion"]);
    out.push_str(&format!("Server Version: {git}\n"));
    Ok(Done::out(out))
}

/// The root help's sections: each command with kubectl's one-line summary.
const SECTIONS: [(&str, &[(&str, &str)]); 7] = [
    ("Basic Commands", &[
        ("create", "Create a resource from a file or from stdin"),
        ("expose", "Take a replication controller, service, deployment or pod and expose it as a new Kubernetes service"),
        ("run", "Run a particular image on the cluster"),
        ("set", "Set specific features on objects"),
        ("explain", "Get documentation for a resource"),
        ("get", "Display one or many resources"),
        ("delete", "Delete resources by file names, stdin, resources and names, or by resources and label selector"),
    ]),
    ("Deploy Commands", &[
        ("rollout", "Manage the rollout of a resource"),
        ("scale", "Set a new size for a deployment, replica set, or replication controller"),
    ]),
    ("Cluster Management Commands", &[
        ("top", "Display resource (CPU/memory) usage"),
        ("cordon", "Mark node as unschedulable"),
        ("uncordon", "Mark node as schedulable"),
        ("drain", "Drain node in preparation for maintenance"),
        ("taint", "Update the taints on one or more nodes"),
    ]),
    ("Troubleshooting and Debugging Commands", &[
        ("describe", "Show details of a specific resource or group of resources"),
        ("logs", "Print the logs for a container in a pod"),
        ("debug", "Create debugging sessions for troubleshooting workloads and nodes"),
    ]),
    ("Advanced Commands", &[
        ("apply", "Apply a configuration to a resource by file name or stdin"),
        ("patch", "Update fields of a resource"),
    ]),
    ("Settings Commands", &[
        ("label", "Update the labels on a resource"),
        ("annotate", "Update the annotations on a resource"),
    ]),
    ("Other Commands", &[
        ("api-resources", "Print the supported API resources on the server"),
        ("api-versions", "Print the supported API versions on the server, in the form of \"group/version\""),
        ("config", "Modify kubeconfig files"),
        ("version", "Print the client and server version information"),
    ]),
];

/// `kubectl` / `kubectl help`: kubectl's sections with the commands this console serves,
/// each name in a column of 16 after two spaces, as cobra's template lays them out.
pub(crate) fn root_help() -> String {
    let mut text = String::from(
        "kubectl controls the Kubernetes cluster manager (watchlab's in-browser subset).\n\n",
    );
    for (title, commands) in SECTIONS {
        text.push_str(title);
        text.push_str(":\n");
        for (name, summary) in commands {
            text.push_str(&format!("  {name:<16}{summary}\n"));
        }
        text.push('\n');
    }
    text.push_str("Usage:\n  kubectl [flags] [options]\n\nUse \"kubectl <command> --help\" for more information about a given command.\n");
    text
}

/// A command's short help, or None for an unknown command.
pub(crate) fn command_help(cmd: &str) -> Option<String> {
    let (summary, usage) = match cmd {
        "get" => ("Display one or many resources.", "kubectl get [(-o|--output=)json|yaml|name|go-template|go-template-file|template|templatefile|jsonpath|jsonpath-as-json|jsonpath-file|custom-columns|custom-columns-file|wide] (TYPE[.VERSION][.GROUP] [NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...) [flags] [options]"),
        "explain" => ("Describe fields and structure of various resources.", "kubectl explain TYPE [--recursive=FALSE|TRUE] [--api-version=api-version-group] [-o|--output=plaintext|plaintext-openapiv2] [options]"),
        "describe" => ("Show details of a specific resource or group of resources.", "kubectl describe (-f FILENAME | TYPE [NAME_PREFIX | -l label] | TYPE/NAME) [options]"),
        "run" => ("Create and run a particular image in a pod.", "kubectl run NAME --image=image [--env=\"key=value\"] [--port=port] [--dry-run=server|client] [--overrides=inline-json] [--command] -- [COMMAND] [args...] [options]"),
        "create" => ("Create a resource from a file or from stdin.\n\nAvailable Commands:\n  cronjob               Create a cron job with the specified name\n  deployment            Create a deployment with the specified name\n  job                   Create a job with the specified name\n  namespace             Create a namespace with the specified name\n  poddisruptionbudget   Create a pod disruption budget with the specified name", "kubectl create -f FILENAME [options]\n  kubectl create cronjob NAME --image=image --schedule='0/5 * * * ?' -- [COMMAND] [args...] [flags] [options]\n  kubectl create deployment NAME --image=image -- [COMMAND] [args...] [options]\n  kubectl create job NAME --image=image [--from=cronjob/name] -- [COMMAND] [args...] [options]\n  kubectl create namespace NAME [--dry-run=server|client|none] [options]\n  kubectl create poddisruptionbudget NAME --selector=SELECTOR --min-available=N [--dry-run=server|client|none] [options]"),
        "apply" => ("Apply a configuration to a resource by file name or stdin.", "kubectl apply (-f FILENAME | -k DIRECTORY) [options]"),
        "delete" => ("Delete resources by file names, stdin, resources and names, or by resources and label selector.", "kubectl delete ([-f FILENAME] | [-k DIRECTORY] | TYPE [(NAME | -l label | --all)]) [options]"),
        "scale" => ("Set a new size for a deployment, replica set, replication controller, or stateful set.", "kubectl scale [--resource-version=version] [--current-replicas=count] --replicas=COUNT (-f FILENAME | TYPE NAME) [options]"),
        "rollout" => ("Manage the rollout of one or many resources.\n\n Valid resource types include:\n\n  *  deployments\n  *  daemonsets\n  *  statefulsets\n\nAvailable Commands:\n  history       View rollout history\n  restart       Restart a resource\n  status        Show the status of the rollout\n  undo          Undo a previous rollout", "kubectl rollout SUBCOMMAND [options]"),
        "set" => ("Configure application resources.\n\n These commands help you make changes to existing application resources.\n\nAvailable Commands:\n  image            Update the image of a pod template", "kubectl set SUBCOMMAND [options]\n  kubectl set image (-f FILENAME | TYPE NAME) CONTAINER_NAME_1=CONTAINER_IMAGE_1 ... CONTAINER_NAME_N=CONTAINER_IMAGE_N [options]"),
        "taint" => ("Update the taints on one or more nodes.", "kubectl taint NODE NAME KEY_1=VAL_1:TAINT_EFFECT_1 ... KEY_N=VAL_N:TAINT_EFFECT_N [options]"),
        "patch" => ("Update fields of a resource using strategic merge patch, a JSON merge patch, or a JSON patch.", "kubectl patch (-f FILENAME | TYPE NAME) [-p PATCH|--patch-file FILE] [options]"),
        "label" => ("Update the labels on a resource.", "kubectl label [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version] [options]"),
        "annotate" => ("Update the annotations on one or more resources.", "kubectl annotate [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version] [options]"),
        "debug" => ("Create debugging sessions for troubleshooting workloads and nodes.", "kubectl debug (POD | TYPE[[.VERSION].GROUP]/NAME) [ -- COMMAND [args...] ] [options]"),
        "logs" => ("Print the logs for a container in a pod or specified resource.", "kubectl logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER] [options]"),
        "top" => ("Display resource (CPU/memory) usage.", "kubectl top [flags] [options]\n  kubectl top node [NAME | -l label]\n  kubectl top pod [NAME | -l label]"),
        "cordon" => ("Mark node as unschedulable.", "kubectl cordon NODE [options]"),
        "uncordon" => ("Mark node as schedulable.", "kubectl uncordon NODE [options]"),
        "drain" => ("Drain node in preparation for maintenance.", "kubectl drain NODE [options]"),
        "api-resources" => ("Print the supported API resources on the server.", "kubectl api-resources [flags] [options]"),
        "api-versions" => ("Print the supported API versions on the server, in the form of \"group/version\".", "kubectl api-versions [options]"),
        "version" => ("Print the client and server version information for the current context.", "kubectl version [flags] [options]"),
        "config" => ("Modify kubeconfig files.", "kubectl config SUBCOMMAND [options]\n  kubectl config set-context --current --namespace=NAMESPACE\n  kubectl config current-context\n  kubectl config get-contexts\n  kubectl config view"),
        _ => return None,
    };
    Some(format!("{summary}\n\nUsage:\n  {usage}\n"))
}
