package ai.weft;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * The monitor callbacks the library can call, by id (bindings/weft.i passes the id as the C
 * callback's user pointer and calls {@link #dispatch}). Each monitored object owns a
 * {@link Slot}; a callback leaves the table when it is replaced or its owner is closed.
 */
final class Monitors {
  private Monitors() {}

  private static final AtomicLong NEXT_ID = new AtomicLong(1);
  private static final Map<Long, MonitorCallback> CALLBACKS = new ConcurrentHashMap<>();

  /** One owner's installed callback. */
  static final class Slot {
    private long id;

    /** Installs {@code callback} (null removes) through {@code install}, which gets its id. */
    synchronized void set(MonitorCallback callback, LongConsumer install) {
      long next = 0;
      if (callback != null) {
        next = NEXT_ID.getAndIncrement();
        CALLBACKS.put(next, callback);
      }
      try {
        install.accept(next);
      } catch (RuntimeException e) {
        if (next != 0) CALLBACKS.remove(next);
        throw e;
      }
      clear();
      id = next;
    }

    /** Forgets the installed callback (its owner was closed or replaced it). */
    synchronized void clear() {
      if (id != 0) CALLBACKS.remove(id);
      id = 0;
    }
  }

  /** Callbacks installed on live objects (for leak checks; 0 once their owners are closed). */
  static int live() {
    return CALLBACKS.size();
  }

  /** The trampoline's target: null, or the message that fails the monitored call. */
  static String dispatch(long id, String name, long array) {
    MonitorCallback callback = CALLBACKS.get(id);
    if (callback == null) return null;  // replaced while a call on another thread was running
    NDArray value = new NDArray(array);
    try {
      callback.accept(name, value);
      return null;
    } catch (Throwable t) {
      String m = t.getMessage();
      return t.getClass().getName() + (m == null ? "" : ": " + m);
    } finally {
      value.forget();
    }
  }
}
