package ai.weft;

import java.util.ArrayList;
import java.util.List;

/** Reads and frees a WeftStringList. */
final class Strings {
  private Strings() {}

  static List<String> take(long list) {
    try {
      long[] n = new long[1];
      weft_native.weft_string_list_size(list, n);
      List<String> out = new ArrayList<>((int) n[0]);
      String[] s = new String[1];
      for (long i = 0; i < n[0]; ++i) {
        weft_native.weft_string_list_get(list, i, s);
        out.add(s[0]);
      }
      return out;
    } finally {
      weft_native.weft_string_list_free(list);
    }
  }
}
