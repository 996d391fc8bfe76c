// The offline copy: a service worker that keeps the built site in one cache per
// build, so that after one visit the page loads and decodes with the network off.
//
// scripts/build.sh fills in VERSION (a hash of every built file: a new build is a
// new cache) and ASSETS (every file of dist/ but this one, relative to it). Among
// them pack.js and every file it packs: Download HTML builds its self-contained page
// offline too (and pgolens.html, the self-contained page itself).
//
//   install   fetch every asset past the HTTP cache into the new build's cache; one
//             failed fetch fails the install, so a cache is complete or absent
//   activate  once no page runs the old build: delete the old builds' caches
//   fetch     an asset, from this build's cache only; anything else (there is
//             nothing else: dropped files never go over the network) untouched
//
// No skipWaiting and no clients.claim: a page is served by one build from its
// document to its last wasm byte. A new build installs in the background on the next
// visit and serves the visit after every tab of the old one has closed.

const VERSION = '{{version}}';
const ASSETS = {{assets}};

// Cache storage is per origin: the scope keeps two copies of the site at two paths
// of one host from deleting each other's caches.
const PREFIX = `pgolens ${self.registration.scope} `;
const CACHE = PREFIX + VERSION;
const INDEX = new URL('./', self.registration.scope).href;
const URLS = new Set(ASSETS.map((a) => new URL(a, self.registration.scope).href));

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) => cache.addAll(ASSETS.map((a) => new Request(a, { cache: 'reload' })))),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys().then((keys) => Promise.all(keys.filter((k) => k.startsWith(PREFIX) && k !== CACHE).map((k) => caches.delete(k)))),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  url.hash = '';
  // The page itself, whatever its query: the folder's URL or its index.html.
  if (request.mode === 'navigate') url.search = '';
  let key = url.href;
  if (key === INDEX + 'index.html') key = INDEX;
  if (!URLS.has(key)) return;
  event.respondWith(
    caches
      .open(CACHE)
      .then((cache) => cache.match(key))
      .then((hit) => hit ?? fetch(request)),
  );
});
