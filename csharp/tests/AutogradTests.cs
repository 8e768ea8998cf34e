using System;
using System.Collections.Generic;
using System.Threading;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>Autograd: recording scopes, marked variables, backward, grad, detach, symbols (issue 43).</summary>
[TestFixture]
public class AutogradTests : LiveHandleFixture {
  static NDArray Mul(NDArray a, NDArray b) { return Ops.Call("elemwise_mul", null, a, b); }

  static float[] Values(NDArray a) {
    using (a) return a.ToFloatArray();
  }

  static Dictionary<string, object> P(string key, object value) {
    return new Dictionary<string, object> { { key, value } };
  }

  // conformance: autograd.mlp_gradients_known_numbers
  [Test]
  public void MlpGradientsKnownNumbers() {
    using (var x = NDArray.FromArray(new float[] { 1, 2, 3 }, 3))
    using (var acc = NDArray.FromArray(new float[] { 1, 2, 3 }, 3)) {
      x.AttachGrad();
      acc.AttachGrad(GradReq.Add);
      for (int round = 0; round < 2; ++round) {
        NDArray y, z;
        using (Autograd.Record()) {
          y = Mul(x, x);
          z = Mul(acc, acc);
        }
        using (y)
        using (z) {
          y.Backward();
          Autograd.Backward(z);
        }
      }
      Assert.AreEqual(new float[] { 2, 4, 6 }, Values(x.Grad()));  // written
      Assert.AreEqual(new float[] { 4, 8, 12 }, Values(acc.Grad()));  // added twice
    }
    // FullyConnected -> relu -> sum: dW = column sums of x, db = rows, dx = W per row.
    using (var x = NDArray.FromArray(new float[] { 1, 2, 3, 4 }, 2, 2))
    using (var w = NDArray.FromArray(new float[] { 1, -1 }, 1, 2))
    using (var b = NDArray.FromArray(new float[] { 2 }, 1))
    using (var gx = NDArray.FromArray(new float[] { 0, 0, 0, 0 }, 2, 2))
    using (var gw = NDArray.FromArray(new float[] { 0, 0 }, 1, 2))
    using (var gb = NDArray.FromArray(new float[] { 0 }, 1)) {
      Autograd.MarkVariables(new[] { x, w, b }, null, new[] { gx, gw, gb });
      NDArray loss;
      using (Autograd.Record())
      using (var fc = Ops.Call("FullyConnected", P("num_hidden", 1), x, w, b))
      using (var act = Ops.Call("Activation", P("act_type", "relu"), fc))
        loss = Ops.Call("sum", null, act);
      using (loss) {
        Assert.AreEqual(new float[] { 2 }, loss.ToFloatArray());  // relu(1) + relu(1)
        loss.Backward();
      }
      Assert.AreEqual(new float[] { 4, 6 }, gw.ToFloatArray());
      Assert.AreEqual(new float[] { 2 }, gb.ToFloatArray());
      Assert.AreEqual(new float[] { 1, -1, 1, -1 }, gx.ToFloatArray());
    }
  }

  // conformance: autograd.higher_order_grad
  [Test]
  public void HigherOrderGrad() {
    using (var x = NDArray.FromArray(new float[] { 1, 2, 3 }, 3)) {
      x.AttachGrad();
      NDArray sq, y;
      using (Autograd.Record()) {
        sq = Mul(x, x);
        y = Mul(sq, x);  // x^3
      }
      using (sq)
      using (y)
      using (var g1 = Autograd.Grad(new[] { y }, new[] { x }, createGraph: true)[0]) {
        Assert.AreEqual(new float[] { 3, 12, 27 }, g1.ToFloatArray());  // 3x^2
        Assert.AreEqual(new float[] { 6, 12, 18 }, Values(Autograd.Grad(new[] { g1 }, new[] { x })[0]));  // 6x
      }
    }
  }

  // conformance: autograd.grad_detach_and_symbol
  [Test]
  public void GradDetachAndSymbol() {
    using (var x = NDArray.FromArray(new float[] { 1, 2, 3 }, 3))
    using (var twos = NDArray.FromArray(new float[] { 2, 2, 2 }, 3)) {
      Assert.IsNull(x.Grad());  // not marked
      x.AttachGrad();
      NDArray sq, d, z;
      using (Autograd.Record()) {
        sq = Mul(x, x);
        d = sq.Detach();
        z = Mul(d, x);  // d(detach(x*x) * x)/dx = x*x
      }
      using (sq)
      using (d)
      using (z) {
        // Grad: new arrays, the buffer untouched; head gradients scale them.
        var g = Autograd.Grad(new[] { z }, new[] { x }, new[] { twos }, retainGraph: true);
        Assert.AreEqual(1, g.Length);
        Assert.AreEqual(new float[] { 2, 8, 18 }, Values(g[0]));
        Assert.AreEqual(new float[] { 0, 0, 0 }, Values(x.Grad()));
        using (var s = Autograd.GetSymbol(sq)) Assert.AreEqual(1, s.ListArguments().Count);  // x
        Autograd.Backward(z);
        Assert.AreEqual(new float[] { 1, 4, 9 }, Values(x.Grad()));
        Assert.AreEqual(new float[] { 1, 4, 9 }, d.ToFloatArray());  // same storage as sq
        Expect.Error(ErrorCode.InvalidArgument, () => Autograd.Backward(d), "not recorded");
      }
    }
  }

  // conformance: autograd.scope_restores_flags_and_errors
  [Test]
  public void ScopeRestoresFlagsAndErrors() {
    Assert.IsFalse(Autograd.IsRecording);
    Assert.IsFalse(Autograd.IsTraining);
    using (Autograd.Record()) {
      Assert.IsTrue(Autograd.IsRecording);
      Assert.IsTrue(Autograd.IsTraining);
      using (Autograd.Pause()) {
        Assert.IsFalse(Autograd.IsRecording);
        Assert.IsFalse(Autograd.IsTraining);
        using (Autograd.Record(trainMode: false)) {
          Assert.IsTrue(Autograd.IsRecording);
          Assert.IsFalse(Autograd.IsTraining);
        }
        Assert.IsFalse(Autograd.IsRecording);
      }
      Assert.IsTrue(Autograd.IsRecording);
      Assert.IsTrue(Autograd.IsTraining);
      // The flags are the thread's: another thread does not record.
      bool? other = null;
      var t = new Thread(() => other = Autograd.IsRecording);
      t.Start();
      t.Join();
      Assert.AreEqual(false, other);
    }
    Assert.IsFalse(Autograd.IsRecording);
    Assert.IsFalse(Autograd.IsTraining);
    Assert.Throws<InvalidOperationException>(() => {
      using (Autograd.Record()) throw new InvalidOperationException("inside");
    });
    Assert.IsFalse(Autograd.IsRecording);
    Assert.IsFalse(Autograd.SetRecording(true));
    Assert.IsTrue(Autograd.SetRecording(false));
    Assert.IsFalse(Autograd.SetTraining(true));
    Assert.IsTrue(Autograd.SetTraining(false));
    var opened = Autograd.Record();
    Exception disposing = null;
    var u = new Thread(() => {
      try { opened.Dispose(); } catch (Exception e) { disposing = e; }
    });
    u.Start();
    u.Join();
    Assert.IsInstanceOf<InvalidOperationException>(disposing);
    opened.Dispose();
    opened.Dispose();
    Assert.IsFalse(Autograd.IsRecording);

    using (var x = NDArray.FromArray(new float[] { 1, 2, 3 }, 3))
    using (var small = NDArray.FromArray(new float[] { 0, 0 }, 2)) {
      Expect.Error(ErrorCode.InvalidArgument, () => Autograd.Backward(x), "not recorded");
      Expect.Error(ErrorCode.Shape, () => Autograd.MarkVariables(new[] { x }, null, new[] { small }),
                   "gradient buffer of variable 0", "(2,)");
      Expect.Error(ErrorCode.InvalidArgument,
                   () => Autograd.MarkVariables(new[] { x }, new[] { GradReq.Write, GradReq.Add }, null),
                   "reqs", "2");
      x.AttachGrad();
      NDArray y;
      using (Autograd.Record()) y = Mul(x, x);
      using (y) {
        Expect.Error(ErrorCode.Shape, () => y.Backward(small), "head gradient 0");
        Autograd.Backward(new[] { y }, null, retainGraph: true);
        Autograd.Backward(y);
        Expect.Error(ErrorCode.InvalidArgument, () => y.Backward(), "retain_graph");
        Expect.Error(ErrorCode.InvalidArgument, () => Autograd.GetSymbol(small), "not recorded");
      }
      Assert.AreEqual(new float[] { 2, 4, 6 }, Values(x.Grad()));
    }
  }
}

}  // namespace Weft.Tests
