//! kube-proxy, one per node (user agent `kube-proxy/<node>`): an informer on Services and one
//! on EndpointSlices, and the node's "rules" — for every Service ClusterIP and port, the
//! ready endpoint addresses traffic to it is spread over (what the iptables/nftables proxier
//! programs). A change marks its Service dirty; the rules are rewritten no more often than
//! `--iptables-min-sync-period` (default 1 s), so every row records the virtual time it was
//! last applied and the newest revision it was built from: the UI shows how far each node
//! lagged behind the ledger. On a killed machine it does nothing (its watches close); back,
//! it lists afresh. Only ClusterIP rules are modelled (no NodePort, no session affinity, no
//! topology hints).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::adapter::{service_name_index, ApiInformer, SERVICE_NAME_INDEX};
use super::profile::Profile;
use super::shared_informer::InformerRef;
use super::{earliest, Controller};
use crate::api::endpoint_slice::LABEL_SERVICE_NAME;
use crate::api::service::CLUSTER_IP_NONE;
use crate::api::{Kind, Object};
use crate::apiserver::ApiServer;
use crate::client::store::namespace_index;
use crate::client::{IndexFunc, InformerConfig, Notification, ObjectKey};
use crate::clock::Timestamp;
use crate::rng::SimRng;

/// `--iptables-min-sync-period` (kube-proxy default 1 s).
pub const MIN_SYNC_PERIOD_MS: u64 = 1000;

/// One rule of a node's table: a Service port's virtual address and where it leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyRule {
    /// `namespace/name` of the Service.
    pub service: String,
    /// The Service port's name (may be empty).
    pub port_name: String,
    pub cluster_ip: String,
    pub port: i32,
    pub protocol: String,
    /// The ready endpoints as `ip:port`, sorted.
    pub endpoints: Vec<String>,
    /// When this rule was last (re)written on the node.
    pub applied_at: Timestamp,
    /// The newest resourceVersion among the Service and slices it was built from.
    pub source_revision: u64,
}

/// One node's kube-proxy.
pub struct KubeProxy {
    node: String,
    user: String,
    running: bool,
    seed: u64,
    config: InformerConfig,
    /// Services and EndpointSlices, created on first use and after a restart.
    informers: Option<(ApiInformer, ApiInformer)>,
    dirty: BTreeSet<ObjectKey>,
    rules: BTreeMap<ObjectKey, Vec<ProxyRule>>,
    last_sync: Option<Timestamp>,
}

/// The Service a Service or slice notification is about.
fn service_key(note: &Notification<Arc<Object>>) -> Option<ObjectKey> {
    let obj = match note {
        Notification::Add(o) | Notification::Update { new: o, .. } => o,
        Notification::Delete(d) => d.object(),
    };
    if obj.kind() == Kind::Service {
        return Some(note.key());
    }
    let svc = obj.meta().labels.get(LABEL_SERVICE_NAME)?;
    Some(ObjectKey::new(Some(obj.namespace()), svc))
}

impl KubeProxy {
    /// When the next sync may run: `--iptables-min-sync-period` after the last one.
    fn sync_due(&self, now: Timestamp) -> Timestamp {
        self.last_sync
            .map_or(now, |t| t.plus_millis(MIN_SYNC_PERIOD_MS))
    }

    pub fn new(node: &str, seed: u64, profile: &Profile) -> Self {
        KubeProxy {
            node: node.to_string(),
            user: format!("kube-proxy/{node}"),
            running: true,
            seed,
            config: profile.informer_config(),
            informers: None,
            dirty: BTreeSet::new(),
            rules: BTreeMap::new(),
            last_sync: None,
        }
    }

    pub fn node_name(&self) -> &str {
        &self.node
    }

    /// Kills (`false`) or restores (`true`) the node's kube-proxy, with its machine.
    pub fn set_running(&mut self, running: bool) {
        self.running = running;
    }

    /// The node's rules, by Service and port.
    pub fn rules(&self) -> Vec<ProxyRule> {
        self.rules.values().flatten().cloned().collect()
    }

    /// When the rules were last synced.
    pub fn last_sync(&self) -> Option<Timestamp> {
        self.last_sync
    }

    fn informer(&self, kind: Kind, extra: Vec<(String, IndexFunc<Arc<Object>>)>) -> ApiInformer {
        let mut indexers = vec![namespace_index()];
        indexers.extend(extra);
        ApiInformer::new(
            kind,
            None,
            self.config.clone(),
            indexers,
            SimRng::child(
                self.seed,
                &format!("{}/{}", self.user, kind.resource().plural),
            ),
        )
    }

    /// The rules of one Service from the caches (none when it is gone or headless).
    fn build(
        services: &ApiInformer,
        slices: &ApiInformer,
        key: &ObjectKey,
    ) -> Vec<(ProxyRule, u64)> {
        let Some(obj) = services.store().get(key) else {
            return Vec::new();
        };
        let Some(svc) = obj.as_service() else {
            return Vec::new();
        };
        if svc.spec.cluster_ip.is_empty() || svc.spec.cluster_ip == CLUSTER_IP_NONE {
            return Vec::new();
        }
        let slices = slices
            .store()
            .by_index(SERVICE_NAME_INDEX, key.as_str())
            .unwrap_or_default();
        let revision = slices
            .iter()
            .map(|s| s.resource_version())
            .chain([obj.resource_version()])
            .max()
            .unwrap_or(0);
        svc.spec
            .ports
            .iter()
            .map(|p| {
                let mut endpoints = BTreeSet::new();
                for s in slices.iter().filter_map(|s| s.as_endpoint_slice()) {
                    let Some(target) = s
                        .ports
                        .iter()
                        .find(|sp| {
                            sp.name.as_deref().unwrap_or("") == p.name
                                && sp.protocol.as_deref().unwrap_or("TCP") == p.protocol
                        })
                        .and_then(|sp| sp.port)
                    else {
                        continue;
                    };
                    for e in s
                        .endpoints
                        .iter()
                        .filter(|e| e.conditions.ready == Some(true))
                    {
                        endpoints.extend(e.addresses.iter().map(|a| format!("{a}:{target}")));
                    }
                }
                let rule = ProxyRule {
                    service: key.as_str().to_string(),
                    port_name: p.name.clone(),
                    cluster_ip: svc.spec.cluster_ip.clone(),
                    port: p.port,
                    protocol: p.protocol.clone(),
                    endpoints: endpoints.into_iter().collect(),
                    applied_at: Timestamp::ZERO,
                    source_revision: revision,
                };
                (rule, revision)
            })
            .collect()
    }

    /// `syncProxyRules` for the dirty Services: rows that change get `now` as their time.
    fn sync(&mut self, now: Timestamp) {
        let Some((services, slices)) = &self.informers else {
            return;
        };
        for key in std::mem::take(&mut self.dirty) {
            let old = self.rules.remove(&key).unwrap_or_default();
            let new: Vec<ProxyRule> = Self::build(services, slices, &key)
                .into_iter()
                .map(|(mut rule, _)| {
                    let same = old.iter().find(|o| {
                        o.port == rule.port
                            && o.protocol == rule.protocol
                            && o.port_name == rule.port_name
                            && o.cluster_ip == rule.cluster_ip
                            && o.endpoints == rule.endpoints
                    });
                    rule.applied_at = same.map_or(now, |o| o.applied_at);
                    if let Some(o) = same {
                        rule.source_revision = o.source_revision;
                    }
                    rule
                })
                .collect();
            if !new.is_empty() {
                self.rules.insert(key, new);
            }
        }
        self.last_sync = Some(now);
    }
}

impl Controller for KubeProxy {
    fn name(&self) -> &str {
        &self.user
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        match &self.informers {
            Some((s, e)) => vec![s.into(), e.into()],
            None => Vec::new(),
        }
    }

    fn step(&mut self, now: Timestamp, api: &mut ApiServer) -> Option<Timestamp> {
        if !self.running {
            if let Some((mut s, mut e)) = self.informers.take() {
                s.stop(api, &self.user);
                e.stop(api, &self.user);
            }
            return None;
        }
        if self.informers.is_none() {
            let services = self.informer(Kind::Service, Vec::new());
            let slices = self.informer(Kind::EndpointSlice, vec![service_name_index()]);
            self.informers = Some((services, slices));
            // A fresh list: every rule is rebuilt from it.
            self.dirty.extend(self.rules.keys().cloned());
        }
        let Some((services, slices)) = &mut self.informers else {
            return None;
        };
        let mut notes = services.step(now, api, &self.user);
        notes.extend(slices.step(now, api, &self.user));
        self.dirty.extend(notes.iter().filter_map(service_key));
        let synced = services.has_synced() && slices.has_synced();
        let wake = earliest([services.next_wakeup(), slices.next_wakeup()]);
        let due = self.sync_due(now);
        if synced && !self.dirty.is_empty() {
            if now >= due {
                self.sync(now);
            } else {
                return earliest([wake, Some(due)]);
            }
        }
        wake
    }

    /// Idle when both watches are quiet and no sync is due: at a thousand nodes most proxies
    /// have nothing to do at any instant (Services change rarely).
    fn idle(&self, now: Timestamp, api: &ApiServer) -> Option<Option<Timestamp>> {
        let (services, slices) = self.informers.as_ref()?;
        if !self.running || !services.is_quiet(now, api) || !slices.is_quiet(now, api) {
            return None;
        }
        let wake = earliest([services.next_wakeup(), slices.next_wakeup()]);
        let synced = services.has_synced() && slices.has_synced();
        if !synced || self.dirty.is_empty() {
            return Some(wake);
        }
        let due = self.sync_due(now);
        (now < due).then(|| earliest([wake, Some(due)]))
    }
}
