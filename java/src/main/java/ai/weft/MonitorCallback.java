package ai.weft;

/**
 * A monitor callback (MXNet's {@code MXExecutorSetMonitorCallbackEX}): called once per node
 * output (and, with {@code monitorAll}, once per input before the node) while an executor,
 * predictor or cached op runs, on the thread that called {@code forward}, {@code backward},
 * {@code predict} or {@code invoke}.
 *
 * <p>{@code value} is a copy of the entry taken before anything overwrote it, borrowed for the
 * call: read it ({@link NDArray#monitorStat()}, {@link NDArray#getFloats()}, ...) and copy out
 * what you keep; it is detached when the callback returns. An exception
 * thrown here fails the monitored call with INVALID_ARGUMENT naming the entry and the
 * exception; it never crosses into native code. The callback must not use the executor,
 * predictor or cached op it monitors.
 */
@FunctionalInterface
public interface MonitorCallback {
  void accept(String name, NDArray value) throws Exception;
}
