// The CUDA DeviceAPI: device memory, host<->device copies and the engine's
// streams via the CUDA runtime. Without a driver or device, DeviceCount() is
// 0 and every allocation or stream on gpu(i) fails with Error(kDevice)
// instead of crashing. cudaMalloc is not called per array: StoragePool
// (storage.h) keeps freed blocks by rounded size and hands them out again,
// so Alloc/Free here are only its misses and its ReleasePooled.
#include "cuda/cuda_util.h"
#include "weft/runtime.h"

namespace weft {
namespace cuda {

class CudaAPI final : public DeviceAPI {
 public:
  int DeviceCount() override {
    int n = 0;
    // Without a driver this returns an error and may leave n unset.
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky error
      return 0;
    }
    return n > 0 ? n : 0;
  }
  void* Alloc(Context ctx, size_t bytes) override {
    WEFT_CUDA_CHECK(cudaSetDevice(ctx.dev_id));
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, bytes == 0 ? 64 : bytes);
    if (e == cudaErrorMemoryAllocation)
      Fail(StatusCode::kOutOfMemory, "out of memory on ", ctx.ToString(), " allocating ", bytes,
           " bytes");
    WEFT_CUDA_CHECK(e);
    return p;
  }
  void Free(Context ctx, void* ptr) override {
    // Errors are ignored: freeing happens in destructors and at exit.
    if (cudaSetDevice(ctx.dev_id) == cudaSuccess) cudaFree(ptr);
  }
  // With a stream (the engine's copy stream for this device) the copy is
  // queued there and the engine waits for the stream before the op
  // completes; without one it is done on return.
  void CopyToHost(Context ctx, void* dst, const void* src, size_t bytes, void* stream) override {
    WEFT_CUDA_CHECK(cudaSetDevice(ctx.dev_id));
    Copy(dst, src, bytes, cudaMemcpyDeviceToHost, stream);
  }
  void CopyFromHost(Context ctx, void* dst, const void* src, size_t bytes, void* stream) override {
    WEFT_CUDA_CHECK(cudaSetDevice(ctx.dev_id));
    Copy(dst, src, bytes, cudaMemcpyHostToDevice, stream);
  }
  void CopyDevice(Context dst_ctx, void* dst, Context src_ctx, const void* src, size_t bytes,
                  void* stream) override {
    WEFT_CUDA_CHECK(cudaSetDevice(dst_ctx.dev_id));
    if (dst_ctx.dev_id == src_ctx.dev_id) {
      Copy(dst, src, bytes, cudaMemcpyDeviceToDevice, stream);
    } else if (stream) {
      WEFT_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dst_ctx.dev_id, src, src_ctx.dev_id, bytes,
                                          static_cast<cudaStream_t>(stream)));
    } else {
      WEFT_CUDA_CHECK(cudaMemcpyPeer(dst, dst_ctx.dev_id, src, src_ctx.dev_id, bytes));
    }
  }
  void Synchronize(Context ctx) override {
    WEFT_CUDA_CHECK(cudaSetDevice(ctx.dev_id));
    WEFT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void MemoryInfo(Context ctx, size_t* free_bytes, size_t* total_bytes) override {
    if (ctx.dev_id < 0 || ctx.dev_id >= DeviceCount())
      Fail(StatusCode::kDevice, "device ", ctx.ToString(), " is not available: ", DeviceCount(),
           " gpu device(s) found");
    WEFT_CUDA_CHECK(cudaSetDevice(ctx.dev_id));
    WEFT_CUDA_CHECK(cudaMemGetInfo(free_bytes, total_bytes));
  }
  // The engine's per-device streams (engine.h): one compute and one copy
  // stream per GPU, created when the device's first op is dispatched.
  // Blocking streams, so they stay ordered with work on the legacy default
  // stream (the copies made without a stream).
  void* CreateStream(Context ctx) override {
    if (ctx.dev_id < 0 || ctx.dev_id >= DeviceCount())
      Fail(StatusCode::kDevice, "cannot create a stream on ", ctx.ToString(), ": ", DeviceCount(),
           " gpu device(s) found");
    WEFT_CUDA_CHECK(cudaSetDevice(ctx.dev_id));
    cudaStream_t s = nullptr;
    WEFT_CUDA_CHECK(cudaStreamCreate(&s));
    return s;
  }
  void FreeStream(Context ctx, void* stream) override {
    // Errors are ignored: streams are freed in destructors.
    if (stream && cudaSetDevice(ctx.dev_id) == cudaSuccess)
      cudaStreamDestroy(static_cast<cudaStream_t>(stream));
  }
  void SyncStream(Context ctx, void* stream) override {
    WEFT_CUDA_CHECK(cudaSetDevice(ctx.dev_id));
    WEFT_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
  }
  void* RecordEvent(Context ctx, void* stream) override {
    WEFT_CUDA_CHECK(cudaSetDevice(ctx.dev_id));
    cudaEvent_t e = nullptr;
    WEFT_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    const cudaError_t rec = cudaEventRecord(e, static_cast<cudaStream_t>(stream));
    if (rec != cudaSuccess) {
      cudaEventDestroy(e);
      WEFT_CUDA_CHECK(rec);
    }
    return e;
  }
  void StreamWaitEvent(Context ctx, void* stream, void* event) override {
    WEFT_CUDA_CHECK(cudaSetDevice(ctx.dev_id));
    WEFT_CUDA_CHECK(
        cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), static_cast<cudaEvent_t>(event), 0));
  }
  void SyncEvent(Context ctx, void* event) override {
    WEFT_CUDA_CHECK(cudaSetDevice(ctx.dev_id));
    WEFT_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(event)));
  }
  void FreeEvent(Context ctx, void* event) override {
    // Errors are ignored: events are freed in destructors.
    if (event && cudaSetDevice(ctx.dev_id) == cudaSuccess)
      cudaEventDestroy(static_cast<cudaEvent_t>(event));
  }
  // CUDA graphs: recording in relaxed mode (a kernel's own cudaMalloc-free
  // calls stay legal); a failed recording's error is cleared so that the
  // next kernel's launch check does not report it.
  bool BeginCapture(Context ctx, void* stream) override {
    if (!stream) return false;  // the legacy default stream cannot be captured
    WEFT_CUDA_CHECK(cudaSetDevice(ctx.dev_id));
    const cudaError_t e =
        cudaStreamBeginCapture(static_cast<cudaStream_t>(stream), cudaStreamCaptureModeRelaxed);
    if (e == cudaSuccess) return true;
    cudaGetLastError();
    Fail(StatusCode::kDevice, "recording a graph on ", ctx.ToString(),
         " failed: cudaStreamBeginCapture: ", cudaGetErrorString(e));
  }
  void* EndCapture(Context ctx, void* stream) override {
    WEFT_CUDA_CHECK(cudaSetDevice(ctx.dev_id));
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    cudaError_t e = cudaStreamEndCapture(static_cast<cudaStream_t>(stream), &graph);
    const char* step = "cudaStreamEndCapture";
    if (e == cudaSuccess && graph) {
      e = cudaGraphInstantiate(&exec, graph, 0);
      step = "cudaGraphInstantiate";
    }
    if (graph) cudaGraphDestroy(graph);
    if (e == cudaSuccess && exec) return exec;
    cudaGetLastError();
    Fail(StatusCode::kDevice, "recording a graph on ", ctx.ToString(), " failed: ", step, ": ",
         cudaGetErrorString(e));
  }
  void LaunchGraph(Context ctx, void* graph, void* stream) override {
    WEFT_CUDA_CHECK(cudaSetDevice(ctx.dev_id));
    WEFT_CUDA_CHECK(
        cudaGraphLaunch(static_cast<cudaGraphExec_t>(graph), static_cast<cudaStream_t>(stream)));
  }
  void FreeGraph(Context ctx, void* graph) override {
    // Errors are ignored: graphs are freed in destructors.
    if (graph && cudaSetDevice(ctx.dev_id) == cudaSuccess)
      cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(graph));
  }

 private:
  static void Copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, void* stream) {
    if (stream)
      WEFT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, static_cast<cudaStream_t>(stream)));
    else
      WEFT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
  }
};

void RegisterCudaDeviceAPI(Runtime* rt) {
  static CudaAPI* api = new CudaAPI();  // never destroyed: usable during exit
  rt->SetDeviceAPI(DeviceType::kGPU, api);
}

}  // namespace cuda
}  // namespace weft
