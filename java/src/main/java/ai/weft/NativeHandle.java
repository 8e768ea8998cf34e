package ai.weft;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An owned C ABI handle. {@link #close()} frees it exactly once (idempotent and
 * safe from several threads); using a closed object throws a WeftException
 * with code INVALID_HANDLE. There is no finalizer: close objects with
 * try-with-resources. Handles are generation-checked by the library, so a
 * racing use-after-close is reported as an error, never undefined behaviour.
 *
 * <p>With {@code -Dweft.leakcheck=true} a Cleaner reports (never frees) objects
 * that became unreachable without close(): a line on stderr and
 * {@link Weft#leakedObjects()}.
 */
public abstract class NativeHandle implements AutoCloseable {
  private static final Cleaner LEAK_CLEANER =
      Boolean.getBoolean("weft.leakcheck") ? Cleaner.create() : null;
  static final AtomicLong LEAKS = new AtomicLong();

  private final AtomicLong handle;
  private final Cleaner.Cleanable leakCheck;

  NativeHandle(long handle) {
    Native.ensureLoaded();
    this.handle = new AtomicLong(handle);
    if (LEAK_CLEANER != null) {
      final AtomicLong h = this.handle;  // the action must not reference this
      final String kind = getClass().getSimpleName();
      leakCheck = LEAK_CLEANER.register(this, () -> {
        if (h.get() != 0) {
          LEAKS.incrementAndGet();
          System.err.println("weft: leaked " + kind + " (never closed)");
        }
      });
    } else {
      leakCheck = null;
    }
  }

  /** The raw handle; throws when closed. */
  final long handle() {
    long h = handle.get();
    if (h == 0) {
      throw new WeftException(ErrorCode.INVALID_HANDLE, getClass().getSimpleName() + " is closed");
    }
    return h;
  }

  /** True after {@link #close()}. */
  public final boolean isClosed() {
    return handle.get() == 0;
  }

  /** Releases the native object; further calls do nothing. */
  @Override
  public final void close() {
    long h = handle.getAndSet(0);
    if (h != 0) {
      if (leakCheck != null) leakCheck.clean();  // closed: nothing to report
      free(h);
    }
  }

  /**
   * Forgets the handle without freeing it (a borrowed handle, such as a custom operator's view,
   * whose owner frees it); later uses throw as after close().
   */
  final void forget() {
    if (handle.getAndSet(0) != 0 && leakCheck != null) leakCheck.clean();
  }

  /** Frees {@code h} with the matching C function. */
  abstract void free(long h);

  /** Raw handles of {@code objs} (none may be closed). */
  static long[] handles(NativeHandle... objs) {
    long[] hs = new long[objs.length];
    for (int i = 0; i < objs.length; ++i) hs[i] = objs[i].handle();
    return hs;
  }
}
