// The decoding worker (an ES module worker): one pgolens Session per open file.
//
// The page never holds a file's bytes. It posts the File itself (a handle: structured
// clone does not copy the contents), or an ArrayBuffer in the transfer list (the demo),
// and this worker streams the bytes straight into wasm memory, chunk by chunk:
//
//   file.stream() ──chunk──▶ session.slot(len) ──address──▶ memory.buffer[address..] = chunk
//
// Messages in (from the page), each with `id`, the page's number for the file:
//   {type:'open', id, name, file}        file: a File/Blob, or an ArrayBuffer (transferred)
//   {type:'children', id, req, path}     path: child indices from the root
//   {type:'bytes', id, req, start, end}
//   {type:'path_to', id, req, offset}
//   {type:'functions', id, req, column, descending, filter, start, count}
//                                        a page of the function table
//   {type:'summary', id, req}
//   {type:'function', id, req, row}      one function's detail, by table row id
//   {type:'memprof', id, req, column, descending, start, count}
//                                        a page of MemProf allocation sites
//   {type:'memprof_site', id, req, site} one site with its call stack
//   {type:'correlate', id, req, binary} decode the correlated raw profile `id` with
//                                        the open ELF `binary` (read in place, not copied)
//   {type:'symbolize', id, req, binaries} name the frames of the perf.data `id` from the
//                                        open ELF and kallsyms files `binaries` (shared, not copied)
//   {type:'flame', id, req, event, t0, t1, inverted}
//                                        lay out the flame graph (t0 < t1: samples in t0..t1)
//   {type:'sandwich', id, req, event, t0, t1, frame}
//                                        lay out one function's callers and callees
//   {type:'frame_names', id, req}
//   {type:'stack_functions', id, req, event, t0, t1, column, descending, filter, start, count}
//   {type:'search', id, req, event, t0, t1, pattern}
//   {type:'timeline', id, req, event, bins}
//   {type:'close', id}
// Messages out:
//   {type:'progress', id, loaded, total, phase}          phase: 'read' or 'decode'
//   {type:'opened', id, summary, root, children}
//   {type:'children', id, req, path, nodes}
//   {type:'bytes', id, req, start, bytes}                bytes: Uint8Array, transferred
//   {type:'path', id, req, offset, path, levels}
//   {type:'functions', id, req, column, descending, filter, total, matching, start, rows}
//   {type:'summary', id, req, summary, csSummary}
//   {type:'function', id, req, detail}
//   {type:'memprof', id, req, column, descending, total, start, raw, columns, rows}
//   {type:'memprof_site', id, req, site}
//   {type:'correlated', id, req, binary, views, correlatedWith}
//   {type:'symbolized', id, req, stacks, symbolizedWith}
//   {type:'flame', id, req, event, t0, t1, inverted, rects, rows}
//                                        rects: Float64Array [x0, width, self, frame] per
//                                        rectangle, rows: Uint32Array (both transferred)
//   {type:'sandwich', id, req, event, t0, t1, frame, callers: {rects, rows}, callees: {rects, rows}}
//   {type:'frame_names', id, req, names, dsos, dso, kinds}
//   {type:'stack_functions', id, req, event, t0, t1, column, descending, filter, total, matching, weight, start, rows}
//   {type:'search', id, req, event, t0, t1, pattern, frames, weight, total}
//   {type:'timeline', id, req, event, start, end, bins}
//   {type:'error', id, req?, message}                    req absent: the open failed

import init, { Session } from './pgolens_worker.js';

const ready = init({ module_or_path: new URL('./pgolens_worker_bg.wasm', import.meta.url) });
const sessions = new Map();

// Post progress at most this often while reading (bytes, or 1% of the file).
const PROGRESS_STEP = 4 << 20;

self.onmessage = (event) => {
  const msg = event.data;
  handle(msg).catch((e) => fail(msg, e));
};

async function handle(msg) {
  switch (msg.type) {
    case 'open':
      return open(msg.id, msg.name, msg.file);
    case 'close': {
      const session = sessions.get(msg.id);
      sessions.delete(msg.id);
      if (session) session.free();
      return;
    }
    case 'children': {
      const nodes = JSON.parse(session(msg.id).children(Uint32Array.from(msg.path)));
      return post({ type: 'children', id: msg.id, req: msg.req, path: msg.path, nodes });
    }
    case 'path_to': {
      const { path, levels } = JSON.parse(session(msg.id).path_to(msg.offset));
      return post({ type: 'path', id: msg.id, req: msg.req, offset: msg.offset, path, levels });
    }
    case 'bytes': {
      const bytes = session(msg.id).bytes(msg.start, msg.end);
      return post({ type: 'bytes', id: msg.id, req: msg.req, start: msg.start, bytes }, [bytes.buffer]);
    }
    case 'functions': {
      const { column, descending, filter } = msg;
      const page = JSON.parse(session(msg.id).functions(column, descending, filter, msg.start, msg.count));
      return post({ type: 'functions', id: msg.id, req: msg.req, column, descending, filter, ...page });
    }
    case 'summary': {
      const summary = JSON.parse(session(msg.id).summary());
      return post({ type: 'summary', id: msg.id, req: msg.req, ...summary });
    }
    case 'function': {
      const detail = JSON.parse(session(msg.id).function(msg.row));
      return post({ type: 'function', id: msg.id, req: msg.req, detail });
    }
    case 'memprof': {
      const { column, descending } = msg;
      const page = JSON.parse(session(msg.id).memprof(column, descending, msg.start, msg.count));
      return post({ type: 'memprof', id: msg.id, req: msg.req, column, descending, ...page });
    }
    case 'memprof_site': {
      const site = JSON.parse(session(msg.id).memprof_site(msg.site));
      return post({ type: 'memprof_site', id: msg.id, req: msg.req, site });
    }
    case 'symbolize': {
      const s = session(msg.id);
      for (const binary of msg.binaries) s.symbolize_add(session(binary));
      const done = JSON.parse(s.symbolize());
      return post({ type: 'symbolized', id: msg.id, req: msg.req, ...done });
    }
    case 'correlate': {
      const done = JSON.parse(session(msg.id).correlate(session(msg.binary)));
      return post({ type: 'correlated', id: msg.id, req: msg.req, binary: msg.binary, ...done });
    }
    case 'flame': {
      const { event, t0, t1, inverted } = msg;
      const s = session(msg.id);
      s.flame(event, t0, t1, inverted);
      const rects = s.flame_rects(0);
      const rows = s.flame_rows(0);
      const reply = { type: 'flame', id: msg.id, req: msg.req, event, t0, t1, inverted, rects, rows };
      return post(reply, [rects.buffer, rows.buffer]);
    }
    case 'sandwich': {
      const { event, t0, t1, frame } = msg;
      const s = session(msg.id);
      s.sandwich(event, t0, t1, frame);
      const callers = { rects: s.flame_rects(1), rows: s.flame_rows(1) };
      const callees = { rects: s.flame_rects(2), rows: s.flame_rows(2) };
      const transfer = [callers.rects.buffer, callers.rows.buffer, callees.rects.buffer, callees.rows.buffer];
      return post({ type: 'sandwich', id: msg.id, req: msg.req, event, t0, t1, frame, callers, callees }, transfer);
    }
    case 'frame_names': {
      const names = JSON.parse(session(msg.id).frame_names());
      return post({ type: 'frame_names', id: msg.id, req: msg.req, ...names });
    }
    case 'stack_functions': {
      const { event, t0, t1, column, descending, filter } = msg;
      const s = session(msg.id);
      const page = JSON.parse(s.stack_functions(event, t0, t1, column, descending, filter, msg.start, msg.count));
      return post({ type: 'stack_functions', id: msg.id, req: msg.req, event, t0, t1, column, descending, filter, ...page });
    }
    case 'search': {
      const { event, t0, t1, pattern } = msg;
      const found = JSON.parse(session(msg.id).search(event, t0, t1, pattern));
      return post({ type: 'search', id: msg.id, req: msg.req, event, t0, t1, pattern, ...found });
    }
    case 'timeline': {
      const line = JSON.parse(session(msg.id).timeline(msg.event, msg.bins));
      return post({ type: 'timeline', id: msg.id, req: msg.req, event: msg.event, ...line });
    }
    default:
      throw new Error(`unknown request ${msg.type}`);
  }
}

function session(id) {
  const s = sessions.get(id);
  if (!s) throw new Error('this file is no longer open');
  return s;
}

async function open(id, name, file) {
  const { memory } = await ready;
  const total = file instanceof ArrayBuffer ? file.byteLength : file.size;
  const s = new Session(name, total);
  sessions.set(id, s);
  try {
    const write = (chunk) => {
      const at = s.slot(chunk.length);
      // After slot() the memory may have grown: take the view only now.
      new Uint8Array(memory.buffer, at, chunk.length).set(chunk);
    };
    if (file instanceof ArrayBuffer) {
      write(new Uint8Array(file));
    } else {
      const chunks = readChunks(file);
      const step = Math.max(PROGRESS_STEP, total / 100);
      let loaded = 0;
      let posted = 0;
      for await (const value of chunks) {
        if (sessions.get(id) !== s) return; // closed while reading (the loop ends the reader)
        write(value);
        loaded += value.length;
        if (loaded - posted >= step) {
          posted = loaded;
          post({ type: 'progress', id, loaded, total, phase: 'read' });
        }
      }
    }
    post({ type: 'progress', id, loaded: 0, total: 0, phase: 'decode' });
    // Decoders that count their steps report them through this hook (at most
    // every 1% of them, so the page is not flooded).
    let reported = -1;
    self.pgolensProgress = (done, stepTotal) => {
      const percent = Math.floor((done * 100) / Math.max(stepTotal, 1));
      if (percent === reported) return;
      reported = percent;
      post({ type: 'progress', id, loaded: done, total: stepTotal, phase: 'decode' });
    };
    const { root, children, ...summary } = JSON.parse(s.finish());
    post({ type: 'opened', id, summary, root, children });
  } catch (e) {
    if (sessions.get(id) === s) sessions.delete(id);
    s.free();
    throw e;
  }
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

function fail(msg, e) {
  let message = e instanceof Error ? e.message : String(e);
  // A trap means a bug in the decoders, not a bad file: say so plainly.
  if (e instanceof WebAssembly.RuntimeError) message = `internal error in the decoder: ${message}`;
  post({ type: 'error', id: msg.id, req: msg.req, message });
}

function post(msg, transfer = []) {
  self.postMessage(msg, transfer);
}
