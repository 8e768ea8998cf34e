package ai.weft;

/**
 * An MNIST / Fashion-MNIST pair of IDX files loaded by the library
 * (weft_mnist_load): {@link #images} float32 (N, 1, rows, cols) scaled to
 * [0, 1] and {@link #labels} float32 (N), both on cpu(0). Owns both arrays:
 * close() closes them (idempotent).
 */
public final class Mnist implements AutoCloseable {
  public final NDArray images;
  public final NDArray labels;

  private Mnist(NDArray images, NDArray labels) {
    this.images = images;
    this.labels = labels;
  }

  /** Loads an images file and a labels file (raw or gzip IDX). */
  public static Mnist load(String imagesPath, String labelsPath) {
    Native.ensureLoaded();
    long[] x = new long[1];
    long[] y = new long[1];
    weft_native.weft_mnist_load(imagesPath, labelsPath, x, y);
    return new Mnist(new NDArray(x[0]), new NDArray(y[0]));
  }

  /**
   * Loads {@code dir/<set>-images-idx3-ubyte.gz} and
   * {@code dir/<set>-labels-idx1-ubyte.gz} ({@code set} "train" or "t10k").
   */
  public static Mnist loadSet(String dir, String set) {
    return load(dir + "/" + set + "-images-idx3-ubyte.gz", dir + "/" + set + "-labels-idx1-ubyte.gz");
  }

  /** Samples [begin, end) as views of this set's arrays (close it as well). */
  public Mnist slice(long begin, long end) {
    NDArray x = images.slice(begin, end);
    try {
      return new Mnist(x, labels.slice(begin, end));
    } catch (RuntimeException e) {
      x.close();
      throw e;
    }
  }

  /** Number of images. */
  public long count() {
    return labels.shape()[0];
  }

  @Override
  public void close() {
    images.close();
    labels.close();
  }
}
