// The page's start: load the app's wasm, and register the offline copy (sw.js).
// A file, not an inline script, so that index.html's Content-Security-Policy can
// allow scripts from the site only ('self'), never inline ones.

import init from './pkg/pgolens_web.js';

init({ module_or_path: new URL('./pkg/pgolens_web_bg.wasm', import.meta.url) });

// The offline copy: over http(s) only; without it the page works the same
// (a sandboxed frame even throws on reading navigator.serviceWorker).
if (/^https?:$/.test(location.protocol) && 'serviceWorker' in navigator) {
  addEventListener('load', () => {
    const warn = (e) => console.warn('pgolens: no offline copy:', e);
    try {
      navigator.serviceWorker.register('sw.js', { scope: './' }).catch(warn);
    } catch (e) {
      warn(e);
    }
  });
}
