// Browser test of inlined frames in the stack views (issue 14): with cxxprog's
// binary and the recording machine's libraries (the corpus's sysroot), the
// Functions tab gives quick_sort the self time perf report gives it (its inlined
// callees' samples included), and the flame graph's fold toggle (button and `f`)
// takes the inlined frames out of the graph and puts them back. Run
// `npm run build` first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { corpus, corpusFiles, dropFiles, useSite } from './lib/harness.mjs';

const CXX = 'bolt-perf/cxxprog';
const SYSROOT = 'bolt-perf/sysroot';
const LIBS = ['libc.so.6', 'ld-linux-x86-64.so.2', 'libm.so.6', 'libgcc_s.so.1', 'libstdc++.so.6.0.30'];
// The separate debug files of libc, ld.so and libm (Debian's libc6-dbg), by build id.
const DEBUG = [
  '7e/bc65e52f2bbea498b4040fa92f7238377aaba9.debug',
  '93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug',
  'd6/e6f9e3af1243eed9bf5efd366dd015a9f22c13.debug',
];
const SORT = 'quick_sort<__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, main::$_0>';

const site = useSite();

/** Opens cxxprog.fp.perf.data with cxxprog and the sysroot's libraries, on the Flame graph tab. */
async function openCxxprog() {
  const { page, errors } = await site.open();
  const files = await corpusFiles([
    `${CXX}/cxxprog.fp.perf.data`,
    `${CXX}/cxxprog`,
    ...LIBS.map((lib) => `${SYSROOT}/usr/lib/x86_64-linux-gnu/${lib}`),
    ...DEBUG.map((d) => `${SYSROOT}/usr/lib/debug/.build-id/${d}`),
  ]);
  await dropFiles(page, files);
  await page.locator('[role=status]').filter({ hasText: 'perf.data' }).waitFor({ timeout: 30000 });
  await page.getByRole('tab', { name: 'Flame graph' }).click();
  await page.locator('.flame-symbols', { hasText: 'cxxprog' }).waitFor({ timeout: 30000 });
  return { page, errors };
}

const canvas = (page) => page.locator('.flame-main canvas');
const drawn = (page) =>
  canvas(page).evaluate((c) => ({ rects: Number(c.dataset.rects), inlined: Number(c.dataset.inlined) }));

/** The Functions tab's rows whose name contains `filter`: [{ name, self, selfPct, total }]. */
async function functionRows(page, filter) {
  await page.getByRole('tab', { name: 'Functions' }).click();
  await page.locator('.fn-filter').fill(filter);
  const rows = page.locator('.fn-body [role=row][data-id]');
  await rows.first().waitFor();
  await page.waitForFunction(
    (f) => [...document.querySelectorAll('.fn-body [role=row][data-id]')].every((r) => r.textContent.includes(f)),
    filter,
  );
  return rows.evaluateAll((rs) =>
    rs.map((r) => ({
      name: r.querySelector('[data-column=name] .fn-text').textContent,
      self: r.querySelector('[data-column=self]').textContent,
      selfPct: r.querySelector('.fn-self-pct').textContent,
      total: r.querySelector('[data-column=total]').textContent,
    })),
  );
}

test("quick_sort's self time is perf report's; folding takes the inlined frames out of the flame graph", async () => {
  const report = await readFile(path.join(corpus, CXX, 'cxxprog.fp.perf.data.report.txt'), 'utf8');
  const line = report.split('\n').find((l) => /^\s+\d+\.\d+%/.test(l) && l.trimEnd().endsWith(`[.] ${SORT}`));
  const overhead = /(\d+\.\d+)%/.exec(line)[1];
  assert.equal(overhead, '83.44');

  const { page, errors } = await openCxxprog();
  // Unfolded: inlined frames are drawn (in their own colours) and named so.
  await page.waitForFunction(() => Number(document.querySelector('.flame-main canvas')?.dataset.inlined) > 0);
  const before = await drawn(page);
  const fold = page.locator('.flame-fold-inlined');
  assert.equal(await fold.getAttribute('aria-pressed'), 'false');

  const rows = await functionRows(page, 'quick_sort');
  const sort = rows.find((r) => r.name === SORT);
  assert.ok(sort, JSON.stringify(rows));
  assert.equal(sort.selfPct, `${overhead}%`);
  // Inlined functions keep their rows, marked as perf marks them, with no self
  // time (their samples are their function's), and their stacks' total.
  const all = await functionRows(page, '');
  const inlinedRows = all.filter((r) => r.name.endsWith(' (inlined)'));
  assert.ok(inlinedRows.length > 0, JSON.stringify(all));
  assert.ok(inlinedRows.every((r) => r.self === '0' && Number(r.total) > 0), JSON.stringify(inlinedRows));

  // Opened in the flame graph, an inlined function says which function holds it.
  await page.locator('.fn-body [role=row][data-id]', { hasText: inlinedRows[0].name }).first().click();
  await page.locator('.sf-open-flame').click();
  const kind = page.locator('.flame-details .fd-kind');
  await kind.filter({ hasText: /^inlined into / }).waitFor();
  const into = (await kind.innerText()).replace(/^inlined into /, '');
  assert.ok(all.some((r) => into.startsWith(r.name) && !r.name.endsWith(' (inlined)')), into);

  // Fold with the key: the graph loses every inlined frame, the link says so, and
  // quick_sort's self time stays perf's.
  await page.getByRole('tab', { name: 'Flame graph' }).click();
  await canvas(page).waitFor();
  await page.locator('.flame-main').focus();
  await page.keyboard.press('f');
  await page.waitForFunction(() => document.querySelector('.flame-main canvas')?.dataset.inlined === '0');
  await page.locator('.flame-fold-inlined[aria-pressed=true]').waitFor();
  const after = await drawn(page);
  assert.ok(after.rects < before.rects, `${JSON.stringify(before)} → ${JSON.stringify(after)}`);
  assert.match(decodeURIComponent(await page.evaluate(() => location.hash)), /transforms=inl\b/);
  await page.locator('nav.transforms', { hasText: 'Fold inlined frames' }).waitFor();
  const folded = await functionRows(page, 'quick_sort');
  assert.equal(folded.find((r) => r.name === SORT)?.selfPct, `${overhead}%`);
  assert.ok(folded.every((r) => !r.name.endsWith(' (inlined)')), JSON.stringify(folded));

  // The button unfolds: the inlined frames are back.
  await page.getByRole('tab', { name: 'Flame graph' }).click();
  await page.locator('.flame-fold-inlined').click();
  await page.locator('.flame-fold-inlined[aria-pressed=false]').waitFor();
  await page.waitForFunction(() => Number(document.querySelector('.flame-main canvas')?.dataset.inlined) > 0);
  // (The selection's details panel may have changed the graph's width since `before`.)
  assert.ok((await drawn(page)).rects > after.rects);
  assert.deepEqual(errors, []);
});
