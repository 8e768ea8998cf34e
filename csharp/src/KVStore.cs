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

  Action<string, NDArray, NDArray> updater;

  /// <summary>
  /// Later pushes run updater(key, sum, stored) on each key's sum and stored value (MXNet's
  /// set_updater; write stored in place; both are valid during the call only), on the thread that
  /// pushes, before Push (or Pull) returns; replaces an optimizer. Null restores plain sums. The
  /// library queues the updates and this class runs them after each native call, so no native
  /// thread calls into the runtime.
  /// </summary>
  public void SetUpdater(Action<string, NDArray, NDArray> updater) {
    weft_native.weft_kvstore_set_updater_queue(Handle, updater == null ? 0 : 1);
    this.updater = updater;
  }

  /// <summary>Runs the queued updates; whether there were any.</summary>
  bool RunUpdates() {
    var u = updater;
    if (u == null) return false;
    bool any = false;
    for (;;) {
      var key = new IntPtr[1];
      long[] sum = new long[1], stored = new long[1];
      var has = new int[1];
      weft_native.weft_kvstore_next_update(Handle, key, sum, stored, has);
      if (has[0] == 0) return any;
      any = true;
      using (var s = new NDArray(sum[0]))
      using (var st = new NDArray(stored[0]))
        u(Marshal.PtrToStringAnsi(key[0]), s, st);
    }
  }

  public void Push(string[] keys, NDArray[] values, int priority = 0) {
    weft_native.weft_kvstore_push(Handle, (ulong)keys.Length, keys, Handles(values), priority);
    RunUpdates();
  }

  public void Pull(string[] keys, NDArray[] outs, int priority = 0) {
    var o = Handles(outs);
    weft_native.weft_kvstore_pull(Handle, (ulong)keys.Length, keys, o, priority);
    // dist_sync applies a bucket's updates at the pull that sends it: pull again after them.
    if (RunUpdates()) weft_native.weft_kvstore_pull(Handle, (ulong)keys.Length, keys, o, priority);
    GC.KeepAlive(outs);
  }

  public void PushPull(string[] keys, NDArray[] values, NDArray[] outs, int priority = 0) {
    if (updater != null) {
      Push(keys, values, priority);
      Pull(keys, outs, priority);
      return;
    }
    weft_native.weft_kvstore_pushpull(Handle, (ulong)keys.Length, keys, Handles(values), Handles(outs), priority);
  }

  /// <summary>Later pushes update the stored values with opt (shared: it may be disposed after).</summary>
  public void SetOptimizer(Optimizer opt) {
    weft_native.weft_kvstore_set_optimizer(Handle, opt.Handle);
    updater = null;
  }

  /// <summary>Waits for the store's pending work, then (dist_sync) for every process.</summary>
  public void Barrier() {
    weft_native.weft_kvstore_barrier(Handle);
    RunUpdates();
  }

  /// <summary>
  /// Ends distributed use in this process: waits for pending work, stops the communication thread
  /// and finalises MPI if Weft initialised it (also done by an exit hook of the library). Call it
  /// before exiting a program that used a dist_sync store. Idempotent.
  /// </summary>
  public static void FinalizeDistributed() { Native.EnsureLoaded(); weft_native.weft_kvstore_finalize(); }
}

}  // namespace Weft
