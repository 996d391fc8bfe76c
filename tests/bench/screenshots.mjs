// Screenshots of the stack views at 1000×700, for the docs (docs/screenshots/):
// the corpus's cprog.fp.perf.data with its binary, on each tab, with hot_loop
// selected; and the instrprof demo's Functions table and Summary.
//
//   npm run build && node tests/bench/screenshots.mjs [OUT_DIR]

import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';

import { corpus, dropFiles, launch, repoRoot, serve } from '../lib/harness.mjs';

const out = path.resolve(process.argv[2] ?? path.join(repoRoot, 'docs', 'screenshots'));
const CPROG = 'bolt-perf/cprog';

const server = await serve();
const browser = await launch();
await mkdir(out, { recursive: true });
const page = await browser.context.newPage();
await page.setViewportSize({ width: 1000, height: 700 });
await page.goto(server.url);
await page.locator('[role=status]').filter({ hasText: 'instrprof-raw' }).waitFor({ timeout: 15000 });
const shot = async (name) => {
  await page.waitForTimeout(400);
  await page.screenshot({ path: path.join(out, `${name}.png`) });
  console.log(path.join(out, `${name}.png`));
};

// The demo: an instrumentation profile's Functions (first row selected) and Summary.
await page.getByRole('tab', { name: 'Functions' }).click();
await page.locator('.fn-body [role=row][data-id]').first().click();
await page.locator('.counter-values li').first().waitFor();
await shot('instrprof-functions');
await page.getByRole('tab', { name: 'Summary' }).click();
await page.locator('.summary-plot').first().waitFor();
await shot('instrprof-summary');

const file = async (rel) => ({ name: path.basename(rel), bytes: await readFile(path.join(corpus, rel)) });
await dropFiles(page, [await file(`${CPROG}/cprog.fp.perf.data`), await file(`${CPROG}/cprog`)]);
await page.locator('[role=status]').filter({ hasText: 'perf.data' }).waitFor({ timeout: 30000 });
await page.getByRole('tab', { name: 'Flame graph' }).click();
await page.locator('.flame-symbols', { hasText: 'cprog' }).waitFor({ timeout: 30000 });
// Select hot_loop through the Functions table, then show it in each view.
await page.getByRole('tab', { name: 'Functions' }).click();
await page.getByRole('searchbox').first().fill('hot_loop');
await page.locator('[role=row][data-id]').first().click();
await shot('perf-functions');
await page.getByRole('tab', { name: 'Flame graph' }).click();
await page.locator('.flame-details').waitFor();
await shot('perf-flame-graph');
await page.keyboard.press('s');
await shot('perf-sandwich');
await page.getByRole('tab', { name: 'Call tree' }).click();
await page.locator('[role=treegrid] [role=row]').first().waitFor();
await shot('perf-call-tree');
await page.getByRole('tab', { name: 'Stack chart' }).click();
await page.waitForFunction(() => Number(document.querySelector('.stack-chart-canvas')?.dataset.boxes) > 0);
await shot('perf-stack-chart');
await page.keyboard.press('?');
await shot('keyboard-shortcuts');

await browser.close();
await server.close();
