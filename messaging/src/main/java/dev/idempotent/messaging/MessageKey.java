package dev.idempotent.messaging;

import dev.idempotent.IdempotencyKeyException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Objects;

/**
 * The key one message is filed under, inside the scope the application names for its consumer.
 *
 * <p>Where a key comes from decides which duplicates it catches:
 *
 * <ul>
 *   <li>the producer's {@value #HEADER} header ({@link #fromHeader}): the same key on every
 *       delivery and on every resend of the producer, so a producer's retry that publishes the
 *       message again is caught too;
 *   <li>the broker's identity of the message ({@link #brokerIdentity}: an AMQP {@code message-id},
 *       a Kafka topic, partition and offset): the same on every redelivery of one publication, new
 *       on each resend, so it catches redeliveries only;
 *   <li>the application's own key over the message ({@link #of}), which overrides both.
 * </ul>
 *
 * Each source has a prefix of its own in the filed key ({@code idempotency-key:}, the broker
 * identity's kind, {@code key:}), so a key from one source never equals a key from another.
 */
public final class MessageKey {
  /** The header a producer sets to name its message's key. */
  public static final String HEADER = "Idempotency-Key";

  /** The longest key a message may bring (header or message id), in characters. */
  public static final int MAX_LENGTH = 255;

  private final String value;
  private final String source;

  private MessageKey(String value, String source) {
    this.value = value;
    this.source = source;
  }

  /**
   * The key from the producer's {@value #HEADER} header.
   *
   * @throws IdempotencyKeyException when the value is blank, longer than {@link #MAX_LENGTH} or has
   *     control characters
   */
  public static MessageKey fromHeader(String headerValue, String scope) {
    return new MessageKey(
        "idempotency-key:" + checked(headerValue, "the " + HEADER + " header", scope),
        "the " + HEADER + " header");
  }

  /**
   * The key from a {@value #HEADER} header that arrived as bytes (a Kafka header, an AMQP {@code
   * byte[]} header). Bytes that are valid UTF-8 give the same key as the same text through {@link
   * #fromHeader(String, String)}; any other bytes are filed by their exact value (base64url under a
   * prefix of their own, {@code idempotency-key-bytes:}), never decoded lossily, so two different
   * byte strings never share a key (for example {@code Müller-7} and {@code Mäller-7} in Latin-1).
   *
   * @throws IdempotencyKeyException when the value is empty, longer than {@link #MAX_LENGTH} bytes
   *     (when not UTF-8) or, as UTF-8 text, fails the checks of {@link #fromHeader(String, String)}
   */
  public static MessageKey fromHeader(byte[] headerValue, String scope) {
    Objects.requireNonNull(headerValue, "headerValue");
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(headerValue))
              .toString();
    } catch (CharacterCodingException notUtf8) {
      if (headerValue.length > MAX_LENGTH) {
        throw new IdempotencyKeyException(
            "the "
                + HEADER
                + " header is "
                + headerValue.length
                + " bytes long (and not UTF-8); the producer must send at most "
                + MAX_LENGTH,
            scope,
            null);
      }
      return new MessageKey(
          "idempotency-key-bytes:"
              + Base64.getUrlEncoder().withoutPadding().encodeToString(headerValue),
          "the " + HEADER + " header (bytes that are not UTF-8)");
    }
    return fromHeader(text, scope);
  }

  /**
   * The key from the broker's identity of the message.
   *
   * @param kind what the identity is, a short lowercase name such as {@code amqp-message-id} or
   *     {@code kafka}; it prefixes the filed key
   * @param identity the identity, such as the {@code message-id} or {@code topic/partition/offset}
   * @throws IdempotencyKeyException when the identity is blank, longer than {@link #MAX_LENGTH} or
   *     has control characters
   */
  public static MessageKey brokerIdentity(String kind, String identity, String scope) {
    Objects.requireNonNull(kind, "kind");
    return new MessageKey(kind + ":" + checked(identity, "the message's " + kind, scope), kind);
  }

  /**
   * The application's own key for the message (from its key function).
   *
   * @throws IdempotencyKeyException when the key is null or blank
   */
  public static MessageKey of(String key, String scope) {
    if (key == null || key.isBlank()) {
      throw new IdempotencyKeyException(
          "the message key function returned "
              + (key == null ? "null" : "a blank key")
              + ": return a key that names the message, for example its business id",
          scope,
          null);
    }
    return new MessageKey("key:" + key, "the key function");
  }

  /**
   * The default key of a message: the producer's header when there is one, else the broker's
   * identity.
   *
   * @param headerValue the {@value #HEADER} header, or {@code null} when the message has none
   * @param kind what the broker identity is (see {@link #brokerIdentity})
   * @param identity the broker identity, or {@code null} when the message has none
   * @throws IdempotencyKeyException when the message has neither, saying what to do
   */
  public static MessageKey resolve(String headerValue, String kind, String identity, String scope) {
    if (headerValue != null) {
      return fromHeader(headerValue, scope);
    }
    if (identity != null) {
      return brokerIdentity(kind, identity, scope);
    }
    throw new IdempotencyKeyException(
        "the message has no "
            + HEADER
            + " header and no "
            + kind
            + ", so it has no key: have the producer set a "
            + kind
            + " or an "
            + HEADER
            + " header (the same on every resend of one message), or give the consumer a key"
            + " function over the message",
        scope,
        null);
  }

  private static String checked(String text, String what, String scope) {
    if (text == null || text.isBlank()) {
      throw new IdempotencyKeyException(
          what + " is empty; the producer must send a unique key, for example a UUID", scope, null);
    }
    if (text.length() > MAX_LENGTH) {
      throw new IdempotencyKeyException(
          what
              + " is "
              + text.length()
              + " characters long; the producer must send at most "
              + MAX_LENGTH,
          scope,
          null);
    }
    for (int i = 0; i < text.length(); i++) {
      if (Character.isISOControl(text.charAt(i))) {
        throw new IdempotencyKeyException(
            what + " contains a control character; the producer must send printable text",
            scope,
            null);
      }
    }
    return text;
  }

  /** The key as filed in the store: the source's prefix and the key. */
  public String value() {
    return value;
  }

  /** Where the key came from, for messages: a header, a broker identity, the key function. */
  public String source() {
    return source;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MessageKey other && value.equals(other.value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  /** The source only: a key is never shown whole. */
  @Override
  public String toString() {
    return "MessageKey{from " + source + "}";
  }
}
