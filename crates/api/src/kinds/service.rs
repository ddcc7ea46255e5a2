//! `services` (core/v1, short name `svc`): a virtual IP in front of the pods a selector picks.
//! Defaulting and validation follow `SetDefaults_Service` and `ValidateService` (port range,
//! names, protocols, targetPort, type); the clusterIP and nodePorts are allocated by the API
//! server (`apiserver/service_allocation.rs`), which also keeps them on updates.

use super::meta_merge_key;
use crate::apps::IntOrString;
use crate::printer::{self, column, or_none, text, Column, AGE, NAME};
use crate::resource::{meta_fields, ResourceInfo, Rules};
use crate::service::{Service, ServiceSpec, SERVICE_TYPES, TYPE_CLUSTER_IP, TYPE_EXTERNAL_NAME};
use crate::Object;
use serde_json::Value;
use std::collections::BTreeSet;
use watchlab_apimachinery::table::TableColumnDefinition;
use watchlab_apimachinery::unstructured::{array, int, joined_map, str_at, string, string_map};
use watchlab_apimachinery::validation::{
    is_dns1123_label, is_valid_port_name, is_valid_port_num, BadValue, FieldError, INVALID_IP,
};

pub static RESOURCE: ResourceInfo = ResourceInfo {
    rank: 8,
    kind_name: "Service",
    list_kind: "ServiceList",
    go_type: "v1.Service",
    plural: "services",
    singular: "service",
    group: "",
    version: "v1",
    api_version: "v1",
    namespaced: true,
    short_names: &["svc"],
    categories: &["all"],
    subresources: &["status"],
    // The real key: /registry/services/specs/<namespace>/<name>.
    registry: "services/specs",
    field_labels: meta_fields(),
    dns_label_names: true,
    has_generation: false,
    create_on_update: true,
    returns_deleted_object: true,
    delete_collection: true,
    controller_owners: &[],
    schema_root: "V1Service",
    atomic_maps: &[],
    event_ttl: false,
    trigger_field: None,
    rules: &ServiceRules,
};

/// The port protocols (`supportedPortProtocols`), sorted as the 422 lists them.
pub const PROTOCOLS: &[&str] = &["SCTP", "TCP", "UDP"];
/// `sessionAffinity` values.
const SESSION_AFFINITIES: &[&str] = &["ClientIP", "None"];

struct ServiceRules;

fn service(obj: &Object) -> Option<&Service> {
    match obj {
        Object::Service(s) => Some(s),
        _ => None,
    }
}

/// `SetDefaults_Service` (and the registry's single-stack IPv4 family fields).
pub fn default_spec(spec: &mut ServiceSpec) {
    if spec.type_.is_empty() {
        spec.type_ = TYPE_CLUSTER_IP.into();
    }
    if spec.session_affinity.is_empty() {
        spec.session_affinity = "None".into();
    }
    for p in &mut spec.ports {
        if p.protocol.is_empty() {
            p.protocol = "TCP".into();
        }
        let unset = match &p.target_port {
            None => true,
            Some(IntOrString::Int(0)) => true,
            Some(IntOrString::String(s)) => s.is_empty(),
            Some(IntOrString::Int(_)) => false,
        };
        if unset {
            p.target_port = Some(IntOrString::Int(p.port));
        }
    }
    if spec.type_ == TYPE_EXTERNAL_NAME {
        return;
    }
    if spec.needs_node_ports() && spec.external_traffic_policy.is_empty() {
        spec.external_traffic_policy = "Cluster".into();
    }
    spec.internal_traffic_policy
        .get_or_insert_with(|| "Cluster".into());
    if spec.cluster_ips.is_empty() && !spec.cluster_ip.is_empty() {
        spec.cluster_ips = vec![spec.cluster_ip.clone()];
    }
    if spec.ip_families.is_empty() {
        spec.ip_families = vec!["IPv4".into()];
    }
    spec.ip_family_policy
        .get_or_insert_with(|| "SingleStack".into());
}

/// A port's number (1–65535) and its protocol (required, one of [`PROTOCOLS`]) at `path`
/// (`spec.ports[0]`), as `ValidateService` and `ValidateEndpoints` both check them.
pub fn validate_port_and_protocol(path: &str, port: i32, protocol: &str) -> Vec<FieldError> {
    let mut errs: Vec<FieldError> = is_valid_port_num(i64::from(port))
        .iter()
        .map(|msg| FieldError::invalid(&format!("{path}.port"), i64::from(port), msg))
        .collect();
    if protocol.is_empty() {
        errs.push(FieldError::required(&format!("{path}.protocol"), ""));
    } else if !PROTOCOLS.contains(&protocol) {
        errs.push(FieldError::not_supported(
            &format!("{path}.protocol"),
            protocol,
            PROTOCOLS,
        ));
    }
    errs
}

// Long on purpose: one rule after another in `ValidateService`'s order (the 422 lists the
// errors in that order), each a few lines.
/// `ValidateService`'s spec rules.
pub fn validate_spec(spec: &ServiceSpec) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if !SERVICE_TYPES.contains(&spec.type_.as_str()) {
        errs.push(FieldError::not_supported(
            "spec.type",
            &spec.type_,
            SERVICE_TYPES,
        ));
    }
    let external_name = spec.type_ == TYPE_EXTERNAL_NAME;
    if external_name {
        if spec.external_name.is_empty() {
            errs.push(FieldError::required("spec.externalName", ""));
        }
    } else if spec.ports.is_empty() && !spec.is_headless() {
        errs.push(FieldError::required("spec.ports", ""));
    }
    let require_name = spec.ports.len() > 1;
    let mut names = BTreeSet::new();
    let mut port_protocols = BTreeSet::new();
    for (i, p) in spec.ports.iter().enumerate() {
        let path = format!("spec.ports[{i}]");
        if p.name.is_empty() {
            if require_name {
                errs.push(FieldError::required(&format!("{path}.name"), ""));
            }
        } else {
            for msg in is_dns1123_label(&p.name) {
                errs.push(FieldError::invalid(&format!("{path}.name"), &p.name, &msg));
            }
            if !names.insert(p.name.as_str()) {
                errs.push(FieldError::duplicate(&format!("{path}.name"), &p.name));
            }
        }
        errs.extend(validate_port_and_protocol(&path, p.port, &p.protocol));
        match &p.target_port {
            Some(IntOrString::Int(n)) => {
                for msg in is_valid_port_num(i64::from(*n)) {
                    errs.push(FieldError::invalid(
                        &format!("{path}.targetPort"),
                        i64::from(*n),
                        &msg,
                    ));
                }
            }
            Some(IntOrString::String(s)) => {
                for msg in is_valid_port_name(s) {
                    errs.push(FieldError::invalid(&format!("{path}.targetPort"), s, &msg));
                }
            }
            None => {}
        }
        if p.node_port != 0 {
            if !spec.needs_node_ports() {
                errs.push(FieldError::forbidden(
                    &format!("{path}.nodePort"),
                    &format!("may not be used when `type` is '{}'", spec.type_),
                ));
            } else {
                for msg in is_valid_port_num(i64::from(p.node_port)) {
                    errs.push(FieldError::invalid(
                        &format!("{path}.nodePort"),
                        i64::from(p.node_port),
                        &msg,
                    ));
                }
            }
        }
        if !port_protocols.insert((p.port, p.protocol.as_str())) {
            errs.push(FieldError::duplicate(
                &path,
                BadValue::Verbatim(format!(
                    "core.ServicePort{{Name:\"\", Protocol:\"{}\", AppProtocol:(*string)(nil), Port:{}, TargetPort:intstr.IntOrString{{Type:0, IntVal:0, StrVal:\"\"}}, NodePort:0}}",
                    p.protocol, p.port
                )),
            ));
        }
    }
    if !spec.session_affinity.is_empty()
        && !SESSION_AFFINITIES.contains(&spec.session_affinity.as_str())
    {
        errs.push(FieldError::not_supported(
            "spec.sessionAffinity",
            &spec.session_affinity,
            SESSION_AFFINITIES,
        ));
    }
    for (i, ip) in spec.cluster_ips.iter().enumerate() {
        let headless = i == 0 && ip == crate::service::CLUSTER_IP_NONE;
        if !headless && ip.parse::<std::net::IpAddr>().is_err() {
            errs.push(FieldError::invalid(
                &format!("spec.clusterIPs[{i}]"),
                ip,
                INVALID_IP,
            ));
        }
    }
    if !spec.cluster_ip.is_empty() && spec.cluster_ips.first() != Some(&spec.cluster_ip) {
        errs.push(FieldError::invalid(
            "spec.clusterIPs",
            BadValue::string_slice(&spec.cluster_ips),
            "element [0] must match clusterIP",
        ));
    }
    if external_name && !spec.cluster_ip.is_empty() {
        errs.push(FieldError::forbidden(
            "spec.clusterIPs",
            "may not be set for ExternalName services",
        ));
    }
    errs
}

impl Rules for ServiceRules {
    fn decode(&self, value: serde_json::Value) -> Result<Object, serde_json::Error> {
        serde_json::from_value::<Service>(value).map(|s| Object::Service(Box::new(s)))
    }

    fn empty(&self) -> Object {
        Object::Service(Box::default())
    }

    fn default(&self, obj: &mut Object) {
        if let Object::Service(s) = obj {
            default_spec(&mut s.spec);
        }
    }

    fn validate(&self, obj: &Object) -> Vec<FieldError> {
        service(obj)
            .map(|s| validate_spec(&s.spec))
            .unwrap_or_default()
    }

    /// `validateServiceClusterIPsRelatedFields`: an allocated clusterIP may not change (the
    /// server copies it over when an update leaves it out).
    fn validate_update(&self, new: &Object, old: &Object) -> Vec<FieldError> {
        let (Some(n), Some(o)) = (service(new), service(old)) else {
            return Vec::new();
        };
        let was_allocated = !o.spec.cluster_ip.is_empty() && o.spec.type_ != TYPE_EXTERNAL_NAME;
        let to_external_name = n.spec.type_ == TYPE_EXTERNAL_NAME;
        if was_allocated
            && !to_external_name
            && n.spec.cluster_ips.first() != o.spec.cluster_ips.first()
        {
            return vec![FieldError::invalid(
                "spec.clusterIPs[0]",
                BadValue::string_slice(&n.spec.cluster_ips),
                "may not change once set",
            )];
        }
        Vec::new()
    }

    fn prepare_for_create(&self, obj: &mut Object) {
        if let Object::Service(s) = obj {
            s.status = Default::default();
        }
    }

    fn keep_status(&self, new: &mut Object, old: &Object) {
        if let (Object::Service(n), Object::Service(o)) = (new, old) {
            n.status.clone_from(&o.status);
        }
    }

    fn status_update(&self, new: &Object, old: &Object) -> Object {
        let mut out = old.clone();
        if let (Object::Service(o), Object::Service(n)) = (&mut out, new) {
            o.status.clone_from(&n.status);
        }
        out
    }

    fn spec_changed(&self, new: &Object, old: &Object) -> bool {
        matches!((service(new), service(old)), (Some(n), Some(o)) if n.spec != o.spec)
    }

    fn merge_key(&self, path: &[&str]) -> Option<&'static str> {
        match path {
            // `ServiceSpec.Ports`: patchMergeKey port (listMapKeys port+protocol).
            ["spec", "ports"] => Some("port"),
            _ => meta_merge_key(path),
        }
    }

    fn columns(&self) -> Vec<TableColumnDefinition> {
        printer::definitions(&COLUMNS)
    }

    fn row(&self, obj: &Value, now_unix_ms: i64) -> Vec<Value> {
        row(obj, now_unix_ms)
    }
}

/// `printService`'s columns (pkg/printers/internalversion `serviceColumnDefinitions`).
const COLUMNS: [Column; 7] = [
    NAME,
    column("Type", "string", 0),
    column("Cluster-IP", "string", 0),
    column("External-IP", "string", 0),
    column("Port(s)", "string", 0),
    AGE,
    column("Selector", "string", 1),
];

/// `printService`'s cells: PORT(S) as `80/TCP` or `80:30080/TCP`, EXTERNAL-IP by type.
fn row(svc: &Value, now_unix_ms: i64) -> Vec<Value> {
    let type_ = string(svc, &["spec", "type"]);
    let cluster_ip = array(svc, &["spec", "clusterIPs"])
        .first()
        .and_then(Value::as_str)
        .map(String::from)
        .unwrap_or_else(|| string(svc, &["spec", "clusterIP"]));
    vec![
        printer::name(svc),
        text(type_.clone()),
        text(or_none(cluster_ip)),
        text(external_ip(svc, &type_)),
        text(ports(svc)),
        printer::age(svc, now_unix_ms),
        text(joined_map(&string_map(svc, &["spec", "selector"]))),
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
