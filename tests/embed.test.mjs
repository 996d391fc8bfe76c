// Embedding (web/src/embed.rs): a page of another origin frames pgolens, or opens it
// with window.open, waits for `pgolens:ready`, posts profile bytes with
// `pgolens:open`, and gets `pgolens:opened` back; the files open as a drop of them
// would. The embedder is served here, on another port: the two pages are
// cross-origin, as a dashboard and pgolens are (both on loopback: Chromium blocks a
// public page from framing a local one). Run `npm run build` first.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { corpus, launch, serve } from './lib/harness.mjs';

const BASIC = 'llvm/sample-basic/sample-basic';

// Collects every message it gets in `messages`; `frame` or `popup` is pgolens.
const OUTER = `<!doctype html>
<meta charset="utf-8">
<title>embedder</title>
<script>
  window.messages = [];
  addEventListener('message', (e) => messages.push({ data: e.data, origin: e.origin }));
  window.frameIt = (url) => {
    const frame = document.createElement('iframe');
    frame.src = url;
    frame.style.cssText = 'width: 1200px; height: 700px';
    document.body.append(frame);
    window.target = frame.contentWindow;
  };
  window.openIt = (url) => {
    window.target = window.open(url, '_blank');
  };
</script>
<body></body>`;

let server;
let embedder;
let EMBEDDER;
let browser;

before(async () => {
  server = await serve();
  embedder = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(OUTER));
  await new Promise((resolve) => embedder.listen(0, '127.0.0.1', resolve));
  EMBEDDER = `http://127.0.0.1:${embedder.address().port}/`;
  browser = await launch();
});

after(async () => {
  await browser?.close();
  embedder?.closeAllConnections();
  await new Promise((resolve) => embedder?.close(resolve) ?? resolve());
  await server?.close();
});

/** Waits until the embedder holds `count` messages of type `type`; returns them. */
async function received(page, type, count = 1) {
  await page.waitForFunction(([type, count]) => messages.filter((m) => m.data?.type === type).length >= count, [
    type,
    count,
  ]);
  return page.evaluate((type) => messages.filter((m) => m.data?.type === type), type);
}

/** Posts `message` to pgolens, with `files` ([{ name, bytes }]) as transferred ArrayBuffers. */
async function post(page, message, files = []) {
  const payload = files.map(({ name, bytes }) => ({ name, b64: Buffer.from(bytes).toString('base64') }));
  await page.evaluate(
    ([message, files, origin]) => {
      const buffers = files.map(({ name, b64 }) => ({ name, buffer: Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)).buffer }));
      if (buffers.length > 0) message.files = buffers;
      target.postMessage(message, origin, buffers.map((f) => f.buffer));
    },
    [message, payload, new URL(server.url).origin],
  );
}

async function corpusFile(file) {
  return { name: path.basename(file), bytes: await readFile(path.join(corpus, file)) };
}

/** The Functions tab of a sample profile, shown in `view` (a page or a frame locator). */
async function sampleShown(view, format, count) {
  await view.locator('[role=status]').filter({ hasText: format }).waitFor({ timeout: 15000 });
  await view.getByRole('tab', { name: 'Functions', selected: true }).waitFor();
  await view.locator('.sample-functions .fn-count').filter({ hasText: `${count} functions` }).waitFor();
  return view.locator('.sample-functions .fn-body [role=row][data-id]').count();
}

test('a framing page of another origin opens a profile after the ready handshake', async () => {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  await page.goto(EMBEDDER);
  await page.evaluate((url) => frameIt(url), server.url);

  const [ready] = await received(page, 'pgolens:ready');
  assert.deepEqual(ready.data, { type: 'pgolens:ready', version: 1 });
  assert.equal(ready.origin, new URL(server.url).origin);
  // A ping is answered with the same message, to the pinger.
  await post(page, { type: 'pgolens:ping' });
  const readies = await received(page, 'pgolens:ready', 2);
  assert.deepEqual(readies[1].data, ready.data);

  // Malformed messages are ignored: no answer, nothing opened, no error.
  await post(page, { type: 'pgolens:open', files: 'sample-basic.text.prof' });
  await post(page, { type: 'pgolens:open', files: [{ name: 'x.prof', buffer: 'not bytes' }] });
  await post(page, { type: 'pgolens:open', files: [] });
  await post(page, 'pgolens:open');

  await post(page, { type: 'pgolens:open' }, [await corpusFile(`${BASIC}.text.prof`)]);
  const opened = await received(page, 'pgolens:opened');
  assert.equal(opened.length, 1, 'only the well-formed open is answered');
  assert.deepEqual(opened[0].data, { type: 'pgolens:opened', names: ['sample-basic.text.prof'] });

  const frame = page.frameLocator('iframe');
  assert.equal(await sampleShown(frame, 'sample-text', 7), 7);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a page that opened pgolens sends it several files and picks the one shown', async () => {
  const page = await browser.context.newPage();
  await page.goto(EMBEDDER);
  const [popup] = await Promise.all([
    browser.context.waitForEvent('page'),
    page.evaluate((url) => openIt(url), server.url),
  ]);
  const errors = [];
  popup.on('pageerror', (e) => errors.push(e));

  await received(page, 'pgolens:ready');
  const files = [await corpusFile(`${BASIC}.text.prof`), await corpusFile(`${BASIC}.extbinary.prof`)];
  await post(page, { type: 'pgolens:open', select: 'sample-basic.extbinary.prof' }, files);
  const [opened] = await received(page, 'pgolens:opened');
  assert.deepEqual(opened.data.names, ['sample-basic.text.prof', 'sample-basic.extbinary.prof']);

  assert.equal(await sampleShown(popup, 'sample-extbinary', 7), 7);
  assert.deepEqual(errors, []);
  await popup.close();
  await page.close();
});
