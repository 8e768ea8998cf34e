// `weft predict`: classifies MNIST-format test images with a saved
// checkpoint through the C ABI's module API and writes the predicted class
// of each image, one per line: the C++ reference the bindings' examples
// compare their predictions with (./dev demo).
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cli_util.h"
#include "weft/c_api.h"

namespace weft_cli {
namespace {

using Iter = Owned<WeftDataIter, weft_data_iter_free>;
using Mod = Owned<WeftModule, weft_module_free>;

struct PredictOptions {
  std::string prefix, data_dir = "/usr/share/datasets/fashion-mnist", set = "t10k", out;
  int epoch = -1, batch = 100;
  long limit = 0;
};

int64_t FirstExtent(const WeftNDArray* arr) {
  int64_t dims[8] = {0};
  Check(weft_ndarray_shape(arr, dims, 8), "predict");
  return dims[0];
}

// The rows and classes of output `k` of `outs`, which must be a
// classifier's float32 (batch, classes) scores.
void ScoresShape(const WeftNDArrayList* outs, const WeftNDArray* out, int64_t batch, int64_t* rows,
                 int64_t* classes) {
  int ndim = 0, dtype = -1;
  Check(weft_ndarray_ndim(out, &ndim), "predict");
  Check(weft_ndarray_dtype(out, &dtype), "predict");
  std::vector<int64_t> dims(static_cast<size_t>(ndim > 0 ? ndim : 0));
  if (ndim > 0) Check(weft_ndarray_shape(out, dims.data(), dims.size()), "predict");
  if (ndim == 2 && dims[0] == batch && dims[1] > 0 && dtype == 0) {
    *rows = dims[0];
    *classes = dims[1];
    return;
  }
  const char* name = nullptr;
  Check(weft_ndarray_list_name(outs, 0, &name), "predict");
  std::string shape = "(";
  for (size_t i = 0; i < dims.size(); ++i) shape += (i ? "," : "") + std::to_string(dims[i]);
  shape += dims.size() == 1 ? ",)" : ")";
  throw Exit{1,
             "weft predict: error: the checkpoint is not a classifier: predict needs its first "
             "output to be "
             "float32 class scores of shape (batch, classes) = (" +
                 std::to_string(batch) + ", C), but output '" + (name ? name : "?") + "' is " +
                 (DTypeCodeName(dtype) ? DTypeCodeName(dtype) : "?") + " " + shape};
}

}  // namespace

int Predict(const PredictOptions& o) {
  Sym sym;
  ArrayList args, aux;
  Check(weft_checkpoint_load(o.prefix.c_str(), o.epoch, sym.out(), args.out(), aux.out()),
        "predict");
  const std::string base = o.data_dir + "/" + o.set;
  Array images, labels;
  Check(weft_mnist_load((base + "-images-idx3-ubyte.gz").c_str(),
                        (base + "-labels-idx1-ubyte.gz").c_str(), images.out(), labels.out()),
        "predict");
  if (o.limit > 0 && o.limit < FirstExtent(images.get())) {
    Array x, y;
    Check(weft_ndarray_slice(images.get(), 0, o.limit, x.out()), "predict");
    Check(weft_ndarray_slice(labels.get(), 0, o.limit, y.out()), "predict");
    images = std::move(x);
    labels = std::move(y);
  }
  const int64_t n = FirstExtent(images.get());
  std::vector<float> truth(static_cast<size_t>(n));
  Check(weft_ndarray_copy_to(labels.get(), truth.data(), truth.size() * sizeof(float)), "predict");

  const char* data_name = "data";
  const char* label_name = "softmax_label";
  WeftNDArray* data = images.get();
  WeftNDArray* label = labels.get();
  Iter it;
  Check(weft_data_iter_create_ndarray(1, &data_name, &data, 1, &label_name, &label, o.batch, 0,
                                      "pad", 0, it.out()),
        "predict");
  Mod mod;
  Check(weft_module_create(sym.get(), 1, &data_name, 1, &label_name, WEFT_CPU, 0, mod.out()),
        "predict");
  Check(weft_module_bind(mod.get(), it.get(), 0), "predict");
  Check(weft_module_init_params(mod.get(), nullptr, args.get(), aux.get(), 0), "predict");

  std::vector<int> predicted;
  std::vector<float> scores;
  for (;;) {
    int has_next = 0;
    Check(weft_data_iter_next(it.get(), &has_next), "predict");
    if (!has_next) break;
    int pad = 0;
    Check(weft_data_iter_pad(it.get(), &pad), "predict");
    Check(weft_module_forward(mod.get(), it.get(), 0), "predict");
    ArrayList outs;
    Check(weft_module_outputs(mod.get(), outs.out()), "predict");
    Array out;
    Check(weft_ndarray_list_get(outs.get(), 0, out.out()), "predict");
    int64_t rows = 0, classes = 0;
    ScoresShape(outs.get(), out.get(), o.batch, &rows, &classes);
    scores.resize(static_cast<size_t>(rows * classes));
    Check(weft_ndarray_copy_to(out.get(), scores.data(), scores.size() * sizeof(float)), "predict");
    for (int64_t r = 0; r < rows - pad; ++r) {
      const float* row = scores.data() + r * classes;
      int best = 0;
      for (int64_t c = 1; c < classes; ++c)
        if (row[c] > row[best]) best = static_cast<int>(c);
      predicted.push_back(best);
    }
  }
  if (static_cast<int64_t>(predicted.size()) != n)
    throw Exit{1, "weft predict: error: classified " + std::to_string(predicted.size()) +
                      " images, expected " + std::to_string(n)};
  int64_t correct = 0;
  for (int64_t i = 0; i < n; ++i)
    correct += predicted[static_cast<size_t>(i)] == static_cast<int>(truth[i]);
  if (!o.out.empty()) {
    FILE* f = std::fopen(o.out.c_str(), "w");
    if (!f) throw Exit{1, "weft predict: error: cannot write '" + o.out + "'"};
    for (int p : predicted) std::fprintf(f, "%d\n", p);
    if (std::fclose(f) != 0) throw Exit{1, "weft predict: error: cannot write '" + o.out + "'"};
  }
  std::printf("C++:  accuracy %.2f%% on %lld images (%s-%04d.params)\n", 100.0 * correct / n,
              static_cast<long long>(n), o.prefix.c_str(), o.epoch);
  return 0;
}

Runner DefinePredict(CLI::App* app) {
  auto o = std::make_shared<PredictOptions>();
  app->description(
      "classifies MNIST-format images (DIR/SET-images-idx3-ubyte.gz, default the\n"
      "t10k set of Debian's Fashion-MNIST) with the checkpoint PREFIX-symbol.json\n"
      "+ PREFIX-<epoch>.params (inputs data and softmax_label; the last batch\n"
      "padded), prints the accuracy and with --out writes each image's\n"
      "predicted class (arg max), one per line.");
  app->add_option("--checkpoint", o->prefix, "the checkpoint's prefix")
      ->type_name("PREFIX")
      ->required();
  AddInt(app, "--epoch", &o->epoch, 0, "the checkpoint's epoch")->required();
  app->add_option("--data-dir", o->data_dir,
                  "the IDX files (default /usr/share/datasets/fashion-mnist)")
      ->type_name("DIR");
  app->add_option("--set", o->set, "which images: DIR/SET-images-idx3-ubyte.gz (default t10k)")
      ->type_name("t10k|train");
  AddInt(app, "--limit", &o->limit, 1L, "classify the first N images only");
  AddInt(app, "--batch-size", &o->batch, 1, "images per batch (default 100)")->type_name("B");
  app->add_option("--out", o->out, "write the predicted classes here, one per line")
      ->type_name("FILE");
  return [o] { return Predict(*o); };
}

}  // namespace weft_cli
