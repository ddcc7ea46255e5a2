// Live mode end to end: watchlab-apiserver (the engine over HTTP) ← the real `kubectl proxy`
// serving the API at / and dist/ at /ui/ (same origin) ← Chromium on /ui/?live. The page reads
// and watches the server over HTTP only: the nodes appear, a pod created through the page's
// console moves through its phases as the server's controllers run it, the raw watch view shows
// the stream's lines, and views that need the store's internals say they are not available.
// Skipped (with a note) when kubectl is not installed. Screenshots: artifacts/e2e/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, start, stop, waitFor, launch, screenshot } from './helpers.mjs';

// The site under test: the release build (./x dist), or another build for a quick local run;
// WATCHLAB_APISERVER names an already built server binary (else cargo builds it).
const DIST = process.env.WATCHLAB_DIST || join(ROOT, 'dist');
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;
let server, proxy, browser, site, dir;

/** Builds (or finds up to date) the server binary natively, whatever wasm settings are set. */
function serverBinary() {
  const env = { ...process.env };
  // `wasm_env` may point cargo at Debian's toolchain and build-std for the wasm target.
  for (const k of ['CARGO_UNSTABLE_BUILD_STD', 'RUSTC', 'RUSTDOC', 'RUSTC_BOOTSTRAP', 'CARGO_TARGET_DIR',
    'CARGO_BUILD_TARGET', 'CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER']) delete env[k];
  const rustup = join(homedir(), '.cargo', 'bin', 'cargo');
  const cargo = existsSync(rustup) ? rustup : 'cargo';
  const out = execFileSync(cargo, ['build', '-p', 'watchlab-apiserver-http', '--bin', 'watchlab-apiserver',
    '--message-format=json-render-diagnostics'], { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'inherit'] });
  for (const line of out.split('\n')) {
    if (!line.startsWith('{')) continue;
    const m = JSON.parse(line);
    if (m.reason === 'compiler-artifact' && m.target?.name === 'watchlab-apiserver' && m.executable) return m.executable;
  }
  throw new Error('cargo built no watchlab-apiserver executable');
}

/** Waits until a child prints a line matching `re`; returns the match. */
async function printed(child, re, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const m = child.log().match(re);
    if (m) return m;
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`expected ${re} from the child process:\n${child.log().slice(-3000)}`);
}

before(async () => {
  if (!hasKubectl) return;
  assert.ok(existsSync(join(DIST, 'index.html')), `${DIST} must be built first (./x dist)`);
  const bin = process.env.WATCHLAB_APISERVER || serverBinary();
  server = start(bin, ['--port', '0', '--seed', '7']);
  const [, apiAddr] = await printed(server, /on http:\/\/(127\.0\.0\.1:\d+)/, 30_000);
  dir = mkdtempSync(join(tmpdir(), 'watchlab-live-'));
  const kubeconfig = join(dir, 'config');
  writeFileSync(kubeconfig, `apiVersion: v1
kind: Config
clusters:
- cluster:
    server: http://${apiAddr}
  name: watchlab
contexts:
- context:
    cluster: watchlab
    user: learner
  name: watchlab
current-context: watchlab
users:
- name: learner
  user: {}
`);
  proxy = start('kubectl', ['proxy', '--port=0', '--address=127.0.0.1', `--www=${DIST}`, '--www-prefix=/ui/',
    `--kubeconfig=${kubeconfig}`], { env: { ...process.env, HOME: dir, KUBECONFIG: kubeconfig } });
  const [, proxyAddr] = await printed(proxy, /Starting to serve on (127\.0\.0\.1:\d+)/, 30_000);
  site = `http://${proxyAddr}`;
  await waitFor(`${site}/api/v1/nodes`, 'node-c', 20_000, proxy);
  await waitFor(`${site}/ui/`, 'watchlab', 20_000, proxy);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  stop(proxy);
  stop(server);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const output = (page) => page.innerText('#console-output');

async function run(page, line) {
  await page.fill('#console-input', line);
  await page.press('#console-input', 'Enter');
  await page.waitForFunction((l) => document.querySelector('#console-output').textContent.includes(`$ ${l}`), line);
}

test('live mode reads and watches the API server through kubectl proxy', { skip: !hasKubectl && 'kubectl is not installed' }, async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.addInitScript(() => localStorage.setItem('watchlab.lang', 'en'));
  await page.goto(`${site}/ui/?live`);

  // The three nodes, from a list + watch over HTTP, each with its resourceVersion.
  await page.waitForFunction(() => document.querySelectorAll('.node[data-node^="node-"]').length === 3);
  const nodes = await page.$$eval('.node[data-node^="node-"]', (els) => els.map((e) => e.dataset.node));
  assert.deepEqual(nodes, ['node-a', 'node-b', 'node-c']);
  for (const rv of await page.$$eval('.node h2 .rv', (els) => els.map((e) => e.textContent))) {
    assert.match(rv, /^rv [1-9]\d*$/);
  }
  await page.waitForSelector('#live-status.ok');
  assert.equal(await page.textContent('#live-badge'), 'live');
  assert.ok(Number(await page.textContent('#revision')) > 0);
  // The seed Deployment's pods are on the server already.
  await page.waitForFunction(() => document.querySelectorAll('.pod[data-pod^="orders-api-"]').length === 3);

  // Record every status and resourceVersion the card of pod `web` shows, as the page redraws.
  await page.evaluate(() => {
    window.webSeen = [];
    const note = () => {
      const card = document.querySelector('.pod[data-pod="web"]');
      if (!card) return;
      const seen = { status: card.dataset.status, rv: Number(card.querySelector('.rv').textContent) };
      const last = window.webSeen[window.webSeen.length - 1];
      if (!last || last.status !== seen.status || last.rv !== seen.rv) window.webSeen.push(seen);
    };
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });

  // The console is the real kubectl's logic over HTTP (synchronous XHR to the proxy).
  await run(page, 'kubectl run web --image=nginx');
  assert.match(await output(page), /pod\/web created/);
  await page.waitForSelector('.pod[data-pod="web"]');
  await page.waitForSelector('.pod[data-pod="web"][data-status="Running"]', { timeout: 30_000 });
  const seen = await page.evaluate(() => window.webSeen);
  const statuses = seen.map((s) => s.status).filter((s, i, all) => s !== all[i - 1]);
  assert.notEqual(statuses[0], 'Running', JSON.stringify(seen));
  assert.ok(statuses.includes('ContainerCreating'), JSON.stringify(seen));
  assert.equal(statuses[statuses.length - 1], 'Running');
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i].rv > seen[i - 1].rv, JSON.stringify(seen));
  // Bound to a node: its card sits in that node's column.
  assert.ok(await page.$('.node[data-node^="node-"] .pod[data-pod="web"]'));
  await screenshot(page, 'live-cluster');

  await run(page, 'kubectl get pods');
  const listing = await output(page);
  assert.match(listing, /web\s+1\/1\s+Running\s+0\s+\d+s/);

  // A followed `get -w` is a fourth stream next to the page's three; requests still go through.
  await run(page, 'kubectl get pods -w');
  await page.waitForSelector('#following');
  await run(page, 'kubectl label pod web tier=front');
  assert.match(await output(page), /pod\/web labeled/);
  await page.waitForFunction(() => {
    const text = document.querySelector('#console-output').textContent;
    return /pod\/web labeled[\s\S]*web\s+1\/1\s+Running/.test(text);
  });
  await page.click('#console-stop');
  await page.waitForSelector('#following', { state: 'detached' });

  // The raw watch view: the pods stream's lines exactly as the chunked HTTP body carries them.
  await page.click('#tab-broadcast');
  await page.waitForSelector('#raw-stream[data-stream="pods"]');
  await page.waitForFunction(() => document.querySelector('#raw-stream pre').textContent
    .split('\n').some((l) => l.startsWith('{"type":"ADDED","object":{') && l.includes('"name":"web"')));
  const raw = (await page.textContent('#raw-stream pre')).split('\n').filter((l) => l);
  for (const line of raw) assert.doesNotThrow(() => JSON.parse(line), line);
  assert.ok(raw.some((l) => JSON.parse(l).type === 'MODIFIED'));
  const states = await page.$$eval('table.streams tr[data-stream]', (rows) => rows.map((r) => [r.dataset.stream, r.children[2].textContent]));
  assert.deepEqual(states, [['nodes', 'watching'], ['pods', 'watching'], ['events', 'watching']]);
  assert.match(await page.textContent('[data-unavailable="fan-out"]'), /Not available in live mode/);
  await screenshot(page, 'live-raw-stream');

  // Events, from the events stream: the scheduler's and the kubelet's for the new pod.
  await page.click('#tab-events');
  await page.waitForSelector('tr.event[data-reason="Scheduled"]');
  const webEvents = await page.$$eval('tr.event', (rows) => rows
    .filter((r) => r.children[4].textContent === 'pod/web').map((r) => r.dataset.reason));
  assert.ok(webEvents.includes('Scheduled') && webEvents.includes('Started'), webEvents.join());

  // A view that needs the store's history says so, in both languages.
  await page.click('#tab-ledger');
  await page.waitForSelector('[data-unavailable="ledger"]');
  assert.match(await page.textContent('[data-unavailable="ledger"]'), /Not available in live mode/);
  await page.click('#tab-actions');
  assert.match(await page.textContent('[data-unavailable="actions"]'), /use the console/);
  await page.click('#lang');
  await page.waitForFunction(() => document.querySelector('[data-unavailable="actions"]').textContent.includes('实时模式下不可用'));
  await page.click('#tab-ledger');
  assert.match(await page.textContent('[data-unavailable="ledger"]'), /实时模式下不可用/);
  await screenshot(page, 'live-unavailable-zh');

  assert.deepEqual(errors, []);
  await page.close();
});
