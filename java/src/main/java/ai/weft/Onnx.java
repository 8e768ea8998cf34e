package ai.weft;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * ONNX import and export (docs/onnx.md). Import turns an {@code .onnx} model (opsets 7-18) into a
 * Weft symbol of MXNet operators and its parameters; export writes a symbol and its parameters
 * (any MXNet checkpoint generation Weft reads) as an ONNX model. {@link Predictor#fromFiles} also
 * takes an {@code .onnx} file in place of a symbol file (its params path may then be null).
 */
public final class Onnx {
  private Onnx() {}

  /** An imported model: its symbol and parameters (close it to free all three). */
  public static final class Model implements AutoCloseable {
    public final Symbol symbol;
    /** Argument parameters (initializers) by name. */
    public final Map<String, NDArray> args;
    /** Auxiliary states (such as BatchNorm's running statistics) by name. */
    public final Map<String, NDArray> aux;

    Model(Symbol symbol, Map<String, NDArray> args, Map<String, NDArray> aux) {
      this.symbol = symbol;
      this.args = args;
      this.aux = aux;
    }

    @Override
    public void close() {
      NDArray.closeAll(args);
      NDArray.closeAll(aux);
      symbol.close();
    }
  }

  /**
   * Imports the model at {@code path}; {@code shapes} (may be null) fix graph inputs' dynamic
   * extents (0 keeps one unknown) so that shape computations over them fold.
   */
  public static Model importModel(Path path, Map<String, long[]> shapes) {
    Native.ensureLoaded();
    NDArrayLists.Shapes s = new NDArrayLists.Shapes(shapes == null ? Map.of() : shapes);
    long[] sym = new long[1];
    long[] args = new long[1];
    long[] aux = new long[1];
    weft_native.weft_onnx_import(path.toString(), s.names.length, s.names, s.indPtr, s.dims, sym,
        args, aux);
    Symbol symbol = new Symbol(sym[0]);
    Map<String, NDArray> a = NDArrayLists.take(args[0]);
    return new Model(symbol, a, NDArrayLists.take(aux[0]));
  }

  /** Imports the model at {@code path} as the checkpoint PREFIX-symbol.json + PREFIX-0000.params. */
  public static void importCheckpoint(Path path, String prefix, Map<String, long[]> shapes) {
    Native.ensureLoaded();
    NDArrayLists.Shapes s = new NDArrayLists.Shapes(shapes == null ? Map.of() : shapes);
    weft_native.weft_onnx_import_checkpoint(path.toString(), prefix, s.names.length, s.names,
        s.indPtr, s.dims);
  }

  /** The ONNX operators the importer converts, sorted. */
  public static List<String> supportedOps() {
    Native.ensureLoaded();
    return Strings.take(weft_native.weft_onnx_supported_ops());
  }

  /**
   * Exports {@code sym} with its parameters to {@code output} at ONNX opset {@code opset} (11-17);
   * {@code inputShapes} (may be null when the symbol's hints give them) are the data inputs'
   * shapes; {@code dynamicBatch} makes dim 0 the dim_param "batch". Returns the export's notes,
   * one line per node exported with a change worth knowing. Nothing is written when a node has no
   * ONNX form: the NOT_IMPLEMENTED error lists every such node.
   */
  public static List<String> export(Symbol sym, Map<String, NDArray> args,
      Map<String, NDArray> aux, Map<String, long[]> inputShapes, int opset, boolean dynamicBatch,
      Path output) {
    NDArrayLists.Shapes s = new NDArrayLists.Shapes(inputShapes == null ? Map.of() : inputShapes);
    String[] an = NDArrayLists.names(args);
    String[] xn = NDArrayLists.names(aux);
    long[] report = new long[1];
    weft_native.weft_onnx_export(sym.handle(), an.length, an, NDArrayLists.handles(args),
        xn.length, xn, NDArrayLists.handles(aux), s.names.length, s.names, s.indPtr, s.dims, opset,
        dynamicBatch ? weft_nativeConstants.WEFT_ONNX_DYNAMIC_BATCH : 0, output.toString(),
        report);
    return Strings.take(report[0]);
  }

  /** As export(), from a symbol JSON file and a .params file (null: no parameters). */
  public static List<String> exportFiles(Path symbol, Path params, Map<String, long[]> inputShapes,
      int opset, boolean dynamicBatch, Path output) {
    Native.ensureLoaded();
    NDArrayLists.Shapes s = new NDArrayLists.Shapes(inputShapes == null ? Map.of() : inputShapes);
    long[] report = new long[1];
    weft_native.weft_onnx_export_files(symbol.toString(), params == null ? null : params.toString(),
        s.names.length, s.names, s.indPtr, s.dims, opset,
        dynamicBatch ? weft_nativeConstants.WEFT_ONNX_DYNAMIC_BATCH : 0, output.toString(), report);
    return Strings.take(report[0]);
  }
}
