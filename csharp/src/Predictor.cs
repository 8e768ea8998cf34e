using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace Weft {

/// <summary>A predictor's figures (weft_predictor_stats).</summary>
public struct PredictorStats {
  /// <summary>Bound executors over all shape sets.</summary>
  public long Executors;
  /// <summary>Input shape sets bound.</summary>
  public long ShapeSets;
  /// <summary>Executors running a call now.</summary>
  public long InUse;
  /// <summary>The frozen weights, held once whatever the number of callers.</summary>
  public long WeightBytes;
  /// <summary>Planned activation memory over all executors.</summary>
  public long ActivationBytes;
}

/// <summary>
/// Thread-safe inference over one read-only copy of a model's weights
/// (weft_predictor_* in c_api_predictor.h). Any number of threads or tasks may call
/// Predict at once; each call takes an idle executor for its input shape
/// (binding one up to the "max_executors" option, else waiting for one).
/// The model has one float32 input and one float32 output for Predict;
/// PredictShaped takes any number of each. A model whose output extents
/// depend on the input values (ONNX's NonMaxSuppression) runs node by node:
/// OutputShape gives each output's upper bound, PredictShaped each call's
/// shapes (Predict then needs exactly the call's sizes), and "max_batch" and
/// monitors are refused.
/// Ownership: Dispose() closes the predictor; the native free waits for
/// calls already running, and later calls throw WeftException with
/// ErrorCode.InvalidHandle.
/// </summary>
public sealed class Predictor : IDisposable {
  const int OutputSizesKept = 64;
  // The first output's size per input length, for Predict(float[]).
  readonly System.Collections.Concurrent.ConcurrentDictionary<int, long> firstOutputSizes =
      new System.Collections.Concurrent.ConcurrentDictionary<int, long>();
  // Shared handle type (NativeHandle.cs). ReleaseHandle runs once, after the
  // last call holding a reference (DangerousAddRef, or the marshaller's) has
  // returned, so a Dispose racing running predictions never frees under them.
  readonly WeftHandle handle;
  readonly long[] firstShape;  // the first input's creation shape
  readonly long sampleSize;    // product of firstShape[1..]
  long[] lastBatchShape;       // BatchShape's last answer (never mutated once published)

  Predictor(long h, long[] firstShape) {
    handle = new WeftHandle(h, Frees.Predictor);
    this.firstShape = (long[])firstShape.Clone();
    sampleSize = 1;
    for (int i = 1; i < firstShape.Length; ++i) sampleSize *= firstShape[i];
  }

  /// <summary>An input name with its first shape (for Create's inputs list).</summary>
  public static KeyValuePair<string, long[]> Input(string name, params long[] shape) {
    return new KeyValuePair<string, long[]>(name, shape);
  }

  /// <summary>
  /// A predictor from symbol JSON text and the bytes of a .params file.
  /// inputs: the inputs in predict order with their first shapes; outputs:
  /// output or node names (null: the symbol's outputs); options:
  /// "max_executors", "max_shapes", "bulk_max_nodes", "optimize_inference";
  /// dynamic batching: "max_batch" (above 1, concurrent calls that differ
  /// only in their first extent run as one batch of up to that many
  /// samples), "batch_delay_us" (default 0: a batch takes the calls
  /// already queued), "batch_queue" ("mutex" or "lockfree").
  /// </summary>
  public static unsafe Predictor Create(string symbolJson, byte[] parameters,
                                        IList<KeyValuePair<string, long[]>> inputs,
                                        IList<string> outputs = null,
                                        IDictionary<string, string> options = null,
                                        Context ctx = default(Context)) {
    if (symbolJson == null) throw new ArgumentNullException("symbolJson");
    if (parameters == null) throw new ArgumentNullException("parameters");
    Native.EnsureLoaded();
    var a = new Args(inputs, outputs, options);
    fixed (byte* p = parameters) {
      return new Predictor(weft_native.weft_predictor_create(symbolJson, (IntPtr)p,
          (ulong)parameters.Length, (ulong)a.Names.Length, a.Names, a.IndPtr, a.Dims, (int)ctx.Type, ctx.Id,
          (ulong)a.Outputs.Length, a.Outputs, (ulong)a.Keys.Length, a.Keys, a.Values), a.First);
    }
  }

  /// <summary>As Create(string, byte[], ...) reading the .params bytes from a stream.</summary>
  public static Predictor Create(string symbolJson, Stream parameters,
                                 IList<KeyValuePair<string, long[]>> inputs,
                                 IList<string> outputs = null,
                                 IDictionary<string, string> options = null,
                                 Context ctx = default(Context)) {
    if (parameters == null) throw new ArgumentNullException("parameters");
    using (var ms = new MemoryStream()) {
      parameters.CopyTo(ms);
      return Create(symbolJson, ms.ToArray(), inputs, outputs, options, ctx);
    }
  }

  /// <summary>A predictor from a -symbol.json file and a .params file.</summary>
  public static Predictor FromFiles(string symbolPath, string paramsPath,
                                    IList<KeyValuePair<string, long[]>> inputs,
                                    IList<string> outputs = null,
                                    IDictionary<string, string> options = null,
                                    Context ctx = default(Context)) {
    Native.EnsureLoaded();
    var a = new Args(inputs, outputs, options);
    return new Predictor(weft_native.weft_predictor_create_from_files(symbolPath, paramsPath, (ulong)a.Names.Length,
        a.Names, a.IndPtr, a.Dims, (int)ctx.Type, ctx.Id, (ulong)a.Outputs.Length, a.Outputs,
        (ulong)a.Keys.Length, a.Keys, a.Values), a.First);
  }

  /// <summary>The input names in predict order.</summary>
  public IList<string> Inputs {
    get { long o = 0; Call(h => o = weft_native.weft_predictor_list_inputs(h)); return Symbol.Take(o); }
  }

  /// <summary>The output names in predict order.</summary>
  public IList<string> Outputs {
    get { long o = 0; Call(h => o = weft_native.weft_predictor_list_outputs(h)); return Symbol.Take(o); }
  }

  /// <summary>The shape of output `index` when the (single) input has `inputShape`.</summary>
  public long[] OutputShape(int index, params long[] inputShape) {
    if (inputShape == null) throw new ArgumentNullException("inputShape");
    var ind = new ulong[] { 0, (ulong)inputShape.Length };
    var dims = new long[8];
    var nd = new ulong[1];
    Call(h => weft_native.weft_predictor_output_shape(h, 1, ind, inputShape, (ulong)index, dims,
                                                      (ulong)dims.Length, nd));
    var r = new long[nd[0]];
    Array.Copy(dims, r, r.Length);
    return r;
  }

  /// <summary>The shape of output `index` for these input shapes (one per
  /// input). For a model whose output extents depend on the input values
  /// (NonMaxSuppression), the upper bound: a buffer that always suffices.</summary>
  public long[] OutputShape(int index, long[][] inputShapes) {
    var a = new Csr(inputShapes);
    var dims = new long[8];
    var nd = new ulong[1];
    Call(h => weft_native.weft_predictor_output_shape(h, (ulong)inputShapes.Length, a.IndPtr, a.Dims,
                                                      (ulong)index, dims, (ulong)dims.Length, nd));
    var r = new long[nd[0]];
    Array.Copy(dims, r, r.Length);
    return r;
  }

  /// <summary>
  /// Runs a model with any number of float32 inputs (one per input, in
  /// Inputs order, with its shape) and returns the shape of each output this
  /// call wrote (weft_predictor_predict_packed_shaped): output j is written
  /// at the start of outputs[j], whose length is a capacity (at least the
  /// output's size). For a model whose output extents depend on the input
  /// values (ONNX's NonMaxSuppression: the number of boxes kept is the first
  /// extent), OutputShape gives sizes that always suffice. The arrays are
  /// copied through one packed buffer each way.
  /// </summary>
  public unsafe long[][] PredictShaped(float[][] inputs, long[][] shapes, float[][] outputs) {
    if (inputs == null) throw new ArgumentNullException("inputs");
    if (outputs == null) throw new ArgumentNullException("outputs");
    if (shapes == null || shapes.Length != inputs.Length)
      throw new ArgumentException("one shape per input", "shapes");
    var a = new Csr(shapes);
    var inBytes = new ulong[inputs.Length];
    var inPacked = new float[Total(inputs, inBytes)];
    int off = 0;
    foreach (var x in inputs) {
      Array.Copy(x, 0, inPacked, off, x.Length);
      off += x.Length;
    }
    var outBytes = new ulong[outputs.Length];
    var outPacked = new float[Total(outputs, outBytes)];
    var outInd = new ulong[outputs.Length + 1];
    var outDims = new long[8 * outputs.Length];
    bool added = false;
    try {
      AddRef(ref added);
      fixed (float* pi = inPacked)
      fixed (float* po = outPacked) {
        weft_native.weft_predictor_predict_packed_shaped(handle, (ulong)inputs.Length, (IntPtr)pi,
            inBytes, a.IndPtr, a.Dims, (ulong)outputs.Length, (IntPtr)po, outBytes, outInd, outDims,
            (ulong)outDims.Length);
      }
    } finally {
      if (added) handle.DangerousRelease();
    }
    var result = new long[outputs.Length][];
    off = 0;
    for (int j = 0; j < outputs.Length; ++j) {
      Array.Copy(outPacked, off, outputs[j], 0, outputs[j].Length);
      off += outputs[j].Length;
      result[j] = new long[outInd[j + 1] - outInd[j]];
      Array.Copy(outDims, (long)outInd[j], result[j], 0, result[j].Length);
    }
    return result;
  }

  // The floats of `arrays` together, their byte counts into `bytes`.
  static int Total(float[][] arrays, ulong[] bytes) {
    int n = 0;
    for (int i = 0; i < arrays.Length; ++i) {
      if (arrays[i] == null) throw new ArgumentNullException("arrays[" + i + "]");
      bytes[i] = (ulong)arrays[i].Length * sizeof(float);
      n += arrays[i].Length;
    }
    return n;
  }

  /// <summary>The batch shape for `inputLength` floats: the creation shape
  /// with the first extent = inputLength / (floats per sample).</summary>
  public long[] BatchShape(long inputLength) { return (long[])SharedBatchShape(inputLength).Clone(); }

  /// <summary>BatchShape without the copy: the array may be in use by other
  /// calls and is never modified.</summary>
  long[] SharedBatchShape(long inputLength) {
    if (sampleSize <= 0 || inputLength <= 0 || inputLength % sampleSize != 0)
      throw new WeftException(ErrorCode.Shape, string.Format(
          "predictor input '{0}': {1} floats is not a whole number of samples of {2} floats " +
          "(shape ({3}) without its first extent)",
          InputName, inputLength, sampleSize, string.Join(",", firstShape)));
    long batch = inputLength / sampleSize;
    var last = Volatile.Read(ref lastBatchShape);
    if (last != null && last[0] == batch) return last;
    var s = new long[firstShape.Length];
    Array.Copy(firstShape, s, s.Length);
    s[0] = batch;
    Volatile.Write(ref lastBatchShape, s);
    return s;
  }

  string InputName { get { try { return Inputs[0]; } catch (WeftException) { return "0"; } } }

  /// <summary>
  /// Runs the model on `input` (a whole number of samples of the creation
  /// shape; the batch size is input.Length / floats per sample) and writes
  /// exactly output.Length floats (the output's size for that batch).
  /// Zero-copy: both spans are pinned and read/written by the library.
  /// </summary>
  public void Predict(ReadOnlySpan<float> input, Span<float> output) {
    Predict(input, SharedBatchShape(input.Length), output);
  }

  /// <summary>Predict with an explicit input shape.</summary>
  public unsafe void Predict(ReadOnlySpan<float> input, long[] shape, Span<float> output) {
    if (shape == null) throw new ArgumentNullException("shape");
    bool added = false;
    try {
      AddRef(ref added);
      var h = handle;
      fixed (float* pi = &MemoryMarshal.GetReference(input))
      fixed (float* po = &MemoryMarshal.GetReference(output)) {
        weft_native.weft_predictor_predict_float(h, (IntPtr)pi, (ulong)input.Length, shape,
            (ulong)shape.Length, (IntPtr)po, (ulong)output.Length);
      }
    } finally {
      if (added) handle.DangerousRelease();
    }
  }

  /// <summary>Predict from arrays (input[inputOffset..+inputLength] into
  /// output[outputOffset..+outputLength]).</summary>
  public void Predict(float[] input, int inputOffset, int inputLength, float[] output,
                      int outputOffset, int outputLength) {
    Predict(new ReadOnlySpan<float>(input, inputOffset, inputLength),
            new Span<float>(output, outputOffset, outputLength));
  }

  /// <summary>Predict into unmanaged memory: `input`/`output` hold the given
  /// numbers of floats (the caller keeps them alive during the call).</summary>
  public unsafe void Predict(IntPtr input, long inputLength, IntPtr output, long outputLength) {
    if (inputLength < 0 || outputLength < 0 || inputLength > int.MaxValue || outputLength > int.MaxValue)
      throw new ArgumentOutOfRangeException("inputLength");
    Predict(new ReadOnlySpan<float>((void*)input, (int)inputLength),
            new Span<float>((void*)output, (int)outputLength));
  }

  /// <summary>Allocating convenience: the output for `input` as a new array.</summary>
  public float[] Predict(float[] input) {
    if (input == null) throw new ArgumentNullException("input");
    var shape = SharedBatchShape(input.Length);
    // The output's size is asked of the library once per input length (up
    // to 64 are remembered): a call with a known length is one native call.
    if (!firstOutputSizes.TryGetValue(input.Length, out long n)) {
      n = 1;
      foreach (var d in OutputShape(0, shape)) n *= d;
      if (firstOutputSizes.Count < OutputSizesKept) firstOutputSizes.TryAdd(input.Length, n);
    }
    var output = new float[n];
    Predict(input, shape, output);
    return output;
  }

  /// <summary>
  /// Predict on the thread pool. A token cancelled before the work starts
  /// gives a cancelled task and leaves `output` untouched; a started
  /// prediction runs to the end. The caller must not touch the buffers
  /// until the task completes.
  /// </summary>
  public Task PredictAsync(ReadOnlyMemory<float> input, Memory<float> output,
                           CancellationToken cancellationToken = default(CancellationToken)) {
    return Task.Run(() => {
      cancellationToken.ThrowIfCancellationRequested();
      Predict(input.Span, output.Span);
    }, cancellationToken);
  }

  /// <summary>PredictAsync returning a new output array.</summary>
  public Task<float[]> PredictAsync(float[] input,
                                    CancellationToken cancellationToken = default(CancellationToken)) {
    return Task.Run(() => {
      cancellationToken.ThrowIfCancellationRequested();
      return Predict(input);
    }, cancellationToken);
  }

  /// <summary>The predictor's figures now.</summary>
  public PredictorStats Stats() {
    var s = new ulong[5];
    Call(h => weft_native.weft_predictor_stats(h, s));
    return new PredictorStats { Executors = (long)s[0], ShapeSets = (long)s[1], InUse = (long)s[2],
                                WeightBytes = (long)s[3], ActivationBytes = (long)s[4] };
  }

  public bool IsDisposed { get { return handle.IsClosed; } }

  /// <summary>Closes the predictor (idempotent, thread-safe). Calls running
  /// now finish first; the native free runs after the last of them.</summary>
  public void Dispose() {
    handle.Dispose();
    monitor.Clear();
  }

  readonly Monitors.Slot monitor = new Monitors.Slot();

  /// <summary>Sets (null removes) a monitor callback on every executor of
  /// the predictor (the optimised inference graph's nodes), called on each
  /// thread running a Predict call, so calls from several threads call it
  /// concurrently; see MonitorCallback.</summary>
  public void SetMonitorCallback(MonitorCallback callback, bool monitorAll = false) {
    monitor.Set(callback, (d, id) => Call(h => weft_native.weft_predictor_set_monitor_callback(h, d, id, monitorAll ? 1 : 0)));
  }

  void AddRef(ref bool added) {
    try {
      handle.DangerousAddRef(ref added);
    } catch (ObjectDisposedException) {
      throw new WeftException(ErrorCode.InvalidHandle, "Predictor is disposed");
    }
  }

  void Call(Action<WeftHandle> f) {
    bool added = false;
    try {
      AddRef(ref added);
      f(handle);
    } finally {
      if (added) handle.DangerousRelease();
    }
  }

  /// <summary>Shapes without names in the C ABI's CSR form.</summary>
  sealed class Csr {
    internal ulong[] IndPtr;
    internal long[] Dims;

    internal Csr(long[][] shapes) {
      if (shapes == null) throw new ArgumentNullException("shapes");
      IndPtr = new ulong[shapes.Length + 1];
      var dims = new List<long>();
      for (int i = 0; i < shapes.Length; ++i) {
        if (shapes[i] == null) throw new ArgumentException("shape " + i + " is null", "shapes");
        dims.AddRange(shapes[i]);
        IndPtr[i + 1] = (ulong)dims.Count;
      }
      Dims = dims.ToArray();
    }
  }

  /// <summary>Create's arguments in the C ABI's form.</summary>
  sealed class Args {
    internal string[] Names, Outputs, Keys, Values;
    internal ulong[] IndPtr;
    internal long[] Dims, First;

    internal Args(IList<KeyValuePair<string, long[]>> inputs, IList<string> outputs,
                  IDictionary<string, string> options) {
      if (inputs == null || inputs.Count == 0)
        throw new ArgumentException("a predictor needs at least one input with its shape", "inputs");
      Names = new string[inputs.Count];
      IndPtr = new ulong[inputs.Count + 1];
      var dims = new List<long>();
      for (int i = 0; i < inputs.Count; ++i) {
        if (inputs[i].Value == null)
          throw new ArgumentException("input '" + inputs[i].Key + "' has no shape", "inputs");
        Names[i] = inputs[i].Key;
        dims.AddRange(inputs[i].Value);
        IndPtr[i + 1] = (ulong)dims.Count;
      }
      Dims = dims.ToArray();
      First = inputs[0].Value;
      Outputs = outputs == null ? new string[0] : new List<string>(outputs).ToArray();
      Keys = new string[options == null ? 0 : options.Count];
      Values = new string[Keys.Length];
      int k = 0;
      if (options != null) {
        foreach (var kv in options) {
          Keys[k] = kv.Key;
          Values[k++] = kv.Value;
        }
      }
    }
  }
}

}
