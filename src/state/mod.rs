//! The page's state and every way it changes, as a yew [`Reducible`] that is plain Rust: the
//! reducer turns UI actions into engine calls (cluster actions, console lines, clock moves) and
//! remembers what the views need (which tab, which revision is inspected, the last result).
//! The engine itself sits behind one shared cell so an action never clones the cluster; the
//! state's `version` tells yew (and tests) that something changed.

mod broadcast;
mod engine;
mod frame;
mod navigation;
mod persistence;
mod scenarios;
mod size;

use std::cell::RefCell;
use std::rc::Rc;

use watchlab_apimachinery::client::WatchId;
use watchlab_engine::clock::Timestamp;
use watchlab_engine::cluster::{
    Action as ClusterAction, Cluster, ConflictReport, DrainReport, Outcome,
};
use yew::Reducible;

use crate::clock::Speed;
use crate::fanout::GroupKey;
use crate::i18n::Lang;
use crate::inspect::{inspect, Inspection};
use crate::lab::LabError;
use crate::scenario::{self, LabEntry};
use crate::view::View;

pub use crate::seeds::{SEED_DEPLOYMENT, SEED_NAMESPACE};
pub use broadcast::{
    ApiserverLane, Broadcast, BroadcastAsk, CacheWatch, CacherRow, StreamRow, RECENT_SHOWN,
};
pub use engine::{Engine, CONSOLE_USER, FRAME_BUDGET_MS, REDRAW_EVERY_MS};
pub use frame::{shows_node_map, EventList, Frame, Shown, NODE_MAP_THRESHOLD};
pub use navigation::Tool;
pub use persistence::{FileNotice, EXPORT_FILE, MAX_SAVE_BYTES, SAVE_EVERY_MS, SAVE_KEY};
pub use scenarios::Progress;
pub use size::{
    node_names, parse_size, pods_per_node, sized_cluster_from, ClusterSize, SizeError, MAX_NODES,
    NODE_SIZES, SEED_REPLICAS,
};

/// Virtual milliseconds Step runs timers for while nothing is written (a healthy cluster writes
/// within a node lease's renewal: the kubelet renews every 10 s, kubelet --node-lease-duration
/// 40 s / 4).
pub const STEP_WAIT_MS: u64 = 10_000;

/// The user agent of the page's own reads (object viewer).
pub const VIEWER_USER: &str = "watchlab-viewer";

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
    /// What the Drain button did: the pods evicted and those refused, with the server's words.
    Drained(DrainReport),
}

/// The whole page state.
#[derive(Debug, Clone)]
pub struct State {
    pub engine: Rc<RefCell<Engine>>,
    /// What the views show, read from the engine once after every change.
    pub frame: Rc<Frame>,
    pub seed: u64,
    /// The current cluster's size (what the header's size fields start from).
    pub size: ClusterSize,
    /// Why the last Restart's size was refused (the cluster was kept).
    pub size_error: Option<SizeError>,
    pub lang: Lang,
    pub view: View,
    pub tool: Tool,
    pub inspection: Option<Inspection>,
    /// The node whose pods the node map shows.
    pub open_node: Option<String>,
    /// The stream whose raw HTTP body is shown.
    pub raw_stream: Option<WatchId>,
    /// The revision whose fan-out the broadcast draws; `None` follows the newest.
    pub fan_revision: Option<u64>,
    /// `fan_revision` was set by Step (Resume lets it go; a hold the learner chose stays).
    pub stepped: bool,
    /// The group of watch streams opened in the broadcast (instance, component, resource).
    pub open_group: Option<GroupKey>,
    pub notice: Option<Notice>,
    pub conflict: Option<ConflictReport>,
    pub progress: Option<Progress>,
    /// The labs the Scenarios tab lists: the built-in ones, then any the learner loaded.
    pub labs: Rc<Vec<Rc<LabEntry>>>,
    /// The last lab refused (its id and why); the page kept what it had.
    pub lab_error: Option<(String, LabError)>,
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
    /// A fresh cluster from this seed, of the size typed in the header's nodes and replicas
    /// fields (refused with [`State::size_error`] if they do not make a valid size).
    Restart {
        seed: u64,
        nodes: String,
        replicas: String,
    },
    /// Restart with the same seed and size and this many replicas of kube-scheduler and of
    /// kube-controller-manager.
    SetControllerReplicas(u32),
    /// Restart with the same seed and size and this many kube-apiserver instances.
    SetApiservers(u32),
    Command(String),
    /// Ctrl-C.
    Interrupt,
    ClearConsole,
    SetFile {
        name: String,
        content: String,
    },
    Cluster(ClusterAction),
    /// Hide the message of a refused size.
    DismissSizeError,
    /// Open a node of the node map (its pods are shown), or close it.
    OpenNode(Option<String>),
    /// Show the object a ledger revision wrote.
    Inspect(u64),
    CloseInspection,
    ShowRaw(Option<WatchId>),
    /// Hold the broadcast's fan-out on one revision, or follow the newest (`None`).
    ShowFanOut(Option<u64>),
    /// Open a group of watch streams (instance, component, resource) in the broadcast, or
    /// close it.
    OpenGroup(Option<GroupKey>),
    /// Start the lab with this id (a built-in one's, or a loaded one's URL or file name).
    StartScenario(String),
    /// Enter the next step, or close a task whose checks pass.
    NextStep,
    EndScenario,
    /// Start the current lab over, from its own cluster.
    RestartLab,
    /// Show the open task's hint (`false`) or solution (`true`).
    Reveal(bool),
    /// A lab file the learner loaded (`?lab=URL` or *Open lab…*): listed and started, or
    /// refused with its line and column.
    LoadLab {
        id: String,
        source: String,
    },
    /// A lab that could not be fetched (its id and why).
    LabUnavailable {
        id: String,
        reason: String,
    },
    DismissLabError,
    /// Replace the cluster by one restored from an exported file (kept on error).
    Import(String),
    /// The outcome of a background save or export (not a learner's action).
    Notify(Option<FileNotice>),
}

impl State {
    pub fn new(seed: u64, lang: Lang) -> Self {
        let engine = Engine::new(seed);
        let shown = Shown {
            view: View::default(),
            tool: Tool::default(),
            open_node: None,
            broadcast: BroadcastAsk::default(),
        };
        State {
            frame: Rc::new(Frame::of(&engine, shown)),
            engine: Rc::new(RefCell::new(engine)),
            seed,
            size: ClusterSize::default(),
            size_error: None,
            lang,
            view: View::default(),
            tool: Tool::default(),
            inspection: None,
            open_node: None,
            raw_stream: None,
            fan_revision: None,
            stepped: false,
            open_group: None,
            notice: None,
            conflict: None,
            progress: None,
            labs: Rc::new(scenario::built_in_labs()),
            lab_error: None,
            file_notice: None,
            user_actions: 0,
            version: 0,
        }
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
            next.refresh_frame();
            next
        })
    }

    /// Takes the views' snapshot of the engine (after a change).
    fn refresh_frame(&mut self) {
        let shown = Shown {
            view: self.view,
            tool: self.tool,
            open_node: self.open_node.as_deref(),
            broadcast: BroadcastAsk {
                fan_revision: self.fan_revision,
                raw_stream: self.raw_stream,
                group: self.open_group.as_ref(),
            },
        };
        self.frame = Rc::new(Frame::after(
            &self.engine.borrow(),
            shown,
            Some(&self.frame),
        ));
    }

    /// A browser frame: the clock's [`State::tick`], then an open lab task's checks if it is
    /// their time; returns whether to redraw.
    fn frame_tick(&mut self, real_ms: f64) -> bool {
        let redraw = self.tick(real_ms);
        if redraw {
            self.check_task(false);
        }
        redraw
    }

    /// Returns whether anything visible changed.
    fn mutate(&mut self, action: Action) -> bool {
        match action {
            Action::Tick(real_ms) => return self.frame_tick(real_ms),
            Action::SetLang(l) => self.lang = l,
            Action::Show(v) => self.view = v,
            Action::ShowTool(t) => self.tool = t,
            Action::SetPaused(p) => {
                self.engine.borrow_mut().clock.set_paused(p);
                if !p && self.stepped {
                    // The revision Step held is let go: the broadcast follows the clock again.
                    self.fan_revision = None;
                }
                self.stepped = false;
            }
            Action::SetSpeed(s) => self.engine.borrow_mut().clock.set_speed(s),
            Action::Step => {
                self.step();
                self.check_task(true);
            }
            Action::Restart {
                seed,
                nodes,
                replicas,
            } => match parse_size(&nodes, &replicas) {
                Ok(size) => self.restart(seed, size.keeping_control_plane_of(self.size)),
                Err(e) => self.size_error = Some(e),
            },
            Action::SetControllerReplicas(n) => {
                self.restart(self.seed, self.size.with_controllers(n))
            }
            Action::SetApiservers(n) => self.restart(self.seed, self.size.with_apiservers(n)),
            Action::Command(line) => {
                self.engine.borrow_mut().run_command(&line);
                self.tool = Tool::Console;
                self.check_task(true);
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
            Action::Cluster(a) => {
                self.cluster_action(a);
                self.check_task(true);
            }
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
                // The broadcast shows who received the inspected write.
                self.fan_revision = Some(revision);
            }
            Action::CloseInspection => self.inspection = None,
            Action::OpenNode(node) => self.open_node = node,
            Action::DismissSizeError => self.size_error = None,
            Action::ShowFanOut(revision) => {
                self.fan_revision = revision;
                self.stepped = false;
            }
            Action::ShowRaw(id) => self.raw_stream = id,
            Action::OpenGroup(group) => self.open_group = group,
            Action::StartScenario(_)
            | Action::NextStep
            | Action::EndScenario
            | Action::RestartLab
            | Action::Reveal(_)
            | Action::LoadLab { .. }
            | Action::LabUnavailable { .. }
            | Action::DismissLabError => self.lab_action(action),
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

    /// Step: pauses the clock and moves the revision the broadcast shows by exactly one. A
    /// revision already in the ledger (one timer can write several: a ReplicaSet creating three
    /// pods) is shown without running anything; past the newest, the timers run one by one
    /// until something is written — or, if nothing writes, until [`STEP_WAIT_MS`] of virtual
    /// time have passed (at least one timer runs).
    fn step(&mut self) {
        let mut e = self.engine.borrow_mut();
        e.clock.set_paused(true);
        let shown = self
            .fan_revision
            .unwrap_or_else(|| e.cluster.api().revision());
        // The first revision after the one shown (searched from the newest: it is near).
        let next_in_ledger = |e: &Engine| {
            e.cluster
                .api()
                .ledger()
                .iter()
                .rev()
                .take_while(|l| l.revision > shown)
                .last()
                .map(|l| l.revision)
        };
        let mut next = next_in_ledger(&e);
        let mut idle = false;
        if next.is_none() {
            let limit = e.cluster.now().plus_millis(STEP_WAIT_MS);
            let mut ran = false;
            loop {
                match e.cluster.next_timer() {
                    None => {
                        idle = !ran;
                        break;
                    }
                    Some(t) if ran && t > limit => break,
                    Some(_) => {
                        e.cluster.step();
                        ran = true;
                    }
                }
                next = next_in_ledger(&e);
                if next.is_some() {
                    break;
                }
            }
            if idle {
                // No timer: still let every component react to what was just written (one
                // virtual millisecond).
                e.advance(1);
                next = next_in_ledger(&e);
            }
        }
        e.poll_console();
        self.notice = (idle && next.is_none()).then_some(Notice::NothingScheduled);
        if let Some(revision) = next {
            self.fan_revision = Some(revision);
            self.stepped = true;
        }
    }

    fn cluster_action(&mut self, action: ClusterAction) {
        let result = self.engine.borrow_mut().cluster.apply(action);
        self.note_outcome(result);
    }

    /// Shows what a cluster action did (a conflict's report too).
    fn note_outcome(&mut self, result: Result<Outcome, watchlab_apimachinery::status::Status>) {
        self.notice = Some(match result {
            Ok(Outcome::Done { revision }) => Notice::Done { revision },
            Ok(Outcome::Drained(report)) => Notice::Drained(report),
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

    /// ↑ in the console (the cursor is not rendered, so no new state is needed).
    pub fn history_prev(&self) -> Option<String> {
        self.engine.borrow_mut().console.history_prev()
    }

    /// ↓ in the console.
    pub fn history_next(&self) -> String {
        self.engine.borrow_mut().console.history_next()
    }

    /// The revision the broadcast's fan-out shows: the one held, else the newest.
    pub fn fan_out_revision(&self) -> u64 {
        self.fan_revision
            .unwrap_or_else(|| self.engine.borrow().cluster.api().revision())
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
