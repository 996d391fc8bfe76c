// The decoding worker (an ES module worker): the glue for what wasm cannot do itself.
//
// Every message, both ways, is a type of the `pgolens-protocol` crate, converted by
// wasm (`Worker.handle` answers requests and posts the replies itself). This file only
// reads dropped files, chunk by chunk:
//
// - an uncompressed perf.data or a BOLT YAML profile is decoded as it streams in,
//   its bytes not kept: wasm reads a recording's header and sections by synchronous
//   slices (fetch), then takes the rest block by block
//
//     file.stream() ──block──▶ worker.feed(doc, block)
//
// - any other file is streamed into wasm memory without an intermediate copy
//
//     file.stream() ──chunk──▶ worker.slot(doc, len) ──address──▶ memory.buffer[address..] = chunk
//
// A streamed file whose bytes a request needs later (its dump, perf2bolt's branches,
// DWARF unwinding with new binaries) is read into memory then (`handle` names it).
//
// An open is the array [OpenFile, file]: file is a File/Blob (a handle: structured
// clone does not copy its contents) or the demo's ArrayBuffer (transferred).

import init, { FirstPartReader, Worker } from './pgolens_worker.js';

// The wasm next to this file, or, in a self-contained page (web/pack.js), where no
// file is next to it, the bytes (or a promise of them) its boot script handed over as
// self.pgolensWasm before this module ran.
const wasmSource = self.pgolensWasm ?? new URL('./pgolens_worker_bg.wasm', import.meta.url);
// A helper (see SPLIT_ABOVE) is this script at `worker.js?helper`: it is handed the
// compiled module with its first message, instead of compiling it again (a quarter
// of a second on two cores).
const HELPER = new URL(import.meta.url).searchParams.has('helper');
// The compiled module, kept to hand to helpers (none in a self-contained page).
const compiled =
  HELPER || self.pgolensWasm !== undefined ? Promise.resolve(undefined) : WebAssembly.compileStreaming(fetch(wasmSource)).catch(() => undefined);
const ready = HELPER
  ? null
  : compiled.then(async (module) => {
      const wasm = await init({ module_or_path: module ?? wasmSource });
      return { memory: wasm.memory, worker: new Worker(), module };
    });

// A recording whose records take at least this many bytes is read by two workers
// at once: this one, and a helper started for it (this same script) that reads the
// records up to a cut, while this one replays them (threads and maps only) and
// reads the rest; the helper hands its part over as bytes (see `Worker.stream_split`).
// Off unless the page is opened with `?split-above=BYTES` (passed on in this
// script's URL): on two cores it was slower (the 219 MB high-frequency recording
// decoded in 1.35 s, not 1.15-1.2 s: both workers and the browser's reading of the
// file share the cores; README, "Two decoding workers"). Never in a self-contained
// page, whose worker has no URL a helper could start from (nor a compiled module
// to hand it).
const SPLIT_ABOVE = Number(new URL(import.meta.url).searchParams.get('split-above') ?? Infinity);

// Post read progress at most this often (bytes, or 1% of the file).
const PROGRESS_STEP = 4 << 20;

// The last folder offered ({ header, files }), for the recordings opened after it.
let lastFolder = null;

// The files decoded as they streamed in (doc → File), read again
// when a request needs their bytes, and those reads under way (doc → Promise).
const streamed = new Map();
const reading = new Map();

self.onmessage = async (event) => {
  const msg = event.data;
  if (HELPER) {
    await init({ module_or_path: msg.module });
    await readFirstPart(msg.file, msg.cut);
    return;
  }
  const { worker, memory, module } = await ready;
  try {
    if (Array.isArray(msg) && Array.isArray(msg[1])) await folder(worker, memory, msg[0], msg[1]);
    else if (Array.isArray(msg)) await open(worker, memory, module, msg[0], msg[1]);
    else await request(worker, memory, msg);
  } catch (e) {
    // A trap means a bug in the decoders, not a bad file: say so plainly.
    const text = e instanceof Error ? e.message : String(e);
    const message = e instanceof WebAssembly.RuntimeError ? `internal error in the decoder: ${text}` : text;
    if (Array.isArray(msg) && Array.isArray(msg[1])) {
      console.error('pgolens: the folder could not be read', e);
      return;
    }
    const doc = Array.isArray(msg) ? msg[0].doc : msg.doc;
    const req = Array.isArray(msg) ? undefined : Number(msg.req);
    worker.fail(doc, req, message);
  }
};

// A request: answered by wasm, once the bytes of the file it needs are read.
async function request(worker, memory, msg) {
  const doc = worker.handle(msg);
  answered(msg.doc);
  if (doc === undefined) {
    // A streamed file closed: it is no longer wanted.
    if ((streamed.has(msg.doc) || reading.has(msg.doc)) && !worker.is_open(msg.doc)) {
      streamed.delete(msg.doc);
      reading.delete(msg.doc);
    }
    return;
  }
  await readAgain(worker, memory, doc);
  worker.handle(msg);
  answered(msg.doc);
}

// A file larger than this is hashed once its views ask nothing for QUIET_MS
// (SETTLE_MAX_MS at most, were they never to stop asking); a smaller one at once,
// as its hash takes a few milliseconds and a link made right after the open names
// the file by it. The quiet periods under way: doc → restart.
const HASH_AT_ONCE_BELOW = 16 << 20;
const QUIET_MS = 250;
const SETTLE_MAX_MS = 5000;
const quiet = new Map();

// Resolves once no request of `doc` was answered for QUIET_MS: what its first views
// asked for is done. Hashing a file while they are computed delayed them on a
// machine of two cores (hashed as it streamed in, a 953 MB recording's flame graph
// came 2 s later; hashed at once after the open, a 100 MB YAML's first rows 0.4 s).
function settled(doc) {
  return new Promise((resolve) => {
    let timer;
    const done = () => {
      clearTimeout(timer);
      clearTimeout(longest);
      quiet.delete(doc);
      resolve();
    };
    const longest = setTimeout(done, SETTLE_MAX_MS);
    const restart = () => {
      clearTimeout(timer);
      timer = setTimeout(done, QUIET_MS);
    };
    quiet.set(doc, restart);
    restart();
  });
}

function answered(doc) {
  quiet.get(doc)?.();
}

// Reads a file decoded as it streamed in into wasm memory (once, whoever asks).
function readAgain(worker, memory, doc) {
  if (!reading.has(doc)) {
    const read = (async () => {
      const file = streamed.get(doc);
      if (!file) throw new Error('the file is no longer at hand: open it again');
      let failure = null;
      try {
        let at = 0;
        for await (const chunk of readChunks(file)) {
          if (at + chunk.length > file.size) throw new Error('the file changed since it was opened');
          const address = worker.read_slot(doc, chunk.length);
          new Uint8Array(memory.buffer, address, chunk.length).set(chunk);
          at += chunk.length;
        }
      } catch (e) {
        failure = e;
      }
      // Always called: it takes what was read, and says why it cannot be used.
      try {
        worker.loaded(doc);
      } catch (e) {
        failure ??= e;
      }
      if (failure) throw failure;
      streamed.delete(doc);
    })();
    reading.set(doc, read);
    // A failed read may be tried again by the next request.
    read.catch(() => reading.delete(doc));
  }
  return reading.get(doc);
}

async function open(worker, memory, module, header, file) {
  const total = file instanceof ArrayBuffer ? file.byteLength : file.size;
  const doc = worker.open(header, total);
  if (doc === undefined) return;
  const step = Math.max(PROGRESS_STEP, total / 100);
  let loaded = 0;
  let posted = 0;
  const progress = (n) => {
    loaded += n;
    if (loaded - posted >= step) {
      posted = loaded;
      worker.progress(doc, loaded, total);
    }
  };
  // A recording or YAML profile is decoded as it streams in; what the stream
  // rejects, and any other file, is read whole.
  let whole = file instanceof ArrayBuffer;
  const first = whole ? undefined : worker.stream_start(doc, total, (at, len) => readSlice(file, at, len));
  whole ||= first === undefined;
  if (!whole) {
    streamed.set(doc, file);
    const cut = module && Number.isFinite(SPLIT_ABOVE) ? worker.stream_split(doc, SPLIT_ABOVE) : undefined;
    const helper = cut === undefined ? null : firstPartHelper(module, file, cut);
    try {
      let rejected = false;
      for await (const block of readChunks(file.slice(first))) {
        const fed = worker.feed(doc, block);
        if (fed === 0) return; // closed (the loop ends the reader)
        if ((rejected = fed === 2)) break;
        progress(block.length);
      }
      // A part that does not come (the helper failed) fails the stream's end: the
      // file is then read whole.
      const part = helper && !rejected && (await helper.part);
      if (helper && !rejected && !(part && worker.stream_join(doc, part))) {
        console.warn('pgolens: the first part of the recording did not come; reading it whole');
      }
    } finally {
      helper?.stop();
    }
    whole = !worker.stream_end(doc);
    if (whole) {
      streamed.delete(doc);
      loaded = posted = 0;
    }
  }
  if (whole) {
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
      for await (const value of readChunks(file)) {
        if (!write(value)) return; // closed or out of memory (the loop ends the reader)
        progress(value.length);
      }
    }
  }
  worker.finish(doc);
  // A folder given before this recording was open (dropped first, or read while
  // the recording streamed in) names it now.
  if (lastFolder && worker.folder_wanted()) await folder(worker, memory, lastFolder.header, lastFolder.files, true);
  // Hashed once the file is shown (a large one once its first views' requests
  // settled); later requests are answered between the blocks (this handler yields
  // at each). The file is read again for it (from the OS's cache, or the buffer).
  if (total >= HASH_AT_ONCE_BELOW) await settled(doc);
  worker.fingerprint(doc, await fingerprintOf(file), total);
}

// A folder offered to the open recordings ([SymbolsFolder, File[]]): each file's
// first bytes, then its section headers and notes, are read as worker.folder_probe
// asks (a few KB of an ELF, 64 bytes of anything else); only the files
// worker.folder_pick names (the binaries and debug files the recordings' DSOs
// match, a kallsyms) are read whole, straight into wasm memory. The last folder's
// handles are kept (lastFolder): a recording opened later is given it too (`again`).
async function folder(worker, memory, header, files, again = false) {
  if (!worker.folder_start(header, new Float64Array(files.map((f) => f.size)), again)) return;
  lastFolder = { header, files };
  try {
    // A file that cannot be read (removed or changed since it was chosen, or not
    // readable) is skipped; a picked one is then named in the status as unread.
    for (let i = 0; i < files.length; i++) {
      try {
        let need = worker.folder_probe(i, 0, new Uint8Array(0));
        while (need.length === 2) {
          const [at, len] = need;
          const bytes = new Uint8Array(await files[i].slice(at, at + len).arrayBuffer());
          need = worker.folder_probe(i, at, bytes);
        }
      } catch (e) {
        console.warn(`pgolens: ${files[i].name} could not be read`, e);
      }
    }
    for (const i of worker.folder_pick()) {
      const file = files[i];
      const address = worker.folder_slot(i, file.size);
      if (address === 0) continue;
      try {
        let at = 0;
        for await (const chunk of readChunks(file)) {
          // A file that grew since it was chosen must not write past its slot.
          if (at + chunk.length > file.size) throw new Error('the file changed while it was read');
          new Uint8Array(memory.buffer, address + at, chunk.length).set(chunk);
          at += chunk.length;
        }
        if (at === file.size) worker.folder_filled(i);
      } catch (e) {
        console.warn(`pgolens: ${file.name} could not be read`, e);
      }
    }
    // Recordings whose stack copies are unwound anew with these files need their bytes.
    for (const doc of worker.folder_needs_bytes()) {
      try {
        await readAgain(worker, memory, doc);
      } catch (e) {
        console.warn('pgolens: a recording could not be read again', e);
      }
    }
  } finally {
    worker.folder_finish();
  }
}

// A helper worker reading the records of `file` up to `cut`: { part, a promise of
// the bytes it hands over (null if it fails), stop() }.
function firstPartHelper(module, file, cut) {
  let helper;
  try {
    const url = new URL(import.meta.url);
    url.searchParams.set('helper', '');
    helper = new globalThis.Worker(url, { type: 'module' });
  } catch (e) {
    console.warn('pgolens: no helper worker', e);
    return { part: Promise.resolve(null), stop() {} };
  }
  const part = new Promise((resolve) => {
    helper.onmessage = (event) => resolve(event.data?.part instanceof Uint8Array ? event.data.part : null);
    helper.onerror = (event) => {
      console.warn('pgolens: the helper worker failed', event.message);
      resolve(null);
    };
    helper.onmessageerror = () => resolve(null);
  });
  helper.postMessage({ module, file, cut });
  return { part, stop: () => helper.terminate() };
}

// In a helper worker: reads the records of `file` up to `cut` and posts them as
// the bytes `Worker.stream_join` takes (or null).
async function readFirstPart(file, cut) {
  let part = null;
  try {
    const reader = new FirstPartReader(file.size, (at, len) => readSlice(file, at, len));
    const start = reader.start();
    let fed = start !== undefined;
    if (fed) {
      for await (const block of readChunks(file.slice(start, cut))) {
        if (!(fed = reader.feed(block))) break;
      }
    }
    part = fed ? (reader.end() ?? null) : null;
    reader.free();
  } catch (e) {
    console.warn('pgolens: the first part could not be read', e);
  }
  self.postMessage({ part }, part ? [part.buffer] : []);
}

// `len` bytes at `at` of a File, read synchronously (a worker may): what wasm asks
// for outside a recording's record stream (its header, attrs and feature sections).
function readSlice(file, at, len) {
  return new Uint8Array(new FileReaderSync().readAsArrayBuffer(file.slice(at, at + len)));
}

/** The file's fingerprint; empty where WebCrypto is not offered. */
async function fingerprintOf(file) {
  const fingerprint = Fingerprint.start();
  if (!fingerprint) return '';
  if (file instanceof ArrayBuffer) {
    await fingerprint.update(new Uint8Array(file));
  } else {
    for await (const value of readChunks(file)) await fingerprint.update(value);
  }
  return fingerprint.finish();
}

// A file's fingerprint, what a link names it by: SHA-256 over the SHA-256 digests of
// its 4 MiB blocks. A hash list rather than one SHA-256, so that WebCrypto (native
// code, on the browser's own threads) hashes it block by block as it is read, with a
// bounded number of blocks in flight, and the worker stays free between blocks.
// Empty where WebCrypto is not offered (a page served over plain http from another
// machine): links then match files by size only.
class Fingerprint {
  static BLOCK = 4 << 20;
  // Blocks hashed at once; each holds a copy of its 4 MiB until hashed.
  static IN_FLIGHT = 4;

  static start() {
    return self.crypto?.subtle ? new Fingerprint() : null;
  }

  constructor() {
    this.block = new Uint8Array(Fingerprint.BLOCK);
    this.filled = 0;
    this.digests = [];
  }

  async update(bytes) {
    let at = 0;
    while (at < bytes.length) {
      const n = Math.min(bytes.length - at, this.block.length - this.filled);
      this.block.set(bytes.subarray(at, at + n), this.filled);
      this.filled += n;
      at += n;
      if (this.filled === this.block.length) await this.flush();
    }
  }

  async flush() {
    // digest() copies its input before returning, so the block can be refilled.
    this.digests.push(crypto.subtle.digest('SHA-256', this.block.subarray(0, this.filled)));
    this.filled = 0;
    const waiting = this.digests.length - Fingerprint.IN_FLIGHT;
    if (waiting > 0) await this.digests[waiting - 1];
  }

  async finish() {
    if (this.filled > 0) await this.flush();
    const digests = await Promise.all(this.digests);
    const list = new Uint8Array(digests.length * 32);
    digests.forEach((d, i) => list.set(new Uint8Array(d), i * 32));
    const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', list));
    return Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('');
  }
}

// The file's bytes, chunk by chunk. A BYOB reader fills one reused 4 MiB buffer, so
// reading a 500 MB file leaves no garbage behind (a plain reader hands out a new
// ArrayBuffer per chunk, which the worker's heap holds until the next collection:
// hundreds of MB at the peak). Falls back to the plain reader where Blob streams
// are not byte streams.
//
// A read that has not resolved after `patience` ms (each read of a 100 MB file from
// the OS's cache took 0.2–9 ms) is taken as stalled: Chromium's Blob stream was seen
// to stop for good mid-file, its read never resolving (5 of 37 drops of a 100 MB YAML,
// headless Chromium 156, tests/bench/bolt-yaml-functions.mjs). The stream is then
// cancelled and the rest read from a new one at the same offset, with twice the
// patience (a slow disk is not taken for a stalled one for long); after STALLS_MAX
// stalls in a row with no byte between them, the read fails.
const STALL_MS = 1000;
const STALLS_MAX = 5;
const CHUNK = 4 << 20;

async function* readChunks(file, patience = STALL_MS) {
  let at = 0;
  let stalls = 0;
  let buffer = new ArrayBuffer(CHUNK);
  for (;;) {
    const stream = (at === 0 ? file : file.slice(at)).stream();
    let reader;
    try {
      reader = stream.getReader({ mode: 'byob' });
    } catch {
      reader = null;
    }
    const byob = reader !== null;
    reader ??= stream.getReader();
    let stalled = false;
    try {
      for (;;) {
        const result = await deadline(byob ? reader.read(new Uint8Array(buffer)) : reader.read(), patience);
        if (result === STALLED) {
          stalled = true;
          break;
        }
        const { done, value } = result;
        if (done) return;
        at += value.length;
        stalls = 0;
        yield value;
        if (byob) buffer = value.buffer; // the same memory, handed back
      }
    } finally {
      if (stalled) reader.cancel().catch(() => {});
      else reader.releaseLock();
    }
    if (++stalls >= STALLS_MAX) throw new Error(`the file stopped being read at byte ${at}`);
    console.warn(`pgolens: reading the file stalled at byte ${at} (${patience} ms); reading on from there`);
    // The stalled read holds the buffer.
    if (byob) buffer = new ArrayBuffer(CHUNK);
    patience *= 2;
  }
}

const STALLED = Symbol('stalled');

/** `promise`'s value, or STALLED if it has none after `ms`. */
function deadline(promise, ms) {
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve(STALLED), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
