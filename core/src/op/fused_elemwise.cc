// _fused_elemwise(inputs...; num_args, steps): a chain of pointwise ops as
// one op (weft/fused_elemwise.h, pass::FuseElemwiseChains); the encoding of
// its steps. No gradient: it only runs in inference graphs.
#include "weft/fused_elemwise.h"

#include <nlohmann/json.hpp>

#include "op/elemwise_common.h"
#include "weft/status.h"

namespace weft {

std::string EncodeElemwiseSteps(const std::vector<ElemwiseStep>& steps) {
  nlohmann::json list = nlohmann::json::array();
  for (const ElemwiseStep& s : steps)
    list.push_back({{"op", s.attrs.op->name},
                    {"name", s.attrs.name},
                    {"attrs", s.attrs.dict},
                    {"args", s.args}});
  return list.dump();
}

std::vector<ElemwiseStep> DecodeElemwiseSteps(const OpRegistry& ops, const NodeAttrs& fused) {
  const std::string where = op::OpLabel(fused);
  const int64_t n_in = fused.params.GetInt("num_args");
  nlohmann::json list;
  try {
    list = nlohmann::json::parse(fused.params.GetString("steps"));
  } catch (const nlohmann::json::exception& e) {
    Fail(StatusCode::kInvalidArgument, where, ": parameter 'steps' is no JSON list: ", e.what());
  }
  if (!list.is_array() || list.empty())
    Fail(StatusCode::kInvalidArgument, where, ": parameter 'steps' must be a non-empty JSON list");
  std::vector<ElemwiseStep> steps;
  for (size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& j = list[i];
    try {
      ElemwiseStep s;
      const OpDef& op = ops.Get(j.at("op").get<std::string>());
      if (!op.pointwise)
        Fail(StatusCode::kInvalidArgument, "operator ", op.name, " is not pointwise");
      s.attrs.op = &op;
      s.attrs.name = j.value("name", op.name);
      s.attrs.dict = j.value("attrs", StringMap{});
      s.attrs.params = ParseParams(op.name, &op.params, s.attrs.dict);
      s.args = j.at("args").get<std::vector<int>>();
      if (static_cast<int>(s.args.size()) != op.NumInputs(s.attrs.params))
        Fail(StatusCode::kInvalidArgument, "operator ", op.name, " takes ",
             op.NumInputs(s.attrs.params), " inputs, the step gives ", s.args.size());
      for (int a : s.args)
        if (a < (i == 0 ? 0 : -1) || a >= n_in)
          Fail(StatusCode::kInvalidArgument, "argument ", a, " is out of range [", i == 0 ? 0 : -1,
               ", ", n_in, ")");
      steps.push_back(std::move(s));
    } catch (const nlohmann::json::exception& e) {
      Fail(StatusCode::kInvalidArgument, where, ": step ", i, ": ", e.what());
    } catch (const Error& e) {
      Fail(StatusCode::kInvalidArgument, where, ": step ", i, ": ", e.what());
    }
  }
  return steps;
}

namespace op {

void RegisterFusedElemwise(OpRegistry* reg) {
  OpDef f;
  f.name = "_fused_elemwise";
  f.doc = "A chain of pointwise operators run tile by tile in one pass over memory (inference).";
  f.params = {IntParam("num_args", "1", "Number of inputs."),
              RequiredParam("steps", ParamType::kString,
                            "The chain as a JSON list of {op, name, attrs, args}.")};
  f.key_var_num_args = "num_args";
  f.num_inputs_fn = [](const ParamValues& p) { return static_cast<int>(p.GetInt("num_args")); };
  f.infer_shape = ElemwiseShape;
  f.infer_type = ElemwiseType;
  f.inplace = InplaceFirst;
  reg->Add(std::move(f));
}

}  // namespace op
}  // namespace weft
