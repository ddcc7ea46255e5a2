//! `autoscaling/v1.Scale`: the view of a Deployment's, ReplicaSet's or StatefulSet's replica
//! count that the `scale` subresource serves (what `kubectl scale` and autoscalers read and
//! write). It is not stored: the server builds it from the parent object on every request.

use super::meta::ObjectMeta;
use super::{Kind, Object};
use serde::{Deserialize, Serialize};
use watchlab_apimachinery::status::Status;

pub const SCALE_KIND: &str = "Scale";
pub const SCALE_API_VERSION: &str = "autoscaling/v1";

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Scale {
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: ScaleSpec,
    #[serde(default)]
    pub status: ScaleStatus,
}

/// `replicas` is `omitempty` in autoscaling/v1.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSpec {
    #[serde(default, skip_serializing_if = "is_zero")]
    pub replicas: i32,
}

/// `selector` is the label selector in its string form (`app=web`), as autoscaling/v1 has it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleStatus {
    #[serde(default)]
    pub replicas: i32,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub selector: String,
}

fn is_zero(v: &i32) -> bool {
    *v == 0
}

/// The kinds that have a `scale` subresource.
pub fn has_scale(kind: Kind) -> bool {
    kind.resource().has_subresource("scale")
}

impl Scale {
    /// `scaleFromDeployment` / `scaleFromReplicaSet` / `scaleFromStatefulSet`: name,
    /// namespace, uid, resourceVersion and creationTimestamp of the parent, its spec and status
    /// replicas, its selector as a string.
    /// `None` for kinds without a scale subresource.
    pub fn of(obj: &Object) -> Option<Scale> {
        let (spec_replicas, status_replicas, selector) = match obj {
            Object::Deployment(d) => (d.spec.replicas, d.status.replicas, &d.spec.selector),
            Object::ReplicaSet(r) => (r.spec.replicas, r.status.replicas, &r.spec.selector),
            Object::StatefulSet(s) => (s.spec.replicas, s.status.replicas, &s.spec.selector),
            _ => return None,
        };
        let m = obj.meta();
        Some(Scale {
            kind: SCALE_KIND.to_string(),
            api_version: SCALE_API_VERSION.to_string(),
            metadata: ObjectMeta {
                name: m.name.clone(),
                namespace: m.namespace.clone(),
                uid: m.uid.clone(),
                resource_version: m.resource_version.clone(),
                creation_timestamp: m.creation_timestamp,
                ..Default::default()
            },
            spec: ScaleSpec {
                replicas: spec_replicas.unwrap_or(0),
            },
            status: ScaleStatus {
                replicas: status_replicas,
                selector: selector
                    .as_ref()
                    .and_then(|s| s.to_selector().ok())
                    .map(|s| s.to_string())
                    .unwrap_or_default(),
            },
        })
    }

    /// Decodes a request body, checking `kind`/`apiVersion` when given, as the real decoder.
    pub fn from_value(value: serde_json::Value) -> Result<Scale, Status> {
        let scale: Scale = serde_json::from_value(value).map_err(|e| {
            Status::bad_request(&format!(
                "Scale in version \"v1\" cannot be handled as a Scale: {e}"
            ))
        })?;
        if !scale.api_version.is_empty() && scale.api_version != SCALE_API_VERSION {
            return Err(Status::bad_request(&format!(
                "the API version in the data ({}) does not match the expected API version ({SCALE_API_VERSION})",
                scale.api_version
            )));
        }
        if !scale.kind.is_empty() && scale.kind != SCALE_KIND {
            return Err(Status::bad_request(&format!(
                "{} in version \"v1\" cannot be handled as a Scale: the object provided is unrecognized (must be of type Scale)",
                scale.kind
            )));
        }
        Ok(scale)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn to_json_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}
