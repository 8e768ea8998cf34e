package ai.weft;

import ai.weft.Executor.GradReq;

/**
 * Imperative gradients with MXNet's semantics ({@code mxnet.autograd}): while the current thread
 * records, every {@link Ops} call on it is recorded; {@link #backward} differentiates what the
 * heads were computed from and writes (or adds) into the gradient buffers of the arrays marked
 * with {@link #markVariables} or {@link NDArray#attachGrad()}.
 *
 * <p>The recording and training flags belong to the calling thread (as in MXNet): a
 * {@link #record()} scope on one thread records nothing on another, and two threads may record
 * two independent graphs at once. Open and close a {@link Scope} on the same thread
 * (try-with-resources does).
 *
 * <pre>{@code
 * try (NDArray x = NDArray.fromArray(new float[] {1, 2, 3}, 3)) {
 *   x.attachGrad();
 *   NDArray y;
 *   try (Autograd.Scope rec = Autograd.record()) {
 *     y = Ops.call("elemwise_mul", null, x, x);
 *   }
 *   y.backward();
 *   try (NDArray g = x.grad()) { ... }   // [2, 4, 6]
 *   y.close();
 * }
 * }</pre>
 */
public final class Autograd {
  private Autograd() {}

  /**
   * Sets the thread's recording and training flags for its lifetime and restores both on
   * {@link #close()} (idempotent). Close it on the thread that opened it.
   */
  public static final class Scope implements AutoCloseable {
    private final Thread owner = Thread.currentThread();
    private final boolean prevRecording;
    private final boolean prevTraining;
    private boolean closed;

    Scope(boolean recording, boolean training) {
      prevRecording = setRecording(recording);
      boolean t;
      try {
        t = setTraining(training);
      } catch (RuntimeException e) {
        setRecording(prevRecording);
        throw e;
      }
      prevTraining = t;
    }

    /** Restores the flags this scope replaced; further calls do nothing. */
    @Override
    public void close() {
      if (closed) return;
      if (Thread.currentThread() != owner) {
        throw new IllegalStateException("Autograd.Scope opened on thread '" + owner.getName()
            + "' closed on thread '" + Thread.currentThread().getName()
            + "': the autograd flags are per thread");
      }
      closed = true;
      setTraining(prevTraining);
      setRecording(prevRecording);
    }
  }

  /** Records in training mode until the scope closes (MXNet's {@code autograd.record()}). */
  public static Scope record() {
    return record(true);
  }

  /** Records, with the training flag set to {@code trainMode}, until the scope closes. */
  public static Scope record(boolean trainMode) {
    return new Scope(true, trainMode);
  }

  /** Stops recording (prediction mode) until the scope closes ({@code autograd.pause()}). */
  public static Scope pause() {
    return pause(false);
  }

  /** Stops recording, with the training flag set to {@code trainMode}, until the scope closes. */
  public static Scope pause(boolean trainMode) {
    return new Scope(false, trainMode);
  }

  /** Whether the calling thread records. */
  public static boolean isRecording() {
    Native.ensureLoaded();
    return weft_native.weft_autograd_is_recording() != 0;
  }

  /** Whether ops run in training mode on the calling thread (Dropout, BatchNorm). */
  public static boolean isTraining() {
    Native.ensureLoaded();
    return weft_native.weft_autograd_is_training() != 0;
  }

  /** Sets whether the calling thread records; returns the previous setting. */
  public static boolean setRecording(boolean on) {
    Native.ensureLoaded();
    int[] prev = new int[1];
    weft_native.weft_autograd_set_is_recording(on ? 1 : 0, prev);
    return prev[0] != 0;
  }

  /** Sets whether ops run in training mode on the calling thread; returns the previous setting. */
  public static boolean setTraining(boolean on) {
    Native.ensureLoaded();
    int[] prev = new int[1];
    weft_native.weft_autograd_set_is_training(on ? 1 : 0, prev);
    return prev[0] != 0;
  }

  /**
   * Marks {@code vars} as variables with gradient buffers {@code grads} (each of its variable's
   * shape, dtype and device; null where the request is {@link GradReq#NULL}) and one request per
   * variable ({@code reqs} null: all {@link GradReq#WRITE}). Each variable keeps a reference to
   * its buffer: closing the buffer's handle afterwards is fine.
   */
  public static void markVariables(NDArray[] vars, GradReq[] reqs, NDArray[] grads) {
    Native.ensureLoaded();
    long[] v = NativeHandle.handles(vars);
    int[] r = new int[v.length];
    if (reqs != null) checkCount("markVariables", "reqs", reqs.length, "variable", v.length);
    for (int i = 0; i < r.length; ++i) r[i] = reqs == null ? GradReq.WRITE.code : reqs[i].code;
    long[] g = optionalHandles("markVariables", "grads", grads, "variable", v.length);
    weft_native.weft_autograd_mark_variables(v, v.length, r, g);
  }

  /** Back-propagates from {@code heads} (ones as their gradients) into the variables' buffers. */
  public static void backward(NDArray... heads) {
    backward(heads, null, false, true);
  }

  /**
   * Back-propagates from {@code heads} with head gradients {@code headGrads} (null, or one per
   * head, a null entry meaning ones). Unless {@code retainGraph}, the recorded values are freed
   * and a second backward over them fails; {@code trainMode} runs the gradient ops in training
   * mode.
   */
  public static void backward(NDArray[] heads, NDArray[] headGrads, boolean retainGraph,
      boolean trainMode) {
    Native.ensureLoaded();
    long[] h = NativeHandle.handles(heads);
    long[] hg = optionalHandles("backward", "headGrads", headGrads, "head", h.length);
    weft_native.weft_autograd_backward(h, h.length, hg, retainGraph ? 1 : 0, trainMode ? 1 : 0);
  }

  /** The gradients of {@code heads} (ones) with respect to marked {@code variables}. */
  public static NDArray[] grad(NDArray[] heads, NDArray[] variables) {
    return grad(heads, variables, null, false, true);
  }

  /**
   * The gradients of {@code heads} with respect to marked {@code variables} as new arrays (the
   * caller closes them), leaving the gradient buffers alone; the other arguments as in
   * {@link #backward(NDArray[], NDArray[], boolean, boolean)}.
   */
  public static NDArray[] grad(NDArray[] heads, NDArray[] variables, NDArray[] headGrads,
      boolean retainGraph, boolean trainMode) {
    return grad(heads, variables, headGrads, retainGraph, false, trainMode);
  }

  /**
   * {@link #grad(NDArray[], NDArray[], NDArray[], boolean, boolean)} with MXNet's {@code
   * create_graph}: true records the gradient computation too (keeping the graph), so the
   * gradients can be differentiated again (higher order) where the gradient ops have gradients;
   * through a recorded {@link CachedOp} call it throws {@link WeftException} (NOT_IMPLEMENTED).
   */
  public static NDArray[] grad(NDArray[] heads, NDArray[] variables, NDArray[] headGrads,
      boolean retainGraph, boolean createGraph, boolean trainMode) {
    Native.ensureLoaded();
    long[] h = NativeHandle.handles(heads);
    long[] v = NativeHandle.handles(variables);
    long[] hg = optionalHandles("grad", "headGrads", headGrads, "head", h.length);
    long[] out = new long[v.length];
    weft_native.weft_autograd_grad_ex(h, h.length, hg, v, v.length, retainGraph ? 1 : 0,
        createGraph ? 1 : 0, trainMode ? 1 : 0, out);
    NDArray[] result = new NDArray[out.length];
    for (int i = 0; i < out.length; ++i) result[i] = new NDArray(out[i]);
    return result;
  }

  /** The recorded graph that computed {@code array}, as a new symbol. */
  public static Symbol getSymbol(NDArray array) {
    return new Symbol(weft_native.weft_autograd_get_symbol(array.handle()));
  }

  /** Raw handles of a list that may be null and hold nulls; when given, one per {@code per}. */
  private static long[] optionalHandles(String fn, String arg, NDArray[] objs, String per,
      int count) {
    if (objs == null) return null;
    checkCount(fn, arg, objs.length, per, count);
    long[] hs = new long[objs.length];
    for (int i = 0; i < hs.length; ++i) hs[i] = objs[i] == null ? 0 : objs[i].handle();
    return hs;
  }

  private static void checkCount(String fn, String arg, int n, String per, int count) {
    if (n != count) {
      throw new WeftException(ErrorCode.INVALID_ARGUMENT, "Autograd." + fn + ": " + arg + " has "
          + n + " entries, expected one per " + per + " (" + count + ")");
    }
  }
}
