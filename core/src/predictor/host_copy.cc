// See host_copy.h.
#include "predictor/host_copy.h"

#include <cstring>

#include "weft/engine.h"
#include "weft/status.h"

namespace weft {

void PushInputCopy(Runtime* rt, const NDArray& a, const void* src, size_t bytes) {
  WEFT_CHECK(bytes == a.Bytes() && (src || !bytes))
      << "input copy of " << bytes << " bytes into " << a.Bytes();
  const Context c = a.ctx();
  void* dst = a.dptr();
  auto keep = a.chunk();  // the memory outlives the copy
  Engine::Get()->PushSync(
      [rt, c, dst, src, bytes, keep](RunContext rc) {
        rt->device_api(c.dev_type)->CopyFromHost(c, dst, src, bytes, rc.stream);
      },
      c, {}, {a.var()}, 0, "CopyFromHost", FnProperty::kCopyToDevice);
}

void CopyIn(Runtime* rt, const NDArray& a, const HostInput& in) {
  if (a.ctx().dev_type != DeviceType::kCPU) return PushInputCopy(rt, a, in.data, in.bytes);
  a.WaitToWrite();
  if (in.fill) {
    in.fill(a.dptr(), in.bytes);
  } else if (in.bytes > 0) {
    std::memcpy(a.dptr(), in.data, in.bytes);
  }
}

void CopyOut(const NDArray& o, const HostOutput& out) {
  if (!out.drain) return o.CopyToHost(out.data, out.bytes);
  o.WaitToRead();  // rethrows the error of a failed op that wrote it
  out.drain(o.dptr(), out.bytes);
}

}  // namespace weft
