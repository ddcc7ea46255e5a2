//! What etcdctl asks of an etcd cluster and what it gets back, shaped like etcd's v3 API
//! (`api/etcdserverpb/rpc.proto`, `api/mvccpb/kv.proto`): the console prints these, and any
//! cluster that answers them — the page's members, a test's fake — can be driven by it.

/// `etcdserverpb.ResponseHeader`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ResponseHeader {
    pub cluster_id: u64,
    pub member_id: u64,
    pub revision: i64,
    pub raft_term: u64,
}

/// `mvccpb.KeyValue` (keys and values as text: the page's values are the JSON the API server
/// stores).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KeyValue {
    pub key: String,
    pub create_revision: i64,
    pub mod_revision: i64,
    pub version: i64,
    pub value: String,
    pub lease: i64,
}

/// `etcdserverpb.RangeRequest`, the parts etcdctl sets.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RangeRequest {
    pub key: String,
    /// Every key in `[key, range_end)`; `None` for the one key. `"\0"` means "from `key` on".
    pub range_end: Option<String>,
    /// 0: no limit.
    pub limit: i64,
    /// 0: the current revision.
    pub revision: i64,
    /// Answered by the member asked, from what it has applied (may be stale).
    pub serializable: bool,
    pub keys_only: bool,
    pub count_only: bool,
}

/// `etcdserverpb.RangeResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RangeResponse {
    pub header: ResponseHeader,
    pub kvs: Vec<KeyValue>,
    pub more: bool,
    pub count: i64,
}

/// `etcdserverpb.Member`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Member {
    pub id: u64,
    pub name: String,
    pub peer_urls: Vec<String>,
    pub client_urls: Vec<String>,
    pub is_learner: bool,
}

/// `etcdserverpb.StatusResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StatusResponse {
    pub header: ResponseHeader,
    pub version: String,
    pub db_size: i64,
    pub leader: u64,
    pub raft_index: u64,
    pub raft_term: u64,
    pub raft_applied_index: u64,
    pub errors: Vec<String>,
    pub db_size_in_use: i64,
    pub is_learner: bool,
}

/// `etcdserverpb.WatchCreateRequest`, the parts etcdctl sets.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WatchRequest {
    pub key: String,
    /// As [`RangeRequest::range_end`].
    pub range_end: Option<String>,
    /// The first revision wanted; 0: the next one the member applies.
    pub start_revision: i64,
    pub prev_kv: bool,
}

/// `mvccpb.Event`'s type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Put,
    Delete,
}

/// `mvccpb.Event`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub kind: EventType,
    /// For a delete: the key and the delete's revision only.
    pub kv: KeyValue,
    pub prev_kv: Option<KeyValue>,
}

/// What one poll of a watch brought.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WatchResponse {
    /// Its revision: how far the member has applied (the next poll asks from the one after).
    pub header: ResponseHeader,
    pub events: Vec<Event>,
}

/// `etcdserverpb.PutResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PutResponse {
    pub header: ResponseHeader,
    pub prev_kv: Option<KeyValue>,
}

/// `etcdserverpb.DeleteRangeResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DeleteRangeResponse {
    pub header: ResponseHeader,
    pub deleted: i64,
    pub prev_kvs: Vec<KeyValue>,
}

/// `etcdserverpb.LeaseTimeToLiveResponse` (`ttl` -1 and `granted_ttl` 0 for a lease that is gone).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LeaseTimeToLiveResponse {
    pub id: i64,
    pub ttl: i64,
    pub granted_ttl: i64,
    pub keys: Vec<String>,
}

/// What `etcdutl snapshot status` reports of a snapshot file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SnapshotStatus {
    pub hash: u32,
    pub revision: i64,
    pub total_keys: i64,
    pub total_size: i64,
}

/// What a txn compare reads of its key, and the value it is compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompareTarget {
    Value(String),
    Version(i64),
    Create(i64),
    Mod(i64),
    Lease(i64),
}

/// `=`, `!=`, `>`, `<`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    Equal,
    NotEqual,
    Greater,
    Less,
}

/// `etcdserverpb.Compare`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compare {
    pub key: String,
    pub op: CompareOp,
    pub target: CompareTarget,
}

/// `etcdserverpb.RequestOp`: a get, put or delete of a txn's branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestOp {
    Get {
        key: String,
        range_end: Option<String>,
    },
    Put {
        key: String,
        value: String,
    },
    Delete {
        key: String,
        range_end: Option<String>,
    },
}

/// `etcdserverpb.ResponseOp`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResponseOp {
    Range(RangeResponse),
    Put(PutResponse),
    DeleteRange(DeleteRangeResponse),
}

/// `etcdserverpb.TxnResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TxnResponse {
    pub header: ResponseHeader,
    pub succeeded: bool,
    pub responses: Vec<ResponseOp>,
}

/// A request that failed, with the text etcdctl prints after `Error: `.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EtcdError(pub String);

/// What etcdctl prints when its command timeout (5 s) ran out before an answer: a member cut
/// off from its leader, a cluster without a majority, a member that is down.
pub const DEADLINE_EXCEEDED: &str = "context deadline exceeded";

/// An etcd cluster as etcdctl reaches it: a member is picked by its position in
/// [`EtcdClient::members`] (etcdctl's `--endpoints` name its client URL).
pub trait EtcdClient {
    /// `MemberList`: every member, in order.
    fn members(&self) -> Vec<Member>;
    /// The cluster's ID (every header carries it).
    fn cluster_id(&self) -> u64;
    fn range(&mut self, member: usize, req: &RangeRequest) -> Result<RangeResponse, EtcdError>;
    fn status(&mut self, member: usize) -> Result<StatusResponse, EtcdError>;
    /// One poll of a watch at `member`: what it applied from `req.start_revision` on.
    /// `Ok(None)` while the member does not answer (the client keeps trying); `Err` when the
    /// member cancels the watch. `opening`: the request that creates it.
    fn watch(
        &mut self,
        member: usize,
        req: &WatchRequest,
        opening: bool,
    ) -> Result<Option<WatchResponse>, EtcdError>;
    /// `Put` asked of `member` (the previous value comes back with the answer); `lease` 0 for
    /// none.
    fn put(
        &mut self,
        member: usize,
        key: &str,
        value: &str,
        lease: i64,
    ) -> Result<PutResponse, EtcdError>;
    /// `LeaseGrant`: the new lease's id and TTL (seconds).
    fn lease_grant(&mut self, member: usize, ttl: i64) -> Result<(i64, i64), EtcdError>;
    fn lease_revoke(&mut self, member: usize, id: i64) -> Result<(), EtcdError>;
    /// `LeaseKeepAlive`, once: the lease's TTL (seconds).
    fn lease_keep_alive(&mut self, member: usize, id: i64) -> Result<i64, EtcdError>;
    fn lease_time_to_live(
        &mut self,
        member: usize,
        id: i64,
    ) -> Result<LeaseTimeToLiveResponse, EtcdError>;
    /// `LeaseLeases`: every live lease's id.
    fn leases(&mut self, member: usize) -> Result<Vec<i64>, EtcdError>;
    /// `DeleteRange` asked of `member` (the keys it removed come back with the answer).
    fn delete_range(
        &mut self,
        member: usize,
        key: &str,
        range_end: Option<&str>,
    ) -> Result<DeleteRangeResponse, EtcdError>;
    /// `Txn` asked of `member`: the compares choose a branch, whose requests run in order.
    fn txn(
        &mut self,
        member: usize,
        compares: &[Compare],
        success: &[RequestOp],
        failure: &[RequestOp],
    ) -> Result<TxnResponse, EtcdError>;
    /// `Alarm` (GET) asked of `member`: the active alarms, as (member ID, type).
    fn alarms(&mut self, member: usize) -> Result<Vec<(u64, String)>, EtcdError>;
    /// `Alarm` (DEACTIVATE) of every alarm: those it disarmed.
    fn alarm_disarm(&mut self, member: usize) -> Result<Vec<(u64, String)>, EtcdError>;
    fn defragment(&mut self, member: usize) -> Result<(), EtcdError>;
    /// `Snapshot` asked of `member`, written to the file `path`.
    fn snapshot_save(&mut self, member: usize, path: &str) -> Result<SnapshotStatus, EtcdError>;
    /// A snapshot file's status (`etcdutl snapshot status`); `None` when there is no such file.
    fn snapshot_status(&self, path: &str) -> Option<SnapshotStatus>;
    /// `etcdutl snapshot restore`: every member's data directory from the file, and etcd and
    /// the API server restarted on it.
    fn snapshot_restore(
        &mut self,
        path: &str,
        bump_revision: u64,
        mark_compacted: bool,
    ) -> Result<SnapshotStatus, EtcdError>;
    /// `Compact` asked of `member`.
    fn compact(&mut self, member: usize, revision: i64) -> Result<(), EtcdError>;
    /// The cluster's clock in milliseconds (a watch's progress notifications run on it).
    fn now_ms(&self) -> u64;
    /// `MoveLeader` asked of `member` (which must lead) for the member with ID `target`.
    fn move_leader(&mut self, member: usize, target: u64) -> Result<ResponseHeader, EtcdError>;
}
