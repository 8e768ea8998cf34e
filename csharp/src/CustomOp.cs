using System;
using System.Collections.Generic;

namespace Weft {

/// <summary>
/// One bound call of a custom operator (MXNet's CustomOp), made by
/// CustomOpProp.CreateOperator. Weft calls it on an engine worker thread,
/// never concurrently for one operator; operators of other executors may run
/// at the same time. The arrays are zero-copy views of the call's memory,
/// valid only during the callback (NDArray.FloatData, DataPointer; disposed
/// when the callback returns): honour each request (Null skip, Write
/// overwrite, Add accumulate). A callback may read shapes, dtypes and memory
/// and compute on plain values; it must not wait for the engine
/// (Library.WaitAll, NDArray.CopyTo/CopyFrom/WaitTo*, executors, modules)
/// nor keep its views. An exception becomes a Weft error naming the op_type
/// and the node.
/// </summary>
public interface ICustomOp {
  void Forward(bool isTrain, GradReq[] req, NDArray[] inData, NDArray[] outData, NDArray[] aux);

  /// <summary>Entries of outGrad, inData and outData that
  /// DeclareBackwardDependency did not ask for are null.</summary>
  void Backward(GradReq[] req, NDArray[] outGrad, NDArray[] inData, NDArray[] outData,
                NDArray[] inGrad, NDArray[] aux);
}

/// <summary>
/// The description of one Custom node (MXNet's CustomOpProp), made by the
/// creator given to CustomOps.Register from the node's attributes. Called on
/// the thread that builds, infers or binds (any thread), one call at a time
/// per prop; the rules of ICustomOp apply.
/// </summary>
public abstract class CustomOpProp {
  public virtual IList<string> ListArguments() { return new[] { "data" }; }
  public virtual IList<string> ListOutputs() { return new[] { "output" }; }
  public virtual IList<string> ListAuxiliaryStates() { return new string[0]; }

  /// <summary>The shapes of the outputs, then of the auxiliary states, from
  /// the argument shapes.</summary>
  public abstract long[][] InferShape(long[][] inShapes);

  /// <summary>The types of the outputs, then of the auxiliary states;
  /// default: argument 0's type.</summary>
  public virtual DType[] InferType(DType[] inTypes, int numOutputs, int numAux) {
    var r = new DType[numOutputs + numAux];
    for (int i = 0; i < r.Length; ++i) r[i] = inTypes[0];
    return r;
  }

  /// <summary>The ids backward reads (default: all of them).</summary>
  public virtual int[] DeclareBackwardDependency(int[] outGrad, int[] inData, int[] outData) {
    var all = new List<int>(outGrad);
    all.AddRange(inData);
    all.AddRange(outData);
    return all.ToArray();
  }

  /// <summary>The operator of one bound call on ctx, for inputs (arguments,
  /// then auxiliary states) of inShapes and inTypes.</summary>
  public abstract ICustomOp CreateOperator(Context ctx, long[][] inShapes, DType[] inTypes);
}

}
