// IDX files: the MNIST container format, raw or gzip-compressed.
//
// An IDX file is: two zero bytes, a type code, the rank n (1..255), n
// big-endian uint32 extents, then the elements in C order, big endian.
// Type codes: 0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32,
// 0x0E float64. Weft has no int16 dtype, so int16 elements are widened to
// int32 (lossless); every other type keeps its dtype. A file whose first
// two bytes are the gzip magic (0x1f 0x8b) is inflated with zlib first
// (concatenated gzip members are read as one stream, as gunzip does).
// Everything is validated before or while allocating: wrong magic, unknown
// type code, zero rank or extent, truncated data, trailing bytes and a
// corrupt or truncated gzip stream throw weft::Error naming the path (for
// files), the field and expected versus found. Arrays are created on
// cpu(0) of `rt` (not null). Stateless; thread-safe.
#ifndef WEFT_IDX_H_
#define WEFT_IDX_H_

#include <cstddef>
#include <string>

#include "weft/ndarray.h"

namespace weft {

class Runtime;

// IDX type codes (the third byte of the magic).
constexpr unsigned char kIDXUint8 = 0x08;
constexpr unsigned char kIDXInt8 = 0x09;
constexpr unsigned char kIDXInt16 = 0x0B;
constexpr unsigned char kIDXInt32 = 0x0C;
constexpr unsigned char kIDXFloat32 = 0x0D;
constexpr unsigned char kIDXFloat64 = 0x0E;

// Reads the IDX file at `path` (gzip detected by its magic). Errors:
// kIO (unreadable), kInvalidArgument (malformed, truncated, trailing
// bytes, corrupt gzip), kDType (unknown type code); messages start with
// the path.
NDArray LoadIDX(const std::string& path, Runtime* rt);
// Parses an IDX image held in memory (raw or gzip); errors as LoadIDX.
NDArray LoadIDXBytes(const void* data, size_t size, Runtime* rt);

// Inflates a gzip image (all members) with zlib. Throws
// Error(kInvalidArgument) for a corrupt or truncated stream, naming
// `what` (a path or "IDX bytes"); more than `max_bytes` of output (4 GiB
// by default) is refused rather than allocated.
std::string GunzipBytes(const void* data, size_t size, const std::string& what,
                        size_t max_bytes = size_t{1} << 32);

// An MNIST/Fashion-MNIST pair: images float32 (N,1,28,28) in [0,1]
// (uint8 pixel / 255), labels float32 (N).
struct MNISTData {
  NDArray images, labels;
};
// Loads an images file (uint8, rank 3, N x 28 x 28) and a labels file
// (uint8, rank 1, N). Throws Error naming the path when a file has another
// type or shape, and kInvalidArgument when the two counts differ.
MNISTData LoadMNIST(const std::string& images_path, const std::string& labels_path, Runtime* rt);

}  // namespace weft

#endif  // WEFT_IDX_H_
