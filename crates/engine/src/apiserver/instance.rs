//! The API server instances: a highly available control plane runs two or three
//! kube-apiservers behind a load balancer, all on the same etcd, each with its **own** watch
//! caches (one [`Cacher`] per resource, each fed by its own etcd watch). What they store is
//! the same (etcd's); what they serve from memory — lists at `resourceVersion=0`, every watch —
//! is as fresh as their caches, which is how an informer can go back in time
//! (kubernetes/kubernetes#59848). One instance by default, as a kubeadm cluster of one
//! control-plane node.

use std::collections::BTreeMap;

use super::cacher::Cacher;
use crate::api::Kind;

/// One kube-apiserver.
#[derive(Debug, Clone)]
pub struct Instance {
    /// `kube-apiserver-0`.
    pub name: String,
    /// Its watch caches, one per served resource.
    pub(super) cachers: BTreeMap<Kind, Cacher>,
    pub health: Health,
}

/// Whether an instance serves, and what it can reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Health {
    Serving,
    /// Its caches' etcd watches stall: they hear nothing (they stop advancing) while it keeps
    /// serving what they hold; its requests to etcd (writes, consistent reads) still go
    /// through — the lagging watch cache of kubernetes/kubernetes#59848.
    Cut,
    /// Its process is down: its watches ended, and the load balancer sends its clients to
    /// another instance.
    Stopped,
}

impl Instance {
    /// The `index`th instance, with no cache started yet.
    pub fn new(index: usize) -> Self {
        Instance {
            name: instance_name(index),
            cachers: BTreeMap::new(),
            health: Health::Serving,
        }
    }
}

/// The load balancer in front of the instances: each client (by user agent) keeps the
/// connection it was given — HTTP/2 to one instance, as client-go's transport does — until that
/// instance stops; new clients are spread round-robin over the ones not stopped.
#[derive(Debug, Clone, Default)]
pub struct LoadBalancer {
    connections: BTreeMap<String, usize>,
    next: usize,
}

impl LoadBalancer {
    /// The instance `client` is connected to, connecting it (again) if it has none or its
    /// instance stopped. `instances`' health decides; at least one instance must not be
    /// stopped for a connection to be made (else the first instance is returned, refusing).
    pub fn connect(&mut self, client: &str, instances: &[Instance]) -> usize {
        let up = |i: usize| {
            instances
                .get(i)
                .is_some_and(|s| s.health != Health::Stopped)
        };
        if let Some(&i) = self.connections.get(client) {
            if up(i) {
                return i;
            }
        }
        let n = instances.len().max(1);
        let Some(i) = (0..n).map(|k| (self.next + k) % n).find(|&i| up(i)) else {
            return 0;
        };
        self.next = (i + 1) % n;
        self.connections.insert(client.to_string(), i);
        i
    }

    /// Instance `i` stopped: its connections are broken (each client connects anew with its
    /// next request).
    pub fn disconnect(&mut self, i: usize) {
        self.connections.retain(|_, at| *at != i);
    }

    /// `client`'s process exited: its connection closes.
    pub fn close(&mut self, client: &str) {
        self.connections.remove(client);
    }

    /// The clients connected to instance `i`, in name order.
    pub fn clients_of(&self, i: usize) -> impl Iterator<Item = &str> {
        self.connections
            .iter()
            .filter(move |(_, &at)| at == i)
            .map(|(c, _)| c.as_str())
    }
}

/// `kube-apiserver-<index>`, as a static pod's name is the component's and its host's.
pub fn instance_name(index: usize) -> String {
    format!("kube-apiserver-{index}")
}

/// The most instances a cluster runs (a control plane of three nodes, or five at most).
pub const MAX_INSTANCES: usize = 5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_keep_their_instance_until_it_stops_and_new_ones_are_spread() {
        let mut instances: Vec<Instance> = (0..3).map(Instance::new).collect();
        let mut lb = LoadBalancer::default();
        let first: Vec<usize> = ["a", "b", "c", "d"]
            .iter()
            .map(|c| lb.connect(c, &instances))
            .collect();
        assert_eq!(first, [0, 1, 2, 0]);
        assert_eq!(lb.connect("b", &instances), 1, "kept");
        instances[1].health = Health::Stopped;
        let moved = lb.connect("b", &instances);
        assert_ne!(moved, 1);
        assert_eq!(lb.connect("b", &instances), moved, "kept again");
        // A cut instance still takes connections: only a stopped one refuses them.
        instances[2].health = Health::Cut;
        assert_eq!(lb.connect("c", &instances), 2);
        assert!(lb.clients_of(0).any(|c| c == "a"));
    }
}
