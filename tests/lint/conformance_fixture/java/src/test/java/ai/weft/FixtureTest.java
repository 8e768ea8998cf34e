package ai.weft;

class FixtureTest {
  // conformance: ndarray.round_trip
  @Test
  void roundTrip() {}

  // conformance: ndarray.closed_errors
  @Test
  void closedErrors() {}
}
