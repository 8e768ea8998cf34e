package ai.weft;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * Loads the JNI wrapper (libweft_java.so, which needs libweft.so.0 beside it)
 * once, in this order, and checks the ABI version:
 * <ol>
 *   <li>{@code -Dweft.library.path=<dir>}: {@code <dir>/libweft_java.so};
 *   <li>the native directory: {@code -Dai.weft.native.dir=<dir>}, by default
 *       {@code $XDG_CACHE_HOME/weft/native/<version>-<hash>} (or
 *       {@code ~/.cache/weft/...}), where {@code <hash>} identifies the jar's
 *       natives. The jar's copies ({@code /ai/weft/native/<os>-<arch>/}) are
 *       extracted there once (atomic renames, so concurrent JVMs are safe) and
 *       reused by later runs; {@code -Dai.weft.native.extract=false} only loads
 *       what the directory already holds;
 *   <li>{@code java.library.path} ({@code System.loadLibrary("weft_java")}).
 * </ol>
 * If all fail, the UnsatisfiedLinkError names the missing file and every path
 * tried. A library whose ABI is older than the binding's fails with both
 * versions and the path of the libweft.so.0 that was loaded.
 * Thread-safety: load() is synchronized; loading happens once per class loader.
 */
final class Native {
  static final String JNI_LIB = "libweft_java.so";
  static final String CORE_LIB = "libweft.so.0";
  /** Resource: "version <v>" then the SHA-256 of each native file (written by the build). */
  static final String HASH_FILE = "natives.sha256";
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
      where = tryLoad(new File(dir, JNI_LIB), "-Dweft.library.path", tried);
    } else {
      tried.add("-Dweft.library.path: not set");
    }
    if (where == null) where = loadFromNativeDir(tried);
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
      throw new UnsatisfiedLinkError("weft: cannot load the native library " + JNI_LIB
          + " (it needs " + CORE_LIB + " beside it); tried: " + String.join("; ", tried));
    }
    int lib = weft_native.weft_abi_version();
    int binding = weft_native.weft_binding_abi_version();
    if (lib < binding) {
      throw new UnsatisfiedLinkError("weft: ABI version mismatch: the native library "
          + weft_native.weft_binding_library_path() + " (loaded through " + where
          + ") has ABI version " + lib + " but the Java binding needs ABI version " + binding);
    }
    loadedFrom = where;
    loaded = true;
  }

  /** System.load(f), recording why it failed; f's path on success, else null. */
  private static String tryLoad(File f, String how, List<String> tried) {
    if (!f.isFile()) {
      tried.add(how + ": " + f.getAbsolutePath() + " (file not found)");
      return null;
    }
    try {
      System.load(f.getAbsolutePath());
      return f.getAbsolutePath();
    } catch (UnsatisfiedLinkError e) {
      tried.add(how + ": " + f.getAbsolutePath() + " (" + e.getMessage() + ")");
      return null;
    }
  }

  /** The jar's natives directory, e.g. /ai/weft/native/linux-x86_64/. */
  static String resourceBase() {
    String os = System.getProperty("os.name", "").toLowerCase().startsWith("linux") ? "linux" : "other";
    String arch = System.getProperty("os.arch", "");
    if (arch.equals("amd64")) arch = "x86_64";
    return "/ai/weft/native/" + os + "-" + arch + "/";
  }

  /** Extracts the jar's natives into the native directory (once) and loads them. */
  private static String loadFromNativeDir(List<String> tried) {
    String base = resourceBase();
    boolean inJar = Native.class.getResource(base + JNI_LIB) != null;
    boolean extract = !"false".equalsIgnoreCase(System.getProperty("ai.weft.native.extract"));
    String prop = System.getProperty("ai.weft.native.dir");
    Path dir;
    String how;
    boolean fresh = false;
    try {
      if (prop != null && !prop.isEmpty()) {
        dir = Paths.get(prop).toAbsolutePath();
        how = "-Dai.weft.native.dir";
      } else if (inJar) {
        dir = defaultCacheDir(base);
        how = "native cache";
      } else {
        tried.add("jar resource " + base + JNI_LIB + ": not present (and -Dai.weft.native.dir not set)");
        return null;
      }
      if (extract && inJar) fresh = extractInto(base, dir);
    } catch (IOException e) {
      tried.add("extracting jar resource " + base + " (" + e + ")");
      return null;
    }
    if (!inJar && extract) tried.add("jar resource " + base + JNI_LIB + ": not present");
    String where = tryLoad(dir.resolve(JNI_LIB).toFile(), how, tried);
    if (where != null && inJar && extract) {
      where += fresh ? " (extracted from the jar now)" : " (extracted from the jar earlier)";
    }
    return where;
  }

  /** $XDG_CACHE_HOME/weft/native/<version>-<hash of the natives> (or ~/.cache/...). */
  private static Path defaultCacheDir(String base) throws IOException {
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path cache = xdg != null && !xdg.isEmpty() ? Paths.get(xdg)
        : Paths.get(System.getProperty("user.home"), ".cache");
    byte[] list = readResource(base + HASH_FILE);
    if (list == null) throw new IOException("jar resource " + base + HASH_FILE + " is missing");
    String hash;
    try {
      hash = hex(MessageDigest.getInstance("SHA-256").digest(list)).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IOException(e);
    }
    // The list's first line is "version <library version>" (bindings/CMakeLists.txt).
    String first = new String(list, StandardCharsets.UTF_8).split("\n", 2)[0];
    String version = first.startsWith("version ") ? first.substring(8).trim() : "unknown";
    return cache.resolve("weft").resolve("native").resolve(version + "-" + hash);
  }

  /**
   * Copies the natives into dir unless the hash file there already equals the
   * jar's (it is written last, so its presence means a complete extraction);
   * true when it copied. New directories are owner-only (rwx------).
   */
  private static boolean extractInto(String base, Path dir) throws IOException {
    byte[] want = readResource(base + HASH_FILE);
    Path marker = dir.resolve(HASH_FILE);
    if (want != null && Files.isRegularFile(marker)
        && java.util.Arrays.equals(Files.readAllBytes(marker), want)) {
      return false;
    }
    if (!Files.isDirectory(dir)) {
      Files.createDirectories(dir.getParent());
      try {
        Files.createDirectory(dir,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (java.nio.file.FileAlreadyExistsException e) {
        // another JVM made it
      }
    }
    copyAtomically(base + CORE_LIB, dir.resolve(CORE_LIB));
    copyAtomically(base + JNI_LIB, dir.resolve(JNI_LIB));
    if (want != null) copyAtomically(base + HASH_FILE, marker);
    return true;
  }

  private static void copyAtomically(String resource, Path target) throws IOException {
    Path tmp = Files.createTempFile(target.getParent(), target.getFileName().toString(), ".tmp");
    try {
      try (InputStream in = Native.class.getResourceAsStream(resource)) {
        if (in == null) throw new IOException("jar resource " + resource + " is missing");
        Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  private static byte[] readResource(String resource) throws IOException {
    try (InputStream in = Native.class.getResourceAsStream(resource)) {
      return in == null ? null : in.readAllBytes();
    }
  }

  private static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) s.append(String.format("%02x", x));
    return s.toString();
  }
}
