package ai.weft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Monitor callbacks (issue 46): the same case in NUnit and go test. */
@ExtendWith(LiveHandles.class)
class MonitorTest {
  // conformance: monitor.callbacks_see_outputs_and_errors
  @Test
  void callbacksSeeOutputsAndErrors() {
    List<String> names = new ArrayList<>();
    double[] seenStat = {-1};
    try (Symbol mlp = Symbol.fromJson(TrainingTest.MLP_JSON);
        Executor ex = Executor.simpleBind(mlp, Map.of("data", new long[] {8, 2}), "write")) {
      Map<String, NDArray> args = ex.argArrays();
      args.get("data").copyFrom(new float[] {1, -2, 3, -4, 5, -6, 7, -8, 1, 2, 3, 4, 5, 6, 7, 8});
      args.get("fc1_bias").copyFrom(filled(16, 1f));
      args.get("fc2_weight").copyFrom(filled(64, 0.25f));
      NDArray.closeAll(args);
      // With gradients no inference pass fuses the nodes: one call per node output.
      ex.setMonitorCallback((name, value) -> {
        names.add(name);
        if (name.equals("fc2_output")) seenStat[0] = value.monitorStat();
      }, false);
      ex.forward(true);
      Weft.waitAll();
      assertEquals(List.of("fc1_output", "relu1_output", "fc2_output", "softmax_output"), names);
      // fc1's weight is zero and its bias one: relu1 gives 16 ones per row, so each of fc2's
      // 8 x 4 outputs is 16 * 0.25 = 4 and norm / sqrt(size) = 4.
      assertEquals(4.0, seenStat[0], 1e-12);
      assertEquals(1, Monitors.live());

      names.clear();
      ex.setMonitorCallback((name, value) -> names.add(name), true);
      ex.forward(true);
      Weft.waitAll();
      // Each node's inputs (named as the entries they are), then its output.
      assertEquals(List.of("data", "fc1_weight", "fc1_bias", "fc1_output", "fc1_output",
          "relu1_output", "relu1_output", "fc2_weight", "fc2_bias", "fc2_output", "fc2_output",
          "softmax_label", "softmax_output"), names);
      assertEquals(1, Monitors.live());

      ex.setMonitorCallback((name, value) -> {
        throw new IllegalStateException("refused " + name);
      }, false);
      Expect.error(ErrorCode.INVALID_ARGUMENT, () -> ex.forward(true),
          "monitor callback for 'fc1_output' returned an error: "
              + "java.lang.IllegalStateException: refused fc1_output");
      Weft.waitAll();

      names.clear();
      ex.setMonitorCallback(null, false);
      assertEquals(0, Monitors.live());
      ex.forward(true);
      Weft.waitAll();
      assertTrue(names.isEmpty());
      ex.setMonitorCallback((name, value) -> names.add(name), false);
    }
    assertEquals(0, Monitors.live()); // closing the executor drops its callback
  }

  static float[] filled(int n, float v) {
    float[] a = new float[n];
    java.util.Arrays.fill(a, v);
    return a;
  }
}
