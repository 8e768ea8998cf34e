using System;
using System.Collections.Generic;
using System.Threading;

namespace Weft {

/// <summary>
/// Imperative gradients with MXNet's semantics (mxnet.autograd): while the current thread
/// records, every Ops call on it is recorded; Backward differentiates what the heads were
/// computed from and writes (or adds) into the gradient buffers of the arrays marked with
/// MarkVariables or NDArray.AttachGrad.
/// The recording and training flags belong to the calling thread (as in MXNet): a Record
/// scope on one thread records nothing on another, and two threads may record two independent
/// graphs at once. Dispose a scope on the thread that opened it (a using block does).
/// <code>
/// x.AttachGrad();
/// NDArray y;
/// using (Autograd.Record()) y = Ops.Call("elemwise_mul", null, x, x);
/// y.Backward();
/// using (var g = x.Grad()) { ... }   // [2, 4, 6]
/// </code>
/// </summary>
public static class Autograd {
  /// <summary>Sets the thread's flags until disposed, then restores both (idempotent).</summary>
  sealed class Scope : IDisposable {
    readonly Thread owner = Thread.CurrentThread;
    readonly bool prevRecording, prevTraining;
    bool disposed;

    internal Scope(bool recording, bool training) {
      prevRecording = SetRecording(recording);
      try {
        prevTraining = SetTraining(training);
      } catch {
        SetRecording(prevRecording);
        throw;
      }
    }

    public void Dispose() {
      if (disposed) return;
      if (Thread.CurrentThread != owner)
        throw new InvalidOperationException(string.Format(
            "Autograd scope opened on thread {0} disposed on thread {1}: the autograd flags are per thread",
            owner.ManagedThreadId, Thread.CurrentThread.ManagedThreadId));
      disposed = true;
      SetTraining(prevTraining);
      SetRecording(prevRecording);
    }
  }

  /// <summary>Records (training flag = trainMode) until disposed: using (Autograd.Record()) {...}.</summary>
  public static IDisposable Record(bool trainMode = true) { return new Scope(true, trainMode); }

  /// <summary>Stops recording (training flag = trainMode) until disposed (MXNet's autograd.pause()).</summary>
  public static IDisposable Pause(bool trainMode = false) { return new Scope(false, trainMode); }

  /// <summary>Whether the calling thread records.</summary>
  public static bool IsRecording {
    get {
      Native.EnsureLoaded();
      return weft_native.weft_autograd_is_recording() != 0;
    }
  }

  /// <summary>Whether ops run in training mode on the calling thread (Dropout, BatchNorm).</summary>
  public static bool IsTraining {
    get {
      Native.EnsureLoaded();
      return weft_native.weft_autograd_is_training() != 0;
    }
  }

  /// <summary>Sets whether the calling thread records; returns the previous setting.</summary>
  public static bool SetRecording(bool on) {
    Native.EnsureLoaded();
    var prev = new int[1];
    weft_native.weft_autograd_set_is_recording(on ? 1 : 0, prev);
    return prev[0] != 0;
  }

  /// <summary>Sets whether ops run in training mode on the calling thread; returns the previous setting.</summary>
  public static bool SetTraining(bool on) {
    Native.EnsureLoaded();
    var prev = new int[1];
    weft_native.weft_autograd_set_is_training(on ? 1 : 0, prev);
    return prev[0] != 0;
  }

  /// <summary>
  /// Marks vars as variables with gradient buffers grads (each of its variable's shape, dtype and
  /// device; null where the request is GradReq.Null) and one request per variable (reqs null:
  /// all Write). Each variable keeps a reference to its buffer: disposing the buffer afterwards
  /// is fine.
  /// </summary>
  public static void MarkVariables(IList<NDArray> vars, IList<GradReq> reqs, IList<NDArray> grads) {
    Native.EnsureLoaded();
    var v = ToArray(vars);
    var hv = NativeHandle.Handles(v);
    if (reqs != null) CheckCount("MarkVariables", "reqs", reqs.Count, "variable", hv.Length);
    var r = new int[hv.Length];
    for (int i = 0; i < r.Length; ++i) r[i] = (int)(reqs == null ? GradReq.Write : reqs[i]);
    var g = Optional("MarkVariables", "grads", grads, "variable", hv.Length);
    weft_native.weft_autograd_mark_variables(hv, (ulong)hv.Length, r, g == null ? null : NativeHandle.Handles(g));
    GC.KeepAlive(v);
    GC.KeepAlive(g);
  }

  /// <summary>Back-propagates from heads (ones as their gradients) into the variables' buffers.</summary>
  public static void Backward(params NDArray[] heads) { Backward(heads, null); }

  /// <summary>
  /// Back-propagates from heads with head gradients headGrads (null, or one per head, a null
  /// entry meaning ones). Unless retainGraph, the recorded values are freed and a second
  /// Backward over them fails; trainMode runs the gradient ops in training mode.
  /// </summary>
  public static void Backward(IList<NDArray> heads, IList<NDArray> headGrads, bool retainGraph = false,
                              bool trainMode = true) {
    Native.EnsureLoaded();
    var h = ToArray(heads);
    var hh = NativeHandle.Handles(h);
    var hg = Optional("Backward", "headGrads", headGrads, "head", hh.Length);
    weft_native.weft_autograd_backward(hh, (ulong)hh.Length, hg == null ? null : NativeHandle.Handles(hg),
                                       retainGraph ? 1 : 0, trainMode ? 1 : 0);
    GC.KeepAlive(h);
    GC.KeepAlive(hg);
  }

  /// <summary>
  /// The gradients of heads with respect to marked variables as new arrays (dispose them),
  /// leaving the gradient buffers alone; the other arguments as in Backward. createGraph records
  /// the gradient computation too (keeping the graph), so the gradients can be differentiated
  /// again where the gradient ops have gradients (NotImplemented through a recorded CachedOp).
  /// </summary>
  public static NDArray[] Grad(IList<NDArray> heads, IList<NDArray> variables, IList<NDArray> headGrads = null,
                               bool retainGraph = false, bool trainMode = true, bool createGraph = false) {
    Native.EnsureLoaded();
    var h = ToArray(heads);
    var v = ToArray(variables);
    var hh = NativeHandle.Handles(h);
    var hv = NativeHandle.Handles(v);
    var hg = Optional("Grad", "headGrads", headGrads, "head", hh.Length);
    var outs = new long[hv.Length];
    weft_native.weft_autograd_grad_ex(hh, (ulong)hh.Length, hg == null ? null : NativeHandle.Handles(hg), hv,
                                      (ulong)hv.Length, retainGraph ? 1 : 0, createGraph ? 1 : 0,
                                      trainMode ? 1 : 0, outs);
    GC.KeepAlive(h);
    GC.KeepAlive(v);
    GC.KeepAlive(hg);
    var result = new NDArray[outs.Length];
    for (int i = 0; i < outs.Length; ++i) result[i] = new NDArray(outs[i]);
    return result;
  }

  /// <summary>The recorded graph that computed array, as a new symbol.</summary>
  public static Symbol GetSymbol(NDArray array) {
    return new Symbol(weft_native.weft_autograd_get_symbol(array.Handle));
  }

  static NDArray[] ToArray(IList<NDArray> list) {
    if (list == null) return new NDArray[0];
    var a = new NDArray[list.Count];
    list.CopyTo(a, 0);
    return a;
  }

  /// <summary>A list that may be null and hold nulls; when given, one per `per`.</summary>
  static NDArray[] Optional(string fn, string arg, IList<NDArray> list, string per, int count) {
    if (list == null) return null;
    CheckCount(fn, arg, list.Count, per, count);
    return ToArray(list);
  }

  static void CheckCount(string fn, string arg, int n, string per, int count) {
    if (n != count)
      throw new WeftException(ErrorCode.InvalidArgument, string.Format(
          "Autograd.{0}: {1} has {2} entries, expected one per {3} ({4})", fn, arg, n, per, count));
  }
}

public sealed partial class NDArray {
  /// <summary>
  /// Gives this array a zeroed gradient buffer (same shape, dtype and device) and marks it as an
  /// autograd variable with request req (MXNet's attach_grad()).
  /// </summary>
  public void AttachGrad(GradReq req = GradReq.Write) {
    bool recording = Autograd.SetRecording(false);  // the zeros are not recorded
    NDArray g;
    try {
      g = Ops.Call("zeros_like", null, this);
    } finally {
      Autograd.SetRecording(recording);
    }
    using (g) Autograd.MarkVariables(new[] { this }, new[] { req }, new[] { g });
  }

  /// <summary>The gradient buffer as a new array sharing it (dispose it), or null when not marked.</summary>
  public NDArray Grad() {
    long g = weft_native.weft_ndarray_get_grad(Handle);
    return g == 0 ? null : new NDArray(g);
  }

  /// <summary>A new array on this array's storage without its autograd record: gradients stop there.</summary>
  public NDArray Detach() { return new NDArray(weft_native.weft_ndarray_detach(Handle)); }

  /// <summary>Autograd.Backward from this array alone.</summary>
  public void Backward(NDArray headGrad = null, bool retainGraph = false, bool trainMode = true) {
    Autograd.Backward(new[] { this }, headGrad == null ? null : new[] { headGrad }, retainGraph, trainMode);
  }
}

}
