//! `GET /api/v1/namespaces/NS/pods/NAME/log`: the API server's half of `kubectl logs`. It
//! decodes and validates the `PodLogOptions` of the query, picks the container, and asks the
//! pod's kubelet for the run's lines — here a pure reading of the pod's recorded status
//! ([`crate::controllers::kubelet::container_logs`]) in place of the real proxy to the node's
//! port 10250. Answers are the log text (`text/plain`), or a `Status` in the real words. A
//! `follow=true` request is a [`LogFollow`], polled as the clock moves, as a watch is.
//!
//! Upstream: `pkg/registry/core/pod/rest/log.go` (`LogREST.Get`: options validated, then
//! `LogLocation`), `pkg/registry/core/pod/strategy.go` (`LogLocation`, `validateContainer`: the
//! container named or the only one; a pod not yet on a node answers an empty body),
//! `pkg/apis/core/validation/validation.go` (`ValidatePodLogOptions`),
//! `staging/src/k8s.io/apiserver/pkg/registry/generic/rest/response_checker.go` (the kubelet's
//! refusal becomes a 400 whose message is its text).

use super::ApiServer;
use crate::api::behaviour::Behaviour;
use crate::api::pod::{Container, ContainerStatus, Pod};
use crate::api::Kind;
use crate::clock::Timestamp;
use crate::controllers::kubelet::container_logs::{
    read, render, run_lines, run_to_read, truncate_bytes, ReadOptions, RunRecord,
};
use watchlab_apimachinery::status::Status;
use watchlab_apimachinery::validation::FieldError;

/// `PodLogOptions` as the query carries them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodLogOptions {
    pub container: String,
    pub follow: bool,
    pub previous: bool,
    pub since_seconds: Option<i64>,
    pub since_time: Option<Timestamp>,
    pub timestamps: bool,
    pub tail_lines: Option<i64>,
    pub limit_bytes: Option<i64>,
}

/// `%XX` and `+` decoded, as Go's `url.ParseQuery` does.
fn unescape(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Go's `strconv.ParseBool`, as the query's conversion uses it.
fn parse_bool(name: &str, v: &str) -> Result<bool, Status> {
    match v {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" | "" => Ok(false),
        _ => Err(Status::bad_request(&format!(
            "{name}: strconv.ParseBool: parsing {v:?}: invalid syntax"
        ))),
    }
}

fn parse_int(name: &str, v: &str) -> Result<i64, Status> {
    v.parse().map_err(|_| {
        Status::bad_request(&format!(
            "{name}: strconv.ParseInt: parsing {v:?}: invalid syntax"
        ))
    })
}

impl PodLogOptions {
    /// The options of a query string (what follows `?`), then `ValidatePodLogOptions`.
    pub fn from_query(path_and_query: &str) -> Result<PodLogOptions, Status> {
        let query = path_and_query
            .split('#')
            .next()
            .and_then(|p| p.split_once('?'))
            .map_or("", |(_, q)| q);
        let mut o = PodLogOptions::default();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let v = unescape(v);
            match unescape(k).as_str() {
                "container" => o.container = v,
                "follow" => o.follow = parse_bool("follow", &v)?,
                "previous" => o.previous = parse_bool("previous", &v)?,
                "timestamps" => o.timestamps = parse_bool("timestamps", &v)?,
                "sinceSeconds" => o.since_seconds = Some(parse_int("sinceSeconds", &v)?),
                "tailLines" => o.tail_lines = Some(parse_int("tailLines", &v)?),
                "limitBytes" => o.limit_bytes = Some(parse_int("limitBytes", &v)?),
                "sinceTime" => {
                    o.since_time = Some(Timestamp::parse_rfc3339(&v).ok_or_else(|| {
                        Status::bad_request(&format!(
                            "sinceTime: parsing time {v:?} as \"2006-01-02T15:04:05Z07:00\": cannot parse"
                        ))
                    })?)
                }
                _ => {}
            }
        }
        Ok(o)
    }

    /// `ValidatePodLogOptions`.
    fn validate(&self, name: &str) -> Result<(), Status> {
        let mut errs = Vec::new();
        if let Some(n) = self.tail_lines.filter(|n| *n < 0) {
            errs.push(FieldError::invalid(
                "tailLines",
                n,
                "must be greater than or equal to 0",
            ));
        }
        if let Some(n) = self.limit_bytes.filter(|n| *n < 1) {
            errs.push(FieldError::invalid(
                "limitBytes",
                n,
                "must be greater than 0",
            ));
        }
        match (self.since_seconds, self.since_time) {
            (Some(_), Some(_)) => errs.push(FieldError::forbidden(
                "",
                "at most one of `sinceTime` or `sinceSeconds` may be specified",
            )),
            (Some(n), None) if n < 1 => errs.push(FieldError::invalid(
                "sinceSeconds",
                n,
                "must be greater than 0",
            )),
            _ => {}
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(Status::invalid("PodLogOptions", "", name, &errs))
        }
    }

    fn read_options(&self, now: Timestamp) -> ReadOptions {
        let since = match (self.since_seconds, self.since_time) {
            (Some(s), _) => Some(Timestamp::from_millis(
                now.as_millis()
                    .saturating_sub(u64::try_from(s).unwrap_or(0).saturating_mul(1000)),
            )),
            (None, t) => t,
        };
        ReadOptions {
            tail_lines: self.tail_lines.and_then(|n| u64::try_from(n).ok()),
            since,
            timestamps: self.timestamps,
            limit_bytes: self.limit_bytes.and_then(|n| u64::try_from(n).ok()),
        }
    }
}

/// One of a pod's containers as a log request reads it: its spec, its status (`None` before
/// the kubelet wrote one), and how its process behaves (an ephemeral container runs a debug
/// image, which ignores the pod's `watchlab.dev/behaviour`: it starts and keeps running).
struct LogContainer<'p> {
    spec: &'p Container,
    status: Option<&'p ContainerStatus>,
    behaviour: Behaviour,
}

/// The container `name` of `pod` — a regular one or an ephemeral one (`podHasContainerWithName`
/// visits every list) — with its status.
fn find_container<'p>(pod: &'p Pod, name: &str) -> Option<LogContainer<'p>> {
    let status_in = |list: &'p [ContainerStatus]| list.iter().find(|s| s.name == name);
    if let Some(c) = pod.spec.containers.iter().find(|c| c.name == name) {
        return Some(LogContainer {
            spec: c,
            status: status_in(&pod.status.container_statuses),
            behaviour: Behaviour::of(pod),
        });
    }
    let e = pod
        .spec
        .ephemeral_containers
        .iter()
        .find(|e| e.container.name == name)?;
    Some(LogContainer {
        spec: &e.container,
        status: status_in(&pod.status.ephemeral_container_statuses),
        behaviour: Behaviour::default(),
    })
}

/// `validateContainer`: the container named (it must be one of the pod's, ephemeral ones
/// included), or the only regular one; the choices listed are every container's.
fn container_of<'p>(pod: &'p Pod, asked: &str) -> Result<LogContainer<'p>, Status> {
    let name = pod.metadata.name.as_str();
    let containers = &pod.spec.containers;
    if asked.is_empty() {
        return match containers.len() {
            1 => find_container(pod, &containers[0].name)
                .ok_or_else(|| Status::internal_error("container vanished")),
            0 => Err(Status::bad_request(&format!(
                "a container name must be specified for pod {name}"
            ))),
            _ => {
                let names: Vec<&str> = containers
                    .iter()
                    .map(|c| c.name.as_str())
                    .chain(
                        pod.spec
                            .ephemeral_containers
                            .iter()
                            .map(|e| e.container.name.as_str()),
                    )
                    .collect();
                Err(Status::bad_request(&format!(
                    "a container name must be specified for pod {name}, choose one of: [{}]",
                    names.join(" ")
                )))
            }
        };
    }
    find_container(pod, asked).ok_or_else(|| {
        Status::bad_request(&format!("container {asked} is not valid for pod {name}"))
    })
}

/// What a log request resolved to: the run to read and how to print it.
struct Resolved {
    image: String,
    behaviour: Behaviour,
    container: String,
    run: RunRecord,
}

impl ApiServer {
    /// The run a log request reads (`None` for a pod not on a node yet: an empty log).
    fn resolve_log(
        &self,
        ns: Option<&str>,
        name: &str,
        opts: &PodLogOptions,
    ) -> Result<Option<Resolved>, Status> {
        opts.validate(name)?;
        let obj = self.get(Kind::Pod, ns, name)?;
        let Some(pod) = obj.as_pod() else {
            return Err(Status::internal_error("not a pod"));
        };
        let c = container_of(pod, &opts.container)?;
        if pod.spec.node_name.is_empty() {
            return Ok(None);
        }
        let run = run_to_read(name, &c.spec.name, c.status, opts.previous)
            .map_err(|m| Status::bad_request(&m))?;
        Ok(Some(Resolved {
            image: c.spec.image.clone(),
            behaviour: c.behaviour,
            container: c.spec.name.clone(),
            run,
        }))
    }

    /// A `pods/log` GET answered whole: the run's lines as the options ask (a `follow`
    /// request answered this way gets what there is now).
    pub fn pod_log(
        &self,
        ns: Option<&str>,
        name: &str,
        opts: &PodLogOptions,
    ) -> Result<String, Status> {
        let Some(r) = self.resolve_log(ns, name, opts)? else {
            return Ok(String::new());
        };
        let lines = run_lines(&r.image, &r.behaviour, r.run, self.now);
        Ok(read(&lines, &opts.read_options(self.now)))
    }

    /// Opens a `follow=true` read: the lines there are now (as [`ApiServer::pod_log`]), and a
    /// [`LogFollow`] that hands out the ones the run writes later.
    pub fn follow_pod_log(
        &self,
        ns: Option<&str>,
        name: &str,
        opts: &PodLogOptions,
    ) -> Result<(String, LogFollow), Status> {
        let resolved = self.resolve_log(ns, name, opts)?;
        let mut follow = LogFollow {
            namespace: ns.unwrap_or_default().to_string(),
            pod: name.to_string(),
            container: String::new(),
            run: None,
            sent: 0,
            timestamps: opts.timestamps,
            bytes_left: opts.limit_bytes.and_then(|n| u64::try_from(n).ok()),
        };
        let Some(r) = resolved else {
            return Ok((String::new(), follow));
        };
        let lines = run_lines(&r.image, &r.behaviour, r.run, self.now);
        let text = read(&lines, &opts.read_options(self.now));
        follow.container = r.container;
        follow.sent = lines.len();
        follow.run = Some(r.run);
        if let Some(left) = &mut follow.bytes_left {
            *left = left.saturating_sub(text.len() as u64);
        }
        Ok((text, follow))
    }
}

/// An open `follow=true` read of one run, polled as the clock moves: each poll gives the lines
/// written since the last; it ends when the run has exited and said its last (the kubelet's
/// `ReadLogs` stops following a container that is no longer running), when the pod or its run is
/// gone (a restart starts a new run: `kubectl logs -f` ends and is run again), or when
/// `limitBytes` is spent. It holds no lines, only how many it has sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFollow {
    namespace: String,
    pod: String,
    container: String,
    /// The run followed; `None` for a pod with no node yet (nothing will come).
    run: Option<RunRecord>,
    /// How many of the run's lines were sent.
    sent: usize,
    timestamps: bool,
    bytes_left: Option<u64>,
}

impl LogFollow {
    /// The text written since the last poll; `None` once the stream is over.
    pub fn poll(&mut self, api: &ApiServer) -> Option<String> {
        let started_at = self.run?.started_at;
        if self.bytes_left == Some(0) {
            return None;
        }
        let obj = api.get(Kind::Pod, Some(&self.namespace), &self.pod).ok()?;
        let pod = obj.as_pod()?;
        let found = find_container(pod, &self.container)?;
        let (c, cs) = (found.spec, found.status?);
        // The run followed, as the status records it now: still the current one, or already
        // the previous one (it exited and the container was restarted).
        let now_run = [&cs.state, &cs.last_state].into_iter().find_map(|s| {
            let run = match (&s.running, s.terminated.as_deref()) {
                (Some(r), _) => r.started_at.map(|started_at| RunRecord {
                    started_at,
                    exit: None,
                }),
                (None, Some(t)) => t.started_at.map(|started_at| RunRecord {
                    started_at,
                    exit: Some((t.finished_at.unwrap_or(started_at), t.exit_code)),
                }),
                _ => None,
            };
            run.filter(|r| r.started_at == started_at)
        })?;
        let lines = run_lines(&c.image, &found.behaviour, now_run, api.now());
        let mut text: String = lines
            .iter()
            .skip(self.sent)
            .map(|l| render(l, self.timestamps))
            .collect();
        self.sent = self.sent.max(lines.len());
        if let Some(left) = &mut self.bytes_left {
            truncate_bytes(&mut text, *left);
            *left -= text.len() as u64;
        }
        if now_run.exit.is_some() {
            // Its last words go out with this poll; the next ends the stream.
            self.run = None;
            if text.is_empty() {
                return None;
            }
        }
        Some(text)
    }
}
