using System;
using System.Collections.Generic;
using System.Linq;

namespace Weft {

/// <summary>
/// The process profiler (MXNet's mx.profiler): Chrome traces of what ran where, the aggregate
/// table per operator, and user ranges, markers and counters. Thread-safe; ranges are per
/// thread. docs/profiler.md describes the trace.
/// </summary>
public static class Profiler {
  /// <summary>Sets the configuration from MXNet's keys (profile_all, profile_symbolic,
  /// profile_imperative, profile_memory, profile_api, filename, continuous_dump, dump_period,
  /// aggregate_stats); keys not given take MXNet's defaults.</summary>
  public static void SetConfig(IDictionary<string, string> config) {
    Native.EnsureLoaded();
    var keys = config.Keys.ToArray();
    var values = keys.Select(k => config[k]).ToArray();
    weft_native.weft_profiler_set_config((ulong)keys.Length, keys, values);
  }

  /// <summary>Recording on (true) or off (false).</summary>
  public static bool Running {
    get { Native.EnsureLoaded(); return weft_native.weft_profiler_get_state() == 1; }
    set { Native.EnsureLoaded(); weft_native.weft_profiler_set_state(value ? 1 : 0); }
  }

  /// <summary>Pauses (true) or resumes (false) recording without stopping.</summary>
  public static void Pause(bool paused) {
    Native.EnsureLoaded();
    weft_native.weft_profiler_pause(paused ? 1 : 0);
  }

  /// <summary>Writes the trace to the configured file; finished closes it and stops.</summary>
  public static void Dump(bool finished) {
    Native.EnsureLoaded();
    weft_native.weft_profiler_dump(finished ? 1 : 0);
  }

  /// <summary>The trace JSON, without writing or forgetting anything.</summary>
  public static string Trace() {
    Native.EnsureLoaded();
    return Symbol.Take(weft_native.weft_profiler_trace())[0];
  }

  /// <summary>The aggregate table: format "table" or "json", sortBy "total", "avg", "min",
  /// "max" or "count"; reset clears the statistics.</summary>
  public static string Aggregate(string format = "table", string sortBy = "total",
                                 bool ascending = false, bool reset = false) {
    Native.EnsureLoaded();
    return Symbol.Take(weft_native.weft_profiler_aggregate(reset ? 1 : 0, format, sortBy,
                                                           ascending ? 1 : 0))[0];
  }

  /// <summary>A user range on this thread, closed by Dispose (using).</summary>
  public static IDisposable Range(string name) {
    Native.EnsureLoaded();
    weft_native.weft_profiler_range_push(name);
    return new OpenRange();
  }

  /// <summary>An instant user event.</summary>
  public static void Marker(string name) {
    Native.EnsureLoaded();
    weft_native.weft_profiler_set_marker(name);
  }

  /// <summary>A user counter sample.</summary>
  public static void Counter(string name, long value) {
    Native.EnsureLoaded();
    weft_native.weft_profiler_set_counter(name, value);
  }

  sealed class OpenRange : IDisposable {
    bool open = true;
    public void Dispose() {
      if (!open) return;
      open = false;
      weft_native.weft_profiler_range_pop();
    }
  }
}

}  // namespace Weft
