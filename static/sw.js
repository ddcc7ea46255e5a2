// The page's service worker: after one load, the playground and every built-in lab work with no
// network at all, so a class survives the conference wifi dropping (issue #37). This file is a
// template: `./x dist` (scripts/dist_finish.mjs) writes dist/sw.js from it, with FILES, every file
// of dist/ (the labs included, so a lab never opened before still loads offline by
// ?lab=labs/NAME.yaml), and VERSION, a hash of those files' contents, so a new deployment is a new
// worker with a new cache, and the old cache is deleted. static/start.js registers it when the
// page's script tag names it (data-watchlab-sw, also written by dist_finish.mjs): `trunk serve`
// has no worker, and the page runs without.
//
// What it answers, for GET requests from this origin only:
// - a navigation to the page (this folder or its index.html, any query: ?lab=, ?live): the
//   network first, so a redeploy is seen when online; the cached index.html when the network
//   fails or takes longer than NAVIGATION_TIMEOUT_MS;
// - a file of FILES: from the cache (hashed names never change content; a lab changes VERSION).
// Anything else — the live mode's /api and /apis requests to a same-origin `kubectl proxy`, any
// other method, any file not listed — passes through to the network untouched.
const VERSION = /* @version */ 'unbuilt';
const FILES = /* @files */ [];
const NAVIGATION_TIMEOUT_MS = 4000;

// Cache names carry the scope: two deployments on one origin (/a/ and /b/) keep their own.
const PREFIX = `watchlab ${self.registration.scope} `;
const CACHE = PREFIX + VERSION;
const PAGE = new URL('./', self.location).href;
const INDEX = new URL('index.html', self.location).href;
const LISTED = new Set(FILES.map((f) => new URL(f, self.location).href));

self.addEventListener('install', (event) => {
  // 'no-cache': revalidate with the server (a 304 for an unchanged file), so a lab edited in
  // place between two deployments never comes from the browser's HTTP cache.
  event.waitUntil(caches.open(CACHE)
    .then((cache) => cache.addAll(FILES.map((f) => new Request(f, { cache: 'no-cache' }))))
    .then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names
      .filter((n) => n.startsWith(PREFIX) && n !== CACHE)
      .map((n) => caches.delete(n))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  url.hash = '';
  if (url.origin !== self.location.origin) return;
  const bare = url.origin + url.pathname;
  if (request.mode === 'navigate' && (bare === PAGE || bare === INDEX)) {
    event.respondWith(navigation(request));
  } else if (!url.search && LISTED.has(url.href)) {
    event.respondWith(cached(url.href).then((hit) => hit || fetch(request)));
  }
});

// caches.match, not caches.open(CACHE): opening would create the cache again after a newer
// worker deleted it, an empty cache left behind for good.
function cached(href) {
  return caches.match(href, { cacheName: CACHE, ignoreVary: true });
}

/** The page from the network, or the cached page when offline or too slow. */
function navigation(request) {
  const network = fetch(request);
  network.catch(() => {}); // lost the race to the cache: its failure is no error
  const late = new Promise((_, reject) => setTimeout(reject, NAVIGATION_TIMEOUT_MS));
  return Promise.race([network, late])
    .catch(() => cached(INDEX).then((hit) => hit || network));
}
