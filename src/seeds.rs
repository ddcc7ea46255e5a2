//! What the two seed texts bring to the page verbatim: the kubectl command lines they show and
//! the manifest their conflicting `kubectl apply -f orders-deploy.yaml` applies; and the files
//! the custom-resource scenario applies (the engine's example operator's definition and a
//! Website) and the Service scenario's pod whose readiness fails, so the console holds them
//! under their names.

/// The namespace and Deployment the texts use (the engine's seed objects).
pub const SEED_NAMESPACE: &str = "production";
pub const SEED_DEPLOYMENT: &str = "orders-api";

/// The file name the texts apply.
pub const ORDERS_DEPLOY_FILE: &str = "orders-deploy.yaml";

/// The Deployment the texts call `orders-api` in namespace `production` (3 replicas, as in the
/// node-c case study). Prefills the console's editor.
pub const ORDERS_DEPLOY_YAML: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: orders-api
  namespace: production
  labels:
    app: orders-api
spec:
  replicas: 3
  selector:
    matchLabels:
      app: orders-api
  template:
    metadata:
      labels:
        app: orders-api
    spec:
      containers:
      - name: orders-api
        image: orders-api:2.4.1
        ports:
        - containerPort: 8080
";

/// Every console command the texts show, in reading order.
pub const SEED_COMMANDS: [&str; 8] = [
    "kubectl get pods -n production -w",
    "kubectl run debug-tools --image=debug-tools:1.0 -n production",
    "kubectl get deployment orders-api -n production -o jsonpath='{.metadata.resourceVersion}'",
    "kubectl label deployment orders-api -n production team=orders --overwrite",
    "kubectl get events -n production --sort-by=.lastTimestamp",
    "kubectl get pods -l app=nginx",
    "kubectl get --raw '/api/v1/namespaces/default/pods?watch=true&labelSelector=app%3Dnginx'",
    "kubectl apply -f orders-deploy.yaml",
];

/// The example operator's CustomResourceDefinition, as the console's file of this name.
pub const WEBSITE_CRD_FILE: &str = "website-crd.yaml";
pub const WEBSITE_CRD_YAML: &str = watchlab_engine::controllers::website::CRD_YAML;

/// A Website for the operator to reconcile, as the console's file of this name.
pub const WEBSITE_FILE: &str = "website.yaml";
pub const WEBSITE_YAML: &str = watchlab_engine::controllers::website::WEBSITE_YAML;

/// The Service scenario's pod whose readiness fails, as the console's file of this name.
pub const ORDERS_CANARY_FILE: &str = "orders-canary.yaml";

/// A pod the `orders-api` Service selects (label `app=orders-api`; no owner) whose process hangs
/// 30 s after each start (`watchlab.dev/behaviour`): its readiness probe (every 5 s, three
/// failures) takes it out of the endpoints, its liveness probe (every 10 s, six failures)
/// restarts it a little later.
pub const ORDERS_CANARY_YAML: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: orders-canary
  namespace: production
  labels:
    app: orders-api
  annotations:
    watchlab.dev/behaviour: unhealthy-after=30s
spec:
  containers:
  - name: orders-api
    image: orders-api:2.5.0-rc.1
    ports:
    - containerPort: 8080
    readinessProbe:
      httpGet: {path: /ready, port: 8080}
      periodSeconds: 5
    livenessProbe:
      httpGet: {path: /healthz, port: 8080}
      periodSeconds: 10
      failureThreshold: 6
";
