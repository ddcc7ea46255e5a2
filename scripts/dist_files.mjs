// The files of a built site (dist/), as the scripts and tests that finish, measure and check it
// name them: one walker for scripts/dist_finish.mjs (what the service worker precaches and what
// gets compressed), scripts/bench_page.mjs (the page's size) and e2e/hosting.test.mjs.
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** A precompressed copy (FILE.gz, FILE.br) that scripts/dist_finish.mjs writes beside a file. */
export const COPY = /\.(gz|br)$/;

/** Every file under `root`, as paths relative to it with `/`, sorted. */
export function siteFiles(root, dir = root) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? siteFiles(root, path) : [relative(root, path).split(sep).join('/')];
  }).sort();
}
