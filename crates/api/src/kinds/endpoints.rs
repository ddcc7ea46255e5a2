//! `endpoints` (core/v1, short name `ep`): the old single list of a Service's backends, which
//! the Endpoints controller still mirrors for old clients. Validation follows
//! `ValidateEndpoints` (addresses are IPs, ports in range with a known protocol).

use super::service::validate_port_and_protocol;
use crate::endpoints::Endpoints;
use crate::printer::{self, column, join_host_port, listed, text, Column, AGE, NAME};
use crate::resource::{meta_fields, ResourceInfo, Rules};
use crate::Object;
use serde_json::Value;
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::{array, int, string};
use watchlab_apimachinery::validation::{FieldError, INVALID_IP};

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 9,
    kind_name: "Endpoints",
    list_kind: "EndpointsList",
    go_type: "v1.Endpoints",
    plural: "endpoints",
    singular: "endpoints",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: true,
    short_names: &["ep"],
    categories: &[],
    subresources: &[],
    // The real key: /registry/services/endpoints/<namespace>/<name>.
    registry: "services/endpoints",
    field_labels: meta_fields(),
    dns_label_names: false,
    has_generation: false,
    create_on_update: true,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[],
    schema_root: "V1Endpoints",
    atomic_maps: &[],
    event_ttl: false,
    trigger_field: None,
    rules: &EndpointsRules,
};

struct EndpointsRules;

fn endpoints(obj: &Object) -> Option<&Endpoints> {
    match obj {
        Object::Endpoints(e) => Some(e),
        _ => None,
    }
}

fn validate_endpoints(e: &Endpoints) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, subset) in e.subsets.iter().enumerate() {
        for (list, addresses) in [
            ("addresses", &subset.addresses),
            ("notReadyAddresses", &subset.not_ready_addresses),
        ] {
            for (j, a) in addresses.iter().enumerate() {
                if a.ip.parse::<std::net::IpAddr>().is_err() {
                    errs.push(FieldError::invalid(
                        &format!("subsets[{i}].{list}[{j}].ip"),
                        &a.ip,
                        INVALID_IP,
                    ));
                }
            }
        }
        for (j, p) in subset.ports.iter().enumerate() {
            let path = format!("subsets[{i}].ports[{j}]");
            errs.extend(validate_port_and_protocol(&path, p.port, &p.protocol));
        }
    }
    errs
}

impl Rules for EndpointsRules {
    fn decode(&self, value: serde_json::Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(Object::Endpoints)
    }

    fn empty(&self) -> Object {
        Object::Endpoints(Endpoints::default())
    }

    /// `SetDefaults_EndpointPort`: protocol TCP.
    fn default(&self, obj: &mut Object) {
        if let Object::Endpoints(e) = obj {
            for p in e.subsets.iter_mut().flat_map(|s| s.ports.iter_mut()) {
                if p.protocol.is_empty() {
                    p.protocol = "TCP".into();
                }
            }
        }
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        endpoints(obj).map(validate_endpoints).unwrap_or_default()
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((endpoints(new), endpoints(old)), (Some(n), Some(o)) if n.subsets != o.subsets)
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        row(obj, now_unix_ms)
    }
}

/// `printEndpoints`'s columns.
const COLUMNS: [Column; 3] = [NAME, column("Endpoints", "string", 0), AGE];

/// `printEndpoints`'s cells: each ready address with each port (`formatEndpoints`), cut after
/// three.
fn row(ep: &Value, now_unix_ms: i64) -> Vec<Value> {
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
        listed(&list)
    };
    vec![printer::name(ep), text(cell), printer::age(ep, now_unix_ms)]
}
