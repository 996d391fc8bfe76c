// Browser tests of BOLT profiles: an fdata opens on its function table, with the
// execution counts llvm-bolt prints for the same profile (`cprog.cfg.txt`,
// `llvm-bolt --print-cfg`). Run `npm run build` first.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { corpus, dropFiles, launch, serve } from './lib/harness.mjs';

const FDATA = 'bolt-perf/cprog/cprog.instr.fdata';

let server;
let browser;

before(async () => {
  server = await serve();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

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
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  await page.goto(server.url);
  await page.locator('[role=status]').filter({ hasText: 'instrprof-raw' }).waitFor({ timeout: 15000 });
  await dropFiles(page, [{ name: path.basename(FDATA), bytes: await readFile(path.join(corpus, FDATA)) }]);
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
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  await page.goto(server.url);
  await page.locator('[role=status]').filter({ hasText: 'instrprof-raw' }).waitFor({ timeout: 15000 });
  const file = 'bolt-perf/cprog/cprog.instr.yaml';
  await dropFiles(page, [{ name: path.basename(file), bytes: await readFile(path.join(corpus, file)) }]);
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
