package ai.weft;

import java.util.Map;

/**
 * A parameter initializer (MXNet names: "uniform", "normal", "xavier",
 * "constant", "zero", "one"; owned handle). Seeded: the same seed and calls
 * give the same values. One thread at a time.
 */
public final class Initializer extends NativeHandle {
  Initializer(long handle) {
    super(handle);
  }

  @Override
  void free(long h) {
    weft_native.weft_initializer_free(h);
  }

  public static Initializer create(String name, Map<String, ?> params, long seed) {
    Native.ensureLoaded();
    String[][] kv = Ops.params(params);
    return new Initializer(
        weft_native.weft_initializer_create(name, kv[0], kv[1], kv[0].length, seed));
  }

  /** Fills {@code arr} for parameter {@code paramName} by MXNet's naming rules. */
  public void init(String paramName, NDArray arr) {
    weft_native.weft_initializer_init(handle(), paramName, arr.handle());
  }
}
