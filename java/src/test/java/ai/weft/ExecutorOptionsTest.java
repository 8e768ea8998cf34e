package ai.weft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Executor binding options (the same cases in NUnit and go test): gradient
 * requests by argument name, the planner and execution options giving the
 * default numbers, device groups, and the errors (bad values, an unknown
 * argument, closed options).
 */
@ExtendWith(LiveHandles.class)
class ExecutorOptionsTest {
  static final float[] A = {1, 2, -3, 4};
  static final float[] B = {5, -6, 7, 0.5f};
  static final float[] C = {0.25f, 1, 6, -8};

  /** Sets a, b, c on {@code ex}, runs forward and returns the output. */
  static float[] forward(Executor ex, boolean isTrain) {
    Map<String, NDArray> args = ex.argArrays();
    try {
      args.get("a").copyFrom(A);
      args.get("b").copyFrom(B);
      args.get("c").copyFrom(C);
    } finally {
      NDArray.closeAll(args);
    }
    ex.forward(isTrain);
    List<NDArray> outs = ex.outputs();
    try {
      return outs.get(0).toFloatArray();
    } finally {
      NDArray.closeAll(outs);
    }
  }

  /**
   * gradReq("a", "write") only: after forward/backward a's gradient is the
   * closed form head * b, and b and c have no gradient array (WEFT_REQ_NULL).
   */
  // conformance: executor_options.grad_req_per_argument
  @Test
  void gradReqForOneArgumentOnly() {
    float[] hg = {1, 2, 3, 4};
    try (Symbol f = TrainingTest.abPlusC();
        ExecutorOptions o = new ExecutorOptions().gradReq("a", "write");
        Executor ex = Executor.simpleBind(f, o, Context.cpu(), TrainingTest.shapes(2, 2), null)) {
      float[] out = forward(ex, true);
      for (int i = 0; i < 4; ++i) assertEquals(A[i] * B[i] + C[i], out[i], 0f, "out[" + i + "]");
      try (NDArray head = NDArray.fromArray(hg, 2, 2)) {
        ex.backward(head);
      }
      Map<String, NDArray> g = ex.gradArrays();
      try {
        assertEquals(List.of("a"), new ArrayList<>(g.keySet()));
        float[] ga = g.get("a").toFloatArray();
        for (int i = 0; i < 4; ++i) assertEquals(hg[i] * B[i], ga[i], 0f, "d/da[" + i + "]");
      } finally {
        NDArray.closeAll(g);
      }
    }
    // The enum overload, and a later request replacing an earlier one.
    try (Symbol f = TrainingTest.abPlusC();
        ExecutorOptions o = new ExecutorOptions().gradReq("b", Executor.GradReq.WRITE)
            .gradReq("c", "add").gradReq("c", Executor.GradReq.NULL);
        Executor ex = Executor.simpleBind(f, o, null, TrainingTest.shapes(2, 2), null)) {
      Map<String, NDArray> g = ex.gradArrays();
      try {
        assertEquals(List.of("b"), new ArrayList<>(g.keySet()));
      } finally {
        NDArray.closeAll(g);
      }
    }
  }

  /**
   * allowFallback(false) binds on the CPU (nothing to fall back), and with
   * matchRange 0, numGroups 2, bulkMaxNodes 0 and optimizeInference false the
   * numbers are those of the defaults (null options); the match range reaches
   * the memory planner (Executor.memory()). Options are reusable and may be
   * closed while their executor lives; bind takes them too.
   */
  // conformance: executor_options.default_numbers
  @Test
  void optionsGiveTheDefaultNumbers() {
    try (Symbol f = TrainingTest.abPlusC();
        Executor plain = Executor.simpleBind(f, null, Context.cpu(), TrainingTest.shapes(2, 2),
            null)) {
      float[] want = forward(plain, false);
      for (int i = 0; i < 4; ++i) assertEquals(A[i] * B[i] + C[i], want[i], 0f);
      assertEquals(16, plain.memory().matchRange, "default match range");
      Executor ex1;
      Executor ex2;
      try (ExecutorOptions o = new ExecutorOptions().allowFallback(false).matchRange(0)
          .numGroups(2).bulkMaxNodes(0).optimizeInference(false)) {
        ex1 = Executor.simpleBind(f, o, Context.cpu(), TrainingTest.shapes(2, 2), null);
        o.matchRange(5).optimizeInference(true).allowFallback(true).bulkMaxNodes(-1);
        ex2 = Executor.simpleBind(f, o, Context.cpu(), TrainingTest.shapes(2, 2), null);
      }
      try {
        assertArrayEquals(want, forward(ex1, false), 0f);
        assertArrayEquals(want, forward(ex2, true), 0f);
        assertEquals(5, ex2.memory().matchRange, "match range 5 reaches the planner");
        TrainingTest.checkAbPlusC(ex1, 1);
      } finally {
        ex1.close();
        ex2.close();
      }
    }
    try (Symbol f = TrainingTest.abPlusC();
        NDArray a = NDArray.fromArray(A, 4);
        NDArray b = NDArray.fromArray(B, 4);
        NDArray c = NDArray.fromArray(C, 4);
        NDArray ga = NDArray.create(DType.FLOAT32, 4);
        ExecutorOptions o = new ExecutorOptions().matchRange(3).numGroups(2).allowFallback(false);
        Executor ex = Executor.bind(f, o, Context.cpu(), List.of(a, b, c),
            java.util.Arrays.asList(ga, null, null), null, null)) {
      assertEquals(3, ex.memory().matchRange);
      ex.forward(true);
      List<NDArray> outs = ex.outputs();
      try {
        float[] out = outs.get(0).toFloatArray();
        for (int i = 0; i < 4; ++i) assertEquals(A[i] * B[i] + C[i], out[i], 0f);
      } finally {
        NDArray.closeAll(outs);
      }
      try (NDArray hg = NDArray.fromArray(new float[] {1, 1, 1, 1}, 4)) {
        ex.backward(hg);
      }
      assertArrayEquals(B, ga.toFloatArray(), 0f);  // shared, d/da = b
    }
  }

  /** group(): each group's arguments on its device, as group2ctx. */
  // conformance: executor_options.groups_place_arguments
  @Test
  void groupsPlaceArguments() {
    try (Symbol f = DeviceDataTest.groupedAbPlusC();
        ExecutorOptions o = new ExecutorOptions().group("stage1", Context.cpu(1))
            .group("stage2", Context.cpu(2));
        Executor ex = Executor.simpleBind(f, o, Context.cpu(), TrainingTest.shapes(2, 2), null)) {
      Map<String, NDArray> args = ex.argArrays();
      try {
        assertEquals(Context.cpu(1), args.get("a").context());
        assertEquals(Context.cpu(2), args.get("c").context());
      } finally {
        NDArray.closeAll(args);
      }
      TrainingTest.checkAbPlusC(ex, 2);
    }
  }

  /**
   * Bad values fail with INVALID_ARGUMENT naming them (and change nothing);
   * a gradient request for a non-argument fails the bind naming it; bind
   * rejects requests by name; closed options fail with INVALID_HANDLE; every
   * options object is a live handle until closed.
   */
  // conformance: executor_options.errors
  @Test
  void errors() {
    long before = Weft.liveHandleCount();
    try (Symbol f = TrainingTest.abPlusC(); ExecutorOptions o = new ExecutorOptions()) {
      assertEquals(before + 2, Weft.liveHandleCount(), "options are a live handle");
      WeftException e = assertThrows(WeftException.class, () -> o.matchRange(-1));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
      assertTrue(e.getMessage().contains("match_range") && e.getMessage().contains("-1"),
          e.getMessage());
      e = assertThrows(WeftException.class, () -> o.numGroups(0));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
      assertTrue(e.getMessage().contains("num_groups") && e.getMessage().contains("0"),
          e.getMessage());
      e = assertThrows(WeftException.class, () -> o.gradReq("a", "sometimes"));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
      assertTrue(e.getMessage().contains("sometimes"), e.getMessage());
      e = assertThrows(WeftException.class,
          () -> o.group("stage1", Context.cpu(1)).group("stage1", Context.cpu(2)));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
      assertTrue(e.getMessage().contains("stage1"), e.getMessage());
      // The failed setters changed nothing: the bind has the default match range.
      try (Executor ex = Executor.simpleBind(f, o, Context.cpu(), TrainingTest.shapes(2, 2),
          null)) {
        assertEquals(16, ex.memory().matchRange);
      }
      o.gradReq("zz", "write");
      e = assertThrows(WeftException.class,
          () -> Executor.simpleBind(f, o, Context.cpu(), TrainingTest.shapes(2, 2), null));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
      assertTrue(e.getMessage().contains("'zz'"), e.getMessage());
      try (NDArray a = NDArray.fromArray(A, 4)) {
        e = assertThrows(WeftException.class,
            () -> Executor.bind(f, o, Context.cpu(), List.of(a, a, a), null, null, null));
        assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("zz"), e.getMessage());
      }
    }
    assertEquals(before, Weft.liveHandleCount());
    ExecutorOptions closed = new ExecutorOptions();
    closed.close();
    closed.close();  // idempotent
    try (Symbol f = TrainingTest.abPlusC()) {
      WeftException e = assertThrows(WeftException.class, () -> closed.matchRange(1));
      assertEquals(ErrorCode.INVALID_HANDLE, e.code());
      e = assertThrows(WeftException.class,
          () -> Executor.simpleBind(f, closed, Context.cpu(), TrainingTest.shapes(2, 2), null));
      assertEquals(ErrorCode.INVALID_HANDLE, e.code());
      assertTrue(e.getMessage().contains("ExecutorOptions"), e.getMessage());
      try (NDArray a = NDArray.fromArray(A, 4)) {
        e = assertThrows(WeftException.class,
            () -> Executor.bind(f, closed, Context.cpu(), List.of(a, a, a), null, null, null));
        assertEquals(ErrorCode.INVALID_HANDLE, e.code());
      }
    }
  }
}
