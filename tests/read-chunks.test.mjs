// The worker's file reader (readChunks in web/worker/worker.js), in Node: every
// byte once and in order, from byte streams (BYOB) and plain ones, through reads
// that never resolve (Chromium's Blob stream was seen to stop so mid-file) and
// reads slower than the reader's patience; a file that stops for good fails with
// where it stopped, rather than leaving the open waiting forever.
//
// worker.js is an ES module worker that starts its wasm when loaded, so it is
// evaluated here as web/pack.js joins it into the single page: its import of the
// wasm glue replaced (by a glue that never starts), its `self` a stub.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

const source = await readFile(new URL('../web/worker/worker.js', import.meta.url), 'utf8');
const imported = /^import (\w+), \{([^}]*)\} from '\.\/pgolens_worker\.js';$/m;
assert.match(source, imported);
const body = source
  .replace(imported, (_, name, named) => {
    const classes = named.split(',').map((n) => `const ${n.trim()} = class {};`);
    return `const ${name} = () => new Promise(() => {}); ${classes.join(' ')}`;
  })
  .replace(/\bimport\.meta\.url\b/g, "'file:///worker.js'");
const { readChunks } = new Function('self', `${body}\nreturn { readChunks };`)({});

const bytes = Uint8Array.from({ length: 3_000_000 }, (_, i) => (i * 7 + (i >> 11)) & 0xff);

/**
 * A Blob-like file over `data` whose streams hand out `piece` bytes a read. The
 * streams `stallIn` names (by the order they are made) never answer their read
 * number `stallAt` (a number, or one for each stream's index); each read waits
 * `delayMs` first; `byob`: a byte stream.
 */
function fakeFile(data, { piece = 262_144, stallIn = [], stallAt = 2, delayMs = 0, byob = true } = {}) {
  const made = { streams: 0 };
  const make = (start) => ({
    size: data.length - start,
    slice: (at) => make(start + at),
    stream() {
      const index = made.streams++;
      let at = start;
      let reads = 0;
      const stalls = stallIn.includes(index);
      const stallRead = typeof stallAt === 'function' ? stallAt(index) : stallAt;
      const next = async (write) => {
        if (stalls && ++reads === stallRead) return new Promise(() => {});
        if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
        return write();
      };
      if (byob) {
        return new ReadableStream({
          type: 'bytes',
          pull: (controller) =>
            next(() => {
              const request = controller.byobRequest;
              if (at >= data.length) {
                controller.close();
                request?.respond(0);
                return;
              }
              const n = Math.min(piece, request.view.byteLength, data.length - at);
              request.view.set(data.subarray(at, at + n));
              at += n;
              request.respond(n);
            }),
        });
      }
      return new ReadableStream({
        pull: (controller) =>
          next(() => {
            if (at >= data.length) return controller.close();
            const n = Math.min(piece, data.length - at);
            controller.enqueue(data.slice(at, at + n));
            at += n;
          }),
      });
    },
  });
  return { file: make(0), made };
}

async function readAll(file, patience) {
  const chunks = [];
  for await (const chunk of readChunks(file, patience)) chunks.push(chunk.slice());
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

test('a Blob is read whole, in order', { timeout: 10_000 }, async () => {
  assert.deepEqual(await readAll(new Blob([bytes])), bytes);
});

for (const byob of [true, false]) {
  const kind = byob ? 'a byte stream' : 'a plain stream';

  test(`${kind} that stalls twice is read on from where it stopped`, { timeout: 10_000 }, async () => {
    // The first stream stalls at its third read, the next at its second.
    const { file, made } = fakeFile(bytes, { byob, stallIn: [0, 1], stallAt: 3 });
    assert.deepEqual(await readAll(file, 20), bytes);
    assert.equal(made.streams, 3);
  });

  test(`${kind} slower than the patience is read whole`, { timeout: 10_000 }, async () => {
    const { file, made } = fakeFile(bytes, { byob, piece: 1_000_000, delayMs: 60 });
    assert.deepEqual(await readAll(file, 20), bytes);
    // 20 and 40 ms were too short: a third stream, with 80 ms, read it (a fourth
    // on a machine so loaded that its timers ran 20 ms late).
    assert.ok(made.streams >= 3 && made.streams <= 4, `${made.streams} streams`);
  });

  test(`${kind} that stops for good fails where it stopped`, { timeout: 10_000 }, async () => {
    // The first stream gives two reads and stalls; every later one stalls at
    // once: five stalls in a row with no byte between them.
    const stallAt = (index) => (index === 0 ? 3 : 1);
    const { file, made } = fakeFile(bytes, { byob, stallIn: [0, 1, 2, 3, 4, 5, 6], stallAt });
    await assert.rejects(readAll(file, 5), /stopped being read at byte 524288$/);
    assert.equal(made.streams, 5);
  });
}
