// Browser tests of the Call tree tab: a corpus perf.data whose bottom-up tree must
// give what `perf report --no-children` prints of it (its callee graph is the
// bottom-up tree), and the synthetic stack profile of flame.test.mjs, whose numbers
// are known exactly, for the keyboard, the shared selection, the transforms from
// the context menu and their link. Run `npm run build` first.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { corpus, dropFiles, useSite } from './lib/harness.mjs';

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
const STACKS = { name: 'synthetic.stacks', bytes: Buffer.from(PROFILE) };

const site = useSite();

async function newPage() {
  const { page, errors } = await site.open();
  return { page, errors };
}

async function openCallTree() {
  const { page, errors } = await newPage();
  await dropFiles(page, [STACKS]);
  await page.locator('[role=status]').filter({ hasText: 'pgolens-stacks' }).waitFor({ timeout: 15000 });
  await page.getByRole('tab', { name: 'Call tree' }).click();
  await page.locator('[role=treegrid] [role=row][data-node]').first().waitFor();
  return { page, errors };
}

const grid = (page) => page.locator('[role=treegrid]');

/** The drawn rows: [indent level, name, total, total %, self, self %]. */
function rows(page) {
  return grid(page)
    .locator('[role=row][data-node]')
    .evaluateAll((els) =>
      els.map((e) => [
        Number(e.getAttribute('aria-level')),
        e.querySelector('.ct-name').textContent,
        e.querySelector('.ct-total .ct-num').textContent,
        e.querySelector('.ct-total .ct-pct').textContent,
        e.querySelector('.ct-self .ct-num').textContent,
        e.querySelector('.ct-self .ct-pct').textContent,
      ]),
    );
}

/** Waits until the drawn rows' names (indented by level) are `names`. */
async function waitForNames(page, names) {
  await page
    .waitForFunction(
      (names) =>
        JSON.stringify(
          [...document.querySelectorAll('[role=treegrid] [role=row][data-node]')].map(
            (e) => '  '.repeat(Number(e.getAttribute('aria-level')) - 1) + e.querySelector('.ct-name').textContent,
          ),
        ) === JSON.stringify(names),
      names,
      { timeout: 10000 },
    )
    .catch(async (e) => {
      const shown = (await rows(page)).map(([level, name]) => '  '.repeat(level - 1) + name);
      assert.deepEqual(shown, names, e.message);
    });
}

async function selectedName(page) {
  return grid(page).locator('[role=row][aria-selected=true] .ct-name').innerText();
}

const hashParam = (page, key) => page.evaluate((key) => new URLSearchParams(location.hash.slice(1)).get(key), key);

test('the call tree shows totals and self weights with percentages, its heaviest chain open', async () => {
  const { page, errors } = await openCallTree();
  // The Call tree tab comes right after the Flame graph's.
  const tabs = await page.getByRole('tab').allInnerTexts();
  assert.equal(tabs.indexOf('Call tree'), tabs.indexOf('Flame graph') + 1, tabs.join());
  // main (100%) and work (80%) hold at least half of the weight: opened; compute not.
  await waitForNames(page, ['main', '  work', '    compute', '    memcpy', '  idle']);
  assert.deepEqual(await rows(page), [
    [1, 'main', '100', '100.00%', '0', '0.00%'],
    [2, 'work', '80', '80.00%', '10', '10.00%'],
    [3, 'compute', '40', '40.00%', '40', '40.00%'],
    [3, 'memcpy', '30', '30.00%', '30', '30.00%'],
    [2, 'idle', '20', '20.00%', '0', '0.00%'],
  ]);
  // The DSO is dimmed after the name; the tree grid's ARIA says where each row is.
  const work = grid(page).locator('[role=row][data-node]').nth(1);
  assert.equal(await work.locator('.ct-dso').innerText(), 'prog');
  assert.equal(await work.locator('.ct-fn').getAttribute('title'), 'work');
  assert.deepEqual(
    await work.evaluate((e) => ['aria-expanded', 'aria-setsize', 'aria-posinset'].map((a) => e.getAttribute(a))),
    ['true', '2', '1'],
  );
  assert.equal(await grid(page).getAttribute('aria-rowcount'), '6');
  // The other event (the flame graph's choice too): its one sample.
  await page.locator('.ct-event').selectOption('1');
  await waitForNames(page, ['main', '  other']);
  assert.deepEqual(await rows(page), [
    [1, 'main', '7', '100.00%', '0', '0.00%'],
    [2, 'other', '7', '100.00%', '7', '100.00%'],
  ]);
  await page.getByRole('tab', { name: 'Flame graph' }).click();
  await page.locator('.flame-total').filter({ hasText: /^7 samples$/ }).waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

test('the keyboard walks, expands and collapses the tree; * expands all below; bottom-up inverts it', async () => {
  const { page, errors } = await openCallTree();
  await waitForNames(page, ['main', '  work', '    compute', '    memcpy', '  idle']);
  await grid(page).focus();
  await page.keyboard.press('ArrowDown');
  assert.equal(await selectedName(page), 'main');
  await page.keyboard.press('ArrowDown');
  assert.equal(await selectedName(page), 'work');
  // The grid keeps the focus and points at the selected row.
  const active = await grid(page).getAttribute('aria-activedescendant');
  assert.equal(await page.locator(`#${active} .ct-name`).innerText(), 'work');
  await page.keyboard.press('ArrowLeft');
  await waitForNames(page, ['main', '  work', '  idle']);
  await page.keyboard.press('ArrowLeft');
  assert.equal(await selectedName(page), 'main');
  await page.keyboard.press('ArrowLeft');
  await waitForNames(page, ['main']);
  await page.keyboard.press('ArrowRight');
  await waitForNames(page, ['main', '  work', '  idle']);
  await page.keyboard.press('End');
  assert.equal(await selectedName(page), 'idle');
  await page.keyboard.press('ArrowRight');
  await waitForNames(page, ['main', '  work', '  idle', '    read']);
  await page.keyboard.press('ArrowRight');
  assert.equal(await selectedName(page), 'read');
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowLeft');
  await waitForNames(page, ['main']);
  await page.keyboard.press('*');
  await waitForNames(page, ['main', '  work', '    compute', '    memcpy', '  idle', '    read']);
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('role')), 'treegrid');

  // Bottom-up: each function that ran, heaviest first, above its callers; a
  // function's self weight is its top-level row's.
  await page.keyboard.press('Shift+Tab');
  assert.equal(await page.evaluate(() => document.activeElement.closest('.ct-invert') !== null), true);
  await page.keyboard.press('Space');
  // The function selected last (main, at Home) is revealed: its heaviest node.
  await waitForNames(page, ['compute', '  work', '    main', 'memcpy', 'read', 'work']);
  assert.equal(await selectedName(page), 'main');
  assert.equal(await hashParam(page, 'bottom-up'), '1');
  await grid(page).focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowLeft');
  await waitForNames(page, ['compute', 'memcpy', 'read', 'work']);
  assert.deepEqual(await rows(page), [
    [1, 'compute', '40', '40.00%', '40', '40.00%'],
    [1, 'memcpy', '30', '30.00%', '30', '30.00%'],
    [1, 'read', '20', '20.00%', '20', '20.00%'],
    [1, 'work', '10', '10.00%', '10', '10.00%'],
  ]);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('*');
  await waitForNames(page, ['compute', 'memcpy', '  work', '    main', 'read', 'work']);
  assert.deepEqual((await rows(page))[2], [2, 'work', '30', '30.00%', '0', '0.00%']);
  // `i` turns it top-down again, memcpy still selected.
  await page.keyboard.press('i');
  await waitForNames(page, ['main', '  work', '    compute', '    memcpy', '  idle']);
  assert.equal(await selectedName(page), 'memcpy');
  assert.equal(await hashParam(page, 'bottom-up'), null);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a node selected in the call tree is the function selected in the other stack views', async () => {
  const { page, errors } = await openCallTree();
  await waitForNames(page, ['main', '  work', '    compute', '    memcpy', '  idle']);
  await grid(page).focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  assert.equal(await selectedName(page), 'compute');
  // Bottom-up, the same function is selected in the new tree: its heaviest node.
  await page.locator('.ct-invert input').check();
  await waitForNames(page, ['compute', 'memcpy', 'read', 'work']);
  await grid(page).locator('[role=row][aria-selected=true]').filter({ hasText: 'compute' }).waitFor();
  // The flame graph shows the same function selected (its details).
  await page.getByRole('tab', { name: 'Flame graph' }).click();
  await page.locator('.flame-details').filter({ hasText: 'compute' }).waitFor({ timeout: 10000 });
  // A frame selected in the flame graph is revealed in the call tree: `read`, under a
  // collapsed node when top-down.
  await page.locator('.ct-invert input').waitFor({ state: 'detached' });
  await page.getByRole('tab', { name: 'Call tree' }).click();
  await page.locator('.ct-invert input').uncheck();
  await waitForNames(page, ['main', '  work', '    compute', '    memcpy', '  idle']);
  await grid(page).locator('[role=row][aria-selected=true]').filter({ hasText: 'compute' }).waitFor();
  await grid(page).focus();
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal(await selectedName(page), 'read');
  await page.locator('.ct-invert input').check();
  await grid(page).locator('[role=row][aria-selected=true]').filter({ hasText: 'read' }).waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

test('merging a function from the context menu moves its self weight to its caller; the breadcrumbs undo it; the link keeps it', async () => {
  const { page, errors } = await openCallTree();
  await waitForNames(page, ['main', '  work', '    compute', '    memcpy', '  idle']);
  const crumbs = () => page.locator('nav.transforms li').allInnerTexts();
  assert.deepEqual(await crumbs(), ['Complete profile']);
  // The context menu by keyboard (Shift+F10) on `work`.
  await grid(page).focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Shift+F10');
  const menu = page.getByRole('menu');
  await menu.waitFor();
  assert.deepEqual(await menu.getByRole('menuitem').allInnerTexts(), [
    'Merge function work',
    'Focus on function work',
    'Focus on subtree',
    'Collapse prog',
    'Collapse recursion',
    'Collapse direct recursion only',
    'Drop samples with work',
  ]);
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Merge function work');
  await page.keyboard.press('Escape');
  await menu.waitFor({ state: 'detached' });
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('role')), 'treegrid');
  // Right-click, then Merge: work's self (10) is main's, its callees main's children.
  await grid(page).locator('[role=row][data-node]', { hasText: 'work' }).click({ button: 'right' });
  await menu.getByRole('menuitem', { name: 'Merge function work' }).click();
  await page.locator('nav.transforms li', { hasText: 'Merge work' }).waitFor();
  assert.deepEqual(await crumbs(), ['Complete profile', 'Merge work']);
  await waitForNames(page, ['main', '  compute', '  memcpy', '  idle']);
  assert.deepEqual(await rows(page), [
    [1, 'main', '100', '100.00%', '10', '10.00%'],
    [2, 'compute', '40', '40.00%', '40', '40.00%'],
    [2, 'memcpy', '30', '30.00%', '30', '30.00%'],
    [2, 'idle', '20', '20.00%', '0', '0.00%'],
  ]);
  const transforms = await hashParam(page, 'transforms');
  assert.match(transforms, /^mf-\d+$/);

  // A reload brings the transform back.
  await page.reload();
  await page.locator('.link-waiting').waitFor({ timeout: 15000 });
  await dropFiles(page, [STACKS]);
  await page.locator('nav.transforms li', { hasText: 'Merge work' }).waitFor({ timeout: 15000 });
  await waitForNames(page, ['main', '  compute', '  memcpy', '  idle']);
  assert.equal(await hashParam(page, 'transforms'), transforms);

  // The breadcrumbs: the × undoes the last, the tree is whole again.
  await page.locator('.tf-undo').click();
  await waitForNames(page, ['main', '  work', '    compute', '    memcpy', '  idle']);
  assert.deepEqual(await crumbs(), ['Complete profile']);
  assert.equal(await hashParam(page, 'transforms'), null);
  // Two transforms, and a click on the first crumb goes back to it.
  await grid(page).locator('[role=row][data-node]', { hasText: 'idle' }).click({ button: 'right' });
  await menu.getByRole('menuitem', { name: 'Drop samples with idle' }).click();
  await waitForNames(page, ['main', '  work', '    compute', '    memcpy']);
  assert.equal((await rows(page))[0][2], '80');
  await grid(page).locator('[role=row][data-node]', { hasText: 'work' }).click({ button: 'right' });
  await menu.getByRole('menuitem', { name: 'Focus on function work' }).click();
  await waitForNames(page, ['work', '  compute', '  memcpy']);
  assert.deepEqual(await crumbs(), ['Complete profile', 'Drop idle', 'Focus work']);
  // The breadcrumbs are above the flame graph too.
  await page.getByRole('tab', { name: 'Flame graph' }).click();
  await page.locator('nav.transforms button', { hasText: 'Drop idle' }).click();
  await page.getByRole('tab', { name: 'Call tree' }).click();
  await waitForNames(page, ['main', '  work', '    compute', '    memcpy']);
  assert.deepEqual(await crumbs(), ['Complete profile', 'Drop idle']);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a tree of a million nodes draws only the rows in view, and End reaches the last', async () => {
  const { page, errors } = await newPage();
  // Every path of 6 frames through 10 functions per level: 1,111,110 nodes.
  await dropFiles(page, [{ name: 'big.stacks', bytes: Buffer.from('#pgolens-stacks\nevent cycles\ng 0 6 10\n') }]);
  await page.locator('[role=status]').filter({ hasText: 'pgolens-stacks' }).waitFor({ timeout: 60000 });
  await page.getByRole('tab', { name: 'Call tree' }).click();
  await page.locator('.ct-count', { hasText: '1111110 nodes' }).waitFor({ timeout: 60000 });
  await grid(page).focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => document.querySelector('[role=treegrid]').dataset.rows === '10');
  await page.keyboard.press('*');
  await page.waitForFunction(() => document.querySelector('[role=treegrid]').dataset.rows === String(111111 + 9));
  const drawn = await grid(page).locator('[role=row][data-node]').count();
  assert.ok(drawn > 10 && drawn < 80, `${drawn} rows drawn`);
  // End: the last top-level row, scrolled into view.
  await page.keyboard.press('End');
  const last = grid(page).locator('[role=row][aria-selected=true]');
  assert.equal(await last.getAttribute('aria-rowindex'), String(111111 + 9 + 1));
  assert.equal(await last.getAttribute('aria-posinset'), '10');
  await page.keyboard.press('*');
  await page.waitForFunction(() => document.querySelector('[role=treegrid]').dataset.rows === String(2 * 111111 + 8));
  await page.keyboard.press('End');
  assert.equal(await last.getAttribute('aria-level'), '6');
  assert.equal(await last.getAttribute('aria-rowindex'), String(2 * 111111 + 8 + 1));
  // Scrolled to: the row is inside the scrolled body.
  const [row, body] = [await last.boundingBox(), await page.locator('.ct-body').boundingBox()];
  assert.ok(row.y >= body.y && row.y + row.height <= body.y + body.height + 1, JSON.stringify({ row, body }));
  assert.deepEqual(errors, []);
  await page.close();
});

const PERF = 'bolt-perf/cprog/cprog.fp.perf.data';

test('bottom-up, a perf.data’s call tree is perf report’s callee graph', async () => {
  const { page, errors } = await newPage();
  const file = async (rel) => ({ name: path.basename(rel), bytes: await readFile(path.join(corpus, rel)) });
  await dropFiles(page, [await file(PERF), await file('bolt-perf/cprog/cprog')]);
  await page.locator('[role=status]').filter({ hasText: 'perf.data' }).waitFor({ timeout: 30000 });
  await page.getByRole('tab', { name: 'Call tree' }).click();
  await page.locator('.ct-invert input').check();
  // Frames are named from the binary once the worker has it.
  await grid(page).locator('[role=row][data-node] .ct-name', { hasText: 'hot_loop' }).first().waitFor({ timeout: 30000 });
  const report = await readFile(path.join(corpus, `${PERF}.report.txt`), 'utf8');
  // "    39.66%  cprog                 [.] hot_loop": each cprog function's self share.
  const overheads = [...report.matchAll(/^\s+(\d+\.\d+)%\s+cprog\s+\[\.\] (\S+)\s*$/gm)].map((m) => [m[2], `${m[1]}%`]);
  assert.ok(overheads.length >= 4, JSON.stringify(overheads));
  const shown = await rows(page);
  const top = new Map(shown.filter(([level]) => level === 1).map(([, name, , total, , self]) => [name, [total, self]]));
  for (const [name, percent] of overheads) assert.deepEqual(top.get(name), [percent, percent], name);
  // The heaviest function comes first.
  assert.equal(shown[0][1], overheads[0][0]);
  // classify's callers: "--16.20%--hot_loop" and "--4.26%--main".
  const classify = report.slice(report.indexOf('[.] classify'));
  const callers = [...classify.slice(0, classify.indexOf('\n\n')).matchAll(/--(\d+\.\d+)%--(\S+)/g)].map((m) => [m[2], `${m[1]}%`]);
  assert.deepEqual(callers, [['hot_loop', '16.20%'], ['main', '4.26%']]);
  await grid(page).locator('[role=row][data-node]', { hasText: 'classify' }).click();
  await page.keyboard.press('ArrowRight');
  const below = await page.waitForFunction(() => {
    const all = [...document.querySelectorAll('[role=treegrid] [role=row][data-node]')];
    const at = all.findIndex((e) => e.querySelector('.ct-name').textContent === 'classify' && e.getAttribute('aria-level') === '1');
    const kids = [];
    for (const e of all.slice(at + 1)) {
      if (e.getAttribute('aria-level') !== '2') break;
      kids.push([e.querySelector('.ct-name').textContent, e.querySelector('.ct-total .ct-pct').textContent]);
    }
    return kids.length ? kids : null;
  });
  assert.deepEqual(await below.jsonValue(), callers);
  assert.deepEqual(errors, []);
  await page.close();
});
