package ai.weft;

import java.util.Arrays;
import java.util.List;

/**
 * The description of one {@code Custom} node (MXNet's {@code CustomOpProp}), made by the
 * creator given to {@link CustomOps#register} from the node's attributes. Weft calls it on the
 * thread that builds, infers or binds a symbol (any thread), one call at a time per prop; the
 * same rules as {@link CustomOp} apply (no waiting on the engine). Exceptions become Weft errors
 * naming the op_type and the node.
 */
public abstract class CustomOpProp {
  /** Argument names; default {@code ["data"]}. */
  public List<String> listArguments() {
    return List.of("data");
  }

  /** Output names; default {@code ["output"]}. */
  public List<String> listOutputs() {
    return List.of("output");
  }

  /** Auxiliary state names; default none. */
  public List<String> listAuxiliaryStates() {
    return List.of();
  }

  /**
   * The shapes of the outputs, then of the auxiliary states, from the argument shapes (in
   * {@link #listArguments()} order).
   */
  public abstract long[][] inferShape(long[][] inShapes);

  /** The types of the outputs, then of the auxiliary states; default: argument 0's type. */
  public DType[] inferType(DType[] inTypes, int numOutputs, int numAux) {
    DType[] out = new DType[numOutputs + numAux];
    Arrays.fill(out, inTypes[0]);
    return out;
  }

  /**
   * The ids that backward reads among {@code outGrad}, {@code inData} and {@code outData}
   * (MXNet's {@code declare_backward_dependency}); default: all of them.
   */
  public int[] declareBackwardDependency(int[] outGrad, int[] inData, int[] outData) {
    int[] all = new int[outGrad.length + inData.length + outData.length];
    System.arraycopy(outGrad, 0, all, 0, outGrad.length);
    System.arraycopy(inData, 0, all, outGrad.length, inData.length);
    System.arraycopy(outData, 0, all, outGrad.length + inData.length, outData.length);
    return all;
  }

  /**
   * The operator of one bound call, on {@code ctx}, for inputs (arguments, then auxiliary states)
   * of {@code inShapes} and {@code inTypes}.
   */
  public abstract CustomOp createOperator(Context ctx, long[][] inShapes, DType[] inTypes);
}
