// Benchmark (not part of `npm test`): what a first visit of the site costs over the
// wire. Opens the built site once in a fresh browser profile, waits for the demo to
// be decoded and the offline copy to be installed, and lists every file the server
// was asked for, with its size raw and as a static host would send it compressed
// (gzip level 6, nginx's and most CDNs' default; level 9 beside it). The service
// worker fetches the site again to precache it (with `cache: 'reload'`), so a first
// visit asks for most files twice: both counts are shown.
//
//   npm run build && node tests/bench/first-load.mjs

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

import { dist, launch, serve } from '../lib/harness.mjs';

const requests = [];
const server = await serve(dist, { onRequest: (url) => requests.push(url) });
const browser = await launch();
try {
  const page = await browser.context.newPage();
  await page.goto(server.url);
  await page.locator('[role=status]').filter({ hasText: 'instrprof-raw' }).waitFor({ timeout: 30000 });
  await page.evaluate(() => navigator.serviceWorker.ready);
  // The precache finishes with the install; give late fetches a moment.
  await page.waitForTimeout(1000);

  const rows = [];
  for (const url of requests) {
    const pathname = new URL(url, server.url).pathname;
    const file = pathname.endsWith('/') ? `${pathname}index.html` : pathname;
    const bytes = await readFile(path.join(dist, decodeURIComponent(file))).catch(() => null);
    if (!bytes) continue;
    rows.push({
      file: file.slice(1),
      raw: bytes.length,
      gzip6: gzipSync(bytes, { level: 6 }).length,
      gzip9: gzipSync(bytes, { level: 9 }).length,
    });
  }
  const sum = (list, key) => list.reduce((a, r) => a + r[key], 0);
  const unique = [...new Map(rows.map((r) => [r.file, r])).values()];
  for (const r of unique.sort((a, b) => b.raw - a.raw)) {
    const times = rows.filter((x) => x.file === r.file).length;
    console.log(
      `${r.file.padEnd(34)} ${String(r.raw).padStart(9)} raw ${String(r.gzip6).padStart(9)} gzip-6 ${String(r.gzip9).padStart(9)} gzip-9  ×${times}`,
    );
  }
  const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
  console.log(
    `first visit, each file once: ${kib(sum(unique, 'raw'))} raw, ${kib(sum(unique, 'gzip6'))} gzip-6, ${kib(sum(unique, 'gzip9'))} gzip-9 (${unique.length} files)`,
  );
  console.log(
    `first visit, as requested (the precache again): ${kib(sum(rows, 'raw'))} raw, ${kib(sum(rows, 'gzip6'))} gzip-6 (${rows.length} requests)`,
  );
} finally {
  await browser.close();
  await server.close();
}
