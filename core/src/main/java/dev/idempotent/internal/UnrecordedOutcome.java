package dev.idempotent.internal;

/**
 * Thrown out of a body whose outcome is deliberately not recorded (a web response that is not to be
 * recorded, such as a 4xx the rule does not keep): the executor releases the key whatever the
 * operation's failure settings say, and rethrows it. It never reaches an application.
 */
public class UnrecordedOutcome extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UnrecordedOutcome() {
    super(null, null, false, false);
  }
}
