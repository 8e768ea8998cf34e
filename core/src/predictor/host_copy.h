// The predictor's copies between a caller's host buffers and its bound
// input / output arrays.
#ifndef WEFT_CORE_SRC_PREDICTOR_HOST_COPY_H_
#define WEFT_CORE_SRC_PREDICTOR_HOST_COPY_H_

#include <cstddef>
#include <string>

#include "weft/ndarray.h"
#include "weft/predictor.h"
#include "weft/runtime.h"

namespace weft {

// Pushes the copy of `bytes` at `src` into `a` without waiting for it: the
// forward that reads `a` is ordered after it by the engine, so a call costs
// one wait (its outputs) instead of two. `src` must stay valid until `a`'s
// variable has no pending write (WaitInputCopies).
void PushInputCopy(Runtime* rt, const NDArray& a, const void* src, size_t bytes);

// Writes `in` into the bound input `a`: on the calling thread for host
// memory, once the executor's last call no longer reads it (no engine
// hop); else through an engine copy the forward is ordered after
// (PushInputCopy; `in` has no fill function there, Predict stages those).
void CopyIn(Runtime* rt, const NDArray& a, const HostInput& in);

// Throws Error(kInvalidArgument) naming output `name` unless `out` takes
// `o`: a buffer (or drain) of exactly its bytes, or of at least them with
// out.shape set. `note` (may be empty) ends the message.
void CheckOutputBuffer(const std::string& name, const NDArray& o, const HostOutput& out,
                       const std::string& note = "");

// Reads the output `o` into `out` on the calling thread (its bytes, at the
// start of a larger buffer), storing its shape in *out.shape when set.
void CopyOut(const NDArray& o, const HostOutput& out);

}  // namespace weft

#endif  // WEFT_CORE_SRC_PREDICTOR_HOST_COPY_H_
