package ai.weft;

/**
 * Binding options for {@link Executor#simpleBind(Symbol, ExecutorOptions, Context, java.util.Map,
 * java.util.Map)} and {@link Executor#bind(Symbol, ExecutorOptions, Context, java.util.List,
 * java.util.List, java.util.List, java.util.List)} (owned handle; the C ABI's
 * WeftExecutorOptions). A new object holds the library's defaults; each
 * setter validates its value (a bad one throws WeftException INVALID_ARGUMENT
 * naming it and changes nothing) and returns this, so calls chain:
 *
 * <pre>{@code
 * try (ExecutorOptions o = new ExecutorOptions().matchRange(0).gradReq("w", "write");
 *     Executor ex = Executor.simpleBind(sym, o, Context.cpu(), shapes, null)) { ... }
 * }</pre>
 *
 * A bind reads the options and keeps no reference to them: close them when
 * done (reusing them for several binds is fine). Threads: calls on one object
 * are serialised by the library.
 */
public final class ExecutorOptions extends NativeHandle {
  /** New options holding the defaults. */
  public ExecutorOptions() {
    super(create());
  }

  private static long create() {
    Native.ensureLoaded();
    return weft_native.weft_executor_options_create();
  }

  @Override
  void free(long h) {
    weft_native.weft_executor_options_free(h);
  }

  /** The memory planner's match range (default 16; 0 searches for the best; must be >= 0). */
  public ExecutorOptions matchRange(int matchRange) {
    weft_native.weft_executor_options_set_match_range(handle(), matchRange);
    return this;
  }

  /**
   * Colouring groups of the memory plan (default 1; must be >= 1): more groups
   * let independent branches run at once but reuse less memory.
   */
  public ExecutorOptions numGroups(int numGroups) {
    weft_native.weft_executor_options_set_num_groups(handle(), numGroups);
    return this;
  }

  /**
   * Bulk execution: runs of at most {@code maxNodes} consecutive dependent
   * nodes are pushed as one engine operation; 0 or 1: one per node; negative
   * (the default): WEFT_EXEC_BULK_MAX_NODES from the environment, else 64.
   */
  public ExecutorOptions bulkMaxNodes(int maxNodes) {
    weft_native.weft_executor_options_set_bulk_max_nodes(handle(), maxNodes);
    return this;
  }

  /**
   * Inference passes and constant folding for executors without gradients or
   * device groups (default true).
   */
  public ExecutorOptions optimizeInference(boolean enable) {
    weft_native.weft_executor_options_set_optimize_inference(handle(), enable ? 1 : 0);
    return this;
  }

  /**
   * CPU fallback (default true): a node whose operator has no kernel on the
   * bind device runs on cpu(0) with copies around it; false makes such a node
   * fail the bind with NOT_IMPLEMENTED naming it.
   */
  public ExecutorOptions allowFallback(boolean enable) {
    weft_native.weft_executor_options_set_allow_fallback(handle(), enable ? 1 : 0);
    return this;
  }

  /**
   * Places the device group {@code group} (a node's "ctx_group" attribute) on
   * {@code ctx}, as the group2ctx overloads of Executor do. A group added twice
   * throws INVALID_ARGUMENT; a bad or unavailable device throws DEVICE.
   */
  public ExecutorOptions group(String group, Context ctx) {
    if (group == null || ctx == null) {
      throw new WeftException(ErrorCode.INVALID_ARGUMENT,
          "ExecutorOptions.group: " + (group == null ? "group" : "ctx") + " is null");
    }
    weft_native.weft_executor_options_add_group(handle(), group, ctx.typeCode(), ctx.id());
    return this;
  }

  /**
   * The gradient request of argument {@code arg} for simpleBind: "null",
   * "write" (or "inplace") or "add". Once any argument is named, arguments not
   * named get no gradient; without any, every argument gets "write" except
   * those whose names end in "data" or "label". Setting an argument again
   * replaces its request. A name that is not an argument of the symbol makes
   * simpleBind fail naming it; bind takes its requests per argument instead
   * and fails with INVALID_ARGUMENT when any is set here.
   */
  public ExecutorOptions gradReq(String arg, String req) {
    return gradReq(arg, parseGradReq(req));
  }

  /** As {@link #gradReq(String, String)} with the request as an enum. */
  public ExecutorOptions gradReq(String arg, Executor.GradReq req) {
    if (req == null) {
      throw new WeftException(ErrorCode.INVALID_ARGUMENT,
          "ExecutorOptions.gradReq: the request for '" + arg + "' is null");
    }
    weft_native.weft_executor_options_set_grad_req(handle(), arg, req.code);
    return this;
  }

  private static Executor.GradReq parseGradReq(String req) {
    if (req != null) {
      switch (req) {
        case "null": return Executor.GradReq.NULL;
        case "write":
        case "inplace": return Executor.GradReq.WRITE;
        case "add": return Executor.GradReq.ADD;
        default: break;
      }
    }
    throw new WeftException(ErrorCode.INVALID_ARGUMENT,
        "grad_req '" + req + "' is not one of null, write, add, inplace");
  }

  /** The raw handle, or 0 (the defaults) for null options. */
  static long handleOf(ExecutorOptions options) {
    return options == null ? 0 : options.handle();
  }
}
