// Browser tests of the view in the URL (issue 12): every view writes its part of
// the fragment; a reload asks for the files the link names, checks the dropped
// file's fingerprint and restores the view; back and forward step through views.
// Run `npm run build` first.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { corpus, dropFiles, fingerprint, launch, serve } from './lib/harness.mjs';

const PROFDATA = 'llvm/irpgo-progA/irpgo-progA.profdata';
const DEMO = 'llvm/irpgo-progA/irpgo-progA.profraw';
// Known stacks (the worker's synthetic format, as tests/flame.test.mjs):
//   main 100 ─┬─ idle 20 ── read 20
//             └─ work 80 ─┬─ compute 40
//                         └─ memcpy 30
const STACKS = `#pgolens-stacks
event cycles
s 0 0 30 main;work@prog;memcpy@libc.so.6
s 0 100 10 main;work@prog
s 0 200 20 main;idle;read@[kernel.kallsyms]
s 0 300 40 main;work@prog;compute@prog
`;

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

async function newPage() {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  return { page, errors };
}

function status(page, text) {
  return page.locator('[role=status]').filter({ hasText: text }).waitFor({ timeout: 15000 });
}

function params(page) {
  return new URLSearchParams(new URL(page.url()).hash.slice(1));
}

/** Waits until the URL's fragment has `key` equal to `value`. */
function linked(page, key, value) {
  return page.waitForFunction(
    ([k, v]) => new URLSearchParams(location.hash.slice(1)).get(k) === v,
    [key, value],
    { timeout: 15000 },
  );
}

test('the files are named by size, fingerprint and name; a link of the demo alone restores by itself', async () => {
  const { page, errors } = await newPage();
  await page.goto(server.url);
  await status(page, 'instrprof-raw');
  const demo = await readFile(path.join(corpus, DEMO));
  const id = fingerprint(demo).slice(0, 12);
  await linked(page, 'file', `${demo.length}.${id}.irpgo-progA.profraw`);
  await page.getByRole('tab', { name: 'Functions' }).click();
  await page.locator('.fn-body [role=row][data-id]').first().waitFor();
  await page.locator('.fn-body [role=row][data-id]').nth(1).click();
  const row = await page.locator('.fn-body [role=row][aria-selected=true]').getAttribute('data-id');
  await linked(page, 'row', row);
  assert.equal(params(page).get('tab'), 'functions');

  // The demo is there again after a reload: the view comes back with no drop.
  await page.reload();
  await page.locator(`.fn-body [role=row][aria-selected=true][data-id="${row}"]`).waitFor({ timeout: 15000 });
  assert.equal(await page.getByRole('tab', { selected: true }).innerText(), 'Functions');
  assert.equal(await page.locator('.link-waiting').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a file decoded as it streams in is named by the fingerprint of its bytes: a recording (its head read by slices) and a YAML of three blocks', async () => {
  const { page, errors } = await newPage();
  await page.goto(server.url);
  await status(page, 'instrprof-raw');
  const recording = await readFile(path.join(corpus, 'bolt-perf/cprog/cprog.cpuclock.perf.data'));
  // A real profile, then comment lines past two of the glue's 4 MiB blocks.
  const yaml = Buffer.concat([
    await readFile(path.join(corpus, 'bolt-perf/cprog/cprog.instr.yaml')),
    Buffer.from('# padding past the second block\n'.repeat(300000)),
  ]);
  assert.ok(yaml.length > 8 << 20);
  const files = [
    { name: 'cprog.cpuclock.perf.data', bytes: recording },
    { name: 'padded.yaml', bytes: yaml },
  ];
  for (const file of files) {
    await dropFiles(page, [file]);
    const value = `${file.bytes.length}.${fingerprint(file.bytes).slice(0, 12)}.${file.name}`;
    await page.waitForFunction(
      (v) => new URLSearchParams(location.hash.slice(1)).getAll('file').includes(v),
      value,
      { timeout: 30000 },
    );
  }
  await status(page, 'bolt-yaml');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a reload asks for the sorted, filtered table’s file, checks it and restores the view', async () => {
  const { page, errors } = await newPage();
  await page.goto(server.url);
  await status(page, 'instrprof-raw');
  const bytes = await readFile(path.join(corpus, PROFDATA));
  await dropFiles(page, [{ name: path.basename(PROFDATA), bytes }]);
  await status(page, 'instrprof-indexed');
  await page.getByRole('tab', { name: 'Functions' }).click();
  const rows = page.locator('.fn-body [role=row][data-id]');
  await rows.first().waitFor();
  await page.locator('[role=columnheader]', { hasText: 'Function' }).click();
  await page.locator('.fn-filter').fill('a');
  await page.locator('[role=columnheader][aria-sort=ascending]').waitFor();
  await rows.nth(1).click();
  const row = await page.locator('.fn-body [role=row][aria-selected=true]').getAttribute('data-id');
  await linked(page, 'row', row);
  const link = params(page);
  assert.equal(link.get('filter'), 'a');
  assert.equal(link.get('doc'), '1', 'the demo is file 0');
  const firstNames = async () =>
    (await rows.evaluateAll((els) => els.map((e) => e.querySelector('.fn-name').title))).slice(0, 8);
  const names = await firstNames();
  assert.ok(names.length > 2 && names.every((n) => /a/i.test(n)), names.join());

  await page.reload();
  // The page says which file the link needs.
  const waiting = page.locator('.link-waiting');
  await waiting.filter({ hasText: path.basename(PROFDATA) }).waitFor({ timeout: 15000 });
  assert.match(await waiting.innerText(), new RegExp(`${bytes.length} bytes`));
  // Another file of the same name and size is refused by its fingerprint.
  const impostor = Buffer.from(bytes);
  impostor[impostor.length - 1] ^= 1;
  await dropFiles(page, [{ name: path.basename(PROFDATA), bytes: impostor }]);
  await waiting.filter({ hasText: 'not its fingerprint' }).waitFor({ timeout: 15000 });
  // The file itself: the view comes back.
  await dropFiles(page, [{ name: path.basename(PROFDATA), bytes }]);
  await page.locator(`.fn-body [role=row][aria-selected=true][data-id="${row}"]`).waitFor({ timeout: 15000 });
  assert.equal(await waiting.count(), 0);
  assert.equal(await page.locator('.fn-filter').inputValue(), 'a');
  assert.match(await page.locator('[role=columnheader][aria-sort=ascending]').innerText(), /^Function\b/);
  assert.deepEqual(await firstNames(), names);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a flame graph’s zoom, search and a dump selection survive a reload; back and forward step through them', async () => {
  const { page, errors } = await newPage();
  await page.goto(server.url);
  await status(page, 'instrprof-raw');
  const stacks = { name: 'synthetic.stacks', bytes: Buffer.from(STACKS) };
  await dropFiles(page, [stacks]);
  await status(page, 'pgolens-stacks');
  const canvas = page.locator('.flame-main canvas');
  await page.waitForFunction(() => document.querySelector('.flame-main canvas')?.dataset.rects > 0);
  // Double-click `work` (20..100 at depth 2): zoomed to it.
  const box = await canvas.boundingBox();
  const rowPx = 18;
  // As a person does: the pointer over the frame (it is what a click picks), then a double-click.
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height - 1 - rowPx * 2.5);
  await page.mouse.dblclick(box.x + box.width * 0.6, box.y + box.height - 1 - rowPx * 2.5);
  await page.waitForFunction(() => document.querySelector('.flame-main canvas').dataset.zoom === '20-100');
  await linked(page, 'zoom', '20,100,0');
  await page.locator('.flame-search').fill('comp');
  await linked(page, 'search', 'comp');

  await page.reload();
  await page.locator('.link-waiting').waitFor({ timeout: 15000 });
  await dropFiles(page, [stacks]);
  await page.waitForFunction(() => document.querySelector('.flame-main canvas')?.dataset.zoom === '20-100', null, {
    timeout: 15000,
  });
  assert.equal(await page.locator('.flame-search').inputValue(), 'comp');
  await page.locator('.flame-share').filter({ hasText: '40.00% of samples match' }).waitFor();

  // The demo's dump: a node picked; back steps to the dump before it, the demo's
  // first view, then the zoomed graph; forward comes back to the node.
  await page.locator('.files .file').filter({ hasText: 'irpgo-progA.profraw' }).click();
  await linked(page, 'doc', '0');
  const firstTab = params(page).get('tab');
  await page.getByRole('tab', { name: 'Dump' }).click();
  await linked(page, 'tab', 'dump');
  const tree = page.locator('[role=tree]');
  const node = tree.locator('[role=treeitem][aria-level="2"]').last();
  await node.click();
  const label = (await node.innerText()).split('\n')[0];
  await linked(page, 'node', String((await tree.locator('[role=treeitem][aria-level="2"]').count()) - 1));
  const nodePath = params(page).get('node');
  await page.goBack();
  await page.waitForFunction(() => !new URLSearchParams(location.hash.slice(1)).has('node'));
  assert.equal(await tree.locator('[role=treeitem][aria-selected=true]').getAttribute('aria-level'), '1');
  await page.goBack();
  await linked(page, 'tab', firstTab);
  await page.goBack();
  await linked(page, 'doc', '1');
  await page.getByRole('tab', { name: 'Flame graph', selected: true }).waitFor();
  await page.waitForFunction(() => document.querySelector('.flame-main canvas')?.dataset.zoom === '20-100');
  await page.goForward();
  await page.goForward();
  await page.goForward();
  await linked(page, 'node', nodePath);
  await tree.locator('[role=treeitem][aria-selected=true]').filter({ hasText: label }).waitFor();

  // A reload on the dump: the demo comes back by itself, the stacks are asked for.
  await page.reload();
  await page.locator('.link-waiting').filter({ hasText: 'synthetic.stacks' }).waitFor({ timeout: 15000 });
  await dropFiles(page, [stacks]);
  await tree.locator('[role=treeitem][aria-selected=true]').filter({ hasText: label }).waitFor({ timeout: 15000 });
  assert.equal(params(page).get('node'), nodePath);
  assert.deepEqual(errors, []);
  await page.close();
});
