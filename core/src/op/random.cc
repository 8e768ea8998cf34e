// Random sampling ops with MXNet names: _random_uniform (aliases
// random_uniform, uniform) drawing from [low, high), _random_normal
// (aliases random_normal, normal) drawing from N(loc, scale^2),
// _random_exponential (alias random_exponential; rate lam=1),
// _random_gamma (alias random_gamma; shape alpha=1, scale beta=1),
// _random_poisson (alias random_poisson; lam=1, float output),
// _random_randint (alias random_randint; integers in [low, high), dtype
// None = int32, or int64).
//
// These have no inputs; the output has the required `shape`, `dtype`
// (default float32; "None" means float32 as in MXNet) and lives on `ctx`
// (default cpu(0)).
// Values come from the context's generator (Runtime::rng), so
// Runtime::Seed makes them reproducible. Parameters are checked during
// shape inference: high > low, scale >= 0, lam >= 0 (exponential: > 0),
// alpha > 0 and beta > 0, else Error(kInvalidArgument).
//
// _sample_multinomial (alias sample_multinomial)(data; shape=(),
// get_prob=False, dtype='int32'): data (..., k) holds k probabilities per
// distribution; draws `shape` category indices from each, output
// data.shape[:-1] + shape (1-D data: `shape`, or (1,)); with get_prob a
// second output holds the log-probability of each draw (data's dtype).
// _shuffle (alias shuffle)(data): a random permutation of the first axis.
// Gradients: with get_prob, _sample_multinomial ->
// `_backward_sample_multinomial(ograd_log_prob, data, sample)`, adding
// ograd / p[sample] to the drawn category's probability (MXNet's REINFORCE
// gradient); without it, zeros. The source ops and _shuffle have none.
#include "op_common.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> SampleParams(ParamDecl a, ParamDecl b) {
  return {
      a, b, RequiredParam("shape", ParamType::kShape, "Shape of the output."),
      ContextParam("ctx", "cpu(0)", "Context of the output."),
      Optional(DTypeParam("dtype", "float32", "Element type of the output (None means float32)."))};
}

// Fails unless `ok`, naming the op and the parameter condition.
void Require(const NodeAttrs& attrs, bool ok, const std::string& what, double value) {
  if (!ok)
    Fail(StatusCode::kInvalidArgument, "operator ", attrs.op->name, ": parameter ", what,
         " (given ", value, ")");
}

// Checks the distribution parameters, then sets the output shape.
bool SampleShape(const NodeAttrs& attrs, std::vector<Shape>*, std::vector<Shape>* out) {
  const ParamValues& p = attrs.params;
  const std::string& op = attrs.op->name;
  if (op == "_random_uniform" || op == "_random_randint") {
    const bool ok = op == "_random_uniform" ? p.GetFloat("high") > p.GetFloat("low")
                                            : p.GetInt("high") > p.GetInt("low");
    if (!ok)
      Fail(StatusCode::kInvalidArgument, "operator ", op, ": parameter 'high' (",
           p.Get("high").f + p.Get("high").i, ") must be greater than 'low' (",
           p.Get("low").f + p.Get("low").i, ")");
  }
  if (op == "_random_normal")
    Require(attrs, p.GetFloat("scale") >= 0, "'scale' must be >= 0", p.GetFloat("scale"));
  if (op == "_random_exponential")
    Require(attrs, p.GetFloat("lam") > 0, "'lam' must be > 0", p.GetFloat("lam"));
  if (op == "_random_poisson")
    Require(attrs, p.GetFloat("lam") >= 0, "'lam' must be >= 0", p.GetFloat("lam"));
  if (op == "_random_gamma") {
    Require(attrs, p.GetFloat("alpha") > 0, "'alpha' must be > 0", p.GetFloat("alpha"));
    Require(attrs, p.GetFloat("beta") > 0, "'beta' must be > 0", p.GetFloat("beta"));
  }
  AssignShape(attrs, out, 0, p.GetShape("shape"), "output 0");
  return AllKnown(*out);
}

bool SampleType(const NodeAttrs& attrs, std::vector<DType>*, std::vector<DType>* out) {
  const bool ints = attrs.op->name == "_random_randint";
  DType t = attrs.params.IsNone("dtype") ? (ints ? DType::kInt32 : DType::kFloat32)
                                         : attrs.params.GetDType("dtype");
  if (ints && t != DType::kInt32 && t != DType::kInt64)
    Fail(StatusCode::kDType, "operator _random_randint: dtype ", DTypeName(t),
         " is not supported (expected int32 or int64)");
  AssignType(attrs, out, 0, t, "output 0");
  return AllKnown(*out);
}

OpDef SampleDef(const std::string& name, std::vector<std::string> aliases, const std::string& doc,
                ParamDecl a, ParamDecl b) {
  OpDef d;
  d.name = name;
  d.aliases = std::move(aliases);
  d.doc = doc;
  d.params = SampleParams(a, b);
  if (d.params[1].name.empty()) d.params.erase(d.params.begin() + 1);
  if (name == "_random_randint")
    d.params.back() = Optional(DTypeParam("dtype", "None", "int32 or int64 (None means int32)."));
  d.num_inputs = 0;
  d.is_source = true;
  d.uses_rng = true;
  d.infer_shape = SampleShape;
  d.infer_type = SampleType;
  return d;
}

// Output shape of _sample_multinomial for data `d` (rank known).
Shape MultinomialShape(const NodeAttrs& attrs, const Shape& d) {
  const Shape& s = attrs.params.GetShape("shape");
  if (d.ndim() < 1)
    Fail(StatusCode::kShape, "operator _sample_multinomial: data needs ndim >= 1, given ",
         d.ToString());
  std::vector<int64_t> dims(d.dims().begin(), d.dims().end() - 1);
  dims.insert(dims.end(), s.dims().begin(), s.dims().end());
  if (dims.empty()) dims.push_back(1);
  return Shape(dims);
}

bool MultinomialShapeFn(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  if (!(*in)[0].ndim_known()) return false;
  const Shape s = MultinomialShape(attrs, (*in)[0]);
  for (size_t i = 0; i < out->size(); ++i) AssignShape(attrs, out, i, s, StrCat("output ", i));
  return AllKnown(*in) && AllKnown(*out);
}

bool MultinomialType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(attrs, out, 0, attrs.params.GetDType("dtype"), "output 0");
  if (out->size() > 1) {
    AssignType(attrs, out, 1, (*in)[0], "output 1");
    AssignType(attrs, in, 0, (*out)[1], "input 'data'");
  }
  return AllKnown(*in) && AllKnown(*out);
}

OpDef MultinomialDef() {
  OpDef d;
  d.name = "_sample_multinomial";
  d.aliases = {"sample_multinomial"};
  d.doc = "Draws category indices from the distributions on data's last axis.";
  d.params = {ShapeParam("shape", "()", "Draws per distribution."),
              BoolParam("get_prob", "False", "Also return the log-probability of each draw."),
              DTypeParam("dtype", "int32", "Element type of the sampled indices.")};
  d.num_outputs_fn = [](const ParamValues& p) { return p.GetBool("get_prob") ? 2 : 1; };
  d.output_names = [](const ParamValues& p) {
    return p.GetBool("get_prob") ? std::vector<std::string>{"output", "log_prob"}
                                 : std::vector<std::string>{"output"};
  };
  d.uses_rng = true;
  d.infer_shape = MultinomialShapeFn;
  d.infer_type = MultinomialType;
  d.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    if (og.size() < 2)
      return std::vector<NodeEntry>{
          MakeOpEntry(r, "zeros_like", GradName(n, "zero"), {n->inputs[0]})};
    return BackwardNode(r, "_backward_sample_multinomial", n, {og[1], n->inputs[0], OutEntry(n, 0)},
                        1);
  };
  return d;
}

bool MultinomialBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                              std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[1], "output");
  AssignShape(attrs, in, 1, (*out)[0], "input 'data'");
  if ((*in)[1].ndim_known()) {
    const Shape s = MultinomialShape(attrs, (*in)[1]);
    AssignShape(attrs, in, 0, s, "input 'ograd'");
    AssignShape(attrs, in, 2, s, "input 'sample'");
  }
  return AllKnown(*in) && AllKnown(*out);
}

bool MultinomialBackwardType(const NodeAttrs& attrs, std::vector<DType>* in,
                             std::vector<DType>* out) {
  AssignType(attrs, in, 0, (*in)[1], "input 'ograd'");
  AssignType(attrs, out, 0, (*in)[1], "output");
  AssignType(attrs, in, 1, (*out)[0], "input 'data'");
  return AllKnown(*in) && AllKnown(*out);
}

OpDef MultinomialBackwardDef() {
  OpDef d;
  d.name = "_backward_sample_multinomial";
  d.doc = "Gradient of _sample_multinomial's log-probabilities: ograd / p at the drawn categories.";
  d.params = MultinomialDef().params;
  d.num_inputs = 3;
  d.input_names = FixedNames({"ograd", "data", "sample"});
  d.infer_shape = MultinomialBackwardShape;
  d.infer_type = MultinomialBackwardType;
  return d;
}

OpDef ShuffleDef() {
  OpDef d;
  d.name = "_shuffle";
  d.aliases = {"shuffle"};
  d.doc = "Randomly permutes the first axis.";
  d.uses_rng = true;
  d.infer_shape = ElemwiseShape;
  d.infer_type = ElemwiseType;
  return d;
}

}  // namespace

void RegisterRandom(OpRegistry* reg) {
  reg->Add(SampleDef("_random_uniform", {"random_uniform", "uniform"},
                     "Samples from the uniform distribution on [low, high).",
                     FloatParam("low", "0", "Lower bound (inclusive)."),
                     FloatParam("high", "1", "Upper bound (exclusive).")));
  reg->Add(SampleDef("_random_normal", {"random_normal", "normal"},
                     "Samples from the normal distribution N(loc, scale^2).",
                     FloatParam("loc", "0", "Mean of the distribution."),
                     FloatParam("scale", "1", "Standard deviation of the distribution.")));
  reg->Add(SampleDef("_random_exponential", {"random_exponential"},
                     "Samples from the exponential distribution with rate lam.",
                     FloatParam("lam", "1", "Rate (1 / mean)."), ParamDecl()));
  reg->Add(SampleDef("_random_gamma", {"random_gamma"}, "Samples from the gamma distribution.",
                     FloatParam("alpha", "1", "Shape."), FloatParam("beta", "1", "Scale.")));
  reg->Add(SampleDef("_random_poisson", {"random_poisson"},
                     "Samples from the Poisson distribution.", FloatParam("lam", "1", "Mean."),
                     ParamDecl()));
  reg->Add(SampleDef("_random_randint", {"random_randint"},
                     "Samples integers uniformly from [low, high).",
                     RequiredParam("low", ParamType::kInt, "Lower bound (inclusive)."),
                     RequiredParam("high", ParamType::kInt, "Upper bound (exclusive).")));
  reg->Add(MultinomialDef());
  reg->Add(MultinomialBackwardDef());
  reg->Add(ShuffleDef());
}

}  // namespace op
}  // namespace weft
