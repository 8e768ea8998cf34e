package ai.weft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.weft.Executor.GradReq;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Autograd: recording scopes, marked variables, backward, grad, detach, symbols (issue 43). */
@ExtendWith(LiveHandles.class)
class AutogradTest {
  private static NDArray mul(NDArray a, NDArray b) {
    return Ops.call("elemwise_mul", null, a, b);
  }

  private static float[] values(NDArray a) {
    try (a) {
      return a.toFloatArray();
    }
  }

  // conformance: autograd.mlp_gradients_known_numbers
  @Test
  void mlpGradientsKnownNumbers() {
    try (NDArray x = NDArray.fromArray(new float[] {1, 2, 3}, 3);
        NDArray acc = NDArray.fromArray(new float[] {1, 2, 3}, 3)) {
      x.attachGrad();
      acc.attachGrad(GradReq.ADD);
      for (int round = 0; round < 2; ++round) {
        NDArray y;
        NDArray z;
        try (Autograd.Scope rec = Autograd.record()) {
          y = mul(x, x);
          z = mul(acc, acc);
        }
        try (y; z) {
          y.backward();
          Autograd.backward(z);
        }
      }
      assertArrayEquals(new float[] {2, 4, 6}, values(x.grad()));  // written
      assertArrayEquals(new float[] {4, 8, 12}, values(acc.grad()));  // added twice
    }
    // FullyConnected -> relu -> sum: dW = column sums of x, db = rows, dx = W per row.
    try (NDArray x = NDArray.fromArray(new float[] {1, 2, 3, 4}, 2, 2);
        NDArray w = NDArray.fromArray(new float[] {1, -1}, 1, 2);
        NDArray b = NDArray.fromArray(new float[] {2}, 1);
        NDArray gx = NDArray.fromArray(new float[] {0, 0, 0, 0}, 2, 2);
        NDArray gw = NDArray.fromArray(new float[] {0, 0}, 1, 2);
        NDArray gb = NDArray.fromArray(new float[] {0}, 1)) {
      Autograd.markVariables(new NDArray[] {x, w, b}, null, new NDArray[] {gx, gw, gb});
      NDArray loss;
      try (Autograd.Scope rec = Autograd.record();
          NDArray fc = Ops.call("FullyConnected", Map.of("num_hidden", 1), x, w, b);
          NDArray act = Ops.call("Activation", Map.of("act_type", "relu"), fc)) {
        loss = Ops.call("sum", null, act);
      }
      try (loss) {
        assertArrayEquals(new float[] {2}, loss.toFloatArray());  // relu(1) + relu(1)
        loss.backward();
      }
      assertArrayEquals(new float[] {4, 6}, gw.toFloatArray());
      assertArrayEquals(new float[] {2}, gb.toFloatArray());
      assertArrayEquals(new float[] {1, -1, 1, -1}, gx.toFloatArray());
    }
  }

  // conformance: autograd.higher_order_grad
  @Test
  void higherOrderGrad() {
    try (NDArray x = NDArray.fromArray(new float[] {1, 2, 3}, 3)) {
      x.attachGrad();
      NDArray sq;
      NDArray y;
      try (Autograd.Scope rec = Autograd.record()) {
        sq = mul(x, x);
        y = mul(sq, x); // x^3
      }
      try (sq; y) {
        NDArray[] d1 = Autograd.grad(new NDArray[] {y}, new NDArray[] {x}, null, false, true, true);
        try (NDArray g1 = d1[0]) {
          assertArrayEquals(new float[] {3, 12, 27}, g1.toFloatArray()); // 3x^2
          NDArray[] d2 = Autograd.grad(new NDArray[] {g1}, new NDArray[] {x});
          assertArrayEquals(new float[] {6, 12, 18}, values(d2[0])); // 6x
        }
      }
    }
  }

  // conformance: autograd.grad_detach_and_symbol
  @Test
  void gradDetachAndSymbol() {
    try (NDArray x = NDArray.fromArray(new float[] {1, 2, 3}, 3);
        NDArray twos = NDArray.fromArray(new float[] {2, 2, 2}, 3)) {
      assertNull(x.grad());  // not marked
      x.attachGrad();
      NDArray sq;
      NDArray d;
      NDArray z;
      try (Autograd.Scope rec = Autograd.record()) {
        sq = mul(x, x);
        d = sq.detach();
        z = mul(d, x);  // d(detach(x*x) * x)/dx = x*x
      }
      try (sq; d; z) {
        // grad: new arrays, the buffer untouched; head gradients scale them.
        NDArray[] g = Autograd.grad(new NDArray[] {z}, new NDArray[] {x},
            new NDArray[] {twos}, true, true);
        assertEquals(1, g.length);
        assertArrayEquals(new float[] {2, 8, 18}, values(g[0]));
        assertArrayEquals(new float[] {0, 0, 0}, values(x.grad()));
        try (Symbol s = Autograd.getSymbol(sq)) {
          assertEquals(1, s.listArguments().size());  // x, the one variable
        }
        Autograd.backward(z);
        assertArrayEquals(new float[] {1, 4, 9}, values(x.grad()));
        assertArrayEquals(new float[] {1, 4, 9}, d.toFloatArray());  // same storage as sq
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> Autograd.backward(d), "not recorded");
      }
    }
  }

  // conformance: autograd.scope_restores_flags_and_errors
  @Test
  void scopeRestoresFlagsAndErrors() throws Exception {
    assertFalse(Autograd.isRecording());
    assertFalse(Autograd.isTraining());
    try (Autograd.Scope rec = Autograd.record()) {
      assertTrue(Autograd.isRecording());
      assertTrue(Autograd.isTraining());
      try (Autograd.Scope p = Autograd.pause()) {
        assertFalse(Autograd.isRecording());
        assertFalse(Autograd.isTraining());
        try (Autograd.Scope inner = Autograd.record(false)) {
          assertTrue(Autograd.isRecording());
          assertFalse(Autograd.isTraining());
        }
        assertFalse(Autograd.isRecording());
      }
      assertTrue(Autograd.isRecording());
      assertTrue(Autograd.isTraining());
      // The flags are the thread's: another thread does not record.
      AtomicReference<Boolean> other = new AtomicReference<>();
      Thread t = new Thread(() -> other.set(Autograd.isRecording()));
      t.start();
      t.join();
      assertEquals(Boolean.FALSE, other.get());
    }
    assertFalse(Autograd.isRecording());
    assertFalse(Autograd.isTraining());
    assertThrows(IllegalStateException.class, () -> {
      try (Autograd.Scope rec = Autograd.record()) {
        throw new IllegalStateException("inside");
      }
    });
    assertFalse(Autograd.isRecording());
    assertFalse(Autograd.setRecording(true));
    assertTrue(Autograd.setRecording(false));
    assertFalse(Autograd.setTraining(true));
    assertTrue(Autograd.setTraining(false));
    Autograd.Scope opened = Autograd.record();
    AtomicReference<Throwable> closing = new AtomicReference<>();
    Thread t = new Thread(() -> {
      try {
        opened.close();
      } catch (Throwable e) {
        closing.set(e);
      }
    });
    t.start();
    t.join();
    assertTrue(closing.get() instanceof IllegalStateException, String.valueOf(closing.get()));
    opened.close();
    opened.close();
    assertFalse(Autograd.isRecording());

    try (NDArray x = NDArray.fromArray(new float[] {1, 2, 3}, 3);
        NDArray small = NDArray.fromArray(new float[] {0, 0}, 2)) {
      Expect.error(ErrorCode.INVALID_ARGUMENT, () -> Autograd.backward(x), "not recorded");
      Expect.error(ErrorCode.SHAPE, () -> Autograd.markVariables(new NDArray[] {x}, null,
          new NDArray[] {small}), "gradient buffer of variable 0", "(2,)");
      Expect.error(ErrorCode.INVALID_ARGUMENT, () -> Autograd.markVariables(new NDArray[] {x},
          new GradReq[] {GradReq.WRITE, GradReq.ADD}, null), "reqs", "2");
      x.attachGrad();
      NDArray y;
      try (Autograd.Scope rec = Autograd.record()) {
        y = mul(x, x);
      }
      try (y) {
        Expect.error(ErrorCode.SHAPE, () -> Autograd.backward(new NDArray[] {y},
            new NDArray[] {small}, false, true), "head gradient 0");
        Autograd.backward(new NDArray[] {y}, null, true, true);  // retained
        Autograd.backward(y);
        Expect.error(ErrorCode.INVALID_ARGUMENT, y::backward, "retain_graph");
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> Autograd.getSymbol(small), "not recorded");
      }
      assertArrayEquals(new float[] {2, 4, 6}, values(x.grad()));
    }
  }
}
