package ai.weft;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An evaluation metric (MXNet's EvalMetric; owned handle): "acc", "top_k_acc",
 * "ce", "mse" or "composite". Values accumulate until {@link #reset()}.
 */
public final class Metric extends NativeHandle {
  Metric(long handle) {
    super(handle);
  }

  @Override
  void free(long h) {
    weft_native.weft_metric_free(h);
  }

  public static Metric create(String name) {
    return create(name, null);
  }

  public static Metric create(String name, Map<String, ?> params) {
    Native.ensureLoaded();
    String[][] kv = Ops.params(params);
    return new Metric(weft_native.weft_metric_create(name, kv[0], kv[1], kv[0].length));
  }

  /** Adds a metric to a composite one. */
  public void add(String name, Map<String, ?> params) {
    String[][] kv = Ops.params(params);
    weft_native.weft_metric_composite_add(handle(), name, kv[0], kv[1], kv[0].length);
  }

  /** Accumulates one prediction per label. */
  public void update(List<NDArray> labels, List<NDArray> preds) {
    long[] l = handles(labels.toArray(new NDArray[0]));
    long[] p = handles(preds.toArray(new NDArray[0]));
    weft_native.weft_metric_update(handle(), l.length, l, p.length, p);
  }

  /** The current values by name (NaN before any instance). */
  public Map<String, Double> get() {
    long h = handle();
    long n = weft_native.weft_metric_num_values(h);
    long[] names = new long[1];
    double[] vals = new double[(int) n];
    long[] num = new long[1];
    weft_native.weft_metric_get(h, names, vals, vals.length, num);
    return values(names[0], vals, num[0]);
  }

  /* The first num (name, value) pairs of a WeftStringList (freed here) and vals. */
  static Map<String, Double> values(long names, double[] vals, long num) {
    List<String> ns = Strings.take(names);
    Map<String, Double> out = new LinkedHashMap<>();
    for (int i = 0; i < (int) num; ++i) out.put(ns.get(i), vals[i]);
    return out;
  }

  /** The first (usually only) value. */
  public double value() {
    return get().values().iterator().next();
  }

  public void reset() {
    weft_native.weft_metric_reset(handle());
  }
}
