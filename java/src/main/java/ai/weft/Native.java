package ai.weft;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * Loads the JNI wrapper (libweft_java.so, which needs libweft.so.0) once, in
 * this order, and checks the ABI version:
 * <ol>
 *   <li>the directory given by the system property {@code weft.library.path};
 *   <li>the copies inside the jar ({@code /ai/weft/native/<os>-<arch>/}),
 *       extracted into a private (owner-only) temporary directory;
 *   <li>{@code java.library.path} ({@code System.loadLibrary("weft_java")}).
 * </ol>
 * If all fail, the UnsatisfiedLinkError names every attempt.
 */
final class Native {
  static final String JNI_LIB = "libweft_java.so";
  static final String CORE_LIB = "libweft.so.0";
  private static volatile boolean loaded;
  private static String loadedFrom = "";

  private Native() {}

  static void ensureLoaded() {
    if (!loaded) load();
  }

  /** Where the native library came from (for diagnostics). */
  static String loadedFrom() {
    ensureLoaded();
    return loadedFrom;
  }

  private static synchronized void load() {
    if (loaded) return;
    List<String> tried = new ArrayList<>();
    String where = null;
    String dir = System.getProperty("weft.library.path");
    if (dir != null && !dir.isEmpty()) {
      File f = new File(dir, JNI_LIB);
      try {
        System.load(f.getAbsolutePath());
        where = f.getAbsolutePath();
      } catch (UnsatisfiedLinkError e) {
        tried.add("-Dweft.library.path: " + f + " (" + e.getMessage() + ")");
      }
    } else {
      tried.add("-Dweft.library.path: not set");
    }
    if (where == null) where = loadFromJar(tried);
    if (where == null) {
      try {
        System.loadLibrary("weft_java");
        where = "java.library.path";
      } catch (UnsatisfiedLinkError e) {
        tried.add("java.library.path=" + System.getProperty("java.library.path") + " ("
            + e.getMessage() + ")");
      }
    }
    if (where == null) {
      throw new UnsatisfiedLinkError(
          "weft: cannot load the native library " + JNI_LIB + "; tried: " + String.join("; ", tried));
    }
    int lib = weft_native.weft_abi_version();
    int binding = weft_native.weft_binding_abi_version();
    if (lib < binding) {
      throw new UnsatisfiedLinkError("weft: ABI version mismatch: the native library (" + where
          + ") has ABI version " + lib + " but the Java binding needs ABI version " + binding);
    }
    loadedFrom = where;
    loaded = true;
  }

  /** Extracts the jar's copies into a private temp dir and loads them; null if absent. */
  private static String loadFromJar(List<String> tried) {
    String os = System.getProperty("os.name", "").toLowerCase().startsWith("linux") ? "linux" : "other";
    String arch = System.getProperty("os.arch", "");
    if (arch.equals("amd64")) arch = "x86_64";
    String base = "/ai/weft/native/" + os + "-" + arch + "/";
    if (Native.class.getResource(base + JNI_LIB) == null) {
      tried.add("jar resource " + base + JNI_LIB + ": not present");
      return null;
    }
    try {
      Path tmp = Files.createTempDirectory("weft-native-",
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      tmp.toFile().deleteOnExit();
      Path core = extract(base + CORE_LIB, tmp.resolve(CORE_LIB));
      Path jni = extract(base + JNI_LIB, tmp.resolve(JNI_LIB));
      if (core != null) System.load(core.toString());
      System.load(jni.toString());
      return "jar:" + base + " (extracted to " + tmp + ")";
    } catch (IOException | UnsatisfiedLinkError e) {
      tried.add("jar resource " + base + JNI_LIB + " (" + e.getMessage() + ")");
      return null;
    }
  }

  private static Path extract(String resource, Path target) throws IOException {
    try (InputStream in = Native.class.getResourceAsStream(resource)) {
      if (in == null) return null;
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
    }
    target.toFile().deleteOnExit();
    return target;
  }
}
