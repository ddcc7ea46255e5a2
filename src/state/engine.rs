//! The engine driver: the cluster, the console and the clock the reducer drives, and how a
//! browser frame moves virtual time (within a real-time budget, so a busy cluster slows the
//! virtual clock instead of freezing the page).

use watchlab_engine::cluster::{Cluster, ClusterConfig};

use super::State;
use crate::clock::{ClockDriver, Speed};
use crate::console::Console;

/// The user agent of the console's requests (as the real kubectl's).
pub const CONSOLE_USER: &str = "kubectl";

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
    pub(super) fn new(seed: u64) -> Self {
        Engine::with_cluster(Cluster::new(ClusterConfig {
            seed,
            ..ClusterConfig::default()
        }))
    }

    pub(super) fn with_cluster(cluster: Cluster) -> Self {
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
    pub(super) fn poll_console(&mut self) {
        let mut session = self.cluster.session(CONSOLE_USER);
        self.console.poll(&mut session);
    }

    /// Advances virtual time by `ms` and lets the console catch up.
    pub(super) fn advance(&mut self, ms: u64) {
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
        let stopped = self.cluster.advance_until(to, || clock() > deadline);
        self.poll_console();
        stopped
    }
}

impl State {
    /// A browser frame: moves virtual time as the clock driver says, within the frame budget;
    /// returns whether anything visible changed.
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
        before
            != (
                e.cluster.now(),
                e.console.lines().back().map(|l| l.id),
                e.behind,
            )
    }
}
