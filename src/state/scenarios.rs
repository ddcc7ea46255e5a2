//! Labs inside the reducer: which lab the learner is in and how far (saved with the cluster as
//! an opaque marker, so a reload keeps it), entering steps, and a task's checks, evaluated as
//! the virtual clock moves and after every command until they pass and unlock Next.

use std::rc::Rc;

use watchlab_engine::clock::Timestamp;
use watchlab_engine::store::Revision;

use super::navigation::Tool;
use super::{Action, State};
use crate::lab::{enter, evaluate_all, lab_cluster, prepare, CheckResult, LabError};
use crate::scenario::{self, LabEntry};

/// Virtual milliseconds between two evaluations of an open task's checks while only the clock
/// moves (a command or an action re-evaluates at once).
pub const CHECK_EVERY_MS: u64 = crate::lab::run::CHECK_EVERY_MS;

/// An entered step's task, until the learner moves on.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenTask {
    /// The ledger's revision when the step began (ledger checks look after it).
    pub since: Revision,
    /// The checks' last results, in the step's order.
    pub results: Vec<CheckResult>,
    /// When they were evaluated (virtual time).
    pub checked_at: Timestamp,
    pub hint_shown: bool,
    pub solution_shown: bool,
}

impl OpenTask {
    pub fn passed(&self) -> bool {
        self.results.iter().all(|r| r.passed)
    }
}

/// Where the learner is in a lab.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub entry: Rc<LabEntry>,
    /// Steps entered.
    pub done: usize,
    /// The task of the last step entered, while it is open.
    pub task: Option<OpenTask>,
}

impl Progress {
    /// Every step entered and no task left open.
    pub fn finished(&self) -> bool {
        self.done >= self.entry.lab().steps.len() && self.task.is_none()
    }

    /// The step the panel shows: the open task's, else the next to enter (the last once
    /// finished).
    pub fn shown_step(&self) -> usize {
        let total = self.entry.lab().steps.len();
        if self.task.is_some() {
            self.done.saturating_sub(1)
        } else {
            self.done.min(total.saturating_sub(1))
        }
    }

    /// The opaque marker saved with the cluster: `done:since:id` (`since` is `-` without an
    /// open task; the id last, as a URL may hold colons).
    pub(super) fn marker(&self) -> String {
        let since = self
            .task
            .as_ref()
            .map_or("-".to_string(), |t| t.since.to_string());
        format!("{}:{since}:{}", self.done, self.entry.id)
    }

    /// Reads [`Progress::marker`] back against the labs the page knows; anything else is `None`.
    pub(super) fn from_marker(marker: &str, labs: &[Rc<LabEntry>]) -> Option<Progress> {
        let mut parts = marker.splitn(3, ':');
        let done = parts.next()?.parse::<usize>().ok()?;
        let since = parts.next()?;
        let id = parts.next()?;
        let entry = labs.iter().find(|e| e.id == id)?.clone();
        let done = done.min(entry.lab().steps.len());
        let task = match since.parse::<Revision>() {
            Ok(since) if done > 0 && entry.lab().steps[done - 1].is_task() => Some(OpenTask {
                since,
                results: Vec::new(),
                checked_at: Timestamp::from_millis(0),
                hint_shown: false,
                solution_shown: false,
            }),
            _ => None,
        };
        Some(Progress { entry, done, task })
    }
}

impl State {
    /// The lab actions of the reducer.
    pub(super) fn lab_action(&mut self, action: Action) {
        match action {
            Action::StartScenario(id) => {
                self.start_lab(&id);
                self.tool = Tool::Scenarios;
                self.mark_scenario();
            }
            Action::RestartLab => {
                if let Some(id) = self.progress.as_ref().map(|p| p.entry.id.clone()) {
                    self.start_lab(&id);
                    self.mark_scenario();
                }
            }
            Action::Reveal(solution) => self.reveal(solution),
            Action::LoadLab { id, source } => {
                self.load_lab(&id, &source);
                self.tool = Tool::Scenarios;
                self.mark_scenario();
            }
            Action::LabUnavailable { id, reason } => {
                self.lab_error = Some((id, LabError::unplaced(reason)));
                self.tool = Tool::Scenarios;
            }
            Action::DismissLabError => self.lab_error = None,
            Action::NextStep => {
                self.next_step();
                self.mark_scenario();
            }
            Action::EndScenario => {
                self.progress = None;
                self.mark_scenario();
            }
            _ => {}
        }
    }

    /// Saves where the learner is in a lab with the cluster.
    pub(super) fn mark_scenario(&mut self) {
        let marker = self.progress.as_ref().map(Progress::marker);
        // A marker past the engine's limit (a very long URL) is not saved: the lab restarts
        // after a reload, which is all that is lost.
        let _ = self.engine.borrow_mut().cluster.set_scenario(marker);
    }

    /// Starts the lab `id`: from its own cluster if it has a `cluster:` section (refused with a
    /// notice if that cannot be built; the current one is kept), else on the current cluster.
    pub(super) fn start_lab(&mut self, id: &str) {
        let Some(entry) = self.labs.iter().find(|e| e.id == id).cloned() else {
            return;
        };
        let built = match entry.lab().cluster {
            None => Ok(None),
            Some(_) => lab_cluster(entry.lab()).map(Some),
        };
        match built {
            Ok(cluster) => {
                if let Some(cluster) = cluster {
                    self.replace_cluster(cluster);
                    prepare(&mut self.engine.borrow_mut(), entry.lab());
                }
                self.progress = Some(Progress {
                    entry,
                    done: 0,
                    task: None,
                });
                self.lab_error = None;
            }
            Err(reason) => self.lab_error = Some((entry.id.clone(), LabError::unplaced(reason))),
        }
    }

    /// A lab the learner loaded (from `?lab=URL` or a file): refused with its line, column and
    /// reason (nothing else changes), else listed and started — or, if the saved cluster is
    /// already in it (a reload), resumed where the learner was.
    pub(super) fn load_lab(&mut self, id: &str, source: &str) {
        let entry = match scenario::load(id, source) {
            Ok(entry) => Rc::new(entry),
            Err(e) => {
                self.lab_error = Some((id.to_string(), e));
                return;
            }
        };
        let mut labs: Vec<Rc<LabEntry>> =
            self.labs.iter().filter(|e| e.id != id).cloned().collect();
        labs.push(entry);
        self.labs = Rc::new(labs);
        self.lab_error = None;
        let marker = self.engine.borrow().cluster.journal().scenario.clone();
        let resumed = marker
            .as_deref()
            .and_then(|m| Progress::from_marker(m, &self.labs))
            .filter(|p| p.entry.id == id);
        match resumed {
            Some(p) => {
                self.progress = Some(p);
                self.check_task(true);
            }
            None => self.start_lab(id),
        }
    }

    /// Next: closes a passed task, or enters the next step (opening its task, if it has one).
    pub(super) fn next_step(&mut self) {
        let Some(mut progress) = self.progress.take() else {
            return;
        };
        if let Some(task) = &progress.task {
            if task.passed() {
                progress.task = None;
            }
            self.progress = Some(progress);
            return;
        }
        let entry = progress.entry.clone();
        let Some(step) = entry.lab().steps.get(progress.done) else {
            self.progress = Some(progress);
            return;
        };
        let entered = enter(&mut self.engine.borrow_mut(), step);
        for outcome in entered.outcomes {
            self.note_outcome(outcome);
        }
        if let Some(view) = step.view {
            self.view = view;
        }
        progress.done += 1;
        if step.is_task() {
            progress.task = Some(OpenTask {
                since: entered.since,
                results: Vec::new(),
                checked_at: Timestamp::from_millis(0),
                hint_shown: false,
                solution_shown: false,
            });
        }
        self.progress = Some(progress);
        self.check_task(true);
    }

    /// Evaluates the open task's checks: at once if `now`, else once the virtual clock moved
    /// [`CHECK_EVERY_MS`] since the last time.
    pub(super) fn check_task(&mut self, now: bool) {
        let Some(progress) = self.progress.as_mut() else {
            return;
        };
        let Some(task) = progress.task.as_mut() else {
            return;
        };
        let mut engine = self.engine.borrow_mut();
        let at = engine.cluster.now();
        let due = at.as_millis() >= task.checked_at.as_millis() + CHECK_EVERY_MS;
        if !(now || due || task.results.is_empty()) {
            return;
        }
        let Some(step) = progress
            .done
            .checked_sub(1)
            .and_then(|i| progress.entry.lab().steps.get(i))
        else {
            return;
        };
        task.results = evaluate_all(&mut engine, &step.check.0, task.since);
        task.checked_at = at;
    }

    /// Shows the open task's hint, or its solution.
    pub(super) fn reveal(&mut self, solution: bool) {
        if let Some(task) = self.progress.as_mut().and_then(|p| p.task.as_mut()) {
            if solution {
                task.solution_shown = true;
            } else {
                task.hint_shown = true;
            }
        }
    }
}
