// Browser tests of the MemProf tab, against llvm-profdata's `show --memory` of the
// same files (`.memory.yaml`). Run `npm run build` first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { corpus, corpusFiles, dropFiles, useSite } from './lib/harness.mjs';

const DIR = 'llvm/memprof-progA';
const INDEXED = `${DIR}/memprof-progA.profdata`;
const RAW = `${DIR}/memprof-progA.memprofraw`;

const site = useSite();

/** The allocation sites of an indexed profile's `show --memory` YAML, in order:
 *  [{ guid: BigInt, frames: [{ guid, line, column, inline }], info: { Field: Number } }]. */
function parseIndexedYaml(text) {
  const sites = [];
  let guid = null;
  let section = null;
  let site = null;
  for (const line of text.split('\n')) {
    let m;
    if ((m = /^  - GUID:\s+(0x[0-9a-f]+)/.exec(line))) {
      guid = BigInt(m[1]);
      section = null;
    } else if (/^    AllocSites:/.test(line)) section = 'alloc';
    else if (/^    CallSites:/.test(line)) section = 'call';
    else if (section === 'alloc' && /^      - Callstack:/.test(line)) {
      site = { guid, frames: [], info: {} };
      sites.push(site);
    } else if (section === 'alloc' && site && (m = /- \{ Function: (0x[0-9a-f]+), LineOffset: (\d+), Column: (\d+), IsInlineFrame: (\w+) \}/.exec(line))) {
      site.frames.push({ guid: BigInt(m[1]), line: Number(m[2]), column: Number(m[3]), inline: m[4] === 'true' });
    } else if (section === 'alloc' && site && (m = /^          (\w+):\s+(\d+)$/.exec(line))) {
      site.info[m[1]] = Number(m[2]);
    }
  }
  return sites;
}

/** Whether a table row shows this YAML site: its record and every metric the schema has. */
function sameSite(site, row) {
  return (
    site.guid === BigInt(row.guid) &&
    site.frames.length === row.Depth &&
    Object.entries(site.info).every(([field, value]) => !(field in row) || row[field] === value)
  );
}

async function open(file, format) {
  const { page, errors } = await site.open();
  await dropFiles(page, await corpusFiles([file]));
  await page.locator('[role=status]').filter({ hasText: format }).waitFor({ timeout: 15000 });
  await page.getByRole('tab', { name: 'MemProf' }).click();
  await rows(page).first().waitFor();
  return { page, errors };
}

function rows(page) {
  return page.locator('.memprof .fn-body [role=row][data-id]');
}

function header(page, column) {
  return page.locator(`.memprof [role=columnheader][data-column=${column}]`);
}

/** The rows shown: [{ guid, AllocCount, TotalSize, ... }] (metrics as numbers). */
function shownRows(page) {
  return rows(page).evaluateAll((els) =>
    els.map((e) => {
      const row = {};
      for (const cell of e.querySelectorAll('[data-column]')) {
        const c = cell.dataset.column;
        if (c === 'guid') row.guid = cell.textContent;
        else if (c !== 'name') row[c] = Number(cell.textContent);
      }
      return row;
    }),
  );
}

test('an indexed profile with MemProf lists every allocation site of show --memory with its metrics', async () => {
  const sites = parseIndexedYaml(await readFile(path.join(corpus, `${INDEXED}.memory.yaml`), 'utf8'));
  assert.ok(sites.length > 0);
  const { page, errors } = await open(INDEXED, 'instrprof-indexed');
  const table = page.getByRole('grid', { name: 'Allocation sites' });
  assert.equal(Number(await table.getAttribute('aria-rowcount')), sites.length);
  assert.match(await page.locator('.memprof .fn-count').innerText(), new RegExp(`^${sites.length} allocation sites`));

  // Sorted by total size, largest first, by default.
  const largest = Math.max(...sites.map((s) => s.info.TotalSize));
  assert.equal(await header(page, 'TotalSize').getAttribute('aria-sort'), 'descending');
  const shown = await shownRows(page);
  assert.equal(shown.length, sites.length);
  assert.equal(shown[0].TotalSize, largest);
  // Every row is a site of the YAML with the same record and metrics, each site once.
  const unmatched = [...sites];
  for (const row of shown) {
    const at = unmatched.findIndex((s) => sameSite(s, row));
    assert.ok(at >= 0, `row ${JSON.stringify(row)} is in the YAML`);
    const [match] = unmatched.splice(at, 1);
    assert.equal(row.AvgSize, Math.floor(match.info.TotalSize / match.info.AllocCount));
  }

  // Selecting the largest site shows its call stack (leaf first, inline frames marked) and fields.
  await rows(page).first().click();
  const detail = page.getByRole('complementary', { name: 'Allocation site' });
  await detail.locator('.mp-frame').first().waitFor();
  const top = shown[0];
  const site = sites.find((s) => sameSite(s, top));
  const frames = await detail.locator('.mp-frame').evaluateAll((els) =>
    els.map((e) => ({ guid: e.dataset.guid, inline: e.classList.contains('inline'), text: e.textContent })),
  );
  assert.equal(frames.length, site.frames.length);
  site.frames.forEach((f, i) => {
    assert.equal(BigInt(frames[i].guid), f.guid, `frame ${i}`);
    assert.equal(frames[i].inline, f.inline, `frame ${i} inline`);
    assert.ok(frames[i].text.includes(`line +${f.line}, column ${f.column}`), frames[i].text);
  });
  for (const [field, value] of Object.entries(site.info)) {
    assert.equal(Number(await detail.locator(`tr[data-field=${field}] td.num`).innerText()), value, field);
  }

  // Sorting by allocation count, then back to total size (largest first again).
  await header(page, 'AllocCount').locator('button').click();
  assert.equal(await header(page, 'AllocCount').getAttribute('aria-sort'), 'descending');
  const most = Math.max(...sites.map((s) => s.info.AllocCount));
  await page.waitForFunction(
    (n) => document.querySelector('.memprof .fn-body [role=row][data-id] [data-column=AllocCount]')?.textContent === String(n),
    most,
  );
  await header(page, 'TotalSize').locator('button').click();
  assert.equal(await header(page, 'TotalSize').getAttribute('aria-sort'), 'descending');
  await page.waitForFunction(
    (n) => document.querySelector('.memprof .fn-body [role=row][data-id] [data-column=TotalSize]')?.textContent === String(n),
    largest,
  );
  await header(page, 'TotalSize').locator('button').click();
  assert.equal(await header(page, 'TotalSize').getAttribute('aria-sort'), 'ascending');
  const smallest = Math.min(...sites.map((s) => s.info.TotalSize));
  await page.waitForFunction(
    (n) => document.querySelector('.memprof .fn-body [role=row][data-id] [data-column=TotalSize]')?.textContent === String(n),
    smallest,
  );
  assert.deepEqual(errors, []);
  await page.close();
});

test('a raw MemProf file lists its MemInfoBlocks with their stacks of addresses', async () => {
  const bytes = await readFile(path.join(corpus, RAW));
  // Header: Magic, Version, TotalSize, SegmentOffset, MIBOffset, ...; the MIB section starts with its count.
  const mibOffset = Number(bytes.readBigUInt64LE(32));
  const mibs = Number(bytes.readBigUInt64LE(mibOffset));
  const yaml = await readFile(path.join(corpus, `${RAW}.memory.yaml`), 'utf8');
  const { page, errors } = await open(RAW, 'memprof-raw');
  assert.equal(Number(await page.getByRole('grid', { name: 'Allocation sites' }).getAttribute('aria-rowcount')), mibs);
  assert.match(await page.locator('.memprof .fn-count').innerText(), /addresses, not symbolized/);
  const shown = await shownRows(page);
  assert.equal(shown.length, mibs);
  // llvm-profdata symbolizes with the binary and keeps the sites inside it: each of
  // its (AllocCount, TotalSize, TotalLifetime) is one of ours.
  const blocks = [...yaml.matchAll(/AllocCount: (\d+)\n(?:.*\n){3}\s+TotalSize: (\d+)\n(?:.*\n){4}\s+TotalLifetime: (\d+)/g)];
  assert.ok(blocks.length > 0);
  for (const [, count, size, lifetime] of blocks) {
    assert.ok(
      shown.some((r) => r.AllocCount === Number(count) && r.TotalSize === Number(size) && r.TotalLifetime === Number(lifetime)),
      `${count} allocations of ${size} bytes`,
    );
  }
  const binaryId = /BuildId: ([0-9a-f]+)/.exec(yaml)[1];
  // The largest of those: its frames are addresses, placed in the profiled binary.
  const target = Math.max(...blocks.map((b) => Number(b[2])));
  await rows(page).filter({ has: page.locator(`[data-column=TotalSize]`, { hasText: new RegExp(`^${target}$`) }) }).first().click();
  const detail = page.getByRole('complementary', { name: 'Allocation site' });
  await detail.locator('.mp-frame').first().waitFor();
  assert.match(await detail.locator('.mp-stack').innerText(), new RegExp(`0x[0-9a-f]+ in ${binaryId}`));
  assert.deepEqual(errors, []);
  await page.close();
});
