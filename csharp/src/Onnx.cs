using System;
using System.Collections.Generic;

namespace Weft {

/// <summary>
/// ONNX import and export (docs/onnx.md). Import turns an .onnx model
/// (opsets 7-18) into a Weft symbol of MXNet operators and its parameters;
/// export writes a symbol and its parameters (any MXNet checkpoint
/// generation Weft reads) as an ONNX model. Predictor.FromFiles also takes
/// an .onnx file in place of a symbol file (its params path may then be null).
/// </summary>
public static class Onnx {
  /// <summary>An imported model: its symbol and parameters (Dispose frees all three).</summary>
  public sealed class Model : IDisposable {
    public Symbol Symbol { get; private set; }
    /// <summary>Argument parameters (initializers) by name.</summary>
    public Dictionary<string, NDArray> Args { get; private set; }
    /// <summary>Auxiliary states (such as BatchNorm's running statistics) by name.</summary>
    public Dictionary<string, NDArray> Aux { get; private set; }

    internal Model(Symbol symbol, Dictionary<string, NDArray> args, Dictionary<string, NDArray> aux) {
      Symbol = symbol;
      Args = args;
      Aux = aux;
    }

    public void Dispose() {
      NDArray.DisposeAll(Args);
      NDArray.DisposeAll(Aux);
      Symbol.Dispose();
    }
  }

  /// <summary>Imports the model at path; shapes (may be null) fix graph
  /// inputs' dynamic extents (0 keeps one unknown) so that shape
  /// computations over them fold.</summary>
  public static Model Import(string path, IDictionary<string, long[]> shapes = null) {
    Native.EnsureLoaded();
    string[] names;
    ulong[] indPtr;
    long[] dims;
    NDArrayLists.Shapes(shapes ?? new Dictionary<string, long[]>(), out names, out indPtr, out dims);
    var sym = new long[1];
    var args = new long[1];
    var aux = new long[1];
    weft_native.weft_onnx_import(path, (ulong)names.Length, names, indPtr, dims, sym, args, aux);
    var symbol = new Symbol(sym[0]);
    var a = NDArrayLists.Take(args[0]);
    return new Model(symbol, a, NDArrayLists.Take(aux[0]));
  }

  /// <summary>Imports the model at path as the checkpoint PREFIX-symbol.json + PREFIX-0000.params.</summary>
  public static void ImportCheckpoint(string path, string prefix, IDictionary<string, long[]> shapes = null) {
    Native.EnsureLoaded();
    string[] names;
    ulong[] indPtr;
    long[] dims;
    NDArrayLists.Shapes(shapes ?? new Dictionary<string, long[]>(), out names, out indPtr, out dims);
    weft_native.weft_onnx_import_checkpoint(path, prefix, (ulong)names.Length, names, indPtr, dims);
  }

  /// <summary>The ONNX operators the importer converts, sorted.</summary>
  public static IList<string> SupportedOps() {
    Native.EnsureLoaded();
    return Symbol.Take(weft_native.weft_onnx_supported_ops());
  }

  /// <summary>
  /// Exports sym with its parameters to output at ONNX opset (11-17);
  /// inputShapes (may be null when the symbol's hints give them) are the
  /// data inputs' shapes; dynamicBatch makes dim 0 the dim_param "batch".
  /// Returns the export's notes, one line per node exported with a change
  /// worth knowing. Nothing is written when a node has no ONNX form: the
  /// NotImplemented error lists every such node.
  /// </summary>
  public static IList<string> Export(Symbol sym, IDictionary<string, NDArray> args,
                                     IDictionary<string, NDArray> aux,
                                     IDictionary<string, long[]> inputShapes, int opset,
                                     bool dynamicBatch, string output) {
    string[] names;
    ulong[] indPtr;
    long[] dims;
    NDArrayLists.Shapes(inputShapes ?? new Dictionary<string, long[]>(), out names, out indPtr, out dims);
    var report = new long[1];
    weft_native.weft_onnx_export(sym.Handle, (ulong)NDArrayLists.Names(args).Length, NDArrayLists.Names(args),
                                 NDArrayLists.Handles(args), (ulong)NDArrayLists.Names(aux).Length,
                                 NDArrayLists.Names(aux), NDArrayLists.Handles(aux), (ulong)names.Length,
                                 names, indPtr, dims, opset,
                                 dynamicBatch ? weft_native.WEFT_ONNX_DYNAMIC_BATCH : 0, output, report);
    GC.KeepAlive(args);
    GC.KeepAlive(aux);
    return Symbol.Take(report[0]);
  }

  /// <summary>As Export, from a symbol JSON file and a .params file (null: no parameters).</summary>
  public static IList<string> ExportFiles(string symbolPath, string paramsPath,
                                          IDictionary<string, long[]> inputShapes, int opset,
                                          bool dynamicBatch, string output) {
    Native.EnsureLoaded();
    string[] names;
    ulong[] indPtr;
    long[] dims;
    NDArrayLists.Shapes(inputShapes ?? new Dictionary<string, long[]>(), out names, out indPtr, out dims);
    var report = new long[1];
    weft_native.weft_onnx_export_files(symbolPath, paramsPath, (ulong)names.Length, names, indPtr, dims,
                                       opset, dynamicBatch ? weft_native.WEFT_ONNX_DYNAMIC_BATCH : 0,
                                       output, report);
    return Symbol.Take(report[0]);
  }
}

}  // namespace Weft
