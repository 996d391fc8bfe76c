// Chromium's memory as the browser benchmarks measure it: the resident size of
// its processes, read from `/proc`, and the tab's process among them; and each
// renderer's private footprint, the figure Chrome's own task manager and memory
// metrics give a process. On Linux that is its anonymous resident memory plus its
// swap (`RssAnon + VmSwap`, Chromium's `CalculatePrivateFootprintKb`): the resident
// size also counts the pages of Chromium's binary and libraries that every one of
// its processes shares (about 100-125 MB in a renderer on these VMs).

import { readdirSync, readFileSync } from 'node:fs';

/** The `kB` fields of a `/proc/PID/status` text, in bytes (NaN when absent). */
function statusBytes(status, key) {
  return Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
}

function readStatus(pid) {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
}

/** A process's private footprint in bytes (`RssAnon + VmSwap`), NaN if unread. */
export function privateFootprint(pid) {
  const status = readStatus(pid);
  return statusBytes(status, 'RssAnon') + (statusBytes(status, 'VmSwap') || 0);
}

/** Whether a process is chromium's, and one of its renderers. Read every time:
 * a process just forked still shows its parent's command line. */
function kindOf(pid) {
  let args = '';
  try {
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {}
  return { chromium: /chrom/.test(args), renderer: args.includes('--type=renderer') };
}

/**
 * Resident memory of chromium's processes: `all` of them in bytes (NaN when
 * `/proc` cannot be listed), and each renderer's (`renderers`: Map(pid → bytes))
 * with its private footprint (`private`: Map(pid → bytes)). Read from `/proc`
 * directly: spawning `ps` every tenth of a second took a sixth of a core from
 * the browser being measured, on two cores.
 */
export function chromiumRss() {
  const out = { all: 0, renderers: new Map(), private: new Map() };
  let pids;
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    out.all = NaN;
    return out;
  }
  for (const pid of pids) {
    const kind = kindOf(pid);
    if (!kind.chromium) continue;
    const status = readStatus(pid);
    if (!status) continue;
    const bytes = statusBytes(status, 'VmRSS');
    if (Number.isNaN(bytes)) continue;
    out.all += bytes;
    if (kind.renderer) {
      out.renderers.set(pid, bytes);
      out.private.set(pid, statusBytes(status, 'RssAnon') + (statusBytes(status, 'VmSwap') || 0));
    }
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
