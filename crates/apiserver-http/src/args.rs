//! The command line of `watchlab-apiserver`: which port, which seed and timing profile, and how
//! fast virtual time runs against the wall clock. Parsed by hand (four flags) so the binary
//! stays small; errors read like a Go flag error so they sit well next to kubectl's.

use crate::faults::{self, Fault};
use watchlab_engine::apiserver::instance::MAX_INSTANCES;
use watchlab_engine::clock::Timestamp;
use watchlab_engine::cluster::{ProfileName, MAX_CONTROLLER_REPLICAS};

/// Where the virtual clock starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Start {
    /// The wall-clock time the server starts (the default): clients that compute ages on
    /// their own clock (`kubectl describe`, the UI's live mode) agree with the server.
    #[default]
    Now,
    /// A fixed instant (`--start 2026-01-01T00:00:00Z`), for reproducible timestamps.
    At(Timestamp),
}

/// What the server was asked to run.
#[derive(Debug, Clone, PartialEq)]
pub struct Args {
    /// 0 asks the OS for a free port. `kubectl proxy`'s default is 8001; so is ours.
    pub port: u16,
    pub seed: u64,
    pub profile: ProfileName,
    /// Virtual milliseconds per real millisecond.
    pub speed: f64,
    pub start: Start,
    /// Nodes and etcd members that die or come back at set instants (`--kill-node node-c@30s`).
    pub faults: Vec<Fault>,
    /// Serve the etcd v3 API over gRPC: member *i* on 127.0.0.1:`etcd_port`+*i*.
    pub etcd_port: Option<u16>,
    /// Replicas of kube-scheduler and of kube-controller-manager, leader-elected (1 to 5).
    pub controller_replicas: u32,
    /// kube-apiserver instances on the one etcd, each with its own watch caches (1 to 5).
    pub apiservers: u32,
    /// Every informer's first list a consistent read (the fix for informers going back in
    /// time); off as in client-go v1.32.
    pub consistent_first_list: bool,
}

impl Default for Args {
    fn default() -> Self {
        Args {
            port: 8001,
            seed: 7,
            profile: ProfileName::Training,
            speed: 1.0,
            start: Start::Now,
            faults: Vec::new(),
            etcd_port: None,
            controller_replicas: 1,
            apiservers: 1,
            consistent_first_list: false,
        }
    }
}

/// Why a command line was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgsError {
    /// `--help` was asked for: not a failure, the caller prints [`USAGE`].
    Help,
    UnknownFlag(String),
    MissingValue(String),
    InvalidValue {
        flag: String,
        value: String,
    },
}

impl std::fmt::Display for ArgsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgsError::Help => f.write_str(USAGE),
            ArgsError::UnknownFlag(flag) => write!(f, "unknown flag: {flag}"),
            ArgsError::MissingValue(flag) => write!(f, "flag needs an argument: {flag}"),
            ArgsError::InvalidValue { flag, value } => {
                write!(f, "invalid argument {value:?} for {flag:?} flag")
            }
        }
    }
}

impl std::error::Error for ArgsError {}

pub const USAGE: &str = "Usage: watchlab-apiserver [--port 8001] [--seed 7] [--profile training|kubernetes] [--speed 1] [--start now|2026-01-01T00:00:00Z] [--etcd-port PORT] [--controller-replicas 1] [--apiservers 1] [--consistent-first-list]\n         [--kill-node NAME@DURATION] [--restore-node NAME@DURATION] [--kill-etcd-member NAME@DURATION] [--restore-etcd-member NAME@DURATION]\n         [--isolate-etcd-member NAME@DURATION] [--rejoin-etcd-member NAME@DURATION]\n         [--pause-component NAME@DURATION] [--resume-component NAME@DURATION]\n         [--cut-apiserver NAME@DURATION] [--stop-apiserver NAME@DURATION] [--restore-apiserver NAME@DURATION]\n  (a fault flag repeats; DURATION is virtual time after start-up, as 30s, 1m30s;\n   --etcd-port serves the etcd v3 API over gRPC, etcd member i on 127.0.0.1:PORT+i;\n   --controller-replicas runs 1 to 5 leader-elected replicas of kube-scheduler and\n   kube-controller-manager, named kube-controller-manager-0, ..., which the component flags name;\n   --apiservers runs 1 to 5 kube-apiserver instances, kube-apiserver-0, ..., each with its own\n   watch caches: this server answers as the instance its client is connected to;
   --consistent-first-list makes every informer's first list a consistent read, resourceVersion=\"\")";

impl Args {
    /// Parses the arguments after the program name; `--flag value` and `--flag=value` both work.
    pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<Args, ArgsError> {
        let mut out = Args::default();
        let mut it = args.into_iter();
        while let Some(arg) = it.next() {
            if arg == "-h" || arg == "--help" {
                return Err(ArgsError::Help);
            }
            if arg == "--consistent-first-list" {
                out.consistent_first_list = true;
                continue;
            }
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) => (f.to_string(), Some(v.to_string())),
                None => (arg.clone(), None),
            };
            if !matches!(
                flag.as_str(),
                "--port"
                    | "--seed"
                    | "--profile"
                    | "--speed"
                    | "--start"
                    | "--etcd-port"
                    | "--controller-replicas"
                    | "--apiservers"
            ) && !faults::FLAGS.contains(&flag.as_str())
            {
                return Err(ArgsError::UnknownFlag(arg));
            }
            let value = match inline {
                Some(v) => v,
                None => it
                    .next()
                    .ok_or_else(|| ArgsError::MissingValue(flag.clone()))?,
            };
            let invalid = || ArgsError::InvalidValue {
                flag: flag.trim_start_matches('-').to_string(),
                value: value.clone(),
            };
            match flag.as_str() {
                "--port" => out.port = value.parse().map_err(|_| invalid())?,
                "--etcd-port" => {
                    out.etcd_port = Some(value.parse().ok().filter(|&p| p > 0).ok_or_else(invalid)?)
                }
                "--seed" => out.seed = value.parse().map_err(|_| invalid())?,
                "--controller-replicas" => {
                    out.controller_replicas = value
                        .parse()
                        .ok()
                        .filter(|n| (1..=MAX_CONTROLLER_REPLICAS).contains(n))
                        .ok_or_else(invalid)?
                }
                "--apiservers" => {
                    out.apiservers = value
                        .parse()
                        .ok()
                        .filter(|n| (1..=MAX_INSTANCES as u32).contains(n))
                        .ok_or_else(invalid)?
                }
                "--profile" => {
                    out.profile = match value.as_str() {
                        "training" => ProfileName::Training,
                        "kubernetes" => ProfileName::Kubernetes,
                        _ => return Err(invalid()),
                    }
                }
                f if faults::FLAGS.contains(&f) => out
                    .faults
                    .push(faults::parse(f, &value).ok_or_else(invalid)?),
                "--start" => {
                    out.start = match value.as_str() {
                        "now" => Start::Now,
                        _ => Start::At(Timestamp::parse_rfc3339(&value).ok_or_else(invalid)?),
                    }
                }
                _ => {
                    out.speed = value
                        .parse::<f64>()
                        .ok()
                        .filter(|s| s.is_finite() && *s > 0.0)
                        .ok_or_else(invalid)?
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, ArgsError> {
        Args::parse(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn defaults_and_both_spellings() {
        assert_eq!(parse(&[]), Ok(Args::default()));
        let a = parse(&[
            "--port=0",
            "--seed",
            "42",
            "--profile",
            "kubernetes",
            "--speed=2.5",
        ]);
        assert_eq!(
            a,
            Ok(Args {
                port: 0,
                seed: 42,
                profile: ProfileName::Kubernetes,
                speed: 2.5,
                start: Start::Now,
                faults: Vec::new(),
                etcd_port: None,
                controller_replicas: 1,
                apiservers: 1,
                consistent_first_list: false,
            })
        );
        assert_eq!(parse(&["--apiservers", "3"]).map(|a| a.apiservers), Ok(3));
        assert_eq!(
            parse(&["--consistent-first-list", "--apiservers", "2"])
                .map(|a| (a.consistent_first_list, a.apiservers)),
            Ok((true, 2))
        );
        assert_eq!(parse(&[]).map(|a| a.consistent_first_list), Ok(false));
        assert!(parse(&["--apiservers", "0"]).is_err());
        assert_eq!(
            parse(&["--controller-replicas=3"]).map(|a| a.controller_replicas),
            Ok(3)
        );
        for bad in ["0", "6", "two"] {
            assert_eq!(
                parse(&["--controller-replicas", bad]),
                Err(ArgsError::InvalidValue {
                    flag: "controller-replicas".into(),
                    value: bad.into()
                })
            );
        }
        assert_eq!(
            parse(&["--etcd-port", "2379"]).map(|a| a.etcd_port),
            Ok(Some(2379))
        );
        assert_eq!(
            parse(&["--start=2026-03-01T10:00:00Z"]).map(|a| a.start),
            Ok(Start::At(Timestamp::from_secs(
                (31 + 28) * 86_400 + 10 * 3600
            )))
        );
        assert_eq!(parse(&["--start", "now"]).map(|a| a.start), Ok(Start::Now));
        let faults = parse(&["--kill-node", "node-c@30s", "--restore-node=node-c@5m"])
            .map(|a| a.faults.iter().map(|f| f.after_ms).collect::<Vec<_>>());
        assert_eq!(faults, Ok(vec![30_000, 300_000]));
    }

    #[test]
    fn refusals() {
        assert_eq!(
            parse(&["--bogus"]),
            Err(ArgsError::UnknownFlag("--bogus".into()))
        );
        assert_eq!(
            parse(&["--port"]),
            Err(ArgsError::MissingValue("--port".into()))
        );
        for bad in [
            ["--port", "70000"],
            ["--etcd-port", "0"],
            ["--speed", "0"],
            ["--speed", "NaN"],
            ["--profile", "x"],
            ["--start", "yesterday"],
            ["--kill-node", "node-c"],
            ["--kill-etcd-member", "etcd-1@soon"],
        ] {
            assert!(
                matches!(parse(&bad), Err(ArgsError::InvalidValue { .. })),
                "{bad:?}"
            );
        }
        assert_eq!(parse(&["-h"]), Err(ArgsError::Help));
    }
}
