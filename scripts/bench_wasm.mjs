// The whole-cluster benchmark in headless Chromium: the wasm32 build of crates/bench (the same
// `whole_cluster` run as the native row of benches/scale.rs) is served from 127.0.0.1 and called
// once per shape in a fresh browser context, after a warm-up run of 3 × 3 in another instance of
// the same compiled module (as the native run's code is compiled before it starts; the page's
// first call also pays for V8's tier-up). Wall time is `performance.now()` around the call; memory is the linear memory's byte length
// after it, which is the run's peak because wasm memory never shrinks. Writes JSON lines for
// scripts/bench_report.py (`"runtime": "wasm"`, merged by shape beside the native rows).
//
//   node scripts/bench_wasm.mjs PKG_DIR OUT.jsonl [--smoke] [NODESxPODS ...]
//
// PKG_DIR holds `wasm-bindgen --target web` output of watchlab_bench.wasm.
import { createServer } from 'node:http';
import { readFile, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import { launch } from '../e2e/helpers.mjs';

const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' };

const [pkg, out, ...rest] = process.argv.slice(2);
if (!pkg || !out) {
  console.error('usage: node scripts/bench_wasm.mjs PKG_DIR OUT.jsonl [--smoke] [NODESxPODS ...]');
  process.exit(2);
}
const smoke = rest.includes('--smoke');
let shapes = rest.filter((a) => /^\d+x\d+$/.test(a)).map((a) => a.split('x').map(Number));
if (shapes.length === 0) {
  // The native run's default shapes (benches/scale.rs).
  shapes = smoke ? [[3, 3], [10, 30]] : [[3, 3], [10, 300], [50, 1500], [100, 3000], [1000, 30000]];
}

// Virtual seconds of steady state after convergence (`STEADY_SECONDS` of crates/bench/src/lib.rs).
const STEADY_SECONDS = 60;

// The page is empty: the module is imported by `page.evaluate` below.
const server = createServer(async (req, res) => {
  const path = new URL(req.url, 'http://x').pathname;
  if (path === '/') {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>bench</title>');
    return;
  }
  const name = path.replace(/^\/pkg\//, '');
  if (!path.startsWith('/pkg/') || name.includes('/') || name.includes('..')) {
    res.writeHead(404).end();
    return;
  }
  try {
    const body = await readFile(join(pkg, name));
    res.writeHead(200, { 'content-type': TYPES[extname(name)] ?? 'application/octet-stream' }).end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

const rows = [JSON.stringify({ bench: 'meta', smoke, cores: availableParallelism(), profile: 'bench' })];
const browser = await launch();
try {
  for (const [nodes, pods] of shapes) {
    const context = await browser.newContext();
    const page = await context.newPage();
    let row;
    try {
      await page.goto(`${origin}/`);
      const run = await page.evaluate(async ([n, p, steady]) => {
        // One compiled module, two instances (the glue module imported under two URLs): the
        // first runs 3 × 3 twice so V8 has tiered the hot code up, the second, with a fresh
        // linear memory, runs the measured shape.
        const module = await WebAssembly.compileStreaming(fetch('/pkg/watchlab_bench_bg.wasm'));
        const warm = await import('/pkg/watchlab_bench.js?warm-up');
        warm.initSync({ module });
        warm.whole_cluster(3, 3);
        warm.whole_cluster(3, 3);
        const m = await import('/pkg/watchlab_bench.js?measured');
        const wasm = m.initSync({ module });
        const t0 = performance.now();
        const fields = JSON.parse(m.whole_cluster(n, p));
        const seconds = (performance.now() - t0) / 1000;
        const memory_bytes = wasm.memory.buffer.byteLength;
        // The steady state: the converged cluster runs on, timed apart (as the native row).
        const t1 = performance.now();
        const steady_writes = fields.converged ? m.steady_state(steady) : -1;
        const steady_ms = (performance.now() - t1) / steady;
        return { ...fields, seconds, memory_bytes, steady_writes, steady_ms };
      }, [nodes, pods, STEADY_SECONDS]);
      row = {
        bench: 'cluster', runtime: 'wasm', nodes, pods, ...run,
        seconds: Number(run.seconds.toFixed(4)),
        steady_virtual_seconds: STEADY_SECONDS,
        steady_ms_per_virtual_second: run.converged ? Number(run.steady_ms.toFixed(3)) : undefined,
        us_per_pod: Number(((run.seconds * 1e6) / Math.max(pods, 1)).toFixed(2)),
        bytes_per_pod: Math.floor(run.memory_bytes / Math.max(pods, 1)),
      };
      delete row.steady_ms;
    } catch (e) {
      // A tab that ran out of memory or crashed: a row that says so, and the next shape.
      row = { bench: 'cluster', runtime: 'wasm', nodes, pods, converged: false, error: String(e.message ?? e).split('\n')[0] };
    }
    await context.close().catch(() => {});
    console.error(JSON.stringify(row));
    rows.push(JSON.stringify(row));
  }
} finally {
  await browser.close();
  server.close();
}
await writeFile(out, rows.join('\n') + '\n');
