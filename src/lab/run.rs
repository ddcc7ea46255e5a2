//! Running a lab on the engine: the starting cluster a lab asks for, what a step does when it is
//! entered (its console lines, its actions, its wait), and whether a task's checks hold. The
//! page's lab mode and `./x lab` (the native runner, [`run_lab`]) both go through here, so a lab
//! that passes in CI behaves the same for a learner.

use watchlab_apimachinery::request::ListOptions;
use watchlab_apimachinery::status::Status;
use watchlab_engine::api::{Kind, Object};
use watchlab_engine::apiserver::instance::MAX_INSTANCES;
use watchlab_engine::cluster::{
    Action as ClusterAction, Cluster, ClusterConfig, Outcome, MAX_CONTROLLER_REPLICAS,
};
use watchlab_engine::store::Revision;

use super::format::{
    Beat, Check, Do, Expect, Lab, LabCluster, Nodes, Step, Wait, DEFAULT_TIMEOUT_MS,
};
use crate::i18n::Lang;
use crate::seeds::{SEED_DEPLOYMENT, SEED_NAMESPACE};
use crate::state::{
    node_names, parse_size, sized_cluster_from, Engine, CONSOLE_USER, SEED_REPLICAS,
};

/// How far virtual time moves between two looks at a wait's or a task's checks.
pub const CHECK_EVERY_MS: u64 = 1_000;

/// The cluster a lab starts from: the page's default one, changed where the lab says.
pub fn lab_cluster(lab: &Lab) -> Result<Cluster, String> {
    let default = LabCluster::default();
    let c = lab.cluster.as_ref().unwrap_or(&default);
    let defaults = ClusterConfig::default();
    let replicas = c.replicas.unwrap_or(SEED_REPLICAS);
    let count = match &c.nodes {
        None => defaults.nodes.len(),
        Some(Nodes::Count(n)) => *n,
        Some(Nodes::Names(names)) => names.len(),
    };
    parse_size(&count.to_string(), &replicas.to_string()).map_err(|e| e.text(Lang::En))?;
    let nodes = match &c.nodes {
        Some(Nodes::Names(names)) => names.clone(),
        _ => node_names(count),
    };
    let etcd_members = c.etcd_members.unwrap_or(defaults.etcd_members);
    if ![1, 3, 5].contains(&etcd_members) {
        return Err(format!(
            "etcdMembers: {etcd_members} is not supported (choose 1, 3 or 5)"
        ));
    }
    let controller_replicas = c.controller_replicas.unwrap_or(1);
    if !(1..=MAX_CONTROLLER_REPLICAS).contains(&controller_replicas) {
        return Err(format!(
            "controllerReplicas: {controller_replicas} is not supported (choose 1 to {MAX_CONTROLLER_REPLICAS})"
        ));
    }
    let apiservers = c.apiservers.unwrap_or(1);
    if !(1..=MAX_INSTANCES as u32).contains(&apiservers) {
        return Err(format!(
            "apiservers: {apiservers} is not supported (choose 1 to {MAX_INSTANCES})"
        ));
    }
    let config = ClusterConfig {
        seed: c.seed.unwrap_or(crate::DEFAULT_SEED),
        nodes,
        etcd_members,
        controller_replicas,
        apiservers,
        profile: c.profile.unwrap_or(defaults.profile),
        ..ClusterConfig::default()
    };
    Ok(sized_cluster_from(config, replicas))
}

/// The engine a lab starts from: its cluster, then [`prepare`]d.
pub fn lab_engine(lab: &Lab) -> Result<Engine, String> {
    let mut engine = Engine::with_cluster(lab_cluster(lab)?);
    prepare(&mut engine, lab);
    Ok(engine)
}

/// Gives a fresh engine what the lab adds to its cluster: its files in the console, its speed.
pub fn prepare(engine: &mut Engine, lab: &Lab) {
    let Some(cluster) = &lab.cluster else {
        return;
    };
    for (name, content) in &cluster.files {
        engine.console.set_file(name, content);
    }
    if let Some(speed) = cluster.speed {
        engine.clock.set_speed(speed);
    }
}

/// Does one action: a cluster action's outcome as the Actions panel gets it, or `None` for a
/// clock setting.
pub fn perform(engine: &mut Engine, action: &Do) -> Option<Result<Outcome, Status>> {
    let cluster_action = match action {
        Do::KillNode(n) => ClusterAction::KillNode(n.clone()),
        Do::RestoreNode(n) => ClusterAction::RestoreNode(n.clone()),
        Do::KillEtcdMember(n) => ClusterAction::KillEtcdMember(n.clone()),
        Do::RestoreEtcdMember(n) => ClusterAction::RestoreEtcdMember(n.clone()),
        Do::IsolateEtcdMember(n) => ClusterAction::IsolateEtcdMember(n.clone()),
        Do::PartitionEtcd(group) => ClusterAction::PartitionEtcd(group.clone()),
        Do::HealEtcd(n) => ClusterAction::HealEtcd(n.clone()),
        Do::MoveEtcdLeader(n) => ClusterAction::MoveEtcdLeader(n.clone()),
        Do::PauseComponent(n) => ClusterAction::PauseComponent(n.clone()),
        Do::ResumeComponent(n) => ClusterAction::ResumeComponent(n.clone()),
        Do::CutApiserver(n) => ClusterAction::CutApiserver(n.clone()),
        Do::StopApiserver(n) => ClusterAction::StopApiserver(n.clone()),
        Do::RestoreApiserver(n) => ClusterAction::RestoreApiserver(n.clone()),
        Do::ConsistentFirstList(on) => ClusterAction::ConsistentFirstList(*on),
        Do::ConflictingWrite => ClusterAction::ConflictingWrite {
            namespace: SEED_NAMESPACE.into(),
            name: SEED_DEPLOYMENT.into(),
        },
        Do::CompareReconnects => ClusterAction::CompareReconnects {
            namespace: SEED_NAMESPACE.into(),
        },
        Do::CutWatches => ClusterAction::CutWatchConnections,
        Do::RestoreWatches => ClusterAction::RestoreWatchConnections,
        Do::Compact => ClusterAction::CompactNow,
        Do::Pause => {
            engine.clock.set_paused(true);
            return None;
        }
        Do::Resume => {
            engine.clock.set_paused(false);
            return None;
        }
        Do::Speed(s) => {
            engine.clock.set_speed(*s);
            return None;
        }
    };
    Some(engine.cluster.apply(cluster_action))
}

/// What a check saw the last time it was evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckResult {
    pub passed: bool,
    /// What was seen, for the learner and the runner's FAIL line.
    pub saw: String,
}

/// Evaluates one check now; `since` is the revision the step began at (ledger checks look at
/// what was written after it).
pub fn evaluate(engine: &mut Engine, check: &Check, since: Revision) -> CheckResult {
    match check {
        Check::Command { line, expect } => {
            let mut session = engine.cluster.session(CONSOLE_USER);
            let out = engine.console.check(line, &mut session);
            judge(expect, &out)
        }
        Check::Ledger { key, writer } => {
            let api = engine.cluster.api();
            let found = api
                .ledger()
                .iter()
                .rev()
                .take_while(|e| e.revision > since)
                .find(|e| {
                    e.key().starts_with(key.as_str())
                        && writer.as_deref().is_none_or(|w| *e.user == *w)
                });
            match found {
                Some(e) => CheckResult {
                    passed: true,
                    saw: format!(
                        "revision {} {} {} by {}",
                        e.revision,
                        e.verb,
                        e.key(),
                        e.user
                    ),
                },
                None => CheckResult {
                    passed: false,
                    saw: format!("no write under {key} since revision {since}"),
                },
            }
        }
        Check::EtcdLeader(want) => {
            let etcd = engine.cluster.etcd();
            let leader = etcd.leader().map(|m| (m.name.clone(), m.term));
            let passed = etcd.can_commit() && leader.as_ref().is_some_and(|(l, _)| l == want);
            CheckResult {
                passed,
                saw: match leader {
                    Some((name, term)) if etcd.can_commit() => {
                        format!("{name} leads term {term}")
                    }
                    Some((name, term)) => {
                        format!("{name} leads term {term} without a majority")
                    }
                    None => "no etcd leader".to_string(),
                },
            }
        }
        Check::TimeTravel {
            component,
            resource,
            none,
        } => time_travel(engine, component, resource.as_deref(), *none, since),
        Check::Event { reason, object } => {
            // What the cluster holds, as the watch cache answers (even without an etcd quorum).
            let opts = ListOptions::from_cache();
            let list = engine.cluster.api().list(Kind::Event, None, &opts);
            let items = match list {
                Ok(l) => l.items,
                Err(s) => {
                    return CheckResult {
                        passed: false,
                        saw: s.message().to_string(),
                    }
                }
            };
            let matches = |o: &Object| match o {
                Object::Event(e) => {
                    *e.reason == **reason
                        && object.as_deref().is_none_or(|want| {
                            let r = &e.involved_object;
                            want.split_once('/').is_some_and(|(kind, name)| {
                                kind.eq_ignore_ascii_case(&r.kind) && name == r.name
                            })
                        })
                }
                _ => false,
            };
            let passed = items.iter().any(|o| matches(o));
            CheckResult {
                passed,
                saw: if passed {
                    format!("an Event {reason}")
                } else {
                    format!("no Event {reason} among {}", items.len())
                },
            }
        }
    }
}

/// A `timeTravel` check: whether the checker flagged a first list of `component`'s informers (of
/// `resource`) since revision `since` — or, with `none`, did not.
fn time_travel(
    engine: &Engine,
    component: &str,
    resource: Option<&str>,
    none: bool,
    since: Revision,
) -> CheckResult {
    let api = engine.cluster.api();
    let found = api.time_travels().since(0).rev().find(|f| {
        f.revision > since
            && *f.component == *component
            && resource.is_none_or(|r| f.kind.resource().plural == r)
    });
    CheckResult {
        passed: found.is_some() != none,
        saw: match found {
            Some(f) => format!(
                "{} listed {} at resourceVersion {} from {} after reaching {}",
                f.component,
                f.kind.resource().plural,
                f.listed,
                f.apiserver,
                f.reached
            ),
            None => format!("no list of {component} went back in time"),
        },
    }
}

/// Whether a command's outcome is what the check expects.
fn judge(expect: &Expect, out: &watchlab_kubectl::Outcome) -> CheckResult {
    let stdout = out.stdout.trim_end_matches('\n');
    let shown = || {
        let text = if out.exit_code != 0 && stdout.is_empty() {
            out.stderr.trim_end()
        } else {
            stdout
        };
        let text: String = text.chars().take(200).collect();
        format!("{text:?} (exit {})", out.exit_code)
    };
    let passed = match expect {
        Expect::Equals(want) => out.exit_code == 0 && stdout == want.trim_end_matches('\n'),
        Expect::Matches(re) => out.exit_code == 0 && re.is_match(stdout),
        Expect::Fails => out.exit_code != 0,
        Expect::Succeeds => out.exit_code == 0,
    };
    CheckResult {
        passed,
        saw: shown(),
    }
}

/// Evaluates every check; all must pass.
pub fn evaluate_all(engine: &mut Engine, checks: &[Check], since: Revision) -> Vec<CheckResult> {
    checks.iter().map(|c| evaluate(engine, c, since)).collect()
}

/// Lets virtual time run, a second at a time, until the checks hold or `timeout_ms` passed;
/// returns the last results.
pub fn wait_until(
    engine: &mut Engine,
    checks: &[Check],
    since: Revision,
    timeout_ms: u64,
) -> Vec<CheckResult> {
    let mut waited = 0;
    loop {
        let results = evaluate_all(engine, checks, since);
        if results.iter().all(|r| r.passed) || waited >= timeout_ms {
            return results;
        }
        let step = CHECK_EVERY_MS.min(timeout_ms - waited);
        engine.advance(step);
        waited += step;
    }
}

/// What entering a step did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Entered {
    /// The ledger's revision when the step began.
    pub since: Revision,
    /// The cluster actions' outcomes, in order.
    pub outcomes: Vec<Result<Outcome, Status>>,
    /// A `wait: {until: …}` that timed out: its checks and their last results.
    pub wait_failed: Option<(Vec<Check>, Vec<CheckResult>)>,
}

/// Enters a step: does its actions, runs its console lines, then its wait, then its `then`.
pub fn enter(engine: &mut Engine, step: &Step) -> Entered {
    let mut entered = Entered {
        since: engine.cluster.api().revision(),
        ..Entered::default()
    };
    let beats = step
        .actions
        .0
        .iter()
        .cloned()
        .map(Beat::Do)
        .chain(step.run.0.iter().cloned().map(Beat::Run))
        .chain(step.wait.iter().cloned().map(Beat::Wait))
        .chain(step.then.iter().cloned());
    for beat in beats {
        match beat {
            Beat::Run(line) => engine.run_command(&line),
            Beat::Do(action) => entered.outcomes.extend(perform(engine, &action)),
            Beat::Wait(Wait::For(ms)) => engine.advance(ms),
            Beat::Wait(Wait::Until { checks, timeout_ms }) => {
                let results = wait_until(engine, &checks, entered.since, timeout_ms);
                if !results.iter().all(|r| r.passed) && entered.wait_failed.is_none() {
                    entered.wait_failed = Some((checks, results));
                }
            }
        }
    }
    entered
}

/// One line of the runner's report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepReport {
    /// 1-based.
    pub number: usize,
    pub headline: String,
    /// `None` when the step passed; else what failed.
    pub failure: Option<String>,
}

impl std::fmt::Display for StepReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.failure {
            None => write!(f, "ok   step {}: {}", self.number, self.headline),
            Some(why) => write!(
                f,
                "FAIL step {}: {}\n     {why}",
                self.number, self.headline
            ),
        }
    }
}

/// Runs a whole lab as `./x lab` does: each step in order, each task's solution, then its
/// checks (given the step's timeout of virtual time to hold).
pub fn run_lab(lab: &Lab) -> Result<Vec<StepReport>, String> {
    let mut engine = lab_engine(lab)?;
    let mut reports = Vec::new();
    for (i, step) in lab.steps.iter().enumerate() {
        let entered = enter(&mut engine, step);
        let mut failure = None;
        if let Some(Err(e)) = entered.outcomes.iter().find(|o| o.is_err()) {
            failure = Some(format!("action refused: {}", e.message()));
        } else if let Some((checks, results)) = &entered.wait_failed {
            failure = Some(describe_failure("wait until", checks, results));
        } else if step.is_task() {
            for line in &step.solution.0 {
                engine.run_command(line);
            }
            let timeout = step.timeout.map_or(DEFAULT_TIMEOUT_MS, |t| t.0);
            let results = wait_until(&mut engine, &step.check.0, entered.since, timeout);
            if !results.iter().all(|r| r.passed) {
                failure = Some(describe_failure("check", &step.check.0, &results));
            }
        }
        reports.push(StepReport {
            number: i + 1,
            headline: step.headline(),
            failure,
        });
    }
    Ok(reports)
}

/// The first failing check and what it saw.
fn describe_failure(what: &str, checks: &[Check], results: &[CheckResult]) -> String {
    let failed = checks.iter().zip(results).find(|(_, r)| !r.passed);
    match failed {
        Some((check, result)) => format!("{what} {} saw {}", describe(check), result.saw),
        None => format!("{what} did not hold"),
    }
}

/// A check as the report names it.
pub fn describe(check: &Check) -> String {
    match check {
        Check::Command { line, expect } => match expect {
            Expect::Equals(v) => format!("`{line}` equals {v:?}:"),
            Expect::Matches(re) => format!("`{line}` matches /{}/:", re.as_str()),
            Expect::Fails => format!("`{line}` fails:"),
            Expect::Succeeds => format!("`{line}` succeeds:"),
        },
        Check::Ledger { key, writer } => match writer {
            Some(w) => format!("ledger write under {key} by {w}:"),
            None => format!("ledger write under {key}:"),
        },
        Check::Event { reason, object } => match object {
            Some(o) => format!("event {reason} about {o}:"),
            None => format!("event {reason}:"),
        },
        Check::EtcdLeader(name) => format!("etcd leader {name}:"),
        Check::TimeTravel {
            component,
            resource,
            none,
        } => format!(
            "{component}'s informers{} {}:",
            resource
                .as_deref()
                .map(|r| format!(" of {r}"))
                .unwrap_or_default(),
            if *none {
                "never going back in time"
            } else {
                "going back in time"
            }
        ),
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    fn run(text: &str) -> Vec<StepReport> {
        let lab = Lab::parse(text).unwrap_or_else(|e| panic!("{e}"));
        run_lab(&lab).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_check_that_never_passes_fails_with_what_it_saw() {
        let reports = run(r#"
title: never
steps:
  - task: scale to 7
    check: {kubectl: "get deploy orders-api -n production -o jsonpath={.spec.replicas}", equals: "7"}
    solution: kubectl scale deployment orders-api -n production --replicas=6
    timeout: 5s
"#);
        let why = reports[0].failure.clone().unwrap_or_default();
        assert_eq!(
            why,
            "check `kubectl get deploy orders-api -n production -o jsonpath={.spec.replicas}` equals \"7\": saw \"6\" (exit 0)"
        );
    }

    #[test]
    fn a_refused_action_and_a_wait_that_times_out_fail_their_step() {
        let reports = run(r#"
title: faults
cluster: {nodes: 2, replicas: 1}
steps:
  - do: kill-node node-z
  - wait: {until: {event: {reason: NoSuchReason}}, timeout: 3s}
  - then: [{run: kubectl get nodes}]
"#);
        assert!(reports[0]
            .failure
            .as_deref()
            .is_some_and(|f| f.starts_with("action refused:")));
        let wait = reports[1].failure.as_deref().unwrap_or_default();
        assert!(
            wait.starts_with("wait until event NoSuchReason: saw no Event NoSuchReason"),
            "{wait}"
        );
        assert!(reports[2].failure.is_none());
    }

    #[test]
    fn a_lab_s_cluster_is_built_as_it_says_and_refused_when_it_cannot_be() {
        let lab = Lab::parse(
            "title: t\ncluster: {nodes: 2, replicas: 4, etcdMembers: 1}\nsteps: [{say: hi}]\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let engine = lab_engine(&lab).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(engine.cluster.config().nodes, ["node-1", "node-2"]);
        assert_eq!(engine.cluster.etcd().members().len(), 1);
        let lab = Lab::parse("title: t\ncluster: {nodes: 1, replicas: 500}\nsteps: [{say: hi}]\n")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(lab_engine(&lab).is_err_and(|e| e.contains("500")));
    }

    /// The raft lab's etcd watch: the label prints under it at once (etcd-0 leads and applies
    /// it), and once etcd-0 is cut off and has had no leader for three election timeouts,
    /// the watch is cancelled.
    #[test]
    fn the_raft_lab_s_etcd_watch_shows_the_write_then_is_cancelled_on_the_cut_off_member() {
        let lab = Lab::parse(include_str!("../../static/labs/raft.yaml")).unwrap();
        let mut engine = lab_engine(&lab).unwrap();
        let printed = |engine: &Engine| {
            engine
                .console
                .lines()
                .iter()
                .map(|l| format!("{}\n", l.text))
                .collect::<String>()
        };
        enter(&mut engine, &lab.steps[0]);
        let first = printed(&engine);
        let label = first.find("$ kubectl label deployment orders-api").unwrap();
        let after: Vec<&str> = first[label..].lines().collect();
        assert_eq!(after[1], "deployment.apps/orders-api labeled");
        assert_eq!(
            after[2..4],
            ["PUT", "/registry/deployments/production/orders-api"]
        );
        assert!(
            after[4].contains(r#""labels":{"app":"orders-api"}"#),
            "before: {}",
            after[4]
        );
        assert_eq!(after[5], "/registry/deployments/production/orders-api");
        assert!(
            after[6].contains(r#""team":"orders""#),
            "after: {}",
            after[6]
        );
        assert!(engine.console.following());
        enter(&mut engine, &lab.steps[1]);
        enter(&mut engine, &lab.steps[2]);
        assert!(printed(&engine).contains(
            "watch was canceled (etcdserver: no leader)\nError: watch is canceled by the server\n"
        ));
        assert!(!engine.console.following());
    }

    /// The backup lab: the namespace is gone before the restore, back after it, and the
    /// Deployment's resourceVersion is the one it had when the snapshot was saved.
    #[test]
    fn the_backup_lab_restores_the_namespace_at_its_resource_versions() {
        let lab = Lab::parse(include_str!("../../static/labs/etcd-backup.yaml")).unwrap();
        let mut engine = lab_engine(&lab).unwrap();
        let last_line = |engine: &Engine| {
            engine
                .console
                .lines()
                .back()
                .map(|l| l.text.clone())
                .unwrap_or_default()
        };
        enter(&mut engine, &lab.steps[0]);
        let rv = last_line(&engine);
        assert!(rv.parse::<u64>().is_ok(), "{rv}");
        enter(&mut engine, &lab.steps[1]);
        assert_eq!(
            last_line(&engine),
            "Error from server (NotFound): namespaces \"production\" not found"
        );
        enter(&mut engine, &lab.steps[2]);
        for line in &lab.steps[2].solution.0 {
            engine.run_command(line);
        }
        enter(&mut engine, &lab.steps[3]);
        let printed: Vec<String> = engine
            .console
            .lines()
            .iter()
            .map(|l| l.text.clone())
            .collect();
        let at = printed
            .iter()
            .rposition(|l| l.starts_with("$ kubectl get deployment orders-api"))
            .unwrap();
        assert_eq!(printed[at + 1], rv, "restored at its resourceVersion");
    }
}
