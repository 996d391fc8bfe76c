// Flame graph frame times in Chromium with more than a million rectangles.
//
//   npm run bench:flame [-- DEPTH FANOUT STEPS]     (default 6 10 120: 1,111,112 rectangles)
//
// Drops a synthetic stack profile (web/worker/src/synthetic.rs: `g 0 DEPTH FANOUT`,
// every path of DEPTH frames through FANOUT functions per level), opens the Flame
// graph tab, then times STEPS wheel zooms (in, then out, around moving points) and
// STEPS drag pans. A frame's time runs from dispatching the input event to the end
// of the repaint it causes (reducer, Yew render, visible-rectangle query and canvas
// drawing), read when the canvas's `data-paints` counter changes. Reports median and
// p95, and the painter's own share (`data-paint-ms`). Run `npm run build` first.

import { dropFiles, launch, serve } from '../lib/harness.mjs';

const [depth = 6, fanout = 10, steps = 120] = process.argv.slice(2).map(Number);
const rects = Array.from({ length: depth + 1 }, (_, d) => fanout ** d).reduce((a, b) => a + b, 0);

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
  await page.getByRole('tab', { name: 'Flame graph' }).click();
  await page.waitForFunction(() => Number(document.querySelector('.flame-main canvas')?.dataset.rects) > 0, null, {
    timeout: 120000,
  });
  const loaded = (Date.now() - t0) / 1000;
  const held = await page.evaluate(() => document.querySelector('.flame-main canvas').dataset.zoom);

  const run = (kind) =>
    page.evaluate(
      async ({ kind, steps }) => {
        const c = document.querySelector('.flame-main canvas');
        const box = c.getBoundingClientRect();
        // Resolves when the canvas is repainted (true), or after 500 ms without (false:
        // an input that changed nothing, such as a zoom already clamped).
        const painted = (before) =>
          new Promise((resolve) => {
            if (c.dataset.paints !== before) return resolve(true);
            const o = new MutationObserver(() => {
              if (c.dataset.paints !== before) {
                o.disconnect();
                resolve(true);
              }
            });
            o.observe(c, { attributes: true, attributeFilter: ['data-paints'] });
            setTimeout(() => {
              o.disconnect();
              resolve(false);
            }, 500);
          });
        const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
        const at = (i) => ({
          clientX: box.left + box.width * (0.2 + 0.6 * ((i * 0.37) % 1)),
          clientY: box.bottom - 30,
          bubbles: true,
          cancelable: true,
        });
        const times = [];
        const paints = [];
        const drawn = [];
        let unchanged = 0;
        if (kind === 'pan') c.dispatchEvent(new MouseEvent('mousedown', { ...at(0), button: 0 }));
        for (let i = 0; i < steps; i++) {
          const before = c.dataset.paints;
          const start = performance.now();
          if (kind === 'zoom') {
            // Zoom in for the first half (to about 1/400 of the width), then out.
            const delta = i < steps / 2 ? -100 : 100;
            c.dispatchEvent(new WheelEvent('wheel', { ...at(i), deltaY: delta }));
          } else {
            // A drag back and forth over a third of the width.
            const x = box.left + box.width * (0.5 + 0.3 * Math.sin(i / 6));
            c.dispatchEvent(new MouseEvent('mousemove', { clientX: x, clientY: box.bottom - 30, bubbles: true }));
          }
          if (!(await painted(before))) {
            unchanged++;
            continue;
          }
          times.push(performance.now() - start);
          paints.push(Number(c.dataset.paintMs));
          drawn.push(Number(c.dataset.rects));
          await frame();
        }
        if (kind === 'pan') c.dispatchEvent(new MouseEvent('mouseup', { ...at(0), button: 0 }));
        return { times, paints, drawn, unchanged };
      },
      { kind, steps },
    );

  const zoom = await run('zoom');
  // Zoom into the middle (a twentieth of the width), so the pans move freely.
  await page.evaluate(async () => {
    const c = document.querySelector('.flame-main canvas');
    const box = c.getBoundingClientRect();
    for (let i = 0; i < 15; i++) {
      const before = c.dataset.paints;
      const opts = { clientX: box.left + box.width / 2, clientY: box.bottom - 30, deltaY: -100, bubbles: true, cancelable: true };
      c.dispatchEvent(new WheelEvent('wheel', opts));
      for (let t = 0; t < 100 && c.dataset.paints === before; t++) await new Promise((r) => setTimeout(r, 5));
    }
  });
  const pan = await run('pan');

  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
    return { median: q(0.5), p95: q(0.95), max: s[s.length - 1] };
  };
  const line = (name, r) => {
    const t = stats(r.times);
    const p = stats(r.paints);
    const d = stats(r.drawn);
    console.log(
      `${name.padEnd(5)} frame median ${t.median.toFixed(2)} ms, p95 ${t.p95.toFixed(2)} ms, max ${t.max.toFixed(2)} ms` +
        ` | paint median ${p.median.toFixed(2)} ms, p95 ${p.p95.toFixed(2)} ms | rectangles drawn median ${d.median}, max ${d.max}` +
        ` | ${r.times.length} frames${r.unchanged ? `, ${r.unchanged} inputs changed nothing` : ''}`,
    );
    return t.p95;
  };
  console.log(`${rects.toLocaleString('en')} rectangles (depth ${depth}, fanout ${fanout}); opened and laid out in ${loaded.toFixed(1)} s; zoom ${held}`);
  const worst = Math.max(line('zoom', zoom), line('pan', pan));
  console.log(worst < 16 ? 'p95 under 16 ms: OK' : `p95 ${worst.toFixed(1)} ms: over the 16 ms budget`);
  if (errors.length) console.log('page errors:', errors.map(String));
} finally {
  await browser.close();
  await server.close();
}
