//! What a container's process printed, as the kubelet serves it for `pods/log`: the lines of one
//! run of one container, each with the virtual instant it was written, and the kubelet's reading
//! of them (`ReadLogs`: tail, since, timestamps, byte limit). Kept apart from the runtime
//! because nothing here is stored: a run's lines are *derived* on demand from what the pod's
//! status already records about the run — when it started, when and with which code it exited
//! (`state` for the current run, `lastState.terminated` for the one before) — plus the image
//! and the pod's `watchlab.dev/behaviour`. A pod nobody reads costs no memory; a read costs a
//! few dozen short strings.
//!
//! Upstream: `pkg/kubelet/kubelet_pods.go` (`validateContainerLogStatus`: which run a request
//! reads, and its refusals), `pkg/kubelet/kuberuntime/logs/logs.go` (`ReadLogs`: the tail is
//! found first, then lines before `since` are skipped; timestamps are
//! `RFC3339NanoFixed`, `pkg/kubelet/types/constants.go`; `limitBytes` cuts the output, a line
//! included), `pkg/kubelet/apis/config/v1beta1/defaults.go` (`containerLogMaxSize` 10Mi).
//!
//! What the process prints is the simulation's own: an image named `nginx` prints the official
//! image's entrypoint and nginx's start notices; any other image prints one line per thing its
//! behaviour makes it do (start, ready after its warm-up, hang, crash with its exit code, finish).
//! A process killed by the kubelet (exit 137, failed liveness) prints nothing more; probe
//! failures are the kubelet's Events, not the container's output.

use crate::api::behaviour::Behaviour;
use crate::api::pod::{ContainerState, ContainerStateTerminated, ContainerStatus};
use crate::clock::Timestamp;
use crate::controllers::container_lifecycle::KILLED_EXIT_CODE;

/// The lines one run keeps: the kubelet reads only the current log file, which the runtime
/// rotates at `containerLogMaxSize` (10 MiB by default); at a typical 128 bytes a line that is
/// 81 920 lines, the newest kept. A derived run prints far fewer; the bound holds anyway.
pub const MAX_LINES_PER_RUN: usize = 10 * 1024 * 1024 / 128;

/// One line a process wrote, at the instant it wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    pub at: Timestamp,
    pub text: String,
}

/// What the pod's status records about one run of a container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunRecord {
    pub started_at: Timestamp,
    /// When and with which code it exited; `None` while it runs.
    pub exit: Option<(Timestamp, i32)>,
}

impl RunRecord {
    fn of_terminated(t: &ContainerStateTerminated) -> Option<RunRecord> {
        let started_at = t.started_at?;
        Some(RunRecord {
            started_at,
            exit: Some((t.finished_at.unwrap_or(started_at), t.exit_code)),
        })
    }

    fn of_state(s: &ContainerState) -> Option<RunRecord> {
        if let Some(r) = &s.running {
            return r.started_at.map(|started_at| RunRecord {
                started_at,
                exit: None,
            });
        }
        s.terminated.as_deref().and_then(RunRecord::of_terminated)
    }
}

/// `validateContainerLogStatus`: the run a request reads — the previous one with `previous`,
/// else the running one, else the last that exited — or the kubelet's refusal (the API server
/// answers it as 400 BadRequest). `status` is the container's status, `None` when the pod's
/// status has none for it yet.
pub fn run_to_read(
    pod: &str,
    container: &str,
    status: Option<&ContainerStatus>,
    previous: bool,
) -> Result<RunRecord, String> {
    let Some(cs) = status else {
        return Err(format!(
            "container {container:?} in pod {pod:?} is not available"
        ));
    };
    let last = cs.last_state.terminated.as_deref();
    let state = &cs.state;
    let found = if previous {
        last.and_then(RunRecord::of_terminated).ok_or_else(|| {
            format!("previous terminated container {container:?} in pod {pod:?} not found")
        })?
    } else if state.running.is_some() || state.terminated.is_some() {
        RunRecord::of_state(state)
            .ok_or_else(|| format!("container {container:?} in pod {pod:?} is terminated"))?
    } else if let Some(t) = last {
        RunRecord::of_terminated(t)
            .ok_or_else(|| format!("container {container:?} in pod {pod:?} is terminated"))?
    } else if let Some(w) = &state.waiting {
        return Err(match w.reason.as_str() {
            "ErrImagePull" => {
                format!("container {container:?} in pod {pod:?} is waiting to start: image can't be pulled")
            }
            "ImagePullBackOff" => format!(
                "container {container:?} in pod {pod:?} is waiting to start: trying and failing to pull image"
            ),
            reason => {
                format!("container {container:?} in pod {pod:?} is waiting to start: {reason}")
            }
        });
    } else {
        return Err(format!(
            "container {container:?} in pod {pod:?} is waiting to start - no logs yet"
        ));
    };
    Ok(found)
}

/// The program an image runs, for its lines: the last path segment without tag or digest
/// (`docker.io/library/nginx:1.27` → `nginx`).
fn program(image: &str) -> &str {
    let no_digest = image.split('@').next().unwrap_or(image);
    let last = no_digest.rsplit('/').next().unwrap_or(no_digest);
    let name = last.split(':').next().unwrap_or(last);
    if name.is_empty() {
        "app"
    } else {
        name
    }
}

/// The image's tag, if any (`nginx:1.27` → `1.27`).
fn tag(image: &str) -> Option<&str> {
    let no_digest = image.split('@').next().unwrap_or(image);
    let last = no_digest.rsplit('/').next().unwrap_or(no_digest);
    last.split_once(':')
        .map(|(_, t)| t)
        .filter(|t| !t.is_empty())
}

/// nginx's own time format in its error log (`2026/01/01 00:00:05`).
fn nginx_time(at: Timestamp) -> String {
    let t = at.to_rfc3339(); // 2026-01-01T00:00:05Z
    let (date, time) = t.split_once('T').unwrap_or((&t, ""));
    format!("{} {}", date.replace('-', "/"), time.trim_end_matches('Z'))
}

/// Everything the run printed up to `now`, oldest first, at most [`MAX_LINES_PER_RUN`] (the
/// newest). `image` and `behaviour` are the container's as the pod says them now.
pub fn run_lines(
    image: &str,
    behaviour: &Behaviour,
    run: RunRecord,
    now: Timestamp,
) -> Vec<LogLine> {
    let start = run.started_at;
    let mut lines: Vec<LogLine> = Vec::new();
    let mut say = |at: Timestamp, text: String| lines.push(LogLine { at, text });
    let prog = program(image);
    let nginx = prog == "nginx";
    if nginx {
        for text in [
            "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration",
            "/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/",
            "/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh",
            "10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf",
            "/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh",
            "/docker-entrypoint.sh: Launching /docker-entrypoint.d/30-tune-worker-processes.sh",
            "/docker-entrypoint.sh: Configuration complete; ready for start up",
        ] {
            say(start, text.to_string());
        }
        let ts = nginx_time(start);
        say(
            start,
            format!("{ts} [notice] 1#1: using the \"epoll\" event method"),
        );
        if let Some(v) = tag(image) {
            say(start, format!("{ts} [notice] 1#1: nginx/{v}"));
        }
        say(start, format!("{ts} [notice] 1#1: start worker processes"));
        say(start, format!("{ts} [notice] 1#1: start worker process 29"));
    } else {
        say(start, format!("{prog}: starting"));
    }
    let end = run.exit.map(|(at, _)| at);
    let during = |at: Timestamp| end.is_none_or(|e| at < e);
    if behaviour.ready_after_ms > 0 {
        let at = start.plus_millis(behaviour.ready_after_ms);
        if during(at) {
            say(at, format!("{prog}: warm-up done, accepting connections"));
        }
    }
    if let Some(after) = behaviour.unhealthy_after_ms {
        let at = start.plus_millis(after);
        if during(at) {
            say(at, format!("{prog}: worker stopped responding"));
        }
    }
    if let Some((at, code)) = run.exit {
        match code {
            0 => say(at, format!("{prog}: done, exiting")),
            KILLED_EXIT_CODE => {} // SIGKILL: the process gets no chance to print.
            code if nginx => say(
                at,
                format!(
                    "{} [emerg] 1#1: fatal error, exiting with code {code}",
                    nginx_time(at)
                ),
            ),
            code => say(at, format!("{prog}: fatal error, exiting with code {code}")),
        }
    }
    lines.retain(|l| l.at <= now);
    let over = lines.len().saturating_sub(MAX_LINES_PER_RUN);
    lines.drain(..over);
    lines
}

/// How a request reads a run's lines (`PodLogOptions` as the kubelet applies them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReadOptions {
    pub tail_lines: Option<u64>,
    /// Lines written before this instant are skipped.
    pub since: Option<Timestamp>,
    pub timestamps: bool,
    pub limit_bytes: Option<u64>,
}

/// `RFC3339NanoFixed` (`2006-01-02T15:04:05.000000000Z07:00`), what `--timestamps` prefixes.
pub fn nano_timestamp(at: Timestamp) -> String {
    let secs = at.to_rfc3339();
    let ms = at.as_millis() % 1000;
    format!("{}.{ms:03}000000Z", secs.trim_end_matches('Z'))
}

/// One line as served: with its timestamp when asked, and its newline.
pub fn render(line: &LogLine, timestamps: bool) -> String {
    if timestamps {
        format!("{} {}\n", nano_timestamp(line.at), line.text)
    } else {
        format!("{}\n", line.text)
    }
}

/// `ReadLogs` over a run's lines: the last `tail_lines` first, then those before `since`
/// skipped, each rendered, the whole cut at `limit_bytes`.
pub fn read(lines: &[LogLine], opts: &ReadOptions) -> String {
    let from = opts.tail_lines.map_or(0, |n| {
        lines
            .len()
            .saturating_sub(usize::try_from(n).unwrap_or(usize::MAX))
    });
    let mut out = String::new();
    for l in &lines[from..] {
        if opts.since.is_some_and(|s| l.at < s) {
            continue;
        }
        out.push_str(&render(l, opts.timestamps));
    }
    if let Some(limit) = opts.limit_bytes {
        truncate_bytes(&mut out, limit);
    }
    out
}

/// Cuts `s` to at most `limit` bytes, on a character boundary.
pub fn truncate_bytes(s: &mut String, limit: u64) {
    let mut cut = usize::try_from(limit).unwrap_or(usize::MAX).min(s.len());
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    s.truncate(cut);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(start_s: u64, exit: Option<(u64, i32)>) -> RunRecord {
        RunRecord {
            started_at: Timestamp::from_secs(start_s),
            exit: exit.map(|(s, c)| (Timestamp::from_secs(s), c)),
        }
    }

    #[test]
    fn a_crashing_run_prints_its_start_and_its_exit() {
        let b = Behaviour::parse("crash-after=30s,exit-code=3").unwrap_or_default();
        let lines = run_lines(
            "busybox:1.36",
            &b,
            run(10, Some((40, 3))),
            Timestamp::from_secs(99),
        );
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "busybox: starting",
                "busybox: fatal error, exiting with code 3"
            ]
        );
        assert_eq!(lines[1].at, Timestamp::from_secs(40));
    }

    #[test]
    fn lines_not_yet_written_are_not_served() {
        let b = Behaviour::parse("ready-after=20s").unwrap_or_default();
        let early = run_lines("app", &b, run(0, None), Timestamp::from_secs(19));
        let later = run_lines("app", &b, run(0, None), Timestamp::from_secs(20));
        assert_eq!((early.len(), later.len()), (1, 2));
    }

    #[test]
    fn a_killed_process_prints_nothing_at_its_end() {
        let b = Behaviour::parse("unhealthy-after=1m").unwrap_or_default();
        let lines = run_lines("app", &b, run(0, Some((90, 137))), Timestamp::from_secs(99));
        assert_eq!(
            lines.last().map(|l| l.text.as_str()),
            Some("app: worker stopped responding")
        );
    }

    #[test]
    fn tail_comes_before_since_and_the_limit_cuts_bytes() {
        let lines: Vec<LogLine> = (0..5)
            .map(|i| LogLine {
                at: Timestamp::from_secs(i),
                text: format!("l{i}"),
            })
            .collect();
        let opts = ReadOptions {
            tail_lines: Some(3),
            since: Some(Timestamp::from_secs(3)),
            ..Default::default()
        };
        assert_eq!(read(&lines, &opts), "l3\nl4\n");
        let opts = ReadOptions {
            limit_bytes: Some(4),
            ..Default::default()
        };
        assert_eq!(read(&lines, &opts), "l0\nl");
        assert_eq!(
            nano_timestamp(Timestamp::from_millis(5_250)),
            "2026-01-01T00:00:05.250000000Z"
        );
    }

    #[test]
    fn refusals_are_the_kubelets() {
        let waiting = ContainerStatus {
            name: "c".into(),
            state: ContainerState {
                waiting: Some(crate::api::pod::ContainerStateWaiting {
                    reason: "ContainerCreating".into(),
                    message: String::new(),
                }),
                ..Default::default()
            },
            ..Default::default()
        };
        assert_eq!(
            run_to_read("x", "c", Some(&waiting), false),
            Err("container \"c\" in pod \"x\" is waiting to start: ContainerCreating".into())
        );
        assert_eq!(
            run_to_read("x", "c", Some(&waiting), true),
            Err("previous terminated container \"c\" in pod \"x\" not found".into())
        );
    }
}
