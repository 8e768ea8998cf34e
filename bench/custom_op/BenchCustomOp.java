import ai.weft.Context;
import ai.weft.CustomOp;
import ai.weft.CustomOpProp;
import ai.weft.CustomOps;
import ai.weft.DType;
import ai.weft.Executor;
import ai.weft.Executor.GradReq;
import ai.weft.NDArray;
import ai.weft.Symbol;
import java.util.Map;

/** Java side of bench/bench_custom_op.sh (see bench_custom_op.c): prints "<name> <us>". */
public final class BenchCustomOp {
  static final class IdentityProp extends CustomOpProp {
    @Override
    public long[][] inferShape(long[][] in) {
      return new long[][] {in[0]};
    }

    @Override
    public CustomOp createOperator(Context ctx, long[][] shapes, DType[] types) {
      return new CustomOp() {
        @Override
        public void forward(boolean t, GradReq[] req, NDArray[] in, NDArray[] out, NDArray[] aux) {
          out[0].data().put(in[0].data());
        }

        @Override
        public void backward(GradReq[] req, NDArray[] og, NDArray[] in, NDArray[] out,
            NDArray[] ig, NDArray[] aux) {}
      };
    }
  }

  static double bench(String node, long n, int iters) {
    String json = "{\"nodes\": [{\"op\": \"null\", \"name\": \"x\", \"inputs\": []}, " + node
        + "], \"arg_nodes\": [0], \"heads\": [[1, 0, 0]]}";
    try (Symbol sym = Symbol.fromJson(json);
        Executor ex = Executor.simpleBind(sym, Map.of("x", new long[] {n}), "null");
        NDArray out = ex.outputs().get(0)) {
      long t0 = 0;
      for (int i = -iters / 10; i < iters; ++i) {
        if (i == 0) t0 = System.nanoTime();
        ex.forward(false);
        out.waitToRead();
      }
      return (System.nanoTime() - t0) / 1e3 / iters;
    }
  }

  public static void main(String[] args) {
    String builtin = "{\"op\": \"identity\", \"name\": \"y\", \"inputs\": [[0, 0, 0]]}";
    String custom = "{\"op\": \"Custom\", \"name\": \"y\", \"attrs\": {\"op_type\": "
        + "\"bench_identity\"}, \"inputs\": [[0, 0, 0]]}";
    try (CustomOps.Registration r = CustomOps.register("bench_identity", a -> new IdentityProp())) {
      System.out.printf("builtin_1 %.2f%n", bench(builtin, 1, 20000));
      System.out.printf("custom_1 %.2f%n", bench(custom, 1, 20000));
      System.out.printf("builtin_1m %.2f%n", bench(builtin, 1 << 20, 300));
      System.out.printf("custom_1m %.2f%n", bench(custom, 1 << 20, 300));
    }
  }
}
