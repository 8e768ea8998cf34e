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

  // conformance: kvstore.updater_runs_on_push
  [Test]
  public void UpdaterRunsOnPush() {
    using (var kv = KVStore.Create("local"))
    using (var w = NDArray.FromArray(new float[] { 1, 2 }, 2))
    using (var g1 = NDArray.FromArray(new float[] { 1, 3 }, 2))
    using (var g2 = NDArray.FromArray(new float[] { 3, 1 }, 2))
    using (var o = NDArray.FromArray(new float[] { 0, 0 }, 2)) {
      var calls = new List<string>();
      kv.Init(new[] { "w" }, new[] { w });
      kv.SetUpdater((key, sum, stored) => {  // stored -= 0.5 * sum
        calls.Add(key);
        Ops.InvokeInto("sgd_update", new Dictionary<string, object> { { "lr", 0.5 } }, new[] { stored, sum }, stored);
      });
      kv.Push(new[] { "w", "w" }, new[] { g1, g2 });
      kv.Pull(new[] { "w" }, new[] { o });
      Assert.AreEqual(new float[] { -1, 0 }, o.ToFloatArray());
      kv.PushPull(new[] { "w" }, new[] { g1 }, new[] { o });
      Assert.AreEqual(new float[] { -1.5f, -1.5f }, o.ToFloatArray());
      Assert.AreEqual(new[] { "w", "w" }, calls.ToArray());
      kv.SetUpdater((key, sum, stored) => { throw new InvalidOperationException("updater failed for " + key); });
      var e = Assert.Throws<InvalidOperationException>(() => kv.Push(new[] { "w" }, new[] { g1 }));
      Assert.AreEqual("updater failed for w", e.Message);
      kv.SetUpdater(null);  // plain sums again
      kv.PushPull(new[] { "w" }, new[] { g2 }, new[] { o });
      Assert.AreEqual(new float[] { 3, 1 }, o.ToFloatArray());
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
