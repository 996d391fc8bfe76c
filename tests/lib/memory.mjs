// Chromium's memory as the browser benchmarks measure it: the resident size of
// its processes, read from `ps`, and the tab's process among them.

import { execFileSync } from 'node:child_process';

/**
 * Resident memory of chromium's processes: `all` of them in bytes (NaN when `ps`
 * fails), and each renderer's (`renderers`: Map(pid → bytes)).
 */
export function chromiumRss() {
  const out = { all: 0, renderers: new Map() };
  try {
    const ps = execFileSync('ps', ['-eo', 'pid=,rss=,args='], { encoding: 'utf8' });
    for (const line of ps.split('\n').filter((l) => /chrom/.test(l))) {
      const [pid, rss, ...args] = line.trim().split(/\s+/);
      const bytes = Number(rss) * 1024;
      out.all += bytes;
      if (args.join(' ').includes('--type=renderer')) out.renderers.set(pid, bytes);
    }
  } catch {
    out.all = NaN;
  }
  return out;
}

/**
 * Samples chromium's memory every `everyMs` until `stop()`, which resolves to
 * { base, peakAll, tab }: the processes at the start, the highest total seen, and
 * the tab (page and its worker), the renderer that grew the most: its `pid`, its
 * `peak` (its whole resident size) and how much it grew (`growth`).
 */
export function watchMemory(everyMs) {
  const base = chromiumRss();
  let peakAll = base.all;
  const peaks = new Map();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const now = chromiumRss();
      peakAll = Math.max(peakAll, now.all);
      for (const [pid, bytes] of now.renderers) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, bytes));
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      sampling = false;
      await sampler;
      const tab = { pid: undefined, peak: 0, growth: -1 };
      for (const [pid, peak] of peaks) {
        const growth = peak - (base.renderers.get(pid) ?? 0);
        if (growth > tab.growth) Object.assign(tab, { pid, peak, growth });
      }
      return { base, peakAll, tab };
    },
  };
}
