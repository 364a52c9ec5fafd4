package dev.idempotent.webflux.internal;

import java.util.Arrays;
import org.springframework.core.io.buffer.DataBuffer;

/**
 * Bytes collected from data buffers up to a limit: a buffer that would take them over the limit is
 * not copied, so no more than the limit is ever held. Not thread-safe (one exchange's signals are
 * serial).
 */
public final class BoundedBytes {
  private final int limit;
  private byte[] bytes = new byte[0];
  private int size;

  public BoundedBytes(int limit) {
    this.limit = limit;
  }

  /**
   * Copies {@code buffer}'s readable bytes, or answers {@code false} when they would take the total
   * over the limit (nothing is copied then). The buffer is not released.
   */
  public boolean append(DataBuffer buffer) {
    int n = buffer.readableByteCount();
    if (n > limit - size) {
      return false;
    }
    if (size + n > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.min(limit, Math.max(size + n, bytes.length * 2 + 256)));
    }
    buffer.read(bytes, size, n);
    size += n;
    return true;
  }

  public int size() {
    return size;
  }

  /** A copy of the bytes held. */
  public byte[] toByteArray() {
    return size == bytes.length ? bytes.clone() : Arrays.copyOf(bytes, size);
  }
}
