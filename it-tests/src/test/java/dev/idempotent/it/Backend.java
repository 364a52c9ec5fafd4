package dev.idempotent.it;

/** The backends every cross-process test runs on. */
enum Backend {
  REDIS,
  REDIS_CLUSTER,
  POSTGRES,
  MARIADB,
  DYNAMODB,
  NATS;

  /**
   * The {@link BackendSpec} string of this backend (skips or fails the test when it is
   * unavailable).
   */
  String spec() throws Exception {
    return switch (this) {
      case REDIS -> TestEnvironment.redisUrl();
      case REDIS_CLUSTER -> RedisCluster.spec();
      case POSTGRES -> TestEnvironment.postgresUrl();
      case MARIADB -> TestEnvironment.mariadbUrl();
      case DYNAMODB -> "dynamodb:" + TestEnvironment.dynamoDbUrl();
      case NATS -> TestEnvironment.natsUrl();
    };
  }

  /**
   * Creates the record and ledger tables once, before workers start (concurrent DDL can collide).
   */
  static void prepare(BackendSpec spec) {
    if (spec.isDynamoDb()) {
      try (var store = spec.openStore("idem-it-setup", java.time.Duration.ofSeconds(10), true);
          DynamoDbLedger ledger = new DynamoDbLedger(spec.dynamoDb())) {
        ledger.createTable();
      }
      return;
    }
    if (spec.isJdbc()) {
      try (var store = spec.openStore("idem-it-setup", java.time.Duration.ofSeconds(10), true);
          Ledger ledger = spec.openLedger("idem-it-setup")) {
        ((JdbcLedger) ledger).createTable();
      }
    }
  }
}
