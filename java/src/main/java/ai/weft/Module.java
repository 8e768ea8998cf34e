package ai.weft;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The training loop of MXNet's Module (owned handle): a symbol whose
 * arguments split into data, labels and parameters, bound for an iterator's
 * batch shapes, with an optimizer. One module must not be used by two
 * threads at once; distinct modules may run concurrently.
 */
public final class Module extends NativeHandle {
  Module(long handle) {
    super(handle);
  }

  @Override
  void free(long h) {
    weft_native.weft_module_free(h);
  }

  /** What {@link #fit} prints on stdout. */
  public enum Progress {
    AUTO(WeftProgress.WEFT_PROGRESS_AUTO), BAR(WeftProgress.WEFT_PROGRESS_BAR),
    LINES(WeftProgress.WEFT_PROGRESS_LINES), EPOCH(WeftProgress.WEFT_PROGRESS_EPOCH),
    SILENT(WeftProgress.WEFT_PROGRESS_SILENT);

    final int code;

    Progress(int code) {
      this.code = code;
    }
  }

  /** A module over {@code sym} on cpu(0); every other argument is a parameter. */
  public static Module create(Symbol sym, List<String> dataNames, List<String> labelNames) {
    return create(sym, Context.cpu(), dataNames, labelNames);
  }

  /** A module over {@code sym} on device {@code ctx} (null: cpu(0)). */
  public static Module create(Symbol sym, Context ctx, List<String> dataNames,
      List<String> labelNames) {
    Context c = Context.orDefault(ctx);
    String[] d = dataNames.toArray(new String[0]);
    String[] l = labelNames == null ? new String[0] : labelNames.toArray(new String[0]);
    return new Module(weft_native.weft_module_create(sym.handle(), d.length, d, l.length, l,
        c.typeCode(), c.id()));
  }

  /** As create with data "data" and label "softmax_label". */
  public static Module create(Symbol sym) {
    return create(sym, Arrays.asList("data"), Arrays.asList("softmax_label"));
  }

  /**
   * Fixes parameters (MXNet's {@code fixed_param_names}): bound without gradients, never updated.
   * Call before {@link #bind}; the list replaces the previous one.
   */
  public void setFixedParams(List<String> names) {
    String[] n = names.toArray(new String[0]);
    weft_native.weft_module_set_fixed_params(handle(), n.length, n);
  }

  /** Binds for the batch shapes of {@code iter}; forTraining allocates gradients. */
  public void bind(DataIter iter, boolean forTraining) {
    weft_native.weft_module_bind(handle(), iter.handle(), forTraining ? 1 : 0);
  }

  /**
   * Sets every parameter and aux state from {@code args}/{@code aux} (either
   * may be null), the rest from {@code init} (may be null when all are given).
   */
  public void initParams(Initializer init, Map<String, NDArray> args, Map<String, NDArray> aux,
      boolean allowMissing) {
    long h = handle();
    long ih = init == null ? 0 : init.handle();
    long al = 0;
    long xl = 0;
    try {
      al = toList(args);
      xl = toList(aux);
      weft_native.weft_module_init_params(h, ih, al, xl, allowMissing ? 1 : 0);
    } finally {
      weft_native.weft_ndarray_list_free(al);
      weft_native.weft_ndarray_list_free(xl);
    }
  }

  /** Parameters from {@code init}. */
  public void initParams(Initializer init) {
    initParams(init, null, null, false);
  }

  /* A named WeftNDArrayList holding copies of m (0 for null). */
  private static long toList(Map<String, NDArray> m) {
    if (m == null) return 0;
    String[] names = NDArrayLists.names(m);
    long[] hs = NDArrayLists.handles(m);
    return weft_native.weft_ndarray_list_create(hs, names, hs.length);
  }

  /** Attaches {@code opt} (its state is shared); sets rescale_grad to 1/batch size. */
  public void initOptimizer(Optimizer opt) {
    weft_native.weft_module_init_optimizer(handle(), opt.handle());
  }

  /** Trains through {@code kv} (shared: it may be closed after): see {@link KVStore}. */
  public void initOptimizer(Optimizer opt, KVStore kv) {
    weft_native.weft_module_init_optimizer_kvstore(handle(), opt.handle(), kv.handle());
  }

  /** Forward on the current batch of {@code iter}. */
  public void forward(DataIter iter, boolean isTrain) {
    weft_native.weft_module_forward(handle(), iter.handle(), isTrain ? 1 : 0);
  }

  public void backward() {
    weft_native.weft_module_backward(handle());
  }

  /** One optimizer step on every parameter. */
  public void update() {
    weft_native.weft_module_update(handle());
  }

  /** Updates {@code metric} with the last outputs and {@code iter}'s labels (padding excluded). */
  public void updateMetric(Metric metric, DataIter iter) {
    weft_native.weft_module_update_metric(handle(), metric.handle(), iter.handle());
  }

  /** The last forward's outputs by name (new handles; close them). */
  public Map<String, NDArray> outputs() {
    return NDArrayLists.take(weft_native.weft_module_outputs(handle()));
  }

  /** The parameters by name (new handles sharing the module's arrays; close them). */
  public Map<String, NDArray> argParams() {
    long[] out = new long[1];
    weft_native.weft_module_params(handle(), out, null);
    return NDArrayLists.take(out[0]);
  }

  /** The auxiliary states by name. */
  public Map<String, NDArray> auxParams() {
    long[] out = new long[1];
    weft_native.weft_module_params(handle(), null, out);
    return NDArrayLists.take(out[0]);
  }

  /**
   * Trains epochs [beginEpoch, numEpoch) on {@code train}, evaluating
   * {@code metric} on {@code eval} (may be null) after each; with a
   * checkpointPrefix (may be null) a checkpoint is written per epoch.
   * Returns the last epoch's samples per second.
   */
  public double fit(DataIter train, DataIter eval, Metric metric, int beginEpoch, int numEpoch,
      Progress progress, String checkpointPrefix) {
    double[] sps = new double[1];
    weft_native.weft_module_fit(handle(), train.handle(), eval == null ? 0 : eval.handle(),
        metric.handle(), beginEpoch, numEpoch, progress.code, checkpointPrefix, sps);
    return sps[0];
  }

  /**
   * As {@link #fit(DataIter, DataIter, Metric, int, int, Progress, String)}, calling
   * {@code listener} on this thread after every batch and epoch (it may stop training); returns
   * every closed epoch. The training loop is the library's (a fit session driven step by step
   * here), so nothing calls into the JVM from a native thread.
   */
  public List<FitListener.EpochEnd> fit(DataIter train, DataIter eval, Metric metric,
      int beginEpoch, int numEpoch, Progress progress, String checkpointPrefix,
      FitListener listener) {
    long s = weft_native.weft_fit_session_create(handle(), train.handle(),
        eval == null ? 0 : eval.handle(), metric.handle(), beginEpoch, numEpoch, progress.code,
        checkpointPrefix);
    List<FitListener.EpochEnd> epochs = new ArrayList<>();
    try {
      for (;;) {
        long event = weft_native.weft_fit_session_next(s);
        if (event == WeftFitEvent.WEFT_FIT_DONE) break;
        if (event == WeftFitEvent.WEFT_FIT_EPOCH_END) {
          FitListener.EpochEnd e = epochEnd(s, metric);
          epochs.add(e);
          if (!listener.epochEnd(e)) weft_native.weft_fit_session_stop(s);
          continue;
        }
        int[] epoch = new int[1];
        long[] batch = new long[1];
        long[] numBatches = new long[1];
        long[] samples = new long[1];
        double[] seconds = new double[1];
        weft_native.weft_fit_session_batch(s, epoch, batch, numBatches, samples, seconds);
        if (!listener.batchEnd(new FitListener.BatchEnd(epoch[0], batch[0], numBatches[0],
                samples[0], seconds[0], metric.get()))) {
          weft_native.weft_fit_session_stop(s);
          FitListener.EpochEnd e = epochEnd(s, metric);
          epochs.add(e);
          listener.epochEnd(e);
        }
      }
    } finally {
      weft_native.weft_fit_session_free(s);
    }
    return epochs;
  }

  private static FitListener.EpochEnd epochEnd(long s, Metric metric) {
    int[] epoch = new int[1];
    int[] stopped = new int[1];
    long[] batches = new long[1];
    long[] samples = new long[1];
    double[] seconds = new double[1];
    double[] sps = new double[1];
    weft_native.weft_fit_session_epoch(s, epoch, batches, samples, seconds, sps, stopped);
    return new FitListener.EpochEnd(epoch[0], batches[0], samples[0], seconds[0], sps[0],
        stopped[0] != 0, epochMetric(s, metric, 0), epochMetric(s, metric, 1));
  }

  private static Map<String, Double> epochMetric(long s, Metric metric, int validation) {
    long[] names = new long[1];
    double[] vals = new double[(int) weft_native.weft_metric_num_values(metric.handle())];
    long[] num = new long[1];
    weft_native.weft_fit_session_epoch_metric(s, validation, names, vals, vals.length, num);
    return Metric.values(names[0], vals, num[0]);
  }

  /** Runs {@code iter} from its start in inference mode into {@code metric}; its values. */
  public Map<String, Double> score(DataIter iter, Metric metric) {
    weft_native.weft_module_score(handle(), iter.handle(), metric.handle());
    return metric.get();
  }

  /** Writes prefix-symbol.json and prefix-EPOCH.params. */
  public void saveCheckpoint(String prefix, int epoch) {
    weft_native.weft_module_save_checkpoint(handle(), prefix, epoch);
  }
}
