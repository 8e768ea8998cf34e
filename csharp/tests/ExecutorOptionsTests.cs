using System;
using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>
/// Executor binding options (same cases in JUnit and go test): gradient
/// requests by argument name, the planner and execution options giving the
/// default numbers, device groups, and the errors (bad values, an unknown
/// argument, disposed options). Part of the TrainingTests fixture, whose
/// TearDown and last test check the live-handle count.
/// </summary>
public partial class TrainingTests {
  static readonly float[] OptA = { 1, 2, -3, 4 }, OptB = { 5, -6, 7, 0.5f }, OptC = { 0.25f, 1, 6, -8 };

  /// <summary>Sets a, b, c on ex, runs forward and returns the output.</summary>
  static float[] ForwardABC(Executor ex, bool isTrain) {
    var args = ex.ArgArrays();
    try {
      args["a"].CopyFrom(OptA);
      args["b"].CopyFrom(OptB);
      args["c"].CopyFrom(OptC);
    } finally { NDArray.DisposeAll(args); }
    ex.Forward(isTrain);
    var outs = ex.Outputs();
    try {
      return outs[0].ToFloatArray();
    } finally { NDArray.DisposeAll(outs); }
  }

  /// <summary>
  /// GradReq("a", "write") only: after forward/backward a's gradient is the
  /// closed form head * b, and b and c have no gradient array (GradReq.Null).
  /// </summary>
  // conformance: executor_options.grad_req_per_argument
  [Test]
  public void ExecutorOptionsGradReqForOneArgumentOnly() {
    float[] hg = { 1, 2, 3, 4 };
    using (var f = AbPlusC())
    using (var o = new ExecutorOptions().GradReq("a", "write"))
    using (var ex = Executor.SimpleBind(f, o, Context.Cpu(), Shapes(2, 2))) {
      var output = ForwardABC(ex, true);
      for (int i = 0; i < 4; ++i) Assert.AreEqual(OptA[i] * OptB[i] + OptC[i], output[i], "out[" + i + "]");
      using (var head = NDArray.FromArray(hg, 2, 2)) ex.Backward(head);
      var g = ex.GradArrays();
      try {
        CollectionAssert.AreEqual(new[] { "a" }, g.Keys.ToArray());
        var ga = g["a"].ToFloatArray();
        for (int i = 0; i < 4; ++i) Assert.AreEqual(hg[i] * OptB[i], ga[i], "d/da[" + i + "]");
      } finally { NDArray.DisposeAll(g); }
    }
    // The enum overload, and a later request replacing an earlier one.
    using (var f = AbPlusC())
    using (var o = new ExecutorOptions().GradReq("b", GradReq.Write).GradReq("c", "add").GradReq("c", GradReq.Null))
    using (var ex = Executor.SimpleBind(f, o, Context.Cpu(), Shapes(2, 2))) {
      var g = ex.GradArrays();
      try {
        CollectionAssert.AreEqual(new[] { "b" }, g.Keys.ToArray());
      } finally { NDArray.DisposeAll(g); }
    }
  }

  /// <summary>
  /// AllowFallback(false) binds on the CPU (nothing to fall back), and with
  /// MatchRange 0, NumGroups 2, BulkMaxNodes 0 and OptimizeInference false the
  /// numbers are those of the defaults (null options); the match range reaches
  /// the memory planner (Executor.Memory()). Options are reusable and may be
  /// disposed while their executor lives; Bind takes them too.
  /// </summary>
  // conformance: executor_options.default_numbers
  [Test]
  public void ExecutorOptionsGiveTheDefaultNumbers() {
    using (var f = AbPlusC())
    using (var plain = Executor.SimpleBind(f, (ExecutorOptions)null, Context.Cpu(), Shapes(2, 2))) {
      var want = ForwardABC(plain, false);
      for (int i = 0; i < 4; ++i) Assert.AreEqual(OptA[i] * OptB[i] + OptC[i], want[i]);
      Assert.AreEqual(16, plain.Memory().MatchRange, "default match range");
      Executor ex1, ex2;
      using (var o = new ExecutorOptions().AllowFallback(false).MatchRange(0).NumGroups(2).BulkMaxNodes(0)
                         .OptimizeInference(false)) {
        ex1 = Executor.SimpleBind(f, o, Context.Cpu(), Shapes(2, 2));
        o.MatchRange(5).OptimizeInference(true).AllowFallback(true).BulkMaxNodes(-1);
        ex2 = Executor.SimpleBind(f, o, Context.Cpu(), Shapes(2, 2));
      }
      try {
        CollectionAssert.AreEqual(want, ForwardABC(ex1, false));
        CollectionAssert.AreEqual(want, ForwardABC(ex2, true));
        Assert.AreEqual(5, ex2.Memory().MatchRange, "match range 5 reaches the planner");
        CheckAbPlusC(ex1, 1);
      } finally {
        ex1.Dispose();
        ex2.Dispose();
      }
    }
    using (var f = AbPlusC())
    using (var a = NDArray.FromArray(OptA, 4))
    using (var b = NDArray.FromArray(OptB, 4))
    using (var c = NDArray.FromArray(OptC, 4))
    using (var ga = NDArray.Create(DType.Float32, 4))
    using (var o = new ExecutorOptions().MatchRange(3).NumGroups(2).AllowFallback(false))
    using (var ex = Executor.Bind(f, o, Context.Cpu(), new[] { a, b, c }, new[] { ga, null, null }, null, null)) {
      Assert.AreEqual(3, ex.Memory().MatchRange);
      ex.Forward(true);
      var outs = ex.Outputs();
      try {
        var output = outs[0].ToFloatArray();
        for (int i = 0; i < 4; ++i) Assert.AreEqual(OptA[i] * OptB[i] + OptC[i], output[i]);
      } finally { NDArray.DisposeAll(outs); }
      using (var hg = NDArray.FromArray(new float[] { 1, 1, 1, 1 }, 4)) ex.Backward(hg);
      CollectionAssert.AreEqual(OptB, ga.ToFloatArray());  // shared, d/da = b
    }
  }

  /// <summary>Group(): each group's arguments on its device, as group2ctx.</summary>
  // conformance: executor_options.groups_place_arguments
  [Test]
  public void ExecutorOptionsGroupsPlaceArguments() {
    using (var f = GroupedAbPlusC())
    using (var o = new ExecutorOptions().Group("stage1", Context.Cpu(1)).Group("stage2", Context.Cpu(2)))
    using (var ex = Executor.SimpleBind(f, o, Context.Cpu(), Shapes(2, 2))) {
      var args = ex.ArgArrays();
      try {
        Assert.AreEqual(Context.Cpu(1), args["a"].Context);
        Assert.AreEqual(Context.Cpu(2), args["c"].Context);
      } finally { NDArray.DisposeAll(args); }
      CheckAbPlusC(ex, 2);
    }
  }

  /// <summary>
  /// Bad values fail with InvalidArgument naming them (and change nothing); a
  /// gradient request for a non-argument fails the bind naming it; Bind
  /// rejects requests by name; disposed options fail with InvalidHandle;
  /// every options object is a live handle until disposed.
  /// </summary>
  // conformance: executor_options.errors
  [Test]
  public void ExecutorOptionsErrors() {
    long before = Library.LiveHandleCount;
    using (var f = AbPlusC())
    using (var o = new ExecutorOptions()) {
      Assert.AreEqual(before + 2, Library.LiveHandleCount, "options are a live handle");
      var e = Assert.Throws<WeftException>(() => o.MatchRange(-1));
      Assert.AreEqual(ErrorCode.InvalidArgument, e.Code);
      StringAssert.Contains("match_range", e.Message);
      StringAssert.Contains("-1", e.Message);
      e = Assert.Throws<WeftException>(() => o.NumGroups(0));
      Assert.AreEqual(ErrorCode.InvalidArgument, e.Code);
      StringAssert.Contains("num_groups", e.Message);
      StringAssert.Contains("0", e.Message);
      e = Assert.Throws<WeftException>(() => o.GradReq("a", "sometimes"));
      Assert.AreEqual(ErrorCode.InvalidArgument, e.Code);
      StringAssert.Contains("sometimes", e.Message);
      e = Assert.Throws<WeftException>(() => o.Group("stage1", Context.Cpu(1)).Group("stage1", Context.Cpu(2)));
      Assert.AreEqual(ErrorCode.InvalidArgument, e.Code);
      StringAssert.Contains("stage1", e.Message);
      // The failed setters changed nothing: the bind has the default match range.
      using (var ex = Executor.SimpleBind(f, o, Context.Cpu(), Shapes(2, 2)))
        Assert.AreEqual(16, ex.Memory().MatchRange);
      o.GradReq("zz", "write");
      e = Assert.Throws<WeftException>(() => Executor.SimpleBind(f, o, Context.Cpu(), Shapes(2, 2)));
      Assert.AreEqual(ErrorCode.InvalidArgument, e.Code);
      StringAssert.Contains("'zz'", e.Message);
      using (var a = NDArray.FromArray(OptA, 4)) {
        e = Assert.Throws<WeftException>(() => Executor.Bind(f, o, Context.Cpu(), new[] { a, a, a }, null, null, null));
        Assert.AreEqual(ErrorCode.InvalidArgument, e.Code);
        StringAssert.Contains("zz", e.Message);
      }
    }
    Assert.AreEqual(before, Library.LiveHandleCount);
    var disposed = new ExecutorOptions();
    disposed.Dispose();
    disposed.Dispose();  // idempotent
    Assert.IsTrue(disposed.IsDisposed);
    using (var f = AbPlusC()) {
      var e = Assert.Throws<WeftException>(() => disposed.MatchRange(1));
      Assert.AreEqual(ErrorCode.InvalidHandle, e.Code);
      e = Assert.Throws<WeftException>(() => Executor.SimpleBind(f, disposed, Context.Cpu(), Shapes(2, 2)));
      Assert.AreEqual(ErrorCode.InvalidHandle, e.Code);
      StringAssert.Contains("ExecutorOptions", e.Message);
      using (var a = NDArray.FromArray(OptA, 4)) {
        e = Assert.Throws<WeftException>(() => Executor.Bind(f, disposed, Context.Cpu(), new[] { a, a, a }, null,
                                                               null, null));
        Assert.AreEqual(ErrorCode.InvalidHandle, e.Code);
      }
    }
  }
}

}
