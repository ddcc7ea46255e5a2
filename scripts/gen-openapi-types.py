"""Writes crates/engine/src/apiserver/openapi/types.rs: every type reachable from the served
kinds' roots (each registry module's `schema_root`, read as scripts/gen-field-schema.py reads
them) and from the few extra roots the OpenAPI documents need (the `Scale` of `deployments/scale`,
the self reviews of `authorization.k8s.io`), with each field's JSON name and OpenAPI type, as the
official Python client's models declare them (generated from the Kubernetes OpenAPI schema).

The engine's OpenAPI v3 documents (`apiserver/openapi/`) build their `components.schemas` from
this table; descriptions and patch strategies are written by hand there.

Run with the client the tests install:
    target/clients/python/bin/python scripts/gen-openapi-types.py > crates/engine/src/apiserver/openapi/types.rs
"""

import pathlib
import re

import kubernetes
import kubernetes.client.models as m

KINDS = pathlib.Path(__file__).resolve().parent.parent / "crates/api/src/kinds"

EXTRA_ROOTS = [
    "V1Scale", "V1Binding", "V1SelfSubjectAccessReview", "V1SelfSubjectRulesReview", "V1ListMeta",
    "V1Status", "V1DeleteOptions", "V1Eviction",
]

# The fields whose Go type is `intstr.IntOrString` (the Python models say `object`).
INT_OR_STRING = {
    ("V1ServicePort", "target_port"),
    ("V1HTTPGetAction", "port"),
    ("V1TCPSocketAction", "port"),
    ("V1RollingUpdateDeployment", "max_surge"),
    ("V1RollingUpdateDeployment", "max_unavailable"),
    ("V1PodDisruptionBudgetSpec", "min_available"),
    ("V1PodDisruptionBudgetSpec", "max_unavailable"),
    ("V1RollingUpdateDaemonSet", "max_surge"),
    ("V1RollingUpdateDaemonSet", "max_unavailable"),
    ("V1RollingUpdateStatefulSetStrategy", "max_unavailable"),
}

META = {
    "ObjectMeta", "ListMeta", "LabelSelector", "LabelSelectorRequirement", "ManagedFieldsEntry",
    "OwnerReference", "Condition", "Status", "StatusDetails", "StatusCause", "DeleteOptions",
    "Preconditions",
}
APPS = ("Deployment", "ReplicaSet", "RollingUpdateDeployment", "DaemonSet", "RollingUpdateDaemonSet",
        "ControllerRevision", "StatefulSet", "RollingUpdateStatefulSetStrategy")
BATCH = ("Job", "CronJob", "PodFailurePolicy", "SuccessPolicy", "UncountedTerminatedPods")
DISCOVERY = {"EndpointSlice", "Endpoint", "EndpointConditions", "EndpointHints", "ForZone", "ForNode"}
APIEXTENSIONS = (
    "CustomResource", "JSONSchemaProps", "ExternalDocumentation", "ValidationRule",
    "WebhookConversion", "SelectableField",
)
AUTHORIZATION = ("SelfSubject", "ResourceAttributes", "NonResourceAttributes", "ResourceRule",
                 "NonResourceRule", "SubjectAccessReviewStatus", "FieldSelectorAttributes",
                 "LabelSelectorAttributes", "FieldSelectorRequirement")


def roots():
    """The root model of every kind module that declares a `schema_root`."""
    out = []
    for module in sorted(KINDS.glob("*.rs")):
        root = re.search(r'^\s*schema_root: "(\w*)",', module.read_text(), re.M)
        if root and root.group(1):
            out.append(root.group(1))
    return out


def component(model):
    """The OpenAPI component name of a model: its Go package and type (`V1PodSpec` →
    `io.k8s.api.core.v1.PodSpec`)."""
    prefix = re.match(r"^(CoreV1|DiscoveryV1|EventsV1|ApiextensionsV1|AuthorizationV1|V1)", model)
    name = model[len(prefix.group(1)):] if prefix else model
    p = prefix.group(1) if prefix else ""
    if p == "EventsV1":
        package = "io.k8s.api.events.v1"
    elif p == "DiscoveryV1" or name in DISCOVERY:
        package = "io.k8s.api.discovery.v1"
    elif p == "ApiextensionsV1" or name.startswith(APIEXTENSIONS):
        package = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1"
    elif name in META:
        package = "io.k8s.apimachinery.pkg.apis.meta.v1"
    elif name.startswith(APPS):
        package = "io.k8s.api.apps.v1"
    elif name.startswith(BATCH):
        package = "io.k8s.api.batch.v1"
    elif name == "StorageClass":
        package = "io.k8s.api.storage.v1"
    elif name.startswith("PodDisruptionBudget") or name == "Eviction":
        package = "io.k8s.api.policy.v1"
    elif name.startswith("Lease"):
        package = "io.k8s.api.coordination.v1"
    elif name in ("Scale", "ScaleSpec", "ScaleStatus"):
        package = "io.k8s.api.autoscaling.v1"
    elif name.startswith(AUTHORIZATION):
        package = "io.k8s.api.authorization.v1"
    else:
        package = "io.k8s.api.core.v1"
    return f"{package}.{name}"


types = {}


def field_type(owner, attr, t):
    """The field's type in the table's notation: `string`, `integer`, `number`, `boolean`,
    `byte`, `time`, `int-or-string`, `object` (free-form), `[]T`, `{}T` (a map) or a model."""
    if (owner, attr) in INT_OR_STRING:
        return "int-or-string"
    list_of = re.fullmatch(r"[lL]ist\[(.+)\]", t)
    if list_of:
        return "[]" + field_type(owner, attr, list_of.group(1))
    dict_of = re.fullmatch(r"[dD]ict\(str, (.+)\)|Dict\[str, (.+)\]", t)
    if dict_of:
        return "{}" + field_type(owner, attr, dict_of.group(1) or dict_of.group(2))
    scalar = {"str": "string", "int": "integer", "float": "number", "bool": "boolean",
              "bytes": "byte", "datetime": "time", "object": "object"}
    if t in scalar:
        return scalar[t]
    if hasattr(m, t) and hasattr(getattr(m, t), "attribute_map"):
        walk(t)
        return t
    return "object"


def walk(name):
    if name in types:
        return
    cls = getattr(m, name)
    types[name] = None
    types[name] = sorted(
        (cls.attribute_map[attr], field_type(name, attr, t)) for attr, t in cls.openapi_types.items()
    )


for root in roots() + EXTRA_ROOTS:
    walk(root)

print(f"""//! Generated by scripts/gen-openapi-types.py from the official Python client {kubernetes.__version__}'s
//! models (the Kubernetes OpenAPI schema): every type the served kinds reach from their roots,
//! with its OpenAPI component name and each field's JSON name and type. Do not edit by hand.

/// One model: (model, component name, its fields sorted by JSON name as (name, type)). A type
/// is `string`, `integer`, `number`, `boolean`, `byte`, `time`, `int-or-string`, `object`
/// (free-form), `[]T` (a list), `{{}}T` (a map with string keys) or a model's name.
pub type Model = (&'static str, &'static str, &'static [(&'static str, &'static str)]);

/// Every model, sorted by name.
pub const TYPES: &[Model] = &[""")
for name in sorted(types):
    fields = ", ".join(f'("{f}", "{t}")' for f, t in types[name])
    print(f'    ("{name}", "{component(name)}", &[{fields}]),')
print("];")
