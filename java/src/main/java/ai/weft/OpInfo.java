package ai.weft;

import java.util.Collections;
import java.util.List;

/** An operator's documentation (see {@link Weft#opInfo}). */
public final class OpInfo {
  /** One parameter; {@code defaultValue} is null when the parameter is required. */
  public static final class Param {
    public final String name;
    public final String type;
    public final String defaultValue;
    public final String doc;

    Param(String name, String type, String defaultValue, String doc) {
      this.name = name;
      this.type = type;
      this.defaultValue = defaultValue;
      this.doc = doc;
    }
  }

  public final String name;
  public final String doc;
  public final List<Param> params;

  OpInfo(String name, String doc, List<Param> params) {
    this.name = name;
    this.doc = doc;
    this.params = Collections.unmodifiableList(params);
  }
}
