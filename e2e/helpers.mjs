// Shared helpers for the end-to-end tests: start a server, wait for it, launch Debian's Chromium
// through playwright-core (which never downloads a browser), save screenshots.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const ARTIFACTS = join(ROOT, 'artifacts', 'e2e');
/** The README's pictures: committed, refreshed by every e2e run. */
export const DOC_SHOTS = join(ROOT, 'docs', 'screenshots');

/**
 * A TCP port that is free now on 127.0.0.1 (the kernel picks it), so two runs of the suite on one
 * machine, or another server of the developer's, never collide on a fixed number.
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts a long-running command; returns the child (killed with `stop`). */
export function start(cmd, args, opts = {}) {
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...opts });
  let log = '';
  child.stdout.on('data', (d) => { log += d; });
  child.stderr.on('data', (d) => { log += d; });
  child.log = () => log;
  return child;
}

export function stop(child) {
  if (child && child.exitCode === null) {
    try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ }
  }
}

/** Polls `url` until it answers 200 with a body containing `needle`, or fails after `ms`. */
export async function waitFor(url, needle, ms, child) {
  const deadline = Date.now() + ms;
  let last = '';
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) break;
    try {
      const res = await fetch(url);
      const body = await res.text();
      if (res.ok && body.includes(needle)) return;
      last = `${res.status}`;
    } catch (e) { last = String(e); }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} not ready (${last})\n${child ? child.log().slice(-3000) : ''}`);
}

export async function launch() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** A picture for the README (what is on screen, not the whole page), in docs/screenshots/. */
export async function docShot(page, name) {
  mkdirSync(DOC_SHOTS, { recursive: true });
  await page.screenshot({ path: join(DOC_SHOTS, `${name}.png`) });
}
