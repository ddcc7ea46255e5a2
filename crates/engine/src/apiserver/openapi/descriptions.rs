//! The descriptions `kubectl explain` prints: short texts of watchlab's own for the kinds and
//! the fields a learner meets first (what the field is for and what the cluster does with it),
//! not the upstream documentation. A field without one is explained as `<no description>`.

/// `apiVersion`, on every object.
pub const API_VERSION: &str = "The group and version of the schema this object is written in (`v1`, `apps/v1`). The API server refuses a kind under a version that does not serve it.";
/// `kind`, on every object.
pub const KIND: &str =
    "The object's type (`Pod`, `Deployment`), matching the resource the request is sent to.";
/// `metadata`, on every object.
pub const METADATA: &str = "What every object has: its name, namespace, labels and annotations, and what the API server fills in (uid, resourceVersion, creationTimestamp...).";

/// (type, description), by the type's name without its package.
const TYPES: &[(&str, &str)] = &[
    ("Pod", "One or more containers scheduled together onto one node, sharing its network address. The scheduler writes spec.nodeName; that node's kubelet runs the containers and reports their state in status."),
    ("PodSpec", "What the pod should run and where: its containers, restart policy and scheduling constraints."),
    ("PodStatus", "What the kubelet last reported about the pod: its phase, conditions, IP and each container's state."),
    ("Container", "One program run in the pod: the image to start, its command, ports, environment and resources."),
    ("ContainerStatus", "One container's state as the kubelet reports it: waiting, running or terminated, and how often it restarted."),
    ("Deployment", "Keeps a number of identical pods running from one pod template. A change to the template rolls out through a new ReplicaSet while the old one is scaled down."),
    ("DeploymentSpec", "The wanted state of a Deployment: how many replicas, which pods it owns (selector), what they look like (template) and how a change rolls out (strategy)."),
    ("DeploymentStatus", "What the deployment controller last observed: replicas counted by the ReplicaSets it owns, and the rollout's conditions."),
    ("DeploymentStrategy", "How a changed template replaces the old pods: RollingUpdate (a few at a time) or Recreate (all old ones first)."),
    ("ReplicaSet", "Keeps a number of pods matching its selector running, creating or deleting pods from its template. Usually owned by a Deployment."),
    ("ReplicaSetSpec", "The wanted number of pods, which pods count (selector) and the template new ones are made from."),
    ("Service", "A stable virtual IP and DNS name in front of the pods its selector matches; kube-proxy on every node forwards the Service's ports to the ready pods."),
    ("ServiceSpec", "Which pods (selector), which ports, and how the Service is reached (type: ClusterIP, NodePort, LoadBalancer, ExternalName)."),
    ("ServicePort", "One port of the Service and the port of the pods it forwards to."),
    ("Node", "A machine the cluster runs pods on. Its kubelet registers it and renews its Lease; the node lifecycle controller marks it NotReady when the renewals stop."),
    ("NodeStatus", "What the node's kubelet reports: conditions (Ready), addresses, capacity and allocatable resources."),
    ("Namespace", "A scope for names: objects of namespaced kinds live in one namespace. Deleting a namespace deletes everything in it."),
    ("ConfigMap", "Non-secret configuration as key-value pairs, for pods to read as environment variables or files."),
    ("Secret", "Sensitive data (passwords, tokens, keys) as key-value pairs, base64-encoded in `data`."),
    ("Event", "A report that something happened to an object (scheduled, pulled, killed...), written by the component that saw it. Events expire after an hour."),
    ("Lease", "A lock with a holder and a renewal time: kubelets renew one each as a heartbeat, controllers use them to elect a leader."),
    ("EndpointSlice", "Some of a Service's endpoints: the addresses of the pods it selects and whether each is ready, written by the EndpointSlice controller and watched by every kube-proxy."),
    ("Endpoints", "The addresses of the pods behind a Service, in one object (the older API; EndpointSlices replace it)."),
    ("CustomResourceDefinition", "Defines a new resource: its group, names, versions and the schema of its objects. Once established the API server serves it like a built-in kind."),
    ("ObjectMeta", METADATA),
    ("LabelSelector", "Selects objects by their labels: every matchLabels pair and every matchExpressions requirement must hold. An empty selector matches everything."),
    ("PodTemplateSpec", "The pods a controller creates: their metadata (labels the selector must match) and spec."),
    ("OwnerReference", "An object this one belongs to. The garbage collector deletes an object once all its owners are gone."),
    ("Scale", "The replica count of a scalable resource, read and written through its scale subresource (`kubectl scale`)."),
    ("Status", "The outcome of a request that returns no object: a failure's reason and code, or a delete's success."),
];

/// (type, field, description).
const FIELDS: &[(&str, &str, &str)] = &[
    ("ObjectMeta", "name", "The object's name, unique among objects of its kind in its namespace."),
    ("ObjectMeta", "namespace", "The namespace the object lives in; empty for cluster-scoped kinds."),
    ("ObjectMeta", "labels", "Key-value pairs that selectors match (a Service's, a ReplicaSet's, `kubectl get -l`)."),
    ("ObjectMeta", "annotations", "Key-value pairs for tools to store data in; not used for selection."),
    ("ObjectMeta", "uid", "Set by the API server when the object is created; never reused, so it tells a re-created object from the old one of the same name."),
    ("ObjectMeta", "resourceVersion", "The etcd revision at which the object was last written, set by the API server. An update that carries it succeeds only if nobody wrote the object since (409 Conflict otherwise); a watch resumes from it."),
    ("ObjectMeta", "generation", "Counts changes to the spec; controllers report the generation they acted on in status.observedGeneration."),
    ("ObjectMeta", "creationTimestamp", "When the API server stored the object first."),
    ("ObjectMeta", "deletionTimestamp", "Set when deletion was requested while finalizers remain; the object goes once the list is empty."),
    ("ObjectMeta", "finalizers", "Work that must finish before the object is deleted; each is removed by the controller that did it."),
    ("ObjectMeta", "ownerReferences", "The objects this one belongs to (a ReplicaSet's pods name the ReplicaSet)."),
    ("ObjectMeta", "generateName", "A prefix the API server completes with random characters when name is empty."),
    ("ObjectMeta", "managedFields", "Which manager (kubectl, a controller) set which fields, and when; server-side apply reads it to find conflicts."),
    ("PodSpec", "containers", "The containers of the pod; at least one. The list merges by name."),
    ("PodSpec", "initContainers", "Containers run one after the other, each to completion, before the others start."),
    ("PodSpec", "nodeName", "The node the pod runs on. The scheduler sets it through the binding subresource; a pod created with it skips the scheduler."),
    ("PodSpec", "restartPolicy", "When the kubelet restarts a container that ended: Always (the default), OnFailure or Never."),
    ("PodSpec", "nodeSelector", "Labels a node must have for the pod to be scheduled onto it."),
    ("PodSpec", "tolerations", "The taints of nodes this pod accepts."),
    ("PodSpec", "terminationGracePeriodSeconds", "How long the kubelet waits after asking the containers to stop before killing them (default 30)."),
    ("PodSpec", "volumes", "Storage the containers can mount."),
    ("PodStatus", "phase", "Pending, Running, Succeeded, Failed or Unknown: where the pod is in its life."),
    ("PodStatus", "conditions", "PodScheduled, Initialized, ContainersReady, Ready: each True or False, with when it last changed."),
    ("PodStatus", "podIP", "The address the pod got on its node's network."),
    ("PodStatus", "containerStatuses", "The state of each container, as the kubelet last reported it."),
    ("Container", "name", "The container's name, unique in the pod (the merge key of the list)."),
    ("Container", "image", "The image to run (`nginx:1.27`)."),
    ("Container", "command", "The program to run, replacing the image's entrypoint."),
    ("Container", "args", "The program's arguments, replacing the image's default ones."),
    ("Container", "ports", "The ports the container listens on; informational, a Service can name them."),
    ("Container", "env", "Environment variables of the container."),
    ("Container", "resources", "The CPU and memory the container requests (what the scheduler counts) and its limits."),
    ("Container", "livenessProbe", "How the kubelet checks the container is alive; it restarts the container when the probe keeps failing."),
    ("Container", "readinessProbe", "How the kubelet checks the container can serve; a pod that is not ready is taken out of its Services' endpoints."),
    ("Container", "imagePullPolicy", "When the image is pulled: Always, IfNotPresent or Never."),
    ("DeploymentSpec", "replicas", "How many pods should run; 1 when left out. `kubectl scale` writes it through the scale subresource."),
    ("DeploymentSpec", "selector", "Which pods belong to the deployment; it must match the template's labels and cannot change."),
    ("DeploymentSpec", "template", "The pods to run. Changing it starts a rollout."),
    ("DeploymentSpec", "strategy", "How a new template replaces the old pods."),
    ("DeploymentSpec", "revisionHistoryLimit", "How many old ReplicaSets to keep for `kubectl rollout undo` (default 10)."),
    ("DeploymentSpec", "minReadySeconds", "How long a new pod must be ready before it counts as available."),
    ("DeploymentSpec", "paused", "While true, template changes are not rolled out."),
    ("DeploymentSpec", "progressDeadlineSeconds", "How long a rollout may make no progress before the deployment reports it failed (default 600)."),
    ("DeploymentStatus", "replicas", "Pods of all the deployment's ReplicaSets."),
    ("DeploymentStatus", "readyReplicas", "Pods that are ready."),
    ("DeploymentStatus", "availableReplicas", "Pods ready for at least minReadySeconds."),
    ("DeploymentStatus", "updatedReplicas", "Pods made from the current template."),
    ("DeploymentStatus", "observedGeneration", "The generation the controller last acted on."),
    ("ReplicaSetSpec", "replicas", "How many pods should run; 1 when left out."),
    ("ReplicaSetSpec", "selector", "Which pods count towards replicas; it must match the template's labels."),
    ("ReplicaSetSpec", "template", "What a pod the ReplicaSet creates looks like."),
    ("ServiceSpec", "selector", "The labels of the pods the Service forwards to."),
    ("ServiceSpec", "ports", "The ports the Service listens on and where each forwards."),
    ("ServiceSpec", "type", "ClusterIP (the default: a virtual IP inside the cluster), NodePort, LoadBalancer or ExternalName."),
    ("ServiceSpec", "clusterIP", "The Service's virtual IP, allocated by the API server from the service range; cannot change."),
    ("ServicePort", "port", "The port the Service listens on."),
    ("ServicePort", "targetPort", "The pods' port (a number or a container port's name); the same as port when left out."),
    ("ServicePort", "protocol", "TCP (the default), UDP or SCTP."),
    ("NodeSpec", "unschedulable", "While true no new pod is scheduled onto the node (`kubectl cordon`)."),
    ("NodeSpec", "taints", "Marks that keep pods off the node unless they tolerate them."),
    ("NodeStatus", "conditions", "Ready and the pressure conditions, as the kubelet reports them."),
    ("ConfigMap", "data", "The configuration, as string values."),
    ("Secret", "data", "The secret values, base64-encoded."),
    ("Secret", "stringData", "Values given as plain text; the API server encodes them into data."),
    ("Secret", "type", "What the secret holds (`Opaque`, `kubernetes.io/tls`...)."),
    ("LeaseSpec", "holderIdentity", "Who holds the lease."),
    ("LeaseSpec", "renewTime", "When the holder last renewed it."),
    ("LeaseSpec", "leaseDurationSeconds", "How long the lease stays held after a renewal."),
];

/// The description of a type (by its name without package).
pub fn of_type(name: &str) -> Option<&'static str> {
    TYPES.iter().find(|(t, _)| *t == name).map(|(_, d)| *d)
}

/// The description of a type's field; `apiVersion`, `kind` and `metadata` have the same one on
/// every kind.
pub fn field(ty: &str, field: &str) -> Option<&'static str> {
    if let Some((_, _, d)) = FIELDS.iter().find(|(t, f, _)| *t == ty && *f == field) {
        return Some(d);
    }
    match field {
        "apiVersion" => Some(API_VERSION),
        "kind" => Some(KIND),
        "metadata" if ty != "ObjectMeta" => Some(METADATA),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_described_field_is_a_field_of_its_type() {
        for (ty, f, _) in FIELDS {
            let found = super::super::types::TYPES.iter().any(|(_, name, fields)| {
                name.rsplit('.').next() == Some(ty) && fields.iter().any(|(n, _)| n == f)
            });
            assert!(found, "{ty}.{f}");
        }
        assert_eq!(field("Pod", "kind"), Some(KIND));
        assert!(of_type("Deployment").is_some());
    }
}
