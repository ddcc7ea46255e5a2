//! The Service registry's allocators: a ClusterIP from `--service-cluster-ip-range` (kubeadm's
//! default 10.96.0.0/12; the first address, 10.96.0.1, is the `kubernetes` Service's) and node
//! ports from `--service-node-port-range` (default 30000-32767). A dynamic allocation draws at
//! random from the upper part of the range and leaves the first addresses/ports for explicit
//! requests (the allocators' `calculateRangeOffset`: 256 addresses, 86 ports here); an explicit
//! one must be in range and free, or the 422 says why with the real texts. What is allocated is
//! read from the stored Services themselves (the real allocators keep a bitmap beside them),
//! so a deleted Service frees its address and ports at once. An update keeps what was
//! allocated when the client leaves it out (`patchAllocatedValues`).

use super::ApiServer;
use crate::api::service::{Service, ServiceSpec, CLUSTER_IP_NONE, TYPE_EXTERNAL_NAME};
use crate::api::{Kind, Object};
use std::collections::BTreeSet;
use std::net::Ipv4Addr;
use watchlab_apimachinery::status::Status;
use watchlab_apimachinery::validation::{BadValue, FieldError};

/// `--service-cluster-ip-range` (kubeadm's `serviceSubnet` default).
pub const SERVICE_CIDR: &str = "10.96.0.0/12";
const CIDR_BASE: u32 = u32::from_be_bytes([10, 96, 0, 0]);
const CIDR_BITS: u32 = 12;
/// The `kubernetes` Service's address: the first of the range ([`super::kubernetes_service`]).
pub const KUBERNETES_SERVICE_IP: &str = "10.96.0.1";
/// `--service-node-port-range` default.
pub const NODE_PORT_MIN: i32 = 30000;
pub const NODE_PORT_MAX: i32 = 32767;
/// The allocators' `calculateRangeOffset`: min(max(16, size/16), 256) for addresses,
/// min(max(16, size/32), 128) for ports.
const IP_OFFSET: u32 = 256;
const PORT_OFFSET: i32 = 86;
/// Random draws before a dynamic allocation falls back to a scan.
const DRAWS: usize = 64;

/// Usable addresses: the range without its network and broadcast addresses, as offsets 1..=size.
fn ip_range_size() -> u32 {
    (1u32 << (32 - CIDR_BITS)) - 2
}

fn ip_at(offset: u32) -> String {
    Ipv4Addr::from(CIDR_BASE + offset).to_string()
}

/// The offset of `ip` in the range, if it is a usable address of it.
fn offset_of(ip: &str) -> Option<u32> {
    let ip: Ipv4Addr = ip.parse().ok()?;
    let offset = u32::from(ip).checked_sub(CIDR_BASE)?;
    (1..=ip_range_size()).contains(&offset).then_some(offset)
}

/// `patchAllocatedValues`: an update that leaves out the clusterIP or a node port keeps the
/// allocated one.
pub fn keep_allocated(new: &mut ServiceSpec, old: &ServiceSpec) {
    let had_ip = !old.cluster_ip.is_empty() && old.type_ != TYPE_EXTERNAL_NAME;
    if had_ip && new.type_ != TYPE_EXTERNAL_NAME && new.cluster_ip.is_empty() {
        new.cluster_ip.clone_from(&old.cluster_ip);
        if new.cluster_ips.is_empty() {
            new.cluster_ips.clone_from(&old.cluster_ips);
        }
    }
    if old.needs_node_ports() && new.needs_node_ports() {
        for p in new.ports.iter_mut().filter(|p| p.node_port == 0) {
            if let Some(o) = old
                .ports
                .iter()
                .find(|o| o.port == p.port && o.protocol == p.protocol)
            {
                p.node_port = o.node_port;
            }
        }
    }
}

fn invalid(name: &str, err: FieldError) -> Status {
    Status::invalid("Service", "", name, &[err])
}

impl ApiServer {
    /// The addresses and node ports every stored Service but `except_key` holds.
    fn allocated(&self, except_key: &str) -> (BTreeSet<u32>, BTreeSet<i32>) {
        let mut ips = BTreeSet::new();
        let mut ports = BTreeSet::new();
        let prefix = Kind::Service.resource().prefix(None);
        let Ok(range) = self.store.range_prefix(&prefix, None, None, None) else {
            return (ips, ports);
        };
        for kv in range.kvs.iter().filter(|kv| &*kv.key != except_key) {
            if let Object::Service(s) = &*kv.value {
                ips.extend(offset_of(&s.spec.cluster_ip));
                ports.extend(s.spec.ports.iter().map(|p| p.node_port).filter(|p| *p != 0));
            }
        }
        (ips, ports)
    }

    /// Allocates what `svc` (to be stored at `key`, replacing `old` if given) needs: its
    /// clusterIP and its node ports; refuses taken or out-of-range explicit ones.
    pub(super) fn allocate_service(
        &mut self,
        key: &str,
        svc: &mut Service,
        old: Option<&Service>,
    ) -> Result<(), Status> {
        let (mut ips, mut ports) = self.allocated(key);
        let name = svc.metadata.name.clone();
        let spec = &mut svc.spec;
        let keeps_ip = old.is_some_and(|o| o.spec.cluster_ip == spec.cluster_ip);
        if spec.type_ != TYPE_EXTERNAL_NAME && spec.cluster_ip != CLUSTER_IP_NONE && !keeps_ip {
            let offset = if spec.cluster_ip.is_empty() {
                self.draw_ip(&ips).ok_or_else(|| {
                    Status::internal_error("failed to allocate a serviceIP: range is full")
                })?
            } else {
                let ip = spec.cluster_ip.clone();
                let fail = |why: String| {
                    FieldError::invalid(
                        "spec.clusterIPs",
                        BadValue::string_slice(&spec.cluster_ips),
                        &format!("failed to allocate IP {ip}: {why}"),
                    )
                };
                match offset_of(&ip) {
                    None => {
                        let err = fail(format!("the provided IP ({ip}) is not in the valid range. The range of valid IPs is {SERVICE_CIDR}"));
                        return Err(invalid(&name, err));
                    }
                    Some(o) if ips.contains(&o) => {
                        let err = fail("provided IP is already allocated".into());
                        return Err(invalid(&name, err));
                    }
                    Some(o) => o,
                }
            };
            ips.insert(offset);
            spec.cluster_ip = ip_at(offset);
            spec.cluster_ips = vec![spec.cluster_ip.clone()];
        }
        if !spec.needs_node_ports() {
            return Ok(());
        }
        let old_ports: BTreeSet<i32> = old
            .map(|o| o.spec.ports.iter().map(|p| p.node_port).collect())
            .unwrap_or_default();
        for i in 0..spec.ports.len() {
            let Some(port) = spec.ports.get(i).map(|p| p.node_port) else {
                continue;
            };
            let chosen = if port == 0 {
                self.draw_port(&ports).ok_or_else(|| {
                    Status::internal_error("failed to allocate a nodePort: range is full")
                })?
            } else if old_ports.contains(&port) && !ports.contains(&port) {
                port
            } else {
                let why = if !(NODE_PORT_MIN..=NODE_PORT_MAX).contains(&port) {
                    format!("provided port is not in the valid range. The range of valid ports is {NODE_PORT_MIN}-{NODE_PORT_MAX}")
                } else if ports.contains(&port) {
                    "provided port is already allocated".into()
                } else {
                    String::new()
                };
                if !why.is_empty() {
                    let err = FieldError::invalid(
                        &format!("spec.ports[{i}].nodePort"),
                        i64::from(port),
                        &why,
                    );
                    return Err(invalid(&name, err));
                }
                port
            };
            ports.insert(chosen);
            if let Some(p) = spec.ports.get_mut(i) {
                p.node_port = chosen;
            }
        }
        Ok(())
    }

    /// A free address offset: random draws in the upper band, then a scan of the whole range.
    fn draw_ip(&mut self, used: &BTreeSet<u32>) -> Option<u32> {
        let size = ip_range_size();
        for _ in 0..DRAWS {
            let o = IP_OFFSET + self.rng.below(u64::from(size - IP_OFFSET + 1)) as u32;
            if !used.contains(&o) {
                return Some(o);
            }
        }
        (1..=size).find(|o| !used.contains(o))
    }

    /// A free node port: random draws in the upper band, then a scan of the whole range.
    fn draw_port(&mut self, used: &BTreeSet<i32>) -> Option<i32> {
        let lo = NODE_PORT_MIN + PORT_OFFSET;
        for _ in 0..DRAWS {
            let p = lo + self.rng.below((NODE_PORT_MAX - lo + 1) as u64) as i32;
            if !used.contains(&p) {
                return Some(p);
            }
        }
        (NODE_PORT_MIN..=NODE_PORT_MAX).find(|p| !used.contains(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_range_excludes_network_and_broadcast() {
        assert_eq!(offset_of("10.96.0.0"), None);
        assert_eq!(offset_of(KUBERNETES_SERVICE_IP), Some(1));
        assert_eq!(offset_of("10.111.255.254"), Some(ip_range_size()));
        assert_eq!(offset_of("10.111.255.255"), None);
        assert_eq!(offset_of("10.112.0.1"), None);
        assert_eq!(ip_at(1), KUBERNETES_SERVICE_IP);
    }
}

#[cfg(test)]
mod api_tests {
    use super::*;
    use crate::api::apps::IntOrString;
    use crate::api::config::Secret;

    fn svc(name: &str, body: serde_json::Value) -> Object {
        let mut v = body;
        v["metadata"] = serde_json::json!({"name": name, "namespace": "default"});
        Object::from_value(Kind::Service, v).unwrap_or_else(|e| panic!("{}", e.message()))
    }

    fn spec(obj: &Object) -> ServiceSpec {
        obj.as_service().map(|s| s.spec.clone()).unwrap_or_default()
    }

    #[test]
    fn allocates_a_cluster_ip_and_node_ports_and_refuses_taken_ones() {
        let mut api = ApiServer::new(7);
        let kubernetes = api.get(Kind::Service, Some("default"), "kubernetes");
        assert_eq!(
            kubernetes.map(|k| spec(&k).cluster_ip).ok().as_deref(),
            Some(KUBERNETES_SERVICE_IP)
        );
        let web = api
            .create("t", svc("web", serde_json::json!({"spec": {"type": "NodePort", "selector": {"app": "web"}, "ports": [{"port": 80}]}})))
            .map(|o| spec(&o))
            .unwrap_or_default();
        let offset = offset_of(&web.cluster_ip).unwrap_or(0);
        assert!(offset >= IP_OFFSET, "{}", web.cluster_ip);
        assert_eq!(web.cluster_ips, std::slice::from_ref(&web.cluster_ip));
        let port = web.ports.first().cloned().unwrap_or_default();
        assert!((NODE_PORT_MIN + PORT_OFFSET..=NODE_PORT_MAX).contains(&port.node_port));
        assert_eq!(port.target_port, Some(IntOrString::Int(80)));
        assert_eq!(port.protocol, "TCP");

        let taken = api
            .create("t", svc("other", serde_json::json!({"spec": {"clusterIP": web.cluster_ip, "ports": [{"port": 80}]}})))
            .err()
            .map(|s| s.message().to_string());
        assert_eq!(
            taken.as_deref(),
            Some(format!("Service \"other\" is invalid: spec.clusterIPs: Invalid value: []string{{\"{0}\"}}: failed to allocate IP {0}: provided IP is already allocated", web.cluster_ip).as_str())
        );
        let port_taken = api
            .create("t", svc("other", serde_json::json!({"spec": {"type": "NodePort", "ports": [{"port": 80, "nodePort": port.node_port}]}})))
            .err()
            .map(|s| s.message().to_string());
        assert_eq!(
            port_taken.as_deref(),
            Some(format!("Service \"other\" is invalid: spec.ports[0].nodePort: Invalid value: {}: provided port is already allocated", port.node_port).as_str())
        );
        let out_of_range = api
            .create(
                "t",
                svc(
                    "other",
                    serde_json::json!({"spec": {"clusterIP": "10.0.0.1", "ports": [{"port": 80}]}}),
                ),
            )
            .err()
            .map(|s| s.message().to_string());
        assert!(out_of_range.is_some_and(|m| m.ends_with("failed to allocate IP 10.0.0.1: the provided IP (10.0.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12")));

        // An update that leaves the clusterIP and nodePort out keeps them; changing it is refused.
        let mut again = svc(
            "web",
            serde_json::json!({"spec": {"type": "NodePort", "ports": [{"port": 80}]}}),
        );
        let kept = api
            .update("t", again.clone())
            .map(|o| spec(&o))
            .unwrap_or_default();
        assert_eq!(
            (
                kept.cluster_ip.as_str(),
                kept.ports.first().map(|p| p.node_port)
            ),
            (web.cluster_ip.as_str(), Some(port.node_port))
        );
        if let Object::Service(s) = &mut again {
            s.spec.cluster_ip = "10.96.0.50".into();
        }
        let changed = api
            .update("t", again)
            .err()
            .map(|s| s.message().to_string());
        assert_eq!(
            changed.as_deref(),
            Some("Service \"web\" is invalid: spec.clusterIPs[0]: Invalid value: []string{\"10.96.0.50\"}: may not change once set")
        );

        // Deleting frees the address for an explicit request.
        let opts = crate::apiserver::DeleteOptions::default();
        assert!(api
            .delete("t", Kind::Service, Some("default"), "web", &opts)
            .is_ok());
        let reuse = api.create(
            "t",
            svc(
                "again",
                serde_json::json!({"spec": {"clusterIP": web.cluster_ip, "ports": [{"port": 80}]}}),
            ),
        );
        assert!(reuse.is_ok());
        let headless = api.create(
            "t",
            svc("db", serde_json::json!({"spec": {"clusterIP": "None"}})),
        );
        assert_eq!(
            headless.map(|o| spec(&o).cluster_ip).ok().as_deref(),
            Some("None")
        );
    }

    #[test]
    fn port_rules_answer_with_the_real_texts() {
        let mut api = ApiServer::new(1);
        let refused = |api: &mut ApiServer, spec: serde_json::Value| {
            api.create("t", svc("bad", serde_json::json!({"spec": spec})))
                .err()
                .map(|s| s.message().to_string())
                .unwrap_or_default()
        };
        assert_eq!(
            refused(&mut api, serde_json::json!({"ports": [{"port": 70000}]})),
            // targetPort defaults to the port, so it is out of range too (as on a real server).
            "Service \"bad\" is invalid: [spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive]"
        );
        assert_eq!(
            refused(
                &mut api,
                serde_json::json!({"ports": [{"port": 80, "name": "a"}, {"port": 81, "name": "a"}]})
            ),
            "Service \"bad\" is invalid: spec.ports[1].name: Duplicate value: \"a\""
        );
        assert_eq!(
            refused(
                &mut api,
                serde_json::json!({"ports": [{"port": 80}, {"port": 81, "name": "b"}]})
            ),
            "Service \"bad\" is invalid: spec.ports[0].name: Required value"
        );
        assert_eq!(
            refused(&mut api, serde_json::json!({"ports": [{"port": 80, "protocol": "HTTP"}]})),
            "Service \"bad\" is invalid: spec.ports[0].protocol: Unsupported value: \"HTTP\": supported values: \"SCTP\", \"TCP\", \"UDP\""
        );
        assert_eq!(
            refused(&mut api, serde_json::json!({"ports": [{"port": 80, "targetPort": "8080"}]})),
            "Service \"bad\" is invalid: spec.ports[0].targetPort: Invalid value: \"8080\": must contain at least one letter (a-z)"
        );
        assert_eq!(
            refused(&mut api, serde_json::json!({"ports": [{"port": 80, "nodePort": 30001}]})),
            "Service \"bad\" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"
        );
        assert_eq!(
            refused(&mut api, serde_json::json!({"type": "Magic", "ports": [{"port": 80}]})),
            "Service \"bad\" is invalid: spec.type: Unsupported value: \"Magic\": supported values: \"ClusterIP\", \"ExternalName\", \"LoadBalancer\", \"NodePort\""
        );
        // Nothing was written.
        assert!(api.get(Kind::Service, Some("default"), "bad").is_err());
    }

    #[test]
    fn secret_string_data_is_merged_into_data_and_never_stored() {
        let mut api = ApiServer::new(1);
        let body = serde_json::json!({"metadata": {"name": "s", "namespace": "default"}, "data": {"a": "eA=="}, "stringData": {"user": "admin", "a": "y"}});
        let created = Object::from_value(Kind::Secret, body)
            .ok()
            .and_then(|o| api.create("t", o).ok());
        let Some(Object::Secret(s)) = created.as_deref() else {
            panic!("not created: {created:?}");
        };
        let expected: Secret = serde_json::from_value(serde_json::json!({"metadata": {}, "data": {"a": "eQ==", "user": "YWRtaW4="}, "type": "Opaque"})).unwrap_or_default();
        assert_eq!(
            (&s.data, &s.type_, s.string_data.is_empty()),
            (&expected.data, &expected.type_, true)
        );
        let bad = Object::from_value(
            Kind::Secret,
            serde_json::json!({"data": {"a": "not base64!"}}),
        );
        assert!(bad
            .err()
            .is_some_and(|e| e.message().contains("illegal base64 data at input byte 3")));
    }
}
