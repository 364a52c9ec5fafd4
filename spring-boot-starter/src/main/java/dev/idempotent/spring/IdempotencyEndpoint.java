package dev.idempotent.spring;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyRecordView;
import dev.idempotent.http.HttpIdempotency;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.lang.Nullable;

/**
 * The actuator endpoint {@code idempotency}. A record is found in one of two ways:
 *
 * <ul>
 *   <li>{@code ?scope=…&key=…} (and {@code store=name} for a named store): the record of a key in a
 *       scope, as calls of an annotated method or a policy made it;
 *   <li>{@code ?path=…&key=…} (and {@code method}, default {@code POST}, and {@code caller} when
 *       the request had one): the record the idempotency filter made for a request with that {@code
 *       Idempotency-Key}, found through the web rule that covers the path.
 * </ul>
 *
 * {@code GET} with no parameter lists the scopes this JVM has planned operations in, each with what
 * first planned it. {@code GET} with a key shows the record (through {@link Idempotency#inspect}:
 * its state, the time it has left and what it replays, never the outcome or the whole key), {@code
 * null} (404 over HTTP) when the key is free; {@code DELETE} deletes it ({@link
 * Idempotency#delete}). Not exposed over HTTP until {@code
 * management.endpoints.web.exposure.include} names it; secure it like any administrative endpoint.
 */
@Endpoint(id = "idempotency")
public class IdempotencyEndpoint {
  private final Idempotency idempotency;
  private final HttpIdempotency web;
  private final IdempotencyStartupReport setup;

  /**
   * @param web the web rules, or {@code null} when the filter is not installed
   */
  public IdempotencyEndpoint(Idempotency idempotency, @Nullable HttpIdempotency web) {
    this(idempotency, web, null);
  }

  /**
   * @param setup what the start-up line says, shown under {@code setup} with no parameter; or
   *     {@code null}
   */
  public IdempotencyEndpoint(
      Idempotency idempotency,
      @Nullable HttpIdempotency web,
      @Nullable IdempotencyStartupReport setup) {
    this.idempotency = idempotency;
    this.web = web;
    this.setup = setup;
  }

  /**
   * The record, or {@code null} when the key is free; with no parameter at all, the scopes in use
   * ({@link Idempotency#scopesInUse()}).
   */
  @ReadOperation
  public Map<String, Object> record(
      @Nullable String key,
      @Nullable String scope,
      @Nullable String store,
      @Nullable String path,
      @Nullable String method,
      @Nullable String caller) {
    if (key == null && scope == null && path == null) {
      Map<String, Object> scopes = new LinkedHashMap<>();
      scopes.put("scopes", Idempotency.scopesInUse());
      if (setup != null) {
        scopes.put("setup", setup.facts());
      }
      return scopes;
    }
    Location where = locate(key, scope, store, path, method, caller);
    return idempotency
        .inspect(where.store, where.scope, where.key)
        .map(IdempotencyEndpoint::describe)
        .orElse(null);
  }

  /** Deletes the record whatever its state; says whether there was one. */
  @DeleteOperation
  public Map<String, Object> delete(
      String key,
      @Nullable String scope,
      @Nullable String store,
      @Nullable String path,
      @Nullable String method,
      @Nullable String caller) {
    Location where = locate(key, scope, store, path, method, caller);
    boolean deleted = idempotency.delete(where.store, where.scope, where.key);
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("scope", where.scope);
    result.put("deleted", deleted);
    return result;
  }

  private record Location(String store, String scope, String key) {}

  private Location locate(
      String key, String scope, String store, String path, String method, String caller) {
    if (key == null) {
      throw new IllegalArgumentException(
          "give key with scope (a method's record) or with path (a web request's record); with no"
              + " parameter at all, the scopes in use are listed");
    }
    if (path == null) {
      if (scope == null) {
        throw new IllegalArgumentException(
            "give scope and key (a method's record), or path and key (a web request's record)");
      }
      return new Location(store, scope, key);
    }
    if (web == null) {
      throw new IllegalArgumentException(
          "path is given but the idempotency filter is not installed (idempotent.web.paths or"
              + " idempotent.web.rules)");
    }
    String m = method == null ? "POST" : method;
    HttpIdempotency.RecordLocation found =
        web.locate(m, path, caller, key)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "no web rule with an Idempotency-Key covers " + m + " " + path));
    return new Location(found.store(), found.scope(), found.key());
  }

  private static Map<String, Object> describe(IdempotencyRecordView v) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("store", v.store().isEmpty() ? "default" : v.store());
    m.put("scope", v.scope());
    m.put("key", v.redactedKey());
    m.put("status", v.status().name());
    m.put("expiresIn", v.expiresIn().toString());
    m.put("outcome", v.outcome().name());
    m.put("outcomeSize", v.outcomeSize());
    m.put("fingerprinted", v.fingerprinted());
    return m;
  }
}
