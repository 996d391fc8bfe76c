// Browser profile (not part of `npm test`): where the decoding worker's time goes
// while a file is dropped and its first view drawn, by function, from Chromium's
// own sampling profiler attached to the worker (the DevTools protocol). Build with
// the functions' names kept, or the wasm's functions are numbers:
//
//   PGOLENS_WASM_NAMES=1 PGOLENS_DIST=dist-names bash scripts/build.sh
//   PGOLENS_DIST=dist-names node --experimental-websocket tests/bench/worker-profile.mjs FILE [TAB]
//
// TAB (default "Flame graph") is the tab whose first drawing ends the profile; its
// view is drawn when a canvas in it has painted or its table's first row appears. Prints the time of the
// drop, then the functions by self time and by inclusive time (a function counted
// once per sample however often it recurs). CHILDREN=name,name... also prints, for
// each function whose name contains one of them, what its time went to (below
// its innermost call).
// PAGE=1 profiles the page's main thread instead of the worker.
// PHASES=1 also prints the worker's time line: from the drop, each stretch of at
// least 5 ms spent in one request handler (the function the worker's request
// dispatch, `Sessions::answer`, called), one export of the wasm (`worker_feed`: a
// block of the file), or idle, waiting for the page or the file.
// (Node 20 needs --experimental-websocket; the protocol is spoken directly,
// because Playwright gives no session on a dedicated worker.)


import { dropUntilDrawn, openWatched } from '../lib/devtools.mjs';
import { launch, serve } from '../lib/harness.mjs';

const [file, tab = 'Flame graph'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node --experimental-websocket tests/bench/worker-profile.mjs FILE [TAB]');
  process.exit(2);
}
const PORT = 9333;
process.env.PGOLENS_CHROMIUM_ARGS = `${process.env.PGOLENS_CHROMIUM_ARGS ?? ''} --remote-debugging-port=${PORT}`;
const TOP = Number(process.env.TOP ?? 40);
const TIMEOUT = Number(process.env.BENCH_TIMEOUT_MS ?? 5 * 60 * 1000);

/** A `Profiler.Profile`'s nodes by id, and each node's parent id. */
function links(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  return { byId, parent };
}

/** Self and inclusive microseconds per function name of a `Profiler.Profile`. */
function attribute(profile) {
  const { byId, parent } = links(profile);
  const name = (n) => n.callFrame.functionName || `(${n.callFrame.url.split('/').pop() || 'anonymous'})`;
  const leafTime = new Map();
  profile.samples.forEach((id, i) => leafTime.set(id, (leafTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const self = new Map();
  const inclusive = new Map();
  const children = new Map();
  const wanted = (process.env.CHILDREN ?? '').split(',').filter(Boolean);
  let total = 0;
  for (const [leaf, us] of leafTime) {
    total += us;
    self.set(name(byId.get(leaf)), (self.get(name(byId.get(leaf))) ?? 0) + us);
    const seen = new Set();
    const split = new Set();
    let below = null;
    for (let id = leaf; id !== undefined; id = parent.get(id)) {
      const n = name(byId.get(id));
      if (!seen.has(n)) {
        seen.add(n);
        inclusive.set(n, (inclusive.get(n) ?? 0) + us);
      }
      for (const w of wanted) {
        if (!n.includes(w) || split.has(w)) continue;
        split.add(w);
        const kids = children.get(w) ?? new Map();
        const k = below ?? '(self)';
        kids.set(k, (kids.get(k) ?? 0) + us);
        children.set(w, kids);
      }
      below = n;
    }
  }
  return { total, self, inclusive, children };
}

/** The worker's time line of a `Profiler.Profile`: [label, start µs, end µs] stretches. */
function phases(profile) {
  const { byId, parent } = links(profile);
  const fn = (id) => byId.get(id)?.callFrame.functionName ?? '';
  // What a sample was doing: below the dispatch, the handler; else below the entry
  // into wasm, the export called; else its outermost JS function.
  const label = (leaf) => {
    if (fn(leaf) === '(idle)') return 'idle';
    const path = [];
    for (let id = leaf; id !== undefined; id = parent.get(id)) path.push(fn(id));
    const under = (pred) => {
      const at = path.findIndex(pred);
      return at > 0 ? path[at - 1] : undefined;
    };
    const bare = (n) => n.replace(/::h[0-9a-f]{16}$/, '');
    return bare(under((n) => n.includes('Sessions::answer')) ?? under((n) => n.startsWith('js-to-wasm')) ?? path.at(-2) ?? path[0]);
  };
  const out = [];
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i] ?? 0;
    const l = label(id);
    const last = out.at(-1);
    if (last && last[0] === l) last[2] = t;
    else out.push([l, t, t]);
  });
  // A stretch shorter than 5 ms between two of one label joins them (the glue's
  // reads between blocks, a sample of another function).
  const joined = [];
  for (const s of out) {
    const prev = joined.at(-1);
    const short = prev && prev[2] - prev[1] < 5000 && joined.length > 1;
    if (short && joined.at(-2)[0] === s[0]) {
      joined.pop();
      joined.at(-1)[2] = s[2];
    } else if (prev && prev[0] === s[0]) prev[2] = s[2];
    else joined.push(s);
  }
  return joined.filter(([, a, b]) => b - a >= 5000).map(([l, a, b]) => [l, a - profile.startTime, b - profile.startTime]);
}

const ms = (us) => `${(us / 1000).toFixed(0).padStart(7)} ms`;
const top = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);

const site = await serve();
const browser = await launch();
try {
  const { page, dt, worker } = await openWatched(browser, site.url, PORT);
  // PAGE=1 profiles the page's main thread instead (the page's own session).
  const session = process.env.PAGE ? undefined : worker;
  await dt.send('Profiler.enable', {}, session);
  await dt.send('Profiler.setSamplingInterval', { interval: 500 }, session);
  await dt.send('Profiler.start', {}, session);
  const start = performance.now();
  await dropUntilDrawn(page, file, tab, TIMEOUT);
  const drop = performance.now() - start;
  const { profile } = await dt.send('Profiler.stop', {}, session);
  dt.close();
  const { total, self, inclusive, children } = attribute(profile);
  console.log(`drop → "${tab}" drawn: ${(drop / 1000).toFixed(2)} s; ${session ? 'worker' : 'page'} profiled ${(total / 1e6).toFixed(2)} s`);
  console.log('--- self');
  for (const [k, us] of top(self, TOP)) console.log(ms(us), `${((100 * us) / total).toFixed(1).padStart(5)}%`, k.slice(0, 140));
  console.log('--- inclusive');
  for (const [k, us] of top(inclusive, TOP)) console.log(ms(us), k.slice(0, 140));
  for (const [w, kids] of children) {
    console.log(`--- what ${w} called`);
    for (const [k, us] of top(kids, 15)) console.log(ms(us), k.slice(0, 140));
  }
  if (process.env.PHASES) {
    console.log('--- time line (from, for, what)');
    for (const [l, a, b] of phases(profile)) console.log(ms(a), ms(b - a), l.slice(0, 120));
  }
} finally {
  await browser.close();
  await site.close();
}
