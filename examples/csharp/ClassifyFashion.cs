// Loads a checkpoint written by `weft train`, classifies the first N images
// of Fashion-MNIST's test set with it and compares each prediction with the
// C++ one (`weft predict --out FILE`: one class per line).
//
//   mono ClassifyFashion.exe PREFIX EPOCH DATA_DIR N CPP_PREDICTIONS
//
// Prints one line; exits 0 when every prediction agrees with C++, 1 when some
// differ or on an error, 2 on a usage error.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Weft;

static class ClassifyFashion {
  const int Batch = 100;  // as weft predict

  static int Main(string[] argv) {
    if (argv.Length != 5) {
      Console.Error.WriteLine("usage: ClassifyFashion.exe PREFIX EPOCH DATA_DIR N CPP_PREDICTIONS");
      return 2;
    }
    try {
      int n = int.Parse(argv[3]);
      var truth = new float[n];
      int[] predicted = Classify(argv[0], int.Parse(argv[1]), argv[2], truth);
      var cpp = File.ReadAllLines(argv[4]).Select(l => int.Parse(l.Trim())).ToArray();
      if (cpp.Length != n)
        throw new IOException(argv[4] + " holds " + cpp.Length + " predictions, expected " + n);
      int correct = 0, disagree = 0;
      for (int i = 0; i < n; ++i) {
        if (predicted[i] == (int)truth[i]) ++correct;
        if (predicted[i] != cpp[i]) ++disagree;
      }
      Console.WriteLine(string.Format(System.Globalization.CultureInfo.InvariantCulture,
          "C#:   accuracy {0:F2}% on {1} images, {2} disagreements with C++", 100.0 * correct / n, n, disagree));
      return disagree == 0 ? 0 : 1;
    } catch (Exception e) when (e is WeftException || e is IOException || e is FormatException) {
      Console.Error.WriteLine("C#: error: " + e.Message);
      return 1;
    }
  }

  /// The predicted class (arg max of the output) of each of the first
  /// truth.Length test images; their labels are copied into truth.
  static int[] Classify(string prefix, int epoch, string dataDir, float[] truth) {
    int n = truth.Length;
    var predicted = new int[n];
    using (var ck = Checkpoint.Load(prefix, epoch))                 // symbol + parameters
    using (var test = Mnist.LoadSet(dataDir, "t10k"))               // (10000,1,28,28), labels
    using (var images = test.Images.Slice(0, n))                    // views: no copy
    using (var labels = test.Labels.Slice(0, n))
    using (var it = DataIter.FromArrays(new Dictionary<string, NDArray> { { "data", images } },
                                        new Dictionary<string, NDArray> { { "softmax_label", labels } }, Batch))
    using (var mod = Module.Create(ck.Symbol)) {                    // cpu(0)
      labels.CopyTo(truth);
      mod.Bind(it, false);                                          // inference only
      mod.InitParams(null, ck.Args, ck.Aux);
      int k = 0;
      while (it.Next()) {
        mod.Forward(it, false);
        var outs = mod.Outputs();                                   // new handles: dispose them
        try {
          var output = outs.Values.First();                         // (Batch, classes)
          int classes = (int)output.Shape[1];
          var scores = output.ToFloatArray();
          for (int r = 0; r < Batch - it.Pad; ++r) {                // padded rows are repeats
            int best = 0;
            for (int c = 1; c < classes; ++c)
              if (scores[r * classes + c] > scores[r * classes + best]) best = c;
            predicted[k++] = best;
          }
        } finally { NDArray.DisposeAll(outs); }
      }
    }
    return predicted;
  }
}
