package ai.weft;

import ai.weft.Executor.GradReq;

/**
 * One bound call of a custom operator (MXNet's {@code CustomOp}), made by
 * {@link CustomOpProp#createOperator}. Weft calls it on an engine worker thread, never
 * concurrently for one operator; operators of other executors may run at the same time.
 *
 * <p>The arrays are zero-copy views of the call's memory, valid only during the callback: read
 * and write them through {@link NDArray#data()} / {@link NDArray#floatData()} (honouring each
 * request: {@code NULL} skip, {@code WRITE} overwrite, {@code ADD} accumulate). A callback may read
 * an array's shape, dtype and memory and compute on plain Java values; it must not wait for the
 * engine ({@link Weft#waitAll()}, {@code NDArray.copyTo/copyFrom/waitTo*}, executors, modules),
 * close its views or keep them. An exception becomes a Weft error naming the op_type and the node
 * (raised where the result is waited for).
 */
public interface CustomOp {
  /** Computes {@code outData} from {@code inData} (and may update {@code aux}). */
  void forward(boolean isTrain, GradReq[] req, NDArray[] inData, NDArray[] outData,
      NDArray[] aux);

  /**
   * Computes {@code inGrad} (one per argument, {@code req} one each). Entries of {@code outGrad},
   * {@code inData} and {@code outData} that {@link CustomOpProp#declareBackwardDependency} did not
   * ask for are null.
   */
  void backward(GradReq[] req, NDArray[] outGrad, NDArray[] inData, NDArray[] outData,
      NDArray[] inGrad, NDArray[] aux);
}
