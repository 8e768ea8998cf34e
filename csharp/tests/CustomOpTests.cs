using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>
/// Custom operators written in C# (the cases of the C, Java and Go suites):
/// softplus with a parameter beta against its closed form and a numeric
/// gradient, trained inside an MLP; a zoo-style JSON with a Custom loss; a
/// throwing callback; four executor threads; unregistering while in use.
/// Each test registers its types and ends with none of its objects alive.
/// Category custom_op: CTest runs it on its own (csharp.custom_op, naive
/// engine), since Mono does not exit while engine threads that ran callbacks
/// live (csharp/README.md).
/// </summary>
[TestFixture]
[Category("custom_op")]
public partial class CustomOpTests : LiveHandleFixture {
  static readonly float[] X = { -3f, -1f, -0.25f, 0f, 0.5f, 2f };
  static int backwardCalls;
  const string SpJson = "{{\"nodes\": [{{\"op\": \"null\", \"name\": \"x\", \"inputs\": []}}," +
      "{{\"op\": \"Custom\", \"name\": \"{1}\", \"attrs\": {{\"beta\": \"{2}\", \"op_type\": " +
      "\"{0}\"}}, \"inputs\": [[0, 0, 0]]}}], \"arg_nodes\": [0], \"heads\": [[1, 0, 0]]}}";

  static double Softplus(double beta, double x) {
    double z = beta * x;
    return (z > 0 ? z + Math.Log(1 + Math.Exp(-z)) : Math.Log(1 + Math.Exp(z))) / beta;
  }

  static double Sigmoid(double z) { return 1 / (1 + Math.Exp(-z)); }

  static void Store(GradReq req, Span<float> dst, int i, double v) {
    if (req == GradReq.Add) dst[i] += (float)v;
    else if (req == GradReq.Write) dst[i] = (float)v;
  }

  sealed class SoftplusOp : ICustomOp {
    internal double Beta;
    internal bool Fail;
    public void Forward(bool isTrain, GradReq[] req, NDArray[] inData, NDArray[] outData, NDArray[] aux) {
      if (Fail) throw new InvalidOperationException("boom: this forward always fails");
      Span<float> x = inData[0].FloatData(), y = outData[0].FloatData();
      for (int i = 0; i < x.Length; ++i) Store(req[0], y, i, Softplus(Beta, x[i]));
    }
    public void Backward(GradReq[] req, NDArray[] outGrad, NDArray[] inData, NDArray[] outData,
                         NDArray[] inGrad, NDArray[] aux) {
      Interlocked.Increment(ref backwardCalls);
      if (outData[0] != null) throw new InvalidOperationException("out_data was not declared");
      Span<float> dy = outGrad[0].FloatData(), x = inData[0].FloatData(), dx = inGrad[0].FloatData();
      for (int i = 0; i < x.Length; ++i) Store(req[0], dx, i, dy[i] * Sigmoid(Beta * x[i]));
    }
  }

  /// <summary>softplus_beta; backward reads out_grad and in_data.</summary>
  sealed class SoftplusProp : CustomOpProp {
    readonly double beta;
    readonly bool fail;
    internal SoftplusProp(IDictionary<string, string> attrs, bool fail) {
      string b;
      beta = attrs.TryGetValue("beta", out b) ? double.Parse(b, System.Globalization.CultureInfo.InvariantCulture) : 1;
      if (!(beta > 0)) throw new ArgumentException("softplus: beta must be positive");
      this.fail = fail;
    }
    public override long[][] InferShape(long[][] inShapes) { return new[] { inShapes[0] }; }
    public override int[] DeclareBackwardDependency(int[] outGrad, int[] inData, int[] outData) {
      return new[] { outGrad[0], inData[0] };
    }
    public override ICustomOp CreateOperator(Context ctx, long[][] inShapes, DType[] inTypes) {
      Assert.AreEqual(DType.Float32, inTypes[0]);
      return new SoftplusOp { Beta = beta, Fail = fail };
    }
  }

  sealed class SoftmaxOp : ICustomOp {
    internal int K;
    public void Forward(bool isTrain, GradReq[] req, NDArray[] inData, NDArray[] outData, NDArray[] aux) {
      Span<float> x = inData[0].FloatData(), y = outData[0].FloatData();
      for (int r = 0; r < x.Length / K; ++r) {
        double mx = x[r * K], sum = 0;
        for (int j = 1; j < K; ++j) mx = Math.Max(mx, x[r * K + j]);
        for (int j = 0; j < K; ++j) sum += Math.Exp(x[r * K + j] - mx);
        for (int j = 0; j < K; ++j) Store(req[0], y, r * K + j, Math.Exp(x[r * K + j] - mx) / sum);
      }
    }
    public void Backward(GradReq[] req, NDArray[] outGrad, NDArray[] inData, NDArray[] outData,
                         NDArray[] inGrad, NDArray[] aux) {
      Span<float> p = outData[0].FloatData(), label = inData[1].FloatData(), dx = inGrad[0].FloatData();
      for (int i = 0; i < p.Length; ++i) Store(req[0], dx, i, p[i] - ((int)label[i / K] == i % K ? 1 : 0));
      if (inGrad[1] != null) {
        Span<float> dl = inGrad[1].FloatData();
        for (int i = 0; i < dl.Length; ++i) Store(req[1], dl, i, 0);
      }
    }
  }

  /// <summary>my_softmax: a softmax cross-entropy loss (data, label).</summary>
  sealed class SoftmaxProp : CustomOpProp {
    public override IList<string> ListArguments() { return new[] { "data", "label" }; }
    public override long[][] InferShape(long[][] inShapes) { return new[] { inShapes[0] }; }
    public override ICustomOp CreateOperator(Context ctx, long[][] inShapes, DType[] inTypes) {
      return new SoftmaxOp { K = (int)inShapes[0][1] };
    }
  }

  /// <summary>Runs body with cs_softplus and cs_softmax registered, then
  /// checks that every registration, prop and operator was released.</summary>
  static void WithOps(Action body) {
    using (CustomOps.Register("cs_softplus", a => new SoftplusProp(a, false)))
    using (CustomOps.Register("cs_softmax", a => new SoftmaxProp())) {
      body();
    }
    Library.WaitAll();
    Assert.AreEqual(0, CustomOps.LiveObjects, "registrations, props or operators left");
  }

  sealed class SpExec : IDisposable {
    internal readonly Symbol Sym;
    internal readonly Executor Ex;
    internal readonly NDArray In, Out, Grad;
    internal SpExec(string type) {
      Sym = Symbol.FromJson(string.Format(SpJson, type, "sp", "2.0"));
      Ex = Executor.SimpleBind(Sym, new Dictionary<string, long[]> { { "x", new long[] { X.Length } } }, "write");
      var args = Ex.ArgArrays();
      In = args["x"];
      Out = Ex.Outputs()[0];
      Grad = Ex.GradArrays()["x"];
    }
    internal double Sum(float[] xs) {
      In.CopyFrom(xs);
      Ex.Forward(false);
      return Out.ToFloatArray().Sum(v => (double)v);
    }
    public void Dispose() {
      Grad.Dispose();
      Out.Dispose();
      In.Dispose();
      Ex.Dispose();
      Sym.Dispose();
    }
  }

  // conformance: custom_op.autograd_records_custom
  [Test]
  public void AutogradRecordsCustom() {
    WithOps(() => {
      using (var x = NDArray.FromArray(X, X.Length)) {
        x.AttachGrad();
        NDArray y;
        using (Autograd.Record())
          y = Ops.Call("Custom", new Dictionary<string, object> { { "op_type", "cs_softplus" }, { "beta", "0.5" } }, x);
        using (y) y.Backward();  // head gradient ones: d softplus(0.5 x) / 0.5 / dx = sigmoid(0.5 x)
        using (var gx = x.Grad()) {
          var g = gx.ToFloatArray();
          for (int i = 0; i < X.Length; ++i) Assert.AreEqual(Sigmoid(0.5 * X[i]), g[i], 1e-5, "grad");
        }
      }
    });
  }

  // conformance: custom_op.softplus_closed_form_and_numeric
  [Test]
  public void SoftplusForwardBackwardClosedFormAndNumeric() {
    WithOps(() => {
      using (var e = new SpExec("cs_softplus")) {
        e.In.CopyFrom(X);
        e.Ex.Forward(true);
        e.Ex.Backward();  // a Custom head: ones as its gradient
        float[] y = e.Out.ToFloatArray(), g = e.Grad.ToFloatArray();
        for (int i = 0; i < X.Length; ++i) {
          Assert.AreEqual(Math.Log(1 + Math.Exp(2.0 * X[i])) / 2.0, y[i], 1e-5, "y");
          Assert.AreEqual(Sigmoid(2.0 * X[i]), g[i], 1e-5, "grad");
          const float eps = 1e-2f;
          var xs = (float[])X.Clone();
          xs[i] = X[i] + eps;
          double up = e.Sum(xs);
          xs[i] = X[i] - eps;
          Assert.AreEqual((up - e.Sum(xs)) / (2 * eps), g[i], 2e-3, "numeric gradient");
        }
      }
    });
  }
}

}  // namespace Weft.Tests
