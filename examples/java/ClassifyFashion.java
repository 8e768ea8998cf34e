import ai.weft.Checkpoint;
import ai.weft.DataIter;
import ai.weft.Mnist;
import ai.weft.Module;
import ai.weft.NDArray;
import ai.weft.WeftException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Loads a checkpoint written by `weft train`, classifies the first N images
 * of Fashion-MNIST's test set with it and compares each prediction with the
 * C++ one (`weft predict --out FILE`: one class per line).
 *
 * <pre>
 *   java -cp weft-0.1.0.jar:weft-examples.jar ClassifyFashion PREFIX EPOCH DATA_DIR N CPP_PREDICTIONS
 * </pre>
 *
 * Prints one line; exits 0 when every prediction agrees with C++, 1 when
 * some differ or on an error, 2 on a usage error.
 */
public final class ClassifyFashion {
  static final int BATCH = 100;  // as weft predict

  public static void main(String[] argv) {
    if (argv.length != 5) {
      System.err.println("usage: ClassifyFashion PREFIX EPOCH DATA_DIR N CPP_PREDICTIONS");
      System.exit(2);
    }
    try {
      int n = Integer.parseInt(argv[3]);
      float[] truth = new float[n];
      int[] predicted = classify(argv[0], Integer.parseInt(argv[1]), argv[2], truth);
      List<String> cpp = Files.readAllLines(Path.of(argv[4]));
      if (cpp.size() != n) {
        throw new IOException(argv[4] + " holds " + cpp.size() + " predictions, expected " + n);
      }
      int correct = 0;
      int disagree = 0;
      for (int i = 0; i < n; ++i) {
        if (predicted[i] == (int) truth[i]) ++correct;
        if (predicted[i] != Integer.parseInt(cpp.get(i).trim())) ++disagree;
      }
      System.out.printf("Java: accuracy %.2f%% on %d images, %d disagreements with C++%n",
          100.0 * correct / n, n, disagree);
      System.exit(disagree == 0 ? 0 : 1);
    } catch (WeftException | IOException | NumberFormatException e) {
      System.err.println("Java: error: " + e.getMessage());
      System.exit(1);
    }
  }

  /**
   * The predicted class (arg max of the output) of each of the first
   * truth.length test images; their labels are copied into truth.
   */
  static int[] classify(String prefix, int epoch, String dataDir, float[] truth) {
    int n = truth.length;
    int[] predicted = new int[n];
    try (Checkpoint ck = Checkpoint.load(prefix, epoch);           // symbol + parameters
        Mnist test = Mnist.loadSet(dataDir, "t10k");               // (10000,1,28,28), labels
        NDArray images = test.images.slice(0, n);                  // views: no copy
        NDArray labels = test.labels.slice(0, n);
        DataIter it = DataIter.ndarray(Map.of("data", images), Map.of("softmax_label", labels),
            BATCH, false, "pad", 0);
        Module mod = Module.create(ck.symbol)) {                   // cpu(0)
      labels.copyTo(truth);
      mod.bind(it, false);                                         // inference only
      mod.initParams(null, ck.args, ck.aux, false);
      int k = 0;
      while (it.next()) {
        mod.forward(it, false);
        Map<String, NDArray> outs = mod.outputs();                 // new handles: close them
        try {
          NDArray out = outs.values().iterator().next();           // (BATCH, classes)
          int classes = (int) out.shape()[1];
          float[] scores = out.toFloatArray();
          for (int r = 0; r < BATCH - it.pad(); ++r) {             // padded rows are repeats
            int best = 0;
            for (int c = 1; c < classes; ++c) {
              if (scores[r * classes + c] > scores[r * classes + best]) best = c;
            }
            predicted[k++] = best;
          }
        } finally {
          NDArray.closeAll(outs);
        }
      }
    }
    return predicted;
  }
}
