//! `kubectl describe persistentvolumeclaim`: kubectl's `PersistentVolumeClaimDescriber`
//! (`describePersistentVolumeClaim` and `printPersistentVolumeClaim` in kubectl v1.32's
//! `describe.go`) — the class (the beta annotation first, as `storageutil` reads it), the
//! phase or `Terminating (lasts …)`, the bound volume, the finalizers as Go prints a list, the
//! bound size and access modes (empty until a volume is bound), and `Used By`: the pods of
//! the namespace with a volume naming the claim, or owning it (`getPodsForPVC`). The API
//! server holds no data source and no conditions for a claim, so their blocks never print.
//! The caller adds the Events.

use super::{annotations_block, map_block, Ctx};
use crate::targets::{self, ListQuery};
use serde_json::Value;
use std::fmt::Write;
use watchlab_apimachinery::duration::since;
use watchlab_apimachinery::jsonpath::text_of;
use watchlab_apimachinery::quantity::Quantity;
use watchlab_apimachinery::sort;
use watchlab_apimachinery::unstructured::{array, at, name, namespace, str_at, string, string_map};

/// `v1.BetaStorageClassAnnotation`, read before `spec.storageClassName`.
pub(super) const BETA_CLASS: &str = "volume.beta.kubernetes.io/storage-class";

/// The describer's text, without Events.
pub fn describe_claim(ctx: &mut Ctx, pvc: &Value, now: i64) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Name:\t{}", name(pvc));
    let _ = writeln!(o, "Namespace:\t{}", namespace(pvc));
    let _ = writeln!(o, "StorageClass:\t{}", claim_class(pvc));
    let _ = writeln!(o, "Status:\t{}", phase_or_terminating(pvc, now));
    let volume = string(pvc, &["spec", "volumeName"]);
    let _ = writeln!(o, "Volume:\t{volume}");
    map_block(
        &mut o,
        "",
        "Labels",
        &string_map(pvc, &["metadata", "labels"]),
    );
    annotations_block(&mut o, "", &string_map(pvc, &["metadata", "annotations"]));
    let _ = writeln!(
        o,
        "Finalizers:\t{}",
        go_list(pvc, &["metadata", "finalizers"])
    );
    let (capacity, modes) = if volume.is_empty() {
        (String::new(), String::new())
    } else {
        (
            at(pvc, &["status", "capacity", "storage"]).map_or_else(|| "0".into(), quantity),
            access_modes(array(pvc, &["status", "accessModes"])),
        )
    };
    let _ = writeln!(o, "Capacity:\t{capacity}");
    let _ = writeln!(o, "Access Modes:\t{modes}");
    if let Some(mode) = str_at(pvc, &["spec", "volumeMode"]) {
        let _ = writeln!(o, "VolumeMode:\t{mode}");
    }
    used_by(&mut o, &users(ctx, pvc));
    o
}

/// `storageutil.GetPersistentVolumeClaimClass`: the beta annotation, else the spec's class.
pub(super) fn claim_class(pvc: &Value) -> String {
    str_at(pvc, &["metadata", "annotations", BETA_CLASS])
        .or_else(|| str_at(pvc, &["spec", "storageClassName"]))
        .unwrap_or_default()
        .to_string()
}

/// `Terminating (lasts 5s)` for an object being deleted, else its `status.phase`.
pub(super) fn phase_or_terminating(obj: &Value, now: i64) -> String {
    match str_at(obj, &["metadata", "deletionTimestamp"]) {
        Some(t) => format!("Terminating (lasts {})", since(Some(t), now)),
        None => string(obj, &["status", "phase"]),
    }
}

/// A quantity as `Quantity.String()` prints it (`1024Mi` → `1Gi`); an unparsable one as it is.
pub(super) fn quantity(v: &Value) -> String {
    let text = text_of(v);
    Quantity::parse(&text).map_or(text, |q| q.to_string())
}

/// A string list as Go's `%v` prints it: `[a b]`.
pub(super) fn go_list(obj: &Value, path: &[&str]) -> String {
    let items: Vec<String> = array(obj, path).iter().map(text_of).collect();
    format!("[{}]", items.join(" "))
}

/// `storageutil.GetAccessModesAsString`: `RWO,ROX,RWX,RWOP`, in that order, each once.
pub(super) fn access_modes(modes: &[Value]) -> String {
    let has = |m: &str| modes.iter().any(|v| v.as_str() == Some(m));
    [
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
        ("ReadWriteOncePod", "RWOP"),
    ]
    .iter()
    .filter(|(mode, _)| has(mode))
    .map(|(_, short)| *short)
    .collect::<Vec<_>>()
    .join(",")
}

/// `getPodsForPVC`: the namespace's pods with a volume naming the claim (once per such
/// volume, as kubectl appends them), then the pods owning it that are not listed yet.
fn users(ctx: &mut Ctx, pvc: &Value) -> Vec<String> {
    let Some(rt) = ctx.resource_type("pods") else {
        return Vec::new();
    };
    let q = ListQuery {
        chunk_size: 500,
        ..ListQuery::default()
    };
    let Ok(listed) = targets::list(ctx.client, &rt, Some(&namespace(pvc)), &q) else {
        return Vec::new();
    };
    let claim = name(pvc);
    let mut pods: Vec<&Value> = Vec::new();
    for pod in &listed.items {
        for v in array(pod, &["spec", "volumes"]) {
            if str_at(v, &["persistentVolumeClaim", "claimName"]) == Some(claim.as_str()) {
                pods.push(pod);
            }
        }
    }
    let uid_of = |p: &Value| string(p, &["metadata", "uid"]);
    for owner in array(pvc, &["metadata", "ownerReferences"]) {
        if str_at(owner, &["kind"]) != Some("Pod") {
            continue;
        }
        let uid = string(owner, &["uid"]);
        let Some(pod) = listed.items.iter().find(|p| uid_of(p) == uid) else {
            continue;
        };
        if !pods.iter().any(|p| uid_of(p) == uid) {
            pods.push(pod);
        }
    }
    let mut names: Vec<String> = pods.into_iter().map(name).collect();
    sort::sort(&mut names);
    names
}

/// `printPodsMultiline`: `Used By:` and the pod names, one a line, sorted.
fn used_by(o: &mut String, pods: &[String]) {
    if pods.is_empty() {
        let _ = writeln!(o, "Used By:\t<none>");
        return;
    }
    for (i, pod) in pods.iter().enumerate() {
        let head = if i == 0 { "Used By:" } else { "" };
        let _ = writeln!(o, "{head}\t{pod}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn class_modes_and_lists_as_kubectl_reads_them() {
        let pvc = json!({"metadata": {"annotations": {BETA_CLASS: "old"}},
            "spec": {"storageClassName": "standard"}});
        assert_eq!(claim_class(&pvc), "old");
        assert_eq!(
            claim_class(&json!({"spec": {"storageClassName": "standard"}})),
            "standard"
        );
        assert_eq!(claim_class(&json!({})), "");
        let modes = json!(["ReadWriteMany", "ReadWriteOnce", "ReadWriteOnce"]);
        assert_eq!(
            access_modes(modes.as_array().unwrap_or(&Vec::new())),
            "RWO,RWX"
        );
        assert_eq!(
            go_list(&json!({"f": ["kubernetes.io/pvc-protection"]}), &["f"]),
            "[kubernetes.io/pvc-protection]"
        );
        assert_eq!(go_list(&json!({}), &["f"]), "[]");
        assert_eq!(quantity(&json!("1024Mi")), "1Gi");
        assert_eq!(quantity(&json!("x")), "x");
    }

    #[test]
    fn used_by_lists_each_pod_under_the_first() {
        let mut o = String::new();
        used_by(&mut o, &[]);
        assert_eq!(o, "Used By:\t<none>\n");
        let mut o = String::new();
        used_by(&mut o, &["web-0".into(), "web-1".into()]);
        assert_eq!(o, "Used By:\tweb-0\n\tweb-1\n");
    }
}
