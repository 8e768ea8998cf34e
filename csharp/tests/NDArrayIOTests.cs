using System;
using System.Collections.Generic;
using System.IO;
using System.Text;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>.params and .npy in memory and on streams; Ops.InvokeInto.</summary>
[TestFixture]
public class NDArrayIOTests : LiveHandleFixture {
  static string TempPath(string name) {
    return Path.Combine(Path.GetTempPath(), "weft_cs_io_" + System.Diagnostics.Process.GetCurrentProcess().Id + "_" + name);
  }

  // conformance: io.params_round_trip
  [Test]
  public void ParamsRoundTripThroughBytesAndStreams() {
    using (var w = NDArray.FromArray(new float[] { 1, 2, 3, 4 }, 2, 2))
    using (var b = NDArray.FromArray(new double[] { -1.5, 7 }, 2)) {
      var arrays = new Dictionary<string, NDArray> { { "arg:w", w }, { "aux:b", b } };
      var bytes = NDArray.SaveToBytes(arrays);
      // The same bytes as the file Save(path) writes.
      var path = TempPath("a.params");
      NDArray.Save(path, arrays);
      Assert.AreEqual(File.ReadAllBytes(path), bytes);
      File.Delete(path);
      var ms = new MemoryStream();
      NDArray.Save(ms, arrays);
      Assert.AreEqual(bytes, ms.ToArray());
      foreach (var loaded in new[] { NDArray.Load(bytes), NDArray.Load(new MemoryStream(bytes)) }) {
        try {
          Assert.AreEqual(new[] { "arg:w", "aux:b" }, new List<string>(loaded.Keys));
          Assert.AreEqual(new long[] { 2, 2 }, loaded["arg:w"].Shape);
          Assert.AreEqual(new float[] { 1, 2, 3, 4 }, loaded["arg:w"].ToFloatArray());
          Assert.AreEqual(DType.Float64, loaded["aux:b"].DType);
          Assert.AreEqual(new double[] { -1.5, 7 }, loaded["aux:b"].ToDoubleArray());
        } finally {
          NDArray.DisposeAll(loaded);
        }
      }
      // Malformed and truncated bytes fail naming what was expected; nothing leaks.
      Expect.Error(ErrorCode.InvalidArgument, () => NDArray.Load(new byte[32]), "list magic");
      var cut = new byte[bytes.Length - 3];
      Array.Copy(bytes, cut, cut.Length);
      Expect.Error(ErrorCode.InvalidArgument, () => NDArray.Load(cut), "weft_ndarray_load_buffer", "exceeds the 2 bytes that remain");
      Assert.Throws<ArgumentNullException>(() => NDArray.Load((byte[])null));
      Assert.Throws<ArgumentNullException>(() => NDArray.Load((Stream)null));
    }
  }

  // conformance: io.npy_round_trip
  [Test]
  public void NpyRoundTripThroughBytesFilesAndStreams() {
    using (var a = NDArray.FromArray(new float[] { -3, -2.5f, -2, -1.5f, -1, -0.5f }, 2, 3)) {
      var npy = a.ToNpyBytes();
      Assert.AreEqual(0x93, npy[0]);
      Assert.AreEqual("NUMPY", Encoding.ASCII.GetString(npy, 1, 5));
      var header = Encoding.ASCII.GetString(npy, 10, npy.Length - 10 - 24);
      StringAssert.Contains("'descr': '<f4'", header);
      StringAssert.Contains("'shape': (2, 3)", header);
      Assert.AreEqual(0, (npy.Length - 24) % 64, "numpy.save aligns the data to 64 bytes");
      var path = TempPath("a.npy");
      a.SaveNpy(path);
      Assert.AreEqual(File.ReadAllBytes(path), npy);
      var ms = new MemoryStream();
      a.SaveNpy(ms);
      Assert.AreEqual(npy, ms.ToArray());
      foreach (var b in new[] { NDArray.LoadNpy(npy), NDArray.LoadNpy(path), NDArray.LoadNpy(new MemoryStream(npy)) }) {
        using (b) {
          Assert.AreEqual(new long[] { 2, 3 }, b.Shape);
          Assert.AreEqual(a.ToFloatArray(), b.ToFloatArray());
        }
      }
      File.Delete(path);
    }
  }

  // conformance: io.npy_errors
  [Test]
  public void NpyErrors() {
    using (var a = NDArray.FromArray(new double[] { 1, 2 }, 2))
    using (var i8 = NDArray.Create(DType.Int8, 2)) {
      var npy = a.ToNpyBytes();
      Expect.Error(ErrorCode.InvalidArgument, () => NDArray.LoadNpy(new byte[] { 1, 2, 3 }), "truncated");
      var bad = (byte[])npy.Clone();
      bad[0] = (byte)'X';
      Expect.Error(ErrorCode.InvalidArgument, () => NDArray.LoadNpy(bad), "magic");
      var cut = new byte[npy.Length - 1];
      Array.Copy(npy, cut, cut.Length);
      Expect.Error(ErrorCode.InvalidArgument, () => NDArray.LoadNpy(cut), "truncated");
      using (var back = NDArray.LoadNpy(i8.ToNpyBytes())) Assert.AreEqual(DType.Int8, back.DType);
      Expect.Error(ErrorCode.IO, () => NDArray.LoadNpy("/nonexistent/x.npy"), "/nonexistent/x.npy");
      Assert.Throws<ArgumentNullException>(() => NDArray.LoadNpy((byte[])null));
      Assert.Throws<ArgumentNullException>(() => a.SaveNpy((Stream)null));
    }
  }

  // conformance: ops.invoke_into_writes_existing_arrays
  [Test]
  public void InvokeIntoWritesExistingArrays() {
    using (var x = NDArray.FromArray(new float[] { 1, 2, 3 }, 3))
    using (var y = NDArray.FromArray(new float[] { 10, 20, 30 }, 3))
    using (var o = NDArray.FromArray(new float[] { 100, 100, 100 }, 3)) {
      Ops.InvokeInto("elemwise_add", null, new[] { x, y }, o);
      Assert.AreEqual(new float[] { 11, 22, 33 }, o.ToFloatArray());
      // Add accumulates, Null leaves the output untouched.
      Ops.InvokeInto("elemwise_add", null, new[] { x, y }, new[] { o }, new[] { GradReq.Add });
      Assert.AreEqual(new float[] { 22, 44, 66 }, o.ToFloatArray());
      Ops.InvokeInto("elemwise_add", null, new[] { x, y }, new[] { o }, new[] { GradReq.Null });
      Assert.AreEqual(new float[] { 22, 44, 66 }, o.ToFloatArray());
      // Parameters, as for Invoke.
      Ops.InvokeInto("_plus_scalar", new Dictionary<string, object> { { "scalar", 0.5 } }, new[] { x }, o);
      Assert.AreEqual(new float[] { 1.5f, 2.5f, 3.5f }, o.ToFloatArray());
      using (var wrong = NDArray.Create(DType.Float32, 4)) {
        Expect.Error(ErrorCode.Shape, () => Ops.InvokeInto("elemwise_add", null, new[] { x, y }, wrong));
        Assert.AreEqual(new float[] { 1.5f, 2.5f, 3.5f }, o.ToFloatArray());
      }
      Expect.Error(ErrorCode.InvalidArgument,
                  () => Ops.InvokeInto("elemwise_add", null, new[] { x, y }, new[] { o }, new GradReq[0]),
                  "reqs has 0 entries, expected one per output (1)");
      Expect.Error(ErrorCode.NotFound, () => Ops.InvokeInto("no_such_op", null, new[] { x }, o), "no_such_op");
    }
  }
}

}
