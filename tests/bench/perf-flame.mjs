// Browser benchmark (not part of `npm test`): a perf.data dropped on pgolens until
// its flame graph is drawn, against speedscope 1.25 importing the `perf script`
// text of the same recording (speedscope reads perf's text, not perf.data), in the
// same Chromium, in the same run. Also the peak memory of the tab's process,
// resident and private (see `lib/memory.mjs`).
//
//   npm run build && node tests/bench/perf-flame.mjs PERF.DATA [BINARY...]
//
// bench/perf-record.sh records a suitable perf.data. The `perf script` text is
// written beside it (PERF.DATA.script.txt) on the first run; speedscope is fetched
// from the npm registry into a cache folder (`npm pack`, never into the project).
// Chromium cannot hold a string longer than 2^29 characters, and speedscope reads
// the whole text as one: past that size it fails, which is reported as such.

import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, existsSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';

import { launch, serve } from '../lib/harness.mjs';
import { watchMemory } from '../lib/memory.mjs';

const [perfData, ...binaries] = process.argv.slice(2);
// SKIP_SPEEDSCOPE=1 measures pgolens alone. QUERY='?split-above=0' opens pgolens
// with that query (here: the recording read by two workers).
const skipSpeedscope = Boolean(process.env.SKIP_SPEEDSCOPE);
const query = process.env.QUERY ?? '';
if (!perfData) {
  console.error('usage: node tests/bench/perf-flame.mjs PERF.DATA [BINARY...]');
  process.exit(2);
}
const TIMEOUT = Number(process.env.BENCH_TIMEOUT_MS ?? 15 * 60 * 1000);
const mb = (n) => `${(n / 1048576).toFixed(0)} MB`;

/** speedscope's release build, unpacked once into a cache folder. */
async function speedscope() {
  const dir = path.join(tmpdir(), 'pgolens-speedscope-1.25.0');
  const release = path.join(dir, 'package', 'dist', 'release');
  if (!existsSync(path.join(release, 'index.html'))) {
    await mkdir(dir, { recursive: true });
    const tgz = execFileSync('npm', ['pack', 'speedscope@1.25.0', '--silent'], { cwd: dir, encoding: 'utf8' }).trim();
    execFileSync('tar', ['xzf', tgz], { cwd: dir });
  }
  return release;
}

/** `perf script` (default fields, what speedscope imports) of the recording, once. */
async function scriptText(file) {
  const text = `${file}.script.txt`;
  if (!existsSync(text)) {
    const out = createWriteStream(text);
    const perf = spawn('perf', ['script', '-f', '-i', file], { stdio: ['ignore', 'pipe', 'ignore'] });
    perf.stdout.pipe(out);
    await once(perf, 'close');
    await once(out, 'close').catch(() => {});
  }
  return text;
}

/**
 * Runs `work` while sampling chromium's memory. Resolves to [result, growth of all
 * processes, the tab's process]: the tab (page and its worker) is the renderer
 * that grew the most, with its peak resident size (`peak`) and the peak of its
 * private footprint (`privatePeak`, see `lib/memory.mjs`).
 */
async function withPeakMemory(work) {
  const memory = watchMemory(100);
  const result = await work().catch(async (e) => {
    await memory.stop();
    throw e;
  });
  const { base, peakAll, tab } = await memory.stop();
  return [result, peakAll - base.all, tab];
}

// Both pages are timed on their own clock, from just before the file is given to
// two frames after the drawing is seen (checked every frame): the time the page
// took, not the benchmark's round trips. (Timed from here, waiting for a tab to
// appear in a click, Playwright's retries added up to half a second.)
const pageClock = (page) => page.evaluate(() => performance.now());
const framesLater = (page) =>
  page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now())))));

async function pgolens(browser, url) {
  const page = await browser.context.newPage();
  await page.goto(url + query);
  await page.locator('[role=status]').filter({ hasText: 'instrprof-raw' }).waitFor({ timeout: 30000 });
  return withPeakMemory(async () => {
    const start = await pageClock(page);
    await page.locator('input[type=file]').setInputFiles([perfData, ...binaries]);
    // A recording opens on its flame graph.
    await page.waitForFunction(
      () => Number(document.querySelector('.flame-main canvas')?.dataset.rects) > 0 &&
        Number(document.querySelector('.flame-main canvas')?.dataset.paints) > 0,
      null,
      { timeout: TIMEOUT, polling: 'raf' },
    );
    const ms = (await framesLater(page)) - start;
    const samples = await page.locator('.flame-total').innerText();
    await page.close();
    return { ms, samples };
  });
}

async function speedscopeRun(browser, url, text) {
  const page = await browser.context.newPage();
  let crashed = null;
  // speedscope reports a failed import as an uncaught error (and an alert).
  const failure = new Promise((_, reject) => {
    page.on('crash', () => reject(new Error((crashed = 'the tab crashed'))));
    page.on('pageerror', (e) => reject(new Error((crashed ??= e.message))));
    page.on('dialog', (d) => {
      reject(new Error((crashed ??= d.message())));
      d.dismiss().catch(() => {});
    });
  });
  failure.catch(() => {});
  await page.goto(url);
  return withPeakMemory(async () => {
    const start = await pageClock(page);
    await page.locator('#file').setInputFiles(text);
    try {
      const drawn = page.waitForFunction(
        () => / - speedscope$/.test(document.title) && document.querySelector('canvas'),
        null,
        { timeout: TIMEOUT, polling: 'raf' },
      );
      await Promise.race([drawn, failure]);
      return { ms: (await framesLater(page)) - start };
    } catch (e) {
      return { ms: (await pageClock(page).catch(() => start)) - start, failed: crashed ?? e.message.split('\n')[0] };
    } finally {
      await page.close().catch(() => {});
    }
  });
}

const size = statSync(perfData).size;
const text = skipSpeedscope ? null : await scriptText(perfData);
console.log(`perf.data ${mb(size)}` + (text ? `, perf script text ${mb(statSync(text).size)}` : ''));

const ours = await serve();
const theirs = await serve(await speedscope());
const browser = await launch();
try {
  const [p, pAll, pTab] = await pgolens(browser, ours.url);
  console.log(
    `pgolens:    ${(p.ms / 1000).toFixed(2)} s to the flame graph (${p.samples}); ` +
      `tab process peak ${mb(pTab.peak)} = ${(pTab.peak / size).toFixed(2)}× the file resident, ` +
      `${mb(pTab.privatePeak)} = ${(pTab.privatePeak / size).toFixed(2)}× private (all chromium processes +${mb(pAll)})`,
  );
  const none = { peak: 0, privatePeak: 0 };
  const [s, sAll, sTab] = skipSpeedscope ? [{ failed: 'skipped', ms: 0 }, 0, none] : await speedscopeRun(browser, theirs.url, text);
  const sPeaks = `tab peak ${mb(sTab.peak)} resident, ${mb(sTab.privatePeak)} private`;
  if (s.failed) {
    console.log(`speedscope: failed after ${(s.ms / 1000).toFixed(2)} s: ${s.failed} (${sPeaks}, all +${mb(sAll)})`);
  } else {
    console.log(`speedscope: ${(s.ms / 1000).toFixed(2)} s to the flame graph; ${sPeaks} (all +${mb(sAll)})`);
    console.log(`ratio pgolens / speedscope: ${(p.ms / s.ms).toFixed(3)}`);
  }
} finally {
  await browser.close();
  await ours.close();
  await theirs.close();
}
