package ai.weft;

import java.util.ArrayList;
import java.util.List;

/**
 * One dispatch from the library: its flat inputs (weft_custom_op_call_*, layouts in
 * c_api_custom_op.h) decoded for the Java callbacks, and their results encoded back.
 */
final class CustomOpCall {
  private final long call;
  private long[] ints;

  CustomOpCall(long call) {
    this.call = call;
  }

  long[] ints() {
    if (ints == null) {
      long[] buf = new long[64];
      long n = weft_native.weft_custom_op_call_ints(call, buf, buf.length);
      if (n > buf.length) {
        buf = new long[(int) n];
        weft_native.weft_custom_op_call_ints(call, buf, buf.length);
      }
      ints = java.util.Arrays.copyOf(buf, (int) n);
    }
    return ints;
  }

  List<String> strings() {
    long n = weft_native.weft_custom_op_call_num_strings(call);
    List<String> out = new ArrayList<>((int) n);
    String[] s = new String[1];
    for (long i = 0; i < n; ++i) {
      weft_native.weft_custom_op_call_string(call, i, s);
      out.add(s[0]);
    }
    return out;
  }

  void setInts(long... v) {
    weft_native.weft_custom_op_call_set_ints(call, v, v.length);
  }

  void addStrings(List<String> names) {
    for (String s : names) weft_native.weft_custom_op_call_add_string(call, s);
  }

  /** Entries of rank and extents from ints[at]; at[0] advances. */
  private static long[][] shapes(long[] v, int[] at, int n) {
    long[][] out = new long[n][];
    for (int i = 0; i < n; ++i) {
      int nd = (int) v[at[0]++];
      out[i] = nd < 0 ? null : java.util.Arrays.copyOfRange(v, at[0], at[0] + nd);
      at[0] += Math.max(nd, 0);
    }
    return out;
  }

  void inferShape(CustomOpProp prop) {
    long[] v = ints();
    int args = (int) v[0], outs = (int) v[1], aux = (int) v[2];
    int[] at = {3};
    long[][] in = shapes(v, at, args);
    long[][] rest = prop.inferShape(in);
    if (rest == null || rest.length != outs + aux) {
      throw new IllegalArgumentException("inferShape gave " + (rest == null ? 0 : rest.length)
          + " shapes, expected " + outs + " outputs + " + aux + " auxiliary states");
    }
    List<Long> r = new ArrayList<>();
    for (long[][] group : new long[][][] {in, rest}) {
      for (long[] s : group) {
        r.add(s == null ? -1L : s.length);
        if (s != null) for (long d : s) r.add(d);
      }
    }
    long[] flat = new long[r.size()];
    for (int i = 0; i < flat.length; ++i) flat[i] = r.get(i);
    setInts(flat);
  }

  void inferType(CustomOpProp prop) {
    long[] v = ints();
    int args = (int) v[0], outs = (int) v[1], aux = (int) v[2];
    DType[] in = new DType[args];
    for (int i = 0; i < args; ++i) in[i] = v[3 + i] < 0 ? null : DType.fromCode((int) v[3 + i]);
    DType[] rest = prop.inferType(in, outs, aux);
    if (rest == null || rest.length != outs + aux) {
      throw new IllegalArgumentException("inferType gave " + (rest == null ? 0 : rest.length)
          + " types, expected " + (outs + aux));
    }
    long[] r = new long[args + outs + aux];
    for (int i = 0; i < r.length; ++i) {
      DType t = i < args ? in[i] : rest[i - args];
      r[i] = t == null ? -1 : t.code();
    }
    setInts(r);
  }

  void backwardDependency(CustomOpProp prop) {
    long[] v = ints();
    int outs = (int) v[0], args = (int) v[1];
    int[] og = ids(v, 2, outs), id = ids(v, 2 + outs, args), od = ids(v, 2 + outs + args, outs);
    int[] deps = prop.declareBackwardDependency(og, id, od);
    long[] r = new long[deps.length];
    for (int i = 0; i < r.length; ++i) r[i] = deps[i];
    setInts(r);
  }

  private static int[] ids(long[] v, int from, int n) {
    int[] r = new int[n];
    for (int i = 0; i < n; ++i) r[i] = (int) v[from + i];
    return r;
  }

  CustomOp createOperator(CustomOpProp prop) {
    long[] v = ints();
    int n = (int) v[0];
    int[] at = {1};
    long[][] shapes = shapes(v, at, n);
    DType[] types = new DType[n];
    for (int i = 0; i < n; ++i) types[i] = DType.fromCode((int) v[at[0] + i]);
    return prop.createOperator(CustomOps.parseContext(strings().get(0)), shapes, types);
  }

  void forward(CustomOp op) {
    long[] v = ints();
    int in = (int) v[1], out = (int) v[2], aux = (int) v[3];
    NDArray[] a = views();
    try {
      op.forward(v[0] != 0, CustomOps.reqs(v, 4, out), slice(a, 0, in), slice(a, in, out),
          slice(a, in + out, aux));
    } finally {
      for (NDArray x : a) if (x != null) x.forget();
    }
  }

  void backward(CustomOp op) {
    long[] v = ints();
    int in = (int) v[0], out = (int) v[1], aux = (int) v[2];
    NDArray[] a = views();
    try {
      op.backward(CustomOps.reqs(v, 3, in), slice(a, 0, out), slice(a, out, in),
          slice(a, out + in, out), slice(a, 2 * out + in, in), slice(a, 2 * out + 2 * in, aux));
    } finally {
      for (NDArray x : a) if (x != null) x.forget();
    }
  }

  /** The call's arrays as borrowed NDArrays (detached when the callback returns). */
  private NDArray[] views() {
    long[] h = new long[16];
    long n = weft_native.weft_custom_op_call_arrays(call, h, h.length);
    if (n > h.length) {
      h = new long[(int) n];
      weft_native.weft_custom_op_call_arrays(call, h, h.length);
    }
    NDArray[] a = new NDArray[(int) n];
    for (int i = 0; i < n; ++i) a[i] = h[i] == 0 ? null : new NDArray(h[i]);
    return a;
  }

  private static NDArray[] slice(NDArray[] a, int from, int n) {
    return java.util.Arrays.copyOfRange(a, from, from + n);
  }
}
