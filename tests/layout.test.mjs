// Browser tests of a page that fits any window from 800×600 up: the instrprof
// Functions table, the stack Functions table and a BOLT functions table at
// 800×600, 1000×700, 1400×900 and 1920×1080 — no column narrower than its header,
// the name column readable, no sideways scroll of the page, long names elided in
// the middle with the whole name on hover, columns resized by a drag and by keys —
// and the timeline's time axis and bars on a small recording. Run `npm run build`
// first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { corpus, corpusFiles, dropFiles, useSite } from './lib/harness.mjs';

const INSTRPROF = 'llvm/irpgo-progA/irpgo-progA.profdata';
const PERF = 'bolt-perf/cprog/cprog.fp.perf.data';
const FDATA = 'bolt-perf/cprog/cprog.instr.fdata';
const SIZES = [
  [800, 600],
  [1000, 700],
  [1400, 900],
  [1920, 1080],
];

const site = useSite();

async function open(files, format, tab) {
  const { page, errors } = await site.open();
  await dropFiles(page, await corpusFiles(files));
  await page.locator('[role=status]').filter({ hasText: format }).waitFor({ timeout: 30000 });
  if (tab) {
    await page.getByRole('tab', { name: tab, exact: true }).click();
    await page.locator('.fn-body [role=row][data-id]').first().waitFor({ timeout: 30000 });
  }
  return { page, errors };
}

/** Two frames: the resize observers, the re-render and the effects after it. */
function settle(page) {
  return page.evaluate(
    () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50)))),
  );
}

/** Each header's drawn width and its title's, the name column's, and the page's overflow. */
function measure(page) {
  return page.evaluate(() => {
    const headers = [...document.querySelectorAll('.fn-head [role=columnheader]')].map((h) => ({
      column: h.dataset.column,
      width: h.getBoundingClientRect().width,
      title: h.querySelector('.fn-column-title').getBoundingClientRect().width,
      // The whole header (its title and sort arrow) is drawn: nothing cut.
      cut: h.scrollWidth > h.clientWidth + 1,
      text: h.textContent,
    }));
    const name = document.querySelector('.fn-head [role=columnheader][data-column=name]');
    const char = document.querySelector('.fn-measure').getBoundingClientRect().width / 10;
    return {
      headers,
      nameChars: name.getBoundingClientRect().width / char,
      pageWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      rows: document.querySelectorAll('.fn-body [role=row][data-id]').length,
    };
  });
}

async function fits(page, label, { columns, nameChars }) {
  for (const [w, h] of SIZES) {
    await page.setViewportSize({ width: w, height: h });
    await settle(page);
    const m = await measure(page);
    const at = `${label} at ${w}×${h}`;
    assert.deepEqual(
      m.headers.map((c) => c.column),
      columns,
      at,
    );
    for (const c of m.headers) {
      assert.ok(c.width >= c.title, `${at}: ${c.column} is ${c.width}px, its header ${c.title}px`);
      assert.ok(!c.cut, `${at}: header ${c.text} cut`);
    }
    assert.ok(m.pageWidth <= m.innerWidth, `${at}: the page scrolls sideways (${m.pageWidth}px)`);
    const least = w >= 1400 ? nameChars.wide : nameChars.narrow;
    assert.ok(m.nameChars >= least, `${at}: the name column shows ${m.nameChars.toFixed(1)} characters`);
    assert.ok(m.rows > 0, at);
  }
}

test('the instrprof Functions table fits every window; long names elide in the middle; columns resize', async () => {
  const { page, errors } = await open([INSTRPROF], 'instrprof-indexed', 'Functions');
  await fits(page, 'instrprof Functions', {
    columns: ['name', 'hash', 'counters', 'entry', 'max', 'total', 'nonzero'],
    nameChars: { narrow: 20, wide: 40 },
  });

  // The red-black tree's members have names longer than any column.
  await page.setViewportSize({ width: 1000, height: 700 });
  await page.getByRole('searchbox', { name: 'Filter functions' }).fill('_M_emplace_hint_unique');
  await page.waitForFunction(() => document.querySelectorAll('.fn-body [role=row][data-id]').length === 2);
  await settle(page);
  const elided = await page.locator('.fn-body .fn-text[data-elided=true]').evaluateAll((els) =>
    els.map((e) => ({
      title: e.title,
      text: e.textContent,
      start: e.querySelector('.fn-start').textContent,
      end: e.querySelector('.fn-end').textContent,
      startCut: e.querySelector('.fn-start').scrollWidth > e.querySelector('.fn-start').clientWidth,
      fits: e.getBoundingClientRect().right <= e.closest('.fn-cell').getBoundingClientRect().right + 0.5,
      raw: e.closest('.fn-cell').title,
    })),
  );
  assert.equal(elided.length, 2);
  for (const e of elided) {
    // The hover text is the whole name first, then the raw (mangled) name.
    assert.equal(e.title, `${e.text}\n${e.raw}`);
    assert.match(e.text, /^std::_Rb_tree.*::_M_emplace_hint_unique<.*>\(.*\)$/);
    assert.ok(e.raw.startsWith('_ZNSt8_Rb_tree'), e.raw);
    // Its start is cut where the column ends, its end shown whole: both ends show.
    assert.ok(e.startCut, 'the start is cut');
    assert.ok(e.end.length >= 8 && e.text.endsWith(e.end) && e.text.startsWith(e.start), JSON.stringify(e));
    assert.ok(e.fits, 'the name stays inside its cell');
  }

  // Dragging the Hash column's edge 60px right widens it by 60px; the name column
  // (wider than its least at 1400px) gives the room.
  await page.setViewportSize({ width: 1400, height: 900 });
  await settle(page);
  const width = (column) =>
    page.locator(`.fn-head [role=columnheader][data-column=${column}]`).evaluate((e) => e.getBoundingClientRect().width);
  const [hash, name] = [await width('hash'), await width('name')];
  const handle = await page.locator('.fn-head [data-column=hash] .fn-resize').boundingBox();
  await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
  await page.mouse.down();
  await page.mouse.move(handle.x + handle.width / 2 + 30, handle.y + handle.height / 2, { steps: 3 });
  await page.mouse.move(handle.x + handle.width / 2 + 60, handle.y + handle.height / 2, { steps: 3 });
  await page.mouse.up();
  await settle(page);
  assert.ok(Math.abs((await width('hash')) - (hash + 60)) <= 1, `hash ${hash} → ${await width('hash')}`);
  assert.ok(Math.abs((await width('name')) - (name - 60)) <= 1, `name ${name} → ${await width('name')}`);
  // The body's cells follow the header's.
  const cell = await page.locator('.fn-body [role=row][data-id] [data-column=hash]').first().evaluate((e) => e.getBoundingClientRect().width);
  assert.ok(Math.abs(cell - (hash + 60)) <= 1, `cell ${cell}`);
  // The handle takes Left and Right: 16px a key.
  await page.locator('.fn-head [data-column=hash] .fn-resize').focus();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await settle(page);
  assert.ok(Math.abs((await width('hash')) - (hash + 60 - 32)) <= 1);
  // A click on the handle does not sort.
  assert.equal(await page.locator('.fn-head [data-column=hash]').getAttribute('aria-sort'), 'none');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the stack Functions table fits every window, names on hover', async () => {
  const { page, errors } = await open([PERF, 'bolt-perf/cprog/cprog'], 'perf.data', 'Functions');
  await page.locator('.fn-body [role=row][data-id] .fn-name', { hasText: 'hot_loop' }).waitFor({ timeout: 30000 });
  await fits(page, 'stack Functions', {
    columns: ['name', 'self', 'self-pct', 'total', 'total-pct', 'dso', 'extra'],
    nameChars: { narrow: 20, wide: 40 },
  });
  // A name's hover text starts with the name itself, not its DSO.
  const hover = await page.locator('.fn-body [role=row][data-id] .fn-text', { hasText: 'hot_loop' }).first().getAttribute('title');
  assert.equal(hover.split('\n')[0], 'hot_loop');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a BOLT functions table fits every window', async () => {
  const { page, errors } = await open([FDATA], 'fdata', 'Functions');
  await fits(page, 'BOLT functions', {
    columns: ['name', 'exec', 'edges', 'branches', 'branches-pct', 'mispredicted', 'calls'],
    nameChars: { narrow: 20, wide: 40 },
  });
  assert.deepEqual(errors, []);
  await page.close();
});

test('the timeline: an axis in time units from the start, bars by the sample count, a range by keys', async () => {
  const { page, errors } = await open([PERF, 'bolt-perf/cprog/cprog'], 'perf.data', null);
  await page.getByRole('tab', { name: 'Flame graph' }).click();
  // perf report: "Samples: 469 of event 'cpu-clock'": one bar per 8 samples.
  const report = await readFile(path.join(corpus, `${PERF}.report.txt`), 'utf8');
  const samples = Number(/^# Samples: (\d+)/m.exec(report)[1]);
  const canvas = page.locator('.timeline-canvas');
  await canvas.waitFor({ timeout: 30000 });
  assert.equal(Number(await canvas.getAttribute('data-bars')), Math.floor(samples / 8));
  assert.ok(Number(await canvas.getAttribute('data-bars')) > 20);

  // The recording's span, from perf script's first and last sample times (s).
  const script = await readFile(path.join(corpus, `${PERF}.script-ip.txt`), 'utf8');
  const times = [...script.matchAll(/\s(\d+\.\d{6}):/g)].map((m) => Number(m[1]));
  const span = Math.max(...times) - Math.min(...times);
  const unit = span >= 1 ? 's' : span >= 1e-3 ? 'ms' : 'µs';
  await settle(page);
  const ticks = await page.locator('.timeline-tick').allInnerTexts();
  assert.ok(ticks.length >= 3, JSON.stringify(ticks));
  assert.match(ticks[0], new RegExp(`^0(\\.0+)? ${unit}$`));
  for (const t of ticks) assert.match(t, new RegExp(`^\\d+(\\.\\d+)? ${unit}$`));
  const values = ticks.map((t) => Number.parseFloat(t));
  const scale = { s: 1, ms: 1e3, µs: 1e6 }[unit];
  assert.ok(values.at(-1) <= span * scale * 1.001 && values.at(-1) > (span * scale) / 2, `${values} of ${span * scale}`);
  // Evenly spaced: one round step.
  const step = values[1] - values[0];
  values.forEach((v, i) => assert.ok(Math.abs(v - i * step) < 1e-6 * scale, `${values}`));

  // Focused, Right selects the first bar; its start, end and length in the unit.
  const strip = page.locator('.timeline-strip');
  await strip.focus();
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('.timeline-canvas').dataset.range);
  const label = await page.locator('.timeline-label').innerText();
  const m = new RegExp(`^Selected 0(?:\\.0+)? ${unit}–(\\S+) ${unit} \\((\\S+) ${unit}\\) of 0(?:\\.0+)? ${unit}–(\\S+) ${unit}$`).exec(label);
  assert.ok(m, label);
  const bars = Math.floor(samples / 8);
  assert.ok(Math.abs(Number(m[1]) - (span * scale) / bars) <= (span * scale) / bars / 5, label);
  assert.equal(m[1], m[2]);
  // Right moves the range by a bar; Esc clears it (and leaves the focus there).
  const first = await canvas.getAttribute('data-range');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((r) => document.querySelector('.timeline-canvas').dataset.range !== r, first);
  const [a0, b0] = first.split('-').map(Number);
  const [a1, b1] = (await canvas.getAttribute('data-range')).split('-').map(Number);
  assert.ok(a1 > a0 && Math.abs(b1 - a1 - (b0 - a0)) <= 2, `${first} → ${a1}-${b1}`);
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.querySelector('.timeline-canvas').dataset.range);
  assert.equal(await page.evaluate(() => document.activeElement.classList.contains('timeline-strip')), true);
  assert.deepEqual(errors, []);
  await page.close();
});
