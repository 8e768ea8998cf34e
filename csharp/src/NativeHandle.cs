using System;
using System.Runtime.InteropServices;

// The NUnit tests check the WeftHandle reference counting directly.
[assembly: System.Runtime.CompilerServices.InternalsVisibleTo("WeftTests")]

namespace Weft {

/// <summary>
/// One C ABI handle of any kind, owned (freed once by its kind's free
/// function) or borrowed (never freed). Every raw wrapper takes handles as
/// WeftHandle (weft.i), so the P/Invoke marshaller adds a reference for the
/// duration of each native call: a handle is never freed under a running
/// call, neither by a racing Dispose (the free is deferred to the end of the
/// last call) nor by this object's finalizer when its owner became
/// unreachable mid-call (the call's argument keeps it reachable).
/// ReleaseHandle never throws (it may run on the finalizer thread).
/// Thread-safe.
/// </summary>
sealed class WeftHandle : SafeHandle {
  /// <summary>NULL, for optional handle arguments.</summary>
  internal static readonly WeftHandle Null = new WeftHandle(0, null);

  readonly Action<WeftHandle> free;

  /// <summary>Owns h when free is given (h 0: nothing to free), else borrows it.</summary>
  internal WeftHandle(long h, Action<WeftHandle> free) : base(IntPtr.Zero, free != null) {
    SetHandle(new IntPtr(h));
    this.free = free;
  }

  public override bool IsInvalid { get { return handle == IntPtr.Zero; } }

  protected override bool ReleaseHandle() {
    // This object is closed now, so the marshaller would refuse it: free
    // through a borrowed copy of the raw value.
    var raw = new WeftHandle(handle.ToInt64(), null);
    GC.SuppressFinalize(raw);
    try {
      free(raw);
      return true;
    } catch (WeftException) {
      return false;
    }
  }

  /// <summary>The handle of owner, or Null for a null owner.</summary>
  internal static WeftHandle Of(NativeHandle owner) { return owner == null ? Null : owner.Handle; }

  /// <summary>The error a call on a disposed handle raises (the marshaller's
  /// ObjectDisposedException, or the check in NativeHandle.Handle).</summary>
  internal static WeftException Disposed(string what) {
    return new WeftException(ErrorCode.InvalidHandle, what + " is disposed");
  }
}

/// <summary>The free function of each handle kind (for WeftHandle).</summary>
static class Frees {
  internal static readonly Action<WeftHandle> NDArray = h => weft_native.weft_ndarray_free(h);
  internal static readonly Action<WeftHandle> NDArrayList = h => weft_native.weft_ndarray_list_free(h);
  internal static readonly Action<WeftHandle> Buffer = h => weft_native.weft_buffer_free(h);
  internal static readonly Action<WeftHandle> StringList = h => weft_native.weft_string_list_free(h);
  internal static readonly Action<WeftHandle> ShapeResult = h => weft_native.weft_shape_result_free(h);
  internal static readonly Action<WeftHandle> TypeResult = h => weft_native.weft_type_result_free(h);
  internal static readonly Action<WeftHandle> Symbol = h => weft_native.weft_symbol_free(h);
  internal static readonly Action<WeftHandle> Executor = h => weft_native.weft_executor_free(h);
  internal static readonly Action<WeftHandle> DataIter = h => weft_native.weft_data_iter_free(h);
  internal static readonly Action<WeftHandle> Metric = h => weft_native.weft_metric_free(h);
  internal static readonly Action<WeftHandle> Initializer = h => weft_native.weft_initializer_free(h);
  internal static readonly Action<WeftHandle> Optimizer = h => weft_native.weft_optimizer_free(h);
  internal static readonly Action<WeftHandle> Module = h => weft_native.weft_module_free(h);
  internal static readonly Action<WeftHandle> Predictor = h => weft_native.weft_predictor_free(h);
  internal static readonly Action<WeftHandle> KVStore = h => weft_native.weft_kvstore_free(h);
  internal static readonly Action<WeftHandle> ExecutorOptions = h => weft_native.weft_executor_options_free(h);
  internal static readonly Action<WeftHandle> CachedOp = h => weft_native.weft_cached_op_free(h);
  internal static readonly Action<WeftHandle> Trainer = h => weft_native.weft_trainer_free(h);
  internal static readonly Action<WeftHandle> FitSession = h => weft_native.weft_fit_session_free(h);
  internal static readonly Action<WeftHandle> RecordWriter = h => weft_native.weft_recordio_writer_free(h);
  internal static readonly Action<WeftHandle> RecordReader = h => weft_native.weft_recordio_reader_free(h);
}

/// <summary>
/// A public object owning one C ABI handle (a WeftHandle). Dispose() frees it
/// exactly once (idempotent, safe from several threads, deferred until calls
/// running on it return); using a disposed object throws WeftException with
/// Code InvalidHandle. No finalizer here: the WeftHandle's own (critical)
/// finalizer frees a handle that was never disposed. Handles are
/// generation-checked by the library, so a handle array racing a Dispose is
/// reported as an error, never undefined behaviour.
/// </summary>
public abstract class NativeHandle : IDisposable {
  readonly WeftHandle handle;
  volatile bool disposed;  // set by Dispose (the free waits for calls running)

  internal NativeHandle(long h, Action<WeftHandle> free) {
    Native.EnsureLoaded();
    handle = new WeftHandle(h, free);
  }

  /// <summary>The handle (for raw calls); throws when disposed.</summary>
  internal WeftHandle Handle {
    get {
      if (disposed) throw WeftHandle.Disposed(GetType().Name);
      return handle;
    }
  }

  public bool IsDisposed { get { return disposed; } }

  public void Dispose() {
    disposed = true;
    handle.Dispose();
    Disposed();
  }

  /// <summary>Releases what the object holds beside its handle (e.g. a monitor callback).</summary>
  internal virtual void Disposed() {}

  /// <summary>
  /// The raw values of objs for a handle-array argument (null entries: 0).
  /// The caller keeps objs reachable until the call returns (GC.KeepAlive):
  /// an array of raw values does not keep the owners alive.
  /// </summary>
  internal static long[] Handles(NativeHandle[] objs) {
    var hs = new long[objs == null ? 0 : objs.Length];
    for (int i = 0; i < hs.Length; ++i)
      hs[i] = objs[i] == null ? 0 : objs[i].Handle.DangerousGetHandle().ToInt64();
    return hs;
  }
}

/// <summary>Checks the library's ABI version once, before the first call.</summary>
static class Native {
  static volatile bool loaded;
  static readonly object gate = new object();

  internal static void EnsureLoaded() {
    if (loaded) return;
    lock (gate) {
      if (loaded) return;
      int lib = weft_native.weft_abi_version();
      int binding = weft_native.weft_binding_abi_version();
      if (lib < binding)
        throw new InvalidOperationException(string.Format(
            "weft: ABI version mismatch: the native library {0} has ABI version {1} " +
            "but the C# binding (Weft.dll) needs ABI version {2}",
            weft_native.weft_binding_library_path(), lib, binding));
      loaded = true;
    }
  }
}

}
