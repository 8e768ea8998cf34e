// The iterator factory (weft/data_iter_factory.h): each entry declares its
// parameters with MXNet's names and defaults (parsed and checked by
// ParseParams, as an operator's) and builds its iterator from them.
#include "weft/data_iter_factory.h"

#include "op/op_common.h"
#include "train/data_iter_entry.h"
#include "train/mnist_iter.h"
#include "weft/csv_iter.h"
#include "weft/libsvm_iter.h"
#include "weft/status.h"

namespace weft {

namespace {

using op::BoolParam;
using op::IntParam;
using op::RequiredParam;
using op::ShapeParam;
using op::StringParam;

using Entry = DataIterEntry;

// "NULL" (MXNet's unset path) as empty.
std::string Path(const ParamValues& p, const char* name) {
  const std::string& s = p.GetString(name);
  return s == "NULL" ? std::string() : s;
}

// MXNet's prefetch_buffer, which changes nothing for an iterator reading its
// files at creation, and the ignored parameters.
std::vector<ParamDecl> Ignored() {
  std::vector<ParamDecl> v = IgnoredIterParams();
  v.push_back(
      IntParam("prefetch_buffer", "4",
               "Batches to prefetch (accepted for MXNet; Weft reads the files at creation)."));
  return v;
}

Entry CsvEntry() {
  Entry e;
  e.info.name = "CSVIter";
  e.info.doc = "Batches of rows of a CSV file (and its label file), MXNet's CSVIter.";
  e.info.params = {RequiredParam("data_csv", ParamType::kString, "The data CSV file."),
                   RequiredParam("data_shape", ParamType::kShape, "One example's shape."),
                   StringParam("label_csv", "NULL", "The label CSV file (NULL: labels are 0)."),
                   ShapeParam("label_shape", "(1,)", "One label's shape."),
                   RequiredParam("batch_size", ParamType::kInt, "Examples per batch."),
                   BoolParam("round_batch", "True", "Wrap around to fill the last batch."),
                   op::DTypeParam("dtype", "float32", "Output dtype: float32, int32 or int64.")};
  for (auto& d : Ignored()) e.info.params.push_back(d);
  e.build = [](const ParamValues& p, Runtime* rt) -> std::unique_ptr<DataIter> {
    CSVIterParams c;
    c.data_csv = p.GetString("data_csv");
    c.data_shape = p.GetShape("data_shape");
    c.label_csv = Path(p, "label_csv");
    c.label_shape = p.GetShape("label_shape");
    c.batch_size = static_cast<int>(p.GetInt("batch_size"));
    c.round_batch = p.GetBool("round_batch");
    c.dtype = p.GetDType("dtype");
    return std::make_unique<CSVIter>(c, rt);
  };
  return e;
}

Entry LibSvmEntry() {
  Entry e;
  e.info.name = "LibSVMIter";
  e.info.doc = "Batches of a LibSVM file as dense rows (MXNet's LibSVMIter gives CSR data).";
  e.info.params = {RequiredParam("data_libsvm", ParamType::kString, "The LibSVM data file."),
                   RequiredParam("data_shape", ParamType::kShape, "(number of features,)."),
                   StringParam("label_libsvm", "NULL", "Label file (NULL: the data's labels)."),
                   ShapeParam("label_shape", "(1,)", "One label's shape."),
                   RequiredParam("batch_size", ParamType::kInt, "Examples per batch.")};
  for (auto& d : Ignored()) e.info.params.push_back(d);
  e.build = [](const ParamValues& p, Runtime* rt) -> std::unique_ptr<DataIter> {
    LibSVMIterParams c;
    c.data_libsvm = p.GetString("data_libsvm");
    c.data_shape = p.GetShape("data_shape");
    c.label_libsvm = Path(p, "label_libsvm");
    c.label_shape = p.GetShape("label_shape");
    c.batch_size = static_cast<int>(p.GetInt("batch_size"));
    return std::make_unique<LibSVMIter>(c, rt);
  };
  return e;
}

Entry MnistEntry() {
  Entry e;
  e.info.name = "MNISTIter";
  e.info.doc = "Batches of MNIST-format IDX files (raw or gzip), MXNet's MNISTIter.";
  e.info.params = {
      StringParam("image", "./train-images-idx3-ubyte", "The images file."),
      StringParam("label", "./train-labels-idx1-ubyte", "The labels file."),
      IntParam("batch_size", "128", "Examples per batch."),
      BoolParam("shuffle", "True", "Shuffle the examples every epoch."),
      BoolParam("flat", "False", "Images as (batch, 784) instead of (batch, 1, 28, 28)."),
      IntParam("seed", "0", "The shuffle's seed."),
      BoolParam("silent", "False", "Print nothing (Weft prints nothing either way)."),
      IntParam("num_parts", "1", "Parts the examples are split into (distributed training)."),
      IntParam("part_index", "0", "The part this iterator reads.")};
  for (auto& d : Ignored()) e.info.params.push_back(d);
  e.build = [](const ParamValues& p, Runtime* rt) -> std::unique_ptr<DataIter> {
    MNISTIterParams m;
    m.image = p.GetString("image");
    m.label = p.GetString("label");
    m.batch_size = static_cast<int>(p.GetInt("batch_size"));
    m.shuffle = p.GetBool("shuffle");
    m.flat = p.GetBool("flat");
    m.seed = static_cast<uint64_t>(p.GetInt("seed"));
    m.num_parts = static_cast<int>(p.GetInt("num_parts"));
    m.part_index = static_cast<int>(p.GetInt("part_index"));
    return std::make_unique<MNISTIter>(m, rt);
  };
  return e;
}

const std::vector<Entry>& Entries() {
  static const std::vector<Entry> entries = {CsvEntry(), LibSvmEntry(), MnistEntry(),
                                             ImageRecordIterEntry()};
  return entries;
}

}  // namespace

std::vector<ParamDecl> IgnoredIterParams() {
  return {StringParam("ctx", "cpu", "Where batches are made (accepted for MXNet; always cpu).")};
}

const std::vector<DataIterInfo>& ListDataIters() {
  static const std::vector<DataIterInfo> infos = [] {
    std::vector<DataIterInfo> v;
    for (const Entry& e : Entries()) v.push_back(e.info);
    return v;
  }();
  return infos;
}

std::unique_ptr<DataIter> CreateDataIter(const std::string& name, const StringMap& params,
                                         Runtime* rt) {
  WEFT_CHECK(rt) << "CreateDataIter " << name << ": no runtime given";
  std::string known;
  for (const Entry& e : Entries()) {
    if (e.info.name == name) return e.build(ParseParams(name, &e.info.params, params), rt);
    known += (known.empty() ? "" : ", ") + e.info.name;
  }
  Fail(StatusCode::kNotFound, "data iterator '", name, "' is not registered (known: ", known, ")");
}

}  // namespace weft
