using System.Collections.Generic;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>Monitor callbacks (issue 46): the same case in JUnit and go test.</summary>
[TestFixture]
public class MonitorTests : LiveHandleFixture {
  static float[] Filled(int n, float v) {
    var a = new float[n];
    for (int i = 0; i < n; ++i) a[i] = v;
    return a;
  }

  // conformance: monitor.callbacks_see_outputs_and_errors
  [Test]
  public void CallbacksSeeOutputsAndErrors() {
    var names = new List<string>();
    double seenStat = -1;
    using (var mlp = Symbol.FromJson(TrainingTests.MlpJson))
    using (var ex = Executor.SimpleBind(mlp, new Dictionary<string, long[]> { { "data", new long[] { 8, 2 } } }, "write")) {
      var args = ex.ArgArrays();
      args["data"].CopyFrom(new float[] { 1, -2, 3, -4, 5, -6, 7, -8, 1, 2, 3, 4, 5, 6, 7, 8 });
      args["fc1_bias"].CopyFrom(Filled(16, 1f));
      args["fc2_weight"].CopyFrom(Filled(64, 0.25f));
      foreach (var a in args.Values) a.Dispose();
      // With gradients no inference pass fuses the nodes: one call per node output.
      ex.SetMonitorCallback((name, value) => {
        names.Add(name);
        if (name == "fc2_output") seenStat = value.MonitorStat();
      });
      ex.Forward(true);
      Library.WaitAll();
      CollectionAssert.AreEqual(new[] { "fc1_output", "relu1_output", "fc2_output", "softmax_output" }, names);
      // fc1's weight is zero and its bias one: relu1 gives 16 ones per row, so each of fc2's
      // 8 x 4 outputs is 16 * 0.25 = 4 and norm / sqrt(size) = 4.
      Assert.AreEqual(4.0, seenStat, 1e-12);
      Assert.AreEqual(1, Monitors.Live);

      names.Clear();
      ex.SetMonitorCallback((name, value) => names.Add(name), true);
      ex.Forward(true);
      Library.WaitAll();
      // Each node's inputs (named as the entries they are), then its output.
      CollectionAssert.AreEqual(new[] { "data", "fc1_weight", "fc1_bias", "fc1_output", "fc1_output",
                                        "relu1_output", "relu1_output", "fc2_weight", "fc2_bias", "fc2_output",
                                        "fc2_output", "softmax_label", "softmax_output" }, names);
      Assert.AreEqual(1, Monitors.Live);

      ex.SetMonitorCallback((name, value) => { throw new System.InvalidOperationException("refused " + name); });
      Expect.Error(ErrorCode.InvalidArgument, () => ex.Forward(true),
                   "monitor callback for 'fc1_output' returned an error: " +
                   "System.InvalidOperationException: refused fc1_output");
      Library.WaitAll();

      names.Clear();
      ex.SetMonitorCallback(null);
      Assert.AreEqual(0, Monitors.Live);
      ex.Forward(true);
      Library.WaitAll();
      Assert.IsEmpty(names);
      ex.SetMonitorCallback((name, value) => names.Add(name));
    }
    Assert.AreEqual(0, Monitors.Live);  // disposing the executor drops its callback
  }
}

}  // namespace Weft.Tests
