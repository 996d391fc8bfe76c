// Browser test of profiles a link names (`#url=...`, web/src/components/remote.rs):
// fetched from servers on other ports of this machine (what the page's CSP lets it
// reach over plain http) or, by a relative URL, from the page's own, shown with
// their read progress, decoded as a drop is, with exact messages when a server
// refuses (no CORS header, 404) or a URL may not be fetched, compressed files
// opened, and a download aborted when its document is closed. Run `npm run build` first.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

import { corpus, launch, parseProftext, repoRoot, serve } from './lib/harness.mjs';

const RAW = 'llvm/bincorr-progB/bincorr-progB.profraw';
const ELF = 'llvm/bincorr-progB/bincorr-progB.elf';
const PERF = 'bolt-perf/cprog/cprog.bolt.cpuclock.perf.data';
const ZST = path.join(repoRoot, 'crate/tests/data/compressed/cprog.bolt.cpuclock.perf.data.zst');

let site;
let files;
let noCors;
let browser;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A file server on a free loopback port (another origin than the page's). Routes:
 *   /corpus/<path>             a corpus file
 *   /slow/<chunk>/<ms>/<path>  a corpus file in <chunk>-byte pieces, <ms> apart
 *   /gz/<path>.gz              a corpus file gzip-compressed (a .gz file, no Content-Encoding)
 *   /zst/<name>.zst            the committed zstd-compressed perf.data
 * Anything else is 404. `cors`: send Access-Control-Allow-Origin. Every response
 * closed before its last byte is recorded in `aborted` (by URL path).
 */
async function fileServer({ cors }) {
  const aborted = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    const headers = { 'cache-control': 'no-store', 'content-type': 'application/octet-stream' };
    if (cors) headers['access-control-allow-origin'] = '*';
    const parts = url.pathname.split('/').slice(1).map(decodeURIComponent);
    let body = null;
    let chunk = 0;
    let pause = 0;
    try {
      if (parts[0] === 'corpus') body = await readFile(path.join(corpus, ...parts.slice(1)));
      if (parts[0] === 'slow') {
        [chunk, pause] = [Number(parts[1]), Number(parts[2])];
        body = await readFile(path.join(corpus, ...parts.slice(3)));
      }
      if (parts[0] === 'gz') body = gzipSync(await readFile(path.join(corpus, ...parts.slice(1)).replace(/\.gz$/, '')));
      if (parts[0] === 'zst') body = await readFile(ZST);
    } catch {
      body = null;
    }
    if (!body) {
      res.writeHead(404, headers).end('not found');
      return;
    }
    res.writeHead(200, { ...headers, 'content-length': body.length });
    if (!chunk) {
      res.end(body);
      return;
    }
    let closed = false;
    res.on('close', () => {
      if (!res.writableFinished) {
        closed = true;
        aborted.push(url.pathname);
      }
    });
    for (let at = 0; at < body.length && !closed; at += chunk) {
      res.write(body.subarray(at, at + chunk));
      await sleep(pause);
    }
    if (!closed) res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    aborted,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

before(async () => {
  site = await serve();
  files = await fileServer({ cors: true });
  noCors = await fileServer({ cors: false });
  browser = await launch();
  // Every text the status line shows, from the first script on.
  await browser.context.addInitScript(() => {
    window.__statuses = [];
    const watch = () => {
      const status = document.querySelector('[role=status]');
      if (!status) return void requestAnimationFrame(watch);
      const note = () => window.__statuses.push(status.textContent);
      new MutationObserver(note).observe(status, { subtree: true, childList: true, characterData: true });
      note();
    };
    addEventListener('DOMContentLoaded', watch);
  });
});

after(async () => {
  await browser?.close();
  await site?.close();
  await files?.close();
  await noCors?.close();
});

/** A page opened on the link naming `urls`; collects its errors. */
async function openLink(urls) {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${site.url}#${urls.map((u) => `url=${encodeURIComponent(u)}`).join('&')}`);
  return { page, errors };
}

test('a link to a profile and its binary opens both, with read progress, decoded as a drop is', async () => {
  const records = parseProftext(await readFile(path.join(corpus, `${RAW}.proftext`), 'utf8'));
  assert.equal(records.length, 18);
  // The 856-byte profile in 64-byte pieces 80 ms apart: about a second of download.
  const { page, errors } = await openLink([`${files.url}slow/64/80/${RAW}`, `${files.url}corpus/${ELF}`]);
  const status = page.locator('[role=status]');
  await status.filter({ hasText: 'correlated with bincorr-progB.elf' }).waitFor({ timeout: 20000 });
  const seen = await page.evaluate(() => window.__statuses);
  const percents = seen.map((s) => /^bincorr-progB\.profrawreading… (\d+)%$/.exec(s)?.[1]).filter(Boolean).map(Number);
  // 14 pieces: the download's progress, piece by piece (the worker's own read of 856
  // bytes is one step).
  const partial = new Set(percents.filter((p) => p > 0 && p < 100));
  assert.ok(partial.size >= 8, `the download's progress was shown: ${JSON.stringify(seen)}`);
  // Both files are open, the profile shown.
  assert.deepEqual(await page.locator('.file-select .file-name').allInnerTexts(), ['bincorr-progB.profraw', 'bincorr-progB.elf']);
  assert.match(await status.innerText(), /instrprof-raw/);
  // The same view a drop gives (tests/correlate.test.mjs): llvm-profdata's records.
  await page.getByRole('tab', { name: 'Functions' }).click();
  await page.locator('.fn-body [role=row][data-id]').first().waitFor();
  assert.equal(Number(await page.getByRole('grid', { name: 'Functions' }).getAttribute('aria-rowcount')), records.length);
  const f = records.reduce((a, b) => (b.counts.length > a.counts.length ? b : a));
  await page.locator(`.fn-body .fn-name[title="${f.name}"]`).click();
  const detail = page.getByRole('complementary', { name: 'Function detail' });
  await detail.locator('.counter-values li').first().waitFor();
  assert.deepEqual((await detail.locator('.counter-values .counter-value').allInnerTexts()).map(Number), f.counts);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a server that does not share its files (no Access-Control-Allow-Origin) gets the CORS message', async () => {
  const url = `${noCors.url}corpus/${PERF}`;
  const { page, errors } = await openLink([url]);
  const alert = page.getByRole('alert');
  await alert.waitFor({ timeout: 15000 });
  assert.equal(
    await alert.innerText(),
    `cprog.bolt.cpuclock.perf.data: ${url}: the request failed: the server refused to share it with this page ` +
      '(CORS: it must send Access-Control-Allow-Origin) or could not be reached; download the file and drop it here instead',
  );
  assert.match(await page.locator('[role=status]').innerText(), /could not be decoded/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a missing file says HTTP 404, and a URL the page may not fetch says why', async () => {
  const missing = `${files.url}corpus/no/such.perf.data`;
  const farHttp = 'http://127.0.0.2:9/far.perf.data';
  const { page, errors } = await openLink([missing, 'file:///etc/passwd', 'http://[::1', farHttp]);
  const alert = page.getByRole('alert');
  await alert.waitFor({ timeout: 15000 });
  assert.equal(await alert.innerText(), `such.perf.data: HTTP 404 Not Found from ${missing}: the server has no such file`);
  const shown = async (name) => {
    await page.locator(`.file-select[title="${name}"]`).click();
    await page.locator('[role=status] .name', { hasText: name }).waitFor();
    return alert.innerText();
  };
  assert.equal(
    await shown('file:///etc/passwd'),
    'file:///etc/passwd: only http and https URLs are fetched, not file: URLs; download the file and drop it here instead',
  );
  assert.equal(await shown('http://[::1'), "http://[::1: not a valid URL; check the link's url= value");
  assert.equal(
    await shown(farHttp),
    `${farHttp}: plain http is fetched only from this machine (it could be read or altered on the way); use an https ` +
      'URL, or download the file and drop it here instead',
  );
  assert.deepEqual(errors, []);
  await page.close();
});

test('gzip- and zstd-compressed profiles served as files open', async () => {
  const { page, errors } = await openLink([`${files.url}gz/${PERF}.gz`, `${files.url}zst/cprog.bolt.cpuclock.perf.data.zst`]);
  const status = page.locator('[role=status]');
  await status.filter({ hasText: 'gzip' }).waitFor({ timeout: 20000 });
  assert.equal(await status.locator('.name').innerText(), 'cprog.bolt.cpuclock.perf.data.gz');
  assert.equal(await status.locator('.detection').innerText(), 'perf.data [version 2, little-endian, gzip]');
  assert.match(await status.locator('.size').innerText(), /^49\.\d KiB \(.* compressed\)$/);
  await page.locator('.file-select', { hasText: 'cprog.bolt.cpuclock.perf.data.zst' }).click();
  await status.filter({ hasText: 'zstd' }).waitFor({ timeout: 20000 });
  assert.equal(await status.locator('.detection').innerText(), 'perf.data [version 2, little-endian, zstd]');
  assert.equal(await status.locator('.size').innerText(), '49.7 KiB (7.2 KiB compressed)');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a relative URL resolves against the page, and a name is the path\'s last segment, percent-decoded', async () => {
  // The page's own demo, by a URL relative to it; the zstd file under an escaped name.
  const { page, errors } = await openLink(['demo/irpgo-progA.profraw', `${files.url}zst/cpu%20clock%2Bzstd.perf.data.zst`]);
  const status = page.locator('[role=status]');
  await status.filter({ hasText: 'instrprof-raw' }).waitFor({ timeout: 20000 });
  assert.equal(await status.locator('.name').innerText(), 'irpgo-progA.profraw');
  await page.locator('.file-select', { hasText: 'cpu clock+zstd.perf.data.zst' }).click();
  await status.filter({ hasText: 'zstd' }).waitFor({ timeout: 20000 });
  assert.equal(await status.locator('.name').innerText(), 'cpu clock+zstd.perf.data.zst');
  assert.deepEqual(errors, []);
  await page.close();
});

test('closing a document while it downloads aborts the download', async () => {
  // The 95,520-byte ELF in 1 KiB pieces 100 ms apart: about ten seconds.
  const slow = `slow/1024/100/${ELF}`;
  const { page, errors } = await openLink([`${files.url}${slow}`]);
  await page.waitForFunction(() => window.__statuses.some((s) => /reading… [1-9]\d*%/.test(s)), null, { timeout: 15000 });
  await page.getByRole('button', { name: 'Close bincorr-progB.elf' }).click();
  const start = Date.now();
  while (!files.aborted.includes(`/${slow}`) && Date.now() - start < 5000) await sleep(50);
  assert.deepEqual(files.aborted, [`/${slow}`]);
  assert.equal(await page.locator('.file-select').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the view of a profile a link fetched comes back on a reload, fetched again', async () => {
  const records = parseProftext(await readFile(path.join(corpus, `${RAW}.proftext`), 'utf8'));
  const { page, errors } = await openLink([`${files.url}corpus/${RAW}`, `${files.url}corpus/${ELF}`]);
  await page.locator('[role=status]').filter({ hasText: 'correlated with bincorr-progB.elf' }).waitFor({ timeout: 20000 });
  await page.getByRole('tab', { name: 'Functions' }).click();
  const f = records.reduce((a, b) => (b.counts.length > a.counts.length ? b : a));
  await page.locator(`.fn-body .fn-name[title="${f.name}"]`).click();
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).has('row'));
  const link = new URLSearchParams(new URL(page.url()).hash.slice(1));
  // The link keeps the URLs beside the files they brought.
  assert.deepEqual(link.getAll('url'), [`${files.url}corpus/${RAW}`, `${files.url}corpus/${ELF}`]);
  assert.deepEqual(
    link.getAll('file').map((f) => f.replace(/^\d+\.[0-9a-f]*\./, '')),
    ['bincorr-progB.profraw', 'bincorr-progB.elf'],
  );

  await page.reload();
  const detail = page.getByRole('complementary', { name: 'Function detail' });
  await detail.locator('.counter-values li').first().waitFor({ timeout: 20000 });
  assert.deepEqual((await detail.locator('.counter-values .counter-value').allInnerTexts()).map(Number), f.counts);
  assert.equal(await page.getByRole('tab', { selected: true }).innerText(), 'Functions');
  assert.equal(await page.locator('.link-waiting').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});
