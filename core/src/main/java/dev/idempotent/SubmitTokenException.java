package dev.idempotent;

/**
 * A submit carried a token that this scene and subject were never issued: forged, issued to another
 * user or form, or expired. All of these get the same exception and message, so tokens cannot be
 * probed. HTTP 400.
 */
public class SubmitTokenException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  public SubmitTokenException(String scope) {
    super(
        "the submit token is not valid for this form (it was not issued here, or it has expired):"
            + " reload the form and submit it again"
            + where(scope, null),
        scope,
        null,
        null);
  }

  @Override
  public int httpStatus() {
    return 400;
  }
}
