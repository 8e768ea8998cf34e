#include "nn_spatial.h"

namespace weft {
namespace op {

ParamDecl NumFilterParam() {
  return Ranged(RequiredParam("num_filter", ParamType::kInt, "Number of output channels."), 1,
                100000);
}

ParamDecl CudnnTuneParam() {
  return Optional(EnumParam("cudnn_tune", "None", {"off", "limited_workspace", "fastest"},
                            "cuDNN algorithm selection (ignored on CPU)."));
}

ParamDecl LayoutParam(const std::string& doc) {
  return Optional(
      EnumParam("layout", "None", {"NCW", "NCHW", "NCDHW", "NHWC", "NDHWC", "NWC"}, doc));
}

namespace {

// Copies tuple `key` into `dst` (nsp values) when given; checks its length
// and that every value is >= `min`.
void ReadTuple(const NodeAttrs& attrs, const std::string& key, int nsp, int64_t min, int64_t* dst) {
  const Shape& t = attrs.params.GetShape(key);
  if (t.ndim() <= 0) return;
  if (t.ndim() != nsp)
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": parameter '", key, "' has ", t.ndim(),
         " value(s) ", t.ToString(), ", expected ", nsp, " (one per kernel axis)");
  for (int i = 0; i < nsp; ++i) {
    if (t[i] < min)
      Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": parameter '", key, "' = ", t.ToString(),
           " must have every value >= ", min);
    dst[i] = t[i];
  }
}

}  // namespace

SpatialGeom ReadSpatialGeom(const NodeAttrs& attrs, bool has_dilate, int max_nsp) {
  SpatialGeom g;
  const Shape& k = attrs.params.GetShape("kernel");
  if (k.ndim() < 1 || k.ndim() > 3)
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": parameter 'kernel' = ", k.ToString(),
         " must have 1, 2 or 3 axes");
  if (k.ndim() > max_nsp)
    Fail(StatusCode::kNotImplemented, OpLabel(attrs), ": 3-D kernels ('kernel' = ", k.ToString(),
         ") are not supported; 1-D and 2-D are");
  g.nsp = k.ndim();
  ReadTuple(attrs, "kernel", g.nsp, 1, g.kernel);
  ReadTuple(attrs, "stride", g.nsp, 1, g.stride);
  ReadTuple(attrs, "pad", g.nsp, 0, g.pad);
  if (has_dilate) ReadTuple(attrs, "dilate", g.nsp, 1, g.dilate);
  return g;
}

void CheckChannelFirstLayout(const NodeAttrs& attrs, int nsp) {
  if (attrs.params.IsNone("layout")) return;
  const std::string& l = attrs.params.GetString("layout");
  const char* want = nsp == 1 ? "NCW" : nsp == 2 ? "NCHW" : "NCDHW";
  if (l != want)
    Fail(StatusCode::kNotImplemented, OpLabel(attrs), ": parameter 'layout' = '", l,
         "' is not supported for a ", nsp, "-D kernel (only ", want, ")");
}

}  // namespace op
}  // namespace weft
