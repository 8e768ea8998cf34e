// TBlob: a non-owning typed view of device memory, what kernels receive.
//
// Kernels never see NDArrays or storage: they get TBlobs (pointer, shape,
// dtype, context) whose memory is kept alive by the caller for the call.
#ifndef WEFT_BLOB_H_
#define WEFT_BLOB_H_

#include "weft/device.h"
#include "weft/dtype.h"
#include "weft/shape.h"

namespace weft {

struct TBlob {
  void* dptr = nullptr;
  Shape shape;
  DType dtype = DType::kFloat32;
  Context ctx;

  int64_t Size() const { return shape.Size(); }
  size_t Bytes() const { return static_cast<size_t>(Size()) * DTypeSize(dtype); }
  template <typename T>
  T* data() const {
    return static_cast<T*>(dptr);
  }
};

}  // namespace weft

#endif  // WEFT_BLOB_H_
