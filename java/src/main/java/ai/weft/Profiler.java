package ai.weft;

import java.util.Map;

/**
 * The process profiler (MXNet's {@code mx.profiler}): Chrome traces of what ran
 * where, the aggregate table per operator, and user ranges, markers and counters.
 * Thread-safe; ranges are per thread. docs/profiler.md describes the trace.
 */
public final class Profiler {
  private Profiler() {}

  /**
   * Sets the configuration from MXNet's keys (profile_all, profile_symbolic,
   * profile_imperative, profile_memory, profile_api, filename, continuous_dump,
   * dump_period, aggregate_stats); keys not given take MXNet's defaults.
   */
  public static void setConfig(Map<String, String> config) {
    Native.ensureLoaded();
    String[] keys = config.keySet().toArray(new String[0]);
    String[] values = new String[keys.length];
    for (int i = 0; i < keys.length; ++i) values[i] = config.get(keys[i]);
    weft_native.weft_profiler_set_config(keys.length, keys, values);
  }

  /** Starts (true) or stops (false) recording. */
  public static void setRunning(boolean run) {
    Native.ensureLoaded();
    weft_native.weft_profiler_set_state(run ? 1 : 0);
  }

  public static boolean isRunning() {
    Native.ensureLoaded();
    return weft_native.weft_profiler_get_state() == 1;
  }

  /** Pauses (true) or resumes (false) recording without stopping. */
  public static void pause(boolean paused) {
    Native.ensureLoaded();
    weft_native.weft_profiler_pause(paused ? 1 : 0);
  }

  /** Writes the trace to the configured file; {@code finished} closes it and stops. */
  public static void dump(boolean finished) {
    Native.ensureLoaded();
    weft_native.weft_profiler_dump(finished ? 1 : 0);
  }

  /** The trace JSON, without writing or forgetting anything. */
  public static String trace() {
    Native.ensureLoaded();
    return Strings.take(weft_native.weft_profiler_trace()).get(0);
  }

  /**
   * The aggregate table: {@code format} "table" or "json", {@code sortBy} "total",
   * "avg", "min", "max" or "count"; {@code reset} clears the statistics.
   */
  public static String aggregate(String format, String sortBy, boolean ascending, boolean reset) {
    Native.ensureLoaded();
    return Strings.take(
        weft_native.weft_profiler_aggregate(reset ? 1 : 0, format, sortBy, ascending ? 1 : 0))
        .get(0);
  }

  /** A user range on this thread, closed by {@link Range#close}. */
  public static Range range(String name) {
    Native.ensureLoaded();
    weft_native.weft_profiler_range_push(name);
    return new Range();
  }

  /** An instant user event. */
  public static void marker(String name) {
    Native.ensureLoaded();
    weft_native.weft_profiler_set_marker(name);
  }

  /** A user counter sample. */
  public static void counter(String name, long value) {
    Native.ensureLoaded();
    weft_native.weft_profiler_set_counter(name, value);
  }

  /** An open user range (try-with-resources). */
  public static final class Range implements AutoCloseable {
    private boolean open = true;

    private Range() {}

    @Override
    public void close() {
      if (!open) return;
      open = false;
      weft_native.weft_profiler_range_pop();
    }
  }
}
