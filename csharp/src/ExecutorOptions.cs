using System;

namespace Weft {

/// <summary>
/// Binding options for Executor.SimpleBind(sym, options, ctx, shapes) and
/// Executor.Bind(sym, options, ctx, ...) (owned handle, the C ABI's
/// WeftExecutorOptions; Dispose it). A new object holds the library's
/// defaults; each setter validates its value (a bad one throws WeftException
/// InvalidArgument naming it and changes nothing) and returns this, so calls
/// chain: <c>new ExecutorOptions().MatchRange(0).GradReq("w", GradReq.Write)</c>.
/// A bind reads the options and keeps no reference to them (reusing them for
/// several binds is fine). Calls on one object are serialised by the library.
/// </summary>
public sealed class ExecutorOptions : NativeHandle {
  /// <summary>New options holding the defaults.</summary>
  public ExecutorOptions() : base(Create(), Frees.ExecutorOptions) {}

  static long Create() {
    Native.EnsureLoaded();
    return weft_native.weft_executor_options_create();
  }

  /// <summary>The memory planner's match range (default 16; 0 searches for the best; must be &gt;= 0).</summary>
  public ExecutorOptions MatchRange(int matchRange) {
    weft_native.weft_executor_options_set_match_range(Handle, matchRange);
    return this;
  }

  /// <summary>Colouring groups of the memory plan (default 1; must be &gt;= 1): more groups let
  /// independent branches run at once but reuse less memory.</summary>
  public ExecutorOptions NumGroups(int numGroups) {
    weft_native.weft_executor_options_set_num_groups(Handle, numGroups);
    return this;
  }

  /// <summary>Bulk execution: runs of at most maxNodes consecutive dependent nodes are pushed as
  /// one engine operation; 0 or 1: one per node; negative (the default): WEFT_EXEC_BULK_MAX_NODES
  /// from the environment, else 64.</summary>
  public ExecutorOptions BulkMaxNodes(int maxNodes) {
    weft_native.weft_executor_options_set_bulk_max_nodes(Handle, maxNodes);
    return this;
  }

  /// <summary>Inference passes and constant folding for executors without gradients or device
  /// groups (default true).</summary>
  public ExecutorOptions OptimizeInference(bool enable) {
    weft_native.weft_executor_options_set_optimize_inference(Handle, enable ? 1 : 0);
    return this;
  }

  /// <summary>CPU fallback (default true): a node whose operator has no kernel on the bind device
  /// runs on cpu(0) with copies around it; false makes such a node fail the bind with
  /// ErrorCode.NotImplemented naming it.</summary>
  public ExecutorOptions AllowFallback(bool enable) {
    weft_native.weft_executor_options_set_allow_fallback(Handle, enable ? 1 : 0);
    return this;
  }

  /// <summary>Places the device group (a node's "ctx_group" attribute) on ctx, as the group2ctx
  /// argument of Executor does. A group added twice throws InvalidArgument; a bad or unavailable
  /// device throws ErrorCode.Device.</summary>
  public ExecutorOptions Group(string group, Context ctx) {
    if (group == null) throw new WeftException(ErrorCode.InvalidArgument, "ExecutorOptions.Group: group is null");
    weft_native.weft_executor_options_add_group(Handle, group, (int)ctx.Type, ctx.Id);
    return this;
  }

  /// <summary>
  /// The gradient request of argument arg for SimpleBind. Once any argument is named, arguments
  /// not named get none (GradReq.Null); without any, every argument gets Write except those whose
  /// names end in "data" or "label". Setting an argument again replaces its request. A name that
  /// is not an argument of the symbol makes SimpleBind fail naming it; Bind takes its requests per
  /// argument instead and fails with InvalidArgument when any is set here.
  /// </summary>
  public ExecutorOptions GradReq(string arg, Weft.GradReq req) {
    weft_native.weft_executor_options_set_grad_req(Handle, arg, (int)req);
    return this;
  }

  /// <summary>As GradReq(arg, req) with req "null", "write" (or "inplace") or "add".</summary>
  public ExecutorOptions GradReq(string arg, string req) {
    switch (req) {
      case "null": return GradReq(arg, Weft.GradReq.Null);
      case "write":
      case "inplace": return GradReq(arg, Weft.GradReq.Write);
      case "add": return GradReq(arg, Weft.GradReq.Add);
    }
    throw new WeftException(ErrorCode.InvalidArgument, string.Format(
        "grad_req '{0}' is not one of null, write, add, inplace", req));
  }
}

}
