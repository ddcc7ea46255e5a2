//! `kubectl rollout status|history|undo|restart`: the command line and the output kubectl's
//! `rollout` commands print around what the kind's viewers answer (kubectl's
//! `polymorphichelpers`): the status viewer's line, `KIND/NAME ` and the history viewer's
//! table (or `with revision #N` and that revision's pod template), `KIND/NAME rolled back`.
//! The viewers and rollbackers of each kind are in [`deployment`], [`daemonset`] and
//! [`statefulset`]; `restart` is in [`restart`]. Unsupported kinds get kubectl's refusals.

mod daemonset;
mod deployment;
mod restart;
mod statefulset;

use super::{dry_run, dry_run_suffix, parse_flags, Ctx, Done, DryRun};
use crate::errors::{decode_status, json_body, CmdError};
use crate::flags::{value, FlagSpec};
use crate::resources::ResourceType;
use crate::targets::parse_targets;
use serde_json::Value;
use watchlab_apimachinery::sort;

const FLAGS: &[FlagSpec] = &[
    value("to-revision", None),
    value("revision", None),
    value("watch", Some('w')),
    value("timeout", None),
    value("filename", Some('f')),
    value("output", Some('o')),
    value("dry-run", None),
];

const USAGE: &str = "error: Required resource not specified.\nUse \"kubectl rollout --help\" for more information about this command.\n";

/// The subcommands this console serves.
const SUBCOMMANDS: [&str; 4] = ["status", "history", "undo", "restart"];

/// One `rollout` request for one object, as the viewers get it.
pub(super) struct Ask {
    sub: &'static str,
    /// `--revision` (history) and `--to-revision` (undo); 0 when not given.
    revision: i64,
    to_revision: i64,
    dry: DryRun,
}

pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let Some((sub, rest)) = args.split_first() else {
        return Err(CmdError::raw(
            "error: Usage: kubectl rollout SUBCOMMAND (status|history|undo|restart) TYPE NAME\n",
        ));
    };
    let Some(sub) = SUBCOMMANDS.iter().copied().find(|s| s == sub) else {
        return Err(CmdError::msg(format!(
            "unknown command \"{sub}\" for \"kubectl rollout\""
        )));
    };
    let p = parse_flags(&format!("rollout {sub}"), rest, FLAGS)?;
    if p.args.is_empty() {
        return Err(CmdError::raw(USAGE));
    }
    let targets = parse_targets(&ctx.discovery()?, &p.args, &format!("rollout {sub}"))?;
    if targets.iter().any(|t| t.names.is_empty()) {
        return Err(CmdError::raw(USAGE));
    }
    let ns = ctx.namespace(&p);
    if sub == "restart" {
        return restart::run(ctx, &targets, &ns);
    }
    let flag_err = |e| CmdError::flag("rollout", &e);
    let ask = Ask {
        sub,
        revision: p.int("revision", None).map_err(flag_err)?.unwrap_or(0),
        to_revision: p.int("to-revision", None).map_err(flag_err)?.unwrap_or(0),
        dry: dry_run(&p)?,
    };
    if sub == "history" && ask.revision < 0 {
        return Err(CmdError::msg(format!(
            "revision must be a positive integer: {}",
            ask.revision
        )));
    }
    let mut done = Done::default();
    for t in &targets {
        for name in &t.names {
            let path = t.rt.object_path(&ns, name);
            let obj = json_body(&ctx.client.request("GET", &path, None, None))?;
            let answer = match t.rt.kind.as_str() {
                "Deployment" if t.rt.group == "apps" => deployment::answer(ctx, &ask, &t.rt, &obj)?,
                "DaemonSet" if t.rt.group == "apps" => daemonset::answer(ctx, &ask, &t.rt, &obj)?,
                "StatefulSet" if t.rt.group == "apps" => {
                    statefulset::answer(ctx, &ask, &t.rt, &obj)?
                }
                _ => return Err(unsupported(sub, &t.rt)),
            };
            done.stdout.push_str(&printed(
                &ask,
                &format!("{}/{name}", t.rt.kind_prefix()),
                &answer,
            ));
        }
    }
    Ok(done)
}

/// What kubectl prints around a viewer's answer: the status line alone; the history as the
/// name printer's operation (`KIND/NAME with revision #N` and the text); the rollbacker's
/// result as the operation, with the dry-run suffix.
fn printed(ask: &Ask, prefix: &str, answer: &str) -> String {
    match ask.sub {
        "status" => answer.to_string(),
        "history" if ask.revision > 0 => {
            format!("{prefix} with revision #{}\n{answer}\n", ask.revision)
        }
        "history" => format!("{prefix} \n{answer}\n"),
        _ => format!("{prefix} {answer}{}\n", dry_run_suffix(ask.dry)),
    }
}

/// `schema.GroupKind.String()`: `Kind` or `Kind.group`.
fn group_kind(rt: &ResourceType) -> String {
    if rt.group.is_empty() {
        rt.kind.clone()
    } else {
        format!("{}.{}", rt.kind, rt.group)
    }
}

/// The kinds kubectl's `apps.GroupKindElement` visitor knows (it has no viewer for some).
fn visitable(rt: &ResourceType) -> bool {
    matches!(
        (rt.group.as_str(), rt.kind.as_str()),
        (
            "apps",
            "DaemonSet" | "Deployment" | "ReplicaSet" | "StatefulSet"
        ) | ("batch", "Job" | "CronJob")
            | ("", "Pod" | "ReplicationController")
    )
}

/// `StatusViewerFor`, `HistoryViewerFor`, `RollbackerFor` refusing a kind.
fn unsupported(sub: &str, rt: &ResourceType) -> CmdError {
    let gk = group_kind(rt);
    if sub == "status" {
        return CmdError::msg(format!("no status viewer has been implemented for {gk}"));
    }
    let (what, retrieving) = match sub {
        "history" => ("history viewer", "history"),
        _ => ("rollbacker", "rollbacker"),
    };
    if visitable(rt) {
        CmdError::msg(format!("no {what} has been implemented for {gk:?}"))
    } else {
        CmdError::msg(format!(
            "error retrieving {retrieving} for {gk:?}, no visitor method exists for {{{} {}}}",
            rt.group, rt.kind
        ))
    }
}

/// A PATCH of the object at `path`; a refusal reads `failed restoring revision N: <message>`
/// as the rollbackers wrap it.
pub(super) fn patch_restoring(
    ctx: &mut Ctx,
    path: &str,
    content_type: &str,
    patch: &Value,
    ask: &Ask,
) -> Result<(), CmdError> {
    let path = match ask.dry {
        DryRun::Server => format!("{path}?dryRun=All"),
        _ => path.to_string(),
    };
    let resp = ctx
        .client
        .request("PATCH", &path, Some(content_type), Some(&patch.to_string()));
    if resp.is_success() {
        return Ok(());
    }
    let message = decode_status(&resp).map_or_else(
        || crate::errors::server_error_text(&resp),
        |s| s.message().to_string(),
    );
    Err(CmdError::msg(format!(
        "failed restoring revision {}: {message}",
        ask.to_revision
    )))
}

/// `REVISION  CHANGE-CAUSE` rows, sorted by revision, laid out by the history viewers'
/// tabwriter (min width 0, padding 2).
pub(super) fn history_table(mut rows: Vec<(i64, String)>) -> String {
    sort::sort(&mut rows);
    let mut text = String::from("REVISION\tCHANGE-CAUSE\n");
    for (revision, cause) in rows {
        let cause = if cause.is_empty() {
            "<none>".to_string()
        } else {
            cause
        };
        text.push_str(&format!("{revision}\t{cause}\n"));
    }
    crate::tabwriter::align(&text, 0, 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt(group: &str, kind: &str) -> ResourceType {
        ResourceType {
            plural: String::new(),
            singular: String::new(),
            short_names: Vec::new(),
            group: group.into(),
            version: "v1".into(),
            kind: kind.into(),
            namespaced: true,
            categories: Vec::new(),
            verbs: Vec::new(),
        }
    }

    #[test]
    fn unsupported_kinds_are_refused_with_kubectls_texts() {
        let text = |sub: &str, group: &str, kind: &str| unsupported(sub, &rt(group, kind)).stderr;
        assert_eq!(
            text("status", "apps", "ReplicaSet"),
            "error: no status viewer has been implemented for ReplicaSet.apps\n"
        );
        assert_eq!(
            text("history", "", "Pod"),
            "error: no history viewer has been implemented for \"Pod\"\n"
        );
        assert_eq!(
            text("undo", "batch", "Job"),
            "error: no rollbacker has been implemented for \"Job.batch\"\n"
        );
        assert_eq!(
            text("history", "", "ConfigMap"),
            "error: error retrieving history for \"ConfigMap\", no visitor method exists for { ConfigMap}\n"
        );
    }

    #[test]
    fn history_rows_by_revision() {
        assert_eq!(
            history_table(vec![(10, String::new()), (2, "kubectl set image".into()), (1, String::new())]),
            "REVISION  CHANGE-CAUSE\n1         <none>\n2         kubectl set image\n10        <none>\n"
        );
    }
}
