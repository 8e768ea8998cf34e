#include <algorithm>

#include "weft/mutex.h"
#include "weft/op.h"
#include "weft/status.h"

namespace weft {

struct OpRegistry::Loaded {
  mutable Mutex mu;
  std::vector<std::unique_ptr<OpDef>> ops WEFT_GUARDED_BY(mu);
  std::map<std::string, const OpDef*> by_name WEFT_GUARDED_BY(mu);
};

struct KernelRegistry::Loaded {
  mutable Mutex mu;
  std::map<std::pair<std::string, DeviceType>, Kernel> kernels WEFT_GUARDED_BY(mu);
};

OpRegistry::OpRegistry() : loaded_(std::make_unique<Loaded>()) {}
OpRegistry::~OpRegistry() = default;
OpRegistry::OpRegistry(OpRegistry&&) noexcept = default;
OpRegistry& OpRegistry::operator=(OpRegistry&&) noexcept = default;
KernelRegistry::KernelRegistry() : loaded_(std::make_unique<Loaded>()) {}
KernelRegistry::~KernelRegistry() = default;
KernelRegistry::KernelRegistry(KernelRegistry&&) noexcept = default;
KernelRegistry& KernelRegistry::operator=(KernelRegistry&&) noexcept = default;

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

void OpRegistry::AddLoaded(OpDef def) {
  auto owned = std::make_unique<OpDef>(std::move(def));
  std::vector<std::string> names{owned->name};
  names.insert(names.end(), owned->aliases.begin(), owned->aliases.end());
  MutexLock lock(&loaded_->mu);
  for (const auto& n : names)
    if (by_name_.count(n) || loaded_->by_name.count(n))
      Fail(StatusCode::kInvalidArgument, "operator '", owned->name, "': the name '", n,
           "' is taken by a registered operator");
  for (const auto& n : names) loaded_->by_name[n] = owned.get();
  loaded_->ops.push_back(std::move(owned));
}

std::vector<std::string> OpRegistry::ListLoaded() const {
  std::vector<std::string> names;
  MutexLock lock(&loaded_->mu);
  for (const auto& op : loaded_->ops) names.push_back(op->name);
  std::sort(names.begin(), names.end());
  return names;
}

size_t OpRegistry::size() const {
  MutexLock lock(&loaded_->mu);
  return ops_.size() + loaded_->ops.size();
}

const OpDef* OpRegistry::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  if (it != by_name_.end()) return it->second;
  MutexLock lock(&loaded_->mu);
  auto lt = loaded_->by_name.find(name);
  return lt == loaded_->by_name.end() ? nullptr : lt->second;
}

const OpDef& OpRegistry::Get(const std::string& name) const {
  const OpDef* op = Find(name);
  if (!op) Fail(StatusCode::kNotFound, "unknown operator '", name, "'");
  return *op;
}

std::vector<std::string> OpRegistry::ListNames() const {
  std::vector<std::string> names;
  for (const auto& op : ops_) names.push_back(op->name);
  {
    MutexLock lock(&loaded_->mu);
    for (const auto& op : loaded_->ops) names.push_back(op->name);
  }
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

void KernelRegistry::AddLoaded(const std::string& op, DeviceType dev, Kernel k) {
  MutexLock lock(&loaded_->mu);
  if (kernels_.count({op, dev}) || loaded_->kernels.count({op, dev}))
    Fail(StatusCode::kInvalidArgument, "operator '", op, "' has a kernel for that device already");
  loaded_->kernels.emplace(std::make_pair(op, dev), std::move(k));
}

const Kernel* KernelRegistry::Find(const std::string& op, DeviceType dev) const {
  auto it = kernels_.find({op, dev});
  if (it != kernels_.end() && !it->second.empty()) return &it->second.front();
  if (it != kernels_.end()) return nullptr;
  MutexLock lock(&loaded_->mu);
  auto lt = loaded_->kernels.find({op, dev});
  return lt == loaded_->kernels.end() ? nullptr : &lt->second;
}

const Kernel* KernelRegistry::FindBackend(const std::string& op, DeviceType dev,
                                          const std::string& backend) const {
  auto it = kernels_.find({op, dev});
  if (it == kernels_.end()) {
    const Kernel* k = Find(op, dev);
    return k && k->backend == backend ? k : nullptr;
  }
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
