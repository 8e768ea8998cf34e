using System;
using System.Collections.Generic;
using System.Diagnostics;
using Weft;

/// C# side of bench/bench_custom_op.sh (see bench_custom_op.c): prints "<name> <us>".
sealed class IdentityOp : ICustomOp {
  public void Forward(bool t, GradReq[] req, NDArray[] inData, NDArray[] outData, NDArray[] aux) {
    inData[0].FloatData().CopyTo(outData[0].FloatData());
  }
  public void Backward(GradReq[] req, NDArray[] og, NDArray[] i, NDArray[] o, NDArray[] ig, NDArray[] aux) {}
}

sealed class IdentityProp : CustomOpProp {
  public override long[][] InferShape(long[][] inShapes) { return new[] { inShapes[0] }; }
  public override ICustomOp CreateOperator(Context ctx, long[][] s, DType[] t) { return new IdentityOp(); }
}

static class BenchCustomOp {
  static double Bench(string node, long n, int iters) {
    var json = "{\"nodes\": [{\"op\": \"null\", \"name\": \"x\", \"inputs\": []}, " + node +
               "], \"arg_nodes\": [0], \"heads\": [[1, 0, 0]]}";
    using (var sym = Symbol.FromJson(json))
    using (var ex = Executor.SimpleBind(sym, new Dictionary<string, long[]> { { "x", new[] { n } } }, "null"))
    using (var outp = ex.Outputs()[0]) {
      var sw = new Stopwatch();
      for (int i = -iters / 10; i < iters; ++i) {
        if (i == 0) sw.Start();
        ex.Forward(false);
        outp.WaitToRead();
      }
      return sw.Elapsed.TotalMilliseconds * 1e3 / iters;
    }
  }

  static void Main() {
    const string builtin = "{\"op\": \"identity\", \"name\": \"y\", \"inputs\": [[0, 0, 0]]}";
    const string custom = "{\"op\": \"Custom\", \"name\": \"y\", \"attrs\": {\"op_type\": " +
                          "\"bench_identity\"}, \"inputs\": [[0, 0, 0]]}";
    using (CustomOps.Register("bench_identity", a => new IdentityProp())) {
      Console.WriteLine("builtin_1 {0:F2}", Bench(builtin, 1, 20000));
      Console.WriteLine("custom_1 {0:F2}", Bench(custom, 1, 20000));
      Console.WriteLine("builtin_1m {0:F2}", Bench(builtin, 1 << 20, 300));
      Console.WriteLine("custom_1m {0:F2}", Bench(custom, 1 << 20, 300));
    }
    // Mono 6.8 does not exit while engine threads that ran callbacks live
    // (csharp/README.md, known issue).
    Environment.Exit(0);
  }
}
