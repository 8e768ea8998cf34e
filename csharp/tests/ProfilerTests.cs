using System.Collections.Generic;
using System.IO;
using System.Text.RegularExpressions;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>The profiler and the symbol reports (issue 46): the same cases in JUnit and go test.</summary>
[TestFixture]
public class ProfilerTests : LiveHandleFixture {
  static int Count(string text, string needle) { return Regex.Matches(text, Regex.Escape(needle)).Count; }

  // conformance: profiler.trace_table_and_ranges
  [Test]
  public void TraceTableAndRanges() {
    var file = Path.Combine(Path.GetTempPath(), "weft-prof-" + System.Guid.NewGuid() + ".json");
    try {
      Profiler.SetConfig(new Dictionary<string, string> { { "profile_all", "1" }, { "filename", file } });
      Profiler.Running = true;
      Assert.IsTrue(Profiler.Running);
      using (var x = NDArray.FromArray(new float[] { 1, 4, 9 }, 3))
      using (Profiler.Range("outer")) {
        Ops.Call("sqrt", new Dictionary<string, object>(), x).Dispose();
        Profiler.Marker("after sqrt");
        Profiler.Counter("samples", 3);
      }
      Library.WaitAll();
      var trace = Profiler.Trace();
      Assert.AreEqual(1, Count(trace, "\"name\":\"sqrt\",\"cat\":\"operator\""), trace);
      StringAssert.Contains("\"name\":\"outer\"", trace);
      StringAssert.Contains("\"samples\":3", trace);
      var table = Profiler.Aggregate("table", "count");
      StringAssert.Contains("sqrt", table);
      StringAssert.Contains("Total Count", table);
      Profiler.Dump(true);
      Assert.IsFalse(Profiler.Running);
      StringAssert.Contains("\"traceEvents\"", File.ReadAllText(file));
      Expect.Error(ErrorCode.InvalidArgument,
                   () => Profiler.SetConfig(new Dictionary<string, string> { { "nope", "1" } }),
                   "unknown key 'nope'");
      Expect.Error(ErrorCode.InvalidArgument, () => Profiler.Aggregate("xml"), "'xml'");
    } finally {
      File.Delete(file);
    }
  }

  // conformance: symbol.summary_and_dot
  [Test]
  public void SummaryAndDot() {
    using (var mlp = Symbol.FromJson(TrainingTests.MlpJson)) {
      var shapes = new Dictionary<string, long[]> { { "data", new long[] { 8, 2 } } };
      var summary = mlp.Summary(shapes);
      StringAssert.Contains("fc1(FullyConnected)", summary);
      StringAssert.Contains("Total params: 116", summary);  // (2*16+16) + (16*4+4)
      var dot = mlp.ToDot(shapes, new Dictionary<string, string> { { "title", "mlp" } });
      StringAssert.StartsWith("digraph \"mlp\"", dot);
      StringAssert.Contains("label=\"16\"", dot);  // fc1's output per sample
      StringAssert.DoesNotContain("fc1_weight", dot);
      Expect.Error(ErrorCode.InvalidArgument,
                   () => mlp.ToDot(new Dictionary<string, long[]>(),
                                   new Dictionary<string, string> { { "colour", "1" } }),
                   "unknown option 'colour'");
    }
  }
}

}  // namespace Weft.Tests
