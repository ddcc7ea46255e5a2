// Starts the app. trunk would inline this as a <script type="module"> in index.html; it lives in
// its own file so the Content-Security-Policy can allow scripts from the app's own origin only
// (no 'unsafe-inline', no hashes to keep in step). The file names carry trunk's content hash, so
// trunk writes them into the data attributes of the tag that loads this file (Trunk.toml).
const tag = document.querySelector('script[data-watchlab-js]');
const { default: init } = await import(tag.dataset.watchlabJs);
await init({ module_or_path: tag.dataset.watchlabWasm });

// Once the app runs: the service worker beside the page, which keeps the page and its labs
// working offline after this load. Only a build made by `./x dist` has one (dist/sw.js, from
// static/sw.js; scripts/dist_finish.mjs names it in the tag's data-watchlab-sw), so `trunk serve`
// never asks for a file it lacks. The CSP's script-src 'self' covers it (worker-src falls back to it).
if (tag.dataset.watchlabSw && 'serviceWorker' in navigator) {
  navigator.serviceWorker.register(tag.dataset.watchlabSw)
    .catch((e) => console.debug('watchlab: no service worker:', e.message));
}
