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

  public void push(String[] keys, NDArray[] values, int priority) {
    weft_native.weft_kvstore_push(handle(), keys.length, keys, NativeHandle.handles(values), priority);
  }

  public void pull(String[] keys, NDArray[] outs, int priority) {
    weft_native.weft_kvstore_pull(handle(), keys.length, keys, NativeHandle.handles(outs), priority);
  }

  public void pushPull(String[] keys, NDArray[] values, NDArray[] outs, int priority) {
    weft_native.weft_kvstore_pushpull(
        handle(), keys.length, keys, NativeHandle.handles(values), NativeHandle.handles(outs), priority);
  }

  /** Later pushes update the stored values with {@code opt} (shared: it may be closed after). */
  public void setOptimizer(Optimizer opt) {
    weft_native.weft_kvstore_set_optimizer(handle(), opt.handle());
  }

  /** Waits for the store's pending work, then (dist_sync) for every process. */
  public void barrier() {
    weft_native.weft_kvstore_barrier(handle());
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
