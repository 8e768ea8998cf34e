package ai.weft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** float16/bfloat16 arrays through float32 (issue 49): the same case in NUnit and go test. */
@ExtendWith(LiveHandles.class)
class ReducedFloatTest {
  // conformance: ndarray.reduced_float_conversions
  @Test
  void reducedFloatConversions() {
    try (NDArray b = NDArray.fromFloats(new float[] {3.14159f, -2f, 1f}, DType.BFLOAT16, 3);
        NDArray h = NDArray.fromFloats(new float[] {0.1f, 65504f}, DType.FLOAT16, 2)) {
      assertEquals(DType.BFLOAT16, b.dtype());
      assertArrayEquals(new float[] {3.140625f, -2f, 1f}, b.getFloats());
      assertArrayEquals(new float[] {0.0999755859375f, 65504f}, h.getFloats());
      Expect.error(ErrorCode.INVALID_ARGUMENT, () -> b.setFloats(new float[2]),
          "argument 'count' is 2, expected 3");
    }
    try (Symbol data = Symbol.variable("data");
        Symbol fc = Symbol.create("FullyConnected", "fc", Map.of("num_hidden", 2), data);
        Executor ex = Executor.simpleBind(fc, Map.of("data", new long[] {3, 4}),
            Map.of("data", DType.FLOAT16), "null")) {
      assertEquals(List.of("fc"), ex.float32Nodes());
    }
  }
}
