import ai.weft.DType;
import ai.weft.NDArray;
import ai.weft.Weft;
import java.nio.FloatBuffer;

/**
 * Java side of scripts/bench_bindings.sh. Prints "<name> <ns per op>":
 *   version_call   Weft.abiVersion() (one JNI call into weft_abi_version)
 *   shape_query    NDArray.ndim() (JNI + handle lookup + out-parameter + status)
 *   copy_1m_inout  copy 1M floats in and out: zero-copy (direct FloatBuffer)
 *   copy_1m_inout_copying   the same through float[] (copied via a native temp)
 */
public final class BenchBindings {
  private static volatile long sink;

  public static void main(String[] args) {
    final int calls = 5_000_000;
    final int copies = 200;
    final int n = 1 << 20;
    try (NDArray a = NDArray.create(DType.FLOAT32, n); NDArray s = NDArray.create(DType.FLOAT32, 2, 3)) {
      for (int r = 0; r < 3; ++r) {  // warm-up rounds for the JIT; the last one is printed
        long t0 = System.nanoTime();
        for (int i = 0; i < calls; ++i) sink += Weft.abiVersion();
        double version = (System.nanoTime() - t0) / (double) calls;
        t0 = System.nanoTime();
        for (int i = 0; i < calls; ++i) sink += s.ndim();
        double shape = (System.nanoTime() - t0) / (double) calls;
        FloatBuffer buf = NDArray.allocateFloats(n);
        t0 = System.nanoTime();
        for (int i = 0; i < copies; ++i) {
          a.copyFrom(buf);
          a.copyTo(buf);
        }
        double zero = (System.nanoTime() - t0) / (double) copies;
        float[] arr = new float[n];
        t0 = System.nanoTime();
        for (int i = 0; i < copies; ++i) {
          a.copyFrom(arr);
          a.copyTo(arr);
        }
        double copying = (System.nanoTime() - t0) / (double) copies;
        if (r == 2) {
          System.out.printf("version_call %.1f%n", version);
          System.out.printf("shape_query %.1f%n", shape);
          System.out.printf("copy_1m_inout %.1f%n", zero);
          System.out.printf("copy_1m_inout_copying %.1f%n", copying);
        }
      }
    }
  }
}
