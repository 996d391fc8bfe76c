// node run.mjs WASM FILE [MODE]: decodes FILE once with the wasm's `streamed` or
// `whole` export (or neither: `none`, Node's own start), printing the blocks found.
import fs from 'node:fs';

const [wasmPath, file, mode = 'streamed'] = process.argv.slice(2);
const { instance } = await WebAssembly.instantiate(fs.readFileSync(wasmPath), {});
const exports = instance.exports;
const text = fs.readFileSync(file);
const at = exports.alloc(text.length);
new Uint8Array(exports.memory.buffer, at, text.length).set(text);
if (mode !== 'none') {
  const blocks = exports[mode](at, text.length);
  if (!blocks) throw new Error(`${file}: the ${mode} decode failed`);
  console.log(`${mode}: ${blocks} blocks`);
}
