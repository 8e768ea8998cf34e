using System;
using System.Collections.Generic;
using System.Linq;

namespace Weft {

/// <summary>
/// An optimizer stepped over named parameters for autograd training (Gluon's Trainer; owned
/// handle). Every parameter must already have a gradient buffer (NDArray.AttachGrad or
/// Autograd.MarkVariables); Step updates each from its buffer with gradients scaled by
/// 1 / batch size. The optimizer is shared: its states and update counts live in it, and it may
/// be disposed after Create.
/// <code>
/// using (var trainer = Trainer.Create(parameters, Optimizer.Create("sgd", ...)))
///   for (...) {
///     NDArray loss;
///     using (Autograd.Record()) loss = Forward(x, y);
///     using (loss) loss.Backward();
///     trainer.Step(batchSize);
///   }
/// </code>
/// </summary>
public sealed class Trainer : NativeHandle {
  Trainer(long h) : base(h, Frees.Trainer) {}

  /// <summary>A trainer of parameters in enumeration order (the optimizer's per-parameter index).</summary>
  public static Trainer Create(IEnumerable<KeyValuePair<string, NDArray>> parameters, Optimizer optimizer) {
    Native.EnsureLoaded();
    var list = parameters.ToList();
    var names = list.Select(p => p.Key).ToArray();
    var hs = Handles(list.Select(p => p.Value).ToArray());
    var t = new Trainer(weft_native.weft_trainer_create(names, hs, (ulong)hs.Length, optimizer.Handle));
    GC.KeepAlive(list);
    return t;
  }

  /// <summary>One update of every parameter from its gradient buffer (asynchronous, like every op).</summary>
  public void Step(int batchSize) { weft_native.weft_trainer_step(Handle, batchSize); }
}

/// <summary>
/// A symbol invoked imperatively on arrays (MXNet's CachedOp; owned handle): it binds and plans
/// memory once per input-shape signature and, while the thread records (Autograd.Record), is one
/// node on the tape, so Backward reaches its inputs' gradient buffers. A Gluon export's symbol
/// and parameters invoked through a cached op is Gluon's SymbolBlock.imports.
/// </summary>
public sealed class CachedOp : NativeHandle {
  CachedOp(long h) : base(h, Frees.CachedOp) {}

  readonly Monitors.Slot monitor = new Monitors.Slot();

  /// <summary>Sets (null removes) a monitor callback on the executors the op
  /// runs, called on the invoking thread (nothing is reported for calls
  /// inlined node by node while recording); see MonitorCallback.</summary>
  public void SetMonitorCallback(MonitorCallback callback, bool monitorAll = false) {
    var h = Handle;
    monitor.Set(callback, (d, id) => weft_native.weft_cached_op_set_monitor_callback(h, d, id, monitorAll ? 1 : 0));
  }

  internal override void Disposed() { monitor.Clear(); }

  /// <summary>A cached op of sym with MXNet's flags (static_alloc, static_shape, data_indices, ...; null: none).</summary>
  public static CachedOp Create(Symbol sym, IDictionary<string, object> flags = null) {
    Native.EnsureLoaded();
    string[] keys, vals;
    Ops.Params(flags, out keys, out vals);
    return new CachedOp(weft_native.weft_cached_op_create(sym.Handle, (ulong)keys.Length, keys, vals));
  }

  /// <summary>The inputs Invoke takes, in order: every variable of the symbol.</summary>
  public IList<string> Inputs { get { return Symbol.Take(weft_native.weft_cached_op_list_inputs(Handle)); } }

  /// <summary>
  /// Runs the op; returns its new outputs (the caller disposes them). With static_alloc they
  /// share the op's arrays, which the next call of the same shapes overwrites.
  /// </summary>
  public NDArray[] Invoke(params NDArray[] inputs) {
    var ins = Handles(inputs);
    var outs = new long[64];
    var n = new ulong[1];
    weft_native.weft_cached_op_invoke(Handle, ins, (ulong)ins.Length, outs, (ulong)outs.Length, n);
    GC.KeepAlive(inputs);
    var result = new NDArray[n[0]];
    for (int i = 0; i < result.Length; ++i) result[i] = new NDArray(outs[i]);
    return result;
  }
}

}
