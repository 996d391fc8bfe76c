// Sample-profile page benchmark (not part of `npm test`): drops a large sample
// profile (an extbinary of bench/make_sampletext.py's, say) through the file input
// and prints the time from the drop to the first Functions rows drawn, then from
// selecting the largest function (the first row: the largest total) to its line
// heat and to its inline flame graph painted (the first graph builds the profile's
// stacks), a second function's inline graph (stacks built), and the whole-profile
// flame graph; with the peak resident memory of all chromium processes.
//
//   npm run build && node tests/bench/sample-page.mjs BIG.extbinary
//
// Output ends with one line of JSON: {"file","bytes","functions","firstRowsMs",
// "detailMs","inlineFlameMs","secondInlineFlameMs","wholeFlameMs","peakRssBytes"}.

import { stat } from 'node:fs/promises';
import path from 'node:path';

import { launch, serve } from '../lib/harness.mjs';
import { chromiumRss } from '../lib/memory.mjs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node tests/bench/sample-page.mjs FILE');
  process.exit(2);
}
const bytes = (await stat(file)).size;
const TIMEOUT = 15 * 60 * 1000;
const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;

/** Waits until a canvas under `selector` not marked `data-old` is painted with rectangles. */
async function painted(page, selector) {
  await page.waitForFunction(
    (s) => {
      const c = document.querySelector(s);
      return c && !c.dataset.old && Number(c.dataset.paints) > 0 && Number(c.dataset.rects) > 0;
    },
    selector,
    { timeout: TIMEOUT, polling: 20 },
  );
}

/** Marks the canvas under `selector`: a graph laid out later is drawn on a new one. */
const markOld = (page, selector) =>
  page.evaluate((s) => {
    const c = document.querySelector(s);
    if (c) c.dataset.old = '1';
  }, selector);

/** Progress on stderr, so a slow step shows where it is. */
let dropped = 0;
const log = (what) => console.error(`[${((performance.now() - dropped) / 1000).toFixed(1)} s after the drop] ${what}`);

const server = await serve();
const browser = await launch();
try {
  const page = await browser.context.newPage();
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(server.url);
  await page.locator('[role=status]').filter({ hasText: 'instrprof-raw' }).waitFor({ timeout: 30000 });
  let peakRss = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peakRss = Math.max(peakRss, chromiumRss().all);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();

  const rows = page.locator('.sample-functions .fn-body [role=row][data-id]');
  const start = performance.now();
  dropped = start;
  await page.locator('input[type=file]').setInputFiles(file);
  await page.locator('[role=status]').filter({ hasText: path.basename(file) }).waitFor({ timeout: TIMEOUT });
  await rows.first().waitFor({ timeout: TIMEOUT });
  const firstRowsMs = performance.now() - start;
  log('first rows');
  const functions = Number(await page.getByRole('table', { name: 'Functions' }).getAttribute('aria-rowcount'));

  const inline = '.sample-inline canvas';
  let t = performance.now();
  const largest = await rows.first().locator('.fn-name').getAttribute('title');
  await rows.first().click();
  await page.locator('.heat tbody tr').first().waitFor({ timeout: TIMEOUT });
  const detailMs = performance.now() - t;
  log('line heat');
  const heatRows = await page.locator('.heat tbody tr').count();
  await painted(page, inline);
  const inlineFlameMs = performance.now() - t;
  log('inline flame graph');
  const inlineRects = await page.locator(inline).getAttribute('data-rects');

  await markOld(page, inline);
  t = performance.now();
  await rows.nth(1).click();
  await painted(page, inline);
  const secondInlineFlameMs = performance.now() - t;
  log('second inline flame graph');

  t = performance.now();
  await page.getByRole('tab', { name: 'Flame graph' }).click();
  await painted(page, '.flame-main canvas');
  const wholeFlameMs = performance.now() - t;
  const samples = await page.locator('.flame-total').innerText();
  sampling = false;
  await sampler;

  console.log(`file: ${file} (${mb(bytes)}), ${functions} functions`);
  console.log(`drop → first Functions rows drawn: ${firstRowsMs.toFixed(0)} ms`);
  console.log(`largest function (${largest}): line heat in ${detailMs.toFixed(0)} ms (${heatRows} rows shown),`);
  console.log(`  its inline flame graph painted in ${inlineFlameMs.toFixed(0)} ms (${inlineRects} rectangles; builds the stacks)`);
  console.log(`second function's inline flame graph: ${secondInlineFlameMs.toFixed(0)} ms`);
  console.log(`whole-profile flame graph: ${wholeFlameMs.toFixed(0)} ms (${samples})`);
  console.log(`peak RSS of all chromium processes: ${mb(peakRss)}`);
  console.log(
    JSON.stringify({
      file,
      bytes,
      functions,
      firstRowsMs: Math.round(firstRowsMs),
      detailMs: Math.round(detailMs),
      inlineFlameMs: Math.round(inlineFlameMs),
      secondInlineFlameMs: Math.round(secondInlineFlameMs),
      wholeFlameMs: Math.round(wholeFlameMs),
      peakRssBytes: peakRss,
    }),
  );
} finally {
  await browser.close();
  await server.close();
}
