// Chromium's memory as the browser benchmarks measure it: the resident size of
// its processes, read from `ps`, and the tab's process among them; and each
// renderer's private footprint, the figure Chrome's own task manager and memory
// metrics give a process. On Linux that is its anonymous resident memory plus its
// swap (`RssAnon + VmSwap`, Chromium's `CalculatePrivateFootprintKb`): the resident
// size also counts the pages of Chromium's binary and libraries that every one of
// its processes shares (about 100-125 MB in a renderer on these VMs).

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** A process's private footprint in bytes (`RssAnon + VmSwap`), NaN if unread. */
export function privateFootprint(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return (kb('RssAnon') + (kb('VmSwap') || 0)) * 1024;
  } catch {
    return NaN;
  }
}

/**
 * Resident memory of chromium's processes: `all` of them in bytes (NaN when `ps`
 * fails), and each renderer's (`renderers`: Map(pid → bytes)) with its private
 * footprint (`private`: Map(pid → bytes)).
 */
export function chromiumRss() {
  const out = { all: 0, renderers: new Map(), private: new Map() };
  try {
    const ps = execFileSync('ps', ['-eo', 'pid=,rss=,args='], { encoding: 'utf8' });
    for (const line of ps.split('\n').filter((l) => /chrom/.test(l))) {
      const [pid, rss, ...args] = line.trim().split(/\s+/);
      const bytes = Number(rss) * 1024;
      out.all += bytes;
      if (args.join(' ').includes('--type=renderer')) {
        out.renderers.set(pid, bytes);
        out.private.set(pid, privateFootprint(pid));
      }
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
 * `peak` (its whole resident size), how much it grew (`growth`), and the peak of
 * its private footprint (`privatePeak`) and how much that grew (`privateGrowth`).
 */
export function watchMemory(everyMs) {
  const base = chromiumRss();
  let peakAll = base.all;
  const peaks = new Map();
  const privatePeaks = new Map();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const now = chromiumRss();
      peakAll = Math.max(peakAll, now.all);
      for (const [pid, bytes] of now.renderers) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, bytes));
      for (const [pid, bytes] of now.private) privatePeaks.set(pid, Math.max(privatePeaks.get(pid) ?? 0, bytes));
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
      tab.privatePeak = privatePeaks.get(tab.pid) ?? NaN;
      tab.privateGrowth = tab.privatePeak - (base.private.get(tab.pid) ?? 0);
      return { base, peakAll, tab };
    },
  };
}
