package ai.weft;

import java.util.List;
import java.util.Map;

/**
 * A symbol bound to arrays (owned handle). The executor shares every array
 * bound to it: writes through {@link #argArrays()} handles are seen by the
 * next forward and {@link #outputs()} handles show the latest run. The maps
 * and lists returned hold new NDArray handles the caller closes
 * ({@link NDArray#closeAll}). Threads: one executor must not be used by two
 * threads at once; distinct executors may run concurrently.
 */
public final class Executor extends NativeHandle {
  Executor(long handle) {
    super(handle);
  }

  private final Monitors.Slot monitor = new Monitors.Slot();

  @Override
  void free(long h) {
    weft_native.weft_executor_free(h);
    monitor.clear();
  }

  /** Gradient request per argument for {@link #bind}. */
  public enum GradReq {
    NULL(WeftReq.WEFT_REQ_NULL), WRITE(WeftReq.WEFT_REQ_WRITE), ADD(WeftReq.WEFT_REQ_ADD);

    final int code;

    GradReq(int code) {
      this.code = code;
    }
  }

  /**
   * Binds {@code sym} on cpu(0), allocating (zeroed) every argument, gradient
   * and aux state from the input {@code shapes} by name. {@code gradReq} is
   * "null", "write" or "add" (null: "write"); arguments named *data/*label
   * get no gradient.
   */
  public static Executor simpleBind(Symbol sym, Map<String, long[]> shapes, String gradReq) {
    return simpleBind(sym, Context.cpu(), shapes, null, gradReq);
  }

  /** As simpleBind with dtypes for some variables (others inferred, default float32). */
  public static Executor simpleBind(Symbol sym, Map<String, long[]> shapes,
      Map<String, DType> dtypes, String gradReq) {
    return simpleBind(sym, Context.cpu(), shapes, dtypes, gradReq);
  }

  /**
   * As simpleBind on device {@code ctx} (null: cpu(0)); {@code dtypes} may be
   * null.
   */
  public static Executor simpleBind(Symbol sym, Context ctx, Map<String, long[]> shapes,
      Map<String, DType> dtypes, String gradReq) {
    Context c = Context.orDefault(ctx);
    NDArrayLists.Shapes s = new NDArrayLists.Shapes(shapes);
    String[] dn = NDArrayLists.names(dtypes);
    int[] codes = new int[dn.length];
    for (int i = 0; i < dn.length; ++i) codes[i] = dtypes.get(dn[i]).code();
    return new Executor(weft_native.weft_executor_simple_bind(sym.handle(), c.typeCode(), c.id(),
        s.names.length, s.names, s.indPtr, s.dims, dn.length, dn, codes, gradReq));
  }

  /**
   * As simpleBind on device {@code ctx} with a device per group
   * ({@code group2ctx}: a node's "ctx_group" attribute, set with
   * {@link Symbol#setAttr}, to a device; MXNet's group2ctx). Arguments of a
   * group are allocated on its device, the rest on {@code ctx}; the library
   * inserts the copies between devices. A group used by the symbol but
   * missing from the map fails with DEVICE naming it.
   */
  public static Executor simpleBind(Symbol sym, Context ctx, Map<String, Context> group2ctx,
      Map<String, long[]> shapes, Map<String, DType> dtypes, String gradReq) {
    if (group2ctx == null || group2ctx.isEmpty()) {
      return simpleBind(sym, ctx, shapes, dtypes, gradReq);
    }
    Context c = Context.orDefault(ctx);
    Groups g = new Groups(group2ctx);
    NDArrayLists.Shapes s = new NDArrayLists.Shapes(shapes);
    String[] dn = NDArrayLists.names(dtypes);
    int[] codes = new int[dn.length];
    for (int i = 0; i < dn.length; ++i) codes[i] = dtypes.get(dn[i]).code();
    return new Executor(weft_native.weft_executor_simple_bind_group2ctx(sym.handle(), c.typeCode(),
        c.id(), g.names.length, g.names, g.types, g.ids, s.names.length, s.names, s.indPtr, s.dims,
        dn.length, dn, codes, gradReq));
  }

  /**
   * As simpleBind on device {@code ctx} (null: cpu(0)) with binding
   * {@code options} (null: the defaults; see {@link ExecutorOptions}); gradient
   * requests come from {@link ExecutorOptions#gradReq} (none named: "write"
   * except for *data/*label arguments) and device groups from
   * {@link ExecutorOptions#group}. {@code dtypes} may be null. The options are
   * read, not kept: closing them after the call is fine.
   */
  public static Executor simpleBind(Symbol sym, ExecutorOptions options, Context ctx,
      Map<String, long[]> shapes, Map<String, DType> dtypes) {
    Context c = Context.orDefault(ctx);
    long o = ExecutorOptions.handleOf(options);
    NDArrayLists.Shapes s = new NDArrayLists.Shapes(shapes);
    String[] dn = NDArrayLists.names(dtypes);
    int[] codes = new int[dn.length];
    for (int i = 0; i < dn.length; ++i) codes[i] = dtypes.get(dn[i]).code();
    return new Executor(weft_native.weft_executor_simple_bind_with_options(sym.handle(),
        c.typeCode(), c.id(), s.names.length, s.names, s.indPtr, s.dims, dn.length, dn, codes, o));
  }

  /** A group to device map as parallel arrays, in name order. */
  private static final class Groups {
    final String[] names;
    final int[] types;
    final int[] ids;

    Groups(Map<String, Context> m) {
      names = new java.util.TreeSet<>(m.keySet()).toArray(new String[0]);
      types = new int[names.length];
      ids = new int[names.length];
      for (int i = 0; i < names.length; ++i) {
        Context c = m.get(names[i]);
        if (c == null) {
          throw new WeftException(ErrorCode.INVALID_ARGUMENT,
              "group2ctx: group '" + names[i] + "' has no device (null)");
        }
        types[i] = c.typeCode();
        ids[i] = c.id();
      }
    }
  }

  /**
   * Binds {@code sym} to existing arrays (shared, not copied), in
   * listArguments() order. {@code argGrads} may be null (no gradients) or
   * hold null where an argument has no gradient; {@code gradReqs} may be
   * null (WRITE where a gradient is given).
   */
  public static Executor bind(Symbol sym, List<NDArray> args, List<NDArray> argGrads,
      List<GradReq> gradReqs, List<NDArray> aux) {
    return bind(sym, Context.cpu(), args, argGrads, gradReqs, aux);
  }

  /** As bind on device {@code ctx} (null: cpu(0)); the arrays must live there. */
  public static Executor bind(Symbol sym, Context ctx, List<NDArray> args, List<NDArray> argGrads,
      List<GradReq> gradReqs, List<NDArray> aux) {
    return bind(sym, ctx, null, args, argGrads, gradReqs, aux);
  }

  /**
   * As bind on device {@code ctx} with a device per group ({@code group2ctx},
   * see the simpleBind overload; null or empty: none). Each array must live
   * on its node's device.
   */
  public static Executor bind(Symbol sym, Context ctx, Map<String, Context> group2ctx,
      List<NDArray> args, List<NDArray> argGrads, List<GradReq> gradReqs, List<NDArray> aux) {
    return bind(sym, ctx, group2ctx, 0, args, argGrads, gradReqs, aux);
  }

  /**
   * As bind on device {@code ctx} (null: cpu(0)) with binding {@code options}
   * (null: the defaults; see {@link ExecutorOptions}); device groups come from
   * {@link ExecutorOptions#group}. Gradient requests are {@code gradReqs}, as
   * in the other overloads: options with {@link ExecutorOptions#gradReq}
   * entries fail with INVALID_ARGUMENT. The options are read, not kept.
   */
  public static Executor bind(Symbol sym, ExecutorOptions options, Context ctx, List<NDArray> args,
      List<NDArray> argGrads, List<GradReq> gradReqs, List<NDArray> aux) {
    return bind(sym, ctx, null, ExecutorOptions.handleOf(options), args, argGrads, gradReqs, aux);
  }

  /** bind with group2ctx (null or empty: none) or raw options (0: none; not both). */
  private static Executor bind(Symbol sym, Context ctx, Map<String, Context> group2ctx,
      long options, List<NDArray> args, List<NDArray> argGrads, List<GradReq> gradReqs,
      List<NDArray> aux) {
    Context c = Context.orDefault(ctx);
    long[] a = NativeHandle.handles(args.toArray(new NDArray[0]));
    long[] g = null;
    if (argGrads != null) {
      g = new long[argGrads.size()];
      for (int i = 0; i < g.length; ++i) g[i] = argGrads.get(i) == null ? 0 : argGrads.get(i).handle();
      if (g.length != a.length) {
        throw new WeftException(ErrorCode.INVALID_ARGUMENT, "Executor.bind: argGrads has "
            + g.length + " entries, expected one per argument (" + a.length + ")");
      }
    }
    int[] r = null;
    if (gradReqs != null) {
      if (gradReqs.size() != a.length) {
        throw new WeftException(ErrorCode.INVALID_ARGUMENT, "Executor.bind: gradReqs has "
            + gradReqs.size() + " entries, expected one per argument (" + a.length + ")");
      }
      r = new int[a.length];
      for (int i = 0; i < r.length; ++i) r[i] = gradReqs.get(i).code;
    }
    long[] x = aux == null ? new long[0] : NativeHandle.handles(aux.toArray(new NDArray[0]));
    if (options != 0) {
      return new Executor(weft_native.weft_executor_bind_with_options(sym.handle(), c.typeCode(),
          c.id(), a, a.length, g, r, x, x.length, options));
    }
    if (group2ctx == null || group2ctx.isEmpty()) {
      return new Executor(weft_native.weft_executor_bind(sym.handle(), c.typeCode(), c.id(), a,
          a.length, g, r, x, x.length));
    }
    Groups gr = new Groups(group2ctx);
    return new Executor(weft_native.weft_executor_bind_group2ctx(sym.handle(), c.typeCode(), c.id(),
        gr.names.length, gr.names, gr.types, gr.ids, a, a.length, g, r, x, x.length));
  }

  /** Runs the forward graph (isTrain selects training behaviour). */
  public void forward(boolean isTrain) {
    weft_native.weft_executor_forward(handle(), isTrain ? 1 : 0);
  }

  /**
   * Sets (null removes) the monitor callback (MXNet's {@code set_monitor_callback}): while set,
   * {@link #forward} and {@link #backward} run node by node and call it with each node's output
   * (with {@code monitorAll} also its inputs), on the calling thread; see
   * {@link MonitorCallback}.
   */
  public void setMonitorCallback(MonitorCallback callback, boolean monitorAll) {
    long h = handle();
    monitor.set(callback,
        id -> weft_native.weft_executor_set_monitor_callback(h, id, monitorAll ? 1 : 0));
  }

  /** Backward with one head gradient per output, or none when every output is a loss. */
  public void backward(NDArray... headGrads) {
    long[] hs = handles(headGrads);
    weft_native.weft_executor_backward(handle(), hs, hs.length);
  }

  /** The outputs in listOutputs() order (new handles sharing the executor's arrays). */
  public List<NDArray> outputs() {
    return NDArrayLists.takeList(list(0));
  }

  /** The outputs by name. */
  public Map<String, NDArray> outputMap() {
    return NDArrayLists.take(list(0));
  }

  /** The argument arrays by name. */
  public Map<String, NDArray> argArrays() {
    return NDArrayLists.take(list(1));
  }

  /** The gradient arrays by argument name (arguments without gradient left out). */
  public Map<String, NDArray> gradArrays() {
    return NDArrayLists.take(list(2));
  }

  /** The auxiliary states by name. */
  public Map<String, NDArray> auxArrays() {
    return NDArrayLists.take(list(3));
  }

  private long list(int which) {
    long h = handle();
    switch (which) {
      case 0: return weft_native.weft_executor_outputs(h);
      case 1: return weft_native.weft_executor_arg_arrays(h);
      case 2: return weft_native.weft_executor_grad_arrays(h);
      default: return weft_native.weft_executor_aux_arrays(h);
    }
  }

  /** A new executor for new input shapes sharing this one's arrays (this stays valid). */
  public Executor reshape(Map<String, long[]> shapes, boolean partialShaping,
      boolean allowUpSizing) {
    NDArrayLists.Shapes s = new NDArrayLists.Shapes(shapes);
    return new Executor(weft_native.weft_executor_reshape(handle(), s.names.length, s.names,
        s.indPtr, s.dims, partialShaping ? 1 : 0, allowUpSizing ? 1 : 0));
  }

  /** Nodes in execution order with their storage, and the memory plan. */
  public String debugString() {
    return Strings.take(weft_native.weft_executor_print(handle())).get(0);
  }

  /**
   * The nodes computing in float32 between Casts for want of a float16/bfloat16 kernel, in graph
   * order.
   */
  public java.util.List<String> float32Nodes() {
    return Strings.take(weft_native.weft_executor_float32_nodes(handle()));
  }

  /** The memory plan's figures. */
  public Memory memory() {
    long[] f = new long[6];
    weft_native.weft_executor_memory(handle(), f);
    return new Memory(f);
  }

  /** weft_executor_memory() figures. */
  public static final class Memory {
    public final long naiveBytes;
    public final long plannedBytes;
    public final long numStorage;
    public final long numInplace;
    public final long numReused;
    public final int matchRange;

    Memory(long[] f) {
      naiveBytes = f[0];
      plannedBytes = f[1];
      numStorage = f[2];
      numInplace = f[3];
      numReused = f[4];
      matchRange = (int) f[5];
    }
  }
}
