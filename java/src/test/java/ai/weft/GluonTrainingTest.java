package ai.weft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gluon-style training (issue 43): autograd + Trainer against Module on Fashion-MNIST, the fit
 * listener (progress and early stop), and cached ops (the same cases in NUnit and go test).
 */
@ExtendWith(LiveHandles.class)
class GluonTrainingTest {
  static final String FM = "/usr/share/datasets/fashion-mnist";
  static final int BATCH = 64;
  static final int STEPS = 8;
  static final List<String> PARAMS = List.of("fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias");
  static final Map<String, Object> SGD =
      Map.of("learning_rate", 0.1, "momentum", 0.9, "wd", 0.001);

  static float maxDiff(NDArray a, NDArray b) {
    float[] x = a.toFloatArray();
    float[] y = b.toFloatArray();
    float d = 0;
    for (int i = 0; i < x.length; ++i) d = Math.max(d, Math.abs(x[i] - y[i]));
    return d;
  }

  /** Copies of the module's parameters in PARAMS order. */
  static Map<String, NDArray> copies(Module mod) {
    return copies(mod, PARAMS);
  }

  /** Copies of the module's parameters {@code names}, in that order. */
  static Map<String, NDArray> copies(Module mod, List<String> names) {
    Map<String, NDArray> params = mod.argParams();
    Map<String, NDArray> out = new LinkedHashMap<>();
    try {
      for (String n : names) out.put(n, Ops.call("_copy", null, params.get(n)));
    } finally {
      NDArray.closeAll(params);
    }
    return out;
  }

  /** One recorded forward and backward of the MLP on rows [b*BATCH, (b+1)*BATCH). */
  static void autogradBatch(Mnist m, Map<String, NDArray> p, int b) {
    NDArray loss;
    try (NDArray x = m.images.slice((long) b * BATCH, (long) (b + 1) * BATCH);
        NDArray y = m.labels.slice((long) b * BATCH, (long) (b + 1) * BATCH);
        Autograd.Scope rec = Autograd.record();
        NDArray h = Ops.call("FullyConnected", Map.of("num_hidden", 16), x, p.get("fc1_weight"),
            p.get("fc1_bias"));
        NDArray r = Ops.call("Activation", Map.of("act_type", "relu"), h);
        NDArray o = Ops.call("FullyConnected", Map.of("num_hidden", 10), r, p.get("fc2_weight"),
            p.get("fc2_bias"))) {
      loss = Ops.call("SoftmaxOutput", null, o, y);
    }
    try (loss) {
      loss.backward();
    }
  }

  // conformance: training.autograd_trainer_matches_module
  @Test
  void autogradTrainerMatchesModule() {
    Assumptions.assumeTrue(Files.exists(Path.of(FM, "t10k-labels-idx1-ubyte.gz")),
        "Fashion-MNIST not installed");
    String json = TrainingTest.MLP_JSON.replace("\"num_hidden\": \"4\"", "\"num_hidden\": \"10\"");
    try (Mnist all = Mnist.loadSet(FM, "t10k");
        Mnist m = all.slice(0, STEPS * BATCH);
        Symbol sym = Symbol.fromJson(json);
        DataIter iter = DataIter.ndarray(Map.of("data", m.images),
            Map.of("softmax_label", m.labels), BATCH, false, "pad", 0);
        Module mod = Module.create(sym);
        Initializer init = Initializer.create("xavier", null, 7);
        Optimizer opt = Optimizer.create("sgd", SGD);
        Metric acc = Metric.create("acc")) {
      mod.bind(iter, true);
      mod.initParams(init);
      mod.initOptimizer(opt);
      Map<String, NDArray> start = copies(mod);
      Map<String, NDArray> p = copies(mod);
      List<Long> seen = new ArrayList<>();
      try {
        mod.fit(iter, null, acc, 0, 1, Module.Progress.SILENT, null, new FitListener() {
          @Override
          public boolean batchEnd(FitListener.BatchEnd b) {
            seen.add(b.batch);
            return true;
          }
        });
        assertEquals(STEPS, seen.size());
        for (NDArray a : p.values()) a.attachGrad();
        try (Optimizer o2 = Optimizer.create("sgd", SGD);
            Trainer trainer = Trainer.create(p, o2)) {
          for (int b = 0; b < STEPS; ++b) {
            autogradBatch(m, p, b);
            trainer.step(BATCH);
          }
        }
        Map<String, NDArray> trained = mod.argParams();
        try {
          for (String n : PARAMS) {
            assertTrue(maxDiff(trained.get(n), start.get(n)) > 1e-3, n + " barely trained");
            assertTrue(maxDiff(trained.get(n), p.get(n)) <= 1e-5, n + ": autograd differs");
          }
        } finally {
          NDArray.closeAll(trained);
        }
      } finally {
        NDArray.closeAll(start);
        NDArray.closeAll(p);
      }
    }
  }

  // conformance: training.fit_listener_progress_and_stop
  @Test
  void fitListenerProgressAndStop() {
    try (TrainingTest.Trained t = new TrainingTest.Trained(0); Metric acc = Metric.create("acc")) {
      List<String> log = new ArrayList<>();
      List<FitListener.EpochEnd> epochs =
          t.mod.fit(t.iter, t.iter, acc, 0, 3, Module.Progress.SILENT, null, new FitListener() {
            @Override
            public boolean batchEnd(FitListener.BatchEnd b) {
              assertEquals(13, b.numBatches);  // 200 samples, batch 16, last padded
              assertTrue(b.metric.containsKey("accuracy"));
              log.add(b.epoch + ":" + b.batch);
              return !(b.epoch == 1 && b.batch == 3);
            }

            @Override
            public boolean epochEnd(FitListener.EpochEnd e) {
              log.add("end" + e.epoch);
              return true;
            }
          });
      assertEquals(2, epochs.size());
      assertEquals(13 + 1 + 3 + 1, log.size());
      assertEquals("end0", log.get(13));
      assertEquals(List.of("1:3", "end1"), log.subList(log.size() - 2, log.size()));
      assertFalse(epochs.get(0).stopped);
      assertEquals(200, epochs.get(0).samples);
      assertTrue(epochs.get(0).validationMetric.get("accuracy") > 0.5);
      assertTrue(epochs.get(1).stopped);
      assertEquals(3, epochs.get(1).batches);
      assertTrue(epochs.get(1).validationMetric.isEmpty());
      // An epoch-end listener that returns false skips the later epochs.
      List<FitListener.EpochEnd> one =
          t.mod.fit(t.iter, null, acc, 0, 3, Module.Progress.SILENT, null, new FitListener() {
            @Override
            public boolean epochEnd(FitListener.EpochEnd e) {
              return false;
            }
          });
      assertEquals(1, one.size());
      assertFalse(one.get(0).stopped);
      assertThrows(WeftException.class, () -> t.mod.fit(t.iter, null, acc, 2, 1,
          Module.Progress.SILENT, null, new FitListener() {}));
    }
  }

  // conformance: cached_op.invoke_and_record
  @Test
  void cachedOpInvokeAndRecord() {
    try (Symbol f = TrainingTest.abPlusC();
        CachedOp op = CachedOp.create(f, Map.of("static_alloc", "true"));
        NDArray a = NDArray.fromArray(new float[] {1, 2, 3}, 3);
        NDArray b = NDArray.fromArray(new float[] {4, 5, 6}, 3);
        NDArray c = NDArray.fromArray(new float[] {-1, 0, 1}, 3)) {
      assertEquals(List.of("a", "b", "c"), op.inputs());
      NDArray[] out = op.invoke(a, b, c);
      try (NDArray o = out[0]) {
        assertEquals(1, out.length);
        assertArrayEquals(new float[] {3, 10, 19}, o.toFloatArray());
      }
      a.attachGrad();
      NDArray y;
      try (Autograd.Scope rec = Autograd.record()) {
        y = op.invoke(a, b, c)[0];
      }
      try (y) {
        y.backward();
      }
      try (NDArray g = a.grad()) {
        assertArrayEquals(new float[] {4, 5, 6}, g.toFloatArray());  // d(ab+c)/da = b
      }
      WeftException e = assertThrows(WeftException.class, () -> op.invoke(a, b));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code(), e.getMessage());
    }
  }

  static void assertClose(double[] want, float[] got, double tol) {
    assertEquals(want.length, got.length);
    for (int i = 0; i < want.length; ++i) assertEquals(want[i], got[i], tol, "element " + i);
  }

  /** x -> FullyConnected(2) -> tanh -> sum: three operators, so a recorded call is one node. */
  static Symbol fcTanhSum() {
    try (Symbol x = Symbol.variable("x");
        Symbol fc = Symbol.create("FullyConnected", "fc", Map.of("num_hidden", 2), x);
        Symbol act = Symbol.create("Activation", "act", Map.of("act_type", "tanh"), fc)) {
      return Symbol.create("sum", "loss", null, act);
    }
  }

  // conformance: cached_op.symbol_block_imports
  @Test
  void symbolBlockImports() throws java.io.IOException {
    Path dir = Files.createTempDirectory("weft-block");
    Path symFile = dir.resolve("net-symbol.json");
    String params = dir.resolve("net-0000.params").toString();
    String cut = dir.resolve("cut.params").toString();
    try (Symbol net = fcTanhSum();
        NDArray w = NDArray.fromArray(new float[] {0.1f, 0.2f, 0.3f, -0.1f, 0, 0.2f}, 2, 3);
        NDArray b = NDArray.fromArray(new float[] {0.5f, -0.5f}, 2)) {
      net.save(symFile);
      Map<String, NDArray> file = new LinkedHashMap<>();
      file.put("arg:fc_weight", w); // both spellings: a Module checkpoint's and collect_params'
      file.put("fc_bias", b);
      NDArray.save(params, file);
      NDArray.save(cut, Map.of("fc_weight", w));
    }
    double t = Math.tanh(1.9); // z = W x + b = (1.9, 0) for x = (1, 2, 3)
    try (SymbolBlock block = SymbolBlock.imports(symFile, List.of("x"), params);
        NDArray x = NDArray.fromArray(new float[] {1, 2, 3}, 1, 3)) {
      assertEquals(List.of("fc_weight", "fc_bias"), List.copyOf(block.params().keySet()));
      NDArray[] out = block.forward(x);
      try (NDArray y = out[0]) {
        assertEquals(t, y.toFloatArray()[0], 1e-5);
      }
      for (NDArray p : block.params().values()) p.attachGrad();
      NDArray y;
      try (Autograd.Scope rec = Autograd.record()) {
        y = block.forward(x)[0];
      }
      try (y) {
        y.backward();
      }
      double s = 1 - t * t;
      try (NDArray gw = block.params().get("fc_weight").grad();
          NDArray gb = block.params().get("fc_bias").grad()) {
        assertClose(new double[] {s, 2 * s, 3 * s, 1, 2, 3}, gw.toFloatArray(), 1e-5);
        assertClose(new double[] {s, 1}, gb.toFloatArray(), 1e-5);
      }
      WeftException e = assertThrows(WeftException.class, () -> block.forward());
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code(), e.getMessage());
    }
    WeftException missing =
        assertThrows(WeftException.class, () -> SymbolBlock.imports(symFile, List.of("x"), cut));
    assertEquals(ErrorCode.NOT_FOUND, missing.code());
    assertTrue(missing.getMessage().contains("fc_bias"), missing.getMessage());
    WeftException data =
        assertThrows(
            WeftException.class, () -> SymbolBlock.imports(symFile, List.of("data"), params));
    assertTrue(data.getMessage().contains("'data'"), data.getMessage());
  }

  // conformance: training.optimizer_states_resume
  @Test
  void optimizerStatesResume() throws java.io.IOException {
    Path file = Files.createTempFile("weft-opt", ".states");
    Map<String, Object> cfg = Map.of("learning_rate", 0.01, "centered", true, "wd", 0.1);
    try (Optimizer a = Optimizer.create("rmsprop", cfg);
        Optimizer b = Optimizer.create("rmsprop", cfg);
        Optimizer adam = Optimizer.create("adam", null);
        NDArray w = NDArray.fromArray(new float[] {1, -2, 3}, 3);
        NDArray g = NDArray.fromArray(new float[] {0.5f, 0.25f, -1}, 3)) {
      for (int i = 0; i < 3; ++i) a.update(0, "w_weight", w, g);
      a.saveStates(file.toString());
      try (NDArray w2 = Ops.call("_copy", null, w)) {
        for (int i = 0; i < 2; ++i) a.update(0, "w_weight", w, g);
        b.loadStates(file.toString());
        assertEquals(3, b.numUpdate());
        for (int i = 0; i < 2; ++i) b.update(0, "w_weight", w2, g);
        assertArrayEquals(w.toFloatArray(), w2.toFloatArray());  // bit for bit
      }
      WeftException e = assertThrows(WeftException.class, () -> adam.loadStates(file.toString()));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code(), e.getMessage());
      assertTrue(e.getMessage().contains("rmsprop"), e.getMessage());
    } finally {
      Files.deleteIfExists(file);
    }
  }

  // conformance: training.schedule_warmup_and_fixed_params
  @Test
  void scheduleWarmupAndFixedParams() {
    // Linear warm-up from 0.02 over 2 updates, then cosine from 0.1 to 0 at update 10.
    try (Optimizer opt = Optimizer.create("sgd", Map.of("learning_rate", 0.1));
        NDArray w = NDArray.fromArray(new float[] {1}, 1);
        NDArray g = NDArray.fromArray(new float[] {1}, 1)) {
      opt.setLrScheduler("cosine", Map.of("max_update", 10, "warmup_steps", 2,
          "warmup_begin_lr", 0.02, "warmup_mode", "linear"));
      double[] want = {0.02, 0.06, 0.1, 0.1 * (1 + Math.cos(Math.PI / 8)) / 2,
          0.1 * (1 + Math.cos(Math.PI * 2 / 8)) / 2};
      for (int n = 0; n < want.length; ++n) {
        assertEquals(want[n], opt.learningRate("w"), 1e-6, "after " + n + " updates");
        opt.update(0, "w", w, g);
      }
      WeftException e = assertThrows(WeftException.class,
          () -> opt.setLrScheduler("cosine", Map.of("max_update", 1, "warmup_steps", 2)));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code(), e.getMessage());
    }
    // fc1_weight fixed: bitwise unchanged by fit while fc2_weight trains.
    float[] xs = new float[2 * TrainingTest.N];
    float[] ys = new float[TrainingTest.N];
    TrainingTest.blobs(xs, ys, TrainingTest.N, 7);
    try (Symbol sym = Symbol.fromJson(TrainingTest.MLP_JSON);
        NDArray x = NDArray.fromArray(xs, TrainingTest.N, 2);
        NDArray y = NDArray.fromArray(ys, TrainingTest.N);
        DataIter iter = DataIter.ndarray(Map.of("data", x), Map.of("softmax_label", y), 16, false,
            "pad", 0);
        Module mod = Module.create(sym);
        Initializer init = Initializer.create("xavier", null, 3);
        Optimizer opt = Optimizer.create("sgd", Map.of("learning_rate", 0.1));
        Metric acc = Metric.create("acc")) {
      assertThrows(WeftException.class, () -> mod.setFixedParams(List.of("no_such_weight")));
      mod.setFixedParams(List.of("fc1_weight"));
      mod.bind(iter, true);
      mod.initParams(init);
      mod.initOptimizer(opt);
      Map<String, NDArray> before = copies(mod, List.of("fc1_weight", "fc2_weight"));
      try {
        mod.fit(iter, null, acc, 0, 1, Module.Progress.SILENT, null);
        Map<String, NDArray> after = mod.argParams();
        try {
          assertArrayEquals(before.get("fc1_weight").toFloatArray(),
              after.get("fc1_weight").toFloatArray());
          assertTrue(maxDiff(before.get("fc2_weight"), after.get("fc2_weight")) > 1e-4);
        } finally {
          NDArray.closeAll(after);
        }
      } finally {
        NDArray.closeAll(before);
      }
    }
  }
}
