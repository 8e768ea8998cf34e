package ai.weft;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Thread-safe inference for services (owned handle; the C ABI's
 * weft_predictor_*). A predictor holds one read-only copy of a model's
 * weights and a pool of executors bound to them; any number of threads may
 * call {@code predict} at once (each call takes an idle executor for its
 * input shapes, binding one up to {@code max_executors} per shape set, or
 * waits for one). New input shapes bind once and are kept
 * ({@code max_shapes} sets).
 *
 * <p>Data paths: direct {@link FloatBuffer}/{@link ByteBuffer} are passed to
 * the library without a copy (their {@code remaining()} elements from
 * {@code position()}; positions are not moved); {@code float[]} is copied in
 * and out by the JNI wrapper. Options (all strings): {@code max_executors},
 * {@code max_shapes}, {@code bulk_max_nodes}, {@code optimize_inference};
 * dynamic batching: {@code max_batch} (above 1, concurrent calls that differ
 * only in their first extent run as one batch of up to that many samples),
 * {@code batch_delay_us} (how long a batch's first call waits for more,
 * default 0: a batch takes the calls already queued) and
 * {@code batch_queue} ({@code mutex} or {@code lockfree}).
 *
 * <p>A model whose output extents depend on the input values (ONNX's
 * NonMaxSuppression) runs node by node: {@link #outputShape} gives each
 * output's upper bound and {@link #predictShaped} each call's shapes; the
 * other predict methods then need buffers of exactly the call's sizes, and
 * {@code max_batch} and monitors are refused.
 *
 * <p>{@link #close()} waits for calls already running; calls waiting for an
 * executor fail ("closed"), later calls throw INVALID_HANDLE, and so do
 * asynchronous calls not yet started (their future completes exceptionally).
 */
public final class Predictor extends NativeHandle {
  private static final AtomicInteger THREADS = new AtomicInteger();
  private final Object poolLock = new Object();
  private static final int OUTPUT_SIZES_KEPT = 64;
  // The first output's size per input shape, for predict(float[], long...).
  private final Map<List<Long>, Integer> firstOutputSizes = new ConcurrentHashMap<>();
  private ExecutorService pool;  // for predictAsync without an executor; lazily created

  Predictor(long handle) {
    super(handle);
  }

  @Override
  void free(long h) {
    synchronized (poolLock) {
      if (pool != null) pool.shutdown();
    }
    weft_native.weft_predictor_free(h);
    monitor.clear();
  }

  private final Monitors.Slot monitor = new Monitors.Slot();

  /**
   * Sets (null removes) a monitor callback on every executor of the predictor (the optimised
   * inference graph's nodes), called on each thread running a predict call, so calls from several
   * threads call it concurrently; see {@link MonitorCallback}.
   */
  public void setMonitorCallback(MonitorCallback callback, boolean monitorAll) {
    long h = handle();
    monitor.set(callback,
        id -> weft_native.weft_predictor_set_monitor_callback(h, id, monitorAll ? 1 : 0));
  }

  /** The figures of a predictor (weft_predictor_stats). */
  public static final class Stats {
    /** Bound executors over all shape sets. */
    public final long executors;
    /** Input shape sets bound. */
    public final long shapeSets;
    /** Executors running a call now. */
    public final long inUse;
    /** The frozen weights (held once). */
    public final long weightBytes;
    /** Planned memory over all executors. */
    public final long activationBytes;

    Stats(long[] s) {
      executors = s[0];
      shapeSets = s[1];
      inUse = s[2];
      weightBytes = s[3];
      activationBytes = s[4];
    }

    @Override
    public String toString() {
      return "executors=" + executors + " shape_sets=" + shapeSets + " in_use=" + inUse
          + " weight_bytes=" + weightBytes + " activation_bytes=" + activationBytes;
    }
  }

  // ------------------------------------------------------------- loading

  /**
   * A predictor from symbol JSON text and the bytes of a .params file.
   * {@code inputs}: input names in predict order with their first shapes;
   * {@code outputs}: output or node names (null or empty: the symbol's
   * outputs); {@code options}: may be null; {@code ctx}: null is cpu(0).
   */
  public static Predictor load(String symbolJson, byte[] params, Map<String, long[]> inputs,
      List<String> outputs, Map<String, String> options, Context ctx) {
    Native.ensureLoaded();
    if (symbolJson == null || params == null) {
      throw new WeftException(ErrorCode.INVALID_ARGUMENT, "symbol JSON and params must not be null");
    }
    ByteBuffer p = ByteBuffer.allocateDirect(Math.max(params.length, 1));
    p.put(params).flip();
    Args a = new Args(inputs, outputs, options, ctx);
    return new Predictor(weft_native.weft_predictor_create(symbolJson, p, params.length,
        a.in.names.length, a.in.names, a.in.indPtr, a.in.dims, a.ctx.typeCode(), a.ctx.id(),
        a.outputs.length, a.outputs, a.keys.length, a.keys, a.values));
  }

  /** As {@link #load(String, byte[], Map, List, Map, Context)} with one input, on cpu(0). */
  public static Predictor load(String symbolJson, byte[] params, String input, long... shape) {
    return load(symbolJson, params, Map.of(input, shape), null, null, null);
  }

  /** As load() reading the symbol JSON (UTF-8) and the .params bytes from streams (not closed). */
  public static Predictor load(InputStream symbolJson, InputStream params,
      Map<String, long[]> inputs, List<String> outputs, Map<String, String> options, Context ctx) {
    try {
      String json = new String(symbolJson.readAllBytes(), StandardCharsets.UTF_8);
      return load(json, params.readAllBytes(), inputs, outputs, options, ctx);
    } catch (IOException e) {
      throw new UncheckedIOException("weft: reading a model stream: " + e.getMessage(), e);
    }
  }

  /**
   * A predictor from a -symbol.json and a .params file, or from an .onnx model (params: null).
   */
  public static Predictor fromFiles(Path symbol, Path params, Map<String, long[]> inputs,
      List<String> outputs, Map<String, String> options, Context ctx) {
    Native.ensureLoaded();
    Args a = new Args(inputs, outputs, options, ctx);
    return new Predictor(weft_native.weft_predictor_create_from_files(symbol.toString(),
        params == null ? null : params.toString(), a.in.names.length, a.in.names, a.in.indPtr,
        a.in.dims, a.ctx.typeCode(),
        a.ctx.id(), a.outputs.length, a.outputs, a.keys.length, a.keys, a.values));
  }

  /** The packed arguments of a create call. */
  private static final class Args {
    final NDArrayLists.Shapes in;
    final String[] outputs;
    final String[] keys;
    final String[] values;
    final Context ctx;

    Args(Map<String, long[]> inputs, List<String> outs, Map<String, String> options, Context c) {
      if (inputs == null || inputs.isEmpty()) {
        throw new WeftException(ErrorCode.INVALID_ARGUMENT, "a predictor needs at least one input");
      }
      in = new NDArrayLists.Shapes(new LinkedHashMap<>(inputs));
      outputs = outs == null ? new String[0] : outs.toArray(new String[0]);
      keys = NDArrayLists.names(options);
      values = new String[keys.length];
      for (int i = 0; i < keys.length; ++i) values[i] = options.get(keys[i]);
      ctx = Context.orDefault(c);
    }
  }

  // ---------------------------------------------------------- describing

  /** The input names in predict order. */
  public List<String> inputs() {
    return Strings.take(weft_native.weft_predictor_list_inputs(handle()));
  }

  /** The output names in predict order. */
  public List<String> outputs() {
    return Strings.take(weft_native.weft_predictor_list_outputs(handle()));
  }

  /** The shape of output {@code index} for these input shapes (one per input). */
  public long[] outputShape(int index, long[]... inputShapes) {
    Csr s = new Csr(inputShapes);
    long[] dims = new long[8];
    long[] ndim = new long[1];
    weft_native.weft_predictor_output_shape(handle(), inputShapes.length, s.indPtr, s.dims, index,
        dims, dims.length, ndim);
    return java.util.Arrays.copyOf(dims, (int) ndim[0]);
  }

  /** The number of elements of output {@code index} for these input shapes. */
  public long outputSize(int index, long[]... inputShapes) {
    long n = 1;
    for (long d : outputShape(index, inputShapes)) n *= d;
    return n;
  }

  /** The predictor's figures. */
  public Stats stats() {
    long[] s = new long[5];
    weft_native.weft_predictor_stats(handle(), s);
    return new Stats(s);
  }

  // ---------------------------------------------------------- predicting

  /**
   * One float32 input of shape {@code shape} to one float32 output: fills
   * {@code output} (its length must be the output's exact size). One native
   * call; the arrays are copied once each way, straight into and out of the
   * executor's memory on the calling thread (weft_predictor_predict_float_with).
   */
  public void predict(float[] input, long[] shape, float[] output) {
    if (input == null || output == null || shape == null) {
      throw new WeftException(ErrorCode.INVALID_ARGUMENT, "input, shape and output must not be null");
    }
    weft_native.weft_predictor_predict_float_with(handle(), new float[][] {input, output},
        input.length, shape, shape.length, output.length);
  }

  /**
   * As predict(input, shape, output) into a new array of the output's size.
   * The size is asked of the library once per input shape (up to 64 shapes
   * are remembered), so a call with a known shape is one native call.
   */
  public float[] predict(float[] input, long... shape) {
    if (shape == null) {
      throw new WeftException(ErrorCode.INVALID_ARGUMENT, "shape must not be null");
    }
    List<Long> key = new ArrayList<>(shape.length);
    for (long d : shape) key.add(d);
    Integer n = firstOutputSizes.get(key);
    if (n == null) {
      n = Math.toIntExact(outputSize(0, shape));
      if (firstOutputSizes.size() < OUTPUT_SIZES_KEPT) firstOutputSizes.put(key, n);
    }
    float[] out = new float[n];
    predict(input, shape, out);
    return out;
  }

  /**
   * One input to one output, zero-copy: {@code input} and {@code output}
   * must be direct and in native byte order; their remaining() elements are
   * read and written (output: exactly the output's size).
   */
  public void predict(FloatBuffer input, long[] shape, FloatBuffer output) {
    predict(new Buffer[] {input}, new long[][] {shape}, new Buffer[] {output});
  }

  /** As the FloatBuffer variant with raw bytes (the model's dtype, native byte order). */
  public void predict(ByteBuffer input, long[] shape, ByteBuffer output) {
    predict(new Buffer[] {input}, new long[][] {shape}, new Buffer[] {output});
  }

  /**
   * N inputs (one shape each, in {@link #inputs()} order) to the outputs in
   * {@link #outputs()} order, zero-copy: every buffer is a direct ByteBuffer
   * or a direct FloatBuffer/IntBuffer/... in native byte order; the
   * remaining() elements of each are used.
   */
  public void predict(Buffer[] inputs, long[][] shapes, Buffer[] outputs) {
    Call c = new Call(inputs, shapes, outputs);
    weft_native.weft_predictor_predict(handle(), c.in.length, c.in, c.inBytes, c.shapes.indPtr,
        c.shapes.dims, c.out.length, c.out, c.outBytes);
  }

  /**
   * As {@link #predict(Buffer[], long[][], Buffer[])}, returning the shape of each output this
   * call wrote (weft_predictor_predict_shaped): each output buffer's remaining() is then a
   * capacity, at least the output's size, and the output is written at its start. For a model
   * whose output extents depend on the input values (ONNX's NonMaxSuppression: the number of
   * boxes kept is the first extent), {@link #outputShape} gives sizes that always suffice.
   */
  public long[][] predictShaped(Buffer[] inputs, long[][] shapes, Buffer[] outputs) {
    Call c = new Call(inputs, shapes, outputs);
    long[] indPtr = new long[c.out.length + 1];
    long[] dims = new long[8 * c.out.length];
    weft_native.weft_predictor_predict_shaped(handle(), c.in.length, c.in, c.inBytes,
        c.shapes.indPtr, c.shapes.dims, c.out.length, c.out, c.outBytes, indPtr, dims, dims.length);
    long[][] result = new long[c.out.length][];
    for (int j = 0; j < result.length; ++j) {
      result[j] = java.util.Arrays.copyOfRange(dims, (int) indPtr[j], (int) indPtr[j + 1]);
    }
    return result;
  }

  /** The checked arguments of an N-input predict call. */
  private static final class Call {
    final Buffer[] in;
    final long[] inBytes;
    final Buffer[] out;
    final long[] outBytes;
    final Csr shapes;

    Call(Buffer[] inputs, long[][] shapes, Buffer[] outputs) {
      if (inputs == null || shapes == null || outputs == null) {
        throw new WeftException(ErrorCode.INVALID_ARGUMENT, "inputs, shapes and outputs must not be null");
      }
      if (shapes.length != inputs.length) {
        throw new WeftException(ErrorCode.INVALID_ARGUMENT, "predict: " + inputs.length
            + " input buffers but " + shapes.length + " shapes");
      }
      in = new Buffer[inputs.length];
      inBytes = new long[inputs.length];
      for (int i = 0; i < in.length; ++i) {
        in[i] = DirectBuffers.at(inputs[i], "input " + i);
        inBytes[i] = DirectBuffers.bytes(inputs[i]);
      }
      out = new Buffer[outputs.length];
      outBytes = new long[outputs.length];
      for (int j = 0; j < out.length; ++j) {
        out[j] = DirectBuffers.at(outputs[j], "output " + j);
        outBytes[j] = DirectBuffers.bytes(outputs[j]);
      }
      this.shapes = new Csr(shapes);
    }
  }

  /**
   * predict(input, shape) on a thread of this predictor's pool (daemon
   * threads, created as needed; shut down by close()). The future completes
   * with the output or exceptionally with the WeftException.
   */
  public CompletableFuture<float[]> predictAsync(float[] input, long... shape) {
    try {
      return predictAsync(input, shape, pool());
    } catch (RejectedExecutionException e) {
      return closedFuture();
    }
  }

  /** As predictAsync(input, shape) on {@code executor}. */
  public CompletableFuture<float[]> predictAsync(float[] input, long[] shape,
      java.util.concurrent.Executor executor) {
    try {
      return CompletableFuture.supplyAsync(() -> predict(input, shape), executor);
    } catch (RejectedExecutionException e) {
      return closedFuture();
    }
  }

  private static CompletableFuture<float[]> closedFuture() {
    CompletableFuture<float[]> f = new CompletableFuture<>();
    f.completeExceptionally(new WeftException(ErrorCode.INVALID_HANDLE, "Predictor is closed"));
    return f;
  }

  private ExecutorService pool() {
    synchronized (poolLock) {
      if (isClosed()) throw new RejectedExecutionException("closed");  // free() holds the lock
      if (pool == null) {
        pool = Executors.newCachedThreadPool(r -> {
          Thread t = new Thread(r, "weft-predictor-" + THREADS.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
      }
      return pool;
    }
  }

  /** CSR packing of shapes without names. */
  private static final class Csr {
    final long[] indPtr;
    final long[] dims;

    Csr(long[][] shapes) {
      indPtr = new long[shapes.length + 1];
      List<Long> d = new ArrayList<>();
      for (int i = 0; i < shapes.length; ++i) {
        if (shapes[i] == null) {
          throw new WeftException(ErrorCode.INVALID_ARGUMENT, "shape " + i + " is null");
        }
        for (long x : shapes[i]) d.add(x);
        indPtr[i + 1] = d.size();
      }
      dims = new long[d.size()];
      for (int k = 0; k < dims.length; ++k) dims[k] = d.get(k);
    }
  }

  /** Direct-buffer checks for the zero-copy paths. */
  static final class DirectBuffers {
    private DirectBuffers() {}

    /** {@code b} itself, or a slice starting at its position (the native side sees the base address). */
    static Buffer at(Buffer b, String what) {
      if (b == null) throw new WeftException(ErrorCode.INVALID_ARGUMENT, what + " buffer is null");
      if (!b.isDirect()) {
        throw new WeftException(ErrorCode.INVALID_ARGUMENT, what
            + " buffer is not direct (use ByteBuffer.allocateDirect, or the float[] overload)");
      }
      ByteOrder order = order(b);
      if (order != null && order != ByteOrder.nativeOrder()) {
        throw new WeftException(ErrorCode.INVALID_ARGUMENT, what + " buffer is in " + order
            + " byte order, expected the native " + ByteOrder.nativeOrder());
      }
      return b.position() == 0 ? b : b.slice();
    }

    /** Bytes remaining in {@code b}. */
    static long bytes(Buffer b) {
      return (long) b.remaining() * elementSize(b);
    }

    private static int elementSize(Buffer b) {
      if (b instanceof ByteBuffer) return 1;
      if (b instanceof java.nio.FloatBuffer || b instanceof java.nio.IntBuffer) return 4;
      if (b instanceof java.nio.DoubleBuffer || b instanceof java.nio.LongBuffer) return 8;
      if (b instanceof java.nio.ShortBuffer || b instanceof java.nio.CharBuffer) return 2;
      throw new WeftException(ErrorCode.INVALID_ARGUMENT, "unsupported buffer type "
          + b.getClass().getName());
    }

    /** The byte order of a multi-byte view (null for a ByteBuffer: raw bytes). */
    private static ByteOrder order(Buffer b) {
      if (b instanceof java.nio.FloatBuffer) return ((java.nio.FloatBuffer) b).order();
      if (b instanceof java.nio.IntBuffer) return ((java.nio.IntBuffer) b).order();
      if (b instanceof java.nio.DoubleBuffer) return ((java.nio.DoubleBuffer) b).order();
      if (b instanceof java.nio.LongBuffer) return ((java.nio.LongBuffer) b).order();
      if (b instanceof java.nio.ShortBuffer) return ((java.nio.ShortBuffer) b).order();
      if (b instanceof java.nio.CharBuffer) return ((java.nio.CharBuffer) b).order();
      return null;
    }
  }
}
