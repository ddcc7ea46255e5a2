"""A small Kubernetes controller written with the official Python client: the *greeter*.

Desired state: a Namespace annotated `greeter.watchlab.dev/replicas: "N"` wants N Pods named
greeter-0 … greeter-(N-1) in it. The controller creates the missing ones, deletes the extra ones,
then records what it did in the annotation `greeter.watchlab.dev/observed` of the Namespace.

It is the loop client-go's reflector and a controller's work function run, written out by hand:
  1. LIST the Namespaces and remember the list's resourceVersion;
  2. WATCH from that resourceVersion, reconciling every ADDED/MODIFIED Namespace, remembering the
     resourceVersion of every event (BOOKMARKs included);
  3. when the watch ends (its timeout), WATCH again from the last resourceVersion seen;
  4. when the server answers 410 Gone (that resourceVersion was compacted), LIST again (1.);
  5. a write refused with 409 Conflict (someone changed the object since we read it) is retried
     after reading the object again.

Usage (see the README's "Write your own controller"):
    python controller.py [--pause-before-write]
with KUBECONFIG pointing at watchlab-apiserver (or any cluster). `--pause-before-write` stops
before each status write until a line arrives on stdin, so you can change the Namespace by hand
meanwhile and watch the 409 and the retry.
"""

import json
import sys

from kubernetes import client, config
from kubernetes.client.rest import ApiException

WANT = "greeter.watchlab.dev/replicas"
OBSERVED = "greeter.watchlab.dev/observed"
MANAGED = {"app.kubernetes.io/managed-by": "greeter-controller"}
SELECTOR = ",".join(f"{k}={v}" for k, v in MANAGED.items())


def log(message):
    print(message, flush=True)


class Greeter:
    def __init__(self, pause_before_write=False):
        config.load_kube_config()
        self.core = client.CoreV1Api()
        self.pause_before_write = pause_before_write

    # -- reconcile ---------------------------------------------------------------------------

    def reconcile(self, ns):
        """Makes the Pods of Namespace `ns` (a dict as the watch delivers it) what it asks for."""
        name = ns["metadata"]["name"]
        annotations = ns["metadata"].get("annotations") or {}
        if WANT not in annotations:
            return
        try:
            want = int(annotations[WANT])
        except ValueError:
            log(f"{name}: {WANT}={annotations[WANT]!r} is not a number; ignored")
            return
        pods = self.core.list_namespaced_pod(name, label_selector=SELECTOR).items
        have = {p.metadata.name for p in pods if p.metadata.deletion_timestamp is None}
        wanted = {f"greeter-{i}" for i in range(want)}
        for pod_name in sorted(wanted - have):
            self.create_pod(name, pod_name)
        for pod_name in sorted(have - wanted):
            self.core.delete_namespaced_pod(pod_name, name)
            log(f"{name}: deleted pod {pod_name}")
        if annotations.get(OBSERVED) != str(want):
            self.record_observed(ns, want)
        log(f"reconciled {name}: want={want} have={len(wanted)}")

    def create_pod(self, namespace, pod_name):
        pod = client.V1Pod(
            metadata=client.V1ObjectMeta(name=pod_name, labels=dict(MANAGED)),
            spec=client.V1PodSpec(containers=[
                client.V1Container(name="greeter", image="nginx:1.25")]),
        )
        try:
            self.core.create_namespaced_pod(namespace, pod)
            log(f"{namespace}: created pod {pod_name}")
        except ApiException as e:
            if e.status != 409:  # 409 AlreadyExists: a watch event we had not seen yet
                raise

    def record_observed(self, ns, want):
        """Writes the status annotation with optimistic concurrency: the Namespace is written
        back as the event showed it, so its resourceVersion is the write's precondition; if
        someone changed it since, the server answers 409 and we read it again and retry."""
        name = ns["metadata"]["name"]
        if self.pause_before_write:
            log(f"paused before writing the status of {name}")
            sys.stdin.readline()
        body = json.loads(json.dumps(ns))
        for _ in range(5):
            body["metadata"].setdefault("annotations", {})[OBSERVED] = str(want)
            try:
                self.core.replace_namespace(name, body)
                return
            except ApiException as e:
                if e.status != 409:
                    raise
                log(f"conflict (409) writing {name}: {json.loads(e.body)['message']}; re-reading")
                body = self.core.api_client.sanitize_for_serialization(
                    self.core.read_namespace(name))
                if body["metadata"].get("annotations", {}).get(WANT) != str(want):
                    return  # the desired state changed meanwhile: its own event reconciles it
        log(f"{name}: gave up after 5 conflicts")

    # -- list, then watch ----------------------------------------------------------------------

    def list_and_reconcile(self):
        listed = self.core.api_client.sanitize_for_serialization(self.core.list_namespace())
        for ns in listed["items"]:
            self.reconcile(ns)
        rv = listed["metadata"]["resourceVersion"]
        log(f"synced: listed {len(listed['items'])} namespaces at resourceVersion {rv}")
        return rv

    def watch(self, rv):
        """Watches from `rv`; returns the last resourceVersion seen, or None after a 410."""
        try:
            resp = self.core.list_namespace(watch=True, resource_version=rv,
                                            allow_watch_bookmarks=True, timeout_seconds=60,
                                            _preload_content=False)
        except ApiException as e:
            if e.status == 410:
                log(f"watch from {rv} expired (410 Gone): relisting")
                return None
            raise
        buffer = b""
        for chunk in resp.stream(4096, decode_content=False):
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if not line.strip():
                    continue
                event = json.loads(line)
                obj = event["object"]
                if event["type"] == "ERROR":
                    if obj.get("code") == 410:
                        log(f"watch from {rv} expired (410 {obj.get('reason')}): relisting")
                        return None
                    raise RuntimeError(f"watch error: {obj}")
                rv = obj["metadata"]["resourceVersion"]
                if event["type"] in ("ADDED", "MODIFIED"):
                    self.reconcile(obj)
        log(f"watch ended; resuming from resourceVersion {rv}")
        return rv

    def run(self):
        rv = None
        while True:
            if rv is None:
                rv = self.list_and_reconcile()
            rv = self.watch(rv)


if __name__ == "__main__":
    Greeter(pause_before_write="--pause-before-write" in sys.argv[1:]).run()
