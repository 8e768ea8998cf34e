package ai.weft;

/** Element types (MXNet's codes, {@code WeftDType} in c_api_base.h). */
public enum DType {
  FLOAT32(WeftDType.WEFT_FLOAT32, 4),
  FLOAT64(WeftDType.WEFT_FLOAT64, 8),
  FLOAT16(WeftDType.WEFT_FLOAT16, 2),
  UINT8(WeftDType.WEFT_UINT8, 1),
  INT32(WeftDType.WEFT_INT32, 4),
  INT8(WeftDType.WEFT_INT8, 1),
  INT64(WeftDType.WEFT_INT64, 8),
  BFLOAT16(WeftDType.WEFT_BFLOAT16, 2);

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
