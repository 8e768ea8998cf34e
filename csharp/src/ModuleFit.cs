using System;
using System.Collections.Generic;

namespace Weft {

/// <summary>A training batch that ran (what Module.Fit's onBatchEnd sees).</summary>
public sealed class BatchEnd {
  /// <summary>0-based epoch.</summary>
  public int Epoch { get; internal set; }
  /// <summary>1-based batch within the epoch.</summary>
  public long Batch { get; internal set; }
  /// <summary>Batches per epoch (-1 when the iterator does not know).</summary>
  public long NumBatches { get; internal set; }
  /// <summary>Samples trained so far this epoch (padding excluded).</summary>
  public long Samples { get; internal set; }
  /// <summary>Seconds since the epoch started.</summary>
  public double Seconds { get; internal set; }
  /// <summary>The training metric over the epoch's batches so far.</summary>
  public Dictionary<string, double> Metric { get; internal set; }
}

/// <summary>A closed epoch (what Module.Fit's onEpochEnd sees and returns).</summary>
public sealed class EpochEnd {
  public int Epoch { get; internal set; }
  public long Batches { get; internal set; }
  public long Samples { get; internal set; }
  /// <summary>Training seconds.</summary>
  public double Seconds { get; internal set; }
  public double SamplesPerSec { get; internal set; }
  /// <summary>Whether a callback stopped training during this epoch.</summary>
  public bool Stopped { get; internal set; }
  public Dictionary<string, double> TrainMetric { get; internal set; }
  /// <summary>Empty without a validation iterator, or when stopped.</summary>
  public Dictionary<string, double> ValidationMetric { get; internal set; }
}

public sealed partial class Module {
  /// <summary>
  /// Fit calling onBatchEnd after every training batch and onEpochEnd after every epoch (a
  /// stopped one too), both on this thread (either may be null); returning false stops training
  /// (MXNet's early stop): after a batch that epoch closes at once (no validation, no
  /// checkpoint), after an epoch the later epochs are skipped. The training loop is the
  /// library's (a fit session driven step by step here): nothing calls into the runtime from a
  /// native thread. Returns every closed epoch.
  /// </summary>
  public List<EpochEnd> Fit(DataIter train, DataIter eval, Metric metric, int beginEpoch, int numEpoch,
                            Func<BatchEnd, bool> onBatchEnd, Func<EpochEnd, bool> onEpochEnd,
                            Progress progress = Progress.Silent, string checkpointPrefix = null) {
    var epochs = new List<EpochEnd>();
    long raw = weft_native.weft_fit_session_create(Handle, train.Handle, WeftHandle.Of(eval), metric.Handle,
                                                   beginEpoch, numEpoch, (int)progress, checkpointPrefix);
    using (var s = new WeftHandle(raw, Frees.FitSession)) {
      for (;;) {
        long ev = weft_native.weft_fit_session_next(s);
        if (ev == weft_native.WEFT_FIT_DONE) break;
        if (ev == weft_native.WEFT_FIT_EPOCH_END) {
          var e = ReadEpoch(s, metric);
          epochs.Add(e);
          if (onEpochEnd != null && !onEpochEnd(e)) weft_native.weft_fit_session_stop(s);
          continue;
        }
        if (onBatchEnd == null || onBatchEnd(ReadBatch(s, metric))) continue;
        weft_native.weft_fit_session_stop(s);
        var stopped = ReadEpoch(s, metric);
        epochs.Add(stopped);
        if (onEpochEnd != null) onEpochEnd(stopped);
      }
    }
    GC.KeepAlive(train);
    GC.KeepAlive(eval);
    return epochs;
  }

  static BatchEnd ReadBatch(WeftHandle s, Metric metric) {
    var epoch = new int[1];
    long[] batch = new long[1], numBatches = new long[1], samples = new long[1];
    var seconds = new double[1];
    weft_native.weft_fit_session_batch(s, epoch, batch, numBatches, samples, seconds);
    return new BatchEnd { Epoch = epoch[0], Batch = batch[0], NumBatches = numBatches[0],
                          Samples = samples[0], Seconds = seconds[0], Metric = metric.Get() };
  }

  static EpochEnd ReadEpoch(WeftHandle s, Metric metric) {
    int[] epoch = new int[1], stopped = new int[1];
    long[] batches = new long[1], samples = new long[1];
    double[] seconds = new double[1], sps = new double[1];
    weft_native.weft_fit_session_epoch(s, epoch, batches, samples, seconds, sps, stopped);
    return new EpochEnd { Epoch = epoch[0], Batches = batches[0], Samples = samples[0], Seconds = seconds[0],
                          SamplesPerSec = sps[0], Stopped = stopped[0] != 0,
                          TrainMetric = EpochMetric(s, metric, 0), ValidationMetric = EpochMetric(s, metric, 1) };
  }

  static Dictionary<string, double> EpochMetric(WeftHandle s, Metric metric, int validation) {
    var names = new long[1];
    var vals = new double[(ulong)weft_native.weft_metric_num_values(metric.Handle)];
    var num = new ulong[1];
    weft_native.weft_fit_session_epoch_metric(s, validation, names, vals, (ulong)vals.Length, num);
    return Metric.Values(names[0], vals, num[0]);
  }
}

}
