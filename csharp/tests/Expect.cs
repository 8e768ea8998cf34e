using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>The error expectation of the NUnit suites.</summary>
internal static class Expect {
  /// <summary>Runs <paramref name="call"/>, expecting a WeftException with <paramref name="code"/>
  /// whose message contains every fragment; returns it.</summary>
  public static WeftException Error(ErrorCode code, TestDelegate call, params string[] fragments) {
    var e = Assert.Throws<WeftException>(call);
    Assert.AreEqual(code, e.Code, e.Message);
    foreach (var f in fragments) StringAssert.Contains(f, e.Message);
    return e;
  }
}

}  // namespace Weft.Tests
