package ai.weft;

import java.util.Map;

/** Imperative operator calls by name (MXNet-style string parameters). */
public final class Ops {
  private Ops() {}

  /**
   * Runs {@code op} on {@code inputs} and returns its new outputs (the caller
   * closes them). Parameter values are formatted with {@link #format}.
   */
  public static NDArray[] invoke(String op, Map<String, ?> params, NDArray... inputs) {
    Native.ensureLoaded();
    String[][] kv = params(params);
    long[] in = NativeHandle.handles(inputs);
    long[] outs = new long[16];
    long[] n = new long[1];
    weft_native.weft_op_invoke(op, in, in.length, kv[0], kv[1], kv[0].length, outs, outs.length, n);
    NDArray[] result = new NDArray[(int) n[0]];
    for (int i = 0; i < result.length; ++i) result[i] = new NDArray(outs[i]);
    return result;
  }

  /** As {@link #invoke} for an operator with one output. */
  public static NDArray call(String op, Map<String, ?> params, NDArray... inputs) {
    NDArray[] outs = invoke(op, params, inputs);
    for (int i = 1; i < outs.length; ++i) outs[i].close();
    return outs[0];
  }

  /** Runs {@code op} writing into {@code outputs} (shapes/dtypes must match). */
  public static void invokeInto(String op, Map<String, ?> params, NDArray[] inputs,
      NDArray... outputs) {
    Native.ensureLoaded();
    String[][] kv = params(params);
    long[] in = NativeHandle.handles(inputs);
    long[] out = NativeHandle.handles(outputs);
    weft_native.weft_op_invoke_into(op, in, in.length, kv[0], kv[1], kv[0].length, out,
        out.length, null);
  }

  /** MXNet text of a parameter value: arrays become "(a,b)", others toString(). */
  public static String format(Object v) {
    if (v instanceof long[]) return tuple(java.util.Arrays.stream((long[]) v).boxed().toArray());
    if (v instanceof int[]) return tuple(java.util.Arrays.stream((int[]) v).boxed().toArray());
    if (v instanceof Boolean) return ((Boolean) v) ? "true" : "false";
    if (v instanceof DType) return ((DType) v).name().toLowerCase();
    return String.valueOf(v);
  }

  private static String tuple(Object[] xs) {
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < xs.length; ++i) {
      if (i > 0) sb.append(',');
      sb.append(xs[i]);
    }
    if (xs.length == 1) sb.append(',');
    return sb.append(')').toString();
  }

  static String[][] params(Map<String, ?> params) {
    int n = params == null ? 0 : params.size();
    String[] keys = new String[n];
    String[] vals = new String[n];
    if (params != null) {
      int i = 0;
      for (Map.Entry<String, ?> e : params.entrySet()) {
        keys[i] = e.getKey();
        vals[i] = format(e.getValue());
        ++i;
      }
    }
    return new String[][] {keys, vals};
  }
}
