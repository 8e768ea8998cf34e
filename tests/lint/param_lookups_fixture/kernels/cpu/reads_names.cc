// Fixture for lint.param_lookups_catches: one lookup by name in per-call
// code (counted) and two in a Decode function (not counted).
struct Params {
  int axis = 0;
  double eps = 0;
  static Params Decode(const ParamValues& p) {
    Params q;
    q.axis = p.GetInt("axis");
    q.eps = p.GetFloat("eps");
    return q;
  }
};

void Kernel(const NodeAttrs& attrs) {
  const Params& p = attrs.params.Decoded<Params>();
  const bool keep = attrs.params.GetBool("keepdims");  // counted
  Use(p, keep);
}
