//! The engine driver: the cluster, the console and the clock the reducer drives, and how a
//! browser frame moves virtual time (within a real-time budget, so a busy cluster slows the
//! virtual clock instead of freezing the page).
//!
//! Engine work comes in small slices, one per display frame ([`crate::SLICE_MS`]), each at
//! most [`FRAME_BUDGET_MS`] of real time, so no task the page runs is long (the Long Tasks
//! API's 50 ms) and the browser keeps painting and answering clicks between slices. The views
//! are redrawn from a fresh frame at most every [`REDRAW_EVERY_MS`] while only the clock
//! moves — redrawing 60 times a second what a learner reads 10 times a second would spend the
//! engine's time on the DOM.

use watchlab_engine::cluster::{Cluster, ClusterConfig, PLAYGROUND_QUOTA_BYTES};

use super::State;
use crate::clock::{ClockDriver, Speed};
use crate::console::Console;
use watchlab_etcd_api::ClusterEtcd;

/// The user agent of the console's requests (as the real kubectl's).
pub const CONSOLE_USER: &str = "kubectl";

/// Real milliseconds the engine may work in one slice before it yields to the page; the
/// virtual clock then runs slower than asked until the cluster has less to do (the header's
/// 'busy' badge). Half of a 16 ms display frame: the other half paints.
pub const FRAME_BUDGET_MS: f64 = 8.0;
/// Real milliseconds between two redraws while only the virtual clock moves.
pub const REDRAW_EVERY_MS: f64 = 100.0;

/// What the reducer drives: the cluster, the console and the clock.
#[derive(Debug)]
pub struct Engine {
    pub cluster: Cluster,
    pub console: Console,
    pub clock: ClockDriver,
    /// The last frame ran out of its budget: virtual time is behind real time × speed.
    pub behind: bool,
    /// The real time of the last tick that redrew the views.
    last_redraw_ms: Option<f64>,
}

impl Engine {
    pub(super) fn new(seed: u64) -> Self {
        Engine::with_cluster(Cluster::new(ClusterConfig {
            seed,
            quota_backend_bytes: PLAYGROUND_QUOTA_BYTES,
            ..ClusterConfig::default()
        }))
    }

    pub fn with_cluster(cluster: Cluster) -> Self {
        Engine {
            cluster,
            console: Console::new(),
            clock: ClockDriver::new(Speed::X1, false),
            behind: false,
            last_redraw_ms: None,
        }
    }

    /// Runs a console line: kubectl's, an etcd tool's, or the next input of an `etcdctl txn`.
    pub fn run_command(&mut self, line: &str) {
        let mut etcd = ClusterEtcd {
            cluster: &mut self.cluster,
        };
        if self.console.prompting_etcd() {
            self.console.feed_etcd(line, &mut etcd);
        } else if Console::is_etcdctl(line) {
            self.console.run_etcdctl(line, &mut etcd);
        } else {
            let mut session = self.cluster.session(CONSOLE_USER);
            self.console.run(line, &mut session);
        }
        // The etcd leader applies a write at once: an `etcdctl watch` on it prints the write
        // under the command, paused or not.
        self.poll_etcd_watch();
    }

    fn poll_etcd_watch(&mut self) {
        if self.console.following_etcd() {
            let mut etcd = ClusterEtcd {
                cluster: &mut self.cluster,
            };
            self.console.poll_etcd(&mut etcd);
        }
    }

    /// Lets the followed stream print what arrived — once the cluster has finished the instant
    /// it is in: a session would first finish a settle a frame stopped part-way (seconds at a
    /// thousand nodes), and the stream is read on a later frame anyway.
    pub(super) fn poll_console(&mut self) {
        if self.cluster.is_settling() {
            return;
        }
        let mut session = self.cluster.session(CONSOLE_USER);
        self.console.poll(&mut session);
        self.poll_etcd_watch();
    }

    /// Advances virtual time by `ms` and lets the console catch up.
    pub fn advance(&mut self, ms: u64) {
        let to = self.cluster.now().plus_millis(ms);
        self.cluster.advance_to(to);
        self.poll_console();
    }

    /// Advances virtual time by up to `ms` and stops after the first controller step that ends
    /// after `clock()` passed `deadline` (real ms), inside an instant's settle too: however
    /// much the cluster has to do, a frame yields to the page, and the next frame goes on where
    /// this one stopped (`Cluster::advance_until`; the history does not depend on where).
    /// Returns whether it stopped early (the rest is not owed: the clock just ran slower).
    pub fn advance_within(&mut self, ms: u64, clock: &dyn Fn() -> f64, deadline: f64) -> bool {
        let to = self.cluster.now().plus_millis(ms);
        let stopped = self.cluster.advance_until(to, || clock() > deadline);
        self.poll_console();
        stopped
    }
}

impl State {
    /// A browser frame: moves virtual time as the clock driver says, within the frame budget;
    /// returns whether the views should be redrawn: the console printed, or the clock moved
    /// (or the 'busy' badge changed) and the last redraw is [`REDRAW_EVERY_MS`] old.
    pub(super) fn tick(&mut self, real_ms: f64) -> bool {
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
        let after = (
            e.cluster.now(),
            e.console.lines().back().map(|l| l.id),
            e.behind,
        );
        let due = e
            .last_redraw_ms
            .is_none_or(|last| real_ms - last >= REDRAW_EVERY_MS || real_ms < last);
        // The badge follows at the redraw pace too: a budget hit every other slice must not
        // make every slice redraw.
        let redraw = before.1 != after.1 || ((before.0, before.2) != (after.0, after.2) && due);
        if redraw {
            e.last_redraw_ms = Some(real_ms);
        }
        redraw
    }
}
