using System;

namespace Weft {

/// <summary>Device types (WeftDeviceType in c_api_base.h).</summary>
public enum DeviceType { Cpu = weft_native.WEFT_CPU, Gpu = weft_native.WEFT_GPU }

/// <summary>
/// A device: a type and an id, the C ABI's (dev_type, dev_id) pair. An
/// immutable value: Context.Cpu(), Context.Cpu(1), Context.Gpu(0);
/// default(Context) is cpu(0). Creating one allocates nothing; a device the
/// library cannot reach (a GPU in a build without CUDA, or none present)
/// fails in the call that uses it with a WeftException (ErrorCode.Device)
/// naming it.
/// </summary>
public struct Context : IEquatable<Context> {
  readonly DeviceType type;  // 0 in default(Context): cpu
  readonly int id;

  public Context(DeviceType type, int id) {
    this.type = type;
    this.id = id;
  }

  public static Context Cpu(int id = 0) { return new Context(DeviceType.Cpu, id); }

  public static Context Gpu(int id) { return new Context(DeviceType.Gpu, id); }

  public DeviceType Type { get { return type == 0 ? DeviceType.Cpu : type; } }

  /// <summary>
  /// Number of devices of a type this process can use: for GPUs the CUDA
  /// devices seen (0 in a build without CUDA, or without a driver or
  /// device); CPU contexts are logical, all on the host.
  /// </summary>
  public static int DeviceCount(DeviceType t) {
    Native.EnsureLoaded();
    int n = (int)weft_native.weft_device_count((int)t);
    return n;
  }

  /// <summary>Free bytes of this device's memory (the host's RAM for a CPU context).</summary>
  public ulong FreeMemory { get { return Memory()[0]; } }

  /// <summary>Total bytes of this device's memory (the host's RAM for a CPU context).</summary>
  public ulong TotalMemory { get { return Memory()[1]; } }

  ulong[] Memory() {
    Native.EnsureLoaded();
    ulong[] free = new ulong[1], total = new ulong[1];
    weft_native.weft_device_memory((int)Type, id, free, total);
    return new[] { free[0], total[0] };
  }

  public int Id { get { return id; } }

  /// <summary>"cpu(1)", as the library names devices.</summary>
  public override string ToString() { return Type.ToString().ToLowerInvariant() + "(" + id + ")"; }

  public bool Equals(Context other) { return other.Type == Type && other.id == id; }

  public override bool Equals(object obj) { return obj is Context && Equals((Context)obj); }

  public override int GetHashCode() { return (int)Type * 31 + id; }

  public static bool operator ==(Context a, Context b) { return a.Equals(b); }

  public static bool operator !=(Context a, Context b) { return !a.Equals(b); }
}

/// <summary>
/// An MNIST / Fashion-MNIST pair of IDX files loaded by the library
/// (weft_mnist_load): Images float32 (N, 1, rows, cols) scaled to [0, 1] and
/// Labels float32 (N), on cpu(0). Owns both arrays (Dispose disposes them;
/// idempotent).
/// </summary>
public sealed class Mnist : IDisposable {
  public NDArray Images { get; private set; }
  public NDArray Labels { get; private set; }

  Mnist(NDArray images, NDArray labels) {
    Images = images;
    Labels = labels;
  }

  /// <summary>Loads an images file and a labels file (raw or gzip IDX).</summary>
  public static Mnist Load(string imagesPath, string labelsPath) {
    Native.EnsureLoaded();
    var x = new long[1];
    var y = new long[1];
    weft_native.weft_mnist_load(imagesPath, labelsPath, x, y);
    return new Mnist(new NDArray(x[0]), new NDArray(y[0]));
  }

  /// <summary>Loads dir/SET-images-idx3-ubyte.gz and dir/SET-labels-idx1-ubyte.gz (set "train" or "t10k").</summary>
  public static Mnist LoadSet(string dir, string set) {
    return Load(dir + "/" + set + "-images-idx3-ubyte.gz", dir + "/" + set + "-labels-idx1-ubyte.gz");
  }

  /// <summary>Samples [begin, end) as views of this set's arrays (dispose it as well).</summary>
  public Mnist Slice(long begin, long end) {
    var x = Images.Slice(begin, end);
    try {
      return new Mnist(x, Labels.Slice(begin, end));
    } catch {
      x.Dispose();
      throw;
    }
  }

  /// <summary>Number of images.</summary>
  public long Count { get { return Labels.Shape[0]; } }

  public void Dispose() {
    Images.Dispose();
    Labels.Dispose();
  }
}

}
