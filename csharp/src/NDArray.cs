using System;
using System.Collections.Generic;

namespace Weft {

/// <summary>
/// An n-dimensional array on a device (owned handle; Dispose it). Any thread
/// may use an NDArray; concurrent writes to one array are not ordered by the
/// binding. Views (Reshape, Slice) share storage and are disposed separately.
/// Transfers: CopyFrom/CopyTo(T[]) pin the managed array and the library reads
/// or writes it directly (zero-copy); CopyFrom/CopyTo(IntPtr, bytes) use
/// unmanaged memory; ToFloatArray/ToDoubleArray and the *Marshalled overloads
/// copy through the P/Invoke marshaller.
/// </summary>
public sealed partial class NDArray : NativeHandle {
  internal NDArray(long h) : base(h, Frees.NDArray) {}

  /// <summary>A borrowed handle (a custom operator's view): never freed here.</summary>
  internal NDArray(long h, bool borrowed) : base(h, borrowed ? null : Frees.NDArray) {}

  /// <summary>
  /// The address of a host (cpu) array's memory, and its size in bytes:
  /// zero-copy, without waiting for pending work (for a custom operator's
  /// views, which are ready, or after WaitToRead). Valid while the array
  /// lives; for a custom operator's views only during the callback.
  /// </summary>
  public IntPtr DataPointer(out long bytes) {
    var p = new IntPtr[1];
    var n = new ulong[1];
    weft_native.weft_ndarray_get_bytes(Handle, p, n);
    bytes = (long)n[0];
    return p[0];
  }

  /// <summary>DataPointer of a float32 array as a span of floats.</summary>
  public unsafe Span<float> FloatData() {
    if (DType != DType.Float32)
      throw new WeftException(ErrorCode.DType, "FloatData of a " + DType + " array");
    long bytes;
    IntPtr p = DataPointer(out bytes);
    return new Span<float>((void*)p, (int)(bytes / 4));
  }

  /// <summary>An uninitialised array of shape on cpu(0).</summary>
  public static NDArray Create(DType dtype, params long[] shape) {
    return Create(Context.Cpu(), dtype, shape);
  }

  /// <summary>An uninitialised array of shape on device ctx.</summary>
  public static NDArray Create(Context ctx, DType dtype, params long[] shape) {
    Native.EnsureLoaded();
    return new NDArray(weft_native.weft_ndarray_create(shape, shape.Length, (int)dtype, (int)ctx.Type, ctx.Id));
  }

  /// <summary>Loads an IDX file (MNIST's format, raw or gzip) into a new cpu(0) array.</summary>
  public static NDArray LoadIdx(string path) {
    Native.EnsureLoaded();
    return new NDArray(weft_native.weft_idx_load(path));
  }

  /// <summary>The device the array lives on.</summary>
  public Context Context {
    get {
      var t = new int[1];
      var i = new int[1];
      weft_native.weft_ndarray_context(Handle, t, i);
      return new Context((DeviceType)t[0], i[0]);
    }
  }

  public static NDArray FromArray(float[] data, params long[] shape) {
    return Filled(DType.Float32, shape, a => a.CopyFrom(data));
  }

  public static NDArray FromArray(double[] data, params long[] shape) {
    return Filled(DType.Float64, shape, a => a.CopyFrom(data));
  }

  /// <summary>A new array filled by fill, disposed again when filling fails.</summary>
  static NDArray Filled(DType dtype, long[] shape, Action<NDArray> fill) {
    var a = Create(dtype, shape);
    try { fill(a); } catch { a.Dispose(); throw; }
    return a;
  }

  public int NDim {
    get { return (int)weft_native.weft_ndarray_ndim(Handle); }
  }

  public long[] Shape {
    get {
      var h = Handle;
      var shape = new long[weft_native.weft_ndarray_ndim(h)];
      weft_native.weft_ndarray_shape(h, shape, (ulong)shape.Length);
      return shape;
    }
  }

  public long Size {
    get { return weft_native.weft_ndarray_size(Handle); }
  }

  public DType DType {
    get { return (DType)weft_native.weft_ndarray_dtype(Handle); }
  }

  /// <summary>Zero-copy: the library reads the pinned array (length must equal Size).</summary>
  public unsafe void CopyFrom(float[] data) {
    var h = Handle;
    fixed (float* p = data) weft_native.weft_ndarray_copy_from(h, (IntPtr)p, (ulong)data.Length * 4);
  }

  public unsafe void CopyFrom(double[] data) {
    var h = Handle;
    fixed (double* p = data) weft_native.weft_ndarray_copy_from(h, (IntPtr)p, (ulong)data.Length * 8);
  }

  /// <summary>Zero-copy: the library writes into the pinned array (length must equal Size).</summary>
  public unsafe void CopyTo(float[] output) {
    var h = Handle;
    fixed (float* p = output) weft_native.weft_ndarray_copy_to(h, (IntPtr)p, (ulong)output.Length * 4);
  }

  public unsafe void CopyTo(double[] output) {
    var h = Handle;
    fixed (double* p = output) weft_native.weft_ndarray_copy_to(h, (IntPtr)p, (ulong)output.Length * 8);
  }

  /// <summary>Sets the array from float32 values converted to its dtype (float16 and bfloat16
  /// round to nearest even; integers truncate); the length must equal Size.</summary>
  public unsafe void SetFloats(float[] data) {
    var h = Handle;
    fixed (float* p = data) weft_native.weft_ndarray_copy_from_float32(h, (IntPtr)p, (ulong)data.Length);
  }

  /// <summary>The contents converted to float32, for any dtype (exact for float16 and
  /// bfloat16).</summary>
  public unsafe float[] GetFloats() {
    var o = new float[checked((int)Size)];
    var h = Handle;
    fixed (float* p = o) weft_native.weft_ndarray_copy_to_float32(h, (IntPtr)p, (ulong)o.Length);
    return o;
  }

  /// <summary>An array of <paramref name="dtype"/> holding <paramref name="data"/> converted to
  /// it.</summary>
  public static NDArray FromFloats(float[] data, DType dtype, params long[] shape) {
    return Filled(dtype, shape, a => a.SetFloats(data));
  }

  /// <summary>Unmanaged memory of exactly the array's bytes.</summary>
  public void CopyFrom(IntPtr data, long bytes) {
    weft_native.weft_ndarray_copy_from(Handle, data, (ulong)bytes);
  }

  public void CopyTo(IntPtr data, long bytes) {
    weft_native.weft_ndarray_copy_to(Handle, data, (ulong)bytes);
  }

  /// <summary>Copying overloads: the array goes through the P/Invoke marshaller.</summary>
  public void CopyFromMarshalled(float[] data) {
    weft_native.weft_ndarray_copy_from(Handle, data, (ulong)data.Length * 4);
  }

  public void CopyToMarshalled(float[] output) {
    weft_native.weft_ndarray_copy_to(Handle, output, (ulong)output.Length * 4);
  }

  /// <summary>MXNet's default monitor statistic: norm(x) / sqrt(size), in float64.</summary>
  public double MonitorStat() {
    var o = new double[1];
    weft_native.weft_ndarray_monitor_stat(Handle, o);
    return o[0];
  }

  /// <summary>A new array with the contents (float32).</summary>
  public float[] ToFloatArray() {
    var o = new float[checked((int)Size)];
    CopyTo(o);
    return o;
  }

  public double[] ToDoubleArray() {
    var o = new double[checked((int)Size)];
    CopyTo(o);
    return o;
  }

  /// <summary>A view with a new shape; dispose it separately.</summary>
  public NDArray Reshape(params long[] shape) {
    return new NDArray(weft_native.weft_ndarray_reshape(Handle, shape, shape.Length));
  }

  /// <summary>A view of rows [begin, end) along the first axis.</summary>
  public NDArray Slice(long begin, long end) {
    return new NDArray(weft_native.weft_ndarray_slice(Handle, begin, end));
  }

  public void WaitToRead() { weft_native.weft_ndarray_wait_to_read(Handle); }

  /// <summary>Saves named arrays to an MXNet NDArray-list file (".params").</summary>
  public static void Save(string path, IDictionary<string, NDArray> arrays) {
    Native.EnsureLoaded();
    var names = NDArrayLists.Names(arrays);
    var hs = NDArrayLists.Handles(arrays);
    weft_native.weft_ndarray_save_file(path, hs, names, (ulong)hs.Length);
    GC.KeepAlive(arrays);
  }

  /// <summary>Loads an NDArray-list file by name, in file order (unnamed: "0", "1", ...).</summary>
  public static Dictionary<string, NDArray> Load(string path) {
    Native.EnsureLoaded();
    return NDArrayLists.Take(weft_native.weft_ndarray_load_file(path));
  }

  /// <summary>Disposes every array (null and null entries are fine).</summary>
  public static void DisposeAll(IDictionary<string, NDArray> arrays) {
    if (arrays != null) DisposeAll(arrays.Values);
  }

  public static void DisposeAll(IEnumerable<NDArray> arrays) {
    if (arrays == null) return;
    foreach (var a in arrays) if (a != null) a.Dispose();
  }
}

/// <summary>Imperative operator calls by name (MXNet-style string parameters).</summary>
public static class Ops {
  /// <summary>Runs op on inputs; returns its new outputs (caller disposes them).</summary>
  public static NDArray[] Invoke(string op, IDictionary<string, object> parameters,
                                 params NDArray[] inputs) {
    Native.EnsureLoaded();
    string[] keys, vals;
    Params(parameters, out keys, out vals);
    var ins = NativeHandle.Handles(inputs);
    var outs = new long[16];
    var n = new ulong[1];
    weft_native.weft_op_invoke(op, ins, (ulong)ins.Length, keys, vals, (ulong)keys.Length, outs,
                               (ulong)outs.Length, n);
    GC.KeepAlive(inputs);
    var result = new NDArray[n[0]];
    for (int i = 0; i < result.Length; ++i) result[i] = new NDArray(outs[i]);
    return result;
  }

  /// <summary>
  /// Runs op on inputs writing into existing outputs (their shapes and dtypes
  /// must equal the inferred ones); each output is overwritten.
  /// </summary>
  public static void InvokeInto(string op, IDictionary<string, object> parameters, NDArray[] inputs,
                                params NDArray[] outputs) {
    InvokeInto(op, parameters, inputs, outputs, null);
  }

  /// <summary>As InvokeInto with one request per output (null: all Write;
  /// Add accumulates into the output, Null leaves it untouched).</summary>
  public static void InvokeInto(string op, IDictionary<string, object> parameters, NDArray[] inputs,
                                NDArray[] outputs, IList<GradReq> reqs) {
    Native.EnsureLoaded();
    string[] keys, vals;
    Params(parameters, out keys, out vals);
    var ins = NativeHandle.Handles(inputs);
    var outs = NativeHandle.Handles(outputs);
    int[] r = null;
    if (reqs != null) {
      if (reqs.Count != outs.Length)
        throw new WeftException(ErrorCode.InvalidArgument, string.Format(
            "Ops.InvokeInto({0}): reqs has {1} entries, expected one per output ({2})", op, reqs.Count,
            outs.Length));
      r = new int[outs.Length];
      for (int i = 0; i < r.Length; ++i) r[i] = (int)reqs[i];
    }
    weft_native.weft_op_invoke_into(op, ins, (ulong)ins.Length, keys, vals, (ulong)keys.Length, outs,
                                    (ulong)outs.Length, r);
    GC.KeepAlive(inputs);
    GC.KeepAlive(outputs);
  }

  /// <summary>As Invoke for a one-output operator.</summary>
  public static NDArray Call(string op, IDictionary<string, object> parameters,
                             params NDArray[] inputs) {
    var outs = Invoke(op, parameters, inputs);
    for (int i = 1; i < outs.Length; ++i) outs[i].Dispose();
    return outs[0];
  }

  /// <summary>MXNet text of a value: arrays become "(a,b)".</summary>
  public static string Format(object v) {
    if (v is bool) return (bool)v ? "true" : "false";
    var arr = v as Array;
    if (arr != null && !(v is string)) {
      var parts = new List<string>();
      foreach (var x in arr) parts.Add(Convert.ToString(x, System.Globalization.CultureInfo.InvariantCulture));
      return "(" + string.Join(",", parts) + (parts.Count == 1 ? ",)" : ")");
    }
    if (v is DType) return v.ToString().ToLowerInvariant();
    return Convert.ToString(v, System.Globalization.CultureInfo.InvariantCulture);
  }

  internal static void Params(IDictionary<string, object> p, out string[] keys, out string[] vals) {
    int n = p == null ? 0 : p.Count;
    keys = new string[n];
    vals = new string[n];
    if (p == null) return;
    int i = 0;
    foreach (var kv in p) {
      keys[i] = kv.Key;
      vals[i] = Format(kv.Value);
      ++i;
    }
  }
}

}
