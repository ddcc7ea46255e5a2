//! The kubectl command tree: finds the subcommand (after any global flags, as cobra allows),
//! answers unknown commands with cobra's text and suggestions, and hands the rest to the
//! command's module. Each command parses its own flags and returns a [`Done`] or a
//! [`CmdError`].

mod apply;
mod config;
mod create;
mod debug;
mod delete;
mod describe;
pub(crate) mod drain;
mod explain;
mod expose;
mod get;
mod info;
mod label;
mod logs;
mod logs_follow;
mod node;
mod patch;
mod rollout;
mod run;
mod scale;
mod set;
mod taint;
mod top;

use crate::errors::CmdError;
use crate::flags::{self, FlagSpec, Parsed};
use crate::follow::Follow;
use crate::resources::{Discovery, ResourceType};
use crate::Kubectl;
use watchlab_apimachinery::client::ApiClient;

/// A command's successful result.
#[derive(Debug, Default)]
pub(crate) struct Done {
    pub stdout: String,
    /// Warnings and notes (`No resources found in production namespace.`).
    pub stderr: String,
    pub follow: Option<Follow>,
    /// Non-zero when some of the work failed after other output was printed (kubectl exits 1
    /// after printing what it found and the errors).
    pub exit_code: i32,
}

impl Done {
    pub fn out(stdout: impl Into<String>) -> Done {
        Done {
            stdout: stdout.into(),
            ..Done::default()
        }
    }
}

/// What a command handler gets.
pub(crate) struct Ctx<'a> {
    pub kubectl: &'a mut Kubectl,
    pub client: &'a mut dyn ApiClient,
    /// What discovery said, read once per command.
    discovery: Option<Discovery>,
}

impl Ctx<'_> {
    /// `-n` or the context's namespace.
    pub fn namespace(&self, p: &Parsed) -> String {
        p.last("namespace")
            .filter(|n| !n.is_empty())
            .unwrap_or(&self.kubectl.namespace)
            .to_string()
    }

    /// The served resource types, from discovery (read at the first use in a command).
    pub fn discovery(&mut self) -> Result<Discovery, CmdError> {
        if let Some(d) = &self.discovery {
            return Ok(d.clone());
        }
        let d = Discovery::fetch(self.client)?;
        self.discovery = Some(d.clone());
        Ok(d)
    }

    /// The type a kubectl resource name stands for, if discovery knows it.
    pub fn resource_type(&mut self, name: &str) -> Option<ResourceType> {
        self.discovery().ok()?.lookup(name).cloned()
    }

    /// The virtual clock as Unix milliseconds.
    pub fn now(&self) -> i64 {
        watchlab_apimachinery::client::virtual_now_unix_ms(self.client.now_ms())
    }
}

/// Parses a command's flags, turning errors into cobra's text for `kubectl <cmd>`.
pub(crate) fn parse_flags(
    cmd: &str,
    args: &[String],
    specs: &[FlagSpec],
) -> Result<Parsed, CmdError> {
    flags::parse(args, specs).map_err(|e| CmdError::flag(cmd, &e))
}

/// kubectl's commands, for cobra's "Did you mean this?" suggestions.
const ALL_COMMANDS: &[&str] = &[
    "create",
    "expose",
    "run",
    "set",
    "explain",
    "get",
    "edit",
    "delete",
    "rollout",
    "scale",
    "autoscale",
    "certificate",
    "cluster-info",
    "top",
    "cordon",
    "uncordon",
    "drain",
    "taint",
    "describe",
    "logs",
    "attach",
    "exec",
    "port-forward",
    "proxy",
    "cp",
    "auth",
    "debug",
    "events",
    "diff",
    "apply",
    "patch",
    "replace",
    "wait",
    "kustomize",
    "label",
    "annotate",
    "completion",
    "alpha",
    "api-resources",
    "api-versions",
    "config",
    "plugin",
    "version",
    "options",
    "help",
];

/// Global flags that take a value, so `kubectl -n production get pods` finds `get`.
fn global_takes_value(word: &str) -> bool {
    flags::GLOBAL.iter().any(|s| {
        s.kind == flags::FlagKind::Value
            && (word == format!("--{}", s.long) || s.short.is_some_and(|c| word == format!("-{c}")))
    })
}

/// Runs `kubectl <words...>`.
pub(crate) fn run(
    kubectl: &mut Kubectl,
    words: &[String],
    client: &mut dyn ApiClient,
) -> Result<Done, CmdError> {
    let mut pre = Vec::new();
    let mut i = 0;
    while let Some(w) = words.get(i) {
        if !w.starts_with('-') || w == "-" {
            break;
        }
        pre.push(w.clone());
        if global_takes_value(w) {
            if let Some(v) = words.get(i + 1) {
                pre.push(v.clone());
                i += 1;
            }
        }
        i += 1;
    }
    let Some(cmd) = words.get(i) else {
        if pre.iter().any(|w| w == "--help" || w == "-h") || pre.is_empty() {
            return Ok(Done::out(info::root_help()));
        }
        if pre.iter().any(|w| w == "--version") {
            return Err(CmdError::flag(
                "",
                &flags::FlagError::Unknown("version".into()),
            ));
        }
        return Ok(Done::out(info::root_help()));
    };
    let mut args: Vec<String> = words.get(i + 1..).unwrap_or_default().to_vec();
    args.extend(pre);
    let mut ctx = Ctx {
        kubectl,
        client,
        discovery: None,
    };
    if args.iter().any(|a| a == "--help" || a == "-h") && cmd != "help" {
        return info::command_help(cmd)
            .map(Done::out)
            .ok_or_else(|| unknown_command(cmd));
    }
    match cmd.as_str() {
        "get" => get::run(&mut ctx, &args),
        "describe" => describe::run(&mut ctx, &args),
        "run" => run::run(&mut ctx, &args),
        "create" => create::run(&mut ctx, &args),
        "apply" => apply::run(&mut ctx, &args),
        "delete" => delete::run(&mut ctx, &args),
        "scale" => scale::run(&mut ctx, &args),
        "rollout" => rollout::run(&mut ctx, &args),
        "expose" => expose::run(&mut ctx, &args),
        "label" => label::run(&mut ctx, &args, label::Kind::Label),
        "annotate" => label::run(&mut ctx, &args, label::Kind::Annotate),
        "patch" => patch::run(&mut ctx, &args),
        "logs" => logs::run(&mut ctx, &args),
        "debug" => debug::run(&mut ctx, &args),
        "top" => top::run(&mut ctx, &args),
        "explain" => explain::run(&mut ctx, &args),
        "taint" => taint::run(&mut ctx, &args),
        "set" => set::run(&mut ctx, &args),
        "cordon" => node::run(&mut ctx, &args, true),
        "uncordon" => node::run(&mut ctx, &args, false),
        "drain" => drain::run(&mut ctx, &args),
        "api-resources" => info::api_resources(&mut ctx, &args),
        "api-versions" => info::api_versions(&mut ctx, &args),
        "version" => info::version(&mut ctx, &args),
        "config" => config::run(&mut ctx, &args),
        "help" => match args.first() {
            None => Ok(Done::out(info::root_help())),
            Some(c) => info::command_help(c).map(Done::out).ok_or_else(|| unknown_help(c)),
        },
        other if ALL_COMMANDS.contains(&other) => Err(CmdError::msg(format!(
            "\"kubectl {other}\" is not available in this playground (it has no kubelets or containers to reach)"
        ))),
        other => Err(unknown_command(other)),
    }
}

fn unknown_help(cmd: &str) -> CmdError {
    CmdError::raw(format!("Unknown help topic [`{cmd}`]\n"))
}

/// cobra's unknown command error, with suggestions within Levenshtein distance 2 or by prefix.
fn unknown_command(cmd: &str) -> CmdError {
    let lower = cmd.to_lowercase();
    let suggestions: Vec<&str> = ALL_COMMANDS
        .iter()
        .copied()
        .filter(|c| *c != "help")
        .filter(|c| levenshtein(&lower, c) <= 2 || c.starts_with(&lower))
        .collect();
    let mut text = format!("Error: unknown command \"{cmd}\" for \"kubectl\"\n");
    if !suggestions.is_empty() {
        text.push_str("\nDid you mean this?\n");
        for s in suggestions {
            text.push_str(&format!("\t{s}\n"));
        }
        text.push('\n');
    }
    CmdError::raw(text)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            let v = (prev.get(j + 1).copied().unwrap_or(usize::MAX) + 1)
                .min(cur.get(j).copied().unwrap_or(usize::MAX) + 1)
                .min(prev.get(j).copied().unwrap_or(usize::MAX) + cost);
            cur.push(v);
        }
        prev = cur;
    }
    prev.last().copied().unwrap_or(0)
}

/// Common flags of commands that print the objects they change (`-o`, `--dry-run`).
pub(crate) const PRINT_FLAGS: &[FlagSpec] = &[
    flags::value("output", Some('o')),
    flags::value("dry-run", None),
    flags::value("field-manager", None),
    flags::boolean("allow-missing-template-keys", None),
    flags::boolean("show-managed-fields", None),
];

/// `--dry-run` values: kubectl accepts `none`, `client`, `server` (and bare `--dry-run` is
/// refused since v1.23).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DryRun {
    None,
    Client,
    Server,
}

pub(crate) fn dry_run(p: &Parsed) -> Result<DryRun, CmdError> {
    match p.last("dry-run") {
        None | Some("none") => Ok(DryRun::None),
        Some("client") => Ok(DryRun::Client),
        Some("server") => Ok(DryRun::Server),
        Some(other) => Err(CmdError::msg(format!(
            "Invalid dry-run value ({other}). Must be \"none\", \"server\", or \"client\"."
        ))),
    }
}

/// The `(dry run)` / `(server dry run)` suffix kubectl adds to its messages.
pub(crate) fn dry_run_suffix(d: DryRun) -> &'static str {
    match d {
        DryRun::None => "",
        DryRun::Client => " (dry run)",
        DryRun::Server => " (server dry run)",
    }
}

/// Prints a changed object: `-o` given → that format, else `<kind>/<name> <verb>`.
pub(crate) fn print_changed(
    p: &Parsed,
    obj: &serde_json::Value,
    verb: &str,
    dry: DryRun,
) -> Result<String, CmdError> {
    let format =
        crate::output::OutputFormat::parse(p.last("output"), crate::output::OBJECT_FORMATS)?;
    if format == crate::output::OutputFormat::Table {
        return Ok(format!(
            "{} {verb}{}\n",
            crate::output::object_ref(obj),
            dry_run_suffix(dry)
        ));
    }
    let allow_missing = p.last("allow-missing-template-keys") != Some("false");
    crate::output::ObjectPrinter::new(format, Default::default(), allow_missing)
        .show_managed_fields(p.flag("show-managed-fields"))
        .print_object(obj)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_like_cobra() {
        assert_eq!(
            unknown_command("foo").stderr,
            "Error: unknown command \"foo\" for \"kubectl\"\n\nDid you mean this?\n\ttop\n\n"
        );
        assert_eq!(
            unknown_command("zzzzzz").stderr,
            "Error: unknown command \"zzzzzz\" for \"kubectl\"\n"
        );
        assert!(unknown_command("gte").stderr.contains("\tget\n"));
        assert_eq!(levenshtein("kitten", "sitting"), 3);
    }
}
