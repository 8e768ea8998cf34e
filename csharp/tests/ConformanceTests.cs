using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>The cross-language conformance list (same cases in JUnit and go test).</summary>
[TestFixture]
public class ConformanceTests : LiveHandleFixture {
  static Dictionary<string, object> P(params object[] kv) {
    var d = new Dictionary<string, object>();
    for (int i = 0; i < kv.Length; i += 2) d[(string)kv[i]] = kv[i + 1];
    return d;
  }

  // conformance: library.version_and_op_listing
  [Test]
  public void VersionAndOpListing() {
    Assert.AreEqual("0.1.0", Library.Version);
    Assert.AreEqual(Library.BindingAbiVersion, Library.AbiVersion);
    var ops = Library.OpNames();
    Assert.Contains("elemwise_add", ops.ToList());
    Assert.Contains("dot", ops.ToList());
    var q = Library.OpInfo("quadratic");
    Assert.AreEqual(3, q.Params.Count);
    Assert.AreEqual("a", q.Params[0].Name);
    Expect.Error(ErrorCode.NotFound, () => Library.OpInfo("no_such_op"), "no_such_op");
  }

  /// <summary>An NDArray created on cpu(1) reports cpu(1); gpu(0) fails naming the device.</summary>
  // conformance: ndarray.on_a_device
  [Test]
  public void NDArrayOnADevice() {
    using (var a = NDArray.Create(Context.Cpu(1), DType.Float32, 2, 2))
    using (var b = NDArray.Create(DType.Float32, 2)) {
      Assert.AreEqual(Context.Cpu(1), a.Context);
      Assert.AreEqual("cpu(1)", a.Context.ToString());
      Assert.AreEqual(DeviceType.Cpu, a.Context.Type);
      Assert.AreEqual(1, a.Context.Id);
      Assert.AreEqual(Context.Cpu(), b.Context);
      Assert.AreNotEqual(Context.Cpu(1), b.Context);
      Assert.AreEqual(Context.Cpu(), default(Context));
      a.CopyFrom(new float[] { 1, 2, 3, 4 });
      Assert.AreEqual(new float[] { 1, 2, 3, 4 }, a.ToFloatArray());
    }
    Expect.Error(ErrorCode.Device, () => NDArray.Create(Context.Gpu(0), DType.Float32, 2), "gpu(0)");
  }

  // conformance: ndarray.create_free_double_close
  [Test]
  public void CreateFreeAndDoubleDisposeAreSafe() {
    var a = NDArray.Create(DType.Float32, 2, 3);
    Assert.AreEqual(LiveAtStart + 1, Library.LiveHandleCount);
    CollectionAssert.AreEqual(new long[] { 2, 3 }, a.Shape);
    Assert.AreEqual(DType.Float32, a.DType);
    Assert.AreEqual(6, a.Size);
    a.Dispose();
    a.Dispose();
    Assert.IsTrue(a.IsDisposed);
    Expect.Error(ErrorCode.InvalidHandle, () => { var s = a.Shape; }, "disposed");
    using (var s = Symbol.Variable("x")) s.Dispose();
  }

  // conformance: errors.bad_op_name_is_not_found
  [Test]
  public void BadOpNameIsNotFound() {
    Expect.Error(ErrorCode.NotFound, () => Ops.Call("no_such_op", null), "no_such_op");
    Expect.Error(ErrorCode.NotFound, () => Symbol.Atomic("no_such_op", null), "no_such_op");
  }

  // conformance: errors.bad_param_is_invalid_argument
  [Test]
  public void BadParamIsInvalidArgument() {
    using (var x = NDArray.FromArray(new float[] { 1, 2, 3, 4, 5, 6 }, 2, 3)) {
      Expect.Error(ErrorCode.InvalidArgument, () => Ops.Call("sum", P("axis", "zz"), x), "sum", "axis", "zz");
      Expect.Error(ErrorCode.InvalidArgument, () => Ops.Call("quadratic", P("d", 1), x), "quadratic", "d");
    }
  }

  // conformance: errors.shape_mismatch_is_shape_error
  [Test]
  public void ShapeMismatchIsShapeError() {
    using (var x = NDArray.Create(DType.Float32, 2, 3))
    using (var y = NDArray.Create(DType.Float32, 3, 2)) {
      Expect.Error(ErrorCode.Shape, () => Ops.Call("elemwise_add", null, x, y), "elemwise_add", "(2,3)", "(3,2)");
      Expect.Error(ErrorCode.Shape, () => x.Reshape(4, 2), "reshape", "(4,2)");
    }
  }

  // conformance: errors.malformed_json_is_invalid_arg
  [Test]
  public void MalformedJsonIsInvalidArgument() {
    Expect.Error(ErrorCode.InvalidArgument, () => Symbol.FromJson("{bad"), "JSON");
  }

  // conformance: ndarray.zero_copy_round_trip
  [Test]
  public void ZeroCopyRoundTrip() {
    var input = new float[] { 1, 2, 3, 4, 5, 6 };
    var output = new float[6];
    using (var a = NDArray.FromArray(input, 2, 3))
    using (var b = Ops.Call("_mul_scalar", P("scalar", 2), a)) {
      b.CopyTo(output);
      CollectionAssert.AreEqual(new float[] { 2, 4, 6, 8, 10, 12 }, output);
      // Unmanaged memory path.
      IntPtr mem = Marshal.AllocHGlobal(24);
      try {
        b.CopyTo(mem, 24);
        a.CopyFrom(mem, 24);
        CollectionAssert.AreEqual(new float[] { 2, 4, 6, 8, 10, 12 }, a.ToFloatArray());
      } finally {
        Marshal.FreeHGlobal(mem);
      }
      a.CopyFromMarshalled(input);
      var copy = new float[6];
      a.CopyToMarshalled(copy);
      CollectionAssert.AreEqual(input, copy);
    }
  }

  // conformance: ndarray.wrong_buffer_size_rejected
  [Test]
  public void WrongBufferSizeRejected() {
    using (var a = NDArray.Create(DType.Float32, 2, 3)) {
      Expect.Error(ErrorCode.InvalidArgument, () => a.CopyFrom(new float[5]), "nbytes", "24");
      Expect.Error(ErrorCode.InvalidArgument, () => a.CopyTo(new float[7]), "nbytes", "24");
      Expect.Error(ErrorCode.InvalidArgument, () => a.CopyFromMarshalled(new float[7]), "nbytes", "28");
      Expect.Error(ErrorCode.InvalidArgument, () => NDArray.FromArray(new float[3], 2, 2), "nbytes");
    }
  }

  // conformance: ops.imperative_known_numbers
  [Test]
  public void ImperativeOpsWithKnownNumbers() {
    using (var x = NDArray.FromArray(new float[] { 1, 2, 3, 4, 5, 6 }, 2, 3))
    using (var w = NDArray.FromArray(new float[] { 1, 0, 0, 1, 1, 1 }, 3, 2))
    using (var sum = Ops.Call("elemwise_add", null, x, x))
    using (var dot = Ops.Call("dot", null, x, w))
    using (var rows = Ops.Call("sum", P("axis", 1), x))
    using (var q = Ops.Call("quadratic", P("a", 1, "b", -2, "c", 1), x)) {
      CollectionAssert.AreEqual(new float[] { 2, 4, 6, 8, 10, 12 }, sum.ToFloatArray());
      CollectionAssert.AreEqual(new long[] { 2, 2 }, dot.Shape);
      CollectionAssert.AreEqual(new float[] { 4, 5, 10, 11 }, dot.ToFloatArray());
      CollectionAssert.AreEqual(new float[] { 6, 15 }, rows.ToFloatArray());
      CollectionAssert.AreEqual(new float[] { 0, 1, 4, 9, 16, 25 }, q.ToFloatArray());
    }
    using (var d = NDArray.FromArray(new double[] { 0.5, -1.5 }, 2))
    using (var r = Ops.Call("_plus_scalar", P("scalar", 0.25), d)) {
      Assert.AreEqual(DType.Float64, r.DType);
      CollectionAssert.AreEqual(new double[] { 0.75, -1.25 }, r.ToDoubleArray());
    }
  }

  // conformance: ndarray.reshape_and_slice_are_views
  [Test]
  public void ReshapeAndSliceAreViews() {
    using (var x = NDArray.FromArray(new float[] { 1, 2, 3, 4, 5, 6 }, 3, 2))
    using (var r = x.Reshape(2, 3))
    using (var s = x.Slice(1, 3)) {
      CollectionAssert.AreEqual(new long[] { 2, 3 }, r.Shape);
      CollectionAssert.AreEqual(new long[] { 2, 2 }, s.Shape);
      CollectionAssert.AreEqual(new float[] { 3, 4, 5, 6 }, s.ToFloatArray());
      s.CopyFrom(new float[] { -3, -4, -5, -6 });
      CollectionAssert.AreEqual(new float[] { 1, 2, -3, -4, -5, -6 }, r.ToFloatArray());
    }
  }

  // conformance: symbol.composition_automatic_names
  [Test]
  public void SymbolCompositionWithAutomaticNames() {
    using (var x = Symbol.Variable("x"))
    using (var d = Symbol.Create("dot", null, null, x))
    using (var fc1 = Symbol.Create("dot", "fc1", null, x))
    using (var y = Symbol.Variable("y"))
    using (var byName = Symbol.Create("dot", "fc2", null, new Dictionary<string, Symbol> { { "rhs", y } }))
    using (var g = Symbol.Group(fc1, byName)) {
      var args = d.ListArguments();
      Assert.AreEqual(2, args.Count);
      Assert.AreEqual("x", args[0]);
      StringAssert.IsMatch(@"^dot\d+_rhs$", args[1]);
      CollectionAssert.AreEqual(new[] { "x", "fc1_rhs" }, fc1.ListArguments());
      CollectionAssert.AreEqual(new[] { "fc2_lhs", "y" }, byName.ListArguments());
      CollectionAssert.AreEqual(new[] { "fc1_output", "fc2_output" }, g.ListOutputs());
      Assert.AreEqual(2, g.NumOutputs);
      Assert.IsNull(g.Name);
      Assert.AreEqual("fc1", fc1.Name);
      fc1.SetAttr("lr_mult", "0.5");
      Assert.AreEqual("0.5", fc1.GetAttr("lr_mult"));
      Assert.IsNotEmpty(fc1.ListAttr(true).Keys.ToList());
      using (var back = Symbol.FromJson(g.ToJson()))
        CollectionAssert.AreEqual(g.ListArguments(), back.ListArguments());
    }
  }

  // conformance: symbol.partial_shape_inference
  [Test]
  public void PartialShapeInference() {
    using (var x = Symbol.Variable("x"))
    using (var d = Symbol.Create("dot", "fc", null, x)) {
      var known = new Dictionary<string, long[]> { { "x", new long[] { 2, 3 } } };
      var p = d.InferShapePartial(known);
      Assert.IsFalse(p.Complete);
      CollectionAssert.AreEqual(new long[] { 2, 3 }, p.Arguments["x"]);
      CollectionAssert.Contains(p.Unknown.ToList(), "fc_rhs");
      Expect.Error(ErrorCode.Shape, () => d.InferShape(known), "fc_rhs");
      known["fc_rhs"] = new long[] { 3, 4 };
      var full = d.InferShape(known);
      Assert.IsTrue(full.Complete);
      CollectionAssert.AreEqual(new long[] { 2, 4 }, full.Outputs["fc_output"]);
      var t = d.InferType(new Dictionary<string, DType> { { "x", DType.Float64 } });
      Assert.AreEqual(DType.Float64, t.Outputs["fc_output"]);
    }
  }

  // conformance: threads.concurrent_use_separate_arrays
  [Test]
  public void ConcurrentUseOnSeparateArrays() {
    Exception failure = null;
    var threads = new List<Thread>();
    for (int t = 0; t < 4; ++t) {
      float b = t;
      threads.Add(new Thread(() => {
        try {
          for (int i = 0; i < 200; ++i) {
            using (var a = NDArray.FromArray(new float[] { b, i }, 2))
            using (var r = Ops.Call("_plus_scalar", P("scalar", 1), a)) {
              var v = r.ToFloatArray();
              if (v[0] != b + 1 || v[1] != i + 1) throw new Exception("bad values");
            }
            try {
              Ops.Call("nope" + b, null);
              throw new Exception("no error");
            } catch (WeftException e) {
              if (!e.Message.Contains("nope" + b)) throw new Exception(e.Message);
            }
          }
        } catch (Exception e) {
          Interlocked.CompareExchange(ref failure, e, null);
        }
      }));
    }
    foreach (var th in threads) th.Start();
    foreach (var th in threads) th.Join();
    Assert.IsNull(failure, failure == null ? "" : failure.ToString());
  }

  // conformance: handles.finalizer_frees_forgotten
  [Test]
  public void FinalizerFreesForgottenHandles() {
    long before = Library.LiveHandleCount;
    MakeGarbage();
    GC.Collect();
    GC.WaitForPendingFinalizers();
    Assert.AreEqual(before, Library.LiveHandleCount);
  }

  // On a thread of its own, ended before the collection: Mono scans stacks conservatively, and a
  // stale slot of the test thread's stack kept one array alive whenever a fixture sorting before
  // this one had already run GC.Collect (AutogradTests' end-of-fixture check did).
  static void MakeGarbage() {
    var t = new Thread(() => {
      for (int i = 0; i < 10; ++i) NDArray.Create(DType.Float32, 4);
    });
    t.Start();
    t.Join();
  }
}

}
