using System;
using System.Collections.Generic;
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
  const int Rounds = 200;

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
    try {
      for (int i = 0; i < Rounds; ++i) body(i);
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

  /// <summary>A disposed object and a disposed handle in an array argument give
  /// InvalidHandle (never a crash or a spurious success); Dispose is idempotent.</summary>
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
