// Page benchmark (not part of `npm test`): a 200 MB perf.data pipe file through the
// file input, timed until the status names the format and the dump tree's root is
// drawn; then a click on a byte deep in the file, timed until its record is selected.
//
// Why a pipe perf.data of small records: the dump walks every record header once to
// find block boundaries (text formats only split lines), so many small records are
// the most work per byte. The records are the real ones of the corpus's
// cprog.pipe.perf.data, repeated.
//
//   npm run build && npm run bench:page [-- SIZE_MB]

import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';

import { corpus, launch, serve } from '../lib/harness.mjs';
import { chromiumRss } from '../lib/memory.mjs';

const SIZE = Number(process.argv[2] ?? 200) * 1024 * 1024;

/** Splits a pipe perf.data into its header records (perf-tool types from 64) and the rest. */
function split(file) {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  let at = 16; // perf_pipe_file_header
  let bodyStart = null;
  while (at + 8 <= file.length) {
    const type = view.getUint32(at, true);
    const size = view.getUint16(at + 6, true);
    if (size < 8 || at + size > file.length || type > 200) break; // trailing text
    if (bodyStart === null && type < 64) bodyStart = at;
    at += size;
  }
  return { head: file.subarray(0, bodyStart), body: file.subarray(bodyStart, at) };
}

async function makeFile(dir) {
  const source = await readFile(path.join(corpus, 'bolt-perf/cprog/cprog.pipe.perf.data'));
  const { head, body } = split(source);
  const file = path.join(dir, 'big.pipe.perf.data');
  const out = createWriteStream(file);
  out.write(head);
  let written = head.length;
  const chunk = Buffer.concat(Array.from({ length: Math.ceil((4 << 20) / body.length) }, () => body));
  while (written + chunk.length <= SIZE) {
    if (!out.write(chunk)) await once(out, 'drain');
    written += chunk.length;
  }
  while (written + body.length <= SIZE) {
    out.write(body);
    written += body.length;
  }
  out.end();
  await once(out, 'finish');
  return { file, size: written };
}

const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;

const dir = await mkdtemp(path.join(tmpdir(), 'pgolens-bench-'));
const server = await serve();
const browser = await launch();
try {
  const made = Date.now();
  const { file, size } = await makeFile(dir);
  console.log(`generated ${mb(size)} in ${Date.now() - made} ms: ${file}`);

  const page = await browser.context.newPage();
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send('Performance.enable');
  await page.goto(server.url);
  await page.locator('[role=status]').filter({ hasText: 'instrprof-raw' }).waitFor();

  const baseRss = chromiumRss().all;
  let peakHeap = 0;
  let peakRss = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const { metrics } = await cdp.send('Performance.getMetrics');
      const heap = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
      peakHeap = Math.max(peakHeap, heap);
      peakRss = Math.max(peakRss, chromiumRss().all);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();

  const start = performance.now();
  await page.locator('input[type=file]').setInputFiles(file);
  let sawProgress = false;
  page.locator('progress').waitFor({ timeout: 60000 }).then(() => (sawProgress = true), () => {});
  await page.locator('[role=status]').filter({ hasText: 'perf.data-pipe' }).waitFor({ timeout: 600000 });
  const decoded = performance.now() - start;
  // A recording opens on its flame graph: show the dump.
  const dumpTab = page.getByRole('tab', { name: 'Dump' });
  if (await dumpTab.count()) await dumpTab.click();
  await page.locator('[role=tree] [role=treeitem][aria-level="1"]').waitFor();
  const opened = performance.now() - start;

  // Reveal a byte three quarters into the file: the worker expands the block on the way.
  const hex = page.locator('.hex');
  await hex.evaluate((el) => { el.scrollTop = el.scrollHeight * 0.75; });
  const cell = page.locator('.hex .hex-byte').nth(40);
  await page.waitForFunction(() => /^[0-9a-f]{2}$/.test(document.querySelectorAll('.hex .hex-byte')[40]?.textContent ?? ''));
  const offset = Number(await cell.getAttribute('data-offset'));
  const clicked = performance.now();
  await cell.click();
  await page.waitForFunction(
    (at) => [...document.querySelectorAll('[role=treeitem][aria-selected=true]')].some(
      (r) => Number(r.dataset.start) <= at && at < Number(r.dataset.end) && Number(r.getAttribute('aria-level')) >= 3),
    offset,
  );
  const revealed = performance.now() - clicked;
  sampling = false;
  await sampler;

  const status = (await page.locator('[role=status]').innerText()).replace(/\s+/g, ' ');
  console.log(`status: ${status}`);
  console.log(`open ${mb(size)} → status shown: ${decoded.toFixed(0)} ms; dump root shown: ${opened.toFixed(0)} ms (progress bar seen: ${sawProgress})`);
  console.log(`click byte ${offset} (0x${offset.toString(16)}) → its record selected: ${revealed.toFixed(0)} ms`);
  console.log(`peak main-thread JS heap: ${mb(peakHeap)}; peak RSS of all chromium processes: ${mb(peakRss)} (${mb(baseRss)} before the open)`);
} finally {
  await browser.close();
  await server.close();
  await rm(dir, { recursive: true, force: true });
}
