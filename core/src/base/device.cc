#include "weft/device.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include <unistd.h>

#include "weft/status.h"

namespace weft {

const char* DeviceTypeName(DeviceType t) {
  switch (t) {
    case DeviceType::kCPU:
      return "cpu";
    case DeviceType::kGPU:
      return "gpu";
  }
  return "unknown";
}

std::string Context::ToString() const { return StrCat(DeviceTypeName(dev_type), "(", dev_id, ")"); }

Context Context::Parse(const std::string& text) {
  std::string s;
  for (char c : text)
    if (c != ' ') s += c;
  Context ctx;
  std::string rest;
  if (s.rfind("cpu", 0) == 0) {
    ctx.dev_type = DeviceType::kCPU;
    rest = s.substr(3);
  } else if (s.rfind("gpu", 0) == 0) {
    ctx.dev_type = DeviceType::kGPU;
    rest = s.substr(3);
  } else {
    Fail(StatusCode::kDevice, "invalid context '", text, "' (expected cpu(N) or gpu(N))");
  }
  if (rest.empty()) return ctx;
  if (rest.size() < 3 || rest.front() != '(' || rest.back() != ')')
    Fail(StatusCode::kDevice, "invalid context '", text, "' (expected cpu(N) or gpu(N))");
  std::string num = rest.substr(1, rest.size() - 2);
  char* end = nullptr;
  long id = std::strtol(num.c_str(), &end, 10);
  if (num.empty() || *end != '\0' || id < 0)
    Fail(StatusCode::kDevice, "invalid device id in context '", text, "'");
  ctx.dev_id = static_cast<int>(id);
  return ctx;
}

namespace {

class CpuAPI final : public DeviceAPI {
 public:
  int DeviceCount() override { return 1 << 10; }
  void* Alloc(Context ctx, size_t bytes) override {
    size_t rounded = (bytes + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
    if (!p)
      Fail(StatusCode::kOutOfMemory, "out of host memory allocating ", bytes, " bytes on ",
           ctx.ToString());
    return p;
  }
  void Free(Context, void* ptr) override { std::free(ptr); }
  void CopyToHost(Context, void* dst, const void* src, size_t bytes, void*) override {
    if (bytes) std::memcpy(dst, src, bytes);
  }
  void CopyFromHost(Context, void* dst, const void* src, size_t bytes, void*) override {
    if (bytes) std::memcpy(dst, src, bytes);
  }
  void CopyDevice(Context, void* dst, Context, const void* src, size_t bytes, void*) override {
    if (bytes) std::memmove(dst, src, bytes);
  }
  void Synchronize(Context) override {}
  void MemoryInfo(Context ctx, size_t* free_bytes, size_t* total_bytes) override {
    const long page = sysconf(_SC_PAGESIZE), total = sysconf(_SC_PHYS_PAGES),
               avail = sysconf(_SC_AVPHYS_PAGES);
    if (page <= 0 || total <= 0 || avail < 0)
      Fail(StatusCode::kDevice, "cannot read the memory size of ", ctx.ToString(),
           " (sysconf failed)");
    *free_bytes = static_cast<size_t>(avail) * static_cast<size_t>(page);
    *total_bytes = static_cast<size_t>(total) * static_cast<size_t>(page);
  }
};

}  // namespace

DeviceAPI* CpuDeviceAPI() {
  static CpuAPI* api = new CpuAPI();  // never destroyed: usable during exit
  return api;
}

}  // namespace weft
