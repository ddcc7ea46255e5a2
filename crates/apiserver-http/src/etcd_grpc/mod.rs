//! The etcd v3 API over gRPC (`--etcd-port PORT`): member *i* of the cluster answers on
//! 127.0.0.1:PORT+*i* with the KV (Range, Put, DeleteRange, Txn, Compact), Watch, Lease, Cluster
//! (MemberList) and Maintenance (Status, MoveLeader, Alarm, Defragment) services, so the real
//! etcdctl and etcd's client libraries work unchanged against the page's members. Every request is
//! answered by [`ClusterEtcd`], as the console's etcdctl is: the services only translate messages.
//!
//! tonic's handlers must be `Send`; the cluster holds `Rc`s and lives on the server's
//! `LocalSet`. So a handler sends a [`Job`] down a channel, the cluster's task runs it between
//! its other work, and the answer comes back on a oneshot.

pub mod pb;

#[allow(clippy::all, clippy::pedantic)]
mod stubs {
    include!(concat!(env!("OUT_DIR"), "/etcdserverpb.KV.rs"));
    include!(concat!(env!("OUT_DIR"), "/etcdserverpb.Watch.rs"));
    include!(concat!(env!("OUT_DIR"), "/etcdserverpb.Lease.rs"));
    include!(concat!(env!("OUT_DIR"), "/etcdserverpb.Cluster.rs"));
    include!(concat!(env!("OUT_DIR"), "/etcdserverpb.Maintenance.rs"));
}

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::Stream;
use tonic::{Request, Response, Status, Streaming};
use watchlab_engine::cluster::Cluster;
use watchlab_engine::etcd::{DEADLINE_EXCEEDED, REQUEST_TIMED_OUT};
use watchlab_etcd_api::ClusterEtcd;
use watchlab_etcdctl::{
    Compare, CompareOp, CompareTarget, EtcdClient, EtcdError, EventType, KeyValue, RangeRequest,
    RequestOp, ResponseHeader, ResponseOp, WatchRequest,
};

use stubs::cluster_server::{Cluster as ClusterService, ClusterServer};
use stubs::k_v_server::{KVServer, KV as Kv};
use stubs::lease_server::{Lease, LeaseServer};
use stubs::maintenance_server::{Maintenance, MaintenanceServer};
use stubs::watch_server::{Watch, WatchServer};

/// Work for the cluster's task: runs with the cluster caught up to now.
pub type Job = Box<dyn FnOnce(&mut Cluster) + Send>;

/// How often an open watch asks its member for what it applied (real time).
const WATCH_POLL: Duration = Duration::from_millis(50);

/// One member's services.
#[derive(Clone)]
struct MemberApi {
    member: usize,
    jobs: mpsc::UnboundedSender<Job>,
    /// Every member's served address, as `MemberList` reports its client URL (so `etcdctl
    /// endpoint status --cluster` reaches them). Without the `http://` a real etcd reports:
    /// etcdctl 3.4 dials such a URL with it as the HTTP/2 `:authority`, which hyper's server
    /// refuses (grpc-go's takes it).
    client_urls: Arc<Vec<String>>,
}

impl MemberApi {
    /// Runs `f` against the cluster's etcd and returns what it answered.
    async fn ask<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut ClusterEtcd<'_>, usize) -> T + Send + 'static,
    ) -> Result<T, Status> {
        let (tx, rx) = oneshot::channel();
        let member = self.member;
        let job: Job = Box::new(move |cluster: &mut Cluster| {
            let _ = tx.send(f(&mut ClusterEtcd { cluster }, member));
        });
        let stopped = || Status::unavailable("the server is stopping");
        self.jobs.send(job).map_err(|_| stopped())?;
        rx.await.map_err(|_| stopped())
    }
}

/// Serves member `i` on `listeners[i]` until the process ends.
pub fn spawn(listeners: Vec<TcpListener>, jobs: mpsc::UnboundedSender<Job>) {
    let client_urls: Arc<Vec<String>> = Arc::new(
        listeners
            .iter()
            .map(|l| l.local_addr().map(|a| a.to_string()).unwrap_or_default())
            .collect(),
    );
    for (member, listener) in listeners.into_iter().enumerate() {
        let api = MemberApi {
            member,
            jobs: jobs.clone(),
            client_urls: client_urls.clone(),
        };
        let incoming = tonic::transport::server::TcpIncoming::from(listener);
        tokio::spawn(async move {
            let served = tonic::transport::Server::builder()
                .add_service(KVServer::new(api.clone()))
                .add_service(WatchServer::new(api.clone()))
                .add_service(LeaseServer::new(api.clone()))
                .add_service(ClusterServer::new(api.clone()))
                .add_service(MaintenanceServer::new(api))
                .serve_with_incoming(incoming)
                .await;
            if let Err(e) = served {
                eprintln!("watchlab-apiserver: etcd member {member}'s gRPC server stopped: {e}");
            }
        });
    }
}

/// An etcd error as etcd's server sends it: the text is what clientv3 turns back into its
/// error (`rpctypes`), so etcdctl prints it as etcd's own. A request that would wait for a
/// quorum answers at once with the server's timeout text (the real one answers after its
/// 7 s request timeout, unless etcdctl's 5 s deadline ends the wait first).
fn status(e: EtcdError) -> Status {
    let text = if e.0 == DEADLINE_EXCEEDED {
        REQUEST_TIMED_OUT.to_string()
    } else {
        e.0
    };
    if text == REQUEST_TIMED_OUT || text.ends_with("no leader") {
        Status::unavailable(text)
    } else if text.contains("mvcc: required revision") {
        Status::out_of_range(text)
    } else if text.contains("not found") {
        Status::not_found(text)
    } else if text.starts_with("etcdserver:") {
        Status::failed_precondition(text)
    } else {
        Status::invalid_argument(text)
    }
}

fn header(h: ResponseHeader) -> Option<pb::ResponseHeader> {
    Some(pb::ResponseHeader {
        cluster_id: h.cluster_id,
        member_id: h.member_id,
        revision: h.revision,
        raft_term: h.raft_term,
    })
}

fn key_value(kv: KeyValue) -> pb::KeyValue {
    pb::KeyValue {
        key: kv.key.into_bytes(),
        create_revision: kv.create_revision,
        mod_revision: kv.mod_revision,
        version: kv.version,
        value: kv.value.into_bytes(),
        lease: kv.lease,
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A request's `range_end`: empty for the key alone.
fn range_end(bytes: &[u8]) -> Option<String> {
    (!bytes.is_empty()).then(|| text(bytes))
}

/// A txn compare from its protobuf form.
fn compare(c: &pb::Compare) -> Result<Compare, Status> {
    let op = match c.result {
        0 => CompareOp::Equal,
        1 => CompareOp::Greater,
        2 => CompareOp::Less,
        3 => CompareOp::NotEqual,
        _ => return Err(Status::invalid_argument("unknown compare result")),
    };
    let target = match &c.target_union {
        Some(pb::CompareTargetUnion::Version(n)) => CompareTarget::Version(*n),
        Some(pb::CompareTargetUnion::CreateRevision(n)) => CompareTarget::Create(*n),
        Some(pb::CompareTargetUnion::ModRevision(n)) => CompareTarget::Mod(*n),
        Some(pb::CompareTargetUnion::Value(v)) => CompareTarget::Value(text(v)),
        Some(pb::CompareTargetUnion::Lease(n)) => CompareTarget::Lease(*n),
        // proto3 leaves a zero out: the target names what the zero compares.
        None => match c.target {
            0 => CompareTarget::Version(0),
            1 => CompareTarget::Create(0),
            2 => CompareTarget::Mod(0),
            3 => CompareTarget::Value(String::new()),
            _ => CompareTarget::Lease(0),
        },
    };
    Ok(Compare {
        key: text(&c.key),
        op,
        target,
    })
}

/// A txn request from its protobuf form.
fn request_op(op: &pb::RequestOp) -> Result<RequestOp, Status> {
    match &op.request {
        Some(pb::Request::RequestRange(r)) => Ok(RequestOp::Get {
            key: text(&r.key),
            range_end: range_end(&r.range_end),
        }),
        Some(pb::Request::RequestPut(p)) => Ok(RequestOp::Put {
            key: text(&p.key),
            value: text(&p.value),
        }),
        Some(pb::Request::RequestDeleteRange(d)) => Ok(RequestOp::Delete {
            key: text(&d.key),
            range_end: range_end(&d.range_end),
        }),
        None => Err(Status::invalid_argument("a txn request without a request")),
    }
}

/// A header for answers that carry no revision of their own.
fn member_header(etcd: &mut ClusterEtcd<'_>, member: usize) -> Result<ResponseHeader, EtcdError> {
    etcd.status(member).map(|s| s.header)
}

type Answer<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl Kv for MemberApi {
    async fn range(&self, req: Request<pb::RangeRequest>) -> Answer<pb::RangeResponse> {
        let r = req.into_inner();
        let ask = RangeRequest {
            key: text(&r.key),
            range_end: range_end(&r.range_end),
            limit: r.limit,
            revision: r.revision,
            serializable: r.serializable,
            keys_only: r.keys_only,
            count_only: r.count_only,
        };
        let resp = self
            .ask(move |etcd, m| etcd.range(m, &ask))
            .await?
            .map_err(status)?;
        Ok(Response::new(pb::RangeResponse {
            header: header(resp.header),
            kvs: resp.kvs.into_iter().map(key_value).collect(),
            more: resp.more,
            count: resp.count,
        }))
    }

    async fn put(&self, req: Request<pb::PutRequest>) -> Answer<pb::PutResponse> {
        let r = req.into_inner();
        if r.ignore_value || r.ignore_lease {
            return Err(Status::invalid_argument(
                "ignore_value and ignore_lease are not served here",
            ));
        }
        let (key, value) = (text(&r.key), text(&r.value));
        let resp = self
            .ask(move |etcd, m| etcd.put(m, &key, &value, r.lease))
            .await?
            .map_err(status)?;
        Ok(Response::new(pb::PutResponse {
            header: header(resp.header),
            prev_kv: resp.prev_kv.filter(|_| r.prev_kv).map(key_value),
        }))
    }

    async fn delete_range(
        &self,
        req: Request<pb::DeleteRangeRequest>,
    ) -> Answer<pb::DeleteRangeResponse> {
        let r = req.into_inner();
        let (key, end) = (text(&r.key), range_end(&r.range_end));
        let resp = self
            .ask(move |etcd, m| etcd.delete_range(m, &key, end.as_deref()))
            .await?
            .map_err(status)?;
        Ok(Response::new(pb::DeleteRangeResponse {
            header: header(resp.header),
            deleted: resp.deleted,
            prev_kvs: if r.prev_kv {
                resp.prev_kvs.into_iter().map(key_value).collect()
            } else {
                Vec::new()
            },
        }))
    }

    /// A request a txn carries nested (another txn inside) is refused.
    async fn txn(&self, req: Request<pb::TxnRequest>) -> Answer<pb::TxnResponse> {
        let r = req.into_inner();
        let compares = r
            .compare
            .iter()
            .map(compare)
            .collect::<Result<Vec<_>, _>>()?;
        let ops =
            |list: &[pb::RequestOp]| list.iter().map(request_op).collect::<Result<Vec<_>, _>>();
        let (success, failure) = (ops(&r.success)?, ops(&r.failure)?);
        let resp = self
            .ask(move |etcd, m| etcd.txn(m, &compares, &success, &failure))
            .await?
            .map_err(status)?;
        Ok(Response::new(pb::TxnResponse {
            header: header(resp.header),
            succeeded: resp.succeeded,
            responses: resp
                .responses
                .into_iter()
                .map(|op| pb::ResponseOp {
                    response: Some(match op {
                        ResponseOp::Range(r) => pb::Response::ResponseRange(pb::RangeResponse {
                            header: header(r.header),
                            kvs: r.kvs.into_iter().map(key_value).collect(),
                            more: r.more,
                            count: r.count,
                        }),
                        ResponseOp::Put(p) => pb::Response::ResponsePut(pb::PutResponse {
                            header: header(p.header),
                            prev_kv: None,
                        }),
                        ResponseOp::DeleteRange(d) => {
                            pb::Response::ResponseDeleteRange(pb::DeleteRangeResponse {
                                header: header(d.header),
                                deleted: d.deleted,
                                prev_kvs: Vec::new(),
                            })
                        }
                    }),
                })
                .collect(),
        }))
    }

    async fn compact(&self, req: Request<pb::CompactionRequest>) -> Answer<pb::CompactionResponse> {
        let revision = req.into_inner().revision;
        let h = self
            .ask(move |etcd, m| {
                etcd.compact(m, revision)?;
                member_header(etcd, m)
            })
            .await?
            .map_err(status)?;
        Ok(Response::new(pb::CompactionResponse { header: header(h) }))
    }
}

type WatchStream = Pin<Box<dyn Stream<Item = Result<pb::WatchResponse, Status>> + Send>>;

/// One watch of a stream: what it asks and whether the member has answered it yet.
struct OpenWatch {
    id: i64,
    req: WatchRequest,
    created: bool,
}

#[tonic::async_trait]
impl Watch for MemberApi {
    type WatchStream = WatchStream;

    /// A stream carries any number of watches; each is polled on [`WATCH_POLL`] until the
    /// client cancels it, the member cancels it, or the stream ends.
    async fn watch(&self, req: Request<Streaming<pb::WatchRequest>>) -> Answer<WatchStream> {
        let mut inbound = req.into_inner();
        let (tx, rx) = mpsc::channel(256);
        let api = self.clone();
        tokio::spawn(async move {
            let mut open: Vec<OpenWatch> = Vec::new();
            let mut next_id = 0;
            let mut tick = tokio::time::interval(WATCH_POLL);
            loop {
                tokio::select! {
                    msg = inbound.message() => match msg {
                        Ok(Some(pb::WatchRequest { request_union: Some(u) })) => match u {
                            pb::WatchRequestUnion::CreateRequest(c) => {
                                let id = if c.watch_id > 0 { c.watch_id } else { next_id };
                                next_id = next_id.max(id) + 1;
                                open.push(OpenWatch {
                                    id,
                                    req: WatchRequest {
                                        key: text(&c.key),
                                        range_end: range_end(&c.range_end),
                                        start_revision: c.start_revision,
                                        prev_kv: c.prev_kv,
                                    },
                                    created: false,
                                });
                            }
                            pb::WatchRequestUnion::CancelRequest(c) => {
                                open.retain(|w| w.id != c.watch_id);
                                let done = pb::WatchResponse {
                                    watch_id: c.watch_id,
                                    canceled: true,
                                    ..Default::default()
                                };
                                if tx.send(Ok(done)).await.is_err() {
                                    return;
                                }
                            }
                            pb::WatchRequestUnion::ProgressRequest(_) => {}
                        },
                        Ok(Some(_)) => {}
                        _ => return,
                    },
                    _ = tick.tick() => {}
                }
                for w in &mut open {
                    match poll_watch(&api, w).await {
                        Ok(answers) => {
                            for a in answers {
                                if tx.send(Ok(a)).await.is_err() {
                                    return;
                                }
                            }
                        }
                        Err(()) => return,
                    }
                }
                open.retain(|w| w.id >= 0);
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }
}

/// One poll of an open watch: its `created` answer first, then each batch of events; a
/// cancellation marks the watch done (id -1). `Err` when the server is stopping.
async fn poll_watch(api: &MemberApi, w: &mut OpenWatch) -> Result<Vec<pb::WatchResponse>, ()> {
    let req = w.req.clone();
    let opening = !w.created;
    let polled = api
        .ask(move |etcd, m| {
            let answer = etcd.watch(m, &req, opening);
            let compacted = etcd.cluster.api().store().compact_revision() as i64;
            (answer, compacted)
        })
        .await
        .map_err(|_| ())?;
    let id = w.id;
    let mut out = Vec::new();
    match polled {
        (Ok(None), _) => {}
        (Ok(Some(resp)), _) => {
            if !w.created {
                w.created = true;
                out.push(pb::WatchResponse {
                    header: header(resp.header),
                    watch_id: id,
                    created: true,
                    ..Default::default()
                });
            }
            w.req.start_revision = resp.header.revision + 1;
            if !resp.events.is_empty() {
                out.push(pb::WatchResponse {
                    header: header(resp.header),
                    watch_id: id,
                    events: resp
                        .events
                        .into_iter()
                        .map(|e| pb::Event {
                            r#type: match e.kind {
                                EventType::Put => 0,
                                EventType::Delete => 1,
                            },
                            kv: Some(key_value(e.kv)),
                            prev_kv: e.prev_kv.map(key_value),
                        })
                        .collect(),
                    ..Default::default()
                });
            }
        }
        (Err(e), compact_revision) => {
            let compacted = e.0.contains("compacted");
            out.push(pb::WatchResponse {
                watch_id: id,
                created: !w.created,
                canceled: true,
                compact_revision: if compacted { compact_revision } else { 0 },
                cancel_reason: e.0,
                ..Default::default()
            });
            w.id = -1;
        }
    }
    Ok(out)
}

type KeepAliveStream =
    Pin<Box<dyn Stream<Item = Result<pb::LeaseKeepAliveResponse, Status>> + Send>>;

#[tonic::async_trait]
impl Lease for MemberApi {
    type LeaseKeepAliveStream = KeepAliveStream;

    async fn lease_grant(
        &self,
        req: Request<pb::LeaseGrantRequest>,
    ) -> Answer<pb::LeaseGrantResponse> {
        let ttl = req.into_inner().ttl;
        let (h, (id, ttl)) = self
            .ask(move |etcd, m| {
                let granted = etcd.lease_grant(m, ttl)?;
                Ok((member_header(etcd, m)?, granted))
            })
            .await?
            .map_err(status)?;
        Ok(Response::new(pb::LeaseGrantResponse {
            header: header(h),
            id,
            ttl,
            error: String::new(),
        }))
    }

    async fn lease_revoke(
        &self,
        req: Request<pb::LeaseRevokeRequest>,
    ) -> Answer<pb::LeaseRevokeResponse> {
        let id = req.into_inner().id;
        let h = self
            .ask(move |etcd, m| {
                etcd.lease_revoke(m, id)?;
                member_header(etcd, m)
            })
            .await?
            .map_err(status)?;
        Ok(Response::new(pb::LeaseRevokeResponse { header: header(h) }))
    }

    /// Each request renews its lease once; a lease that is gone answers TTL 0 (clientv3 then
    /// reports it not found).
    async fn lease_keep_alive(
        &self,
        req: Request<Streaming<pb::LeaseKeepAliveRequest>>,
    ) -> Answer<KeepAliveStream> {
        let mut inbound = req.into_inner();
        let (tx, rx) = mpsc::channel(16);
        let api = self.clone();
        tokio::spawn(async move {
            while let Ok(Some(r)) = inbound.message().await {
                let id = r.id;
                let Ok(answer) = api
                    .ask(move |etcd, m| {
                        let ttl = etcd.lease_keep_alive(m, id).unwrap_or(0);
                        member_header(etcd, m).map(|h| (h, ttl))
                    })
                    .await
                else {
                    return;
                };
                let resp = answer
                    .map_err(status)
                    .map(|(h, ttl)| pb::LeaseKeepAliveResponse {
                        header: header(h),
                        id,
                        ttl,
                    });
                if tx.send(resp).await.is_err() {
                    return;
                }
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn lease_time_to_live(
        &self,
        req: Request<pb::LeaseTimeToLiveRequest>,
    ) -> Answer<pb::LeaseTimeToLiveResponse> {
        let r = req.into_inner();
        let (h, t) = self
            .ask(move |etcd, m| {
                let t = etcd.lease_time_to_live(m, r.id)?;
                Ok((member_header(etcd, m)?, t))
            })
            .await?
            .map_err(status)?;
        Ok(Response::new(pb::LeaseTimeToLiveResponse {
            header: header(h),
            id: t.id,
            ttl: t.ttl,
            granted_ttl: t.granted_ttl,
            keys: if r.keys {
                t.keys.into_iter().map(String::into_bytes).collect()
            } else {
                Vec::new()
            },
        }))
    }

    async fn lease_leases(
        &self,
        _req: Request<pb::LeaseLeasesRequest>,
    ) -> Answer<pb::LeaseLeasesResponse> {
        let (h, ids) = self
            .ask(|etcd, m| {
                let ids = etcd.leases(m)?;
                Ok((member_header(etcd, m)?, ids))
            })
            .await?
            .map_err(status)?;
        Ok(Response::new(pb::LeaseLeasesResponse {
            header: header(h),
            leases: ids.into_iter().map(|id| pb::LeaseStatus { id }).collect(),
        }))
    }
}

#[tonic::async_trait]
impl ClusterService for MemberApi {
    async fn member_list(
        &self,
        _req: Request<pb::MemberListRequest>,
    ) -> Answer<pb::MemberListResponse> {
        let (cluster_id, members, asked) = self
            .ask(|etcd, m| {
                let members = etcd.members();
                let asked = members.get(m).map_or(0, |x| x.id);
                (etcd.cluster_id(), members, asked)
            })
            .await?;
        Ok(Response::new(pb::MemberListResponse {
            header: header(ResponseHeader {
                cluster_id,
                member_id: asked,
                ..ResponseHeader::default()
            }),
            members: members
                .into_iter()
                .enumerate()
                .map(|(i, m)| pb::Member {
                    id: m.id,
                    name: m.name,
                    peer_urls: m.peer_urls,
                    client_urls: self.client_urls.get(i).cloned().into_iter().collect(),
                    is_learner: m.is_learner,
                })
                .collect(),
        }))
    }
}

#[tonic::async_trait]
impl Maintenance for MemberApi {
    async fn status(&self, _req: Request<pb::StatusRequest>) -> Answer<pb::StatusResponse> {
        let s = self.ask(|etcd, m| etcd.status(m)).await?.map_err(status)?;
        Ok(Response::new(pb::StatusResponse {
            header: header(s.header),
            version: s.version,
            db_size: s.db_size,
            leader: s.leader,
            raft_index: s.raft_index,
            raft_term: s.raft_term,
            raft_applied_index: s.raft_applied_index,
            errors: s.errors,
            db_size_in_use: s.db_size_in_use,
            is_learner: s.is_learner,
        }))
    }

    /// GET lists the alarms; DEACTIVATE disarms (every alarm: the page has NOSPACE only);
    /// ACTIVATE is refused (members raise alarms themselves).
    async fn alarm(&self, req: Request<pb::AlarmRequest>) -> Answer<pb::AlarmResponse> {
        let action = req.into_inner().action;
        let (h, alarms) = self
            .ask(move |etcd, m| {
                let alarms = match action {
                    0 => etcd.alarms(m)?,
                    2 => etcd.alarm_disarm(m)?,
                    _ => return Err(EtcdError("alarms are raised by the members".into())),
                };
                Ok((member_header(etcd, m)?, alarms))
            })
            .await?
            .map_err(status)?;
        Ok(Response::new(pb::AlarmResponse {
            header: header(h),
            alarms: alarms
                .into_iter()
                .map(|(member_id, a)| pb::AlarmMember {
                    member_id,
                    alarm: i32::from(a == "NOSPACE") + 2 * i32::from(a == "CORRUPT"),
                })
                .collect(),
        }))
    }

    async fn defragment(
        &self,
        _req: Request<pb::DefragmentRequest>,
    ) -> Answer<pb::DefragmentResponse> {
        let h = self
            .ask(|etcd, m| {
                etcd.defragment(m)?;
                member_header(etcd, m)
            })
            .await?
            .map_err(status)?;
        Ok(Response::new(pb::DefragmentResponse { header: header(h) }))
    }

    async fn move_leader(
        &self,
        req: Request<pb::MoveLeaderRequest>,
    ) -> Answer<pb::MoveLeaderResponse> {
        let target = req.into_inner().target_id;
        let h = self
            .ask(move |etcd, m| etcd.move_leader(m, target))
            .await?
            .map_err(status)?;
        Ok(Response::new(pb::MoveLeaderResponse { header: header(h) }))
    }
}
