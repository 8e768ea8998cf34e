package ai.weft;

import java.util.Map;

/**
 * An optimizer with per-parameter states (MXNet's names: "sgd", "nag", "signum", "lars",
 * "adam", "adamw", "lamb", "rmsprop", "adagrad", "adadelta", "ftrl"; owned handle). One
 * thread at a time.
 */
public final class Optimizer extends NativeHandle {
  Optimizer(long handle) {
    super(handle);
  }

  @Override
  void free(long h) {
    weft_native.weft_optimizer_free(h);
  }

  public static Optimizer create(String name, Map<String, ?> params) {
    Native.ensureLoaded();
    String[][] kv = Ops.params(params);
    return new Optimizer(weft_native.weft_optimizer_create(name, kv[0], kv[1], kv[0].length));
  }

  /** Learning-rate schedule: "factor" (steps = {period}), "multifactor" or "none". */
  public void setLrScheduler(String kind, long[] steps, float factor, float stopFactorLr) {
    long[] s = steps == null ? new long[0] : steps;
    weft_native.weft_optimizer_set_lr_scheduler(handle(), kind, s, s.length, factor, stopFactorLr);
  }

  /**
   * Learning-rate schedule by MXNet's name and parameters: "factor", "multifactor" (step as
   * "(10,20)"), "poly", "cosine" or "none", each with base_lr (default: the learning rate),
   * warmup_steps, warmup_begin_lr and warmup_mode ("linear" or "constant").
   */
  public void setLrScheduler(String name, Map<String, ?> params) {
    String[][] kv = Ops.params(params);
    weft_native.weft_optimizer_set_lr_scheduler_ex(handle(), name, kv[0], kv[1], kv[0].length);
  }

  public void setRescaleGrad(float rescale) {
    weft_native.weft_optimizer_set_rescale_grad(handle(), rescale);
  }

  /** One update of parameter {@code index} ({@code weight} written in place). */
  public void update(int index, String name, NDArray weight, NDArray grad) {
    weft_native.weft_optimizer_update(handle(), index, name, weight.handle(), grad.handle());
  }

  /**
   * Writes every parameter's states and update counts to {@code path} (MXNet's
   * {@code Updater.get_states}; the file layout is in docs/architecture.md).
   */
  public void saveStates(String path) {
    weft_native.weft_optimizer_save_states(handle(), path);
  }

  /**
   * Replaces the states and update counts with those {@code path} holds; an optimizer created
   * with the same name and parameters then continues as the one that saved them. A file of
   * another optimizer, or a malformed one, fails and changes nothing.
   */
  public void loadStates(String path) {
    weft_native.weft_optimizer_load_states(handle(), path);
  }

  public long numUpdate() {
    return weft_native.weft_optimizer_num_update(handle());
  }

  public float learningRate(String name) {
    float[] out = new float[1];
    weft_native.weft_optimizer_learning_rate(handle(), name, out);
    return out[0];
  }
}
