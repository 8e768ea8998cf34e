// NumPy .npy files: one array, read and written in NumPy's format.
//
// Supported: format versions 1.0 (uint16 header length) and 2.0 (uint32),
// C order, little endian, dtypes float32 ('<f4'), float64 ('<f8'), int32
// ('<i4'), int64 ('<i8') and uint8 ('|u1'). Anything else (fortran_order
// True, big-endian, other dtypes or versions, zero-size shapes) is rejected
// with an Error naming the field, what is supported and what was found.
// Save writes exactly what numpy.save writes (version 1.0 when the header
// fits, 64-byte aligned data). Stateless; thread-safe.
#ifndef WEFT_NPY_H_
#define WEFT_NPY_H_

#include <cstddef>
#include <string>

#include "weft/ndarray.h"

namespace weft {

// Parses a .npy image into a new array on cpu(0) of `rt` (not null).
// Errors: kInvalidArgument (malformed, truncated, trailing bytes,
// fortran order), kDType (unsupported or big-endian dtype),
// kNotImplemented (zero-size arrays).
NDArray LoadNpy(const void* data, size_t size, Runtime* rt);
// Reads `path` (kIO when unreadable); errors prefixed with the path.
NDArray LoadNpyFile(const std::string& path, Runtime* rt);

// The .npy image of `a`; kDType for a dtype NumPy cannot hold (none: every
// Weft dtype saves), kInvalidArgument for an empty (none) array. bfloat16,
// which NumPy lacks, is saved as float32 ('<f4', exact: every bfloat16 is a
// float32), so it loads back as float32.
std::string SaveNpy(const NDArray& a);
// Writes SaveNpy(a) to `path`; kIO when it cannot.
void SaveNpyFile(const NDArray& a, const std::string& path);

}  // namespace weft

#endif  // WEFT_NPY_H_
