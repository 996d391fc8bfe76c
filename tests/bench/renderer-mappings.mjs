// Browser measurement (not part of `npm test`): what a renderer's resident size is
// made of, by mapping (`/proc/PID/smaps`, mappings of the same file summed), for
// the pgolens page at rest or for `about:blank`, 4 s after it loads. It shows how
// much of a tab's resident size is Chromium's own binary, which every Chromium
// process shares (see `lib/memory.mjs` on the private footprint).
//
//   PGOLENS_DIST=dist node tests/bench/renderer-mappings.mjs [blank]

import { readFileSync } from 'node:fs';

import { launch, serve } from '../lib/harness.mjs';
import { chromiumRss } from '../lib/memory.mjs';

/** Resident bytes per mapped file's base name ('[anon]' for anonymous ones). */
function mappings(pid) {
  const out = new Map();
  let name;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      name = (head[1] || '[anon]').replace(/.*\//, '');
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && name) out.set(name, (out.get(name) ?? 0) + Number(rss[1]) * 1024);
  }
  return out;
}

const site = await serve();
const browser = await launch();
try {
  const page = await browser.context.newPage();
  await page.goto(process.argv[2] === 'blank' ? 'about:blank' : site.url);
  await new Promise((r) => setTimeout(r, 4000));
  const { renderers, private: own } = chromiumRss();
  for (const [pid, bytes] of renderers) {
    console.log(`renderer ${pid}: ${(bytes / 1e6).toFixed(1)} MB resident, ${(own.get(pid) / 1e6).toFixed(1)} MB private`);
    const rows = [...mappings(pid)].filter(([, b]) => b > 1e6).sort((a, b) => b[1] - a[1]);
    for (const [name, b] of rows.slice(0, 8)) console.log(`  ${(b / 1e6).toFixed(1).padStart(7)} MB  ${name}`);
  }
} finally {
  await browser.close();
  await site.close();
}
