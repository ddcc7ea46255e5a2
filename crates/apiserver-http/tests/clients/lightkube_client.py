"""lightkube (PyPI `lightkube`, a third-party Python client), unchanged, against watchlab-apiserver.

Run by crates/apiserver-http/tests/official_clients.rs with KUBECONFIG pointing at a fresh server
whose clock runs ten times the wall clock. It checks what lightkube users do besides plain CRUD:
evicting pods past a PodDisruptionBudget (the 429 the budget answers, as lightkube's `ApiError`),
reading container logs and listing Events in both API versions. Each check prints `ok NAME` or
`FAIL NAME: why`; the exit code is the number of failures.
"""

import datetime
import re
import sys
import time
import traceback

from lightkube import ApiError, Client, codecs
from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.core_v1 import Event as CoreEvent
from lightkube.resources.core_v1 import Namespace, Pod
from lightkube.resources.events_v1 import Event
from lightkube.resources.policy_v1 import PodDisruptionBudget

client = Client()
NS = "default"
APP = "lightkube-web"
CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def wait_for(what, fn, timeout=60):
    """Polls `fn` until it returns something truthy; fails after `timeout` real seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = fn()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def ready_pods():
    """The app's Ready pods that are not being deleted, by name."""
    pods = client.list(Pod, namespace=NS, labels={"app": APP})
    return sorted((p for p in pods if p.metadata.deletionTimestamp is None
                   and any(c.type == "Ready" and c.status == "True"
                           for c in (p.status.conditions or []))),
                  key=lambda p: p.metadata.name)


def create_app():
    """Two replicas of nginx, both Ready."""
    client.create(codecs.from_dict({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": APP, "namespace": NS},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": APP}},
                 "template": {"metadata": {"labels": {"app": APP}},
                              "spec": {"containers": [{"name": "nginx",
                                                       "image": "nginx:1.27"}]}}},
    }))
    return wait_for("two Ready pods", lambda: (lambda p: p if len(p) == 2 else None)(ready_pods()))


def evict(name):
    """lightkube's eviction: a create of the pod's `Eviction` subresource."""
    client.create(Pod.Eviction(metadata=ObjectMeta(name=name, namespace=NS)),
                  name=name, namespace=NS)


PODS = [p.metadata.name for p in create_app()]


@check
def a_budget_allows_one_eviction_then_answers_429():
    """minAvailable 1 of 2 Ready pods: the first eviction is allowed, the second right after it
    is refused with the budget's 429 while the first pod's replacement is not Ready yet."""
    client.create(codecs.from_dict({
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": APP, "namespace": NS},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": APP}}},
    }))
    status = wait_for("the disruption controller's count", lambda: (
        lambda s: s if s and s.disruptionsAllowed == 1 else None)(
            client.get(PodDisruptionBudget, APP, namespace=NS).status))
    expect((status.currentHealthy, status.desiredHealthy, status.expectedPods) == (2, 1, 2),
           status)
    allowed = [c for c in status.conditions if c.type == "DisruptionAllowed"]
    expect([(c.status, c.reason) for c in allowed] == [("True", "SufficientPods")], allowed)
    evict(PODS[0])
    try:
        evict(PODS[1])
        raise AssertionError("the second eviction was allowed")
    except ApiError as e:
        refused = e.status
    expect(refused.code == 429 and refused.reason == "TooManyRequests", refused)
    expect(refused.message
           == "Cannot evict pod as it would violate the pod's disruption budget.", refused)
    cause = refused.details.causes[0]
    expect(cause.reason == "DisruptionBudget", cause)
    expect(cause.message.startswith(f"The disruption budget {APP} needs 1 healthy pods"), cause)
    expect(client.get(Pod, PODS[0], namespace=NS).metadata.deletionTimestamp is not None,
           "the evicted pod is not being deleted")


@check
def container_logs():
    """`client.log()`: nginx's start-up lines, `tail_lines`, `timestamps`; a missing pod's 404."""
    name = PODS[1]
    lines = list(client.log(name, namespace=NS, newlines=False))
    expect(lines and lines[0].startswith("/docker-entrypoint.sh: "), lines)
    expect(any("start worker process" in line for line in lines), lines)
    expect(list(client.log(name, namespace=NS, tail_lines=2, newlines=False)) == lines[-2:],
           lines)
    with_newlines = list(client.log(name, namespace=NS, container="nginx"))
    expect(with_newlines == [line + "\n" for line in lines], with_newlines)
    stamped = list(client.log(name, namespace=NS, timestamps=True, newlines=False))
    expect(len(stamped) == len(lines), stamped)
    for line, plain in zip(stamped, lines):
        expect(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z ", line), line)
        expect(line.split(" ", 1)[1] == plain, (line, plain))
    try:
        list(client.log("no-such-pod", namespace=NS))
        raise AssertionError("the log of a missing pod was served")
    except ApiError as e:
        expect(e.status.code == 404, e.status)


@check
def core_events_of_a_pod():
    """Core `v1` Events of a pod (a field selector on `involvedObject.name`). The kubelet's and
    the controllers' Events carry no `eventTime`, as on a real cluster (their recorders are the
    core ones)."""
    name = PODS[1]
    events = list(client.list(CoreEvent, namespace=NS,
                              fields={"involvedObject.name": name}))
    reasons = [e.reason for e in events]
    expect(reasons[:1] == ["Scheduled"] and "Started" in reasons, reasons)
    expect(events[0].message.startswith(f"Successfully assigned {NS}/{name} to node-"),
           events[0])
    started = next(e for e in events if e.reason == "Started")
    expect(started.eventTime is None and started.source.component == "kubelet", started)


@check
def events_k8s_io_v1_created_listed_and_seen_in_v1():
    """An `events.k8s.io/v1` Event created and listed with lightkube's `events_v1.Event`, and read
    back as a core Event (`note` is its `message`, `regarding` its `involvedObject`).

    The namespace holds only Events written in the new version: lightkube 1.0 decodes
    `eventTime` as required, and an Event a core recorder wrote has `eventTime: null` in
    `events.k8s.io/v1` on a real cluster as here, which it cannot decode."""
    ns = "lightkube-events"
    client.create(Namespace(metadata=ObjectMeta(name=ns)))
    now = datetime.datetime.now(datetime.timezone.utc)
    client.create(Event(
        metadata=ObjectMeta(name="web.rollout", namespace=ns),
        eventTime=now, action="Rollout", reason="Started", type="Normal",
        note="rollout of web started",
        reportingController="example.com/rollouts", reportingInstance="rollouts-0",
        regarding={"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                   "namespace": ns},
    ))
    listed = list(client.list(Event, namespace=ns))
    expect([(e.metadata.name, e.reason, e.note) for e in listed]
           == [("web.rollout", "Started", "rollout of web started")], listed)
    expect(abs((listed[0].eventTime - now).total_seconds()) < 1, (listed[0].eventTime, now))
    expect(listed[0].regarding.kind == "Deployment", listed[0].regarding)
    core = client.get(CoreEvent, "web.rollout", namespace=ns)
    expect(core.message == "rollout of web started", core)
    expect((core.involvedObject.kind, core.involvedObject.name) == ("Deployment", "web"), core)
    expect(core.reportingComponent == "example.com/rollouts", core)


failures = 0
for fn in CHECKS:
    try:
        fn()
        print(f"ok {fn.__name__}", flush=True)
    except Exception:  # report every check, not just the first failure
        failures += 1
        print(f"FAIL {fn.__name__}: {traceback.format_exc()}", flush=True)
sys.exit(failures)
