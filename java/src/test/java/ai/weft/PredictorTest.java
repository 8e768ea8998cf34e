package ai.weft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Predictor conformance (the same list in NUnit and go test): threads equal
 * one thread, weights held once and executors bounded, batches equal single
 * samples, memory equals files, zero-copy buffers equal arrays, async equals
 * sync, and the errors (bad shape, sizes, buffers, options, closed). The
 * model: the 2-16-4 MLP of TrainingTest after 2 epochs, saved by the test.
 */
@ExtendWith(LiveHandles.class)
class PredictorTest {
  static final int MAX_EXECUTORS = 2;
  @TempDir static Path dir;
  static Path symbolFile;
  static Path paramsFile;

  @BeforeAll
  static void writeCheckpoint() {
    try (TrainingTest.Trained t = new TrainingTest.Trained(2)) {
      t.mod.saveCheckpoint(dir.resolve("mlp").toString(), 1);
    }
    symbolFile = dir.resolve("mlp-symbol.json");
    paramsFile = dir.resolve("mlp-0001.params");
    assertTrue(Files.exists(paramsFile), paramsFile.toString());
  }

  static Predictor fromFiles() {
    return Predictor.fromFiles(symbolFile, paramsFile, Map.of("data", new long[] {1, 2}), null,
        Map.of("max_executors", Integer.toString(MAX_EXECUTORS)), null);
  }

  /** Sample i: a deterministic point of the blobs. */
  static float[] sample(int i) {
    float[] x = new float[2 * (i + 1)];
    float[] y = new float[i + 1];
    TrainingTest.blobs(x, y, i + 1, 11);
    return new float[] {x[2 * i], x[2 * i + 1]};
  }

  // conformance: predictor.describes_its_model
  @Test
  void describesItsModel() {
    try (Predictor p = fromFiles()) {
      assertEquals(List.of("data"), p.inputs());
      assertEquals(List.of("softmax_output"), p.outputs());
      assertArrayEquals(new long[] {3, 4}, p.outputShape(0, new long[] {3, 2}));
      Predictor.Stats s = p.stats();
      assertEquals((16 * 2 + 16 + 4 * 16 + 4) * 4, s.weightBytes, s.toString());
      assertEquals(0, s.inUse);
    }
  }

  // conformance: predictor.memory_stream_equal_files
  @Test
  void memoryBytesAndStreamEqualFiles() throws Exception {
    String json = Files.readString(symbolFile);
    byte[] params = Files.readAllBytes(paramsFile);
    try (Predictor files = fromFiles();
        Predictor bytes = Predictor.load(json, params, "data", 1, 2);
        InputStream js = new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8));
        InputStream ps = Files.newInputStream(paramsFile);
        Predictor stream = Predictor.load(js, ps, Map.of("data", new long[] {1, 2}), null, null,
            Context.cpu())) {
      for (int i = 0; i < 20; ++i) {
        float[] want = files.predict(sample(i), 1, 2);
        assertArrayEquals(want, bytes.predict(sample(i), 1, 2), 0f, "bytes, sample " + i);
        assertArrayEquals(want, stream.predict(sample(i), 1, 2), 0f, "stream, sample " + i);
      }
    }
  }

  /**
   * An internal node as the output: "fc2" gives fc2_output, the logits, whose softmax is the
   * model's own output on the same sample.
   */
  // conformance: predictor.internal_output_by_name
  @Test
  void internalOutputByName() {
    try (Predictor p = fromFiles();
        Predictor logits = Predictor.fromFiles(symbolFile, paramsFile,
            Map.of("data", new long[] {1, 2}), List.of("fc2"), null, null)) {
      assertEquals(List.of("fc2_output"), logits.outputs());
      assertArrayEquals(new long[] {3, 4}, logits.outputShape(0, new long[] {3, 2}));
      for (int i = 0; i < 5; ++i) {
        float[] z = logits.predict(sample(i), 1, 2);
        float[] want = p.predict(sample(i), 1, 2);
        assertEquals(4, z.length);
        double max = Math.max(Math.max(z[0], z[1]), Math.max(z[2], z[3]));
        double sum = 0;
        for (float v : z) sum += Math.exp(v - max);
        for (int k = 0; k < 4; ++k) {
          assertEquals(want[k], Math.exp(z[k] - max) / sum, 1e-5, "sample " + i + " class " + k);
        }
      }
    }
  }

  // conformance: predictor.threads_equal_one_thread
  @Test
  void threadsEqualOneThreadWithWeightsHeldOnce() throws Exception {
    final int threads = 8;
    final int perThread = 40;
    try (Predictor p = fromFiles()) {
      float[][] want = new float[threads * perThread][];
      for (int i = 0; i < want.length; ++i) want[i] = p.predict(sample(i % 50), 1, 2);
      long weights = p.stats().weightBytes;
      float[][] got = new float[want.length][];
      CountDownLatch start = new CountDownLatch(1);
      List<Thread> ts = new ArrayList<>();
      List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
      for (int t = 0; t < threads; ++t) {
        final int t0 = t;
        Thread th = new Thread(() -> {
          try {
            start.await();
            for (int k = 0; k < perThread; ++k) {
              int i = t0 * perThread + k;
              got[i] = p.predict(sample(i % 50), 1, 2);
            }
          } catch (Throwable e) {
            errors.add(e);
          }
        });
        th.start();
        ts.add(th);
      }
      start.countDown();
      for (Thread th : ts) th.join();
      assertEquals(List.of(), errors);
      for (int i = 0; i < want.length; ++i) assertArrayEquals(want[i], got[i], 0f, "call " + i);
      Predictor.Stats s = p.stats();
      assertEquals(weights, s.weightBytes, "weights are held once");
      assertTrue(s.executors <= MAX_EXECUTORS, s.toString());
      assertEquals(0, s.inUse, s.toString());
    }
  }

  /** Dynamic batching: threads' single samples gathered into batches equal unbatched calls. */
  // conformance: predictor.dynamic_batching_equals_single
  @Test
  void dynamicBatchingEqualsSingleCalls() throws Exception {
    final int threads = 8;
    final int perThread = 10;
    float[][] want = new float[50][];
    try (Predictor p = fromFiles()) {
      for (int i = 0; i < want.length; ++i) want[i] = p.predict(sample(i), 1, 2);
    }
    for (String queue : new String[] {"mutex", "lockfree"}) {
      try (Predictor p = Predictor.fromFiles(symbolFile, paramsFile, Map.of("data", new long[] {1, 2}), null,
               Map.of("max_executors", "2", "max_batch", "8", "batch_delay_us", "5000", "batch_queue", queue),
               null)) {
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < threads; ++t) {
          final int t0 = t;
          Thread th = new Thread(() -> {
            try {
              start.await();
              for (int k = 0; k < perThread; ++k) {
                int i = (t0 * perThread + k) % want.length;
                assertArrayEquals(want[i], p.predict(sample(i), 1, 2), 1e-5f, queue + " sample " + i);
              }
            } catch (Throwable e) {
              errors.add(e);
            }
          });
          th.start();
          ts.add(th);
        }
        start.countDown();
        for (Thread th : ts) th.join();
        assertEquals(List.of(), errors);
        assertEquals(0, p.stats().inUse);
      }
    }
    WeftException e = assertThrows(WeftException.class,
        () -> Predictor.fromFiles(symbolFile, paramsFile, Map.of("data", new long[] {1, 2}), null,
            Map.of("max_batch", "4", "batch_queue", "ring"), null));
    assertTrue(e.getMessage().contains("batch_queue"), e.getMessage());
  }

  // conformance: predictor.interleaved_batch_sizes
  @Test
  void interleavedBatchesEqualSingleSamples() {
    try (Predictor p = fromFiles()) {
      int[] sizes = {1, 5, 3, 5, 1, 7, 3};
      int next = 0;
      for (int b : sizes) {
        float[] batch = new float[2 * b];
        for (int r = 0; r < b; ++r) System.arraycopy(sample(next + r), 0, batch, 2 * r, 2);
        float[] out = p.predict(batch, b, 2);
        assertEquals(4 * b, out.length);
        for (int r = 0; r < b; ++r) {
          float[] single = p.predict(sample(next + r), 1, 2);
          float[] row = java.util.Arrays.copyOfRange(out, 4 * r, 4 * r + 4);
          assertArrayEquals(single, row, 1e-6f, "batch " + b + " row " + r);
        }
        next += b;
      }
      assertEquals(4, p.stats().shapeSets, p.stats().toString());  // 1, 5, 3, 7
    }
  }

  // conformance: predictor.allocating_predict
  @Test
  void allocatingPredictSizesEachShapeOnItsOwn() {
    // predict(float[], long...) remembers the output size per input shape:
    // alternating batches must each get their own size and values.
    try (Predictor p = fromFiles()) {
      for (int rep = 0; rep < 2; ++rep) {
        for (int b : new int[] {1, 3}) {
          float[] x = new float[2 * b];
          for (int i = 0; i < x.length; ++i) x[i] = 0.25f * i - 0.5f;
          float[] got = p.predict(x, b, 2);
          float[] want = new float[Math.toIntExact(p.outputSize(0, new long[] {b, 2}))];
          p.predict(x, new long[] {b, 2}, want);
          assertArrayEquals(want, got, 0f);
        }
      }
      assertThrows(WeftException.class, () -> p.predict(new float[2], (long[]) null));
    }
  }

  // conformance: predictor.direct_buffers
  @Test
  void directBuffersEqualArraysWithoutCopies() {
    try (Predictor p = fromFiles()) {
      float[] x = sample(3);
      float[] want = p.predict(x, 1, 2);
      FloatBuffer in = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder()).asFloatBuffer();
      in.put(99f).put(x).flip().position(1);  // the 2 floats from position 1 are the input
      FloatBuffer out = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder()).asFloatBuffer();
      p.predict(in, new long[] {1, 2}, out);
      float[] got = new float[4];
      out.get(got);
      assertArrayEquals(want, got, 0f);
      assertEquals(1, in.position(), "the input position is not moved");

      ByteBuffer bin = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
      bin.putFloat(x[0]).putFloat(x[1]).flip();
      ByteBuffer bout = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
      p.predict(bin, new long[] {1, 2}, bout);
      for (int k = 0; k < 4; ++k) assertEquals(want[k], bout.getFloat(4 * k), 0f, "byte output " + k);

      float[] arr = new float[4];
      p.predict(x, new long[] {1, 2}, arr);
      assertArrayEquals(want, arr, 0f);

      WeftException e = assertThrows(WeftException.class,
          () -> p.predict(FloatBuffer.wrap(x), new long[] {1, 2}, out.clear()));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
      assertTrue(e.getMessage().contains("input 0 buffer is not direct"), e.getMessage());
      e = assertThrows(WeftException.class, () -> p.predict(new java.nio.Buffer[] {bin},
          new long[0][], new java.nio.Buffer[] {bout}));
      assertTrue(e.getMessage().contains("1 input buffers but 0 shapes"), e.getMessage());
      e = assertThrows(WeftException.class, () -> p.predict(new java.nio.Buffer[] {bin},
          new long[][] {{1, 2}}, new java.nio.Buffer[0]));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code(), e.getMessage());
      FloatBuffer swapped = ByteBuffer.allocateDirect(8).order(
          ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN ? ByteOrder.LITTLE_ENDIAN
                                                          : ByteOrder.BIG_ENDIAN).asFloatBuffer();
      e = assertThrows(WeftException.class, () -> p.predict(swapped, new long[] {1, 2}, out));
      assertTrue(e.getMessage().contains("byte order"), e.getMessage());
    }
  }

  // conformance: predictor.async_equals_sync
  @Test
  void asyncEqualsSync() throws Exception {
    try (Predictor p = fromFiles()) {
      List<CompletableFuture<float[]>> fs = new ArrayList<>();
      for (int i = 0; i < 32; ++i) fs.add(p.predictAsync(sample(i), 1, 2));
      for (int i = 0; i < 32; ++i) {
        assertArrayEquals(p.predict(sample(i), 1, 2), fs.get(i).get(), 0f, "future " + i);
      }
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> p.predictAsync(new float[3], 1, 3).get());
      assertInstanceOf(WeftException.class, e.getCause());
    }
  }

  // conformance: predictor.bad_inputs_give_errors
  @Test
  void badShapesAndSizesGiveWeftExceptions() {
    try (Predictor p = fromFiles()) {
      WeftException e = assertThrows(WeftException.class, () -> p.predict(new float[3], 1, 3));
      assertEquals(ErrorCode.SHAPE, e.code(), e.getMessage());
      assertTrue(e.getMessage().contains("fc1"), e.getMessage());
      e = assertThrows(WeftException.class,
          () -> p.predict(new float[2], new long[] {1, 2}, new float[3]));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code(), e.getMessage());
      e = assertThrows(WeftException.class,
          () -> p.predict(new float[5], new long[] {1, 2}, new float[4]));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code(), e.getMessage());
      float[] x = sample(0);
      assertArrayEquals(p.predict(x, 1, 2), p.predict(x, 1, 2), 0f, "still usable after errors");
    }
  }

  // conformance: predictor.bad_models_and_options
  @Test
  void badModelsAndOptionsGiveWeftExceptions() throws Exception {
    byte[] params = Files.readAllBytes(paramsFile);
    String json = Files.readString(symbolFile);
    WeftException e = assertThrows(WeftException.class, () -> Predictor.fromFiles(symbolFile,
        paramsFile, Map.of("data", new long[] {1, 2}), null, Map.of("max_executorz", "2"), null));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains("max_executorz"), e.getMessage());
    e = assertThrows(WeftException.class, () -> Predictor.load(json, params, "nodata", 1, 2));
    assertTrue(e.getMessage().contains("nodata"), e.getMessage());
    e = assertThrows(WeftException.class,
        () -> Predictor.load(json, java.util.Arrays.copyOf(params, params.length / 2), "data", 1, 2));
    assertTrue(e.getMessage().length() > 0);
    e = assertThrows(WeftException.class, () -> Predictor.fromFiles(symbolFile,
        dir.resolve("missing.params"), Map.of("data", new long[] {1, 2}), null, null, null));
    assertTrue(e.getMessage().contains("missing.params"), e.getMessage());
  }

  // conformance: predictor.closed_gives_invalid_handle
  @Test
  void closedPredictorGivesInvalidHandle() throws Exception {
    Predictor p = fromFiles();
    float[] x = sample(1);
    p.predict(x, 1, 2);
    p.close();
    p.close();  // idempotent
    WeftException e = assertThrows(WeftException.class, () -> p.predict(x, 1, 2));
    assertEquals(ErrorCode.INVALID_HANDLE, e.code());
    e = assertThrows(WeftException.class, () -> p.stats());
    assertEquals(ErrorCode.INVALID_HANDLE, e.code());
    ExecutionException ee = assertThrows(ExecutionException.class, () -> p.predictAsync(x, 1, 2).get());
    assertInstanceOf(WeftException.class, ee.getCause());
    assertEquals(ErrorCode.INVALID_HANDLE, ((WeftException) ee.getCause()).code());
  }

  /**
   * Close while threads predict: every call either completes with the right answer or fails
   * with INVALID_HANDLE (it started after close) or INVALID_ARGUMENT "closed" (it was waiting
   * for an executor when close came); nothing crashes and the handle is freed once.
   */
  // conformance: predictor.close_while_predicting
  @Test
  void closeWhilePredictingIsSafe() throws Exception {
    long before = Weft.liveHandleCount();
    Predictor p = Predictor.fromFiles(symbolFile, paramsFile, Map.of("data", new long[] {1, 2}),
        null, Map.of("max_executors", "1"), null);
    float[] x = sample(4);
    float[] want = p.predict(x, 1, 2);
    final int threads = 4;
    int[] done = new int[threads];
    List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
    CountDownLatch started = new CountDownLatch(threads);
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; ++t) {
      final int t0 = t;
      Thread th = new Thread(() -> {
        boolean signalled = false;
        try {
          for (int k = 0; k < 2000; ++k) {
            float[] out = new float[4];
            p.predict(x, new long[] {1, 2}, out);
            assertArrayEquals(want, out, 0f);
            ++done[t0];
            if (!signalled) {
              started.countDown();
              signalled = true;
            }
          }
        } catch (WeftException e) {
          boolean closed = e.code() == ErrorCode.INVALID_HANDLE
              || (e.code() == ErrorCode.INVALID_ARGUMENT && e.getMessage().contains("closed"));
          if (!closed) errors.add(e);
        } catch (Throwable e) {
          errors.add(e);
        }
        if (!signalled) started.countDown();
      });
      th.start();
      ts.add(th);
    }
    started.await();  // every thread has completed one call (or failed)
    p.close();
    for (Thread th : ts) th.join();
    assertEquals(List.of(), errors);
    for (int t = 0; t < threads; ++t) assertTrue(done[t] > 0, "thread " + t);
    Expect.error(ErrorCode.INVALID_HANDLE, () -> p.predict(x, 1, 2), "Predictor");
    assertEquals(before, Weft.liveHandleCount());
  }
}
