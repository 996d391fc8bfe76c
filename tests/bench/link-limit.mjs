// Chromium's real URL length limit (not part of `npm test`): bisects the longest
// fragment a page.goto to a local page keeps, reading the length back from the page.
// What Share's link limit (web/src/components/share.rs LINK_LIMIT) is weighed against.
//
//   node tests/bench/link-limit.mjs

import { createServer } from 'node:http';

import { launch } from '../lib/harness.mjs';

const server = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>link</title>'));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}/page#`;
const browser = await launch();
const page = await browser.context.newPage();

/** Whether a URL of `length` characters arrives whole. */
async function arrives(length) {
  const url = base + 'a'.repeat(length - base.length);
  try {
    await page.goto('about:blank');
    await page.goto(url, { timeout: 10000 });
    return (await page.evaluate(() => location.href.length)) === length;
  } catch {
    return false;
  }
}

try {
  let good = base.length + 1;
  let bad = 64 << 20;
  if (!(await arrives(good))) throw new Error('a short URL does not arrive');
  if (await arrives(bad)) throw new Error(`a ${bad}-character URL arrives: no limit below it`);
  while (bad - good > 1) {
    const mid = Math.floor((good + bad) / 2);
    if (await arrives(mid)) good = mid;
    else bad = mid;
  }
  const version = browser.context.browser()?.version() ?? (await page.evaluate(() => navigator.userAgent));
  console.log(`Chromium ${version}: the longest URL page.goto keeps is ${good} characters (${bad} is not)`);
} finally {
  await browser.close();
  server.close();
}
