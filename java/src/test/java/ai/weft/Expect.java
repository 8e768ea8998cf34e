package ai.weft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.function.Executable;

/** The error expectation of the JUnit suites. */
final class Expect {
  private Expect() {}

  /** Runs {@code call}, expecting a WeftException with {@code code} whose message holds every fragment. */
  static WeftException error(ErrorCode code, Executable call, String... fragments) {
    WeftException e = assertThrows(WeftException.class, call);
    assertEquals(code, e.code(), e.getMessage());
    for (String f : fragments) {
      assertTrue(e.getMessage().contains(f), "message '" + e.getMessage() + "' lacks '" + f + "'");
    }
    return e;
  }
}
