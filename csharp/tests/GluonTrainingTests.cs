using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>
/// Gluon-style training (issue 43): autograd + Trainer against Module on Fashion-MNIST, Fit's
/// callbacks (progress and early stop), and cached ops (the same cases in JUnit and go test).
/// </summary>
[TestFixture]
public class GluonTrainingTests : LiveHandleFixture {
  const string Fm = "/usr/share/datasets/fashion-mnist";
  const int BatchSize = 64, Steps = 8;
  static readonly string[] Params = { "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias" };

  static Dictionary<string, object> Sgd() {
    return new Dictionary<string, object> { { "learning_rate", 0.1 }, { "momentum", 0.9 }, { "wd", 0.001 } };
  }

  static Dictionary<string, object> P(string key, object value) {
    return new Dictionary<string, object> { { key, value } };
  }

  static float MaxDiff(NDArray a, NDArray b) {
    var x = a.ToFloatArray();
    var y = b.ToFloatArray();
    float d = 0;
    for (int i = 0; i < x.Length; ++i) d = Math.Max(d, Math.Abs(x[i] - y[i]));
    return d;
  }

  /// <summary>Copies of the module's parameters in Params order.</summary>
  static List<KeyValuePair<string, NDArray>> Copies(Module mod) {
    var ps = mod.ArgParams();
    try {
      return Params.Select(n => new KeyValuePair<string, NDArray>(n, Ops.Call("_copy", null, ps[n]))).ToList();
    } finally {
      NDArray.DisposeAll(ps);
    }
  }

  static void DisposeAll(List<KeyValuePair<string, NDArray>> l) {
    foreach (var kv in l) kv.Value.Dispose();
  }

  /// <summary>One recorded forward and backward of the MLP on rows [b*BatchSize, (b+1)*BatchSize).</summary>
  static void AutogradBatch(Mnist m, List<KeyValuePair<string, NDArray>> p, int b) {
    NDArray loss;
    using (var x = m.Images.Slice(b * BatchSize, (b + 1) * BatchSize))
    using (var y = m.Labels.Slice(b * BatchSize, (b + 1) * BatchSize)) {
      using (Autograd.Record())
      using (var h = Ops.Call("FullyConnected", P("num_hidden", 16), x, p[0].Value, p[1].Value))
      using (var r = Ops.Call("Activation", P("act_type", "relu"), h))
      using (var o = Ops.Call("FullyConnected", P("num_hidden", 10), r, p[2].Value, p[3].Value))
        loss = Ops.Call("SoftmaxOutput", null, o, y);
      using (loss) loss.Backward();
    }
  }

  // conformance: training.autograd_trainer_matches_module
  [Test]
  public void AutogradTrainerMatchesModule() {
    if (!File.Exists(Fm + "/t10k-labels-idx1-ubyte.gz")) Assert.Ignore("Fashion-MNIST not installed");
    var json = TrainingTests.MlpJson.Replace("\"num_hidden\": \"4\"", "\"num_hidden\": \"10\"");
    using (var all = Mnist.LoadSet(Fm, "t10k"))
    using (var m = all.Slice(0, Steps * BatchSize))
    using (var sym = Symbol.FromJson(json))
    using (var iter = DataIter.FromArrays(new Dictionary<string, NDArray> { { "data", m.Images } },
                                          new Dictionary<string, NDArray> { { "softmax_label", m.Labels } },
                                          BatchSize, false, "pad", 0))
    using (var mod = Module.Create(sym))
    using (var init = Initializer.Create("xavier", null, 7))
    using (var opt = Optimizer.Create("sgd", Sgd()))
    using (var acc = Metric.Create("acc")) {
      mod.Bind(iter, true);
      mod.InitParams(init);
      mod.InitOptimizer(opt);
      var start = Copies(mod);
      var p = Copies(mod);
      try {
        int batches = 0;
        mod.Fit(iter, null, acc, 0, 1, b => { ++batches; return true; }, null);
        Assert.AreEqual(Steps, batches);
        foreach (var kv in p) kv.Value.AttachGrad();
        using (var o2 = Optimizer.Create("sgd", Sgd()))
        using (var trainer = Trainer.Create(p, o2))
          for (int b = 0; b < Steps; ++b) {
            AutogradBatch(m, p, b);
            trainer.Step(BatchSize);
          }
        var trained = mod.ArgParams();
        try {
          for (int i = 0; i < Params.Length; ++i) {
            Assert.Greater(MaxDiff(trained[Params[i]], start[i].Value), 1e-3, Params[i] + " barely trained");
            Assert.LessOrEqual(MaxDiff(trained[Params[i]], p[i].Value), 1e-5, Params[i] + ": autograd differs");
          }
        } finally {
          NDArray.DisposeAll(trained);
        }
      } finally {
        DisposeAll(start);
        DisposeAll(p);
      }
    }
  }

  // conformance: training.fit_listener_progress_and_stop
  [Test]
  public void FitCallbacksProgressAndStop() {
    using (var t = new TrainingTests.Trained(0))
    using (var acc = Metric.Create("acc")) {
      var log = new List<string>();
      var epochs = t.Mod.Fit(t.Iter, t.Iter, acc, 0, 3,
                             b => {
                               Assert.AreEqual(13, b.NumBatches);  // 200 samples, batch 16, last padded
                               Assert.IsTrue(b.Metric.ContainsKey("accuracy"));
                               log.Add(b.Epoch + ":" + b.Batch);
                               return !(b.Epoch == 1 && b.Batch == 3);
                             },
                             e => { log.Add("end" + e.Epoch); return true; });
      Assert.AreEqual(2, epochs.Count);
      Assert.AreEqual(13 + 1 + 3 + 1, log.Count);
      Assert.AreEqual("end0", log[13]);
      Assert.AreEqual(new[] { "1:3", "end1" }, log.Skip(log.Count - 2).ToArray());
      Assert.IsFalse(epochs[0].Stopped);
      Assert.AreEqual(200, epochs[0].Samples);
      Assert.Greater(epochs[0].ValidationMetric["accuracy"], 0.5);
      Assert.IsTrue(epochs[1].Stopped);
      Assert.AreEqual(3, epochs[1].Batches);
      Assert.AreEqual(0, epochs[1].ValidationMetric.Count);
      // An epoch-end callback that returns false skips the later epochs.
      var one = t.Mod.Fit(t.Iter, null, acc, 0, 3, null, e => false);
      Assert.AreEqual(1, one.Count);
      Assert.IsFalse(one[0].Stopped);
      Assert.Throws<WeftException>(() => t.Mod.Fit(t.Iter, null, acc, 2, 1, null, null));
    }
  }

  // conformance: cached_op.invoke_and_record
  [Test]
  public void CachedOpInvokeAndRecord() {
    using (var f = TrainingTests.AbPlusC())
    using (var op = CachedOp.Create(f, P("static_alloc", "true")))
    using (var a = NDArray.FromArray(new float[] { 1, 2, 3 }, 3))
    using (var b = NDArray.FromArray(new float[] { 4, 5, 6 }, 3))
    using (var c = NDArray.FromArray(new float[] { -1, 0, 1 }, 3)) {
      Assert.AreEqual(new[] { "a", "b", "c" }, op.Inputs.ToArray());
      var outs = op.Invoke(a, b, c);
      Assert.AreEqual(1, outs.Length);
      using (var o = outs[0]) Assert.AreEqual(new float[] { 3, 10, 19 }, o.ToFloatArray());
      a.AttachGrad();
      NDArray y;
      using (Autograd.Record()) y = op.Invoke(a, b, c)[0];
      using (y) y.Backward();
      using (var g = a.Grad()) Assert.AreEqual(new float[] { 4, 5, 6 }, g.ToFloatArray());  // d(ab+c)/da = b
      var e = Assert.Throws<WeftException>(() => op.Invoke(a, b));
      Assert.AreEqual(ErrorCode.InvalidArgument, e.Code, e.Message);
    }
  }

  // x -> FullyConnected(2) -> tanh -> sum: three operators, so a recorded call is one node.
  static Symbol FcTanhSum() {
    using (var x = Symbol.Variable("x"))
    using (var fc = Symbol.Create("FullyConnected", "fc", P("num_hidden", 2), x))
    using (var act = Symbol.Create("Activation", "act", P("act_type", "tanh"), fc))
      return Symbol.Create("sum", "loss", null, act);
  }

  static void AssertClose(double[] want, float[] got, double tol) {
    Assert.AreEqual(want.Length, got.Length);
    for (int i = 0; i < want.Length; ++i) Assert.AreEqual(want[i], got[i], tol, "element " + i);
  }

  // conformance: cached_op.symbol_block_imports
  [Test]
  public void SymbolBlockImports() {
    var dir = Directory.CreateDirectory(Path.Combine(Path.GetTempPath(), "weft-block-" + Guid.NewGuid())).FullName;
    var symFile = Path.Combine(dir, "net-symbol.json");
    var paramFile = Path.Combine(dir, "net-0000.params");
    var cut = Path.Combine(dir, "cut.params");
    try {
      using (var net = FcTanhSum())
      using (var w = NDArray.FromArray(new float[] { 0.1f, 0.2f, 0.3f, -0.1f, 0, 0.2f }, 2, 3))
      using (var b = NDArray.FromArray(new float[] { 0.5f, -0.5f }, 2)) {
        net.Save(symFile);
        // Both spellings: a Module checkpoint's and collect_params'.
        NDArray.Save(paramFile, new Dictionary<string, NDArray> { { "arg:fc_weight", w }, { "fc_bias", b } });
        NDArray.Save(cut, new Dictionary<string, NDArray> { { "fc_weight", w } });
      }
      double t = Math.Tanh(1.9);  // z = W x + b = (1.9, 0) for x = (1, 2, 3)
      using (var block = SymbolBlock.Imports(symFile, new[] { "x" }, paramFile))
      using (var x = NDArray.FromArray(new float[] { 1, 2, 3 }, 1, 3)) {
        CollectionAssert.AreEquivalent(new[] { "fc_weight", "fc_bias" }, block.Params.Keys.ToArray());
        using (var y0 = block.Forward(x)[0]) Assert.AreEqual(t, y0.ToFloatArray()[0], 1e-5);
        foreach (var p in block.Params.Values) p.AttachGrad();
        NDArray y;
        using (Autograd.Record()) y = block.Forward(x)[0];
        using (y) y.Backward();
        double s = 1 - t * t;
        using (var gw = block.Params["fc_weight"].Grad())
          AssertClose(new[] { s, 2 * s, 3 * s, 1, 2, 3 }, gw.ToFloatArray(), 1e-5);
        using (var gb = block.Params["fc_bias"].Grad()) AssertClose(new[] { s, 1 }, gb.ToFloatArray(), 1e-5);
        var e = Assert.Throws<WeftException>(() => block.Forward());
        Assert.AreEqual(ErrorCode.InvalidArgument, e.Code, e.Message);
      }
      var missing = Assert.Throws<WeftException>(() => SymbolBlock.Imports(symFile, new[] { "x" }, cut));
      Assert.AreEqual(ErrorCode.NotFound, missing.Code);
      StringAssert.Contains("fc_bias", missing.Message);
      var data = Assert.Throws<WeftException>(() => SymbolBlock.Imports(symFile, new[] { "data" }, paramFile));
      StringAssert.Contains("'data'", data.Message);
    } finally {
      Directory.Delete(dir, true);
    }
  }

  // conformance: training.optimizer_states_resume
  [Test]
  public void OptimizerStatesResume() {
    var file = Path.GetTempFileName();
    var cfg = new Dictionary<string, object> { { "learning_rate", 0.01 }, { "centered", true }, { "wd", 0.1 } };
    try {
      using (var a = Optimizer.Create("rmsprop", cfg))
      using (var b = Optimizer.Create("rmsprop", cfg))
      using (var adam = Optimizer.Create("adam"))
      using (var w = NDArray.FromArray(new float[] { 1, -2, 3 }, 3))
      using (var g = NDArray.FromArray(new float[] { 0.5f, 0.25f, -1 }, 3)) {
        for (int i = 0; i < 3; ++i) a.Update(0, "w_weight", w, g);
        a.SaveStates(file);
        using (var w2 = Ops.Call("_copy", null, w)) {
          for (int i = 0; i < 2; ++i) a.Update(0, "w_weight", w, g);
          b.LoadStates(file);
          Assert.AreEqual(3, b.NumUpdate);
          for (int i = 0; i < 2; ++i) b.Update(0, "w_weight", w2, g);
          Assert.AreEqual(w.ToFloatArray(), w2.ToFloatArray());  // bit for bit
        }
        var e = Assert.Throws<WeftException>(() => adam.LoadStates(file));
        Assert.AreEqual(ErrorCode.InvalidArgument, e.Code, e.Message);
        StringAssert.Contains("rmsprop", e.Message);
      }
    } finally {
      File.Delete(file);
    }
  }

  // conformance: training.schedule_warmup_and_fixed_params
  [Test]
  public void ScheduleWarmupAndFixedParams() {
    // Linear warm-up from 0.02 over 2 updates, then cosine from 0.1 to 0 at update 10.
    using (var opt = Optimizer.Create("sgd", P("learning_rate", 0.1)))
    using (var w = NDArray.FromArray(new float[] { 1 }, 1))
    using (var g = NDArray.FromArray(new float[] { 1 }, 1)) {
      opt.SetLrScheduler("cosine", new Dictionary<string, object> {
        { "max_update", 10 }, { "warmup_steps", 2 }, { "warmup_begin_lr", 0.02 }, { "warmup_mode", "linear" } });
      double[] want = { 0.02, 0.06, 0.1, 0.1 * (1 + Math.Cos(Math.PI / 8)) / 2, 0.1 * (1 + Math.Cos(Math.PI * 2 / 8)) / 2 };
      for (int n = 0; n < want.Length; ++n) {
        Assert.AreEqual(want[n], opt.LearningRate("w"), 1e-6, "after " + n + " updates");
        opt.Update(0, "w", w, g);
      }
      var e = Assert.Throws<WeftException>(() => opt.SetLrScheduler("cosine", new Dictionary<string, object> {
        { "max_update", 1 }, { "warmup_steps", 2 } }));
      Assert.AreEqual(ErrorCode.InvalidArgument, e.Code, e.Message);
    }
    // fc1_weight fixed: bitwise unchanged by Fit while fc2_weight trains.
    using (var t = new TrainingTests.Trained(0, Context.Cpu(), new[] { "fc1_weight" }))
    using (var acc = Metric.Create("acc")) {
      var before = t.Mod.ArgParams();
      var w1 = before["fc1_weight"].ToFloatArray();
      var w2 = before["fc2_weight"].ToFloatArray();
      NDArray.DisposeAll(before);
      t.Mod.Fit(t.Iter, null, acc, 0, 1);
      var after = t.Mod.ArgParams();
      try {
        Assert.AreEqual(w1, after["fc1_weight"].ToFloatArray());
        var a2 = after["fc2_weight"].ToFloatArray();
        Assert.IsTrue(a2.Where((v, i) => Math.Abs(v - w2[i]) > 1e-4).Any(), "fc2_weight did not train");
      } finally {
        NDArray.DisposeAll(after);
      }
    }
  }
}

}
