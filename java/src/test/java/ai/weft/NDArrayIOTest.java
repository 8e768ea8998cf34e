package ai.weft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** .params and .npy in memory and on streams. */
@ExtendWith(LiveHandles.class)
class NDArrayIOTest {
  // conformance: io.params_round_trip
  @Test
  void paramsRoundTripThroughBytesAndStreams(@TempDir Path dir) throws Exception {
    try (NDArray w = NDArray.fromArray(new float[] {1, 2, 3, 4}, 2, 2);
        NDArray b = NDArray.fromArray(new double[] {-1.5, 7}, 2)) {
      Map<String, NDArray> arrays = new LinkedHashMap<>();
      arrays.put("arg:w", w);
      arrays.put("aux:b", b);
      byte[] bytes = NDArray.saveToBytes(arrays);
      Path path = dir.resolve("a.params");
      NDArray.save(path.toString(), arrays);
      assertArrayEquals(Files.readAllBytes(path), bytes);
      ByteArrayOutputStream os = new ByteArrayOutputStream();
      NDArray.save(os, arrays);
      assertArrayEquals(bytes, os.toByteArray());
      for (Map<String, NDArray> m :
          List.of(NDArray.load(bytes), NDArray.load(new ByteArrayInputStream(bytes)))) {
        try {
          assertEquals(List.of("arg:w", "aux:b"), List.copyOf(m.keySet()));
          assertArrayEquals(new float[] {1, 2, 3, 4}, m.get("arg:w").toFloatArray());
          assertEquals(DType.FLOAT64, m.get("aux:b").dtype());
          assertArrayEquals(new double[] {-1.5, 7}, m.get("aux:b").toDoubleArray());
        } finally {
          NDArray.closeAll(m);
        }
      }
      Expect.error(ErrorCode.INVALID_ARGUMENT, () -> NDArray.load(new byte[32]), "list magic");
      Expect.error(ErrorCode.INVALID_ARGUMENT,
          () -> NDArray.load(Arrays.copyOf(bytes, bytes.length - 3)), "exceeds the 2 bytes that remain");
      Expect.error(ErrorCode.INVALID_ARGUMENT, () -> NDArray.load(new byte[0]), "truncated");
    }
  }

  // conformance: io.npy_round_trip io.npy_errors
  @Test
  void npyRoundTripThroughBytesFilesAndStreams(@TempDir Path dir) throws Exception {
    try (NDArray a = NDArray.fromArray(new float[] {-3, -2.5f, -2, -1.5f, -1, -0.5f}, 2, 3)) {
      byte[] npy = a.toNpyBytes();
      assertEquals((byte) 0x93, npy[0]);
      assertEquals("NUMPY", new String(npy, 1, 5, StandardCharsets.US_ASCII));
      String header = new String(npy, 10, npy.length - 10 - 24, StandardCharsets.US_ASCII);
      assertTrue(header.contains("'descr': '<f4'") && header.contains("'shape': (2, 3)"), header);
      Path path = dir.resolve("a.npy");
      a.saveNpy(path.toString());
      assertArrayEquals(Files.readAllBytes(path), npy);
      ByteArrayOutputStream os = new ByteArrayOutputStream();
      a.saveNpy(os);
      assertArrayEquals(npy, os.toByteArray());
      for (NDArray b : List.of(NDArray.loadNpy(npy), NDArray.loadNpy(path.toString()),
               NDArray.loadNpy(new ByteArrayInputStream(npy)))) {
        try (b) {
          assertArrayEquals(new long[] {2, 3}, b.shape());
          assertArrayEquals(a.toFloatArray(), b.toFloatArray());
        }
      }
      Expect.error(ErrorCode.INVALID_ARGUMENT, () -> NDArray.loadNpy(Arrays.copyOf(npy, 5)),
          "weft_ndarray_load_npy_buffer", "truncated");
      byte[] bad = npy.clone();
      bad[0] = 'X';
      Expect.error(ErrorCode.INVALID_ARGUMENT, () -> NDArray.loadNpy(bad), "magic");
      Expect.error(ErrorCode.IO, () -> NDArray.loadNpy("/nonexistent/x.npy"), "/nonexistent/x.npy");
      try (NDArray i8 = NDArray.create(DType.INT8, 2);
          NDArray back = NDArray.loadNpy(i8.toNpyBytes())) {
        assertEquals(DType.INT8, back.dtype());
      }
    }
  }
}
