//! `endpoints` (core/v1, short name `ep`): the old single list of a Service's backends, which
//! the Endpoints controller still mirrors for old clients. Validation follows
//! `ValidateEndpoints` (addresses are IPs, ports in range with a known protocol).

use super::service::PROTOCOLS;
use crate::api::endpoints::Endpoints;
use crate::api::resource::{meta_fields, ResourceInfo, Rules};
use crate::api::Object;
use watchlab_apimachinery::validation::{is_valid_port_num, FieldError, INVALID_IP};

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
    printer_columns: &[],
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
            for msg in is_valid_port_num(i64::from(p.port)) {
                errs.push(FieldError::invalid(
                    &format!("{path}.port"),
                    i64::from(p.port),
                    &msg,
                ));
            }
            if p.protocol.is_empty() {
                errs.push(FieldError::required(&format!("{path}.protocol"), ""));
            } else if !PROTOCOLS.contains(&p.protocol.as_str()) {
                errs.push(FieldError::not_supported(
                    &format!("{path}.protocol"),
                    &p.protocol,
                    PROTOCOLS,
                ));
            }
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
}
