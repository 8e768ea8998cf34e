package ai.weft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Each public enum covers exactly the values of its C enum: the constants SWIG
 * generates from the C headers (WeftStatus, WeftDType, ...; weft/c_api.h). A
 * value added to a C enum without its typed constant fails here.
 */
class EnumsTest {
  /** The values of the SWIG-generated constants class of one C enum. */
  private static Set<Long> cValues(Class<?> constants) throws IllegalAccessException {
    Set<Long> values = new TreeSet<>();
    for (Field f : constants.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers())) values.add(((Number) f.get(null)).longValue());
    }
    return values;
  }

  private static Set<Long> codes(Stream<? extends Number> codes) {
    return codes.map(Number::longValue).collect(Collectors.toCollection(TreeSet::new));
  }

  // conformance: enums.typed_enums_cover_c_enums
  @Test
  void typedEnumsCoverTheCEnums() throws IllegalAccessException {
    assertEquals(cValues(WeftStatus.class), codes(Arrays.stream(ErrorCode.values())
        .filter(c -> c != ErrorCode.UNKNOWN).map(ErrorCode::value)));
    assertEquals(cValues(WeftDType.class), codes(Arrays.stream(DType.values()).map(DType::code)));
    assertEquals(cValues(WeftDeviceType.class),
        codes(Arrays.stream(Context.DeviceType.values()).map(t -> t.code)));
    assertEquals(cValues(WeftReq.class),
        codes(Arrays.stream(Executor.GradReq.values()).map(r -> r.code)));
    assertEquals(cValues(WeftProgress.class),
        codes(Arrays.stream(Module.Progress.values()).map(p -> p.code)));
  }
}
