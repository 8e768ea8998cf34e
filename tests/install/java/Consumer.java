import ai.weft.NDArray;
import ai.weft.Ops;
import ai.weft.Weft;
import java.util.Arrays;

/**
 * A Java program built against the installed weft jar only (tests/install/run_java.sh):
 * prints where the natives were loaded from, runs relu on a 2x3 array and checks
 * the result. Prints "weft java consumer ok" on success, exits 1 otherwise.
 */
public final class Consumer {
  public static void main(String[] args) {
    System.out.println("native: " + Weft.nativeLibrary());
    float[] in = {-1, 2, -3, 4, -5, 6};
    try (NDArray x = NDArray.fromArray(in, 2, 3); NDArray y = Ops.call("relu", null, x)) {
      float[] out = y.toFloatArray();
      float[] want = {0, 2, 0, 4, 0, 6};
      if (!Arrays.equals(out, want) || !Arrays.equals(y.shape(), new long[] {2, 3})) {
        System.err.println("relu gave " + Arrays.toString(out));
        System.exit(1);
      }
    }
    if (Weft.liveHandleCount() != 0) {
      System.err.println(Weft.liveHandleCount() + " handles left");
      System.exit(1);
    }
    System.out.println("weft java consumer ok: weft " + Weft.version() + ", ABI " + Weft.abiVersion());
  }
}
