using System;
using System.Collections.Generic;

namespace Weft {

/// <summary>
/// One dispatch from the library: its flat inputs (weft_custom_op_call_*,
/// layouts in c_api_custom_op.h) decoded for the C# callbacks, and their
/// results encoded back.
/// </summary>
sealed class CustomOpCall {
  readonly WeftHandle call;
  long[] ints;

  internal CustomOpCall(WeftHandle call) { this.call = call; }

  long[] Ints() {
    if (ints != null) return ints;
    var buf = new long[64];
    long n = weft_native.weft_custom_op_call_ints(call, buf, (ulong)buf.Length);
    if (n > buf.Length) {
      buf = new long[n];
      weft_native.weft_custom_op_call_ints(call, buf, (ulong)buf.Length);
    }
    Array.Resize(ref buf, (int)n);
    return ints = buf;
  }

  internal IList<string> Strings() {
    long n = weft_native.weft_custom_op_call_num_strings(call);
    var r = new List<string>((int)n);
    var s = new IntPtr[1];
    for (long i = 0; i < n; ++i) {
      weft_native.weft_custom_op_call_string(call, (ulong)i, s);
      r.Add(Library.Str(s[0]));
    }
    return r;
  }

  internal void SetInts(params long[] v) {
    weft_native.weft_custom_op_call_set_ints(call, v, (ulong)v.Length);
  }

  internal void AddStrings(IList<string> names) {
    foreach (var s in names) weft_native.weft_custom_op_call_add_string(call, s);
  }

  static long[][] Shapes(long[] v, ref int at, int n) {
    var r = new long[n][];
    for (int i = 0; i < n; ++i) {
      int nd = (int)v[at++];
      if (nd < 0) continue;
      r[i] = new long[nd];
      Array.Copy(v, at, r[i], 0, nd);
      at += nd;
    }
    return r;
  }

  internal void InferShape(CustomOpProp prop) {
    var v = Ints();
    int args = (int)v[0], outs = (int)v[1], aux = (int)v[2], at = 3;
    var inShapes = Shapes(v, ref at, args);
    var rest = prop.InferShape(inShapes);
    if (rest == null || rest.Length != outs + aux)
      throw new ArgumentException(string.Format(
          "InferShape gave {0} shapes, expected {1} outputs + {2} auxiliary states",
          rest == null ? 0 : rest.Length, outs, aux));
    var r = new List<long>();
    foreach (var group in new[] { inShapes, rest })
      foreach (var s in group) {
        r.Add(s == null ? -1 : s.Length);
        if (s != null) r.AddRange(s);
      }
    SetInts(r.ToArray());
  }

  internal void InferType(CustomOpProp prop) {
    var v = Ints();
    int args = (int)v[0], outs = (int)v[1], aux = (int)v[2];
    var inTypes = new DType[args];
    for (int i = 0; i < args; ++i) inTypes[i] = (DType)v[3 + i];
    var rest = prop.InferType(inTypes, outs, aux);
    if (rest == null || rest.Length != outs + aux)
      throw new ArgumentException(string.Format("InferType gave {0} types, expected {1}",
                                                rest == null ? 0 : rest.Length, outs + aux));
    var r = new long[args + outs + aux];
    for (int i = 0; i < r.Length; ++i) r[i] = i < args ? v[3 + i] : (long)rest[i - args];
    SetInts(r);
  }

  internal void BackwardDependency(CustomOpProp prop) {
    var v = Ints();
    int outs = (int)v[0], args = (int)v[1];
    var deps = prop.DeclareBackwardDependency(Ids(v, 2, outs), Ids(v, 2 + outs, args),
                                              Ids(v, 2 + outs + args, outs));
    var r = new long[deps.Length];
    for (int i = 0; i < r.Length; ++i) r[i] = deps[i];
    SetInts(r);
  }

  static int[] Ids(long[] v, int from, int n) {
    var r = new int[n];
    for (int i = 0; i < n; ++i) r[i] = (int)v[from + i];
    return r;
  }

  internal ICustomOp CreateOperator(CustomOpProp prop) {
    var v = Ints();
    int n = (int)v[0], at = 1;
    var shapes = Shapes(v, ref at, n);
    var types = new DType[n];
    for (int i = 0; i < n; ++i) types[i] = (DType)v[at + i];
    return prop.CreateOperator(ParseContext(Strings()[0]), shapes, types);
  }

  static Context ParseContext(string s) {
    int open = s.IndexOf('(');
    var type = s.Substring(0, open) == "gpu" ? DeviceType.Gpu : DeviceType.Cpu;
    return new Context(type, int.Parse(s.Substring(open + 1, s.Length - open - 2)));
  }

  static GradReq[] Reqs(long[] v, int from, int n) {
    var r = new GradReq[n];
    for (int i = 0; i < n; ++i) r[i] = (GradReq)v[from + i];
    return r;
  }

  internal void Forward(ICustomOp op) {
    var v = Ints();
    int nin = (int)v[1], nout = (int)v[2], naux = (int)v[3];
    var a = Views();
    try {
      op.Forward(v[0] != 0, Reqs(v, 4, nout), Slice(a, 0, nin), Slice(a, nin, nout),
                 Slice(a, nin + nout, naux));
    } finally {
      foreach (var x in a) if (x != null) x.Dispose();
    }
  }

  internal void Backward(ICustomOp op) {
    var v = Ints();
    int nin = (int)v[0], nout = (int)v[1], naux = (int)v[2];
    var a = Views();
    try {
      op.Backward(Reqs(v, 3, nin), Slice(a, 0, nout), Slice(a, nout, nin),
                  Slice(a, nout + nin, nout), Slice(a, 2 * nout + nin, nin),
                  Slice(a, 2 * nout + 2 * nin, naux));
    } finally {
      foreach (var x in a) if (x != null) x.Dispose();
    }
  }

  /// <summary>The call's arrays as borrowed NDArrays (disposed, never freed,
  /// when the callback returns).</summary>
  NDArray[] Views() {
    var h = new long[16];
    long n = weft_native.weft_custom_op_call_arrays(call, h, (ulong)h.Length);
    if (n > h.Length) {
      h = new long[n];
      weft_native.weft_custom_op_call_arrays(call, h, (ulong)h.Length);
    }
    var a = new NDArray[n];
    for (int i = 0; i < n; ++i) a[i] = h[i] == 0 ? null : new NDArray(h[i], true);
    return a;
  }

  static NDArray[] Slice(NDArray[] a, int from, int n) {
    var r = new NDArray[n];
    Array.Copy(a, from, r, 0, n);
    return r;
  }
}

}
