// Browser tests of the Flame graph and the stack Functions tab: most drop a synthetic
// stack profile (the worker's `#pgolens-stacks` text format,
// web/worker/src/synthetic.rs) whose numbers are known exactly; the last drops a
// corpus perf.data with its binary and checks what `perf report` and `perf script`
// print of it. Run `npm run build` first.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { corpus, corpusFiles, dropFiles, useSite } from './lib/harness.mjs';

// Event 0 (cycles), 100 samples' weight in all:
//   main 100 ─┬─ idle 20 ── read 20 (kernel)
//             └─ work 80 (self 10) ─┬─ compute 40
//                                   └─ memcpy 30
const PROFILE = `#pgolens-stacks
event cycles
event instructions
s 0 0 30 main;work@prog;memcpy@libc.so.6
s 0 100 10 main;work@prog
s 0 200 20 main;idle;read@[kernel.kallsyms]
s 0 300 40 main;work@prog;compute@prog
s 1 50 7 main;other
`;
const ROW = 18; // flame_state::ROW_PX

const site = useSite();

async function openFlame(profile = PROFILE) {
  const { page, errors } = await site.open();
  await dropFiles(page, [{ name: 'synthetic.stacks', bytes: Buffer.from(profile) }]);
  await page.locator('[role=status]').filter({ hasText: 'pgolens-stacks' }).waitFor({ timeout: 15000 });
  // A profile of stacks opens on its flame graph, the graph focused for its keys.
  await page.getByRole('tab', { name: 'Flame graph', selected: true }).waitFor();
  await paintedAtLeast(page, 1);
  // The names come after the first layout.
  await page.waitForFunction(() => document.querySelector('.flame-main canvas').dataset.rects > 0);
  return { page, errors };
}

function canvas(page) {
  return page.locator('.flame-main canvas');
}

async function paintedAtLeast(page, n) {
  await page.waitForFunction((n) => Number(document.querySelector('.flame-main canvas')?.dataset.paints) >= n, n);
}

/** The point of the flame graph at `share` (0..1) of its width, in row `depth`. */
async function point(page, share, depth, { icicle = false } = {}) {
  const box = await canvas(page).boundingBox();
  const inner = { x: box.x + 1, y: box.y + 1, w: box.width - 2, h: box.height - 2 };
  const y = icicle ? inner.y + (depth + 0.5) * ROW : inner.y + inner.h - (depth + 0.5) * ROW;
  return { x: inner.x + share * inner.w, y };
}

/** Moves the pointer over the flame graph at `share` (0..1) of its width, in row `depth`. */
async function hover(page, share, depth, options) {
  const { x, y } = await point(page, share, depth, options);
  await page.mouse.move(x, y);
  return page.locator('.flame-main .flame-tooltip');
}

async function tooltipNumbers(tip) {
  await tip.waitFor();
  return {
    name: await tip.locator('.ft-name').innerText(),
    total: (await tip.locator('.ft-total').innerText()).split(/\s+/).slice(1),
    self: (await tip.locator('.ft-self').innerText()).split(/\s+/).slice(1),
  };
}

test('a file with stacks gets a Flame graph tab whose canvas draws its frames', async () => {
  const { page, errors } = await openFlame();
  const tabs = await page.getByRole('tab').allInnerTexts();
  assert.deepEqual(tabs, ['Dump', 'Flame graph', 'Call tree', 'Stack chart', 'Functions']);
  // root, main, idle, work, read, compute, memcpy: all wide enough at full zoom.
  assert.equal(Number(await canvas(page).getAttribute('data-rects')), 7);
  assert.equal(await page.locator('.flame-total').innerText(), '100 samples');
  // The canvas is painted: some pixel in the main row is not blank.
  const painted = await canvas(page).evaluate((c) => {
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
    return n / (data.length / 4);
  });
  assert.ok(painted > 0.05, `painted share ${painted}`);
  // The other event: its one sample.
  await page.locator('.flame-event').selectOption('1');
  await page.locator('.flame-total').filter({ hasText: /^7 samples$/ }).waitFor();
  await page.waitForFunction(() => document.querySelector('.flame-main canvas').dataset.rects === '3');
  assert.deepEqual(errors, []);
  await page.close();
});

test('hovering a frame shows its name, dso and self and total samples with percentages', async () => {
  const { page, errors } = await openFlame();
  // work spans samples 20..100 at depth 2.
  const tip = await hover(page, 0.6, 2);
  assert.deepEqual(await tooltipNumbers(tip), { name: 'work', total: ['80', '80.00%'], self: ['10', '10.00%'] });
  assert.equal(await tip.locator('.ft-dso').innerText(), 'prog');
  // read (kernel) spans 0..20 at depth 3.
  const read = await hover(page, 0.1, 3);
  assert.deepEqual(await tooltipNumbers(read), { name: 'read', total: ['20', '20.00%'], self: ['20', '20.00%'] });
  assert.equal(await read.locator('.ft-kind').innerText(), 'kernel');
  assert.deepEqual(errors, []);
  await page.close();
});

test('weights past 32 bits are laid out and read back exactly', async () => {
  // 5,000,000,001 samples' weight: the root is wider than 32 bits hold, so the
  // worker sends this layout as 64-bit floats (and the others as 32-bit integers).
  const { page, errors } = await openFlame(`#pgolens-stacks
event cycles
s 0 0 3000000000 main;work
s 0 100 2000000001 main;idle
`);
  assert.equal(await page.locator('.flame-total').innerText(), '5000000001 samples');
  // idle spans 0..2000000001 at depth 2, work the rest.
  const idle = await hover(page, 0.2, 2);
  assert.deepEqual(await tooltipNumbers(idle), { name: 'idle', total: ['2000000001', '40.00%'], self: ['2000000001', '40.00%'] });
  const work = await hover(page, 0.7, 2);
  assert.deepEqual(await tooltipNumbers(work), { name: 'work', total: ['3000000000', '60.00%'], self: ['3000000000', '60.00%'] });
  assert.deepEqual(errors, []);
  await page.close();
});

test('double-clicking a frame zooms to it; Escape and the reset button zoom out', async () => {
  const { page, errors } = await openFlame();
  await hover(page, 0.6, 2);
  const work = await point(page, 0.6, 2);
  await page.mouse.dblclick(work.x, work.y);
  await page.waitForFunction(() => document.querySelector('.flame-main canvas').dataset.zoom === '20-100');
  // compute (20..60) now fills the left half.
  const tip = await hover(page, 0.25, 3);
  assert.equal((await tooltipNumbers(tip)).name, 'compute');
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => document.querySelector('.flame-main canvas').dataset.zoom === '0-100');
  // Keyboard zoom, then the button.
  await page.keyboard.press('+');
  await page.waitForFunction(() => document.querySelector('.flame-main canvas').dataset.zoom === '10-90');
  await page.locator('.flame-reset').click();
  await page.waitForFunction(() => document.querySelector('.flame-main canvas').dataset.zoom === '0-100');
  assert.deepEqual(errors, []);
  await page.close();
});

test('search highlights the matching frames and gives their share of the samples', async () => {
  const { page, errors } = await openFlame();
  const before = Number(await canvas(page).getAttribute('data-paints'));
  await page.keyboard.press('/');
  await page.keyboard.type('mem');
  await page.locator('.flame-share').filter({ hasText: '30.00% of samples match (1 function)' }).waitFor();
  await paintedAtLeast(page, before + 1);
  // The hit is painted in the highlight colour (#d43ac8), the rest dimmed.
  const box = await canvas(page).boundingBox();
  const colour = await canvas(page).evaluate((c, at) => {
    const dpr = window.devicePixelRatio;
    return Array.from(c.getContext('2d').getImageData(Math.round(at.x * dpr), Math.round(at.y * dpr), 1, 1).data);
  }, { x: (box.width - 2) * 0.85, y: box.height - 2 - 3.5 * ROW + 4 });
  assert.deepEqual(colour.slice(0, 3), [0xd4, 0x3a, 0xc8]);
  // A regex-lite between slashes: compute and memcpy.
  await page.locator('.flame-search').fill('/^compute$|^memcpy$/');
  await page.locator('.flame-share').filter({ hasText: '70.00% of samples match (2 functions)' }).waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

test('the inverted toggle shows the icicle of the leaves', async () => {
  const { page, errors } = await openFlame();
  await canvas(page).click({ position: { x: 5, y: 5 } }); // empty space: focus only
  await page.keyboard.press('i');
  await page.locator('.flame-invert input:checked').waitFor();
  await page.waitForFunction(() => document.querySelector('.flame-main canvas').dataset.rects === '12');
  // Leaves first, by name: compute 0..40, memcpy 40..70, read 70..90, work 90..100.
  const tip = await hover(page, 0.8, 1, { icicle: true });
  // The leaves' row: each function's self weight is the whole of its rectangle.
  assert.deepEqual(await tooltipNumbers(tip), { name: 'read', total: ['20', '20.00%'], self: ['20', '20.00%'] });
  const work = await hover(page, 0.95, 1, { icicle: true });
  assert.deepEqual(await tooltipNumbers(work), { name: 'work', total: ['10', '10.00%'], self: ['10', '10.00%'] });
  assert.deepEqual(errors, []);
  await page.close();
});

test('selecting a time range on the timeline filters the flame graph and the functions', async () => {
  const { page, errors } = await openFlame();
  const strip = page.locator('.timeline-canvas');
  await strip.waitFor();
  const box = await strip.boundingBox();
  // Times 0..301: the left half holds the samples at 0 and 100 (30 + 10).
  await page.mouse.move(box.x + 1, box.y + 10);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.25, box.y + 10);
  await page.mouse.move(box.x + box.width * 0.5, box.y + 10);
  await page.mouse.up();
  await page.locator('.flame-total').filter({ hasText: /^40 samples$/ }).waitFor();
  const tip = await hover(page, 0.5, 2);
  assert.deepEqual(await tooltipNumbers(tip), { name: 'work', total: ['40', '100.00%'], self: ['10', '25.00%'] });
  await page.getByRole('tab', { name: 'Functions' }).click();
  await page.locator('.fn-count').filter({ hasText: '3 functions with samples in the selected time range' }).waitFor();
  // A click on the strip clears the range.
  await page.getByRole('tab', { name: 'Flame graph' }).click();
  await page.locator('.timeline-canvas').click({ position: { x: 30, y: 10 } });
  await page.locator('.flame-total').filter({ hasText: /^100 samples$/ }).waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

test('the Functions tab lists self and total per function, sortable, with a sandwich button', async () => {
  const { page, errors } = await openFlame();
  await page.getByRole('tab', { name: 'Functions' }).click();
  const rows = page.locator('.fn-body [role=row][data-id]');
  await rows.first().waitFor();
  const table = () =>
    rows.evaluateAll((els) =>
      els.map((e) => [
        e.querySelector('.fn-name').textContent,
        e.querySelector('.fn-self').textContent,
        e.querySelector('.fn-total').textContent,
        e.querySelector('.fn-total-pct').textContent,
      ]),
    );
  assert.deepEqual(await table(), [
    ['main', '0', '100', '100.00%'],
    ['work', '10', '80', '80.00%'],
    ['compute', '40', '40', '40.00%'],
    ['memcpy', '30', '30', '30.00%'],
    ['read', '20', '20', '20.00%'],
    ['idle', '0', '20', '20.00%'],
  ]);
  // The sandwich button fits in its cell.
  const overflow = await rows.first().locator('.sf-sandwich').evaluate((b) => {
    const cell = b.closest('[role=gridcell]');
    return b.getBoundingClientRect().right - cell.getBoundingClientRect().right;
  });
  assert.ok(overflow <= 0.5, `${overflow}px past its cell`);
  await page.locator('[role=columnheader][data-column=self] button').click();
  await page.waitForFunction(() => document.querySelector('.fn-body [role=row][data-id] .fn-name')?.textContent === 'compute');
  // The sandwich of work: callers (main) and callees (compute, memcpy).
  await page.locator('.fn-body [role=row]', { hasText: 'work' }).locator('.sf-sandwich').click();
  await page.locator('.sandwich h3', { hasText: 'Callers and callees of work' }).waitFor();
  await page.waitForFunction(() => document.querySelector('.sandwich-callees canvas')?.dataset.rects === '4');
  assert.equal(await page.locator('.sandwich-callers canvas').getAttribute('data-rects'), '3');
  assert.deepEqual(errors, []);
  await page.close();
});

const PERF = 'bolt-perf/cprog/cprog.fp.perf.data';

test('a perf.data with its binary: the samples, self shares and kernel share perf prints', async () => {
  const { page, errors } = await site.open();
  await dropFiles(page, await corpusFiles([PERF, 'bolt-perf/cprog/cprog']));
  await page.locator('[role=status]').filter({ hasText: 'perf.data' }).waitFor({ timeout: 30000 });
  await page.getByRole('tab', { name: 'Flame graph' }).click();
  // Frames are named from the binary once the worker has it.
  await page.locator('.flame-symbols', { hasText: 'cprog' }).waitFor({ timeout: 30000 });
  // perf report: "Samples: 469  of event 'cpu-clock'".
  const report = await readFile(path.join(corpus, `${PERF}.report.txt`), 'utf8');
  const [, samples, event] = /^# Samples: (\d+)\s+of event '([^']+)'/m.exec(report);
  await page.locator('.flame-total').filter({ hasText: `${samples} samples` }).waitFor();
  assert.equal(await page.locator('.flame-event-name').innerText(), event);
  await page.waitForFunction(() => Number(document.querySelector('.flame-main canvas')?.dataset.rects) > 5);

  // Kernel frames (no kallsyms dropped) are [kernel.kallsyms]+0x…: the share of
  // samples whose chain holds a kernel address, counted in perf script's output.
  const script = await readFile(path.join(corpus, `${PERF}.script-ip.txt`), 'utf8');
  const chains = script.split(/\n(?=\S)/).filter((c) => c.includes('cpu-clock'));
  const kernel = chains.filter((c) => /^\s+ffffffff[0-9a-f]{8}$/m.test(c)).length;
  await page.locator('.flame-search').fill('kernel.kallsyms');
  const share = ((kernel * 100) / chains.length).toFixed(2);
  await page.locator('.flame-share', { hasText: `${share}% of samples match` }).waitFor();

  // The cprog functions' self shares are perf report's overheads.
  const overheads = [...report.matchAll(/^\s+(\d+\.\d+)%\s+cprog\s+\[\.\] (\S+)\s*$/gm)].map((m) => [m[2], `${m[1]}%`]);
  assert.ok(overheads.length >= 4, JSON.stringify(overheads));
  await page.getByRole('tab', { name: 'Functions' }).click();
  await page.locator('[role=columnheader][data-column=self] button').click();
  const rows = page.locator('.fn-body [role=row][data-id]');
  await page.waitForFunction(() => document.querySelector('.fn-body [role=row][data-id] .fn-name')?.textContent === 'hot_loop');
  const shown = new Map(
    await rows.evaluateAll((els) => els.map((e) => [e.querySelector('.fn-name').textContent, e.querySelector('.fn-self-pct').textContent])),
  );
  for (const [name, percent] of overheads) assert.equal(shown.get(name), percent, name);
  assert.deepEqual(errors, []);
  await page.close();
});
