package ai.weft;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What inference gives (a plain copy; no native handle): per group
 * (arguments, outputs, auxiliary states) each entry's value by name, and the
 * names of the entries left unknown.
 */
public abstract class InferResult<V> {
  public final boolean complete;
  public final Map<String, V> arguments;
  public final Map<String, V> outputs;
  public final Map<String, V> auxiliaryStates;
  public final List<String> unknown;

  /** The raw functions of one result kind (weft_shape_result_* or weft_type_result_*). */
  interface Raw<V> {
    long complete(long res);

    long count(long res, int group);

    long name(long res, int group, long index, String[] out);

    V value(long res, int group, long index);

    long numUnknown(long res);

    long unknownName(long res, long index, String[] out);

    long free(long res);
  }

  /** Reads and frees the result handle {@code res}. */
  InferResult(long res, Raw<V> f) {
    try {
      complete = f.complete(res) != 0;
      List<Map<String, V>> groups = new ArrayList<>();
      String[] name = new String[1];
      for (int g = 0; g < 3; ++g) {
        Map<String, V> m = new LinkedHashMap<>();
        long n = f.count(res, g);
        for (long i = 0; i < n; ++i) {
          f.name(res, g, i, name);
          m.put(name[0], f.value(res, g, i));
        }
        groups.add(Collections.unmodifiableMap(m));
      }
      arguments = groups.get(0);
      outputs = groups.get(1);
      auxiliaryStates = groups.get(2);
      List<String> u = new ArrayList<>();
      long nu = f.numUnknown(res);
      for (long i = 0; i < nu; ++i) {
        f.unknownName(res, i, name);
        u.add(name[0]);
      }
      unknown = Collections.unmodifiableList(u);
    } finally {
      f.free(res);
    }
  }
}
