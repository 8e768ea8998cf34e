using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>
/// Devices and data (same cases in JUnit and go test): the device argument of
/// executors and modules, the MNIST loader, and the data iterator's padding
/// and reset. Part of the TrainingTests fixture, whose last test checks the
/// live-handle count.
/// </summary>
public partial class TrainingTests {
  /// <summary>
  /// Device count and memory: at least one CPU context with the host's RAM,
  /// each GPU seen with its memory, and ErrorCode.Device for the first GPU id
  /// past the count.
  /// </summary>
  // conformance: device.count_and_memory
  [Test]
  public void DeviceCountAndMemory() {
    Assert.GreaterOrEqual(Context.DeviceCount(DeviceType.Cpu), 1);
    int gpus = Context.DeviceCount(DeviceType.Gpu);
    Assert.GreaterOrEqual(gpus, 0);
    Assert.Greater(Context.Cpu().TotalMemory, 1UL << 20);
    Assert.LessOrEqual(Context.Cpu().FreeMemory, Context.Cpu().TotalMemory);
    for (int i = 0; i < gpus; ++i) Assert.Greater(Context.Gpu(i).TotalMemory, 1UL << 20);
    var e = Assert.Throws<WeftException>(() => { var unused = Context.Gpu(gpus).TotalMemory; });
    Assert.AreEqual(ErrorCode.Device, e.Code, e.Message);
    StringAssert.Contains("gpu(" + gpus + ")", e.Message);
  }

  /// <summary>
  /// With a GPU: a*b+c binds on gpu(0) with the closed-form numbers, and the
  /// MLP trained there for two epochs (SGD with momentum, fixed seeds) ends
  /// with the parameters of the same run on the CPU. Skipped without one.
  /// </summary>
  // conformance: device.trains_on_the_gpu
  [Test]
  public void TrainsOnTheGpu() {
    if (Context.DeviceCount(DeviceType.Gpu) == 0) Assert.Ignore("no GPU");
    using (var f = AbPlusC())
    using (var ex = Executor.SimpleBind(f, Context.Gpu(0), Shapes(2, 2), "write"))
      CheckAbPlusC(ex, 2);
    using (var gpu = new Trained(2, Context.Gpu(0)))
    using (var cpu = new Trained(2, Context.Cpu())) {
      var g = gpu.Mod.ArgParams();
      var c = cpu.Mod.ArgParams();
      try {
        CollectionAssert.AreEqual(c.Keys, g.Keys);
        foreach (var k in c.Keys) {
          Assert.AreEqual(Context.Gpu(0), g[k].Context, k);
          var gv = g[k].ToFloatArray();
          var cv = c[k].ToFloatArray();
          for (int i = 0; i < cv.Length; ++i)
            Assert.AreEqual(cv[i], gv[i], 1e-4 * (1 + Math.Abs(cv[i])), k + "[" + i + "]");
        }
      } finally {
        NDArray.DisposeAll(g);
        NDArray.DisposeAll(c);
      }
    }
  }

  /// <summary>
  /// The device argument: SimpleBind on cpu(1) allocates there; without a
  /// GPU, gpu(0) fails with ErrorCode.Device naming it, for SimpleBind, Bind
  /// and Module.Create alike (with one, TrainsOnTheGpu runs instead).
  /// </summary>
  // conformance: device.bind_on_a_device
  [Test]
  public void BindOnADevice() {
    bool noGpu = Context.DeviceCount(DeviceType.Gpu) == 0;
    using (var f = AbPlusC())
    using (var ex = Executor.SimpleBind(f, Context.Cpu(1), Shapes(2, 2), "write")) {
      var args = ex.ArgArrays();
      try { Assert.AreEqual(Context.Cpu(1), args["a"].Context); } finally { NDArray.DisposeAll(args); }
      CheckAbPlusC(ex, 2);
      if (!noGpu) return;
      var e = Assert.Throws<WeftException>(() => Executor.SimpleBind(f, Context.Gpu(0), Shapes(2, 2), "write"));
      Assert.AreEqual(ErrorCode.Device, e.Code, e.Message);
      StringAssert.Contains("gpu(0)", e.Message);
      using (var a = NDArray.FromArray(new float[] { 1, 2 }, 2)) {
        e = Assert.Throws<WeftException>(() => Executor.Bind(f, Context.Gpu(0), new[] { a, a, a }, null, null, null));
        Assert.AreEqual(ErrorCode.Device, e.Code, e.Message);
        StringAssert.Contains("gpu(0)", e.Message);
      }
      e = Assert.Throws<WeftException>(() => Module.Create(f, Context.Gpu(0), new[] { "a" }, new string[0]));
      Assert.AreEqual(ErrorCode.Device, e.Code, e.Message);
      StringAssert.Contains("gpu(0)", e.Message);
    }
  }

  /// <summary>
  /// 7 samples (row i = (i, 10 i), label i) in batches of 3 with "pad": the
  /// last batch holds sample 6 then samples 0 and 1 again (pad 2); Reset()
  /// starts the same sequence over.
  /// </summary>
  // conformance: data.iter_batches_and_pads
  [Test]
  public void DataIterBatchesAndPads() {
    var xs = new float[14];
    var ys = new float[7];
    for (int i = 0; i < 7; ++i) { xs[2 * i] = i; xs[2 * i + 1] = 10 * i; ys[i] = i; }
    int[][] rows = { new[] { 0, 1, 2 }, new[] { 3, 4, 5 }, new[] { 6, 0, 1 } };
    int[] pads = { 0, 0, 2 };
    using (var x = NDArray.FromArray(xs, 7, 2))
    using (var y = NDArray.FromArray(ys, 7))
    using (var it = DataIter.FromArrays(new Dictionary<string, NDArray> { { "data", x } },
                                        new Dictionary<string, NDArray> { { "label", y } }, 3, false, "pad", 0)) {
      Assert.AreEqual(3, it.BatchSize);
      for (int epoch = 0; epoch < 2; ++epoch) {
        for (int b = 0; b < 3; ++b) {
          Assert.IsTrue(it.Next(), "epoch " + epoch + " batch " + b);
          Assert.AreEqual(pads[b], it.Pad, "pad of batch " + b);
          var d = it.Data();
          var l = it.Label();
          try {
            Assert.AreEqual(new long[] { 3, 2 }, d["data"].Shape);
            var dv = d["data"].ToFloatArray();
            var lv = l["label"].ToFloatArray();
            for (int r = 0; r < 3; ++r) {
              int sample = rows[b][r];
              Assert.AreEqual((float)sample, dv[2 * r], "batch " + b + " row " + r);
              Assert.AreEqual((float)(10 * sample), dv[2 * r + 1], "batch " + b + " row " + r);
              Assert.AreEqual((float)sample, lv[r], "label of batch " + b + " row " + r);
            }
          } finally {
            NDArray.DisposeAll(d);
            NDArray.DisposeAll(l);
          }
        }
        Assert.IsFalse(it.Next(), "epoch " + epoch + " has 3 batches");
        it.Reset();
      }
    }
  }

  /// <summary>The library's MNIST loader on Debian's Fashion-MNIST test set (ignored when absent).</summary>
  // conformance: data.mnist_loader
  [Test]
  public void MnistLoader() {
    const string dir = "/usr/share/datasets/fashion-mnist";
    if (!File.Exists(dir + "/t10k-labels-idx1-ubyte.gz")) Assert.Ignore("Fashion-MNIST not installed");
    using (var m = Mnist.LoadSet(dir, "t10k")) {
      Assert.AreEqual(10000, m.Count);
      Assert.AreEqual(new long[] { 10000, 1, 28, 28 }, m.Images.Shape);
      Assert.AreEqual(Context.Cpu(), m.Images.Context);
      // The first labels, read from the file's bytes 8.. by hand (gzip -dc | od).
      Assert.AreEqual(new float[] { 9, 2, 1, 1, 6, 1, 4, 6, 5, 7 }, m.Labels.ToFloatArray().Take(10).ToArray());
      using (var first = m.Images.Slice(0, 1)) {
        double sum = 0;
        foreach (var v in first.ToFloatArray()) {
          Assert.IsTrue(v >= 0 && v <= 1, "pixel " + v);
          sum += v;
        }
        Assert.AreEqual(33456 / 255.0, sum, 1e-3);  // byte sum of image 0 is 33456
      }
    }
    var e = Assert.Throws<WeftException>(() => Mnist.Load(dir + "/t10k-images-idx3-ubyte.gz", dir + "/no-such-labels.gz"));
    Assert.AreEqual(ErrorCode.IO, e.Code, e.Message);
    StringAssert.Contains("no-such-labels.gz", e.Message);
  }

  /// <summary>a*b in group "stage1" (a, b too), +c in group "stage2" (c too).</summary>
  static Symbol GroupedAbPlusC() {
    using (var a = Symbol.Variable("a"))
    using (var b = Symbol.Variable("b"))
    using (var c = Symbol.Variable("c")) {
      a.SetAttr("ctx_group", "stage1");
      b.SetAttr("ctx_group", "stage1");
      c.SetAttr("ctx_group", "stage2");
      using (var ab = Symbol.Create("elemwise_mul", "ab", null, a, b)) {
        ab.SetAttr("ctx_group", "stage1");
        var output = Symbol.Create("elemwise_add", "out", null, ab, c);
        output.SetAttr("ctx_group", "stage2");
        return output;
      }
    }
  }

  /// <summary>
  /// group2ctx: SimpleBind with stage1 on cpu(1) and stage2 on cpu(2)
  /// allocates each group's arguments (and gradients) on its device, and
  /// forward/backward across the devices match the closed form; Bind takes
  /// arrays living on their group's device; a group missing from the map
  /// fails with ErrorCode.Device naming it.
  /// </summary>
  // conformance: device.group2ctx_places_arguments
  [Test]
  public void Group2CtxPlacesArgumentsOnTheirGroupsDevice() {
    var g2c = new Dictionary<string, Context> { { "stage1", Context.Cpu(1) }, { "stage2", Context.Cpu(2) } };
    using (var f = GroupedAbPlusC())
    using (var ex = Executor.SimpleBind(f, Context.Cpu(), Shapes(2, 2), "write", null, g2c)) {
      var args = ex.ArgArrays();
      var grads = ex.GradArrays();
      try {
        Assert.AreEqual(Context.Cpu(1), args["a"].Context);
        Assert.AreEqual(Context.Cpu(1), args["b"].Context);
        Assert.AreEqual(Context.Cpu(2), args["c"].Context);
        Assert.AreEqual(Context.Cpu(2), grads["c"].Context);
      } finally {
        NDArray.DisposeAll(args);
        NDArray.DisposeAll(grads);
      }
      CheckAbPlusC(ex, 3);
      var e = Assert.Throws<WeftException>(() => Executor.SimpleBind(f, Context.Cpu(), Shapes(2, 2), "write", null,
          new Dictionary<string, Context> { { "stage1", Context.Cpu(1) } }));
      Assert.AreEqual(ErrorCode.Device, e.Code, e.Message);
      StringAssert.Contains("stage2", e.Message);
      using (var a = NDArray.Create(Context.Cpu(1), DType.Float32, 2))
      using (var b = NDArray.Create(Context.Cpu(1), DType.Float32, 2))
      using (var c = NDArray.Create(Context.Cpu(2), DType.Float32, 2)) {
        a.CopyFrom(new float[] { 1, 2 });
        b.CopyFrom(new float[] { 3, 4 });
        c.CopyFrom(new float[] { 5, 6 });
        using (var bound = Executor.Bind(f, Context.Cpu(), new[] { a, b, c }, null, null, null, g2c)) {
          bound.Forward(false);
          var outs = bound.Outputs();
          try {
            Assert.AreEqual(Context.Cpu(2), outs[0].Context);
            Assert.AreEqual(new float[] { 8, 14 }, outs[0].ToFloatArray());
          } finally { NDArray.DisposeAll(outs); }
        }
      }
    }
  }
}

}
