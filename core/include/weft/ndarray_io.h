// NDArray files: MXNet's binary NDArray-list format (".params", nd.save).
//
// A file is: uint64 magic 0x112, uint64 reserved (0); uint64 array count and
// that many array records; uint64 name count (0 for an unnamed list, else
// the array count) and each name as uint64 length + bytes. Names are kept
// verbatim ("arg:fc1_weight", "aux:bn_moving_mean"); SplitParams() splits a
// checkpoint's list into argument and auxiliary-state maps. All integers
// are little endian.
//
// Records read: V2 (uint32 magic 0xF993FAC9) and V3 (0xF993FACA, NumPy
// shape semantics): int32 storage type (dense only), shape as int32 ndim +
// int64 dims; V1 (0xF993FAC8): shape as int32 ndim + int64 dims; pre-V1 (no
// magic: the first uint32 is ndim, then uint32 dims). Then, unless the
// array is empty ("none": ndim 0, or in V3 an unknown shape), int32
// dev_type, int32 dev_id, int32 dtype flag (MXNet codes 0..6) and the raw
// elements. Arrays are loaded on cpu(0) whatever context the file names.
// Bytes after the name table are ignored, as MXNet does.
//
// Save writes V2 records as MXNet 1.x does for dense arrays (byte-identical
// for cpu arrays), except that a rank-0 (scalar) array is written as a V3
// record, since ndim 0 means "none" in V2; an empty (none) NDArray is
// written as MXNet writes one (V2, storage type -1, ndim 0).
//
// Loading validates every field against the bytes that remain before
// allocating: malformed input throws weft::Error naming the array, what was
// expected versus found and the byte offset. Stateless; thread-safe.
#ifndef WEFT_NDARRAY_IO_H_
#define WEFT_NDARRAY_IO_H_

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "weft/ndarray.h"

namespace weft {

// Record magics and the list header of the format.
constexpr uint64_t kNDArrayListMagic = 0x112;
constexpr uint32_t kNDArrayV1Magic = 0xF993FAC8;
constexpr uint32_t kNDArrayV2Magic = 0xF993FAC9;
constexpr uint32_t kNDArrayV3Magic = 0xF993FACA;

// A list of arrays with optional names. An element may be empty
// (is_none()). `names` is empty (unnamed list) or has one name per array.
struct NDArrayList {
  std::vector<NDArray> arrays;
  std::vector<std::string> names;
};

// Serialises `list` (every array must be readable from the host). Throws
// kInvalidArgument when names.size() is neither 0 nor arrays.size().
std::string SaveNDArrays(const NDArrayList& list);
// Writes SaveNDArrays(list) to `path`, streaming; kIO when it cannot.
void SaveNDArraysFile(const NDArrayList& list, const std::string& path);

// Parses a serialised list; arrays are allocated on cpu(0) of `rt` (not
// null). Errors: kInvalidArgument (malformed or
// truncated), kDType (dtype flag other than 0..6), kNotImplemented (sparse
// storage, zero-size arrays).
NDArrayList LoadNDArrays(const void* data, size_t size, Runtime* rt);
// Reads the file at `path` (kIO when it cannot be read); other errors as
// LoadNDArrays, prefixed with the path.
NDArrayList LoadNDArraysFile(const std::string& path, Runtime* rt);

// A checkpoint's parameters: "arg:<name>" entries in `args`, "aux:<name>"
// in `aux`, keyed without the prefix.
struct ParamMaps {
  std::map<std::string, NDArray> args;
  std::map<std::string, NDArray> aux;
};
// Splits `list` by prefix. Throws kInvalidArgument for an unnamed list, a
// name without an "arg:"/"aux:" prefix, a repeated name or an empty array.
// With `aux_names` (a symbol's ListAuxiliaryStates), names without a prefix
// are accepted as MXNet's load_dict takes them (files written by Gluon's
// collect_params().save() or mx.nd.save of a dict): an auxiliary state's
// name goes to `aux`, any other to `args`.
ParamMaps SplitParams(const NDArrayList& list, const std::vector<std::string>* aux_names = nullptr);

}  // namespace weft

#endif  // WEFT_NDARRAY_IO_H_
