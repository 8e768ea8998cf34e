using System;
using System.Collections.Concurrent;
using System.Runtime.InteropServices;
using System.Threading;

namespace Weft {

/// <summary>The library's entry point for monitor callbacks (bindings/weft.i):
/// null, or a message (valid until this thread's next failing callback)
/// that fails the monitored call.</summary>
[UnmanagedFunctionPointer(CallingConvention.Cdecl)]
internal delegate IntPtr MonitorDispatch(IntPtr name, IntPtr array, IntPtr user);

/// <summary>
/// A monitor callback (MXNet's MXExecutorSetMonitorCallbackEX): called once
/// per node output (with monitorAll also once per input, before the node)
/// on the thread running Forward, Backward, Predict or Invoke. The value is
/// a copy of the entry taken before anything overwrote it, borrowed for the
/// call (read it, e.g. MonitorStat or GetFloats; it is disposed when the
/// callback returns). An exception fails the monitored call with
/// InvalidArgument naming the entry and the message. The callback must not
/// use the object it monitors.
/// </summary>
public delegate void MonitorCallback(string name, NDArray value);

/// <summary>The callbacks the library can call, by id (the C callback's
/// user pointer). Each monitored object owns a Slot; a callback leaves the
/// table when replaced or when its owner is disposed (an owner left to the
/// finalizer keeps its callback in the table).</summary>
static class Monitors {
  static readonly MonitorDispatch dispatch = Dispatch;  // never collected
  static readonly ConcurrentDictionary<long, MonitorCallback> callbacks =
      new ConcurrentDictionary<long, MonitorCallback>();
  static long nextId;
  [ThreadStatic] static IntPtr lastError;

  /// <summary>One owner's installed callback.</summary>
  internal sealed class Slot {
    long id;

    /// <summary>Installs callback (null removes) through install(dispatch, id).</summary>
    internal void Set(MonitorCallback callback, Action<MonitorDispatch, long> install) {
      lock (this) {
        long next = 0;
        if (callback != null) {
          next = Interlocked.Increment(ref nextId);
          callbacks[next] = callback;
        }
        try {
          install(callback == null ? null : dispatch, next);
        } catch {
          MonitorCallback dropped;
          if (next != 0) callbacks.TryRemove(next, out dropped);
          throw;
        }
        Clear();
        id = next;
      }
    }

    /// <summary>Forgets the installed callback.</summary>
    internal void Clear() {
      lock (this) {
        MonitorCallback dropped;
        if (id != 0) callbacks.TryRemove(id, out dropped);
        id = 0;
      }
    }
  }

  /// <summary>Callbacks installed on live objects (0 once their owners are disposed).</summary>
  internal static int Live { get { return callbacks.Count; } }

  static IntPtr Dispatch(IntPtr name, IntPtr array, IntPtr user) {
    // Nothing may escape into native frames: every exception becomes the call's error.
    try {
      MonitorCallback callback;
      if (!callbacks.TryGetValue(user.ToInt64(), out callback)) return IntPtr.Zero;  // replaced
      using (var value = new NDArray(array.ToInt64(), true))
        callback(Marshal.PtrToStringAnsi(name), value);
      return IntPtr.Zero;
    } catch (Exception e) {
      if (lastError != IntPtr.Zero) Marshal.FreeHGlobal(lastError);
      lastError = Marshal.StringToHGlobalAnsi(e.GetType().FullName + ": " + e.Message);
      return lastError;
    }
  }
}

}  // namespace Weft
