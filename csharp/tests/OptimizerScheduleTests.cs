using System;
using System.Collections.Generic;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>The optimizer's learning-rate schedule and gradient scale (same case in JUnit and go test).</summary>
[TestFixture]
public class OptimizerScheduleTests {
  // conformance: training.optimizer_schedule_rescale
  [Test]
  public void ScheduleAndRescaleGrad() {
    long before = Library.LiveHandleCount;
    using (var opt = Optimizer.Create("sgd", new Dictionary<string, object> { { "learning_rate", 1 } }))
    using (var w = NDArray.FromArray(new float[] { 10 }, 1))
    using (var g = NDArray.FromArray(new float[] { 1 }, 1)) {
      opt.SetLrScheduler("factor", new long[] { 1 }, 0.5f, 1e-8f);
      opt.SetRescaleGrad(2);
      // Updates 1, 2, 3 run at rates 1, 0.5, 0.25, each on 2 * g.
      for (int k = 0; k < 3; ++k) opt.Update(0, "w", w, g);
      Assert.AreEqual(10 - 2 * 1.75, w.ToFloatArray()[0], 1e-6);
      Assert.AreEqual(0.25, opt.LearningRate("w"), 1e-7);
      opt.SetLrScheduler("multifactor", new long[] { 1, 2 }, 0.1f, 0);
      Assert.AreEqual(0.01, opt.LearningRate("w"), 1e-8);
      opt.SetLrScheduler("none", null, 0, 0);
      Assert.AreEqual(1.0, opt.LearningRate("w"), 0);
      Expect.Error(ErrorCode.InvalidArgument, () => opt.SetLrScheduler("cosine", new long[] { 1 }, 0.5f, 0),
                  "cosine", "multifactor");
      Expect.Error(ErrorCode.InvalidArgument, () => opt.SetLrScheduler("multifactor", new long[] { 3, 2 }, 0.5f, 0),
                  "increasing");
      Expect.Error(ErrorCode.InvalidArgument, () => opt.SetLrScheduler("factor", null, 0.5f, 0), "steps");
      Expect.Error(ErrorCode.InvalidArgument, () => opt.SetRescaleGrad(float.NaN), "rescale_grad");
      opt.Dispose();
      Expect.Error(ErrorCode.InvalidHandle, () => opt.SetRescaleGrad(1), "Optimizer is disposed");
    }
    Assert.AreEqual(before, Library.LiveHandleCount);
  }
}

}
