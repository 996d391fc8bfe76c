// Writes dist/pgolens.html, the self-contained page (web/pack.js), from the built
// site in dist/ and its demo. Called by scripts/build.sh once dist/ is complete.
//
//   node scripts/pack-page.mjs DIST DEMO_PATH

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { ASSETS, pack } from '../web/pack.js';

const [dist, demoPath] = process.argv.slice(2);
if (!dist || !demoPath) {
  console.error('usage: node scripts/pack-page.mjs DIST DEMO_PATH');
  process.exit(2);
}
const assets = {};
for (const asset of ASSETS) assets[asset] = await readFile(path.join(dist, asset));
const demo = { name: path.basename(demoPath), bytes: await readFile(path.join(dist, demoPath)) };
const html = await pack({ assets, demo });
await writeFile(path.join(dist, 'pgolens.html'), html);
