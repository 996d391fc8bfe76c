// BOLT YAML page benchmark (not part of `npm test`): drops FILE (a BOLT YAML
// profile) on the page, as a user's drag and drop (a DataTransfer holding the File,
// dispatched as dragenter, dragover and drop), and prints the time from the drop to
// the first rows of the Functions table it opens on (on the page's clock), and the peak resident size and
// private footprint (`lib/memory.mjs`) of the tab's process (page and worker: the
// renderer that grew the most), sampled every 50 ms, against the file's size.
//
//   npm run build && node tests/bench/bolt-yaml-functions.mjs FILE.yaml [MORE.yaml...]
//
// With several files, each is dropped on a fresh page in turn. Output ends with one
// line of JSON for scripts: [{"file","bytes","firstRowsMs","tabPeakBytes",
// "tabPeakPerFileByte","tabPrivatePeakBytes","tabPrivatePeakPerFileByte",
// "allGrowthBytes","functions","stalls"}, ...] (stalls: reads of
// the file that stalled and were read on from a new stream, see worker.js).

import { stat } from 'node:fs/promises';
import path from 'node:path';

import { launch, serve } from '../lib/harness.mjs';
import { watchMemory } from '../lib/memory.mjs';

const files = process.argv.slice(2);
if (!files.length) {
  console.error('usage: node tests/bench/bolt-yaml-functions.mjs FILE.yaml [MORE.yaml...]');
  process.exit(2);
}

const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;

async function one(browser, url, file) {
  const bytes = (await stat(file)).size;
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  // The worker's reads of the file that stalled and were read on (worker.js).
  let stalls = 0;
  page.on('console', (m) => {
    if (/reading the file stalled/.test(m.text())) stalls++;
  });
  await page.goto(url);
  await page.locator('[role=status]').filter({ hasText: 'instrprof-raw' }).waitFor({ timeout: 30000 });
  // The File comes from a file input of our own (Playwright hands the page the
  // file on disk, not a copy made in the page), then is dropped.
  await page.evaluate(() => {
    const input = document.createElement('input');
    input.type = 'file';
    input.id = 'bench-file';
    input.style.display = 'none';
    document.body.append(input);
  });
  await page.locator('#bench-file').setInputFiles(file);

  const memory = watchMemory(50);

  // Timed on the page's clock, from the drop to two frames after the first rows are
  // seen (checked every frame), as perf-flame.mjs times the flame graph: awaiting
  // each element from here added the harness's polling to the page's time.
  const start = await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(document.getElementById('bench-file').files[0]);
    const target = document.querySelector('main') ?? document.body;
    const now = performance.now();
    for (const type of ['dragenter', 'dragover', 'drop']) {
      target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    }
    return now;
  });
  const name = path.basename(file);
  await page.waitForFunction(
    (name) =>
      document.querySelector('[role=status]')?.textContent.includes(name) &&
      document.querySelector('[role=tab][aria-selected=true]')?.textContent.includes('Functions') &&
      document.querySelector('.bolt-functions .fn-body [role=row][data-id]'),
    name,
    { timeout: 600000, polling: 'raf' },
  );
  const drawn = await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now())))));
  const firstRows = drawn - start;
  // Memory settles after the rows are drawn (the worker may still be working).
  await new Promise((r) => setTimeout(r, 500));
  const { base, peakAll, tab: watched } = await memory.stop();
  const functions = Number(await page.getByRole('grid', { name: 'Functions' }).getAttribute('aria-rowcount'));
  const [tab, growth] = [watched.peak, watched.growth];
  await page.close();
  if (errors.length) throw errors[0];
  console.log(`file: ${file} (${mb(bytes)}), ${functions} functions`);
  console.log(`drop → first Functions rows drawn: ${firstRows.toFixed(0)} ms${stalls ? ` (${stalls} stalled reads)` : ''}`);
  const own = watched.privatePeak;
  console.log(`tab peak: ${mb(tab)} resident (${(tab / bytes).toFixed(2)}× the file; it grew ${mb(growth)}), ` +
    `${mb(own)} private (${(own / bytes).toFixed(2)}×; it grew ${mb(watched.privateGrowth)}); all chromium processes grew ${mb(peakAll - base.all)}`);
  return {
    file,
    bytes,
    firstRowsMs: Math.round(firstRows),
    tabPeakBytes: tab,
    tabPeakPerFileByte: Number((tab / bytes).toFixed(3)),
    tabGrowthBytes: growth,
    tabPrivatePeakBytes: own,
    tabPrivatePeakPerFileByte: Number((own / bytes).toFixed(3)),
    allGrowthBytes: peakAll - base.all,
    functions,
    stalls,
  };
}

const server = await serve();
const browser = await launch();
try {
  const results = [];
  for (const file of files) results.push(await one(browser, server.url, file));
  console.log(JSON.stringify(results));
} finally {
  await browser.close();
  await server.close();
}
