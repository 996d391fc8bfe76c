// What the browser tests and the page benchmark share: a static server for dist/
// on a free loopback port, Debian's chromium driven by playwright-core, a test
// file's site (both, and tabs with the demo open), corpus files to drop, and readers
// of the references the tests compare with (a .proftext's records, a file's
// fingerprint as links name it).

import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { after, before } from 'node:test';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// PGOLENS_DIST: the site built elsewhere (scripts/build.sh honours it too).
export const dist = path.resolve(repoRoot, process.env.PGOLENS_DIST ?? 'dist');
export const corpus = path.join(repoRoot, 'tests', 'corpus');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
};

/**
 * Serves `root` on 127.0.0.1 at a free port, under the path `prefix` (anything else
 * is 404); `onRequest(url)` hears of every request that reaches it. Resolves to
 * { url, close }.
 */
export async function serve(root = dist, { prefix = '/', onRequest } = {}) {
  await stat(path.join(root, 'index.html')).catch(() => {
    throw new Error(`${root}/index.html missing: run \`npm run build\` first`);
  });
  const server = createServer(async (req, res) => {
    onRequest?.(req.url);
    const url = new URL(req.url, 'http://localhost');
    if (!url.pathname.startsWith(prefix)) {
      res.writeHead(404).end('not found');
      return;
    }
    let file = path.normalize(path.join(root, decodeURIComponent(url.pathname.slice(prefix.length))));
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    try {
      if ((await stat(file)).isDirectory()) file = path.join(file, 'index.html');
      const info = await stat(file);
      res.writeHead(200, {
        'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        'content-length': info.size,
        'cache-control': 'no-store',
      });
      createReadStream(file).pipe(res);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(resolve);
      }),
  };
}

/** Debian's chromium, headless, in a fresh profile. Resolves to { context, close }. */
export async function launch() {
  const profile = await mkdtemp(path.join(tmpdir(), 'pgolens-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--enable-precise-memory-info',
      // Extra flags for a bench run (space-separated), e.g. --js-flags=--no-liftoff.
      ...(process.env.PGOLENS_CHROMIUM_ARGS?.split(' ').filter(Boolean) ?? []),
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * One test file's site: a server and a Chromium for all its tests, closed after
 * them. `open({ width, height })` gives a new tab (of that size, if given) on the
 * site with its demo decoded, and the list the page's errors go to.
 */
export function useSite() {
  const site = {};
  before(async () => {
    site.server = await serve();
    site.browser = await launch();
  });
  after(async () => {
    await site.browser?.close();
    await site.server?.close();
  });
  site.open = async ({ width, height } = {}) => {
    const page = await site.browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e));
    if (width && height) await page.setViewportSize({ width, height });
    await page.goto(site.server.url);
    await page.locator('[role=status]').filter({ hasText: 'instrprof-raw' }).waitFor({ timeout: 15000 });
    return { page, errors };
  };
  return site;
}

/** Corpus files (paths under tests/corpus/) as files to drop: [{ name, bytes }]. */
export function corpusFiles(rels) {
  return Promise.all(
    rels.map(async (rel) => ({ name: path.basename(rel), bytes: await readFile(path.join(corpus, rel)) })),
  );
}

/**
 * Drops files on the page as a user would: a DataTransfer holding Files built in the
 * page, dispatched as dragenter, dragover and drop. `files`: [{ name, bytes }].
 */
export async function dropFiles(page, files) {
  const payload = files.map(({ name, bytes }) => ({ name, b64: Buffer.from(bytes).toString('base64') }));
  await page.evaluate((files) => {
    const dt = new DataTransfer();
    for (const { name, b64 } of files) {
      const binary = atob(b64);
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      dt.items.add(new File([bytes], name));
    }
    const target = document.querySelector('main') ?? document.body;
    for (const type of ['dragenter', 'dragover', 'drop']) {
      target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    }
  }, payload);
}

/** The records of a .proftext (`llvm-profdata merge --text`): [{ name, counts }]. */
export function parseProftext(text) {
  const records = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith('#') || lines[i].startsWith(':') || !lines[i]) continue;
    if (!/^# Func Hash:/.test(lines[i + 1] ?? '')) continue;
    const n = Number(lines[i + 4]);
    records.push({ name: lines[i], counts: lines.slice(i + 6, i + 6 + n).map(Number) });
  }
  return records;
}

/** The fingerprint a link names a file by: SHA-256 over the SHA-256s of its 4 MiB blocks. */
export function fingerprint(bytes) {
  const list = [];
  for (let at = 0; at < bytes.length; at += 4 << 20) {
    list.push(createHash('sha256').update(bytes.subarray(at, at + (4 << 20))).digest());
  }
  return createHash('sha256').update(Buffer.concat(list)).digest('hex');
}
