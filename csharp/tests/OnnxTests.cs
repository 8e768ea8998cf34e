using System.Collections.Generic;
using System.IO;
using System.Linq;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>ONNX export and import (issue 47): the same case in JUnit and go test.</summary>
[TestFixture]
public class OnnxTests : LiveHandleFixture {
  static float[] Ramp(int n, float scale) {
    var a = new float[n];
    for (int i = 0; i < n; ++i) a[i] = ((i * 7) % 11 - 5) * scale;
    return a;
  }

  // conformance: onnx.export_import_round_trip
  [Test]
  public void ExportImportRoundTrip() {
    var dir = Path.Combine(Path.GetTempPath(), "weft-onnx-" + System.Guid.NewGuid());
    Directory.CreateDirectory(dir);
    var file = Path.Combine(dir, "mlp.onnx");
    var x = Ramp(16, 0.25f);
    var shape = new Dictionary<string, long[]> { { "data", new long[] { 8, 2 } } };
    float[] want;
    IList<string> report;
    using (var mlp = Symbol.FromJson(TrainingTests.MlpJson))
    using (var ex = Executor.SimpleBind(mlp, shape, "null")) {
      var args = ex.ArgArrays();
      try {
        args["fc1_weight"].CopyFrom(Ramp(32, 0.1f));
        args["fc1_bias"].CopyFrom(Ramp(16, 0.05f));
        args["fc2_weight"].CopyFrom(Ramp(64, 0.1f));
        args["fc2_bias"].CopyFrom(Ramp(4, 0.05f));
        args["data"].CopyFrom(x);
        ex.Forward(false);
        var outs = ex.Outputs();
        want = outs[0].ToFloatArray();
        NDArray.DisposeAll(outs);
        var parameters = args.Where(kv => kv.Key != "data" && kv.Key != "softmax_label")
                             .ToDictionary(kv => kv.Key, kv => kv.Value);
        report = Onnx.Export(mlp, parameters, null, shape, 13, false, file);
      } finally {
        NDArray.DisposeAll(args);
      }
    }
    Assert.IsTrue(report.Any(l => l.Contains("'SoftmaxOutput'")), string.Join("\n", report));
    using (var m = Onnx.Import(file)) {
      Assert.AreEqual(4, m.Args.Count);
      CollectionAssert.Contains(m.Symbol.ListArguments(), "data");
    }
    // The exported file runs in a predictor as it is, with the original's outputs.
    using (var p = Predictor.FromFiles(file, null, new[] { Predictor.Input("data", 8, 2) })) {
      var got = p.Predict(x);
      Assert.AreEqual(want.Length, got.Length);
      for (int i = 0; i < want.Length; ++i) Assert.AreEqual(want[i], got[i], 1e-5, "output " + i);
    }
    CollectionAssert.Contains(Onnx.SupportedOps(), "Gemm");
    Expect.Error(ErrorCode.IO, () => Onnx.Import(Path.Combine(dir, "missing.onnx")), "missing.onnx");
    var json = Path.Combine(dir, "mlp-symbol.json");
    File.WriteAllText(json, TrainingTests.MlpJson);
    Expect.Error(ErrorCode.InvalidArgument, () => Onnx.ExportFiles(json, null, shape, 5, false, file), "opset");
    Directory.Delete(dir, true);
  }
}

}  // namespace Weft.Tests
