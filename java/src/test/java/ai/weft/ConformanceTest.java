package ai.weft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The cross-language conformance list (same cases in NUnit and go test). */
@ExtendWith(LiveHandles.class)
class ConformanceTest {
  @AfterAll
  static void noObjectLeftToTheCleaner() {
    System.gc();  // ctest runs with -Dweft.leakcheck=true: every object was closed
    assertEquals(0, Weft.leakedObjects(), "objects reported by the leak Cleaner");
  }

  // conformance: library.version_and_op_listing
  @Test
  void versionAndOpListing() {
    assertEquals("0.1.0", Weft.version());
    assertEquals(Weft.bindingAbiVersion(), Weft.abiVersion());
    List<String> ops = Weft.opNames();
    assertTrue(ops.contains("elemwise_add") && ops.contains("dot"), ops.toString());
    OpInfo q = Weft.opInfo("quadratic");
    assertEquals(3, q.params.size());
    assertEquals("a", q.params.get(0).name);
    Expect.error(ErrorCode.NOT_FOUND, () -> Weft.opInfo("no_such_op"), "no_such_op");
  }

  /** An NDArray created on cpu(1) reports cpu(1); gpu(0) fails naming the device. */
  // conformance: ndarray.on_a_device
  @Test
  void ndarrayOnADevice() {
    try (NDArray a = NDArray.create(Context.cpu(1), DType.FLOAT32, 2, 2);
        NDArray b = NDArray.create(DType.FLOAT32, 2)) {
      assertEquals(Context.cpu(1), a.context());
      assertEquals("cpu(1)", a.context().toString());
      assertEquals(Context.DeviceType.CPU, a.context().type());
      assertEquals(1, a.context().id());
      assertEquals(Context.cpu(), b.context());
      assertFalse(Context.cpu(1).equals(b.context()));
      a.copyFrom(new float[] {1, 2, 3, 4});
      assertArrayEquals(new float[] {1, 2, 3, 4}, a.toFloatArray());
    }
    Expect.error(ErrorCode.DEVICE, () -> NDArray.create(Context.gpu(0), DType.FLOAT32, 2), "gpu(0)");
  }

  // conformance: ndarray.create_free_double_close
  @Test
  void createFreeAndDoubleCloseAreSafe() {
    long before = Weft.liveHandleCount();
    NDArray a = NDArray.create(DType.FLOAT32, 2, 3);
    assertEquals(before + 1, Weft.liveHandleCount());
    assertArrayEquals(new long[] {2, 3}, a.shape());
    assertEquals(DType.FLOAT32, a.dtype());
    assertEquals(6, a.size());
    a.close();
    a.close();
    assertTrue(a.isClosed());
    Expect.error(ErrorCode.INVALID_HANDLE, a::shape, "closed");
    try (Symbol s = Symbol.variable("x")) {
      s.close();
    }
  }

  // conformance: errors.bad_op_name_is_not_found
  @Test
  void badOpNameIsNotFound() {
    Expect.error(ErrorCode.NOT_FOUND, () -> Ops.call("no_such_op", null), "no_such_op");
    Expect.error(ErrorCode.NOT_FOUND, () -> Symbol.atomic("no_such_op", null), "no_such_op");
  }

  // conformance: errors.bad_param_is_invalid_argument
  @Test
  void badParamIsInvalidArgument() {
    try (NDArray x = NDArray.fromArray(new float[] {1, 2, 3, 4, 5, 6}, 2, 3)) {
      Expect.error(ErrorCode.INVALID_ARGUMENT, () -> Ops.call("sum", Map.of("axis", "zz"), x),
          "sum", "axis", "zz");
      Expect.error(ErrorCode.INVALID_ARGUMENT, () -> Ops.call("quadratic", Map.of("d", 1), x),
          "quadratic", "d");
    }
  }

  // conformance: errors.shape_mismatch_is_shape_error
  @Test
  void shapeMismatchIsShapeError() {
    try (NDArray x = NDArray.create(DType.FLOAT32, 2, 3);
        NDArray y = NDArray.create(DType.FLOAT32, 3, 2)) {
      Expect.error(ErrorCode.SHAPE, () -> Ops.call("elemwise_add", null, x, y),
          "elemwise_add", "(2,3)", "(3,2)");
      Expect.error(ErrorCode.SHAPE, () -> x.reshape(4, 2), "reshape", "(4,2)");
    }
  }

  // conformance: errors.malformed_json_is_invalid_arg
  @Test
  void malformedJsonIsInvalidArgument() {
    Expect.error(ErrorCode.INVALID_ARGUMENT, () -> Symbol.fromJson("{bad"), "JSON");
  }

  /** A closed array passed to an op gives INVALID_HANDLE (never a crash or a success). */
  // conformance: ndarray.closed_argument_invalid_handle
  @Test
  void closedArgumentGivesInvalidHandle() {
    try (NDArray a = NDArray.fromArray(new float[] {1, 2}, 2)) {
      NDArray b = NDArray.fromArray(new float[] {3, 4}, 2);
      b.close();
      b.close();
      assertTrue(b.isClosed());
      Expect.error(ErrorCode.INVALID_HANDLE, b::shape, "NDArray is closed");
      Expect.error(ErrorCode.INVALID_HANDLE, () -> Ops.call("elemwise_add", null, a, b),
          "NDArray is closed");
      Expect.error(ErrorCode.INVALID_HANDLE,
          () -> Ops.invokeInto("elemwise_add", null, new NDArray[] {a, a}, b), "NDArray is closed");
      assertArrayEquals(new float[] {1, 2}, a.toFloatArray());
    }
  }

  // conformance: ndarray.zero_copy_round_trip
  @Test
  void zeroCopyRoundTrip() {
    FloatBuffer in = NDArray.allocateFloats(6);
    for (int i = 0; i < 6; ++i) in.put(i, i + 1);
    FloatBuffer out =
        ByteBuffer.allocateDirect(24).order(ByteOrder.nativeOrder()).asFloatBuffer();
    try (NDArray a = NDArray.fromBuffer(in, DType.FLOAT32, 2, 3);
        NDArray b = Ops.call("_mul_scalar", Map.of("scalar", 2), a)) {
      b.copyTo(out);
      for (int i = 0; i < 6; ++i) assertEquals(2f * (i + 1), out.get(i));
      assertEquals(0, out.position());
      a.copyTo(out);
      for (int i = 0; i < 6; ++i) assertEquals(i + 1f, out.get(i));
    }
  }

  // conformance: ndarray.wrong_buffer_size_rejected
  @Test
  void wrongBufferSizeRejected() {
    try (NDArray a = NDArray.create(DType.FLOAT32, 2, 3)) {
      Expect.error(ErrorCode.INVALID_ARGUMENT, () -> a.copyFrom(new float[5]), "nbytes", "24");
      Expect.error(ErrorCode.INVALID_ARGUMENT, () -> a.copyTo(new float[7]), "nbytes", "24");
      Expect.error(ErrorCode.INVALID_ARGUMENT, () -> a.copyFrom(NDArray.allocateFloats(7)),
          "nbytes", "28");
      Expect.error(ErrorCode.INVALID_ARGUMENT, () -> a.copyFrom(FloatBuffer.allocate(6)),
          "not direct");
      ByteOrder other = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN
          ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
      Expect.error(ErrorCode.INVALID_ARGUMENT,
          () -> a.copyFrom(ByteBuffer.allocateDirect(24).order(other).asFloatBuffer()), "order");
      Expect.error(ErrorCode.INVALID_ARGUMENT, () -> NDArray.fromArray(new float[3], 2, 2),
          "nbytes");
    }
  }

  // conformance: ops.imperative_known_numbers
  @Test
  void imperativeOpsWithKnownNumbers() {
    try (NDArray x = NDArray.fromArray(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
        NDArray w = NDArray.fromArray(new float[] {1, 0, 0, 1, 1, 1}, 3, 2);
        NDArray sum = Ops.call("elemwise_add", null, x, x);
        NDArray dot = Ops.call("dot", null, x, w);
        NDArray rows = Ops.call("sum", Map.of("axis", 1), x);
        NDArray q = Ops.call("quadratic", Map.of("a", 1, "b", -2, "c", 1), x)) {
      assertArrayEquals(new float[] {2, 4, 6, 8, 10, 12}, sum.toFloatArray());
      assertArrayEquals(new long[] {2, 2}, dot.shape());
      assertArrayEquals(new float[] {4, 5, 10, 11}, dot.toFloatArray());
      assertArrayEquals(new float[] {6, 15}, rows.toFloatArray());
      assertArrayEquals(new float[] {0, 1, 4, 9, 16, 25}, q.toFloatArray());
    }
    try (NDArray d = NDArray.fromArray(new double[] {0.5, -1.5}, 2);
        NDArray r = Ops.call("_plus_scalar", Map.of("scalar", 0.25), d)) {
      assertEquals(DType.FLOAT64, r.dtype());
      assertArrayEquals(new double[] {0.75, -1.25}, r.toDoubleArray());
    }
  }

  /** invokeInto writes existing arrays; a wrong output shape fails and writes nothing. */
  // conformance: ops.invoke_into_writes_existing_arrays
  @Test
  void invokeIntoWritesExistingArrays() {
    try (NDArray x = NDArray.fromArray(new float[] {1, 2, 3}, 3);
        NDArray y = NDArray.fromArray(new float[] {10, 20, 30}, 3);
        NDArray o = NDArray.fromArray(new float[] {100, 100, 100}, 3);
        NDArray wrong = NDArray.fromArray(new float[] {7, 7, 7, 7}, 4)) {
      Ops.invokeInto("elemwise_add", null, new NDArray[] {x, y}, o);
      assertArrayEquals(new float[] {11, 22, 33}, o.toFloatArray());
      Ops.invokeInto("_plus_scalar", Map.of("scalar", 0.5), new NDArray[] {x}, o);
      assertArrayEquals(new float[] {1.5f, 2.5f, 3.5f}, o.toFloatArray());
      Expect.error(ErrorCode.SHAPE,
          () -> Ops.invokeInto("elemwise_add", null, new NDArray[] {x, y}, wrong));
      assertArrayEquals(new float[] {7, 7, 7, 7}, wrong.toFloatArray());
      Expect.error(ErrorCode.NOT_FOUND,
          () -> Ops.invokeInto("no_such_op", null, new NDArray[] {x}, o), "no_such_op");
      assertArrayEquals(new float[] {1.5f, 2.5f, 3.5f}, o.toFloatArray());
    }
  }

  // conformance: ndarray.reshape_and_slice_are_views
  @Test
  void reshapeAndSliceAreViews() {
    try (NDArray x = NDArray.fromArray(new float[] {1, 2, 3, 4, 5, 6}, 3, 2);
        NDArray r = x.reshape(2, 3);
        NDArray s = x.slice(1, 3)) {
      assertArrayEquals(new long[] {2, 3}, r.shape());
      assertArrayEquals(new long[] {2, 2}, s.shape());
      assertArrayEquals(new float[] {3, 4, 5, 6}, s.toFloatArray());
      s.copyFrom(new float[] {-3, -4, -5, -6});
      assertArrayEquals(new float[] {1, 2, -3, -4, -5, -6}, r.toFloatArray());
    }
  }

  // conformance: symbol.composition_automatic_names
  @Test
  void symbolCompositionWithAutomaticNames() {
    try (Symbol x = Symbol.variable("x");
        Symbol d = Symbol.create("dot", null, null, x);
        Symbol fc1 = Symbol.create("dot", "fc1", null, x);
        Symbol y = Symbol.variable("y");
        Symbol byName = Symbol.create("dot", "fc2", null, Map.of("rhs", y));
        Symbol g = Symbol.group(fc1, byName)) {
      List<String> args = d.listArguments();
      assertEquals(2, args.size());
      assertEquals("x", args.get(0));
      assertTrue(args.get(1).matches("dot\\d+_rhs"), args.toString());
      assertEquals(List.of("x", "fc1_rhs"), fc1.listArguments());
      assertEquals(List.of("fc2_lhs", "y"), byName.listArguments());
      assertEquals(List.of("fc1_output", "fc2_output"), g.listOutputs());
      assertEquals(2, g.numOutputs());
      assertNull(g.name());
      assertEquals("fc1", fc1.name());
      fc1.setAttr("lr_mult", "0.5");
      assertEquals("0.5", fc1.attr("lr_mult"));
      assertFalse(fc1.listAttr(true).isEmpty());
      try (Symbol back = Symbol.fromJson(g.toJson())) {
        assertEquals(g.listArguments(), back.listArguments());
      }
    }
  }

  // conformance: symbol.partial_shape_inference
  @Test
  void partialShapeInference() {
    try (Symbol x = Symbol.variable("x");
        Symbol d = Symbol.create("dot", "fc", null, x)) {
      Map<String, long[]> known = new LinkedHashMap<>();
      known.put("x", new long[] {2, 3});
      ShapeResult p = d.inferShapePartial(known);
      assertFalse(p.complete);
      assertArrayEquals(new long[] {2, 3}, p.arguments.get("x"));
      assertTrue(p.unknown.contains("fc_rhs"), p.unknown.toString());
      Expect.error(ErrorCode.SHAPE, () -> d.inferShape(known), "fc_rhs");
      known.put("fc_rhs", new long[] {3, 4});
      ShapeResult full = d.inferShape(known);
      assertTrue(full.complete);
      assertArrayEquals(new long[] {2, 4}, full.outputs.get("fc_output"));
      TypeResult t = d.inferType(Map.of("x", DType.FLOAT64));
      assertEquals(DType.FLOAT64, t.outputs.get("fc_output"));
    }
  }

  // conformance: threads.concurrent_use_separate_arrays
  @Test
  void concurrentUseOnSeparateArrays() throws InterruptedException {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; ++t) {
      final float base = t;
      threads.add(new Thread(() -> {
        try {
          for (int i = 0; i < 200; ++i) {
            try (NDArray a = NDArray.fromArray(new float[] {base, i}, 2);
                NDArray b = Ops.call("_plus_scalar", Map.of("scalar", 1), a)) {
              float[] v = b.toFloatArray();
              if (v[0] != base + 1 || v[1] != i + 1) throw new AssertionError("bad values");
            }
            WeftException e = assertThrows(WeftException.class, () -> Ops.call("nope" + base, null));
            if (!e.getMessage().contains("nope" + base)) throw new AssertionError(e.getMessage());
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }));
    }
    for (Thread th : threads) th.start();
    for (Thread th : threads) th.join();
    if (failure.get() != null) throw new AssertionError(failure.get());
  }
}
