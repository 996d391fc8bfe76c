// CFG benchmark (not part of `npm test`): the 2,015-block function of
// tests/corpus/bolt-perf/bigcfg/ in the CFG tab, against Graphviz on BOLT's own DOT
// dump of the same function, in the same run.
//
//   npm run build && node tests/bench/cfg-render.mjs [FRAMES] [--no-dot] [--binary]
//
// Measures: the worker's time to build and lay out the graph (`data-layout-ms`,
// performance.now() in the worker around the request), the time from the click on
// the function's row to the graph's first paint, and then FRAMES interactions
// (wheel zooms in and out around moving points, drags): for each, the time from
// the input event to the end of the paint it causes (a MutationObserver on the
// canvas's paint counter), and the paint alone (`data-paint-ms`). Then
// `dot -Tsvg big.build-cfg.dot` (installs graphviz when missing), timed.
//
// Output ends with one line of JSON: {"blocks","edges","layoutMs","clickToPaintMs",
// "frames","frameMs":{median,p95,max},"paintMs":{median,p95,max},"dotMs"}.

import { execFileSync, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { corpus, dropFiles, launch, serve } from '../lib/harness.mjs';

const args = process.argv.slice(2);
const frames = Number(args.find((a) => /^\d+$/.test(a)) ?? 120);
const withDot = !args.includes('--no-dot');
// --binary: the fdata and the binary (BOLT's whole graph, 3,821 edges, each block
// with its instructions) instead of the YAML (the 3,693 edges it lists).
const withBinary = args.includes('--binary');
const dir = path.join(corpus, 'bolt-perf/bigcfg');

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: +at(0.5).toFixed(2), p95: +at(0.95).toFixed(2), max: +s[s.length - 1].toFixed(2) };
};

// Graphviz first, alone: it must not share the machine with the browser.
let dotMs = null;
if (withDot) {
  if (spawnSync('dot', ['-V']).status !== 0) {
    execFileSync('bash', ['-c', 'apt-get -o DPkg::Lock::Timeout=900 install -y -q graphviz >/dev/null || sudo apt-get install -y -q graphviz >/dev/null']);
  }
  const t0 = performance.now();
  const r = spawnSync('dot', ['-Tsvg', path.join(dir, 'big.build-cfg.dot'), '-o', '/dev/null']);
  dotMs = r.status === 0 ? Math.round(performance.now() - t0) : null;
}

const server = await serve();
const browser = await launch();
let result;
try {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1600, height: 1000 });
  await page.goto(server.url);
  await page.locator('[role=status]').filter({ hasText: 'instrprof-raw' }).waitFor({ timeout: 30000 });
  const files = withBinary ? ['big.instr.fdata', 'big'] : ['big.instr.yaml'];
  await dropFiles(page, await Promise.all(files.map(async (name) => ({ name, bytes: await readFile(path.join(dir, name)) }))));
  if (withBinary) await page.getByRole('tab', { name: 'CFG' }).waitFor({ timeout: 30000 });
  else await page.locator('[role=status]').filter({ hasText: 'bolt-yaml' }).waitFor({ timeout: 30000 });
  const row = page.locator('.bolt-functions .fn-body [role=row][data-id]').filter({ hasText: /^big(?![A-Za-z_])/ }).first();
  await row.waitFor();

  const start = performance.now();
  await row.click();
  await page.locator('.bolt-cfg .cfg-name', { hasText: 'big' }).waitFor({ timeout: 60000 });
  if (withBinary) await page.locator('.bolt-cfg .cfg-binary').waitFor({ timeout: 60000 });
  await page.waitForFunction(() => Number(document.querySelector('.bolt-cfg canvas')?.dataset.paints) > 0);
  const clickToPaint = performance.now() - start;
  const cfg = page.locator('.bolt-cfg');
  const layoutMs = Number(await cfg.getAttribute('data-layout-ms'));
  const blocks = Number(await cfg.getAttribute('data-blocks'));
  const edgesText = await cfg.locator('.cfg-stats').innerText();
  const edges = Number(/(\d+) edges/.exec(edgesText)[1]);

  // Interactions, each timed from its event to the end of its paint: first at the
  // scale the graph opens at (text drawn), then on the whole graph (Fit: every
  // block and edge drawn).
  const interact = (n) => page.evaluate(async (n) => {
    const canvas = document.querySelector('.bolt-cfg canvas');
    const rect = canvas.getBoundingClientRect();
    // Resolves when the canvas paints next (or after 2 s, as null: nothing changed).
    const painted = () =>
      new Promise((resolve) => {
        const obs = new MutationObserver(() => {
          obs.disconnect();
          resolve(performance.now());
        });
        obs.observe(canvas, { attributes: true, attributeFilter: ['data-paints'] });
        setTimeout(() => {
          obs.disconnect();
          resolve(null);
        }, 2000);
      });
    const out = { frame: [], paint: [], missed: 0 };
    for (let i = 0; i < n; i++) {
      const x = rect.left + rect.width * (0.2 + 0.6 * ((i * 37) % 100) / 100);
      const y = rect.top + rect.height * (0.2 + 0.6 * ((i * 61) % 100) / 100);
      const done = painted();
      const t0 = performance.now();
      if (i % 3 === 2) {
        // A drag step: press, move, release.
        canvas.dispatchEvent(new MouseEvent('mousedown', { bubbles: true, button: 0, clientX: x, clientY: y }));
        canvas.dispatchEvent(new MouseEvent('mousemove', { bubbles: true, clientX: x + 40, clientY: y + 25 }));
      } else {
        // Zoom in, then out again: the scale stays where the phase started.
        const deltaY = i % 3 === 0 ? -120 : 120;
        canvas.dispatchEvent(new WheelEvent('wheel', { bubbles: true, cancelable: true, deltaY, clientX: x, clientY: y }));
      }
      const t1 = await done;
      if (i % 3 === 2) canvas.dispatchEvent(new MouseEvent('mouseup', { bubbles: true, clientX: x + 40, clientY: y + 25 }));
      if (t1 === null) {
        out.missed += 1;
        continue;
      }
      out.frame.push(t1 - t0);
      out.paint.push(Number(canvas.dataset.paintMs));
      await new Promise((r) => requestAnimationFrame(() => r()));
    }
    return out;
  }, n);
  const readable = await interact(Math.ceil(frames / 2));
  await page.locator('.bolt-cfg').getByRole('button', { name: 'Fit' }).click();
  await page.waitForTimeout(200);
  const whole = await interact(Math.floor(frames / 2));
  const timings = { frame: [...readable.frame, ...whole.frame], paint: [...readable.paint, ...whole.paint] };

  result = {
    blocks,
    edges,
    layoutMs,
    clickToPaintMs: Math.round(clickToPaint),
    frames,
    frameMs: stats(timings.frame),
    paintMs: stats(timings.paint),
    missed: readable.missed + whole.missed,
    frameMsOpen: stats(readable.frame),
    frameMsWhole: stats(whole.frame),
    dotMs,
  };
  console.log(`big: ${blocks} blocks, ${edges} edges`);
  console.log(`worker build + layout: ${layoutMs.toFixed(1)} ms; row click → first paint: ${result.clickToPaintMs} ms`);
  console.log(`${frames} zoom/pan frames, event → painted: median ${result.frameMs.median} ms, p95 ${result.frameMs.p95}, max ${result.frameMs.max}`);
  console.log(`  at the opening scale: median ${result.frameMsOpen.median} ms, max ${result.frameMsOpen.max}; whole graph: median ${result.frameMsWhole.median} ms, max ${result.frameMsWhole.max}`);
  console.log(`paint alone: median ${result.paintMs.median} ms, p95 ${result.paintMs.p95}, max ${result.paintMs.max}`);
  if (dotMs !== null) {
    console.log(`dot -Tsvg big.build-cfg.dot: ${(dotMs / 1000).toFixed(1)} s (${(dotMs / layoutMs).toFixed(0)}× the layout)`);
  }
  console.log(JSON.stringify(result));
} finally {
  await browser.close();
  await server.close();
}
