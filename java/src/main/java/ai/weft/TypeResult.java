package ai.weft;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Element types inferred for a symbol (a plain copy); null = unknown. */
public final class TypeResult {
  public final boolean complete;
  public final Map<String, DType> arguments;
  public final Map<String, DType> outputs;
  public final Map<String, DType> auxiliaryStates;
  public final List<String> unknown;

  private TypeResult(boolean complete, Map<String, DType> a, Map<String, DType> o,
      Map<String, DType> x, List<String> unknown) {
    this.complete = complete;
    this.arguments = Collections.unmodifiableMap(a);
    this.outputs = Collections.unmodifiableMap(o);
    this.auxiliaryStates = Collections.unmodifiableMap(x);
    this.unknown = Collections.unmodifiableList(unknown);
  }

  static TypeResult take(long res) {
    try {
      boolean complete = weft_native.weft_type_result_complete(res) != 0;
      List<Map<String, DType>> groups = new ArrayList<>();
      for (int g = 0; g < 3; ++g) {
        Map<String, DType> m = new LinkedHashMap<>();
        long n = weft_native.weft_type_result_count(res, g);
        for (long i = 0; i < n; ++i) {
          String[] name = new String[1];
          weft_native.weft_type_result_name(res, g, i, name);
          int dt = (int) weft_native.weft_type_result_dtype(res, g, i);
          m.put(name[0], dt < 0 ? null : DType.fromCode(dt));
        }
        groups.add(m);
      }
      long nu = weft_native.weft_type_result_num_unknown(res);
      List<String> unknown = new ArrayList<>();
      for (long i = 0; i < nu; ++i) {
        String[] name = new String[1];
        weft_native.weft_type_result_unknown_name(res, i, name);
        unknown.add(name[0]);
      }
      return new TypeResult(complete, groups.get(0), groups.get(1), groups.get(2), unknown);
    } finally {
      weft_native.weft_type_result_free(res);
    }
  }
}
