package dev.idempotent.it;

import dev.idempotent.redisson.RedisServerProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Three test-owned {@code redis-server} masters on 127.0.0.1 joined into a Redis Cluster; started
 * once per JVM.
 */
final class RedisCluster {
  private static List<RedisServerProcess> masters;

  private RedisCluster() {}

  /** The {@code cluster:redis://...,...} spec of the running cluster, starting it on first use. */
  static synchronized String spec() throws Exception {
    if (masters == null) {
      List<RedisServerProcess> started = new ArrayList<>();
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () ->
                      started.forEach(
                          m -> {
                            try {
                              m.close();
                            } catch (InterruptedException e) {
                              Thread.currentThread().interrupt();
                            }
                          })));
      for (int i = 0; i < 3; i++) {
        started.add(
            RedisServerProcess.launch(
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                "2000"));
      }
      List<String> create = new ArrayList<>(List.of("--cluster", "create"));
      started.forEach(m -> create.add(m.address()));
      create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
      String out = started.get(0).cli(create.toArray(String[]::new));
      if (!out.contains("All 16384 slots covered")) {
        throw new IllegalStateException("redis-cli --cluster create failed: " + out);
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      for (RedisServerProcess m : started) {
        while (!m.cli("cluster", "info").contains("cluster_state:ok")) {
          if (System.nanoTime() - deadline > 0) {
            throw new IllegalStateException("cluster not ok on " + m.address() + " within 30 s");
          }
          Thread.sleep(100);
        }
      }
      masters = started;
    }
    return "cluster:"
        + masters.stream().map(RedisServerProcess::url).collect(Collectors.joining(","));
  }
}
