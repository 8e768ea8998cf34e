package ai.weft;

import java.util.Map;

/**
 * A checkpoint (MXNet's "PREFIX-symbol.json" + "PREFIX-EPOCH.params"):
 * {@link #save} writes one, {@link #load} reads one into an object owning
 * the symbol and the parameter arrays (close() closes them all; idempotent).
 */
public final class Checkpoint implements AutoCloseable {
  public final Symbol symbol;
  /** Arguments by name (no "arg:" prefix). */
  public final Map<String, NDArray> args;
  /** Auxiliary states by name (no "aux:" prefix). */
  public final Map<String, NDArray> aux;

  private Checkpoint(Symbol symbol, Map<String, NDArray> args, Map<String, NDArray> aux) {
    this.symbol = symbol;
    this.args = args;
    this.aux = aux;
  }

  /** Writes {@code sym}, {@code args} and {@code aux} (may be null) as epoch {@code epoch}. */
  public static void save(String prefix, int epoch, Symbol sym, Map<String, NDArray> args,
      Map<String, NDArray> aux) {
    Native.ensureLoaded();
    String[] an = NDArrayLists.names(args);
    long[] ah = NDArrayLists.handles(args);
    String[] xn = NDArrayLists.names(aux);
    long[] xh = NDArrayLists.handles(aux);
    weft_native.weft_checkpoint_save(prefix, epoch, sym.handle(), an.length, an, ah, xn.length,
        xn, xh);
  }

  /** Reads epoch {@code epoch} of the checkpoint at {@code prefix}. */
  public static Checkpoint load(String prefix, int epoch) {
    Native.ensureLoaded();
    long[] s = new long[1];
    long[] a = new long[1];
    long[] x = new long[1];
    weft_native.weft_checkpoint_load(prefix, epoch, s, a, x);
    Symbol sym = new Symbol(s[0]);
    Map<String, NDArray> args;
    try {
      args = NDArrayLists.take(a[0]);  // frees the list
    } catch (RuntimeException e) {
      sym.close();
      weft_native.weft_ndarray_list_free(x[0]);
      throw e;
    }
    try {
      return new Checkpoint(sym, args, NDArrayLists.take(x[0]));
    } catch (RuntimeException e) {
      sym.close();
      NDArray.closeAll(args);
      throw e;
    }
  }

  @Override
  public void close() {
    symbol.close();
    NDArray.closeAll(args);
    NDArray.closeAll(aux);
  }
}
