package ai.weft;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Shapes inferred for a symbol (a plain copy; no native handle). A shape is
 * null when even its rank is unknown; an extent 0 is unknown.
 */
public final class ShapeResult {
  public final boolean complete;
  public final Map<String, long[]> arguments;
  public final Map<String, long[]> outputs;
  public final Map<String, long[]> auxiliaryStates;
  public final List<String> unknown;

  private ShapeResult(boolean complete, Map<String, long[]> a, Map<String, long[]> o,
      Map<String, long[]> x, List<String> unknown) {
    this.complete = complete;
    this.arguments = Collections.unmodifiableMap(a);
    this.outputs = Collections.unmodifiableMap(o);
    this.auxiliaryStates = Collections.unmodifiableMap(x);
    this.unknown = Collections.unmodifiableList(unknown);
  }

  static ShapeResult take(long res) {
    try {
      boolean complete = weft_native.weft_shape_result_complete(res) != 0;
      List<Map<String, long[]>> groups = new ArrayList<>();
      for (int g = 0; g < 3; ++g) {
        Map<String, long[]> m = new LinkedHashMap<>();
        long n = weft_native.weft_shape_result_count(res, g);
        for (long i = 0; i < n; ++i) {
          String[] name = new String[1];
          weft_native.weft_shape_result_name(res, g, i, name);
          int nd = (int) weft_native.weft_shape_result_ndim(res, g, i);
          long[] dims = null;
          if (nd >= 0) {
            dims = new long[nd];
            weft_native.weft_shape_result_dims(res, g, i, dims, dims.length);
          }
          m.put(name[0], dims);
        }
        groups.add(m);
      }
      long nu = weft_native.weft_shape_result_num_unknown(res);
      List<String> unknown = new ArrayList<>();
      for (long i = 0; i < nu; ++i) {
        String[] name = new String[1];
        weft_native.weft_shape_result_unknown_name(res, i, name);
        unknown.add(name[0]);
      }
      return new ShapeResult(complete, groups.get(0), groups.get(1), groups.get(2), unknown);
    } finally {
      weft_native.weft_shape_result_free(res);
    }
  }
}
