//! etcd's maintenance asked of one member: a snapshot of its keys and the restore from one,
//! the NOSPACE alarm, and defragmentation.

use std::sync::Arc;

use super::etcdserver_text;
use crate::api::Object;
use crate::apiserver::ApiServer;
use crate::store::{Revision, Snapshot, Store};

/// An alarm as etcd prints it (protobuf's text form of an `AlarmMember`, trailing space
/// included).
pub fn alarm_text(member_id: u64, alarm: &str) -> String {
    format!("memberID:{member_id} alarm:{alarm} ")
}

impl ApiServer {
    /// `Snapshot` asked of member `member` (`etcdctl snapshot save`): its keys at the revision
    /// it has applied.
    pub fn etcd_snapshot(&self, member: &str) -> Result<Snapshot<Arc<Object>>, String> {
        let m = self.reachable_member(member)?;
        self.store
            .snapshot(m.applied_revision)
            .map_err(|e| etcdserver_text(&e))
    }

    /// etcd restored from `snapshot` (`etcdutl snapshot restore`, every member's data directory
    /// from it) and the API server restarted on it: the store holds the snapshot's keys at their
    /// revisions, its revision bumped by `bump` (and everything before marked compacted with
    /// `mark_compacted`), and every watch stream ends as the old server goes away. Clients
    /// watch again from the resourceVersion they last saw.
    pub fn etcd_restore(
        &mut self,
        snapshot: &Snapshot<Arc<Object>>,
        bump: Revision,
        mark_compacted: bool,
    ) {
        let quota = self.store.quota_bytes();
        self.store = Store::restored(snapshot, bump, mark_compacted, self.now, quota);
        self.etcd.restored(self.store.revision());
        let streams: Vec<_> = self.watch.streams().map(|s| s.id()).collect();
        for id in streams {
            self.stop_watch(id);
        }
        self.restart_cachers();
    }
}

impl ApiServer {
    /// `Alarm` (GET) asked of member `member`: the active alarms, as (member ID, type).
    pub fn etcd_alarms(&self, member: &str) -> Result<Vec<(u64, &'static str)>, String> {
        self.check_etcd_write(member)?;
        Ok(self.etcd.alarms())
    }

    /// `Alarm` (DEACTIVATE, every alarm) asked of member `member`, through the log: puts are
    /// taken again. Returns the alarms it disarmed.
    pub fn etcd_alarm_disarm(&mut self, member: &str) -> Result<Vec<(u64, &'static str)>, String> {
        self.check_etcd_write(member)?;
        let committed = self
            .replicate(|| "AlarmDisarm".to_string())
            .map_err(|e| e.text().to_string())?;
        self.applied(committed);
        Ok(self.etcd.disarm_alarms())
    }

    /// `Defragment` asked of member `member`: its backend file rewritten without free pages.
    /// The page measures the database by what its revisions hold, so nothing changes size.
    pub fn etcd_defragment(&self, member: &str) -> Result<(), String> {
        self.reachable_member(member).map(|_| ())
    }
}
