// The built wasm holds no giant function. V8 runs a function first as Liftoff
// code, then compiles it again with TurboFan once it runs hot, on a background
// thread whose memory is the tab's: for one 190 KB function (every request
// handler of the worker, which wasm-opt had inlined into their one caller) that
// was 0.43 s and 47 MB. scripts/build.sh bounds that inlining; this checks it held.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { dist } from './lib/harness.mjs';

// rustc's own largest function is 24 KB (the layered CFG layout); twice that is
// what inlining may add before a function is a giant.
const MOST_BYTES = 48 << 10;

/** The size of each function body in a wasm module, by function index within its code section. */
function bodySizes(bytes) {
  let at = 8; // magic and version
  const leb = () => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = bytes[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (byte < 0x80) return value;
    }
  };
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    const end = at + size;
    if (id === 10) {
      const sizes = [];
      for (let n = leb(); n > 0; n--) {
        const body = leb();
        sizes.push(body);
        at += body;
      }
      return sizes;
    }
    at = end;
  }
  throw new Error('no code section');
}

for (const wasm of ['pkg/pgolens_web_bg.wasm', 'worker/pgolens_worker_bg.wasm']) {
  test(`no function of ${wasm} is over ${MOST_BYTES >> 10} KB`, () => {
    const sizes = bodySizes(readFileSync(path.join(dist, wasm)));
    assert.ok(sizes.length > 1000, `${sizes.length} functions`);
    const largest = sizes.reduce((best, size, i) => (size > sizes[best] ? i : best), 0);
    assert.ok(
      sizes[largest] <= MOST_BYTES,
      `function ${largest} of the code section is ${sizes[largest]} bytes (build with PGOLENS_WASM_NAMES=1 to name it)`,
    );
  });
}
