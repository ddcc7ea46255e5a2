//! The page's state and every way it changes, as a yew [`Reducible`] that is plain Rust: the
//! reducer turns UI actions into engine calls (cluster actions, console lines, clock moves) and
//! remembers what the views need (which tab, which revision is inspected, the last result).
//! The engine itself sits behind one shared cell so an action never clones the cluster; the
//! state's `version` tells yew (and tests) that something changed.

use std::cell::RefCell;
use std::rc::Rc;

use watchlab_apimachinery::client::WatchId;
use watchlab_engine::clock::Timestamp;
use watchlab_engine::cluster::{
    Action as ClusterAction, Cluster, ClusterConfig, ConflictReport, Outcome,
};
use yew::Reducible;

use crate::clock::{ClockDriver, Speed};
use crate::console::Console;
use crate::i18n::Lang;
use crate::inspect::{inspect, Inspection};
use crate::scenario::{self, Effect, Scenario, View};

/// The user agent of the console's requests (as the real kubectl's).
pub const CONSOLE_USER: &str = "kubectl";
/// The user agent of the page's own reads (object viewer).
pub const VIEWER_USER: &str = "watchlab-viewer";
/// The namespace and Deployment the texts use (seeded by the engine's Training profile).
pub const SEED_NAMESPACE: &str = "production";
pub const SEED_DEPLOYMENT: &str = "orders-api";

/// The panel shown beside the views.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tool {
    #[default]
    Console,
    Actions,
    Scenarios,
    Editor,
}

impl Tool {
    pub const ALL: [Tool; 4] = [Tool::Console, Tool::Actions, Tool::Scenarios, Tool::Editor];

    /// The tool's tab label.
    pub fn label(self) -> crate::i18n::T {
        use crate::i18n::T;
        match self {
            Tool::Console => T::TabConsole,
            Tool::Actions => T::TabActions,
            Tool::Scenarios => T::TabScenarios,
            Tool::Editor => T::TabEditor,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Tool::Console => "console",
            Tool::Actions => "actions",
            Tool::Scenarios => "scenarios",
            Tool::Editor => "editor",
        }
    }
}

/// The result of the last button action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// The ledger's revision after the action.
    Done { revision: u64 },
    /// The API server (or the engine) refused: the Status code, reason and message, verbatim.
    Failed {
        code: u16,
        reason: String,
        message: String,
    },
    /// Step found no timer.
    NothingScheduled,
}

/// The localStorage key the cluster is saved under (the engine's journal, as exported).
pub const SAVE_KEY: &str = "watchlab.cluster";
/// The largest save kept in localStorage (browsers allow about 5 MiB per origin, in UTF-16).
pub const MAX_SAVE_BYTES: usize = 4 * 1024 * 1024;
/// Real milliseconds between two saves while only the clock moves.
pub const SAVE_EVERY_MS: f64 = 2000.0;
/// The file name the Export button downloads.
pub const EXPORT_FILE: &str = "watchlab-cluster.json";

/// What happened to the saved, exported or imported cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileNotice {
    Imported {
        revision: u64,
    },
    /// The engine's message; the current cluster was kept.
    ImportFailed(String),
    ExportFailed(String),
    /// The saved cluster was not restored (the engine's message); a fresh one is used.
    RestoreFailed(String),
    /// Not saved in the browser: the engine's or the browser's message.
    SaveFailed(String),
    SaveTooLarge {
        bytes: usize,
    },
}

/// Where the learner is in a guided scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub scenario: &'static Scenario,
    /// Steps already run.
    pub done: usize,
}

impl Progress {
    pub fn finished(&self) -> bool {
        self.done >= self.scenario.steps.len()
    }

    /// The opaque marker saved with the cluster: `id:done`.
    fn marker(&self) -> String {
        format!("{}:{}", self.scenario.id, self.done)
    }

    /// Reads [`Progress::marker`] back; anything unknown is `None`.
    fn from_marker(marker: &str) -> Option<Progress> {
        let (id, done) = marker.rsplit_once(':')?;
        let scenario = scenario::find(id)?;
        let done = done.parse::<usize>().ok()?.min(scenario.steps.len());
        Some(Progress { scenario, done })
    }
}

/// Real milliseconds the engine may work in one browser frame before it yields to the page;
/// the virtual clock then runs slower than asked until the cluster has less to do.
pub const FRAME_BUDGET_MS: f64 = 40.0;

/// What the reducer drives: the cluster, the console and the clock.
#[derive(Debug)]
pub struct Engine {
    pub cluster: Cluster,
    pub console: Console,
    pub clock: ClockDriver,
    /// The last frame ran out of its budget: virtual time is behind real time × speed.
    pub behind: bool,
}

impl Engine {
    fn new(seed: u64) -> Self {
        Engine::with_cluster(Cluster::new(ClusterConfig {
            seed,
            ..ClusterConfig::default()
        }))
    }

    fn with_cluster(cluster: Cluster) -> Self {
        Engine {
            cluster,
            console: Console::new(),
            clock: ClockDriver::new(Speed::X1, false),
            behind: false,
        }
    }

    /// Runs a console line as `kubectl`.
    pub fn run_command(&mut self, line: &str) {
        let mut session = self.cluster.session(CONSOLE_USER);
        self.console.run(line, &mut session);
    }

    /// Lets the followed stream print what arrived.
    fn poll_console(&mut self) {
        let mut session = self.cluster.session(CONSOLE_USER);
        self.console.poll(&mut session);
    }

    /// Advances virtual time by `ms` and lets the console catch up.
    fn advance(&mut self, ms: u64) {
        let to = self.cluster.now().plus_millis(ms);
        self.cluster.advance_to(to);
        self.poll_console();
    }

    /// Advances virtual time by up to `ms`, timer by timer, and stops at the first timer that
    /// ends after `clock()` passed `deadline` (real ms): however much the cluster has to do, a
    /// frame yields to the page. Returns whether it stopped early (the rest is not owed: the
    /// clock just ran slower).
    pub fn advance_within(&mut self, ms: u64, clock: &dyn Fn() -> f64, deadline: f64) -> bool {
        let to = self.cluster.now().plus_millis(ms);
        let mut stopped = false;
        while let Some(next) = self.cluster.next_timer().filter(|t| *t <= to) {
            self.cluster.advance_to(next);
            if clock() > deadline {
                stopped = true;
                break;
            }
        }
        if !stopped {
            self.cluster.advance_to(to);
        }
        self.poll_console();
        stopped
    }
}

/// The whole page state.
#[derive(Debug, Clone)]
pub struct State {
    pub engine: Rc<RefCell<Engine>>,
    pub seed: u64,
    pub lang: Lang,
    pub view: View,
    pub tool: Tool,
    pub inspection: Option<Inspection>,
    /// The stream whose raw HTTP body is shown.
    pub raw_stream: Option<WatchId>,
    pub notice: Option<Notice>,
    pub conflict: Option<ConflictReport>,
    pub progress: Option<Progress>,
    pub file_notice: Option<FileNotice>,
    /// Counts the learner's actions (everything but clock ticks and save notices): a save is
    /// due after each.
    pub user_actions: u64,
    /// Increases with every change.
    pub version: u64,
}

impl PartialEq for State {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.engine, &other.engine) && self.version == other.version
    }
}

/// Everything the page can ask for.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// A browser frame at this `performance.now()`.
    Tick(f64),
    SetLang(Lang),
    Show(View),
    ShowTool(Tool),
    SetPaused(bool),
    /// Jump to the next timer and run it.
    Step,
    SetSpeed(Speed),
    /// A fresh cluster from this seed.
    Restart(u64),
    Command(String),
    /// Ctrl-C.
    Interrupt,
    ClearConsole,
    SetFile {
        name: String,
        content: String,
    },
    Cluster(ClusterAction),
    /// Show the object a ledger revision wrote.
    Inspect(u64),
    CloseInspection,
    ShowRaw(Option<WatchId>),
    StartScenario(&'static str),
    NextStep,
    EndScenario,
    /// Replace the cluster by one restored from an exported file (kept on error).
    Import(String),
    /// The outcome of a background save or export (not a learner's action).
    Notify(Option<FileNotice>),
}

impl State {
    pub fn new(seed: u64, lang: Lang) -> Self {
        State {
            engine: Rc::new(RefCell::new(Engine::new(seed))),
            seed,
            lang,
            view: View::default(),
            tool: Tool::default(),
            inspection: None,
            raw_stream: None,
            notice: None,
            conflict: None,
            progress: None,
            file_notice: None,
            user_actions: 0,
            version: 0,
        }
    }

    /// The page at load: the saved cluster if there is one and it restores, else a fresh one
    /// from `seed` with a notice saying why.
    pub fn restore(seed: u64, lang: Lang, saved: Option<&str>) -> Self {
        let mut state = State::new(seed, lang);
        if let Some(text) = saved {
            match Cluster::import(text) {
                Ok(cluster) => state.replace_cluster(cluster),
                Err(e) => state.file_notice = Some(FileNotice::RestoreFailed(e.to_string())),
            }
        }
        state
    }

    /// The text to keep in localStorage, or why it is not saved.
    pub fn save_text(&self) -> Result<String, FileNotice> {
        let text = self
            .engine
            .borrow()
            .cluster
            .export()
            .map_err(|e| FileNotice::SaveFailed(e.to_string()))?;
        if text.len() > MAX_SAVE_BYTES {
            return Err(FileNotice::SaveTooLarge { bytes: text.len() });
        }
        Ok(text)
    }

    /// The text the Export button downloads.
    pub fn export_text(&self) -> Result<String, FileNotice> {
        self.engine
            .borrow()
            .cluster
            .export()
            .map_err(|e| FileNotice::ExportFailed(e.to_string()))
    }

    /// Puts `cluster` in place of the current one (clock settings kept, views reset).
    fn replace_cluster(&mut self, cluster: Cluster) {
        let (speed, paused) = {
            let e = self.engine.borrow();
            (e.clock.speed(), e.clock.paused())
        };
        self.seed = cluster.config().seed;
        self.progress = cluster
            .journal()
            .scenario
            .as_deref()
            .and_then(Progress::from_marker);
        let mut fresh = Engine::with_cluster(cluster);
        fresh.clock = ClockDriver::new(speed, paused);
        self.engine = Rc::new(RefCell::new(fresh));
        self.inspection = None;
        self.raw_stream = None;
        self.notice = None;
        self.conflict = None;
    }

    /// Saves where the learner is in a scenario with the cluster.
    fn mark_scenario(&mut self) {
        let marker = self.progress.map(|p| p.marker());
        // A marker is a short scenario id and a number, always within the engine's limit.
        let _ = self.engine.borrow_mut().cluster.set_scenario(marker);
    }

    /// Runs one action on a copy of the small fields (the engine is shared) and returns it.
    pub fn apply(&self, action: Action) -> Option<State> {
        let mut next = self.clone();
        if !matches!(action, Action::Tick(_) | Action::Notify(_)) {
            next.user_actions += 1;
        }
        let changed = next.mutate(action);
        changed.then(|| {
            next.version += 1;
            next
        })
    }

    /// Returns whether anything visible changed.
    fn mutate(&mut self, action: Action) -> bool {
        match action {
            Action::Tick(real_ms) => return self.tick(real_ms),
            Action::SetLang(l) => self.lang = l,
            Action::Show(v) => self.view = v,
            Action::ShowTool(t) => self.tool = t,
            Action::SetPaused(p) => self.engine.borrow_mut().clock.set_paused(p),
            Action::SetSpeed(s) => self.engine.borrow_mut().clock.set_speed(s),
            Action::Step => {
                let mut e = self.engine.borrow_mut();
                e.clock.set_paused(true);
                let idle = e.cluster.step().is_none();
                if idle {
                    // No timer: still let every component react to what was just written
                    // (one virtual millisecond).
                    e.advance(1);
                }
                e.poll_console();
                self.notice = idle.then_some(Notice::NothingScheduled);
            }
            Action::Restart(seed) => {
                self.replace_cluster(Cluster::new(ClusterConfig {
                    seed,
                    ..ClusterConfig::default()
                }));
                self.file_notice = None;
            }
            Action::Command(line) => {
                self.engine.borrow_mut().run_command(&line);
                self.tool = Tool::Console;
            }
            Action::Interrupt => {
                let mut e = self.engine.borrow_mut();
                let Engine {
                    cluster, console, ..
                } = &mut *e;
                console.interrupt(&mut cluster.session(CONSOLE_USER));
            }
            Action::ClearConsole => self.engine.borrow_mut().console.clear(),
            Action::SetFile { name, content } => {
                self.engine.borrow_mut().console.set_file(&name, &content)
            }
            Action::Cluster(a) => self.cluster_action(a),
            Action::Inspect(revision) => {
                let mut e = self.engine.borrow_mut();
                let entry = e
                    .cluster
                    .api()
                    .ledger()
                    .iter()
                    .rev()
                    .find(|l| l.revision == revision)
                    .cloned();
                self.inspection =
                    entry.map(|entry| inspect(&entry, &mut e.cluster.session(VIEWER_USER)));
            }
            Action::CloseInspection => self.inspection = None,
            Action::ShowRaw(id) => self.raw_stream = id,
            Action::StartScenario(id) => {
                self.progress = scenario::find(id).map(|scenario| Progress { scenario, done: 0 });
                self.tool = Tool::Scenarios;
                self.mark_scenario();
            }
            Action::NextStep => {
                self.next_step();
                self.mark_scenario();
            }
            Action::EndScenario => {
                self.progress = None;
                self.mark_scenario();
            }
            Action::Import(text) => match Cluster::import(&text) {
                Ok(cluster) => {
                    self.replace_cluster(cluster);
                    let revision = self.engine.borrow().cluster.api().revision();
                    self.file_notice = Some(FileNotice::Imported { revision });
                }
                Err(e) => self.file_notice = Some(FileNotice::ImportFailed(e.to_string())),
            },
            Action::Notify(n) => self.file_notice = n,
        }
        true
    }

    fn tick(&mut self, real_ms: f64) -> bool {
        let mut e = self.engine.borrow_mut();
        let ms = e.clock.frame(real_ms);
        if ms == 0 && !e.console.following() {
            return false;
        }
        let before = (
            e.cluster.now(),
            e.console.lines().back().map(|l| l.id),
            e.behind,
        );
        if ms > 0 {
            let deadline = crate::performance_now() + FRAME_BUDGET_MS;
            e.behind = e.advance_within(ms, &crate::performance_now, deadline);
        } else {
            e.poll_console();
        }
        before
            != (
                e.cluster.now(),
                e.console.lines().back().map(|l| l.id),
                e.behind,
            )
    }

    fn cluster_action(&mut self, action: ClusterAction) {
        let result = self.engine.borrow_mut().cluster.apply(action);
        self.notice = Some(match result {
            Ok(Outcome::Done { revision }) => Notice::Done { revision },
            Ok(Outcome::Conflict(report)) => {
                let revision = report.retry_revision;
                self.conflict = Some(report);
                Notice::Done { revision }
            }
            Err(status) => Notice::Failed {
                code: status.code(),
                reason: status.reason().as_str().to_string(),
                message: status.message().to_string(),
            },
        });
        self.engine.borrow_mut().poll_console();
    }

    fn next_step(&mut self) {
        let Some(mut progress) = self.progress else {
            return;
        };
        let Some(step) = progress.scenario.steps.get(progress.done) else {
            return;
        };
        for effect in step.effects {
            self.effect(*effect);
        }
        progress.done += 1;
        self.progress = Some(progress);
    }

    fn effect(&mut self, effect: Effect) {
        match effect {
            Effect::Command(line) => self.engine.borrow_mut().run_command(line),
            Effect::KillNode(n) => self.cluster_action(ClusterAction::KillNode(n.into())),
            Effect::RestoreNode(n) => self.cluster_action(ClusterAction::RestoreNode(n.into())),
            Effect::KillEtcdMember => {
                let victim = self
                    .engine
                    .borrow()
                    .cluster
                    .etcd()
                    .member_to_kill()
                    .map(str::to_string);
                if let Some(name) = victim {
                    self.cluster_action(ClusterAction::KillEtcdMember(name));
                }
            }
            Effect::RestoreEtcd => {
                let down = self.engine.borrow().cluster.etcd().down_members();
                for name in down {
                    self.cluster_action(ClusterAction::RestoreEtcdMember(name));
                }
            }
            Effect::ConflictingWrite => self.cluster_action(ClusterAction::ConflictingWrite {
                namespace: SEED_NAMESPACE.into(),
                name: SEED_DEPLOYMENT.into(),
            }),
            Effect::SetSpeed(s) => self.engine.borrow_mut().clock.set_speed(s),
            Effect::Pause(p) => self.engine.borrow_mut().clock.set_paused(p),
            Effect::Advance(ms) => self.engine.borrow_mut().advance(ms),
            Effect::Show(v) => self.view = v,
        }
    }

    /// ↑ in the console (the cursor is not rendered, so no new state is needed).
    pub fn history_prev(&self) -> Option<String> {
        self.engine.borrow_mut().console.history_prev()
    }

    /// ↓ in the console.
    pub fn history_next(&self) -> String {
        self.engine.borrow_mut().console.history_next()
    }

    /// The virtual time now.
    pub fn now(&self) -> Timestamp {
        self.engine.borrow().cluster.now()
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        match self.apply(action) {
            Some(next) => Rc::new(next),
            None => self,
        }
    }
}

/// `mm:ss.s` (or `h:mm:ss`) of a virtual time, for the header and tables.
pub fn format_time(t: Timestamp) -> String {
    let ms = t.as_millis();
    let secs = ms / 1000;
    if secs >= 3600 {
        format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
    } else {
        format!("{:02}:{:02}.{}", secs / 60, secs % 60, ms % 1000 / 100)
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
