package ai.weft;

/** The C ABI's status codes (stable values, {@code WeftStatus} in c_api_base.h). */
public enum ErrorCode {
  OK(WeftStatus.WEFT_OK),
  INVALID_ARGUMENT(WeftStatus.WEFT_ERR_INVALID_ARGUMENT),
  SHAPE(WeftStatus.WEFT_ERR_SHAPE),
  DTYPE(WeftStatus.WEFT_ERR_DTYPE),
  DEVICE(WeftStatus.WEFT_ERR_DEVICE),
  OOM(WeftStatus.WEFT_ERR_OOM),
  NOT_IMPLEMENTED(WeftStatus.WEFT_ERR_NOT_IMPLEMENTED),
  INTERNAL(WeftStatus.WEFT_ERR_INTERNAL),
  INVALID_HANDLE(WeftStatus.WEFT_ERR_INVALID_HANDLE),
  NOT_FOUND(WeftStatus.WEFT_ERR_NOT_FOUND),
  IO(WeftStatus.WEFT_ERR_IO),
  /** A code this binding does not know (a newer library). */
  UNKNOWN(-1);

  private final int value;

  ErrorCode(long value) {
    this.value = (int) value;
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
