//! `kubectl config`: the console has one kubeconfig context, `watchlab`; `set-context
//! --current --namespace=x` changes the namespace commands use without `-n`, the way it
//! changes the current context's namespace in a real kubeconfig.

use super::{parse_flags, Ctx, Done};
use crate::errors::CmdError;
use crate::flags::{boolean, value, FlagSpec};
use crate::tabwriter::TabWriter;

/// The console's only context (and cluster, and user).
pub const CONTEXT: &str = "watchlab";

const SET_CONTEXT_FLAGS: &[FlagSpec] = &[
    boolean("current", None),
    value("cluster", None),
    value("user", None),
];

pub(crate) fn run(ctx: &mut Ctx, args: &[String]) -> Result<Done, CmdError> {
    let Some((sub, rest)) = args.split_first() else {
        return Ok(Done::out(
            super::info::command_help("config").unwrap_or_default(),
        ));
    };
    match sub.as_str() {
        "set-context" => {
            let p = parse_flags("config set-context", rest, SET_CONTEXT_FLAGS)?;
            let name = match (p.flag("current"), p.args.as_slice()) {
                (true, []) => CONTEXT.to_string(),
                (true, [_, ..]) => {
                    return Err(CmdError::msg(
                        "you cannot specify both a context name and --current",
                    ))
                }
                (false, [n]) => n.clone(),
                (false, _) => {
                    return Err(CmdError::usage(
                        "config set-context",
                        "you must specify a non-empty context name or --current",
                    ))
                }
            };
            if name != CONTEXT {
                return Err(CmdError::msg(format!(
                    "this console has one context, \"{CONTEXT}\"; use --current"
                )));
            }
            if let Some(ns) = p.last("namespace") {
                ctx.kubectl.namespace = if ns.is_empty() {
                    "default".into()
                } else {
                    ns.to_string()
                };
            }
            Ok(Done::out(format!("Context \"{CONTEXT}\" modified.\n")))
        }
        "current-context" => {
            parse_flags("config current-context", rest, &[])?;
            Ok(Done::out(format!("{CONTEXT}\n")))
        }
        "get-contexts" => {
            parse_flags(
                "config get-contexts",
                rest,
                &[value("output", Some('o')), boolean("no-headers", None)],
            )?;
            let rows = vec![
                ["CURRENT", "NAME", "CLUSTER", "AUTHINFO", "NAMESPACE"]
                    .map(String::from)
                    .to_vec(),
                vec![
                    "*".into(),
                    CONTEXT.into(),
                    CONTEXT.into(),
                    "learner".into(),
                    ctx.kubectl.namespace.clone(),
                ],
            ];
            Ok(Done::out(TabWriter::new().render(&rows)))
        }
        "view" => {
            parse_flags(
                "config view",
                rest,
                &[
                    boolean("minify", None),
                    value("output", Some('o')),
                    boolean("raw", None),
                ],
            )?;
            Ok(Done::out(format!(
                "apiVersion: v1\nclusters:\n- cluster:\n    server: https://watchlab.local\n  name: {CONTEXT}\ncontexts:\n- context:\n    cluster: {CONTEXT}\n    namespace: {ns}\n    user: learner\n  name: {CONTEXT}\ncurrent-context: {CONTEXT}\nkind: Config\npreferences: {{}}\nusers:\n- name: learner\n  user: {{}}\n",
                ns = ctx.kubectl.namespace
            )))
        }
        other => Err(CmdError::raw(format!(
            "Error: unknown command \"{other}\" for \"kubectl config\"\n"
        ))),
    }
}
