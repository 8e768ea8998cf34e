package ai.weft;

/**
 * Shapes inferred for a symbol (a plain copy; no native handle). A shape is
 * null when even its rank is unknown; an extent 0 is unknown.
 */
public final class ShapeResult extends InferResult<long[]> {
  private static final Raw<long[]> RAW = new Raw<long[]>() {
    @Override public long complete(long r) {
      return weft_native.weft_shape_result_complete(r);
    }
    @Override public long count(long r, int g) {
      return weft_native.weft_shape_result_count(r, g);
    }
    @Override public long name(long r, int g, long i, String[] out) {
      return weft_native.weft_shape_result_name(r, g, i, out);
    }
    @Override public long[] value(long r, int g, long i) {
      int nd = (int) weft_native.weft_shape_result_ndim(r, g, i);
      if (nd < 0) return null;
      long[] dims = new long[nd];
      weft_native.weft_shape_result_dims(r, g, i, dims, dims.length);
      return dims;
    }
    @Override public long numUnknown(long r) {
      return weft_native.weft_shape_result_num_unknown(r);
    }
    @Override public long unknownName(long r, long i, String[] out) {
      return weft_native.weft_shape_result_unknown_name(r, i, out);
    }
    @Override public long free(long r) {
      return weft_native.weft_shape_result_free(r);
    }
  };

  private ShapeResult(long r) {
    super(r, RAW);
  }

  static ShapeResult take(long r) {
    return new ShapeResult(r);
  }
}
