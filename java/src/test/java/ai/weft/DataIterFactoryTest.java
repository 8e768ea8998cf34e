package ai.weft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The iterator factory (MXNet's iterators by name): the same case in NUnit and go test. */
@ExtendWith(LiveHandles.class)
class DataIterFactoryTest {
  // conformance: data.iterator_factory
  @Test
  void iteratorFactory() throws java.io.IOException {
    Path csv = Files.createTempFile("weft-iter", ".csv");
    Files.writeString(csv, "1,2,3\n4,5,6\n7,8,9\n10,11,12\n");
    try (DataIter it = DataIter.create("CSVIter",
        Map.of("data_csv", csv.toString(), "data_shape", "(3,)", "batch_size", 2))) {
      int batches = 0;
      while (it.next()) {
        Map<String, NDArray> d = it.data();
        try (NDArray a = d.get("data")) {
          if (batches == 0) assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6}, a.toFloatArray());
        }
        it.label().values().forEach(NDArray::close);
        ++batches;
      }
      assertEquals(2, batches);
    } finally {
      Files.delete(csv);
    }
    assertTrue(DataIter.names().contains("CSVIter"));
    assertTrue(DataIter.names().contains("MNISTIter"));
    assertFalse(DataIter.names().contains("NoIter"));
    Expect.error(ErrorCode.NOT_FOUND, () -> DataIter.create("NoIter", Map.of()), "NoIter");
  }
}
