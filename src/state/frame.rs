//! What the views show, derived from the engine once per state change: the reducer takes this
//! snapshot after every action that changed something, and components render from it instead
//! of borrowing the engine while rendering (so a render never runs engine code, and two
//! components in one frame never see two different clusters).
//!
//! The ledger, the watch streams, the timeline and the events view render windows over
//! histories that can hold many thousands of entries; they read the engine in their own
//! windowed callbacks and memos rather than copying whole histories into every frame.

use watchlab_engine::clock::Timestamp;
use watchlab_engine::cluster::{InformerView, NodeView, PodView};
use watchlab_engine::etcd_cluster::EtcdCluster;

use super::engine::Engine;
use crate::clock::Speed;
use crate::console::{visible, Line};

/// One frame's view of the engine.
#[derive(Debug, Clone)]
pub struct Frame {
    /// The ledger's revision.
    pub revision: u64,
    /// The virtual time.
    pub now: Timestamp,
    /// The earliest timer, if any.
    pub next_timer: Option<Timestamp>,
    pub paused: bool,
    pub speed: Speed,
    /// The last browser frame ran out of its budget (virtual time is behind).
    pub behind: bool,
    pub nodes: Vec<NodeView>,
    pub pods: Vec<PodView>,
    pub informers: Vec<InformerView>,
    pub etcd: EtcdCluster,
    /// The console's newest lines ([`crate::console::VISIBLE_LINES`]).
    pub console: Vec<Line>,
    /// The console is following a watch stream.
    pub following: bool,
}

impl Frame {
    /// Reads everything the views show from the engine, once.
    pub fn of(e: &Engine) -> Frame {
        Frame {
            revision: e.cluster.api().revision(),
            now: e.cluster.now(),
            next_timer: e.cluster.next_timer(),
            paused: e.clock.paused(),
            speed: e.clock.speed(),
            behind: e.behind,
            nodes: e.cluster.nodes(),
            pods: e.cluster.pods(),
            informers: e.cluster.informers(),
            etcd: e.cluster.etcd().clone(),
            console: visible(e.console.lines()),
            following: e.console.following(),
        }
    }
}
