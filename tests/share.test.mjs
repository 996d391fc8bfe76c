// Share's Copy link (web/src/components/share.rs): a small profile travels in the
// link itself (`data=`: raw deflate, base64url) and a fresh browser opening the link
// shows it; a profile too large for a link is said not to fit, with its sizes and
// the other ways to share it. Run `npm run build` first.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { corpus, dropFiles, launch, serve } from './lib/harness.mjs';

// A sample profile of 7 functions (llvm-profdata show --sample lists them).
const SAMPLE = 'llvm/sample-basic/sample-basic.text.prof';
// A perf.data of zstd-compressed records: 108,556 bytes that deflate hardly shrinks.
const TOO_BIG = 'peers/linux-perf-data/fibo.compressed2.pipe.data';
// share.rs LINK_LIMIT.
const LINK_LIMIT = 32 * 1024;

let server;

before(async () => {
  server = await serve();
});

after(async () => {
  await server?.close();
});

function statusShows(page, text) {
  return page.locator('[role=status]').filter({ hasText: text }).first().waitFor({ timeout: 20000 });
}

/** A page of the site with the demo shown and `file` dropped on it, and its Share panel open. */
async function shareOf(browser, file) {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  await page.goto(server.url);
  await statusShows(page, 'instrprof-raw');
  await dropFiles(page, [{ name: path.basename(file), bytes: await readFile(path.join(corpus, file)) }]);
  await statusShows(page, path.basename(file));
  await page.getByRole('button', { name: 'Share' }).click();
  await page.getByRole('button', { name: 'Copy link' }).click();
  return { page, errors };
}

test('Copy link carries a small profile: a fresh browser opening the link shows it', async () => {
  const browser = await launch();
  let link;
  try {
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(server.url).origin });
    const { page, errors } = await shareOf(browser, SAMPLE);
    const field = page.getByRole('textbox', { name: 'Link to share' });
    await field.waitFor({ timeout: 20000 });
    link = await field.inputValue();
    assert.match(await page.locator('.share-status').innerText(), new RegExp(`^Link copied \\(${link.length} characters\\)`));
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
    assert.ok(link.startsWith(server.url + '#'), link);
    assert.ok(link.length <= LINK_LIMIT, `${link.length} characters`);
    // One data= per file= (the demo and the sample), in order.
    const fragment = new URLSearchParams(new URL(link).hash.slice(1));
    assert.deepEqual(
      fragment.getAll('file').map((f) => f.split('.').slice(2).join('.')),
      ['irpgo-progA.profraw', path.basename(SAMPLE)],
    );
    assert.equal(fragment.getAll('data').length, 2);
    assert.ok(fragment.getAll('data').every((d) => /^[A-Za-z0-9_-]+$/.test(d)));
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }

  // Another browser, nothing cached: the files come out of the link.
  const fresh = await launch();
  try {
    const requests = [];
    const page = await fresh.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e));
    page.on('request', (r) => requests.push(new URL(r.url()).pathname));
    await page.goto(link);
    await page.locator('.files .file-name').nth(1).waitFor({ timeout: 20000 });
    assert.deepEqual(await page.locator('.files .file-name').allInnerTexts(), ['irpgo-progA.profraw', path.basename(SAMPLE)]);
    // The sample was shown when the link was made: its 7 functions.
    await page.locator('.file-select', { hasText: path.basename(SAMPLE) }).click();
    await statusShows(page, 'sample-text');
    await page.locator('.sample-functions .fn-count').filter({ hasText: '7 functions' }).waitFor();
    assert.equal(await page.locator('.sample-functions .fn-body [role=row][data-id]').count(), 7);
    // The demo came from the link too, not from the site.
    assert.ok(!requests.some((p) => p.endsWith('.profraw')), requests.join(' '));
    assert.deepEqual(errors, []);
  } finally {
    await fresh.close();
  }
});

test('a profile too large for a link is said not to fit, with its sizes and the other ways', async () => {
  const browser = await launch();
  try {
    const { page, errors } = await shareOf(browser, TOO_BIG);
    const status = page.locator('.share-status');
    await status.filter({ hasText: 'do not fit' }).waitFor({ timeout: 20000 });
    const text = await status.innerText();
    const [, length] = /it would be (\d+) characters, and links are kept under (\d+)/.exec(text);
    assert.ok(Number(length) > LINK_LIMIT, text);
    assert.match(text, new RegExp(`fibo\\.compressed2\\.pipe\\.data: 106\\.0 KiB compressed to \\d+\\.\\d KiB`));
    assert.match(await page.locator('.share-alternatives').innerText(), /Download HTML/);
    assert.equal(await page.getByRole('textbox', { name: 'Link to share' }).count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('a link whose data= does not decode says so, in the page and the console', async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const errors = [];
    const logged = [];
    page.on('pageerror', (e) => errors.push(e));
    page.on('console', (m) => m.type() === 'error' && logged.push(m.text()));
    // Not base64url (`!`), then base64url that is not raw deflate.
    await page.goto(`${server.url}#file=5..bad.prof&file=3..worse.prof&data=ab!c&data=AAAA`);
    const alert = page.getByText(/the link's data= for bad\.prof does not decode: not base64url: Invalid symbol 33, offset 2/);
    await alert.first().waitFor({ timeout: 20000 });
    await page.locator('.file-select', { hasText: 'worse.prof' }).click();
    await page.getByText(/the link's data= for worse\.prof does not decode: not raw deflate/).first().waitFor();
    assert.deepEqual(await page.locator('.files .file-name').allInnerTexts(), ['bad.prof', 'worse.prof']);
    assert.equal(logged.filter((l) => l.includes("the link's data= for")).length, 2);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
