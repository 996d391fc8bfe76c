// Browser benchmark (not part of `npm test`): where the tab's memory goes while a
// file is dropped and its first view drawn. Every 100 ms it samples the tab's
// renderer process (resident size and private footprint, as `perf-flame.mjs`
// measures them), and through
// the DevTools protocol the page's and the worker's wasm memories (every
// `WebAssembly.Memory` of each) and JS heaps; then prints each at the page's rest
// before the drop, at its peak, and at the end.
//
//   PGOLENS_DIST=dist node --experimental-websocket tests/bench/tab-memory.mjs FILE [TAB]
//
// TAB (default "Flame graph") is the tab whose first drawing ends the run;
// sampling goes on SETTLE_MS (3000) after it. With TRACE=1 it also prints every
// sample, to see which step of the read the peak belongs to.

import { statSync } from 'node:fs';
import path from 'node:path';

import { dropUntilDrawn, openWatched } from '../lib/devtools.mjs';
import { launch, serve } from '../lib/harness.mjs';
import { chromiumRss, watchMemory } from '../lib/memory.mjs';

const [file, tab = 'Flame graph'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node --experimental-websocket tests/bench/tab-memory.mjs FILE [TAB]');
  process.exit(2);
}
const PORT = 9334;
process.env.PGOLENS_CHROMIUM_ARGS = `${process.env.PGOLENS_CHROMIUM_ARGS ?? ''} --remote-debugging-port=${PORT}`;
const TIMEOUT = Number(process.env.BENCH_TIMEOUT_MS ?? 5 * 60 * 1000);
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 3000);
const mb = (n) => `${(n / 1e6).toFixed(1).padStart(7)} MB`;

/**
 * The wasm memories of a context (the page's, or a worker's session), found once:
 * a function that sums their sizes. (Finding them walks the heap; their sizes
 * are read as they grow.)
 */
async function wasmMemories(dt, session) {
  const { result: proto } = await dt.send('Runtime.evaluate', { expression: 'WebAssembly.Memory.prototype' }, session);
  const { objects } = await dt.send(
    'Runtime.queryObjects',
    { prototypeObjectId: proto.objectId, objectGroup: 'memories' },
    session,
  );
  return async () => {
    const { result } = await dt.send(
      'Runtime.callFunctionOn',
      {
        objectId: objects.objectId,
        functionDeclaration: 'function () { return this.reduce((n, m) => n + m.buffer.byteLength, 0); }',
        returnByValue: true,
      },
      session,
    );
    return result.value;
  };
}

async function sample(dt, worker, pageMemories, workerMemories) {
  const [pageWasm, workerWasm, pageJs, workerJs] = await Promise.all([
    pageMemories(),
    workerMemories(),
    dt.send('Runtime.getHeapUsage', {}, undefined).then((h) => h.usedSize),
    dt.send('Runtime.getHeapUsage', {}, worker).then((h) => h.usedSize),
  ]);
  return { pageWasm, workerWasm, pageJs, workerJs };
}

const size = statSync(file).size;
const site = await serve();
const browser = await launch();
try {
  const { page, dt, worker } = await openWatched(browser, site.url, PORT);
  const pageMemories = await wasmMemories(dt, undefined);
  const workerMemories = await wasmMemories(dt, worker);
  // The tab is the renderer that grows the most (as in perf-flame.mjs).
  const memory = watchMemory(100);
  const rest = await sample(dt, worker, pageMemories, workerMemories);
  const peak = { ...rest };
  let sampling = true;
  const trace = [];
  let start;
  const sampler = (async () => {
    while (sampling) {
      const now = await sample(dt, worker, pageMemories, workerMemories).catch(() => ({}));
      if (process.env.TRACE) trace.push({ ms: performance.now() - (start ?? performance.now()), ...now, rss: chromiumRss() });
      for (const [k, v] of Object.entries(now)) if (v > (peak[k] ?? 0)) peak[k] = v;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  start = performance.now();
  await dropUntilDrawn(page, file, tab, TIMEOUT);
  const ms = performance.now() - start;
  // The view's last steps (its data arriving in the page, the first paints) end
  // with the drawing: sampled a while longer, and the end is taken after it.
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  sampling = false;
  await sampler;
  const { base, tab: watched } = await memory.stop();
  const end = await sample(dt, worker, pageMemories, workerMemories);
  const rss = (at) => at.renderers.get(watched.pid) ?? 0;
  [rest.rss, peak.rss, end.rss] = [rss(base), watched.peak, rss(chromiumRss())];
  const own = (at) => at.private.get(watched.pid) ?? 0;
  [rest.private, peak.private, end.private] = [own(base), watched.privatePeak, own(chromiumRss())];
  dt.close();
  console.log(`${path.basename(file)}: ${mb(size)}; "${tab}" drawn ${(ms / 1000).toFixed(2)} s after the drop`);
  console.log('                        at rest       peak        end');
  const rows = [
    ['tab process (resident)', 'rss'],
    ['tab process (private)', 'private'],
    ['worker wasm memory', 'workerWasm'],
    ['worker JS heap', 'workerJs'],
    ['page wasm memory', 'pageWasm'],
    ['page JS heap', 'pageJs'],
  ];
  for (const [label, k] of rows) console.log(`${label.padEnd(22)} ${mb(rest[k])} ${mb(peak[k])} ${mb(end[k])}`);
  for (const t of trace) {
    const cols = [rss(t.rss), own(t.rss), t.workerWasm, t.workerJs, t.pageWasm, t.pageJs].map(mb).join(' ');
    console.log(`${t.ms.toFixed(0).padStart(6)} ms ${cols}`);
  }
  console.log(JSON.stringify({ ms, size, rest, peak, end }));
} finally {
  await browser.close();
  await site.close();
}
