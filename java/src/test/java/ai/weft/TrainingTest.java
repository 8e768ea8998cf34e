package ai.weft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Executor, training and checkpoint conformance (the same cases in NUnit and
 * go test): a*b+c bound and differentiated with closed-form numbers, an MLP
 * trained to a fixed accuracy, executors used from several threads, and the
 * cross-language checkpoint (written here, read by C# and Go).
 */
@ExtendWith(LiveHandles.class)
class TrainingTest {
  /* data -> FC(16) -> relu -> FC(4) -> SoftmaxOutput. */
  static final String MLP_JSON = "{\"nodes\": ["
      + "{\"op\": \"null\", \"name\": \"data\", \"inputs\": []},"
      + "{\"op\": \"null\", \"name\": \"fc1_weight\", \"inputs\": []},"
      + "{\"op\": \"null\", \"name\": \"fc1_bias\", \"inputs\": []},"
      + "{\"op\": \"FullyConnected\", \"name\": \"fc1\", \"attrs\": {\"num_hidden\": \"16\"},"
      + " \"inputs\": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},"
      + "{\"op\": \"Activation\", \"name\": \"relu1\", \"attrs\": {\"act_type\": \"relu\"},"
      + " \"inputs\": [[3, 0, 0]]},"
      + "{\"op\": \"null\", \"name\": \"fc2_weight\", \"inputs\": []},"
      + "{\"op\": \"null\", \"name\": \"fc2_bias\", \"inputs\": []},"
      + "{\"op\": \"FullyConnected\", \"name\": \"fc2\", \"attrs\": {\"num_hidden\": \"4\"},"
      + " \"inputs\": [[4, 0, 0], [5, 0, 0], [6, 0, 0]]},"
      + "{\"op\": \"null\", \"name\": \"softmax_label\", \"inputs\": []},"
      + "{\"op\": \"SoftmaxOutput\", \"name\": \"softmax\", \"inputs\": [[7, 0, 0], [8, 0, 0]]}],"
      + "\"arg_nodes\": [0, 1, 2, 5, 6, 8], \"heads\": [[9, 0, 0]]}";
  static final int N = 200;

  /** Cluster i%4 centred at (+-2, +-2) with a deterministic jitter in [-0.5, 0.5). */
  static void blobs(float[] x, float[] y, int n, int seed) {
    for (int i = 0; i < n; ++i) {
      int c = i % 4;
      seed = seed * 1103515245 + 12345;
      x[2 * i] = (((c & 1) != 0 ? 2f : -2f) + (float) ((seed >>> 16) % 1000) / 1000f) - 0.5f;
      seed = seed * 1103515245 + 12345;
      x[2 * i + 1] = (((c & 2) != 0 ? 2f : -2f) + (float) ((seed >>> 16) % 1000) / 1000f) - 0.5f;
      y[i] = c;
    }
  }

  /** a*b+c as a graph. */
  static Symbol abPlusC() {
    try (Symbol a = Symbol.variable("a");
        Symbol b = Symbol.variable("b");
        Symbol c = Symbol.variable("c");
        Symbol ab = Symbol.create("elemwise_mul", "ab", null, a, b)) {
      return Symbol.create("elemwise_add", "out", null, ab, c);
    }
  }

  static Map<String, long[]> shapes(long... shape) {
    Map<String, long[]> m = new LinkedHashMap<>();
    m.put("a", shape);
    m.put("b", shape);
    m.put("c", shape);
    return m;
  }

  /** Forward and backward of a*b+c on executor {@code ex}, checked against the closed form. */
  static void checkAbPlusC(Executor ex, float k) {
    float[] a = {1 + k, 2, -3, 4};
    float[] b = {5, -6 * k, 7, 0.5f};
    float[] c = {0.25f, 1, 2 * k, -8};
    float[] hg = {1, 2, 3, 4 + k};
    Map<String, NDArray> args = ex.argArrays();
    try {
      args.get("a").copyFrom(a);
      args.get("b").copyFrom(b);
      args.get("c").copyFrom(c);
    } finally {
      NDArray.closeAll(args);
    }
    ex.forward(true);
    List<NDArray> outs = ex.outputs();
    try (NDArray head = NDArray.fromArray(hg, 2, 2)) {
      float[] o = outs.get(0).toFloatArray();
      for (int i = 0; i < 4; ++i) assertEquals(a[i] * b[i] + c[i], o[i], 0f, "out[" + i + "]");
      ex.backward(head);
    } finally {
      NDArray.closeAll(outs);
    }
    Map<String, NDArray> g = ex.gradArrays();
    try {
      float[] ga = g.get("a").toFloatArray();
      float[] gb = g.get("b").toFloatArray();
      float[] gc = g.get("c").toFloatArray();
      for (int i = 0; i < 4; ++i) {
        assertEquals(hg[i] * b[i], ga[i], 0f, "d/da[" + i + "]");
        assertEquals(hg[i] * a[i], gb[i], 0f, "d/db[" + i + "]");
        assertEquals(hg[i], gc[i], 0f, "d/dc[" + i + "]");
      }
    } finally {
      NDArray.closeAll(g);
    }
  }

  // conformance: executor.simple_bind_known_numbers
  @Test
  void simpleBindForwardBackwardKnownNumbers() {
    try (Symbol f = abPlusC(); Executor ex = Executor.simpleBind(f, shapes(2, 2), "write")) {
      checkAbPlusC(ex, 0);
      checkAbPlusC(ex, 1);
      Executor.Memory m = ex.memory();
      assertTrue(m.plannedBytes > 0 && m.naiveBytes >= m.plannedBytes, "memory plan");
      assertTrue(ex.debugString().contains("elemwise_mul"));
      try (Executor big = ex.reshape(shapes(3, 2), false, true)) {
        Map<String, NDArray> args = big.argArrays();
        try {
          assertArrayEquals(new long[] {3, 2}, args.get("a").shape());
        } finally {
          NDArray.closeAll(args);
        }
      }
      ex.close();
      ex.close();
      assertThrows(WeftException.class, () -> ex.forward(false));
    }
  }

  /**
   * x (2,3) -> FullyConnected(2) -> relu -> FullyConnected(1), head gradient
   * g = (1, -2). By hand: fc1 = x W1^T + b1 = [[-0.5, 2.25], [3, -1.25]],
   * relu keeps (0, 2.25) and (3, 0); y = h W2^T + b2 = (-1.75, 6.5);
   * dW2 = g^T h = (-6, 2.25), db2 = -1; dh = g W2 = [[2, -1], [-4, 2]] masked
   * by relu to [[0, -1], [-4, 0]]; dW1 = dh^T x, db1 = column sums, dx = dh W1.
   */
  // conformance: executor.mlp_forward_backward_numbers
  @Test
  void mlpForwardBackwardKnownNumbers() {
    try (Symbol x = Symbol.variable("x");
        Symbol fc1 = Symbol.create("FullyConnected", "fc1", Map.of("num_hidden", 2), x);
        Symbol relu = Symbol.create("Activation", "relu1", Map.of("act_type", "relu"), fc1);
        Symbol fc2 = Symbol.create("FullyConnected", "fc2", Map.of("num_hidden", 1), relu);
        Executor ex = Executor.simpleBind(fc2, Map.of("x", new long[] {2, 3}), "write")) {
      assertEquals(List.of("x", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"),
          fc2.listArguments());
      Map<String, NDArray> args = ex.argArrays();
      try {
        assertArrayEquals(new long[] {2, 3}, args.get("fc1_weight").shape());
        assertArrayEquals(new long[] {1, 2}, args.get("fc2_weight").shape());
        args.get("x").copyFrom(new float[] {1, 2, -1, 0.5f, -1, 2});
        args.get("fc1_weight").copyFrom(new float[] {0.5f, -0.25f, 1, 1, 0.5f, -0.5f});
        args.get("fc1_bias").copyFrom(new float[] {0.5f, -0.25f});
        args.get("fc2_weight").copyFrom(new float[] {2, -1});
        args.get("fc2_bias").copyFrom(new float[] {0.5f});
      } finally {
        NDArray.closeAll(args);
      }
      ex.forward(true);
      List<NDArray> outs = ex.outputs();
      try (NDArray head = NDArray.fromArray(new float[] {1, -2}, 2, 1)) {
        assertArrayEquals(new long[] {2, 1}, outs.get(0).shape());
        assertArrayEquals(new float[] {-1.75f, 6.5f}, outs.get(0).toFloatArray(), 1e-6f);
        ex.backward(head);
      } finally {
        NDArray.closeAll(outs);
      }
      Map<String, NDArray> g = ex.gradArrays();
      try {
        assertArrayEquals(new float[] {-6, 2.25f}, g.get("fc2_weight").toFloatArray(), 1e-6f);
        assertArrayEquals(new float[] {-1}, g.get("fc2_bias").toFloatArray(), 1e-6f);
        assertArrayEquals(new float[] {-2, 4, -8, -1, -2, 1}, g.get("fc1_weight").toFloatArray(),
            1e-6f);
        assertArrayEquals(new float[] {-4, -1}, g.get("fc1_bias").toFloatArray(), 1e-6f);
        assertArrayEquals(new float[] {-1, -0.5f, 0.5f, -2, 1, -4}, g.get("x").toFloatArray(),
            1e-6f);
      } finally {
        NDArray.closeAll(g);
      }
    }
  }

  // conformance: executor.bind_to_existing_arrays
  @Test
  void bindToExistingArrays() {
    try (Symbol f = abPlusC();
        NDArray a = NDArray.fromArray(new float[] {1, 2}, 2);
        NDArray b = NDArray.fromArray(new float[] {3, 4}, 2);
        NDArray c = NDArray.fromArray(new float[] {5, 6}, 2);
        NDArray ga = NDArray.fromArray(new float[] {0, 0}, 2);
        Executor ex = Executor.bind(f, List.of(a, b, c), java.util.Arrays.asList(ga, null, null),
            null, null)) {
      ex.forward(true);
      List<NDArray> outs = ex.outputs();
      try {
        assertArrayEquals(new float[] {8, 14}, outs.get(0).toFloatArray(), 0f);
      } finally {
        NDArray.closeAll(outs);
      }
      try (NDArray hg = NDArray.fromArray(new float[] {1, 1}, 2)) {
        ex.backward(hg);
      }
      assertArrayEquals(new float[] {3, 4}, ga.toFloatArray(), 0f);  // shared, d/da = b
      Map<String, NDArray> grads = ex.gradArrays();
      try {
        assertEquals(List.of("a"), new ArrayList<>(grads.keySet()));
      } finally {
        NDArray.closeAll(grads);
      }
    }
  }

  // conformance: executor.errors
  @Test
  void executorErrors() {
    try (Symbol f = abPlusC()) {
      WeftException e = assertThrows(WeftException.class,
          () -> Executor.simpleBind(f, shapes(2, 2), "sometimes"));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
      assertTrue(e.getMessage().contains("sometimes"), e.getMessage());
      Map<String, long[]> bad = shapes(2, 2);
      bad.put("c", new long[] {3, 3});
      assertEquals(ErrorCode.SHAPE,
          assertThrows(WeftException.class, () -> Executor.simpleBind(f, bad, null)).code());
      try (Executor ex = Executor.simpleBind(f, shapes(2, 2), "write")) {
        e = assertThrows(WeftException.class, () -> ex.backward());
        assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
      }
    }
  }

  /** The MLP trained on the blobs with fixed seeds; the caller closes it. */
  static final class Trained implements AutoCloseable {
    final Symbol sym = Symbol.fromJson(MLP_JSON);
    final NDArray x;
    final NDArray y;
    final DataIter iter;
    final Module mod;

    Trained(int epochs) {
      this(epochs, Context.cpu());
    }

    Trained(int epochs, Context ctx) {
      float[] xs = new float[2 * N];
      float[] ys = new float[N];
      blobs(xs, ys, N, 7);
      x = NDArray.fromArray(xs, N, 2);
      y = NDArray.fromArray(ys, N);
      iter = DataIter.ndarray(Map.of("data", x), Map.of("softmax_label", y), 16, true, "pad", 5);
      mod = Module.create(sym, ctx, List.of("data"), List.of("softmax_label"));
      mod.bind(iter, true);
      try (Initializer init = Initializer.create("xavier", null, 3);
          Optimizer opt = Optimizer.create("sgd", Map.of("learning_rate", 0.1, "momentum", 0.9));
          Metric acc = Metric.create("acc")) {
        mod.initParams(init);
        mod.initOptimizer(opt);
        if (epochs > 0) {
          double sps = mod.fit(iter, null, acc, 0, epochs, Module.Progress.SILENT, null);
          assertTrue(sps > 0, "samples per second " + sps);
        }
      }
    }

    @Override
    public void close() {
      mod.close();
      iter.close();
      x.close();
      y.close();
      sym.close();
    }
  }

  // conformance: training.mlp_to_fixed_accuracy
  @Test
  void trainMlpToFixedAccuracy() {
    try (Trained t = new Trained(5); Metric acc = Metric.create("acc")) {
      Map<String, Double> v = t.mod.score(t.iter, acc);
      assertTrue(v.get("accuracy") >= 0.98, "accuracy " + v);
      // The same steps by hand keep it there.
      t.iter.reset();
      acc.reset();
      while (t.iter.next()) {
        t.mod.forward(t.iter, true);
        t.mod.backward();
        t.mod.update();
        t.mod.updateMetric(acc, t.iter);
      }
      assertTrue(acc.value() >= 0.98, "manual loop accuracy " + acc.value());
      Map<String, NDArray> outs = t.mod.outputs();
      try {
        assertArrayEquals(new long[] {16, 4}, outs.get("softmax_output").shape());
      } finally {
        NDArray.closeAll(outs);
      }
      Map<String, NDArray> params = t.mod.argParams();
      try {
        assertEquals(List.of("fc1_bias", "fc1_weight", "fc2_bias", "fc2_weight"),
            new ArrayList<>(params.keySet()));
      } finally {
        NDArray.closeAll(params);
      }
    }
  }

  // conformance: training.untrained_errors_reported
  @Test
  void untrainedIsNotAccurateAndErrorsAreReported() {
    // The accuracy check above can fail: chance level is 0.25.
    try (Trained t = new Trained(0); Metric acc = Metric.create("acc")) {
      assertTrue(t.mod.score(t.iter, acc).get("accuracy") < 0.9);
      WeftException e = assertThrows(WeftException.class, () -> Metric.create("nope"));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
      e = assertThrows(WeftException.class, () -> Optimizer.create("sgd", Map.of("lr_typo", 1)));
      assertTrue(e.getMessage().contains("lr_typo"), e.getMessage());
      e = assertThrows(WeftException.class,
          () -> t.mod.fit(t.iter, null, acc, 0, 0, Module.Progress.SILENT, null));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
      assertTrue(e.getMessage().contains("num_epoch"), e.getMessage());
      e = assertThrows(WeftException.class,
          () -> Module.create(t.sym, List.of("no_such_input"), null));
      assertTrue(e.getMessage().contains("no_such_input"), e.getMessage());
    }
  }

  // conformance: training.optimizer_initializer_metric
  @Test
  void optimizerInitializerMetricKnownNumbers() {
    try (Optimizer sgd = Optimizer.create("sgd", Map.of("learning_rate", 0.1));
        NDArray w = NDArray.fromArray(new float[] {1, 2}, 2);
        NDArray g = NDArray.fromArray(new float[] {0.5f, -1}, 2);
        Initializer c = Initializer.create("constant", Map.of("value", 3), 1);
        NDArray p = NDArray.create(DType.FLOAT32, 2, 2);
        Metric acc = Metric.create("acc");
        NDArray label = NDArray.fromArray(new float[] {0, 1}, 2);
        NDArray pred = NDArray.fromArray(new float[] {0.9f, 0.1f, 0.8f, 0.2f}, 2, 2)) {
      sgd.update(0, "w", w, g);  // w - lr * g
      assertArrayEquals(new float[] {0.95f, 2.1f}, w.toFloatArray(), 1e-6f);
      assertEquals(1, sgd.numUpdate());
      assertEquals(0.1f, sgd.learningRate("w"), 1e-7f);
      c.init("x_weight", p);
      assertArrayEquals(new float[] {3, 3, 3, 3}, p.toFloatArray(), 0f);
      c.init("x_bias", p);
      assertArrayEquals(new float[] {0, 0, 0, 0}, p.toFloatArray(), 0f);
      acc.update(List.of(label), List.of(pred));
      assertEquals(0.5, acc.get().get("accuracy"), 0);
      try (NDArray label3 = NDArray.fromArray(new float[] {0, 1, 1}, 3)) {
        WeftException e = assertThrows(WeftException.class,
            () -> acc.update(List.of(label3), List.of(pred)));
        assertEquals(ErrorCode.SHAPE, e.code());
      }
    }
  }

  /** The learning-rate schedule and gradient scale (the same numbers as NUnit and go test). */
  // conformance: training.optimizer_schedule_rescale
  @Test
  void scheduleAndRescaleGrad() {
    long before = Weft.liveHandleCount();
    try (Optimizer opt = Optimizer.create("sgd", Map.of("learning_rate", 1));
        NDArray w = NDArray.fromArray(new float[] {10}, 1);
        NDArray g = NDArray.fromArray(new float[] {1}, 1)) {
      opt.setLrScheduler("factor", new long[] {1}, 0.5f, 1e-8f);
      opt.setRescaleGrad(2);
      // Updates 1, 2, 3 run at rates 1, 0.5, 0.25, each on 2 * g.
      for (int k = 0; k < 3; ++k) opt.update(0, "w", w, g);
      assertEquals(10 - 2 * 1.75, w.toFloatArray()[0], 1e-6);
      assertEquals(0.25, opt.learningRate("w"), 1e-7);
      opt.setLrScheduler("multifactor", new long[] {1, 2}, 0.1f, 0);
      assertEquals(0.01, opt.learningRate("w"), 1e-8);
      opt.setLrScheduler("none", null, 0, 0);
      assertEquals(1.0, opt.learningRate("w"), 0);
      Expect.error(ErrorCode.INVALID_ARGUMENT,
          () -> opt.setLrScheduler("cosine", new long[] {1}, 0.5f, 0), "cosine", "multifactor");
      Expect.error(ErrorCode.INVALID_ARGUMENT,
          () -> opt.setLrScheduler("multifactor", new long[] {3, 2}, 0.5f, 0), "increasing");
      Expect.error(ErrorCode.INVALID_ARGUMENT, () -> opt.setLrScheduler("factor", null, 0.5f, 0),
          "steps");
      Expect.error(ErrorCode.INVALID_ARGUMENT, () -> opt.setRescaleGrad(Float.NaN), "rescale_grad");
      opt.close();
      Expect.error(ErrorCode.INVALID_HANDLE, () -> opt.setRescaleGrad(1), "Optimizer is closed");
    }
    assertEquals(before, Weft.liveHandleCount());
  }

  // conformance: training.params_and_checkpoint
  @Test
  void paramsFileAndCheckpointRoundTrip(@TempDir Path dir) {
    try (Trained t = new Trained(2)) {
      String prefix = dir.resolve("mlp").toString();
      t.mod.saveCheckpoint(prefix, 2);
      assertTrue(Files.exists(dir.resolve("mlp-0002.params")));
      Map<String, NDArray> params = t.mod.argParams();
      try (Checkpoint ck = Checkpoint.load(prefix, 2)) {
        assertEquals(params.keySet(), ck.args.keySet());
        for (String k : params.keySet()) {
          assertArrayEquals(params.get(k).toFloatArray(), ck.args.get(k).toFloatArray(), 0f, k);
        }
        String p2 = dir.resolve("again").toString();
        Checkpoint.save(p2, 0, ck.symbol, ck.args, ck.aux);
        Map<String, NDArray> loaded = NDArray.load(p2 + "-0000.params");
        try {
          assertTrue(loaded.containsKey("arg:fc1_weight"), loaded.keySet().toString());
        } finally {
          NDArray.closeAll(loaded);
        }
      } finally {
        NDArray.closeAll(params);
      }
      WeftException e = assertThrows(WeftException.class, () -> Checkpoint.load(prefix, 9));
      assertEquals(ErrorCode.IO, e.code());
    }
  }

  // conformance: executor.concurrent_separate_executors
  @Test
  void concurrentSeparateExecutors() throws InterruptedException {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; ++t) {
      final float k = t;
      threads.add(new Thread(() -> {
        try (Symbol f = abPlusC(); Executor ex = Executor.simpleBind(f, shapes(2, 2), "write")) {
          for (int i = 0; i < 50; ++i) checkAbPlusC(ex, k + i);
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }));
    }
    for (Thread th : threads) th.start();
    for (Thread th : threads) th.join();
    if (failure.get() != null) throw new AssertionError(failure.get());
  }

  /** Fixed input of the cross-language check: 8 points, two per cluster. */
  static float[] probe() {
    return new float[] {-2, -2, 2, -2, -2, 2, 2, 2, -1.5f, -2.5f, 2.5f, -1.5f, -2.25f, 1.75f, 1, 1};
  }

  /**
   * Writes the cross-language checkpoint: mlp-0001.params/-symbol.json and
   * expected.params (the probe input and the trained MLP's outputs on it)
   * into -Dweft.xlang.dir (CTest fixture) or a temp dir, and reads them back.
   */
  // conformance: training.cross_language_checkpoint
  @Test
  void writeCrossLanguageCheckpoint(@TempDir Path tmp) {
    String prop = System.getProperty("weft.xlang.dir");
    Path dir = prop != null ? Path.of(prop) : tmp;
    try (Trained t = new Trained(5);
        NDArray input = NDArray.fromArray(probe(), 8, 2);
        NDArray label = NDArray.create(DType.FLOAT32, 8);
        DataIter it = DataIter.ndarray(Map.of("data", input), Map.of("softmax_label", label), 8,
            false, "pad", 0);
        Module m = Module.create(t.sym)) {
      Files.createDirectories(dir);
      String prefix = dir.resolve("mlp").toString();
      t.mod.saveCheckpoint(prefix, 1);
      float[] expected;
      try (Checkpoint ck = Checkpoint.load(prefix, 1)) {
        m.bind(it, false);
        m.initParams(null, ck.args, ck.aux, false);
        assertTrue(it.next());
        m.forward(it, false);
        Map<String, NDArray> outs = m.outputs();
        try {
          expected = outs.get("softmax_output").toFloatArray();
          Map<String, NDArray> save = new LinkedHashMap<>();
          save.put("input", input);
          save.put("output", outs.get("softmax_output"));
          NDArray.save(dir.resolve("expected.params").toString(), save);
        } finally {
          NDArray.closeAll(outs);
        }
      }
      for (int i = 0; i < 8; ++i) {  // the probe is classified as its cluster
        int best = 0;
        for (int j = 1; j < 4; ++j) if (expected[4 * i + j] > expected[4 * i + best]) best = j;
        assertEquals(i % 4, best, "probe " + i);
      }
      Map<String, NDArray> back = NDArray.load(dir.resolve("expected.params").toString());
      try {
        assertArrayEquals(expected, back.get("output").toFloatArray(), 0f);
      } finally {
        NDArray.closeAll(back);
      }
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }
}
