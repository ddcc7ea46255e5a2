//! `kubectl describe persistentvolume` and `describe storageclass`: kubectl's
//! `PersistentVolumeDescriber` (`describePersistentVolume` in kubectl v1.32's `describe.go`:
//! the class, the phase or `Terminating (lasts …)`, the claim it is bound to, reclaim policy,
//! access modes, size, the `Node Affinity` block of `printVolumeNodeAffinity`, the message and
//! the `Source` block — a `hostPath`, the one source the API server holds, as
//! `printHostPathVolumeSource` prints it) and `StorageClassDescriber` (`describeStorageClass`:
//! whether the class is the default one, its annotations and parameters on one line each as
//! `labels.FormatLabels` writes a map — the annotation `kubectl apply` writes included —
//! expansion, mount options, reclaim policy and binding mode). The caller adds the Events.

use super::claim::{access_modes, go_list, phase_or_terminating, quantity, BETA_CLASS};
use super::{annotations_block, map_block};
use serde_json::Value;
use std::fmt::Write;
use watchlab_apimachinery::jsonpath::text_of;
use watchlab_apimachinery::unstructured::{
    array, at, joined_map, name, str_at, string, string_map,
};

/// `storageutil.IsDefaultStorageClassAnnotation` and its beta form.
const DEFAULT_CLASS: [&str; 2] = [
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
];

/// The PersistentVolume describer's text, without Events.
pub fn describe_volume(pv: &Value, now: i64) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Name:\t{}", name(pv));
    map_block(
        &mut o,
        "",
        "Labels",
        &string_map(pv, &["metadata", "labels"]),
    );
    annotations_block(&mut o, "", &string_map(pv, &["metadata", "annotations"]));
    let _ = writeln!(
        o,
        "Finalizers:\t{}",
        go_list(pv, &["metadata", "finalizers"])
    );
    let class = str_at(pv, &["metadata", "annotations", BETA_CLASS])
        .or_else(|| str_at(pv, &["spec", "storageClassName"]))
        .unwrap_or_default();
    let _ = writeln!(o, "StorageClass:\t{class}");
    let _ = writeln!(o, "Status:\t{}", phase_or_terminating(pv, now));
    let claim = at(pv, &["spec", "claimRef"])
        .filter(|c| c.is_object())
        .map(|c| format!("{}/{}", string(c, &["namespace"]), string(c, &["name"])))
        .unwrap_or_default();
    let _ = writeln!(o, "Claim:\t{claim}");
    let _ = writeln!(
        o,
        "Reclaim Policy:\t{}",
        string(pv, &["spec", "persistentVolumeReclaimPolicy"])
    );
    let _ = writeln!(
        o,
        "Access Modes:\t{}",
        access_modes(array(pv, &["spec", "accessModes"]))
    );
    if let Some(mode) = str_at(pv, &["spec", "volumeMode"]) {
        let _ = writeln!(o, "VolumeMode:\t{mode}");
    }
    let capacity = at(pv, &["spec", "capacity", "storage"]).map_or_else(|| "0".into(), quantity);
    let _ = writeln!(o, "Capacity:\t{capacity}");
    node_affinity(&mut o, at(pv, &["spec", "nodeAffinity", "required"]));
    let _ = writeln!(o, "Message:\t{}", string(pv, &["status", "message"]));
    let _ = writeln!(o, "Source:");
    match at(pv, &["spec", "hostPath"]).filter(|h| h.is_object()) {
        Some(h) => {
            let _ = writeln!(o, "    Type:\tHostPath (bare host directory volume)");
            let _ = writeln!(o, "    Path:\t{}", string(h, &["path"]));
            let kind = str_at(h, &["type"]).unwrap_or("<none>");
            let _ = writeln!(o, "    HostPathType:\t{kind}");
        }
        None => {
            let _ = writeln!(o, "  <unknown>");
        }
    }
    o
}

/// `printVolumeNodeAffinity`: `<none>`, or the required terms, each requirement as
/// `key in [a, b]` (the operator in lower case), the first on the term's line.
fn node_affinity(o: &mut String, required: Option<&Value>) {
    let Some(required) = required.filter(|r| r.is_object()) else {
        let _ = writeln!(o, "Node Affinity:\t<none>");
        return;
    };
    let _ = writeln!(o, "Node Affinity:\t");
    let terms = array(required, &["nodeSelectorTerms"]);
    if terms.is_empty() {
        let _ = writeln!(o, "  Required Terms:\t<none>");
        return;
    }
    let _ = writeln!(o, "  Required Terms:\t");
    for (i, term) in terms.iter().enumerate() {
        let _ = write!(o, "    Term {i}:\t");
        let exprs = array(term, &["matchExpressions"]);
        if exprs.is_empty() {
            let _ = writeln!(o, "<none>");
        }
        for (j, req) in exprs.iter().enumerate() {
            if j != 0 {
                let _ = write!(o, "    \t");
            }
            let mut expr = format!(
                "{} {}",
                string(req, &["key"]),
                string(req, &["operator"]).to_lowercase()
            );
            let values: Vec<String> = array(req, &["values"]).iter().map(text_of).collect();
            if !values.is_empty() {
                let _ = write!(expr, " [{}]", values.join(", "));
            }
            let _ = writeln!(o, "{expr}");
        }
    }
}

/// The StorageClass describer's text, without Events.
pub fn describe_storage_class(sc: &Value) -> String {
    let mut o = String::new();
    let annotations = string_map(sc, &["metadata", "annotations"]);
    let default = annotations
        .iter()
        .any(|(k, v)| DEFAULT_CLASS.contains(&k.as_str()) && v == "true");
    let _ = writeln!(o, "Name:\t{}", name(sc));
    let _ = writeln!(o, "IsDefaultClass:\t{}", if default { "Yes" } else { "No" });
    let _ = writeln!(o, "Annotations:\t{}", joined_map(&annotations));
    let _ = writeln!(o, "Provisioner:\t{}", string(sc, &["provisioner"]));
    let _ = writeln!(
        o,
        "Parameters:\t{}",
        joined_map(&string_map(sc, &["parameters"]))
    );
    let expansion = match at(sc, &["allowVolumeExpansion"]).and_then(Value::as_bool) {
        Some(true) => "True",
        Some(false) => "False",
        None => "<unset>",
    };
    let _ = writeln!(o, "AllowVolumeExpansion:\t{expansion}");
    let options = array(sc, &["mountOptions"]);
    if options.is_empty() {
        let _ = writeln!(o, "MountOptions:\t<none>");
    } else {
        let _ = writeln!(o, "MountOptions:");
        for option in options {
            let _ = writeln!(o, "  {}", text_of(option));
        }
    }
    if let Some(policy) = str_at(sc, &["reclaimPolicy"]) {
        let _ = writeln!(o, "ReclaimPolicy:\t{policy}");
    }
    if let Some(mode) = str_at(sc, &["volumeBindingMode"]) {
        let _ = writeln!(o, "VolumeBindingMode:\t{mode}");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_provisioned_volume_with_its_node_affinity() {
        let pv = json!({"metadata": {"name": "pvc-1",
                "annotations": {"pv.kubernetes.io/provisioned-by": "rancher.io/local-path"},
                "finalizers": ["kubernetes.io/pv-protection"]},
            "spec": {"storageClassName": "standard", "persistentVolumeReclaimPolicy": "Delete",
                "accessModes": ["ReadWriteOnce"], "volumeMode": "Filesystem",
                "capacity": {"storage": "1Gi"},
                "claimRef": {"namespace": "default", "name": "www-web-0"},
                "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-a"]},
                    {"key": "zone", "operator": "Exists"}]}]}},
                "hostPath": {"path": "/var/local-path-provisioner/x", "type": "DirectoryOrCreate"}},
            "status": {"phase": "Bound"}});
        assert_eq!(
            describe_volume(&pv, 0),
            "Name:\tpvc-1\nLabels:\t<none>\nAnnotations:\tpv.kubernetes.io/provisioned-by: \
             rancher.io/local-path\nFinalizers:\t[kubernetes.io/pv-protection]\nStorageClass:\t\
             standard\nStatus:\tBound\nClaim:\tdefault/www-web-0\nReclaim Policy:\tDelete\n\
             Access Modes:\tRWO\nVolumeMode:\tFilesystem\nCapacity:\t1Gi\nNode Affinity:\t\n  \
             Required Terms:\t\n    Term 0:\tkubernetes.io/hostname in [node-a]\n    \tzone \
             exists\nMessage:\t\nSource:\n    Type:\tHostPath (bare host directory volume)\n    \
             Path:\t/var/local-path-provisioner/x\n    HostPathType:\tDirectoryOrCreate\n"
        );
        let mut o = String::new();
        node_affinity(&mut o, None);
        assert_eq!(o, "Node Affinity:\t<none>\n");
    }

    #[test]
    fn the_default_class_on_one_line_each() {
        let sc = json!({"metadata": {"name": "standard", "annotations": {
                "storageclass.kubernetes.io/is-default-class": "true", "team": "infra"}},
            "provisioner": "rancher.io/local-path", "reclaimPolicy": "Delete",
            "volumeBindingMode": "WaitForFirstConsumer", "mountOptions": ["noatime"]});
        assert_eq!(
            describe_storage_class(&sc),
            "Name:\tstandard\nIsDefaultClass:\tYes\nAnnotations:\t\
             storageclass.kubernetes.io/is-default-class=true,team=infra\nProvisioner:\t\
             rancher.io/local-path\nParameters:\t<none>\nAllowVolumeExpansion:\t<unset>\n\
             MountOptions:\n  noatime\nReclaimPolicy:\tDelete\nVolumeBindingMode:\t\
             WaitForFirstConsumer\n"
        );
    }
}
