using System;
using System.Collections.Generic;
using System.Linq;

namespace Weft {

/// <summary>Reads and frees WeftNDArrayList handles; packs names and shapes.</summary>
static class NDArrayLists {
  /// <summary>
  /// The arrays of list by name (unnamed lists: "0", "1", ...), in order;
  /// entries without an array (a null gradient) are left out. Frees list; on
  /// error the arrays taken so far are disposed.
  /// </summary>
  internal static Dictionary<string, NDArray> Take(long raw) {
    var r = new Dictionary<string, NDArray>();
    var list = new WeftHandle(raw, Frees.NDArrayList);
    try {
      var n = new ulong[1];
      var named = new int[1];
      weft_native.weft_ndarray_list_size(list, n, named);
      var name = new IntPtr[1];
      for (ulong i = 0; i < n[0]; ++i) {
        string key = i.ToString();
        if (named[0] != 0) {
          weft_native.weft_ndarray_list_name(list, i, name);
          key = Library.Str(name[0]);
        }
        long h = weft_native.weft_ndarray_list_get(list, i);
        if (h != 0) r[key] = new NDArray(h);
      }
      return r;
    } catch {
      NDArray.DisposeAll(r);
      throw;
    } finally {
      list.Dispose();
    }
  }

  /// <summary>The names (in order) and list order of Take: Dictionary keeps insertion order
  /// for entries never removed, which is all Take does.</summary>
  internal static List<NDArray> TakeList(long list) { return Take(list).Values.ToList(); }

  internal static string[] Names(IDictionary<string, NDArray> m) {
    return m == null ? new string[0] : m.Keys.ToArray();
  }

  internal static long[] Handles(IDictionary<string, NDArray> m) {
    return m == null ? new long[0] : NativeHandle.Handles(m.Values.ToArray());
  }

  /// <summary>CSR packing of named shapes.</summary>
  internal static void Shapes(IDictionary<string, long[]> shapes, out string[] names,
                              out ulong[] indPtr, out long[] dims) {
    names = new string[shapes.Count];
    indPtr = new ulong[shapes.Count + 1];
    var d = new List<long>();
    int i = 0;
    foreach (var kv in shapes) {
      names[i] = kv.Key;
      d.AddRange(kv.Value);
      indPtr[++i] = (ulong)d.Count;
    }
    dims = d.ToArray();
  }
}

/// <summary>Gradient request per argument for Executor.Bind.</summary>
public enum GradReq {
  Null = weft_native.WEFT_REQ_NULL,
  Write = weft_native.WEFT_REQ_WRITE,
  Add = weft_native.WEFT_REQ_ADD
}

/// <summary>weft_executor_memory() figures.</summary>
public sealed class ExecutorMemory {
  public ulong NaiveBytes, PlannedBytes, NumStorage, NumInplace, NumReused;
  public int MatchRange;
}

/// <summary>
/// A symbol bound to arrays (owned handle; Dispose it). The executor shares
/// every array bound to it: writes through ArgArrays() handles are seen by the
/// next Forward and Outputs() handles show the latest run. Returned
/// dictionaries and lists hold new NDArray handles the caller disposes
/// (NDArray.DisposeAll). One executor must not be used by two threads at once;
/// distinct executors may run concurrently.
/// </summary>
public sealed class Executor : NativeHandle {
  internal Executor(long h) : base(h, Frees.Executor) {}

  /// <summary>
  /// Binds sym on cpu(0), allocating (zeroed) every argument, gradient and aux
  /// state from the input shapes by name. gradReq: "null", "write" or "add"
  /// (null: "write"); arguments named *data/*label get no gradient.
  /// </summary>
  public static Executor SimpleBind(Symbol sym, IDictionary<string, long[]> shapes, string gradReq,
                                    IDictionary<string, DType> dtypes = null) {
    return SimpleBind(sym, Context.Cpu(), shapes, gradReq, dtypes);
  }

  /// <summary>
  /// As SimpleBind, on device ctx, with an optional device per group
  /// (group2ctx: a node's "ctx_group" attribute, set with Symbol.SetAttr, to
  /// a device; MXNet's group2ctx). Arguments of a group are allocated on its
  /// device, the rest on ctx; the library inserts the copies between devices.
  /// A group used by the symbol but missing from the map fails with
  /// ErrorCode.Device naming it.
  /// </summary>
  public static Executor SimpleBind(Symbol sym, Context ctx, IDictionary<string, long[]> shapes, string gradReq,
                                    IDictionary<string, DType> dtypes = null,
                                    IDictionary<string, Context> group2ctx = null) {
    string[] names; ulong[] indPtr; long[] dims;
    NDArrayLists.Shapes(shapes, out names, out indPtr, out dims);
    var dn = dtypes == null ? new string[0] : dtypes.Keys.ToArray();
    var codes = dn.Select(k => (int)dtypes[k]).ToArray();
    if (group2ctx == null || group2ctx.Count == 0)
      return new Executor(weft_native.weft_executor_simple_bind(sym.Handle, (int)ctx.Type, ctx.Id,
          (ulong)names.Length, names, indPtr, dims, (ulong)dn.Length, dn, codes, gradReq));
    string[] gn; int[] gt, gi;
    Groups(group2ctx, out gn, out gt, out gi);
    return new Executor(weft_native.weft_executor_simple_bind_group2ctx(sym.Handle, (int)ctx.Type, ctx.Id,
        (ulong)gn.Length, gn, gt, gi, (ulong)names.Length, names, indPtr, dims, (ulong)dn.Length, dn, codes,
        gradReq));
  }

  /// <summary>
  /// As SimpleBind, on device ctx, with binding options (null: the defaults; see
  /// ExecutorOptions): gradient requests come from ExecutorOptions.GradReq (none named: Write
  /// except for *data/*label arguments) and device groups from ExecutorOptions.Group. The options
  /// are read, not kept: disposing them after the call is fine.
  /// </summary>
  public static Executor SimpleBind(Symbol sym, ExecutorOptions options, Context ctx,
                                    IDictionary<string, long[]> shapes, IDictionary<string, DType> dtypes = null) {
    string[] names; ulong[] indPtr; long[] dims;
    NDArrayLists.Shapes(shapes, out names, out indPtr, out dims);
    var dn = dtypes == null ? new string[0] : dtypes.Keys.ToArray();
    var codes = dn.Select(k => (int)dtypes[k]).ToArray();
    return new Executor(weft_native.weft_executor_simple_bind_with_options(sym.Handle, (int)ctx.Type, ctx.Id, (ulong)names.Length, names,
                                                       indPtr, dims, (ulong)dn.Length, dn, codes,
                                                       WeftHandle.Of(options)));
  }

  /// <summary>A group to device map as parallel arrays, in name order.</summary>
  static void Groups(IDictionary<string, Context> m, out string[] names, out int[] types, out int[] ids) {
    names = m.Keys.OrderBy(k => k, StringComparer.Ordinal).ToArray();
    types = names.Select(k => (int)m[k].Type).ToArray();
    ids = names.Select(k => m[k].Id).ToArray();
  }

  /// <summary>
  /// Binds sym to existing arrays (shared), in ListArguments() order. argGrads
  /// may be null or hold null where an argument has no gradient; gradReqs may
  /// be null (Write where a gradient is given).
  /// </summary>
  public static Executor Bind(Symbol sym, IList<NDArray> args, IList<NDArray> argGrads,
                              IList<GradReq> gradReqs, IList<NDArray> aux) {
    return Bind(sym, Context.Cpu(), args, argGrads, gradReqs, aux);
  }

  /// <summary>
  /// As Bind, on device ctx, with an optional device per group (group2ctx, see
  /// SimpleBind). Each array must live on its node's device.
  /// </summary>
  public static Executor Bind(Symbol sym, Context ctx, IList<NDArray> args, IList<NDArray> argGrads,
                              IList<GradReq> gradReqs, IList<NDArray> aux,
                              IDictionary<string, Context> group2ctx = null) {
    return Bind(sym, null, ctx, args, argGrads, gradReqs, aux, group2ctx);
  }

  /// <summary>
  /// As Bind, on device ctx, with binding options (null: the defaults; see ExecutorOptions);
  /// device groups come from ExecutorOptions.Group. Gradient requests are gradReqs, as in the
  /// other overloads: options with ExecutorOptions.GradReq entries fail with InvalidArgument.
  /// The options are read, not kept.
  /// </summary>
  public static Executor Bind(Symbol sym, ExecutorOptions options, Context ctx, IList<NDArray> args,
                              IList<NDArray> argGrads, IList<GradReq> gradReqs, IList<NDArray> aux) {
    return Bind(sym, options, ctx, args, argGrads, gradReqs, aux, null);
  }

  /// <summary>Bind with options (null: none) or group2ctx (null or empty: none), not both.</summary>
  static Executor Bind(Symbol sym, ExecutorOptions options, Context ctx, IList<NDArray> args,
                       IList<NDArray> argGrads, IList<GradReq> gradReqs, IList<NDArray> aux,
                       IDictionary<string, Context> group2ctx) {
    var a = Handles(args.ToArray());
    var keep = new object[] { args, argGrads, aux };
    long[] g = null;
    if (argGrads != null) {
      if (argGrads.Count != a.Length)
        throw new WeftException(ErrorCode.InvalidArgument, string.Format(
            "Executor.Bind: argGrads has {0} entries, expected one per argument ({1})", argGrads.Count, a.Length));
      g = Handles(argGrads.ToArray());
    }
    int[] r = null;
    if (gradReqs != null) {
      if (gradReqs.Count != a.Length)
        throw new WeftException(ErrorCode.InvalidArgument, string.Format(
            "Executor.Bind: gradReqs has {0} entries, expected one per argument ({1})", gradReqs.Count, a.Length));
      r = gradReqs.Select(x => (int)x).ToArray();
    }
    var x2 = aux == null ? new long[0] : Handles(aux.ToArray());
    long o;
    if (options != null) {
      o = weft_native.weft_executor_bind_with_options(sym.Handle, (int)ctx.Type, ctx.Id, a, (ulong)a.Length, g, r,
                                                      x2, (ulong)x2.Length, options.Handle);
    } else if (group2ctx == null || group2ctx.Count == 0) {
      o = weft_native.weft_executor_bind(sym.Handle, (int)ctx.Type, ctx.Id, a, (ulong)a.Length, g, r, x2,
                                         (ulong)x2.Length);
    } else {
      string[] gn; int[] gt, gi;
      Groups(group2ctx, out gn, out gt, out gi);
      o = weft_native.weft_executor_bind_group2ctx(sym.Handle, (int)ctx.Type, ctx.Id, (ulong)gn.Length, gn, gt, gi,
                                                   a, (ulong)a.Length, g, r, x2, (ulong)x2.Length);
    }
    GC.KeepAlive(keep);
    return new Executor(o);
  }

  public void Forward(bool isTrain) { weft_native.weft_executor_forward(Handle, isTrain ? 1 : 0); }

  readonly Monitors.Slot monitor = new Monitors.Slot();

  /// <summary>Sets (null removes) the monitor callback (MXNet's
  /// set_monitor_callback): while set, Forward and Backward run node by node
  /// and call it with each node's output (with monitorAll also its inputs),
  /// on the calling thread; see MonitorCallback.</summary>
  public void SetMonitorCallback(MonitorCallback callback, bool monitorAll = false) {
    var h = Handle;
    monitor.Set(callback, (d, id) => weft_native.weft_executor_set_monitor_callback(h, d, id, monitorAll ? 1 : 0));
  }

  internal override void Disposed() { monitor.Clear(); }

  /// <summary>Backward with one head gradient per output, or none when every output is a loss.</summary>
  public void Backward(params NDArray[] headGrads) {
    var hs = Handles(headGrads);
    weft_native.weft_executor_backward(Handle, hs, (ulong)hs.Length);
    GC.KeepAlive(headGrads);
  }

  /// <summary>The outputs in ListOutputs() order.</summary>
  public List<NDArray> Outputs() { return NDArrayLists.TakeList(List(0)); }
  public Dictionary<string, NDArray> OutputMap() { return NDArrayLists.Take(List(0)); }
  public Dictionary<string, NDArray> ArgArrays() { return NDArrayLists.Take(List(1)); }
  /// <summary>Gradients by argument name (arguments without gradient left out).</summary>
  public Dictionary<string, NDArray> GradArrays() { return NDArrayLists.Take(List(2)); }
  public Dictionary<string, NDArray> AuxArrays() { return NDArrayLists.Take(List(3)); }

  long List(int which) {
    var h = Handle;
    switch (which) {
      case 0: return weft_native.weft_executor_outputs(h);
      case 1: return weft_native.weft_executor_arg_arrays(h);
      case 2: return weft_native.weft_executor_grad_arrays(h);
      default: return weft_native.weft_executor_aux_arrays(h);
    }
  }

  /// <summary>A new executor for new input shapes sharing this one's arrays.</summary>
  public Executor Reshape(IDictionary<string, long[]> shapes, bool partialShaping, bool allowUpSizing) {
    string[] names; ulong[] indPtr; long[] dims;
    NDArrayLists.Shapes(shapes, out names, out indPtr, out dims);
    return new Executor(weft_native.weft_executor_reshape(Handle, (ulong)names.Length, names, indPtr, dims,
                                      partialShaping ? 1 : 0, allowUpSizing ? 1 : 0));
  }

  public string DebugString() {
    return Symbol.Take(weft_native.weft_executor_print(Handle))[0];
  }

  /// <summary>The nodes computing in float32 between Casts for want of a float16/bfloat16
  /// kernel, in graph order.</summary>
  public IList<string> Float32Nodes() {
    return Symbol.Take(weft_native.weft_executor_float32_nodes(Handle));
  }

  public ExecutorMemory Memory() {
    var f = new ulong[6];
    weft_native.weft_executor_memory(Handle, f);
    return new ExecutorMemory { NaiveBytes = f[0], PlannedBytes = f[1], NumStorage = f[2],
                                NumInplace = f[3], NumReused = f[4], MatchRange = (int)f[5] };
  }
}

}
