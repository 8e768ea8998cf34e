package ai.weft;

import java.util.Map;

/**
 * A batch iterator over in-memory arrays (MXNet's NDArrayIter; owned handle).
 * The source arrays are shared, not copied, and must stay open. Batch arrays
 * are reused: arrays from {@link #data()} / {@link #label()} are rewritten
 * by the next {@link #next()}. One iterator must not be used by two threads
 * at once.
 */
public final class DataIter extends NativeHandle {
  DataIter(long handle) {
    super(handle);
  }

  @Override
  void free(long h) {
    weft_native.weft_data_iter_free(h);
  }

  /**
   * An iterator over {@code data} and {@code label} (named cpu arrays with
   * samples along the first axis). {@code lastBatch}: "pad" (null), "discard"
   * or "roll_over"; {@code shuffle} permutes with a generator seeded by
   * {@code seed} at creation and every reset.
   */
  public static DataIter ndarray(Map<String, NDArray> data, Map<String, NDArray> label,
      int batchSize, boolean shuffle, String lastBatch, long seed) {
    Native.ensureLoaded();
    String[] dn = NDArrayLists.names(data);
    long[] dh = NDArrayLists.handles(data);
    String[] ln = NDArrayLists.names(label);
    long[] lh = NDArrayLists.handles(label);
    return new DataIter(weft_native.weft_data_iter_create_ndarray(dn.length, dn, dh, ln.length, ln,
        lh, batchSize, shuffle ? 1 : 0, lastBatch, seed));
  }

  /**
   * An iterator by MXNet's name ("CSVIter", "LibSVMIter", "MNISTIter": {@link #names()}) with
   * parameters under MXNet's names, as MXNet's {@code mx.io.<Name>(**params)}.
   */
  public static DataIter create(String name, Map<String, ?> params) {
    Native.ensureLoaded();
    String[][] kv = Ops.params(params);
    return new DataIter(weft_native.weft_data_iter_create(name, kv[0], kv[1], kv[0].length));
  }

  /** The names {@link #create} takes. */
  public static java.util.List<String> names() {
    Native.ensureLoaded();
    return Strings.take(weft_native.weft_data_iter_list());
  }

  /** Advances to the next batch; false at the end of the epoch. */
  public boolean next() {
    int[] has = new int[1];
    weft_native.weft_data_iter_next(handle(), has);
    return has[0] != 0;
  }

  /** Starts a new epoch. */
  public void reset() {
    weft_native.weft_data_iter_reset(handle());
  }

  /** The current batch's data arrays by name (new handles; close them). */
  public Map<String, NDArray> data() {
    return NDArrayLists.take(weft_native.weft_data_iter_data(handle()));
  }

  /** The current batch's label arrays by name (new handles; close them). */
  public Map<String, NDArray> label() {
    return NDArrayLists.take(weft_native.weft_data_iter_label(handle()));
  }

  /** Padding rows at the end of the current batch. */
  public int pad() {
    int[] out = new int[1];
    weft_native.weft_data_iter_pad(handle(), out);
    return out[0];
  }

  public int batchSize() {
    return (int) weft_native.weft_data_iter_batch_size(handle());
  }

  /** Restricts the iterator to part {@code partIndex} of {@code numParts} and resets it. */
  public void selectPart(int numParts, int partIndex) {
    weft_native.weft_data_iter_select_part(handle(), numParts, partIndex);
  }
}
