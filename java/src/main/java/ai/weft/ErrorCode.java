package ai.weft;

/** The C ABI's status codes (stable values, see {@code WeftStatus} in c_api.h). */
public enum ErrorCode {
  OK(0),
  INVALID_ARGUMENT(1),
  SHAPE(2),
  DTYPE(3),
  DEVICE(4),
  OOM(5),
  NOT_IMPLEMENTED(6),
  INTERNAL(7),
  INVALID_HANDLE(8),
  NOT_FOUND(9),
  IO(10),
  /** A code this binding does not know (a newer library). */
  UNKNOWN(-1);

  private final int value;

  ErrorCode(int value) {
    this.value = value;
  }

  /** The numeric WeftStatus value. */
  public int value() {
    return value;
  }

  /** The code with numeric value {@code v}, or UNKNOWN. */
  public static ErrorCode fromValue(int v) {
    for (ErrorCode c : values()) {
      if (c.value == v) return c;
    }
    return UNKNOWN;
  }
}
