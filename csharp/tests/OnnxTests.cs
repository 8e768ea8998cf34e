using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
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

  static float[] Npy(string path) {
    using (var a = NDArray.LoadNpy(path)) return a.ToFloatArray();
  }

  // The NMS head's boxes and scores for one call, cut to the rows it reports.
  static float[][] PredictNms(Predictor p, float[] feats, float[] anchors) {
    var boxes = new float[16 * 4];  // the upper bounds: every box kept
    var scores = new float[16];
    var shapes = p.PredictShaped(new[] { feats, anchors }, new[] { new long[] { 16, 8 }, new long[] { 16, 4 } },
                                 new[] { boxes, scores });
    Assert.AreEqual(new long[] { shapes[0][0], 4 }, shapes[0]);
    Assert.AreEqual(new long[] { shapes[0][0] }, shapes[1]);
    return new[] { boxes.Take((int)shapes[0][0] * 4).ToArray(), scores.Take((int)shapes[1][0]).ToArray() };
  }

  // conformance: onnx.nms_predictor
  [Test]
  public void NmsHeadThroughAPredictor() {
    var dir = Path.Combine(Environment.GetEnvironmentVariable("WEFT_TEST_DATA"), "onnx");
    var feats = Npy(Path.Combine(dir, "nms_head.input0.npy"));
    var anchors = Npy(Path.Combine(dir, "nms_head.input1.npy"));
    var boxes = Npy(Path.Combine(dir, "nms_head.output0.npy"));
    var scores = Npy(Path.Combine(dir, "nms_head.output1.npy"));
    Assert.Less(scores.Length, 16, "NMS keeps fewer boxes than it gets");
    var inputs = new[] { Predictor.Input("input0", 16, 8), Predictor.Input("input1", 16, 4) };
    var model = Path.Combine(dir, "nms_head.onnx");
    using (var p = Predictor.FromFiles(model, null, inputs)) {
      Assert.AreEqual(new long[] { 16, 4 }, p.OutputShape(0, new[] { new long[] { 16, 8 }, new long[] { 16, 4 } }));
      var calls = Enumerable.Range(0, 8).Select(_ => Task.Run(() => PredictNms(p, feats, anchors))).ToArray();
      foreach (var c in calls) {
        Assert.AreEqual(boxes.Length, c.Result[0].Length);
        Assert.AreEqual(scores.Length, c.Result[1].Length);
        for (int i = 0; i < boxes.Length; ++i) Assert.AreEqual(boxes[i], c.Result[0][i], 1e-5);
        for (int i = 0; i < scores.Length; ++i) Assert.AreEqual(scores[i], c.Result[1][i], 1e-5);
      }
    }
    Expect.Error(ErrorCode.InvalidArgument,
                 () => Predictor.FromFiles(model, null, inputs, null,
                                           new Dictionary<string, string> { { "max_batch", "4" } }),
                 "cannot split outputs whose rows depend");
  }
}

}  // namespace Weft.Tests
