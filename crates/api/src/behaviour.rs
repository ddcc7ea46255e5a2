//! What a simulated container does once started: watchlab runs no processes, so a pod says how
//! its containers behave in the annotation `watchlab.dev/behaviour`, a comma-separated list of
//! clauses a learner can type in a manifest or with
//! `kubectl run NAME --image=IMAGE --annotations=watchlab.dev/behaviour=crash-after=30s`:
//!
//! | clause | the process… |
//! | --- | --- |
//! | `ready-after=10s` | answers its probes only 10 s after it started (connection refused before) |
//! | `crash-after=30s` | exits with code 1 (or `exit-code=N`, 1–255) 30 s after it started |
//! | `complete-after=5s` | exits with code 0 5 s after it started (a job done) |
//! | `unhealthy-after=1m` | stops answering its probes 1 min after it started (hangs) |
//! | `fail-readiness` | answers its readiness probe with HTTP 503, always |
//! | `fail-liveness` | answers its liveness probe with HTTP 500, always |
//!
//! Durations are Go's (`500ms`, `10s`, `1m30s`, `2h`; whole numbers). Without the annotation a
//! container starts and stays healthy — except in a Job's pod, whose container stands for a
//! batch command (`kubectl create job hello --image=busybox -- echo hi`) and exits with code 0
//! [`JOB_DEFAULT_RUN_MS`] after it started. Every start (each restart too) replays the behaviour
//! from the beginning, read from the pod as it is then: removing the annotation heals the next
//! restart. The API server refuses a pod whose annotation does not parse, with the reason.

use super::pod::{Pod, ProbeKind};
use watchlab_apimachinery::duration::parse_go_duration;

/// The annotation that carries a pod's behaviour (every container of the pod follows it).
pub const ANNOTATION: &str = "watchlab.dev/behaviour";

/// How the simulated process answers one probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// It answers: HTTP 200, the port accepts, the command exits 0.
    Healthy,
    /// Nothing listens yet (still starting, or hung): connection refused.
    Refused,
    /// It listens but answers with this HTTP status (the command exits 1).
    Failing(u16),
}

/// How long the container of a Job's pod without a behaviour annotation runs before it exits
/// with code 0 (a short batch command).
pub const JOB_DEFAULT_RUN_MS: u64 = 5_000;

/// When the process exits by itself, and with which code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit {
    pub after_ms: u64,
    pub code: i32,
}

/// A container's simulated behaviour; the default starts and stays healthy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Behaviour {
    pub ready_after_ms: u64,
    pub exit: Option<Exit>,
    pub unhealthy_after_ms: Option<u64>,
    pub fail_readiness: bool,
    pub fail_liveness: bool,
}

const CLAUSES: &str = "ready-after, crash-after, complete-after, exit-code, unhealthy-after, \
                       fail-readiness, fail-liveness";

impl Behaviour {
    /// The behaviour of `pod`'s containers: its annotation, or the default. (The API server
    /// refuses an annotation that does not parse, so the fallback only covers objects stored
    /// before the rule.)
    pub fn of(pod: &Pod) -> Behaviour {
        match pod.metadata.annotations.get(ANNOTATION) {
            Some(text) => Behaviour::parse(text).unwrap_or_default(),
            None if pod
                .metadata
                .controller_ref()
                .is_some_and(|r| r.kind == "Job") =>
            {
                Behaviour {
                    exit: Some(Exit {
                        after_ms: JOB_DEFAULT_RUN_MS,
                        code: 0,
                    }),
                    ..Behaviour::default()
                }
            }
            None => Behaviour::default(),
        }
    }

    /// Parses the annotation's text; the error names the clause at fault and why.
    pub fn parse(text: &str) -> Result<Behaviour, String> {
        let mut b = Behaviour::default();
        let mut crash_after = None;
        let mut complete_after = None;
        let mut exit_code = None;
        for clause in text.split(',').map(str::trim).filter(|c| !c.is_empty()) {
            let (key, value) = match clause.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim())),
                None => (clause, None),
            };
            let duration = || match value {
                Some(v) => parse_go_duration(v).map_err(|e| format!("{key}: {e}")),
                None => Err(format!("{key} needs a duration, e.g. {key}=10s")),
            };
            let flag = || match value {
                None => Ok(true),
                Some(_) => Err(format!("{key} takes no value")),
            };
            match key {
                "ready-after" => b.ready_after_ms = duration()?,
                "crash-after" => crash_after = Some(duration()?),
                "complete-after" => complete_after = Some(duration()?),
                "unhealthy-after" => b.unhealthy_after_ms = Some(duration()?),
                "fail-readiness" => b.fail_readiness = flag()?,
                "fail-liveness" => b.fail_liveness = flag()?,
                "exit-code" => {
                    let v = value.unwrap_or_default();
                    match v.parse::<i32>() {
                        Ok(code) if (1..=255).contains(&code) => exit_code = Some(code),
                        _ => {
                            return Err(format!(
                                "exit-code: {v:?} is not a number from 1 to 255 (complete-after \
                                 exits with 0)"
                            ))
                        }
                    }
                }
                other => return Err(format!("unknown clause {other:?} (known: {CLAUSES})")),
            }
        }
        b.exit = match (crash_after, complete_after, exit_code) {
            (Some(_), Some(_), _) => {
                return Err("crash-after and complete-after exclude each other".into())
            }
            (None, Some(_), Some(_)) | (None, None, Some(_)) => {
                return Err("exit-code needs crash-after".into())
            }
            (Some(after_ms), None, code) => Some(Exit {
                after_ms,
                code: code.unwrap_or(1),
            }),
            (None, Some(after_ms), None) => Some(Exit { after_ms, code: 0 }),
            (None, None, None) => None,
        };
        Ok(b)
    }

    /// How the process answers a `kind` probe `age_ms` after it started.
    pub fn answer(&self, kind: ProbeKind, age_ms: u64) -> Answer {
        if age_ms < self.ready_after_ms || self.unhealthy_after_ms.is_some_and(|t| age_ms >= t) {
            return Answer::Refused;
        }
        match kind {
            ProbeKind::Readiness if self.fail_readiness => Answer::Failing(503),
            ProbeKind::Liveness if self.fail_liveness => Answer::Failing(500),
            _ => Answer::Healthy,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_language_parses_what_the_readme_shows() {
        let b = Behaviour::parse("ready-after=10s, crash-after=1m30s,exit-code=3").unwrap();
        assert_eq!(b.ready_after_ms, 10_000);
        assert_eq!(
            b.exit,
            Some(Exit {
                after_ms: 90_000,
                code: 3
            })
        );
        let done = Behaviour::parse("complete-after=5s").unwrap();
        assert_eq!(
            done.exit,
            Some(Exit {
                after_ms: 5_000,
                code: 0
            })
        );
        let flags = Behaviour::parse("fail-readiness,fail-liveness,unhealthy-after=500ms").unwrap();
        assert!(flags.fail_readiness && flags.fail_liveness);
        assert_eq!(flags.unhealthy_after_ms, Some(500));
        assert_eq!(Behaviour::parse("").unwrap(), Behaviour::default());
    }

    #[test]
    fn mistakes_are_named() {
        let err = |t: &str| Behaviour::parse(t).unwrap_err();
        assert!(err("crahs-after=3s").starts_with("unknown clause \"crahs-after\" (known: "));
        assert_eq!(
            err("crash-after=3x"),
            "crash-after: \"3x\" is not a duration like 500ms, 10s, 1m30s or 2h"
        );
        assert_eq!(
            err("crash-after"),
            "crash-after needs a duration, e.g. crash-after=10s"
        );
        assert_eq!(err("fail-readiness=yes"), "fail-readiness takes no value");
        assert_eq!(err("exit-code=2"), "exit-code needs crash-after");
        assert!(err("crash-after=1s,exit-code=0").starts_with("exit-code: \"0\" is not"));
        assert_eq!(
            err("crash-after=1s,complete-after=2s"),
            "crash-after and complete-after exclude each other"
        );
        assert!(err("ready-after=99999999999999999h").contains("is not a duration"));
        assert!(err("ready-after=1.5s").contains("is not a duration"));
    }

    #[test]
    fn answers_follow_the_clock_of_one_run() {
        let b = Behaviour::parse("ready-after=10s,unhealthy-after=60s,fail-readiness").unwrap();
        assert_eq!(b.answer(ProbeKind::Liveness, 9_999), Answer::Refused);
        assert_eq!(b.answer(ProbeKind::Liveness, 10_000), Answer::Healthy);
        assert_eq!(b.answer(ProbeKind::Readiness, 10_000), Answer::Failing(503));
        assert_eq!(b.answer(ProbeKind::Startup, 60_000), Answer::Refused);
        assert_eq!(
            Behaviour::default().answer(ProbeKind::Readiness, 0),
            Answer::Healthy
        );
    }

    #[test]
    fn a_jobs_pod_without_the_annotation_runs_a_short_command() {
        use crate::meta::OwnerReference;
        let mut pod = Pod::default();
        assert_eq!(Behaviour::of(&pod).exit, None, "a plain pod stays up");
        pod.metadata.owner_references = vec![OwnerReference {
            kind: "Job".into(),
            controller: Some(true),
            ..Default::default()
        }]
        .into();
        let exit = Behaviour::of(&pod).exit;
        assert_eq!(
            exit.map(|e| (e.after_ms, e.code)),
            Some((JOB_DEFAULT_RUN_MS, 0))
        );
        pod.metadata
            .annotations
            .insert(ANNOTATION.into(), "ready-after=1s".into());
        assert_eq!(Behaviour::of(&pod).exit, None, "the annotation decides");
    }
}
