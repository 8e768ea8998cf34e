// PredictServer: a LeNet inference service on HttpListener over one Weft
// Predictor shared by all requests, a bounded load generator, and a
// predict-call overhead bench.
//
//   mono PredictServer.exe init SYMBOL PREFIX         write PREFIX-0000.params (xavier, seed 1)
//   mono PredictServer.exe serve SYMBOL PARAMS PORT   serve POST /predict on 127.0.0.1:PORT
//   mono PredictServer.exe load URL N C               N requests from C clients, then stop
//   mono PredictServer.exe selftest SYMBOL DIR N C    init into DIR, serve on a free port, load it,
//                                                     check every answer against a direct predict
//   mono PredictServer.exe bench SYMBOL PARAMS CALLS  median ns per Predict call, 1 thread
//   mono PredictServer.exe bench-tiny CALLS           the same on relu over a 1x10 input, the
//                                                     model the Go example times from C too
//   mono PredictServer.exe soak SYMBOL PARAMS CALLS D1,D2,... [INTERVAL_S]
//                                                     bench/soak's loop through C# (RSS, live handles)
//                                                     (per-call overhead: compute is negligible)
//
// A request body is one 28x28 image: a JSON array of 784 numbers, or 784
// little-endian float32 (Content-Type: application/octet-stream). The answer
// is {"class": k, "probabilities": [...]}; a bad request gets 400 and
// {"error": "..."} with the library's message.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Weft;

static class PredictServer {
  const int Pixels = 28 * 28;

  static int Main(string[] args) {
    try {
      string mode = args.Length > 0 ? args[0] : "";
      if (mode == "init" && args.Length == 3) {
        Init(args[1], args[2]);
        return 0;
      }
      if (mode == "serve" && args.Length == 4) {
        using (var p = Open(args[1], args[2]))
        using (var s = new Server(p, int.Parse(args[3]))) {
          Console.WriteLine("serving " + s.Url + " (Ctrl-C stops)");
          Thread.Sleep(Timeout.Infinite);
        }
        return 0;
      }
      if (mode == "load" && args.Length == 4)
        return Load(args[1], RandomImages(64, 2), int.Parse(args[2]), int.Parse(args[3]), null) == 0 ? 0 : 1;
      if (mode == "selftest" && args.Length == 5)
        return SelfTest(args[1], args[2], int.Parse(args[3]), int.Parse(args[4]));
      if (mode == "bench" && args.Length == 4) {
        using (var p = Predictor.Create(File.ReadAllText(args[1]), File.ReadAllBytes(args[2]),
                                        new[] { Predictor.Input("data", 1, 1, 28, 28) }, null, OneExecutor()))
          Bench(p, "LeNet", Pixels, 10, int.Parse(args[3]));
        return 0;
      }
      if (mode == "soak" && (args.Length == 5 || args.Length == 6)) {
        var shape = args[4].Split(',').Select(long.Parse).ToArray();
        double interval = args.Length == 6 ? double.Parse(args[5], CultureInfo.InvariantCulture) : 10;
        return Soak(args[1], args[2], long.Parse(args[3]), shape, interval) ? 0 : 1;
      }
      if (mode == "bench-tiny" && args.Length == 2) {
        using (var p = TinyModel())
          Bench(p, "tiny relu(1x10)", 10, 10, int.Parse(args[1]));
        return 0;
      }
    } catch (WeftException e) {
      Console.Error.WriteLine("weft error " + e.Code + ": " + e.Message);
      return 1;
    }
    Console.Error.WriteLine("usage: PredictServer.exe init SYMBOL PREFIX | serve SYMBOL PARAMS PORT | " +
                            "load URL N C | selftest SYMBOL DIR N C | bench SYMBOL PARAMS CALLS | " +
                            "bench-tiny CALLS | soak SYMBOL PARAMS CALLS D1,D2,... [INTERVAL_S]");
    return 2;
  }

  static Predictor Open(string symbolPath, string paramsPath) {
    return Predictor.Create(File.ReadAllText(symbolPath), File.ReadAllBytes(paramsPath),
                            new[] { Predictor.Input("data", 1, 1, 28, 28) });
  }

  /// <summary>Writes PREFIX-symbol.json and PREFIX-0000.params (xavier weights).</summary>
  static void Init(string symbolPath, string prefix) {
    var args = new Dictionary<string, NDArray>();
    try {
      using (var sym = Symbol.Load(symbolPath))
      using (var init = Initializer.Create("xavier", null, 1)) {
        var shapes = sym.InferShape(new Dictionary<string, long[]> { { "data", new long[] { 1, 1, 28, 28 } } });
        foreach (var kv in shapes.Arguments) {
          if (kv.Key == "data" || kv.Key.EndsWith("label", StringComparison.Ordinal)) continue;
          var a = NDArray.Create(DType.Float32, kv.Value);
          args[kv.Key] = a;
          init.Init(kv.Key, a);
        }
        Checkpoint.Save(prefix, 0, sym, args, new Dictionary<string, NDArray>());
      }
    } finally {
      NDArray.DisposeAll(args);
    }
    Console.WriteLine("wrote " + prefix + "-0000.params");
  }

  /// <summary>POST /predict on 127.0.0.1:port; each request on the thread pool.</summary>
  sealed class Server : IDisposable {
    readonly Predictor predictor;
    readonly HttpListener listener = new HttpListener();
    readonly Task loop;
    public readonly string Url;

    public Server(Predictor predictor, int port) {
      this.predictor = predictor;
      Url = "http://127.0.0.1:" + port + "/predict/";
      listener.Prefixes.Add(Url);
      listener.Start();
      loop = Task.Run(() => Accept());
    }

    void Accept() {
      while (true) {
        HttpListenerContext ctx;
        try {
          ctx = listener.GetContext();
        } catch (Exception) when (!listener.IsListening) {
          return;  // stopped
        }
        Task.Run(() => Handle(ctx));
      }
    }

    void Handle(HttpListenerContext ctx) {
      int status = 200;
      string body;
      try {
        if (ctx.Request.HttpMethod != "POST") throw new ArgumentException("POST an image to " + Url);
        float[] image = ReadImage(ctx.Request);
        float[] probs = predictor.Predict(image);
        body = Answer(probs);
      } catch (Exception e) when (e is WeftException || e is ArgumentException || e is FormatException) {
        status = 400;
        body = "{\"error\": \"" + e.Message.Replace("\\", "\\\\").Replace("\"", "\\\"") + "\"}";
      } catch (Exception e) {
        status = 500;
        body = "{\"error\": \"internal: " + e.GetType().Name + "\"}";
      }
      try {
        var bytes = Encoding.UTF8.GetBytes(body);
        ctx.Response.StatusCode = status;
        ctx.Response.ContentType = "application/json";
        ctx.Response.ContentLength64 = bytes.Length;
        ctx.Response.OutputStream.Write(bytes, 0, bytes.Length);
        ctx.Response.Close();
      } catch (Exception) {
        // the client went away
      }
    }

    public void Dispose() {
      listener.Stop();
      loop.Wait();
      listener.Close();
    }
  }

  static float[] ReadImage(HttpListenerRequest req) {
    byte[] raw;
    using (var ms = new MemoryStream()) {
      req.InputStream.CopyTo(ms);
      raw = ms.ToArray();
    }
    if ((req.ContentType ?? "").StartsWith("application/octet-stream", StringComparison.Ordinal)) {
      if (raw.Length % 4 != 0) throw new ArgumentException("octet-stream body of " + raw.Length + " bytes is not float32");
      var f = new float[raw.Length / 4];
      Buffer.BlockCopy(raw, 0, f, 0, raw.Length);  // little-endian hosts only
      return f;
    }
    return ParseJsonArray(Encoding.UTF8.GetString(raw));
  }

  /// <summary>A JSON array of numbers (nothing else is accepted).</summary>
  static float[] ParseJsonArray(string s) {
    s = s.Trim();
    if (s.Length < 2 || s[0] != '[' || s[s.Length - 1] != ']')
      throw new FormatException("the body is not a JSON array of numbers (or send application/octet-stream)");
    var inner = s.Substring(1, s.Length - 2).Trim();
    if (inner.Length == 0) return new float[0];
    return inner.Split(',').Select(x => float.Parse(x.Trim(), NumberStyles.Float, CultureInfo.InvariantCulture)).ToArray();
  }

  static int ArgMax(float[] v) {
    int k = 0;
    for (int i = 1; i < v.Length; ++i) if (v[i] > v[k]) k = i;
    return k;
  }

  static string Answer(float[] probs) {
    int k = ArgMax(probs);
    var sb = new StringBuilder("{\"class\": ").Append(k).Append(", \"probabilities\": [");
    for (int i = 0; i < probs.Length; ++i)
      sb.Append(i == 0 ? "" : ", ").Append(probs[i].ToString("R", CultureInfo.InvariantCulture));
    return sb.Append("]}").ToString();
  }

  static float[] ParseProbabilities(string json) {
    const string key = "\"probabilities\": ";
    int at = json.IndexOf(key, StringComparison.Ordinal);
    int end = json.IndexOf(']', at < 0 ? 0 : at);
    if (at < 0 || end < 0) throw new FormatException("no probabilities in " + json);
    return ParseJsonArray(json.Substring(at + key.Length, end + 1 - at - key.Length));
  }

  static int ParseClass(string json) {
    const string key = "\"class\": ";
    int at = json.IndexOf(key, StringComparison.Ordinal);
    if (at < 0) throw new FormatException("no class in " + json);
    at += key.Length;
    int end = at;
    while (end < json.Length && char.IsDigit(json[end])) ++end;
    return int.Parse(json.Substring(at, end - at), CultureInfo.InvariantCulture);
  }

  static float[][] RandomImages(int n, int seed) {
    var rng = new Random(seed);
    var images = new float[n][];
    for (int i = 0; i < n; ++i) {
      images[i] = new float[Pixels];
      double scale = 0.5 + 4 * rng.NextDouble(), offset = rng.NextDouble() - 0.5;
      for (int j = 0; j < Pixels; ++j) images[i][j] = (float)(scale * (rng.NextDouble() - 0.5) + offset);
    }
    return images;
  }

  /// <summary>
  /// n requests from c concurrent clients (image i % images.Length; even
  /// requests JSON, odd ones octet-stream); prints requests/s and p50/p99
  /// latency. expected (optional): the direct predict of each image (the
  /// class and every probability must match exactly); returns the number of
  /// wrong or failed answers.
  /// </summary>
  static int Load(string url, float[][] images, int n, int c, float[][] expected) {
    ServicePointManager.DefaultConnectionLimit = Math.Max(c, 2);
    ServicePointManager.Expect100Continue = false;
    var latencies = new double[n];
    int next = -1, wrong = 0;
    string firstProblem = null;
    var wall = Stopwatch.StartNew();
    var clients = Enumerable.Range(0, c).Select(_ => new Thread(() => {
      for (int i = Interlocked.Increment(ref next); i < n; i = Interlocked.Increment(ref next)) {
        var image = images[i % images.Length];
        var t0 = Stopwatch.GetTimestamp();
        string problem = null;
        try {
          var json = Post(url, image, i % 2 == 1);
          int k = ParseClass(json);
          if (expected != null) {
            var want = expected[i % images.Length];
            if (k != ArgMax(want))
              problem = "request " + i + ": class " + k + ", direct predict " + ArgMax(want);
            else if (!ParseProbabilities(json).SequenceEqual(want))
              problem = "request " + i + ": probabilities differ from a direct predict: " + json;
          }
        } catch (Exception e) {
          problem = "request " + i + ": " + e.Message;
        }
        latencies[i] = (Stopwatch.GetTimestamp() - t0) * 1000.0 / Stopwatch.Frequency;
        if (problem != null) {
          Interlocked.Increment(ref wrong);
          Interlocked.CompareExchange(ref firstProblem, problem, null);
        }
      }
    })).ToArray();
    foreach (var t in clients) t.Start();
    foreach (var t in clients) t.Join();
    double seconds = wall.Elapsed.TotalSeconds;
    Array.Sort(latencies);
    Console.WriteLine(string.Format(CultureInfo.InvariantCulture,
        "{0} requests, {1} clients: {2:F1} requests/s, latency p50 {3:F2} ms, p99 {4:F2} ms, {5} wrong",
        n, c, n / seconds, Percentile(latencies, 0.50), Percentile(latencies, 0.99), wrong));
    if (firstProblem != null) Console.WriteLine("first problem: " + firstProblem);
    return wrong;
  }

  static double Percentile(double[] sorted, double q) {
    return sorted.Length == 0 ? 0 : sorted[(int)Math.Round(q * (sorted.Length - 1))];
  }

  static string Post(string url, float[] image, bool binary) {
    var req = (HttpWebRequest)WebRequest.Create(url);
    req.Method = "POST";
    byte[] body;
    if (binary) {
      req.ContentType = "application/octet-stream";
      body = new byte[image.Length * 4];
      Buffer.BlockCopy(image, 0, body, 0, body.Length);
    } else {
      req.ContentType = "application/json";
      body = Encoding.UTF8.GetBytes("[" + string.Join(",", image.Select(
          v => v.ToString("R", CultureInfo.InvariantCulture))) + "]");
    }
    req.ContentLength = body.Length;
    using (var s = req.GetRequestStream()) s.Write(body, 0, body.Length);
    try {
      using (var resp = (HttpWebResponse)req.GetResponse())
      using (var r = new StreamReader(resp.GetResponseStream(), Encoding.UTF8))
        return r.ReadToEnd();
    } catch (WebException e) when (e.Response != null) {
      using (var r = new StreamReader(e.Response.GetResponseStream(), Encoding.UTF8))
        throw new InvalidOperationException("HTTP " + (int)((HttpWebResponse)e.Response).StatusCode + ": " + r.ReadToEnd());
    }
  }

  static int FreePort() {
    var l = new TcpListener(IPAddress.Loopback, 0);
    l.Start();
    int port = ((IPEndPoint)l.LocalEndpoint).Port;
    l.Stop();
    return port;
  }

  /// <summary>The CTest case: every answer's class equals a direct predict
  /// of the same image, and a bad request gets 400 with the library's message.</summary>
  static int SelfTest(string symbolPath, string dir, int n, int c) {
    Directory.CreateDirectory(dir);
    var prefix = Path.Combine(dir, "lenet");
    Init(symbolPath, prefix);
    var images = RandomImages(50, 7);
    using (var p = Open(symbolPath, prefix + "-0000.params")) {
      var expected = images.Select(img => p.Predict(img)).ToArray();
      Console.WriteLine("direct predict: " + expected.Select(ArgMax).Distinct().Count() + " distinct classes over " +
                        images.Length + " images");
      using (var server = new Server(p, FreePort())) {
        int wrong = Load(server.Url, images, n, c, expected);
        string bad = null;
        try {
          Post(server.Url, new float[Pixels - 1], false);
        } catch (InvalidOperationException e) {
          bad = e.Message;
        }
        Console.WriteLine("bad request: " + bad);
        if (bad == null || !bad.StartsWith("HTTP 400", StringComparison.Ordinal) || !bad.Contains("783 floats")) {
          Console.WriteLine("FAIL: a 783-float image did not get 400 with the predictor's message");
          return 1;
        }
        var s = p.Stats();
        Console.WriteLine("predictor: " + s.Executors + " executors, weights " + s.WeightBytes + " bytes");
        if (wrong != 0) {
          Console.WriteLine("FAIL: " + wrong + " answers differ from a direct predict");
          return 1;
        }
      }
    }
    Console.WriteLine("selftest OK");
    return 0;
  }

  static Dictionary<string, string> OneExecutor() {
    return new Dictionary<string, string> { { "max_executors", "1" } };
  }

  /// <summary>data (1,4) -> FullyConnected(2), uniform weights, through a
  /// temporary .params file read back into memory.</summary>
  /// <summary>bench/soak's loop through the C# binding: a predictor with
  /// input "data" of <paramref name="shape"/> called <paramref name="calls"/>
  /// times, printing seconds, calls, resident memory (MB) and live handles
  /// every <paramref name="interval"/> seconds, then disposing it and printing
  /// the live handles again. True when they returned to their count before
  /// the predictor was created.</summary>
  static bool Soak(string symbol, string parameters, long calls, long[] shape, double interval) {
    long live0 = Library.LiveHandleCount;
    double warm = -1, last = 0, peak = 0;
    var clock = Stopwatch.StartNew();
    using (var p = Predictor.FromFiles(symbol, parameters, new[] { Predictor.Input("data", shape) })) {
      var input = new float[shape.Aggregate(1L, (a, b) => a * b)];
      for (int i = 0; i < input.Length; ++i) input[i] = (i % 251) / 251f;
      var output = new float[p.OutputShape(0, shape).Aggregate(1L, (a, b) => a * b)];
      Console.WriteLine("{0,10} {1,12} {2,10} {3,8}", "seconds", "calls", "rss_mb", "handles");
      double next = interval;
      for (long c = 0; c < calls; ++c) {
        p.Predict(input, shape, output);
        double now = clock.Elapsed.TotalSeconds;
        if (now >= next || c + 1 == calls) {
          last = RssMb();
          if (warm < 0 && c >= calls / 10) warm = last;  // after warm-up: 10 % of the calls
          peak = Math.Max(peak, last);
          Console.WriteLine(string.Format(CultureInfo.InvariantCulture, "{0,10:F1} {1,12} {2,10:F1} {3,8}", now,
                                          c + 1, last, Library.LiveHandleCount));
          next += interval;
        }
      }
    }
    Console.WriteLine(string.Format(CultureInfo.InvariantCulture,
        "calls {0} in {1:F1} s; rss after warm-up {2:F1} MB, at the end {3:F1} MB ({4:+0.0;-0.0} %), peak {5:F1} MB; " +
        "live handles {6} -> {7} after free", calls, clock.Elapsed.TotalSeconds, warm, last,
        warm > 0 ? 100 * (last - warm) / warm : 0.0, peak, live0, Library.LiveHandleCount));
    return Library.LiveHandleCount == live0;
  }

  /// <summary>Resident memory in MB (/proc/self/statm: pages of 4 KB).</summary>
  static double RssMb() {
    var f = File.ReadAllText("/proc/self/statm").Trim().Split(' ');
    return long.Parse(f[1]) * 4096.0 / (1024 * 1024);
  }

  /// <summary>relu over a 1x10 input, no weights: a call whose compute is negligible.</summary>
  static Predictor TinyModel() {
    using (var data = Symbol.Variable("data"))
    using (var relu = Symbol.Create("Activation", "relu", new Dictionary<string, object> { { "act_type", "relu" } }, data))
      return Predictor.Create(relu.ToJson(), NDArray.SaveToBytes(new Dictionary<string, NDArray>()),
                              new[] { Predictor.Input("data", 1, 10) }, null, OneExecutor());
  }

  /// <summary>Median ns per Predictor.Predict(span, span) call, one thread,
  /// one executor, the same input each call.</summary>
  static void Bench(Predictor p, string what, int inputLength, int outputLength, int calls) {
    var input = RandomImages(1, 3)[0].Take(inputLength).ToArray();
    var output = new float[outputLength];
    for (int i = 0; i < Math.Min(calls, 200); ++i) p.Predict(input, output);  // warm up
    var ns = new double[calls];
    for (int i = 0; i < calls; ++i) {
      long t0 = Stopwatch.GetTimestamp();
      p.Predict(input, output);
      ns[i] = (Stopwatch.GetTimestamp() - t0) * 1e9 / Stopwatch.Frequency;
    }
    Array.Sort(ns);
    Console.WriteLine(string.Format(CultureInfo.InvariantCulture,
        "csharp Predictor.Predict ({0}): {1} calls, median {2:F0} ns/call, p99 {3:F0} ns/call",
        what, calls, Percentile(ns, 0.5), Percentile(ns, 0.99)));
  }
}
