// Browser tests of the stack transforms (as the Firefox Profiler offers them),
// pushed from the call tree's context menu on a synthetic stack profile whose trees
// are known exactly: each transform's tree, its breadcrumb, its effect on the
// flame graph and the Functions table, and the whole list in the link. Merging is
// in call-tree.test.mjs. Run `npm run build` first.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { dropFiles, useSite } from './lib/harness.mjs';

// 100 samples' weight. Top-down:
//   main 100 ─┬─ c 70 (self 40) ── memcpy 30
//             └─ a 30 ─┬─ a 20 ── a 20 ── memcpy 20 ── memmove 20
//                      └─ b 10 ── a 10 ── b 10 ── leaf 10
// memcpy, memmove and leaf are libc.so.6's, a, b and c prog's.
const PROFILE = `#pgolens-stacks
event cycles
s 0 0 10 main;a@prog;b@prog;a@prog;b@prog;leaf@libc.so.6
s 0 1 20 main;a@prog;a@prog;a@prog;memcpy@libc.so.6;memmove@libc.so.6
s 0 2 30 main;c@prog;memcpy@libc.so.6
s 0 3 40 main;c@prog
`;
const STACKS = { name: 'transforms.stacks', bytes: Buffer.from(PROFILE) };

const site = useSite();

async function openCallTree() {
  const { page, errors } = await site.open();
  await dropFiles(page, [STACKS]);
  await page.locator('[role=status]').filter({ hasText: 'pgolens-stacks' }).waitFor({ timeout: 15000 });
  await page.getByRole('tab', { name: 'Call tree' }).click();
  // main and c hold at least half of the weight: opened.
  await shows(page, ['main 100 0', '  c 70 40', '    memcpy 30 30', '  a 30 0']);
  return { page, errors };
}

const grid = (page) => page.locator('[role=treegrid]');

/** The drawn rows as "name total self", indented by level; `null` while they are not `expected`. */
function drawnRows(expected) {
  const rows = [...document.querySelectorAll('[role=treegrid] [role=row][data-node]')].map((e) => {
    const num = (cell) => e.querySelector(`${cell} .ct-num`).textContent;
    const name = e.querySelector('.ct-name').textContent;
    return `${'  '.repeat(Number(e.getAttribute('aria-level')) - 1)}${name} ${num('.ct-total')} ${num('.ct-self')}`;
  });
  return expected === undefined || JSON.stringify(rows) === JSON.stringify(expected) ? rows : null;
}

/** Waits until the drawn rows are `expected` (see drawnRows). */
async function shows(page, expected) {
  try {
    await page.waitForFunction(drawnRows, expected, { timeout: 10000 });
  } catch (e) {
    assert.deepEqual(await page.evaluate(drawnRows), expected, e.message);
  }
}

/** Expands everything: `*` on each top-level row, from the last up. */
async function expandAll(page) {
  const top = grid(page).locator('[role=row][aria-level="1"]');
  for (let k = (await top.count()) - 1; k >= 0; k--) {
    await top.nth(k).click();
    await page.keyboard.press('*');
  }
}

/** Opens the context menu on the first row named `name` (at `level`, or any) and picks `item`. */
async function transform(page, name, item, level) {
  const rows = grid(page).locator(level ? `[role=row][aria-level="${level}"]` : '[role=row][data-node]');
  const row = rows.filter({ has: page.locator('.ct-name', { hasText: new RegExp(`^${name}$`) }) });
  await row.first().click({ button: 'right' });
  await page.getByRole('menu').getByRole('menuitem', { name: item }).click();
}

const crumbs = (page) => page.locator('nav.transforms li').allInnerTexts();
const undoAll = (page) => page.locator('nav.transforms button', { hasText: 'Complete profile' }).click();

test('collapsing recursion removes the calls between the outermost and inner calls', async () => {
  const { page, errors } = await openCallTree();
  await transform(page, 'a', 'Collapse recursion');
  await page.locator('nav.transforms li', { hasText: 'Collapse recursion a' }).waitFor();
  await expandAll(page);
  await shows(page, ['main 100 0', '  c 70 40', '    memcpy 30 30', '  a 30 0', '    memcpy 20 0', '      memmove 20 20', '    b 10 0', '      leaf 10 10']);
  await undoAll(page);
  await transform(page, 'a', 'Collapse direct recursion only');
  await page.locator('nav.transforms li', { hasText: 'Collapse direct recursion a' }).waitFor();
  await expandAll(page);
  await shows(page, [
    'main 100 0',
    '  c 70 40',
    '    memcpy 30 30',
    '  a 30 0',
    '    memcpy 20 0',
    '      memmove 20 20',
    '    b 10 0',
    '      a 10 0',
    '        b 10 0',
    '          leaf 10 10',
  ]);
  assert.deepEqual(await crumbs(page), ['Complete profile', 'Collapse direct recursion a']);
  assert.deepEqual(errors, []);
  await page.close();
});

test('collapsing a DSO makes each run of its frames one frame named after it', async () => {
  const { page, errors } = await openCallTree();
  await transform(page, 'memcpy', 'Collapse libc.so.6');
  await page.locator('nav.transforms li', { hasText: 'Collapse libc.so.6' }).waitFor();
  await expandAll(page);
  await shows(page, [
    'main 100 0',
    '  c 70 40',
    '    libc.so.6 30 30',
    '  a 30 0',
    '    a 20 0',
    '      a 20 0',
    '        libc.so.6 20 20',
    '    b 10 0',
    '      a 10 0',
    '        b 10 0',
    '          libc.so.6 10 10',
  ]);
  assert.deepEqual(errors, []);
  await page.close();
});

test('focusing on a function or a subtree keeps only its samples, and percentages are of them', async () => {
  const { page, errors } = await openCallTree();
  await transform(page, 'a', 'Focus on function a');
  await expandAll(page);
  await shows(page, ['a 30 0', '  a 20 0', '    a 20 0', '      memcpy 20 0', '        memmove 20 20', '  b 10 0', '    a 10 0', '      b 10 0', '        leaf 10 10']);
  assert.equal(await grid(page).locator('[role=row][data-node] .ct-total .ct-pct').first().innerText(), '100.00%');
  await undoAll(page);
  await shows(page, ['main 100 0', '  c 70 40', '    memcpy 30 30', '  a 30 0']);
  // The subtree of main › c: rooted at c.
  await transform(page, 'c', 'Focus on subtree');
  await shows(page, ['c 70 40', '  memcpy 30 30']);
  assert.deepEqual(await crumbs(page), ['Complete profile', 'Focus subtree c']);
  assert.equal(
    await grid(page).locator('[role=row][data-node]').nth(1).locator('.ct-total .ct-pct').innerText(),
    `${((30 * 100) / 70).toFixed(2)}%`,
  );
  // Bottom-up, the subtree memcpy ‹ c: the stacks ending with c › memcpy, c their leaf.
  await undoAll(page);
  await page.locator('.ct-invert input').check();
  // Each function that ran, heaviest first (c, right-clicked last, is selected).
  await shows(page, ['c 40 40', 'memcpy 30 30', 'memmove 20 20', 'leaf 10 10']);
  await grid(page).focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  await shows(page, ['c 40 40', 'memcpy 30 30', '  c 30 0', 'memmove 20 20', 'leaf 10 10']);
  await transform(page, 'c', 'Focus on subtree', 2);
  await page.locator('nav.transforms li', { hasText: 'Focus callers of c' }).waitFor();
  await expandAll(page);
  await shows(page, ['c 30 30', '  main 30 0']);
  assert.match(await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('transforms')), /^fsi-\d+\.\d+$/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('dropping a function’s samples applies to every stack view; the link keeps every transform', async () => {
  const { page, errors } = await openCallTree();
  await transform(page, 'memcpy', 'Drop samples with memcpy');
  await expandAll(page);
  await shows(page, ['main 50 0', '  c 40 40', '  a 10 0', '    b 10 0', '      a 10 0', '        b 10 0', '          leaf 10 10']);
  await transform(page, 'a', 'Collapse recursion');
  await expandAll(page);
  await shows(page, ['main 50 0', '  c 40 40', '  a 10 0', '    b 10 0', '      leaf 10 10']);
  assert.deepEqual(await crumbs(page), ['Complete profile', 'Drop memcpy', 'Collapse recursion a']);
  const link = await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('transforms'));
  assert.match(link, /^df-\d+,rec-\d+$/);
  // The flame graph and the Functions table aggregate the same samples.
  await page.getByRole('tab', { name: 'Flame graph' }).click();
  await page.locator('.flame-total').filter({ hasText: /^50 samples$/ }).waitFor();
  assert.deepEqual(await crumbs(page), ['Complete profile', 'Drop memcpy', 'Collapse recursion a']);
  assert.equal(await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('transforms')), link);
  await page.getByRole('tab', { name: 'Functions' }).click();
  await page.locator('.fn-body [role=row][data-id]').first().waitFor();
  const names = await page.locator('.fn-body [role=row][data-id] .fn-name').allInnerTexts();
  assert.deepEqual([...names].sort(), ['a', 'b', 'c', 'leaf', 'main']);

  // A reload (the file dropped again) restores them, on the flame graph too.
  await page.getByRole('tab', { name: 'Flame graph' }).click();
  await page.reload();
  await page.locator('.link-waiting').waitFor({ timeout: 15000 });
  await dropFiles(page, [STACKS]);
  await page.locator('.flame-total').filter({ hasText: /^50 samples$/ }).waitFor({ timeout: 15000 });
  assert.deepEqual(await crumbs(page), ['Complete profile', 'Drop memcpy', 'Collapse recursion a']);
  // Back to the first crumb: the whole profile.
  await page.locator('nav.transforms button', { hasText: 'Drop memcpy' }).click();
  await page.getByRole('tab', { name: 'Call tree' }).click();
  await expandAll(page);
  await shows(page, ['main 50 0', '  c 40 40', '  a 10 0', '    b 10 0', '      a 10 0', '        b 10 0', '          leaf 10 10']);
  await page.locator('.tf-undo').click();
  await page.getByRole('tab', { name: 'Flame graph' }).click();
  await page.locator('.flame-total').filter({ hasText: /^100 samples$/ }).waitFor();
  assert.equal(await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('transforms')), null);
  assert.deepEqual(errors, []);
  await page.close();
});
