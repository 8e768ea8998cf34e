// `weft train`: trains a symbol on an MNIST-format dataset (IDX files, as
// Debian's dataset-fashion-mnist installs them) or on RecordIO files (im2rec's
// .rec/.idx, read by ImageRecordIter; cli_train_data.cc) through the C ABI's
// module API, renders the progress (a bar or lines) from the module's
// batch-end callback, prints the test accuracy and throughput, and writes an
// MXNet checkpoint.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli_train.h"
#include "weft/c_api.h"

namespace weft_cli {
namespace {

using Init = Owned<WeftInitializer, weft_initializer_free>;
using Opt = Owned<WeftOptimizer, weft_optimizer_free>;
using MetricH = Owned<WeftMetric, weft_metric_free>;
using KV = Owned<WeftKVStore, weft_kvstore_free>;
using Mod = Owned<WeftModule, weft_module_free>;

// `--progress bar|lines` drawn from weft_module_fit_with_callback's batch-end
// callback: a carriage-return bar redrawn at most ten times a second (and at
// the last batch, which ends its line), or a line every 100 batches and
// after the last.
struct ProgressView {
  bool bar = false;
  double last_draw = -1;

  static int OnBatch(const WeftBatchEnd* b, void* self) {
    static_cast<ProgressView*>(self)->Draw(*b);
    return 0;
  }

  void Draw(const WeftBatchEnd& b) {
    const bool last = b.num_batches > 0 && b.batch >= b.num_batches;
    if (b.batch == 1) last_draw = -1;
    std::string metric;
    char value[32];
    for (size_t i = 0; i < b.num_metrics; ++i) {
      std::snprintf(value, sizeof value, "%.4f", b.metric_values[i]);
      metric += (i ? " " : "") + std::string(b.metric_names[i]) + "=" + value;
    }
    const double rate = b.seconds > 0 ? b.samples / b.seconds : 0;
    std::string total = b.num_batches > 0 ? "/" + std::to_string(b.num_batches) : "";
    if (!bar) {
      if (b.batch % 100 != 0 && !last) return;
      std::printf("Epoch[%d] Batch [%lld%s]  %.0f samples/s  %s\n", b.epoch,
                  static_cast<long long>(b.batch), total.c_str(), rate, metric.c_str());
    } else {
      if (!last && last_draw >= 0 && b.seconds - last_draw < 0.1) return;
      last_draw = b.seconds;
      std::string drawn;
      if (b.num_batches > 0) {
        const int width = 30, filled = static_cast<int>(width * b.batch / b.num_batches);
        drawn = "[" + std::string(filled, '=') +
                (filled < width ? ">" + std::string(width - filled - 1, ' ') : "") + "] ";
      }
      std::printf("\rEpoch %d %s%lld%s  %.0f samples/s  %s   %s", b.epoch, drawn.c_str(),
                  static_cast<long long>(b.batch), total.c_str(), rate, metric.c_str(),
                  last ? "\n" : "");
    }
    std::fflush(stdout);
  }
};

// The optimizer --optimizer names with --lr, --wd and (sgd) --momentum.
Opt MakeOptimizer(const TrainOptions& o, const std::string& lr) {
  std::vector<const char*> keys = {"learning_rate", "wd"}, vals = {lr.c_str(), o.wd.c_str()};
  if (o.optimizer == "sgd") {
    keys.push_back("momentum");
    vals.push_back(o.momentum.c_str());
  }
  Opt opt;
  Check(
      weft_optimizer_create(o.optimizer.c_str(), keys.data(), vals.data(), keys.size(), opt.out()),
      "train");
  return opt;
}

}  // namespace

int Train(const TrainOptions& o) {
  Sym sym;
  Check(weft_symbol_from_json_file(o.symbol.c_str(), sym.out()), "train");
  // With a kvstore under mpirun each rank trains on its part of the data;
  // rank 0 alone prints (and writes the checkpoints: the library's Fit).
  KV kv;
  int rank = 0, workers = 1;
  if (!o.kvstore.empty()) {
    Check(weft_kvstore_create(o.kvstore.c_str(), kv.out()), "train");
    Check(weft_kvstore_rank(kv.get(), &rank, &workers), "train");
  }
  TrainData data = OpenTrainData(o, rank, workers);
  WeftDataIter* train = data.train.get();

  const char* data_name = "data";
  const char* label_name = "softmax_label";
  Mod mod;
  Check(weft_module_create(sym.get(), 1, &data_name, 1, &label_name, WEFT_CPU, 0, mod.out()),
        "train");
  Check(weft_module_bind(mod.get(), train, 1), "train");
  Init init;
  Check(weft_initializer_create(o.init.c_str(), nullptr, nullptr, 0, o.seed, init.out()), "train");
  Check(weft_module_init_params(mod.get(), init.get(), nullptr, nullptr, 1), "train");

  const std::string lr = o.lr.empty() ? (o.optimizer == "adam" ? "0.001" : "0.05") : o.lr;
  Opt opt = MakeOptimizer(o, lr);
  if (kv.get())
    Check(weft_module_init_optimizer_kvstore(mod.get(), opt.get(), kv.get()), "train");
  else
    Check(weft_module_init_optimizer(mod.get(), opt.get()), "train");

  const bool lead = rank == 0;
  if (lead) {
    std::printf("training %s on %s: %s, batch %d, %d epoch(s), %s lr %s\n", o.symbol.c_str(),
                data.source.c_str(), data.count.c_str(), o.batch, o.epochs, o.optimizer.c_str(),
                lr.c_str());
    if (kv.get())
      std::printf("kvstore %s: %d worker(s), global batch %d, each reads 1/%d of the images\n",
                  o.kvstore.c_str(), workers, o.batch * workers, workers);
  }
  std::fflush(stdout);
  MetricH acc;
  Check(weft_metric_create("acc", nullptr, nullptr, 0, acc.out()), "train");
  double samples_per_sec = 0;
  // The library prints each epoch's summary (none with --progress none);
  // the bar and the lines are drawn here.
  ProgressView view;
  view.bar = o.progress == "bar" || (o.progress == "auto" && isatty(STDOUT_FILENO));
  const bool draw = lead && (o.progress == "bar" || o.progress == "lines" || o.progress == "auto");
  Check(weft_module_fit_with_callback(
            mod.get(), train, nullptr, acc.get(), 0, o.epochs,
            o.progress == "none" ? WEFT_PROGRESS_SILENT : WEFT_PROGRESS_EPOCH,
            o.save.empty() ? nullptr : o.save.c_str(), draw ? ProgressView::OnBatch : nullptr,
            &view, &samples_per_sec),
        "train");
  if (data.test.get()) {
    // Every rank scores; rank 0 prints.
    Check(weft_module_score(mod.get(), data.test.get(), acc.get()), "train");
    double value = 0;
    size_t num = 0;
    StrList names;
    Check(weft_metric_get(acc.get(), names.out(), &value, 1, &num), "train");
    if (lead) std::printf("test accuracy: %.4f (%s)\n", value, data.test_count.c_str());
  }
  if (!lead) return 0;
  std::printf("training throughput: %.0f images/s (last epoch)\n", samples_per_sec);
  if (!o.save.empty()) {
    char params[32];
    std::snprintf(params, sizeof params, "-%04d.params", o.epochs);
    std::printf("checkpoint: %s-symbol.json, %s%s\n", o.save.c_str(), o.save.c_str(), params);
  }
  return 0;
}

Runner DefineTrain(CLI::App* app) {
  auto o = std::make_shared<TrainOptions>();
  app->description(
      "trains a model on MNIST-format IDX files, or with --data on a RecordIO\n"
      "file (im2rec's .rec, with its .idx beside it for shuffling) read by\n"
      "ImageRecordIter: shuffled batches, SGD with\n"
      "momentum or Adam, Xavier init; prints progress, the test accuracy and\n"
      "images/s, and with --save writes PREFIX-symbol.json and\n"
      "PREFIX-<epoch>.params (MXNet's checkpoint) after each epoch. With\n"
      "--kvstore dist_sync under `mpirun -np N`, N processes train data-parallel\n"
      "(each on 1/N of the images, global batch N x --batch); rank 0 prints\n"
      "and saves.");
  app->add_option("--symbol", o->symbol, "the symbol to train")->type_name("S.json")->required();
  app->add_option("--data-dir", o->data_dir,
                  "the IDX files (default Debian's /usr/share/datasets/fashion-mnist)")
      ->type_name("DIR");
  app->add_option("--data", o->data,
                  "train on this RecordIO file (ImageRecordIter) instead of --data-dir")
      ->type_name("TRAIN.rec");
  app->add_option("--data-val", o->data_val, "with --data: the RecordIO file scored after training")
      ->type_name("VAL.rec");
  app->add_option("--data-shape", o->data_shape,
                  "with --data: ImageRecordIter's data_shape, channels (1: decoded as gray, 3: "
                  "RGB), height, width")
      ->type_name("C,H,W");
  AddList(app, "--rec-param", &o->rec_params, "KEY=VALUE",
          "with --data: an ImageRecordIter parameter by MXNet's name for both files "
          "(scale=0.00392156862745098, mean_r=123.68, preprocess_threads=2, ...; `weft ops` "
          "style docs: weft_data_iter_param)");
  AddList(app, "--rec-train-param", &o->rec_train_params, "KEY=VALUE",
          "as --rec-param, for the training file only (augmentation: rand_mirror=1, "
          "rand_crop=1, resize=256, ...)");
  AddInt(app, "--epochs", &o->epochs, 1, "epochs to train (default 1)");
  AddInt(app, "--batch-size", &o->batch, 1, "samples per batch (default 64)")->type_name("B");
  app->add_option("--optimizer", o->optimizer,
                  "the optimizer by MXNet's name: sgd (default), nag, signum, lars, adam, adamw, "
                  "lamb, rmsprop, adagrad, adadelta, ftrl")
      ->type_name("NAME");
  app->add_option("--lr", o->lr, "learning rate (default 0.05 for sgd, 0.001 for adam)")
      ->type_name("X");
  app->add_option("--momentum", o->momentum, "sgd's momentum (default 0.9)")->type_name("M");
  app->add_option("--wd", o->wd, "weight decay (default 0)")->type_name("W");
  app->add_option("--init", o->init, "the initializer (default xavier)")->type_name("NAME");
  AddInt(app, "--seed", &o->seed, uint64_t{0},
         "seeds the initializer and the shuffling (default 1)")
      ->type_name("S");
  AddInt(app, "--limit", &o->limit, 1L, "train on the first N images only");
  app->add_option("--save", o->save, "write a checkpoint after each epoch")->type_name("PREFIX");
  AddChoice(app, "--kvstore", &o->kvstore, {"local", "device", "dist_sync"},
            "train through a kvstore (dist_sync: one process per MPI rank, run under mpirun)");
  AddChoice(app, "--progress", &o->progress, {"auto", "bar", "lines", "epoch", "none"},
            "per-batch progress: auto (a bar on a terminal, else lines), bar, lines, epoch "
            "(summaries only), none");
  return [o] { return Train(*o); };
}

}  // namespace weft_cli
