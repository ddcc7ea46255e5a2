//! `etcdctl watch`, the one etcdctl command that does not end by itself: it opens a watch on
//! the first endpoint's member and prints each change as the member applies it, until Ctrl-C
//! or until the member cancels the watch (`ctlv3/command/watch_command.go`, the simple and
//! JSON printers). The caller polls the open [`Watching`] on its clock.

use crate::api::{EtcdClient, Event, EventType, WatchRequest, WatchResponse};
use crate::args::{first_member, int_flag, range_end, shown, unknown_flag};
use crate::json::{self, Object};
use crate::{Invocation, Outcome, WriteOut, EXIT_BAD_ARGS, EXIT_ERROR};

/// cobrautl's `ExitInterrupted`: how etcdctl exits once the server cancelled its watch.
const EXIT_INTERRUPTED: i32 = 5;
/// etcd's `progressReportInterval` (`api/v3rpc/watch.go`): a watch that asked for progress
/// notifications gets one every 10 minutes that passed without an event.
const PROGRESS_REPORT_MS: u64 = 10 * 60 * 1000;

/// An open watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Watching {
    member: usize,
    req: WatchRequest,
    json: bool,
    hex: bool,
    /// The member has answered once (until then each poll asks to create the watch).
    created: bool,
    /// When the next progress report is due, for a watch that asked for them.
    progress_due_ms: Option<u64>,
    /// Events went out since the last report was due.
    sent_since_report: bool,
}

/// What one poll printed; `ended` with etcdctl's exit code once the watch is over.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Polled {
    pub stdout: String,
    pub stderr: String,
    pub ended: Option<i32>,
}

struct WatchFlags {
    prefix: bool,
    rev: i64,
    prev_kv: bool,
    progress_notify: bool,
    keys: Vec<String>,
}

fn watch_flags(args: &[&str]) -> Result<WatchFlags, Outcome> {
    let mut f = WatchFlags {
        prefix: false,
        rev: 0,
        prev_kv: false,
        progress_notify: false,
        keys: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(&a) = it.next() {
        match a.split_once('=') {
            Some(("--rev", v)) => f.rev = int_flag("--rev", v)?,
            _ => match a {
                "--prefix" => f.prefix = true,
                "--prev-kv" => f.prev_kv = true,
                "--progress-notify" => f.progress_notify = true,
                "--rev" => {
                    let v = it.next().ok_or_else(|| {
                        Outcome::error(EXIT_ERROR, "flag needs an argument: --rev")
                    })?;
                    f.rev = int_flag("--rev", v)?;
                }
                "-i" | "--interactive" => {
                    return Err(Outcome::error(
                        EXIT_BAD_ARGS,
                        "interactive watch is not in this console: give the key on the line",
                    ))
                }
                "--" => {
                    return Err(Outcome::error(
                        EXIT_BAD_ARGS,
                        "this console runs no command per event (etcdctl watch KEY -- COMMAND)",
                    ))
                }
                flag if flag.starts_with('-') => return Err(unknown_flag(flag)),
                key => f.keys.push(key.to_string()),
            },
        }
    }
    Ok(f)
}

/// `etcdctl watch [--prefix] [--rev N] [--prev-kv] [--progress-notify] KEY [RANGE_END]`.
pub fn watch(inv: &Invocation, args: &[&str], client: &mut dyn EtcdClient) -> Outcome {
    let f = match watch_flags(args) {
        Ok(f) => f,
        Err(out) => return out,
    };
    if f.keys.is_empty() || f.keys.len() > 2 {
        return Outcome::error(EXIT_BAD_ARGS, "bad number of arguments");
    }
    if f.keys.len() == 2 && f.prefix {
        return Outcome::error(
            EXIT_BAD_ARGS,
            "`range_end` and `--prefix` are mutually exclusive",
        );
    }
    let member = match first_member(inv, client) {
        Ok(m) => m,
        Err(out) => return out,
    };
    let key = f.keys[0].clone();
    let range_end = range_end(&f.keys, f.prefix, false);
    let mut w = Watching {
        member,
        req: WatchRequest {
            key,
            range_end,
            start_revision: f.rev,
            prev_kv: f.prev_kv,
        },
        json: inv.write_out == WriteOut::Json,
        hex: inv.hex,
        created: false,
        progress_due_ms: f
            .progress_notify
            .then(|| client.now_ms() + PROGRESS_REPORT_MS),
        sent_since_report: false,
    };
    let first = w.poll(client);
    Outcome {
        stdout: first.stdout,
        stderr: first.stderr,
        exit_code: first.ended.unwrap_or(0),
        watch: first.ended.is_none().then(|| Box::new(w)),
        txn: None,
    }
}

impl Watching {
    /// Asks the member for what it applied since the last poll and prints it.
    pub fn poll(&mut self, client: &mut dyn EtcdClient) -> Polled {
        let mut out = Polled::default();
        match client.watch(self.member, &self.req, !self.created) {
            Ok(None) => {}
            Ok(Some(resp)) => {
                self.created = true;
                self.req.start_revision = resp.header.revision + 1;
                if !resp.events.is_empty() {
                    self.sent_since_report = true;
                    out.stdout.push_str(&self.print(&resp, false));
                }
                self.report_progress(client.now_ms(), &resp, &mut out);
            }
            Err(e) => {
                if self.json {
                    out.stdout
                        .push_str(&self.print(&WatchResponse::default(), true));
                }
                out.stderr = format!(
                    "watch was canceled ({})\nError: watch is canceled by the server\n",
                    e.0
                );
                out.ended = Some(EXIT_INTERRUPTED);
            }
        }
        out
    }

    fn report_progress(&mut self, now_ms: u64, resp: &WatchResponse, out: &mut Polled) {
        let Some(due) = self.progress_due_ms else {
            return;
        };
        if now_ms < due {
            return;
        }
        if !self.sent_since_report {
            out.stdout
                .push_str(&format!("progress notify: {}\n", resp.header.revision));
            if self.json {
                let empty = WatchResponse {
                    header: resp.header,
                    events: Vec::new(),
                };
                out.stdout.push_str(&self.print(&empty, false));
            }
        }
        self.sent_since_report = false;
        let missed = (now_ms - due) / PROGRESS_REPORT_MS + 1;
        self.progress_due_ms = Some(due + missed * PROGRESS_REPORT_MS);
    }

    /// The simple printer (`PUT`/`DELETE`, then the previous and the new key and value), or
    /// the JSON of clientv3's `WatchResponse`.
    fn print(&self, resp: &WatchResponse, canceled: bool) -> String {
        if self.json {
            return format!("{}\n", response_json(resp, canceled));
        }
        let mut text = String::new();
        let mut line = |s: &str| {
            text.push_str(&shown(self.hex, s));
            text.push('\n');
        };
        for e in &resp.events {
            line(match e.kind {
                EventType::Put => "PUT",
                EventType::Delete => "DELETE",
            });
            for kv in e.prev_kv.iter().chain([&e.kv]) {
                line(&kv.key);
                line(&kv.value);
            }
        }
        text
    }
}

/// clientv3's `WatchResponse` through Go's `encoding/json` (its struct fields are not
/// protobuf's: capitalized, none left out).
fn response_json(resp: &WatchResponse, canceled: bool) -> String {
    let events: Vec<String> = resp.events.iter().map(event_json).collect();
    Object::new()
        .raw("Header", &json::header(&resp.header))
        .raw(
            "Events",
            &if events.is_empty() {
                "null".to_string()
            } else {
                format!("[{}]", events.join(","))
            },
        )
        .value("CompactRevision", 0)
        .value("Canceled", canceled)
        .value("Created", false)
        .finish()
}

/// `mvccpb.Event`: its type is left out for a put (0).
fn event_json(e: &Event) -> String {
    let mut o = Object::new()
        .number(
            "type",
            match e.kind {
                EventType::Put => 0,
                EventType::Delete => 1,
            },
        )
        .raw("kv", &json::key_value(&e.kv));
    if let Some(prev) = &e.prev_kv {
        o = o.raw("prev_kv", &json::key_value(prev));
    }
    o.finish()
}
