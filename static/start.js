// Starts the app. trunk would inline this as a <script type="module"> in index.html; it lives in
// its own file so the Content-Security-Policy can allow scripts from the app's own origin only
// (no 'unsafe-inline', no hashes to keep in step). The file names carry trunk's content hash, so
// trunk writes them into the data attributes of the tag that loads this file (Trunk.toml).
const tag = document.querySelector('script[data-watchlab-js]');
const { default: init } = await import(tag.dataset.watchlabJs);
await init({ module_or_path: tag.dataset.watchlabWasm });
