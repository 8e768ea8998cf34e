package ai.weft;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads and frees WeftNDArrayList handles; packs names/shapes for the C ABI. */
final class NDArrayLists {
  private NDArrayLists() {}

  /**
   * The arrays of {@code list} by name (unnamed lists: "0", "1", ...), in
   * order; entries without an array (a null gradient) are left out. Frees
   * {@code list}; on error the arrays taken so far are closed.
   */
  static Map<String, NDArray> take(long list) {
    Map<String, NDArray> out = new LinkedHashMap<>();
    try {
      long[] n = new long[1];
      int[] named = new int[1];
      weft_native.weft_ndarray_list_size(list, n, named);
      String[] name = new String[1];
      for (long i = 0; i < n[0]; ++i) {
        if (named[0] != 0) {
          weft_native.weft_ndarray_list_name(list, i, name);
        } else {
          name[0] = Long.toString(i);
        }
        long h = weft_native.weft_ndarray_list_get(list, i);
        if (h != 0) out.put(name[0], new NDArray(h));
      }
      return out;
    } catch (RuntimeException e) {
      NDArray.closeAll(out);
      throw e;
    } finally {
      weft_native.weft_ndarray_list_free(list);
    }
  }

  /** As take(), in order, as a list (for outputs). */
  static List<NDArray> takeList(long list) {
    return new ArrayList<>(take(list).values());
  }

  /** Map keys as an array (null map: none). */
  static String[] names(Map<String, ?> m) {
    return m == null ? new String[0] : m.keySet().toArray(new String[0]);
  }

  /** Map values' handles (null map: none). */
  static long[] handles(Map<String, NDArray> m) {
    if (m == null) return new long[0];
    return NativeHandle.handles(m.values().toArray(new NDArray[0]));
  }

  /** CSR packing of named shapes: names, ind_ptr (n + 1), dims. */
  static final class Shapes {
    final String[] names;
    final long[] indPtr;
    final long[] dims;

    Shapes(Map<String, long[]> shapes) {
      int n = shapes.size();
      names = new String[n];
      indPtr = new long[n + 1];
      int total = 0;
      for (long[] s : shapes.values()) total += s.length;
      dims = new long[total];
      int i = 0;
      int k = 0;
      for (Map.Entry<String, long[]> e : shapes.entrySet()) {
        names[i] = e.getKey();
        for (long d : e.getValue()) dims[k++] = d;
        indPtr[++i] = k;
      }
    }
  }
}
