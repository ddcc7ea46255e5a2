//! What the live views show, read from the model once per change: the live reducer takes this
//! snapshot after every action that changed something, and the live components render from
//! it instead of borrowing the model while rendering (as the playground's views render from
//! [`crate::state::Frame`]).

use watchlab_engine::cluster::{NodeView, PodView};

use super::model::{EventRow, LiveModel, StreamView};
use crate::console::{visible, Line};

/// One frame's view of the live model.
#[derive(Debug, Clone, Default)]
pub struct LiveFrame {
    pub nodes: Vec<NodeView>,
    pub pods: Vec<PodView>,
    pub events: Vec<EventRow>,
    pub streams: Vec<StreamView>,
    /// The raw lines of the stream whose body is shown, if one is.
    pub raw: Vec<String>,
    /// The console's newest lines.
    pub console: Vec<Line>,
    pub following: bool,
    pub latest_resource_version: u64,
    pub synced: bool,
    pub problem: Option<String>,
}

impl LiveFrame {
    /// Reads everything the live views show, once, at the server's `now_ms`; `raw` names the
    /// stream whose body is shown.
    pub fn of(m: &LiveModel, now_ms: u64, raw: Option<&str>) -> LiveFrame {
        LiveFrame {
            nodes: m.nodes(),
            pods: m.pods(),
            events: m.events(now_ms),
            streams: m.streams(),
            raw: raw.map(|r| m.raw(r)).unwrap_or_default(),
            console: visible(m.console.lines()),
            following: m.console.following(),
            latest_resource_version: m.latest_resource_version(),
            synced: m.synced(),
            problem: m.problem(),
        }
    }
}
