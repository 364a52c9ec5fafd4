package dev.idempotent.it;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * A worker process that starts an application instance on a database that may not have the
 * idempotency tables yet: it opens its ledger and its store's connection pool, prints {@code
 * READY}, waits for {@code GO} on its standard input ({@code GO <epoch millis>}: at that moment, so
 * that the workers start together), then builds its JDBC store with {@code createTable(true)} on
 * the table {@code records=} (as every instance of a rolling deploy does at once), prints {@code
 * STARTED} and runs {@link LedgerWorker}'s {@code mode=load} on it. Arguments are {@code
 * name=value}: {@code store=}, {@code ledger=}, {@code run=}, {@code worker=}, {@code records=},
 * and those of {@code mode=load} ({@code submissions=}, {@code results=}, {@code threads=}). A
 * store that cannot be built ends the process with status 2, its exception on standard error.
 */
public final class FirstStartWorker {
  private static final Duration STORE_TIMEOUT = Duration.ofSeconds(3);

  private FirstStartWorker() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq < 1) {
        throw new IllegalArgumentException("argument '" + arg + "': write name=value");
      }
      a.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    String worker = required(a, "worker");
    int status = 0;
    HikariDataSource pool = null;
    try (Ledger ledger = new BackendSpec(required(a, "ledger")).openLedger(worker)) {
      pool = pool(required(a, "store"), worker);
      Class.forName(JdbcIdempotencyStore.class.getName());
      BufferedReader stdin =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      say("READY");
      String go = stdin.readLine();
      if (go == null || !go.startsWith("GO ")) {
        say("ABORTED");
        System.exit(3);
      }
      long at = Long.parseLong(go.substring(3).strip());
      Thread.sleep(Math.max(0, at - System.currentTimeMillis()));
      try (IdempotencyStore store =
          JdbcIdempotencyStore.builder(pool)
              .table(required(a, "records"))
              .queryTimeout(STORE_TIMEOUT)
              .createTable(true)
              .build()) {
        say("STARTED");
        CallObserver observer = new CallObserver();
        Idempotency.install(
            IdempotencyConfig.builder().defaultStore(store).listener(observer).build());
        LedgerWorker.load(a, required(a, "run"), new LedgerService(ledger, worker), observer);
      }
    } catch (Throwable t) {
      t.printStackTrace();
      status = 2;
    } finally {
      Idempotency.reset();
      if (pool != null) {
        pool.close();
      }
    }
    System.out.flush();
    System.exit(status);
  }

  /**
   * The store's pool, its first connection open, so that the workers' builds start as close
   * together as the {@code GO} says.
   */
  private static HikariDataSource pool(String url, String worker) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setPoolName(worker);
    config.setMaximumPoolSize(8);
    config.setMinimumIdle(1);
    config.setConnectionTimeout(STORE_TIMEOUT.toMillis());
    config.setInitializationFailTimeout(10_000);
    return new HikariDataSource(config);
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  private static String required(Map<String, String> a, String name) {
    String v = a.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("missing argument " + name + "=...");
    }
    return v;
  }
}
