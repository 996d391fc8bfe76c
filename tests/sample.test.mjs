// Browser tests of sample profiles (LLVM text and extbinary here; AutoFDO and GCOV v4
// open the same views), against llvm-profdata's dumps of the same files
// (`.show.txt`, `.summary.txt`, `.proftext`) and the CLI's `export`: the Functions
// table, a function's line heat and inline tree, the whole-profile flame graph,
// the Summary, the downloads, and a file LLVM would reject. Run `npm run build` first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { corpus, corpusFiles, dropFiles, repoRoot, useSite } from './lib/harness.mjs';

const BASIC = 'llvm/sample-basic/sample-basic';
const FILES = [
  { file: `${BASIC}.text.prof`, format: 'sample-text' },
  { file: `${BASIC}.extbinary.prof`, format: 'sample-extbinary' },
];
const ROW = 18; // flame::ROW_PX

const site = useSite();

/** The top-level functions of `llvm-profdata show --sample`: [{ name, total, head, lines }]. */
function parseShow(text) {
  return [...text.matchAll(/^Function: (.*): (\d+), (\d+), (\d+) sampled lines$/gm)].map((m) => ({
    name: m[1],
    total: Number(m[2]),
    head: Number(m[3]),
    lines: Number(m[4]),
  }));
}

/** A fresh page (the demo loaded) with `file` dropped, on its Functions tab. */
async function openSample(file, format) {
  const { page, errors } = await site.open();
  await dropFiles(page, await corpusFiles([file]));
  await page.locator('[role=status]').filter({ hasText: format }).waitFor({ timeout: 15000 });
  await page.getByRole('tab', { name: 'Functions', selected: true }).waitFor();
  await rows(page).first().waitFor();
  return { page, errors };
}

function rows(page) {
  return page.locator('.sample-functions .fn-body [role=row][data-id]');
}

function shownRows(page) {
  return rows(page).evaluateAll((els) =>
    els.map((e) => {
      const row = { raw: e.querySelector('.fn-name').title, text: e.querySelector('.fn-name').textContent };
      for (const c of ['total', 'head', 'lines', 'inlined', 'calls']) row[c] = Number(e.querySelector(`.fn-${c}`).textContent);
      row.share = e.querySelector('.fn-total-pct').textContent;
      return row;
    }),
  );
}

/** The line heat shown: [{ kind, depth, line, samples, text, calls }]. */
function heat(page) {
  return page.locator('.heat tbody tr').evaluateAll((trs) =>
    trs.map((tr) => ({
      kind: tr.classList.contains('heat-inline') ? 'inline' : 'line',
      depth: Number(tr.dataset.depth),
      line: tr.dataset.line,
      samples: Number(tr.querySelector('.heat-samples').textContent),
      text: tr.querySelector('td:last-child').textContent,
      calls: [...tr.querySelectorAll('.heat-call')].map((c) => c.textContent),
    })),
  );
}

for (const { file, format } of FILES) {
  test(`${format}: the Functions table lists every function with the numbers llvm-profdata shows`, async () => {
    const { page, errors } = await openSample(file, format);
    const tabs = await page.getByRole('tab').allInnerTexts();
    assert.deepEqual(tabs, ['Dump', 'Functions', 'Flame graph', 'Call tree', 'Flat profile', 'Summary']);
    const show = parseShow(await readFile(path.join(corpus, `${file}.show.txt`), 'utf8'));
    assert.equal(show.length, 7);
    await page.locator('.sample-functions .fn-count').filter({ hasText: '7 functions' }).waitFor();
    const shown = await shownRows(page);
    // Largest total first, as show lists them.
    assert.deepEqual(shown.map((r) => r.raw), show.map((f) => f.name));
    for (const [i, f] of show.entries()) {
      assert.deepEqual([shown[i].total, shown[i].head, shown[i].lines], [f.total, f.head, f.lines], f.name);
    }
    const all = show.reduce((a, f) => a + f.total, 0);
    assert.equal(shown[0].share, `${((show[0].total * 100) / all).toFixed(2)}%`);
    const runOps = shown.find((r) => r.raw === '_Z7run_opsi');
    assert.deepEqual(
      { text: runOps.text, total: runOps.total, head: runOps.head, lines: runOps.lines, inlined: runOps.inlined, calls: runOps.calls },
      { text: 'run_ops(int)', total: 120000, head: 1, lines: 9, inlined: 2, calls: 1 },
    );
    // Filtered by name (raw or demangled), sorted by a header.
    await page.locator('.sample-functions input[type=search]').fill('run_');
    await page.locator('.sample-functions .fn-count').filter({ hasText: '3 of 7 functions' }).waitFor();
    await page.locator('[role=columnheader]', { hasText: 'Lines' }).locator('button').click();
    await page.waitForFunction(() => {
      const l = [...document.querySelectorAll('.sample-functions .fn-body [role=row][data-id] .fn-lines')].map((e) => Number(e.textContent));
      return l.length === 3 && l[0] >= l[1] && l[1] >= l[2] && l[0] === 10;
    });
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('a selected function shows its line heat, its inlined callsites opened in place, and its inline tree', async () => {
  const { page, errors } = await openSample(FILES[0].file, FILES[0].format);
  await rows(page).filter({ has: page.locator('.fn-name[title="_Z7run_opsi"]') }).click();
  const detail = page.getByRole('complementary', { name: 'Function detail' });
  await detail.locator('.fn-title').filter({ hasText: 'run_ops(int)' }).waitFor();
  assert.equal(await detail.locator('dd[data-key=total]').innerText(), '120000');
  assert.equal(await detail.locator('dd[data-key=head]').innerText(), '1');
  // show.txt: 9 sampled lines, apply inlined at 3 (60000), closed.
  let shown = await heat(page);
  assert.deepEqual(
    shown.filter((r) => r.kind === 'line').map((r) => [r.line, r.samples]),
    [['0', 1], ['1', 10001], ['1.1', 6000], ['1.2', 4001], ['2', 10000], ['2.3', 800], ['2.4', 1200], ['3', 10000], ['5', 1]],
  );
  const at3 = shown.find((r) => r.line === '3' && r.kind === 'line');
  // Its call targets, most called first, as LLVM writes them.
  assert.deepEqual(at3.calls, [
    'op_add(long, long) 6000',
    'op_mul(long, long) 2000',
    'op_sub(long, long) 1000',
    'op_max(long, long) 600',
    'op_div(long, long) 300',
    'op_mod(long, long) 100',
  ]);
  assert.deepEqual(shown.filter((r) => r.kind === 'inline').map((r) => [r.line, r.samples, r.text]), [
    ['3', 60000, 'inlined apply(long (*)(long, long), long, long)'],
  ]);
  // The hottest line is tinted most.
  const tint = await page.locator('.heat tr[data-line="1"]').evaluate((tr) => tr.style.getPropertyValue('--heat'));
  assert.equal(tint, '1.000');
  // Opened in place, recursively.
  await page.locator('.heat-toggle').first().click();
  await page.locator('.heat tbody tr[data-depth="1"]').first().waitFor();
  await page.locator('.heat tr.heat-inline[data-depth="1"] .heat-toggle').click();
  await page.locator('.heat tbody tr[data-depth="2"]').waitFor();
  shown = await heat(page);
  assert.deepEqual(shown.filter((r) => r.depth > 0).map((r) => [r.kind, r.depth, r.line, r.samples]), [
    ['line', 1, '0', 10000],
    ['inline', 1, '0', 6000],
    ['line', 2, '0', 6000],
  ]);
  await detail.getByRole('button', { name: 'Close all' }).click();
  assert.equal(await page.locator('.heat tbody tr').count(), 10);

  // The inline tree: run_ops (42004 of its own) → apply (10000) → op_add (6000).
  const canvas = page.locator('.sample-inline canvas');
  await canvas.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector('.sample-inline canvas')?.dataset.rects === '3');
  const tip = await hoverInline(page, 0.5, 0);
  assert.equal(await tip.locator('.ft-name').innerText(), 'run_ops(int)');
  assert.deepEqual((await tip.locator('.ft-total').innerText()).split(/\s+/).slice(1), ['58004', '100.00%']);
  assert.deepEqual((await tip.locator('.ft-self').innerText()).split(/\s+/).slice(1), ['42004', '72.42%']);
  const op = await hoverInline(page, 0.05, 2);
  assert.equal(await op.locator('.ft-name').innerText(), 'op_add(long, long)');
  // The same graph's search and sandwich.
  await page.locator('.sample-inline .flame-search').fill('op_add');
  await page.locator('.sample-inline .flame-share').filter({ hasText: '10.34% of samples match (1 function)' }).waitFor();
  await hoverInline(page, 0.05, 2);
  await page.mouse.click(...(await inlinePoint(page, 0.05, 2)), { button: 'right' });
  await page.locator('.sample-inline .sandwich h3').filter({ hasText: 'Callers and callees of op_add(long, long) in the whole profile' }).waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

/** A point of the inline graph at `share` of its width, in row `depth` (root at the bottom). */
async function inlinePoint(page, share, depth) {
  const box = await page.locator('.sample-inline .flame-main canvas').boundingBox();
  return [box.x + 1 + share * (box.width - 2), box.y + box.height - 1 - (depth + 0.5) * ROW];
}

async function hoverInline(page, share, depth) {
  await page.mouse.move(...(await inlinePoint(page, share, depth)));
  const tip = page.locator('.sample-inline .flame-tooltip');
  await tip.waitFor();
  return tip;
}

test('the Flame graph tab shows every function with its inline tree, the Flat profile their samples', async () => {
  const { page, errors } = await openSample(FILES[1].file, FILES[1].format);
  await page.getByRole('tab', { name: 'Flame graph' }).click();
  // Every body sample once: the summary's total count.
  await page.locator('.flame-total').filter({ hasText: /^170070 samples$/ }).waitFor();
  assert.equal(await page.locator('.timeline-canvas').count(), 0, 'no times, no timeline');
  await page.waitForFunction(() => Number(document.querySelector('.flame-main canvas').dataset.rects) > 5);
  await page.getByRole('tab', { name: 'Flat profile' }).click();
  const op = page.locator('.stack-functions [role=row][data-id]').filter({ has: page.locator('.fn-name', { hasText: /^op_add/ }) });
  await op.waitFor();
  // op_add's body samples, as a function of its own and inlined in apply.
  assert.equal(await op.locator('.fn-self').innerText(), '12000');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a profile without samples in inlined callees draws one bar a function, with a note that says so', async () => {
  // AutoFDO's profile: vm_run and sort_records have inlined callsites, all of 0 samples.
  const file = 'llvm/afdo-progB/afdo-progB.extbinary.prof';
  const { page, errors } = await openSample(file, 'sample-extbinary');
  await page.getByRole('tab', { name: 'Flame graph' }).click();
  await page.locator('.flat-note', { hasText: 'No inlined callee has samples: each function is one frame' }).waitFor();
  const shown = await page.locator('.flat-row').evaluateAll((rows) =>
    rows.map((r) => ({ name: r.querySelector('.flat-name').textContent, total: Number(r.querySelector('.flat-weight').textContent) })),
  );
  const theirs = parseShow(await readFile(path.join(corpus, `${file}.show.txt`), 'utf8'));
  assert.deepEqual(shown, theirs.map(({ name, total }) => ({ name, total })));
  assert.deepEqual(errors, []);
  await page.close();
});

test('the Summary tab shows llvm-profdata\'s sample summary', async () => {
  const { file, format } = FILES[1];
  const { page, errors } = await openSample(file, format);
  const text = await readFile(path.join(corpus, `${file}.summary.txt`), 'utf8');
  const number = (key) => Number(new RegExp(`^${key}: (\\d+)$`, 'm').exec(text)[1]);
  await page.getByRole('tab', { name: 'Summary' }).click();
  const totals = page.getByRole('region', { name: 'Profile summary' });
  await totals.locator('dd[data-key=functions]').waitFor();
  assert.equal(Number(await totals.locator('dd[data-key=functions]').innerText()), number('Total functions'));
  assert.equal(Number(await totals.locator('dd[data-key=max-function]').innerText()), number('Maximum function count'));
  assert.equal(Number(await totals.locator('dd[data-key=max-internal]').innerText()), number('Maximum internal block count'));
  assert.equal(Number(await totals.locator('dd[data-key=counts]').innerText()), number('Total number of blocks'));
  assert.equal(Number(await totals.locator('dd[data-key=total]').innerText()), number('Total count'));
  const lines = [...text.matchAll(/^(\d+) blocks .* with count >= (\d+) account for/gm)].map((m) => [Number(m[2]), Number(m[1])]);
  const table = await totals.locator('.cutoffs tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => Number(td.textContent))),
  );
  assert.deepEqual(table, lines);
  assert.deepEqual(errors, []);
  await page.close();
});

/** What `pgolens export FILE --to TO` writes (the CLI, built by cargo if need be). */
async function cliExport(file, to) {
  const dir = await mkdtemp(path.join(tmpdir(), 'pgolens-export-'));
  const out = path.join(dir, 'out');
  try {
    execFileSync('cargo', ['run', '-q', '-p', 'pgolens-cli', '--', 'export', path.join(corpus, file), '--to', to, '-o', out], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

for (const { file, format } of FILES) {
  test(`${format}: each download is what the CLI writes (LLVM text: llvm-profdata's .proftext)`, { timeout: 600000 }, async () => {
    const { page, errors } = await openSample(file, format);
    const stem = path.basename(file).replace(/\.prof$/, '');
    for (const [button, to, name] of [
      ['Save LLVM text', 'sampletext', `${stem}.proftext`],
      ['Save GCOV v4', 'gcov4', `${stem}.gcov`],
      ['Save v4 compact', 'gcov4-compact', `${stem}.compact.gcov`],
      ['Save v4 text', 'gcov4-text', `${stem}.gcov.txt`],
    ]) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
      assert.equal(download.suggestedFilename(), name);
      const saved = await readFile(await download.path());
      if (to === 'sampletext') assert.ok(saved.equals(await readFile(path.join(corpus, `${file}.proftext`))), `${button}: the .proftext`);
      assert.ok(saved.equals(await cliExport(file, to)), `${button}: pgolens export --to ${to}`);
      assert.ok(saved.length > 100, `${button}: ${saved.length} bytes`);
      await page.getByRole('button', { name: button }).and(page.locator(':enabled')).waitFor();
    }
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('a context-sensitive profile shows each record\'s context', async () => {
  const { page, errors } = await openSample('llvm/sample-cs-lbr/sample-cs-lbr.text.prof', 'sample-text');
  const classify = rows(page).filter({ has: page.locator('.fn-context', { hasText: '@ _ZN3geo8classifyERKNS_5ShapeE]' }) });
  await classify.first().waitFor();
  assert.equal(await classify.first().locator('.fn-name').innerText(), 'geo::classify(geo::Shape const&)CS');
  await classify.first().click();
  await page.locator('.sample-context').filter({ hasText: '[main:3 @ _Z10run_shapesi:4.2 @ _ZN3geo8classifyERKNS_5ShapeE]' }).waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

test('a profile symbol list gets a Symbols tab', async () => {
  const { page, errors } = await site.open();
  // crate/tests/data/sample/binary/make.sh: sample-basic with --prof-sym-list of five names.
  const file = path.join(repoRoot, 'crate/tests/data/sample/binary/basic.symlist.extbinary.prof');
  await dropFiles(page, [{ name: path.basename(file), bytes: await readFile(file) }]);
  await page.locator('[role=status]').filter({ hasText: 'sample-extbinary' }).waitFor({ timeout: 15000 });
  await page.getByRole('tab', { name: 'Symbols' }).click();
  const names = page.locator('.sample-symbols .fn-body [role=row][data-id] .fn-name');
  await names.first().waitFor();
  assert.deepEqual(await names.allInnerTexts(), ['cold_func()', 'internal()', 'main', 'never_called(int)', 'run_shapes(int)']);
  assert.equal(await page.locator('.sample-symbols .fn-count').innerText(), '5 symbols in the profile symbol list');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a profile LLVM would reject shows where it fails, beside its dump', async () => {
  const { page, errors } = await site.open();
  const bytes = Buffer.concat([await readFile(path.join(corpus, FILES[0].file)), Buffer.from(' 7: x\n')]);
  await dropFiles(page, [{ name: 'bad.prof', bytes }]);
  await page.locator('[role=status]').filter({ hasText: 'sample-text' }).waitFor({ timeout: 15000 });
  await page.locator('.views-note').filter({ hasText: /not available: .*line 68, column 5/ }).waitFor();
  assert.deepEqual(await page.getByRole('tab').allInnerTexts(), ['Dump']);
  assert.deepEqual(errors, []);
  await page.close();
});
