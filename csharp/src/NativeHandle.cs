using System;
using System.Threading;

namespace Weft {

/// <summary>
/// An owned C ABI handle. Dispose() frees it exactly once (idempotent, safe
/// from several threads); using a disposed object throws WeftException with
/// Code InvalidHandle. The finalizer is only a safety net for objects that were
/// never disposed. Handles are generation-checked by the library, so a racing
/// use-after-dispose is reported as an error, never undefined behaviour.
/// </summary>
public abstract class NativeHandle : IDisposable {
  long handle;

  internal NativeHandle(long handle) {
    Native.EnsureLoaded();
    this.handle = handle;
  }

  /// <summary>The raw handle; throws when disposed.</summary>
  internal long Handle {
    get {
      long h = Interlocked.Read(ref handle);
      if (h == 0)
        throw new WeftException(ErrorCode.InvalidHandle, GetType().Name + " is disposed");
      return h;
    }
  }

  public bool IsDisposed { get { return Interlocked.Read(ref handle) == 0; } }

  public void Dispose() {
    Release(true);
    GC.SuppressFinalize(this);
  }

  ~NativeHandle() { Release(false); }

  void Release(bool disposing) {
    long h = Interlocked.Exchange(ref handle, 0);
    if (h == 0) return;
    try {
      Free(h);
    } catch (WeftException) {
      if (disposing) throw;  // never throw on the finalizer thread
    }
  }

  internal abstract void Free(long h);

  internal static long[] Handles(NativeHandle[] objs) {
    var hs = new long[objs == null ? 0 : objs.Length];
    for (int i = 0; i < hs.Length; ++i) hs[i] = objs[i].Handle;
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
