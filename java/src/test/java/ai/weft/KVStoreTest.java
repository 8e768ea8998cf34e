package ai.weft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** KVStore through the binding (the same cases in NUnit and go test). */
@ExtendWith(LiveHandles.class)
class KVStoreTest {
  // conformance: kvstore.push_sums_and_pull_copies
  @Test
  void pushSumsRepeatedKeysAndPullCopies() {
    try (KVStore kv = KVStore.create("local");
        NDArray w = NDArray.fromArray(new float[] {1, 2, 3}, 3);
        NDArray a = NDArray.fromArray(new float[] {0.5f, -1, 4}, 3);
        NDArray b = NDArray.fromArray(new float[] {10, 20, 30}, 3);
        NDArray out = NDArray.fromArray(new float[] {0, 0, 0}, 3)) {
      assertEquals("local", kv.type());
      assertEquals(0, kv.rank());
      assertEquals(1, kv.numWorkers());
      kv.init(new String[] {"w"}, new NDArray[] {w});
      kv.push(new String[] {"w", "w"}, new NDArray[] {a, b}, 0);
      kv.pull(new String[] {"w"}, new NDArray[] {out}, 0);
      assertArrayEquals(new float[] {10.5f, 19, 34}, out.toFloatArray(), 1e-6f);
      kv.barrier();
    }
  }

  // conformance: kvstore.optimizer_runs_on_push
  @Test
  void optimizerRunsOnPush() {
    try (KVStore kv = KVStore.create("device");
        Optimizer opt = Optimizer.create("sgd", Map.of("learning_rate", "0.1"));
        NDArray w = NDArray.fromArray(new float[] {1, -1}, 2);
        NDArray g = NDArray.fromArray(new float[] {0.5f, 2}, 2)) {
      kv.setOptimizer(opt);
      kv.init(new String[] {"fc_weight"}, new NDArray[] {w});
      kv.pushPull(new String[] {"fc_weight"}, new NDArray[] {g}, new NDArray[] {w}, 0);
      assertArrayEquals(new float[] {1 - 0.1f * 0.5f, -1 - 0.1f * 2}, w.toFloatArray(), 1e-6f);
    }
  }

  // conformance: kvstore.updater_runs_on_push
  @Test
  void updaterRunsOnPush() {
    try (KVStore kv = KVStore.create("local");
        NDArray w = NDArray.fromArray(new float[] {1, 2}, 2);
        NDArray g1 = NDArray.fromArray(new float[] {1, 3}, 2);
        NDArray g2 = NDArray.fromArray(new float[] {3, 1}, 2);
        NDArray out = NDArray.fromArray(new float[] {0, 0}, 2)) {
      java.util.List<String> calls = new java.util.ArrayList<>();
      kv.init(new String[] {"w"}, new NDArray[] {w});
      kv.setUpdater((key, sum, stored) -> {  // stored -= 0.5 * sum
        calls.add(key);
        Ops.invokeInto("sgd_update", Map.of("lr", 0.5), new NDArray[] {stored, sum}, stored);
      });
      kv.push(new String[] {"w", "w"}, new NDArray[] {g1, g2}, 0);
      kv.pull(new String[] {"w"}, new NDArray[] {out}, 0);
      assertArrayEquals(new float[] {-1, 0}, out.toFloatArray(), 0f);
      kv.pushPull(new String[] {"w"}, new NDArray[] {g1}, new NDArray[] {out}, 0);
      assertArrayEquals(new float[] {-1.5f, -1.5f}, out.toFloatArray(), 0f);
      assertEquals(java.util.List.of("w", "w"), calls);
      kv.setUpdater((key, sum, stored) -> {
        throw new IllegalStateException("updater failed for " + key);
      });
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> kv.push(new String[] {"w"}, new NDArray[] {g1}, 0));
      assertEquals("updater failed for w", e.getMessage());
      kv.setUpdater(null);  // plain sums again
      kv.pushPull(new String[] {"w"}, new NDArray[] {g2}, new NDArray[] {out}, 0);
      assertArrayEquals(new float[] {3, 1}, out.toFloatArray(), 0f);
    }
  }

  // conformance: kvstore.errors_name_the_key
  @Test
  void errorsNameTheKey() {
    WeftException e = assertThrows(WeftException.class, () -> KVStore.create("ps"));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    try (KVStore kv = KVStore.create("local");
        NDArray w = NDArray.fromArray(new float[] {1, 2}, 2);
        NDArray big = NDArray.fromArray(new float[] {1, 2, 3}, 3)) {
      e = assertThrows(WeftException.class, () -> kv.push(new String[] {"w"}, new NDArray[] {w}, 0));
      assertTrue(e.getMessage().contains("'w'"), e.getMessage());
      kv.init(new String[] {"w"}, new NDArray[] {w});
      e = assertThrows(WeftException.class, () -> kv.pull(new String[] {"w"}, new NDArray[] {big}, 0));
      assertEquals(ErrorCode.SHAPE, e.code());
    }
  }
}
