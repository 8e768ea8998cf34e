package ai.weft;

import java.util.ArrayList;
import java.util.List;

/** Reads and frees a WeftStringList. */
final class Strings {
  private Strings() {}

  static List<String> take(long list) {
    try {
      long n = weft_native.weft_string_list_size(list);
      List<String> out = new ArrayList<>((int) n);
      String[] s = new String[1];
      for (long i = 0; i < n; ++i) {
        weft_native.weft_string_list_get(list, i, s);
        out.add(s[0]);
      }
      return out;
    } finally {
      weft_native.weft_string_list_free(list);
    }
  }
}
