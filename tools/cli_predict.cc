// `weft predict`: classifies MNIST-format test images with a saved
// checkpoint through the C ABI's module API and writes the predicted class
// of each image, one per line: the C++ reference the bindings' examples
// compare their predictions with (./dev demo).
#include <cstdio>
#include <cstdlib>
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

long ParseCount(const std::string& text, const char* opt, long min) {
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < min)
    Usage(std::string(opt) + " expects an integer >= " + std::to_string(min) + ", given '" + text + "'");
  return v;
}

PredictOptions ParsePredict(int argc, char** argv) {
  PredictOptions o;
  for (Args a{argc, argv}; a.i < argc; ++a.i) {
    std::string s = argv[a.i];
    if (a.Is(s, "--checkpoint")) {
      o.prefix = a.Value(s, "--checkpoint");
    } else if (a.Is(s, "--epoch")) {
      o.epoch = static_cast<int>(ParseCount(a.Value(s, "--epoch"), "--epoch", 0));
    } else if (a.Is(s, "--data-dir")) {
      o.data_dir = a.Value(s, "--data-dir");
    } else if (a.Is(s, "--set")) {
      o.set = a.Value(s, "--set");
    } else if (a.Is(s, "--limit")) {
      o.limit = ParseCount(a.Value(s, "--limit"), "--limit", 1);
    } else if (a.Is(s, "--batch-size")) {
      o.batch = static_cast<int>(ParseCount(a.Value(s, "--batch-size"), "--batch-size", 1));
    } else if (a.Is(s, "--out")) {
      o.out = a.Value(s, "--out");
    } else {
      Usage("predict: unexpected argument '" + s + "'");
    }
  }
  if (o.prefix.empty()) Usage("predict: --checkpoint PREFIX is required");
  if (o.epoch < 0) Usage("predict: --epoch N is required");
  return o;
}

int64_t FirstExtent(const WeftNDArray* arr, int64_t* second = nullptr) {
  int64_t dims[8] = {0};
  Check(weft_ndarray_shape(arr, dims, 8), "predict");
  if (second) *second = dims[1];
  return dims[0];
}

}  // namespace

int Predict(int argc, char** argv) {
  PredictOptions o = ParsePredict(argc, argv);
  Sym sym;
  ArrayList args, aux;
  Check(weft_checkpoint_load(o.prefix.c_str(), o.epoch, sym.out(), args.out(), aux.out()), "predict");
  const std::string base = o.data_dir + "/" + o.set;
  Array images, labels;
  Check(weft_mnist_load((base + "-images-idx3-ubyte.gz").c_str(), (base + "-labels-idx1-ubyte.gz").c_str(),
                        images.out(), labels.out()),
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
  Check(weft_data_iter_create_ndarray(1, &data_name, &data, 1, &label_name, &label, o.batch, 0, "pad", 0,
                                      it.out()),
        "predict");
  Mod mod;
  Check(weft_module_create(sym.get(), 1, &data_name, 1, &label_name, WEFT_CPU, 0, mod.out()), "predict");
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
    int64_t classes = 0;
    const int64_t rows = FirstExtent(out.get(), &classes);
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
    throw Exit{1, "weft predict: error: classified " + std::to_string(predicted.size()) + " images, expected " +
                      std::to_string(n)};
  int64_t correct = 0;
  for (int64_t i = 0; i < n; ++i) correct += predicted[static_cast<size_t>(i)] == static_cast<int>(truth[i]);
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

}  // namespace weft_cli
