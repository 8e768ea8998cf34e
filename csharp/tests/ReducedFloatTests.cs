using System.Collections.Generic;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>float16/bfloat16 arrays through float32 (issue 49): the same case in JUnit and go
/// test.</summary>
[TestFixture]
public class ReducedFloatTests : LiveHandleFixture {
  // conformance: ndarray.reduced_float_conversions
  [Test]
  public void ReducedFloatConversions() {
    using (var b = NDArray.FromFloats(new[] { 3.14159f, -2f, 1f }, DType.BFloat16, 3))
    using (var h = NDArray.FromFloats(new[] { 0.1f, 65504f }, DType.Float16, 2)) {
      Assert.AreEqual(DType.BFloat16, b.DType);
      Assert.AreEqual(new[] { 3.140625f, -2f, 1f }, b.GetFloats());
      Assert.AreEqual(new[] { 0.0999755859375f, 65504f }, h.GetFloats());
      Expect.Error(ErrorCode.InvalidArgument, () => b.SetFloats(new float[2]),
                   "argument 'count' is 2, expected 3");
    }
    using (var data = Symbol.Variable("data"))
    using (var fc = Symbol.Create("FullyConnected", "fc",
                                  new Dictionary<string, object> { { "num_hidden", 2 } }, data))
    using (var ex = Executor.SimpleBind(fc, new Dictionary<string, long[]> { { "data", new long[] { 3, 4 } } },
                                        "null", new Dictionary<string, DType> { { "data", DType.Float16 } })) {
      CollectionAssert.AreEqual(new[] { "fc" }, ex.Float32Nodes());
    }
  }
}

}
