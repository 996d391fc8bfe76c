// Browser tests of BOLT profiles: an fdata opens on its function table, with the
// execution counts llvm-bolt prints for the same profile (`cprog.cfg.txt`,
// `llvm-bolt --print-cfg`). Run `npm run build` first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { corpus, corpusFiles, dropFiles, useSite } from './lib/harness.mjs';

const FDATA = 'bolt-perf/cprog/cprog.instr.fdata';

const site = useSite();

/** Drops corpus files (paths under tests/corpus) on the page together. */
async function dropCorpus(page, files) {
  await dropFiles(page, await corpusFiles(files));
}

/** Function name → "Exec Count" of each function llvm-bolt printed. */
function printedExecCounts(text) {
  const out = new Map();
  let name = null;
  for (const line of text.split('\n')) {
    let m;
    if ((m = /^Binary Function "([^"(]+)/.exec(line))) name = m[1];
    else if (name && (m = /^  Exec Count  : (\d+)/.exec(line))) {
      out.set(name, Number(m[1]));
      name = null;
    }
  }
  return out;
}

function rows(page) {
  return page.locator('.bolt-functions .fn-body [role=row][data-id]');
}

function shownRows(page) {
  return rows(page).evaluateAll((els) =>
    els.map((e) => {
      const row = {};
      for (const cell of e.querySelectorAll('[data-column]')) {
        row[cell.dataset.column] = cell.dataset.column === 'name' ? cell.textContent : Number(cell.textContent.replace(/[^0-9.]/g, ''));
      }
      return row;
    }),
  );
}

test('an fdata profile opens on its functions, with the execution counts llvm-bolt reads from it', async () => {
  const { page, errors } = await site.open();
  await dropCorpus(page, [FDATA]);
  await page.locator('[role=status]').filter({ hasText: 'bolt-fdata' }).waitFor({ timeout: 15000 });
  await page.getByRole('tab', { name: 'Functions', selected: true }).waitFor();
  await rows(page).first().waitFor();

  const printed = printedExecCounts(await readFile(path.join(corpus, 'bolt-perf/cprog/cprog.cfg.txt'), 'utf8'));
  assert.equal(printed.size, 3);
  const shown = await shownRows(page);
  for (const [name, exec] of printed) {
    const row = shown.find((r) => r.name === name);
    assert.ok(row, `${name} is listed`);
    assert.equal(row.exec, exec, name);
  }
  // Sorted by branch counts, most first.
  const branches = shown.map((r) => r.branches);
  assert.deepEqual(branches, [...branches].sort((a, b) => b - a));
  // The name filter.
  await page.locator('.bolt-functions input[type=search]').fill('hot_');
  await page.waitForFunction(() => document.querySelectorAll('.bolt-functions .fn-body [role=row][data-id]').length === 1);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a YAML profile opens on its functions, with the execution and block counts llvm-bolt prints', async () => {
  const { page, errors } = await site.open();
  const file = 'bolt-perf/cprog/cprog.instr.yaml';
  await dropCorpus(page, [file]);
  await page.locator('[role=status]').filter({ hasText: 'bolt-yaml' }).waitFor({ timeout: 15000 });
  await page.getByRole('tab', { name: 'Functions', selected: true }).waitFor();
  await rows(page).first().waitFor();
  const text = await readFile(path.join(corpus, 'bolt-perf/cprog/cprog.cfg.txt'), 'utf8');
  const printed = printedExecCounts(text);
  const shown = await shownRows(page);
  for (const [name, exec] of printed) {
    const row = shown.find((r) => r.name === name);
    assert.ok(row, `${name} is listed`);
    assert.equal(row.exec, exec, name);
  }
  // classify: 9 blocks in BOLT's print (".LBB07", ".Ltmp0" ... headers of its function).
  const classify = text.split('Binary Function "').find((f) => f.startsWith('classify"'));
  const blocks = classify.split('\n').filter((l) => / \(\d+ instructions, align : /.test(l)).length;
  assert.equal(shown.find((r) => r.name === 'classify').blocks, blocks);
  assert.deepEqual(errors, []);
  await page.close();
});

/** The blocks of function `name` in a `--print-cfg` dump, in order: label, count, successors. */
function printedBlocks(text, name) {
  const body = text.split('Binary Function "').find((f) => f.startsWith(`${name}"`));
  const blocks = [];
  for (const line of body.split('\n')) {
    let m;
    if ((m = /^(\.\S+) \(\d+ instructions, align : /.exec(line))) blocks.push({ label: m[1], insns: 0, exec: 0, succ: [] });
    // Instructions, CFI pseudo-instructions left out.
    else if (blocks.length && /^    [0-9a-f]{8}: \t(?!!CFI)/.test(line)) blocks.at(-1).insns += 1;
    else if (blocks.length && (m = /^  Exec Count : (\d+)/.exec(line))) blocks.at(-1).exec = Number(m[1]);
    else if (blocks.length && line.startsWith('  Successors: ')) {
      for (const s of line.matchAll(/(\.\S+) \(mispreds: \d+, count: (\d+)\)/g)) {
        blocks.at(-1).succ.push({ label: s[1], count: Number(s[2]) });
      }
    }
  }
  return blocks;
}

test('a function row opens its CFG: blocks with BOLT\'s counts, keys along the hottest edges, calls to callees and back', async () => {
  const { page, errors } = await site.open();
  const file = 'bolt-perf/cprog/cprog.instr.yaml';
  await dropCorpus(page, [file]);
  await page.locator('[role=status]').filter({ hasText: 'bolt-yaml' }).waitFor({ timeout: 15000 });
  await rows(page).first().waitFor();
  const text = await readFile(path.join(corpus, 'bolt-perf/cprog/cprog.cfg.txt'), 'utf8');
  const printed = printedBlocks(text, 'hot_loop');

  await rows(page).filter({ hasText: /^hot_loop/ }).first().click();
  await page.getByRole('tab', { name: 'CFG', selected: true }).waitFor();
  const cfg = page.locator('.bolt-cfg');
  await cfg.locator('.cfg-name', { hasText: 'hot_loop' }).waitFor({ timeout: 15000 });
  assert.equal(Number(await cfg.getAttribute('data-blocks')), printed.length);
  const canvas = cfg.locator('canvas').first();
  await page.waitForFunction(() => Number(document.querySelector('.bolt-cfg canvas')?.dataset.paints) > 0);
  // Fitted: every block is drawn, and the minimap is hidden until the graph is zoomed.
  assert.equal(Number(await canvas.getAttribute('data-blocks-drawn')), printed.length);
  const minimap = cfg.locator('.cfg-minimap');
  assert.equal(await minimap.isHidden(), true);
  const middle = await canvas.boundingBox();
  await page.mouse.move(middle.x + middle.width / 2, middle.y + middle.height / 2);
  await page.mouse.wheel(0, -600);
  await minimap.waitFor({ state: 'visible', timeout: 5000 });
  await cfg.getByRole('button', { name: 'Fit' }).click();
  await minimap.waitFor({ state: 'hidden', timeout: 5000 });

  // Keys: the entry, then along its hottest edge; the details show BOLT's count.
  await cfg.locator('.cfg-canvas').focus();
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => document.querySelector('.bolt-cfg').dataset.selected === '0');
  const hottest = printed[0].succ.reduce((a, b) => (b.count > a.count ? b : a));
  const next = printed.findIndex((b) => b.label === hottest.label);
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction((n) => document.querySelector('.bolt-cfg').dataset.selected === String(n), next);
  const detail = cfg.locator('.cfg-detail');
  assert.match(await detail.locator('tr', { hasText: 'Count' }).first().innerText(), new RegExp(`\\b${printed[next].exec}\\b`));

  // Hovering a block shows its numbers; the canvas keeps its size (a tooltip once
  // made the minimap's ref point at the graph's canvas).
  const box = await canvas.boundingBox();
  const size = () => canvas.evaluate((c) => [c.width, c.height]);
  const before = await size();
  for (let y = 10; y < box.height && !(await cfg.locator('.cfg-tooltip').count()); y += 12) {
    for (let x = 10; x < box.width && !(await cfg.locator('.cfg-tooltip').count()); x += 60) {
      await page.mouse.move(box.x + x, box.y + y);
    }
  }
  assert.match(await cfg.locator('.cfg-tooltip').innerText(), /Count\s+\d+/);
  assert.deepEqual(await size(), before);

  // main's call to hot_loop is a link to it; Backspace comes back.
  await page.getByRole('tab', { name: 'Functions' }).click();
  await rows(page).filter({ hasText: /^main/ }).first().click();
  await cfg.locator('.cfg-name', { hasText: 'main' }).waitFor({ timeout: 15000 });
  await cfg.locator('.cfg-search').fill('hot_loop');
  await detail.getByRole('button', { name: 'hot_loop' }).click();
  await cfg.locator('.cfg-name', { hasText: 'hot_loop' }).waitFor({ timeout: 15000 });
  await cfg.locator('.cfg-canvas').focus();
  await page.keyboard.press('Backspace');
  await cfg.locator('.cfg-name', { hasText: 'main' }).waitFor({ timeout: 15000 });
  assert.match(await cfg.locator('.cfg-flow').innerText(), /flow gap 0\.00% weighted, 0\.00% worst · 0 flagged/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('an fdata dropped with its binary gets graphs, each block with its instructions as llvm-bolt prints them', async () => {
  const { page, errors } = await site.open();
  const files = [FDATA, 'bolt-perf/cprog/cprog'];
  await dropCorpus(page, files);
  await page.getByRole('tab', { name: 'CFG' }).waitFor({ timeout: 15000 });
  await rows(page).filter({ hasText: /^hot_loop/ }).first().click();
  const cfg = page.locator('.bolt-cfg');
  await cfg.locator('.cfg-name', { hasText: 'hot_loop' }).waitFor({ timeout: 15000 });
  await cfg.locator('.cfg-binary', { hasText: 'code from cprog' }).waitFor();
  const text = await readFile(path.join(corpus, 'bolt-perf/cprog/cprog.cfg.txt'), 'utf8');
  const printed = printedBlocks(text, 'hot_loop');
  assert.equal(Number(await cfg.getAttribute('data-blocks')), printed.length);
  await cfg.locator('.cfg-canvas').focus();
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => document.querySelector('.bolt-cfg').dataset.selected === '0');
  // The entry block's instructions, as many as BOLT prints, the first one BOLT's.
  const code = cfg.locator('.cfg-detail .cfg-code tr');
  assert.equal(await code.count(), printed[0].insns);
  assert.match(await code.first().innerText(), /^0\s+pushq\s+%rbp/);
  // An entry is left out of the flow gaps, and the details say why.
  assert.match(await cfg.locator('.cfg-detail').innerText(), /Flow gap not counted, as llvm-bolt leaves it out: an entry or a landing pad\./);
  assert.deepEqual(errors, []);
  await page.close();
});

test('an fdata profile\'s branch and memory lines are tables, largest count first', async () => {
  const { page, errors } = await site.open();
  const file = 'bolt-perf/cprog/cprog.brstack-mem.fdata';
  const text = await readFile(path.join(corpus, file), 'utf8');
  await dropFiles(page, [{ name: path.basename(file), bytes: Buffer.from(text) }]);
  await page.locator('[role=status]').filter({ hasText: 'bolt-fdata' }).waitFor({ timeout: 15000 });
  for (const [tab, kinds] of [['Branches', '012'], ['Memory', '345']]) {
    await page.getByRole('tab', { name: tab }).click();
    const lines = text.split('\n').filter((l) => l.length > 2 && kinds.includes(l[0]) && l[1] === ' ');
    const top = lines.map((l) => Number(l.split(' ').at(-1))).sort((a, b) => b - a)[0];
    const first = page.locator('.bolt-records .fn-body [role=row][data-id]').first();
    await first.waitFor();
    const count = await first.locator('[data-column=count]').innerText();
    assert.equal(Number(/^[\d,]+/.exec(count.trim())[0].replace(/,/g, '')), top, `${tab}: ${count}`);
    assert.match(await page.locator('.bolt-records').innerText(), new RegExp(`${lines.length} ${tab.toLowerCase() === 'branches' ? 'branch' : 'memory'} lines`));
    // The locations (text columns) share the table's width: none is cut short.
    const cells = page.locator('.bolt-records .fn-body [data-column=from], .bolt-records .fn-body [data-column=to]');
    assert.ok((await cells.count()) >= 2 * Math.min(lines.length, 20), tab);
    const clipped = await cells.evaluateAll((all) => all.filter((c) => c.scrollWidth > c.clientWidth).map((c) => c.textContent));
    assert.deepEqual(clipped, [], tab);
    // Left-aligned, as text is.
    assert.equal(await cells.first().evaluate((c) => getComputedStyle(c).textAlign), 'start');
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('a perf.data with branch stacks dropped with its binary becomes perf2bolt\'s profile: BOLT functions and CFGs', async () => {
  const { page, errors } = await site.open();
  const files = ['bolt-perf/cprog/cprog.brstack.perf.data', 'bolt-perf/cprog/cprog'];
  await dropCorpus(page, files);
  await page.getByRole('tab', { name: 'BOLT functions' }).click({ timeout: 20000 });
  await rows(page).first().waitFor();
  // llvm-bolt's execution counts with the fdata perf2bolt wrote from this recording.
  const printed = printedExecCounts(await readFile(path.join(corpus, 'bolt-perf/cprog/cprog.brstack.cfg.txt'), 'utf8'));
  const shown = await shownRows(page);
  for (const [name, exec] of printed) {
    assert.equal(shown.find((r) => r.name === name)?.exec, exec, name);
  }
  // Saved as a file: perf2bolt's fdata of the recording.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Save fdata' }).click()]);
  assert.equal(download.suggestedFilename(), 'cprog.brstack.perf.data.fdata');
  const saved = await readFile(await download.path(), 'utf8');
  const reference = await readFile(path.join(corpus, 'bolt-perf/cprog/cprog.brstack.fdata'), 'utf8');
  assert.deepEqual(saved.split('\n').sort(), reference.split('\n').sort());
  await rows(page).filter({ hasText: /^hot_loop/ }).first().click();
  await page.locator('.bolt-cfg .cfg-binary', { hasText: 'code from cprog' }).waitFor({ timeout: 15000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a YAML of basic samples, written without counts, says so beside its all-zero table', async () => {
  const { page, errors } = await site.open();
  await dropCorpus(page, ['bolt-perf/cprog/cprog.nolbr.yaml']);
  const status = page.locator('[role=status]');
  await status.filter({ hasText: 'bolt-yaml' }).filter({ hasText: 'a profile of basic samples with no counts' }).waitFor({ timeout: 20000 });
  await rows(page).first().waitFor();
  // Its eleven functions (perf2bolt -w wrote them with `exec: 0` and no blocks).
  const yaml = await readFile(path.join(corpus, 'bolt-perf/cprog/cprog.nolbr.yaml'), 'utf8');
  const names = [...yaml.matchAll(/^  - name: +'?([^'\n]+)'?$/gm)].map((m) => m[1]);
  const shown = await shownRows(page);
  assert.equal(names.length, 11);
  assert.deepEqual(shown.map((r) => r.name).sort(), names.sort());
  assert.ok(shown.every((r) => r.exec === 0), JSON.stringify(shown));
  // A YAML with counts has no such remark.
  await dropCorpus(page, ['bolt-perf/cprog/cprog.brstack.yaml']);
  await status.filter({ hasText: 'cprog.brstack.yaml' }).waitFor({ timeout: 20000 });
  assert.equal(await status.filter({ hasText: 'no counts' }).count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a pre-aggregated profile alone asks for its binary; with it, perf2bolt --pa\'s profile', async () => {
  const { page, errors } = await site.open();
  await dropCorpus(page, ['bolt-perf/cprog/cprog.preagg-traces.txt']);
  const status = page.locator('[role=status]');
  await status.filter({ hasText: 'bolt-preagg' }).filter({ hasText: 'drop its binary to see its branches' }).waitFor({ timeout: 20000 });
  assert.deepEqual(await page.getByRole('tab').allTextContents(), ['Dump']);
  await dropCorpus(page, ['bolt-perf/cprog/cprog']);
  await page.getByText('cprog.preagg-traces.txt', { exact: true }).first().click();
  await status.filter({ hasText: 'correlated with cprog' }).waitFor({ timeout: 20000 });
  assert.equal(await status.filter({ hasText: 'drop its binary' }).count(), 0);
  await page.getByRole('tab', { name: 'Functions' }).click();
  await rows(page).first().waitFor();
  // llvm-bolt's execution counts with the fdata perf2bolt --pa wrote from this file.
  const fdata = await readFile(path.join(corpus, 'bolt-perf/cprog/cprog.preagg-traces.fdata'), 'utf8');
  const entries = new Map();
  for (const [, name, count] of fdata.matchAll(/^\d+ \S+ [0-9a-f]+ 1 (\S+) 0 \d+ (\d+)$/gm)) {
    entries.set(name, (entries.get(name) ?? 0) + Number(count));
  }
  const shown = await shownRows(page);
  assert.ok(entries.size > 3, JSON.stringify([...entries]));
  for (const [name, exec] of entries) assert.equal(shown.find((r) => r.name === name)?.exec, exec, name);
  assert.deepEqual(errors, []);
  await page.close();
});

const blocksOf = (caption) => Number(/^(\d+) blocks/.exec(caption)[1]);

test('a BOLTed binary opens on its BAT: functions and fragments at their output addresses, a function\'s translation', async () => {
  const { page, errors } = await site.open();
  const file = 'bolt-perf/cprog/cprog.bolt';
  await dropCorpus(page, [file]);
  await page.getByRole('tab', { name: 'BAT', selected: true }).waitFor({ timeout: 15000 });
  const rowsOf = page.locator('.bat .fn-body [role=row][data-id]');
  await rowsOf.first().waitFor();
  // nm cprog.bolt: hot_loop at 0x407080, its cold fragment at 0x407580.
  const hot = rowsOf.filter({ hasText: /^hot_loop(?!\.)/ }).first();
  assert.match(await hot.innerText(), /407080/);
  // A cold fragment's kind names its function, whole on hover where the column cuts it.
  const cold = rowsOf.filter({ hasText: /^hot_loop\.cold\.0\/1/ }).first().locator('[data-column=kind]');
  assert.equal(await cold.getAttribute('title'), 'cold of hot_loop');
  await hot.click();
  const detail = page.locator('.bat-detail');
  await detail.locator('h3', { hasText: 'hot_loop' }).waitFor();
  assert.match(await detail.innerText(), /Cold fragments: hot_loop\.cold\.0\/1/);
  const entries = Number(/Entries\s+(\d+)/.exec(await detail.innerText())[1]);
  assert.equal(await detail.locator('.bat-entries tbody tr').count(), entries);
  assert.ok(entries > 0);
  // The picture: one line per block, hot and cold.
  const lines = detail.locator('.bat-moved line.hot, .bat-moved line.cold');
  assert.equal(await lines.count(), blocksOf(await detail.locator('.bat-moved figcaption').innerText()));
  assert.ok(await detail.locator('.bat-moved line.cold').count() > 0);
  await detail.getByRole('button', { name: 'hot_loop.cold.0/1' }).click();
  await detail.locator('h3', { hasText: 'hot_loop.cold.0' }).waitFor();
  assert.match(await detail.innerText(), /0x407580/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a recording of a BOLTed binary dropped with it saves as perf2bolt -w\'s YAML from BAT, byte for byte', async () => {
  const { page, errors } = await site.open();
  const files = ['bolt-perf/cprog/cprog.bolt.brstack.perf.data', 'bolt-perf/cprog/cprog.bolt'];
  await dropCorpus(page, files);
  await page.getByRole('tab', { name: 'BOLT functions' }).click({ timeout: 20000 });
  await rows(page).first().waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Save YAML' }).click()]);
  assert.equal(download.suggestedFilename(), 'cprog.bolt.brstack.perf.data.yaml');
  const saved = await readFile(await download.path());
  const reference = await readFile(path.join(corpus, 'bolt-perf/cprog/cprog.bolt.bat.yaml'));
  assert.ok(saved.equals(reference), 'byte for byte');
  assert.deepEqual(errors, []);
  await page.close();
});

/**
 * The count of each block of `name` (`starts`: its blocks' input offsets, in order)
 * as llvm-bolt reads an fdata of the input binary: calls from elsewhere (and
 * recursive ones) to offset 0 on the entry block, each block the sum of the branches
 * into it, raised to its largest branch in or out and to its direct calls.
 */
function fdataBlockCounts(text, name, starts) {
  const containing = (offset) => starts.filter((s) => s <= offset).length - 1;
  const counts = starts.map(() => 0);
  const edges = [];
  const calls = new Map();
  for (const line of text.split('\n')) {
    const f = line.split(' ');
    if (f.length !== 8) continue;
    const [from, fromOffset, to, toOffset, count] = [f[1], parseInt(f[2], 16), f[4], parseInt(f[5], 16), Number(f[7])];
    if (to === name && toOffset === 0) counts[0] += count;
    if (from !== name) continue;
    if (to !== name || toOffset === 0) calls.set(fromOffset, [...(calls.get(fromOffset) ?? []), count]);
    else edges.push([containing(fromOffset), starts.indexOf(toOffset), count]);
  }
  for (const [, to, count] of edges) if (to > 0) counts[to] += count;
  for (const [from, to, count] of edges) for (const b of [from, to]) counts[b] = Math.max(counts[b], count);
  for (const [offset, targets] of calls) {
    if (targets.length === 1) counts[containing(offset)] = Math.max(counts[containing(offset)], targets[0]);
  }
  return counts;
}

test('a BOLTed binary dropped with a recording of it colours its BAT picture by the translated profile\'s block counts', async () => {
  const { page, errors } = await site.open();
  const files = ['bolt-perf/cprog/cprog.bolt.brstack.perf.data', 'bolt-perf/cprog/cprog.bolt'];
  await dropCorpus(page, files);
  // The recording becomes the input binary's profile; then the binary's BAT.
  await page.getByRole('tab', { name: 'BOLT functions' }).waitFor({ timeout: 20000 });
  await page.locator('.files .file-select').filter({ has: page.locator('.file-name', { hasText: /^cprog\.bolt$/ }) }).click();
  await page.getByRole('tab', { name: 'BAT', selected: true }).waitFor({ timeout: 15000 });
  const rowsOf = page.locator('.bat .fn-body [role=row][data-id]');
  await rowsOf.filter({ hasText: /^hot_loop(?!\.)/ }).first().click();
  const detail = page.locator('.bat-detail');
  await detail.locator('h3', { hasText: 'hot_loop' }).waitFor();
  const marks = detail.locator('.bat-moved rect.block.input');
  await marks.first().waitFor({ timeout: 15000 });
  const caption = await detail.locator('.bat-moved figcaption').innerText();
  assert.match(caption, /coloured by their counts in cprog\.bolt\.brstack\.perf\.data/);
  // Every block on both sides, its links still drawn.
  const blocks = blocksOf(caption);
  assert.equal(await marks.count(), blocks);
  assert.equal(await detail.locator('.bat-moved rect.block.output').count(), blocks);
  assert.equal(await detail.locator('.bat-moved line.hot, .bat-moved line.cold').count(), blocks);

  // The counts are those of perf2bolt's fdata of the recording (cprog.bolt.bat.fdata).
  const shown = (await marks.evaluateAll((els) => els.map((e) => [parseInt(e.dataset.input, 16), Number(e.dataset.count)])))
    .sort((a, b) => a[0] - b[0]);
  const reference = await readFile(path.join(corpus, 'bolt-perf/cprog/cprog.bolt.bat.fdata'), 'utf8');
  const expected = fdataBlockCounts(reference, 'hot_loop', shown.map(([offset]) => offset));
  assert.deepEqual(shown.map(([, count]) => count), expected);
  // hot_loop's loop: 304 + 14 + 12 into 0xa3; its entry 64 calls from main.
  assert.deepEqual([shown.find(([o]) => o === 0xa3)[1], shown[0][1]], [330, 64]);
  // Hottest in the hottest colour of the CFG view's scale, unrun ones in the coldest.
  const fill = (offset) => marks.and(page.locator(`[data-input="0x${offset.toString(16)}"]`)).first().getAttribute('fill');
  assert.equal(await fill(0xa3), '#d6424b');
  assert.equal(await fill(shown.find(([, c]) => c === 0)[0]), '#c9d3de');
  assert.match(await marks.and(page.locator('[data-input="0xa3"]')).locator('title').textContent(), /input 0xa3 → hot 0x[0-9a-f]+: count 330/);
  assert.match(await detail.locator('.bat-legend').innerText(), /^0\s+330\s+executions/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a recording of a BOLTed binary dropped with it draws the input binary\'s CFGs from BAT, counted by the translated profile', async () => {
  const { page, errors } = await site.open();
  const files = ['bolt-perf/cprog/cprog.bolt.brstack.perf.data', 'bolt-perf/cprog/cprog.bolt'];
  await dropCorpus(page, files);
  await page.getByRole('tab', { name: 'BOLT functions' }).click({ timeout: 20000 });
  await page.getByRole('tab', { name: 'CFG' }).waitFor({ timeout: 15000 });
  await rows(page).filter({ hasText: /^hot_loop/ }).first().click();
  await page.getByRole('tab', { name: 'CFG', selected: true }).waitFor();
  const cfg = page.locator('.bolt-cfg');
  await cfg.locator('.cfg-name', { hasText: 'hot_loop' }).waitFor({ timeout: 15000 });
  // BAT's 13 input blocks of hot_loop (11 hot, 2 in its cold fragment), all drawn.
  assert.equal(Number(await cfg.getAttribute('data-blocks')), 13);
  await page.waitForFunction(() => Number(document.querySelector('.bolt-cfg canvas')?.dataset.paints) > 0);
  assert.equal(Number(await cfg.locator('canvas').first().getAttribute('data-blocks-drawn')), 13);
  // The hottest block, 0xa3: 304 + 14 + 12 branches in (cprog.bolt.bat.fdata).
  await cfg.locator('.cfg-search').fill('0xa3');
  const detail = cfg.locator('.cfg-detail');
  await detail.locator('h3', { hasText: '@0xa3' }).waitFor();
  assert.match(await detail.locator('tr', { hasText: 'Count' }).first().innerText(), /\b330\b/);
  // No code: the BOLTed binary's is not the profile's.
  assert.match(await detail.innerText(), /instructions need the input binary/);
  assert.equal(await cfg.locator('.cfg-binary').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});
