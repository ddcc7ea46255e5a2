// The page's size, beside the tab's speed (issue #37: the whole page ≤ 1 MB gzipped without
// losing more than 10% of the wasm whole-cluster speed, both measured by one `./x bench wasm`).
// A learner on a conference uplink waits for what the browser downloads to show the page: every
// file of a `./x dist` build outside labs/ (index.html, start.js, the JS glue, the wasm, the CSS,
// the favicon, sw.js). The labs load on demand (?lab=labs/NAME.yaml; the service worker fetches
// them in the background once the page runs), so they are totalled apart (`labs_gzip`). Sizes are
// those of the FILE.gz and FILE.br copies scripts/dist_finish.mjs wrote, as a static host serving
// precompressed files sends them; a file without a copy (compressing it did not shrink it) counts
// its own size. Each copy is checked to decompress to its file, so a stale copy is never counted.
// Writes one JSON line for scripts/bench_report.py (`"bench": "page"`).
//
//   node scripts/bench_page.mjs DIST OUT.jsonl
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { COPY, siteFiles } from './dist_files.mjs';

const BUDGET_GZIP = 1_000_000; // issue #37: ≤ 1 MB gzipped

const [dist, out] = process.argv.slice(2);
if (!dist || !out) {
  console.error('usage: node scripts/bench_page.mjs DIST OUT.jsonl');
  process.exit(2);
}
function fail(message) {
  console.error(`bench_page: ${message}`);
  process.exit(1);
}

if (!existsSync(join(dist, 'index.html'))) fail(`${dist}/index.html is missing: build it with ./x dist`);
const all = siteFiles(dist);
if (!all.some((f) => f.endsWith('.gz')) || !all.includes('sw.js')) {
  fail(`${dist} has no .gz copies or no sw.js: not a ./x dist build (trunk alone does not `
    + 'write them; scripts/dist_finish.mjs does)');
}

/** A file's bytes and what a host serving its .gz or .br copy sends (its own size without one). */
function sizes(name) {
  const bytes = readFileSync(join(dist, name));
  const size = { name, bytes: bytes.length };
  for (const [field, ext, inflate] of [['gzip', 'gz', gunzipSync], ['brotli', 'br', brotliDecompressSync]]) {
    const copy = join(dist, `${name}.${ext}`);
    if (!existsSync(copy)) {
      size[field] = bytes.length;
      continue;
    }
    const packed = readFileSync(copy);
    if (!inflate(packed).equals(bytes)) fail(`${copy} is stale (not ${name}'s contents): run ./x dist`);
    size[field] = packed.length;
  }
  return size;
}

const sum = (list, field) => list.reduce((n, f) => n + f[field], 0);
const measured = all.filter((f) => !COPY.test(f)).map(sizes);
const labs = measured.filter((f) => f.name.startsWith('labs/'));
const page = measured.filter((f) => !f.name.startsWith('labs/'));
const row = {
  bench: 'page',
  files: page,
  bytes: sum(page, 'bytes'),
  gzip: sum(page, 'gzip'),
  brotli: sum(page, 'brotli'),
  budget_gzip: BUDGET_GZIP,
  labs: labs.length,
  labs_gzip: sum(labs, 'gzip'),
  labs_brotli: sum(labs, 'brotli'),
  node_version: process.version,
};
writeFileSync(out, `${JSON.stringify(row)}\n`);
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
console.log(`bench_page: the page is ${mb(row.bytes)}, ${mb(row.gzip)} gzipped (budget ${mb(BUDGET_GZIP)}), `
  + `${mb(row.brotli)} as brotli; ${labs.length} labs ${mb(row.labs_gzip)} gzipped -> ${out}`);
