// Shape: an n-dimensional extent with MXNet's partial-shape semantics.
//
// A default-constructed Shape has unknown rank (ndim() == -1). Rank 0 is a
// scalar (size 1). Two readings of an extent of 0:
//  - shape inference (symbols, InferShape, JSON attributes such as
//    shape=(0,3), executors' plans) keeps MXNet 1.x's legacy semantics: 0 is
//    an unknown extent, and a shape is known (is_known) when its rank is
//    known and no extent is 0;
//  - an NDArray's shape is always concrete (is_concrete): there 0 is a real,
//    empty extent. Only a run makes such arrays: an operator of
//    data-dependent output shape (weft/dynamic_shape.h) that finds no row,
//    and the operators after it (OpDef::infer_empty_shape), as MXNet's
//    numpy-shape mode and ONNX Runtime give them.
// Shapes are small values; copying is cheap. Not synchronised.
#ifndef WEFT_SHAPE_H_
#define WEFT_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

namespace weft {

class Shape {
 public:
  // Unknown rank.
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : ndim_(static_cast<int>(dims.size())), dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims)
      : ndim_(static_cast<int>(dims.size())), dims_(std::move(dims)) {}
  // Rank `ndim` with every extent unknown (0).
  static Shape Unknown(int ndim) { return Shape(std::vector<int64_t>(ndim, 0)); }

  int ndim() const { return ndim_; }
  bool ndim_known() const { return ndim_ >= 0; }
  // Rank known and every extent > 0 (shape inference's "known").
  bool is_known() const;
  // Rank known and every extent >= 0: the shape of an array that exists,
  // where an extent of 0 is real (the array has no elements).
  bool is_concrete() const;
  // is_concrete() with at least one extent of 0 (Size() == 0).
  bool has_zero_extent() const;
  int64_t operator[](int i) const { return dims_[i]; }
  int64_t& operator[](int i) { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  // Product of extents (1 for a scalar). REQUIRES: ndim_known(). Throws
  // Error(kShape) naming the shape when the product exceeds 2^63 - 1 (it
  // never wraps).
  int64_t Size() const;
  // Product of extents in [begin, end); throws like Size() on overflow.
  int64_t ProdRange(int begin, int end) const;
  // Size() without throwing: false when the rank is unknown or the product
  // of the extents exceeds 2^63 - 1.
  bool CheckedSize(int64_t* size) const;

  bool operator==(const Shape& o) const { return ndim_ == o.ndim_ && dims_ == o.dims_; }
  bool operator!=(const Shape& o) const { return !(*this == o); }

  // MXNet text form: "(2,3)", "(3,)", "()"; unknown rank prints "None".
  std::string ToString() const;
  // Parses "(2, 3)", "[2,3]", "(3,)", "5", "()" ; throws Error(kInvalidArgument).
  static Shape Parse(const std::string& text);

 private:
  int ndim_ = -1;
  std::vector<int64_t> dims_;
};

std::ostream& operator<<(std::ostream& os, const Shape& s);

// Bytes of a known `shape` at `elem_bytes` per element: the one checked size
// computation behind every allocation. Throws Error(kShape) naming the shape
// when the element count or the byte size does not fit (2^63 - 1 elements,
// 2^64 - 1 bytes); never wraps.
size_t ShapeBytes(const Shape& shape, size_t elem_bytes);

// Merges `src` into `*dst` (MXNet's shape_assign): unknown rank or unknown
// extents in `dst` are filled from `src`. Returns false when both know a
// rank or an extent and they differ; `*dst` is then unspecified.
bool ShapeAssign(Shape* dst, const Shape& src);

}  // namespace weft

#endif  // WEFT_SHAPE_H_
