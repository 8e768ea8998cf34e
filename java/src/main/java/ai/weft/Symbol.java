package ai.weft;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A symbolic graph (MXNet semantics): a list of output entries. Owned handle;
 * close it (symbols made from it share nodes and stay valid). A symbol is not
 * synchronised: compose() and setAttr() must not run concurrently with other
 * calls on symbols sharing its nodes.
 */
public final class Symbol extends NativeHandle {
  Symbol(long handle) {
    super(handle);
  }

  @Override
  void free(long h) {
    weft_native.weft_symbol_free(h);
  }

  private static long[] slot() {
    return new long[1];
  }

  /** A variable named {@code name}. */
  public static Symbol variable(String name) {
    Native.ensureLoaded();
    return new Symbol(weft_native.weft_symbol_create_variable(name));
  }

  /** An uncomposed application of {@code op}; compose it next. */
  public static Symbol atomic(String op, Map<String, ?> params) {
    Native.ensureLoaded();
    String[][] kv = Ops.params(params);
    return new Symbol(weft_native.weft_symbol_create_atomic(op, kv[0], kv[1], kv[0].length));
  }

  /** {@code op(params)(inputs...)} named {@code name} (null: automatic), inputs positional. */
  public static Symbol create(String op, String name, Map<String, ?> params, Symbol... inputs) {
    Symbol s = atomic(op, params);
    try {
      s.compose(name, inputs);
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
  }

  /** {@code op(params)(name=input...)} with inputs by name. */
  public static Symbol create(String op, String name, Map<String, ?> params,
      Map<String, Symbol> inputs) {
    Symbol s = atomic(op, params);
    try {
      s.compose(name, inputs);
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
  }

  /** Composes in place with positional arguments. */
  public void compose(String name, Symbol... args) {
    long[] hs = handles(args);
    weft_native.weft_symbol_compose(handle(), name, hs.length, null, hs);
  }

  /** Composes in place with arguments by input/variable name. */
  public void compose(String name, Map<String, Symbol> args) {
    String[] keys = new String[args.size()];
    long[] hs = new long[args.size()];
    int i = 0;
    for (Map.Entry<String, Symbol> e : args.entrySet()) {
      keys[i] = e.getKey();
      hs[i] = e.getValue().handle();
      ++i;
    }
    weft_native.weft_symbol_compose(handle(), name, hs.length, keys, hs);
  }

  /** The outputs of {@code symbols}, in order. */
  public static Symbol group(Symbol... symbols) {
    Native.ensureLoaded();
    long[] hs = handles(symbols);
    return new Symbol(weft_native.weft_symbol_group(hs, hs.length));
  }

  /** A deep copy. */
  public Symbol copy() {
    return new Symbol(weft_native.weft_symbol_copy(handle()));
  }

  public int numOutputs() {
    return (int) weft_native.weft_symbol_num_outputs(handle());
  }

  /** Output {@code index} alone. */
  public Symbol get(int index) {
    return new Symbol(weft_native.weft_symbol_get_output(handle(), index));
  }

  /** Every output of every node, in topological order. */
  public Symbol internals() {
    return new Symbol(weft_native.weft_symbol_get_internals(handle()));
  }

  /** The inputs of the output nodes. */
  public Symbol children() {
    return new Symbol(weft_native.weft_symbol_get_children(handle()));
  }

  public List<String> listArguments() {
    return Strings.take(weft_native.weft_symbol_list_arguments(handle()));
  }

  public List<String> listOutputs() {
    return Strings.take(weft_native.weft_symbol_list_outputs(handle()));
  }

  public List<String> listAuxiliaryStates() {
    return Strings.take(weft_native.weft_symbol_list_auxiliary_states(handle()));
  }

  public List<String> listInputs() {
    return Strings.take(weft_native.weft_symbol_list_inputs(handle()));
  }

  /** The node name, or null for a grouped symbol. */
  public String name() {
    List<String> s = Strings.take(weft_native.weft_symbol_get_name(handle()));
    return s.isEmpty() ? null : s.get(0);
  }

  /** Attribute {@code key}, or null when absent. */
  public String attr(String key) {
    List<String> s = Strings.take(weft_native.weft_symbol_get_attr(handle(), key));
    return s.isEmpty() ? null : s.get(0);
  }

  public void setAttr(String key, String value) {
    weft_native.weft_symbol_set_attr(handle(), key, value);
  }

  /** Attributes (recursive: every node's, keyed "node$key"), sorted by key. */
  public Map<String, String> listAttr(boolean recursive) {
    long[] keys = slot();
    long[] vals = slot();
    weft_native.weft_symbol_list_attr(handle(), recursive ? 1 : 0, keys, vals);
    List<String> k = Strings.take(keys[0]);
    List<String> v = Strings.take(vals[0]);
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < k.size(); ++i) m.put(k.get(i), v.get(i));
    return m;
  }

  /** The MXNet 1.x JSON. */
  public String toJson() {
    return Strings.take(weft_native.weft_symbol_to_json(handle())).get(0);
  }

  public void save(Path path) {
    weft_native.weft_symbol_save_file(handle(), path.toString());
  }

  public static Symbol fromJson(String json) {
    Native.ensureLoaded();
    return new Symbol(weft_native.weft_symbol_from_json(json));
  }

  public static Symbol load(Path path) {
    Native.ensureLoaded();
    return new Symbol(weft_native.weft_symbol_from_json_file(path.toString()));
  }

  /** Infers every shape; fails (SHAPE) unless all are known. Extent 0 = unknown. */
  public ShapeResult inferShape(Map<String, long[]> known) {
    return inferShape(known, false);
  }

  /** As inferShape but never fails for missing information. */
  public ShapeResult inferShapePartial(Map<String, long[]> known) {
    return inferShape(known, true);
  }

  private ShapeResult inferShape(Map<String, long[]> known, boolean partial) {
    Csr c = new Csr(known);
    return ShapeResult.take(partial
        ? weft_native.weft_symbol_infer_shape_partial(handle(), c.n, c.names, c.indPtr, c.dims)
        : weft_native.weft_symbol_infer_shape(handle(), c.n, c.names, c.indPtr, c.dims));
  }

  /**
   * MXNet's print_summary table for these input shapes: per layer its output
   * shape, parameters, previous layers, FLOPs and activation bytes, then totals.
   */
  public String summary(Map<String, long[]> shapes) {
    Csr c = new Csr(shapes);
    return Strings.take(
        weft_native.weft_symbol_summary(handle(), c.n, c.names, c.indPtr, c.dims)).get(0);
  }

  /**
   * A Graphviz DOT picture (MXNet's plot_network); options: title, hide_weights,
   * shapes, memory ("1"/"0") and node_attr.NAME.
   */
  public String toDot(Map<String, long[]> shapes, Map<String, String> options) {
    Csr c = new Csr(shapes);
    String[] keys = options.keySet().toArray(new String[0]);
    String[] values = new String[keys.length];
    for (int i = 0; i < keys.length; ++i) values[i] = options.get(keys[i]);
    return Strings.take(weft_native.weft_symbol_to_dot(handle(), c.n, c.names, c.indPtr, c.dims,
        keys.length, keys, values)).get(0);
  }

  /** Named shapes in the C ABI's CSR form. */
  private static final class Csr {
    final int n;
    final String[] names;
    final long[] indPtr;
    final long[] dims;

    Csr(Map<String, long[]> shapes) {
      n = shapes.size();
      names = new String[n];
      indPtr = new long[n + 1];
      List<Long> all = new ArrayList<>();
      int i = 0;
      for (Map.Entry<String, long[]> e : shapes.entrySet()) {
        names[i] = e.getKey();
        for (long d : e.getValue()) all.add(d);
        indPtr[++i] = all.size();
      }
      dims = new long[all.size()];
      for (int j = 0; j < dims.length; ++j) dims[j] = all.get(j);
    }
  }

  /** Infers every element type; fails (DTYPE) unless all are known. */
  public TypeResult inferType(Map<String, DType> known) {
    return inferType(known, false);
  }

  public TypeResult inferTypePartial(Map<String, DType> known) {
    return inferType(known, true);
  }

  private TypeResult inferType(Map<String, DType> known, boolean partial) {
    int n = known.size();
    String[] names = new String[n];
    int[] codes = new int[n];
    int i = 0;
    for (Map.Entry<String, DType> e : known.entrySet()) {
      names[i] = e.getKey();
      codes[i++] = e.getValue().code();
    }
    return TypeResult.take(partial
        ? weft_native.weft_symbol_infer_type_partial(handle(), n, names, codes)
        : weft_native.weft_symbol_infer_type(handle(), n, names, codes));
  }
}
