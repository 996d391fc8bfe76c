// Functions-table benchmark (not part of `npm test`): drops FILE through the file
// input, clicks the Functions tab as soon as it appears, and prints the time from
// the drop to the first table rows drawn, and the peak main-thread JS heap (and the
// peak RSS of all chromium processes, which includes the worker's wasm memory).
//
//   npm run build && node tests/bench/functions-table.mjs FILE.profdata
//
// Output ends with one line of JSON for scripts: {"file","bytes","firstRowsMs",
// "tabShownMs","peakHeapBytes","peakRssBytes","functions"}.

import { stat } from 'node:fs/promises';
import path from 'node:path';

import { launch, serve } from '../lib/harness.mjs';
import { chromiumRss } from '../lib/memory.mjs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node tests/bench/functions-table.mjs FILE');
  process.exit(2);
}
const bytes = (await stat(file)).size;

const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;

const server = await serve();
const browser = await launch();
try {
  const page = await browser.context.newPage();
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send('Performance.enable');
  await page.goto(server.url);
  // The demo has loaded: the page and its worker are up.
  await page.locator('[role=status]').filter({ hasText: 'instrprof-raw' }).waitFor({ timeout: 30000 });

  let peakHeap = 0;
  let peakRss = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const { metrics } = await cdp.send('Performance.getMetrics');
      peakHeap = Math.max(peakHeap, metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0);
      peakRss = Math.max(peakRss, chromiumRss().all);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();

  const name = path.basename(file);
  const start = performance.now();
  await page.locator('input[type=file]').setInputFiles(file);
  // The new file's own Functions tab: the status names it first.
  await page.locator('[role=status]').filter({ hasText: name }).waitFor({ timeout: 600000 });
  const tab = page.getByRole('tab', { name: 'Functions' });
  await tab.waitFor({ timeout: 600000 });
  const tabShown = performance.now() - start;
  await tab.click();
  await page.locator('.fn-body [role=row][data-id]').first().waitFor({ timeout: 600000 });
  const firstRows = performance.now() - start;
  const functions = Number(await page.getByRole('table', { name: 'Functions' }).getAttribute('aria-rowcount'));
  sampling = false;
  await sampler;

  console.log(`file: ${file} (${mb(bytes)}), ${functions} functions`);
  console.log(`drop → Functions tab shown: ${tabShown.toFixed(0)} ms`);
  console.log(`drop → first table rows drawn: ${firstRows.toFixed(0)} ms`);
  console.log(`peak main-thread JS heap: ${mb(peakHeap)}; peak RSS of all chromium processes: ${mb(peakRss)}`);
  console.log(JSON.stringify({
    file,
    bytes,
    firstRowsMs: Math.round(firstRows),
    tabShownMs: Math.round(tabShown),
    peakHeapBytes: peakHeap,
    peakRssBytes: peakRss,
    functions,
  }));
} finally {
  await browser.close();
  await server.close();
}
