// Call tree expand-all and scroll times in Chromium on a tree of more than a million nodes.
//
//   node tests/bench/call-tree.mjs [DEPTH FANOUT FRAMES]     (default 6 10 300: 1,111,110 rows)
//
// Drops a synthetic stack profile (web/worker/src/synthetic.rs: `g 0 DEPTH FANOUT`,
// every path of DEPTH frames through FANOUT functions per level), opens the Call
// tree tab, collapses it, then expands everything with `*` on each top-level node
// (the reducer's expand, the visible rows rebuilt, Yew's render of the rows in
// view), timed from the key press to the grid's `data-rows` reaching the count.
// Then scrolls the expanded tree programmatically by a large step each animation
// frame, FRAMES times, and reports the requestAnimationFrame deltas (a frame's whole
// time: scroll event, render of the new rows, layout and paint); then the same steps
// back, each timed without the display's pacing (the render of the rows, then with
// style and layout forced); and the time PageDown takes to move the selection and
// scroll. Run `npm run build` first. The machine's load shows in the tails: compare
// medians.

import { dropFiles, launch, serve } from '../lib/harness.mjs';

const [depth = 6, fanout = 10, frames = 300] = process.argv.slice(2).map(Number);
const nodes = Array.from({ length: depth }, (_, d) => fanout ** (d + 1)).reduce((a, b) => a + b, 0);

const server = await serve();
const browser = await launch();
try {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  page.on('crash', () => console.log('page crashed'));
  page.on('console', (m) => m.type() === 'error' && console.log('console:', m.text()));
  await page.goto(server.url);
  await page.locator('[role=status]').filter({ hasText: 'instrprof-raw' }).waitFor({ timeout: 30000 });
  const t0 = Date.now();
  await dropFiles(page, [{ name: 'bench.stacks', bytes: Buffer.from(`#pgolens-stacks\nevent cycles\ng 0 ${depth} ${fanout}\n`) }]);
  await page.locator('[role=status]').filter({ hasText: 'pgolens-stacks' }).waitFor({ timeout: 120000 });
  await page.getByRole('tab', { name: 'Call tree' }).click();
  const grid = page.locator('[role=treegrid]');
  await grid.waitFor({ timeout: 120000 });
  const loaded = (Date.now() - t0) / 1000;

  // Collapse everything to the top level: Home, then Left on each opened ancestor.
  await grid.focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction((n) => Number(document.querySelector('[role=treegrid]').dataset.rows) === n, fanout);

  // `*` on each top-level node, timed in the page from the key event to the frame
  // after the grid's row count changed.
  const expand = await page.evaluate(async (fanout) => {
    const grid = document.querySelector('[role=treegrid]');
    const key = (key) => grid.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
    const rowsChange = (before) =>
      new Promise((resolve) => {
        if (grid.dataset.rows !== before) return resolve();
        const o = new MutationObserver(() => {
          if (grid.dataset.rows !== before) {
            o.disconnect();
            resolve();
          }
        });
        o.observe(grid, { attributes: true, attributeFilter: ['data-rows'] });
      });
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    const times = [];
    // From the last top-level node up: the nodes above stay collapsed, so ArrowUp
    // from an expanded top-level node lands on the next one to expand.
    key('End');
    await frame();
    for (let i = 0; i < fanout; i++) {
      const before = grid.dataset.rows;
      const start = performance.now();
      key('*');
      await rowsChange(before);
      await frame();
      times.push(performance.now() - start);
      key('ArrowUp');
      await frame();
    }
    return { times, rows: Number(grid.dataset.rows) };
  }, fanout);

  // Scroll by ~7,000 rows a frame (the extent is capped, so rows map proportionally).
  const scroll = await page.evaluate(async (frames) => {
    const body = document.querySelector('.ct-body');
    const frame = () => new Promise((r) => requestAnimationFrame((t) => r(t)));
    const deltas = [];
    let last = await frame();
    const step = (body.scrollHeight - body.clientHeight) / frames;
    for (let i = 0; i < frames; i++) {
      body.scrollTop = (i + 1) * step;
      const t = await frame();
      deltas.push(t - last);
      last = t;
    }
    const firstRow = document.querySelector('.ct-body [role=row]')?.getAttribute('aria-rowindex');
    return { deltas, lastRow: Number(firstRow) };
  }, frames);

  // The main thread's work per scroll step, apart from waiting for the display:
  // the scroll event handled and the new rows rendered (until the DOM changed),
  // then style and layout forced.
  const work = await page.evaluate(async (frames) => {
    const body = document.querySelector('.ct-body');
    const win = body.querySelector('.window');
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    const render = [];
    const layout = [];
    const step = (body.scrollHeight - body.clientHeight) / frames;
    for (let i = 0; i < frames; i++) {
      await frame();
      const start = performance.now();
      const mutated = new Promise((resolve) => {
        const o = new MutationObserver(() => {
          o.disconnect();
          resolve(performance.now());
        });
        o.observe(win, { childList: true, subtree: true, characterData: true, attributes: true });
      });
      body.scrollTop = (frames - i - 1) * step;
      body.dispatchEvent(new Event('scroll'));
      const rendered = await mutated;
      void win.getBoundingClientRect();
      render.push(rendered - start);
      layout.push(performance.now() - start);
    }
    return { render, layout };
  }, frames);

  // PageDown: the selection moves a page and the grid scrolls with it.
  await page.evaluate(() => {
    document.querySelector('.ct-body').scrollTop = 0;
  });
  await grid.focus();
  await page.keyboard.press('Home');
  const paging = await page.evaluate(async () => {
    const grid = document.querySelector('[role=treegrid]');
    const frame = () => new Promise((r) => requestAnimationFrame((t) => r(t)));
    const times = [];
    for (let i = 0; i < 60; i++) {
      const before = grid.getAttribute('aria-activedescendant');
      const start = performance.now();
      grid.dispatchEvent(new KeyboardEvent('keydown', { key: 'PageDown', bubbles: true, cancelable: true }));
      while (grid.getAttribute('aria-activedescendant') === before) await new Promise((r) => setTimeout(r, 0));
      await frame();
      times.push(performance.now() - start);
    }
    return { times };
  });

  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
    return `median ${q(0.5).toFixed(1)} ms, p95 ${q(0.95).toFixed(1)} ms, max ${s[s.length - 1].toFixed(1)} ms`;
  };
  const sum = expand.times.reduce((a, b) => a + b, 0);
  console.log(`call tree of ${nodes.toLocaleString('en')} nodes (g 0 ${depth} ${fanout}), opened in ${loaded.toFixed(1)} s`);
  console.log(
    `expand all (* on each of the ${fanout} top-level nodes): ${sum.toFixed(0)} ms in all, ` +
      `${stats(expand.times)} per press; ${expand.rows.toLocaleString('en')} rows visible`,
  );
  console.log(`scroll, ${frames} frames over all rows: frame ${stats(scroll.deltas)}`);
  console.log(`scroll step's main-thread work: render ${stats(work.render)}; with style and layout ${stats(work.layout)}`);
  console.log(`PageDown (selection and scroll): ${stats(paging.times)}`);
  if (expand.rows !== nodes) console.log(`expected ${nodes} rows after expanding all`);
  if (errors.length) console.log('page errors:', errors.map(String));
} finally {
  await browser.close();
  await server.close();
}
