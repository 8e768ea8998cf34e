// C# side of scripts/bench_bindings.sh. Prints "<name> <ns per op>":
//   version_call   Library.AbiVersion (one P/Invoke into weft_abi_version)
//   shape_query    NDArray.NDim (P/Invoke + handle lookup + out-parameter + status)
//   copy_1m_inout  copy 1M floats in and out: zero-copy (pinned float[] via fixed)
//   copy_1m_inout_copying  the same through the P/Invoke array marshaller
using System;
using System.Diagnostics;
using Weft;

static class BenchBindings {
  static long sink;

  static double NsPer(Stopwatch sw, long n) { return sw.Elapsed.TotalMilliseconds * 1e6 / n; }

  static void Main() {
    const int calls = 5000000, copies = 200, n = 1 << 20;
    using (var a = NDArray.Create(DType.Float32, n))
    using (var s = NDArray.Create(DType.Float32, 2, 3)) {
      var arr = new float[n];
      for (int r = 0; r < 3; ++r) {
        var sw = Stopwatch.StartNew();
        for (int i = 0; i < calls; ++i) sink += Library.AbiVersion;
        double version = NsPer(sw, calls);
        sw = Stopwatch.StartNew();
        for (int i = 0; i < calls; ++i) sink += s.NDim;
        double shape = NsPer(sw, calls);
        sw = Stopwatch.StartNew();
        for (int i = 0; i < copies; ++i) { a.CopyFrom(arr); a.CopyTo(arr); }
        double zero = NsPer(sw, copies);
        sw = Stopwatch.StartNew();
        for (int i = 0; i < copies; ++i) { a.CopyFromMarshalled(arr); a.CopyToMarshalled(arr); }
        double copying = NsPer(sw, copies);
        if (r == 2) {
          Console.WriteLine("version_call {0:F1}", version);
          Console.WriteLine("shape_query {0:F1}", shape);
          Console.WriteLine("copy_1m_inout {0:F1}", zero);
          Console.WriteLine("copy_1m_inout_copying {0:F1}", copying);
        }
      }
    }
  }
}
