//! watchlab's kubectl: the console in the page runs the seed texts' kubectl command lines
//! verbatim and answers with kubectl's own output formats and error texts. It talks to the API
//! server only through [`ApiClient`], with the same paths, query strings and JSON bodies the
//! real kubectl sends over HTTP.
//!
//! - [`Kubectl::exec`] runs one line (shell quoting, `#` comments, `| tail/head/grep`) and
//!   returns an [`Outcome`]; a `-w` command also returns a [`Follow`] to poll as the cluster
//!   advances ([`Follow::poll`] → [`FollowOutput`]; [`Follow::stop`] closes it).
//! - `get` asks the server for `meta.k8s.io` Tables (the Accept header kubectl sends) and
//!   [`table_printer`] lays them out with kubectl's decorations; the columns and cells are the
//!   server's, as with the real kubectl. `describe` stays client-side, as kubectl's describers
//!   are.
//!
//! ```text
//! let mut k = Kubectl::new();
//! let out = k.exec("kubectl get pods -n production -w", &mut client);
//! // out.stdout: the table; out.follow: the open watch, polled as the cluster advances
//! ```
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod commands;
pub mod errors;
pub mod flags;
pub mod follow;
pub mod manifest;
pub mod merge_patch;
pub mod output;
pub mod query;
pub mod resources;
pub mod shell;
pub mod sort;
pub mod table_printer;
pub mod tabwriter;
pub mod targets;
mod warnings;

pub use follow::{Follow, FollowOutput};
use std::collections::BTreeMap;
use watchlab_apimachinery::client::ApiClient;

/// Longest console line accepted (bytes).
pub const MAX_LINE: usize = 16 * 1024;
/// Lines kept for ↑/↓ history.
pub const MAX_HISTORY: usize = 500;
/// Output beyond this many bytes is cut, with a note, so one command cannot flood the page.
pub const MAX_OUTPUT: usize = 1024 * 1024;
/// Most virtual files (`set_file`) kept.
pub const MAX_FILES: usize = 256;

/// What one command line produced.
#[derive(Debug, Default)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
    /// An open `-w` stream for the console to poll, if the command started one.
    pub follow: Option<Follow>,
}

/// The console's kubectl: its current namespace (kubeconfig context), the virtual files that
/// `apply -f` reads, and the history of lines.
#[derive(Debug, Clone)]
pub struct Kubectl {
    namespace: String,
    files: BTreeMap<String, String>,
    history: Vec<String>,
}

impl Default for Kubectl {
    fn default() -> Self {
        Self::new()
    }
}

impl Kubectl {
    /// A kubectl in namespace `default` (kubeconfig's default when a context sets none).
    pub fn new() -> Self {
        Kubectl {
            namespace: "default".into(),
            files: BTreeMap::new(),
            history: Vec::new(),
        }
    }

    /// Stores a file for `-f NAME` (`-` is standard input).
    pub fn set_file(&mut self, name: &str, content: &str) {
        if self.files.len() >= MAX_FILES && !self.files.contains_key(name) {
            if let Some(oldest) = self.files.keys().next().cloned() {
                self.files.remove(&oldest);
            }
        }
        self.files.insert(name.to_string(), content.to_string());
    }

    /// A stored file.
    pub fn file(&self, name: &str) -> Option<&str> {
        self.files.get(name).map(String::as_str)
    }

    /// The namespace commands use without `-n`.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The lines run so far, oldest first.
    pub fn history(&self) -> &[String] {
        &self.history
    }

    /// The same kubectl (namespace and files) with no history: one that runs a line nobody
    /// typed, as a lab's check does, and is then dropped.
    pub fn without_history(&self) -> Kubectl {
        Kubectl {
            namespace: self.namespace.clone(),
            files: self.files.clone(),
            history: Vec::new(),
        }
    }

    /// Runs one console line.
    pub fn exec(&mut self, line: &str, client: &mut dyn ApiClient) -> Outcome {
        self.exec_beside(line, client, &mut |_| None)
    }

    /// Runs one console line, letting `beside` run a command of another program the console
    /// offers (its words, `etcdctl` first): it answers `Some((stdout, stderr, exit code))` for
    /// its own commands, `None` for kubectl's. The line's history, shell and pipe filters are
    /// the same for both.
    pub fn exec_beside(
        &mut self,
        line: &str,
        client: &mut dyn ApiClient,
        beside: &mut Beside<'_>,
    ) -> Outcome {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return Outcome::default();
        }
        if line.len() > MAX_LINE {
            return Outcome {
                stderr: format!("error: the line is longer than {MAX_LINE} bytes\n"),
                exit_code: 1,
                ..Outcome::default()
            };
        }
        self.remember(trimmed);
        let pipeline = match shell::parse_pipeline(trimmed) {
            Ok(p) => p,
            Err(e) => {
                let code = if matches!(e, shell::ShellError::UnsupportedFilter(_)) {
                    127
                } else {
                    2
                };
                return Outcome {
                    stderr: format!("bash: {e}\n"),
                    exit_code: code,
                    ..Outcome::default()
                };
            }
        };
        if let Some((stdout, stderr, exit_code)) = beside(&pipeline.words) {
            return Outcome {
                stdout: cap(shell::apply_filters(&stdout, &pipeline.filters)),
                stderr: cap(stderr),
                exit_code,
                follow: None,
            };
        }
        let mut words = pipeline.words.as_slice();
        if let Some(first) = words.first() {
            if first == "kubectl" || first == "k" {
                words = &words[1..];
            }
        }
        if pipeline.words.is_empty() {
            return Outcome::default();
        }
        let mut recorder = warnings::Recorder::new(client);
        let done = commands::run(self, words, &mut recorder);
        let warned = recorder.into_stderr();
        let (stdout, stderr, exit_code, follow) = match done {
            Ok(d) => (d.stdout, warned + &d.stderr, d.exit_code, d.follow),
            Err(e) => (String::new(), warned + &e.stderr, e.exit_code, None),
        };
        let (stdout, follow) = match follow {
            Some(mut f) => {
                let shown = f.with_filters(pipeline.filters.clone(), &stdout);
                (shown, Some(f))
            }
            None => (shell::apply_filters(&stdout, &pipeline.filters), None),
        };
        Outcome {
            stdout: cap(stdout),
            stderr: cap(stderr),
            exit_code,
            follow,
        }
    }

    fn remember(&mut self, line: &str) {
        if self.history.last().map(String::as_str) != Some(line) {
            self.history.push(line.to_string());
        }
        if self.history.len() > MAX_HISTORY {
            let extra = self.history.len() - MAX_HISTORY;
            self.history.drain(..extra);
        }
    }
}

/// Another program's commands on the console's lines ([`Kubectl::exec_beside`]): its words
/// in, `Some((stdout, stderr, exit code))` out, `None` for a kubectl line.
pub type Beside<'a> = dyn FnMut(&[String]) -> Option<(String, String, i32)> + 'a;

/// Cuts `text` at [`MAX_OUTPUT`] on a character boundary, with a note.
pub(crate) fn cap(mut text: String) -> String {
    if text.len() <= MAX_OUTPUT {
        return text;
    }
    let mut cut = MAX_OUTPUT;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    text.push_str("\n... (output truncated)\n");
    text
}
