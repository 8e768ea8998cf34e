package ai.weft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Devices and data (the same cases in NUnit and go test): the device
 * argument of executors and modules, the MNIST loader, and the data
 * iterator's padding and reset.
 */
@ExtendWith(LiveHandles.class)
class DeviceDataTest {
  /**
   * The device argument: simpleBind on cpu(1) allocates there; without a GPU,
   * gpu(0) fails with a DEVICE error naming it, for simpleBind, bind and
   * Module.create alike (with one, trainsOnTheGpu runs instead).
   */
  // conformance: device.bind_on_a_device
  @Test
  void bindOnADevice() {
    boolean noGpu = Context.deviceCount(Context.DeviceType.GPU) == 0;
    try (Symbol f = TrainingTest.abPlusC(); Executor ex = Executor.simpleBind(f, Context.cpu(1), TrainingTest.shapes(2, 2),
        null, "write")) {
      Map<String, NDArray> args = ex.argArrays();
      try {
        assertEquals(Context.cpu(1), args.get("a").context());
      } finally {
        NDArray.closeAll(args);
      }
      TrainingTest.checkAbPlusC(ex, 2);
      if (!noGpu) return;
      WeftException e = assertThrows(WeftException.class,
          () -> Executor.simpleBind(f, Context.gpu(0), TrainingTest.shapes(2, 2), null, "write"));
      assertEquals(ErrorCode.DEVICE, e.code(), e.getMessage());
      assertTrue(e.getMessage().contains("gpu(0)"), e.getMessage());
      try (NDArray a = NDArray.fromArray(new float[] {1, 2}, 2)) {
        e = assertThrows(WeftException.class,
            () -> Executor.bind(f, Context.gpu(0), List.of(a, a, a), null, null, null));
        assertEquals(ErrorCode.DEVICE, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains("gpu(0)"), e.getMessage());
      }
      e = assertThrows(WeftException.class, () -> Module.create(f, Context.gpu(0),
          List.of("a"), null));
      assertEquals(ErrorCode.DEVICE, e.code(), e.getMessage());
      assertTrue(e.getMessage().contains("gpu(0)"), e.getMessage());
    }
  }

  /**
   * With a GPU: a*b+c binds on gpu(0) with the closed-form numbers, and the
   * MLP trained there for two epochs (SGD with momentum, fixed seeds) ends
   * with the parameters of the same run on the CPU. Skipped without one.
   */
  // conformance: device.trains_on_the_gpu
  @Test
  void trainsOnTheGpu() {
    org.junit.jupiter.api.Assumptions.assumeTrue(Context.deviceCount(Context.DeviceType.GPU) > 0, "no GPU");
    try (Symbol f = TrainingTest.abPlusC(); Executor ex = Executor.simpleBind(f, Context.gpu(0),
        TrainingTest.shapes(2, 2), null, "write")) {
      TrainingTest.checkAbPlusC(ex, 2);
    }
    try (TrainingTest.Trained gpu = new TrainingTest.Trained(2, Context.gpu(0));
        TrainingTest.Trained cpu = new TrainingTest.Trained(2, Context.cpu())) {
      Map<String, NDArray> g = gpu.mod.argParams();
      Map<String, NDArray> c = cpu.mod.argParams();
      try {
        assertEquals(c.keySet(), g.keySet());
        for (String k : c.keySet()) {
          assertEquals(Context.gpu(0), g.get(k).context(), k);
          float[] gv = g.get(k).toFloatArray();
          float[] cv = c.get(k).toFloatArray();
          for (int i = 0; i < cv.length; ++i)
            assertEquals(cv[i], gv[i], 1e-4 * (1 + Math.abs(cv[i])), k + "[" + i + "]");
        }
      } finally {
        NDArray.closeAll(g);
        NDArray.closeAll(c);
      }
    }
  }

  /**
   * Device count and memory: at least one CPU context with the host's RAM,
   * each GPU seen with its memory, and a DEVICE error for the first GPU id
   * past the count.
   */
  // conformance: device.count_and_memory
  @Test
  void deviceCountAndMemory() {
    assertTrue(Context.deviceCount(Context.DeviceType.CPU) >= 1);
    int gpus = Context.deviceCount(Context.DeviceType.GPU);
    assertTrue(gpus >= 0);
    Context cpu = Context.cpu();
    assertTrue(cpu.totalMemory() > (1L << 20));
    assertTrue(cpu.freeMemory() <= cpu.totalMemory());
    for (int i = 0; i < gpus; ++i) assertTrue(Context.gpu(i).totalMemory() > (1L << 20));
    WeftException e = assertThrows(WeftException.class, () -> Context.gpu(gpus).totalMemory());
    assertEquals(ErrorCode.DEVICE, e.code(), e.getMessage());
    assertTrue(e.getMessage().contains("gpu(" + gpus + ")"), e.getMessage());
  }

  /** The library's MNIST loader on Debian's Fashion-MNIST test set (skipped when absent). */
  // conformance: data.mnist_loader
  @Test
  void mnistLoader() {
    String dir = "/usr/share/datasets/fashion-mnist";
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.exists(Path.of(dir, "t10k-labels-idx1-ubyte.gz")), "Fashion-MNIST not installed");
    try (Mnist m = Mnist.loadSet(dir, "t10k")) {
      assertEquals(10000, m.count());
      assertArrayEquals(new long[] {10000, 1, 28, 28}, m.images.shape());
      assertEquals(Context.cpu(), m.images.context());
      float[] labels = m.labels.toFloatArray();
      // The first labels, read from the file's bytes 8.. by hand (gzip -dc | od).
      assertArrayEquals(new float[] {9, 2, 1, 1, 6, 1, 4, 6, 5, 7},
          java.util.Arrays.copyOf(labels, 10), 0f);
      try (NDArray first = m.images.slice(0, 1)) {
        double sum = 0;
        for (float v : first.toFloatArray()) {
          assertTrue(v >= 0 && v <= 1, "pixel " + v);
          sum += v;
        }
        assertEquals(33456 / 255.0, sum, 1e-3);  // byte sum of image 0 is 33456
      }
    }
    WeftException e = assertThrows(WeftException.class,
        () -> Mnist.load(dir + "/t10k-images-idx3-ubyte.gz", dir + "/no-such-labels.gz"));
    assertEquals(ErrorCode.IO, e.code(), e.getMessage());
    assertTrue(e.getMessage().contains("no-such-labels.gz"), e.getMessage());
  }

  /**
   * 7 samples (row i = (i, 10 i), label i) in batches of 3 with "pad": the
   * last batch holds sample 6 then samples 0 and 1 again (pad 2); reset()
   * starts the same sequence over.
   */
  // conformance: data.iter_batches_and_pads
  @Test
  void dataIterBatchesAndPads() {
    float[] xs = new float[14];
    float[] ys = new float[7];
    for (int i = 0; i < 7; ++i) {
      xs[2 * i] = i;
      xs[2 * i + 1] = 10 * i;
      ys[i] = i;
    }
    int[][] rows = {{0, 1, 2}, {3, 4, 5}, {6, 0, 1}};
    int[] pads = {0, 0, 2};
    try (NDArray x = NDArray.fromArray(xs, 7, 2);
        NDArray y = NDArray.fromArray(ys, 7);
        DataIter it = DataIter.ndarray(Map.of("data", x), Map.of("label", y), 3, false, "pad", 0)) {
      assertEquals(3, it.batchSize());
      for (int epoch = 0; epoch < 2; ++epoch) {
        for (int b = 0; b < 3; ++b) {
          assertTrue(it.next(), "epoch " + epoch + " batch " + b);
          assertEquals(pads[b], it.pad(), "pad of batch " + b);
          Map<String, NDArray> d = it.data();
          Map<String, NDArray> l = it.label();
          try {
            assertArrayEquals(new long[] {3, 2}, d.get("data").shape());
            float[] dv = d.get("data").toFloatArray();
            float[] lv = l.get("label").toFloatArray();
            for (int r = 0; r < 3; ++r) {
              int sample = rows[b][r];
              assertEquals(sample, dv[2 * r], 0f, "batch " + b + " row " + r);
              assertEquals(10 * sample, dv[2 * r + 1], 0f, "batch " + b + " row " + r);
              assertEquals(sample, lv[r], 0f, "label of batch " + b + " row " + r);
            }
          } finally {
            NDArray.closeAll(d);
            NDArray.closeAll(l);
          }
        }
        assertFalse(it.next(), "epoch " + epoch + " has 3 batches");
        it.reset();
      }
    }
  }

  /** a*b in group "stage1" (a, b too), +c in group "stage2" (c too). */
  static Symbol groupedAbPlusC() {
    try (Symbol a = Symbol.variable("a");
        Symbol b = Symbol.variable("b");
        Symbol c = Symbol.variable("c")) {
      a.setAttr("ctx_group", "stage1");
      b.setAttr("ctx_group", "stage1");
      c.setAttr("ctx_group", "stage2");
      try (Symbol ab = Symbol.create("elemwise_mul", "ab", null, a, b)) {
        ab.setAttr("ctx_group", "stage1");
        Symbol out = Symbol.create("elemwise_add", "out", null, ab, c);
        out.setAttr("ctx_group", "stage2");
        return out;
      }
    }
  }

  /**
   * group2ctx: simpleBind with stage1 on cpu(1) and stage2 on cpu(2)
   * allocates each group's arguments (and gradients) on its device, and
   * forward/backward across the devices match the closed form; bind takes
   * arrays living on their group's device; a group missing from the map
   * fails with DEVICE naming it.
   */
  // conformance: device.group2ctx_places_arguments
  @Test
  void group2ctxPlacesArgumentsOnTheirGroupsDevice() {
    Map<String, Context> g2c = Map.of("stage1", Context.cpu(1), "stage2", Context.cpu(2));
    try (Symbol f = groupedAbPlusC();
        Executor ex = Executor.simpleBind(f, Context.cpu(), g2c, TrainingTest.shapes(2, 2), null,
            "write")) {
      Map<String, NDArray> args = ex.argArrays();
      Map<String, NDArray> grads = ex.gradArrays();
      try {
        assertEquals(Context.cpu(1), args.get("a").context());
        assertEquals(Context.cpu(1), args.get("b").context());
        assertEquals(Context.cpu(2), args.get("c").context());
        assertEquals(Context.cpu(2), grads.get("c").context());
      } finally {
        NDArray.closeAll(args);
        NDArray.closeAll(grads);
      }
      TrainingTest.checkAbPlusC(ex, 3);
      WeftException e = assertThrows(WeftException.class, () -> Executor.simpleBind(f,
          Context.cpu(), Map.of("stage1", Context.cpu(1)), TrainingTest.shapes(2, 2), null, "write"));
      assertEquals(ErrorCode.DEVICE, e.code(), e.getMessage());
      assertTrue(e.getMessage().contains("stage2"), e.getMessage());
      try (NDArray a = NDArray.create(Context.cpu(1), DType.FLOAT32, 2);
          NDArray b = NDArray.create(Context.cpu(1), DType.FLOAT32, 2);
          NDArray c = NDArray.create(Context.cpu(2), DType.FLOAT32, 2)) {
        a.copyFrom(new float[] {1, 2});
        b.copyFrom(new float[] {3, 4});
        c.copyFrom(new float[] {5, 6});
        try (Executor bound = Executor.bind(f, Context.cpu(), g2c, List.of(a, b, c), null, null,
            null)) {
          bound.forward(false);
          List<NDArray> outs = bound.outputs();
          try {
            assertEquals(Context.cpu(2), outs.get(0).context());
            assertArrayEquals(new float[] {8, 14}, outs.get(0).toFloatArray(), 0f);
          } finally {
            NDArray.closeAll(outs);
          }
        }
      }
    }
  }
}
