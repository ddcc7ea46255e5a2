"""The official Python client (`kubernetes` on PyPI), unchanged, against watchlab-apiserver.

Run by crates/apiserver-http/tests/official_clients.rs with KUBECONFIG pointing at a fresh
server. Each check prints `ok NAME` or `FAIL NAME: why`; the exit code is the number of
failures. A line `@compact` asks the Rust test to compact the store (etcd's compaction); a line
`@busy` asks it to move the pods watch cache's window of events past every revision so far (80 s
of virtual time, then about a hundred pod writes). It answers on stdin once done.
"""

import json
import sys
import traceback

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

config.load_kube_config()
core = client.CoreV1Api()
apps = client.AppsV1Api()
coordination = client.CoordinationV1Api()
discovery = client.DiscoveryV1Api()
NS = "default"
CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def compact():
    """Has the test compact the store at its current revision (etcd's compaction)."""
    print("@compact", flush=True)
    expect(sys.stdin.readline().strip() == "compacted", "the test did not compact")


def busy():
    """Has the test make the cluster busy until the pods watch cache has dropped every event so
    far from its window: watches from those resourceVersions then expire, though etcd still has
    them (nothing is compacted)."""
    print("@busy", flush=True)
    expect(sys.stdin.readline().strip() == "moved on", "the test did not move the cache on")


def pod(name, labels=None):
    """A pod the cluster's scheduler leaves alone (another schedulerName), so only this script
    writes it: no race between a read and the write back."""
    return client.V1Pod(
        metadata=client.V1ObjectMeta(name=name, labels=labels or {}),
        spec=client.V1PodSpec(scheduler_name="nobody",
                              containers=[client.V1Container(name="app", image="nginx:1.25")]),
    )


def watch_events(list_fn, count, **kwargs):
    """The first `count` events of a watch (typed objects), then the watch stops."""
    w = watch.Watch()
    events = []
    for event in w.stream(list_fn, _request_timeout=30, **kwargs):
        events.append(event)
        if len(events) >= count:
            w.stop()
    return events


# Every served kind: a typed list, a typed read of one item, and a typed watch that starts with
# the list's items (resourceVersion "0": the synthetic ADDED of each object).
KINDS = [
    ("Namespace", core.list_namespace, lambda o: core.read_namespace(o.metadata.name)),
    ("Node", core.list_node, lambda o: core.read_node(o.metadata.name)),
    ("Pod", core.list_pod_for_all_namespaces,
     lambda o: core.read_namespaced_pod(o.metadata.name, o.metadata.namespace)),
    ("Event", core.list_event_for_all_namespaces,
     lambda o: core.read_namespaced_event(o.metadata.name, o.metadata.namespace)),
    ("Lease", coordination.list_lease_for_all_namespaces,
     lambda o: coordination.read_namespaced_lease(o.metadata.name, o.metadata.namespace)),
    ("ReplicaSet", apps.list_replica_set_for_all_namespaces,
     lambda o: apps.read_namespaced_replica_set(o.metadata.name, o.metadata.namespace)),
    ("Deployment", apps.list_deployment_for_all_namespaces,
     lambda o: apps.read_namespaced_deployment(o.metadata.name, o.metadata.namespace)),
    ("Service", core.list_service_for_all_namespaces,
     lambda o: core.read_namespaced_service(o.metadata.name, o.metadata.namespace)),
    ("Endpoints", core.list_endpoints_for_all_namespaces,
     lambda o: core.read_namespaced_endpoints(o.metadata.name, o.metadata.namespace)),
    ("EndpointSlice", discovery.list_endpoint_slice_for_all_namespaces,
     lambda o: discovery.read_namespaced_endpoint_slice(o.metadata.name, o.metadata.namespace)),
    ("ConfigMap", core.list_config_map_for_all_namespaces,
     lambda o: core.read_namespaced_config_map(o.metadata.name, o.metadata.namespace)),
    ("Secret", core.list_secret_for_all_namespaces,
     lambda o: core.read_namespaced_secret(o.metadata.name, o.metadata.namespace)),
]


def create_one_of_each_new_kind():
    """Typed creates of the kinds a fresh cluster may hold none of (the `kubernetes` Service
    exists from the start), so that each one is listed, read and watched below."""
    meta = client.V1ObjectMeta(name="py-kinds", labels={"app": "py-kinds"})
    core.create_namespaced_service(NS, client.V1Service(
        metadata=meta, spec=client.V1ServiceSpec(
            selector={"app": "py-kinds"},
            ports=[client.V1ServicePort(port=80, target_port=8080)])))
    core.create_namespaced_endpoints(NS, client.V1Endpoints(
        metadata=meta, subsets=[client.V1EndpointSubset(
            addresses=[client.V1EndpointAddress(ip="10.244.1.9")],
            ports=[client.CoreV1EndpointPort(port=8080)])]))
    discovery.create_namespaced_endpoint_slice(NS, client.V1EndpointSlice(
        metadata=client.V1ObjectMeta(name="py-kinds-1",
                                     labels={"kubernetes.io/service-name": "py-kinds"}),
        address_type="IPv4",
        endpoints=[client.V1Endpoint(addresses=["10.244.1.9"],
                                     conditions=client.V1EndpointConditions(ready=True))],
        ports=[client.DiscoveryV1EndpointPort(port=8080)]))
    core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=meta, data={"a": "1"}))
    secret = core.create_namespaced_secret(NS, client.V1Secret(
        metadata=meta, string_data={"password": "hunter2"}))
    # stringData is merged into data (base64) and never stored.
    expect(secret.data == {"password": "aHVudGVyMg=="}, secret.data)
    expect(secret.string_data is None, secret.string_data)
    expect(secret.type == "Opaque", secret.type)


@check
def typed_reads_and_watches_of_every_served_kind():
    create_one_of_each_new_kind()
    for kind, list_fn, read_fn in KINDS:
        listed = list_fn()
        expect(listed.items, f"no {kind} listed")
        expect(type(listed.items[0]).__name__.endswith(kind), f"{kind}: {type(listed.items[0])}")
        one = read_fn(listed.items[0])
        expect(one.metadata.uid == listed.items[0].metadata.uid, f"{kind}: read another object")
        events = watch_events(list_fn, len(listed.items), resource_version="0")
        expect(all(e["type"] == "ADDED" for e in events), f"{kind}: {[e['type'] for e in events]}")
        expect(all(type(e["object"]).__name__.endswith(kind) for e in events),
               f"{kind}: watch objects not typed: {[type(e['object']) for e in events]}")
    node = core.read_node("node-a")
    info = node.status.node_info
    for field in ["machine_id", "system_uuid", "boot_id", "kernel_version", "os_image",
                  "container_runtime_version", "kubelet_version", "kube_proxy_version",
                  "operating_system", "architecture"]:
        expect(getattr(info, field), f"node-a nodeInfo.{field} is empty")


@check
def create_replace_patch_delete():
    created = core.create_namespaced_pod(NS, pod("py-crud", {"app": "py"}))
    expect(created.metadata.uid, "no uid")
    # Read and written back unchanged: the client writes its datetimes with "+00:00".
    got = core.read_namespaced_pod("py-crud", NS)
    got.metadata.labels["tier"] = "web"
    replaced = core.replace_namespaced_pod("py-crud", NS, got)
    expect(replaced.metadata.labels == {"app": "py", "tier": "web"}, replaced.metadata.labels)
    expect(replaced.metadata.creation_timestamp == created.metadata.creation_timestamp,
           "creationTimestamp moved")
    patched = core.patch_namespaced_pod("py-crud", NS, {"metadata": {"labels": {"tier": "db"}}})
    expect(patched.metadata.labels["tier"] == "db", patched.metadata.labels)
    deleted = core.delete_namespaced_pod("py-crud", NS, grace_period_seconds=0)
    expect(deleted.metadata.name == "py-crud", deleted)
    try:
        core.read_namespaced_pod("py-crud", NS)
        raise AssertionError("py-crud still readable after its delete")
    except ApiException as e:
        expect(e.status == 404, e.status)
    # A namespace and a lease with a MicroTime, created from typed models.
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="py-ns")))
    lease = coordination.create_namespaced_lease("py-ns", client.V1Lease(
        metadata=client.V1ObjectMeta(name="holder"),
        spec=client.V1LeaseSpec(holder_identity="me", lease_duration_seconds=15)))
    lease.spec.renew_time = lease.metadata.creation_timestamp
    renewed = coordination.replace_namespaced_lease("holder", "py-ns", lease)
    expect(renewed.spec.renew_time == lease.metadata.creation_timestamp, renewed.spec.renew_time)


@check
def conflict_is_409_and_a_reread_wins():
    core.create_namespaced_pod(NS, pod("py-409"))
    a = core.read_namespaced_pod("py-409", NS)
    b = core.read_namespaced_pod("py-409", NS)
    a.metadata.labels = {"writer": "a"}
    core.replace_namespaced_pod("py-409", NS, a)
    b.metadata.labels = {"writer": "b"}
    try:
        core.replace_namespaced_pod("py-409", NS, b)
        raise AssertionError("a stale resourceVersion was accepted")
    except ApiException as e:
        expect(e.status == 409, e.status)
        expect("the object has been modified; please apply your changes to the latest version"
               in e.body, e.body)
    b = core.read_namespaced_pod("py-409", NS)
    b.metadata.labels["writer"] = "b"
    expect(core.replace_namespaced_pod("py-409", NS, b).metadata.labels["writer"] == "b", "")


@check
def pagination_with_continue_and_an_expired_continue():
    for i in range(7):
        core.create_namespaced_pod(NS, pod(f"py-page-{i}", {"paged": "yes"}))
    names, token = [], None
    while True:
        page = core.list_namespaced_pod(NS, label_selector="paged=yes", limit=3,
                                        _continue=token)
        names += [p.metadata.name for p in page.items]
        token = page.metadata._continue
        if not token:
            break
    expect(names == [f"py-page-{i}" for i in range(7)], names)

    first = core.list_namespaced_pod(NS, label_selector="paged=yes", limit=3)
    core.create_namespaced_pod(NS, pod("py-page-9", {"paged": "yes"}))
    compact()
    try:
        core.list_namespaced_pod(NS, label_selector="paged=yes", limit=3,
                                 _continue=first.metadata._continue)
        raise AssertionError("an expired continue token was served")
    except ApiException as e:
        expect(e.status == 410, e.status)
        status = json.loads(e.body)
        expect(status["reason"] == "Expired", status)
        expect(status["message"].startswith(
            "The provided continue parameter is too old to display a consistent list result. "
            "You can start a new list without the continue parameter, or use the continue token "
            "in this response to retrieve the remainder of the results."), status)
        fresh = status["metadata"].get("continue")
        expect(fresh, "no fresh continue token in the 410")
    rest = core.list_namespaced_pod(NS, label_selector="paged=yes", limit=100, _continue=fresh)
    expect([p.metadata.name for p in rest.items] ==
           [f"py-page-{i}" for i in range(3, 7)] + ["py-page-9"],
           [p.metadata.name for p in rest.items])


@check
def watch_from_a_resource_version_with_selectors():
    listed = core.list_namespaced_pod(NS)
    core.create_namespaced_pod(NS, pod("py-watch-a", {"watched": "yes"}))
    core.create_namespaced_pod(NS, pod("py-watch-b", {"watched": "no"}))
    core.patch_namespaced_pod("py-watch-a", NS, {"metadata": {"labels": {"step": "2"}}})
    events = watch_events(core.list_namespaced_pod, 2, namespace=NS,
                          resource_version=listed.metadata.resource_version,
                          label_selector="watched=yes")
    expect([(e["type"], e["object"].metadata.name) for e in events] ==
           [("ADDED", "py-watch-a"), ("MODIFIED", "py-watch-a")],
           [(e["type"], e["object"].metadata.name) for e in events])
    by_field = watch_events(core.list_namespaced_pod, 1, namespace=NS,
                            resource_version=listed.metadata.resource_version,
                            field_selector="metadata.name=py-watch-b")
    expect(by_field[0]["object"].metadata.name == "py-watch-b", by_field)
    selected = core.list_pod_for_all_namespaces(field_selector="metadata.namespace=default",
                                                label_selector="watched in (yes,no)")
    expect(sorted(p.metadata.name for p in selected.items) == ["py-watch-a", "py-watch-b"],
           [p.metadata.name for p in selected.items])


@check
def send_initial_events_ends_with_a_bookmark():
    nodes = core.list_node()
    events = watch_events(core.list_node, len(nodes.items) + 1, send_initial_events=True,
                          resource_version_match="NotOlderThan", allow_watch_bookmarks=True)
    types = [e["type"] for e in events]
    expect(types == ["ADDED"] * len(nodes.items) + ["BOOKMARK"], types)
    mark = events[-1]["raw_object"]["metadata"]
    expect(mark["annotations"] == {"k8s.io/initial-events-end": "true"}, mark)
    expect(int(mark["resourceVersion"]) >= int(nodes.metadata.resource_version), mark)


@check
def a_watch_from_a_resource_version_the_watch_cache_dropped_is_410():
    listed = core.list_namespaced_pod(NS)
    rv = listed.metadata.resource_version
    core.create_namespaced_pod(NS, pod("py-gone"))
    core.delete_namespaced_pod("py-gone", NS, grace_period_seconds=0)
    busy()
    try:
        # The client retries once on a 410 ERROR event, then raises it.
        watch_events(core.list_namespaced_pod, 1, namespace=NS, resource_version=rv)
        raise AssertionError("a resourceVersion the watch cache dropped was watched")
    except ApiException as e:
        expect(e.status == 410, e.status)
        expect(str(e.reason).startswith(f"Expired: too old resource version: {rv} ("), e.reason)
    # etcd still has that revision: an Exact list (read from etcd) shows the pods as they were...
    names = sorted(p.metadata.name for p in listed.items)
    exact = core.list_namespaced_pod(NS, resource_version=rv, resource_version_match="Exact")
    expect(exact.metadata.resource_version == rv, exact.metadata.resource_version)
    expect(sorted(p.metadata.name for p in exact.items) == names,
           [p.metadata.name for p in exact.items])
    # ...until etcd compacts it.
    compact()
    try:
        core.list_namespaced_pod(NS, resource_version=rv, resource_version_match="Exact")
        raise AssertionError("an Exact list at a compacted revision was served")
    except ApiException as e:
        expect(e.status == 410, e.status)
        message = json.loads(e.body)["message"]
        expect(message == "The resourceVersion for the provided list is too old.", message)


@check
def custom_resources_through_the_official_client():
    ext = client.ApiextensionsV1Api()
    custom = client.CustomObjectsApi()
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "greeting": {"type": "string"}, "replicas": {"type": "integer", "minimum": 0}}}}}
    ext.create_custom_resource_definition(client.V1CustomResourceDefinition(
        metadata=client.V1ObjectMeta(name="greetings.example.com"),
        spec=client.V1CustomResourceDefinitionSpec(
            group="example.com", scope="Namespaced",
            names=client.V1CustomResourceDefinitionNames(plural="greetings", kind="Greeting"),
            versions=[client.V1CustomResourceDefinitionVersion(
                name="v1", served=True, storage=True,
                schema=client.V1CustomResourceValidation(open_apiv3_schema=schema))])))
    crd = ext.read_custom_resource_definition("greetings.example.com")
    established = [c for c in crd.status.conditions if c.type == "Established"]
    expect(established and established[0].status == "True", crd.status.conditions)
    args = ("example.com", "v1", NS, "greetings")
    listed = custom.list_namespaced_custom_object(*args)
    custom.create_namespaced_custom_object(*args, {
        "apiVersion": "example.com/v1", "kind": "Greeting", "metadata": {"name": "hello"},
        "spec": {"greeting": "hi", "replicas": 1}})
    custom.patch_namespaced_custom_object(*args, "hello", {"spec": {"replicas": 2}})
    got = custom.get_namespaced_custom_object(*args, "hello")
    expect(got["spec"] == {"greeting": "hi", "replicas": 2}, got)
    try:
        custom.patch_namespaced_custom_object(*args, "hello", {"spec": {"replicas": -1}})
        raise AssertionError("the schema's minimum was not enforced")
    except ApiException as e:
        expect(e.status == 422, e.status)
    events = watch_events(custom.list_namespaced_custom_object, 2, group="example.com",
                          version="v1", namespace=NS, plural="greetings",
                          resource_version=listed["metadata"]["resourceVersion"])
    expect([e["type"] for e in events] == ["ADDED", "MODIFIED"], [e["type"] for e in events])
    custom.delete_namespaced_custom_object(*args, "hello")
    expect(custom.list_namespaced_custom_object(*args)["items"] == [], "hello survived its delete")


failures = 0
for fn in CHECKS:
    try:
        fn()
        print(f"ok {fn.__name__}", flush=True)
    except Exception:  # report every check, not just the first failure
        failures += 1
        print(f"FAIL {fn.__name__}: {traceback.format_exc()}", flush=True)
sys.exit(failures)
