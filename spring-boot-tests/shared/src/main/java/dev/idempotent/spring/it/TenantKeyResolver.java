package dev.idempotent.spring.it;

import dev.idempotent.InvocationContext;
import dev.idempotent.KeyResolver;

/** A resolver with a collaborator (the tenant), so it can only be used as a bean instance. */
public class TenantKeyResolver implements KeyResolver {
  private final String tenant;

  public TenantKeyResolver(String tenant) {
    this.tenant = tenant;
  }

  @Override
  public String resolve(InvocationContext context) {
    return tenant + ":" + context.arguments()[0];
  }
}
