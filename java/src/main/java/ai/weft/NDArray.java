package ai.weft;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.function.Consumer;

/**
 * An n-dimensional array on a device (owned handle). Thread-safety: any thread
 * may use an NDArray; concurrent writes to the same array are not ordered by
 * the binding. Views (reshape, slice) share storage and are closed separately.
 *
 * <p>Data transfer: the {@code Buffer} overloads are zero-copy (a direct buffer
 * in native byte order is read/written by the library); the array overloads
 * copy through a temporary native buffer.
 */
public final class NDArray extends NativeHandle {
  NDArray(long handle) {
    super(handle);
  }

  @Override
  void free(long h) {
    weft_native.weft_ndarray_free(h);
  }

  /** An uninitialised array of {@code shape} on cpu(0). */
  public static NDArray create(DType dtype, long... shape) {
    return create(Context.cpu(), dtype, shape);
  }

  /** An uninitialised array of {@code shape} on device {@code ctx} (null: cpu(0)). */
  public static NDArray create(Context ctx, DType dtype, long... shape) {
    Native.ensureLoaded();
    Context c = Context.orDefault(ctx);
    return new NDArray(weft_native.weft_ndarray_create(shape, shape.length, dtype.code(),
        c.typeCode(), c.id()));
  }

  /** Loads an IDX file (MNIST's format, raw or gzip) into a new cpu(0) array. */
  public static NDArray loadIdx(String path) {
    Native.ensureLoaded();
    return new NDArray(weft_native.weft_idx_load(path));
  }

  /** A float32 array of {@code shape} holding a copy of {@code data}. */
  public static NDArray fromArray(float[] data, long... shape) {
    return filled(DType.FLOAT32, shape, a -> a.copyFrom(data));
  }

  /** A float64 array of {@code shape} holding a copy of {@code data}. */
  public static NDArray fromArray(double[] data, long... shape) {
    return filled(DType.FLOAT64, shape, a -> a.copyFrom(data));
  }

  /**
   * An array of {@code dtype} and {@code shape} holding {@code data} converted to it (float16 and
   * bfloat16 round to nearest even; integers truncate).
   */
  public static NDArray fromFloats(float[] data, DType dtype, long... shape) {
    return filled(dtype, shape, a -> a.setFloats(data));
  }

  /** An array of {@code shape} filled from a direct buffer (zero-copy read). */
  public static NDArray fromBuffer(Buffer data, DType dtype, long... shape) {
    return filled(dtype, shape, a -> a.copyFrom(data));
  }

  /** A new array filled by {@code fill}, closed again when filling fails. */
  private static NDArray filled(DType dtype, long[] shape, Consumer<NDArray> fill) {
    NDArray a = create(dtype, shape);
    try {
      fill.accept(a);
    } catch (RuntimeException e) {
      a.close();
      throw e;
    }
    return a;
  }

  /** A direct FloatBuffer in native order with {@code n} elements. */
  public static FloatBuffer allocateFloats(int n) {
    return ByteBuffer.allocateDirect(n * 4).order(ByteOrder.nativeOrder()).asFloatBuffer();
  }

  /** A direct DoubleBuffer in native order with {@code n} elements. */
  public static DoubleBuffer allocateDoubles(int n) {
    return ByteBuffer.allocateDirect(n * 8).order(ByteOrder.nativeOrder()).asDoubleBuffer();
  }

  public int ndim() {
    return (int) weft_native.weft_ndarray_ndim(handle());
  }

  public long[] shape() {
    long h = handle();
    long[] shape = new long[(int) weft_native.weft_ndarray_ndim(h)];
    weft_native.weft_ndarray_shape(h, shape, shape.length);
    return shape;
  }

  /** Number of elements. */
  public long size() {
    return weft_native.weft_ndarray_size(handle());
  }

  public DType dtype() {
    return DType.fromCode((int) weft_native.weft_ndarray_dtype(handle()));
  }

  /** The device the array lives on. */
  public Context context() {
    int[] type = new int[1];
    int[] id = new int[1];
    weft_native.weft_ndarray_context(handle(), type, id);
    return Context.of(Context.DeviceType.fromCode(type[0]), id[0]);
  }

  /** Copies {@code data} in; its length must equal size() (float32 arrays). */
  public void copyFrom(float[] data) {
    weft_native.weft_ndarray_copy_from(handle(), data, data.length * 4L);
  }

  /** Copies {@code data} in; its length must equal size() (float64 arrays). */
  public void copyFrom(double[] data) {
    weft_native.weft_ndarray_copy_from(handle(), data, data.length * 8L);
  }

  /** Copies out into {@code out}; its length must equal size(). */
  public void copyTo(float[] out) {
    weft_native.weft_ndarray_copy_to(handle(), out, out.length * 4L);
  }

  /** Copies out into {@code out}; its length must equal size(). */
  public void copyTo(double[] out) {
    weft_native.weft_ndarray_copy_to(handle(), out, out.length * 8L);
  }

  /** Sets the array from float32 values converted to its dtype; the length must equal size(). */
  public void setFloats(float[] data) {
    weft_native.weft_ndarray_copy_from_float32(handle(), data, data.length);
  }

  /** The contents converted to float32, for any dtype (exact for float16 and bfloat16). */
  public float[] getFloats() {
    float[] out = new float[checkedSize()];
    weft_native.weft_ndarray_copy_to_float32(handle(), out, out.length);
    return out;
  }

  /** MXNet's default monitor statistic: norm(x) / sqrt(size), in float64. */
  public double monitorStat() {
    double[] out = new double[1];
    weft_native.weft_ndarray_monitor_stat(handle(), out);
    return out[0];
  }

  /** A new float[] with the contents (float32 arrays). */
  public float[] toFloatArray() {
    float[] out = new float[checkedSize()];
    copyTo(out);
    return out;
  }

  /** A new double[] with the contents (float64 arrays). */
  public double[] toDoubleArray() {
    double[] out = new double[checkedSize()];
    copyTo(out);
    return out;
  }

  /**
   * Zero-copy write: the library reads the {@code remaining()} elements of the
   * direct buffer {@code data} (native byte order), which must be exactly the
   * array's bytes. The buffer's position is not changed.
   */
  public void copyFrom(Buffer data) {
    long h = handle();
    Buffer b = checkBuffer(data);
    weft_native.weft_ndarray_copy_from(h, b, (long) b.remaining() * elementBytes(b));
  }

  /** Zero-copy read into the {@code remaining()} elements of a direct buffer. */
  public void copyTo(Buffer out) {
    long h = handle();
    Buffer b = checkBuffer(out);
    weft_native.weft_ndarray_copy_to(h, b, (long) b.remaining() * elementBytes(b));
  }

  /** A view with a new shape (same number of elements); close it separately. */
  public NDArray reshape(long... shape) {
    return new NDArray(weft_native.weft_ndarray_reshape(handle(), shape, shape.length));
  }

  /** A view of rows [begin, end) along the first axis; close it separately. */
  public NDArray slice(long begin, long end) {
    return new NDArray(weft_native.weft_ndarray_slice(handle(), begin, end));
  }

  /**
   * Gives this array a zeroed gradient buffer (same shape, dtype and device) and marks it as an
   * autograd variable whose gradient is written (MXNet's {@code attach_grad()}).
   */
  public void attachGrad() {
    attachGrad(Executor.GradReq.WRITE);
  }

  /** As {@link #attachGrad()} with the gradient request {@code req} (ADD accumulates). */
  public void attachGrad(Executor.GradReq req) {
    boolean recording = Autograd.setRecording(false);  // the zeros are not recorded
    NDArray g;
    try {
      g = Ops.call("zeros_like", null, this);
    } finally {
      Autograd.setRecording(recording);
    }
    try (NDArray buffer = g) {  // the array keeps its own reference to the buffer
      Autograd.markVariables(new NDArray[] {this}, new Executor.GradReq[] {req},
          new NDArray[] {buffer});
    }
  }

  /** The gradient buffer as a new handle sharing it (close it), or null when not marked. */
  public NDArray grad() {
    long g = weft_native.weft_ndarray_get_grad(handle());
    return g == 0 ? null : new NDArray(g);
  }

  /** A new handle on this array's storage without its autograd record: gradients stop there. */
  public NDArray detach() {
    return new NDArray(weft_native.weft_ndarray_detach(handle()));
  }

  /** {@link Autograd#backward(NDArray...)} from this array alone. */
  public void backward() {
    Autograd.backward(this);
  }

  /** Blocks until pending writes to this array are done. */
  public void waitToRead() {
    weft_native.weft_ndarray_wait_to_read(handle());
  }

  /** Saves named arrays to an MXNet NDArray-list file (".params"). */
  public static void save(String path, java.util.Map<String, NDArray> arrays) {
    Native.ensureLoaded();
    String[] names = NDArrayLists.names(arrays);
    long[] hs = NDArrayLists.handles(arrays);
    weft_native.weft_ndarray_save_file(path, hs, names, hs.length);
  }

  /**
   * Loads an NDArray-list file as name to array, in file order (an unnamed
   * file gives "0", "1", ...). The caller closes the arrays.
   */
  public static java.util.Map<String, NDArray> load(String path) {
    Native.ensureLoaded();
    return NDArrayLists.take(weft_native.weft_ndarray_load_file(path));
  }

  /** The .params bytes of named arrays (what {@link #save(String, java.util.Map)} writes). */
  public static byte[] saveToBytes(java.util.Map<String, NDArray> arrays) {
    Native.ensureLoaded();
    String[] names = NDArrayLists.names(arrays);
    long[] hs = NDArrayLists.handles(arrays);
    long out = weft_native.weft_ndarray_save_buffer(hs, names, hs.length);
    java.lang.ref.Reference.reachabilityFence(arrays);
    return takeBuffer(out);
  }

  /** Writes the .params bytes of named arrays to {@code stream} (not closed). */
  public static void save(java.io.OutputStream stream, java.util.Map<String, NDArray> arrays)
      throws java.io.IOException {
    stream.write(saveToBytes(arrays));
  }

  /** Loads an NDArray list from .params bytes, as {@link #load(String)}. */
  public static java.util.Map<String, NDArray> load(byte[] data) {
    Native.ensureLoaded();
    return NDArrayLists.take(weft_native.weft_ndarray_load_buffer(direct(data), data.length));
  }

  /** As {@link #load(byte[])} reading {@code stream} to its end (not closed). */
  public static java.util.Map<String, NDArray> load(java.io.InputStream stream)
      throws java.io.IOException {
    return load(stream.readAllBytes());
  }

  /** Loads a NumPy .npy file into a new cpu(0) array. */
  public static NDArray loadNpy(String path) {
    Native.ensureLoaded();
    return new NDArray(weft_native.weft_ndarray_load_npy(path));
  }

  /** A new cpu(0) array from the bytes of a .npy image. */
  public static NDArray loadNpy(byte[] data) {
    Native.ensureLoaded();
    return new NDArray(weft_native.weft_ndarray_load_npy_buffer(direct(data), data.length));
  }

  /** As {@link #loadNpy(byte[])} reading {@code stream} to its end (not closed). */
  public static NDArray loadNpy(java.io.InputStream stream) throws java.io.IOException {
    return loadNpy(stream.readAllBytes());
  }

  /** Saves this array as a .npy file (float32/64, int32/64, uint8). */
  public void saveNpy(String path) {
    weft_native.weft_ndarray_save_npy(handle(), path);
  }

  /** The .npy image of this array (the bytes numpy.save writes). */
  public byte[] toNpyBytes() {
    return takeBuffer(weft_native.weft_ndarray_save_npy_buffer(handle()));
  }

  /** Writes the .npy image of this array to {@code stream} (not closed). */
  public void saveNpy(java.io.OutputStream stream) throws java.io.IOException {
    stream.write(toNpyBytes());
  }

  /** A direct copy of {@code data} (the library reads native memory only). */
  static ByteBuffer direct(byte[] data) {
    if (data == null) throw new NullPointerException("data");
    ByteBuffer b = ByteBuffer.allocateDirect(Math.max(data.length, 1));
    b.put(data).flip();
    return b;
  }

  /** Copies and frees a WeftBuffer. */
  static byte[] takeBuffer(long buf) {
    try {
      ByteBuffer[] view = new ByteBuffer[1];
      weft_native.weft_buffer_data(buf, view);
      // A direct ByteBuffer's capacity is an int: a buffer past 2 GiB has
      // none, and a Java array holds a little less.
      ByteBuffer b = view[0];
      if (b == null || b.capacity() > Integer.MAX_VALUE - 8) {
        throw new WeftException(ErrorCode.INVALID_ARGUMENT,
            "a buffer of more than " + (Integer.MAX_VALUE - 8) + " bytes does not fit a Java array");
      }
      byte[] r = new byte[b.remaining()];
      b.get(r);
      return r;
    } finally {
      weft_native.weft_buffer_free(buf);
    }
  }

  /** Closes every array of {@code arrays} (null is fine). */
  public static void closeAll(java.util.Map<String, NDArray> arrays) {
    if (arrays != null) closeAll(arrays.values());
  }

  /** Closes every array of {@code arrays} (null entries are skipped). */
  public static void closeAll(java.util.Collection<NDArray> arrays) {
    if (arrays == null) return;
    for (NDArray a : arrays) {
      if (a != null) a.close();
    }
  }

  private int checkedSize() {
    long n = size();
    if (n > Integer.MAX_VALUE) {
      throw new WeftException(ErrorCode.INVALID_ARGUMENT,
          "NDArray of " + n + " elements does not fit a Java array");
    }
    return (int) n;
  }

  private static Buffer checkBuffer(Buffer b) {
    if (b == null) throw new WeftException(ErrorCode.INVALID_ARGUMENT, "buffer is null");
    if (!b.isDirect()) {
      throw new WeftException(ErrorCode.INVALID_ARGUMENT,
          "buffer is not direct (use ByteBuffer.allocateDirect(..).order(ByteOrder.nativeOrder()))");
    }
    ByteOrder order = byteOrder(b);
    if (order != null && order != ByteOrder.nativeOrder()) {
      throw new WeftException(ErrorCode.INVALID_ARGUMENT,
          "buffer byte order is " + order + ", expected native order " + ByteOrder.nativeOrder());
    }
    return b.position() == 0 ? b : b.slice();
  }

  private static ByteOrder byteOrder(Buffer b) {
    if (b instanceof FloatBuffer) return ((FloatBuffer) b).order();
    if (b instanceof DoubleBuffer) return ((DoubleBuffer) b).order();
    if (b instanceof IntBuffer) return ((IntBuffer) b).order();
    if (b instanceof LongBuffer) return ((LongBuffer) b).order();
    return null;  // ByteBuffer: raw bytes
  }

  private static int elementBytes(Buffer b) {
    if (b instanceof ByteBuffer) return 1;
    if (b instanceof FloatBuffer || b instanceof IntBuffer) return 4;
    if (b instanceof DoubleBuffer || b instanceof LongBuffer) return 8;
    if (b instanceof java.nio.ShortBuffer || b instanceof java.nio.CharBuffer) return 2;
    throw new WeftException(ErrorCode.INVALID_ARGUMENT, "unsupported buffer type " + b.getClass());
  }

  /**
   * A zero-copy view of a host (cpu) array's memory in native byte order: reads and writes go
   * straight to the array, without waiting for pending work (for a custom operator's arrays,
   * which are ready, or after {@link #waitToRead()}). Valid while the array lives; for a custom
   * operator's arrays only during the callback.
   */
  public ByteBuffer data() {
    ByteBuffer[] view = new ByteBuffer[1];
    weft_native.weft_ndarray_get_bytes(handle(), view);
    return view[0].order(ByteOrder.nativeOrder());
  }

  /** {@link #data()} of a float32 array as floats. */
  public FloatBuffer floatData() {
    if (dtype() != DType.FLOAT32) {
      throw new WeftException(ErrorCode.DTYPE, "floatData() of a " + dtype() + " array");
    }
    return data().asFloatBuffer();
  }
}
