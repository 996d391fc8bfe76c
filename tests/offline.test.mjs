// The offline copy (web/sw.js): after one visit the page loads and decodes with the
// network gone, served under a sub-path to show that its URLs are relative; and a
// rebuilt site replaces the cached one once the old build's tabs have closed, never
// mixing the two. Run `npm run build` first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { corpus, dist, dropFiles, launch, serve } from './lib/harness.mjs';

/** Waits for the demo to be decoded and shown. */
async function demoShown(page) {
  await page.locator('[role=status]').filter({ hasText: 'instrprof-raw' }).waitFor({ timeout: 15000 });
}

/** The pgolens caches of the page's origin: [{ name, urls }]. */
function cached(page) {
  return page.evaluate(async () => {
    const names = (await caches.keys()).filter((n) => n.startsWith('pgolens '));
    return Promise.all(names.map(async (name) => ({ name, urls: (await (await caches.open(name)).keys()).map((r) => r.url) })));
  });
}

/** The service worker's version, as scripts/build.sh wrote it into `root`/sw.js. */
async function version(root) {
  return /^const VERSION = '(\w+)';$/m.exec(await readFile(path.join(root, 'sw.js'), 'utf8'))[1];
}

/** Every file of `root` but sw.js, as URLs under `base` (index.html as the folder). */
async function assets(root, base) {
  const files = await readdir(root, { recursive: true, withFileTypes: true });
  return files
    .filter((f) => f.isFile() && f.name !== 'sw.js')
    .map((f) => path.relative(root, path.join(f.parentPath ?? f.path, f.name)))
    .map((f) => new URL(f === 'index.html' ? './' : f, base).href)
    .sort();
}

/** Visits `url` until a service worker controls the page: the first visit installs it. */
async function install(page, url) {
  await page.goto(url);
  await demoShown(page);
  const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
  assert.equal(scope, url);
  await page.reload();
  await demoShown(page);
  assert.ok(await page.evaluate(() => navigator.serviceWorker.controller !== null), 'controlled after a reload');
}

test('after one visit the page loads, shows its demo and decodes a dropped file with the network off', async () => {
  const server = await serve(dist, { prefix: '/sub/pgolens/' });
  const browser = await launch();
  let closed = false;
  try {
    const page = await browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e));
    await install(page, server.url);
    // One cache, named by this build's version, holding exactly the built files.
    const [cache, ...more] = await cached(page);
    assert.deepEqual(more, []);
    assert.equal(cache.name, `pgolens ${server.url} ${await version(dist)}`);
    assert.deepEqual(cache.urls.sort(), await assets(dist, server.url));

    // No server at all, and the browser offline too.
    await server.close();
    closed = true;
    await browser.context.setOffline(true);
    await page.reload();
    await demoShown(page);
    const file = 'llvm/sample-basic/sample-basic.text.prof';
    await dropFiles(page, [{ name: path.basename(file), bytes: await readFile(path.join(corpus, file)) }]);
    await page.locator('[role=status]').filter({ hasText: 'sample-text' }).waitFor({ timeout: 15000 });
    await page.getByRole('tab', { name: 'Functions', selected: true }).waitFor();
    await page.locator('.sample-functions .fn-count').filter({ hasText: '7 functions' }).waitFor();
    assert.equal(await page.locator('.sample-functions .fn-body [role=row][data-id]').count(), 7);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    if (!closed) await server.close();
  }
});

test('a rebuilt site is installed on the next visit and served, alone, once the old tabs close', async () => {
  // A copy of dist/ to rebuild in place: a new version in sw.js, a marker in index.html.
  const root = await mkdtemp(path.join(tmpdir(), 'pgolens-offline-'));
  await cp(dist, root, { recursive: true });
  const server = await serve(root, { prefix: '/app/' });
  const browser = await launch();
  const marker = (page) => page.locator('meta[name=pgolens-test-build]').count();
  try {
    const old = await browser.context.newPage();
    await install(old, server.url);
    const v1 = await version(root);
    assert.deepEqual((await cached(old)).map((c) => c.name), [`pgolens ${server.url} ${v1}`]);

    const v2 = `${v1.slice(0, 8)}rebuilt0`;
    const sw = await readFile(path.join(root, 'sw.js'), 'utf8');
    await writeFile(path.join(root, 'sw.js'), sw.replace(`const VERSION = '${v1}';`, `const VERSION = '${v2}';`));
    const index = await readFile(path.join(root, 'index.html'), 'utf8');
    await writeFile(path.join(root, 'index.html'), index.replace('</head>', '<meta name="pgolens-test-build" content="2">\n</head>'));

    // The next visit finds the new build and installs it; this page is still the old one.
    await old.reload();
    await demoShown(old);
    await old.evaluate(async () => {
      const reg = await navigator.serviceWorker.getRegistration();
      while (!reg.waiting) await new Promise((resolve) => setTimeout(resolve, 50));
    });
    assert.equal(await marker(old), 0, 'the open tab keeps its build');
    assert.deepEqual((await cached(old)).map((c) => c.name).sort(), [`pgolens ${server.url} ${v1}`, `pgolens ${server.url} ${v2}`].sort());
    await old.close();

    // Watched from a page of the same origin outside the scope: the new build takes over.
    const page = await browser.context.newPage();
    await page.goto(new URL('/elsewhere', server.url).href);
    await page.evaluate(async (scope) => {
      const reg = await navigator.serviceWorker.getRegistration(scope);
      while (reg.waiting || reg.active?.state !== 'activated') await new Promise((resolve) => setTimeout(resolve, 50));
    }, server.url);
    await page.goto(server.url);
    await demoShown(page);
    assert.equal(await marker(page), 1, 'the new build is served');
    assert.ok(await page.evaluate(() => navigator.serviceWorker.controller !== null));
    assert.deepEqual((await cached(page)).map((c) => c.name), [`pgolens ${server.url} ${v2}`]);
    await page.close();
  } finally {
    await browser.close();
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
});
