package ai.weft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The live-handle check of every test class ({@code @ExtendWith(LiveHandles.class)}): each test
 * ends with as many live native handles as it started with (after the engine's queued work), and
 * the class ends with none.
 */
final class LiveHandles implements BeforeEachCallback, AfterEachCallback, AfterAllCallback {
  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(LiveHandles.class);

  @Override
  public void beforeEach(ExtensionContext context) {
    context.getStore(NS).put("start", Weft.liveHandleCount());
  }

  @Override
  public void afterEach(ExtensionContext context) {
    Weft.waitAll();
    long start = context.getStore(NS).get("start", Long.class);
    assertEquals(start, Weft.liveHandleCount(), "live handles leaked by the test");
  }

  @Override
  public void afterAll(ExtensionContext context) {
    Weft.waitAll();
    assertEquals(0, Weft.liveHandleCount(), "live handles at the end of the class");
  }
}
