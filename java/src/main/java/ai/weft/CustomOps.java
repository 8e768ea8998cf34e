package ai.weft;

import ai.weft.Executor.GradReq;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Custom operators written in Java (MXNet's {@code Custom}): a type registered by name serves
 * every node {@code "op": "Custom", "op_type": name} of symbols, executors, modules and autograd,
 * process-wide.
 *
 * <p>Threads: prop callbacks run on the thread that builds, infers or binds; {@code forward} and
 * {@code backward} on Weft's engine worker threads. The native trampoline attaches such a thread
 * to the JVM (as a daemon) at its first callback and detaches it when the thread exits. What a
 * callback may call: see {@link CustomOp}.
 */
public final class CustomOps {
  private CustomOps() {}

  private static final AtomicLong NEXT_ID = new AtomicLong(1);
  /** Registrations, props and operators the library holds, by id (released by its DELETE calls). */
  private static final Map<Long, Object> OBJECTS = new ConcurrentHashMap<>();

  /** A registered type; {@link #close()} unregisters it. */
  public static final class Registration implements AutoCloseable {
    private final String opType;

    private Registration(String opType) {
      this.opType = opType;
    }

    public String opType() {
      return opType;
    }

    /** Unregisters the type (refused with INVALID_ARGUMENT while a node of it lives). */
    @Override
    public void close() {
      unregister(opType);
    }
  }

  /**
   * Registers {@code opType}: {@code creator} makes the prop of each node from its attributes
   * (every attribute of the node but {@code op_type}, as strings). A taken name fails.
   */
  public static Registration register(String opType,
      Function<Map<String, String>, CustomOpProp> creator) {
    Native.ensureLoaded();
    long id = NEXT_ID.getAndIncrement();
    OBJECTS.put(id, creator);
    weft_native.weft_custom_op_register_host(opType, id);  // on failure DELETE_TYPE drops it
    return new Registration(opType);
  }

  /** Unregisters {@code opType}: NOT_FOUND when unknown, INVALID_ARGUMENT while in use. */
  public static void unregister(String opType) {
    Native.ensureLoaded();
    weft_native.weft_custom_op_unregister(opType);
  }

  /** The registered custom operator types (of every language), sorted. */
  public static List<String> list() {
    Native.ensureLoaded();
    return Strings.take(weft_native.weft_custom_op_list());
  }

  /** Registrations, props and operators alive (for leak checks; 0 once all are released). */
  public static int liveObjects() {
    return OBJECTS.size();
  }

  /** The trampoline's target (bindings/weft.i): one callback from the library. */
  static void dispatch(int kind, long id, long call) {
    try {
      dispatchOrThrow(kind, id, new CustomOpCall(call));
    } catch (Throwable t) {
      try {
        weft_native.weft_custom_op_call_fail(call, describe(t));
      } catch (Throwable ignored) {
        // the trampoline reports a failure it sees pending
      }
    }
  }

  private static String describe(Throwable t) {
    String m = t.getMessage();
    return t.getClass().getName() + (m == null ? "" : ": " + m);
  }

  @SuppressWarnings("unchecked")
  private static void dispatchOrThrow(int kind, long id, CustomOpCall c) {
    switch (kind) {
      case WeftCustomOpCallKind.WEFT_CUSTOM_CALL_CREATE_PROP: {
        List<String> s = c.strings();
        Map<String, String> attrs = new LinkedHashMap<>();
        for (int i = 1; i + 1 < s.size(); i += 2) attrs.put(s.get(i), s.get(i + 1));
        CustomOpProp prop = ((Function<Map<String, String>, CustomOpProp>) OBJECTS.get(id))
            .apply(attrs);
        if (prop == null) throw new IllegalStateException("the creator returned null");
        c.setInts(put(prop));
        return;
      }
      case WeftCustomOpCallKind.WEFT_CUSTOM_CALL_LIST_ARGUMENTS:
        c.addStrings(prop(id).listArguments());
        return;
      case WeftCustomOpCallKind.WEFT_CUSTOM_CALL_LIST_OUTPUTS:
        c.addStrings(prop(id).listOutputs());
        return;
      case WeftCustomOpCallKind.WEFT_CUSTOM_CALL_LIST_AUXILIARY_STATES:
        c.addStrings(prop(id).listAuxiliaryStates());
        return;
      case WeftCustomOpCallKind.WEFT_CUSTOM_CALL_INFER_SHAPE:
        c.inferShape(prop(id));
        return;
      case WeftCustomOpCallKind.WEFT_CUSTOM_CALL_INFER_TYPE:
        c.inferType(prop(id));
        return;
      case WeftCustomOpCallKind.WEFT_CUSTOM_CALL_BACKWARD_DEPENDENCY:
        c.backwardDependency(prop(id));
        return;
      case WeftCustomOpCallKind.WEFT_CUSTOM_CALL_CREATE_OPERATOR: {
        CustomOp op = c.createOperator(prop(id));
        if (op == null) throw new IllegalStateException("createOperator returned null");
        c.setInts(put(op));
        return;
      }
      case WeftCustomOpCallKind.WEFT_CUSTOM_CALL_FORWARD:
        c.forward((CustomOp) OBJECTS.get(id));
        return;
      case WeftCustomOpCallKind.WEFT_CUSTOM_CALL_BACKWARD:
        c.backward((CustomOp) OBJECTS.get(id));
        return;
      default:  // the DELETE kinds
        OBJECTS.remove(id);
    }
  }

  private static long put(Object o) {
    long id = NEXT_ID.getAndIncrement();
    OBJECTS.put(id, o);
    return id;
  }

  private static CustomOpProp prop(long id) {
    return (CustomOpProp) OBJECTS.get(id);
  }

  static GradReq[] reqs(long[] ints, int from, int n) {
    GradReq[] r = new GradReq[n];
    for (int i = 0; i < n; ++i) {
      int code = (int) ints[from + i];
      r[i] = code == GradReq.ADD.code ? GradReq.ADD
          : code == GradReq.NULL.code ? GradReq.NULL : GradReq.WRITE;
    }
    return r;
  }

  static Context parseContext(String s) {
    int open = s.indexOf('(');
    String type = s.substring(0, open).toUpperCase(java.util.Locale.ROOT);
    int devId = Integer.parseInt(s.substring(open + 1, s.length() - 1));
    return Context.of(Context.DeviceType.valueOf(type), devId);
  }

}
