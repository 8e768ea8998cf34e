using System;
using System.Collections.Generic;
using System.Linq;

namespace Weft {

/// <summary>
/// A Gluon export run as a block (Gluon's SymbolBlock.imports): the symbol, its parameters from a
/// .params file (names with or without MXNet's arg:/aux: prefixes) and a CachedOp over them.
/// Forward takes the data inputs; while the thread records it is one node on the tape, so after
/// AttachGrad on Params a Backward fills their gradients and a Trainer can train them. Owns the op
/// and the parameters; Dispose frees both.
/// </summary>
public sealed class SymbolBlock : IDisposable {
  readonly CachedOp op;
  readonly Dictionary<string, NDArray> parameters;
  readonly IList<string> inputs;
  readonly List<string> dataNames;

  SymbolBlock(CachedOp op, Dictionary<string, NDArray> parameters, List<string> dataNames) {
    this.op = op;
    this.parameters = parameters;
    this.inputs = op.Inputs;
    this.dataNames = dataNames;
  }

  /// <summary>
  /// Loads symbolFile with data inputs inputNames and every other input from paramFile. Throws
  /// WeftException naming a data input the symbol lacks, a parameter the file lacks, or an array
  /// in the file the symbol does not use (as MXNet's load does).
  /// </summary>
  public static SymbolBlock Imports(string symbolFile, IList<string> inputNames, string paramFile) {
    var loaded = NDArray.Load(paramFile);
    var ps = new Dictionary<string, NDArray>();
    foreach (var kv in loaded) {
      string name = kv.Key.StartsWith("arg:") || kv.Key.StartsWith("aux:") ? kv.Key.Substring(4) : kv.Key;
      ps[name] = kv.Value;
    }
    try {
      using (var sym = Symbol.Load(symbolFile)) {
        var all = sym.ListInputs();
        var data = new List<int>();
        foreach (var name in inputNames) {
          if (!all.Contains(name))
            throw new WeftException(ErrorCode.InvalidArgument, "SymbolBlock.Imports: data input '" + name +
                                    "' is not an input of the symbol [" + string.Join(", ", all) + "]");
          data.Add(all.IndexOf(name));
        }
        foreach (var name in all)
          if (!inputNames.Contains(name) && !ps.ContainsKey(name))
            throw new WeftException(ErrorCode.NotFound, "SymbolBlock.Imports: parameter '" + name +
                                    "' is missing in file " + paramFile);
        foreach (var name in ps.Keys)
          if (!all.Contains(name))
            throw new WeftException(ErrorCode.InvalidArgument, "SymbolBlock.Imports: parameter '" + name +
                                    "' in file " + paramFile + " is not used by the symbol");
        var flags = new Dictionary<string, object> { { "data_indices", "[" + string.Join(",", data) + "]" } };
        return new SymbolBlock(CachedOp.Create(sym, flags), ps, inputNames.ToList());
      }
    } catch {
      foreach (var a in loaded.Values) a.Dispose();
      throw;
    }
  }

  /// <summary>The parameters by name (owned by the block; Gluon's collect_params()).</summary>
  public IReadOnlyDictionary<string, NDArray> Params { get { return parameters; } }

  /// <summary>Runs the block on one array per data input, in inputNames order.</summary>
  public NDArray[] Forward(params NDArray[] data) {
    if (data.Length != dataNames.Count)
      throw new WeftException(ErrorCode.InvalidArgument, "SymbolBlock.Forward: expected " + dataNames.Count +
                              " data input(s) [" + string.Join(", ", dataNames) + "], given " + data.Length);
    var ins = new NDArray[inputs.Count];
    for (int i = 0; i < ins.Length; ++i) {
      int d = dataNames.IndexOf(inputs[i]);
      ins[i] = d >= 0 ? data[d] : parameters[inputs[i]];
    }
    return op.Invoke(ins);
  }

  public void Dispose() {
    op.Dispose();
    foreach (var a in parameters.Values) a.Dispose();
  }
}

}
