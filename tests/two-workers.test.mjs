// Browser test of a recording read by two workers (web/worker/worker.js,
// SPLIT_ABOVE): opened with `?split-above=0`, the page reads every recording so, a
// helper worker reading its records up to the cut; what it shows is what perf
// report prints, as when one worker reads it (flame.test.mjs). Run `npm run build`
// first.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { corpus, corpusFiles, dropFiles, useSite } from './lib/harness.mjs';

const site = useSite();

const PERF = 'bolt-perf/cprog/cprog.fp.perf.data';

/** A tab on the site opened with `query`, its demo decoded, and the workers it started. */
async function openWith(query) {
  const page = await site.browser.context.newPage();
  const errors = [];
  const workers = [];
  page.on('pageerror', (e) => errors.push(e));
  // The workers' warnings (a first part that did not come) are errors here.
  page.on('worker', (w) => {
    workers.push(w.url());
    w.on('console', (m) => m.type() === 'warning' && errors.push(m.text()));
  });
  await page.goto(site.server.url + query);
  await page.locator('[role=status]').filter({ hasText: 'instrprof-raw' }).waitFor({ timeout: 15000 });
  return { page, errors, workers };
}

test('a recording read by two workers shows the samples and self shares perf report prints', async () => {
  const { page, errors, workers } = await openWith('?split-above=0');
  await dropFiles(page, await corpusFiles([PERF, 'bolt-perf/cprog/cprog']));
  await page.locator('[role=status]').filter({ hasText: 'perf.data' }).waitFor({ timeout: 30000 });
  // perf report: "Samples: 469  of event 'cpu-clock'".
  const report = await readFile(path.join(corpus, `${PERF}.report.txt`), 'utf8');
  const [, samples] = /^# Samples: (\d+)\s+of event/m.exec(report);
  await page.locator('.flame-symbols', { hasText: 'cprog' }).waitFor({ timeout: 30000 });
  await page.locator('.flame-total').filter({ hasText: `${samples} samples` }).waitFor();
  const overheads = [...report.matchAll(/^\s+(\d+\.\d+)%\s+cprog\s+\[\.\] (\S+)\s*$/gm)].map((m) => [m[2], `${m[1]}%`]);
  assert.ok(overheads.length >= 4, JSON.stringify(overheads));
  await page.getByRole('tab', { name: 'Functions' }).click();
  await page.locator('[role=columnheader][data-column=self] button').click();
  await page.waitForFunction(() => document.querySelector('.fn-body [role=row][data-id] .fn-name')?.textContent === 'hot_loop');
  const shown = new Map(
    await page
      .locator('.fn-body [role=row][data-id]')
      .evaluateAll((els) => els.map((e) => [e.querySelector('.fn-name').textContent, e.querySelector('.fn-self-pct').textContent])),
  );
  for (const [name, percent] of overheads) assert.equal(shown.get(name), percent, name);
  // The helper is this worker's script at `worker.js?helper` (Playwright reports
  // a nested worker a moment after it started).
  for (let i = 0; i < 100 && !workers.some((url) => /worker\.js\?.*helper/.test(url)); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(workers.some((url) => /worker\.js\?.*helper/.test(url)), JSON.stringify(workers));
  assert.deepEqual(errors, []);
  await page.close();
});

test('without the parameter a recording is read by one worker', async () => {
  const { page, errors, workers } = await openWith('');
  await dropFiles(page, await corpusFiles([PERF]));
  await page.locator('[role=status]').filter({ hasText: 'perf.data' }).waitFor({ timeout: 30000 });
  const report = await readFile(path.join(corpus, `${PERF}.report.txt`), 'utf8');
  const [, samples] = /^# Samples: (\d+)\s+of event/m.exec(report);
  await page.locator('.flame-total').filter({ hasText: `${samples} samples` }).waitFor();
  assert.deepEqual(workers.filter((url) => /helper/.test(url)), []);
  assert.deepEqual(errors, []);
  await page.close();
});
