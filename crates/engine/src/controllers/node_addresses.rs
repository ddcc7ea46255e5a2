//! The addresses a node and its pods get: the node's InternalIP, the pod CIDR handed to it, and
//! the pod IPs its container runtime assigns from that CIDR. They exist so that a cluster of
//! 5,000 nodes shows valid IPv4 addresses everywhere (node status, pod status, EndpointSlices,
//! kube-proxy rules), and a node that has started thousands of pods reuses freed addresses the
//! way the CNI's host-local IPAM does, instead of counting past `.255`.
//!
//! - Nodes sit in 10.0.0.0/16 from 10.0.0.2 on (10.0.0.1 is the API server's advertise address,
//!   `kubernetes_service::ADVERTISE_ADDRESS`).
//! - The cluster CIDR is 10.224.0.0/11, cut into /24s (kube-controller-manager
//!   `--node-cidr-mask-size`, default 24 for IPv4): room for 8,192 nodes. flannel's usual
//!   10.244.0.0/16 holds only 256 such nodes, so the range allocator here starts at 10.244.0.0 and
//!   wraps round to 10.224.0.0: a small cluster shows the familiar 10.244.N.0/24.
//! - Pod IPs run from `.2` to `.254` of the node's /24 (`.1` is the bridge's gateway, host-local
//!   IPAM's default), round-robin from the last one handed out, skipping addresses in use.

use std::net::Ipv4Addr;

/// /24 blocks in the cluster CIDR 10.224.0.0/11.
const NODE_CIDRS: u32 = 1 << 13;
/// The index of 10.244.0.0/24 within 10.224.0.0/11, where the allocator starts.
const FIRST_NODE_CIDR: u32 = 20 * 256;

/// The InternalIP of the `ordinal`-th node.
pub fn internal_ip(ordinal: u32) -> Ipv4Addr {
    // 10.0.0.0/16 has 65,534 hosts; beyond that (never: the cluster holds at most 5,000 nodes)
    // addresses repeat rather than become invalid.
    let host = (ordinal % 65_533) + 2;
    Ipv4Addr::new(10, 0, (host >> 8) as u8, (host & 0xff) as u8)
}

/// The first address of the `ordinal`-th node's pod CIDR (a /24).
fn pod_network(ordinal: u32) -> Ipv4Addr {
    let block = (FIRST_NODE_CIDR + ordinal) % NODE_CIDRS;
    Ipv4Addr::new(10, 224 + (block >> 8) as u8, (block & 0xff) as u8, 0)
}

/// `spec.podCIDR` of the `ordinal`-th node.
pub fn pod_cidr(ordinal: u32) -> String {
    format!("{}/24", pod_network(ordinal))
}

/// A node's pod IP allocator: host-local IPAM's round-robin over `.2`–`.254`.
#[derive(Debug, Clone)]
pub struct PodIps {
    network: Ipv4Addr,
    /// The host part handed out last.
    last: u8,
}

impl PodIps {
    pub fn new(ordinal: u32) -> Self {
        PodIps {
            network: pod_network(ordinal),
            last: 1,
        }
    }

    /// The range handed out, as the CNI plugin names it (`10.244.1.1-10.244.1.254`).
    pub fn range(&self) -> String {
        let [a, b, c, _] = self.network.octets();
        format!("{a}.{b}.{c}.1-{a}.{b}.{c}.254")
    }

    /// The next free address after the last one handed out, or `None` when all 253 are in use
    /// (the real plugin's "no IP addresses available in range set").
    pub fn allocate(&mut self, in_use: impl Fn(&str) -> bool) -> Option<String> {
        let [a, b, c, _] = self.network.octets();
        for step in 1..=253u16 {
            let host = ((u16::from(self.last) + 251 + step) % 253 + 2) as u8;
            let ip = Ipv4Addr::new(a, b, c, host).to_string();
            if !in_use(&ip) {
                self.last = host;
                return Some(ip);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn the_first_nodes_keep_the_familiar_addresses() {
        assert_eq!(internal_ip(0).to_string(), "10.0.0.2");
        assert_eq!(internal_ip(253).to_string(), "10.0.0.255");
        assert_eq!(internal_ip(254).to_string(), "10.0.1.0");
        assert_eq!(pod_cidr(0), "10.244.0.0/24");
        assert_eq!(pod_cidr(255), "10.244.255.0/24");
        assert_eq!(pod_cidr(256), "10.245.0.0/24");
        assert_eq!(pod_cidr(3071), "10.255.255.0/24");
        assert_eq!(pod_cidr(3072), "10.224.0.0/24");
    }

    #[test]
    fn five_thousand_nodes_get_distinct_valid_addresses() {
        let ips: BTreeSet<Ipv4Addr> = (0..5_000).map(internal_ip).collect();
        let cidrs: BTreeSet<String> = (0..5_000).map(pod_cidr).collect();
        assert_eq!((ips.len(), cidrs.len()), (5_000, 5_000));
        assert!(
            !ips.contains(&Ipv4Addr::new(10, 0, 0, 1)),
            "the API server's address"
        );
        // Every CIDR lies in 10.224.0.0/11.
        assert!(cidrs.iter().all(|c| {
            let ip: Ipv4Addr = c.trim_end_matches("/24").parse().unwrap();
            ip.octets()[0] == 10 && (224..=255).contains(&ip.octets()[1]) && ip.octets()[3] == 0
        }));
    }

    #[test]
    fn pod_ips_go_round_and_skip_the_ones_in_use() {
        let mut ips = PodIps::new(300);
        let first = ips.allocate(|_| false);
        assert_eq!(first.as_deref(), Some("10.245.44.2"));
        let mut in_use: BTreeSet<String> = first.into_iter().collect();
        for _ in 0..252 {
            let ip = ips.allocate(|ip| in_use.contains(ip)).unwrap();
            assert!(in_use.insert(ip));
        }
        assert!(in_use.contains("10.245.44.254") && !in_use.contains("10.245.44.1"));
        assert_eq!(
            ips.allocate(|ip| in_use.contains(ip)),
            None,
            "all 253 in use"
        );
        // Freeing one address makes it the next handed out, after wrapping round.
        in_use.remove("10.245.44.7");
        assert_eq!(
            ips.allocate(|ip| in_use.contains(ip)).as_deref(),
            Some("10.245.44.7")
        );
        in_use.clear();
        assert_eq!(
            ips.allocate(|ip| in_use.contains(ip)).as_deref(),
            Some("10.245.44.8")
        );
    }
}
