import ai.weft.Mnist;
import ai.weft.NDArray;
import ai.weft.Predictor;
import ai.weft.Symbol;
import ai.weft.Weft;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A bounded load generator for {@link LenetService}: starts the service on
 * 127.0.0.1 (an ephemeral port) in this process, sends N requests from C
 * client threads (Fashion-MNIST test images; even requests as JSON, odd ones
 * as raw float32), checks every answer's class against a direct predict of
 * the same image, prints requests/s and p50/p99 latency, and stops.
 *
 * <pre>
 *   LenetLoad SYMBOL_JSON PARAMS DATA_DIR N C        # exit 0: every answer agreed
 *   LenetLoad bench SYMBOL_JSON PARAMS CALLS          # predict-call overhead (1 thread)
 *   LenetLoad bench-tiny CALLS                        # the same on relu over 1x10
 *   LenetLoad soak SYMBOL_JSON PARAMS CALLS D1,D2,... [INTERVAL_S]
 *                                                     # bench/soak's loop through Java
 * </pre>
 *
 * The bench prints the median ns per predict call over CALLS calls of one
 * input, for the float[] path (copies) and the direct FloatBuffer path
 * (zero-copy); compare with the C bench on the same model (the Go example's
 * {@code lenet-serve bench} times LeNet and the same relu model from C;
 * bench/bench_bindings.sh runs them side by side).
 */
public final class LenetLoad {
  private static final Pattern CLASS = Pattern.compile("\"class\": (\\d+)");

  public static void main(String[] argv) throws Exception {
    if (argv.length == 4 && argv[0].equals("bench")) {
      float[] x = new float[LenetService.PIXELS];
      for (int i = 0; i < x.length; ++i) x[i] = (i * 37 % 256) / 255f;
      try (Predictor p = LenetService.load(Path.of(argv[1]), Path.of(argv[2]), 1)) {
        bench(p, "lenet", x, LenetService.SHAPE, Integer.parseInt(argv[3]));
      }
      return;
    }
    if ((argv.length == 5 || argv.length == 6) && argv[0].equals("soak")) {
      long[] shape = Arrays.stream(argv[4].split(",")).mapToLong(Long::parseLong).toArray();
      double interval = argv.length == 6 ? Double.parseDouble(argv[5]) : 10;
      System.exit(soak(Path.of(argv[1]), Path.of(argv[2]), Long.parseLong(argv[3]), shape, interval) ? 0 : 1);
    }
    if (argv.length == 2 && argv[0].equals("bench-tiny")) {
      float[] x = new float[10];
      for (int i = 0; i < x.length; ++i) x[i] = (i * 37 % 256) / 255f - 0.5f;
      try (Predictor p = tinyModel()) {
        bench(p, "tiny relu(1x10)", x, new long[] {1, 10}, Integer.parseInt(argv[1]));
      }
      return;
    }
    if (argv.length != 5) {
      System.err.println("usage: LenetLoad SYMBOL_JSON PARAMS DATA_DIR N C\n"
          + "       LenetLoad bench SYMBOL_JSON PARAMS CALLS\n"
          + "       LenetLoad bench-tiny CALLS\n"
          + "       LenetLoad soak SYMBOL_JSON PARAMS CALLS D1,D2,... [INTERVAL_S]");
      System.exit(2);
    }
    int n = Integer.parseInt(argv[3]);
    int c = Integer.parseInt(argv[4]);
    float[][] images = images(argv[2], Math.min(n, 1000));
    int failures;
    try (Predictor p = LenetService.load(Path.of(argv[0]), Path.of(argv[1]), c);
        LenetService s = new LenetService(p,
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), c)) {
      int[] want = new int[images.length];
      for (int i = 0; i < images.length; ++i) {
        want[i] = LenetService.argmax(p.predict(images[i], LenetService.SHAPE));
      }
      failures = run(s.port(), images, want, n, c);
      failures += expectBadRequest(s.port(), "[1, 2, 3]", "application/json", "expected 784 numbers");
      failures += expectBadRequest(s.port(), "abcd", "application/octet-stream", "expected 3136 bytes");
      System.out.println("stats: " + p.stats());
    }
    System.exit(failures == 0 ? 0 : 1);
  }

  /** N requests from C threads; returns the number of wrong or failed answers. */
  static int run(int port, float[][] images, int[] want, int n, int c) throws Exception {
    URL url = new URL("http://127.0.0.1:" + port + "/predict");
    AtomicInteger next = new AtomicInteger();
    AtomicInteger failures = new AtomicInteger();
    long[] latency = new long[n];
    List<Thread> clients = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int k = 0; k < c; ++k) {
      Thread t = new Thread(() -> {
        for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
          int img = i % images.length;
          long start = System.nanoTime();
          try {
            String answer = post(url, images[img], i % 2 == 1);
            latency[i] = System.nanoTime() - start;
            Matcher m = CLASS.matcher(answer);
            if (!m.find() || Integer.parseInt(m.group(1)) != want[img]) {
              failures.incrementAndGet();
              System.err.println("request " + i + ": expected class " + want[img] + ", got " + answer);
            }
          } catch (IOException e) {
            latency[i] = System.nanoTime() - start;
            failures.incrementAndGet();
            System.err.println("request " + i + ": " + e);
          }
        }
      });
      t.start();
      clients.add(t);
    }
    for (Thread t : clients) t.join();
    double seconds = (System.nanoTime() - t0) / 1e9;
    Arrays.sort(latency);
    System.out.printf("%d requests, %d clients: %.1f requests/s, p50 %.3f ms, p99 %.3f ms, "
            + "%d wrong or failed%n", n, c, n / seconds, latency[n / 2] / 1e6,
        latency[Math.min(n - 1, (int) Math.ceil(n * 0.99) - 1)] / 1e6, failures.get());
    return failures.get();
  }

  /** 1 unless a malformed body gets HTTP 400 with {@code message} in its error. */
  static int expectBadRequest(int port, String body, String type, String message) throws IOException {
    HttpURLConnection conn =
        (HttpURLConnection) new URL("http://127.0.0.1:" + port + "/predict").openConnection();
    conn.setRequestMethod("POST");
    conn.setDoOutput(true);
    conn.setRequestProperty("Content-Type", type);
    try (OutputStream out = conn.getOutputStream()) {
      out.write(body.getBytes(StandardCharsets.UTF_8));
    }
    int code = conn.getResponseCode();
    String answer = "";
    try (InputStream in = conn.getErrorStream()) {
      if (in != null) answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    if (code == 400 && answer.contains(message)) return 0;
    System.err.println("malformed " + type + " body: expected HTTP 400 naming '" + message
        + "', got " + code + " " + answer);
    return 1;
  }

  static String post(URL url, float[] image, boolean raw) throws IOException {
    byte[] body;
    if (raw) {
      ByteBuffer b = ByteBuffer.allocate(4 * image.length).order(ByteOrder.LITTLE_ENDIAN);
      b.asFloatBuffer().put(image);
      body = b.array();
    } else {
      StringBuilder sb = new StringBuilder("[");
      for (int i = 0; i < image.length; ++i) sb.append(i == 0 ? "" : ",").append(image[i]);
      body = sb.append(']').toString().getBytes(StandardCharsets.UTF_8);
    }
    HttpURLConnection conn = (HttpURLConnection) url.openConnection();
    conn.setRequestMethod("POST");
    conn.setDoOutput(true);
    conn.setRequestProperty("Content-Type", raw ? "application/octet-stream" : "application/json");
    conn.setFixedLengthStreamingMode(body.length);
    try (OutputStream out = conn.getOutputStream()) {
      out.write(body);
    }
    int code = conn.getResponseCode();
    try (InputStream in = code == 200 ? conn.getInputStream() : conn.getErrorStream()) {
      ByteArrayOutputStream buf = new ByteArrayOutputStream();
      if (in != null) in.transferTo(buf);
      String s = buf.toString(StandardCharsets.UTF_8);
      if (code != 200) throw new IOException("HTTP " + code + ": " + s);
      return s;
    }
  }

  /** The first n test images as float arrays of 784. */
  static float[][] images(String dataDir, int n) {
    try (Mnist test = Mnist.loadSet(dataDir, "t10k"); NDArray first = test.images.slice(0, n)) {
      float[] all = first.toFloatArray();
      float[][] out = new float[n][];
      for (int i = 0; i < n; ++i) {
        out[i] = Arrays.copyOfRange(all, i * LenetService.PIXELS, (i + 1) * LenetService.PIXELS);
      }
      return out;
    }
  }

  /**
   * bench/soak's loop through the Java binding: a predictor with input "data"
   * of {@code shape} called {@code calls} times, printing seconds, calls,
   * resident memory (MB) and live handles every {@code interval} seconds,
   * then closing it and printing the live handles again. True when the live
   * handles returned to their count before the predictor was created.
   */
  static boolean soak(Path symbol, Path params, long calls, long[] shape, double interval)
      throws IOException {
    long live0 = Weft.liveHandleCount();
    double warm = -1;
    double last = 0;
    double peak = 0;
    long t0 = System.nanoTime();
    try (Predictor p = Predictor.fromFiles(symbol, params, Map.of("data", shape), null, null, null)) {
      float[] in = new float[Math.toIntExact(Arrays.stream(shape).reduce(1, (a, b) -> a * b))];
      for (int i = 0; i < in.length; ++i) in[i] = (i % 251) / 251f;
      float[] out = new float[Math.toIntExact(p.outputSize(0, shape))];
      System.out.printf("%10s %12s %10s %8s%n", "seconds", "calls", "rss_mb", "handles");
      long next = t0 + (long) (interval * 1e9);
      for (long c = 0; c < calls; ++c) {
        p.predict(in, shape, out);
        long now = System.nanoTime();
        if (now >= next || c + 1 == calls) {
          last = rssMb();
          if (warm < 0 && c >= calls / 10) warm = last;  // after warm-up: 10 % of the calls
          peak = Math.max(peak, last);
          System.out.printf("%10.1f %12d %10.1f %8d%n", (now - t0) * 1e-9, c + 1, last,
              Weft.liveHandleCount());
          next += (long) (interval * 1e9);
        }
      }
    }
    System.out.printf("calls %d in %.1f s; rss after warm-up %.1f MB, at the end %.1f MB (%+.1f %%), "
        + "peak %.1f MB; live handles %d -> %d after free%n", calls, (System.nanoTime() - t0) * 1e-9,
        warm, last, warm > 0 ? 100 * (last - warm) / warm : 0.0, peak, live0, Weft.liveHandleCount());
    return Weft.liveHandleCount() == live0;
  }

  /** Resident memory in MB (/proc/self/statm: pages of 4 KB). */
  static double rssMb() throws IOException {
    String[] f = java.nio.file.Files.readString(Path.of("/proc/self/statm")).trim().split(" ");
    return Long.parseLong(f[1]) * 4096.0 / (1024 * 1024);
  }

  /** relu over a 1x10 input, no weights: a call whose compute is negligible. */
  static Predictor tinyModel() {
    try (Symbol x = Symbol.variable("data");
        Symbol y = Symbol.create("Activation", "relu", Map.of("act_type", "relu"), x)) {
      return Predictor.load(y.toJson(), NDArray.saveToBytes(Map.of()), "data", 1, 10);
    }
  }

  /** Median ns per predict call of input {@code x} (one executor), 1 thread. */
  static void bench(Predictor p, String what, float[] x, long[] shape, int calls) {
    float[] out = new float[(int) p.outputSize(0, shape)];
    FloatBuffer in = ByteBuffer.allocateDirect(4 * x.length).order(ByteOrder.nativeOrder())
        .asFloatBuffer().put(x);
    in.flip();
    FloatBuffer ob = ByteBuffer.allocateDirect(4 * out.length).order(ByteOrder.nativeOrder())
        .asFloatBuffer();
    for (int i = 0; i < Math.max(10, calls / 10); ++i) {  // warm-up (JIT, executor bound)
      p.predict(x, shape, out);
      p.predict(in, shape, ob);
    }
    long[] ta = new long[calls];
    long[] tb = new long[calls];
    for (int i = 0; i < calls; ++i) {  // interleaved: both paths see the same machine load
      long s = System.nanoTime();
      p.predict(x, shape, out);
      long m = System.nanoTime();
      p.predict(in, shape, ob);
      tb[i] = System.nanoTime() - m;
      ta[i] = m - s;
    }
    Arrays.sort(ta);
    Arrays.sort(tb);
    System.out.printf("java predict %s, %d calls, 1 thread: float[] median %d ns/call, "
        + "direct FloatBuffer median %d ns/call%n", what, calls, ta[calls / 2], tb[calls / 2]);
  }
}
