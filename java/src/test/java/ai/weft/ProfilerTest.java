package ai.weft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The profiler and the symbol reports (issue 46): the same cases in NUnit and go test. */
@ExtendWith(LiveHandles.class)
class ProfilerTest {
  static int count(String text, String needle) {
    int n = 0;
    for (int at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) ++n;
    return n;
  }

  // conformance: profiler.trace_table_and_ranges
  @Test
  void traceTableAndRanges() throws java.io.IOException {
    Path file = Files.createTempDirectory("weft-prof").resolve("trace.json");
    Profiler.setConfig(Map.of("profile_all", "1", "filename", file.toString()));
    Profiler.setRunning(true);
    assertTrue(Profiler.isRunning());
    try (NDArray x = NDArray.fromArray(new float[] {1, 4, 9}, 3);
        Profiler.Range r = Profiler.range("outer")) {
      Ops.call("sqrt", Map.of(), x).close();
      Profiler.marker("after sqrt");
      Profiler.counter("samples", 3);
    }
    Weft.waitAll();
    String trace = Profiler.trace();
    assertEquals(1, count(trace, "\"name\":\"sqrt\",\"cat\":\"operator\""), trace);
    assertTrue(trace.contains("\"name\":\"outer\""), trace);
    assertTrue(trace.contains("\"samples\":3"), trace);
    String table = Profiler.aggregate("table", "count", false, false);
    assertTrue(table.contains("sqrt") && table.contains("Total Count"), table);
    Profiler.dump(true);
    assertFalse(Profiler.isRunning());
    assertTrue(Files.readString(file).contains("\"traceEvents\""));
    Expect.error(ErrorCode.INVALID_ARGUMENT, () -> Profiler.setConfig(Map.of("nope", "1")),
        "unknown key 'nope'");
    Expect.error(ErrorCode.INVALID_ARGUMENT, () -> Profiler.aggregate("xml", null, false, false),
        "'xml'");
  }

  // conformance: symbol.summary_and_dot
  @Test
  void summaryAndDot() {
    try (Symbol mlp = Symbol.fromJson(TrainingTest.MLP_JSON)) {
      String summary = mlp.summary(Map.of("data", new long[] {8, 2}));
      assertTrue(summary.contains("fc1(FullyConnected)"), summary);
      assertTrue(summary.contains("Total params: 116"), summary); // (2*16+16) + (16*4+4)
      String dot = mlp.toDot(Map.of("data", new long[] {8, 2}), Map.of("title", "mlp"));
      assertTrue(dot.startsWith("digraph \"mlp\""), dot);
      assertTrue(dot.contains("label=\"16\""), dot); // fc1's output per sample
      assertFalse(dot.contains("fc1_weight"), dot);
      Expect.error(ErrorCode.INVALID_ARGUMENT, () -> mlp.toDot(Map.of(), Map.of("colour", "1")),
          "unknown option 'colour'");
    }
  }
}
