#include "weft/shape.h"

#include <cctype>

#include "weft/status.h"

namespace weft {

bool Shape::is_known() const {
  if (ndim_ < 0) return false;
  for (int64_t d : dims_)
    if (d <= 0) return false;
  return true;
}

bool Shape::is_concrete() const {
  if (ndim_ < 0) return false;
  for (int64_t d : dims_)
    if (d < 0) return false;
  return true;
}

bool Shape::has_zero_extent() const {
  if (!is_concrete()) return false;
  for (int64_t d : dims_)
    if (d == 0) return true;
  return false;
}

namespace {

// Product of dims[begin, end); false on int64 overflow.
bool CheckedProd(const std::vector<int64_t>& dims, int begin, int end, int64_t* out) {
  int64_t p = 1;
  for (int i = begin; i < end; ++i)
    if (__builtin_mul_overflow(p, dims[i], &p)) return false;
  *out = p;
  return true;
}

}  // namespace

int64_t Shape::Size() const {
  WEFT_CHECK(ndim_ >= 0) << "Size() of a shape with unknown rank";
  return ProdRange(0, ndim_);
}

int64_t Shape::ProdRange(int begin, int end) const {
  int64_t p = 0;
  if (!CheckedProd(dims_, begin, end, &p))
    Fail(StatusCode::kShape, "shape ", ToString(), " has more than 2^63 - 1 elements");
  return p;
}

bool Shape::CheckedSize(int64_t* size) const {
  return ndim_ >= 0 && CheckedProd(dims_, 0, ndim_, size);
}

size_t ShapeBytes(const Shape& shape, size_t elem_bytes) {
  const int64_t n = shape.Size();
  size_t bytes = 0;
  if (n < 0 || __builtin_mul_overflow(static_cast<size_t>(n), elem_bytes, &bytes))
    Fail(StatusCode::kShape, "shape ", shape.ToString(), " of ", elem_bytes,
         "-byte elements needs more than 2^64 - 1 bytes");
  return bytes;
}

std::string Shape::ToString() const {
  if (ndim_ < 0) return "None";
  std::string s = "(";
  for (int i = 0; i < ndim_; ++i) {
    if (i) s += ",";
    s += std::to_string(dims_[i]);
  }
  if (ndim_ == 1) s += ",";
  return s + ")";
}

Shape Shape::Parse(const std::string& text) {
  auto bad = [&](const char* why) -> Shape {
    Fail(StatusCode::kInvalidArgument, "invalid shape '", text, "': ", why,
         " (expected a tuple such as (2, 3), (3,) or an integer)");
  };
  size_t i = 0, n = text.size();
  auto skip = [&] {
    while (i < n && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  skip();
  if (i == n) return bad("empty text");
  if (text.compare(i, 4, "None") == 0) return Shape();
  char close = 0;
  if (text[i] == '(') close = ')';
  if (text[i] == '[') close = ']';
  if (close) ++i;
  std::vector<int64_t> dims;
  bool need_value = false;
  while (true) {
    skip();
    if (i == n) break;
    if (close && text[i] == close) {
      if (need_value) return bad("trailing comma before a value");
      ++i;
      skip();
      if (i != n) return bad("text after the closing bracket");
      return Shape(dims);
    }
    bool neg = false;
    if (text[i] == '-') {
      neg = true;
      ++i;
    }
    if (i == n || !std::isdigit(static_cast<unsigned char>(text[i])))
      return bad("expected an integer");
    int64_t v = 0;
    while (i < n && std::isdigit(static_cast<unsigned char>(text[i]))) {
      v = v * 10 + (text[i] - '0');
      if (v > (int64_t{1} << 48)) return bad("extent too large");
      ++i;
    }
    if (i < n && text[i] == 'L') ++i;  // Python 2 longs in old files
    dims.push_back(neg ? -v : v);
    skip();
    need_value = false;
    if (i < n && text[i] == ',') {
      ++i;
      need_value = true;
      // "(3,)" is legal: a comma may precede the closing bracket.
      skip();
      if (close && i < n && text[i] == close) need_value = false;
    } else if (i < n && !(close && text[i] == close)) {
      return bad("expected ',' between extents");
    }
    if (!close && i == n) return Shape(dims);
  }
  if (close) return bad("missing closing bracket");
  return Shape(dims);
}

std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << s.ToString(); }

bool ShapeAssign(Shape* dst, const Shape& src) {
  if (!src.ndim_known()) return true;
  if (!dst->ndim_known()) {
    *dst = src;
    return true;
  }
  if (dst->ndim() != src.ndim()) return false;
  for (int i = 0; i < src.ndim(); ++i) {
    if ((*dst)[i] == 0) {
      (*dst)[i] = src[i];
    } else if (src[i] != 0 && src[i] != (*dst)[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace weft
