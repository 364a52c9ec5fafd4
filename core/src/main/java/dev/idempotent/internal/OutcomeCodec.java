package dev.idempotent.internal;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.ResultCodec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Type;

/**
 * The bytes of a recorded outcome: one kind byte, then the value through the {@link ResultCodec}, nothing for
 * {@code null}/{@code void}, or a recorded failure as its class name and message (rethrown with the same type
 * and message on every repeat).
 */
public final class OutcomeCodec {
  static final byte VALUE = 'V';
  static final byte NULL = 'N';
  static final byte FAILURE = 'F';

  private static final byte[] NULL_OUTCOME = {NULL};

  private static final ClassValue<Constructor<?>[]> FAILURE_CONSTRUCTORS = new ClassValue<>() {
    @Override
    protected Constructor<?>[] computeValue(Class<?> type) {
      Constructor<?> withMessage = null;
      Constructor<?> noArgs = null;
      try {
        withMessage = type.getConstructor(String.class);
      } catch (NoSuchMethodException e) {
        // try the next form
      }
      try {
        noArgs = type.getConstructor();
      } catch (NoSuchMethodException e) {
        // none
      }
      if (withMessage != null) {
        withMessage.trySetAccessible();
      }
      if (noArgs != null) {
        noArgs.trySetAccessible();
      }
      return new Constructor<?>[] {withMessage, noArgs};
    }
  };

  private final ResultCodec codec;

  public OutcomeCodec(ResultCodec codec) {
    this.codec = codec;
  }

  public ResultCodec codec() {
    return codec;
  }

  /** Encodes a returned value ({@code null} allowed). */
  public byte[] encodeValue(Object value, Type type) {
    if (value == null) {
      return NULL_OUTCOME;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    out.write(VALUE);
    try {
      codec.encode(value, type, out);
    } catch (IOException e) {
      throw new IdempotencyConfigurationException("cannot record a result of type " + value.getClass().getName()
          + " with " + codec.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
    return out.toByteArray();
  }

  /** Encodes a failure the call records: its class name and message. */
  public byte[] encodeFailure(Throwable failure) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.write(FAILURE);
      out.writeUTF(failure.getClass().getName());
      String message = failure.getMessage();
      out.writeBoolean(message != null);
      if (message != null) {
        out.writeUTF(message.length() > 16_000 ? message.substring(0, 16_000) : message);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** True when the outcome is a recorded failure. */
  public static boolean isFailure(byte[] outcome) {
    return outcome.length > 0 && outcome[0] == FAILURE;
  }

  /** The recorded value ({@code null} for a null or void result). */
  public Object decodeValue(byte[] outcome, Type type) {
    if (outcome.length == 0) {
      throw new IllegalStateException("empty outcome bytes: the record was not written by this library");
    }
    if (outcome[0] == NULL) {
      return null;
    }
    if (outcome[0] != VALUE) {
      throw new IllegalStateException("unknown outcome kind " + outcome[0]);
    }
    try {
      return codec.decode(new ByteArrayInputStream(outcome, 1, outcome.length - 1), type);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the recorded result: " + e.getMessage(), e);
    }
  }

  /** A new instance of the recorded failure, with the same type and message. */
  public Throwable decodeFailure(byte[] outcome, ClassLoader loader) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(outcome, 1, outcome.length - 1))) {
      String className = in.readUTF();
      String message = in.readBoolean() ? in.readUTF() : null;
      Class<?> type = Class.forName(className, false, loader);
      if (!Throwable.class.isAssignableFrom(type)) {
        throw new IllegalStateException(className + " is not a Throwable");
      }
      Constructor<?>[] ctors = FAILURE_CONSTRUCTORS.get(type);
      if (ctors[0] != null) {
        return (Throwable) ctors[0].newInstance(message);
      }
      if (ctors[1] != null) {
        return (Throwable) ctors[1].newInstance();
      }
      throw new IllegalStateException("recorded failure " + className
          + " has neither a public (String) nor a public no-argument constructor, so it cannot be rethrown; "
          + "give it one, or do not list it in recordFailures");
    } catch (IOException | ReflectiveOperationException e) {
      throw new IllegalStateException("cannot rebuild the recorded failure: " + e, e);
    }
  }
}
