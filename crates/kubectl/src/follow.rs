//! An open `kubectl get -w` (or `get --raw '...?watch=true'`) stream. The console polls it
//! whenever the cluster advances and appends what it returns: one table row per event with no
//! repeated header (widths remembered like kubectl's tabwriter), or the raw JSON event lines.
//! Like kubectl's `UntilWithoutRetry`, it ends when the server ends the stream.
//!
//! A `kubectl drain` that is still waiting (a budget's 429 to retry in 5 s, evicted pods not
//! yet gone) is followed the same way, with no stream: each poll does what kubectl would
//! have done by the cluster's current time and prints it, and it ends with the drain.

use crate::errors::CmdError;
use crate::output::ObjectPrinter;
use crate::resources::ResourceType;
use crate::shell::{grep_keeps, Filter};
use crate::targets::{as_table, with_type_meta};
use serde_json::Value;
use watchlab_apimachinery::client::virtual_now_unix_ms;
use watchlab_apimachinery::client::{ApiClient, WatchId};

/// What a poll produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FollowOutput {
    pub stdout: String,
    pub stderr: String,
    /// The stream is over; stop polling.
    pub ended: bool,
}

#[derive(Debug, Clone)]
enum Mode {
    /// `get --raw`: print the event lines verbatim.
    Raw,
    /// `get -w`: print each event's object.
    Objects {
        rt: Box<ResourceType>,
        printer: Box<ObjectPrinter>,
    },
    /// A command going on over virtual time without a stream (`kubectl drain`).
    Task(Box<dyn Ongoing>),
}

/// A command that keeps working as virtual time goes on, with no stream of its own to follow
/// (`kubectl drain` retrying a budget's 429 and waiting for its pods to go): each poll does
/// what is due by the cluster's current time. Implemented by the command, so this module
/// need not know it.
pub(crate) trait Ongoing: std::fmt::Debug {
    /// Does what is due by now; true once the command is done.
    fn advance(&mut self, client: &mut dyn ApiClient) -> bool;
    /// What it printed since the last call (stdout, stderr), its last words once `finished`.
    fn take_output(&mut self, finished: bool) -> (String, String);
    /// A copy (a [`Follow`] is cloned with the console's state).
    fn clone_box(&self) -> Box<dyn Ongoing>;
}

impl Clone for Box<dyn Ongoing> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// An open watch stream.
#[derive(Debug, Clone)]
pub struct Follow {
    /// The watch stream; `None` for a drain.
    id: Option<WatchId>,
    mode: Mode,
    filters: Vec<Filter>,
    /// Lines each `head` filter has let through so far.
    head_seen: Vec<usize>,
    /// A `head` filter is satisfied: the stream is closed at the next poll.
    head_done: bool,
    ended: bool,
}

/// One watch event's row: for the default and wide output, the one-row Table the server
/// printed (a `get -w` asks for Tables; NAME and AGE from a server without them), else the
/// plain object as the output format prints it.
fn print_event(
    rt: &ResourceType,
    printer: &mut ObjectPrinter,
    event: &str,
    object: Value,
    now_unix_ms: i64,
) -> Result<String, CmdError> {
    if printer.format().is_server_printed() {
        let table = as_table(rt, object, now_unix_ms)?;
        return Ok(printer.print_table(Some(rt), &table, Some(event)));
    }
    let object = with_type_meta(rt, object);
    printer.print_items(Some(rt), &[object], Some(&[event.to_string()]), now_unix_ms)
}

impl Follow {
    /// Follows a raw watch (`get --raw`).
    pub(crate) fn raw(id: WatchId) -> Follow {
        Follow {
            id: Some(id),
            mode: Mode::Raw,
            filters: Vec::new(),
            head_seen: Vec::new(),
            head_done: false,
            ended: false,
        }
    }

    /// Follows `get -w`, continuing the printer that printed the initial list.
    pub(crate) fn objects(id: WatchId, rt: ResourceType, printer: ObjectPrinter) -> Follow {
        Follow {
            id: Some(id),
            mode: Mode::Objects {
                rt: Box::new(rt),
                printer: Box::new(printer),
            },
            filters: Vec::new(),
            head_seen: Vec::new(),
            head_done: false,
            ended: false,
        }
    }

    /// Follows a command that has more to do over virtual time (`kubectl drain`).
    pub(crate) fn task(task: Box<dyn Ongoing>) -> Follow {
        Follow {
            id: None,
            mode: Mode::Task(task),
            filters: Vec::new(),
            head_seen: Vec::new(),
            head_done: false,
            ended: false,
        }
    }

    /// Sets the pipeline filters (`| grep x`, `| head -3`) and runs the command's initial
    /// output through them, returning what is shown. `head` counts across the whole stream and
    /// closes it once satisfied; `tail` can only see one poll's lines at a time.
    pub(crate) fn with_filters(&mut self, filters: Vec<Filter>, initial: &str) -> String {
        self.head_seen = vec![0; filters.len()];
        self.filters = filters;
        self.filter(initial)
    }

    fn filter(&mut self, text: &str) -> String {
        let mut lines: Vec<&str> = text.lines().collect();
        for (i, f) in self.filters.iter().enumerate() {
            lines = match f {
                Filter::Head(n) => {
                    let seen = self.head_seen.get(i).copied().unwrap_or(0);
                    let keep: Vec<&str> = lines.into_iter().take(n.saturating_sub(seen)).collect();
                    if let Some(s) = self.head_seen.get_mut(i) {
                        *s += keep.len();
                        if *s >= *n {
                            self.head_done = true;
                        }
                    }
                    keep
                }
                Filter::Tail(n) => lines.split_off(lines.len().saturating_sub(*n)),
                grep => lines.into_iter().filter(|l| grep_keeps(grep, l)).collect(),
            };
        }
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    /// The server's id of the stream (`None` for a drain, which follows no stream).
    pub fn watch_id(&self) -> Option<WatchId> {
        self.id
    }

    /// Closes the server's stream, if there is one.
    fn close(&self, client: &mut dyn ApiClient) {
        if let Some(id) = self.id {
            client.stop_watch(id);
        }
    }

    /// An ongoing command's poll: what it did by now, filtered.
    fn poll_task(&mut self, client: &mut dyn ApiClient) -> FollowOutput {
        let Mode::Task(task) = &mut self.mode else {
            return FollowOutput::default();
        };
        let finished = task.advance(client);
        let (stdout, stderr) = task.take_output(finished);
        self.ended = finished || self.head_done;
        FollowOutput {
            stdout: crate::cap(self.filter(&stdout)),
            stderr: crate::cap(stderr),
            ended: self.ended,
        }
    }

    /// New output since the last poll.
    pub fn poll(&mut self, client: &mut dyn ApiClient) -> FollowOutput {
        if self.head_done && !self.ended {
            self.ended = true;
            self.close(client);
        }
        if self.ended {
            return FollowOutput {
                ended: true,
                ..FollowOutput::default()
            };
        }
        if matches!(self.mode, Mode::Task(_)) {
            return self.poll_task(client);
        }
        let Some(id) = self.id else {
            self.ended = true;
            return FollowOutput {
                ended: true,
                ..FollowOutput::default()
            };
        };
        let Some(lines) = client.poll_watch(id) else {
            self.ended = true;
            return FollowOutput {
                ended: true,
                ..FollowOutput::default()
            };
        };
        let now = virtual_now_unix_ms(client.now_ms());
        let mut out = FollowOutput::default();
        for line in lines {
            match &mut self.mode {
                Mode::Task(_) => {}
                Mode::Raw => {
                    out.stdout.push_str(line.trim_end());
                    out.stdout.push('\n');
                }
                Mode::Objects { rt, printer } => {
                    let Ok(event) = serde_json::from_str::<Value>(&line) else {
                        out.stderr
                            .push_str("error: unable to decode a watch event\n");
                        continue;
                    };
                    let kind = event
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let object = event.get("object").cloned().unwrap_or(Value::Null);
                    match kind {
                        "BOOKMARK" => {}
                        "ERROR" => {
                            let msg =
                                watchlab_apimachinery::unstructured::string(&object, &["message"]);
                            out.stderr.push_str(&format!("error: {msg}\n"));
                            self.ended = true;
                            out.ended = true;
                            client.stop_watch(id);
                            break;
                        }
                        _ => match print_event(rt, printer, kind, object, now) {
                            Ok(text) => out.stdout.push_str(&text),
                            Err(e) => out.stderr.push_str(&e.stderr),
                        },
                    }
                }
            }
        }
        out.stdout = crate::cap(self.filter(&out.stdout));
        if self.head_done && !self.ended {
            self.ended = true;
            out.ended = true;
            client.stop_watch(id);
        }
        out
    }

    /// Closes the stream (the console's Ctrl-C).
    pub fn stop(self, client: &mut dyn ApiClient) {
        if !self.ended {
            self.close(client);
        }
    }
}
