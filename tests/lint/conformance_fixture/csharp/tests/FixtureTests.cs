namespace Weft.Tests {
public class FixtureTests {
  // conformance: ndarray.round_trip ndarray.closed_errors
  [Test]
  public void RoundTripAndClosedErrors() {}
}
}
