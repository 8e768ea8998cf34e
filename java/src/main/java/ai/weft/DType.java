package ai.weft;

/** Element types (MXNet's codes, see {@code WeftDType} in c_api.h). */
public enum DType {
  FLOAT32(0, 4),
  FLOAT64(1, 8),
  FLOAT16(2, 2),
  UINT8(3, 1),
  INT32(4, 4),
  INT8(5, 1),
  INT64(6, 8);

  private final int code;
  private final int bytes;

  DType(int code, int bytes) {
    this.code = code;
    this.bytes = bytes;
  }

  /** The WeftDType code. */
  public int code() {
    return code;
  }

  /** Bytes per element. */
  public int bytes() {
    return bytes;
  }

  /** The dtype of code {@code c}. */
  public static DType fromCode(int c) {
    for (DType d : values()) {
      if (d.code == c) return d;
    }
    throw new WeftException(ErrorCode.DTYPE, "unknown dtype code " + c);
  }
}
