import ai.weft.Predictor;
import ai.weft.WeftException;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An HTTP classification service over one shared, thread-safe {@link
 * Predictor} (JDK com.sun.net.httpserver). POST /predict with one 28x28
 * image, either a JSON array of 784 numbers or 784 little-endian float32
 * (Content-Type: application/octet-stream); the answer is
 * {"class": k, "probabilities": [...]}. Errors are {"error": "..."} with 400
 * (bad request: the library's message) or 405.
 *
 * <pre>
 *   java -cp weft.jar:weft-examples.jar LenetService SYMBOL_JSON PARAMS PORT [THREADS]
 * </pre>
 *
 * The load generator (LenetLoad) starts one in-process on 127.0.0.1.
 */
public final class LenetService implements AutoCloseable {
  static final long[] SHAPE = {1, 1, 28, 28};
  static final int PIXELS = 28 * 28;

  static {
    // The JDK server writes a response's headers and body separately; with
    // Nagle's algorithm on, the body waits for the client's delayed ACK
    // (~40 ms per request on a kept-alive connection). Read once, when the
    // server classes initialise, so it is set before the first create().
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  final Predictor predictor;
  final HttpServer server;
  private final ExecutorService pool;

  /** Serves {@code predictor} (not owned) on {@code addr} with {@code threads} handler threads. */
  LenetService(Predictor predictor, InetSocketAddress addr, int threads) throws IOException {
    this.predictor = predictor;
    server = HttpServer.create(addr, 64);
    pool = Executors.newFixedThreadPool(threads);
    server.setExecutor(pool);
    server.createContext("/predict", this::handle);
    server.start();
  }

  /** The bound port (useful with port 0). */
  int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    pool.shutdown();
  }

  /** A predictor for the LeNet checkpoint (input "data", one image at a time). */
  static Predictor load(Path symbol, Path params, int threads) {
    return Predictor.fromFiles(symbol, params, Map.of("data", SHAPE), null,
        Map.of("max_executors", Integer.toString(threads)), null);
  }

  private void handle(HttpExchange ex) throws IOException {
    try {
      if (!"POST".equals(ex.getRequestMethod())) {
        reply(ex, 405, "{\"error\": \"POST an image to /predict\"}");
        return;
      }
      float[] image;
      try (InputStream in = ex.getRequestBody()) {
        byte[] body = in.readAllBytes();
        String type = ex.getRequestHeaders().getFirst("Content-Type");
        image = type != null && type.startsWith("application/octet-stream") ? fromRaw(body)
                                                                              : fromJson(body);
      } catch (IllegalArgumentException e) {
        reply(ex, 400, "{\"error\": " + quote(e.getMessage()) + "}");
        return;
      }
      float[] probs;
      try {
        probs = predictor.predict(image, SHAPE);
      } catch (WeftException e) {
        reply(ex, 400, "{\"error\": " + quote(e.getMessage()) + "}");
        return;
      }
      reply(ex, 200, answer(probs));
    } finally {
      ex.close();
    }
  }

  /** {"class": argmax, "probabilities": [...]}. */
  static String answer(float[] probs) {
    StringBuilder sb = new StringBuilder("{\"class\": ").append(argmax(probs));
    sb.append(", \"probabilities\": [");
    for (int i = 0; i < probs.length; ++i) sb.append(i == 0 ? "" : ", ").append(probs[i]);
    return sb.append("]}").toString();
  }

  static int argmax(float[] v) {
    int best = 0;
    for (int i = 1; i < v.length; ++i) if (v[i] > v[best]) best = i;
    return best;
  }

  static float[] fromRaw(byte[] body) {
    if (body.length != 4 * PIXELS) {
      throw new IllegalArgumentException("expected " + 4 * PIXELS + " bytes (784 float32), got "
          + body.length);
    }
    float[] x = new float[PIXELS];
    ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(x);
    return x;
  }

  /** A JSON array of 784 numbers (nothing else is accepted). */
  static float[] fromJson(byte[] body) {
    String s = new String(body, StandardCharsets.UTF_8).trim();
    if (s.length() < 2 || s.charAt(0) != '[' || s.charAt(s.length() - 1) != ']') {
      throw new IllegalArgumentException("expected a JSON array of 784 numbers");
    }
    String inner = s.substring(1, s.length() - 1).trim();
    String[] parts = inner.isEmpty() ? new String[0] : inner.split(",");
    if (parts.length != PIXELS) {
      throw new IllegalArgumentException("expected 784 numbers, got " + parts.length);
    }
    float[] x = new float[PIXELS];
    for (int i = 0; i < PIXELS; ++i) {
      try {
        x[i] = Float.parseFloat(parts[i].trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("element " + i + " is not a number: " + parts[i].trim());
      }
    }
    return x;
  }

  static String quote(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') sb.append('\\').append(c);
      else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
      else sb.append(c);
    }
    return sb.append('"').toString();
  }

  private static void reply(HttpExchange ex, int code, String json) throws IOException {
    byte[] b = json.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(code, b.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(b);
    }
  }

  public static void main(String[] argv) throws Exception {
    if (argv.length < 3 || argv.length > 4) {
      System.err.println("usage: LenetService SYMBOL_JSON PARAMS PORT [THREADS]");
      System.exit(2);
    }
    int threads = argv.length > 3 ? Integer.parseInt(argv[3]) : 4;
    Predictor p = load(Path.of(argv[0]), Path.of(argv[1]), threads);
    LenetService s = new LenetService(p, new InetSocketAddress(Integer.parseInt(argv[2])), threads);
    System.out.println("serving " + argv[0] + " on port " + s.port() + " (POST /predict)");
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      s.close();
      p.close();
    }));
  }
}
