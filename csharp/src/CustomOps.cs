using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;

namespace Weft {

/// <summary>The library's one entry point into C# (bindings/weft.i).</summary>
[UnmanagedFunctionPointer(CallingConvention.Cdecl)]
internal delegate void CustomOpDispatch(int kind, long id, IntPtr call);

/// <summary>
/// Custom operators written in C# (MXNet's Custom): a type registered by name
/// serves every node "op": "Custom", "op_type": name, process-wide. Prop
/// callbacks run on the thread that builds, infers or binds; Forward and
/// Backward on Weft's engine worker threads (Mono attaches them at their first
/// callback). The dispatch delegate lives in a static field for the life of
/// the process, and every registration, prop and operator the library holds
/// stays in a table until the library releases it, so the GC never collects
/// a callback the library can still call.
/// </summary>
public static class CustomOps {
  static readonly CustomOpDispatch dispatch = Dispatch;
  static readonly ConcurrentDictionary<long, object> objects = new ConcurrentDictionary<long, object>();
  static long nextId;

  /// <summary>A registered type; Dispose unregisters it.</summary>
  public sealed class Registration : IDisposable {
    public string OpType { get; private set; }
    internal Registration(string opType) { OpType = opType; }
    /// <summary>Unregisters (refused with InvalidArgument while a node of
    /// the type lives).</summary>
    public void Dispose() { Unregister(OpType); }
  }

  /// <summary>Registers opType: creator makes the prop of each node from its
  /// attributes (all but op_type, as strings). A taken name fails.</summary>
  public static Registration Register(string opType,
                                      Func<IDictionary<string, string>, CustomOpProp> creator) {
    Native.EnsureLoaded();
    long id = Put(creator);
    weft_native.weft_custom_op_register_host(opType, dispatch, id);  // failure: DELETE_TYPE drops it
    return new Registration(opType);
  }

  /// <summary>NotFound when unknown, InvalidArgument while in use.</summary>
  public static void Unregister(string opType) {
    Native.EnsureLoaded();
    weft_native.weft_custom_op_unregister(opType);
  }

  /// <summary>The registered custom operator types (every language), sorted.</summary>
  public static IList<string> List() {
    Native.EnsureLoaded();
    return Symbol.Take(weft_native.weft_custom_op_list());
  }

  /// <summary>Registrations, props and operators alive (0 once released).</summary>
  public static int LiveObjects { get { return objects.Count; } }

  static long Put(object o) {
    long id = Interlocked.Increment(ref nextId);
    objects[id] = o;
    return id;
  }

  static T Get<T>(long id) { return (T)objects[id]; }

  [ThreadStatic] static bool threadSeen;
  static int exitHooked;

  // Mono attaches an engine worker at its first callback as a foreground
  // thread and, at exit, waits for foreground threads and then aborts and
  // waits for background ones; an engine worker parked in native code never
  // ends either wait. So a worker is marked background at its first callback
  // (the first wait passes it), and the process-exit event, which comes
  // between the two waits, shuts the engine down, ending the workers (Mono
  // forgets a thread as it ends); so does the unloading of the domain (a
  // test runner's), which otherwise waits for them too.
  static void SeeThread() {
    threadSeen = true;
    if (weft_native.weft_engine_on_worker_thread() == 0) return;
    Thread.CurrentThread.IsBackground = true;
    if (Interlocked.Exchange(ref exitHooked, 1) == 0) {
      EventHandler shutdown = (s, e) => weft_native.weft_engine_shutdown();
      AppDomain.CurrentDomain.ProcessExit += shutdown;
      AppDomain.CurrentDomain.DomainUnload += shutdown;  // a test runner's domain
    }
  }

  static void Dispatch(int kind, long id, IntPtr raw) {
    // Nothing may escape into native frames: every exception becomes the call's error.
    var call = new WeftHandle(raw.ToInt64(), null);
    try {
      if (!threadSeen) SeeThread();
      DispatchOrThrow(kind, id, new CustomOpCall(call));
    } catch (Exception e) {
      try {
        weft_native.weft_custom_op_call_fail(call, e.GetType().FullName + ": " + e.Message);
      } catch (Exception) {
      }
    } finally {
      call.Dispose();
    }
  }

  static void DispatchOrThrow(int kind, long id, CustomOpCall c) {
    switch (kind) {
      case weft_native.WEFT_CUSTOM_CALL_CREATE_PROP: {
        var s = c.Strings();
        var attrs = new Dictionary<string, string>();
        for (int i = 1; i + 1 < s.Count; i += 2) attrs[s[i]] = s[i + 1];
        var prop = Get<Func<IDictionary<string, string>, CustomOpProp>>(id)(attrs);
        if (prop == null) throw new InvalidOperationException("the creator returned null");
        c.SetInts(Put(prop));
        return;
      }
      case weft_native.WEFT_CUSTOM_CALL_LIST_ARGUMENTS:
        c.AddStrings(Get<CustomOpProp>(id).ListArguments());
        return;
      case weft_native.WEFT_CUSTOM_CALL_LIST_OUTPUTS:
        c.AddStrings(Get<CustomOpProp>(id).ListOutputs());
        return;
      case weft_native.WEFT_CUSTOM_CALL_LIST_AUXILIARY_STATES:
        c.AddStrings(Get<CustomOpProp>(id).ListAuxiliaryStates());
        return;
      case weft_native.WEFT_CUSTOM_CALL_INFER_SHAPE:
        c.InferShape(Get<CustomOpProp>(id));
        return;
      case weft_native.WEFT_CUSTOM_CALL_INFER_TYPE:
        c.InferType(Get<CustomOpProp>(id));
        return;
      case weft_native.WEFT_CUSTOM_CALL_BACKWARD_DEPENDENCY:
        c.BackwardDependency(Get<CustomOpProp>(id));
        return;
      case weft_native.WEFT_CUSTOM_CALL_CREATE_OPERATOR: {
        var op = c.CreateOperator(Get<CustomOpProp>(id));
        if (op == null) throw new InvalidOperationException("CreateOperator returned null");
        c.SetInts(Put(op));
        return;
      }
      case weft_native.WEFT_CUSTOM_CALL_FORWARD:
        c.Forward(Get<ICustomOp>(id));
        return;
      case weft_native.WEFT_CUSTOM_CALL_BACKWARD:
        c.Backward(Get<ICustomOp>(id));
        return;
      default: {  // the DELETE kinds
        object gone;
        objects.TryRemove(id, out gone);
        return;
      }
    }
  }
}

}
