using System;
using System.Collections.Generic;
using System.Linq;

namespace Weft {

/// <summary>
/// A batch iterator over in-memory arrays (MXNet's NDArrayIter; owned handle).
/// The source arrays are shared and must stay alive; batch arrays from Data() /
/// Label() are rewritten by the next Next(). One thread at a time.
/// </summary>
public sealed class DataIter : NativeHandle {
  internal DataIter(long h) : base(h, Frees.DataIter) {}

  /// <summary>lastBatch: "pad" (null), "discard" or "roll_over"; shuffle is seeded by seed.</summary>
  public static DataIter FromArrays(IDictionary<string, NDArray> data, IDictionary<string, NDArray> label,
                                    int batchSize, bool shuffle = false, string lastBatch = "pad",
                                    ulong seed = 0) {
    Native.EnsureLoaded();
    var dn = NDArrayLists.Names(data);
    var dh = NDArrayLists.Handles(data);
    var ln = NDArrayLists.Names(label);
    var lh = NDArrayLists.Handles(label);
    long o = weft_native.weft_data_iter_create_ndarray((ulong)dn.Length, dn, dh, (ulong)ln.Length, ln, lh,
                                              batchSize, shuffle ? 1 : 0, lastBatch, seed);
    GC.KeepAlive(data);
    GC.KeepAlive(label);
    return new DataIter(o);
  }

  /// <summary>An iterator by MXNet's name ("CSVIter", "LibSVMIter", "MNISTIter": Names()) with
  /// parameters under MXNet's names, as MXNet's mx.io.&lt;Name&gt;(**params).</summary>
  public static DataIter Create(string name, IDictionary<string, object> parameters) {
    Native.EnsureLoaded();
    string[] keys, vals;
    Ops.Params(parameters, out keys, out vals);
    return new DataIter(weft_native.weft_data_iter_create(name, keys, vals, (ulong)keys.Length));
  }

  /// <summary>The names Create takes.</summary>
  public static IList<string> Names() {
    Native.EnsureLoaded();
    return Symbol.Take(weft_native.weft_data_iter_list());
  }

  /// <summary>Advances to the next batch; false at the end of the epoch.</summary>
  public bool Next() {
    var has = new int[1];
    weft_native.weft_data_iter_next(Handle, has);
    return has[0] != 0;
  }

  public void Reset() { weft_native.weft_data_iter_reset(Handle); }

  /// <summary>Restricts the iterator to part partIndex of numParts and resets it.</summary>
  public void SelectPart(int numParts, int partIndex) {
    weft_native.weft_data_iter_select_part(Handle, numParts, partIndex);
  }

  public Dictionary<string, NDArray> Data() {
    return NDArrayLists.Take(weft_native.weft_data_iter_data(Handle));
  }

  public Dictionary<string, NDArray> Label() {
    return NDArrayLists.Take(weft_native.weft_data_iter_label(Handle));
  }

  public int Pad { get { var o = new int[1]; weft_native.weft_data_iter_pad(Handle, o); return o[0]; } }

  public int BatchSize {
    get { return (int)weft_native.weft_data_iter_batch_size(Handle); }
  }
}

/// <summary>An evaluation metric ("acc", "top_k_acc", "ce", "mse", "composite"; owned handle).</summary>
public sealed class Metric : NativeHandle {
  internal Metric(long h) : base(h, Frees.Metric) {}

  public static Metric Create(string name, IDictionary<string, object> parameters = null) {
    Native.EnsureLoaded();
    string[] keys, vals;
    Ops.Params(parameters, out keys, out vals);
    return new Metric(weft_native.weft_metric_create(name, keys, vals, (ulong)keys.Length));
  }

  public void Add(string name, IDictionary<string, object> parameters = null) {
    string[] keys, vals;
    Ops.Params(parameters, out keys, out vals);
    weft_native.weft_metric_composite_add(Handle, name, keys, vals, (ulong)keys.Length);
  }

  public void Update(IList<NDArray> labels, IList<NDArray> preds) {
    var l = Handles(labels.ToArray());
    var p = Handles(preds.ToArray());
    weft_native.weft_metric_update(Handle, (ulong)l.Length, l, (ulong)p.Length, p);
    GC.KeepAlive(labels);
    GC.KeepAlive(preds);
  }

  /// <summary>The current values by name (NaN before any instance).</summary>
  public Dictionary<string, double> Get() {
    var h = Handle;
    ulong n = (ulong)weft_native.weft_metric_num_values(h);
    var names = new long[1];
    var vals = new double[n];
    var num = new ulong[1];
    weft_native.weft_metric_get(h, names, vals, (ulong)vals.Length, num);
    return Values(names[0], vals, num[0]);
  }

  /// <summary>The first num (name, value) pairs of a string list (freed here) and vals.</summary>
  internal static Dictionary<string, double> Values(long names, double[] vals, ulong num) {
    var ns = Symbol.Take(names);
    var r = new Dictionary<string, double>();
    for (int i = 0; i < (int)num; ++i) r[ns[i]] = vals[i];
    return r;
  }

  public double Value { get { return Get().Values.First(); } }

  public void Reset() { weft_native.weft_metric_reset(Handle); }
}

/// <summary>A seeded parameter initializer ("uniform", "normal", "xavier", "constant", "zero", "one").</summary>
public sealed class Initializer : NativeHandle {
  internal Initializer(long h) : base(h, Frees.Initializer) {}

  public static Initializer Create(string name, IDictionary<string, object> parameters, ulong seed) {
    Native.EnsureLoaded();
    string[] keys, vals;
    Ops.Params(parameters, out keys, out vals);
    return new Initializer(weft_native.weft_initializer_create(name, keys, vals, (ulong)keys.Length, seed));
  }

  /// <summary>Fills arr for parameter paramName by MXNet's naming rules.</summary>
  public void Init(string paramName, NDArray arr) {
    weft_native.weft_initializer_init(Handle, paramName, arr.Handle);
  }
}

/// <summary>An optimizer with per-parameter states ("sgd", "adam"; owned handle).</summary>
public sealed class Optimizer : NativeHandle {
  internal Optimizer(long h) : base(h, Frees.Optimizer) {}

  public static Optimizer Create(string name, IDictionary<string, object> parameters = null) {
    Native.EnsureLoaded();
    string[] keys, vals;
    Ops.Params(parameters, out keys, out vals);
    return new Optimizer(weft_native.weft_optimizer_create(name, keys, vals, (ulong)keys.Length));
  }

  public void SetLrScheduler(string kind, long[] steps, float factor, float stopFactorLr) {
    var s = steps ?? new long[0];
    weft_native.weft_optimizer_set_lr_scheduler(Handle, kind, s, (ulong)s.Length, factor, stopFactorLr);
  }

  public void SetRescaleGrad(float rescale) { weft_native.weft_optimizer_set_rescale_grad(Handle, rescale); }

  public void Update(int index, string name, NDArray weight, NDArray grad) {
    weft_native.weft_optimizer_update(Handle, index, name, weight.Handle, grad.Handle);
  }

  public long NumUpdate {
    get { return weft_native.weft_optimizer_num_update(Handle); }
  }

  public float LearningRate(string name) {
    var o = new float[1];
    weft_native.weft_optimizer_learning_rate(Handle, name, o);
    return o[0];
  }

  /// <summary>Writes every parameter's states and update counts to path (MXNet's Updater.get_states;
  /// the layout is in docs/architecture.md).</summary>
  public void SaveStates(string path) { weft_native.weft_optimizer_save_states(Handle, path); }

  /// <summary>Replaces the states and update counts with those path holds; another optimizer's or a
  /// malformed file fails and changes nothing.</summary>
  public void LoadStates(string path) { weft_native.weft_optimizer_load_states(Handle, path); }

  /// <summary>Learning-rate schedule by MXNet's name and parameters: "factor", "multifactor" (step as
  /// "(10,20)"), "poly", "cosine" or "none", each with base_lr, warmup_steps, warmup_begin_lr and
  /// warmup_mode ("linear" or "constant").</summary>
  public void SetLrScheduler(string name, IDictionary<string, object> parameters) {
    string[] keys, vals;
    Ops.Params(parameters, out keys, out vals);
    weft_native.weft_optimizer_set_lr_scheduler_ex(Handle, name, keys, vals, (ulong)keys.Length);
  }
}

/// <summary>What Module.Fit prints on stdout.</summary>
public enum Progress {
  Auto = weft_native.WEFT_PROGRESS_AUTO,
  Bar = weft_native.WEFT_PROGRESS_BAR,
  Lines = weft_native.WEFT_PROGRESS_LINES,
  Epoch = weft_native.WEFT_PROGRESS_EPOCH,
  Silent = weft_native.WEFT_PROGRESS_SILENT
}

/// <summary>
/// MXNet's Module training loop (owned handle). One module must not be used
/// by two threads at once; distinct modules may run concurrently.
/// </summary>
public sealed partial class Module : NativeHandle {
  internal Module(long h) : base(h, Frees.Module) {}

  /// <summary>A module over sym on cpu(0) (defaults: "data" and "softmax_label").</summary>
  public static Module Create(Symbol sym, IList<string> dataNames = null, IList<string> labelNames = null) {
    return Create(sym, Context.Cpu(), dataNames, labelNames);
  }

  /// <summary>A module over sym on device ctx.</summary>
  public static Module Create(Symbol sym, Context ctx, IList<string> dataNames = null,
                              IList<string> labelNames = null) {
    var d = (dataNames ?? new[] { "data" }).ToArray();
    var l = (labelNames ?? new[] { "softmax_label" }).ToArray();
    return new Module(weft_native.weft_module_create(sym.Handle, (ulong)d.Length, d, (ulong)l.Length, l, (int)ctx.Type, ctx.Id));
  }

  /// <summary>Fixes parameters (MXNet's fixed_param_names): bound without gradients, never updated.
  /// Call before Bind; the list replaces the previous one.</summary>
  public void SetFixedParams(IList<string> names) {
    var n = names.ToArray();
    weft_native.weft_module_set_fixed_params(Handle, (ulong)n.Length, n);
  }

  public void Bind(DataIter iter, bool forTraining) {
    weft_native.weft_module_bind(Handle, iter.Handle, forTraining ? 1 : 0);
  }

  /// <summary>Parameters from args/aux (either may be null), the rest from init (may be null).</summary>
  public void InitParams(Initializer init, IDictionary<string, NDArray> args = null,
                         IDictionary<string, NDArray> aux = null, bool allowMissing = false) {
    var h = Handle;
    var ih = WeftHandle.Of(init);
    using (var al = ToList(args))
    using (var xl = ToList(aux)) {
      weft_native.weft_module_init_params(h, ih, al, xl, allowMissing ? 1 : 0);
    }
  }

  /// <summary>A new list sharing m's arrays (null: NULL).</summary>
  static WeftHandle ToList(IDictionary<string, NDArray> m) {
    if (m == null) return new WeftHandle(0, null);
    var names = NDArrayLists.Names(m);
    var hs = NDArrayLists.Handles(m);
    long o = weft_native.weft_ndarray_list_create(hs, names, (ulong)hs.Length);
    GC.KeepAlive(m);
    return new WeftHandle(o, Frees.NDArrayList);
  }

  public void InitOptimizer(Optimizer opt) { weft_native.weft_module_init_optimizer(Handle, opt.Handle); }

  /// <summary>Trains through kv (shared: it may be disposed after); see KVStore.</summary>
  public void InitOptimizer(Optimizer opt, KVStore kv) {
    weft_native.weft_module_init_optimizer_kvstore(Handle, opt.Handle, kv.Handle);
  }

  public void Forward(DataIter iter, bool isTrain) {
    weft_native.weft_module_forward(Handle, iter.Handle, isTrain ? 1 : 0);
  }

  public void Backward() { weft_native.weft_module_backward(Handle); }

  public void Update() { weft_native.weft_module_update(Handle); }

  public void UpdateMetric(Metric metric, DataIter iter) {
    weft_native.weft_module_update_metric(Handle, metric.Handle, iter.Handle);
  }

  public Dictionary<string, NDArray> Outputs() {
    return NDArrayLists.Take(weft_native.weft_module_outputs(Handle));
  }

  public Dictionary<string, NDArray> ArgParams() {
    var o = new long[1];
    weft_native.weft_module_params(Handle, o, null);
    return NDArrayLists.Take(o[0]);
  }

  public Dictionary<string, NDArray> AuxParams() {
    var o = new long[1];
    weft_native.weft_module_params(Handle, null, o);
    return NDArrayLists.Take(o[0]);
  }

  /// <summary>Trains epochs [beginEpoch, numEpoch); returns the last epoch's samples per second.</summary>
  public double Fit(DataIter train, DataIter eval, Metric metric, int beginEpoch, int numEpoch,
                    Progress progress = Progress.Silent, string checkpointPrefix = null) {
    var sps = new double[1];
    weft_native.weft_module_fit(Handle, train.Handle, WeftHandle.Of(eval), metric.Handle,
                                beginEpoch, numEpoch, (int)progress, checkpointPrefix, sps);
    return sps[0];
  }

  public Dictionary<string, double> Score(DataIter iter, Metric metric) {
    weft_native.weft_module_score(Handle, iter.Handle, metric.Handle);
    return metric.Get();
  }

  public void SaveCheckpoint(string prefix, int epoch) {
    weft_native.weft_module_save_checkpoint(Handle, prefix, epoch);
  }
}

/// <summary>
/// A checkpoint ("PREFIX-symbol.json" + "PREFIX-EPOCH.params"): Save writes one,
/// Load reads one into an object owning the symbol and arrays (Dispose is idempotent).
/// </summary>
public sealed class Checkpoint : IDisposable {
  public Symbol Symbol { get; private set; }
  public Dictionary<string, NDArray> Args { get; private set; }
  public Dictionary<string, NDArray> Aux { get; private set; }

  public static void Save(string prefix, int epoch, Symbol sym, IDictionary<string, NDArray> args,
                          IDictionary<string, NDArray> aux) {
    Native.EnsureLoaded();
    var an = NDArrayLists.Names(args);
    var ah = NDArrayLists.Handles(args);
    var xn = NDArrayLists.Names(aux);
    var xh = NDArrayLists.Handles(aux);
    weft_native.weft_checkpoint_save(prefix, epoch, sym.Handle, (ulong)an.Length, an, ah,
                                     (ulong)xn.Length, xn, xh);
    GC.KeepAlive(args);
    GC.KeepAlive(aux);
  }

  public static Checkpoint Load(string prefix, int epoch) {
    Native.EnsureLoaded();
    long[] s = new long[1], a = new long[1], x = new long[1];
    weft_native.weft_checkpoint_load(prefix, epoch, s, a, x);
    var sym = new Symbol(s[0]);
    Dictionary<string, NDArray> args;
    try {
      args = NDArrayLists.Take(a[0]);
    } catch {
      sym.Dispose();
      new WeftHandle(x[0], Frees.NDArrayList).Dispose();
      throw;
    }
    try {
      return new Checkpoint { Symbol = sym, Args = args, Aux = NDArrayLists.Take(x[0]) };
    } catch {
      sym.Dispose();
      NDArray.DisposeAll(args);
      throw;
    }
  }

  public void Dispose() {
    Symbol.Dispose();
    NDArray.DisposeAll(Args);
    NDArray.DisposeAll(Aux);
  }
}

}
