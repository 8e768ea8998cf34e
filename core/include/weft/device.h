// Devices: the Context a value lives on and the hooks a device provides.
//
// `Context` is {cpu|gpu, id} with MXNet's device-type codes (1 cpu, 2 gpu).
// `DeviceAPI` is the per-device-type hook set (alloc, free, copies, sync);
// the CPU one is built into core, the CUDA one is registered by kernels/cuda
// when compiled. Implementations must be thread-safe.
#ifndef WEFT_DEVICE_H_
#define WEFT_DEVICE_H_

#include <cstddef>
#include <string>

namespace weft {

enum class DeviceType : int { kCPU = 1, kGPU = 2 };

struct Context {
  DeviceType dev_type = DeviceType::kCPU;
  int dev_id = 0;

  static Context CPU(int id = 0) { return {DeviceType::kCPU, id}; }
  static Context GPU(int id = 0) { return {DeviceType::kGPU, id}; }
  bool operator==(const Context& o) const { return dev_type == o.dev_type && dev_id == o.dev_id; }
  bool operator!=(const Context& o) const { return !(*this == o); }
  bool operator<(const Context& o) const {
    return dev_type != o.dev_type ? dev_type < o.dev_type : dev_id < o.dev_id;
  }
  // "cpu(0)", "gpu(1)".
  std::string ToString() const;
  // Parses "cpu(0)", "gpu(1)", "cpu", "gpu"; throws Error(kDevice).
  static Context Parse(const std::string& text);
};

const char* DeviceTypeName(DeviceType t);

// Hooks a device type implements. Errors are thrown as weft::Error.
class DeviceAPI {
 public:
  virtual ~DeviceAPI() = default;
  // Number of usable devices of this type (0 when no driver/device).
  virtual int DeviceCount() = 0;
  // Allocates `bytes` (aligned to at least 64) on `ctx`; throws kOutOfMemory.
  virtual void* Alloc(Context ctx, size_t bytes) = 0;
  virtual void Free(Context ctx, void* ptr) = 0;
  // Copies between host memory and memory of this device type. With a
  // `stream` (an engine copy pool's RunContext::stream) the copy is only
  // queued on it and the engine waits for the stream before the op
  // completes; with null it is finished on return.
  virtual void CopyToHost(Context ctx, void* dst, const void* src, size_t bytes, void* stream) = 0;
  virtual void CopyFromHost(Context ctx, void* dst, const void* src, size_t bytes,
                            void* stream) = 0;
  // Copies within one device (or between two devices of this type).
  virtual void CopyDevice(Context dst_ctx, void* dst, Context src_ctx, const void* src,
                          size_t bytes, void* stream) = 0;
  // Waits for all work queued on `ctx`.
  virtual void Synchronize(Context ctx) = 0;
  // Free and total bytes of ctx's memory (the host's RAM for the CPU, as
  // the OS reports it); throws Error(kDevice) when the device is missing.
  virtual void MemoryInfo(Context ctx, size_t* free_bytes, size_t* total_bytes) = 0;
  // Streams, for devices with asynchronous queues (the CPU has none): a new
  // stream on `ctx` (null: no streams; throws Error(kDevice) when the device
  // is unusable), freeing one, and waiting for the work queued on one. The
  // engine gives each GPU a compute stream and a copy stream (engine.h).
  virtual void* CreateStream(Context) { return nullptr; }
  virtual void FreeStream(Context, void*) {}
  virtual void SyncStream(Context, void*) {}
  // Events, for devices with streams: RecordEvent marks the work queued on
  // `stream` so far (null: the device has no events); StreamWaitEvent makes
  // the work queued on `stream` after it wait for that mark, without
  // blocking the host; SyncEvent blocks the host until the marked work is
  // done; FreeEvent releases one (the marked work may still be running).
  // The engine orders a GPU's compute stream against its copy stream and
  // the host with them instead of waiting for each op (docs/engine.md).
  virtual void* RecordEvent(Context, void*) { return nullptr; }
  virtual void StreamWaitEvent(Context, void*, void*) {}
  virtual void SyncEvent(Context, void*) {}
  virtual void FreeEvent(Context, void*) {}
  // Graph capture, for devices that can record a stream's work once and
  // replay it (CUDA graphs): BeginCapture starts recording what is queued on
  // `stream` (false: the device cannot record; throws Error(kDevice) with
  // the device's reason when it refuses); EndCapture stops recording and
  // returns a replayable graph, or throws Error(kDevice) with the reason
  // when the recording failed (something in it cannot be recorded: nothing
  // recorded ran, and the stream is usable again); LaunchGraph queues one
  // replay on `stream`; FreeGraph releases a graph.
  virtual bool BeginCapture(Context, void*) { return false; }
  virtual void* EndCapture(Context, void*) { return nullptr; }
  virtual void LaunchGraph(Context, void*, void*) {}
  virtual void FreeGraph(Context, void*) {}
};

// The built-in host implementation.
DeviceAPI* CpuDeviceAPI();

}  // namespace weft

#endif  // WEFT_DEVICE_H_
