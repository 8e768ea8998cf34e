package ai.weft;

import java.util.List;
import java.util.Map;

/**
 * A symbol invoked imperatively on arrays (MXNet's {@code CachedOp}; owned handle): it binds and
 * plans memory once per input-shape signature and, while the thread records
 * ({@link Autograd#record()}), appears on the tape as one node, so {@code backward} reaches its
 * inputs' gradient buffers. Loading a Gluon export's symbol and parameters and invoking them
 * through a cached op is Gluon's {@code SymbolBlock.imports}.
 */
public final class CachedOp extends NativeHandle {
  CachedOp(long handle) {
    super(handle);
  }

  private final Monitors.Slot monitor = new Monitors.Slot();

  @Override
  void free(long h) {
    weft_native.weft_cached_op_free(h);
    monitor.clear();
  }

  /**
   * Sets (null removes) a monitor callback on the executors the op runs, called on the invoking
   * thread (nothing is reported for calls inlined node by node while recording); see
   * {@link MonitorCallback}.
   */
  public void setMonitorCallback(MonitorCallback callback, boolean monitorAll) {
    long h = handle();
    monitor.set(callback,
        id -> weft_native.weft_cached_op_set_monitor_callback(h, id, monitorAll ? 1 : 0));
  }

  /**
   * A cached op of {@code sym} with MXNet's flags ({@code static_alloc}, {@code static_shape},
   * {@code data_indices}, {@code param_indices}, ...; null for none).
   */
  public static CachedOp create(Symbol sym, Map<String, ?> flags) {
    Native.ensureLoaded();
    String[][] kv = Ops.params(flags);
    return new CachedOp(
        weft_native.weft_cached_op_create(sym.handle(), kv[0].length, kv[0], kv[1]));
  }

  /** The inputs {@link #invoke} takes, in order: every variable of the symbol. */
  public List<String> inputs() {
    return Strings.take(weft_native.weft_cached_op_list_inputs(handle()));
  }

  /**
   * Runs the op; returns its new outputs (the caller closes them). With {@code static_alloc}
   * they share the op's arrays, which the next call of the same shapes overwrites.
   */
  public NDArray[] invoke(NDArray... inputs) {
    long[] in = NativeHandle.handles(inputs);
    long[] outs = new long[64];
    long[] n = new long[1];
    weft_native.weft_cached_op_invoke(handle(), in, in.length, outs, outs.length, n);
    NDArray[] result = new NDArray[(int) n[0]];
    for (int i = 0; i < result.length; ++i) result[i] = new NDArray(outs[i]);
    return result;
  }
}
