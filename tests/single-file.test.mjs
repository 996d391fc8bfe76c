// The self-contained page (web/pack.js): dist/pgolens.html opened from file:// with
// the network off shows its demo; `pgolens share` puts a profile in it; and the page's
// Download HTML, from the site offline after one visit or from a single file, writes
// one that shows the files that were open. Every page is opened from a folder of its
// own, offline, with every request that is not a local file aborted and recorded.
// Run `npm run build` first; the CLI is built here (cargo: a no-op when up to date).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { corpus, dist, dropFiles, fingerprint, launch, repoRoot, serve } from './lib/harness.mjs';

const CLI = path.resolve(repoRoot, process.env.CARGO_TARGET_DIR ?? 'target', 'debug', 'pgolens');
// A sample profile of 7 functions (llvm-profdata show --sample lists them).
const SAMPLE = 'llvm/sample-basic/sample-basic.text.prof';

let dir;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pgolens-single-'));
  // The page as built, in a folder of its own: nothing next to it.
  await copyFile(path.join(dist, 'pgolens.html'), path.join(dir, 'pgolens.html'));
  // A no-op when the CLI is up to date; builds it when absent or older than its sources.
  execFileSync('cargo', ['build', '-p', 'pgolens-cli'], { cwd: repoRoot, stdio: 'inherit' });
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * Opens `file` from file:// in a fresh browser, offline. Resolves to { page, errors
 * (uncaught and console errors), requests (every one that was not for a local file),
 * close }.
 */
async function openOffline(file) {
  const browser = await launch();
  await browser.context.setOffline(true);
  const requests = [];
  await browser.context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    requests.push(url);
    return route.abort();
  });
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  // A policy violation (an inline script or style the policy does not hash) is a console error.
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('request', (r) => {
    if (!/^(file|blob|data):/.test(r.url())) requests.push(r.url());
  });
  await page.goto(pathToFileURL(file).href);
  return { page, errors, requests, close: () => browser.close() };
}

function statusShows(page, text) {
  return page.locator('[role=status]').filter({ hasText: text }).first().waitFor({ timeout: 20000 });
}

/** The sample profile's functions table, as offline.test.mjs checks it. */
async function sampleShown(page) {
  await statusShows(page, 'sample-text');
  await statusShows(page, path.basename(SAMPLE));
  await page.getByRole('tab', { name: 'Functions', selected: true }).waitFor();
  await page.locator('.sample-functions .fn-count').filter({ hasText: '7 functions' }).waitFor();
  assert.equal(await page.locator('.sample-functions .fn-body [role=row][data-id]').count(), 7);
}

test('dist/pgolens.html from file://, offline, decodes its demo', async () => {
  const { page, errors, requests, close } = await openOffline(path.join(dir, 'pgolens.html'));
  try {
    await statusShows(page, 'instrprof-raw');
    const status = await page.locator('[role=status]').first().innerText();
    assert.match(status, /irpgo-progA\.profraw/);
    assert.match(status, /version 10/);
    // The hottest function first, as on the site: fib(int), 8361 + 4180 in llvm-profdata show.
    await page.locator('.fn-row[data-id] .fn-name').first().filter({ hasText: 'fib(int)' }).waitFor();
    assert.deepEqual(requests, []);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('pgolens share puts a profile in the page, which opens on it', async () => {
  const out = path.join(dir, 'shared.html');
  const bytes = await readFile(path.join(corpus, SAMPLE));
  execFileSync(CLI, ['share', path.join(corpus, SAMPLE), '-o', out, '--page', path.join(dir, 'pgolens.html')]);
  const { page, errors, requests, close } = await openOffline(out);
  try {
    await sampleShown(page);
    // Only the carried file: not the demo.
    assert.equal(await page.locator('.files .file').count(), 1);
    // The link names it by size and fingerprint (for a file of one 4 MiB block, the
    // SHA-256 of its SHA-256), as the page's worker computes it too.
    const id = fingerprint(bytes).slice(0, 12);
    const hash = decodeURIComponent(await page.evaluate(() => location.hash));
    assert.match(hash, new RegExp(`^#file=${bytes.length}\\.${id}\\.sample-basic\\.text\\.prof(&|$)`));
    assert.deepEqual(requests, []);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

/** Drops the sample profile on `page`, then saves Share's Download HTML; resolves to its path. */
async function downloadWithSample(page, name) {
  await dropFiles(page, [{ name: path.basename(SAMPLE), bytes: await readFile(path.join(corpus, SAMPLE)) }]);
  await sampleShown(page);
  await page.getByRole('button', { name: 'Share' }).click();
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download HTML' }).click();
  const file = path.join(dir, name);
  await (await download).saveAs(file);
  return file;
}

test("the page's Download HTML, from the site offline and from a single file, shows the same file", async () => {
  const server = await serve();
  const site = await launch();
  let closed = false;
  try {
    // The site after one visit (its offline copy installed), the network gone.
    const page = await site.context.newPage();
    await page.goto(server.url);
    await statusShows(page, 'instrprof-raw');
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.reload();
    await statusShows(page, 'instrprof-raw');
    assert.ok(await page.evaluate(() => navigator.serviceWorker.controller !== null), 'controlled after a reload');
    await server.close();
    closed = true;
    await site.context.setOffline(true);
    const fromSite = await downloadWithSample(page, 'from-site.html');
    const single = await openOffline(path.join(dir, 'pgolens.html'));
    let fromSingle;
    try {
      await statusShows(single.page, 'instrprof-raw');
      fromSingle = await downloadWithSample(single.page, 'from-single.html');
      assert.deepEqual(single.errors, []);
    } finally {
      await single.close();
    }
    for (const file of [fromSite, fromSingle]) {
      const { page, errors, requests, close } = await openOffline(file);
      try {
        // Both open files are carried, in their order (the demo, then the sample);
        // the link names the sample as the one shown.
        await page.locator('.files .file-name').nth(1).waitFor({ timeout: 20000 });
        assert.deepEqual(await page.locator('.files .file-name').allInnerTexts(), ['irpgo-progA.profraw', path.basename(SAMPLE)]);
        assert.match(await page.evaluate(() => location.hash), /(^#|&)doc=1(&|$)/);
        await page.locator('.file-select', { hasText: path.basename(SAMPLE) }).click();
        await sampleShown(page);
        assert.deepEqual(requests, []);
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    }
  } finally {
    await site.close();
    if (!closed) await server.close();
  }
});
