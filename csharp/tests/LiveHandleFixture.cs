using System;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>
/// The live-handle check of every fixture (derive from it): each test ends with as many live
/// native handles as it started with (after the engine's queued work), and the fixture ends with
/// none once the garbage collector has run.
/// </summary>
public abstract class LiveHandleFixture {
  protected long LiveAtStart { get; private set; }

  [SetUp]
  public void RecordLive() { LiveAtStart = Library.LiveHandleCount; }

  [TearDown]
  public void NoLeakedHandles() {
    Library.WaitAll();
    Assert.AreEqual(LiveAtStart, Library.LiveHandleCount, "live handles leaked by the test");
  }

  // NUnit 2.6 runs a fixture's tests in name order and does not fail the run
  // on a [TestFixtureTearDown] failure, so the end-of-fixture check is the last test.
  // conformance: handles.csharp_fixture_ends_at_zero
  [Test]
  public void ZzLiveHandleCountReturnsToZeroAtTheEnd() {
    GC.Collect();
    GC.WaitForPendingFinalizers();
    Library.WaitAll();
    Assert.AreEqual(0, Library.LiveHandleCount, "live handles at the end");
  }
}

}  // namespace Weft.Tests
