//! The rows of the service-related kinds, as the server's table printers compute them
//! (`printService`, `printEndpoints`, `printEndpointSlice`, `printConfigMap`, `printSecret` in
//! `pkg/printers/internalversion`): PORT(S) as `80/TCP` or `80:30080/TCP`, EXTERNAL-IP by
//! type, endpoint lists cut after three with `+ N more...`. [`crate::printers::table`] picks
//! these by resource.

use serde_json::Value;
use watchlab_apimachinery::duration::since;
use watchlab_apimachinery::unstructured::{
    array, int, joined_map, name, str_at, string, string_map,
};

/// Entries shown before `+ N more...`.
const MAX_LISTED: usize = 3;

fn age(v: &Value, now: i64) -> String {
    since(str_at(v, &["metadata", "creationTimestamp"]), now)
}

fn or_none(s: String) -> String {
    if s.is_empty() {
        "<none>".into()
    } else {
        s
    }
}

/// `printService`: NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE [SELECTOR].
pub fn service_row(svc: &Value, now: i64) -> Vec<String> {
    let type_ = string(svc, &["spec", "type"]);
    let cluster_ip = array(svc, &["spec", "clusterIPs"])
        .first()
        .and_then(Value::as_str)
        .map(String::from)
        .unwrap_or_else(|| string(svc, &["spec", "clusterIP"]));
    vec![
        name(svc),
        type_.clone(),
        or_none(cluster_ip),
        external_ip(svc, &type_),
        ports(svc),
        age(svc, now),
        joined_map(&string_map(svc, &["spec", "selector"])),
    ]
}

/// `getServiceExternalIP`.
fn external_ip(svc: &Value, type_: &str) -> String {
    let external: Vec<String> = array(svc, &["spec", "externalIPs"])
        .iter()
        .filter_map(|v| v.as_str().map(String::from))
        .collect();
    match type_ {
        "ClusterIP" | "NodePort" => or_none(external.join(",")),
        "LoadBalancer" => {
            let mut ips: Vec<String> = array(svc, &["status", "loadBalancer", "ingress"])
                .iter()
                .filter_map(|i| {
                    str_at(i, &["ip"])
                        .filter(|s| !s.is_empty())
                        .or_else(|| str_at(i, &["hostname"]))
                        .map(String::from)
                })
                .collect();
            ips.extend(external);
            if ips.is_empty() {
                "<pending>".into()
            } else {
                ips.join(",")
            }
        }
        "ExternalName" => string(svc, &["spec", "externalName"]),
        _ => "<unknown>".into(),
    }
}

/// `makePortString`.
fn ports(svc: &Value) -> String {
    let parts: Vec<String> = array(svc, &["spec", "ports"])
        .iter()
        .map(|p| {
            let (port, proto) = (int(p, &["port"]), string(p, &["protocol"]));
            match int(p, &["nodePort"]) {
                0 => format!("{port}/{proto}"),
                node_port => format!("{port}:{node_port}/{proto}"),
            }
        })
        .collect();
    or_none(parts.join(","))
}

/// `first, second, third + N more...` (`listWithMoreString`).
fn listed(items: &[String], total: usize) -> String {
    let shown: Vec<&str> = items.iter().take(MAX_LISTED).map(String::as_str).collect();
    let ret = shown.join(",");
    if total > MAX_LISTED {
        format!("{ret} + {} more...", total - MAX_LISTED)
    } else {
        ret
    }
}

/// `printEndpoints`: NAME ENDPOINTS AGE, each ready address with each port (`formatEndpoints`).
pub fn endpoints_row(ep: &Value, now: i64) -> Vec<String> {
    let subsets = array(ep, &["subsets"]);
    let cell = if subsets.is_empty() {
        "<none>".to_string()
    } else {
        let mut list = Vec::new();
        for ss in subsets {
            let ips: Vec<String> = array(ss, &["addresses"])
                .iter()
                .map(|a| string(a, &["ip"]))
                .collect();
            let ports = array(ss, &["ports"]);
            if ports.is_empty() {
                list.extend(ips);
            } else {
                for p in ports {
                    let port = int(p, &["port"]);
                    list.extend(ips.iter().map(|ip| join_host_port(ip, port)));
                }
            }
        }
        listed(&list, list.len())
    };
    vec![name(ep), cell, age(ep, now)]
}

/// Go's `net.JoinHostPort` (brackets around IPv6).
fn join_host_port(ip: &str, port: i64) -> String {
    if ip.contains(':') {
        format!("[{ip}]:{port}")
    } else {
        format!("{ip}:{port}")
    }
}

/// `printEndpointSlice`: NAME ADDRESSTYPE PORTS ENDPOINTS AGE.
pub fn endpoint_slice_row(slice: &Value, now: i64) -> Vec<String> {
    let ports: Vec<String> = array(slice, &["ports"])
        .iter()
        .map(
            |p| match (p.get("port").and_then(Value::as_i64), str_at(p, &["name"])) {
                (Some(n), _) => n.to_string(),
                (None, Some(n)) => n.to_string(),
                (None, None) => "*".into(),
            },
        )
        .collect();
    let addresses: Vec<String> = array(slice, &["endpoints"])
        .iter()
        .flat_map(|e| array(e, &["addresses"]))
        .filter_map(|a| a.as_str().map(String::from))
        .collect();
    let unset = |s: String| if s.is_empty() { "<unset>".into() } else { s };
    vec![
        name(slice),
        string(slice, &["addressType"]),
        unset(listed(&ports, ports.len())),
        unset(listed(&addresses, addresses.len())),
        age(slice, now),
    ]
}

/// `formatEndpointSlices` as `kubectl describe service` prints a port's `Endpoints:` line: the
/// ready (or unknown) endpoints of the slices that carry a port of that name, `ip:port`, cut
/// after three with `+ N more...`; `<none>` without slices. Like kubectl, the cut is noticed at
/// the next endpoint looked at, ready or not.
pub fn described_endpoints(slices: &[Value], port_name: &str) -> String {
    if slices.is_empty() {
        return "<none>".into();
    }
    let mut list: Vec<String> = Vec::new();
    let (mut more, mut count) = (false, 0usize);
    let mut visit = |e: &Value, port: Option<i64>| {
        if list.len() == MAX_LISTED {
            more = true;
        }
        if e.pointer("/conditions/ready").and_then(Value::as_bool) == Some(false) {
            return;
        }
        let Some(addr) = array(e, &["addresses"]).first().and_then(Value::as_str) else {
            return;
        };
        if !more {
            list.push(match port {
                Some(p) => join_host_port(addr, p),
                None => addr.to_string(),
            });
        }
        count += 1;
    };
    for slice in slices {
        let ports = array(slice, &["ports"]);
        if ports.is_empty() {
            for e in array(slice, &["endpoints"]) {
                visit(e, None);
            }
            continue;
        }
        for p in ports.iter().filter(|p| string(p, &["name"]) == port_name) {
            for e in array(slice, &["endpoints"]) {
                visit(e, Some(int(p, &["port"])));
            }
        }
    }
    let ret = list.join(",");
    if more {
        format!("{ret} + {} more...", count.saturating_sub(MAX_LISTED))
    } else {
        ret
    }
}

fn map_len(v: &Value, key: &str) -> usize {
    v.get(key).and_then(Value::as_object).map_or(0, |m| m.len())
}

/// `printConfigMap`: NAME DATA AGE (`data` and `binaryData` entries).
pub fn config_map_row(cm: &Value, now: i64) -> Vec<String> {
    let data = map_len(cm, "data") + map_len(cm, "binaryData");
    vec![name(cm), data.to_string(), age(cm, now)]
}

/// `printSecret`: NAME TYPE DATA AGE.
pub fn secret_row(s: &Value, now: i64) -> Vec<String> {
    vec![
        name(s),
        string(s, &["type"]),
        map_len(s, "data").to_string(),
        age(s, now),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn services_print_as_kubectl_does() {
        let svc = json!({"metadata": {"name": "web"}, "spec": {"type": "NodePort", "clusterIP": "10.96.4.2", "clusterIPs": ["10.96.4.2"], "selector": {"app": "web", "tier": "fe"}, "ports": [{"port": 80, "protocol": "TCP", "nodePort": 30080}, {"port": 53, "protocol": "UDP"}]}});
        assert_eq!(
            service_row(&svc, 0)[1..5],
            ["NodePort", "10.96.4.2", "<none>", "80:30080/TCP,53/UDP"]
        );
        assert_eq!(service_row(&svc, 0)[6], "app=web,tier=fe");
        let lb = json!({"spec": {"type": "LoadBalancer", "clusterIP": "None"}});
        assert_eq!(service_row(&lb, 0)[2..5], ["None", "<pending>", "<none>"]);
    }

    #[test]
    fn endpoint_lists_stop_after_three() {
        let ep = json!({"metadata": {"name": "web"}, "subsets": [{"addresses": [{"ip": "10.244.0.1"}, {"ip": "10.244.0.2"}, {"ip": "10.244.1.1"}, {"ip": "10.244.1.2"}], "notReadyAddresses": [{"ip": "10.244.2.1"}], "ports": [{"port": 8080}]}]});
        assert_eq!(
            endpoints_row(&ep, 0)[1],
            "10.244.0.1:8080,10.244.0.2:8080,10.244.1.1:8080 + 1 more..."
        );
        assert_eq!(endpoints_row(&json!({}), 0)[1], "<none>");
        let slice = json!({"metadata": {"name": "web-abcde"}, "addressType": "IPv4", "ports": [{"port": 8080}], "endpoints": [{"addresses": ["10.244.0.1"]}, {"addresses": ["10.244.0.2"]}]});
        assert_eq!(
            endpoint_slice_row(&slice, 0)[1..4],
            ["IPv4", "8080", "10.244.0.1,10.244.0.2"]
        );
        let empty = json!({"addressType": "IPv4", "ports": [], "endpoints": []});
        assert_eq!(endpoint_slice_row(&empty, 0)[2..4], ["<unset>", "<unset>"]);
    }

    #[test]
    fn data_counts() {
        let s = json!({"type": "Opaque", "data": {"a": "eA==", "b": "eQ=="}});
        assert_eq!(secret_row(&s, 0)[1..3], ["Opaque", "2"]);
        let cm = json!({"data": {"a": "1"}, "binaryData": {"b": "eQ=="}});
        assert_eq!(config_map_row(&cm, 0)[1], "2");
    }

    #[test]
    fn describe_lists_a_ports_ready_endpoints_from_its_slices() {
        let ep = |ip: &str, ready: bool| json!({"addresses": [ip], "conditions": {"ready": ready}});
        let slice = json!({"ports": [{"name": "http", "port": 8080}, {"name": "metrics", "port": 9090}],
            "endpoints": [ep("10.244.0.1", true), ep("10.244.0.2", false), ep("10.244.1.1", true)]});
        assert_eq!(
            described_endpoints(std::slice::from_ref(&slice), "http"),
            "10.244.0.1:8080,10.244.1.1:8080"
        );
        assert_eq!(
            described_endpoints(std::slice::from_ref(&slice), "metrics"),
            "10.244.0.1:9090,10.244.1.1:9090"
        );
        assert_eq!(described_endpoints(std::slice::from_ref(&slice), "dns"), "");
        assert_eq!(described_endpoints(&[], "http"), "<none>");
        // Not ready everywhere: a slice but nothing to list.
        let empty = json!({"ports": [], "endpoints": []});
        assert_eq!(described_endpoints(&[empty], ""), "");
        // Cut after three; kubectl notices the cut at the next endpoint, ready or not.
        let many = json!({"ports": [{"name": "", "port": 80}], "endpoints": [
            ep("10.0.0.1", true), ep("10.0.0.2", true), ep("10.0.0.3", true),
            ep("10.0.0.4", false), ep("10.0.0.5", true), ep("10.0.0.6", true)]});
        assert_eq!(
            described_endpoints(&[many], ""),
            "10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 2 more..."
        );
    }
}
