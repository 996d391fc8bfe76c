// Nothing leaves the tab: while the demo loads and a file of each format family is
// dropped and its main view opened, the page, its worker and its service worker ask
// for the site's own files only (exactly the files of dist/, the page as its folder's
// URL), and the Content-Security-Policy of index.html refuses nothing the page does.
// Run `npm run build` first.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

import { corpus, dist, dropFiles, launch, serve } from './lib/harness.mjs';

// What the browser asks for (any origin, any scheme, workers and the service worker
// included) and what reaches the server (every request that went over the network,
// the service worker's precache fetches included whether or not playwright reports them).
const asked = new Set();
const served = new Set();

let server;
let browser;

before(async () => {
  server = await serve(dist, { onRequest: (url) => served.add(url) });
  browser = await launch();
  browser.context.on('request', (request) => asked.add(request.url()));
  // Collected from the first script on: every CSP violation the page reports.
  await browser.context.addInitScript(() => {
    window.__violations = [];
    addEventListener('securitypolicyviolation', (e) =>
      window.__violations.push(`${e.effectiveDirective} refused ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`),
    );
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Every file of dist/, relative to it ('./' for index.html, as sw.js asks for it). */
async function siteFiles() {
  const files = await readdir(dist, { recursive: true, withFileTypes: true });
  return files
    .filter((f) => f.isFile())
    .map((f) => path.relative(dist, path.join(f.parentPath ?? f.path, f.name)).split(path.sep).join('/'))
    .map((f) => (f === 'index.html' ? '' : f));
}

/** A fresh page with the demo loaded; `problems` collects its errors and CSP reports. */
async function openPage() {
  const page = await browser.context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  await page.goto(server.url);
  await page.locator('[role=status]').filter({ hasText: 'instrprof-raw' }).waitFor({ timeout: 15000 });
  return { page, problems };
}

async function drop(page, files) {
  await dropFiles(page, await Promise.all(files.map(async (f) => ({ name: path.basename(f), bytes: await readFile(path.join(corpus, f)) }))));
  await page.locator('[role=status] .name', { hasText: path.basename(files[0]) }).waitFor({ timeout: 30000 });
}

async function finish({ page, problems }) {
  problems.push(...(await page.evaluate(() => window.__violations)));
  await page.close();
  assert.deepEqual(problems, []);
}

test('the demo and a file of each format family, opened and viewed, ask for nothing but the site\'s own files', async () => {
  // The demo, and the service worker's precache of the whole site.
  let open = await openPage();
  // Active: it has fetched every file of the site.
  await open.page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
  await finish(open);

  // perf.data: its flame graph.
  open = await openPage();
  await drop(open.page, ['bolt-perf/cprog/cprog.fp.perf.data']);
  await open.page.getByRole('tab', { name: 'Flame graph' }).click();
  await open.page.waitForFunction(() => Number(document.querySelector('.flame-main canvas')?.dataset.rects) > 0);
  await finish(open);

  // instrprof (raw): its Functions.
  open = await openPage();
  await drop(open.page, ['llvm/clang19-progB/clang19-progB.profraw']);
  await open.page.getByRole('tab', { name: 'Functions' }).click();
  await open.page.locator('.fn-body [role=row][data-id]').first().waitFor();
  await finish(open);

  // A sample profile: its Functions, a function's detail, its flame graph.
  open = await openPage();
  await drop(open.page, ['llvm/sample-basic/sample-basic.extbinary.prof']);
  await open.page.getByRole('tab', { name: 'Functions', selected: true }).waitFor();
  const row = open.page.locator('.sample-functions .fn-body [role=row][data-id]').first();
  await row.click();
  await open.page.getByRole('tab', { name: 'Flame graph' }).click();
  await open.page.waitForFunction(() => Number(document.querySelector('.flame-main canvas')?.dataset.rects) > 0);
  await finish(open);

  // BOLT YAML: its Functions, then a function's CFG.
  open = await openPage();
  await drop(open.page, ['bolt-perf/cprog/cprog.instr.yaml']);
  const bolt = open.page.locator('.bolt-functions .fn-body [role=row][data-id]');
  await bolt.filter({ hasText: /^hot_loop/ }).first().click();
  await open.page.getByRole('tab', { name: 'CFG', selected: true }).waitFor();
  await open.page.waitForFunction(() => Number(document.querySelector('.bolt-cfg canvas')?.dataset.paints) > 0);
  await finish(open);

  // A BOLTed ELF with its BAT.
  open = await openPage();
  await drop(open.page, ['bolt-perf/cprog/cprog.bolt']);
  await open.page.getByRole('tab', { name: 'BAT', selected: true }).waitFor({ timeout: 15000 });
  await open.page.locator('.bat .fn-body [role=row][data-id]').first().waitFor();
  await finish(open);

  const site = (await siteFiles()).map((f) => new URL(f, server.url).href).sort();
  const origin = new URL(server.url).origin;
  // Hashes and queries name no other file: the page may be asked for as ./?x.
  const plain = (u) => {
    const url = new URL(u, origin);
    url.hash = '';
    url.search = '';
    return url.href;
  };
  assert.deepEqual([...asked].map(plain).filter((u) => !site.includes(u)), [], 'requests the browser made for anything else');
  assert.deepEqual([...served].map(plain).filter((u) => !site.includes(u)), [], 'requests that reached the server for anything else');
  // Exactly the site: every file was asked for once the service worker precached it.
  assert.deepEqual([...new Set([...served].map(plain))].sort(), site);
});

test('the policy is on: the page may not reach another origin', async () => {
  const open = await openPage();
  const refused = await open.page.evaluate(() =>
    fetch('http://127.0.0.2:9/pgolens-privacy-probe').then(
      () => false,
      () => true,
    ),
  );
  assert.equal(refused, true);
  const violations = await open.page.evaluate(() => window.__violations);
  assert.equal(violations.length, 1);
  assert.match(violations[0], /^connect-src refused http:\/\/127\.0\.0\.2:9\/pgolens-privacy-probe/);
  await open.page.close();
});
