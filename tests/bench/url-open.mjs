// Browser benchmark (not part of `npm test`): a perf.data opened from a link
// (`index.html#url=...`, the file on a local server on another port) until its
// flame graph is drawn, against the same file dropped on the page, in the same
// Chromium, in the same run, alternating.
//
//   npm run build && node tests/bench/url-open.mjs [PERF.DATA] [RUNS]
//
// PERF.DATA defaults to $TMPDIR/pgolens-bench/url-open.perf.data, recorded on first use
// by bench/perf-record.sh (22,500 iterations: about 100 MB; never in the repository).
// The link's time counts from the navigation (page load, download, read, decode,
// draw); the drop's from the drop on a page already loaded, and the page's own load
// (to its demo shown) is reported beside it, so the two can be set side by side.

import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { launch, repoRoot, serve } from '../lib/harness.mjs';

const perfData = process.argv[2] ?? path.join(tmpdir(), 'pgolens-bench', 'url-open.perf.data');
const runs = Number(process.argv[3] ?? 2);
const TIMEOUT = Number(process.env.BENCH_TIMEOUT_MS ?? 10 * 60 * 1000);
const mb = (n) => `${(n / 1048576).toFixed(0)} MB`;
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;

if (!existsSync(perfData)) {
  console.log(`recording ${perfData} (bench/perf-record.sh)`);
  mkdirSync(path.dirname(perfData), { recursive: true });
  execFileSync('bash', [path.join(repoRoot, 'bench/perf-record.sh'), perfData, '22500'], { stdio: 'inherit' });
}
const size = statSync(perfData).size;

/** Serves `file` (only) with CORS, streamed from disk with its length, as a static host would. */
async function fileServer(file) {
  const name = `/${path.basename(file)}`;
  const server = createServer((req, res) => {
    if (new URL(req.url, 'http://localhost').pathname !== name) {
      res.writeHead(404, { 'access-control-allow-origin': '*' }).end();
      return;
    }
    res.writeHead(200, {
      'access-control-allow-origin': '*',
      'content-type': 'application/octet-stream',
      'content-length': statSync(file).size,
      'cache-control': 'no-store',
    });
    createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}${name}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

/** Clicks the Flame graph tab once there and waits until the graph is painted. */
async function flameDrawn(page) {
  await page.getByRole('tab', { name: 'Flame graph' }).click({ timeout: TIMEOUT });
  await page.waitForFunction(
    () =>
      Number(document.querySelector('.flame-main canvas')?.dataset.rects) > 0 &&
      Number(document.querySelector('.flame-main canvas')?.dataset.paints) > 0,
    null,
    { timeout: TIMEOUT, polling: 50 },
  );
}

/** When (ms since navigation) the status line first showed each phase. */
function phases(page) {
  return page.evaluate(() => window.__phases);
}

async function byLink(browser, site, fileUrl) {
  const page = await browser.context.newPage();
  const start = performance.now();
  await page.goto(`${site.url}#url=${encodeURIComponent(fileUrl)}`);
  await flameDrawn(page);
  const ms = performance.now() - start;
  const seen = await phases(page);
  const samples = await page.locator('.flame-total').innerText();
  await page.close();
  return { ms, seen, samples };
}

async function byDrop(browser, site) {
  const page = await browser.context.newPage();
  const loadStart = performance.now();
  await page.goto(site.url);
  await page.locator('[role=status]').filter({ hasText: 'instrprof-raw' }).waitFor({ timeout: 30000 });
  const load = performance.now() - loadStart;
  const start = performance.now();
  await page.locator('input[type=file]').setInputFiles(perfData);
  await flameDrawn(page);
  const ms = performance.now() - start;
  const samples = await page.locator('.flame-total').innerText();
  await page.close();
  return { ms, load, samples };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

const site = await serve();
const file = await fileServer(perfData);
const browser = await launch();
await browser.context.addInitScript(() => {
  window.__phases = {};
  const watch = () => {
    const status = document.querySelector('[role=status]');
    if (!status) return void requestAnimationFrame(watch);
    new MutationObserver(() => {
      const now = {
        reading: status.textContent.includes('reading…'),
        decoding: status.textContent.includes('decoding…'),
        decoded: status.querySelector('.badge.format') !== null,
      };
      for (const [phase, shown] of Object.entries(now)) if (shown) window.__phases[phase] ??= performance.now();
    }).observe(status, { subtree: true, childList: true, characterData: true });
  };
  addEventListener('DOMContentLoaded', watch);
});
try {
  console.log(`perf.data ${mb(size)} (${perfData}), ${runs} runs each, alternating`);
  // One visit first: the service worker installs, so every run loads the page alike.
  const warm = await browser.context.newPage();
  await warm.goto(site.url);
  await warm.locator('[role=status]').filter({ hasText: 'instrprof-raw' }).waitFor({ timeout: 30000 });
  await warm.evaluate(() => navigator.serviceWorker.ready.then(() => true));
  await warm.close();
  const links = [];
  const drops = [];
  for (let i = 0; i < runs; i++) {
    const d = await byDrop(browser, site);
    drops.push(d);
    console.log(`drop ${i + 1}: ${s(d.ms)} from the drop to the flame graph (${d.samples}); page load ${s(d.load)}`);
    const l = await byLink(browser, site, file.url);
    links.push(l);
    const p = l.seen;
    console.log(
      `link ${i + 1}: ${s(l.ms)} from the navigation to the flame graph (${l.samples}); ` +
        `download shown from ${s(p.reading ?? NaN)}, decoding from ${s(p.decoding ?? NaN)}, decoded at ${s(p.decoded ?? NaN)}`,
    );
  }
  const link = median(links.map((l) => l.ms));
  const drop = median(drops.map((d) => d.ms));
  const load = median(drops.map((d) => d.load));
  console.log(
    `median: link ${s(link)}; drop ${s(drop)} + page load ${s(load)} = ${s(drop + load)}; ` +
      `link / (load + drop) = ${(link / (drop + load)).toFixed(3)}`,
  );
} finally {
  await browser.close();
  await site.close();
  await file.close();
}
