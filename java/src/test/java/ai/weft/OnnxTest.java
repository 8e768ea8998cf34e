package ai.weft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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

  static float[] npy(Path file) {
    try (NDArray a = NDArray.loadNpy(file.toString())) {
      return a.toFloatArray();
    }
  }

  static FloatBuffer floats(int n) {
    return ByteBuffer.allocateDirect(4 * n).order(ByteOrder.nativeOrder()).asFloatBuffer();
  }

  /** The NMS head's boxes and scores for one call, cut to the rows it reports. */
  static float[][] predictNms(Predictor p, float[] feats, float[] anchors) {
    FloatBuffer f = floats(feats.length).put(feats);
    FloatBuffer a = floats(anchors.length).put(anchors);
    f.flip();
    a.flip();
    FloatBuffer boxes = floats(16 * 4);  // the upper bounds: every box kept
    FloatBuffer scores = floats(16);
    long[][] shapes = p.predictShaped(new Buffer[] {f, a}, new long[][] {{16, 8}, {16, 4}},
        new Buffer[] {boxes, scores});
    assertEquals(2, shapes[0].length);
    assertEquals(4, shapes[0][1]);
    assertArrayEquals(new long[] {shapes[0][0]}, shapes[1]);
    float[][] out = {new float[(int) (shapes[0][0] * 4)], new float[(int) shapes[1][0]]};
    boxes.get(out[0]);
    scores.get(out[1]);
    return out;
  }

  // conformance: onnx.nms_predictor
  @Test
  void nmsHeadThroughAPredictor() throws Exception {
    Path dir = Path.of(System.getenv("WEFT_TEST_DATA"), "onnx");
    float[] feats = npy(dir.resolve("nms_head.input0.npy"));
    float[] anchors = npy(dir.resolve("nms_head.input1.npy"));
    float[] boxes = npy(dir.resolve("nms_head.output0.npy"));
    float[] scores = npy(dir.resolve("nms_head.output1.npy"));
    assertTrue(scores.length < 16, "NMS keeps fewer boxes than it gets");
    Map<String, long[]> inputs = new LinkedHashMap<>();
    inputs.put("input0", new long[] {16, 8});
    inputs.put("input1", new long[] {16, 4});
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try (Predictor p =
        Predictor.fromFiles(dir.resolve("nms_head.onnx"), null, inputs, null, null, null)) {
      assertArrayEquals(new long[] {16, 4}, p.outputShape(0, new long[] {16, 8}, new long[] {16, 4}));
      List<Future<float[][]>> calls = new ArrayList<>();
      for (int i = 0; i < 8; ++i) calls.add(pool.submit(() -> predictNms(p, feats, anchors)));
      for (Future<float[][]> c : calls) {
        float[][] got = c.get();
        assertArrayEquals(boxes, got[0], 1e-5f);
        assertArrayEquals(scores, got[1], 1e-5f);
      }
      // The bound's buffers without the shapes would hide the row count.
      FloatBuffer f = floats(feats.length).put(feats);
      FloatBuffer a = floats(anchors.length).put(anchors);
      f.flip();
      a.flip();
      Expect.error(ErrorCode.INVALID_ARGUMENT,
          () -> p.predict(new Buffer[] {f, a}, new long[][] {{16, 8}, {16, 4}},
              new Buffer[] {floats(64), floats(16)}),
          "depend on the input values", "weft_predictor_predict_shaped");
    } finally {
      pool.shutdown();
    }
    Expect.error(ErrorCode.INVALID_ARGUMENT,
        () -> Predictor.fromFiles(dir.resolve("nms_head.onnx"), null, inputs, null,
            Map.of("max_batch", "4"), null),
        "cannot split outputs whose rows depend");
  }
}
