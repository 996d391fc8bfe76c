// The decoding worker (an ES module worker): the glue for what wasm cannot do itself.
//
// Every message, both ways, is a type of the `pgolens-protocol` crate, converted by
// wasm (`Worker.handle` answers requests and posts the replies itself). This file only
// streams a dropped file into wasm memory, chunk by chunk, without copying it:
//
//   file.stream() ──chunk──▶ worker.slot(doc, len) ──address──▶ memory.buffer[address..] = chunk
//
// An open is the array [OpenFile, file]: file is a File/Blob (a handle: structured
// clone does not copy its contents) or the demo's ArrayBuffer (transferred).

import init, { Worker } from './pgolens_worker.js';

const ready = init({ module_or_path: new URL('./pgolens_worker_bg.wasm', import.meta.url) }).then((wasm) => ({
  memory: wasm.memory,
  worker: new Worker(),
}));

// Post read progress at most this often (bytes, or 1% of the file).
const PROGRESS_STEP = 4 << 20;

self.onmessage = async (event) => {
  const msg = event.data;
  const { worker, memory } = await ready;
  try {
    if (Array.isArray(msg)) await open(worker, memory, msg[0], msg[1]);
    else worker.handle(msg);
  } catch (e) {
    // A trap means a bug in the decoders, not a bad file: say so plainly.
    const text = e instanceof Error ? e.message : String(e);
    const message = e instanceof WebAssembly.RuntimeError ? `internal error in the decoder: ${text}` : text;
    const doc = Array.isArray(msg) ? msg[0].doc : msg.doc;
    const req = Array.isArray(msg) ? undefined : Number(msg.req);
    worker.fail(doc, req, message);
  }
};

async function open(worker, memory, header, file) {
  const total = file instanceof ArrayBuffer ? file.byteLength : file.size;
  const doc = worker.open(header, total);
  if (doc === undefined) return;
  const write = (chunk) => {
    const at = worker.slot(doc, chunk.length);
    if (at === 0) return false;
    // After slot() the memory may have grown: take the view only now.
    new Uint8Array(memory.buffer, at, chunk.length).set(chunk);
    return true;
  };
  if (file instanceof ArrayBuffer) {
    if (!write(new Uint8Array(file))) return;
  } else {
    const step = Math.max(PROGRESS_STEP, total / 100);
    let loaded = 0;
    let posted = 0;
    for await (const value of readChunks(file)) {
      if (!write(value)) return; // closed or out of memory (the loop ends the reader)
      loaded += value.length;
      if (loaded - posted >= step) {
        posted = loaded;
        worker.progress(doc, loaded, total);
      }
    }
  }
  worker.finish(doc);
}

// The file's bytes, chunk by chunk. A BYOB reader fills one reused 4 MiB buffer, so
// reading a 500 MB file leaves no garbage behind (a plain reader hands out a new
// ArrayBuffer per chunk, which the worker's heap holds until the next collection:
// hundreds of MB at the peak). Falls back to the plain reader where Blob streams
// are not byte streams.
async function* readChunks(file) {
  const stream = file.stream();
  let reader;
  try {
    reader = stream.getReader({ mode: 'byob' });
  } catch {
    reader = null;
  }
  if (!reader) {
    const plain = stream.getReader();
    try {
      for (;;) {
        const { done, value } = await plain.read();
        if (done) return;
        yield value;
      }
    } finally {
      plain.releaseLock();
    }
  }
  let buffer = new ArrayBuffer(4 << 20);
  try {
    for (;;) {
      const { done, value } = await reader.read(new Uint8Array(buffer));
      if (done) return;
      yield value;
      buffer = value.buffer; // the same memory, handed back
    }
  } finally {
    reader.releaseLock();
  }
}
