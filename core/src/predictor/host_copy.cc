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

void CheckOutputBuffer(const std::string& name, const NDArray& o, const HostOutput& out,
                       const std::string& note) {
  const size_t need = o.Bytes();
  const bool fits = out.shape ? out.bytes >= need : out.bytes == need;
  if (fits && (out.data || out.drain || need == 0)) return;
  Fail(StatusCode::kInvalidArgument, "predictor: output '", name, "' of shape ",
       o.shape().ToString(), " needs a buffer of ", out.shape ? "at least " : "", need,
       " bytes, given ", out.bytes, out.data ? "" : " (null)", note);
}

void CopyOut(const NDArray& o, const HostOutput& out) {
  if (out.shape) *out.shape = o.shape();
  if (!out.drain) return o.CopyToHost(out.data, o.Bytes());
  o.WaitToRead();  // rethrows the error of a failed op that wrote it
  out.drain(o.dptr(), o.Bytes());
}

}  // namespace weft
