using System;
using System.Runtime.InteropServices;

namespace Weft {

/// <summary>
/// A key-value store of arrays for data-parallel training (MXNet's KVStore):
/// "local", "device" (several cpu(i) devices in one process) or "dist_sync"
/// (one store per process of an mpirun job, kept identical by allreduce).
/// Push sums the values given for each key (and, for dist_sync, across
/// processes); the store takes the sum, or the optimizer's update with it.
/// Push and pull are asynchronous: read the arrays to see results or errors.
/// One thread at a time; with dist_sync every process makes the same calls
/// in the same order.
/// </summary>
public sealed class KVStore : NativeHandle {
  internal KVStore(long h) : base(h, Frees.KVStore) {}

  public static KVStore Create(string type) {
    Native.EnsureLoaded();
    return new KVStore(weft_native.weft_kvstore_create(type));
  }

  public string Type {
    get { var o = new IntPtr[1]; weft_native.weft_kvstore_type(Handle, o); return Marshal.PtrToStringAnsi(o[0]); }
  }

  public int Rank {
    get { int[] r = new int[1], n = new int[1]; weft_native.weft_kvstore_rank(Handle, r, n); return r[0]; }
  }

  public int NumWorkers {
    get { int[] r = new int[1], n = new int[1]; weft_native.weft_kvstore_rank(Handle, r, n); return n[0]; }
  }

  public void Init(string[] keys, NDArray[] values) {
    weft_native.weft_kvstore_init(Handle, (ulong)keys.Length, keys, Handles(values));
  }

  public void Push(string[] keys, NDArray[] values, int priority = 0) {
    weft_native.weft_kvstore_push(Handle, (ulong)keys.Length, keys, Handles(values), priority);
  }

  public void Pull(string[] keys, NDArray[] outs, int priority = 0) {
    weft_native.weft_kvstore_pull(Handle, (ulong)keys.Length, keys, Handles(outs), priority);
  }

  public void PushPull(string[] keys, NDArray[] values, NDArray[] outs, int priority = 0) {
    weft_native.weft_kvstore_pushpull(Handle, (ulong)keys.Length, keys, Handles(values), Handles(outs), priority);
  }

  /// <summary>Later pushes update the stored values with opt (shared: it may be disposed after).</summary>
  public void SetOptimizer(Optimizer opt) { weft_native.weft_kvstore_set_optimizer(Handle, opt.Handle); }

  /// <summary>Waits for the store's pending work, then (dist_sync) for every process.</summary>
  public void Barrier() { weft_native.weft_kvstore_barrier(Handle); }

  /// <summary>
  /// Ends distributed use in this process: waits for pending work, stops the communication thread
  /// and finalises MPI if Weft initialised it (also done by an exit hook of the library). Call it
  /// before exiting a program that used a dist_sync store. Idempotent.
  /// </summary>
  public static void FinalizeDistributed() { Native.EnsureLoaded(); weft_native.weft_kvstore_finalize(); }
}

}  // namespace Weft
