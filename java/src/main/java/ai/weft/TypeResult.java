package ai.weft;

/** Element types inferred for a symbol (a plain copy); null = unknown. */
public final class TypeResult extends InferResult<DType> {
  private static final Raw<DType> RAW = new Raw<DType>() {
    @Override public long complete(long r) {
      return weft_native.weft_type_result_complete(r);
    }
    @Override public long count(long r, int g) {
      return weft_native.weft_type_result_count(r, g);
    }
    @Override public long name(long r, int g, long i, String[] out) {
      return weft_native.weft_type_result_name(r, g, i, out);
    }
    @Override public DType value(long r, int g, long i) {
      int dt = (int) weft_native.weft_type_result_dtype(r, g, i);
      return dt < 0 ? null : DType.fromCode(dt);
    }
    @Override public long numUnknown(long r) {
      return weft_native.weft_type_result_num_unknown(r);
    }
    @Override public long unknownName(long r, long i, String[] out) {
      return weft_native.weft_type_result_unknown_name(r, i, out);
    }
    @Override public long free(long r) {
      return weft_native.weft_type_result_free(r);
    }
  };

  private TypeResult(long r) {
    super(r, RAW);
  }

  static TypeResult take(long r) {
    return new TypeResult(r);
  }
}
