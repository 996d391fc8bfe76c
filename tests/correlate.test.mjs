// Browser test of correlated raw profiles: a binary-correlated .profraw holds only
// counters; dropping its ELF (with it or later) decodes it. Checked against
// `llvm-profdata merge --text` of the same file (`.proftext`). Run `npm run build` first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { corpus, corpusFiles, dropFiles, parseProftext, useSite } from './lib/harness.mjs';

const DIR = 'llvm/bincorr-progB';
const RAW = `${DIR}/bincorr-progB.profraw`;
const ELF = `${DIR}/bincorr-progB.elf`;

const site = useSite();

test('a binary-correlated raw profile needs its ELF, then shows its functions', async () => {
  const records = parseProftext(await readFile(path.join(corpus, `${RAW}.proftext`), 'utf8'));
  assert.ok(records.length > 0);
  const { page, errors } = await site.open();
  await dropFiles(page, await corpusFiles([RAW]));
  const status = page.locator('[role=status]');
  await status.filter({ hasText: 'bincorr-progB.profraw' }).filter({ hasText: 'needs its binary' }).waitFor({ timeout: 15000 });
  assert.equal(await page.getByRole('tab', { name: 'Functions' }).count(), 0);
  assert.match(await page.getByRole('note').innerText(), /binary/);

  // The ELF, dropped later (it opens in the background: the profile stays shown).
  await dropFiles(page, await corpusFiles([ELF]));
  await page.locator('.file-select', { hasText: 'bincorr-progB.profraw' }).click();
  await status.filter({ hasText: 'correlated with bincorr-progB.elf' }).waitFor({ timeout: 15000 });
  await page.getByRole('tab', { name: 'Functions' }).click();
  const rows = page.locator('.fn-body [role=row][data-id]');
  await rows.first().waitFor();
  assert.equal(Number(await page.getByRole('grid', { name: 'Functions' }).getAttribute('aria-rowcount')), records.length);
  // A function with several counters: the same counters as llvm-profdata's.
  const f = records.reduce((a, b) => (b.counts.length > a.counts.length ? b : a));
  await page.getByRole('searchbox', { name: 'Filter functions' }).fill(f.name);
  await page.waitForFunction((n) => {
    const r = document.querySelectorAll('.fn-body [role=row][data-id] .fn-name');
    return r.length >= 1 && [...r].some((e) => e.title === n);
  }, f.name);
  await page.locator(`.fn-body .fn-name[title="${f.name}"]`).click();
  const detail = page.getByRole('complementary', { name: 'Function detail' });
  await detail.locator('.counter-values li').first().waitFor();
  assert.deepEqual((await detail.locator('.counter-values .counter-value').allInnerTexts()).map(Number), f.counts);
  assert.deepEqual(errors, []);
  await page.close();
});
