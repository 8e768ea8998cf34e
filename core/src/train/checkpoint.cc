// MXNet checkpoints: symbol JSON + "arg:"/"aux:" parameter lists (see weft/checkpoint.h).
#include "weft/checkpoint.h"

#include <cstdio>

#include "weft/ndarray_io.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

namespace weft {

std::string CheckpointSymbolPath(const std::string& prefix) { return prefix + "-symbol.json"; }

std::string CheckpointParamsPath(const std::string& prefix, int epoch) {
  if (epoch < 0)
    Fail(StatusCode::kInvalidArgument, "checkpoint '", prefix, "': epoch must be >= 0, given ",
         epoch);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "-%04d.params", epoch);
  return prefix + buf;
}

void SaveCheckpoint(const std::string& prefix, int epoch, const Symbol& symbol,
                    const std::map<std::string, NDArray>& args,
                    const std::map<std::string, NDArray>& aux) {
  const std::string params_path = CheckpointParamsPath(prefix, epoch);
  NDArrayList list;
  auto add = [&](const std::map<std::string, NDArray>& m, const char* kind) {
    for (const auto& kv : m) {
      if (kv.first.empty())
        Fail(StatusCode::kInvalidArgument, "SaveCheckpoint '", prefix, "': an ", kind,
             " parameter has an empty name");
      if (kv.second.is_none())
        Fail(StatusCode::kInvalidArgument, "SaveCheckpoint '", prefix, "': ", kind, " parameter '",
             kv.first, "' is an empty (none) array");
      list.names.push_back(StrCat(kind, ":", kv.first));
      list.arrays.push_back(kv.second.ctx().dev_type == DeviceType::kCPU
                                ? kv.second
                                : kv.second.Copy(Context::CPU()));
    }
  };
  add(args, "arg");
  add(aux, "aux");
  SaveJSONFile(symbol, CheckpointSymbolPath(prefix));
  SaveNDArraysFile(list, params_path);
}

Checkpoint LoadCheckpoint(const std::string& prefix, int epoch, Runtime* rt) {
  WEFT_CHECK(rt) << "load checkpoint '" << prefix << "': no runtime given";
  Runtime& runtime = *rt;
  const std::string params_path = CheckpointParamsPath(prefix, epoch);
  Checkpoint out;
  out.symbol = LoadJSONFile(CheckpointSymbolPath(prefix), runtime.ops()).symbol;
  const NDArrayList list = LoadNDArraysFile(params_path, &runtime);
  if (list.arrays.empty()) return out;  // a checkpoint without parameters
  try {
    const std::vector<std::string> aux_names = out.symbol.ListAuxiliaryStates();
    ParamMaps maps = SplitParams(list, &aux_names);
    out.args = std::move(maps.args);
    out.aux = std::move(maps.aux);
  } catch (const Error& e) {
    throw Error(e.code(), StrCat(params_path, ": ", e.what()));
  }
  return out;
}

}  // namespace weft
