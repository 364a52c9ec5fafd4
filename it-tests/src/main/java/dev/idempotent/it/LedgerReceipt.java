package dev.idempotent.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What one real execution of {@link LedgerService} returns: which worker ran it, a random nonce
 * drawn inside the method, and when. A replay must return exactly this value; {@link #digest()}
 * makes that comparable across processes.
 *
 * @param key the business key (without the run id)
 * @param worker the worker that executed the method
 * @param nonce random, drawn inside the method
 * @param executedAtMillis wall-clock time of the execution
 */
public record LedgerReceipt(String key, String worker, String nonce, long executedAtMillis)
    implements Serializable {

  /** SHA-256 of the receipt's Java-serialized bytes, in hex: equal receipts have equal digests. */
  public String digest() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(this);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(bytes.toByteArray()));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
