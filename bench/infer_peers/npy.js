// The .npy reader of the ONNX Runtime bench scripts (ort_bench.js,
// ../onnx_export/ort_compare.js).
'use strict';
const fs = require('fs');

// A float32 C-order .npy file (version 1 or 2) as {shape, data}.
function loadNpy(path) {
  const buf = fs.readFileSync(path);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${path}: not a .npy file`);
  const v1 = buf[6] === 1;
  const hlen = v1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = v1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + hlen);
  if (!/'descr':\s*'<f4'/.test(header) || /'fortran_order':\s*True/.test(header)) {
    throw new Error(`${path}: want little-endian float32 in C order, header ${header}`);
  }
  const dims = header.match(/'shape':\s*\(([^)]*)\)/)[1].split(',').filter((s) => s.trim());
  const shape = dims.map((s) => parseInt(s, 10));
  const off = start + hlen;
  const data = new Float32Array(buf.buffer.slice(buf.byteOffset + off, buf.byteOffset + buf.length));
  return { shape, data };
}

module.exports = { loadNpy };
