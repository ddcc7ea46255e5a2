// The page's Content-Security-Policy in a real Chromium: the release build from dist/ runs under
// it with no violation (no inline script or style, nothing from another origin), and text a user
// types is only ever shown as text, even when it looks like HTML.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, start, stop, waitFor, launch, screenshot, freePort } from './helpers.mjs';

const PORT = await freePort();
const SITE = `http://127.0.0.1:${PORT}/`;
let statics, browser;

before(async () => {
  assert.ok(existsSync(join(ROOT, 'dist', 'index.html')), 'dist/ must be built first (./x dist)');
  statics = start('python3', ['-m', 'http.server', String(PORT), '--bind', '127.0.0.1', '--directory', join(ROOT, 'dist')]);
  browser = await launch();
  await waitFor(SITE, 'watchlab', 20_000, statics);
});

after(async () => {
  await browser?.close();
  stop(statics);
});

/** A page that records every CSP violation and every console error. */
async function open() {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e}`));
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(`console: ${m.text()}`); });
  page.on('response', (r) => { if (r.status() >= 400) page.problems.push(`${r.status()} ${r.url()}`); });
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
    if (!localStorage.getItem('watchlab.lang')) localStorage.setItem('watchlab.lang', 'en');
  });
  await page.goto(SITE);
  await page.waitForSelector('.node');
  return page;
}

async function run(page, line) {
  if (!(await page.isVisible('#console-input'))) await page.click('#tab-console');
  await page.fill('#console-input', line);
  await page.press('#console-input', 'Enter');
  await page.waitForFunction((l) => document.querySelector('#console-output').textContent.includes(`$ ${l}`), line);
}

test('the page carries a CSP that allows only its own files, and runs under it', async () => {
  const page = await open();
  const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval';/);
  assert.doesNotMatch(csp, /unsafe-inline|\*|https?:/);
  assert.equal(await page.locator('script:not([src])').count(), 0, 'no inline script in the page');
  assert.equal(await page.locator('[style]').count(), 0, 'no inline style attribute in the page');
  assert.equal(await page.locator('.node').count(), 3, 'the app started');
  // Every view and tool renders under the policy.
  const tabs = await page.locator('[role="tab"]').all();
  assert.ok(tabs.length >= 8, `tabs found: ${tabs.length}`);
  for (const tab of tabs) await tab.click();
  assert.equal(await page.locator('[style]').count(), 0, 'no inline style attribute in any view');
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('user text that looks like HTML is shown as text, never run', async () => {
  const page = await open();
  const image = '<img/src=x/onerror=window.__pwned=1>';
  await run(page, `kubectl run html-test --image=${image}`);
  await run(page, 'kubectl get pod html-test -o jsonpath={.spec.containers[0].image}');
  await page.waitForFunction((i) => document.querySelector('#console-output').textContent.includes(i), image);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.locator('img[src="x"]').count(), 0);
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  await screenshot(page, 'csp-user-text');
  assert.deepEqual(page.problems, []);
  await page.close();
});
