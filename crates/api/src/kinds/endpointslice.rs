//! `endpointslices` (discovery.k8s.io/v1): one slice of a Service's backends. Written by the
//! EndpointSlice controller, owned by its Service (so the garbage collector removes it), read
//! by every kube-proxy. Validation follows `ValidateEndpointSlice`.

use crate::endpoint_slice::{EndpointSlice, ADDRESS_TYPES};
use crate::printer::{self, column, listed, text, Column, AGE, NAME};
use crate::resource::{meta_fields, ResourceInfo, Rules};
use crate::{Kind, Object};
use serde_json::Value;
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::{array, str_at, string};
use watchlab_apimachinery::validation::FieldError;

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 10,
    kind_name: "EndpointSlice",
    list_kind: "EndpointSliceList",
    go_type: "v1.EndpointSlice",
    plural: "endpointslices",
    singular: "endpointslice",
    group: "discovery.k8s.io",
    version: "v1",
    api_version: "discovery.k8s.io/v1",
    namespaced: true,
    short_names: &[],
    categories: &[],
    subresources: &[],
    registry: "endpointslices",
    field_labels: meta_fields(),
    dns_label_names: false,
    has_generation: true,
    create_on_update: false,
    returns_deleted_object: false,
    delete_collection: true,
    controller_owners: &[Kind::Service],
    schema_root: "V1EndpointSlice",
    atomic_maps: &[],
    event_ttl: false,
    trigger_field: None,
    rules: &EndpointSliceRules,
};

/// `maxEndpoints` and `maxAddresses` of the validation.
const MAX_ENDPOINTS: usize = 1000;
const MAX_ADDRESSES: usize = 100;
const MAX_PORTS: usize = 20_000;

struct EndpointSliceRules;

fn slice(obj: &Object) -> Option<&EndpointSlice> {
    match obj {
        Object::EndpointSlice(s) => Some(s),
        _ => None,
    }
}

fn validate_slice(s: &EndpointSlice) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if s.address_type.is_empty() {
        errs.push(FieldError::required("addressType", ""));
    } else if !ADDRESS_TYPES.contains(&s.address_type.as_str()) {
        errs.push(FieldError::not_supported(
            "addressType",
            &s.address_type,
            ADDRESS_TYPES,
        ));
    }
    if s.endpoints.len() > MAX_ENDPOINTS {
        errs.push(FieldError::too_many(
            "endpoints",
            s.endpoints.len(),
            MAX_ENDPOINTS,
        ));
    }
    for (i, e) in s.endpoints.iter().enumerate() {
        let path = format!("endpoints[{i}].addresses");
        if e.addresses.is_empty() {
            errs.push(FieldError::required(
                &path,
                "must contain at least 1 address",
            ));
        } else if e.addresses.len() > MAX_ADDRESSES {
            errs.push(FieldError::too_many(
                &path,
                e.addresses.len(),
                MAX_ADDRESSES,
            ));
        }
        for (j, a) in e.addresses.iter().enumerate() {
            let ok = match s.address_type.as_str() {
                "IPv4" => a.parse::<std::net::Ipv4Addr>().is_ok(),
                "IPv6" => a.parse::<std::net::Ipv6Addr>().is_ok(),
                _ => true,
            };
            if !ok {
                let detail = if s.address_type == "IPv4" {
                    "must be a valid IPv4 address"
                } else {
                    "must be a valid IPv6 address"
                };
                errs.push(FieldError::invalid(&format!("{path}[{j}]"), a, detail));
            }
        }
    }
    if s.ports.len() > MAX_PORTS {
        errs.push(FieldError::too_many("ports", s.ports.len(), MAX_PORTS));
    }
    for (i, p) in s.ports.iter().enumerate() {
        if let Some(n) = p.port {
            if !(0..=65535).contains(&n) {
                errs.push(FieldError::invalid(
                    &format!("ports[{i}].port"),
                    i64::from(n),
                    "must be between 0 and 65535, inclusive",
                ));
            }
        }
    }
    errs
}

impl Rules for EndpointSliceRules {
    fn decode(&self, value: serde_json::Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value(value).map(Object::EndpointSlice)
    }

    fn empty(&self) -> Object {
        Object::EndpointSlice(EndpointSlice::default())
    }

    /// `SetDefaults_EndpointPort` (discovery/v1): a port without a name gets `""`, without a
    /// protocol `TCP` (the real kubectl's `describe endpointslice` dereferences the protocol).
    fn default(&self, obj: &mut Object) {
        if let Object::EndpointSlice(s) = obj {
            for p in &mut s.ports {
                p.name.get_or_insert_with(String::new);
                p.protocol.get_or_insert_with(|| "TCP".to_string());
            }
        }
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        slice(obj).map(validate_slice).unwrap_or_default()
    }

    fn validate_update(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        match (slice(new), slice(old)) {
            (Some(n), Some(o)) if n.address_type != o.address_type => {
                vec![FieldError::invalid(
                    "addressType",
                    &n.address_type,
                    "field is immutable",
                )]
            }
            _ => Vec::new(),
        }
    }

    /// Every change bumps `generation` (the EndpointSlice strategy compares the whole object).
    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        match (slice(new), slice(old)) {
            (Some(n), Some(o)) => {
                n.address_type != o.address_type
                    || n.endpoints != o.endpoints
                    || n.ports != o.ports
                    || n.metadata.labels != o.metadata.labels
            }
            _ => false,
        }
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        row(obj, now_unix_ms)
    }
}

/// `printEndpointSlice`'s columns.
const COLUMNS: [Column; 5] = [
    NAME,
    column("AddressType", "string", 0),
    column("Ports", "string", 0),
    column("Endpoints", "string", 0),
    AGE,
];

/// `printEndpointSlice`'s cells: ports (a port's name when it has no number, `*` for neither)
/// and addresses, each cut after three, `<unset>` when empty.
fn row(slice: &Value, now_unix_ms: i64) -> Vec<Value> {
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
    let unset = |s: String| text(if s.is_empty() { "<unset>".into() } else { s });
    vec![
        printer::name(slice),
        text(string(slice, &["addressType"])),
        unset(listed(&ports)),
        unset(listed(&addresses)),
        printer::age(slice, now_unix_ms),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_without_name_or_protocol_is_defaulted_as_discovery_v1_does() {
        let rules = Kind::EndpointSlice.resource().rules;
        let mut obj = rules
            .decode(
                serde_json::json!({"metadata": {"name": "s"}, "addressType": "IPv4",
                "ports": [{"port": 8080}, {"name": "dns", "protocol": "UDP", "port": 53}]}),
            )
            .expect("decodes");
        rules.default(&mut obj);
        let json = obj.to_json_value();
        assert_eq!(
            json["ports"],
            serde_json::json!([{"name": "", "protocol": "TCP", "port": 8080},
                {"name": "dns", "protocol": "UDP", "port": 53}])
        );
    }
}
