using System;
using System.Collections.Generic;
using System.Linq;

namespace Weft {

/// <summary>
/// A symbolic graph (MXNet semantics): a list of output entries. Owned handle;
/// symbols made from it share nodes and stay valid after it is disposed. Not
/// synchronised: Compose and SetAttr must not run concurrently with other calls
/// on symbols sharing its nodes.
/// </summary>
public sealed class Symbol : NativeHandle {
  internal Symbol(long h) : base(h, Frees.Symbol) {}

  public static Symbol Variable(string name) {
    Native.EnsureLoaded();
    return new Symbol(weft_native.weft_symbol_create_variable(name));
  }

  /// <summary>An uncomposed application of op; Compose it next.</summary>
  public static Symbol Atomic(string op, IDictionary<string, object> parameters) {
    Native.EnsureLoaded();
    string[] keys, vals;
    Ops.Params(parameters, out keys, out vals);
    return new Symbol(weft_native.weft_symbol_create_atomic(op, keys, vals, (ulong)keys.Length));
  }

  /// <summary>op(parameters)(inputs...) named name (null: automatic).</summary>
  public static Symbol Create(string op, string name, IDictionary<string, object> parameters,
                              params Symbol[] inputs) {
    var s = Atomic(op, parameters);
    try { s.Compose(name, inputs); } catch { s.Dispose(); throw; }
    return s;
  }

  /// <summary>op(parameters)(key=input...) with inputs by name.</summary>
  public static Symbol Create(string op, string name, IDictionary<string, object> parameters,
                              IDictionary<string, Symbol> inputs) {
    var s = Atomic(op, parameters);
    try { s.Compose(name, inputs); } catch { s.Dispose(); throw; }
    return s;
  }

  public void Compose(string name, params Symbol[] args) {
    var hs = Handles(args);
    weft_native.weft_symbol_compose(Handle, name, (ulong)hs.Length, null, hs);
    GC.KeepAlive(args);
  }

  public void Compose(string name, IDictionary<string, Symbol> args) {
    var keys = new string[args.Count];
    var hs = new long[args.Count];
    int i = 0;
    foreach (var kv in args) {
      keys[i] = kv.Key;
      hs[i++] = kv.Value.Handle.DangerousGetHandle().ToInt64();
    }
    weft_native.weft_symbol_compose(Handle, name, (ulong)hs.Length, keys, hs);
    GC.KeepAlive(args);
  }

  public static Symbol Group(params Symbol[] symbols) {
    Native.EnsureLoaded();
    var hs = Handles(symbols);
    long o = weft_native.weft_symbol_group(hs, (ulong)hs.Length);
    GC.KeepAlive(symbols);
    return new Symbol(o);
  }

  public Symbol Copy() { return new Symbol(weft_native.weft_symbol_copy(Handle)); }

  public int NumOutputs {
    get { return (int)weft_native.weft_symbol_num_outputs(Handle); }
  }

  public Symbol this[int index] {
    get { return new Symbol(weft_native.weft_symbol_get_output(Handle, (ulong)index)); }
  }

  public Symbol Internals() { return new Symbol(weft_native.weft_symbol_get_internals(Handle)); }

  public Symbol Children() { return new Symbol(weft_native.weft_symbol_get_children(Handle)); }

  public IList<string> ListArguments() { return Take(weft_native.weft_symbol_list_arguments(Handle)); }

  public IList<string> ListOutputs() { return Take(weft_native.weft_symbol_list_outputs(Handle)); }

  public IList<string> ListAuxiliaryStates() { return Take(weft_native.weft_symbol_list_auxiliary_states(Handle)); }

  public IList<string> ListInputs() { return Take(weft_native.weft_symbol_list_inputs(Handle)); }

  /// <summary>The node name, or null for a grouped symbol.</summary>
  public string Name {
    get { var s = Take(weft_native.weft_symbol_get_name(Handle)); return s.Count == 0 ? null : s[0]; }
  }

  /// <summary>Attribute key, or null when absent.</summary>
  public string GetAttr(string key) {
    var s = Take(weft_native.weft_symbol_get_attr(Handle, key));
    return s.Count == 0 ? null : s[0];
  }

  public void SetAttr(string key, string value) { weft_native.weft_symbol_set_attr(Handle, key, value); }

  public IDictionary<string, string> ListAttr(bool recursive) {
    long[] k = new long[1], v = new long[1];
    weft_native.weft_symbol_list_attr(Handle, recursive ? 1 : 0, k, v);
    var keys = Take(k[0]);
    var vals = Take(v[0]);
    var d = new SortedDictionary<string, string>(StringComparer.Ordinal);
    for (int i = 0; i < keys.Count; ++i) d[keys[i]] = vals[i];
    return d;
  }

  public string ToJson() { return Take(weft_native.weft_symbol_to_json(Handle))[0]; }

  public void Save(string path) { weft_native.weft_symbol_save_file(Handle, path); }

  public static Symbol FromJson(string json) {
    Native.EnsureLoaded();
    return new Symbol(weft_native.weft_symbol_from_json(json));
  }

  public static Symbol Load(string path) {
    Native.EnsureLoaded();
    return new Symbol(weft_native.weft_symbol_from_json_file(path));
  }

  /// <summary>Infers every shape; throws (Shape) unless all are known. Extent 0 = unknown.</summary>
  public ShapeResult InferShape(IDictionary<string, long[]> known) { return InferShape(known, false); }

  public ShapeResult InferShapePartial(IDictionary<string, long[]> known) { return InferShape(known, true); }

  ShapeResult InferShape(IDictionary<string, long[]> known, bool partial) {
    var (names, indPtr, dims) = Csr(known);
    return ShapeResult.Take(partial
        ? weft_native.weft_symbol_infer_shape_partial(Handle, (ulong)names.Length, names, indPtr, dims)
        : weft_native.weft_symbol_infer_shape(Handle, (ulong)names.Length, names, indPtr, dims));
  }

  /// <summary>MXNet's print_summary table for these input shapes (layers, output shapes,
  /// parameters, previous layers, FLOPs, activation bytes, totals).</summary>
  public string Summary(IDictionary<string, long[]> shapes) {
    var (names, indPtr, dims) = Csr(shapes);
    return Take(weft_native.weft_symbol_summary(Handle, (ulong)names.Length, names, indPtr, dims))[0];
  }

  /// <summary>A Graphviz DOT picture (MXNet's plot_network); options: title, hide_weights,
  /// shapes, memory ("1"/"0") and node_attr.NAME.</summary>
  public string ToDot(IDictionary<string, long[]> shapes, IDictionary<string, string> options) {
    var (names, indPtr, dims) = Csr(shapes);
    var keys = options.Keys.ToArray();
    var values = keys.Select(k => options[k]).ToArray();
    return Take(weft_native.weft_symbol_to_dot(Handle, (ulong)names.Length, names, indPtr, dims,
                                               (ulong)keys.Length, keys, values))[0];
  }

  // Named shapes in the C ABI's CSR form.
  static (string[], ulong[], long[]) Csr(IDictionary<string, long[]> shapes) {
    var names = new string[shapes.Count];
    var indPtr = new ulong[shapes.Count + 1];
    var dims = new List<long>();
    int i = 0;
    foreach (var kv in shapes) {
      names[i] = kv.Key;
      dims.AddRange(kv.Value);
      indPtr[++i] = (ulong)dims.Count;
    }
    return (names, indPtr, dims.ToArray());
  }

  public TypeResult InferType(IDictionary<string, DType> known) { return InferType(known, false); }

  public TypeResult InferTypePartial(IDictionary<string, DType> known) { return InferType(known, true); }

  TypeResult InferType(IDictionary<string, DType> known, bool partial) {
    var names = new string[known.Count];
    var codes = new int[known.Count];
    int i = 0;
    foreach (var kv in known) {
      names[i] = kv.Key;
      codes[i++] = (int)kv.Value;
    }
    return TypeResult.Take(partial
        ? weft_native.weft_symbol_infer_type_partial(Handle, (ulong)names.Length, names, codes)
        : weft_native.weft_symbol_infer_type(Handle, (ulong)names.Length, names, codes));
  }

  /// <summary>Reads and frees a WeftStringList.</summary>
  internal static IList<string> Take(long raw) {
    var list = new WeftHandle(raw, Frees.StringList);
    try {
      var n = (ulong)weft_native.weft_string_list_size(list);
      var r = new List<string>((int)n);
      var s = new IntPtr[1];
      for (ulong i = 0; i < n; ++i) {
        weft_native.weft_string_list_get(list, i, s);
        r.Add(Library.Str(s[0]));
      }
      return r;
    } finally {
      list.Dispose();
    }
  }
}

/// <summary>
/// What inference gives (a plain copy): per group (arguments, outputs,
/// auxiliary states) each entry's value by name, and the names of the entries
/// left unknown.
/// </summary>
public abstract class InferResult<V> {
  public bool Complete;
  public IDictionary<string, V> Arguments = new Dictionary<string, V>();
  public IDictionary<string, V> Outputs = new Dictionary<string, V>();
  public IDictionary<string, V> AuxiliaryStates = new Dictionary<string, V>();
  public IList<string> Unknown = new List<string>();

  /// <summary>The raw functions of one result kind (weft_shape_result_* or weft_type_result_*).</summary>
  internal sealed class Raw {
    internal Action<WeftHandle> Free;
    internal Func<WeftHandle, long> Complete, NumUnknown;
    internal Func<WeftHandle, int, long> Count;
    internal Func<WeftHandle, int, ulong, IntPtr[], long> Name;
    internal Func<WeftHandle, int, ulong, V> Value;
    internal Func<WeftHandle, ulong, IntPtr[], long> UnknownName;
  }

  /// <summary>Reads and frees the result handle raw into this.</summary>
  internal void Take(long raw, Raw f) {
    using (var res = new WeftHandle(raw, f.Free)) {
      Complete = f.Complete(res) != 0;
      var groups = new[] { Arguments, Outputs, AuxiliaryStates };
      var name = new IntPtr[1];
      for (int g = 0; g < 3; ++g) {
        var n = (ulong)f.Count(res, g);
        for (ulong i = 0; i < n; ++i) {
          f.Name(res, g, i, name);
          groups[g][Library.Str(name[0])] = f.Value(res, g, i);
        }
      }
      var nu = (ulong)f.NumUnknown(res);
      for (ulong i = 0; i < nu; ++i) {
        f.UnknownName(res, i, name);
        Unknown.Add(Library.Str(name[0]));
      }
    }
  }
}

/// <summary>Shapes inferred for a symbol. Null = unknown rank; extent 0 = unknown.</summary>
public sealed class ShapeResult : InferResult<long[]> {
  static readonly Raw Functions = new Raw {
    Free = Frees.ShapeResult, Complete = weft_native.weft_shape_result_complete,
    Count = weft_native.weft_shape_result_count, Name = weft_native.weft_shape_result_name,
    NumUnknown = weft_native.weft_shape_result_num_unknown,
    UnknownName = weft_native.weft_shape_result_unknown_name,
    Value = (res, g, i) => {
      var nd = weft_native.weft_shape_result_ndim(res, g, i);
      if (nd < 0) return null;
      var dims = new long[nd];
      weft_native.weft_shape_result_dims(res, g, i, dims, (ulong)dims.Length);
      return dims;
    }
  };

  internal static ShapeResult Take(long raw) {
    var r = new ShapeResult();
    r.Take(raw, Functions);
    return r;
  }
}

/// <summary>Element types inferred for a symbol; null = unknown.</summary>
public sealed class TypeResult : InferResult<DType?> {
  static readonly Raw Functions = new Raw {
    Free = Frees.TypeResult, Complete = weft_native.weft_type_result_complete,
    Count = weft_native.weft_type_result_count, Name = weft_native.weft_type_result_name,
    NumUnknown = weft_native.weft_type_result_num_unknown,
    UnknownName = weft_native.weft_type_result_unknown_name,
    Value = (res, g, i) => {
      var dt = weft_native.weft_type_result_dtype(res, g, i);
      return dt < 0 ? (DType?)null : (DType)dt;
    }
  };

  internal static TypeResult Take(long raw) {
    var r = new TypeResult();
    r.Take(raw, Functions);
    return r;
  }
}

}
