//! "Nothing lost": the inputs that made a cluster, recorded in order, bounded, and checked.
//!
//! The engine is deterministic (same seed, same inputs at the same virtual instants → the same
//! ledger byte for byte), so a save is event sourcing rather than a snapshot: the starting
//! [`ClusterConfig`] plus every input with the virtual time it happened at — each action the
//! cluster applied and each request, watch open, state-changing poll and watch stop made
//! through a journaled session. This module only records and checks; the cluster replays a
//! journal (`super::replay`), so the dependency goes one way: the cluster knows the journal,
//! the journal knows only the inputs' vocabulary.
//!
//! Two rules make the replay exact however the original driver moved time (one big jump or
//! many animation frames): the components look at the cluster one millisecond after every
//! input ([`Journal::reaction_due`]), and an entry says whether the clock also ran at the very
//! instant of the previous input ([`Entry::settled`]). Every entry keeps what its input
//! answered (status code, revision, watch id) and the file keeps a fingerprint of the ledger,
//! so a file that a hand edit or another engine build would replay differently is refused
//! rather than restored into a different cluster.
//!
//! The journal is bounded ([`MAX_INPUTS`], [`MAX_BYTES`], [`MAX_VIRTUAL_MS`]): past a bound it
//! stops recording and says why ([`Journal::refusal`]); it never drops an input silently.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use watchlab_apimachinery::client::WatchId;
use watchlab_apimachinery::validation::is_dns1123_subdomain;

use crate::clock::Timestamp;

use super::action::Action;
use super::config::{ClusterConfig, MAX_QUOTA_BYTES};

/// The `format` of every journal file; anything else is not ours.
pub const FORMAT: &str = "watchlab-journal";
/// The journal version this build writes and reads.
pub const VERSION: u32 = 1;
/// Inputs one journal holds at most.
pub const MAX_INPUTS: usize = 100_000;
/// The largest journal file, in bytes (16 MiB). Browsers' local storage usually holds about
/// 5 MiB per origin, so the longest sessions may only fit an exported file.
pub const MAX_BYTES: usize = 16 * 1024 * 1024;
/// Virtual time one journal may span (7 days): a restore replays all of it.
pub const MAX_VIRTUAL_MS: u64 = 7 * 24 * 60 * 60 * 1000;
/// The latest start a saved config may ask for: 100 years after the virtual epoch.
pub const MAX_START_MS: u64 = 100 * 365 * 24 * 60 * 60 * 1000;
/// Nodes a saved config may name (the Kubernetes scalability limit is 5,000 nodes per cluster).
pub const MAX_NODES: usize = 5_000;
/// The longest opaque scenario marker the UI may store.
pub const MAX_SCENARIO_BYTES: usize = 4 * 1024;
/// etcd cluster sizes a config may ask for.
pub const ETCD_SIZES: [usize; 3] = [1, 3, 5];

/// Bytes reserved for the parts of the file that grow outside the inputs (the current time and
/// revision, the ledger fingerprint, the scenario marker even if every byte of it is
/// JSON-escaped as `\u00XX`).
const HEADER_RESERVE: usize = 128 + 6 * MAX_SCENARIO_BYTES;

/// The whole saved cluster; `serde_json` of it is the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Journal {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`] when written by this build.
    pub version: u32,
    pub config: ClusterConfig,
    /// The virtual time of the cluster when saved.
    pub now_ms: u64,
    /// The ledger revision of the cluster when saved.
    pub revision: u64,
    /// The clock ran (timers, controllers) at `now_ms` after the last input.
    pub settled: bool,
    /// Opaque to the engine: the UI's open scenario (id and step).
    pub scenario: Option<String>,
    /// `ledger_fingerprint` of the cluster when saved (written by `Cluster::export`; a
    /// live journal leaves it `None`). A replay must reach it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ledger_fingerprint: Option<String>,
    #[serde(default)]
    pub inputs: Vec<Entry>,
    /// Serialized size of the file so far, kept as inputs are recorded.
    #[serde(skip)]
    bytes: usize,
    /// Why recording stopped, if it did.
    #[serde(skip)]
    refusal: Option<Refusal>,
    /// When the components next look at the cluster after the last input (see
    /// [`Journal::reaction_due`]).
    #[serde(skip)]
    react_at: Option<Timestamp>,
}

/// One recorded input and what it answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The virtual time the input happened at.
    pub at_ms: u64,
    /// The clock ran at `at_ms` between the previous input and this one. (Always so in practice
    /// when `at_ms` is later than the previous input's; what matters is the same-instant case:
    /// controllers that settled between two inputs of one instant must settle on replay too.)
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub settled: bool,
    pub input: Input,
    /// The ledger revision right after the input.
    pub revision: u64,
    /// The HTTP-shaped status of the answer: the response code of a request or watch open,
    /// 200 or the `Status` code for an action, 200 for a poll with events, 0 for a poll that
    /// found the stream ended and for a stop.
    pub code: u16,
    /// The id a successful watch open got.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch_id: Option<WatchId>,
}

/// Something from outside that changed the cluster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum Input {
    /// A `Cluster::apply` call.
    Apply(Action),
    /// A non-watch request through a session.
    #[serde(rename_all = "camelCase")]
    Request {
        user: String,
        method: String,
        path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content_type: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
        /// The Accept header of a GET that asked for another representation (a Table): what
        /// the session answered, so the replay asks the same.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        accept: Option<String>,
    },
    /// A watch open (it draws the stream's timeout from the server's seeded rng), with the
    /// Accept header of one that asked for Table events.
    Watch {
        user: String,
        path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        accept: Option<String>,
    },
    /// A poll that drained events (resetting the stream's overflow count) or forgot an ended
    /// stream; polls that found nothing change nothing and are not recorded.
    Poll { id: WatchId },
    /// A client-side close of a stream.
    Stop { id: WatchId },
}

impl Input {
    /// A short human description for error messages.
    pub(super) fn describe(&self) -> String {
        match self {
            Input::Apply(a) => format!("action {}", action_name(a)),
            Input::Request { method, path, .. } => format!("{method} {path}"),
            Input::Watch { path, .. } => format!("watch {path}"),
            Input::Poll { id } => format!("poll of watch {id}"),
            Input::Stop { id } => format!("stop of watch {id}"),
        }
    }
}

/// The variant name of an action, as the file spells it.
fn action_name(a: &Action) -> String {
    match serde_json::to_value(a) {
        Ok(Value::Object(m)) => m.keys().next().cloned().unwrap_or_default(),
        Ok(Value::String(s)) => s,
        _ => String::new(),
    }
}

/// Why a journal stopped recording: the session can no longer be saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    TooManyInputs,
    TooManyBytes,
    TooMuchTime,
    /// Someone wrote through `ClusterSession::server`, around the journal.
    Unrecorded,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::TooManyInputs => write!(f, "it has more than {MAX_INPUTS} inputs"),
            Refusal::TooManyBytes => write!(f, "its file would be larger than {MAX_BYTES} bytes"),
            Refusal::TooMuchTime => write!(
                f,
                "it spans more than {} days of virtual time",
                MAX_VIRTUAL_MS / (24 * 60 * 60 * 1000)
            ),
            Refusal::Unrecorded => {
                write!(f, "the API server was used directly, outside the journal")
            }
        }
    }
}

/// What can go wrong saving or restoring a cluster. The caller keeps its current cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JournalError {
    /// The journal stopped recording (see [`Refusal`]).
    SessionTooLong(Refusal),
    TooLarge {
        bytes: usize,
    },
    NotJson(String),
    /// Valid JSON without `"format": "watchlab-journal"`.
    Foreign,
    UnsupportedVersion(String),
    /// The top level does not have the journal's shape.
    Damaged(String),
    /// One input does not have the shape of an input.
    BadInput {
        index: usize,
        detail: String,
    },
    BadConfig(String),
    /// An input's time is earlier than the previous one's, or later than the save time.
    OutOfOrder {
        index: usize,
    },
    TooManyInputs(usize),
    ScenarioTooLong(usize),
    /// Replaying an input did not give what the file recorded.
    Diverged {
        index: usize,
        detail: String,
    },
    /// Every input replayed as recorded, but the end state is not the saved one.
    DivergedAtEnd(String),
}

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JournalError::SessionTooLong(r) => {
                write!(f, "this session is too long to save: {r}")
            }
            JournalError::TooLarge { bytes } => write!(
                f,
                "the cluster file is too large: {bytes} bytes (at most {MAX_BYTES})"
            ),
            JournalError::NotJson(e) => write!(f, "the cluster file is not valid JSON: {e}"),
            JournalError::Foreign => write!(f, "not a watchlab cluster file"),
            JournalError::UnsupportedVersion(v) => write!(
                f,
                "unsupported watchlab cluster file version {v} (this version of watchlab reads version {VERSION})"
            ),
            JournalError::Damaged(e) => write!(f, "the cluster file is damaged: {e}"),
            JournalError::BadInput { index, detail } => {
                write!(f, "the cluster file is damaged: inputs[{index}]: {detail}")
            }
            JournalError::BadConfig(e) => {
                write!(f, "the cluster file has an invalid configuration: {e}")
            }
            JournalError::OutOfOrder { index } => write!(
                f,
                "the cluster file is damaged: inputs[{index}] is out of time order"
            ),
            JournalError::TooManyInputs(n) => write!(
                f,
                "the cluster file has too many inputs: {n} (at most {MAX_INPUTS})"
            ),
            JournalError::ScenarioTooLong(n) => write!(
                f,
                "the scenario marker is too long: {n} bytes (at most {MAX_SCENARIO_BYTES})"
            ),
            JournalError::Diverged { index, detail } => write!(
                f,
                "the cluster file does not replay to the same cluster: inputs[{index}] {detail}"
            ),
            JournalError::DivergedAtEnd(detail) => write!(
                f,
                "the cluster file does not replay to the same cluster: at the end, {detail}"
            ),
        }
    }
}

impl std::error::Error for JournalError {}

impl Journal {
    /// An empty journal for a cluster starting from `config`.
    pub(crate) fn new(config: ClusterConfig) -> Journal {
        let mut j = Journal {
            format: FORMAT.to_string(),
            version: VERSION,
            now_ms: config.start_ms,
            config,
            revision: 0,
            settled: false,
            scenario: None,
            ledger_fingerprint: None,
            inputs: Vec::new(),
            bytes: 0,
            refusal: None,
            react_at: None,
        };
        j.bytes = serde_json::to_string(&j)
            .map(|s| s.len())
            .unwrap_or(MAX_BYTES)
            .saturating_add(HEADER_RESERVE);
        if j.bytes > MAX_BYTES {
            j.refuse(Refusal::TooManyBytes);
        }
        j
    }

    /// Why the journal stopped recording; `None` while the session can be saved.
    pub fn refusal(&self) -> Option<&Refusal> {
        self.refusal.as_ref()
    }

    /// The serialized size of the inputs and header so far (an upper bound of the file size).
    pub fn size_bytes(&self) -> usize {
        self.bytes
    }

    /// One millisecond after an input, the cluster runs its components once, however the
    /// driver moves time: an input is picked up at an instant that depends only on when it
    /// happened, not on the driver's frames. (Between inputs the cluster gives the same history
    /// however time is chunked, so this is what makes a replay exact.)
    pub fn reaction_due(&self) -> Option<Timestamp> {
        self.react_at
    }

    pub(super) fn refuse(&mut self, why: Refusal) {
        self.refusal.get_or_insert(why);
    }

    /// Appends one input (unless recording stopped, or this input would pass a bound).
    pub(crate) fn record(
        &mut self,
        at: Timestamp,
        revision: u64,
        input: Input,
        code: u16,
        watch_id: Option<WatchId>,
    ) {
        self.react_at = Some(at.plus_millis(1));
        if self.refusal.is_some() {
            return;
        }
        if self.inputs.len() >= MAX_INPUTS {
            return self.refuse(Refusal::TooManyInputs);
        }
        let entry = Entry {
            at_ms: at.as_millis(),
            settled: self.settled,
            input,
            revision,
            code,
            watch_id,
        };
        // +1 for the comma between entries.
        let len = serde_json::to_string(&entry)
            .map(|s| s.len() + 1)
            .unwrap_or(usize::MAX);
        if self.bytes.saturating_add(len) > MAX_BYTES {
            return self.refuse(Refusal::TooManyBytes);
        }
        self.bytes += len;
        self.now_ms = entry.at_ms;
        self.revision = revision;
        self.settled = false;
        self.inputs.push(entry);
    }

    /// The clock ran at `now` (timers and controllers), leaving the ledger at `revision`.
    pub(crate) fn clock_ran(&mut self, now: Timestamp, revision: u64) {
        if now.as_millis().saturating_sub(self.config.start_ms) > MAX_VIRTUAL_MS {
            self.refuse(Refusal::TooMuchTime);
        }
        self.now_ms = now.as_millis();
        self.revision = revision;
        self.settled = true;
        if self.react_at.is_some_and(|t| t <= now) {
            self.react_at = None;
        }
    }

    /// Parses and checks a journal file without replaying it.
    pub fn parse(text: &str) -> Result<Journal, JournalError> {
        if text.len() > MAX_BYTES {
            return Err(JournalError::TooLarge { bytes: text.len() });
        }
        let mut value: Value =
            serde_json::from_str(text).map_err(|e| JournalError::NotJson(e.to_string()))?;
        let Value::Object(map) = &mut value else {
            return Err(JournalError::Foreign);
        };
        if map.get("format").and_then(Value::as_str) != Some(FORMAT) {
            return Err(JournalError::Foreign);
        }
        match map.get("version") {
            Some(v) if v.as_u64() == Some(u64::from(VERSION)) => {}
            Some(v) => return Err(JournalError::UnsupportedVersion(v.to_string())),
            None => return Err(JournalError::Damaged("missing field `version`".into())),
        }
        let raw_inputs = match map.remove("inputs") {
            Some(Value::Array(a)) => a,
            Some(_) => return Err(JournalError::Damaged("`inputs` is not a list".into())),
            None => return Err(JournalError::Damaged("missing field `inputs`".into())),
        };
        if raw_inputs.len() > MAX_INPUTS {
            return Err(JournalError::TooManyInputs(raw_inputs.len()));
        }
        let mut journal: Journal =
            serde_json::from_value(value).map_err(|e| JournalError::Damaged(e.to_string()))?;
        journal.inputs = raw_inputs
            .into_iter()
            .enumerate()
            .map(|(index, v)| {
                serde_json::from_value(v).map_err(|e| JournalError::BadInput {
                    index,
                    detail: e.to_string(),
                })
            })
            .collect::<Result<_, _>>()?;
        journal.check()?;
        Ok(journal)
    }

    /// The checks serde cannot express: a config the engine can build, times in order.
    fn check(&self) -> Result<(), JournalError> {
        check_config(&self.config)?;
        if let Some(s) = &self.scenario {
            check_scenario(s)?;
        }
        if self.ledger_fingerprint.is_none() {
            return Err(JournalError::Damaged(
                "missing field `ledger_fingerprint`".into(),
            ));
        }
        let start = self.config.start_ms;
        if self.now_ms.saturating_sub(start) > MAX_VIRTUAL_MS {
            return Err(JournalError::Damaged(format!(
                "now_ms {} is beyond the {MAX_VIRTUAL_MS} ms a journal may span",
                self.now_ms
            )));
        }
        let mut last = start;
        for (index, e) in self.inputs.iter().enumerate() {
            if e.at_ms < last || e.at_ms > self.now_ms {
                return Err(JournalError::OutOfOrder { index });
            }
            last = e.at_ms;
        }
        Ok(())
    }
}

pub(super) fn check_config(c: &ClusterConfig) -> Result<(), JournalError> {
    let bad = |m: String| Err(JournalError::BadConfig(m));
    if !ETCD_SIZES.contains(&c.etcd_members) {
        return bad(format!(
            "etcd_members must be 1, 3 or 5, not {}",
            c.etcd_members
        ));
    }
    if !(1..=super::config::MAX_CONTROLLER_REPLICAS).contains(&c.controller_replicas) {
        return bad(format!(
            "controller_replicas must be between 1 and {}, not {}",
            super::config::MAX_CONTROLLER_REPLICAS,
            c.controller_replicas
        ));
    }
    let max_apiservers = crate::apiserver::instance::MAX_INSTANCES as u32;
    if !(1..=max_apiservers).contains(&c.apiservers) {
        return bad(format!(
            "apiservers must be between 1 and {max_apiservers}, not {}",
            c.apiservers
        ));
    }
    if c.start_ms > MAX_START_MS {
        return bad(format!(
            "start_ms {} is beyond {MAX_START_MS} (year 2126)",
            c.start_ms
        ));
    }
    if c.nodes.len() > MAX_NODES {
        return bad(format!("{} nodes (at most {MAX_NODES})", c.nodes.len()));
    }
    if c.quota_backend_bytes == 0 || c.quota_backend_bytes > MAX_QUOTA_BYTES {
        return bad(format!(
            "quota_backend_bytes must be between 1 and {MAX_QUOTA_BYTES}, not {}",
            c.quota_backend_bytes
        ));
    }
    let mut seen = std::collections::BTreeSet::new();
    for name in &c.nodes {
        let errs = is_dns1123_subdomain(name);
        if !errs.is_empty() {
            // The API server's own wording for a bad Node name.
            return bad(format!(
                "Node \"{name}\" is invalid: metadata.name: Invalid value: \"{name}\": {}",
                errs.join("; ")
            ));
        }
        if !seen.insert(name.as_str()) {
            return bad(format!("node \"{name}\" is listed twice"));
        }
    }
    Ok(())
}

pub(super) fn check_scenario(s: &str) -> Result<(), JournalError> {
    if s.len() > MAX_SCENARIO_BYTES {
        return Err(JournalError::ScenarioTooLong(s.len()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_a_week_of_virtual_time_the_session_is_too_long_to_save() {
        let mut j = Journal::new(ClusterConfig::default());
        j.clock_ran(Timestamp::from_millis(MAX_VIRTUAL_MS), 10);
        assert_eq!(j.refusal(), None);
        j.clock_ran(Timestamp::from_millis(MAX_VIRTUAL_MS + 1), 10);
        assert_eq!(j.refusal(), Some(&Refusal::TooMuchTime));
        assert_eq!(
            JournalError::SessionTooLong(Refusal::TooMuchTime).to_string(),
            "this session is too long to save: it spans more than 7 days of virtual time"
        );
    }

    #[test]
    fn an_input_asks_for_a_reaction_one_millisecond_later() {
        let mut j = Journal::new(ClusterConfig::default());
        assert_eq!(j.reaction_due(), None);
        j.record(
            Timestamp::from_millis(500),
            3,
            Input::Stop { id: 1 },
            0,
            None,
        );
        assert_eq!(j.reaction_due(), Some(Timestamp::from_millis(501)));
        j.clock_ran(Timestamp::from_millis(500), 3);
        assert_eq!(
            j.reaction_due(),
            Some(Timestamp::from_millis(501)),
            "same instant: still due"
        );
        j.clock_ran(Timestamp::from_millis(501), 3);
        assert_eq!(j.reaction_due(), None);
    }

    #[test]
    fn the_settled_flag_marks_a_clock_run_between_inputs() {
        let mut j = Journal::new(ClusterConfig::default());
        j.record(Timestamp::from_millis(0), 3, Input::Stop { id: 1 }, 0, None);
        j.clock_ran(Timestamp::from_millis(0), 3);
        j.record(Timestamp::from_millis(0), 3, Input::Stop { id: 2 }, 0, None);
        j.record(Timestamp::from_millis(0), 3, Input::Stop { id: 3 }, 0, None);
        let flags: Vec<bool> = j.inputs.iter().map(|e| e.settled).collect();
        assert_eq!(flags, [false, true, false]);
        assert!(!j.settled);
    }

    #[test]
    fn kinds_and_profiles_are_written_by_name() {
        let a = Action::Delete {
            kind: crate::api::Kind::ReplicaSet.into(),
            namespace: "default".into(),
            name: "web".into(),
        };
        let text = serde_json::to_string(&Input::Apply(a.clone())).unwrap();
        assert_eq!(
            text,
            r#"{"apply":{"Delete":{"kind":"replicasets","namespace":"default","name":"web"}}}"#
        );
        assert_eq!(
            serde_json::from_str::<Input>(&text).unwrap(),
            Input::Apply(a)
        );
        let config = serde_json::to_value(ClusterConfig::default()).unwrap();
        assert_eq!(config["profile"], "training");
    }
}
