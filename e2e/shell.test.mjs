// The app shell in a real Chromium: once served by `trunk serve`, once from the release build in
// dist/ copied under a sub-path of a plain static server (as a trainer would host it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, start, stop, waitFor, launch, screenshot } from './helpers.mjs';

const TRUNK_PORT = 8181;
const STATIC_PORT = 8182;
let trunk, statics, browser;

before(async () => {
  assert.ok(existsSync(join(ROOT, 'dist', 'index.html')), 'dist/ must be built first (./x dist)');
  const site = mkdtempSync(join(tmpdir(), 'watchlab-site-'));
  mkdirSync(join(site, 'sub'), { recursive: true });
  cpSync(join(ROOT, 'dist'), join(site, 'sub', 'watchlab'), { recursive: true });
  statics = start('python3', ['-m', 'http.server', String(STATIC_PORT), '--bind', '127.0.0.1', '--directory', site]);
  trunk = start('trunk', ['serve', '--address', '127.0.0.1', '--port', String(TRUNK_PORT), '--no-autoreload']);
  browser = await launch();
  await waitFor(`http://127.0.0.1:${STATIC_PORT}/sub/watchlab/`, 'watchlab', 20_000, statics);
  // The first `trunk serve` compiles the app in debug mode: allow for a cold build.
  await waitFor(`http://127.0.0.1:${TRUNK_PORT}/`, 'wasm', 900_000, trunk);
});

after(async () => {
  await browser?.close();
  stop(trunk);
  stop(statics);
});

async function createPodScenario(url, shot) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForSelector('.node');
  assert.equal(await page.locator('.node').count(), 3);
  for (const n of ['node-a', 'node-b', 'node-c']) {
    assert.ok((await page.textContent('main')).includes(n), `${n} shown`);
  }
  assert.equal(await page.textContent('#pod-count'), '0 pods');
  await page.click('#create-pod');
  await page.waitForSelector('.pod');
  assert.equal(await page.textContent('#pod-count'), '1 pods');
  assert.match(await page.textContent('.pod'), /^web-[a-z0-9]{5}$/);
  await screenshot(page, shot);
  assert.deepEqual(errors, []);
  await page.close();
}

test('the page served by trunk shows three nodes and creates a pod', async () => {
  await createPodScenario(`http://127.0.0.1:${TRUNK_PORT}/`, 'shell-trunk-serve');
});

test('the release build works from a sub-path of a static server', async () => {
  await createPodScenario(`http://127.0.0.1:${STATIC_PORT}/sub/watchlab/`, 'shell-dist-subpath');
});
