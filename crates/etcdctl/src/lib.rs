//! etcdctl as an administrator types it (v3.5 syntax), over any [`EtcdClient`]: the global
//! flags (`--endpoints`, `-w`, `--hex`, timeouts), then `get`, `put`, `del`, `watch`,
//! `txn`, `compaction`, `lease`, `snapshot save`, `alarm list|disarm`, `defrag`, `member list`,
//! `endpoint status|health`, `move-leader` and `version`, printed as etcdctl prints them; and
//! [`etcdutl`]'s `snapshot status|restore`. A `watch` hands back the open [`Watching`] for the
//! caller to poll. The caller splits the line into words (the console's shell) and pipes the
//! output on.
//!
//! Errors are etcdctl's: `Error: <text>` on stderr with its exit codes (cobrautl's `ExitError`
//! 1, `ExitBadArgs` 128), cobra's texts for unknown commands and flags.

pub mod api;
mod args;
mod commands;
pub mod etcdutl;
mod fields;
mod json;
mod lease;
mod table;
mod txn;
mod watch;
mod writes;

pub use api::{
    Compare, CompareOp, CompareTarget, DeleteRangeResponse, EtcdClient, EtcdError, Event,
    EventType, KeyValue, LeaseTimeToLiveResponse, Member, PutResponse, RangeRequest, RangeResponse,
    RequestOp, ResponseHeader, ResponseOp, SnapshotStatus, StatusResponse, TxnResponse,
    WatchRequest, WatchResponse, DEADLINE_EXCEEDED,
};
pub use txn::TxnPrompt;
pub use watch::{Polled, Watching};

/// The version this etcdctl reports (etcd 3.5.16 is kubeadm's etcd for Kubernetes v1.32).
pub const VERSION: &str = "3.5.16";
/// etcdctl's default `--endpoints`.
pub const DEFAULT_ENDPOINT: &str = "127.0.0.1:2379";

/// cobrautl's exit codes.
pub const EXIT_ERROR: i32 = 1;
pub const EXIT_BAD_ARGS: i32 = 128;

/// What a command printed and how it exited.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
    /// A `watch` that goes on after what it printed first.
    pub watch: Option<Box<Watching>>,
    /// A `txn` waiting for its next input line.
    pub txn: Option<Box<TxnPrompt>>,
}

impl Outcome {
    fn ok(stdout: String) -> Self {
        Outcome {
            stdout,
            ..Outcome::default()
        }
    }

    fn error(code: i32, text: &str) -> Self {
        Outcome {
            stderr: format!("Error: {text}\n"),
            exit_code: code,
            ..Outcome::default()
        }
    }
}

/// `-w`: how a response is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteOut {
    Simple,
    Json,
    Table,
    /// `"Name" : value` lines (get, put and del here).
    Fields,
}

/// The global flags, and the command's own words and flags left after them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub endpoints: Vec<String>,
    pub write_out: WriteOut,
    pub hex: bool,
    /// The command and its arguments (flags of the command included, in order).
    pub words: Vec<String>,
}

/// Runs one etcdctl command line, given as words after `etcdctl` (`ETCDCTL_API=3` may come
/// before it on the line; the caller strips both).
pub fn run(words: &[String], client: &mut dyn EtcdClient) -> Outcome {
    match parse_globals(words) {
        Ok(inv) => commands::run(&inv, client),
        Err(out) => out,
    }
}

/// A flag's value: `--name=value` or `--name value`.
fn take_value(
    word: &str,
    name: &str,
    rest: &mut std::slice::Iter<'_, String>,
) -> Option<Result<String, Outcome>> {
    if let Some(v) = word.strip_prefix(&format!("{name}=")) {
        return Some(Ok(v.to_string()));
    }
    if word != name {
        return None;
    }
    Some(
        rest.next()
            .cloned()
            .ok_or_else(|| Outcome::error(EXIT_ERROR, &format!("flag needs an argument: {name}"))),
    )
}

fn parse_globals(words: &[String]) -> Result<Invocation, Outcome> {
    let mut inv = Invocation {
        endpoints: vec![DEFAULT_ENDPOINT.to_string()],
        write_out: WriteOut::Simple,
        hex: false,
        words: Vec::new(),
    };
    let mut rest = words.iter();
    while let Some(w) = rest.next() {
        if let Some(v) = take_value(w, "--endpoints", &mut rest) {
            inv.endpoints = v?
                .split(',')
                .filter(|e| !e.is_empty())
                .map(str::to_string)
                .collect();
        } else if let Some(v) =
            take_value(w, "--write-out", &mut rest).or_else(|| take_value(w, "-w", &mut rest))
        {
            inv.write_out = match v?.as_str() {
                "simple" => WriteOut::Simple,
                "json" => WriteOut::Json,
                "table" => WriteOut::Table,
                "fields" => WriteOut::Fields,
                other => {
                    return Err(Outcome::error(
                        EXIT_BAD_ARGS,
                        &format!("unknown output format {other:?}"),
                    ))
                }
            };
        } else if w == "--hex" {
            inv.hex = true;
        } else if let Some(v) = [
            "--command-timeout",
            "--dial-timeout",
            "--keepalive-time",
            "--keepalive-timeout",
        ]
        .iter()
        .find_map(|f| take_value(w, f, &mut rest))
        {
            v?;
        } else if [
            "--insecure-skip-tls-verify",
            "--insecure-transport",
            "--debug",
        ]
        .contains(&w.as_str())
        {
        } else if let Some(v) = ["--cacert", "--cert", "--key"]
            .iter()
            .find_map(|f| take_value(w, f, &mut rest))
        {
            // A kubeadm cluster's etcd wants client certificates; the page's members take any
            // client, so the files are accepted and not read.
            v?;
        } else if ["--user", "--password"]
            .iter()
            .any(|f| w == f || w.starts_with(&format!("{f}=")))
        {
            return Err(Outcome::error(
                EXIT_ERROR,
                "etcdserver: authentication is not enabled",
            ));
        } else {
            inv.words.push(w.clone());
        }
    }
    Ok(inv)
}
