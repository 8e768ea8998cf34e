package ai.weft;

/**
 * A key-value store of arrays for data-parallel training (MXNet's KVStore): {@code local},
 * {@code device} (several cpu(i) devices in one process) or {@code dist_sync} (one store per
 * process of an {@code mpirun} job, kept identical by allreduce). Push sums the values given for
 * each key (and, for dist_sync, across processes); the store takes the sum, or the optimizer's
 * update with it. Push and pull are asynchronous: read the arrays to see results or errors. One
 * thread at a time; with dist_sync every process makes the same calls in the same order.
 */
public final class KVStore extends NativeHandle {
  KVStore(long handle) {
    super(handle);
  }

  @Override
  void free(long h) {
    weft_native.weft_kvstore_free(h);
  }

  /** {@code "local"}, {@code "device"} or {@code "dist_sync"}. */
  public static KVStore create(String type) {
    Native.ensureLoaded();
    return new KVStore(weft_native.weft_kvstore_create(type));
  }

  public String type() {
    String[] out = new String[1];
    weft_native.weft_kvstore_type(handle(), out);
    return out[0];
  }

  public int rank() {
    int[] r = new int[1], n = new int[1];
    weft_native.weft_kvstore_rank(handle(), r, n);
    return r[0];
  }

  public int numWorkers() {
    int[] r = new int[1], n = new int[1];
    weft_native.weft_kvstore_rank(handle(), r, n);
    return n[0];
  }

  public void init(String[] keys, NDArray[] values) {
    weft_native.weft_kvstore_init(handle(), keys.length, keys, NativeHandle.handles(values));
  }

  /** A program's optimizer (MXNet's kvstore updater): writes {@code stored} in place. */
  @FunctionalInterface
  public interface Updater {
    /** {@code sum} and {@code stored} are valid during the call only. */
    void update(String key, NDArray sum, NDArray stored);
  }

  private Updater updater;

  /**
   * Later pushes run {@code updater} on each key's sum and stored value (MXNet's
   * {@code set_updater}), on the thread that pushes, before push (or pull) returns; replaces an
   * optimizer. Null restores plain sums. The library queues the updates and this class runs them
   * after each native call, so no native thread calls into the JVM.
   */
  public void setUpdater(Updater updater) {
    weft_native.weft_kvstore_set_updater_queue(handle(), updater == null ? 0 : 1);
    this.updater = updater;
  }

  /* Runs the queued updates; whether there were any. */
  private boolean runUpdates() {
    Updater u = updater;
    if (u == null) return false;
    boolean any = false;
    for (;;) {
      String[] key = new String[1];
      long[] sum = new long[1];
      long[] stored = new long[1];
      int[] has = new int[1];
      weft_native.weft_kvstore_next_update(handle(), key, sum, stored, has);
      if (has[0] == 0) return any;
      any = true;
      try (NDArray s = new NDArray(sum[0]); NDArray st = new NDArray(stored[0])) {
        u.update(key[0], s, st);
      }
    }
  }

  public void push(String[] keys, NDArray[] values, int priority) {
    weft_native.weft_kvstore_push(handle(), keys.length, keys, NativeHandle.handles(values), priority);
    runUpdates();
  }

  public void pull(String[] keys, NDArray[] outs, int priority) {
    long[] o = NativeHandle.handles(outs);
    weft_native.weft_kvstore_pull(handle(), keys.length, keys, o, priority);
    // dist_sync applies a bucket's updates at the pull that sends it: pull again after them.
    if (runUpdates()) weft_native.weft_kvstore_pull(handle(), keys.length, keys, o, priority);
  }

  public void pushPull(String[] keys, NDArray[] values, NDArray[] outs, int priority) {
    if (updater != null) {
      push(keys, values, priority);
      pull(keys, outs, priority);
      return;
    }
    weft_native.weft_kvstore_pushpull(
        handle(), keys.length, keys, NativeHandle.handles(values), NativeHandle.handles(outs), priority);
  }

  /** Later pushes update the stored values with {@code opt} (shared: it may be closed after). */
  public void setOptimizer(Optimizer opt) {
    weft_native.weft_kvstore_set_optimizer(handle(), opt.handle());
    updater = null;
  }

  /** Waits for the store's pending work, then (dist_sync) for every process. */
  public void barrier() {
    weft_native.weft_kvstore_barrier(handle());
    runUpdates();
  }

  /**
   * Ends distributed use in this process: waits for pending work, stops the communication thread
   * and finalises MPI if Weft initialised it (also done by an exit hook of the library). Call it
   * before exiting a program that used a dist_sync store. Idempotent.
   */
  public static void finalizeDistributed() {
    Native.ensureLoaded();
    weft_native.weft_kvstore_finalize();
  }
}
