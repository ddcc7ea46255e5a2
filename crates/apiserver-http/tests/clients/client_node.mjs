// The official JavaScript client (`@kubernetes/client-node` 2.x), unchanged, against
// watchlab-apiserver. Run by crates/apiserver-http/tests/official_clients.rs with KUBECONFIG
// pointing at a fresh server and NODE_PATH at the installed node_modules. Each check prints
// `ok NAME` or `FAIL NAME: why`; the exit code is the number of failures. A line `@compact` asks
// the Rust test to compact the store (etcd's compaction); it answers `compacted` on stdin. A line
// `@busy` asks it to move the pods watch cache's window of events past every revision so far (80 s
// of virtual time, then about a hundred pod writes); it answers `moved on`.

import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const k8s = await import(
  pathToFileURL(join(process.env.NODE_PATH, '@kubernetes/client-node/dist/index.js')).href
);

const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);
const apps = kc.makeApiClient(k8s.AppsV1Api);
const coordination = kc.makeApiClient(k8s.CoordinationV1Api);
const discovery = kc.makeApiClient(k8s.DiscoveryV1Api);
const NS = 'default';
const checks = [];
const check = (name, fn) => checks.push([name, fn]);
const stdin = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

function expect(cond, what) {
  if (!cond) throw new Error(typeof what === 'string' ? what : JSON.stringify(what));
}

async function compact() {
  console.log('@compact');
  const { value } = await stdin.next();
  expect(value === 'compacted', 'the test did not compact');
}

// Has the test make the cluster busy until the pods watch cache has dropped every event so far
// from its window: watches from those resourceVersions then expire, though etcd still has them.
async function busy() {
  console.log('@busy');
  const { value } = await stdin.next();
  expect(value === 'moved on', 'the test did not move the cache on');
}

// Left alone by the cluster's scheduler (another schedulerName), so only this script writes
// these pods: no race between a read and the write back.
const pod = (name, labels = {}) => ({
  metadata: { name, labels },
  spec: { schedulerName: 'nobody', containers: [{ name: 'app', image: 'nginx:1.25' }] },
});

/** The first `count` events of a watch on `path`, then the watch is aborted. */
function watchEvents(path, query, count) {
  return new Promise((resolve, reject) => {
    const events = [];
    let controller;
    const timer = setTimeout(() => reject(new Error(`watch ${path}: ${events.length} events`)), 20000);
    new k8s.Watch(kc)
      .watch(
        path,
        query,
        (type, obj) => {
          events.push({ type, obj });
          if (events.length === count) {
            clearTimeout(timer);
            controller?.abort();
            resolve(events);
          }
        },
        (err) => {
          clearTimeout(timer);
          if (events.length < count) reject(err ?? new Error(`watch ${path} ended early`));
        },
      )
      .then((c) => {
        controller = c;
        if (events.length >= count) c.abort();
      }, reject);
  });
}

async function status(promise) {
  try {
    await promise;
  } catch (e) {
    expect(e instanceof k8s.ApiException, `not an ApiException: ${e}`);
    return { code: e.code, body: typeof e.body === 'string' ? JSON.parse(e.body) : e.body };
  }
  throw new Error('the request succeeded');
}

const KINDS = [
  ['Namespace', () => core.listNamespace(), (o) => core.readNamespace({ name: o.metadata.name }), '/api/v1/namespaces'],
  ['Node', () => core.listNode(), (o) => core.readNode({ name: o.metadata.name }), '/api/v1/nodes'],
  ['Pod', () => core.listPodForAllNamespaces(), (o) => core.readNamespacedPod(o.metadata), '/api/v1/pods'],
  ['Event', () => core.listEventForAllNamespaces(), (o) => core.readNamespacedEvent(o.metadata), '/api/v1/events'],
  ['Lease', () => coordination.listLeaseForAllNamespaces(), (o) => coordination.readNamespacedLease(o.metadata), '/apis/coordination.k8s.io/v1/leases'],
  ['ReplicaSet', () => apps.listReplicaSetForAllNamespaces(), (o) => apps.readNamespacedReplicaSet(o.metadata), '/apis/apps/v1/replicasets'],
  ['Deployment', () => apps.listDeploymentForAllNamespaces(), (o) => apps.readNamespacedDeployment(o.metadata), '/apis/apps/v1/deployments'],
  ['Service', () => core.listServiceForAllNamespaces(), (o) => core.readNamespacedService(o.metadata), '/api/v1/services'],
  ['Endpoints', () => core.listEndpointsForAllNamespaces(), (o) => core.readNamespacedEndpoints(o.metadata), '/api/v1/endpoints'],
  ['EndpointSlice', () => discovery.listEndpointSliceForAllNamespaces(), (o) => discovery.readNamespacedEndpointSlice(o.metadata), '/apis/discovery.k8s.io/v1/endpointslices'],
  ['ConfigMap', () => core.listConfigMapForAllNamespaces(), (o) => core.readNamespacedConfigMap(o.metadata), '/api/v1/configmaps'],
  ['Secret', () => core.listSecretForAllNamespaces(), (o) => core.readNamespacedSecret(o.metadata), '/api/v1/secrets'],
];

// Creates one object of each kind a fresh cluster may hold none of (the `kubernetes` Service
// exists from the start), so that each one is listed, read and watched below.
async function createOneOfEachNewKind() {
  const metadata = { name: 'js-kinds', labels: { app: 'js-kinds' } };
  await core.createNamespacedService({ namespace: NS, body: {
    metadata, spec: { selector: { app: 'js-kinds' }, ports: [{ port: 80, targetPort: 8080 }] } } });
  await core.createNamespacedEndpoints({ namespace: NS, body: {
    metadata, subsets: [{ addresses: [{ ip: '10.244.1.9' }], ports: [{ port: 8080 }] }] } });
  await discovery.createNamespacedEndpointSlice({ namespace: NS, body: {
    metadata: { name: 'js-kinds-1', labels: { 'kubernetes.io/service-name': 'js-kinds' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.244.1.9'], conditions: { ready: true } }],
    ports: [{ port: 8080 }] } });
  await core.createNamespacedConfigMap({ namespace: NS, body: { metadata, data: { a: '1' } } });
  const secret = await core.createNamespacedSecret({ namespace: NS, body: {
    metadata, stringData: { password: 'hunter2' } } });
  // stringData is merged into data (base64) and never stored.
  expect(secret.data?.password === 'aHVudGVyMg==', JSON.stringify(secret.data));
  expect(secret.stringData === undefined, JSON.stringify(secret.stringData));
  expect(secret.type === 'Opaque', secret.type);
}

check('typed_reads_and_watches_of_every_served_kind', async () => {
  await createOneOfEachNewKind();
  for (const [kind, list, read, path] of KINDS) {
    const listed = await list();
    expect(listed.items.length > 0, `no ${kind} listed`);
    const model = k8s[`V1${kind}`] ?? k8s[`CoreV1${kind}`];
    expect(listed.items[0] instanceof model, `${kind}: not a typed model`);
    const one = await read(listed.items[0]);
    expect(one.metadata.uid === listed.items[0].metadata.uid, `${kind}: read another object`);
    expect(one.metadata.creationTimestamp instanceof Date, `${kind}: creationTimestamp not a Date`);
    const events = await watchEvents(path, { resourceVersion: '0' }, listed.items.length);
    expect(events.every((e) => e.type === 'ADDED'), events.map((e) => e.type));
  }
  const info = (await core.readNode({ name: 'node-a' })).status.nodeInfo;
  for (const field of ['machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage',
    'containerRuntimeVersion', 'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture']) {
    expect(info[field], `node-a nodeInfo.${field} is ${info[field]}`);
  }
});

check('create_replace_patch_delete', async () => {
  const created = await core.createNamespacedPod({ namespace: NS, body: pod('js-crud', { app: 'js' }) });
  expect(created.metadata.uid, 'no uid');
  const got = await core.readNamespacedPod({ name: 'js-crud', namespace: NS });
  got.metadata.labels.tier = 'web';
  const replaced = await core.replaceNamespacedPod({ name: 'js-crud', namespace: NS, body: got });
  expect(replaced.metadata.labels.tier === 'web', replaced.metadata.labels);
  const patched = await core.patchNamespacedPod(
    { name: 'js-crud', namespace: NS, body: { metadata: { labels: { tier: 'db' } } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
  expect(patched.metadata.labels.tier === 'db', patched.metadata.labels);
  await core.deleteNamespacedPod({ name: 'js-crud', namespace: NS, gracePeriodSeconds: 0 });
  const gone = await status(core.readNamespacedPod({ name: 'js-crud', namespace: NS }));
  expect(gone.code === 404, gone);
});

check('conflict_is_409_and_a_reread_wins', async () => {
  await core.createNamespacedPod({ namespace: NS, body: pod('js-409') });
  const a = await core.readNamespacedPod({ name: 'js-409', namespace: NS });
  const b = await core.readNamespacedPod({ name: 'js-409', namespace: NS });
  a.metadata.labels = { writer: 'a' };
  await core.replaceNamespacedPod({ name: 'js-409', namespace: NS, body: a });
  b.metadata.labels = { writer: 'b' };
  const conflict = await status(core.replaceNamespacedPod({ name: 'js-409', namespace: NS, body: b }));
  expect(conflict.code === 409 && conflict.body.reason === 'Conflict', conflict);
  const fresh = await core.readNamespacedPod({ name: 'js-409', namespace: NS });
  fresh.metadata.labels.writer = 'b';
  await core.replaceNamespacedPod({ name: 'js-409', namespace: NS, body: fresh });
});

check('pagination_with_continue_and_an_expired_continue', async () => {
  for (let i = 0; i < 5; i++) {
    await core.createNamespacedPod({ namespace: NS, body: pod(`js-page-${i}`, { paged: 'js' }) });
  }
  const names = [];
  let token;
  do {
    const page = await core.listNamespacedPod({ namespace: NS, labelSelector: 'paged=js', limit: 2, _continue: token });
    names.push(...page.items.map((p) => p.metadata.name));
    token = page.metadata._continue;
  } while (token);
  expect(names.join() === [0, 1, 2, 3, 4].map((i) => `js-page-${i}`).join(), names);
  const first = await core.listNamespacedPod({ namespace: NS, labelSelector: 'paged=js', limit: 2 });
  await core.createNamespacedPod({ namespace: NS, body: pod('js-page-9', { paged: 'js' }) });
  await compact();
  const expired = await status(core.listNamespacedPod({
    namespace: NS, labelSelector: 'paged=js', limit: 2, _continue: first.metadata._continue,
  }));
  expect(expired.code === 410 && expired.body.reason === 'Expired', expired);
  expect(expired.body.message.includes('or use the continue token in this response'), expired);
  const rest = await core.listNamespacedPod({
    namespace: NS, labelSelector: 'paged=js', _continue: expired.body.metadata.continue,
  });
  expect(rest.items.map((p) => p.metadata.name).join() === 'js-page-2,js-page-3,js-page-4,js-page-9',
    rest.items.map((p) => p.metadata.name));
});

check('watch_from_a_resource_version_with_selectors', async () => {
  const listed = await core.listNamespacedPod({ namespace: NS });
  await core.createNamespacedPod({ namespace: NS, body: pod('js-watch-a', { watched: 'js' }) });
  await core.createNamespacedPod({ namespace: NS, body: pod('js-watch-b') });
  await core.deleteNamespacedPod({ name: 'js-watch-a', namespace: NS, gracePeriodSeconds: 0 });
  const rv = listed.metadata.resourceVersion;
  const byLabel = await watchEvents(`/api/v1/namespaces/${NS}/pods`, { resourceVersion: rv, labelSelector: 'watched=js' }, 2);
  expect(byLabel.map((e) => `${e.type}:${e.obj.metadata.name}`).join() === 'ADDED:js-watch-a,DELETED:js-watch-a',
    byLabel.map((e) => e.type));
  const byField = await watchEvents(`/api/v1/namespaces/${NS}/pods`, { resourceVersion: rv, fieldSelector: 'metadata.name=js-watch-b' }, 1);
  expect(byField[0].obj.metadata.name === 'js-watch-b', byField);
});

check('send_initial_events_ends_with_a_bookmark', async () => {
  const nodes = await core.listNode();
  const events = await watchEvents('/api/v1/nodes', {
    sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true,
  }, nodes.items.length + 1);
  expect(events.map((e) => e.type).join() === [...nodes.items.map(() => 'ADDED'), 'BOOKMARK'].join(),
    events.map((e) => e.type));
  expect(events.at(-1).obj.metadata.annotations['k8s.io/initial-events-end'] === 'true', events.at(-1));
});

check('a_watch_from_a_resource_version_the_watch_cache_dropped_is_410', async () => {
  const listed = await core.listNamespacedPod({ namespace: NS });
  const rv = listed.metadata.resourceVersion;
  await core.createNamespacedPod({ namespace: NS, body: pod('js-gone') });
  await core.deleteNamespacedPod({ name: 'js-gone', namespace: NS, gracePeriodSeconds: 0 });
  await busy();
  const [event] = await watchEvents(`/api/v1/namespaces/${NS}/pods`, { resourceVersion: rv }, 1);
  expect(event.type === 'ERROR' && event.obj.code === 410 && event.obj.reason === 'Expired', event);
  expect(event.obj.message.startsWith(`too old resource version: ${rv} (`), event.obj.message);
  // etcd still has that revision: an Exact list (read from etcd) shows the pods as they were...
  const names = (l) => l.items.map((p) => p.metadata.name).sort().join();
  const exact = await core.listNamespacedPod({ namespace: NS, resourceVersion: rv, resourceVersionMatch: 'Exact' });
  expect(exact.metadata.resourceVersion === rv && names(exact) === names(listed), names(exact));
  // ...until etcd compacts it.
  await compact();
  const expired = await status(core.listNamespacedPod({ namespace: NS, resourceVersion: rv, resourceVersionMatch: 'Exact' }));
  expect(expired.code === 410 && expired.body.message === 'The resourceVersion for the provided list is too old.', expired);
});

check('make_informer_lists_then_watches', async () => {
  const path = `/api/v1/namespaces/${NS}/pods`;
  const informer = k8s.makeInformer(kc, path, () => core.listNamespacedPod({ namespace: NS, labelSelector: 'inf=yes' }), 'inf=yes');
  await core.createNamespacedPod({ namespace: NS, body: pod('js-inf-1', { inf: 'yes' }) });
  const seen = [];
  const done = new Promise((resolve, reject) => {
    informer.on('add', (p) => seen.push(`add:${p.metadata.name}`));
    informer.on('update', (p) => seen.push(`update:${p.metadata.name}:${p.metadata.labels.step}`));
    informer.on('delete', (p) => {
      seen.push(`delete:${p.metadata.name}`);
      resolve();
    });
    informer.on('error', reject);
  });
  await informer.start();
  expect(informer.list(NS).map((p) => p.metadata.name).join() === 'js-inf-1', informer.list(NS));
  await core.createNamespacedPod({ namespace: NS, body: pod('js-inf-2', { inf: 'yes' }) });
  await core.patchNamespacedPod(
    { name: 'js-inf-2', namespace: NS, body: { metadata: { labels: { step: '2' } } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
  await core.deleteNamespacedPod({ name: 'js-inf-2', namespace: NS, gracePeriodSeconds: 0 });
  await done;
  await informer.stop();
  expect(seen.join() === 'add:js-inf-1,add:js-inf-2,update:js-inf-2:2,delete:js-inf-2', seen);
  expect(informer.get('js-inf-1', NS)?.metadata.name === 'js-inf-1', 'cache lost js-inf-1');
});

check('custom_resources_through_the_official_client', async () => {
  const ext = kc.makeApiClient(k8s.ApiextensionsV1Api);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  await ext.createCustomResourceDefinition({
    body: {
      metadata: { name: 'jsgreetings.example.com' },
      spec: {
        group: 'example.com', scope: 'Namespaced',
        names: { plural: 'jsgreetings', kind: 'JsGreeting' },
        versions: [{
          name: 'v1', served: true, storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer', minimum: 0 } } } } } },
        }],
      },
    },
  });
  const crd = await ext.readCustomResourceDefinition({ name: 'jsgreetings.example.com' });
  expect(crd instanceof k8s.V1CustomResourceDefinition, 'not a typed model');
  expect(crd.status.conditions.some((c) => c.type === 'Established' && c.status === 'True'), crd.status);
  expect(crd.status.acceptedNames.kind === 'JsGreeting', crd.status.acceptedNames);
  const where = { group: 'example.com', version: 'v1', namespace: NS, plural: 'jsgreetings' };
  const listed = await custom.listNamespacedCustomObject(where);
  await custom.createNamespacedCustomObject({
    ...where, body: { apiVersion: 'example.com/v1', kind: 'JsGreeting', metadata: { name: 'hi' }, spec: { replicas: 1 } },
  });
  const informer = k8s.makeInformer(kc, `/apis/example.com/v1/namespaces/${NS}/jsgreetings`,
    () => custom.listNamespacedCustomObject(where));
  await informer.start();
  expect(informer.get('hi', NS)?.spec?.replicas === 1, informer.list(NS));
  await informer.stop();
  const events = await watchEvents(`/apis/example.com/v1/namespaces/${NS}/jsgreetings`,
    { resourceVersion: listed.metadata.resourceVersion }, 1);
  expect(events[0].type === 'ADDED' && events[0].obj.metadata.name === 'hi', events);
  const refused = await status(custom.replaceNamespacedCustomObject({
    ...where, name: 'hi',
    body: { apiVersion: 'example.com/v1', kind: 'JsGreeting', metadata: { name: 'hi', resourceVersion: listed.metadata.resourceVersion }, spec: { replicas: 2 } },
  }));
  expect(refused.code === 409, refused);
  await custom.deleteNamespacedCustomObject({ ...where, name: 'hi' });
});

let failures = 0;
for (const [name, fn] of checks) {
  try {
    await fn();
    console.log(`ok ${name}`);
  } catch (e) {
    failures += 1;
    console.log(`FAIL ${name}: ${e?.stack ?? e}`);
  }
}
process.exit(failures);
