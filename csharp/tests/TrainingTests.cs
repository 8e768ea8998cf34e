using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>Executor, training and checkpoint cases (same list in JUnit and go test).</summary>
[TestFixture]
public partial class TrainingTests : LiveHandleFixture {
  internal const string MlpJson = "{\"nodes\": [" +
      "{\"op\": \"null\", \"name\": \"data\", \"inputs\": []}," +
      "{\"op\": \"null\", \"name\": \"fc1_weight\", \"inputs\": []}," +
      "{\"op\": \"null\", \"name\": \"fc1_bias\", \"inputs\": []}," +
      "{\"op\": \"FullyConnected\", \"name\": \"fc1\", \"attrs\": {\"num_hidden\": \"16\"}," +
      " \"inputs\": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}," +
      "{\"op\": \"Activation\", \"name\": \"relu1\", \"attrs\": {\"act_type\": \"relu\"}, \"inputs\": [[3, 0, 0]]}," +
      "{\"op\": \"null\", \"name\": \"fc2_weight\", \"inputs\": []}," +
      "{\"op\": \"null\", \"name\": \"fc2_bias\", \"inputs\": []}," +
      "{\"op\": \"FullyConnected\", \"name\": \"fc2\", \"attrs\": {\"num_hidden\": \"4\"}," +
      " \"inputs\": [[4, 0, 0], [5, 0, 0], [6, 0, 0]]}," +
      "{\"op\": \"null\", \"name\": \"softmax_label\", \"inputs\": []}," +
      "{\"op\": \"SoftmaxOutput\", \"name\": \"softmax\", \"inputs\": [[7, 0, 0], [8, 0, 0]]}]," +
      "\"arg_nodes\": [0, 1, 2, 5, 6, 8], \"heads\": [[9, 0, 0]]}";
  internal const int N = 200;

  internal static void Blobs(float[] x, float[] y, int n, uint seed) {
    for (int i = 0; i < n; ++i) {
      int c = i % 4;
      seed = unchecked(seed * 1103515245u + 12345u);
      x[2 * i] = (((c & 1) != 0 ? 2f : -2f) + (float)((seed >> 16) % 1000) / 1000f) - 0.5f;
      seed = unchecked(seed * 1103515245u + 12345u);
      x[2 * i + 1] = (((c & 2) != 0 ? 2f : -2f) + (float)((seed >> 16) % 1000) / 1000f) - 0.5f;
      y[i] = c;
    }
  }

  internal static Symbol AbPlusC() {
    using (var a = Symbol.Variable("a"))
    using (var b = Symbol.Variable("b"))
    using (var c = Symbol.Variable("c"))
    using (var ab = Symbol.Create("elemwise_mul", "ab", null, a, b))
      return Symbol.Create("elemwise_add", "out", null, ab, c);
  }

  static Dictionary<string, long[]> Shapes(params long[] s) {
    return new Dictionary<string, long[]> { { "a", s }, { "b", s }, { "c", s } };
  }

  static void CheckAbPlusC(Executor ex, float k) {
    float[] a = { 1 + k, 2, -3, 4 }, b = { 5, -6 * k, 7, 0.5f }, c = { 0.25f, 1, 2 * k, -8 };
    float[] hg = { 1, 2, 3, 4 + k };
    var args = ex.ArgArrays();
    try {
      args["a"].CopyFrom(a);
      args["b"].CopyFrom(b);
      args["c"].CopyFrom(c);
    } finally { NDArray.DisposeAll(args); }
    ex.Forward(true);
    var outs = ex.Outputs();
    try {
      var o = outs[0].ToFloatArray();
      for (int i = 0; i < 4; ++i) Assert.AreEqual(a[i] * b[i] + c[i], o[i], "out[" + i + "]");
      using (var head = NDArray.FromArray(hg, 2, 2)) ex.Backward(head);
    } finally { NDArray.DisposeAll(outs); }
    var g = ex.GradArrays();
    try {
      float[] ga = g["a"].ToFloatArray(), gb = g["b"].ToFloatArray(), gc = g["c"].ToFloatArray();
      for (int i = 0; i < 4; ++i) {
        Assert.AreEqual(hg[i] * b[i], ga[i], "d/da");
        Assert.AreEqual(hg[i] * a[i], gb[i], "d/db");
        Assert.AreEqual(hg[i], gc[i], "d/dc");
      }
    } finally { NDArray.DisposeAll(g); }
  }

  // conformance: executor.simple_bind_known_numbers
  [Test]
  public void SimpleBindForwardBackwardKnownNumbers() {
    using (var f = AbPlusC())
    using (var ex = Executor.SimpleBind(f, Shapes(2, 2), "write")) {
      CheckAbPlusC(ex, 0);
      CheckAbPlusC(ex, 1);
      var m = ex.Memory();
      Assert.IsTrue(m.PlannedBytes > 0 && m.NaiveBytes >= m.PlannedBytes);
      StringAssert.Contains("elemwise_mul", ex.DebugString());
      using (var big = ex.Reshape(Shapes(3, 2), false, true)) {
        var args = big.ArgArrays();
        try { Assert.AreEqual(new long[] { 3, 2 }, args["a"].Shape); } finally { NDArray.DisposeAll(args); }
      }
      ex.Dispose();
      ex.Dispose();
      Assert.Throws<WeftException>(() => ex.Forward(false));
    }
  }

  static Dictionary<string, object> P(params object[] kv) {
    var d = new Dictionary<string, object>();
    for (int i = 0; i < kv.Length; i += 2) d[(string)kv[i]] = kv[i + 1];
    return d;
  }

  static void AssertClose(float[] want, float[] got, string what) {
    Assert.AreEqual(want.Length, got.Length, what + " length");
    for (int i = 0; i < want.Length; ++i) Assert.AreEqual(want[i], got[i], 1e-6, what + "[" + i + "]");
  }

  /// <summary>
  /// x (2,3) -> FullyConnected(2) -> relu -> FullyConnected(1), head gradient
  /// g = (1, -2). By hand: fc1 = x W1^T + b1 = [[-0.5, 2.25], [3, -1.25]],
  /// relu keeps (0, 2.25) and (3, 0); y = h W2^T + b2 = (-1.75, 6.5);
  /// dW2 = g^T h = (-6, 2.25), db2 = -1; dh = g W2 = [[2, -1], [-4, 2]] masked
  /// by relu to [[0, -1], [-4, 0]]; dW1 = dh^T x, db1 = column sums, dx = dh W1.
  /// </summary>
  // conformance: executor.mlp_forward_backward_numbers
  [Test]
  public void MlpForwardBackwardKnownNumbers() {
    using (var x = Symbol.Variable("x"))
    using (var fc1 = Symbol.Create("FullyConnected", "fc1", P("num_hidden", 2), x))
    using (var relu = Symbol.Create("Activation", "relu1", P("act_type", "relu"), fc1))
    using (var fc2 = Symbol.Create("FullyConnected", "fc2", P("num_hidden", 1), relu))
    using (var ex = Executor.SimpleBind(fc2, new Dictionary<string, long[]> { { "x", new long[] { 2, 3 } } }, "write")) {
      Assert.AreEqual(new[] { "x", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias" }, fc2.ListArguments().ToArray());
      var args = ex.ArgArrays();
      try {
        Assert.AreEqual(new long[] { 2, 3 }, args["fc1_weight"].Shape);
        Assert.AreEqual(new long[] { 1, 2 }, args["fc2_weight"].Shape);
        args["x"].CopyFrom(new float[] { 1, 2, -1, 0.5f, -1, 2 });
        args["fc1_weight"].CopyFrom(new float[] { 0.5f, -0.25f, 1, 1, 0.5f, -0.5f });
        args["fc1_bias"].CopyFrom(new float[] { 0.5f, -0.25f });
        args["fc2_weight"].CopyFrom(new float[] { 2, -1 });
        args["fc2_bias"].CopyFrom(new float[] { 0.5f });
      } finally { NDArray.DisposeAll(args); }
      ex.Forward(true);
      var outs = ex.Outputs();
      try {
        Assert.AreEqual(new long[] { 2, 1 }, outs[0].Shape);
        AssertClose(new[] { -1.75f, 6.5f }, outs[0].ToFloatArray(), "y");
        using (var head = NDArray.FromArray(new float[] { 1, -2 }, 2, 1)) ex.Backward(head);
      } finally { NDArray.DisposeAll(outs); }
      var g = ex.GradArrays();
      try {
        AssertClose(new[] { -6f, 2.25f }, g["fc2_weight"].ToFloatArray(), "d fc2_weight");
        AssertClose(new[] { -1f }, g["fc2_bias"].ToFloatArray(), "d fc2_bias");
        AssertClose(new[] { -2f, 4, -8, -1, -2, 1 }, g["fc1_weight"].ToFloatArray(), "d fc1_weight");
        AssertClose(new[] { -4f, -1 }, g["fc1_bias"].ToFloatArray(), "d fc1_bias");
        AssertClose(new[] { -1f, -0.5f, 0.5f, -2, 1, -4 }, g["x"].ToFloatArray(), "d x");
      } finally { NDArray.DisposeAll(g); }
    }
  }

  // conformance: executor.bind_to_existing_arrays
  [Test]
  public void BindToExistingArrays() {
    using (var f = AbPlusC())
    using (var a = NDArray.FromArray(new float[] { 1, 2 }, 2))
    using (var b = NDArray.FromArray(new float[] { 3, 4 }, 2))
    using (var c = NDArray.FromArray(new float[] { 5, 6 }, 2))
    using (var ga = NDArray.FromArray(new float[] { 0, 0 }, 2))
    using (var ex = Executor.Bind(f, new[] { a, b, c }, new[] { ga, null, null }, null, null)) {
      ex.Forward(true);
      var outs = ex.Outputs();
      try { Assert.AreEqual(new float[] { 8, 14 }, outs[0].ToFloatArray()); } finally { NDArray.DisposeAll(outs); }
      using (var hg = NDArray.FromArray(new float[] { 1, 1 }, 2)) ex.Backward(hg);
      Assert.AreEqual(new float[] { 3, 4 }, ga.ToFloatArray());
      var grads = ex.GradArrays();
      try { Assert.AreEqual(new[] { "a" }, grads.Keys.ToArray()); } finally { NDArray.DisposeAll(grads); }
    }
  }

  // conformance: executor.errors
  [Test]
  public void ExecutorErrors() {
    using (var f = AbPlusC()) {
      var e = Assert.Throws<WeftException>(() => Executor.SimpleBind(f, Shapes(2, 2), "sometimes"));
      Assert.AreEqual(ErrorCode.InvalidArgument, e.Code);
      StringAssert.Contains("sometimes", e.Message);
      var bad = Shapes(2, 2);
      bad["c"] = new long[] { 3, 3 };
      Assert.AreEqual(ErrorCode.Shape, Assert.Throws<WeftException>(() => Executor.SimpleBind(f, bad, null)).Code);
      using (var ex = Executor.SimpleBind(f, Shapes(2, 2), "write"))
        Assert.AreEqual(ErrorCode.InvalidArgument, Assert.Throws<WeftException>(() => ex.Backward()).Code);
    }
  }

  internal sealed class Trained : IDisposable {
    public readonly Symbol Sym = Symbol.FromJson(MlpJson);
    public readonly NDArray X, Y;
    public readonly DataIter Iter;
    public readonly Module Mod;

    public Trained(int epochs) : this(epochs, Context.Cpu()) {}

    public Trained(int epochs, Context ctx) : this(epochs, ctx, null) {}

    public Trained(int epochs, Context ctx, IList<string> fixedParams) {
      var xs = new float[2 * N];
      var ys = new float[N];
      Blobs(xs, ys, N, 7);
      X = NDArray.FromArray(xs, N, 2);
      Y = NDArray.FromArray(ys, N);
      Iter = DataIter.FromArrays(new Dictionary<string, NDArray> { { "data", X } },
                                 new Dictionary<string, NDArray> { { "softmax_label", Y } }, 16, true, "pad", 5);
      Mod = Module.Create(Sym, ctx, new[] { "data" }, new[] { "softmax_label" });
      if (fixedParams != null) Mod.SetFixedParams(fixedParams);
      Mod.Bind(Iter, true);
      using (var init = Initializer.Create("xavier", null, 3))
      using (var opt = Optimizer.Create("sgd", new Dictionary<string, object> { { "learning_rate", 0.1 }, { "momentum", 0.9 } }))
      using (var acc = Metric.Create("acc")) {
        Mod.InitParams(init);
        Mod.InitOptimizer(opt);
        if (epochs > 0) Assert.IsTrue(Mod.Fit(Iter, null, acc, 0, epochs) > 0);
      }
    }

    public void Dispose() {
      Mod.Dispose();
      Iter.Dispose();
      X.Dispose();
      Y.Dispose();
      Sym.Dispose();
    }
  }

  // conformance: training.mlp_to_fixed_accuracy
  [Test]
  public void TrainMlpToFixedAccuracy() {
    using (var t = new Trained(5))
    using (var acc = Metric.Create("acc")) {
      var v = t.Mod.Score(t.Iter, acc);
      Assert.GreaterOrEqual(v["accuracy"], 0.98);
      t.Iter.Reset();
      acc.Reset();
      while (t.Iter.Next()) {
        t.Mod.Forward(t.Iter, true);
        t.Mod.Backward();
        t.Mod.Update();
        t.Mod.UpdateMetric(acc, t.Iter);
      }
      Assert.GreaterOrEqual(acc.Value, 0.98);
      var outs = t.Mod.Outputs();
      try { Assert.AreEqual(new long[] { 16, 4 }, outs["softmax_output"].Shape); } finally { NDArray.DisposeAll(outs); }
      var p = t.Mod.ArgParams();
      try {
        Assert.AreEqual(new[] { "fc1_bias", "fc1_weight", "fc2_bias", "fc2_weight" }, p.Keys.ToArray());
      } finally { NDArray.DisposeAll(p); }
    }
  }

  // conformance: training.untrained_errors_reported
  [Test]
  public void UntrainedIsNotAccurateAndErrorsAreReported() {
    using (var t = new Trained(0))
    using (var acc = Metric.Create("acc")) {
      Assert.Less(t.Mod.Score(t.Iter, acc)["accuracy"], 0.9);
      Assert.AreEqual(ErrorCode.InvalidArgument, Assert.Throws<WeftException>(() => Metric.Create("nope")).Code);
      var e = Assert.Throws<WeftException>(() => Optimizer.Create("sgd", new Dictionary<string, object> { { "lr_typo", 1 } }));
      StringAssert.Contains("lr_typo", e.Message);
      e = Assert.Throws<WeftException>(() => t.Mod.Fit(t.Iter, null, acc, 0, 0));
      Assert.AreEqual(ErrorCode.InvalidArgument, e.Code);
      StringAssert.Contains("num_epoch", e.Message);
      e = Assert.Throws<WeftException>(() => Module.Create(t.Sym, new[] { "no_such_input" }, new string[0]));
      StringAssert.Contains("no_such_input", e.Message);
    }
  }

  // conformance: training.optimizer_initializer_metric
  [Test]
  public void OptimizerInitializerMetricKnownNumbers() {
    using (var sgd = Optimizer.Create("sgd", new Dictionary<string, object> { { "learning_rate", 0.1 } }))
    using (var w = NDArray.FromArray(new float[] { 1, 2 }, 2))
    using (var g = NDArray.FromArray(new float[] { 0.5f, -1 }, 2))
    using (var c = Initializer.Create("constant", new Dictionary<string, object> { { "value", 3 } }, 1))
    using (var p = NDArray.Create(DType.Float32, 2, 2))
    using (var acc = Metric.Create("acc"))
    using (var label = NDArray.FromArray(new float[] { 0, 1 }, 2))
    using (var pred = NDArray.FromArray(new float[] { 0.9f, 0.1f, 0.8f, 0.2f }, 2, 2)) {
      sgd.Update(0, "w", w, g);  // w - lr * g
      var wv = w.ToFloatArray();
      Assert.AreEqual(0.95f, wv[0], 1e-6);
      Assert.AreEqual(2.1f, wv[1], 1e-6);
      Assert.AreEqual(1, sgd.NumUpdate);
      Assert.AreEqual(0.1f, sgd.LearningRate("w"), 1e-7);
      c.Init("x_weight", p);
      Assert.AreEqual(new float[] { 3, 3, 3, 3 }, p.ToFloatArray());
      c.Init("x_bias", p);
      Assert.AreEqual(new float[] { 0, 0, 0, 0 }, p.ToFloatArray());
      acc.Update(new[] { label }, new[] { pred });
      Assert.AreEqual(0.5, acc.Get()["accuracy"]);
      using (var label3 = NDArray.FromArray(new float[] { 0, 1, 1 }, 3))
        Assert.AreEqual(ErrorCode.Shape, Assert.Throws<WeftException>(() => acc.Update(new[] { label3 }, new[] { pred })).Code);
    }
  }

  // conformance: training.params_and_checkpoint
  [Test]
  public void ParamsFileAndCheckpointRoundTrip() {
    var dir = Path.Combine(Path.GetTempPath(), "weft-cs-" + Guid.NewGuid().ToString("N"));
    Directory.CreateDirectory(dir);
    try {
      using (var t = new Trained(2)) {
        var prefix = Path.Combine(dir, "mlp");
        t.Mod.SaveCheckpoint(prefix, 2);
        var p = t.Mod.ArgParams();
        try {
          using (var ck = Checkpoint.Load(prefix, 2)) {
            Assert.AreEqual(p.Keys.ToArray(), ck.Args.Keys.ToArray());
            foreach (var k in p.Keys) Assert.AreEqual(p[k].ToFloatArray(), ck.Args[k].ToFloatArray(), k);
            Checkpoint.Save(Path.Combine(dir, "again"), 0, ck.Symbol, ck.Args, ck.Aux);
            var loaded = NDArray.Load(Path.Combine(dir, "again-0000.params"));
            try { Assert.IsTrue(loaded.ContainsKey("arg:fc1_weight")); } finally { NDArray.DisposeAll(loaded); }
          }
        } finally { NDArray.DisposeAll(p); }
        Assert.AreEqual(ErrorCode.IO, Assert.Throws<WeftException>(() => Checkpoint.Load(prefix, 9)).Code);
      }
    } finally { Directory.Delete(dir, true); }
  }

  // conformance: executor.concurrent_separate_executors
  [Test]
  public void ConcurrentSeparateExecutors() {
    Exception failure = null;
    var threads = new List<Thread>();
    for (int t = 0; t < 4; ++t) {
      float k = t;
      threads.Add(new Thread(() => {
        try {
          using (var f = AbPlusC())
          using (var ex = Executor.SimpleBind(f, Shapes(2, 2), "write"))
            for (int i = 0; i < 50; ++i) CheckAbPlusC(ex, k + i);
        } catch (Exception e) {
          Interlocked.CompareExchange(ref failure, e, null);
        }
      }));
    }
    foreach (var th in threads) th.Start();
    foreach (var th in threads) th.Join();
    if (failure != null) throw new Exception("a thread failed", failure);
  }

  /// <summary>
  /// Reads the checkpoint the Java suite wrote into WEFT_XLANG_DIR (CTest
  /// fixture) and checks bit-identical outputs on the same input.
  /// </summary>
  // conformance: training.cross_language_checkpoint
  [Test, Category("xlang")]
  public void ReadJavaCheckpointGivesIdenticalOutputs() {
    var dir = Environment.GetEnvironmentVariable("WEFT_XLANG_DIR");
    Assert.IsNotNull(dir, "WEFT_XLANG_DIR is not set (run through ctest)");
    var expected = NDArray.Load(Path.Combine(dir, "expected.params"));
    try {
      using (var ck = Checkpoint.Load(Path.Combine(dir, "mlp"), 1))
      using (var label = NDArray.Create(DType.Float32, 8))
      using (var it = DataIter.FromArrays(new Dictionary<string, NDArray> { { "data", expected["input"] } },
                                          new Dictionary<string, NDArray> { { "softmax_label", label } }, 8))
      using (var m = Module.Create(ck.Symbol)) {
        m.Bind(it, false);
        m.InitParams(null, ck.Args, ck.Aux);
        Assert.IsTrue(it.Next());
        m.Forward(it, false);
        var outs = m.Outputs();
        try {
          var got = outs["softmax_output"].ToFloatArray();
          var want = expected["output"].ToFloatArray();
          Assert.AreEqual(32, want.Length);
          // Same library, same input, same parameters: bit-identical outputs.
          for (int i = 0; i < want.Length; ++i) Assert.AreEqual(want[i], got[i], "output[" + i + "]");
        } finally { NDArray.DisposeAll(outs); }
      }
    } finally { NDArray.DisposeAll(expected); }
  }
}

}
