// Browser tests of the Stack chart tab: a synthetic stack profile (the worker's
// `#pgolens-stacks` text, web/worker/src/synthetic.rs) whose samples come 10 ms
// apart, so every box's place and length is known. Run `npm run build` first.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { dropFiles, useSite } from './lib/harness.mjs';

// Times in ns: main throughout; work → compute for the first two samples, then
// work → memcpy, then idle, then work alone.
const PROFILE = `#pgolens-stacks
event cycles
s 0 0 1 main;work@prog;compute@prog
s 0 10000000 1 main;work@prog;compute@prog
s 0 20000000 1 main;work@prog;memcpy@libc.so.6
s 0 30000000 1 main;idle
s 0 40000000 1 main;work@prog
`;
const AXIS = 20; // stack_chart_view::AXIS_PX
const ROW = 18; // flame::ROW_PX

const site = useSite();

async function openChart() {
  const { page, errors } = await site.open({ width: 1200, height: 800 });
  await dropFiles(page, [{ name: 'timed.stacks', bytes: Buffer.from(PROFILE) }]);
  await page.locator('[role=status]').filter({ hasText: 'pgolens-stacks' }).waitFor({ timeout: 15000 });
  await page.getByRole('tab', { name: 'Stack chart' }).click();
  await page.waitForFunction(() => Number(document.querySelector('.stack-chart-canvas')?.dataset.boxes) > 0);
  return { page, errors };
}

/** Hovers the box at `fraction` of the chart's width (1: its last pixel) and `depth`;
 *  returns the tooltip's lines. */
async function hover(page, fraction, depth) {
  const box = await page.locator('.stack-chart-canvas').boundingBox();
  const x = fraction === 1 ? box.width - 1.5 : box.width * fraction;
  await page.mouse.move(box.x + x, box.y + AXIS + ROW * depth + ROW / 2);
  const tip = page.getByRole('tooltip');
  await tip.waitFor();
  return { name: await tip.locator('.sc-name').innerText(), when: await tip.locator('.muted').innerText(), width: box.width };
}

test('a frame that stays on the stack across samples is one box, at its time', async () => {
  const { page, errors } = await openChart();
  const chart = page.locator('.stack-chart-canvas');
  // main; work twice (around idle); compute, memcpy, idle: six boxes, five samples.
  assert.equal(await chart.getAttribute('data-boxes'), '6');
  assert.equal(await page.locator('[data-samples]').getAttribute('data-samples'), '5');
  assert.match(await page.locator('.stack-chart-bar').innerText(), /5 samples in 40\.0 ms/);
  // compute holds the first two samples: 0 to 20 ms, to a column's precision.
  const compute = await hover(page, 0.1, 2);
  assert.equal(compute.name, 'compute');
  const [start, end, length] = [...compute.when.matchAll(/([\d.]+) ms/g)].map((m) => Number(m[1]));
  const column = 40 / compute.width; // ms per column
  assert.ok(start === 0 && Math.abs(end - 20) <= column + 0.05 && Math.abs(length - 20) <= column + 0.05, compute.when);
  assert.equal((await hover(page, 0.6, 2)).name, 'memcpy');
  assert.equal((await hover(page, 0.8, 1)).name, 'idle');
  assert.equal((await hover(page, 0.9, 0)).name, 'main');
  // idle lasts until the next sample, at 40 ms, the end of the recording: work
  // alone holds the last column.
  assert.equal((await hover(page, 0.99, 1)).name, 'idle');
  assert.equal((await hover(page, 1, 1)).name, 'work');
  assert.deepEqual(errors, []);
  await page.close();
});

test('dragging shows a time range, which the flame graph takes too; Esc shows everything', async () => {
  const { page, errors } = await openChart();
  const chart = page.locator('.stack-chart-canvas');
  const box = await chart.boundingBox();
  // From 45% to 85% of 40 ms: 18 to 34 ms, holding the samples at 20 and 30 ms.
  await page.mouse.move(box.x + box.width * 0.45, box.y + AXIS + 4);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.85, box.y + AXIS + 4, { steps: 4 });
  await page.mouse.up();
  await page.waitForFunction(() => document.querySelector('[data-samples]').dataset.samples === '2');
  assert.match(page.url(), /[#&]range=1\d{7},3\d{7}/);
  // The timeline above is the chart's minimap: the whole recording, the range on it.
  const minimap = page.locator('.stack-chart .timeline-canvas');
  assert.match(await minimap.getAttribute('data-range'), /^1\d{7}-3\d{7}$/);
  await chart.focus();
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => document.querySelector('[data-samples]').dataset.samples === '5');
  assert.doesNotMatch(page.url(), /range=/);
  assert.equal(await minimap.getAttribute('data-range'), null);
  assert.deepEqual(errors, []);
  await page.close();
});
