package ai.weft;

/**
 * A device: a type (CPU or GPU) and an id, as the C ABI's (dev_type, dev_id)
 * pairs. An immutable value: {@code Context.cpu()}, {@code Context.cpu(1)},
 * {@code Context.gpu(0)}. Creating one allocates nothing; using a device the
 * library cannot reach (a GPU in a build without CUDA, or none present) fails
 * in the call that uses it with a WeftException (code DEVICE) naming it.
 */
public final class Context {
  /** Device types (WeftDeviceType in c_api_base.h). */
  public enum DeviceType {
    CPU(WeftDeviceType.WEFT_CPU), GPU(WeftDeviceType.WEFT_GPU);

    final int code;

    DeviceType(int code) {
      this.code = code;
    }

    static DeviceType fromCode(int code) {
      for (DeviceType t : values()) {
        if (t.code == code) return t;
      }
      throw new WeftException(ErrorCode.INTERNAL, "unknown device type code " + code);
    }
  }

  private final DeviceType type;
  private final int id;

  private Context(DeviceType type, int id) {
    if (type == null) throw new WeftException(ErrorCode.INVALID_ARGUMENT, "device type is null");
    this.type = type;
    this.id = id;
  }

  /** cpu(0), the default device. */
  public static Context cpu() {
    return new Context(DeviceType.CPU, 0);
  }

  /** cpu(id). */
  public static Context cpu(int id) {
    return new Context(DeviceType.CPU, id);
  }

  /** gpu(id). */
  public static Context gpu(int id) {
    return new Context(DeviceType.GPU, id);
  }

  /** A device of {@code type} with {@code id}. */
  public static Context of(DeviceType type, int id) {
    return new Context(type, id);
  }

  /**
   * Number of devices of {@code type} this process can use: for GPUs the
   * CUDA devices seen (0 in a build without CUDA, or without a driver or
   * device); CPU contexts are logical, all on the host.
   */
  public static int deviceCount(DeviceType type) {
    Native.ensureLoaded();
    return (int) weft_native.weft_device_count(type.code);
  }

  /** Free bytes of this device's memory (the host's RAM for a CPU context). */
  public long freeMemory() {
    return memory()[0];
  }

  /** Total bytes of this device's memory (the host's RAM for a CPU context). */
  public long totalMemory() {
    return memory()[1];
  }

  private long[] memory() {
    Native.ensureLoaded();
    long[] free = new long[1], total = new long[1];
    weft_native.weft_device_memory(type.code, id, free, total);
    return new long[] {free[0], total[0]};
  }

  static Context orDefault(Context ctx) {
    return ctx == null ? cpu() : ctx;
  }

  public DeviceType type() {
    return type;
  }

  public int id() {
    return id;
  }

  int typeCode() {
    return type.code;
  }

  /** "cpu(1)", as the library names devices. */
  @Override
  public String toString() {
    return type.name().toLowerCase(java.util.Locale.ROOT) + "(" + id + ")";
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Context)) return false;
    Context c = (Context) o;
    return c.type == type && c.id == id;
  }

  @Override
  public int hashCode() {
    return type.hashCode() * 31 + id;
  }
}
