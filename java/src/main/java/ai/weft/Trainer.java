package ai.weft;

import java.util.Map;

/**
 * An optimizer stepped over named parameters for autograd training (Gluon's {@code Trainer};
 * owned handle). Every parameter must already have a gradient buffer
 * ({@link NDArray#attachGrad()} or {@link Autograd#markVariables}); {@link #step} updates each
 * from its buffer with gradients scaled by 1 / batch size. The optimizer is shared: its states
 * and update counts live in it, and its handle may be closed after {@link #create}.
 *
 * <pre>{@code
 * try (Trainer trainer = Trainer.create(params, Optimizer.create("sgd", Map.of("learning_rate", 0.1)))) {
 *   for (...) {
 *     NDArray loss;
 *     try (Autograd.Scope rec = Autograd.record()) { loss = forward(x, y); }
 *     try (loss) { loss.backward(); }
 *     trainer.step(batchSize);
 *   }
 * }
 * }</pre>
 */
public final class Trainer extends NativeHandle {
  Trainer(long handle) {
    super(handle);
  }

  @Override
  void free(long h) {
    weft_native.weft_trainer_free(h);
  }

  /**
   * A trainer of {@code params} in their iteration order (the optimizer's per-parameter index;
   * pass a {@link java.util.LinkedHashMap} to fix it).
   */
  public static Trainer create(Map<String, NDArray> params, Optimizer optimizer) {
    Native.ensureLoaded();
    String[] names = NDArrayLists.names(params);
    long[] hs = NDArrayLists.handles(params);
    return new Trainer(
        weft_native.weft_trainer_create(names, hs, hs.length, optimizer.handle()));
  }

  /** One update of every parameter from its gradient buffer (asynchronous, like every op). */
  public void step(int batchSize) {
    weft_native.weft_trainer_step(handle(), batchSize);
  }
}
