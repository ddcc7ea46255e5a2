//! The lab file: a trainer's guided exercise as YAML (`docs/labs.md` documents every key with a
//! complete example). This module reads a file into a [`Lab`] and refuses anything it cannot run
//! — bad YAML, an unknown key, an unknown action or view, a regular expression that does not
//! compile, a check that names no command — with the line and column where it is, before the
//! page or the runner changes anything.
//!
//! The keys keep the names the issue fixed (`title`, `summary`, `cluster`, `steps`, and per step
//! `say`, `run`, `do`, `view`, `wait`, `task`, `hint`, `check`, `solution`); a value that may be
//! one thing or a list (`run`, `do`, `check`, `solution`) takes either form.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer, StrDeserializer};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use watchlab_apimachinery::duration::parse_go_duration;
use watchlab_engine::cluster::ProfileName;

use crate::clock::Speed;
use crate::i18n::Lang;
use crate::view::View;

/// How long a task's checks get, once its solution ran, before the runner calls it failed; and
/// a `wait: {until: …}` without its own `timeout` (virtual time).
pub const DEFAULT_TIMEOUT_MS: u64 = 5 * 60_000;

/// A text in the page's two languages; one alone is allowed (the page falls back to it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    pub en: Option<String>,
    pub zh: Option<String>,
}

impl Text {
    /// The text in `lang`, else in the other language.
    pub fn get(&self, lang: Lang) -> &str {
        let (first, second) = match lang {
            Lang::En => (&self.en, &self.zh),
            Lang::Zh => (&self.zh, &self.en),
        };
        first.as_deref().or(second.as_deref()).unwrap_or_default()
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// The mapping form: `{en: …, zh: …}`.
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Pair {
            en: Option<String>,
            zh: Option<String>,
        }
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a text, or {en: …, zh: …}")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Text, E> {
                Ok(Text {
                    en: Some(v.to_string()),
                    zh: None,
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Text, A::Error> {
                let pair = Pair::deserialize(MapAccessDeserializer::new(map))?;
                if pair.en.is_none() && pair.zh.is_none() {
                    return Err(de::Error::custom("a text needs `en` or `zh`"));
                }
                Ok(Text {
                    en: pair.en,
                    zh: pair.zh,
                })
            }
        }
        d.deserialize_any(TextVisitor)
    }
}

/// A value written as one item or as a list of them.
#[derive(Debug, Clone, PartialEq)]
pub struct OneOrMany<T>(pub Vec<T>);

impl<T> Default for OneOrMany<T> {
    fn default() -> Self {
        OneOrMany(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ListVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ListVisitor<T> {
            type Value = OneOrMany<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("one item or a list of them")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                T::deserialize(StrDeserializer::<E>::new(v)).map(|t| OneOrMany(vec![t]))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(|t| OneOrMany(vec![t]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Vec::<T>::deserialize(SeqAccessDeserializer::new(seq)).map(OneOrMany)
            }
        }
        d.deserialize_any(ListVisitor(PhantomData))
    }
}

/// A Go duration (`90s`, `1m30s`) in virtual milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Duration(pub u64);

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        parse_go_duration(&text)
            .map(Duration)
            .map_err(de::Error::custom)
    }
}

/// The starting cluster: the page's size controls and the console's files.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabCluster {
    /// A node count, or the nodes' names.
    pub nodes: Option<Nodes>,
    /// The demo Deployment's replicas (`production/orders-api`).
    pub replicas: Option<u32>,
    pub seed: Option<u64>,
    /// 1, 10 or 60 (×): how fast virtual time runs in the page.
    #[serde(default, deserialize_with = "speed")]
    pub speed: Option<Speed>,
    #[serde(default, deserialize_with = "profile")]
    pub profile: Option<ProfileName>,
    #[serde(rename = "etcdMembers")]
    pub etcd_members: Option<usize>,
    /// Replicas of kube-scheduler and kube-controller-manager, leader-elected (1 to 5).
    #[serde(rename = "controllerReplicas")]
    pub controller_replicas: Option<u32>,
    /// kube-apiserver instances, each with its own watch caches (1 to 5).
    pub apiservers: Option<u32>,
    /// File name → contents, for `kubectl apply -f NAME` in the console.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
}

/// `nodes:` as a count or as names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Nodes {
    Count(usize),
    Names(Vec<String>),
}

impl<'de> Deserialize<'de> for Nodes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct NodesVisitor;
        impl<'de> Visitor<'de> for NodesVisitor {
            type Value = Nodes;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a node count or a list of node names")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Nodes, E> {
                usize::try_from(v)
                    .map(Nodes::Count)
                    .map_err(|_| E::custom("too many nodes"))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Nodes, E> {
                u64::try_from(v)
                    .map_err(|_| E::custom("a node count cannot be negative"))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Nodes, A::Error> {
                Vec::<String>::deserialize(SeqAccessDeserializer::new(seq)).map(Nodes::Names)
            }
        }
        d.deserialize_any(NodesVisitor)
    }
}

fn speed<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Speed>, D::Error> {
    let factor = u32::deserialize(d)?;
    Speed::ALL
        .into_iter()
        .find(|s| s.factor() == factor)
        .map(Some)
        .ok_or_else(|| de::Error::custom(format!("speed {factor} is not one of 1, 10, 60")))
}

fn profile<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ProfileName>, D::Error> {
    match String::deserialize(d)?.as_str() {
        "training" => Ok(Some(ProfileName::Training)),
        "kubernetes" => Ok(Some(ProfileName::Kubernetes)),
        other => Err(de::Error::custom(format!(
            "unknown profile {other:?} (expected training or kubernetes)"
        ))),
    }
}

/// A cluster action a step does (`do:`), as the Actions panel would.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Do {
    KillNode(String),
    RestoreNode(String),
    KillEtcdMember(String),
    RestoreEtcdMember(String),
    /// Cuts every link of an etcd member; `HealEtcd` restores links.
    IsolateEtcdMember(String),
    /// Cuts the links between the named members and the others.
    PartitionEtcd(Vec<String>),
    /// Restores every link (of one member when named).
    HealEtcd(Option<String>),
    /// Hands the etcd leadership to a member.
    MoveEtcdLeader(String),
    /// Freezes a replica of kube-scheduler or kube-controller-manager (its clock too).
    PauseComponent(String),
    /// Lets a paused replica go on where it stopped.
    ResumeComponent(String),
    /// Cuts an API server instance from etcd (its caches freeze; it keeps serving them).
    CutApiserver(String),
    /// Stops an API server instance (its clients move to another).
    StopApiserver(String),
    /// Brings a cut or stopped API server instance back.
    RestoreApiserver(String),
    /// Whether processes started from now on list first with a consistent read (the fix for
    /// informers going back in time).
    ConsistentFirstList(bool),
    /// Two editors write `production/orders-api` from the same read: one gets 409.
    ConflictingWrite,
    Pause,
    Resume,
    Speed(Speed),
    /// Starts the naive watcher and the resuming informer on `production`.
    CompareReconnects,
    /// Cuts their connections to the API server; `RestoreWatches` brings them back.
    CutWatches,
    RestoreWatches,
    /// Compacts the ledger to its current revision.
    Compact,
}

/// The actions, as written, with the argument each takes.
pub const ACTIONS: &[&str] = &[
    "kill-node NAME",
    "restore-node NAME",
    "kill-etcd-member NAME",
    "restore-etcd-member NAME",
    "isolate-etcd-member NAME",
    "partition-etcd NAME…",
    "heal-etcd [NAME]",
    "move-etcd-leader NAME",
    "pause-component NAME",
    "resume-component NAME",
    "cut-apiserver NAME",
    "stop-apiserver NAME",
    "restore-apiserver NAME",
    "consistent-first-list on|off",
    "conflicting-write",
    "pause",
    "resume",
    "speed 1|10|60",
    "compare-reconnects",
    "cut-watches",
    "restore-watches",
    "compact",
];

impl Do {
    /// Reads one action as written in a lab (`kill-node node-c`).
    pub fn parse(text: &str) -> Result<Do, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let named = |make: fn(String) -> Do| match words.as_slice() {
            [_, name] => Ok(make(name.to_string())),
            _ => Err(format!("{:?} takes one name: {} NAME", text, words[0])),
        };
        let bare = |action: Do| match words.as_slice() {
            [_] => Ok(action),
            _ => Err(format!("{:?} takes no argument", words[0])),
        };
        match words.first().copied() {
            Some("kill-node") => named(Do::KillNode),
            Some("restore-node") => named(Do::RestoreNode),
            Some("kill-etcd-member") => named(Do::KillEtcdMember),
            Some("restore-etcd-member") => named(Do::RestoreEtcdMember),
            Some("isolate-etcd-member") => named(Do::IsolateEtcdMember),
            Some("move-etcd-leader") => named(Do::MoveEtcdLeader),
            Some("pause-component") => named(Do::PauseComponent),
            Some("resume-component") => named(Do::ResumeComponent),
            Some("cut-apiserver") => named(Do::CutApiserver),
            Some("stop-apiserver") => named(Do::StopApiserver),
            Some("restore-apiserver") => named(Do::RestoreApiserver),
            Some("consistent-first-list") => match words.as_slice() {
                [_, "on"] => Ok(Do::ConsistentFirstList(true)),
                [_, "off"] => Ok(Do::ConsistentFirstList(false)),
                _ => Err(format!("{text:?}: consistent-first-list takes on or off")),
            },
            Some("partition-etcd") => match &words[1..] {
                [] => {
                    Err("partition-etcd takes the members of one side: partition-etcd NAME…".into())
                }
                names => Ok(Do::PartitionEtcd(
                    names.iter().map(|n| n.to_string()).collect(),
                )),
            },
            Some("heal-etcd") => match words.as_slice() {
                [_] => Ok(Do::HealEtcd(None)),
                [_, name] => Ok(Do::HealEtcd(Some(name.to_string()))),
                _ => Err("heal-etcd takes at most one name: heal-etcd [NAME]".into()),
            },
            Some("conflicting-write") => bare(Do::ConflictingWrite),
            Some("pause") => bare(Do::Pause),
            Some("resume") => bare(Do::Resume),
            Some("compare-reconnects") => bare(Do::CompareReconnects),
            Some("cut-watches") => bare(Do::CutWatches),
            Some("restore-watches") => bare(Do::RestoreWatches),
            Some("compact") => bare(Do::Compact),
            Some("speed") => match words.as_slice() {
                [_, n] => Speed::ALL
                    .into_iter()
                    .find(|s| s.factor().to_string() == *n)
                    .map(Do::Speed)
                    .ok_or_else(|| format!("speed {n} is not one of 1, 10, 60")),
                _ => Err("speed takes one factor: speed 1|10|60".into()),
            },
            _ => Err(format!(
                "unknown action {text:?} (actions: {})",
                ACTIONS.join(", ")
            )),
        }
    }
}

impl<'de> Deserialize<'de> for Do {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Do::parse(&String::deserialize(d)?).map_err(de::Error::custom)
    }
}

/// `view:`, by the id the tabs carry (`ledger`, `broadcast`…).
fn view<'de, D: Deserializer<'de>>(d: D) -> Result<Option<View>, D::Error> {
    let id = String::deserialize(d)?;
    View::ALL
        .into_iter()
        .find(|v| v.id() == id)
        .map(Some)
        .ok_or_else(|| {
            let ids: Vec<_> = View::ALL.iter().map(|v| v.id()).collect();
            de::Error::custom(format!("unknown view {id:?} (views: {})", ids.join(", ")))
        })
}

/// What a check expects of a command's output.
#[derive(Debug, Clone)]
pub enum Expect {
    /// The output, without its trailing newline, is exactly this.
    Equals(String),
    /// The output matches this regular expression somewhere.
    Matches(regex_lite::Regex),
    /// The command fails (a non-zero exit).
    Fails,
    /// The command succeeds.
    Succeeds,
}

impl PartialEq for Expect {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Expect::Equals(a), Expect::Equals(b)) => a == b,
            (Expect::Matches(a), Expect::Matches(b)) => a.as_str() == b.as_str(),
            (Expect::Fails, Expect::Fails) | (Expect::Succeeds, Expect::Succeeds) => true,
            _ => false,
        }
    }
}

/// A condition a task or a wait needs to hold.
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    /// Runs a console line (kubectl, as the learner would type it) and looks at its output.
    Command { line: String, expect: Expect },
    /// Some revision since the step began wrote under `key` (an etcd key prefix), by `writer`
    /// as the ledger's Writer column names it (`kubectl`, `kubelet/node-a`).
    Ledger { key: String, writer: Option<String> },
    /// An Event with this reason exists, about `object` (`KIND/NAME`) if given.
    Event {
        reason: String,
        object: Option<String>,
    },
    /// The etcd member named leads, and writes commit through it.
    EtcdLeader(String),
    /// The time-travel checker flagged a list of `component`'s informers (of `resource`, if
    /// given) since the step began — or, with `none`, did not.
    TimeTravel {
        component: String,
        resource: Option<String>,
        none: bool,
    },
}

// The parts of a check as written (the `Check` deserializer reads them).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TimeTravelCheck {
    component: String,
    resource: Option<String>,
    #[serde(default)]
    none: bool,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EtcdCheck {
    leader: String,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LedgerCheck {
    key: String,
    writer: Option<String>,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EventCheck {
    reason: String,
    object: Option<String>,
}

impl<'de> Deserialize<'de> for Check {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Written {
            kubectl: Option<String>,
            equals: Option<String>,
            matches: Option<String>,
            fails: Option<bool>,
            ledger: Option<LedgerCheck>,
            event: Option<EventCheck>,
            etcd: Option<EtcdCheck>,
            #[serde(rename = "timeTravel")]
            time_travel: Option<TimeTravelCheck>,
        }
        let w = Written::deserialize(d)?;
        let kinds = [
            w.kubectl.is_some(),
            w.ledger.is_some(),
            w.event.is_some(),
            w.etcd.is_some(),
            w.time_travel.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err(de::Error::custom(
                "a check is one of {kubectl: …, equals|matches|fails: …}, {ledger: {key, writer}}, {event: {reason, object}}, {etcd: {leader}} or {timeTravel: {component, resource, none}}",
            ));
        }
        let expects = w.equals.is_some() || w.matches.is_some() || w.fails.is_some();
        if expects && w.kubectl.is_none() {
            return Err(de::Error::custom(
                "equals, matches and fails go with a kubectl command",
            ));
        }
        if let Some(etcd) = w.etcd {
            return Ok(Check::EtcdLeader(etcd.leader));
        }
        if let Some(t) = w.time_travel {
            return Ok(Check::TimeTravel {
                component: t.component,
                resource: t.resource,
                none: t.none,
            });
        }
        if let Some(ledger) = w.ledger {
            return Ok(Check::Ledger {
                key: ledger.key,
                writer: ledger.writer,
            });
        }
        if let Some(event) = w.event {
            if let Some(object) = &event.object {
                if !object.contains('/') {
                    return Err(de::Error::custom(format!(
                        "event object {object:?} is not KIND/NAME"
                    )));
                }
            }
            return Ok(Check::Event {
                reason: event.reason,
                object: event.object,
            });
        }
        let line = w.kubectl.unwrap_or_default();
        let line = if line.trim_start().starts_with("kubectl ") {
            line
        } else {
            format!("kubectl {line}")
        };
        let expect = match (w.equals, w.matches, w.fails) {
            (Some(e), None, None) => Expect::Equals(e),
            (None, Some(m), None) => regex_lite::Regex::new(&m)
                .map(Expect::Matches)
                .map_err(|e| de::Error::custom(format!("matches: {e}")))?,
            (None, None, Some(true)) => Expect::Fails,
            (None, None, Some(false)) | (None, None, None) => Expect::Succeeds,
            _ => {
                return Err(de::Error::custom(
                    "a kubectl check takes one of equals, matches or fails",
                ))
            }
        };
        Ok(Check::Command { line, expect })
    }
}

/// `wait:` — some virtual time, or until checks hold.
#[derive(Debug, Clone, PartialEq)]
pub enum Wait {
    For(u64),
    Until { checks: Vec<Check>, timeout_ms: u64 },
}

impl<'de> Deserialize<'de> for Wait {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Written {
            #[serde(rename = "for")]
            for_: Option<Duration>,
            until: Option<OneOrMany<Check>>,
            timeout: Option<Duration>,
        }
        let w = Written::deserialize(d)?;
        match (w.for_, w.until, w.timeout) {
            (Some(Duration(ms)), None, None) => Ok(Wait::For(ms)),
            (None, Some(OneOrMany(checks)), timeout) if !checks.is_empty() => Ok(Wait::Until {
                checks,
                timeout_ms: timeout.map_or(DEFAULT_TIMEOUT_MS, |t| t.0),
            }),
            _ => Err(de::Error::custom(
                "wait is {for: DURATION} or {until: CHECK, timeout: DURATION}",
            )),
        }
    }
}

/// One more thing a step does after its `do`, `run` and `wait`, when a story needs another order
/// (`then: [{wait: {for: 5s}}, {run: kubectl get pods}]`).
#[derive(Debug, Clone, PartialEq)]
pub enum Beat {
    Run(String),
    Do(Do),
    Wait(Wait),
}

impl<'de> Deserialize<'de> for Beat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Written {
            run: Option<String>,
            #[serde(rename = "do")]
            action: Option<Do>,
            wait: Option<Wait>,
        }
        match Written::deserialize(d)? {
            Written {
                run: Some(line),
                action: None,
                wait: None,
            } => Ok(Beat::Run(line)),
            Written {
                run: None,
                action: Some(action),
                wait: None,
            } => Ok(Beat::Do(action)),
            Written {
                run: None,
                action: None,
                wait: Some(wait),
            } => Ok(Beat::Wait(wait)),
            _ => Err(de::Error::custom(
                "a `then` item is one of {run: LINE}, {do: ACTION} or {wait: …}",
            )),
        }
    }
}

/// One step: what to read, what happens, and for an exercise what the learner must achieve.
/// Entering it does its `do` actions, then its `run` lines, then its `wait`, then each `then`
/// item in order.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub say: Option<Text>,
    /// Console lines, typed and run as if the learner had.
    #[serde(default)]
    pub run: OneOrMany<String>,
    #[serde(default, rename = "do")]
    pub actions: OneOrMany<Do>,
    #[serde(default, deserialize_with = "view")]
    pub view: Option<View>,
    pub wait: Option<Wait>,
    #[serde(default)]
    pub then: Vec<Beat>,
    pub task: Option<Text>,
    pub hint: Option<Text>,
    #[serde(default)]
    pub check: OneOrMany<Check>,
    /// Console lines that solve the task (run by `./x lab`, shown on request).
    #[serde(default)]
    pub solution: OneOrMany<String>,
    /// How long the task's checks get once its solution ran (default 5m of virtual time).
    pub timeout: Option<Duration>,
}

impl Step {
    /// An exercise: the learner must make its checks hold.
    pub fn is_task(&self) -> bool {
        self.task.is_some()
    }

    /// A short name for the step in the runner's report: its task, else what it says.
    pub fn headline(&self) -> String {
        let text = self.task.as_ref().or(self.say.as_ref());
        let first = text.map(|t| t.get(Lang::En)).unwrap_or("(no text)");
        let first = first.lines().next().unwrap_or_default();
        match first.char_indices().nth(60) {
            Some((at, _)) => format!("{}…", &first[..at]),
            None => first.to_string(),
        }
    }
}

/// A lab.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lab {
    pub title: Text,
    pub summary: Option<Text>,
    /// The cluster the lab starts from; without one it runs on the page's current cluster.
    pub cluster: Option<LabCluster>,
    pub steps: Vec<Step>,
}

/// Why a lab file was refused: where, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabError {
    /// 1-based, where the parser could tell.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub reason: String,
}

impl LabError {
    /// A refusal the parser cannot place (a rule over the whole file, a fetch that failed).
    pub fn unplaced(reason: impl Into<String>) -> LabError {
        LabError {
            line: None,
            column: None,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for LabError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "{l}:{c}: {}", self.reason),
            _ => f.write_str(&self.reason),
        }
    }
}

impl Lab {
    /// Reads a lab file; the error says where and why.
    pub fn parse(text: &str) -> Result<Lab, LabError> {
        let lab: Lab = serde_yaml_ng::from_str(text).map_err(|e| {
            let location = e.location();
            let mut reason = e.to_string();
            // The location is reported on its own; drop the parser's " at line L column C".
            if let Some(at) = reason.rfind(" at line ") {
                if !reason[at..].contains(',') {
                    reason.truncate(at);
                }
            }
            LabError {
                line: location.as_ref().map(|l| l.line()),
                column: location.as_ref().map(|l| l.column()),
                reason,
            }
        })?;
        if lab.steps.is_empty() {
            return Err(LabError::unplaced("a lab needs at least one step"));
        }
        for (i, step) in lab.steps.iter().enumerate() {
            let orphan =
                step.task.is_none() && (!step.check.0.is_empty() || !step.solution.0.is_empty());
            if orphan {
                return Err(LabError::unplaced(format!(
                    "steps[{i}]: check and solution belong to a step with a task"
                )));
            }
            if step.task.is_some() && step.check.0.is_empty() {
                return Err(LabError::unplaced(format!(
                    "steps[{i}]: a task needs a check"
                )));
            }
        }
        Ok(lab)
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    fn refused(text: &str) -> LabError {
        match Lab::parse(text) {
            Ok(lab) => panic!("accepted: {lab:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn a_complete_lab_reads_every_key() {
        let lab = Lab::parse(
            r#"
title: {en: Drill, zh: 演练}
summary: Only English here
cluster:
  nodes: [node-x, node-y]
  replicas: 4
  seed: 9
  speed: 60
  profile: kubernetes
  etcdMembers: 5
  files:
    a.yaml: "kind: Pod\n"
steps:
  - say: {zh: 只有中文}
    do: [pause, kill-node node-x, speed 10]
    run: kubectl get pods
    view: ledger
    wait: {for: 1m30s}
    then:
      - run: kubectl get nodes
      - do: compact
      - wait: {until: {kubectl: get nodes, matches: "node-x"}, timeout: 10s}
  - task: {en: Do it}
    hint: {en: How}
    check:
      - {kubectl: "get pods -o name", fails: true}
      - ledger: {key: /registry/pods/, writer: kubectl}
      - event: {reason: Killing, object: Pod/web}
    solution: [kubectl delete pod web, kubectl get pods]
    timeout: 2m
"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(lab.title.get(Lang::Zh), "演练");
        assert_eq!(
            lab.summary.as_ref().map(|t| t.get(Lang::Zh)),
            Some("Only English here")
        );
        let c = lab.cluster.as_ref().unwrap_or_else(|| panic!("cluster"));
        assert_eq!(
            c.nodes,
            Some(Nodes::Names(vec!["node-x".into(), "node-y".into()]))
        );
        assert_eq!(
            (c.replicas, c.seed, c.speed),
            (Some(4), Some(9), Some(Speed::X60))
        );
        assert_eq!(
            (c.profile, c.etcd_members),
            (Some(ProfileName::Kubernetes), Some(5))
        );
        let first = &lab.steps[0];
        assert_eq!(
            first.say.as_ref().map(|t| t.get(Lang::En)),
            Some("只有中文"),
            "falls back"
        );
        assert_eq!(
            first.actions.0,
            [
                Do::Pause,
                Do::KillNode("node-x".into()),
                Do::Speed(Speed::X10)
            ]
        );
        assert_eq!(first.view, Some(View::Ledger));
        assert_eq!(first.wait, Some(Wait::For(90_000)));
        assert_eq!(first.then.len(), 3);
        assert!(matches!(
            &first.then[2],
            Beat::Wait(Wait::Until {
                timeout_ms: 10_000,
                ..
            })
        ));
        let task = &lab.steps[1];
        assert!(task.is_task());
        assert!(
            matches!(&task.check.0[0], Check::Command { line, expect: Expect::Fails } if line == "kubectl get pods -o name")
        );
        assert_eq!(task.solution.0.len(), 2);
        assert_eq!(task.timeout, Some(Duration(120_000)));
    }

    #[test]
    fn the_etcd_network_actions_and_the_leader_check_read_as_written() {
        assert_eq!(
            Do::parse("partition-etcd etcd-0 etcd-1"),
            Ok(Do::PartitionEtcd(vec!["etcd-0".into(), "etcd-1".into()]))
        );
        assert_eq!(Do::parse("heal-etcd"), Ok(Do::HealEtcd(None)));
        assert_eq!(
            Do::parse("heal-etcd etcd-2"),
            Ok(Do::HealEtcd(Some("etcd-2".into())))
        );
        assert_eq!(
            Do::parse("isolate-etcd-member etcd-0"),
            Ok(Do::IsolateEtcdMember("etcd-0".into()))
        );
        assert!(Do::parse("partition-etcd").is_err());
        assert!(Do::parse("heal-etcd a b").is_err());
        let lab =
            Lab::parse("title: t\nsteps:\n  - task: lead\n    check: {etcd: {leader: etcd-0}}\n")
                .unwrap();
        assert_eq!(lab.steps[0].check.0, [Check::EtcdLeader("etcd-0".into())]);
        let e = refused("title: t\nsteps:\n  - task: lead\n    check: {etcd: {follower: x}}\n");
        assert!(
            e.reason.contains("unknown field `follower`"),
            "{}",
            e.reason
        );
    }

    #[test]
    fn bad_labs_are_refused_with_their_line_column_and_reason() {
        let cases = [
            ("title: {en: x}\nsteps:\n  - say: {en: hi}\n    do: explode node-a\n", (4, 9), "unknown action \"explode node-a\""),
            ("title: {en: x}\nsteps:\n  - say: {en: hi}\n    frobnicate: 1\n", (4, 5), "unknown field `frobnicate`"),
            ("title: {en: x}\nsteps:\n  - task: {en: t}\n    check: {kubectl: get pods, matches: \"(\"}\n", (4, 12), "matches:"),
            ("title: {en: x}\nsteps:\n  - view: lobby\n", (3, 5), "unknown view \"lobby\""),
            ("title: {en: x}\nsteps:\n  - wait: {for: soon}\n", (3, 11), "not a duration"),
            ("title: {en: x}\nsteps:\n  - say: [1, 2]\n", (3, 10), "expected a text"),
            ("title: {en: x}\ncluster: {speed: 7}\nsteps: [{say: hi}]\n", (2, 10), "speed 7"),
            ("title: {fr: x}\nsteps: [{say: hi}]\n", (1, 9), "unknown field `fr`"),
            ("title: {en: x\nsteps:\n  - say: hi\n", (2, 6), "did not find expected"),
            ("title: {en: x}\nsteps:\n  - task: t\n    check: {ledger: {key: /x}, equals: \"1\"}\n", (4, 12), "go with a kubectl command"),
        ];
        for (text, (line, column), reason) in cases {
            let e = refused(text);
            assert_eq!(
                (e.line, e.column),
                (Some(line), Some(column)),
                "{text}: {e}"
            );
            assert!(e.reason.contains(reason), "{text}: {e}");
        }
    }

    #[test]
    fn a_check_without_a_task_and_a_task_without_a_check_are_refused() {
        let e = refused("title: x\nsteps:\n  - say: hi\n    check: {kubectl: get pods}\n");
        assert!(
            e.reason.contains("steps[0]: check and solution belong"),
            "{e}"
        );
        let e = refused("title: x\nsteps:\n  - task: do it\n");
        assert!(e.reason.contains("a task needs a check"), "{e}");
        let e = refused("title: x\nsteps: []\n");
        assert!(e.reason.contains("at least one step"), "{e}");
    }
}
