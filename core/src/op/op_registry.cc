#include <algorithm>

#include "weft/op.h"
#include "weft/status.h"

namespace weft {

namespace {
std::vector<std::string> IndexedNames(const std::string& base, int n) {
  if (n == 1) return {base};
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(StrCat(base, i));
  return names;
}
}  // namespace

std::vector<std::string> OpDef::InputNames(const ParamValues& p) const {
  if (input_names) return input_names(p);
  return IndexedNames(is_source ? "" : "data", NumInputs(p));
}

std::vector<std::string> OpDef::OutputNames(const ParamValues& p) const {
  if (output_names) return output_names(p);
  return IndexedNames("output", NumOutputs(p));
}

std::string OpDef::OutputName(const ParamValues& p, uint32_t index) const {
  if (output_names) {
    std::vector<std::string> names = output_names(p);
    if (index < names.size()) return names[index];
  } else if (static_cast<int64_t>(index) < NumOutputs(p)) {
    return NumOutputs(p) == 1 ? std::string("output") : StrCat("output", index);
  }
  return StrCat("output", index);
}

void OpRegistry::Add(OpDef def) {
  auto owned = std::make_unique<OpDef>(std::move(def));
  const OpDef* ptr = owned.get();
  auto add_name = [&](const std::string& n) {
    WEFT_CHECK(!by_name_.count(n)) << "operator name registered twice: " << n;
    by_name_[n] = ptr;
  };
  add_name(ptr->name);
  for (const auto& a : ptr->aliases) add_name(a);
  ops_.push_back(std::move(owned));
}

const OpDef* OpRegistry::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

const OpDef& OpRegistry::Get(const std::string& name) const {
  const OpDef* op = Find(name);
  if (!op) Fail(StatusCode::kNotFound, "unknown operator '", name, "'");
  return *op;
}

std::vector<std::string> OpRegistry::ListNames() const {
  std::vector<std::string> names;
  for (const auto& op : ops_) names.push_back(op->name);
  std::sort(names.begin(), names.end());
  return names;
}

void KernelRegistry::Add(const std::string& op, DeviceType dev, Kernel k) {
  auto& list = kernels_[{op, dev}];
  for (const auto& existing : list)
    WEFT_CHECK(existing.backend != k.backend)
        << "kernel registered twice: " << op << " " << k.backend;
  list.push_back(std::move(k));
  std::stable_sort(list.begin(), list.end(),
                   [](const Kernel& a, const Kernel& b) { return a.priority > b.priority; });
}

const Kernel* KernelRegistry::Find(const std::string& op, DeviceType dev) const {
  auto it = kernels_.find({op, dev});
  if (it == kernels_.end() || it->second.empty()) return nullptr;
  return &it->second.front();
}

const Kernel* KernelRegistry::FindBackend(const std::string& op, DeviceType dev,
                                          const std::string& backend) const {
  auto it = kernels_.find({op, dev});
  if (it == kernels_.end()) return nullptr;
  for (const auto& k : it->second)
    if (k.backend == backend) return &k;
  return nullptr;
}

std::vector<std::string> KernelRegistry::Backends(const std::string& op, DeviceType dev) const {
  std::vector<std::string> names;
  auto it = kernels_.find({op, dev});
  if (it != kernels_.end())
    for (const auto& k : it->second) names.push_back(k.backend);
  return names;
}

std::string FunctionBackwardOpName(const std::string& op_name) {
  return "_backward_" + (op_name.rfind('_', 0) == 0 ? op_name.substr(1) : op_name);
}

}  // namespace weft
