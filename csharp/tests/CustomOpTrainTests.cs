using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>The second half of CustomOpTests: training with modules, the zoo
/// JSON, a throwing callback, threads, unregistering, operator libraries.</summary>
public partial class CustomOpTests {
  /// <summary>data -> FC(16) -> act -> FC(4) -> loss, as MXNet 1.9 writes it.</summary>
  static string MlpJson(string act, string loss) {
    return "{\"nodes\": [{\"op\": \"null\", \"name\": \"data\", \"inputs\": []}," +
        "{\"op\": \"null\", \"name\": \"fc1_weight\", \"inputs\": []}," +
        "{\"op\": \"null\", \"name\": \"fc1_bias\", \"inputs\": []}," +
        "{\"op\": \"FullyConnected\", \"name\": \"fc1\", \"attrs\": {\"num_hidden\": \"16\"}," +
        " \"inputs\": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}," + act + "," +
        "{\"op\": \"null\", \"name\": \"fc2_weight\", \"inputs\": []}," +
        "{\"op\": \"null\", \"name\": \"fc2_bias\", \"inputs\": []}," +
        "{\"op\": \"FullyConnected\", \"name\": \"fc2\", \"attrs\": {\"num_hidden\": \"4\"}," +
        " \"inputs\": [[4, 0, 0], [5, 0, 0], [6, 0, 0]]}," +
        "{\"op\": \"null\", \"name\": \"softmax_label\", \"inputs\": []}," + loss + "]," +
        "\"arg_nodes\": [0, 1, 2, 5, 6, 8], \"node_row_ptr\": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]," +
        " \"heads\": [[9, 0, 0]], \"attrs\": {\"mxnet_version\": [\"int\", 10901]}}";
  }

  const string ActCustom = "{\"op\": \"Custom\", \"name\": \"act1\", \"attrs\": " +
      "{\"beta\": \"1.5\", \"op_type\": \"cs_softplus\"}, \"inputs\": [[3, 0, 0]]}";
  const string ActRelu = "{\"op\": \"Activation\", \"name\": \"act1\", \"attrs\": " +
      "{\"act_type\": \"relu\"}, \"inputs\": [[3, 0, 0]]}";
  const string LossSoftmax = "{\"op\": \"SoftmaxOutput\", \"name\": \"softmax\", " +
      "\"inputs\": [[7, 0, 0], [8, 0, 0]]}";
  const string LossCustom = "{\"op\": \"Custom\", \"name\": \"softmax\", \"attrs\": " +
      "{\"op_type\": \"cs_softmax\"}, \"inputs\": [[7, 0, 0], [8, 0, 0]]}";

  /// <summary>Cross-entropy before and after 4 epochs: it must fall.</summary>
  static void TrainAndCheck(string json) {
    const int n = TrainingTests.N;
    var xs = new float[2 * n];
    var ys = new float[n];
    TrainingTests.Blobs(xs, ys, n, 7);
    using (var sym = Symbol.FromJson(json))
    using (var x = NDArray.FromArray(xs, n, 2))
    using (var y = NDArray.FromArray(ys, n))
    using (var iter = DataIter.FromArrays(new Dictionary<string, NDArray> { { "data", x } },
               new Dictionary<string, NDArray> { { "softmax_label", y } }, 20, false, "pad", 5))
    using (var mod = Module.Create(sym, Context.Cpu(), new[] { "data" }, new[] { "softmax_label" }))
    using (var init = Initializer.Create("xavier", null, 3))
    using (var opt = Optimizer.Create("sgd", new Dictionary<string, object> { { "learning_rate", 0.1 }, { "momentum", 0.9 } }))
    using (var ce = Metric.Create("ce")) {
      mod.Bind(iter, true);
      mod.InitParams(init);
      mod.InitOptimizer(opt);
      double before = mod.Score(iter, ce).Values.First();
      mod.Fit(iter, null, ce, 0, 4);
      double after = mod.Score(iter, ce).Values.First();
      Assert.IsTrue(after < 0.5 * before && after < 0.3,
                    "cross-entropy " + before + " before training, " + after + " after");
    }
  }

  // conformance: custom_op.module_trains_with_custom_activation
  [Test]
  public void ModuleTrainsMlpWithCustomSoftplus() {
    WithOps(() => {
      int before = backwardCalls;
      TrainAndCheck(MlpJson(ActCustom, LossSoftmax));
      Assert.GreaterOrEqual(backwardCalls - before, 40, "4 epochs of 10 batches");
    });
  }

  // conformance: custom_op.zoo_json_custom_loss
  [Test]
  public void ZooJsonWithCustomLossTrainsAndFailsWhenUnregistered() {
    WithOps(() => {
      TrainAndCheck(MlpJson(ActRelu, LossCustom));
      TrainAndCheck(MlpJson(ActCustom, LossCustom));
      var unknown = MlpJson(ActRelu, LossCustom.Replace("cs_softmax", "cs_unregistered"));
      Expect.Error(ErrorCode.InvalidArgument, () => Symbol.FromJson(unknown).Dispose(),
                   "cs_unregistered", "not registered", "softmax");
    });
  }

  // conformance: custom_op.callback_error_names_op_and_node
  [Test]
  public void ThrowingCallbacksBecomeErrors() {
    WithOps(() => {
      using (CustomOps.Register("cs_failing", a => new SoftplusProp(a, true))) {
        Expect.Error(ErrorCode.InvalidArgument,
                     () => Symbol.FromJson(string.Format(SpJson, "cs_failing", "bad_node", "-1")).Dispose(),
                     "cs_failing", "bad_node", "ArgumentException", "beta must be positive");
        using (var sym = Symbol.FromJson(string.Format(SpJson, "cs_failing", "bad_node", "2.0")))
        using (var ex = Executor.SimpleBind(sym, new Dictionary<string, long[]> { { "x", new long[] { 6 } } }, "null"))
        using (var outp = ex.Outputs()[0]) {
          ex.Forward(false);
          Expect.Error(ErrorCode.InvalidArgument, () => outp.ToFloatArray(), "cs_failing", "bad_node",
                       "InvalidOperationException", "boom: this forward always fails");
        }
        Library.WaitAll();
      }
    });
  }

  // conformance: custom_op.four_executor_threads
  [Test]
  public void FourExecutorThreadsAtOnce() {
    WithOps(() => {
      var errors = new List<Exception>();
      var threads = Enumerable.Range(0, 4).Select(t => new Thread(() => {
        try {
          using (var e = new SpExec("cs_softplus")) {
            for (int it = 0; it < 25; ++it) {
              var xs = X.Select(v => v + 0.01f * (t + it)).ToArray();
              e.In.CopyFrom(xs);
              e.Ex.Forward(true);
              e.Ex.Backward();
              float[] y = e.Out.ToFloatArray(), g = e.Grad.ToFloatArray();
              for (int i = 0; i < xs.Length; ++i) {
                if (Math.Abs(y[i] - Softplus(2, xs[i])) > 1e-5 || Math.Abs(g[i] - Sigmoid(2 * xs[i])) > 1e-5)
                  throw new Exception("thread " + t + ": wrong value at " + xs[i]);
              }
            }
          }
        } catch (Exception ex) {
          lock (errors) errors.Add(ex);
        }
      })).ToList();
      threads.ForEach(th => th.Start());
      threads.ForEach(th => th.Join());
      Assert.IsEmpty(errors, string.Join("; ", errors));
    });
  }

  // conformance: custom_op.unregister_refused_while_in_use
  [Test]
  public void UnregisterRefusedWhileInUse() {
    WithOps(() => {
      var reg = CustomOps.Register("cs_temp", a => new SoftplusProp(a, false));
      Expect.Error(ErrorCode.InvalidArgument, () => CustomOps.Register("cs_temp", a => new SoftplusProp(a, false)),
                   "cs_temp", "registered already");
      Assert.Contains("cs_temp", CustomOps.List().ToList());
      using (Symbol.FromJson(string.Format(SpJson, "cs_temp", "sp", "2.0"))) {
        Expect.Error(ErrorCode.InvalidArgument, () => reg.Dispose(), "cs_temp", "in use");
      }
      reg.Dispose();
      Expect.Error(ErrorCode.NotFound, () => reg.Dispose(), "cs_temp");
    });
  }

  // conformance: custom_op.load_library_lists_ops
  [Test]
  public void LoadLibraryListsItsOps() {
    var plugin = Environment.GetEnvironmentVariable("WEFT_TEST_PLUGIN");
    Library.LoadLibrary(plugin);
    Assert.Contains("plugin_softplus", Library.LoadedOps().ToList());
    using (var x = NDArray.FromArray(new[] { -1f, 0f, 2f }, 3)) {
      var outs = Ops.Invoke("plugin_softplus", new Dictionary<string, object> { { "beta", 2 } }, x);
      using (var y = outs[0]) {
        var v = y.ToFloatArray();
        for (int i = 0; i < 3; ++i) Assert.AreEqual(Softplus(2, new[] { -1.0, 0, 2 }[i]), v[i], 1e-5);
      }
    }
    Expect.Error(ErrorCode.IO, () => Library.LoadLibrary(plugin + ".missing"), ".missing");
    Expect.Error(ErrorCode.InvalidArgument,
                 () => Library.LoadLibrary(Environment.GetEnvironmentVariable("WEFT_TEST_PLUGIN_V2")),
                 "version 2", "supports version 1");
  }
}

}  // namespace Weft.Tests
