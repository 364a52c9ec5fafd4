package dev.idempotent.web.internal;

/**
 * Thrown out of the executor's body when a response must not be recorded (a status that is not
 * recorded, a body over the size limit, an error sent through the container): the executor releases
 * the key, and the filter then sends what the application produced. Never reaches the application.
 */
public final class UnrecordedResponse extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UnrecordedResponse() {
    super("response not recorded", null, false, false);
  }
}
