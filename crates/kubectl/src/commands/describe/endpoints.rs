//! The `Endpoints:` line of `kubectl describe service`, one per port: kubectl's
//! `formatEndpointSlices` over the Service's EndpointSlices (read by their
//! `kubernetes.io/service-name` label), which lists ready endpoints as `ip:port` and cuts the list
//! after three.

use serde_json::Value;
use watchlab_apimachinery::gofmt::join_host_port;
use watchlab_apimachinery::unstructured::{array, int, string};

/// Entries shown before `+ N more...`.
const MAX_LISTED: usize = 3;

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
