// Random sampling source ops with MXNet names: _random_uniform (aliases
// random_uniform, uniform) drawing from [low, high), and _random_normal
// (aliases random_normal, normal) drawing from N(loc, scale^2).
//
// No inputs; the output has the required `shape`, `dtype` (default float32;
// "None" means float32 as in MXNet) and lives on `ctx` (default cpu(0)).
// Values come from the context's generator (Runtime::rng), so
// Runtime::Seed makes them reproducible. Parameters are checked during
// shape inference: high > low and scale >= 0, else Error(kInvalidArgument).
// No gradient (the outputs do not depend on any input).
#include "op_common.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> SampleParams(ParamDecl a, ParamDecl b) {
  ParamDecl ctx;
  ctx.name = "ctx";
  ctx.type = ParamType::kContext;
  ctx.default_value = "cpu(0)";
  ctx.doc = "Context of the output.";
  ParamDecl dtype;
  dtype.name = "dtype";
  dtype.type = ParamType::kDType;
  dtype.default_value = "float32";
  dtype.optional = true;
  dtype.doc = "Element type of the output (None means float32).";
  return {a, b, RequiredParam("shape", ParamType::kShape, "Shape of the output."), ctx, dtype};
}

// Checks the distribution parameters, then sets the output shape.
InferShapeFn SampleShape(bool uniform) {
  return [uniform](const NodeAttrs& attrs, std::vector<Shape>*, std::vector<Shape>* out) {
    const ParamValues& p = attrs.params;
    if (uniform && !(p.GetFloat("high") > p.GetFloat("low")))
      Fail(StatusCode::kInvalidArgument, "operator ", attrs.op->name, ": parameter 'high' (",
           p.GetFloat("high"), ") must be greater than 'low' (", p.GetFloat("low"), ")");
    if (!uniform && !(p.GetFloat("scale") >= 0))
      Fail(StatusCode::kInvalidArgument, "operator ", attrs.op->name, ": parameter 'scale' (",
           p.GetFloat("scale"), ") must be >= 0");
    AssignShape(attrs, out, 0, p.GetShape("shape"), "output 0");
    return AllKnown(*out);
  };
}

bool SampleType(const NodeAttrs& attrs, std::vector<DType>*, std::vector<DType>* out) {
  const DType t = attrs.params.IsNone("dtype") ? DType::kFloat32 : attrs.params.GetDType("dtype");
  AssignType(attrs, out, 0, t, "output 0");
  return AllKnown(*out);
}

OpDef SampleDef(const std::string& name, std::vector<std::string> aliases, const std::string& doc,
                bool uniform) {
  OpDef d;
  d.name = name;
  d.aliases = std::move(aliases);
  d.doc = doc;
  if (uniform)
    d.params = SampleParams(FloatParam("low", "0", "Lower bound (inclusive)."),
                            FloatParam("high", "1", "Upper bound (exclusive)."));
  else
    d.params = SampleParams(FloatParam("loc", "0", "Mean of the distribution."),
                            FloatParam("scale", "1", "Standard deviation of the distribution."));
  d.num_inputs = 0;
  d.is_source = true;
  d.uses_rng = true;
  d.infer_shape = SampleShape(uniform);
  d.infer_type = SampleType;
  return d;
}

}  // namespace

void RegisterRandom(OpRegistry* reg) {
  reg->Add(SampleDef("_random_uniform", {"random_uniform", "uniform"},
                     "Samples from the uniform distribution on [low, high).", true));
  reg->Add(SampleDef("_random_normal", {"random_normal", "normal"},
                     "Samples from the normal distribution N(loc, scale^2).", false));
}

}  // namespace op
}  // namespace weft
