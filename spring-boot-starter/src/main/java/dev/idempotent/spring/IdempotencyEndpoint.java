package dev.idempotent.spring;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyRecordView;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.lang.Nullable;

/**
 * The actuator endpoint {@code idempotency}: {@code GET ?scope=…&key=…} shows the record of a key
 * (through {@link Idempotency#inspect}: its state, the time it has left and what it replays, never
 * the outcome or the whole key), {@code null} (404 over HTTP) when the key is free; {@code DELETE
 * ?scope=…&key=…} force-expires it ({@link Idempotency#forceExpire}). {@code store=name} picks a
 * named store. Not exposed over HTTP until {@code management.endpoints.web.exposure.include} names
 * it; secure it like any administrative endpoint.
 */
@Endpoint(id = "idempotency")
public class IdempotencyEndpoint {
  private final Idempotency idempotency;

  public IdempotencyEndpoint(Idempotency idempotency) {
    this.idempotency = idempotency;
  }

  /** The record of {@code key} in {@code scope}, or {@code null} when the key is free. */
  @ReadOperation
  public Map<String, Object> record(String scope, String key, @Nullable String store) {
    return idempotency.inspect(store, scope, key).map(IdempotencyEndpoint::describe).orElse(null);
  }

  /**
   * Deletes the record of {@code key} in {@code scope} whatever its state; says whether there was
   * one.
   */
  @DeleteOperation
  public Map<String, Object> forceExpire(String scope, String key, @Nullable String store) {
    boolean deleted = idempotency.forceExpire(store, scope, key);
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("scope", scope);
    result.put("deleted", deleted);
    return result;
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
