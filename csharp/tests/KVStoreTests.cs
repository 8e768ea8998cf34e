using System;
using System.Collections.Generic;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>KVStore through the binding (the same cases in JUnit and go test).</summary>
[TestFixture]
public class KVStoreTests : LiveHandleFixture {
  // conformance: kvstore.push_sums_and_pull_copies
  [Test]
  public void PushSumsRepeatedKeysAndPullCopies() {
    using (var kv = KVStore.Create("local"))
    using (var w = NDArray.FromArray(new float[] { 1, 2, 3 }, 3))
    using (var a = NDArray.FromArray(new float[] { 0.5f, -1, 4 }, 3))
    using (var b = NDArray.FromArray(new float[] { 10, 20, 30 }, 3))
    using (var output = NDArray.FromArray(new float[] { 0, 0, 0 }, 3)) {
      Assert.AreEqual("local", kv.Type);
      Assert.AreEqual(0, kv.Rank);
      Assert.AreEqual(1, kv.NumWorkers);
      kv.Init(new[] { "w" }, new[] { w });
      kv.Push(new[] { "w", "w" }, new[] { a, b });
      kv.Pull(new[] { "w" }, new[] { output });
      CollectionAssert.AreEqual(new float[] { 10.5f, 19, 34 }, output.ToFloatArray());
      kv.Barrier();
    }
  }

  // conformance: kvstore.optimizer_runs_on_push
  [Test]
  public void OptimizerRunsOnPush() {
    using (var kv = KVStore.Create("device"))
    using (var opt = Optimizer.Create("sgd", new Dictionary<string, object> { { "learning_rate", 0.1 } }))
    using (var w = NDArray.FromArray(new float[] { 1, -1 }, 2))
    using (var g = NDArray.FromArray(new float[] { 0.5f, 2 }, 2)) {
      kv.SetOptimizer(opt);
      kv.Init(new[] { "fc_weight" }, new[] { w });
      kv.PushPull(new[] { "fc_weight" }, new[] { g }, new[] { w });
      var got = w.ToFloatArray();
      Assert.AreEqual(1 - 0.1f * 0.5f, got[0], 1e-6);
      Assert.AreEqual(-1 - 0.1f * 2, got[1], 1e-6);
    }
  }

  // conformance: kvstore.errors_name_the_key
  [Test]
  public void ErrorsNameTheKey() {
    var e = Assert.Throws<WeftException>(() => KVStore.Create("ps"));
    Assert.AreEqual(ErrorCode.InvalidArgument, e.Code);
    using (var kv = KVStore.Create("local"))
    using (var w = NDArray.FromArray(new float[] { 1, 2 }, 2))
    using (var big = NDArray.FromArray(new float[] { 1, 2, 3 }, 3)) {
      e = Assert.Throws<WeftException>(() => kv.Push(new[] { "w" }, new[] { w }));
      StringAssert.Contains("'w'", e.Message);
      kv.Init(new[] { "w" }, new[] { w });
      e = Assert.Throws<WeftException>(() => kv.Pull(new[] { "w" }, new[] { big }));
      Assert.AreEqual(ErrorCode.Shape, e.Code);
      kv.Dispose();
      e = Assert.Throws<WeftException>(() => kv.Barrier());
      Assert.AreEqual(ErrorCode.InvalidHandle, e.Code);
    }
  }
}

}  // namespace Weft.Tests
