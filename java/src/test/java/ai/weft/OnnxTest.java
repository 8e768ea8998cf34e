package ai.weft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** ONNX export and import (issue 47): the same case in NUnit and go test. */
@ExtendWith(LiveHandles.class)
class OnnxTest {
  static float[] ramp(int n, float scale) {
    float[] a = new float[n];
    for (int i = 0; i < n; ++i) a[i] = ((i * 7) % 11 - 5) * scale;
    return a;
  }

  // conformance: onnx.export_import_round_trip
  @Test
  void exportImportRoundTrip() throws java.io.IOException {
    Path dir = Files.createTempDirectory("weft-onnx");
    Path file = dir.resolve("mlp.onnx");
    float[] x = ramp(16, 0.25f);
    float[] want;
    List<String> report;
    try (Symbol mlp = Symbol.fromJson(TrainingTest.MLP_JSON);
        Executor ex = Executor.simpleBind(mlp, Map.of("data", new long[] {8, 2}), "null")) {
      Map<String, NDArray> args = ex.argArrays();
      try {
        args.get("fc1_weight").copyFrom(ramp(32, 0.1f));
        args.get("fc1_bias").copyFrom(ramp(16, 0.05f));
        args.get("fc2_weight").copyFrom(ramp(64, 0.1f));
        args.get("fc2_bias").copyFrom(ramp(4, 0.05f));
        args.get("data").copyFrom(x);
        ex.forward(false);
        List<NDArray> out = ex.outputs();
        want = out.get(0).toFloatArray();
        NDArray.closeAll(out);
        Map<String, NDArray> params = new LinkedHashMap<>(args);
        params.remove("data");
        params.remove("softmax_label");
        report = Onnx.export(mlp, params, null, Map.of("data", new long[] {8, 2}), 13, false, file);
      } finally {
        NDArray.closeAll(args);
      }
    }
    assertTrue(report.stream().anyMatch(l -> l.contains("'SoftmaxOutput'")), report.toString());
    try (Onnx.Model m = Onnx.importModel(file, null)) {
      assertEquals(4, m.args.size(), m.args.keySet().toString());
      assertTrue(m.symbol.listArguments().contains("data"), m.symbol.listArguments().toString());
    }
    // The exported file runs in a predictor as it is, with the original's outputs.
    try (Predictor p =
        Predictor.fromFiles(file, null, Map.of("data", new long[] {8, 2}), null, null, null)) {
      assertArrayEquals(want, p.predict(x, 8, 2), 1e-5f);
    }
    assertTrue(Onnx.supportedOps().contains("Gemm"));
    Expect.error(ErrorCode.IO, () -> Onnx.importModel(dir.resolve("missing.onnx"), null),
        "missing.onnx");
    Path json = dir.resolve("mlp-symbol.json");
    Files.writeString(json, TrainingTest.MLP_JSON);
    Expect.error(ErrorCode.INVALID_ARGUMENT,
        () -> Onnx.exportFiles(json, null, Map.of("data", new long[] {8, 2}), 5, false, file),
        "opset");
  }
}
