package ai.weft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.weft.Executor.GradReq;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Custom operators written in Java (the same cases as tests/c_api/c_api_custom_op_test.c and the
 * C# and Go suites): softplus with a parameter beta against its closed form and a numeric
 * gradient, trained inside an MLP; a zoo-style JSON with a Custom loss; a throwing callback; four
 * executor threads; unregistering while in use.
 */
@ExtendWith(LiveHandles.class)
class CustomOpTest {
  static final float[] X = {-3f, -1f, -0.25f, 0f, 0.5f, 2f};
  static final AtomicInteger BACKWARD_CALLS = new AtomicInteger();
  static final String SP_JSON = "{\"nodes\": [{\"op\": \"null\", \"name\": \"x\", \"inputs\": []},"
      + "{\"op\": \"Custom\", \"name\": \"sp\", \"attrs\": {\"beta\": \"2.0\", \"op_type\": "
      + "\"%s\"}, \"inputs\": [[0, 0, 0]]}], \"arg_nodes\": [0], \"heads\": [[1, 0, 0]]}";
  static CustomOps.Registration softplus;
  static CustomOps.Registration softmax;

  static double softplus(double beta, double x) {
    double z = beta * x;
    return (z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z))) / beta;
  }

  static double sigmoid(double z) {
    return 1 / (1 + Math.exp(-z));
  }

  static void store(GradReq req, FloatBuffer dst, int i, double v) {
    if (req == GradReq.ADD) {
      dst.put(i, dst.get(i) + (float) v);
    } else if (req == GradReq.WRITE) {
      dst.put(i, (float) v);
    }
  }

  /** softplus_beta: y = log(1 + e^(beta x)) / beta; backward reads out_grad and in_data. */
  static final class SoftplusProp extends CustomOpProp {
    final double beta;
    final boolean fail;

    SoftplusProp(Map<String, String> attrs, boolean fail) {
      beta = Double.parseDouble(attrs.getOrDefault("beta", "1"));
      if (!(beta > 0)) throw new IllegalArgumentException("softplus: beta must be positive");
      this.fail = fail;
    }

    @Override
    public long[][] inferShape(long[][] in) {
      return new long[][] {in[0]};
    }

    @Override
    public int[] declareBackwardDependency(int[] outGrad, int[] inData, int[] outData) {
      return new int[] {outGrad[0], inData[0]};
    }

    @Override
    public CustomOp createOperator(Context ctx, long[][] shapes, DType[] types) {
      assertEquals(DType.FLOAT32, types[0]);
      return new CustomOp() {
        @Override
        public void forward(boolean isTrain, GradReq[] req, NDArray[] in, NDArray[] out,
            NDArray[] aux) {
          if (fail) throw new IllegalStateException("boom: this forward always fails");
          FloatBuffer x = in[0].floatData(), y = out[0].floatData();
          for (int i = 0; i < x.capacity(); ++i) store(req[0], y, i, softplus(beta, x.get(i)));
        }

        @Override
        public void backward(GradReq[] req, NDArray[] outGrad, NDArray[] in, NDArray[] out,
            NDArray[] inGrad, NDArray[] aux) {
          BACKWARD_CALLS.incrementAndGet();
          if (out[0] != null) throw new IllegalStateException("out_data was not declared");
          FloatBuffer dy = outGrad[0].floatData(), x = in[0].floatData();
          FloatBuffer dx = inGrad[0].floatData();
          for (int i = 0; i < x.capacity(); ++i) {
            store(req[0], dx, i, dy.get(i) * sigmoid(beta * x.get(i)));
          }
        }
      };
    }
  }

  /** my_softmax: a softmax cross-entropy loss (data, label) as MXNet's custom losses are. */
  static final class SoftmaxProp extends CustomOpProp {
    @Override
    public List<String> listArguments() {
      return List.of("data", "label");
    }

    @Override
    public long[][] inferShape(long[][] in) {
      return new long[][] {in[0]};
    }

    @Override
    public CustomOp createOperator(Context ctx, long[][] shapes, DType[] types) {
      final int k = (int) shapes[0][1];
      return new CustomOp() {
        @Override
        public void forward(boolean isTrain, GradReq[] req, NDArray[] in, NDArray[] out,
            NDArray[] aux) {
          FloatBuffer x = in[0].floatData(), y = out[0].floatData();
          for (int r = 0; r < x.capacity() / k; ++r) {
            double mx = x.get(r * k), sum = 0;
            for (int j = 1; j < k; ++j) mx = Math.max(mx, x.get(r * k + j));
            for (int j = 0; j < k; ++j) sum += Math.exp(x.get(r * k + j) - mx);
            for (int j = 0; j < k; ++j) store(req[0], y, r * k + j, Math.exp(x.get(r * k + j) - mx) / sum);
          }
        }

        @Override
        public void backward(GradReq[] req, NDArray[] outGrad, NDArray[] in, NDArray[] out,
            NDArray[] inGrad, NDArray[] aux) {
          FloatBuffer p = out[0].floatData(), label = in[1].floatData();
          FloatBuffer dx = inGrad[0].floatData();
          for (int i = 0; i < p.capacity(); ++i) {
            store(req[0], dx, i, p.get(i) - ((int) label.get(i / k) == i % k ? 1 : 0));
          }
          if (inGrad[1] != null) {
            FloatBuffer dl = inGrad[1].floatData();
            for (int i = 0; i < dl.capacity(); ++i) store(req[1], dl, i, 0);
          }
        }
      };
    }
  }

  @BeforeAll
  static void register() {
    softplus = CustomOps.register("java_softplus", a -> new SoftplusProp(a, false));
    softmax = CustomOps.register("java_softmax", a -> new SoftmaxProp());
  }

  @AfterAll
  static void unregister() {
    softplus.close();
    softmax.close();
    Weft.waitAll();
    assertEquals(0, CustomOps.liveObjects(), "registrations, props or operators left");
  }

  /** An executor of SP_JSON (type {@code type}) with x, out and grad. */
  static final class SpExec implements AutoCloseable {
    final Symbol sym;
    final Executor ex;
    final NDArray x;
    final NDArray out;
    final NDArray grad;

    SpExec(String type) {
      sym = Symbol.fromJson(String.format(SP_JSON, type));
      ex = Executor.simpleBind(sym, Map.of("x", new long[] {X.length}), "write");
      x = ex.argArrays().get("x");
      out = ex.outputs().get(0);
      grad = ex.gradArrays().get("x");
    }

    double sum(float[] xs) {
      x.copyFrom(xs);
      ex.forward(false);
      double s = 0;
      for (float v : out.toFloatArray()) s += v;
      return s;
    }

    @Override
    public void close() {
      grad.close();
      out.close();
      x.close();
      ex.close();
      sym.close();
    }
  }

  // conformance: custom_op.softplus_closed_form_and_numeric
  @Test
  void softplusForwardBackwardClosedFormAndNumeric() {
    try (SpExec e = new SpExec("java_softplus")) {
      e.x.copyFrom(X);
      e.ex.forward(true);
      e.ex.backward();  // a Custom head: ones as its gradient
      float[] y = e.out.toFloatArray(), g = e.grad.toFloatArray();
      for (int i = 0; i < X.length; ++i) {
        assertEquals(Math.log1p(Math.exp(2.0 * X[i])) / 2.0, y[i], 1e-5, "y at " + X[i]);
        assertEquals(sigmoid(2.0 * X[i]), g[i], 1e-5, "grad at " + X[i]);
        float eps = 1e-2f;
        float[] xs = X.clone();
        xs[i] = X[i] + eps;
        double up = e.sum(xs);
        xs[i] = X[i] - eps;
        double numeric = (up - e.sum(xs)) / (2 * eps);
        assertEquals(numeric, g[i], 2e-3, "numeric gradient at " + X[i]);
      }
    }
  }

  // conformance: custom_op.autograd_records_custom
  @Test
  void autogradRecordsCustom() {
    try (NDArray x = NDArray.fromArray(X, X.length)) {
      x.attachGrad();
      NDArray y;
      try (Autograd.Scope rec = Autograd.record()) {
        y = Ops.call("Custom", Map.of("op_type", "java_softplus", "beta", "0.5"), x);
      }
      try (y) {
        y.backward();  // head gradient ones: d softplus(0.5 x) / 0.5 / dx = sigmoid(0.5 x)
      }
      try (NDArray gx = x.grad()) {
        float[] g = gx.toFloatArray();
        for (int i = 0; i < X.length; ++i) {
          assertEquals(sigmoid(0.5 * X[i]), g[i], 1e-5, "grad at " + X[i]);
        }
      }
    }
  }

  /* data -> FC(16) -> act -> FC(4) -> loss, as MXNet 1.9 writes it. */
  static String mlpJson(String act, String loss) {
    return "{\"nodes\": [{\"op\": \"null\", \"name\": \"data\", \"inputs\": []},"
        + "{\"op\": \"null\", \"name\": \"fc1_weight\", \"inputs\": []},"
        + "{\"op\": \"null\", \"name\": \"fc1_bias\", \"inputs\": []},"
        + "{\"op\": \"FullyConnected\", \"name\": \"fc1\", \"attrs\": {\"num_hidden\": \"16\"},"
        + " \"inputs\": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}," + act + ","
        + "{\"op\": \"null\", \"name\": \"fc2_weight\", \"inputs\": []},"
        + "{\"op\": \"null\", \"name\": \"fc2_bias\", \"inputs\": []},"
        + "{\"op\": \"FullyConnected\", \"name\": \"fc2\", \"attrs\": {\"num_hidden\": \"4\"},"
        + " \"inputs\": [[4, 0, 0], [5, 0, 0], [6, 0, 0]]},"
        + "{\"op\": \"null\", \"name\": \"softmax_label\", \"inputs\": []}," + loss + "],"
        + "\"arg_nodes\": [0, 1, 2, 5, 6, 8], \"node_row_ptr\": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],"
        + " \"heads\": [[9, 0, 0]], \"attrs\": {\"mxnet_version\": [\"int\", 10901]}}";
  }

  static final String ACT_CUSTOM = "{\"op\": \"Custom\", \"name\": \"act1\", \"attrs\": "
      + "{\"beta\": \"1.5\", \"op_type\": \"java_softplus\"}, \"inputs\": [[3, 0, 0]]}";
  static final String ACT_RELU = "{\"op\": \"Activation\", \"name\": \"act1\", \"attrs\": "
      + "{\"act_type\": \"relu\"}, \"inputs\": [[3, 0, 0]]}";
  static final String LOSS_SOFTMAX = "{\"op\": \"SoftmaxOutput\", \"name\": \"softmax\", "
      + "\"inputs\": [[7, 0, 0], [8, 0, 0]]}";
  static final String LOSS_CUSTOM = "{\"op\": \"Custom\", \"name\": \"softmax\", \"attrs\": "
      + "{\"op_type\": \"java_softmax\"}, \"inputs\": [[7, 0, 0], [8, 0, 0]]}";

  /** Cross-entropy of a module on the blobs before and after 4 epochs: it must fall. */
  static void trainAndCheck(String json) {
    float[] xs = new float[2 * TrainingTest.N];
    float[] ys = new float[TrainingTest.N];
    TrainingTest.blobs(xs, ys, TrainingTest.N, 7);
    try (Symbol sym = Symbol.fromJson(json);
        NDArray x = NDArray.fromArray(xs, TrainingTest.N, 2);
        NDArray y = NDArray.fromArray(ys, TrainingTest.N);
        DataIter iter = DataIter.ndarray(Map.of("data", x), Map.of("softmax_label", y), 20, false,
            "pad", 5);
        Module mod = Module.create(sym, List.of("data"), List.of("softmax_label"));
        Initializer init = Initializer.create("xavier", null, 3);
        Optimizer opt = Optimizer.create("sgd", Map.of("learning_rate", 0.1, "momentum", 0.9));
        Metric ce = Metric.create("ce")) {
      mod.bind(iter, true);
      mod.initParams(init);
      mod.initOptimizer(opt);
      double before = mod.score(iter, ce).values().iterator().next();
      mod.fit(iter, null, ce, 0, 4, Module.Progress.SILENT, null);
      double after = mod.score(iter, ce).values().iterator().next();
      assertTrue(after < 0.5 * before && after < 0.3,
          "cross-entropy " + before + " before training, " + after + " after");
    }
  }

  // conformance: custom_op.module_trains_with_custom_activation
  @Test
  void moduleTrainsMlpWithCustomSoftplus() {
    int before = BACKWARD_CALLS.get();
    trainAndCheck(mlpJson(ACT_CUSTOM, LOSS_SOFTMAX));
    assertTrue(BACKWARD_CALLS.get() - before >= 40, "4 epochs of 10 batches");
  }

  // conformance: custom_op.zoo_json_custom_loss
  @Test
  void zooJsonWithCustomLossTrainsAndFailsWhenUnregistered() {
    trainAndCheck(mlpJson(ACT_RELU, LOSS_CUSTOM));
    trainAndCheck(mlpJson(ACT_CUSTOM, LOSS_CUSTOM));
    String unknown = mlpJson(ACT_RELU, LOSS_CUSTOM.replace("java_softmax", "java_unregistered"));
    Expect.error(ErrorCode.INVALID_ARGUMENT, () -> Symbol.fromJson(unknown).close(),
        "java_unregistered", "not registered", "softmax");
  }

  // conformance: custom_op.callback_error_names_op_and_node
  @Test
  void throwingCallbacksBecomeErrors() {
    try (CustomOps.Registration r =
            CustomOps.register("java_failing", a -> new SoftplusProp(a, true))) {
      String bad = String.format(SP_JSON, "java_failing").replace("\"sp\"", "\"bad_node\"");
      Expect.error(ErrorCode.INVALID_ARGUMENT,
          () -> Symbol.fromJson(bad.replace("2.0", "-1")).close(), "java_failing", "bad_node",
          "IllegalArgumentException", "beta must be positive");
      try (Symbol sym = Symbol.fromJson(bad);
          Executor ex = Executor.simpleBind(sym, Map.of("x", new long[] {X.length}), "null");
          NDArray out = ex.outputs().get(0)) {
        ex.forward(false);
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> out.toFloatArray(), "java_failing",
            "bad_node", "IllegalStateException", "boom: this forward always fails");
      }
      Weft.waitAll();
    }
  }

  // conformance: custom_op.four_executor_threads
  @Test
  void fourExecutorThreadsAtOnce() throws Exception {
    List<Thread> threads = new ArrayList<>();
    List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < 4; ++t) {
      final int seed = t;
      threads.add(new Thread(() -> {
        try (SpExec e = new SpExec("java_softplus")) {
          for (int it = 0; it < 25; ++it) {
            float[] xs = new float[X.length];
            for (int i = 0; i < X.length; ++i) xs[i] = X[i] + 0.01f * (seed + it);
            e.x.copyFrom(xs);
            e.ex.forward(true);
            e.ex.backward();
            float[] y = e.out.toFloatArray(), g = e.grad.toFloatArray();
            for (int i = 0; i < X.length; ++i) {
              assertEquals(softplus(2, xs[i]), y[i], 1e-5);
              assertEquals(sigmoid(2 * xs[i]), g[i], 1e-5);
            }
          }
        } catch (Throwable err) {
          errors.add(err);
        }
      }));
    }
    for (Thread th : threads) th.start();
    for (Thread th : threads) th.join();
    assertTrue(errors.isEmpty(), "thread errors: " + errors);
  }

  // conformance: custom_op.unregister_refused_while_in_use
  @Test
  void unregisterRefusedWhileInUse() {
    CustomOps.Registration r = CustomOps.register("java_temp", a -> new SoftplusProp(a, false));
    Expect.error(ErrorCode.INVALID_ARGUMENT,
        () -> CustomOps.register("java_temp", a -> new SoftplusProp(a, false)), "java_temp",
        "registered already");
    assertTrue(CustomOps.list().contains("java_temp"));
    try (Symbol sym = Symbol.fromJson(String.format(SP_JSON, "java_temp"))) {
      Expect.error(ErrorCode.INVALID_ARGUMENT, r::close, "java_temp", "in use");
    }
    r.close();
    Expect.error(ErrorCode.NOT_FOUND, r::close, "java_temp");
  }

  // conformance: custom_op.load_library_lists_ops
  @Test
  void loadLibraryListsItsOps() {
    String plugin = System.getenv("WEFT_TEST_PLUGIN");
    Weft.loadLibrary(plugin);
    assertTrue(Weft.loadedOps().contains("plugin_softplus"), Weft.loadedOps().toString());
    try (NDArray x = NDArray.fromArray(new float[] {-1f, 0f, 2f}, 3);
        NDArray y = Ops.invoke("plugin_softplus", Map.of("beta", 2), x)[0]) {
      float[] v = y.toFloatArray();
      for (int i = 0; i < 3; ++i) assertEquals(softplus(2, x.toFloatArray()[i]), v[i], 1e-5);
    }
    Expect.error(ErrorCode.IO, () -> Weft.loadLibrary(plugin + ".missing"), ".missing");
    Expect.error(ErrorCode.INVALID_ARGUMENT,
        () -> Weft.loadLibrary(System.getenv("WEFT_TEST_PLUGIN_V2")), "version 2",
        "supports version 1");
  }
}
