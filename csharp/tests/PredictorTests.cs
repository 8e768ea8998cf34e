using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>
/// Predictor (the same list as the Java and Go suites): threads and tasks
/// equal one thread with the weights held once, interleaved batch sizes equal
/// single samples, memory equals files, errors and closed predictors, live
/// handles back to zero. The model is the demo's LeNet (built here, weights
/// from a seeded xavier initializer, saved as a checkpoint by the fixture).
/// </summary>
[TestFixture]
public class PredictorTests : LiveHandleFixture {
  const int Pixels = 28 * 28;
  string dir, symbolPath, paramsPath, symbolJson;
  float[][] images;

  [TestFixtureSetUp]
  public void WriteLeNetCheckpoint() {
    dir = Path.Combine(Path.GetTempPath(), "weft-cs-predictor-" + Guid.NewGuid().ToString("N"));
    Directory.CreateDirectory(dir);
    var prefix = Path.Combine(dir, "lenet");
    using (var sym = LeNet()) {
      symbolJson = sym.ToJson();
      WriteInitialized(sym, prefix);
    }
    symbolPath = prefix + "-symbol.json";
    paramsPath = prefix + "-0000.params";
    var rng = new Random(5);
    images = new float[24][];
    for (int i = 0; i < images.Length; ++i) {
      images[i] = new float[Pixels];
      for (int j = 0; j < Pixels; ++j) images[i][j] = (float)rng.NextDouble();
    }
  }

  [TestFixtureTearDown]
  public void RemoveCheckpoint() { Directory.Delete(dir, true); }

  /// <summary>The demo's LeNet (examples/models/lenet-symbol.json).</summary>
  internal static Symbol LeNet() {
    var made = new List<Symbol>();
    Func<string, string, Dictionary<string, object>, Symbol, Symbol> op = (o, name, p, x) => {
      var s = Symbol.Create(o, name, p, x);
      made.Add(s);
      return s;
    };
    try {
      var data = Symbol.Variable("data");
      made.Add(data);
      var pool = new Dictionary<string, object> { { "kernel", "(2, 2)" }, { "pool_type", "max" }, { "stride", "(2, 2)" } };
      var relu = new Dictionary<string, object> { { "act_type", "relu" } };
      var x = op("Convolution", "conv1", new Dictionary<string, object> { { "kernel", "(5, 5)" }, { "num_filter", 20 } }, data);
      x = op("Pooling", "pool1", pool, op("Activation", "relu1", relu, x));
      x = op("Convolution", "conv2", new Dictionary<string, object> { { "kernel", "(5, 5)" }, { "num_filter", 50 } }, x);
      x = op("Pooling", "pool2", pool, op("Activation", "relu2", relu, x));
      x = op("FullyConnected", "fc1", new Dictionary<string, object> { { "num_hidden", 500 } }, op("Flatten", "flatten", null, x));
      x = op("FullyConnected", "fc2", new Dictionary<string, object> { { "num_hidden", 10 } }, op("Activation", "relu3", relu, x));
      return op("SoftmaxOutput", "softmax", null, x).Copy();
    } finally {
      foreach (var s in made) s.Dispose();
    }
  }

  /// <summary>Writes prefix-symbol.json and prefix-0000.params (xavier, seed 3).</summary>
  internal static void WriteInitialized(Symbol sym, string prefix) {
    var args = new Dictionary<string, NDArray>();
    try {
      var shapes = sym.InferShape(new Dictionary<string, long[]> { { "data", new long[] { 1, 1, 28, 28 } } });
      using (var init = Initializer.Create("xavier", null, 3)) {
        foreach (var kv in shapes.Arguments) {
          if (kv.Key == "data" || kv.Key.EndsWith("label")) continue;
          var a = NDArray.Create(DType.Float32, kv.Value);
          args[kv.Key] = a;
          init.Init(kv.Key, a);
        }
      }
      Checkpoint.Save(prefix, 0, sym, args, new Dictionary<string, NDArray>());
    } finally {
      NDArray.DisposeAll(args);
    }
  }

  static IList<KeyValuePair<string, long[]>> DataInput(long batch = 1) {
    return new[] { Predictor.Input("data", batch, 1, 28, 28) };
  }

  static Dictionary<string, string> Options(int maxExecutors) {
    return new Dictionary<string, string> { { "max_executors", maxExecutors.ToString() } };
  }

  Predictor FromMemory(int maxExecutors = 2) {
    return Predictor.Create(symbolJson, File.ReadAllBytes(paramsPath), DataInput(), null, Options(maxExecutors));
  }

  float[][] OneByOne(Predictor p) {
    return images.Select(img => p.Predict(img)).ToArray();
  }

  /// <summary>Names, an output shape for a batch, LeNet's weight bytes, nothing in use.</summary>
  // conformance: predictor.describes_its_model
  [Test]
  public void DescribesItsModel() {
    using (var p = FromMemory(2)) {
      CollectionAssert.AreEqual(new[] { "data" }, p.Inputs);
      CollectionAssert.AreEqual(new[] { "softmax_output" }, p.Outputs);
      CollectionAssert.AreEqual(new long[] { 3, 10 }, p.OutputShape(0, 3, 1, 28, 28));
      var s = p.Stats();
      // conv1, conv2, fc1, fc2: weights and biases, float32.
      Assert.AreEqual(4L * (20 * 25 + 20 + 50 * 20 * 25 + 50 + 500 * 800 + 500 + 10 * 500 + 10),
                      s.WeightBytes, s.ToString());
      Assert.AreEqual(0, s.InUse);
    }
  }

  /// <summary>An internal node as the output: "fc2" gives fc2_output, the logits, whose
  /// softmax is the model's own output on the same image.</summary>
  // conformance: predictor.internal_output_by_name
  [Test]
  public void InternalOutputByName() {
    using (var p = FromMemory(2))
    using (var logits = Predictor.Create(symbolJson, File.ReadAllBytes(paramsPath), DataInput(), new[] { "fc2" })) {
      CollectionAssert.AreEqual(new[] { "fc2_output" }, logits.Outputs);
      CollectionAssert.AreEqual(new long[] { 3, 10 }, logits.OutputShape(0, 3, 1, 28, 28));
      for (int i = 0; i < 4; ++i) {
        var z = logits.Predict(images[i]);
        var want = p.Predict(images[i]);
        Assert.AreEqual(10, z.Length);
        double max = z.Max(), sum = z.Sum(v => Math.Exp(v - max));
        for (int k = 0; k < 10; ++k)
          Assert.AreEqual(want[k], Math.Exp(z[k] - max) / sum, 1e-5, "image " + i + " class " + k);
      }
    }
  }

  // conformance: predictor.allocating_predict
  [Test]
  public void AllocatingPredictSizesEachBatchOnItsOwn() {
    // Predict(float[]) remembers the output size per input length:
    // alternating batches of 1 and 2 images each get their own size.
    using (var p = FromMemory(2)) {
      var two = images[0].Concat(images[1]).ToArray();
      for (int rep = 0; rep < 2; ++rep) {
        var one = p.Predict(images[0]);
        Assert.AreEqual(10, one.Length);
        var both = p.Predict(two);
        Assert.AreEqual(20, both.Length);
        for (int i = 0; i < 10; ++i) Assert.AreEqual(one[i], both[i], 1e-5, "element " + i);
      }
    }
  }

  // conformance: predictor.threads_equal_one_thread
  [Test]
  public void ThreadsGiveResultsIdenticalToOneThreadWithWeightsHeldOnce() {
    const int threads = 6, maxExecutors = 2;
    using (var p = FromMemory(maxExecutors)) {
      var want = OneByOne(p);
      Assert.AreEqual(10, want[0].Length);
      Assert.AreEqual(1.0, want[0].Sum(), 1e-5);
      var before = p.Stats();
      Assert.Greater(before.WeightBytes, 400000);  // fc1 alone is 800x500 floats

      var got = new float[threads][][];
      var errors = new Exception[threads];
      var start = new Barrier(threads);
      var ts = Enumerable.Range(0, threads).Select(t => new Thread(() => {
        try {
          start.SignalAndWait();
          got[t] = new float[images.Length][];
          for (int k = 0; k < images.Length; ++k) {
            int i = (k + 5 * t) % images.Length;  // every thread its own order
            var output = new float[10];
            p.Predict(images[i], output);
            got[t][i] = output;
          }
        } catch (Exception e) {
          errors[t] = e;
        }
      })).ToArray();
      foreach (var t in ts) t.Start();
      foreach (var t in ts) t.Join();
      for (int t = 0; t < threads; ++t) {
        Assert.IsNull(errors[t], "thread " + t);
        for (int i = 0; i < images.Length; ++i) Assert.AreEqual(want[i], got[t][i], "thread " + t + " image " + i);
      }
      var after = p.Stats();
      Assert.AreEqual(before.WeightBytes, after.WeightBytes, "weights held once");
      Assert.LessOrEqual(after.Executors, maxExecutors);
      Assert.AreEqual(1, after.ShapeSets);
      Assert.AreEqual(0, after.InUse);
    }
  }

  // conformance: predictor.async_equals_sync
  [Test]
  public void TasksGiveResultsIdenticalToOneThread() {
    using (var p = FromMemory(3)) {
      var want = OneByOne(p);
      long weights = p.Stats().WeightBytes;
      var outputs = images.Select(_ => new float[10]).ToArray();
      var tasks = new List<Task>();
      for (int round = 0; round < 3; ++round)
        for (int i = 0; i < images.Length; ++i) {
          var o = new float[10];
          int j = i, r = round;
          tasks.Add(p.PredictAsync(images[i], o).ContinueWith(t => {
            t.Wait();  // rethrows a failure
            if (r == 0) Array.Copy(o, outputs[j], 10);
            Assert.AreEqual(want[j], o, "task for image " + j);
          }));
        }
      Task.WaitAll(tasks.ToArray());
      for (int i = 0; i < images.Length; ++i) Assert.AreEqual(want[i], outputs[i]);
      var arrays = images.Select(img => p.PredictAsync(img)).ToArray();
      for (int i = 0; i < images.Length; ++i) Assert.AreEqual(want[i], arrays[i].Result);
      var s = p.Stats();
      Assert.AreEqual(weights, s.WeightBytes);
      Assert.LessOrEqual(s.Executors, 3);
    }
  }

  // Dynamic batching: threads' single images gathered into batches equal
  // unbatched calls, with both request queues.
  // conformance: predictor.dynamic_batching_equals_single
  [Test]
  public void DynamicBatchingEqualsSingleCalls() {
    float[][] want;
    using (var plain = FromMemory()) want = OneByOne(plain);
    foreach (var queue in new[] { "mutex", "lockfree" }) {
      var options = Options(2);
      options["max_batch"] = "8";
      options["batch_delay_us"] = "5000";
      options["batch_queue"] = queue;
      using (var p = Predictor.Create(symbolJson, File.ReadAllBytes(paramsPath), DataInput(), null, options)) {
        const int threads = 6;
        var errors = new Exception[threads];
        var start = new Barrier(threads);
        var ts = Enumerable.Range(0, threads).Select(t => new Thread(() => {
          try {
            start.SignalAndWait();
            for (int k = 0; k < images.Length; ++k) {
              int i = (k + 3 * t) % images.Length;
              var output = p.Predict(images[i]);
              for (int j = 0; j < 10; ++j)
                if (Math.Abs(output[j] - want[i][j]) > 1e-5 * (1 + Math.Abs(want[i][j])))
                  throw new Exception($"{queue} queue, image {i}: {output[j]} vs unbatched {want[i][j]}");
            }
          } catch (Exception e) {
            errors[t] = e;
          }
        })).ToArray();
        foreach (var t in ts) t.Start();
        foreach (var t in ts) t.Join();
        for (int t = 0; t < threads; ++t) Assert.IsNull(errors[t], "thread " + t + ": " + errors[t]);
        Assert.AreEqual(0, p.Stats().InUse);
      }
    }
    var bad = Options(2);
    bad["max_batch"] = "4";
    bad["batch_queue"] = "ring";
    Expect.Error(ErrorCode.InvalidArgument,
                () => Predictor.Create(symbolJson, File.ReadAllBytes(paramsPath), DataInput(), null, bad).Dispose(),
                "batch_queue", "'ring'");
  }

  // conformance: predictor.cancelled_before_start
  [Test]
  public void CancelledBeforeStartLeavesOutputUntouched() {
    using (var p = FromMemory())
    using (var cts = new CancellationTokenSource()) {
      cts.Cancel();
      var o = Enumerable.Repeat(-7f, 10).ToArray();
      var t = p.PredictAsync(images[0], o, cts.Token);
      var e = Assert.Throws<AggregateException>(() => t.Wait());
      Assert.IsInstanceOf<TaskCanceledException>(e.InnerException);
      Assert.IsTrue(t.IsCanceled);
      Assert.IsTrue(o.All(v => v == -7f));
      Assert.IsTrue(p.PredictAsync(images[0], cts.Token).ContinueWith(x => x.IsCanceled).Result);
    }
  }

  // conformance: predictor.interleaved_batch_sizes
  [Test]
  public void InterleavedBatchSizesEqualSingleSamples() {
    using (var p = FromMemory()) {
      var want = OneByOne(p);
      int next = 0;
      foreach (int batch in new[] { 4, 1, 3, 4, 2, 1, 4, 3, 2 }) {
        var input = new float[batch * Pixels];
        var idx = new int[batch];
        for (int b = 0; b < batch; ++b) {
          idx[b] = next++ % images.Length;
          Array.Copy(images[idx[b]], 0, input, b * Pixels, Pixels);
        }
        CollectionAssert.AreEqual(new long[] { batch, 10 }, p.OutputShape(0, batch, 1, 28, 28));
        var output = new float[batch * 10];
        p.Predict(input, output);
        for (int b = 0; b < batch; ++b)
          for (int k = 0; k < 10; ++k)
            Assert.AreEqual(want[idx[b]][k], output[b * 10 + k], 1e-5, "batch " + batch + " sample " + b);
        // A slice of larger arrays: the span overloads read and write in place.
        var big = new float[input.Length + 7];
        Array.Copy(input, 0, big, 7, input.Length);
        var bigOut = new float[output.Length + 3];
        p.Predict(big, 7, input.Length, bigOut, 3, output.Length);
        CollectionAssert.AreEqual(output, bigOut.Skip(3).ToArray());
      }
      var s = p.Stats();
      Assert.AreEqual(4, s.ShapeSets);  // batches 1, 2, 3, 4
      Assert.AreEqual(0, s.InUse);
    }
  }

  // conformance: predictor.memory_stream_equal_files
  [Test]
  public void ModelsFromMemoryStreamAndFilesAreEqual() {
    using (var mem = FromMemory())
    using (var stream = File.OpenRead(paramsPath))
    using (var fromStream = Predictor.Create(symbolJson, stream, DataInput()))
    using (var files = Predictor.FromFiles(symbolPath, paramsPath, DataInput(), new[] { "softmax" })) {
      CollectionAssert.AreEqual(new[] { "data" }, mem.Inputs);
      CollectionAssert.AreEqual(new[] { "softmax_output" }, mem.Outputs);
      var want = OneByOne(mem);
      for (int i = 0; i < images.Length; ++i) {
        Assert.AreEqual(want[i], fromStream.Predict(images[i]), "stream, image " + i);
        Assert.AreEqual(want[i], files.Predict(images[i]), "files, image " + i);
      }
      Assert.AreEqual(mem.Stats().WeightBytes, files.Stats().WeightBytes);
    }
  }

  // conformance: predictor.bad_inputs_give_errors predictor.bad_models_and_options
  [Test]
  public void BadArgumentsGiveWeftExceptionWithTheLibraryMessage() {
    var bytes = File.ReadAllBytes(paramsPath);
    Expect.Error(ErrorCode.InvalidArgument,
                () => Predictor.Create(symbolJson, bytes, new[] { Predictor.Input("image", 1, 1, 28, 28) }),
                "input 'image'", "no argument");
    Expect.Error(ErrorCode.InvalidArgument,
                () => Predictor.Create(symbolJson, bytes, DataInput(), null,
                                       new Dictionary<string, string> { { "threads", "2" } }),
                "unknown option 'threads'");
    Expect.Error(ErrorCode.IO, () => Predictor.FromFiles(symbolPath, paramsPath + ".missing", DataInput()),
                "missing");
    Expect.Error(ErrorCode.InvalidArgument, () => Predictor.Create("{not json", bytes, DataInput()), "JSON");
    Assert.Throws<ArgumentException>(() => Predictor.Create(symbolJson, bytes, new KeyValuePair<string, long[]>[0]));
    using (var p = FromMemory()) {
      var output = new float[10];
      // Not a whole number of 28x28 samples: the binding's check, same exception type.
      Expect.Error(ErrorCode.Shape, () => p.Predict(new float[Pixels - 1], output), "'data'", "783 floats");
      // A shape the model cannot take: the library's message names the input.
      Expect.Error(ErrorCode.Shape, () => p.Predict(new float[27 * 28], new long[] { 1, 1, 27, 28 }, output), "data");
      Expect.Error(ErrorCode.InvalidArgument, () => p.Predict(new float[Pixels], new float[9]),
                  "output 'softmax_output'", "40 bytes, given 36");
      Expect.Error(ErrorCode.InvalidArgument, () => p.Predict(new float[Pixels], new long[] { 2, 1, 28, 28 }, output),
                  "input 'data'");
      // Still usable after the errors.
      Assert.AreEqual(OneByOne(p)[0], p.Predict(images[0]));
      Assert.AreEqual(0, p.Stats().InUse);
    }
  }

  // conformance: predictor.closed_gives_invalid_handle
  [Test]
  public void ClosedPredictorThrowsInvalidHandle() {
    var p = FromMemory();
    Assert.AreEqual(LiveAtStart + 1, Library.LiveHandleCount);
    Assert.IsFalse(p.IsDisposed);
    p.Dispose();
    Assert.IsTrue(p.IsDisposed);
    Assert.AreEqual(LiveAtStart, Library.LiveHandleCount);
    p.Dispose();  // idempotent
    Expect.Error(ErrorCode.InvalidHandle, () => p.Predict(images[0], new float[10]), "Predictor");
    Expect.Error(ErrorCode.InvalidHandle, () => p.Stats(), "Predictor");
    Expect.Error(ErrorCode.InvalidHandle, () => { var unused = p.Inputs; }, "Predictor");
    var e = Assert.Throws<AggregateException>(() => p.PredictAsync(images[0]).Wait());
    Assert.AreEqual(ErrorCode.InvalidHandle, ((WeftException)e.InnerException).Code);
  }

  /// <summary>Dispose while threads predict: every call either completes with
  /// the right answer or throws InvalidHandle; the native free runs once.</summary>
  // conformance: predictor.close_while_predicting
  [Test]
  public void DisposeWhilePredictingIsSafe() {
    var p = FromMemory();
    var want = p.Predict(images[1]);
    const int threads = 4;
    var done = new int[threads];
    var errors = new Exception[threads];
    var started = new CountdownEvent(threads);
    var ts = Enumerable.Range(0, threads).Select(t => new Thread(() => {
      bool signalled = false;
      try {
        for (int k = 0; k < 200; ++k) {
          var o = new float[10];
          p.Predict(images[1], o);
          CollectionAssert.AreEqual(want, o);
          ++done[t];
          if (!signalled) { started.Signal(); signalled = true; }
        }
      } catch (WeftException e) {
        if (e.Code != ErrorCode.InvalidHandle) errors[t] = e;
      } catch (Exception e) {
        errors[t] = e;
      }
      if (!signalled) started.Signal();
    })).ToArray();
    foreach (var t in ts) t.Start();
    started.Wait();  // every thread has completed one call (or failed)
    p.Dispose();
    foreach (var t in ts) t.Join();
    for (int t = 0; t < threads; ++t) {
      Assert.IsNull(errors[t], "thread " + t);
      Assert.Greater(done[t], 0, "thread " + t);
    }
    Expect.Error(ErrorCode.InvalidHandle, () => p.Predict(images[1], new float[10]));
    Assert.AreEqual(LiveAtStart, Library.LiveHandleCount);
  }
}

}
