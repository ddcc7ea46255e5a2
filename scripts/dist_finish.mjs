// What `./x dist` does after trunk's build, for a class of learners on one conference uplink
// (issue #37): dist/sw.js, the service worker that keeps the page and every lab working offline
// after one load (static/sw.js filled in with the list of dist/'s files and a hash of their
// contents; index.html's script tag names it for static/start.js), then FILE.gz (gzip -9) and FILE.br (brotli, best quality) beside every file, for
// static hosts that serve precompressed files (nginx gzip_static/brotli_static, Caddy
// `precompressed`). A compressed copy that is not smaller is not written. Running it again gives
// the same files: .gz and .br are never compressed again, and copies whose file is gone are removed.
//
//   node scripts/dist_finish.mjs [DIST]     (default: dist/ of this checkout)
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, statSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { COPY, siteFiles } from './dist_files.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = process.argv[2] ?? join(ROOT, 'dist');
const TEMPLATE = join(ROOT, 'static', 'sw.js');
const TEXT = /\.(html|js|mjs|css|svg|json|yaml|yml|txt|map)$/;

const files = () => siteFiles(DIST);

// 1. The service worker, announced to static/start.js by a data attribute on its script tag (so
// `trunk serve`, which has no sw.js, never asks for one), then written with the list of every
// file but the compressed copies and the worker itself.
const page = join(DIST, 'index.html');
const html = readFileSync(page, 'utf8');
if (!html.includes('data-watchlab-sw=')) {
  if (!html.includes(' data-watchlab-js=')) throw new Error(`${page}: no script tag with data-watchlab-js (Trunk.toml)`);
  writeFileSync(page, html.replace(' data-watchlab-js=', ' data-watchlab-sw="./sw.js" data-watchlab-js='));
}
const precache = files().filter((f) => !COPY.test(f) && f !== 'sw.js');
const hash = createHash('sha256');
for (const f of precache) {
  const bytes = readFileSync(join(DIST, f));
  hash.update(`${f}\0${bytes.length}\0`).update(bytes);
}
const version = hash.digest('hex').slice(0, 16);
let worker = readFileSync(TEMPLATE, 'utf8');
for (const [marker, value] of [["/* @version */ 'unbuilt'", JSON.stringify(version)],
  ['/* @files */ []', JSON.stringify(precache, null, 2)]]) {
  if (!worker.includes(marker)) throw new Error(`${TEMPLATE}: the marker ${marker} is missing`);
  worker = worker.replace(marker, () => value);
}
writeFileSync(join(DIST, 'sw.js'), worker);

// 2. The compressed copies, of every file (sw.js included).
const sizes = { raw: 0, gz: 0, br: 0 };
for (const f of files().filter((f) => !COPY.test(f))) {
  const path = join(DIST, f);
  const bytes = readFileSync(path);
  const { mtime } = statSync(path);
  const copies = {
    gz: gzipSync(bytes, { level: 9 }),
    br: brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_LGWIN]: constants.BROTLI_MAX_WINDOW_BITS,
        [constants.BROTLI_PARAM_MODE]: TEXT.test(f) ? constants.BROTLI_MODE_TEXT : constants.BROTLI_MODE_GENERIC,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
  };
  sizes.raw += bytes.length;
  for (const [ext, data] of Object.entries(copies)) {
    const copy = `${path}.${ext}`;
    if (data.length < bytes.length) {
      writeFileSync(copy, data);
      utimesSync(copy, mtime, mtime); // a host's Last-Modified for the copy is the file's own
      sizes[ext] += data.length;
    } else {
      rmSync(copy, { force: true });
      sizes[ext] += bytes.length;
    }
  }
}
// Copies left from a file no longer built.
for (const f of files().filter((f) => COPY.test(f))) {
  if (!existsSync(join(DIST, f.replace(COPY, '')))) rmSync(join(DIST, f));
}

const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
console.log(`dist_finish: sw.js precaches ${precache.length} files (version ${version}); `
  + `${mb(sizes.raw)} raw, ${mb(sizes.gz)} as .gz, ${mb(sizes.br)} as .br`);
