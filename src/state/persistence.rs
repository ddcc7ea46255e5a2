//! Nothing lost across reloads: the cluster saved in localStorage as the engine's journal,
//! exported and imported as a file, and restored at load (a fresh cluster with a notice when
//! the saved one does not restore).

use std::cell::RefCell;
use std::rc::Rc;

use watchlab_engine::cluster::Cluster;

use super::engine::Engine;
use super::scenarios::Progress;
use super::size::{size_of, ClusterSize};
use super::State;
use crate::clock::ClockDriver;
use crate::i18n::Lang;

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

impl State {
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
        state.refresh_frame();
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

    /// A fresh cluster of `size` from `seed` in place of the current one (a Restart).
    pub(super) fn restart(&mut self, seed: u64, size: ClusterSize) {
        self.replace_cluster(super::size::sized_cluster(seed, size));
        self.file_notice = None;
    }

    /// Puts `cluster` in place of the current one (clock settings kept, views reset).
    pub(super) fn replace_cluster(&mut self, cluster: Cluster) {
        let (speed, paused) = {
            let e = self.engine.borrow();
            (e.clock.speed(), e.clock.paused())
        };
        self.seed = cluster.config().seed;
        self.size = size_of(&cluster);
        self.size_error = None;
        self.open_node = None;
        self.progress = cluster
            .journal()
            .scenario
            .as_deref()
            .and_then(|m| Progress::from_marker(m, &self.labs));
        let mut fresh = Engine::with_cluster(cluster);
        fresh.clock = ClockDriver::new(speed, paused);
        self.engine = Rc::new(RefCell::new(fresh));
        self.inspection = None;
        self.raw_stream = None;
        self.fan_revision = None;
        self.stepped = false;
        self.open_group = None;
        self.notice = None;
        self.conflict = None;
    }
}
