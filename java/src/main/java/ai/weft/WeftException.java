package ai.weft;

/**
 * A failed weft call: the native status code and the library's message (which
 * names the op/argument and what was expected versus given). Unchecked.
 */
public class WeftException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final ErrorCode code;
  private final int rawCode;

  /** Called from the JNI wrapper inside the failing native call. */
  public WeftException(int rawCode, String message) {
    super(message);
    this.rawCode = rawCode;
    this.code = ErrorCode.fromValue(rawCode);
  }

  public WeftException(ErrorCode code, String message) {
    this(code.value(), message);
  }

  /** The status code of the failed call. */
  public ErrorCode code() {
    return code;
  }

  /** The numeric status (useful when {@link #code()} is UNKNOWN). */
  public int rawCode() {
    return rawCode;
  }
}
