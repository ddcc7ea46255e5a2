"""kr8s (PyPI `kr8s`, a third-party Python client), unchanged, against watchlab-apiserver.

Run by crates/apiserver-http/tests/official_clients.rs with KUBECONFIG pointing at a fresh server
whose clock runs ten times the wall clock. It checks what kr8s users do besides plain CRUD:
evicting pods past a PodDisruptionBudget (the 429 the budget answers), reading container logs and
listing Events in both API versions. Each check prints `ok NAME` or `FAIL NAME: why`; the exit code
is the number of failures.
"""

import asyncio
import re
import sys
import time
import traceback

import kr8s
import kr8s.asyncio
from kr8s.objects import Deployment, Pod, PodDisruptionBudget

NS = "default"
APP = "kr8s-web"
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


def ready(pod):
    conditions = pod.raw.get("status", {}).get("conditions", [])
    return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)


def ready_pods():
    """The app's Ready pods that are not being deleted, by name."""
    pods = kr8s.get("pods", namespace=NS, label_selector={"app": APP})
    return sorted((p for p in pods if ready(p) and "deletionTimestamp" not in p.metadata),
                  key=lambda p: p.name)


def create_app():
    """Two replicas of nginx, both Ready."""
    Deployment({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": APP, "namespace": NS},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": APP}},
                 "template": {"metadata": {"labels": {"app": APP}},
                              "spec": {"containers": [{"name": "nginx",
                                                       "image": "nginx:1.27"}]}}},
    }).create()
    return wait_for("two Ready pods", lambda: (lambda p: p if len(p) == 2 else None)(ready_pods()))


def evictions(names):
    """Posts a `policy/v1` Eviction for each pod, one after the other; (HTTP code, Status).

    kr8s has no eviction method (0.20): the request goes through its own API client, which
    raises `ServerError` with the server's Status for a 4xx."""
    async def post_all():
        api = await kr8s.asyncio.api()
        answers = []
        for name in names:
            body = {"apiVersion": "policy/v1", "kind": "Eviction",
                    "metadata": {"name": name, "namespace": NS}}
            try:
                async with api.call_api("POST", version="v1", namespace=NS,
                                        url=f"pods/{name}/eviction", json=body) as resp:
                    answers.append((resp.status_code, resp.json()))
            except kr8s.ServerError as e:
                answers.append((e.response.status_code, e.status))
        return answers
    return asyncio.run(post_all())


PODS = create_app()


@check
def a_budget_allows_one_eviction_then_answers_429():
    """minAvailable 1 of 2 Ready pods: the first eviction is allowed, the second right after it
    is refused with the budget's 429 while the first pod's replacement is not Ready yet."""
    PodDisruptionBudget({
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": APP, "namespace": NS},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": APP}}},
    }).create()
    pdb = PodDisruptionBudget.get(APP, namespace=NS)
    wait_for("the disruption controller's count",
             lambda: pdb.refresh() or pdb.raw.get("status", {}).get("disruptionsAllowed") == 1)
    status = pdb.raw["status"]
    expect((status["currentHealthy"], status["desiredHealthy"], status["expectedPods"]) == (2, 1, 2),
           status)
    first, second = evictions([PODS[0].name, PODS[1].name])
    expect(first == (201, {"kind": "Status", "apiVersion": "v1", "metadata": {},
                           "status": "Success", "code": 201}), first)
    code, refused = second
    expect(code == 429, second)
    expect(refused["code"] == 429 and refused["reason"] == "TooManyRequests", refused)
    expect(refused["message"]
           == "Cannot evict pod as it would violate the pod's disruption budget.", refused)
    cause = refused["details"]["causes"][0]
    expect(cause["reason"] == "DisruptionBudget", cause)
    expect(cause["message"].startswith(f"The disruption budget {APP} needs 1 healthy pods"), cause)
    evicted = Pod.get(PODS[0].name, namespace=NS)
    expect("deletionTimestamp" in evicted.metadata, "the evicted pod is not being deleted")


@check
def container_logs():
    """`Pod.logs()`: nginx's start-up lines, `tail_lines`, `timestamps`; a missing pod's 404."""
    pod = Pod.get(PODS[1].name, namespace=NS)
    lines = list(pod.logs())
    expect(lines and lines[0].startswith("/docker-entrypoint.sh: "), lines)
    expect(any("start worker process" in line for line in lines), lines)
    expect(list(pod.logs(tail_lines=2)) == lines[-2:], lines)
    stamped = list(pod.logs(timestamps=True))
    expect(len(stamped) == len(lines), stamped)
    for line, plain in zip(stamped, lines):
        expect(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z ", line), line)
        expect(line.split(" ", 1)[1] == plain, (line, plain))
    try:
        list(Pod({"metadata": {"name": "no-such-pod", "namespace": NS}}).logs())
        raise AssertionError("the log of a missing pod was served")
    except kr8s.ServerError as e:
        expect(e.response.status_code == 404, e.response.status_code)


@check
def events_in_both_versions():
    """`kr8s.get("events")` lists core `v1` Events (`involvedObject`, `message`);
    `events.events.k8s.io` the same Events in `events.k8s.io/v1` (`regarding`, `note`)."""
    name = PODS[1].name
    core = list(kr8s.get("events", namespace=NS,
                         field_selector=f"involvedObject.name={name}"))
    expect(all(e.raw["apiVersion"] == "v1" for e in core), [e.raw for e in core])
    reasons = [e.raw["reason"] for e in core]
    expect(reasons[:1] == ["Scheduled"] and "Started" in reasons, reasons)
    scheduled = core[0].raw
    expect(scheduled["involvedObject"]["kind"] == "Pod", scheduled)
    expect(scheduled["message"].startswith(f"Successfully assigned {NS}/{name} to node-"),
           scheduled)
    new = list(kr8s.get("events.events.k8s.io", namespace=NS,
                        field_selector=f"regarding.name={name}"))
    expect(all(e.raw["apiVersion"] == "events.k8s.io/v1" for e in new), [e.raw for e in new])
    expect([e.raw["reason"] for e in new] == reasons, [e.raw["reason"] for e in new])
    expect(new[0].raw["note"] == scheduled["message"], new[0].raw)
    expect(new[0].raw["regarding"]["name"] == name, new[0].raw)
    expect(new[0].name == core[0].name, (new[0].name, core[0].name))


failures = 0
for fn in CHECKS:
    try:
        fn()
        print(f"ok {fn.__name__}", flush=True)
    except Exception:  # report every check, not just the first failure
        failures += 1
        print(f"FAIL {fn.__name__}: {traceback.format_exc()}", flush=True)
sys.exit(failures)
