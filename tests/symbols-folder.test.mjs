// Browser tests of symbolizing a recording from what the person gives the page: a
// folder (the corpus's sysroot and the program, through the folder picker) and a
// kallsyms file, and the Symbols panel that says, per DSO, what named it. The names
// and counts are perf's, read from the corpus's `perf script` and `perf
// buildid-list` outputs. Run `npm run build` first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { corpus, corpusFiles, dropFiles, useSite } from './lib/harness.mjs';

const site = useSite();

const LIBC_ID = '93ac61ec5a8eb1396f9fbd350e3169a558528a40';

/** Drops the corpus recording `rel` and waits for it to open on its flame graph. */
async function openRecording(page, rel) {
  await dropFiles(page, await corpusFiles([rel]));
  await page.locator('[role=status]').filter({ hasText: path.basename(rel) }).filter({ hasText: 'perf' }).waitFor({ timeout: 30000 });
  await page.getByRole('tab', { name: 'Flame graph', selected: true }).waitFor();
}

/** A folder as a build would leave it: the corpus sysroot beside the program, under `tmp`. */
async function buildFolder() {
  const tmp = await mkdtemp(path.join(tmpdir(), 'pgolens-folder-'));
  const dir = path.join(tmp, 'build');
  await cp(path.join(corpus, 'bolt-perf/sysroot'), path.join(dir, 'sysroot'), { recursive: true });
  await cp(path.join(corpus, 'bolt-perf/cprog/cprog'), path.join(dir, 'cprog'));
  return { tmp, dir };
}

/** perf script's samples (blank-line separated) and how many hold a frame named `name`. */
async function samplesWith(rel, name) {
  const script = await readFile(path.join(corpus, rel), 'utf8');
  const samples = script.split(/\n\n+/).filter((s) => s.includes('cpu-clock'));
  const holding = samples.filter((s) => s.split('\n').slice(1).some((l) => l.trim().split(/\s+/)[1]?.replace(/\+0x[0-9a-f]+$/, '') === name));
  return { total: samples.length, holding: holding.length };
}

/** Searches the flame graph for `name`: the share of samples the page says match. */
async function searchShare(page, name, { total, holding }) {
  await page.locator('.flame-search').fill(name);
  const share = ((holding * 100) / total).toFixed(2);
  await page.locator('.flame-share', { hasText: `${share}% of samples match` }).waitFor({ timeout: 30000 });
}

test('a folder (sysroot and program) names libc frames, and those of a recording opened after it; the Symbols panel lists libc with its build id and debug file', async () => {
  const { page, errors } = await site.open();
  const PERF = 'bolt-perf/cprog/cprog.fp.perf.data';
  await openRecording(page, PERF);

  const { tmp, dir } = await buildFolder();
  try {
    await page.locator('.symbols-toggle').click();
    await page.locator('.symbols-panel').waitFor();
    await page.locator('.symbols-panel input[webkitdirectory]').setInputFiles(dir);

    // cprog.fp.perf.data.buildids.txt: libc.so.6 has build id 93ac61ec…; the
    // sysroot's libc matches it, and its debug file under .build-id/93/.
    const libc = page.locator('.symbols-panel tr[data-dso="/usr/lib/x86_64-linux-gnu/libc.so.6"]');
    await libc.locator('.matched', { hasText: 'libc.so.6' }).waitFor({ timeout: 30000 });
    const cells = await libc.locator('td').allInnerTexts();
    assert.equal(cells[1], LIBC_ID);
    // Paths as the folder picker gives them, from the folder picked.
    assert.equal(cells[3], 'build/sysroot/usr/lib/x86_64-linux-gnu/libc.so.6');
    assert.equal(cells[4], `build/sysroot/usr/lib/debug/.build-id/93/${LIBC_ID.slice(2)}.debug`);
    // Its samples: those whose ip perf script puts in libc.
    const script = await readFile(path.join(corpus, `${PERF}.script.txt`), 'utf8');
    const leaves = script.split(/\n\n+/).map((s) => s.split('\n')[1] ?? '');
    assert.equal(cells[2], String(leaves.filter((l) => l.endsWith('/libc.so.6)')).length));
    // The program too, by its build id (ac5e5d2c…).
    const cprog = page.locator('.symbols-panel tr[data-dso="/tmp/corpusB/work/cprog/cprog"]');
    assert.equal(await cprog.locator('.matched').innerText(), 'build/cprog');
    assert.match(await page.locator('.symbols-toggle').innerText(), /^Symbols: \d+ of \d+ DSOs$/);

    // The flame graph has libc's names: perf script's msort_with_tmp.part.0.
    await searchShare(page, 'msort_with_tmp.part.0', await samplesWith(`${PERF}.script.txt`, 'msort_with_tmp.part.0'));

    // A recording opened after the folder was given is named by it too, without
    // giving it again: the pipe recording's libc (no build id: by name) and its
    // kernel frames (the sysroot's kallsyms).
    const PIPE = 'bolt-perf/cprog/cprog.pipe.perf.data';
    await dropFiles(page, await corpusFiles([PIPE]));
    await page.locator('[role=status]').filter({ hasText: 'cprog.pipe.perf.data' }).filter({ hasText: 'perf' }).waitFor({ timeout: 30000 });
    await page.locator('.symbols-toggle').click();
    const pipeLibc = page.locator('.symbols-panel tr[data-dso="/usr/lib/x86_64-linux-gnu/libc.so.6"]');
    await pipeLibc.locator('.matched', { hasText: 'libc.so.6' }).waitFor({ timeout: 30000 });
    assert.equal((await pipeLibc.locator('td').allInnerTexts())[3], 'build/sysroot/usr/lib/x86_64-linux-gnu/libc.so.6');
    await page.locator('.symbols-panel tr[data-dso="[kernel.kallsyms]"] .matched', { hasText: 'kallsyms' }).waitFor({ timeout: 30000 });
    await page.getByRole('tab', { name: 'Flame graph' }).click();
    await searchShare(page, 'do_syscall_64', await samplesWith(`${PIPE}.script-ip.txt`, 'do_syscall_64'));
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('a --call-graph dwarf recording without its binaries says its chains need them; given them, it has perf\'s chains', async () => {
  const { page, errors } = await site.open();
  const PERF = 'bolt-perf/cprog/cprog.dwarf.perf.data';
  await openRecording(page, PERF);
  // Its samples hold copies of the user stack, not chains: without the binaries'
  // call-frame information every sample is its leaf alone, and the note says why.
  await page.locator('.flat-note', { hasText: 'copied each sample\'s user stack (--call-graph dwarf)' }).waitFor();
  assert.equal(await page.locator('.flat-note', { hasText: 'no call chains' }).count(), 0);

  const { tmp, dir } = await buildFolder();
  try {
    await page.locator('.symbols-toggle').click();
    await page.locator('.symbols-panel input[webkitdirectory]').setInputFiles(dir);
    await page.locator('.symbols-panel tr[data-dso="/usr/lib/x86_64-linux-gnu/libc.so.6"] .matched', { hasText: 'libc.so.6' }).waitFor({ timeout: 30000 });
    await page.locator('.symbols-toggle').click();
    // Unwound now: the graph has depth, and as many samples reach main (through
    // libc's qsort too) as perf script unwinds to it.
    await page.locator('.flame-main canvas').waitFor({ timeout: 30000 });
    assert.equal(await page.locator('.flat-note').count(), 0);
    const main = await samplesWith(`${PERF}.script.txt`, 'main');
    assert.ok(main.holding > main.total / 2, JSON.stringify(main));
    await searchShare(page, 'main', main);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('a kallsyms file dropped names kernel frames, and the Symbols panel says the kernel is named', async () => {
  const { page, errors } = await site.open();
  const PERF = 'bolt-perf/cprog/cprog.pipe.perf.data';
  await dropFiles(page, await corpusFiles([PERF]));
  await page.locator('[role=status]').filter({ hasText: 'cprog.pipe.perf.data' }).filter({ hasText: 'perf' }).waitFor({ timeout: 30000 });
  await page.locator('.symbols-toggle').click();
  const kernel = page.locator('.symbols-panel tr[data-dso="[kernel.kallsyms]"]');
  await kernel.locator('.matched', { hasText: 'missing' }).waitFor({ timeout: 30000 });
  // The sysroot's kallsyms is of the boot that recorded the pipe files.
  await dropFiles(page, await corpusFiles(['bolt-perf/sysroot/proc/kallsyms']));
  await kernel.locator('.matched', { hasText: 'kallsyms' }).waitFor({ timeout: 30000 });
  await page.getByRole('button', { name: /^Symbols/ }).waitFor();
  // cprog.pipe.perf.data.script-ip.txt: "ffffffff8225a6c1 do_syscall_64".
  await page.getByRole('tab', { name: 'Flame graph' }).click();
  await searchShare(page, 'do_syscall_64', await samplesWith(`${PERF}.script-ip.txt`, 'do_syscall_64'));
  // Its kernel samples: those whose ip perf script puts in the kernel.
  const script = await readFile(path.join(corpus, `${PERF}.script-F.txt`), 'utf8');
  const leaves = script.split(/\n\n+/).map((s) => s.split('\n')[1] ?? '');
  const inKernel = leaves.filter((l) => l.endsWith('([kernel.kallsyms])')).length;
  assert.equal((await kernel.locator('td').allInnerTexts())[2], String(inKernel));
  assert.deepEqual(errors, []);
  await page.close();
});
