package ai.weft;

import java.util.ArrayList;
import java.util.List;

/** Library-wide functions: versions, operator listing, leak counter, seeding. */
public final class Weft {
  private Weft() {}

  /** The library version string, e.g. "0.1.0". */
  public static String version() {
    Native.ensureLoaded();
    return weft_native.weft_version();
  }

  /** The ABI version of the loaded library. */
  public static int abiVersion() {
    Native.ensureLoaded();
    return weft_native.weft_abi_version();
  }

  /** The ABI version this binding was built against. */
  public static int bindingAbiVersion() {
    Native.ensureLoaded();
    return weft_native.weft_binding_abi_version();
  }

  /** Where the native library was loaded from. */
  public static String nativeLibrary() {
    return Native.loadedFrom();
  }

  /** Number of live native handles of every type (for leak checks). */
  public static long liveHandleCount() {
    Native.ensureLoaded();
    return weft_native.weft_live_handle_count();
  }

  /** Objects found unreachable without close() (only with -Dweft.leakcheck=true). */
  public static long leakedObjects() {
    return NativeHandle.LEAKS.get();
  }

  /** Canonical names of the registered operators, sorted. */
  public static List<String> opNames() {
    Native.ensureLoaded();
    long n = weft_native.weft_op_count();
    List<String> names = new ArrayList<>((int) n);
    String[] s = new String[1];
    for (long i = 0; i < n; ++i) {
      weft_native.weft_op_name(i, s);
      names.add(s[0]);
    }
    return names;
  }

  /** Documentation of operator {@code op} (name or alias). */
  public static OpInfo opInfo(String op) {
    Native.ensureLoaded();
    String[] doc = new String[1];
    long[] np = new long[1];
    weft_native.weft_op_info(op, doc, np);
    List<OpInfo.Param> params = new ArrayList<>();
    for (long i = 0; i < np[0]; ++i) {
      String[] name = new String[1], type = new String[1], def = new String[1], pdoc = new String[1];
      weft_native.weft_op_param(op, i, name, type, def, pdoc);
      params.add(new OpInfo.Param(name[0], type[0], def[0], pdoc[0]));
    }
    return new OpInfo(op, doc[0], params);
  }

  /**
   * Loads an operator library (a shared library written against {@code weft/op_plugin.h}) and
   * registers its operators; a library built for another plugin version is refused naming both.
   */
  public static void loadLibrary(String path) {
    Native.ensureLoaded();
    weft_native.weft_load_library(path);
  }

  /** The operators registered by {@link #loadLibrary}, sorted. */
  public static List<String> loadedOps() {
    Native.ensureLoaded();
    return Strings.take(weft_native.weft_loaded_ops());
  }

  /** Seeds every random generator. */
  public static void seed(long seed) {
    Native.ensureLoaded();
    weft_native.weft_random_seed(seed);
  }

  /** Blocks until all pending work is done. */
  public static void waitAll() {
    Native.ensureLoaded();
    weft_native.weft_wait_all();
  }

  /** Prints the version and where the native library came from. */
  public static void main(String[] args) {
    System.out.println("weft " + version() + " (ABI " + abiVersion() + ", binding ABI "
        + bindingAbiVersion() + ") loaded from " + nativeLibrary() + "; " + opNames().size()
        + " operators; live handles " + liveHandleCount());
  }
}
