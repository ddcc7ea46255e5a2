"""A small Kubernetes controller written with the official Python client: the *greeter*.

Desired state: a custom resource `Greeter` (greeter-crd.json defines it) with `spec.replicas: N`
wants N Pods named <greeter>-0 … <greeter>-(N-1) in its namespace. The controller creates the
missing ones, deletes the extra ones, then records what it did in the Greeter's
`status.observedReplicas` (the status subresource).

It is the loop client-go's reflector and a controller's work function run, written out by hand:
  1. LIST the Greeters and remember the list's resourceVersion;
  2. WATCH from that resourceVersion, reconciling every ADDED/MODIFIED Greeter, remembering the
     resourceVersion of every event (BOOKMARKs included);
  3. when the watch ends (its timeout), WATCH again from the last resourceVersion seen;
  4. when the server answers 410 Gone (that resourceVersion has left the API server's watch
     cache), LIST again (1.);
  5. a write refused with 409 Conflict (someone changed the object since we read it) is retried
     after reading the object again.

Usage (see the README's "Write your own controller"):
    python controller.py [--pause-before-write]
with KUBECONFIG pointing at watchlab-apiserver (or any cluster) where greeter-crd.json is
applied. `--pause-before-write` stops before each status write until a line arrives on stdin,
so you can change the Greeter by hand meanwhile and watch the 409 and the retry.
"""

import json
import sys

from kubernetes import client, config
from kubernetes.client.rest import ApiException

GROUP, VERSION, PLURAL = "example.watchlab.dev", "v1", "greeters"
MANAGED_BY = "app.kubernetes.io/managed-by"
ME = "greeter-controller"


def log(message):
    print(message, flush=True)


class Greeter:
    def __init__(self, pause_before_write=False):
        config.load_kube_config()
        self.core = client.CoreV1Api()
        self.custom = client.CustomObjectsApi()
        self.pause_before_write = pause_before_write

    # -- reconcile ---------------------------------------------------------------------------

    def reconcile(self, greeter):
        """Makes the Pods of `greeter` (a dict as the watch delivers it) what it asks for."""
        meta = greeter["metadata"]
        ns, name = meta["namespace"], meta["name"]
        want = greeter.get("spec", {}).get("replicas", 0)
        image = greeter.get("spec", {}).get("image", "nginx:1.25")
        selector = f"{MANAGED_BY}={ME},greeter={name}"
        pods = self.core.list_namespaced_pod(ns, label_selector=selector).items
        have = {p.metadata.name for p in pods if p.metadata.deletion_timestamp is None}
        wanted = {f"{name}-{i}" for i in range(want)}
        for pod_name in sorted(wanted - have):
            self.create_pod(greeter, pod_name, image)
        for pod_name in sorted(have - wanted):
            self.core.delete_namespaced_pod(pod_name, ns)
            log(f"{ns}/{name}: deleted pod {pod_name}")
        if greeter.get("status", {}).get("observedReplicas") != want:
            self.record_observed(greeter, want)
        log(f"reconciled {ns}/{name}: want={want} have={len(wanted)}")

    def create_pod(self, greeter, pod_name, image):
        meta = greeter["metadata"]
        owner = client.V1OwnerReference(api_version=f"{GROUP}/{VERSION}", kind="Greeter",
                                        name=meta["name"], uid=meta["uid"], controller=True)
        pod = client.V1Pod(
            metadata=client.V1ObjectMeta(
                name=pod_name, owner_references=[owner],
                labels={MANAGED_BY: ME, "greeter": meta["name"]}),
            spec=client.V1PodSpec(containers=[client.V1Container(name="greeter", image=image)]),
        )
        try:
            self.core.create_namespaced_pod(meta["namespace"], pod)
            log(f"{meta['namespace']}/{meta['name']}: created pod {pod_name}")
        except ApiException as e:
            if e.status != 409:  # 409 AlreadyExists: a watch event we had not seen yet
                raise

    def record_observed(self, greeter, want):
        """Writes status.observedReplicas with optimistic concurrency: the Greeter is written back
        as the event showed it, so its resourceVersion is the write's precondition; if someone
        changed it since, the server answers 409 and we read it again and retry."""
        ns, name = greeter["metadata"]["namespace"], greeter["metadata"]["name"]
        if self.pause_before_write:
            log(f"paused before writing the status of {ns}/{name}")
            sys.stdin.readline()
        body = json.loads(json.dumps(greeter))
        for _ in range(5):
            body.setdefault("status", {})["observedReplicas"] = want
            try:
                self.custom.replace_namespaced_custom_object_status(
                    GROUP, VERSION, ns, PLURAL, name, body)
                return
            except ApiException as e:
                if e.status == 404:
                    return  # deleted meanwhile
                if e.status != 409:
                    raise
                log(f"conflict (409) writing {ns}/{name}: {json.loads(e.body)['message']}; "
                    "re-reading")
                body = self.custom.get_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, name)
                if body.get("spec", {}).get("replicas") != want:
                    return  # the desired state changed meanwhile: its own event reconciles it
        log(f"{ns}/{name}: gave up after 5 conflicts")

    # -- list, then watch ----------------------------------------------------------------------

    def list_and_reconcile(self):
        listed = self.custom.list_cluster_custom_object(GROUP, VERSION, PLURAL)
        for greeter in listed["items"]:
            self.reconcile(greeter)
        rv = listed["metadata"]["resourceVersion"]
        log(f"synced: listed {len(listed['items'])} greeters at resourceVersion {rv}")
        return rv

    def watch(self, rv):
        """Watches from `rv`; returns the last resourceVersion seen, or None after a 410."""
        try:
            resp = self.custom.list_cluster_custom_object(
                GROUP, VERSION, PLURAL, watch=True, resource_version=rv,
                allow_watch_bookmarks=True, timeout_seconds=60, _preload_content=False)
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
