using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>
/// Handle lifetimes under garbage collection: objects that become unreachable
/// while one of their calls runs are not freed under the call (SafeHandle
/// references held by the marshaller, GC.KeepAlive for handle arrays), and
/// every handle is freed exactly once, by Dispose or by the GC.
/// </summary>
[TestFixture]
public class HandleLifetimeTests {
  const int Rounds = 100;

  /// <summary>Runs body Rounds times while another thread collects garbage
  /// and runs finalizers in a loop; rethrows the first failure.</summary>
  static void WithCollector(Action<int> body) {
    int stop = 0;
    long collections = 0;
    var collector = new Thread(() => {
      while (Volatile.Read(ref stop) == 0) {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        Interlocked.Increment(ref collections);
      }
    });
    collector.IsBackground = true;
    collector.Start();
    // The calls run on a thread that ends before the checks, so no stale
    // slot of its stack keeps a temporary alive for Mono's conservative GC.
    Exception failure = null;
    var caller = new Thread(() => {
      try {
        for (int i = 0; i < Rounds; ++i) body(i);
      } catch (Exception e) {
        failure = e;
      }
    });
    try {
      caller.Start();
      caller.Join();
      if (failure != null) throw failure;
    } finally {
      Volatile.Write(ref stop, 1);
      collector.Join();
    }
    Assert.Greater(Interlocked.Read(ref collections), 0, "the collector thread never ran");
  }

  static void CollectAll() {
    for (int i = 0; i < 3; ++i) {
      GC.Collect();
      GC.WaitForPendingFinalizers();
    }
  }

  static NDArray Vec(params float[] v) { return NDArray.FromArray(v, v.Length); }

  /// <summary>Temporaries never disposed: only the running call keeps each
  /// one alive. No call may fail, and the GC frees them all afterwards.</summary>
  // conformance: handles.csharp_gc_during_calls
  [Test]
  public void UndisposedTemporariesSurviveCollectionDuringCalls() {
    CollectAll();
    long before = Library.LiveHandleCount;
    WithCollector(i => {
      Assert.AreEqual(new long[] { 3 }, Vec(1, 2, 3).Shape);
      Assert.AreEqual(DType.Float32, Vec(i).DType);
      Assert.AreEqual(new float[] { i, i }, Vec(i, i).Reshape(2, 1).ToFloatArray());
      Assert.AreEqual(new[] { "x" }, Symbol.Variable("x").ListArguments());
      // Handle arrays: the inputs exist only in the params array.
      var sum = Ops.Call("elemwise_add", null, Vec(i, 1), Vec(1, i));
      Assert.AreEqual(new float[] { i + 1, i + 1 }, sum.ToFloatArray());
      Ops.InvokeInto("elemwise_mul", null, new[] { Vec(2, 3), Vec(i, i) }, sum);
      Assert.AreEqual(new float[] { 2 * i, 3 * i }, sum.ToFloatArray());
      var back = NDArray.Load(NDArray.SaveToBytes(new Dictionary<string, NDArray> { { "a", Vec(i) } }));
      Assert.AreEqual(new float[] { i }, back["a"].ToFloatArray());
      Assert.AreEqual(new float[] { i }, NDArray.LoadNpy(Vec(i).ToNpyBytes()).ToFloatArray());
    });
    CollectAll();
    Assert.AreEqual(before, Library.LiveHandleCount, "handles left after the GC freed the temporaries");
  }

  /// <summary>The same calls with every object disposed: the live-handle count
  /// returns to its start without the GC's help, while the GC runs throughout.</summary>
  // conformance: handles.csharp_gc_during_calls
  [Test]
  public void DisposedObjectsFreeEveryHandleUnderCollection() {
    CollectAll();
    long before = Library.LiveHandleCount;
    WithCollector(i => {
      using (var a = Vec(i, 1))
      using (var b = Vec(1, i))
      using (var sum = Ops.Call("elemwise_add", null, a, b))
      using (var x = Symbol.Variable("x"))
      using (var y = Symbol.Create("FullyConnected", "fc", new Dictionary<string, object> { { "num_hidden", 2 } }, x)) {
        Assert.AreEqual(new float[] { i + 1, i + 1 }, sum.ToFloatArray());
        Assert.AreEqual(3, y.ListArguments().Count);
        Assert.AreEqual(before + 5, Library.LiveHandleCount);
      }
      Assert.AreEqual(before, Library.LiveHandleCount);
    });
    Assert.AreEqual(before, Library.LiveHandleCount);
  }

  [MethodImpl(MethodImplOptions.NoInlining)]
  static WeftHandle HeldHandleOfUnreachableArray() {
    var h = Vec(5, 6).Handle;
    bool added = false;
    h.DangerousAddRef(ref added);  // what the marshaller does for a call's duration
    Assert.IsTrue(added);
    return h;
  }

  /// <summary>
  /// The property the GC stress above relies on, checked deterministically
  /// (Mono scans stacks conservatively, so a stress test alone rarely sees an
  /// owner die mid-call): a handle referenced by a running call is freed
  /// neither by Dispose nor when its owner is collected, and is freed once
  /// when the last reference goes.
  /// </summary>
  // conformance: handles.csharp_gc_during_calls
  [Test]
  public void AHandleHeldByACallIsFreedOnlyAfterTheCall() {
    CollectAll();
    long before = Library.LiveHandleCount;
    var a = Vec(1, 2);
    var h = a.Handle;
    bool added = false;
    h.DangerousAddRef(ref added);
    a.Dispose();
    Assert.IsTrue(a.IsDisposed);
    Assert.AreEqual(before + 1, Library.LiveHandleCount, "freed under a running call");
    var e = Assert.Throws<WeftException>(() => { var s = a.Shape; });
    Assert.AreEqual(ErrorCode.InvalidHandle, e.Code);
    h.DangerousRelease();
    Assert.AreEqual(before, Library.LiveHandleCount, "not freed when the call returned");

    // The owner becomes unreachable (collected) while a call holds its handle.
    var held = HeldHandleOfUnreachableArray();
    CollectAll();
    Assert.AreEqual(before + 1, Library.LiveHandleCount, "freed by the GC under a running call");
    var shape = new long[1];
    weft_native.weft_ndarray_shape(held, shape, 1);  // the call can still use it
    Assert.AreEqual(2, shape[0]);
    held.DangerousRelease();
    Assert.AreEqual(before + 1, Library.LiveHandleCount);
    held.Dispose();  // (its finalizer would do the same; Mono's conservative GC may keep it longer)
    Assert.AreEqual(before, Library.LiveHandleCount, "not freed once after the owner was collected");
  }

  /// <summary>A disposed object and a disposed handle in an array argument give
  /// InvalidHandle (never a crash or a spurious success); Dispose is idempotent.</summary>
  // conformance: ndarray.closed_argument_invalid_handle
  [Test]
  public void DisposedHandlesGiveInvalidHandle() {
    long before = Library.LiveHandleCount;
    var a = Vec(1, 2);
    var b = Vec(3, 4);
    b.Dispose();
    b.Dispose();
    Assert.IsTrue(b.IsDisposed);
    var e = Assert.Throws<WeftException>(() => { var s = b.Shape; });
    Assert.AreEqual(ErrorCode.InvalidHandle, e.Code);
    StringAssert.Contains("NDArray is disposed", e.Message);
    e = Assert.Throws<WeftException>(() => Ops.Call("elemwise_add", null, a, b));
    Assert.AreEqual(ErrorCode.InvalidHandle, e.Code);
    a.Dispose();
    Assert.AreEqual(before, Library.LiveHandleCount);
  }
}

}
