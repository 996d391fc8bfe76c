// The page's start: load the app's wasm, and register the offline copy (sw.js).
// A file, not an inline script, so that index.html's Content-Security-Policy can
// allow scripts from the site only ('self'), never inline ones.
//
// globalThis.pgolensPage is what the app asks of its boot script (a self-contained
// page's own boot script, in web/pack.js, answers the same): whether the page is one
// file, the profiles it carries, and `pack(files, link)`, Download HTML's page.

import init from './pkg/pgolens_web.js';

globalThis.pgolensPage = {
  single: false,
  carried: [],
  // The site's files, as the offline copy keeps them (sw.js precaches pack.js and
  // every asset it packs), into a self-contained page with `files` (File[]) and `link`.
  async pack(files, link) {
    const { ASSETS, pack } = await import('./pack.js');
    const bytes = async (url) => {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
      return new Uint8Array(await response.arrayBuffer());
    };
    const assets = {};
    await Promise.all(ASSETS.map(async (path) => (assets[path] = await bytes(new URL(path, import.meta.url)))));
    const demoPath = document.getElementById('app')?.dataset.demo;
    const demo = demoPath ? { name: demoPath.split('/').pop(), bytes: await bytes(new URL(demoPath, document.baseURI)) } : null;
    const read = await Promise.all(files.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) })));
    return pack({ assets, demo, files: read, link });
  },
};

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
