// What the benchmarks that watch the page's worker share: the DevTools protocol
// spoken directly over a page's socket (Playwright gives no session on a
// dedicated worker), and a drop timed until its tab is drawn.
// Chromium must be launched with --remote-debugging-port=PORT
// (PGOLENS_CHROMIUM_ARGS, see harness.mjs).

import path from 'node:path';

/**
 * Connects to the page whose URL starts with `pageUrl`. `send(method, params,
 * sessionId)` calls a method (`sessionId` picks an attached target, such as the
 * worker); `attached` collects the targets attached so far.
 */
export async function devtools(port, pageUrl) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const target = targets.find((t) => t.type === 'page' && t.url.startsWith(pageUrl));
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve);
    ws.addEventListener('error', reject);
  });
  let next = 0;
  const pending = new Map();
  const attached = [];
  ws.addEventListener('message', (event) => {
    const m = JSON.parse(event.data);
    if (m.id && pending.has(m.id)) {
      pending.get(m.id)(m);
      pending.delete(m.id);
    }
    if (m.method === 'Target.attachedToTarget') attached.push(m.params);
  });
  const send = (method, params = {}, sessionId = undefined) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      pending.set(id, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
      ws.send(JSON.stringify({ id, method, params, sessionId }));
    });
  return { send, attached, close: () => ws.close() };
}

/** Attaches to the page's dedicated worker (waiting up to 5 s for it): its session id. */
export async function workerSession(dt) {
  await dt.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
  const deadline = Date.now() + 5000;
  while (!dt.attached.some((t) => t.targetInfo.type === 'worker') && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const worker = dt.attached.find((t) => t.targetInfo.type === 'worker');
  if (!worker) throw new Error('no worker attached');
  return worker.sessionId;
}

/**
 * Drops `file` on the page, waits for it to open, shows `tab` and waits for its
 * first drawing: a canvas in it painted (flame graph, graphs) or its table's
 * first row.
 */
export async function dropUntilDrawn(page, file, tab, timeout) {
  await page.locator('input[type=file]').setInputFiles(file);
  await page.locator('[role=status]').filter({ hasText: path.basename(file) }).waitFor({ timeout });
  await page.getByRole('tab', { name: tab }).click({ timeout });
  await page.waitForFunction(
    () => {
      const panel = [...document.querySelectorAll('[role=tabpanel]')].find((p) => !p.hidden) ?? document;
      return (
        [...panel.querySelectorAll('canvas[data-paints]')].some((c) => Number(c.dataset.paints) > 0) ||
        panel.querySelector('[role=row][data-id]') !== null
      );
    },
    null,
    { timeout, polling: 50 },
  );
}

/**
 * Opens pgolens at `url` in a new page of `browser` and waits for its demo; then
 * connects to it (`port`: Chromium's debugging port) and attaches to its worker.
 */
export async function openWatched(browser, url, port) {
  const page = await browser.context.newPage();
  await page.goto(url);
  await page.locator('[role=status]').filter({ hasText: 'instrprof-raw' }).waitFor({ timeout: 30000 });
  const dt = await devtools(port, url);
  return { page, dt, worker: await workerSession(dt) };
}
