package ai.weft;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Gluon export run as a block (Gluon's {@code SymbolBlock.imports}): the symbol, its parameters
 * from a {@code .params} file (names with or without MXNet's {@code arg:}/{@code aux:} prefixes)
 * and a {@link CachedOp} over them. {@link #forward} takes the data inputs; while the thread
 * records it is one node on the tape, so after {@link NDArray#attachGrad()} on {@link #params()}
 * a {@code backward} fills their gradients and a {@link Trainer} can train them. Owns the op and
 * the parameters; {@link #close} frees both.
 */
public final class SymbolBlock implements AutoCloseable {
  private final CachedOp op;
  private final Map<String, NDArray> params;
  private final List<String> inputs;
  private final List<String> dataNames;

  private SymbolBlock(CachedOp op, Map<String, NDArray> params, List<String> dataNames) {
    this.op = op;
    this.params = params;
    this.inputs = op.inputs();
    this.dataNames = dataNames;
  }

  /**
   * Loads {@code symbolFile} with data inputs {@code inputNames} and every other input from {@code
   * paramFile}. Throws {@link WeftException} naming a data input the symbol lacks, a parameter
   * the file lacks, or an array in the file the symbol does not use (as MXNet's load does).
   */
  public static SymbolBlock imports(Path symbolFile, List<String> inputNames, String paramFile) {
    Map<String, NDArray> loaded = NDArray.load(paramFile);
    Map<String, NDArray> params = new LinkedHashMap<>();
    for (Map.Entry<String, NDArray> e : loaded.entrySet())
      params.put(e.getKey().replaceFirst("^(arg|aux):", ""), e.getValue());
    try (Symbol sym = Symbol.load(symbolFile)) {
      List<String> all = sym.listInputs();
      List<Integer> data = new ArrayList<>();
      for (String name : inputNames) {
        if (!all.contains(name))
          throw new WeftException(
              ErrorCode.INVALID_ARGUMENT,
              "SymbolBlock.imports: data input '" + name + "' is not an input of the symbol "
                  + all);
        data.add(all.indexOf(name));
      }
      for (String name : all)
        if (!inputNames.contains(name) && !params.containsKey(name))
          throw new WeftException(
              ErrorCode.NOT_FOUND,
              "SymbolBlock.imports: parameter '" + name + "' is missing in file " + paramFile);
      for (String name : params.keySet())
        if (!all.contains(name))
          throw new WeftException(
              ErrorCode.INVALID_ARGUMENT,
              "SymbolBlock.imports: parameter '" + name + "' in file " + paramFile
                  + " is not used by the symbol");
      CachedOp op = CachedOp.create(sym, Map.of("data_indices", data.toString()));
      return new SymbolBlock(op, params, List.copyOf(inputNames));
    } catch (RuntimeException e) {
      for (NDArray a : loaded.values()) a.close();
      throw e;
    }
  }

  /** The parameters by name (owned by the block; Gluon's {@code collect_params()}). */
  public Map<String, NDArray> params() {
    return Collections.unmodifiableMap(params);
  }

  /** Runs the block on one array per data input, in {@code inputNames} order. */
  public NDArray[] forward(NDArray... data) {
    if (data.length != dataNames.size())
      throw new WeftException(
          ErrorCode.INVALID_ARGUMENT,
          "SymbolBlock.forward: expected " + dataNames.size() + " data input(s) " + dataNames
              + ", given " + data.length);
    NDArray[] in = new NDArray[inputs.size()];
    for (int i = 0; i < in.length; ++i) {
      int d = dataNames.indexOf(inputs.get(i));
      in[i] = d >= 0 ? data[d] : params.get(inputs.get(i));
    }
    return op.invoke(in);
  }

  @Override
  public void close() {
    op.close();
    for (NDArray a : params.values()) a.close();
  }
}
