package ai.weft;

import java.util.Map;

/**
 * What {@link Module#fit(DataIter, DataIter, Metric, int, int, Module.Progress, String,
 * FitListener)} calls, on the thread that called fit, between two training steps: after every
 * training batch and after every epoch. Returning false stops training (MXNet's early stop):
 * after a batch, that epoch closes at once (updates waited for, no validation, no checkpoint);
 * after an epoch, later epochs are skipped. A listener must not use the module or the iterators.
 */
public interface FitListener {
  /** After each training batch; false stops training. */
  default boolean batchEnd(BatchEnd info) {
    return true;
  }

  /** After each epoch (a stopped one too); false skips the later epochs. */
  default boolean epochEnd(EpochEnd info) {
    return true;
  }

  /** A training batch that ran. */
  final class BatchEnd {
    /** 0-based epoch. */
    public final int epoch;
    /** 1-based batch within the epoch. */
    public final long batch;
    /** Batches per epoch (-1 when the iterator does not know). */
    public final long numBatches;
    /** Samples trained so far this epoch (padding excluded). */
    public final long samples;
    /** Seconds since the epoch started. */
    public final double seconds;
    /** The training metric over the epoch's batches so far. */
    public final Map<String, Double> metric;

    BatchEnd(int epoch, long batch, long numBatches, long samples, double seconds,
        Map<String, Double> metric) {
      this.epoch = epoch;
      this.batch = batch;
      this.numBatches = numBatches;
      this.samples = samples;
      this.seconds = seconds;
      this.metric = metric;
    }
  }

  /** A closed epoch. */
  final class EpochEnd {
    public final int epoch;
    public final long batches;
    public final long samples;
    /** Training seconds. */
    public final double seconds;
    public final double samplesPerSec;
    /** Whether a listener stopped training during this epoch. */
    public final boolean stopped;
    public final Map<String, Double> trainMetric;
    /** Empty without a validation iterator, or when stopped. */
    public final Map<String, Double> validationMetric;

    EpochEnd(int epoch, long batches, long samples, double seconds, double samplesPerSec,
        boolean stopped, Map<String, Double> trainMetric, Map<String, Double> validationMetric) {
      this.epoch = epoch;
      this.batches = batches;
      this.samples = samples;
      this.seconds = seconds;
      this.samplesPerSec = samplesPerSec;
      this.stopped = stopped;
      this.trainMetric = trainMetric;
      this.validationMetric = validationMetric;
    }
  }
}
