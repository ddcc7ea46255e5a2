// Hosting for a class (issue #37: thirty learners load the page over one conference uplink). The
// release build in dist/ served from a sub-path by a small static server written here, which
// does what a trainer's nginx with `gzip_static on` does: a file's .gz copy with
// Content-Encoding: gzip when the browser accepts it, ETags and 304s. Checked: every file's .gz
// and .br copies (scripts/dist_finish.mjs) hold exactly its bytes, and the page's gzipped size is
// printed; after one load the service worker (static/sw.js) keeps the page and a lab never
// opened before working offline; and the first answer on a slow machine (4x CPU, 10 Mbit/s,
// 40 ms, empty cache) is measured, printed and written to target/bench/first-answer.json.
// The two budgets are TODO tests (run, reported, never failing the suite) until the wasm shrinks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { ROOT, launch, screenshot, freePort } from './helpers.mjs';
import { COPY, siteFiles } from '../scripts/dist_files.mjs';

// The site under test: the release build (./x dist), or another build for a quick local run.
const DIST = process.env.WATCHLAB_DIST || join(ROOT, 'dist');
const BASE = '/sub/watchlab/';
const PORT = await freePort();
const SITE = `http://127.0.0.1:${PORT}${BASE}`;

// TODO(size): the page's gzipped budget; set PAGE_BUDGET_TODO to false once the wasm fits.
const PAGE_BUDGET_BYTES = 1_000_000;
const PAGE_BUDGET_TODO = 'TODO(size): the wasm does not fit the budget yet';
// TODO(speed): the first answer's budget on the slow machine; set to false once it holds.
const FIRST_ANSWER_BUDGET_MS = 2000;
const FIRST_ANSWER_TODO = 'TODO(speed): the first answer takes about 4 s yet';

let site, server, browser;
let firstAnswerMs;

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm', '.svg': 'image/svg+xml', '.yaml': 'application/yaml; charset=utf-8',
  '.json': 'application/json',
};

/**
 * A static server of `root` under BASE, as nginx with gzip_static: FILE.gz with Content-Encoding
 * gzip when Accept-Encoding allows it, an ETag per file (If-None-Match answers 304). It records
 * every request (`hits`: url, status, the Accept-Encoding asked); `down = true` makes it drop
 * every connection (the wifi gone).
 */
function staticServer(root) {
  const s = createServer((req, res) => {
    const hit = { url: req.url, status: 0, encoding: req.headers['accept-encoding'] };
    s.hits.push(hit);
    res.on('finish', () => { hit.status = res.statusCode; });
    if (s.down) return req.socket.destroy();
    const { pathname } = new URL(req.url, 'http://host');
    if (!pathname.startsWith(BASE)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    let path = normalize(join(root, decodeURIComponent(pathname.slice(BASE.length))));
    if (!(path + sep).startsWith(root + sep)) return res.writeHead(403).end();
    if (pathname.endsWith('/')) path = join(path, 'index.html');
    if (!existsSync(path) || !statSync(path).isFile()) return res.writeHead(404).end();
    const headers = { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' };
    let file = path;
    if (existsSync(`${path}.gz`)) {
      headers.vary = 'Accept-Encoding';
      if (/\bgzip\b(?!;q=0(\.0*)?\b)/.test(req.headers['accept-encoding'] ?? '')) {
        file = `${path}.gz`;
        headers['content-encoding'] = 'gzip';
      }
    }
    const st = statSync(file);
    headers.etag = `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
    headers['last-modified'] = st.mtime.toUTCString();
    if (req.headers['if-none-match'] === headers.etag) return res.writeHead(304, headers).end();
    headers['content-length'] = st.size;
    res.writeHead(200, headers);
    if (req.method === 'HEAD') return res.end();
    createReadStream(file).pipe(res);
  });
  s.hits = [];
  s.down = false;
  return s;
}

before(async () => {
  assert.ok(existsSync(join(DIST, 'index.html')), `${DIST} must be built first (./x dist)`);
  site = mkdtempSync(join(tmpdir(), 'watchlab-hosting-'));
  cpSync(DIST, site, { recursive: true });
  server = staticServer(site);
  await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.closeAllConnections();
  server?.close();
});

/** A fresh context (no service worker, empty caches) and a page in it, in English. */
async function fresh() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  await context.addInitScript(() => { if (!localStorage.getItem('watchlab.lang')) localStorage.setItem('watchlab.lang', 'en'); });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  return { context, page };
}

/** Types `kubectl get nodes` into the console; waits for the node table. */
async function getNodes(page) {
  if (!(await page.isVisible('#console-input'))) await page.click('#tab-console');
  await page.fill('#console-input', 'kubectl get nodes');
  await page.press('#console-input', 'Enter');
  await page.waitForFunction(() => /\$ kubectl get nodes\s*NAME\s+STATUS[\s\S]*node-a/
    .test(document.querySelector('#console-output').textContent));
}

const kb = (n) => `${(n / 1e3).toFixed(1)} kB`;
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;

/** The page's files (not the labs) and their gzipped sizes: what every learner downloads. */
function pageSizes() {
  const names = siteFiles(site).filter((f) => !COPY.test(f) && !f.startsWith('labs/'));
  const sizes = Object.fromEntries(names.map((f) => {
    const gz = join(site, `${f}.gz`);
    return [f, statSync(existsSync(gz) ? gz : join(site, f)).size];
  }));
  return { sizes, total: Object.values(sizes).reduce((a, b) => a + b, 0) };
}

test('every file has .gz and .br copies holding exactly its bytes; the page\'s gzipped size', () => {
  const assets = siteFiles(site).filter((f) => !COPY.test(f));
  for (const f of ['index.html', 'start.js', 'sw.js', 'labs/watch.yaml']) assert.ok(assets.includes(f), `${f} in dist/`);
  for (const ext of ['.wasm', '.js', '.css', '.svg']) assert.ok(assets.some((f) => f.endsWith(ext)), `a ${ext} in dist/`);
  for (const f of assets) {
    const bytes = readFileSync(join(site, f));
    for (const [ext, unpack] of [['gz', gunzipSync], ['br', brotliDecompressSync]]) {
      const copy = join(site, `${f}.${ext}`);
      if (!existsSync(copy)) {
        // Only a file that does not compress may go without (scripts/dist_finish.mjs skips it).
        assert.ok(gzipSync(bytes, { level: 9 }).length >= bytes.length, `${f}.${ext} missing`);
        continue;
      }
      assert.ok(unpack(readFileSync(copy)).equals(bytes), `${f}.${ext} unpacks to ${f}`);
      assert.ok(statSync(copy).size < bytes.length, `${f}.${ext} is smaller than ${f}`);
    }
  }
  assert.match(readFileSync(join(site, 'index.html'), 'utf8'), / data-watchlab-sw="\.\/sw\.js"/, 'the page names its worker');
  // Nothing compressed twice (a second `node scripts/dist_finish.mjs` run writes no .gz.gz).
  assert.deepEqual(siteFiles(site).filter((f) => /\.(gz|br)\.(gz|br)$/.test(f)), []);
  const { sizes, total } = pageSizes();
  const of = (re) => Object.entries(sizes).filter(([f]) => re.test(f)).reduce((a, [, n]) => a + n, 0);
  const brotli = Object.keys(sizes).reduce((a, f) => a + statSync(join(site, existsSync(join(site, `${f}.br`)) ? `${f}.br` : f)).size, 0);
  console.log(`page: ${mb(total)} gzipped (wasm ${mb(of(/\.wasm$/))}, js ${kb(of(/\.js$/))}, css ${kb(of(/\.css$/))}, `
    + `html+svg ${kb(of(/\.(html|svg)$/))}); ${mb(brotli)} as brotli; budget ${mb(PAGE_BUDGET_BYTES)}`);
});

test(`the page fits ${PAGE_BUDGET_BYTES} bytes gzipped`, { todo: PAGE_BUDGET_TODO }, () => {
  const { total } = pageSizes();
  assert.ok(total <= PAGE_BUDGET_BYTES, `page ${total} bytes gzipped > ${PAGE_BUDGET_BYTES}`);
});

test('after one load the page and a lab never opened work offline (service worker)', async () => {
  const { context, page } = await fresh();
  const wasm = [];
  page.on('response', (r) => { if (r.url().endsWith('.wasm')) wasm.push(`${r.status()}${r.fromServiceWorker() ? ' (sw)' : ''}`); });
  await page.goto(SITE);
  await page.waitForSelector('.node');
  // The worker installs (precaching every file of dist/) and takes the page over.
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  const cached = await page.evaluate(async () => (await Promise.all((await caches.keys())
    .map(async (n) => (await (await caches.open(n)).keys()).map((r) => r.url)))).flat());
  assert.ok(cached.some((u) => u.endsWith('/labs/watch.yaml')), 'the labs are precached');
  assert.ok(cached.some((u) => u.endsWith('.wasm')), 'the wasm is precached');
  // The live mode's API requests (same origin, outside the list) pass through to the server.
  const before = server.hits.length;
  assert.equal(await page.evaluate(() => fetch('/api/v1/nodes').then((r) => r.status)), 404);
  assert.ok(server.hits.slice(before).some((h) => h.url === '/api/v1/nodes'), '/api reached the server');
  const wasmHits = server.hits.filter((h) => h.url.endsWith('.wasm')).map((h) => h.status);

  // The wifi goes: the browser offline, and the server dropping every connection besides.
  await context.setOffline(true);
  server.down = true;
  const offlineFrom = server.hits.length;
  try {
    await page.reload();
    await page.waitForSelector('#console-input');
    await getNodes(page);
    assert.match(await page.textContent('#console-output'), /node-a\s+Ready/);
    assert.equal(await page.evaluate(() => fetch('/api/v1/nodes').then(() => 'answered', () => 'failed')), 'failed',
      'an /api request is not answered from the cache');
    // A lab never opened online.
    const lab = 'labs/watch.yaml';
    await page.goto(`${SITE}?lab=${lab}`);
    await page.waitForSelector(`.scenario[data-scenario="${lab}"][data-lab-step="0"]`);
    assert.equal(await page.textContent('.scenario h4'), 'A pod watched with -w');
    assert.match(await page.textContent('#narration'), /Terminal one subscribes/);
    await screenshot(page, 'hosting-offline-lab');
    console.log(`offline: ${server.hits.length - offlineFrom} requests reached the (dropping) server while offline; `
      + `the wasm: served ${wasmHits.join(' then ')} (the page's load, the worker's precache), `
      + `the page got ${wasm.join(', ')}; Accept-Encoding: ${server.hits[0].encoding}`);
  } finally {
    server.down = false;
  }
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('the first answer on a slow machine: 4x CPU, 10 Mbit/s, 40 ms, empty cache', async () => {
  const { context, page } = await fresh();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions',
    { offline: false, latency: 40, downloadThroughput: 1_250_000, uploadThroughput: 1_250_000 });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  const received = new Map();
  cdp.on('Network.loadingFinished', (e) => received.set(e.requestId, e.encodedDataLength));
  // In the page itself, so no round trip to the test slows the measure: the moment the console's
  // input appears, type `kubectl get nodes` and press Enter; mark when the node table shows.
  await page.addInitScript(() => {
    const marks = (window.__marks = {});
    // When wasm-bindgen's init hands the wasm response over, and when it is compiled.
    const streaming = WebAssembly.instantiateStreaming;
    WebAssembly.instantiateStreaming = (source, imports) => {
      marks.compileCalled = performance.now();
      Promise.resolve(source).then(() => { marks.compileResponse = performance.now(); }, () => {});
      return streaming(source, imports).then((r) => { marks.compiled = performance.now(); return r; });
    };
    const seen = new MutationObserver(() => {
      const input = document.getElementById('console-input');
      if (input && marks.input === undefined) {
        marks.input = performance.now();
        input.value = 'kubectl get nodes';
        input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
      }
      const out = document.getElementById('console-output');
      if (marks.input !== undefined && out && /NAME\s+STATUS[\s\S]*node-a/.test(out.textContent)) {
        marks.answer = performance.now();
        seen.disconnect();
      }
    });
    seen.observe(document, { childList: true, subtree: true, characterData: true });
  });
  await page.goto(SITE, { waitUntil: 'commit' });
  await page.waitForFunction(() => window.__marks?.answer !== undefined, null, { timeout: 120_000, polling: 200 });
  const m = await page.evaluate(() => {
    const res = performance.getEntriesByType('resource');
    const end = (re) => res.find((r) => re.test(r.name))?.responseEnd;
    const nav = performance.getEntriesByType('navigation')[0];
    return {
      ...window.__marks, html: nav.responseEnd, startJs: end(/start\.js$/), js: end(/\/watchlab-[0-9a-f]+\.js$/),
      wasm: end(/\.wasm$/), wasmStart: res.find((r) => /\.wasm$/.test(r.name))?.requestStart,
    };
  });
  const bytes = [...received.values()].reduce((a, b) => a + b, 0);
  firstAnswerMs = m.answer;
  const ms = (n) => `${Math.round(n)} ms`;
  console.log(`first answer: ${ms(m.answer)} (console input at ${ms(m.input)}) on 4x CPU, 10 Mbit/s, 40 ms; `
    + `${mb(bytes)} transferred in ${received.size} responses`);
  console.log(`  breakdown: html ${ms(m.html)}, start.js ${ms(m.startJs)}, js ${ms(m.js)}, `
    + `wasm requested ${ms(m.wasmStart)} and downloaded ${ms(m.wasm)}; instantiateStreaming called ${ms(m.compileCalled)}, `
    + `its response ${ms(m.compileResponse)}, compiled ${ms(m.compiled)}; `
    + `then ${ms(m.input - m.compiled)} to the console, ${ms(m.answer - m.input)} to the answer`);
  mkdirSync(join(ROOT, 'target', 'bench'), { recursive: true });
  writeFileSync(join(ROOT, 'target', 'bench', 'first-answer.json'), `${JSON.stringify({
    at: new Date().toISOString(), cpu_slowdown: 4, down_bytes_per_s: 1_250_000, latency_ms: 40,
    input_ms: Math.round(m.input), answer_ms: Math.round(m.answer), bytes,
    html_ms: Math.round(m.html), js_ms: Math.round(m.js), wasm_ms: Math.round(m.wasm), compiled_ms: Math.round(m.compiled),
  })}\n`);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test(`the first answer comes within ${FIRST_ANSWER_BUDGET_MS} ms`, { todo: FIRST_ANSWER_TODO }, () => {
  assert.ok(firstAnswerMs !== undefined, 'measured by the test before');
  assert.ok(firstAnswerMs < FIRST_ANSWER_BUDGET_MS, `first answer ${Math.round(firstAnswerMs)} ms`);
});

test('a redeploy is seen online: the new worker replaces the old cache', async () => {
  const { context, page } = await fresh();
  const lab = `${SITE}?lab=labs/watch.yaml`;
  await page.goto(lab);
  await page.waitForSelector('.scenario h4');
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  const [old] = await page.evaluate(() => caches.keys());
  // The trainer edits a lab and deploys again: a new lab file, a new sw.js VERSION.
  const saved = {};
  const edit = (f, change) => {
    saved[f] = readFileSync(join(site, f));
    writeFileSync(join(site, f), change(saved[f].toString()));
    for (const ext of ['gz', 'br']) {
      const copy = join(site, `${f}.${ext}`);
      if (existsSync(copy)) { saved[`${f}.${ext}`] = readFileSync(copy); rmSync(copy); }
    }
  };
  try {
    edit('labs/watch.yaml', (t) => t.replace('en: A pod watched with -w', 'en: A pod watched with -w, again'));
    edit('sw.js', (t) => t.replace(/const VERSION = "[0-9a-f]+"/, 'const VERSION = "redeployed"'));
    // The navigation goes to the network first (the page is seen at once); the browser finds the
    // new worker, which precaches the new files, takes over and deletes the old cache.
    // (Chromium checks for it a few seconds after the navigation.)
    await page.reload();
    const deadline = Date.now() + 30_000;
    let names = [old];
    while (names.includes(old) && Date.now() < deadline) {
      await page.waitForTimeout(200);
      names = await page.evaluate(() => caches.keys());
    }
    assert.deepEqual(names, [old.replace(/ [0-9a-f]+$/, ' redeployed')]);
    await page.goto(lab);
    await page.waitForFunction(() => document.querySelector('.scenario h4')?.textContent === 'A pod watched with -w, again');
  } finally {
    for (const [f, bytes] of Object.entries(saved)) writeFileSync(join(site, f), bytes);
  }
  assert.deepEqual(page.errors, []);
  await context.close();
});
