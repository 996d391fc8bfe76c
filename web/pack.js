// The self-contained page: the whole viewer (page, worker, both wasm modules, styles,
// the demo) and optionally profiles and a link, as one HTML file that works from
// file:// with the network off. Written once, used twice: by scripts/pack-page.mjs at
// build time (dist/pgolens.html) and by the page's Download HTML (web/src/components/
// share.rs, through boot.js or the single file's own boot script). No dependencies:
// Node (>= 18) and browsers alike have CompressionStream, Blob and WebCrypto.
//
// The format (cli/src/share.rs writes the carried part the same way):
//
// - The page is index.html (as built) with its stylesheet inlined in a <style>, its
//   boot.js replaced by one inline module script (BOOT below), its own
//   Content-Security-Policy (see `policy`), and the site's files in inert data blocks
//   (never executed: an unknown script type is data):
//
//     <script type="application/octet-stream" data-pgolens="asset" data-path="PATH" data-encoding="ENC">DATA</script>
//     <script type="application/octet-stream" data-pgolens="demo" data-name="NAME" data-encoding="ENC">DATA</script>
//
//   PATH is the file's path in dist/ (ASSETS); the demo is opened when no profile is
//   carried.
// - The carried part: every line between the two marker lines
//
//     <!-- pgolens:carried -->
//     <!-- /pgolens:carried -->
//
//   is a carried profile or the link, and nothing else is there: inserting profiles
//   into a page is replacing what is between the markers.
//
//     <script type="application/octet-stream" data-pgolens="file" data-name="NAME" data-encoding="ENC">DATA</script>
//     <script type="application/octet-stream" data-pgolens="link">FRAGMENT</script>
//
//   Profiles are opened in their order, the first shown (unless the link says which).
//   FRAGMENT is a link fragment (web/src/app/link.rs) without its `#`, with every `<`
//   written %3C; the page puts it in location.hash before the app starts, unless the
//   page's URL already has a fragment.
// - NAME is HTML-escaped (`&` `<` `>` `"` as entities). DATA is the bytes in base64
//   (RFC 4648 section 4, padded, on one line). ENC is `base64`, or `deflate-raw+base64`
//   when the bytes were raw-deflated (RFC 1951) first.
// - Its boot script tells the app what web/boot.js tells it on the site: on #app,
//   data-worker (the worker: one classic script at a Blob URL, as from file:// a module
//   worker cannot start) and data-worker-type="classic" (web/src/bridge.rs); and
//   globalThis.pgolensPage = { single, carried: File[], pack(files, link) }
//   (web/src/components/share.rs).

/** The site's files a self-contained page carries (paths in dist/). */
export const ASSETS = [
  'index.html',
  'style.css',
  'pack.js',
  'pkg/pgolens_web.js',
  'pkg/pgolens_web_bg.wasm',
  'worker/worker.js',
  'worker/pgolens_worker.js',
  'worker/pgolens_worker_bg.wasm',
];

export const CARRIED_START = '<!-- pgolens:carried -->';
export const CARRIED_END = '<!-- /pgolens:carried -->';

// The single file's start. Its text is hashed into the page's script-src, so it is a
// constant: what varies (files, link) is in the data blocks it reads. A String.raw:
// its backslashes are its own.
const BOOT = String.raw`
// pgolens as one file (web/pack.js wrote it): the site's files are the data blocks
// above; the page's and the worker's JS become Blob URLs, nothing is fetched.
const unpack = async (base64, encoding) => {
  const binary = atob(base64);
  let bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  if (encoding === 'deflate-raw+base64') {
    const inflated = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
    bytes = new Uint8Array(await new Response(inflated).arrayBuffer());
  } else if (encoding !== 'base64') {
    throw new Error('unknown data-encoding ' + encoding);
  }
  return bytes;
};
const blocks = (kind) => [...document.querySelectorAll('script[data-pgolens="' + kind + '"]')];
const bytesOf = (block) => unpack(block.textContent.trim(), block.dataset.encoding);
const assets = new Map(blocks('asset').map((b) => [b.dataset.path, b]));
const asset = (path) => {
  const block = assets.get(path);
  if (!block) throw new Error('this page lacks ' + path);
  return block;
};
const text = async (path) => new TextDecoder().decode(await bytesOf(asset(path)));
// An ES module as a classic script's text: its exports become plain declarations
// ("export { a as b }" declares b; the default export __default), import.meta.url the
// script's own URL. Enough for wasm-bindgen's --target web glue, which imports nothing.
const classic = (module) =>
  module
    .replace(/^export (?=(?:async )?function |class |const |let |var )/gm, '')
    .replace(/^export \{([^}]*)\};?$/gm, (_, names) =>
      names
        .split(',')
        .map((n) => n.trim().split(/\s+as\s+/))
        .filter(([name, as]) => as && as !== name)
        .map(([name, as]) => 'const ' + (as === 'default' ? '__default' : as) + ' = ' + name + ';')
        .join('\n'),
    )
    .replace(/\bimport\.meta\.url\b/g, 'self.location.href');
const script = (parts) => URL.createObjectURL(new Blob(parts, { type: 'text/javascript' }));
const app = document.getElementById('app');
try {
  // The worker: one classic script, as a page from file:// cannot start a module
  // worker nor let a worker import anything (Chromium fetches both in CORS mode, which
  // an opaque origin fails). So the worker's glue and worker.js are joined into one
  // script, their import and exports turned into plain names, and its wasm is handed
  // over as self.pgolensWasm, inflated in the worker from the same base64.
  const wasm = asset('worker/pgolens_worker_bg.wasm');
  const handed = 'self.pgolensWasm = (' + unpack + ')(' + JSON.stringify(wasm.textContent.trim()) + ', ' + JSON.stringify(wasm.dataset.encoding) + ');\n';
  const glue = classic(await text('worker/pgolens_worker.js'));
  const worker = await text('worker/worker.js');
  const imported = /^import (\w+), \{[^}]*\} from '\.\/pgolens_worker\.js';$/m;
  if (!imported.test(worker)) throw new Error("worker.js does not import './pgolens_worker.js' as pack.js expects");
  const body = classic(worker.replace(imported, (_, name) => 'const ' + name + ' = __default;'));
  app.dataset.worker = script([handed, "(() => {\n'use strict';\n", glue, '\n', body, '\n})();\n']);
  app.dataset.workerType = 'classic';

  const open = (list) => Promise.all(list.map(async (b) => new File([await bytesOf(b)], b.dataset.name)));
  const files = await open(blocks('file'));
  const link = blocks('link')[0]?.textContent.trim().replace(/^#/, '');
  if (link && !location.hash) history.replaceState(history.state, '', '#' + link);
  const readFiles = (files) => Promise.all(files.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) })));
  globalThis.pgolensPage = {
    single: true,
    carried: files.length > 0 ? files : await open(blocks('demo')),
    // Download HTML: this page again, with other profiles and link.
    async pack(files, link) {
      const { pack } = await import(script([await text('pack.js')]));
      const all = {};
      for (const [path, block] of assets) all[path] = await bytesOf(block);
      const demo = blocks('demo')[0];
      return pack({ assets: all, demo: demo && { name: demo.dataset.name, bytes: await bytesOf(demo) }, files: await readFiles(files), link });
    },
  };
  const { default: init } = await import(script([await text('pkg/pgolens_web.js')]));
  await init({ module_or_path: await bytesOf(asset('pkg/pgolens_web_bg.wasm')) });
} catch (e) {
  console.error('pgolens: this page could not start', e);
  app.textContent = 'pgolens could not start: ' + (e instanceof Error ? e.message : e);
}
`;

/**
 * The self-contained page, as HTML text.
 *
 * `assets`: every path of ASSETS to its bytes (Uint8Array) or text, as built in
 * dist/; `demo`: { name, bytes } or null; `files`: [{ name, bytes }], the profiles
 * to open instead of the demo; `link`: a fragment (with or without `#`) or ''.
 */
export async function pack({ assets, demo = null, files = [], link = '' }) {
  const missing = ASSETS.filter((p) => assets[p] === undefined);
  if (missing.length > 0) throw new Error(`pack: missing ${missing.join(', ')}`);
  let html = asText(assets['index.html']);
  const css = asText(assets['style.css']);
  if (/<\/style/i.test(css)) throw new Error('pack: style.css holds </style');

  const stylesheet = /[ \t]*<link rel="stylesheet" href="style.css">\n/;
  const preload = /[ \t]*<link rel="modulepreload"[^>]*>\n/;
  const boot = /[ \t]*<script type="module" src="boot.js"><\/script>\n/;
  const csp = /( *)<!--((?:(?!-->)[\s\S])*)-->\s*<meta http-equiv="Content-Security-Policy" content="([^"]*)">\n/;
  const demoAttr = / data-demo="[^"]*"/;
  for (const [what, pattern] of Object.entries({ stylesheet, preload, boot, csp, demoAttr })) {
    if (!pattern.test(html)) throw new Error(`pack: index.html has no ${what} where pack.js expects it`);
  }
  const site = csp.exec(html)[3];
  const blocks = [];
  for (const path of ASSETS) {
    blocks.push(await block({ pgolens: 'asset', path }, bytesOf(assets[path])));
  }
  if (demo) blocks.push(await block({ pgolens: 'demo', name: demo.name }, bytesOf(demo.bytes)));

  const [scriptHash, styleHash] = await Promise.all([sha256(BOOT), sha256(css)]);
  const indent = csp.exec(html)[1];
  const profiles = await carried(files, link);
  // Replaced by functions: a replacement string would read `$` in the CSS as a pattern.
  html = html
    .replace(csp, (_, indent, reasons) => `${indent}<!--${reasons}-->\n${indent}<!--${policyComment(indent)}-->\n${indent}<meta http-equiv="Content-Security-Policy" content="${policy(site, scriptHash, styleHash)}">\n`)
    .replace(stylesheet, () => `${indent}<style>${css}</style>\n`)
    .replace(preload, '')
    // No demo to fetch: the single file carries it.
    .replace(demoAttr, ' data-single-file=""')
    .replace(
      boot,
      () => `${blocks.join('\n')}\n${CARRIED_START}\n${profiles}${CARRIED_END}\n<script type="module">${BOOT}</script>\n`,
    );
  return html;
}

/** The carried part (what goes between the markers): profiles, then the link. */
export async function carried(files = [], link = '') {
  let out = '';
  for (const file of files) out += (await block({ pgolens: 'file', name: file.name }, bytesOf(file.bytes))) + '\n';
  const fragment = link.replace(/^#/, '');
  if (fragment) out += `<script type="application/octet-stream" data-pgolens="link">${fragment.replaceAll('<', '%3C')}</script>\n`;
  return out;
}

/**
 * The single file's policy: index.html's, changed only where an inline page must.
 * `site` is index.html's policy (its connect-src is kept as it is).
 */
function policy(site, scriptHash, styleHash) {
  const directives = new Map(
    site
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => [d.split(/\s+/)[0], d]),
  );
  directives.set('script-src', `script-src 'sha256-${scriptHash}' blob: 'wasm-unsafe-eval'`);
  directives.set('worker-src', 'worker-src blob:');
  directives.set('style-src', `style-src 'sha256-${styleHash}'`);
  return [...directives.values()].join('; ');
}

function policyComment(indent) {
  const lines = [
    " The single file's policy (web/pack.js): index.html's, except where a page",
    'with no files next to it must differ. script-src: the one inline boot script, by',
    "its hash, and blob: for the page's and the worker's JS it makes into Blob URLs",
    '(no other inline script runs, no eval). worker-src blob: the worker is such a',
    'Blob URL. style-src: the inlined stylesheet, by its hash. connect-src is',
    "index.html's, for the same #url= links: the demo and the carried profiles are in",
    'the page, never fetched. No service worker: there is none from file://, and this',
    'page needs none.',
  ];
  return `${lines.join(`\n${indent}     `)} `;
}

/** One data block: bytes in base64, raw-deflated first when that makes them smaller. */
async function block(attrs, bytes) {
  let encoding = 'base64';
  const packed = await deflateRaw(bytes);
  if (packed.length < bytes.length) {
    bytes = packed;
    encoding = 'deflate-raw+base64';
  }
  const attributes = Object.entries({ ...attrs, encoding })
    .map(([k, v]) => ` data-${k}="${escapeHtml(String(v))}"`)
    .join('');
  return `<script type="application/octet-stream"${attributes}>${base64(bytes)}</script>`;
}

function escapeHtml(text) {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}

function bytesOf(data) {
  if (typeof data === 'string') return new TextEncoder().encode(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

function asText(data) {
  return typeof data === 'string' ? data : new TextDecoder().decode(bytesOf(data));
}

async function deflateRaw(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function sha256(text) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return base64(new Uint8Array(digest));
}

function base64(bytes) {
  // btoa takes a binary string: built in slices, as one call per byte would be slow
  // and one spread of a large array would overflow the stack.
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
