package dev.idempotent.spring.messaging;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Idempotent message consumers: {@code idempotent.messaging.*}. The defaults are written as
 * literals so that the configuration processor puts them in the metadata; a test checks them
 * against the library's constants.
 */
@ConfigurationProperties(prefix = "idempotent.messaging")
public class IdempotentMessagingProperties {
  /**
   * How long a delivery whose key is held by another delivery still running waits before the
   * message is handed back to the broker.
   */
  private Duration inProgressWait = Duration.ofSeconds(5);

  /** The named store the consumers' records go to; empty for the default store. */
  private String store = "";

  private final Rabbit rabbit = new Rabbit();
  private final Kafka kafka = new Kafka();
  private final Camel camel = new Camel();

  public Duration getInProgressWait() {
    return inProgressWait;
  }

  public void setInProgressWait(Duration inProgressWait) {
    this.inProgressWait = inProgressWait;
  }

  public String getStore() {
    return store;
  }

  public void setStore(String store) {
    this.store = store;
  }

  public Rabbit getRabbit() {
    return rabbit;
  }

  public Kafka getKafka() {
    return kafka;
  }

  public Camel getCamel() {
    return camel;
  }

  /** {@code @RabbitListener} containers. */
  public static class Rabbit {
    /**
     * Whether every listener container the application's Rabbit listener container factories make
     * runs each message once per key (the Idempotency-Key header, else the message-id).
     */
    private boolean enabled;

    /** What the records of a queue are filed under: this prefix and the queue's name. */
    private String scopePrefix = "rabbit:";

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getScopePrefix() {
      return scopePrefix;
    }

    public void setScopePrefix(String scopePrefix) {
      this.scopePrefix = scopePrefix;
    }
  }

  /** {@code @KafkaListener} containers. */
  public static class Kafka {
    /**
     * Whether every record listener container of the application's Kafka listener endpoint registry
     * runs each record once per key (the Idempotency-Key header, else topic/partition/offset).
     */
    private boolean enabled;

    /**
     * What the records of a consumer group are filed under: this prefix, the group id and the topic
     * ({@code kafka:<group>/<topic>}).
     */
    private String scopePrefix = "kafka:";

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getScopePrefix() {
      return scopePrefix;
    }

    public void setScopePrefix(String scopePrefix) {
      this.scopePrefix = scopePrefix;
    }
  }

  /** The Camel idempotent repository bean. */
  public static class Camel {
    /** Whether an IdempotentRepository bean over the store is defined. */
    private boolean enabled = true;

    /** What the repository's records are filed under. */
    private String scope = "camel";

    /**
     * How long a claim holds if its exchange stops renewing it (it is renewed while the route
     * runs).
     */
    private Duration lease = Duration.ofSeconds(30);

    /** How long a completed key is kept. */
    private Duration ttl = Duration.ofHours(24);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getScope() {
      return scope;
    }

    public void setScope(String scope) {
      this.scope = scope;
    }

    public Duration getLease() {
      return lease;
    }

    public void setLease(Duration lease) {
      this.lease = lease;
    }

    public Duration getTtl() {
      return ttl;
    }

    public void setTtl(Duration ttl) {
      this.ttl = ttl;
    }
  }
}
