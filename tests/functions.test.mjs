// Browser tests of the Functions and Summary tabs, against llvm-profdata's own dumps
// of the same file (`.show.txt`, `.summary.txt`). Run `npm run build` first.

import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { corpus, corpusFiles, dropFiles, useSite } from './lib/harness.mjs';

const FILE = 'llvm/irpgo-progA/irpgo-progA.profdata';

const site = useSite();
let show;
let summaryText;

before(async () => {
  show = parseShow(await readFile(path.join(corpus, `${FILE}.show.txt`), 'utf8'));
  summaryText = await readFile(path.join(corpus, `${FILE}.summary.txt`), 'utf8');
});

/** The functions of `llvm-profdata show --all-functions --counts --ic-targets`:
 *  [{ name, counts, targets: [{ site, name, count, share }] }] (share as printed, "38.00"). */
function parseShow(text) {
  const functions = [];
  let current = null;
  for (const line of text.split('\n')) {
    const header = /^  (\S.*):$/.exec(line);
    if (header) {
      current = { name: header[1], counts: [], targets: [] };
      continue;
    }
    // A function's header is followed by its hash (unlike "  Instrumentation level: ...").
    if (/^    Hash: /.test(line) && current) functions.push(current);
    const counts = /^\s+Block counts: \[(.*)\]$/.exec(line);
    if (counts && current) current.counts = counts[1] ? counts[1].split(', ').map(Number) : [];
    const target = /^\t\[\s*(\d+), (.+?),\s+(\d+) \] \((\d+\.\d\d)%\)/.exec(line);
    if (target && current) {
      current.targets.push({ site: Number(target[1]), name: target[2], count: Number(target[3]), share: target[4] });
    }
  }
  return functions;
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0);

/** A tick label back to its number: `45k` → 45000. */
const unshort = (t) => Number(t.replace(/[kMG]$/, '')) * ({ k: 1e3, M: 1e6, G: 1e9 }[t.at(-1)] ?? 1);

function summaryNumber(key) {
  return Number(new RegExp(`^${key}: (\\d+)$`, 'm').exec(summaryText)[1]);
}

async function openFunctions() {
  const { page, errors } = await site.open();
  await dropFiles(page, await corpusFiles([FILE]));
  await page.locator('[role=status]').filter({ hasText: 'instrprof-indexed' }).waitFor({ timeout: 15000 });
  await page.getByRole('tab', { name: 'Functions' }).click();
  await rows(page).first().waitFor();
  return { page, errors };
}

function rows(page) {
  return page.locator('.fn-body [role=row][data-id]');
}

/** The raw names (title) of the rows shown, in order. */
function names(page) {
  return rows(page).evaluateAll((els) => els.map((e) => e.querySelector('.fn-name').title));
}

function header(page, title) {
  return page.locator('[role=columnheader]', { hasText: title });
}

test('an indexed profile shows a Functions tab listing every function of llvm-profdata show', async () => {
  const { page, errors } = await openFunctions();
  const table = page.getByRole('grid', { name: 'Functions' });
  assert.equal(Number(await table.getAttribute('aria-rowcount')), show.length);
  assert.match(await page.locator('.fn-count').innerText(), new RegExp(`^${show.length} functions`));
  // Every row shown is one of show's functions, with its counter count and total.
  const shown = await rows(page).evaluateAll((els) =>
    els.map((e) => ({
      name: e.querySelector('.fn-name').title,
      counters: Number(e.querySelector('.fn-counters').textContent),
      total: Number(e.querySelector('.fn-total').textContent),
      max: Number(e.querySelector('.fn-max').textContent),
    })),
  );
  assert.ok(shown.length >= 10, `${shown.length} rows drawn`);
  assert.ok(shown.length < show.length || show.length < 30, 'only the visible rows are drawn');
  for (const row of shown) {
    const f = show.find((s) => s.name === row.name);
    assert.ok(f, `${row.name} is in the .show.txt`);
    assert.deepEqual([row.counters, row.total, row.max], [f.counts.length, sum(f.counts), Math.max(...f.counts)], row.name);
  }
  // Demangled names are shown, the raw name is the title.
  const fib = page.locator('.fn-name[title="_Z3fibi"]');
  assert.match(await fib.innerText(), /^fib\(int\)/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('sorting by total puts the largest total first; headers say how they sort', async () => {
  const { page } = await openFunctions();
  const largest = show.reduce((a, b) => (sum(b.counts) > sum(a.counts) ? b : a));
  await header(page, 'Function').locator('button').click();
  assert.equal(await header(page, 'Function').getAttribute('aria-sort'), 'ascending');
  assert.equal(await header(page, 'Total').getAttribute('aria-sort'), 'none');
  await page.waitForFunction(() => {
    const t = [...document.querySelectorAll('.fn-body [role=row][data-id] .fn-name')].map((e) => e.textContent);
    return t.length > 1 && t.every((x, i) => i === 0 || t[i - 1] <= x);
  });
  await header(page, 'Total').locator('button').click();
  assert.equal(await header(page, 'Total').getAttribute('aria-sort'), 'descending');
  await page.waitForFunction((n) => document.querySelector('.fn-body [role=row][data-id] .fn-name')?.title === n, largest.name);
  assert.equal(Number(await rows(page).first().locator('.fn-total').innerText()), sum(largest.counts));
  // Again: ascending, the largest last.
  await header(page, 'Total').locator('button').click();
  assert.equal(await header(page, 'Total').getAttribute('aria-sort'), 'ascending');
  await page.waitForFunction((n) => document.querySelector('.fn-body [role=row][data-id] .fn-name')?.title !== n, largest.name);
  await page.close();
});

test('filtering narrows the rows; selecting one shows its counters and indirect-call targets', async () => {
  const { page, errors } = await openFunctions();
  const filter = page.getByRole('searchbox', { name: 'Filter functions' });
  const qsort = show.find((f) => f.name.includes('qsort_rec'));
  await filter.fill('qsort_rec');
  await page.waitForFunction(() => document.querySelectorAll('.fn-body [role=row][data-id]').length === 1);
  assert.deepEqual(await names(page), [qsort.name]);
  assert.match(await page.locator('.fn-count').innerText(), new RegExp(`^1 of ${show.length} functions`));
  await rows(page).first().click();
  assert.equal(await rows(page).first().getAttribute('aria-selected'), 'true');
  const detail = page.getByRole('complementary', { name: 'Function detail' });
  await detail.locator('.counter-values li').first().waitFor();
  assert.deepEqual((await detail.locator('.counter-values .counter-value').allInnerTexts()).map(Number), qsort.counts);
  // Each counter says its index, as llvm-profdata's Block counts list them in order.
  const indices = (await detail.locator('.counter-values .counter-index').allInnerTexts()).map(Number);
  assert.deepEqual(indices, qsort.counts.map((_, i) => i));
  assert.equal(await detail.locator('.fn-chart rect').count(), qsort.counts.length);
  await detail.getByLabel('log scale').check();
  await page.locator('.fn-chart[aria-label$="log scale"]').waitFor();

  // A function with indirect-call sites: its targets, named, with their counts and
  // their shares of the site, as llvm-profdata prints them.
  const caller = show.find((f) => f.targets.length > 0);
  await filter.fill(caller.name);
  await page.waitForFunction((n) => {
    const r = document.querySelectorAll('.fn-body [role=row][data-id] .fn-name');
    return r.length === 1 && r[0].title === n;
  }, caller.name);
  await rows(page).first().click();
  await detail.locator('.fn-title', { hasText: 'checksum_shapes' }).waitFor();
  for (const t of caller.targets) {
    const row = detail.locator('.fn-site').nth(t.site).locator('tr', { has: page.locator(`td.target[title="${t.name}"]`) });
    assert.equal(Number(await row.locator('td.count').innerText()), t.count, `${t.name} at site ${t.site}`);
    assert.equal(await row.locator('td.share').innerText(), `${t.share}%`, `${t.name}'s share at site ${t.site}`);
  }
  await filter.fill('no-such-function-anywhere');
  await page.waitForFunction(() => document.querySelectorAll('.fn-body [role=row][data-id]').length === 0);
  assert.match(await page.locator('.fn-count').innerText(), new RegExp(`^0 of ${show.length}`));
  assert.deepEqual(errors, []);
  await page.close();
});

test('the Summary tab shows the totals and the detailed summary of llvm-profdata', async () => {
  const { page, errors } = await openFunctions();
  await page.getByRole('tab', { name: 'Summary' }).click();
  const totals = page.getByRole('region', { name: 'Profile summary' });
  await totals.locator('dd[data-key=functions]').waitFor();
  assert.equal(Number(await totals.locator('dd[data-key=functions]').innerText()), summaryNumber('Total functions'));
  assert.equal(Number(await totals.locator('dd[data-key=max-function]').innerText()), summaryNumber('Maximum function count'));
  assert.equal(Number(await totals.locator('dd[data-key=max-internal]').innerText()), summaryNumber('Maximum internal block count'));
  assert.equal(Number(await totals.locator('dd[data-key=total]').innerText()), summaryNumber('Total count'));
  const lines = [...summaryText.matchAll(/^(\d+) blocks .* with count >= (\d+) account for/gm)].map((m) => [Number(m[2]), Number(m[1])]);
  const table = await totals.locator('.cutoffs tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => Number(td.textContent))),
  );
  assert.deepEqual(table, lines);
  assert.equal(await totals.locator('.summary-plot circle').count(), lines.length);
  // The axes say their values: round counts taken up to the most (x), and the powers
  // of ten up to the largest minimum count (y, log scale).
  const xTicks = (await totals.locator('.summary-plot .x-tick').allTextContents()).map(unshort);
  const mostTaken = Math.max(...lines.map(([, n]) => n));
  assert.ok(xTicks.length >= 3 && xTicks[0] === 0 && xTicks.at(-1) <= mostTaken && xTicks.at(-1) * 2 >= mostTaken, `${xTicks}`);
  const yTicks = (await totals.locator('.summary-plot .y-tick').allTextContents()).map(unshort);
  const largest = Math.max(...lines.map(([c]) => c));
  assert.deepEqual(yTicks, Array.from({ length: Math.floor(Math.log10(largest)) + 1 }, (_, k) => 10 ** k));
  // The y axis's title stays clear of its ticks' labels.
  const titleRight = await totals.locator('.summary-plot text.y-title').evaluate((t) => t.getBoundingClientRect().right);
  const labelsLeft = await totals.locator('.summary-plot .y-tick').evaluateAll((ts) => Math.min(...ts.map((t) => t.getBoundingClientRect().left)));
  assert.ok(titleRight <= labelsLeft, `title ends at ${titleRight}, labels start at ${labelsLeft}`);
  assert.deepEqual(errors, []);
  await page.close();
});
