// Browser tests of the keyboard model outside the flame graph: a keyboard-only walk
// through every tab of a corpus perf.data (with its binary) and of an instrprof
// profile — Tab into the tab list, the arrows, Home and End along it (the WAI-ARIA
// tabs pattern, automatic activation), the keys 1…n, the `?` list of keys (a modal
// dialog that gives the focus back) — checking after every step that the focus is
// not on <body>; and the rows of a table by keys. Run `npm run build` first.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { corpusFiles, dropFiles, useSite } from './lib/harness.mjs';

const PERF = ['bolt-perf/cprog/cprog.fp.perf.data', 'bolt-perf/cprog/cprog'];
const INSTRPROF = 'llvm/irpgo-progA/irpgo-progA.profdata';

// What each view's panel holds (the element its component draws first).
const VIEW = {
  dump: '.dump',
  flame: '.flame-tab',
  functions: '.functions',
  summary: '.summary-view',
};

const site = useSite();

async function open(files, format) {
  const { page, errors } = await site.open();
  await dropFiles(page, await corpusFiles(files));
  await page.locator('[role=status]').filter({ hasText: format }).waitFor({ timeout: 30000 });
  await page.locator('[role=tablist] [role=tab][aria-selected=true]').waitFor();
  return { page, errors };
}

/** What has the focus: its role, id, classes, and whether it is <body>. */
function focused(page) {
  return page.evaluate(() => {
    const a = document.activeElement;
    return {
      body: !a || a === document.body,
      role: a?.getAttribute('role') ?? null,
      id: a?.id ?? '',
      className: typeof a?.className === 'string' ? a.className : '',
      inDialog: !!a?.closest('dialog[open]'),
    };
  });
}

async function press(page, key, step) {
  await page.keyboard.press(key);
  // One frame for the re-render and the effects after it.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  const f = await focused(page);
  assert.ok(!f.body, `focus lost to <body> after ${step}`);
  return f;
}

/** The tabs as [{ id, name }] in order. */
function tabsOf(page) {
  return page
    .locator('[role=tablist] [role=tab]')
    .evaluateAll((els) => els.map((e) => ({ id: e.id.replace(/^tab-/, ''), name: e.textContent.trim() })));
}

/** The selected tab's id, the tab stops of the list, and whether its panel shows its view. */
async function shown(page, id) {
  const selector = VIEW[id];
  await page.waitForFunction(
    ([id, selector]) => {
      const panel = document.getElementById(`panel-${id}`);
      return panel && panel.getAttribute('aria-labelledby') === `tab-${id}` && panel.childElementCount > 0 && (!selector || panel.querySelector(selector));
    },
    [id, selector],
  );
  return page.evaluate(() => ({
    selected: [...document.querySelectorAll('[role=tab][aria-selected=true]')].map((t) => t.id),
    stops: [...document.querySelectorAll('[role=tab]')].filter((t) => t.tabIndex === 0).map((t) => t.id),
  }));
}

/** Walks every tab; `expected`: tab names that come first, in order, then `also` anywhere. */
async function walk(page, expected, also = []) {
  const tabs = await tabsOf(page);
  const names = tabs.map((t) => t.name);
  assert.deepEqual(names.slice(0, expected.length), expected);
  for (const name of also) assert.ok(names.includes(name), `${name} in ${names}`);
  // From nowhere, Tab reaches the tab list: its selected tab is its one tab stop.
  await page.evaluate(() => document.activeElement?.blur());
  let f;
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    f = await focused(page);
    if (f.role === 'tab') break;
  }
  assert.equal(f.role, 'tab', 'Tab reaches the tab list');
  let at = tabs.findIndex((t) => `tab-${t.id}` === f.id);
  assert.ok(at >= 0);
  assert.deepEqual((await shown(page, tabs[at].id)).selected, [`tab-${tabs[at].id}`]);

  // Right along every tab (wrapping back to where it started): each is selected,
  // focused, the only tab stop, and its panel shows its view.
  for (let n = 0; n < tabs.length; n++) {
    at = (at + 1) % tabs.length;
    f = await press(page, 'ArrowRight', `ArrowRight to ${tabs[at].name}`);
    assert.equal(f.id, `tab-${tabs[at].id}`);
    assert.deepEqual(await shown(page, tabs[at].id), { selected: [`tab-${tabs[at].id}`], stops: [`tab-${tabs[at].id}`] });
  }
  // Left wraps from the first to the last; Home and End go to the ends.
  f = await press(page, 'Home', 'Home');
  assert.equal(f.id, `tab-${tabs[0].id}`);
  await shown(page, tabs[0].id);
  f = await press(page, 'ArrowLeft', 'ArrowLeft from the first tab');
  assert.equal(f.id, `tab-${tabs.at(-1).id}`);
  await shown(page, tabs.at(-1).id);
  f = await press(page, 'Home', 'Home');
  f = await press(page, 'End', 'End');
  assert.equal(f.id, `tab-${tabs.at(-1).id}`);

  // The keys 1…n select the n-th tab; the focus stays on the page.
  for (let n = tabs.length; n >= 1; n--) {
    await press(page, String(n), `key ${n}`);
    assert.deepEqual((await shown(page, tabs[n - 1].id)).selected, [`tab-${tabs[n - 1].id}`]);
  }

  // Into the panel and back: Tab from the tab list leaves it (one stop).
  await page.locator('[role=tab][aria-selected=true]').focus();
  f = await press(page, 'Tab', 'Tab out of the tab list');
  assert.notEqual(f.role, 'tab');
  // A key from inside a view changes the tab; the focus is handed on, not dropped.
  f = await press(page, String(tabs.length), `key ${tabs.length} from inside the view`);
  await shown(page, tabs.at(-1).id);
}

async function shortcuts(page) {
  const before = await focused(page);
  let f = await press(page, '?', '?');
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await dialog.waitFor();
  assert.equal(await dialog.getAttribute('aria-modal'), 'true');
  assert.ok(f.inDialog, 'the dialog takes the focus');
  // It lists the keys of every part of the page.
  const text = await dialog.innerText();
  for (const key of ['1 … 9', 'Ctrl+F', 'Shift+Enter', 'W A S D', '*', 'PageUp']) assert.ok(text.includes(key), key);
  for (const group of ['Everywhere', 'Flame graph', 'Call tree', 'CFG', 'Tables']) assert.ok(text.includes(group), group);
  for (const key of ['j k', 'h l', 'Backspace']) assert.ok(text.includes(key), key);
  // Tab and Shift+Tab stay inside.
  for (const key of ['Tab', 'Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
    f = await press(page, key, `${key} in the dialog`);
    assert.ok(f.inDialog, `${key} leaves the dialog`);
  }
  // Digits do not change the tab behind it.
  const selected = await page.locator('[role=tab][aria-selected=true]').getAttribute('id');
  await press(page, '1', '1 in the dialog');
  assert.equal(await page.locator('[role=tab][aria-selected=true]').getAttribute('id'), selected);
  // Esc closes it and gives the focus back.
  f = await press(page, 'Escape', 'Escape in the dialog');
  await dialog.waitFor({ state: 'detached' });
  assert.deepEqual(f, before);
  // The button opens it too; the focus comes back to the button.
  await page.getByRole('button', { name: /^Keys/ }).click();
  await dialog.waitFor();
  await press(page, '?', '? in the dialog');
  await dialog.waitFor({ state: 'detached' });
  assert.match((await focused(page)).className, /keys-button/);
}

test('a perf.data: every tab by the keyboard alone, and the list of keys', async () => {
  const { page, errors } = await open(PERF, 'perf.data');
  await walk(page, ['Dump', 'Flame graph', 'Call tree'], ['Functions']);
  await page.locator('[role=tab][aria-selected=true]').focus();
  await shortcuts(page);
  assert.deepEqual(errors, []);
  await page.close();
});

test('an instrprof profile: every tab by the keyboard alone, and the list of keys', async () => {
  const { page, errors } = await open([INSTRPROF], 'instrprof-indexed');
  await walk(page, ['Dump', 'Functions', 'Summary']);
  assert.equal((await tabsOf(page)).length, 3);
  await page.locator('[role=tab][aria-selected=true]').focus();
  await shortcuts(page);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a table by keys: Down, End, Home and PageDown move the active row, Enter opens it; the filter keeps the focus', async () => {
  const { page, errors } = await open([INSTRPROF], 'instrprof-indexed');
  await page.keyboard.press('2');
  await page.locator('.fn-body [role=row][data-id]').first().waitFor();
  const count = Number(await page.getByRole('grid', { name: 'Functions' }).getAttribute('aria-rowcount'));
  assert.ok(count > 30, `${count} functions`);
  // After the filter, the headers (sort buttons, resize handles), then the first
  // row: the rows' one tab stop.
  await page.getByRole('searchbox', { name: 'Filter functions' }).focus();
  let f;
  const stops = [];
  for (let i = 0; i < 30; i++) {
    f = await press(page, 'Tab', 'Tab to the rows');
    if (f.role === 'row') break;
    stops.push(f.role ?? f.className);
  }
  assert.equal(f.role, 'row');
  // Each column's sort button and resize handle.
  assert.equal(stops.filter((s) => s === 'separator').length, 7);
  const active = () => page.evaluate(() => Number(document.activeElement.dataset.index));
  assert.equal(await active(), 0);
  f = await press(page, 'ArrowDown', 'ArrowDown');
  assert.equal(await active(), 1);
  f = await press(page, 'End', 'End');
  // The last row is drawn once scrolled to, and takes the focus.
  await page.waitForFunction((n) => Number(document.activeElement?.dataset.index) === n, count - 1);
  // Scrolled away (a wheel), the focused row leaves the page: the rows' new tab stop takes the focus.
  await page.locator('.fn-body').evaluate((b) => {
    b.scrollTop = 0;
  });
  await page.waitForFunction(() => Number(document.activeElement?.dataset.index) === 0);
  f = await focused(page);
  assert.equal(f.role, 'row');
  f = await press(page, 'End', 'End');
  await page.waitForFunction((n) => Number(document.activeElement?.dataset.index) === n, count - 1);
  f = await press(page, 'Home', 'Home');
  await page.waitForFunction(() => Number(document.activeElement?.dataset.index) === 0);
  f = await press(page, 'PageDown', 'PageDown');
  const paged = await active();
  assert.ok(paged > 5, `PageDown moved to ${paged}`);
  // Enter opens the row: selected, its detail shown.
  const id = await page.evaluate(() => document.activeElement.dataset.id);
  f = await press(page, 'Enter', 'Enter');
  await page.locator(`.fn-body [role=row][aria-selected=true][data-id="${id}"]`).waitFor();
  await page.getByRole('complementary', { name: 'Function detail' }).locator('.counter-values li').first().waitFor();
  assert.equal(f.role, 'row');
  // Typing a filter re-draws the table under the box, which keeps the focus.
  const filter = page.getByRole('searchbox', { name: 'Filter functions' });
  await filter.focus();
  await page.keyboard.type('main');
  await page.waitForFunction(() => document.querySelectorAll('.fn-body [role=row][data-id]').length >= 1);
  f = await focused(page);
  assert.match(f.className, /fn-filter/);
  assert.deepEqual(errors, []);
  await page.close();
});
