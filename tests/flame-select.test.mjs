// Browser tests of the flame graph's selection (issue 13): a click selects a frame
// and shows its details (checked against perf's own output for a corpus
// recording), a double-click zooms, a keyboard-only walk of the graph and its
// search, the tooltip kept inside the window, a recording without call chains,
// and the stack Functions table opening a function in the other views. Run
// `npm run build` first.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { corpus, dropFiles, useSite } from './lib/harness.mjs';

// Event 0 (cycles), 100 samples' weight in all (the same profile as flame.test.mjs):
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
const ROW = 18; // flame::ROW_PX
const CPROG = 'bolt-perf/cprog';

const site = useSite();

async function newPage() {
  const { page, errors } = await site.open();
  return { page, errors };
}

async function openSynthetic() {
  const { page, errors } = await newPage();
  await dropFiles(page, [{ name: 'synthetic.stacks', bytes: Buffer.from(PROFILE) }]);
  await page.locator('[role=status]').filter({ hasText: 'pgolens-stacks' }).waitFor({ timeout: 15000 });
  await page.getByRole('tab', { name: 'Flame graph', selected: true }).waitFor();
  await page.waitForFunction(() => document.querySelector('.flame-main canvas')?.dataset.rects > 0);
  return { page, errors };
}

/** Opens a corpus perf.data of cprog with its binary on the Flame graph tab. */
async function openCprog(recording) {
  const { page, errors } = await newPage();
  const file = async (rel) => ({ name: path.basename(rel), bytes: await readFile(path.join(corpus, rel)) });
  await dropFiles(page, [await file(`${CPROG}/${recording}`), await file(`${CPROG}/cprog`)]);
  await page.locator('[role=status]').filter({ hasText: 'perf.data' }).waitFor({ timeout: 30000 });
  await page.getByRole('tab', { name: 'Flame graph' }).click();
  await page.locator('.flame-symbols', { hasText: 'cprog' }).waitFor({ timeout: 30000 });
  return { page, errors };
}

const canvas = (page) => page.locator('.flame-main canvas');
const zoomIs = (page, zoom) =>
  page.waitForFunction((z) => document.querySelector('.flame-main canvas')?.dataset.zoom === z, zoom);
const details = (page) => page.locator('.flame-details');

/** The point of the flame graph (root at the bottom) at `share` of its width, in row `depth`. */
async function point(page, share, depth) {
  const box = await canvas(page).boundingBox();
  return { x: box.x + 1 + share * (box.width - 2), y: box.y + box.height - 1 - (depth + 0.5) * ROW };
}

/** Where `name` is drawn: hovers rows and columns until the tooltip names it. */
async function find(page, name) {
  for (let depth = 1; depth < 10; depth++) {
    for (let share = 0.005; share < 1; share += 0.01) {
      const at = await point(page, share, depth);
      await page.mouse.move(at.x, at.y);
      const shown = await page.evaluate(() => document.querySelector('.flame-main .ft-name')?.textContent);
      if (shown === name) return at;
    }
  }
  throw new Error(`${name} is not drawn`);
}

/** Reads the details panel: name, DSO, kind, self and total, callers and callees. */
async function readDetails(page) {
  const panel = details(page);
  const rows = (section) =>
    panel.locator(`${section} tr`).evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  return {
    name: await panel.locator('.fd-name').innerText(),
    dso: await panel.locator('.fd-dso').innerText(),
    kind: await panel.locator('.fd-kind').innerText(),
    self: (await panel.locator('.fd-self').innerText()).split(/\s+/),
    total: (await panel.locator('.fd-total').innerText()).split(/\s+/),
    callers: await rows('.fd-callers'),
    callees: await rows('.fd-callees'),
  };
}

/** The samples of a `perf script` text (default fields) as frame names, leaf first. */
function scriptStacks(text) {
  return text
    .split(/\n\s*\n/)
    .filter((block) => block.includes('cpu-clock:'))
    .map((block) =>
      block
        .split('\n')
        .slice(1)
        .map((line) => line.trim().split(/\s+/)[1]?.replace(/\+0x[0-9a-f]+$/, ''))
        .filter(Boolean),
    );
}

test('a click selects a frame and shows what perf script says of it; a double-click zooms', async () => {
  const { page, errors } = await openCprog('cprog.fp.perf.data');
  const report = await readFile(path.join(corpus, CPROG, 'cprog.fp.perf.data.report.txt'), 'utf8');
  const [, overhead] = /^\s+(\d+\.\d+)%\s+cprog\s+\[\.\] hot_loop\s*$/m.exec(report);
  // hot_loop's self, total (stacks holding it), callers and callees, counted in perf script.
  const stacks = scriptStacks(await readFile(path.join(corpus, CPROG, 'cprog.fp.perf.data.script.txt'), 'utf8'));
  const count = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);
  let self = 0;
  let total = 0;
  const callers = new Map();
  const callees = new Map();
  for (const frames of stacks) {
    const inner = frames.indexOf('hot_loop');
    if (inner < 0) continue;
    total++;
    if (inner === 0) self++;
    else count(callees, frames[frames.lastIndexOf('hot_loop') - 1]);
    count(callers, frames[inner + 1]);
  }
  const all = stacks.length;
  const pct = (n, whole) => `${((n * 100) / whole).toFixed(2)}%`;
  assert.equal(pct(self, all), `${overhead}%`, 'perf script and perf report agree');

  await page.locator('.flame-total').filter({ hasText: `${all} samples` }).waitFor();
  const zoom = await canvas(page).getAttribute('data-zoom');
  const at = await find(page, 'hot_loop');
  await page.mouse.click(at.x, at.y);
  await details(page).locator('.fd-name', { hasText: 'hot_loop' }).waitFor();
  await details(page).locator('.fd-callees tr').first().waitFor();
  const shown = await readDetails(page);
  assert.equal(shown.dso, 'cprog');
  assert.equal(shown.kind, 'not inlined');
  // Where hot_loop starts, as `llvm-addr2line -e cprog 0x401250` prints it (nm: hot_loop
  // at 0x401250); a C function has no other raw name.
  assert.equal(await details(page).locator('.fd-source').innerText(), '/tmp/corpusB/work/cprog/src/cmain.c:43');
  assert.equal(await details(page).locator('.fd-raw').count(), 0);
  assert.deepEqual(shown.self, [String(self), `${overhead}%`]);
  assert.deepEqual(shown.total, [String(total), pct(total, all)]);
  assert.deepEqual(shown.callers, [...callers].map(([name, n]) => [name, String(n), pct(n, total)]));
  // The callees in cprog (kernel frames are unnamed without kallsyms).
  const cprogCallees = shown.callees.filter(([name]) => !name.startsWith('['));
  const expected = [...callees].filter(([name]) => /^[a-z_]+$/.test(name) && !name.startsWith('asm_'));
  assert.deepEqual(cprogCallees, expected.sort((a, b) => b[1] - a[1]).map(([name, n]) => [name, String(n), pct(n, total)]));
  assert.equal(await canvas(page).getAttribute('data-zoom'), zoom, 'a click does not zoom');

  // A double-click zooms to hot_loop: the view is exactly its width.
  await page.mouse.dblclick(at.x, at.y);
  await page.waitForFunction((z) => document.querySelector('.flame-main canvas').dataset.zoom !== z, zoom);
  const [x0, x1] = (await canvas(page).getAttribute('data-zoom')).split('-').map(Number);
  assert.equal(x1 - x0, total);
  // The details' Call tree button opens the call tree with the selection kept.
  await details(page).locator('.fd-call-tree').click();
  await page.getByRole('tab', { name: 'Call tree', selected: true }).waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

test('a keyboard-only walk: arrows, Enter, zoom keys, search matches, Esc, sandwich', async () => {
  const { page, errors } = await openSynthetic();
  const focused = () =>
    page.evaluate(() => {
      const el = document.activeElement;
      if (el === document.body || !el) return 'body';
      return el.matches('.flame-main') ? 'graph' : el.matches('.flame-search') ? 'search' : el.tagName;
    });
  const tabToGraph = async () => {
    for (let i = 0; i < 40 && (await focused()) !== 'graph'; i++) await page.keyboard.press('Tab');
    assert.equal(await focused(), 'graph');
  };
  const selected = (name) => details(page).locator('.fd-name', { hasText: new RegExp(`^${name}$`) }).waitFor();
  // From nothing focused, Tab reaches the graph.
  await page.evaluate(() => document.activeElement?.blur());
  await tabToGraph();
  assert.equal(await page.locator('.flame-main').getAttribute('role'), 'application');
  // Up goes away from the root (drawn at the bottom): root, main, then the widest callees.
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await selected('main');
  await page.keyboard.press('ArrowUp');
  await selected('work');
  assert.deepEqual((await readDetails(page)).self, ['10', '10.00%']);
  await page.keyboard.press('ArrowUp');
  await selected('compute');
  await page.keyboard.press('ArrowRight');
  await selected('memcpy');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowDown');
  await selected('work');
  await page.locator('.flame-announce', { hasText: 'Selected work in prog' }).waitFor();
  // Enter zooms to it; + - 0 and a/d zoom and pan.
  await page.keyboard.press('Enter');
  await zoomIs(page, '20-100');
  await page.keyboard.press('0');
  await zoomIs(page, '0-100');
  await page.keyboard.press('+');
  await zoomIs(page, '10-90');
  await page.keyboard.press('a');
  await zoomIs(page, '2-82');
  await page.keyboard.press('d');
  await zoomIs(page, '10-90');
  await page.keyboard.press('0');
  await zoomIs(page, '0-100');

  // `/` searches; Enter goes to the first match and zooms to it; Esc clears the
  // search and gives the focus back to the graph.
  await page.keyboard.press('/');
  assert.equal(await focused(), 'search');
  await page.keyboard.type('mem');
  await page.locator('.flame-share').filter({ hasText: '30.00% of samples match' }).waitFor();
  await page.keyboard.press('Enter');
  await selected('memcpy');
  await zoomIs(page, '60-90');
  await page.keyboard.press('Escape');
  assert.equal(await focused(), 'graph');
  assert.equal(await page.locator('.flame-search').inputValue(), '');
  // Ctrl+F too; Enter and Shift+Enter step through the matches in reading order.
  await page.keyboard.press('Control+f');
  assert.equal(await focused(), 'search');
  await page.keyboard.type('/^compute$|^memcpy$/');
  await page.locator('.flame-share').filter({ hasText: '70.00% of samples match' }).waitFor();
  await page.keyboard.press('Enter');
  await selected('compute');
  await zoomIs(page, '20-60');
  await page.keyboard.press('Enter');
  await selected('memcpy');
  await page.keyboard.press('Shift+Enter');
  await selected('compute');
  // n and p on the graph.
  await tabToGraph();
  await page.keyboard.press('n');
  await selected('memcpy');
  await zoomIs(page, '60-90');
  await page.keyboard.press('n');
  await selected('compute');
  await page.keyboard.press('p');
  await selected('memcpy');
  // Esc on the graph resets the zoom; s opens the sandwich, Esc closes it.
  await page.keyboard.press('Escape');
  await zoomIs(page, '0-100');
  await page.keyboard.press('s');
  await page.locator('.sandwich h3', { hasText: 'Callers and callees of memcpy' }).waitFor();
  await page.keyboard.press('Escape');
  await page.locator('.sandwich').waitFor({ state: 'detached' });
  assert.equal(await focused(), 'graph');
  // r collapses the selected function's recursion: a transform, listed in the breadcrumbs.
  await page.keyboard.press('r');
  await page.locator('nav.transforms li', { hasText: 'Collapse recursion memcpy' }).waitFor();
  assert.equal(await focused(), 'graph');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the sandwich panes select on click and zoom on double-click, each on its own', async () => {
  const { page, errors } = await openSynthetic();
  const at = await point(page, 0.6, 2);
  await page.mouse.click(at.x, at.y);
  await details(page).locator('.fd-name', { hasText: 'work' }).waitFor();
  await details(page).locator('.fd-sandwich').click();
  const callees = page.locator('.sandwich-callees canvas');
  await page.waitForFunction(() => document.querySelector('.sandwich-callees canvas')?.dataset.rects === '4');
  // Callees of work (an icicle: root row, work, then compute 0..40 and memcpy 40..70 of 80).
  const box = await callees.boundingBox();
  const memcpy = { x: box.x + 1 + (55 / 80) * (box.width - 2), y: box.y + 1 + 2.5 * ROW };
  await page.mouse.click(memcpy.x, memcpy.y);
  await details(page).locator('.fd-name', { hasText: 'memcpy' }).waitFor();
  await page.mouse.dblclick(memcpy.x, memcpy.y);
  await page.waitForFunction(() => document.querySelector('.sandwich-callees canvas').dataset.zoom === '40-70');
  assert.equal(await page.locator('.sandwich-callers canvas').getAttribute('data-zoom'), '0-80');
  assert.equal(await canvas(page).getAttribute('data-zoom'), '0-100');
  // Clicks in the panes keep the tab's keys: Esc closes the sandwich, the graph gets the focus.
  await page.keyboard.press('Escape');
  await page.locator('.sandwich').waitFor({ state: 'detached' });
  assert.ok(await page.evaluate(() => document.activeElement.matches('.flame-main')));
  assert.deepEqual(errors, []);
  await page.close();
});

test('the order toggle lays siblings out heaviest first', async () => {
  const { page, errors } = await openSynthetic();
  const tip = async (share, depth) => {
    const at = await point(page, share, depth);
    await page.mouse.move(at.x, at.y - ROW);
    await page.mouse.move(at.x, at.y);
    return page.locator('.flame-main .ft-name').innerText();
  };
  // By name, idle (20) comes before work (80); heaviest first, after it.
  assert.equal(await tip(0.1, 2), 'idle');
  await page.getByRole('group', { name: 'Order' }).getByRole('button', { name: 'Heaviest first' }).click();
  await page.locator('.order-heavy[aria-pressed=true]').waitFor();
  await page.waitForFunction(() => document.querySelector('.flame-main canvas').dataset.paints > 1);
  for (let i = 0; i < 50 && (await tip(0.1, 2)) !== 'work'; i++) await page.waitForTimeout(50);
  assert.equal(await tip(0.1, 2), 'work');
  assert.equal(await tip(0.9, 2), 'idle');
  assert.equal(await page.locator('.order-alpha').getAttribute('aria-pressed'), 'false');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the tooltip stays inside the window near its bottom and right edges', async () => {
  const { page, errors } = await openSynthetic();
  await page.setViewportSize({ width: 1000, height: 700 });
  const inside = (r) => r.x >= 0 && r.y >= 0 && r.x + r.width <= 1000 && r.y + r.height <= 700;
  // The root row, at the bottom of the graph: the tooltip opens above the pointer.
  await page.waitForFunction(() => document.querySelector('.flame-main canvas').getBoundingClientRect().bottom > 600);
  const box = await canvas(page).boundingBox();
  const pointer = { x: box.x + box.width - 4, y: box.y + box.height - 6 };
  const tip = page.locator('.flame-main .flame-tooltip');
  // The canvas takes its new size on its next frame: until then the pointer may
  // fall outside the graph it hit-tests, so it is moved again until it shows.
  for (let i = 0; i < 50 && !(await tip.isVisible()); i++) {
    await page.mouse.move(pointer.x - 1 - (i % 2), pointer.y);
    await page.mouse.move(pointer.x, pointer.y);
    await page.waitForTimeout(50);
  }
  await tip.waitFor();
  assert.equal(await tip.locator('.ft-name').innerText(), 'all');
  const r = await tip.boundingBox();
  assert.ok(inside(r), JSON.stringify(r));
  assert.ok(r.y + r.height <= pointer.y, JSON.stringify({ r, pointer }));
  // The sandwich's callers reach the window's right edge: it opens left of the pointer.
  await page.mouse.click(pointer.x, pointer.y - 2.5 * ROW); // work
  await page.keyboard.press('s');
  await page.waitForFunction(() => document.querySelector('.sandwich-callers canvas')?.dataset.rects === '3');
  const callers = await page.locator('.sandwich-callers canvas').boundingBox();
  assert.ok(callers.y + callers.height <= 700, `the sandwich fits the window (${JSON.stringify(callers)})`);
  const right = { x: callers.x + callers.width - 3, y: callers.y + callers.height - 1.5 * ROW };
  await page.mouse.move(right.x, right.y);
  const left = page.locator('.sandwich-callers .flame-tooltip');
  await left.waitFor();
  assert.equal(await left.locator('.ft-name').innerText(), 'work');
  const l = await left.boundingBox();
  assert.ok(inside(l), JSON.stringify(l));
  assert.ok(l.x + l.width <= right.x, JSON.stringify({ l, right }));
  assert.deepEqual(errors, []);
  await page.close();
});

test('a recording without call chains is one bar per function, heaviest first, with a note', async () => {
  const { page, errors } = await openCprog('cprog.cpuclock.perf.data');
  await page.locator('.flat-note', { hasText: 'This recording has no call chains (record with -g or --call-graph to get them)' }).waitFor();
  const script = await readFile(path.join(corpus, CPROG, 'cprog.cpuclock.perf.data.script-ip.txt'), 'utf8');
  const samples = script.split('\n').filter((l) => l.includes('cpu-clock:')).length;
  await page.locator('.flame-total').filter({ hasText: `${samples} samples` }).waitFor();
  const rows = await page.locator('.flat-row').evaluateAll((els) =>
    els.map((e) => [e.querySelector('.flat-name').textContent, Number(e.querySelector('.flat-weight').textContent)]),
  );
  assert.equal(rows.reduce((sum, [, n]) => sum + n, 0), samples);
  for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1][1] >= rows[i][1], `${rows[i - 1]} before ${rows[i]}`);
  // perf2bolt's aggregation of the same samples (no_lbr fdata: `1 name offset count`).
  const fdata = await readFile(path.join(corpus, CPROG, 'cprog.nolbr.fdata'), 'utf8');
  const perFunction = new Map();
  // BOLT names a local symbol `name/N`.
  for (const [, name, n] of fdata.matchAll(/^1 (\S+?)(?:\/\d+)? [0-9a-f]+ (\d+)$/gm)) {
    perFunction.set(name, (perFunction.get(name) ?? 0) + Number(n));
  }
  const shown = new Map(rows);
  for (const [name, n] of perFunction) assert.equal(shown.get(name), n, name);
  assert.equal(rows[0][0], [...perFunction].sort((a, b) => b[1] - a[1])[0][0]);
  // A row is selected by a click, and by the arrows from the graph.
  await page.locator('.flat-row', { hasText: 'classify' }).click();
  await details(page).locator('.fd-name', { hasText: 'classify' }).waitFor();
  assert.deepEqual((await readDetails(page)).self, [String(perFunction.get('classify')), `${((perFunction.get('classify') * 100) / samples).toFixed(2)}%`]);
  await page.keyboard.press('ArrowUp');
  await details(page).locator('.fd-name', { hasText: rows[0][0] }).waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

test('a Functions row opens its function in the flame graph, the sandwich and the call tree', async () => {
  const { page, errors } = await openSynthetic();
  const functions = async (name) => {
    await page.getByRole('tab', { name: 'Functions' }).click();
    await page.locator('.fn-body [role=row]', { hasText: name }).first().click();
    await page.locator('.sf-open-name', { hasText: name }).waitFor();
  };
  await functions('work');
  await page.locator('.sf-open-flame').click();
  await page.getByRole('tab', { name: 'Flame graph', selected: true }).waitFor();
  await details(page).locator('.fd-name', { hasText: 'work' }).waitFor();
  assert.deepEqual((await readDetails(page)).total, ['80', '80.00%']);
  await details(page).locator('.fd-callees tr').first().waitFor();
  assert.deepEqual((await readDetails(page)).callees, [
    ['compute', '40', '50.00%'],
    ['memcpy', '30', '37.50%'],
  ]);
  assert.deepEqual((await readDetails(page)).callers, [['main', '80', '100.00%']]);
  // work's rectangle (20..100, row 2) is outlined in the selection's blue (#1f6feb).
  await page.waitForFunction(() => document.querySelector('.flame-main canvas')?.dataset.rects === '7');
  const edge = await canvas(page).evaluate((c, row) => {
    const h = c.clientHeight;
    const top = h - 3 * row;
    const px = c.getContext('2d').getImageData(Math.round(c.clientWidth * 0.6), Math.floor(top + 1), 1, 1).data;
    return Array.from(px.slice(0, 3));
  }, ROW);
  assert.deepEqual(edge, [0x1f, 0x6f, 0xeb]);
  await functions('compute');
  await page.locator('.sf-open-sandwich').click();
  await page.locator('.sandwich h3', { hasText: 'Callers and callees of compute' }).waitFor();
  await details(page).locator('.fd-name', { hasText: 'compute' }).waitFor();
  await functions('memcpy');
  await page.locator('.sf-open-call-tree').click();
  await page.getByRole('tab', { name: 'Call tree', selected: true }).waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});
