// Browser tests of the built page (dist/): the demo, drops, the file picker, the dump
// tree and the hex pane linked both ways, and errors. Run `npm run build` first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { corpus, corpusFiles, dropFiles, useSite } from './lib/harness.mjs';

const FILES = {
  profraw: ['llvm/irpgo-progA/irpgo-progA.profraw', 'instrprof-raw'],
  fdata: ['bolt-perf/cprog/cprog.brstack.fdata', 'bolt-fdata'],
  pipe: ['bolt-perf/cprog/cprog.pipe.perf.data', 'perf.data-pipe'],
  sample: ['llvm/sample-basic/sample-basic.text.prof', 'sample-text'],
};

const site = useSite();

async function corpusFile(key) {
  const [file] = await corpusFiles([FILES[key][0]]);
  return file;
}

function statusShows(page, text) {
  return page.locator('[role=status]').filter({ hasText: text }).waitFor({ timeout: 15000 });
}

async function selectFile(page, name) {
  await page.locator('.file-select', { hasText: name }).click();
  await statusShows(page, name);
}

/** Shows the structural dump: files open on their most useful view, not always the dump. */
async function showDump(page) {
  const tab = page.getByRole('tab', { name: 'Dump' });
  if (await tab.count()) await tab.click();
  await page.locator('[role=tree] [role=treeitem]').first().waitFor();
}

async function span(row) {
  return [Number(await row.getAttribute('data-start')), Number(await row.getAttribute('data-end'))];
}

/** The offsets of the highlighted cells in the hex column, once there are `count`. */
async function highlighted(page, count) {
  const cells = page.locator('.hex .hex-byte.sel');
  await page.waitForFunction((n) => document.querySelectorAll('.hex .hex-byte.sel').length === n, count);
  return (await cells.evaluateAll((els) => els.map((e) => Number(e.dataset.offset))));
}

test('the demo profile shows on load, labelled as a demo', async () => {
  const { page, errors } = await site.open();
  const status = page.locator('[role=status]');
  assert.match(await status.innerText(), /demo/i);
  assert.match(await status.innerText(), /irpgo-progA\.profraw/);
  assert.match(await status.innerText(), /version 10/);
  await page.getByRole('tab', { name: 'Dump' }).waitFor();
  // An instrumentation profile also offers its function table and summary.
  assert.deepEqual(await page.getByRole('tab').allInnerTexts(), ['Dump', 'Functions', 'Summary']);
  // It opens on its function table, the hottest first: fib(int), 8361 + 4180 in llvm-profdata show.
  assert.equal(await page.getByRole('tab', { selected: true }).innerText(), 'Functions');
  await page.locator('.fn-row[data-id] .fn-name').first().filter({ hasText: 'fib(int)' }).waitFor();
  await showDump(page);
  assert.deepEqual(errors, []);
  await page.close();
});

test('dropping three files of different formats opens each of them', async () => {
  const { page, errors } = await site.open();
  const files = await Promise.all(['fdata', 'pipe', 'sample'].map(corpusFile));
  await dropFiles(page, files);
  for (const key of ['fdata', 'pipe', 'sample']) {
    const [file, id] = FILES[key];
    await selectFile(page, path.basename(file));
    await statusShows(page, id);
    await showDump(page);
  }
  assert.equal(await page.locator('.files .file').count(), 4, 'the demo and three files');
  assert.deepEqual(errors, []);
  await page.close();
});

test('selecting a node highlights exactly its bytes in the hex pane', async () => {
  const { page } = await site.open();
  await showDump(page);
  const tree = page.locator('[role=tree]');
  // Expand the header (the root's first child) and pick its second field.
  const header = tree.locator('[role=treeitem][aria-level="2"]').first();
  await header.locator('.twisty').click();
  const field = tree.locator('[role=treeitem][aria-level="3"]').nth(1);
  await field.waitFor();
  await field.click();
  assert.equal(await field.getAttribute('aria-selected'), 'true');
  const [start, end] = await span(field);
  assert.ok(end > start, `a non-empty field: ${start}..${end}`);
  assert.match(await field.innerText(), new RegExp(`0x${start.toString(16)}\\.\\.0x${end.toString(16)}`));
  const offsets = await highlighted(page, end - start);
  assert.deepEqual(offsets, Array.from({ length: end - start }, (_, i) => start + i));
  // The bytes themselves arrive from the worker.
  await page.waitForFunction((at) => {
    const cell = document.querySelector(`.hex .hex-byte[data-offset="${at}"]`);
    return cell && /^[0-9a-f]{2}$/.test(cell.textContent);
  }, start);

  // A bigger node, further into the file: the pane scrolls to it.
  const last = tree.locator('[role=treeitem][aria-level="2"]').last();
  await last.click();
  const [s2, e2] = await span(last);
  await page.locator(`.hex .hex-byte.sel[data-offset="${s2}"]`).waitFor();
  const shown = await highlighted(page, await page.locator('.hex .hex-byte.sel').count());
  assert.ok(shown.length > 0 && shown.every((o) => o >= s2 && o < e2), `highlight inside ${s2}..${e2}`);
  await page.close();
});

test('clicking a byte in the hex pane selects the innermost node holding it', async () => {
  const { page } = await site.open();
  await showDump(page);
  const tree = page.locator('[role=tree]');
  // Find a field's span by expanding the header, then collapse it again.
  const header = tree.locator('[role=treeitem][aria-level="2"]').first();
  await header.locator('.twisty').click();
  const field = tree.locator('[role=treeitem][aria-level="3"]').nth(2);
  await field.waitFor();
  const [start, end] = await span(field);
  const label = await field.locator('.label').innerText();
  await header.locator('.twisty').click();
  await tree.locator('[role=treeitem][aria-level="3"]').first().waitFor({ state: 'detached' });

  await page.locator(`.hex .hex-byte[data-offset="${start + 1}"]`).click();
  const selected = tree.locator('[role=treeitem][aria-selected="true"]');
  await selected.filter({ hasText: label }).waitFor();
  assert.deepEqual(await span(selected), [start, end]);
  assert.equal(await selected.getAttribute('aria-level'), '3');
  assert.equal(await header.getAttribute('aria-expanded'), 'true', 'the path was expanded');
  await highlighted(page, end - start);
  await page.close();
});

test('a file of random bytes shows an error with its offset; the next drop works', async () => {
  const { page, errors } = await site.open();
  const random = Buffer.alloc(8192);
  for (let i = 0, x = 0x9e3779b9; i < random.length; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    random[i] = x & 0xff;
  }
  await dropFiles(page, [{ name: 'random.bin', bytes: random }]);
  const alert = page.locator('[role=alert]');
  await alert.waitFor();
  assert.match(await alert.innerText(), /random\.bin/);
  assert.match(await alert.innerText(), /offset/);

  await dropFiles(page, [await corpusFile('fdata')]);
  await statusShows(page, 'bolt-fdata');
  assert.equal(await alert.count(), 0);
  // fdata opens on its function table; its dump is a tab away.
  await showDump(page);
  await page.locator('[role=tree] [role=treeitem]').first().waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

test("a recording decoded as it streamed in reads its dump when the dump is first shown", async () => {
  const { page, errors } = await site.open();
  const file = 'bolt-perf/cprog/cprog.fp.perf.data';
  const bytes = await readFile(path.join(corpus, file));
  await dropFiles(page, [{ name: path.basename(file), bytes }]);
  await statusShows(page, 'cprog.fp.perf.data');
  // It opens on its flame graph, decoded without its bytes kept; the dump reads them.
  await page.getByRole('tab', { name: 'Flame graph', selected: true }).waitFor();
  await showDump(page);
  const tree = page.locator('[role=tree]');
  const level2 = tree.locator('[role=treeitem][aria-level="2"]');
  await level2.first().waitFor();
  const labels = await level2.locator('.label').allInnerTexts();
  // The layout of perf's file header: header, attrs, the records, the feature sections.
  for (const label of ['perf_file_header', 'attrs', 'data']) assert.ok(labels.includes(label), labels.join(', '));
  const dataRow = level2.filter({ has: page.locator('.label', { hasText: /^data$/ }) });
  const dataOffset = Number(bytes.readBigUInt64LE(40));
  assert.deepEqual(await span(dataRow), [dataOffset, dataOffset + Number(bytes.readBigUInt64LE(48))]);
  // The hex pane shows the file's own bytes: "PERFILE2".
  await page.waitForFunction(() => document.querySelector('.hex .hex-byte[data-offset="7"]')?.textContent === '32');
  const magic = await page.evaluate(() =>
    Array.from({ length: 8 }, (_, i) => document.querySelector(`.hex .hex-byte[data-offset="${i}"]`).textContent).join(' '));
  assert.equal(magic, '50 45 52 46 49 4c 45 32');
  assert.deepEqual(errors, []);
  await page.close();
});

test('files picked with the file input open', async () => {
  const { page } = await site.open();
  const input = page.locator('input[type=file]');
  assert.notEqual(await input.getAttribute('multiple'), null);
  await input.setInputFiles([path.join(corpus, FILES.sample[0]), path.join(corpus, FILES.pipe[0])]);
  await statusShows(page, 'sample-text');
  await selectFile(page, path.basename(FILES.pipe[0]));
  await statusShows(page, 'perf.data-pipe');
  await page.close();
});

test('a node with thousands of children renders only the rows in view', async () => {
  const { page } = await site.open();
  // 10000 fdata lines: the root holds blocks of 4096 lines, expanded on demand.
  const lines = Array.from({ length: 10000 }, (_, i) => `1 main ${i.toString(16)} 1 main ${(i + 1).toString(16)} 0 ${i}`);
  await dropFiles(page, [{ name: 'many.fdata', bytes: Buffer.from(lines.join('\n') + '\n') }]);
  await statusShows(page, 'bolt-fdata');
  await showDump(page);
  const block = page.locator('[role=tree] [role=treeitem][aria-level="2"]').first();
  await block.locator('.twisty').click();
  await page.locator('[role=tree] [role=treeitem][aria-level="3"]').first().waitFor();
  const drawn = await page.locator('[role=tree] [role=treeitem]').count();
  assert.ok(drawn < 100, `${drawn} rows drawn`);
  // Scroll to the end of the block: its last line is drawn.
  await page.locator('[role=tree]').evaluate((el) => { el.scrollTop = el.scrollHeight; });
  await page.locator('[role=tree] [role=treeitem]', { hasText: 'line 4096' }).first().waitFor();
  await page.close();
});
